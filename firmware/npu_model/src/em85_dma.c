/* Ethos-U85 NPU_OP_DMA_START. */
#include <string.h>

#include "em_internal.h"

/* A gather (source idx_mode ENABLED), as regor writes one for a TOSA GATHER
   (high_level_command_stream_generator.cpp GenerateGatherScatter, ethos_u85_register_cs_generator.cpp
   GenerateDMA): SIZE0 indices per run (1 in D1 mode), SIZE1 runs (D3 mode, else 1); index i0 of
   run i1 is the int32 at IDX + 4 * (i1 * SIZE0 + i0) + i1 * IDX_SKIP1 (D3: int64 indices read
   as their low words); it copies LEN bytes from SRC + i1 * SRC_STRIDE1 + index * SRC_STRIDE0 to
   DST + i1 * DST_STRIDE1 + i0 * DST_STRIDE0. An index outside 0..IDX_MAX (TOSA leaves it
   undefined) stops. */
static int dma_gather(em_state *s, unsigned mode, uint64_t src_reg, uint64_t dst_reg, uint64_t length,
                      uint64_t src_off, uint64_t dst_off) {
    uint32_t size0 = mode == EM85_DMA_STRIDE_MODE_D1 ? 1u : EM85_F_NPU_SET_DMA0_SIZE0_SIZE(EM85_R0(s, NPU_SET_DMA0_SIZE0));
    uint32_t size1 = mode == EM85_DMA_STRIDE_MODE_D3 ? EM85_F_NPU_SET_DMA0_SIZE1_SIZE(EM85_R0(s, NPU_SET_DMA0_SIZE1)) : 1u;
    uint64_t src_stride0 = em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC_STRIDE0));
    uint64_t src_stride1 = mode == EM85_DMA_STRIDE_MODE_D3 ? em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC_STRIDE1)) : 0u;
    uint64_t dst_stride0 = mode == EM85_DMA_STRIDE_MODE_D1 ? 0u : em_base_of(EM85_R1(s, NPU_SET_DMA0_DST_STRIDE0));
    uint64_t dst_stride1 = mode == EM85_DMA_STRIDE_MODE_D3 ? em_base_of(EM85_R1(s, NPU_SET_DMA0_DST_STRIDE1)) : 0u;
    uint64_t skip1 = mode == EM85_DMA_STRIDE_MODE_D3 ? em_base_of(EM85_R1(s, NPU_SET_DMA0_IDX_SKIP1)) : 0u;
    uint32_t idx_max = EM85_F_NPU_SET_DMA0_IDX_MAX_IDX_MAX(EM85_R1(s, NPU_SET_DMA0_IDX_MAX));
    unsigned idx_region = EM85_F_NPU_SET_DMA0_IDX_REGION_REGION(EM85_R0(s, NPU_SET_DMA0_IDX_REGION));
    uint64_t idx_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_IDX));
    uint32_t i0, i1;
    if (EM85_F_NPU_SET_DMA0_DST_REGION_REGION_MODE(dst_reg) != EM85_DMA_REGION_MODE_EXTERNAL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START gather into internal memory on Ethos-U85-%d "
                       "(not modelled)", s->macs);
    for (i1 = 0; i1 < size1; i1++) {
        for (i0 = 0; i0 < size0; i0++) {
            uint64_t at = idx_off + 4u * ((uint64_t)i1 * size0 + i0) + (uint64_t)i1 * skip1;
            const uint8_t *p = em_address(s, idx_region, at, 4u, "DMA index");
            const uint8_t *src;
            uint8_t *dst;
            int32_t index;
            if (p == NULL) return s->status->code;
            index = (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
            if (index < 0 || (uint32_t)index > idx_max)
                return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START gather index %d outside 0..%u "
                               "(NPU_SET_DMA0_IDX_MAX) on Ethos-U85-%d (not modelled)", index, idx_max, s->macs);
            src = em_address(s, EM85_F_NPU_SET_DMA0_SRC_REGION_REGION(src_reg),
                             src_off + i1 * src_stride1 + (uint64_t)index * src_stride0, length, "DMA source");
            if (src == NULL) return s->status->code;
            dst = em_address(s, EM85_F_NPU_SET_DMA0_DST_REGION_REGION(dst_reg),
                             dst_off + i1 * dst_stride1 + i0 * dst_stride0, length, "DMA destination");
            if (dst == NULL) return s->status->code;
            memmove(dst, src, (size_t)length);
        }
    }
    return 0;
}

/* NPU_OP_DMA_START in 1-D mode: region to region (weight staging) or into the LUT memory
   (internal destination); a gather in 1-D, 2-D or 3-D mode (dma_gather). Other 2-D/3-D DMA and
   scatter (destination idx_mode) stop. */
int em85_dma_start(em_state *s) {
    uint64_t src_reg = EM85_R0(s, NPU_SET_DMA0_SRC_REGION), dst_reg = EM85_R0(s, NPU_SET_DMA0_DST_REGION);
    uint64_t length = em_base_of(EM85_R1(s, NPU_SET_DMA0_LEN));
    uint64_t src_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC)), dst_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_DST));
    const uint8_t *src;
    uint8_t *dst;
    unsigned mode = EM85_F_NPU_SET_DMA0_SRC_REGION_STRIDE_MODE(src_reg);
    if (EM85_F_NPU_SET_DMA0_DST_REGION_IDX_MODE(dst_reg))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START NPU_SET_DMA0_DST_REGION idx_mode value 1 (scatter) "
                       "on Ethos-U85-%d (not modelled)", s->macs);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_REGION_MODE(src_reg) != EM85_DMA_REGION_MODE_EXTERNAL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START from internal memory on Ethos-U85-%d", s->macs);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_IDX_MODE(src_reg))
        return dma_gather(s, mode, src_reg, dst_reg, length, src_off, dst_off);
    if (mode != EM85_DMA_STRIDE_MODE_D1)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START NPU_SET_DMA0_SRC_REGION stride_mode value %u on "
                       "Ethos-U85-%d (not modelled)", mode, s->macs);
    src = em_address(s, EM85_F_NPU_SET_DMA0_SRC_REGION_REGION(src_reg), src_off, length, "DMA source");
    if (src == NULL) return s->status->code;
    if (EM85_F_NPU_SET_DMA0_DST_REGION_REGION_MODE(dst_reg) == EM85_DMA_REGION_MODE_INTERNAL) {
        unsigned slot;
        if (dst_off + length > EM85_LUT_BYTES)
            return em_fail(s, NPU_MODEL_BAD_ADDRESS, "DMA to the LUT memory offset %x length %u ends beyond its %u "
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
