/* Ethos-U85 NPU_OP_CONV / NPU_OP_DEPTHWISE registers: the kernel, the weight streams of its
   decoders, the Acc32/Acc48 scale records. The arithmetic is the U55's (em_conv.c). */
#include "em_internal.h"


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
            return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_CONV into a B64 OFM with scale record %d scale %d shift "
                           "%u on Ethos-U85-%d (not modelled: only the unscaled accumulator)", c, (int)s->mult[c],
                           (unsigned)s->shift[c], s->macs);
    return 0;
}

int em85_load_conv(em_state *s, int depthwise, em85_conv *c, int16_t *weights) {
    const char *name = depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV";
    uint64_t acc = EM85_R0(s, NPU_SET_ACC_FORMAT), format = EM85_R0(s, NPU_SET_WEIGHT_FORMAT);
    uint64_t stride = EM85_R0(s, NPU_SET_KERNEL_STRIDE);
    em_weight_streams w;
    em_kernel k;
    int rc, acc_bits, from_ifm2;
    if ((rc = em85_accumulator(s, name, 0, &acc_bits, &from_ifm2)) || (rc = em85_load_out(s, c->o, !depthwise)) ||
        (rc = em_load_fmap(s, 0, c->in)) || (rc = em85_load_geom(s, c->o, c->g)))
        return rc;
    c->acc_bits = acc_bits;
    if (EM85_F_NPU_SET_OFM_PRECISION_SCALE_MODE(EM85_R0(s, NPU_SET_OFM_PRECISION)) != EM85_OFM_SCALE_MODE_PER_CHANNEL)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s with global OFM scaling on Ethos-U85-%d (weights from IFM2: "
                       "not modelled)", name, s->macs);
    c->ifm_depth = (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    k.kh = c->g->kh; k.kw = c->g->kw; k.dil_x = c->g->dil_x; k.dil_y = c->g->dil_y;
    k.stride_x = c->g->stride_x; k.stride_y = c->g->stride_y;
    k.ofm_depth = c->o->depth; k.ifm_depth = c->ifm_depth; k.depthwise = depthwise;
    k.part_kernel = EM85_F_NPU_SET_KERNEL_STRIDE_WEIGHT_ORDER(stride) == EM85_WEIGHT_ORDER_PART_KERNEL_FIRST;
    k.ifm_bits = c->in->bytes * 8;
    k.ofm_block_depth = (int)EM85_F_NPU_SET_OFM_BLK_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_DEPTH_M1)) + 1;
    microblock(EM85_F_NPU_SET_ACC_FORMAT_MICROBLOCK(acc), &k.ublock_w, &k.ublock_h);
    k.fast = EM85_F_NPU_SET_WEIGHT_FORMAT_WEIGHT_FORMAT(format) == EM85_WEIGHT_FORMAT_FWD;
    k.sparse = EM85_F_NPU_SET_WEIGHT_FORMAT_WEIGHT_SPARSITY(format) == EM85_WEIGHT_SPARSITY_SPARSE_2_4;
    if ((rc = weight_streams(s, &w)) || (rc = em_decode_weights_u85(s, &k, s->macs, &w, weights)) ||
        (rc = em85_load_scales(s, c->o->depth, acc_bits)))
        return rc;
    return c->o->fm.bytes == 8 ? unscaled_records(s, c->o->depth) : 0;
}

int em85_load_scales(em_state *s, int depth, int acc_bits) {
    unsigned region = EM85_F_NPU_SET_SCALE_REGION_REGION(EM85_R0(s, NPU_SET_SCALE_REGION));
    uint64_t base = em_base_of(EM85_R1(s, NPU_SET_SCALE_BASE)), length = (uint64_t)depth * 10u;
    const uint8_t *records = em_address(s, region, base, length, "scale stream");
    if (records == NULL) return s->status->code;
    return em_load_scales_u85(s, records, length, depth, acc_bits == 48);
}

/* NPU_OP_CONV with weights_ifm2 (regor ethos_u85_register_cs_generator.cpp
   GenerateConvolutionOp: "Dynamic weights", a MatMul): a 1x1 convolution whose weights are the
   IFM2 feature map, output channel n taking IFM2 column n (its channels are the IFM's), global
   OFM scaling. OFM[y][x][n] = OFM_SCALE(sum_k (IFM[y][x][k] - zp) * (IFM2[0][n][k] - zp2)).
   regor constrains a MatMul's batch to 1 (ethos_u85_constraints.cpp:712-724), so the OFM has
   one row. */
int em85_op_matmul(em_state *s) {
    em_out o;
    em_fmap a, b;
    em_geom g;
    int64_t scale;
    int depth = (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    int rc, shift, acc_bits, from_ifm2, x, n, k;
    if ((rc = em85_accumulator(s, "NPU_OP_CONV", 0, &acc_bits, &from_ifm2)) || (rc = em85_load_out(s, &o, 0)) ||
        (rc = em_load_fmap(s, 0, &a)) || (rc = em_load_fmap(s, 1, &b)) || (rc = em85_load_geom(s, &o, &g)) ||
        (rc = em85_global_scale(s, "NPU_OP_CONV weights_ifm2", &scale, &shift)))
        return rc;
    if (o.height != 1 || g.kh_dil != 1 || g.kw_dil != 1 || g.stride_x != 1 || g.stride_y != 1)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_CONV weights_ifm2 with OFM height %d or a kernel other "
                       "than 1x1 on Ethos-U85-%d (not modelled)", o.height, s->macs);
    for (x = 0; x < o.width; x++) {
        for (n = 0; n < o.depth; n++) {
            int64_t acc = 0, v;
            int err = 0;
            for (k = 0; k < depth; k++)
                acc += (em_fm_read(&a, 0, x, k) - a.zero_point) * (em_fm_read(&b, 0, n, k) - b.zero_point);
            if ((rc = em85_acc_check(s, "NPU_OP_CONV weights_ifm2", acc, acc_bits))) return rc;
            v = em_scale(s, acc, scale, shift, o.round_mode, &err);
            if (err) return err;
            em_store(&o, 0, x, n, v);
        }
    }
    return 0;
}
