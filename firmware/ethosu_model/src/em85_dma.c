/* Ethos-U85 NPU_OP_DMA_START. */
#include <string.h>

#include "em_internal.h"

/* NPU_OP_DMA_START in 1-D mode: region to region (weight staging) or into the LUT memory
   (internal destination). 2-D/3-D and indexed (gather/scatter) DMA stop. */
int em85_dma_start(em_state *s) {
    uint64_t src_reg = EM85_R0(s, NPU_SET_DMA0_SRC_REGION), dst_reg = EM85_R0(s, NPU_SET_DMA0_DST_REGION);
    uint64_t length = em_base_of(EM85_R1(s, NPU_SET_DMA0_LEN));
    uint64_t src_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC)), dst_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_DST));
    const uint8_t *src;
    uint8_t *dst;
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_STRIDE_MODE(src_reg) != EM85_DMA_STRIDE_MODE_D1)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START NPU_SET_DMA0_SRC_REGION stride_mode value %u on "
                       "Ethos-U85-%d (not modelled)", EM85_F_NPU_SET_DMA0_SRC_REGION_STRIDE_MODE(src_reg), s->macs);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_IDX_MODE(src_reg) || EM85_F_NPU_SET_DMA0_DST_REGION_IDX_MODE(dst_reg))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START idx_mode 1 (gather/scatter) on Ethos-U85-%d "
                       "(not modelled)", s->macs);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_REGION_MODE(src_reg) != EM85_DMA_REGION_MODE_EXTERNAL)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START from internal memory on Ethos-U85-%d", s->macs);
    src = em_address(s, EM85_F_NPU_SET_DMA0_SRC_REGION_REGION(src_reg), src_off, length, "DMA source");
    if (src == NULL) return s->status->code;
    if (EM85_F_NPU_SET_DMA0_DST_REGION_REGION_MODE(dst_reg) == EM85_DMA_REGION_MODE_INTERNAL) {
        unsigned slot;
        if (dst_off + length > EM85_LUT_BYTES)
            return em_fail(s, ETHOSU_MODEL_BAD_ADDRESS, "DMA to the LUT memory offset %x length %u ends beyond its %u "
                           "bytes", (unsigned)dst_off, (unsigned)length, EM85_LUT_BYTES);
        memcpy(s->lut85 + dst_off, src, (size_t)length);
        for (slot = 0; slot < EM85_LUT_BYTES / EM85_LUT_SLOT; slot++)
            if (dst_off < (slot + 1u) * EM85_LUT_SLOT && dst_off + length > slot * EM85_LUT_SLOT)
                s->lut_loaded |= 1u << slot;
        return 0;
    }
    dst = em_address(s, EM85_F_NPU_SET_DMA0_DST_REGION_REGION(dst_reg), dst_off, length, "DMA destination");
    if (dst == NULL) return s->status->code;
    memmove(dst, src, (size_t)length);
    return 0;
}
