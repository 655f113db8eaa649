/* The operation observer (npu_model_observe): after each NPU_OP_CONV/DEPTHWISE/POOL/
   ELEMENTWISE/RESIZE (RESIZE: U85 only; and, with index -1 and no feature maps, each
   NPU_OP_DMA_START) the callback sees
   the operation's index, command and feature maps as the operation really read and stored them;
   a non-zero return stops the stream there (NPU_MODEL_STOPPED).
   On the U85 that is not always what the registers say: a CHAINED OFM/IFM is a chain buffer
   inside the NPU (em_fmap.c load_chained; reported with its chain buffer and region -1); a
   transposed OFM is stored with its axes permuted through registers that describe the stored
   tensor (em85_output.c; reported with the stored shape and the permutation); and an operand
   the operation does not read (a scalar or a unary operation's IFM2, a NONE pool's dummy IFM)
   is not reported, a broadcast axis is read once. */
#include <string.h>

#include "em_internal.h"

static npu_model_observer g_observer;
static void *g_observer_user;

void npu_model_observe(npu_model_observer observer, void *user) {
    g_observer = observer;
    g_observer_user = user;
}

void em_observe_reset(em_state *s) { s->operations = 0; }

static int is_compute(int arch, unsigned code) {
    if (arch == 85)
        return code == EM85_CMD0_NPU_OP_CONV || code == EM85_CMD0_NPU_OP_DEPTHWISE || code == EM85_CMD0_NPU_OP_POOL ||
               code == EM85_CMD0_NPU_OP_ELEMENTWISE || code == EM85_CMD0_NPU_OP_RESIZE;
    return code == EM_CMD0_NPU_OP_CONV || code == EM_CMD0_NPU_OP_DEPTHWISE || code == EM_CMD0_NPU_OP_POOL ||
           code == EM_CMD0_NPU_OP_ELEMENTWISE;
}

static int ofm_dim(em_state *s, int axis) {
    if (s->arch == 85) {
        if (axis == 0) return (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_HEIGHT_M1)) + 1;
        if (axis == 1) return (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_WIDTH_M1)) + 1;
        return (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_DEPTH_M1)) + 1;
    }
    if (axis == 0) return (int)EM_P0(s, NPU_SET_OFM_HEIGHT_M1) + 1;
    if (axis == 1) return (int)EM_P0(s, NPU_SET_OFM_WIDTH_M1) + 1;
    return (int)EM_P0(s, NPU_SET_OFM_DEPTH_M1) + 1;
}

static int ifm_depth(em_state *s) {
    if (s->arch == 85) return (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    return (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1;
}

static int smaller(int a, int b) { return a < b ? a : b; }

/* U85: whether the OFM went to a chain buffer, and the operation's axis each stored axis holds
   (em85_output.c stage_transpose leaves the current operation's permutation in s->staged). */
static int ofm_chained85(em_state *s) {
    return EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_STORAGE(EM85_R0(s, NPU_SET_OFM_PRECISION)) ==
           EM85_ACTIVATION_STORAGE_CHAINED;
}

static int ifm_chained85(em_state *s, int which) {
    uint64_t prec = which == 0 ? EM85_R0(s, NPU_SET_IFM_PRECISION) : EM85_R0(s, NPU_SET_IFM2_PRECISION);
    return EM85_F_NPU_SET_IFM_PRECISION_ACTIVATION_STORAGE(prec) == EM85_ACTIVATION_STORAGE_CHAINED;
}

static void ofm_axes85(em_state *s, int axes[3]) {
    unsigned transpose = EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_TRANSPOSE(EM85_R0(s, NPU_SET_OFM_PRECISION));
    int i;
    for (i = 0; i < 3; i++) axes[i] = transpose == EM85_ACTIVATION_TRANSPOSE_HWC ? i : s->staged.held[i];
}

static int permutation(const int axes[3]) {
    return axes[0] != axes[1] && axes[0] != axes[2] && axes[1] != axes[2] && axes[0] + axes[1] + axes[2] == 3;
}

/* The shape feature map `which` has as read or stored: the OFM's as stored (permuted by a
   transpose), an input's over tile 0 with the IFM depth. */
static void shape(em_state *s, int which, const em_fmap *f, npu_model_fmap *out) {
    int op[3], i;
    if (which != 2) {
        out->height = f->height0;
        out->width = f->width0;
        out->depth = ifm_depth(s);
        return;
    }
    for (i = 0; i < 3; i++) op[i] = ofm_dim(s, i);
    if (s->arch == 85) ofm_axes85(s, out->axes);
    out->height = op[out->axes[0]];
    out->width = op[out->axes[1]];
    out->depth = op[out->axes[2]];
}

/* Feature map `which` (0 IFM, 1 IFM2, 2 OFM) as the operation read or stored it, without failing
   the run (the operation has already run; an unreadable map is reported as region -1). */
static void describe(em_state *s, int which, npu_model_fmap *out) {
    em_fmap f;
    unsigned region = em_fmap_region(s, which);
    int fault = s->fault, chained;
    npu_model_status kept = *s->status; /* a map that does not load leaves the run's status */
    out->region = out->chain = -1;
    out->axes[0] = 0; out->axes[1] = 1; out->axes[2] = 2;
    /* a U85 B64 map is described too (no B64 exists on U55/U65: the call is em_load_fmap's there) */
    if (em85_load_fmap_b64(s, which, &f) != 0) {
        s->fault = fault;
        *s->status = kept;
        return;
    }
    chained = s->arch == 85 && (which == 2 ? ofm_chained85(s) : ifm_chained85(s, which));
    out->bytes = f.bytes;
    shape(s, which, &f, out);
    s->fault = fault;
    if (chained) {
        out->chain = (int)region;
        return;
    }
    if (region >= (unsigned)s->regions || f.lo != (const uint8_t *)(uintptr_t)s->base[region]) return;
    if (!permutation(out->axes)) return; /* none staged (an OFM not through em85_load_out): not described */
    out->region = (int)region;
    out->offset = (uint64_t)(f.tile[0] - f.lo);
    out->height0 = f.height0;
    out->width0 = f.width0;
    out->nhcwb16 = f.nhcwb16;
    out->stride_x = f.stride_x;
    out->stride_y = f.stride_y;
    out->stride_c = f.stride_c;
}

/* U85: what an operation reads of its inputs, as em85_*.c read them. An elementwise operand is
   read over the OFM's (operation) shape, once along a broadcast axis, not at all when it is the
   scalar or a unary operation's IFM2; a MatMul (CONV weights_ifm2) reads IFM row 0 and IFM2's
   OFM-depth columns, each over the IFM depth; a NONE pool reads its accumulator from IFM2 over
   the OFM shape, not its dummy IFM. */
static int unary85(unsigned mode) {
    return mode == EM85_ELEMENTWISE_MODE_LRELU || mode == EM85_ELEMENTWISE_MODE_ABS ||
           mode == EM85_ELEMENTWISE_MODE_CLZ || mode == EM85_ELEMENTWISE_MODE_NOT;
}

static void unread(npu_model_fmap *f) {
    memset(f, 0, sizeof(*f));
    f->region = f->chain = -1;
    f->axes[1] = 1; f->axes[2] = 2;
}

static void over(npu_model_fmap *f, int height, int width, int depth) {
    f->height = f->height0 > 0 ? smaller(height, f->height0) : height;
    f->width = f->width0 > 0 ? smaller(width, f->width0) : width;
    f->depth = depth;
}

/* An elementwise operand read over the OFM's shape, once along each broadcast axis, not at all
   when it is the scalar. */
static void read_broadcast(em_state *s, npu_model_fmap *f, int scalar, int bh, int bw, int bd) {
    if (scalar) {
        unread(f);
        return;
    }
    over(f, bh ? 1 : ofm_dim(s, 0), bw ? 1 : ofm_dim(s, 1), bd ? 1 : ofm_dim(s, 2));
}

static void elementwise_operand85(em_state *s, int which, npu_model_fmap *f) {
    unsigned mode = EM85_F_NPU_SET_IFM_BROADCAST_BROADCAST_MODE(which == 0 ? EM85_R0(s, NPU_SET_IFM_BROADCAST)
                                                                           : EM85_R0(s, NPU_SET_IFM2_BROADCAST));
    read_broadcast(s, f, mode == EM85_BROADCAST_MODE_SCALAR, (mode & EM85_BROADCAST_MODE_H) != 0,
                   (mode & EM85_BROADCAST_MODE_W) != 0, (mode & EM85_BROADCAST_MODE_C) != 0);
}

static void reads85(em_state *s, unsigned code, unsigned param, npu_model_operation *op) {
    uint64_t word = (uint64_t)param << 16;
    if (code == EM85_CMD0_NPU_OP_ELEMENTWISE) {
        elementwise_operand85(s, 0, &op->ifm);
        if (unary85(EM85_F_NPU_OP_ELEMENTWISE_ELEMENTWISE_MODE(word))) unread(&op->ifm2);
        else elementwise_operand85(s, 1, &op->ifm2);
    } else if (code == EM85_CMD0_NPU_OP_CONV && EM85_F_NPU_OP_CONV_WEIGHTS_IFM2(word)) {
        over(&op->ifm, 1, ofm_dim(s, 1), ifm_depth(s));
        over(&op->ifm2, 1, ofm_dim(s, 2), ifm_depth(s));
    } else if (code == EM85_CMD0_NPU_OP_POOL &&
               EM85_F_NPU_SET_ACC_FORMAT_ACC_INPUT(EM85_R0(s, NPU_SET_ACC_FORMAT)) == EM85_ACC_INPUT_IFM2) {
        unread(&op->ifm);
        over(&op->ifm2, ofm_dim(s, 0), ofm_dim(s, 1), ofm_dim(s, 2));
    } else {
        unread(&op->ifm2);
    }
}

/* U55/U65: an elementwise operand is read over the OFM's shape; IFM2 once along each axis
   NPU_SET_IFM2_BROADCAST broadcasts, not at all when it is the scalar or the mode is unary
   (em_elementwise.c load_ew/load_ifm2 read them so). Without this a channel-broadcast IFM2 was
   reported over the IFM's depth: bytes past it counted as read, and a write over them as a
   clobber (a Conformer feed-forward block on U55-128 under Vela 5.2.0). */
static void elementwise_reads55(em_state *s, unsigned mode, npu_model_operation *op) {
    uint64_t bc = EM_R0(s, NPU_SET_IFM2_BROADCAST);
    read_broadcast(s, &op->ifm, 0, 0, 0, 0);
    if (em_elementwise_unary(mode))
        unread(&op->ifm2);
    else
        read_broadcast(s, &op->ifm2, (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_SCALAR(bc),
                       (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_HEIGHT(bc),
                       (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_WIDTH(bc),
                       (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_DEPTH(bc));
}

static int is_dma(int arch, unsigned code) {
    return code == (arch == 85 ? EM85_CMD0_NPU_OP_DMA_START : EM_CMD0_NPU_OP_DMA_START);
}

int em_observe_op(em_state *s, unsigned code, unsigned param, size_t word) {
    npu_model_operation op;
    int compute = is_compute(s->arch, code);
    if (!compute && !is_dma(s->arch, code)) return 0;
    if (compute) s->operations += 1;
    if (g_observer == NULL) return 0;
    memset(&op, 0, sizeof(op));
    op.index = compute ? s->operations - 1 : -1; /* a DMA: no feature maps, index -1 */
    unread(&op.ofm);
    unread(&op.ifm);
    unread(&op.ifm2);
    op.code = code;
    op.word = (uint32_t)word;
    op.name = em_opname(s->arch, 0, code);
    if (!compute) return g_observer(&op, g_observer_user) == 0 ? 0 : em_fail(s, NPU_MODEL_STOPPED, "stopped by the observer after a DMA");
    describe(s, 2, &op.ofm);
    describe(s, 0, &op.ifm);
    if (s->arch == 85) {
        describe(s, 1, &op.ifm2);
        reads85(s, code, param, &op);
    } else if (code == EM_CMD0_NPU_OP_ELEMENTWISE) {
        describe(s, 1, &op.ifm2);
        elementwise_reads55(s, param, &op);
    }
    if (g_observer(&op, g_observer_user) == 0) return 0;
    return em_fail(s, NPU_MODEL_STOPPED, "stopped by the observer after operation %d", op.index);
}
