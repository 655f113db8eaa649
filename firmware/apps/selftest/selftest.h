/* selftest: the parts main() runs, one file each. */
#ifndef SELFTEST_H
#define SELFTEST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int selftest_cxx_constructed(void);           /* ctor_check.cpp */
int selftest_run_checks(void);                /* checks.c: number of failed checks */
int selftest_run_kernel(void);                /* kernel.c: 0 when the result is right */
void selftest_emit_dtype_samples(unsigned first_index); /* dtypes.c */

#define SELFTEST_KERNEL_M 8
#define SELFTEST_KERNEL_K 16
#define SELFTEST_KERNEL_N 8

#ifdef __cplusplus
}
#endif

#endif
