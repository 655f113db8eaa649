/* NPU_OP_DMA_START: 1-D copies between regions and into SHRAM (LUTs). */
#include <string.h>

#include "em_internal.h"

int em_dma_start(em_state *s) {
    uint64_t src_reg = EM_R0(s, NPU_SET_DMA0_SRC_REGION), dst_reg = EM_R0(s, NPU_SET_DMA0_DST_REGION);
    uint64_t length = EM_D1(s, NPU_SET_DMA0_LEN);
    uint64_t src_off = em_base_of(EM_R1(s, NPU_SET_DMA0_SRC)), dst_off = em_base_of(EM_R1(s, NPU_SET_DMA0_DST));
    const uint8_t *src;
    uint8_t *dst;
    if (EM_F_NPU_SET_DMA0_SRC_REGION_STRIDE_MODE(src_reg) != EM_STRIDE_MODE_STRIDE_MODE_1D ||
        EM_F_NPU_SET_DMA0_DST_REGION_STRIDE_MODE(dst_reg) != EM_STRIDE_MODE_STRIDE_MODE_1D)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START with a 2D/3D stride mode");
    if (EM_F_NPU_SET_DMA0_SRC_REGION_INTERNAL(src_reg))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START from internal memory");
    src = em_address(s, EM_F_NPU_SET_DMA0_SRC_REGION_REGION(src_reg), src_off, length, "DMA source");
    if (src == NULL) return s->status->code;
    if (EM_F_NPU_SET_DMA0_DST_REGION_INTERNAL(dst_reg)) {
        if (dst_off + length > (uint64_t)s->shram_banks * 1024u)
            /* Vela 5.1.0 does this for a LUT fused into a transpose on 16-bank U55s: regor's
               InsertTransposeCommand asks for a block config without lutBytes, so its LUT
               banks start at the end of SHRAM (ethos_u55.cpp lutBanks, reservedEndBanks 0). */
            return em_fail(s, NPU_MODEL_BAD_ADDRESS,
                           "DMA to SHRAM offset %x length %u ends beyond its %d banks (the stream "
                           "places data outside SHRAM; undefined on the hardware)",
                           (unsigned)dst_off, (unsigned)length, s->shram_banks);
        memcpy(s->shram + dst_off, src, (size_t)length);
        em_lut_written(s, dst_off, length);
        return 0;
    }
    dst = em_address(s, EM_F_NPU_SET_DMA0_DST_REGION_REGION(dst_reg), dst_off, length, "DMA destination");
    if (dst == NULL) return s->status->code;
    memmove(dst, src, (size_t)length);
    return 0;
}
