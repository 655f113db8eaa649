/* The NPU model (QEMU, no NPU device): the driver API is ethosu_shim's, so there is
 * no IRQ, no register block and no PMU. The report says which NPU executed and how often; it
 * never reports NPU cycles or PMU events (there are none to report). */
#include <stdint.h>

#include <ethosu_driver.h>

#include "eor/protocol.h"
#include "runner_npu.h"
#include "runner_report.h"

static struct ethosu_driver npu;

int runner_npu_init(void) { return ethosu_init(&npu, NULL, NULL, 0, 1, 1); }

void runner_npu_pmu_reset(void) { ethosu_shim_reset_invocations(); }

void runner_npu_pmu_report(uint32_t runs) {
  (void)runs;
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_str(&record, "npu_executor", "npu-model");
  eor_record_str(&record, "npu_model_version", ethosu_shim_model_version());
  eor_record_str(&record, "npu_config", ethosu_shim_npu_config());
  eor_record_emit(&record);
  runner_report_counter("npu_delegations", ethosu_shim_invocations(), "npu_model");
}
