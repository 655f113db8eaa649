/* Ethos-U85: the operations of a U85 command stream, dispatched by opcode. What is not modelled
   stops with one line naming the command, the field, its value and the target. */
#include "em_internal.h"

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
    case EM85_CMD0_NPU_OP_POOL: {
        unsigned mode = EM85_F_NPU_OP_POOL_POOLING_MODE((uint64_t)param << 16);
        if (mode == EM85_POOLING_MODE_ARGMAX_X || mode == EM85_POOLING_MODE_ARGMAX_Y) return em85_op_argmax(s, mode);
        return em85_op_pool(s, mode);
    }
    case EM85_CMD0_NPU_OP_RESIZE: return em85_op_resize(s, EM85_F_NPU_OP_RESIZE_RESIZE_MODE((uint64_t)param << 16));
    case EM85_CMD0_NPU_OP_DMA_START: return em85_dma_start(s);
    default:
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "command %s (%x) on Ethos-U85-%d (not modelled)",
                       em_opname(85, 0, code), code, s->macs);
    }
}

int em85_run_operation(em_state *s, unsigned code, unsigned param) {
    int rc = run_operation(s, code, param);
    if (rc) return rc;
    em85_store_transposed(s);
    return em85_cond_after(s, code);
}
