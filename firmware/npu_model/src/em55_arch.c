/* Ethos-U55/U65 (one register layout): the architecture table (em_arch.h) and its hooks: the
   operations of a stream, the CONV/DEPTHWISE registers, and what the observer reports. */
#include "em_internal.h"

static int run_compute(em_state *s, unsigned code, unsigned param) {
    int rc;
    switch (code) {
    case EM_CMD0_NPU_OP_CONV: rc = em_op_conv(s, 0); break;
    case EM_CMD0_NPU_OP_DEPTHWISE: rc = em_op_conv(s, 1); break;
    case EM_CMD0_NPU_OP_POOL: rc = em_op_pool(s, param); break;
    default: rc = em_op_elementwise(s, param); break;
    }
    if (rc == 0) em_lut_after_op(s);
    return rc;
}

static int run_operation(em_state *s, unsigned code, unsigned param) {
    switch (code) {
    case EM_CMD0_NPU_OP_STOP: return 0;
    case EM_CMD0_NPU_OP_IRQ:
    case EM_CMD0_NPU_OP_DMA_WAIT:
    case EM_CMD0_NPU_OP_KERNEL_WAIT:
    case EM_CMD0_NPU_OP_PMU_MASK: return 0; /* ordering/timing only: the model is sequential */
    case EM_CMD0_NPU_OP_CONV:
    case EM_CMD0_NPU_OP_DEPTHWISE:
    case EM_CMD0_NPU_OP_POOL:
    case EM_CMD0_NPU_OP_ELEMENTWISE: return run_compute(s, code, param);
    case EM_CMD0_NPU_OP_DMA_START: return em_dma_start(s);
    default: return em_fail(s, NPU_MODEL_UNSUPPORTED, "command %s (%x)", em_opname(s->arch, 0, code), code);
    }
}

/* The U55/U65 layout defines no cmd1 operation (em_known_command refuses any first): kept for
   the table's shape. */
static int run_cmd1_operation(em_state *s, unsigned code, uint64_t value, size_t word, size_t count, size_t *next) {
    (void)value; (void)count; (void)next;
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "cmd1 operation %x at word %u on Ethos-U%d (not modelled)", code,
                   (unsigned)word, s->arch);
}

static int conv_registers(em_state *s, int depthwise, em_conv_regs *c) {
    const char *name = depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV";
    int rc;
    c->ifm_depth = (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1;
    if ((rc = em_load_out(s, c->o)) || (rc = em_load_fmap(s, 0, c->in)) || (rc = em_load_geom(s, c->o, c->g)) ||
        (rc = em_ifm_readable(s, name, c->in, c->g)))
        return rc;
    if (!em_per_channel(s))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s with global OFM scaling", name);
    return 0;
}

static int conv_weights(em_state *s, int depthwise, em_conv_regs *c) {
    em_kernel *k = c->k;
    int rc;
    k->kh = c->g->kh; k->kw = c->g->kw; k->dil_x = c->g->dil_x; k->dil_y = c->g->dil_y;
    k->ofm_depth = c->o->depth; k->ifm_depth = c->ifm_depth; k->depthwise = depthwise; k->part_kernel = c->g->part_kernel;
    k->ifm_bits = c->in->bytes * 8;
    k->ofm_block_depth = (int)EM_P0(s, NPU_SET_OFM_BLK_DEPTH_M1) + 1;
    if ((rc = em_weight_streams_u55(s, c->o->depth, c->w))) return rc;
    return em_load_scales(s, c->o->depth);
}

static void conv_done(em_state *s, const em85_acc *acc) { (void)s; (void)acc; }

static int is_compute(unsigned code) {
    return code == EM_CMD0_NPU_OP_CONV || code == EM_CMD0_NPU_OP_DEPTHWISE || code == EM_CMD0_NPU_OP_POOL ||
           code == EM_CMD0_NPU_OP_ELEMENTWISE;
}

static int ofm_dim(const em_state *s, int axis) {
    if (axis == 0) return (int)EM_P0(s, NPU_SET_OFM_HEIGHT_M1) + 1;
    if (axis == 1) return (int)EM_P0(s, NPU_SET_OFM_WIDTH_M1) + 1;
    return (int)EM_P0(s, NPU_SET_OFM_DEPTH_M1) + 1;
}

static int ifm_depth(const em_state *s) { return (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1; }

static void ofm_axes(const em_state *s, int axes[3]) { (void)s; (void)axes; } /* stored as computed */

static int chained(const em_state *s, int which) { (void)s; (void)which; return 0; }

static int describes_ifm2(unsigned code) { return code == EM_CMD0_NPU_OP_ELEMENTWISE; }

/* An elementwise operand is read over the OFM's shape; IFM2 once along each axis
   NPU_SET_IFM2_BROADCAST broadcasts, not at all when it is the scalar or the mode is unary
   (em_elementwise.c load_ew/load_ifm2 read them so). Without this a channel-broadcast IFM2 was
   reported over the IFM's depth: bytes past it counted as read, and a write over them as a
   clobber (a Conformer feed-forward block on U55-128 under Vela 5.2.0). Other operations: as
   their registers say. */
static void reads(em_state *s, unsigned code, unsigned mode, npu_model_operation *op) {
    uint64_t bc = EM_R0(s, NPU_SET_IFM2_BROADCAST);
    if (code != EM_CMD0_NPU_OP_ELEMENTWISE) return;
    em_observe_broadcast(s, &op->ifm, 0, 0, 0, 0);
    if (em_elementwise_unary(mode))
        em_observe_unread(&op->ifm2);
    else
        em_observe_broadcast(s, &op->ifm2, (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_SCALAR(bc),
                             (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_HEIGHT(bc),
                             (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_WIDTH(bc),
                             (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_DEPTH(bc));
}

const em_arch em55_arch = {
    .arch = 55,
    .commands = em_cmd_names,
    .command_count = sizeof(em_cmd_names) / sizeof(em_cmd_names[0]),
    .fmaps = em55_fmaps,
    .fmap_region = em55_fmap_region,
    .refuse_element = em55_refuse_element,
    .fmap_storage = em55_fmap_storage,
    .run_operation = run_operation,
    .run_cmd1_operation = run_cmd1_operation,
    .conv_registers = conv_registers,
    .conv_weights = conv_weights,
    .decode_weights = em_decode_weights,
    .conv_done = conv_done,
    .is_compute = is_compute,
    .dma_start = EM_CMD0_NPU_OP_DMA_START,
    .ofm_dim = ofm_dim,
    .ifm_depth = ifm_depth,
    .ofm_axes = ofm_axes,
    .chained = chained,
    .describes_ifm2 = describes_ifm2,
    .reads = reads,
};
