/* The runner's records on the UART result protocol (firmware/protocol). */
#ifndef RUNNER_REPORT_H
#define RUNNER_REPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void runner_report_begin(void);
void runner_report_nonce(uint32_t run_nonce); /* the host's nonce from the input area */
void runner_report_tensor(size_t index, uint32_t scalar_type, size_t ndim, const uint32_t *dims,
                          const void *data, size_t nbytes);
void runner_report_non_tensor_output(size_t index);
void runner_report_input_mismatch(size_t index, uint32_t dtype, size_t ndim, const uint32_t *dims,
                                  uint32_t want_dtype, size_t want_ndim, const int32_t *want_dims);
void runner_report_cycles(uint64_t cycles, uint32_t runs, const char *source);
void runner_report_pool(const char *name, size_t used, size_t size);
void runner_report_need(const char *what, size_t amount);
void runner_report_value(const char *name, uint64_t bytes);
void runner_report_counter(const char *name, uint64_t value, const char *source);
void runner_report_end(int code, const char *message, uint32_t et_error);

#ifdef __cplusplus
}
#endif

#endif
