/* Ethos-U85: the operations of a U85 command stream. What is not modelled stops with one line
   naming the command, the field, its value and the target. */
#include <string.h>

#include "em_internal.h"


/* ACC_FORMAT: the accumulator a command uses (what is modelled: reset or, where the caller
   takes it, loaded from IFM2; output enabled; 32 or 48 bits). */
int em85_accumulator(em_state *s, const char *command, int ifm2_allowed, int *bits, int *from_ifm2) {
    uint64_t acc = EM85_R0(s, NPU_SET_ACC_FORMAT);
    unsigned input = EM85_F_NPU_SET_ACC_FORMAT_ACC_INPUT(acc), output = EM85_F_NPU_SET_ACC_FORMAT_ACC_OUTPUT(acc);
    unsigned format = EM85_F_NPU_SET_ACC_FORMAT_ACC_FORMAT(acc);
    *from_ifm2 = input == EM85_ACC_INPUT_IFM2 && ifm2_allowed;
    if (input != EM85_ACC_INPUT_RESET && !*from_ifm2)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_input value %u on Ethos-U85-%d (not modelled)",
                       command, input, s->macs);
    if (output != EM85_ACC_OUTPUT_ENABLE)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_output value %u on Ethos-U85-%d (not modelled)",
                       command, output, s->macs);
    if (format != EM85_ACC_FORMAT_I32 && format != EM85_ACC_FORMAT_I48)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_format value %u", command, format);
    *bits = format == EM85_ACC_FORMAT_I32 ? 32 : 48;
    return 0;
}

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

static int run_operation(em_state *s, unsigned code, unsigned param) {
    switch (code) {
    case EM85_CMD0_NPU_OP_STOP: return 0;
    case EM85_CMD0_NPU_OP_IRQ:
    case EM85_CMD0_NPU_OP_DMA_WAIT:
    case EM85_CMD0_NPU_OP_KERNEL_WAIT:
    case EM85_CMD0_NPU_OP_PMU_MASK: return 0; /* ordering/timing only: the model is sequential */
    case EM85_CMD0_NPU_OP_ELEMENTWISE:
        return em85_op_elementwise(s, EM85_F_NPU_OP_ELEMENTWISE_ELEMENTWISE_MODE((uint64_t)param << 16));
    case EM85_CMD0_NPU_OP_CONV:
        if (EM85_F_NPU_OP_CONV_WEIGHTS_IFM2((uint64_t)param << 16)) return em85_op_matmul(s);
        return em_op_conv(s, 0);
    case EM85_CMD0_NPU_OP_DEPTHWISE: return em_op_conv(s, 1);
    case EM85_CMD0_NPU_OP_POOL: return em85_op_pool(s, EM85_F_NPU_OP_POOL_POOLING_MODE((uint64_t)param << 16));
    case EM85_CMD0_NPU_OP_RESIZE: return em85_op_resize(s, EM85_F_NPU_OP_RESIZE_RESIZE_MODE((uint64_t)param << 16));
    case EM85_CMD0_NPU_OP_DMA_START: return em85_dma_start(s);
    default:
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "command %s (%x) on Ethos-U85-%d (not modelled)",
                       em_opname(85, 0, code), code, s->macs);
    }
}

int em85_run_operation(em_state *s, unsigned code, unsigned param) {
    int rc = run_operation(s, code, param);
    if (rc == 0) em85_store_transposed(s);
    return rc;
}
