/* The runner's NPU hooks: no-ops on CPU-only builds, the Ethos-U driver otherwise. */
#ifndef RUNNER_NPU_H
#define RUNNER_NPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int runner_npu_init(void);               /* 0 on success (always 0 without an NPU) */
void runner_npu_pmu_reset(void);         /* zero the accumulated PMU counts */
void runner_npu_pmu_report(uint32_t runs); /* NPU cycles and the named event counters */
void runner_npu_pool_report(void);       /* Ethos-U fast scratch size */

#ifdef __cplusplus
}
#endif

#endif
