/* Ethos-U85 NPU_OP_POOL (MAX, AVERAGE, SUM, REDUCE_SUM, NONE).
   The window arithmetic is the U55's (em_pool_window); the scaling is OFM_SCALE (regor
   ethos_u85_register_cs_generator.cpp GenerateOFMScalingForPooling). */
#include "em_internal.h"

#define P0(s, op, field) ((int)EM85_F_NPU_SET_##op##_##field(EM85_R0(s, NPU_SET_##op)))

/* A NONE pool's accumulator comes from IFM2 (acc_input IFM2): regor UseNullPool passes a 32- or
   64-bit input as IFM2 with an 8-bit dummy IFM ("Pool with input type >= 32 should use IFM int8
   precision and none pooling op", GeneratePoolingOp/GenerateCommon); the IFM is not read. The
   accumulator follows the input: B32 into I32, B64 (an int48 tensor stored as int64, e.g. a
   transposed convolution's accumulator) into I48 (GenerateAccFormat,
   ethos_u85_register_cs_generator.cpp:1511-1525). Each value is loaded as it is stored
   (sign-extended) and must fit the accumulator: what the NPU does with the upper 16 bits of a
   B64 value outside int48 is nowhere in regor, so such a value stops (em85_acc_check). */
static int load_accumulator_input(em_state *s, int acc_bits, em_fmap *f) {
    int rc = em85_load_fmap_b64(s, 1, f);
    if (rc) return rc;
    if ((f->bytes == 8 && acc_bits == 48) || (f->bytes == 4 && acc_bits == 32)) return 0;
    return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL NPU_SET_ACC_FORMAT acc_format value %u with a %d-bit IFM2 "
                   "accumulator input on Ethos-U85-%d (not modelled)",
                   EM85_F_NPU_SET_ACC_FORMAT_ACC_FORMAT(EM85_R0(s, NPU_SET_ACC_FORMAT)), 8 * f->bytes, s->macs);
}

static int window_kind(unsigned mode) {
    if (mode == EM85_POOLING_MODE_MAX) return EM_WINDOW_MAX;
    return mode == EM85_POOLING_MODE_REDUCE_SUM ? EM_WINDOW_CHANNEL_SUM : EM_WINDOW_SUM;
}

static int check_pool(em_state *s, unsigned mode, const em_out *o, const em_geom *g, int64_t scale, int shift) {
    if (mode != EM85_POOLING_MODE_MAX && mode != EM85_POOLING_MODE_AVERAGE && mode != EM85_POOLING_MODE_SUM &&
        mode != EM85_POOLING_MODE_REDUCE_SUM && mode != EM85_POOLING_MODE_NONE)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL pooling_mode value %u on Ethos-U85-%d (not modelled)",
                       mode, s->macs);
    if (mode == EM85_POOLING_MODE_AVERAGE && (scale != 1 || shift != 0))
        /* the NPU divides by the valid taps itself; a rescale after it is nowhere in regor's
           streams of ours: stop rather than guess its rounding */
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with a rescale (OFM_SCALE %u shift %d) on "
                       "Ethos-U85-%d (not modelled)", (unsigned)scale, shift, s->macs);
    if (mode == EM85_POOLING_MODE_REDUCE_SUM && o->depth != 1)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL REDUCE_SUM with OFM depth %d (not 1)", o->depth);
    if (g->dil_x != 1 || g->dil_y != 1) return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL with dilation");
    return 0;
}

/* A loaded accumulator value, and with its record's bias, must fit the accumulator (where the
   NPU adds the bias, and at what width, regor does not say). */
static int check_loaded(em_state *s, int64_t acc, int64_t bias, int bits) {
    int rc = em85_acc_check(s, "NPU_OP_POOL acc_input IFM2", acc, bits);
    return rc ? rc : em85_acc_check(s, "NPU_OP_POOL acc_input IFM2 plus bias", acc + bias, bits);
}

/* The scaled value of channel c from its window's accumulator: per-channel records as the U55's
   pool applies them (bias, then scale), the global OFM_SCALE, or the NPU's own average. */
static int pooled(em_state *s, unsigned mode, const em_out *o, int per_channel, int64_t scale, int shift, int c,
                  int64_t acc, int count, int64_t *value) {
    int err = 0;
    *value = mode == EM85_POOLING_MODE_AVERAGE ? em_pool_average(s, acc, count, o->round_mode, &err)
             : per_channel ? em_scale_inline(s, acc + s->bias[c], s->mult[c], s->shift[c], o->round_mode, &err)
                           : em_scale_inline(s, acc, scale, shift, o->round_mode, &err);
    return err;
}

/* A 1x1 window at stride 1 without padding or upscaling: every window is one IFM element, the
   output position's own (em_pool_window's taps reduce to it, with a count of 1). */
static int pointwise(const em_geom *g) {
    return g->kh == 1 && g->kw == 1 && g->stride_x == 1 && g->stride_y == 1 && g->pad_top == 0 && g->pad_left == 0 &&
           g->pad_bottom == 0 && g->pad_right == 0 &&
           g->upscale == EM_RESAMPLING_MODE_NONE;
}

#define ROW 256 /* channels per pass */
static int64_t g_row[ROW];

typedef struct pool_rows {
    em_state *s;
    const em_out *o;
    const em_fmap *in; /* the IFM, or the IFM2 accumulator input */
    unsigned mode;
    int per_channel, from_ifm2, acc_bits;
    int64_t scale;
    int shift;
} pool_rows;

/* A pointwise pool a run of channels at a time (the element-wise loop below, per run). */
static int pointwise_pool(const pool_rows *p) {
    const em_out *o = p->o;
    int oy, ox, c0, i, rc;
    for (oy = 0; oy < o->height; oy++)
        for (ox = 0; ox < o->width; ox++)
            for (c0 = 0; c0 < o->depth; c0 += ROW) {
                const int n = o->depth - c0 < ROW ? o->depth - c0 : ROW;
                em_fm_read_run(p->in, oy, ox, c0, n, g_row);
                for (i = 0; i < n; i++) {
                    int64_t acc = g_row[i] - p->in->zero_point;
                    if (p->from_ifm2 &&
                        (rc = check_loaded(p->s, acc, p->per_channel ? p->s->bias[c0 + i] : 0, p->acc_bits)))
                        return rc;
                    if ((rc = pooled(p->s, p->mode, o, p->per_channel, p->scale, p->shift, c0 + i, acc, 1, &g_row[i])))
                        return rc;
                }
                em_store_run(o, oy, ox, c0, n, g_row);
            }
    return 0;
}

int em85_op_pool(em_state *s, unsigned mode) {
    em_out o;
    em_fmap in, acc_fm;
    em_geom g;
    int64_t scale = 1;
    int ifm_depth = P0(s, IFM_DEPTH_M1, DEPTH_M1) + 1;
    em85_acc acc_format;
    int rc, oy, ox, c, shift = 0, acc_bits, from_ifm2;
    int per_channel = EM85_F_NPU_SET_OFM_PRECISION_SCALE_MODE(EM85_R0(s, NPU_SET_OFM_PRECISION)) ==
                      EM85_OFM_SCALE_MODE_PER_CHANNEL;
    if ((rc = em85_accumulator(s, "NPU_OP_POOL", mode == EM85_POOLING_MODE_NONE ? EM85_ACC_IFM2 : 0u, &acc_format)) ||
        (!per_channel && (rc = em85_global_scale(s, "NPU_OP_POOL", &scale, &shift))))
        return rc;
    acc_bits = acc_format.bits;
    from_ifm2 = acc_format.from_ifm2;
    if (mode == EM85_POOLING_MODE_NONE && !from_ifm2)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL NONE without acc_input IFM2 on Ethos-U85-%d", s->macs);
    if (from_ifm2 && (rc = load_accumulator_input(s, acc_bits, &acc_fm))) return rc;
    if ((rc = em85_load_out(s, &o, 0)) || (rc = em85_load_geom(s, &o, &g)) || (rc = check_pool(s, mode, &o, &g, scale, shift))) return rc;
    if (!from_ifm2 && ((rc = em_load_fmap(s, 0, &in)) || (rc = em_ifm_tiles_apart(s, "NPU_OP_POOL", &in, &g)))) return rc;
    if (per_channel && (mode == EM85_POOLING_MODE_AVERAGE || (rc = em85_load_scales(s, o.depth, acc_bits))))
        return rc ? rc : em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with per-channel scaling on "
                                 "Ethos-U85-%d (not modelled)", s->macs);
    if (pointwise(&g) && mode != EM85_POOLING_MODE_REDUCE_SUM) {
        pool_rows p = {s, &o, from_ifm2 ? &acc_fm : &in, mode, per_channel, from_ifm2, acc_bits, scale, shift};
        return pointwise_pool(&p);
    }
    for (oy = 0; oy < o.height; oy++) {
        for (ox = 0; ox < o.width; ox++) {
            for (c = 0; c < o.depth; c++) {
                int count = 0;
                int64_t acc = from_ifm2 ? em_fm_read(&acc_fm, oy, ox, c) - acc_fm.zero_point
                                        : em_pool_window(&in, &g, oy, ox, c, window_kind(mode), ifm_depth, &count);
                int64_t v;
                if (from_ifm2 && (rc = check_loaded(s, acc, per_channel ? s->bias[c] : 0, acc_bits))) return rc;
                if ((rc = pooled(s, mode, &o, per_channel, scale, shift, c, acc, count, &v))) return rc;
                em_store(&o, oy, ox, c, v);
            }
        }
    }
    return 0;
}
