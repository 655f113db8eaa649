/* Test-only entries into the model's internal functions (built only with NPU_MODEL_PROBE,
   loaded by tests/npu_model through ctypes; never part of a firmware build). */
#include <string.h>

#include "../src/em_internal.h"

static em_state g_probe;

/* The em_kernel fields, in this order, as the tests pass them. */
enum { K_KH, K_KW, K_DIL_X, K_DIL_Y, K_STRIDE_X, K_STRIDE_Y, K_OFM_DEPTH, K_IFM_DEPTH, K_DEPTHWISE,
       K_PART_KERNEL, K_IFM_BITS, K_OFM_BLOCK_DEPTH, K_UBLOCK_W, K_UBLOCK_H, K_FAST, K_SPARSE, K_FIELDS };

static em_state *probe_state(npu_model_status *status) {
    memset(status, 0, sizeof(*status));
    g_probe.status = status;
    return &g_probe;
}

/* em_decode_weights_u85 on streams the caller holds; dense must hold the kernel's weights. */
NPU_MODEL_API int npu_model_probe_u85_weights(const int fields[K_FIELDS], int macs, const uint8_t *const data[4],
                                                    const uint32_t length[4], int16_t *dense,
                                                    npu_model_status *status) {
    em_kernel k;
    em_weight_streams w;
    int i;
    memset(&k, 0, sizeof(k));
    k.kh = fields[K_KH]; k.kw = fields[K_KW]; k.dil_x = fields[K_DIL_X]; k.dil_y = fields[K_DIL_Y];
    k.stride_x = fields[K_STRIDE_X]; k.stride_y = fields[K_STRIDE_Y];
    k.ofm_depth = fields[K_OFM_DEPTH]; k.ifm_depth = fields[K_IFM_DEPTH];
    k.depthwise = fields[K_DEPTHWISE]; k.part_kernel = fields[K_PART_KERNEL]; k.ifm_bits = fields[K_IFM_BITS];
    k.ofm_block_depth = fields[K_OFM_BLOCK_DEPTH]; k.ublock_w = fields[K_UBLOCK_W]; k.ublock_h = fields[K_UBLOCK_H];
    k.fast = fields[K_FAST]; k.sparse = fields[K_SPARSE];
    k.ofm_lo = 0; k.ofm_hi = k.ofm_depth;
    for (i = 0; i < 4; i++) { w.data[i] = data[i]; w.length[i] = length[i]; }
    return em_decode_weights_u85(probe_state(status), &k, macs, &w, dense);
}

/* em_load_scales_u85, copied out of the model state. */
NPU_MODEL_API int npu_model_probe_u85_scales(const uint8_t *records, uint64_t length, int depth, int acc48,
                                                   int64_t *bias, int32_t *mult, uint8_t *shift,
                                                   npu_model_status *status) {
    em_state *s = probe_state(status);
    int rc = em_load_scales_u85(s, records, length, depth, acc48);
    if (rc == 0 && depth > 0) {
        memcpy(bias, s->bias, (size_t)depth * sizeof(*bias));
        memcpy(mult, s->mult, (size_t)depth * sizeof(*mult));
        memcpy(shift, s->shift, (size_t)depth * sizeof(*shift));
    }
    return rc;
}
