/* Ethos-U85 NPU_OP_DMA_START. */
#include <string.h>

#include "em_internal.h"

/* An indexed DMA, as regor writes one for a TOSA GATHER or SCATTER
   (high_level_command_stream_generator.cpp GenerateHLCDMACommands, ethos_u85_register_cs_generator.cpp
   GenerateDMA): SIZE0 indices per run (1 in D1 mode), SIZE1 runs (D3 mode, else 1); index i0 of
   run i1 is the int32 at IDX + 4 * (i1 * SIZE0 + i0) + i1 * IDX_SKIP1 (D3: int64 indices read
   as their low words). A gather (source idx_mode ENABLED) copies LEN bytes from
   SRC + i1 * SRC_STRIDE1 + index * SRC_STRIDE0 to DST + i1 * DST_STRIDE1 + i0 * DST_STRIDE0; a
   scatter (destination idx_mode ENABLED; regor first copies values_in to values_out with a
   1-D DMA) copies them from SRC + i1 * SRC_STRIDE1 + i0 * SRC_STRIDE0 to
   DST + i1 * DST_STRIDE1 + index * DST_STRIDE0, one index after the other (a repeated index:
   the last write stays, as upstream's test_index_put.py says of the U85). An index outside
   0..IDX_MAX (TOSA leaves it undefined) stops. */
typedef struct em85_indexed {
    uint32_t size0, size1;
    uint64_t src_stride0, src_stride1, dst_stride0, dst_stride1, skip1;
} em85_indexed;

static em85_indexed indexed_geometry(em_state *s, unsigned mode) {
    em85_indexed d;
    d.size0 = mode == EM85_DMA_STRIDE_MODE_D1 ? 1u : EM85_F_NPU_SET_DMA0_SIZE0_SIZE(EM85_R0(s, NPU_SET_DMA0_SIZE0));
    d.size1 = mode == EM85_DMA_STRIDE_MODE_D3 ? EM85_F_NPU_SET_DMA0_SIZE1_SIZE(EM85_R0(s, NPU_SET_DMA0_SIZE1)) : 1u;
    d.src_stride0 = em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC_STRIDE0));
    d.src_stride1 = mode == EM85_DMA_STRIDE_MODE_D3 ? em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC_STRIDE1)) : 0u;
    d.dst_stride0 = em_base_of(EM85_R1(s, NPU_SET_DMA0_DST_STRIDE0));
    d.dst_stride1 = mode == EM85_DMA_STRIDE_MODE_D3 ? em_base_of(EM85_R1(s, NPU_SET_DMA0_DST_STRIDE1)) : 0u;
    d.skip1 = mode == EM85_DMA_STRIDE_MODE_D3 ? em_base_of(EM85_R1(s, NPU_SET_DMA0_IDX_SKIP1)) : 0u;
    return d;
}

static int dma_indexed(em_state *s, unsigned mode, int scatter, uint64_t src_reg, uint64_t dst_reg, uint64_t length,
                       uint64_t src_off, uint64_t dst_off) {
    const char *what = scatter ? "scatter" : "gather";
    em85_indexed d = indexed_geometry(s, mode);
    uint32_t idx_max = EM85_F_NPU_SET_DMA0_IDX_MAX_IDX_MAX(EM85_R1(s, NPU_SET_DMA0_IDX_MAX));
    unsigned idx_region = EM85_F_NPU_SET_DMA0_IDX_REGION_REGION(EM85_R0(s, NPU_SET_DMA0_IDX_REGION));
    uint64_t idx_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_IDX));
    uint32_t i0, i1;
    if (EM85_F_NPU_SET_DMA0_DST_REGION_REGION_MODE(dst_reg) != EM85_DMA_REGION_MODE_EXTERNAL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START %s into internal memory on Ethos-U85-%d "
                       "(not modelled)", what, s->macs);
    for (i1 = 0; i1 < d.size1; i1++) {
        for (i0 = 0; i0 < d.size0; i0++) {
            uint64_t at = idx_off + 4u * ((uint64_t)i1 * d.size0 + i0) + (uint64_t)i1 * d.skip1;
            const uint8_t *p = em_address(s, idx_region, at, 4u, "DMA index");
            const uint8_t *src;
            uint8_t *dst;
            int32_t index;
            uint64_t from, to;
            if (p == NULL) return s->status->code;
            index = (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
            if (index < 0 || (uint32_t)index > idx_max)
                return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START %s index %d outside 0..%u "
                               "(NPU_SET_DMA0_IDX_MAX) on Ethos-U85-%d (not modelled)", what, index, idx_max, s->macs);
            from = src_off + i1 * d.src_stride1 + (uint64_t)(scatter ? i0 : (uint32_t)index) * d.src_stride0;
            to = dst_off + i1 * d.dst_stride1 + (uint64_t)(scatter ? (uint32_t)index : i0) * d.dst_stride0;
            src = em_address(s, EM85_F_NPU_SET_DMA0_SRC_REGION_REGION(src_reg), from, length, "DMA source");
            if (src == NULL) return s->status->code;
            dst = em_address(s, EM85_F_NPU_SET_DMA0_DST_REGION_REGION(dst_reg), to, length, "DMA destination");
            if (dst == NULL) return s->status->code;
            memmove(dst, src, (size_t)length);
        }
    }
    return 0;
}

/* NPU_OP_DMA_START in 1-D mode: region to region (weight staging) or into the LUT memory
   (internal destination); a gather or scatter in 1-D, 2-D or 3-D mode (dma_indexed). Other
   2-D/3-D DMA stops. */
int em85_dma_start(em_state *s) {
    uint64_t src_reg = EM85_R0(s, NPU_SET_DMA0_SRC_REGION), dst_reg = EM85_R0(s, NPU_SET_DMA0_DST_REGION);
    uint64_t length = em_base_of(EM85_R1(s, NPU_SET_DMA0_LEN));
    uint64_t src_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_SRC)), dst_off = em_base_of(EM85_R1(s, NPU_SET_DMA0_DST));
    const uint8_t *src;
    uint8_t *dst;
    unsigned mode = EM85_F_NPU_SET_DMA0_SRC_REGION_STRIDE_MODE(src_reg);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_REGION_MODE(src_reg) != EM85_DMA_REGION_MODE_EXTERNAL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START from internal memory on Ethos-U85-%d", s->macs);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_IDX_MODE(src_reg) && EM85_F_NPU_SET_DMA0_DST_REGION_IDX_MODE(dst_reg))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START with source and destination idx_mode ENABLED on "
                       "Ethos-U85-%d (regor never writes both)", s->macs);
    if (EM85_F_NPU_SET_DMA0_SRC_REGION_IDX_MODE(src_reg) || EM85_F_NPU_SET_DMA0_DST_REGION_IDX_MODE(dst_reg))
        return dma_indexed(s, mode, (int)EM85_F_NPU_SET_DMA0_DST_REGION_IDX_MODE(dst_reg), src_reg, dst_reg, length,
                           src_off, dst_off);
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
