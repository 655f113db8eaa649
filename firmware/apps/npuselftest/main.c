/* npuselftest: run the embedded Vela command stream through the Ethos-U driver API (served by
 * the NPU model) on the target CPU, then check every output byte against the
 * TOSA reference values the host computed. Reports through the UART protocol. */
#include <stdio.h>
#include <string.h>

#include <ethosu_driver.h>

#include "eor/platform.h"
#include "eor/protocol.h"
#include "npu_case.h"

#define N_BASES 3 /* weights, scratch (inputs + outputs), fast scratch: the delegate's order */

static uint8_t scratch[NPU_CASE_SCRATCH_SIZE > 0 ? NPU_CASE_SCRATCH_SIZE : 1]
    __attribute__((section(".eor.bulk_bss"), aligned(16)));
#if NPU_CASE_FAST_SCRATCH_SIZE > 0
/* region 2: the memory mode's fast scratch (the .pte has no size; the runner's, runner.toml) */
static uint8_t fast_scratch[NPU_CASE_FAST_SCRATCH_SIZE]
    __attribute__((section(".eor.fast_bss"), aligned(16)));
#define FAST_SCRATCH_BASE ((uint64_t)(uintptr_t)fast_scratch)
#else
#define FAST_SCRATCH_BASE 0u
#endif
static struct ethosu_driver npu;

static void report_executor(void) {
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_str(&record, "npu_executor", "npu-model");
  eor_record_str(&record, "npu_model_version", ethosu_shim_model_version());
  eor_record_str(&record, "npu_config", ethosu_shim_npu_config());
  eor_record_str(&record, "npu_case", NPU_CASE_NAME);
  eor_record_str(&record, "npu_case_compiled_for", NPU_CASE_COMPILED_FOR);
  eor_record_emit(&record);
}

static int invoke_case(void) {
  memset(scratch, 0, sizeof scratch);
  for (unsigned i = 0; i < NPU_CASE_INPUTS; ++i) {
    memcpy(scratch + npu_case_inputs[i].offset, npu_case_inputs[i].data,
           npu_case_inputs[i].size);
  }
  struct ethosu_driver *drv = ethosu_reserve_driver();
  eor_protocol_check("driver_reserved", drv != NULL, drv != NULL, 1);
  if (drv == NULL) return -1;
  uint64_t bases[N_BASES] = {(uint64_t)(uintptr_t)npu_case_weights,
                             (uint64_t)(uintptr_t)scratch, FAST_SCRATCH_BASE};
  size_t sizes[N_BASES] = {NPU_CASE_WEIGHTS_SIZE, NPU_CASE_SCRATCH_SIZE,
                           NPU_CASE_FAST_SCRATCH_SIZE};
  const uint64_t start = eor_cycles();
  int rc = ethosu_invoke_v3(drv, npu_case_cmd, (int)NPU_CASE_CMD_SIZE, bases, sizes, N_BASES,
                            NULL);
  eor_protocol_metric("npu_model_invoke_cpu_cycles", eor_cycles() - start, eor_cycles_unit(),
                      eor_cycles_source());
  ethosu_release_driver(drv);
  return rc;
}

static unsigned check_output(unsigned index) {
  const npu_case_io *out = &npu_case_expecteds[index];
  const uint8_t *got = scratch + out->offset;
  unsigned differ = 0;
  for (uint32_t b = 0; b < out->size; ++b) differ += got[b] != out->data[b];
  char name[32];
  snprintf(name, sizeof name, "output%u_exact", index);
  eor_protocol_check(name, differ == 0, differ, 0);
  eor_protocol_tensor(index, out->dtype, out->shape, out->rank, got, out->size);
  return differ;
}

int main(void) {
  printf("npuselftest: %s (compiled for %s) on %s\n", NPU_CASE_NAME, NPU_CASE_COMPILED_FOR,
         ethosu_shim_npu_config());
  eor_begin("npuselftest");
  report_executor();
  int init = ethosu_init(&npu, NULL, NULL, 0, 1, 1);
  eor_protocol_check("driver_init", init == 0, init, 0);
  int rc = init == 0 ? invoke_case() : -1;
  eor_protocol_check("npu_invoke", rc == 0, rc, 0);
  unsigned failed = rc != 0 || init != 0;
  if (rc == 0) {
    for (unsigned i = 0; i < NPU_CASE_EXPECTEDS; ++i) failed += check_output(i) != 0;
  }
  eor_protocol_metric("npu_delegations", ethosu_shim_invocations(), "count", "npu_model");
  eor_protocol_end(failed ? "fail" : "pass", failed ? EOR_EXIT_FAIL : EOR_EXIT_PASS);
  eor_semihosting_exit(failed ? EOR_EXIT_FAIL : EOR_EXIT_PASS);
}
