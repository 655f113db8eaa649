/* TEMPORARY: the public API of firmware/ethosu_model/include/ethosu_model.h (branch vnpu-core),
 * declared here only until that library is merged; ethosu_shim.c includes the real header
 * whenever it exists. Delete this file once vnpu-core is merged. */
#ifndef ETHOSU_MODEL_PENDING_H
#define ETHOSU_MODEL_PENDING_H

#include <stddef.h>
#include <stdint.h>

typedef struct ethosu_model_npu {
  uint8_t arch; /* 55 or 65 */
  uint16_t macs;
  uint8_t cores;
} ethosu_model_npu;

typedef struct ethosu_model_status {
  int code;
  char message[192];
} ethosu_model_status;

int ethosu_model_invoke(const ethosu_model_npu *npu, const void *custom_data,
                        size_t custom_data_size, const uint64_t *base_addr,
                        const size_t *base_addr_size, int num_base_addr,
                        ethosu_model_status *status);

#endif
