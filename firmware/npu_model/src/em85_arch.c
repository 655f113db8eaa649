/* Ethos-U85: the architecture table (em_arch.h) and the hooks that read its registers plainly:
   the region field, which commands are operations, the OFM's dimensions and IFM depth; its
   CONV/DEPTHWISE registers, weight decode and kept accumulator. */
#include "em_internal.h"

static unsigned fmap_region(uint64_t word) { return EM85_F_NPU_SET_IFM_REGION_REGION(word); }

/* em85_load_conv has taken the kernel, the weight streams and the scale records already */
static int conv_weights(em_state *s, int depthwise, em_conv_regs *c) {
    (void)s; (void)depthwise; (void)c;
    return 0;
}

static int decode_weights(em_state *s, const em_kernel *k, const em_weight_streams *w, int16_t *dense) {
    return em_decode_weights_u85(s, k, s->macs, w, dense);
}

static int is_compute(unsigned code) {
    return code == EM85_CMD0_NPU_OP_CONV || code == EM85_CMD0_NPU_OP_DEPTHWISE || code == EM85_CMD0_NPU_OP_POOL ||
           code == EM85_CMD0_NPU_OP_ELEMENTWISE || code == EM85_CMD0_NPU_OP_RESIZE;
}

int em85_ofm_dim(const em_state *s, int axis) {
    if (axis == 0) return (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_HEIGHT_M1)) + 1;
    if (axis == 1) return (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_WIDTH_M1)) + 1;
    return (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_DEPTH_M1)) + 1;
}

int em85_ifm_depth(const em_state *s) {
    return (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
}

static int describes_ifm2(unsigned code) { (void)code; return 1; }

const em_arch em85_arch = {
    .arch = 85,
    .commands = em85_cmd_names,
    .command_count = sizeof(em85_cmd_names) / sizeof(em85_cmd_names[0]),
    .fmaps = em85_fmaps,
    .fmap_region = fmap_region,
    .refuse_element = em85_refuse_element,
    .fmap_storage = em85_fmap_storage,
    .run_operation = em85_run_operation,
    .run_cmd1_operation = em85_run_cmd1_operation,
    .conv_registers = em85_load_conv,
    .conv_weights = conv_weights,
    .decode_weights = decode_weights,
    .conv_done = em85_kept_end,
    .is_compute = is_compute,
    .dma_start = EM85_CMD0_NPU_OP_DMA_START,
    .ofm_dim = em85_ofm_dim,
    .ifm_depth = em85_ifm_depth,
    .ofm_axes = em85_ofm_axes,
    .chained = em85_chained,
    .describes_ifm2 = describes_ifm2,
    .reads = em85_reads,
};
