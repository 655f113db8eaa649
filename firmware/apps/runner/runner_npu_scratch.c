/* Ethos-U fast scratch (the delegate's third base pointer), shared by both NPU executors:
 * the core driver on a real/FVP NPU and the NPU model. */
#include <stddef.h>
#include <stdint.h>

#include "runner_npu.h"
#include "runner_report.h"

#if RUNNER_FAST_SCRATCH_SIZE > 0
static uint8_t fast_scratch[RUNNER_FAST_SCRATCH_SIZE]
    __attribute__((section(".eor.fast_bss"), aligned(16)));
unsigned char *ethosu_fast_scratch = fast_scratch;
size_t ethosu_fast_scratch_size = RUNNER_FAST_SCRATCH_SIZE;
#endif

void runner_npu_pool_report(void) {
#if RUNNER_FAST_SCRATCH_SIZE > 0
  runner_report_pool("fast_scratch", RUNNER_FAST_SCRATCH_SIZE, RUNNER_FAST_SCRATCH_SIZE);
#endif
}
