/* The Ethos-U driver API, as far as ExecuTorch's Ethos-U delegate (backends/arm/runtime,
 * EthosUBackend_Cortex_M.cpp) and the runner call it, served by the NPU model
 * (firmware/npu_model) instead of the Ethos-U core driver. The names and signatures are
 * the driver's public API (hal_ethos_u include/ethosu_driver.h); the implementation is
 * ethosu_shim.c. There is no NPU device behind it: no registers, no IRQ, no PMU. */
#ifndef ETHOSU_SHIM_DRIVER_H
#define ETHOSU_SHIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One "device": the model configured for the target the firmware was built for. */
struct ethosu_driver {
  bool initialised;
  bool reserved;
  const void *fast_memory;
  size_t fast_memory_size;
};

struct ethosu_driver_version {
  uint8_t major;
  uint8_t minor;
  uint8_t patch;
};

int ethosu_init(struct ethosu_driver *drv, void *const base_address, const void *fast_memory,
                const size_t fast_memory_size, uint32_t secure_enable,
                uint32_t privilege_enable);
void ethosu_deinit(struct ethosu_driver *drv);
void ethosu_get_driver_version(struct ethosu_driver_version *ver);

/* Runs the command stream in custom_data_ptr (a COP1 driver payload) on the model, synchronously.
 * 0 on success, else negative; the model's reason is reported as a protocol note first. */
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr,
                     const int custom_data_size, uint64_t *const base_addr,
                     const size_t *base_addr_size, const int num_base_addr, void *user_arg);

#define ethosu_invoke(drv, custom_data_ptr, custom_data_size, base_addr, base_addr_size,        \
                      num_base_addr)                                                            \
  ethosu_invoke_v3(drv, custom_data_ptr, custom_data_size, base_addr, base_addr_size,           \
                   num_base_addr, 0)

struct ethosu_driver *ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver *drv);

/* Not in the driver API: what the shim ran, for the runner's report. */
uint32_t ethosu_shim_invocations(void);
void ethosu_shim_reset_invocations(void);
const char *ethosu_shim_model_version(void);
const char *ethosu_shim_npu_config(void);

#ifdef __cplusplus
}
#endif

#endif
