/* Ethos-U85 NPU_OP_POOL (MAX, MIN, AVERAGE, SUM, REDUCE_SUM, NONE).
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
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL NPU_SET_ACC_FORMAT acc_format value %u with a %d-bit IFM2 "
                   "accumulator input on Ethos-U85-%d (not modelled)",
                   EM85_F_NPU_SET_ACC_FORMAT_ACC_FORMAT(EM85_R0(s, NPU_SET_ACC_FORMAT)), 8 * f->bytes, s->macs);
}

static int window_kind(unsigned mode) {
    if (mode == EM85_POOLING_MODE_MAX) return EM_WINDOW_MAX;
    if (mode == EM85_POOLING_MODE_MIN) return EM_WINDOW_MIN; /* ReduceMin (TOSA REDUCE_MIN) */
    return mode == EM85_POOLING_MODE_REDUCE_SUM ? EM_WINDOW_CHANNEL_SUM : EM_WINDOW_SUM;
}

static int check_pool(em_state *s, unsigned mode, const em_out *o, const em_geom *g, int64_t scale, int shift) {
    if (mode != EM85_POOLING_MODE_MAX && mode != EM85_POOLING_MODE_MIN && mode != EM85_POOLING_MODE_AVERAGE &&
        mode != EM85_POOLING_MODE_SUM &&
        mode != EM85_POOLING_MODE_REDUCE_SUM && mode != EM85_POOLING_MODE_NONE)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL pooling_mode value %u on Ethos-U85-%d (not modelled)",
                       mode, s->macs);
    if (mode == EM85_POOLING_MODE_AVERAGE && (scale != 1 || shift != 0))
        /* the NPU divides by the valid taps itself; a rescale after it is nowhere in regor's
           streams of ours: stop rather than guess its rounding */
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with a rescale (OFM_SCALE %u shift %d) on "
                       "Ethos-U85-%d (not modelled)", (unsigned)scale, shift, s->macs);
    if (mode == EM85_POOLING_MODE_REDUCE_SUM && o->depth != 1)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL REDUCE_SUM with OFM depth %d (not 1)", o->depth);
    if (g->dil_x != 1 || g->dil_y != 1) return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL with dilation");
    return 0;
}

int em85_op_pool(em_state *s, unsigned mode) {
    em_out o;
    em_fmap in, acc_fm;
    em_geom g;
    int64_t scale = 1;
    int ifm_depth = P0(s, IFM_DEPTH_M1, DEPTH_M1) + 1;
    em85_acc acc_format;
    em_pool_scaling sc;
    int rc, oy, ox, c, shift = 0, acc_bits, from_ifm2;
    int per_channel = EM85_F_NPU_SET_OFM_PRECISION_SCALE_MODE(EM85_R0(s, NPU_SET_OFM_PRECISION)) ==
                      EM85_OFM_SCALE_MODE_PER_CHANNEL;
    if ((rc = em85_accumulator(s, "NPU_OP_POOL", mode == EM85_POOLING_MODE_NONE ? EM85_ACC_IFM2 : 0u, &acc_format)) ||
        (!per_channel && (rc = em85_global_scale(s, "NPU_OP_POOL", &scale, &shift))))
        return rc;
    acc_bits = acc_format.bits;
    from_ifm2 = acc_format.from_ifm2;
    if (mode == EM85_POOLING_MODE_NONE && !from_ifm2)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL NONE without acc_input IFM2 on Ethos-U85-%d", s->macs);
    if (from_ifm2 && (rc = load_accumulator_input(s, acc_bits, &acc_fm))) return rc;
    if ((rc = em85_load_out(s, &o, 0)) || (rc = em85_load_geom(s, &o, &g)) || (rc = check_pool(s, mode, &o, &g, scale, shift))) return rc;
    if (!from_ifm2 && ((rc = em_load_fmap(s, 0, &in)) || (rc = em_ifm_readable(s, "NPU_OP_POOL", &in, &g)))) return rc;
    if (per_channel && (mode == EM85_POOLING_MODE_AVERAGE || (rc = em85_load_scales(s, o.depth, acc_bits))))
        return rc ? rc : em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with per-channel scaling on "
                                 "Ethos-U85-%d (not modelled)", s->macs);
    /* per-channel records as the U55's pool applies them: bias, then scale */
    sc.hw_average = mode == EM85_POOLING_MODE_AVERAGE;
    sc.per_channel = per_channel;
    sc.scale = scale;
    sc.shift = shift;
    sc.loaded_bits = from_ifm2 ? acc_bits : 0;
    if (em_pool_is_pointwise(&g) && mode != EM85_POOLING_MODE_REDUCE_SUM)
        return em_pool_pointwise(s, &o, from_ifm2 ? &acc_fm : &in, &sc);
    for (oy = 0; oy < o.height; oy++) {
        for (ox = 0; ox < o.width; ox++) {
            for (c = 0; c < o.depth; c++) {
                int count = 0;
                int64_t acc = from_ifm2 ? em_fm_read(&acc_fm, oy, ox, c) - acc_fm.zero_point
                                        : em_pool_window(&in, &g, oy, ox, c, window_kind(mode), ifm_depth, &count);
                int64_t v;
                if ((rc = em_pool_scaled(s, &sc, o.round_mode, c, acc, count, &v))) return rc;
                em_store(&o, oy, ox, c, v);
            }
        }
    }
    return 0;
}
