/* Ethos-U85: what the observer (em_observe.c) reports that its registers do not say plainly. A
   CHAINED OFM/IFM is a chain buffer inside the NPU; a transposed OFM is stored with its axes
   permuted (em85_output.c stage_transpose leaves the current operation's permutation in
   s->staged); an operation reads of its inputs what em85_*.c read. An elementwise operand is
   read over the OFM's (operation) shape, once along a broadcast axis, not at all when it is the
   scalar or a unary operation's IFM2; a MatMul (CONV weights_ifm2) reads IFM row 0 and IFM2's
   OFM-depth columns, each over the IFM depth; a NONE pool reads its accumulator from IFM2 over
   the OFM shape, not its dummy IFM. */
#include "em_internal.h"

int em85_chained(const em_state *s, int which) {
    uint64_t prec;
    if (which == 2)
        return EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_STORAGE(EM85_R0(s, NPU_SET_OFM_PRECISION)) ==
               EM85_ACTIVATION_STORAGE_CHAINED;
    prec = which == 0 ? EM85_R0(s, NPU_SET_IFM_PRECISION) : EM85_R0(s, NPU_SET_IFM2_PRECISION);
    return EM85_F_NPU_SET_IFM_PRECISION_ACTIVATION_STORAGE(prec) == EM85_ACTIVATION_STORAGE_CHAINED;
}

void em85_ofm_axes(const em_state *s, int axes[3]) {
    unsigned transpose = EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_TRANSPOSE(EM85_R0(s, NPU_SET_OFM_PRECISION));
    int i;
    for (i = 0; i < 3; i++) axes[i] = transpose == EM85_ACTIVATION_TRANSPOSE_HWC ? i : s->staged.held[i];
}

static int unary85(unsigned mode) {
    return mode == EM85_ELEMENTWISE_MODE_LRELU || mode == EM85_ELEMENTWISE_MODE_ABS ||
           mode == EM85_ELEMENTWISE_MODE_CLZ || mode == EM85_ELEMENTWISE_MODE_NOT;
}

static void elementwise_operand85(em_state *s, int which, npu_model_fmap *f) {
    unsigned mode = EM85_F_NPU_SET_IFM_BROADCAST_BROADCAST_MODE(which == 0 ? EM85_R0(s, NPU_SET_IFM_BROADCAST)
                                                                           : EM85_R0(s, NPU_SET_IFM2_BROADCAST));
    em_observe_broadcast(s, f, mode == EM85_BROADCAST_MODE_SCALAR, (mode & EM85_BROADCAST_MODE_H) != 0,
                         (mode & EM85_BROADCAST_MODE_W) != 0, (mode & EM85_BROADCAST_MODE_C) != 0);
}

void em85_reads(em_state *s, unsigned code, unsigned param, npu_model_operation *op) {
    uint64_t word = (uint64_t)param << 16;
    if (code == EM85_CMD0_NPU_OP_ELEMENTWISE) {
        elementwise_operand85(s, 0, &op->ifm);
        if (unary85(EM85_F_NPU_OP_ELEMENTWISE_ELEMENTWISE_MODE(word))) em_observe_unread(&op->ifm2);
        else elementwise_operand85(s, 1, &op->ifm2);
    } else if (code == EM85_CMD0_NPU_OP_CONV && EM85_F_NPU_OP_CONV_WEIGHTS_IFM2(word)) {
        em_observe_over(&op->ifm, 1, em85_ofm_dim(s, 1), em85_ifm_depth(s));
        em_observe_over(&op->ifm2, 1, em85_ofm_dim(s, 2), em85_ifm_depth(s));
    } else if (code == EM85_CMD0_NPU_OP_POOL &&
               EM85_F_NPU_SET_ACC_FORMAT_ACC_INPUT(EM85_R0(s, NPU_SET_ACC_FORMAT)) == EM85_ACC_INPUT_IFM2) {
        em_observe_unread(&op->ifm);
        em_observe_over(&op->ifm2, em85_ofm_dim(s, 0), em85_ofm_dim(s, 1), em85_ofm_dim(s, 2));
    } else {
        em_observe_unread(&op->ifm2);
    }
}
