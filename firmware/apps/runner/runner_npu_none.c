/* CPU-only builds: there is no NPU to initialise or count. */
#include "runner_npu.h"

int runner_npu_init(void) { return 0; }
void runner_npu_pmu_reset(void) {}
void runner_npu_pmu_report(uint32_t runs) { (void)runs; }
void runner_npu_pool_report(void) {}
