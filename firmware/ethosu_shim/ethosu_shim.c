/* The Ethos-U driver API on the NPU model: one driver handle, synchronous invokes
 * forwarded to npu_model_invoke with the NPU configuration the firmware was built for
 * (from the target catalogue, through CMake: ETHOSU_SHIM_ARCH/MACS/CORES). A payload the
 * model refuses (an arch/MAC mismatch, an unimplemented command) is reported as a protocol
 * note naming the model, the target and the model's reason, and the invoke fails. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "eor/protocol.h"
#include "ethosu_driver.h"

#include <npu_model.h>

#ifndef ETHOSU_SHIM_ARCH
#error "ETHOSU_SHIM_ARCH (55, 65 or 85) comes from the target catalogue through CMake"
#endif
#if ETHOSU_SHIM_ARCH != 55 && ETHOSU_SHIM_ARCH != 65 && ETHOSU_SHIM_ARCH != 85
#error "the NPU model runs Ethos-U55, Ethos-U65 and Ethos-U85 only"
#endif

static const npu_model_npu npu_config = {
    .arch = ETHOSU_SHIM_ARCH, .macs = ETHOSU_SHIM_MACS, .cores = ETHOSU_SHIM_CORES};
static struct ethosu_driver *registered;
static uint32_t invocations;

int ethosu_init(struct ethosu_driver *drv, void *const base_address, const void *fast_memory,
                const size_t fast_memory_size, uint32_t secure_enable,
                uint32_t privilege_enable) {
  (void)base_address; /* no registers: the model is not a device */
  (void)secure_enable;
  (void)privilege_enable;
  if (drv == NULL || registered != NULL) return -1;
  drv->initialised = true;
  drv->reserved = false;
  drv->fast_memory = fast_memory;
  drv->fast_memory_size = fast_memory_size;
  registered = drv;
  return 0;
}

void ethosu_deinit(struct ethosu_driver *drv) {
  if (drv != NULL && drv == registered) {
    drv->initialised = false;
    registered = NULL;
  }
}

void ethosu_get_driver_version(struct ethosu_driver_version *ver) {
  ver->major = 1;
  ver->minor = 0;
  ver->patch = 0;
}

struct ethosu_driver *ethosu_reserve_driver(void) {
  if (registered == NULL || registered->reserved) return NULL; /* single-threaded firmware */
  registered->reserved = true;
  return registered;
}

void ethosu_release_driver(struct ethosu_driver *drv) {
  if (drv != NULL) drv->reserved = false;
}

static void report_refusal(int code, const npu_model_status *status) {
  char message[sizeof status->message + 64];
  snprintf(message, sizeof message, "NPU model (%s): %s", ETHOSU_SHIM_TARGET,
           status->message[0] != '\0' ? status->message : "invoke failed without a reason");
  eor_record_t record;
  eor_record_start(&record, "note");
  eor_record_str(&record, "message", message);
  eor_record_str(&record, "npu_executor", "npu-model");
  eor_record_str(&record, "npu_config", ETHOSU_SHIM_TARGET);
  eor_record_i64(&record, "npu_model_code", code);
  eor_record_emit(&record);
}

int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr,
                     const int custom_data_size, uint64_t *const base_addr,
                     const size_t *base_addr_size, const int num_base_addr, void *user_arg) {
  (void)user_arg;
  if (drv == NULL || !drv->initialised || custom_data_ptr == NULL || custom_data_size <= 0) {
    return -1;
  }
  npu_model_status status = {0, {0}};
  int code = npu_model_invoke(&npu_config, custom_data_ptr, (size_t)custom_data_size,
                                 base_addr, base_addr_size, num_base_addr, &status);
  if (code != 0) {
    report_refusal(code, &status);
    return -1;
  }
  ++invocations;
  return 0;
}

uint32_t ethosu_shim_invocations(void) { return invocations; }
void ethosu_shim_reset_invocations(void) { invocations = 0; }
const char *ethosu_shim_model_version(void) { return ETHOSU_SHIM_MODEL_VERSION; }
const char *ethosu_shim_npu_config(void) { return ETHOSU_SHIM_TARGET; }
