/* Ethos-U85 register loaders shared by its operations: ACC_FORMAT, the kernel registers, the
   CONV/DEPTHWISE registers with their weight streams, the Acc32/Acc48 scale records. They call
   only down (feature maps, output stage, weight orders), never an operation. */
#include "em_internal.h"

#define P0(s, op, field) ((int)EM85_F_NPU_SET_##op##_##field(EM85_R0(s, NPU_SET_##op)))

/* ACC_FORMAT: the accumulator a command uses (regor ethos_u85_register_cs_generator.cpp:1505-1573
   GenerateAccFormat: RESET, KEEP for ArchAccumulatorSource::Acc, IFM2; output DISABLE where
   the next command continues the accumulator). */
int em85_accumulator(em_state *s, const char *command, unsigned allowed, em85_acc *a) {
    uint64_t acc = EM85_R0(s, NPU_SET_ACC_FORMAT);
    unsigned input = EM85_F_NPU_SET_ACC_FORMAT_ACC_INPUT(acc), output = EM85_F_NPU_SET_ACC_FORMAT_ACC_OUTPUT(acc);
    unsigned format = EM85_F_NPU_SET_ACC_FORMAT_ACC_FORMAT(acc);
    a->from_ifm2 = input == EM85_ACC_INPUT_IFM2 && (allowed & EM85_ACC_IFM2);
    a->keep = input == EM85_ACC_INPUT_KEEP && (allowed & EM85_ACC_KEEP);
    a->output = output == EM85_ACC_OUTPUT_ENABLE;
    if (input != EM85_ACC_INPUT_RESET && !a->from_ifm2 && !a->keep)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_input value %u on Ethos-U85-%d (not modelled)",
                       command, input, s->macs);
    if (!a->output && (output != EM85_ACC_OUTPUT_DISABLE || !(allowed & EM85_ACC_KEEP)))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_output value %u on Ethos-U85-%d (not modelled)",
                       command, output, s->macs);
    if (format != EM85_ACC_FORMAT_I32 && format != EM85_ACC_FORMAT_I48)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_format value %u", command, format);
    a->bits = format == EM85_ACC_FORMAT_I32 ? 32 : 48;
    return 0;
}

int em85_load_geom(em_state *s, const em_out *o, em_geom *g) {
    uint64_t st = EM85_R0(s, NPU_SET_KERNEL_STRIDE);
    unsigned upscale = EM85_F_NPU_SET_IFM_UPSCALE_MODE(EM85_R0(s, NPU_SET_IFM_UPSCALE));
    g->kh_dil = P0(s, KERNEL_HEIGHT_M1, HEIGHT_M1) + 1;
    g->kw_dil = P0(s, KERNEL_WIDTH_M1, WIDTH_M1) + 1;
    g->stride_x = (int)(EM85_F_NPU_SET_KERNEL_STRIDE_STRIDE_X_LSB(st) | (EM85_F_NPU_SET_KERNEL_STRIDE_STRIDE_X_MSB(st) << 1)) + 1;
    g->stride_y = (int)(EM85_F_NPU_SET_KERNEL_STRIDE_STRIDE_Y_LSB(st) | (EM85_F_NPU_SET_KERNEL_STRIDE_STRIDE_Y_MSB(st) << 1)) + 1;
    g->dil_x = (int)EM85_F_NPU_SET_KERNEL_STRIDE_DILATION_X(st) + 1;
    g->dil_y = (int)EM85_F_NPU_SET_KERNEL_STRIDE_DILATION_Y(st) + 1;
    g->part_kernel = EM85_F_NPU_SET_KERNEL_STRIDE_WEIGHT_ORDER(st) == EM85_WEIGHT_ORDER_PART_KERNEL_FIRST;
    g->kh = (g->kh_dil - 1) / g->dil_y + 1;
    g->kw = (g->kw_dil - 1) / g->dil_x + 1;
    g->pad_top = P0(s, IFM_PAD_TOP, PAD);
    g->pad_left = P0(s, IFM_PAD_LEFT, PAD);
    g->pad_bottom = P0(s, IFM_PAD_BOTTOM, PAD);
    g->pad_right = P0(s, IFM_PAD_RIGHT, PAD);
    g->upscale = EM_RESAMPLING_MODE_NONE;
    if (upscale != EM85_IFM_UPSCALE_MODE_NONE)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_IFM_UPSCALE mode value %u on Ethos-U85-%d (not modelled)",
                       upscale, s->macs);
    if (EM85_F_NPU_SET_KERNEL_STRIDE_DECOMPOSITION(st) != EM85_KERNEL_DECOMPOSITION_D8X8)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_KERNEL_STRIDE decomposition value %u on Ethos-U85-%d",
                       EM85_F_NPU_SET_KERNEL_STRIDE_DECOMPOSITION(st), s->macs);
    g->ifm_h = (o->height - 1) * g->stride_y + g->kh_dil - g->pad_top - g->pad_bottom;
    g->ifm_w = (o->width - 1) * g->stride_x + g->kw_dil - g->pad_left - g->pad_right;
    return 0;
}

/* ACC_FORMAT microblock U<h>X<w> (regor ethos_u85_interface.hpp enum microblock). */
static void microblock(unsigned value, int *w, int *h) {
    static const int width[6] = {1, 2, 4, 2, 4, 4}, height[6] = {1, 1, 1, 2, 2, 4};
    *w = value < 6 ? width[value] : 0;
    *h = value < 6 ? height[value] : 0;
}

static int weight_streams(em_state *s, em_weight_streams *w) {
    static const unsigned base[4] = {EM85_CMD1_NPU_SET_WEIGHT_BASE, EM85_CMD1_NPU_SET_WEIGHT1_BASE,
                                     EM85_CMD1_NPU_SET_WEIGHT2_BASE, EM85_CMD1_NPU_SET_WEIGHT3_BASE};
    static const unsigned length[4] = {EM85_CMD1_NPU_SET_WEIGHT_LENGTH, EM85_CMD1_NPU_SET_WEIGHT1_LENGTH,
                                       EM85_CMD1_NPU_SET_WEIGHT2_LENGTH, EM85_CMD1_NPU_SET_WEIGHT3_LENGTH};
    unsigned region = EM85_F_NPU_SET_WEIGHT_REGION_REGION(EM85_R0(s, NPU_SET_WEIGHT_REGION));
    int d, decoders = em_u85_weight_decoders(s->macs);
    for (d = 0; d < 4; d++) {
        w->data[d] = NULL;
        w->length[d] = 0;
    }
    for (d = 0; d < decoders; d++) {
        uint64_t at = em_base_of(s->reg1[base[d] & 0xffu]), bytes = em_base_of(s->reg1[length[d] & 0xffu]);
        w->data[d] = em_address(s, region, at, bytes, "weight stream");
        if (w->data[d] == NULL) return s->status->code;
        w->length[d] = (uint32_t)bytes;
    }
    return 0;
}

/* A CONV into a B64 OFM writes its accumulator (bias + products, em_op_conv) as a signed 64-bit
   element: the int48 output of a TOSA TRANSPOSE_CONV2D that regor splits into one CONV per
   stride phase, each writing every stride-th OFM position (scheduler_decompose.cpp:1530-1690,
   DecomposeTransposeConv2DLargeStride), read back by a NONE pool that rescales it
   (em85_op_pool). regor gives such a CONV no rescale (a TOSA convolution has none; RESCALE
   never outputs int48), so every record is scale 1, shift 0 and the round mode is moot; other
   records stop. */
static int unscaled_records(em_state *s, int depth) {
    int c;
    for (c = 0; c < depth; c++)
        if (s->mult[c] != 1 || s->shift[c] != 0)
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_CONV into a B64 OFM with scale record %d scale %d shift "
                           "%u on Ethos-U85-%d (not modelled: only the unscaled accumulator)", c, (int)s->mult[c],
                           (unsigned)s->shift[c], s->macs);
    return 0;
}

int em85_load_conv(em_state *s, int depthwise, em_conv_regs *c) {
    const char *name = depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV";
    uint64_t acc = EM85_R0(s, NPU_SET_ACC_FORMAT), format = EM85_R0(s, NPU_SET_WEIGHT_FORMAT);
    uint64_t stride = EM85_R0(s, NPU_SET_KERNEL_STRIDE);
    em_kernel *k = c->k;
    int rc;
    if ((rc = em85_accumulator(s, name, EM85_ACC_KEEP, &c->acc))) return rc;
    if (c->acc.output) rc = em85_load_out(s, c->o, !depthwise);
    else em85_ofm_shape(s, c->o); /* nothing is stored: no OFM to load */
    if (rc || (rc = em_load_fmap(s, 0, c->in)) || (rc = em85_load_geom(s, c->o, c->g)) ||
        (rc = em_ifm_readable(s, name, c->in, c->g)) ||
        (rc = em85_kept_begin(s, name, &c->acc, c->o->height, c->o->width, c->o->depth)))
        return rc;
    if (EM85_F_NPU_SET_OFM_PRECISION_SCALE_MODE(EM85_R0(s, NPU_SET_OFM_PRECISION)) != EM85_OFM_SCALE_MODE_PER_CHANNEL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s with global OFM scaling on Ethos-U85-%d (weights from IFM2: "
                       "not modelled)", name, s->macs);
    c->ifm_depth = (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    k->kh = c->g->kh; k->kw = c->g->kw; k->dil_x = c->g->dil_x; k->dil_y = c->g->dil_y;
    k->stride_x = c->g->stride_x; k->stride_y = c->g->stride_y;
    k->ofm_depth = c->o->depth; k->ifm_depth = c->ifm_depth; k->depthwise = depthwise;
    k->part_kernel = EM85_F_NPU_SET_KERNEL_STRIDE_WEIGHT_ORDER(stride) == EM85_WEIGHT_ORDER_PART_KERNEL_FIRST;
    k->ifm_bits = c->in->bytes * 8;
    k->ofm_block_depth = (int)EM85_F_NPU_SET_OFM_BLK_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_DEPTH_M1)) + 1;
    microblock(EM85_F_NPU_SET_ACC_FORMAT_MICROBLOCK(acc), &k->ublock_w, &k->ublock_h);
    k->fast = EM85_F_NPU_SET_WEIGHT_FORMAT_WEIGHT_FORMAT(format) == EM85_WEIGHT_FORMAT_FWD;
    k->sparse = EM85_F_NPU_SET_WEIGHT_FORMAT_WEIGHT_SPARSITY(format) == EM85_WEIGHT_SPARSITY_SPARSE_2_4;
    k->ofm_lo = 0;
    k->ofm_hi = c->o->depth;
    if ((rc = weight_streams(s, c->w)) || (rc = em85_load_scales(s, c->o->depth, c->acc.bits))) return rc;
    return c->o->fm.bytes == 8 ? unscaled_records(s, c->o->depth) : 0;
}

int em85_load_scales(em_state *s, int depth, int acc_bits) {
    unsigned region = EM85_F_NPU_SET_SCALE_REGION_REGION(EM85_R0(s, NPU_SET_SCALE_REGION));
    uint64_t base = em_base_of(EM85_R1(s, NPU_SET_SCALE_BASE)), length = (uint64_t)depth * 10u;
    const uint8_t *records = em_address(s, region, base, length, "scale stream");
    if (records == NULL) return s->status->code;
    return em_load_scales_u85(s, records, length, depth, acc_bits == 48);
}

static uint64_t le_bytes(const uint8_t *p, int count) {
    uint64_t v = 0;
    int i;
    for (i = count - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

int em_load_scales_u85(em_state *s, const uint8_t *records, uint64_t length, int depth, int acc48) {
    /* EncodeBias32 / EncodeBias48: bias bytes, then the scale, the shift in byte 8 */
    const int bias_bytes = acc48 ? 6 : 4;
    const uint64_t scale_mask = acc48 ? 0x7fffu : 0x7fffffffu;
    int o;
    if (depth > (int)NPU_MODEL_MAX_DEPTH)
        return em_fail(s, NPU_MODEL_CAPACITY, "OFM depth %d exceeds NPU_MODEL_MAX_DEPTH", depth);
    if (records == NULL || length < (uint64_t)depth * 10u)
        return em_fail(s, NPU_MODEL_BAD_ADDRESS, "scale stream of %u bytes holds fewer than %d records",
                       (unsigned)length, depth);
    for (o = 0; o < depth; o++, records += 10) {
        uint64_t bias = le_bytes(records, bias_bytes), sign = (uint64_t)1 << (8 * bias_bytes - 1);
        s->bias[o] = (int64_t)((bias ^ sign) - sign);
        s->mult[o] = (int32_t)(le_bytes(records + bias_bytes, 8 - bias_bytes) & scale_mask);
        s->shift[o] = (uint8_t)(records[8] & 0x3f);
    }
    return 0;
}
