/* Ethos-U85: the output stage from its registers (OFM, OFM_SCALE round mode, activation). The
   values themselves go through the shared em_out_value (zero point, clamp, saturation). */
#include <string.h>

#include "em_internal.h"


unsigned em85_round_mode(unsigned ofm_mode) {
    /* regor ethos_u85_register_cs_generator.cpp GetOfmRoundingMode maps its RoundMode to the
       field; graphir_optimiser.cpp Scale() defines each (em_round_addend). */
    switch (ofm_mode) {
    case EM85_ROUND_MODE_OFM_DOUBLE_SYMMETRIC: return EM_ROUNDING_TFL;
    case EM85_ROUND_MODE_OFM_NATURAL: return EM_ROUNDING_NATURAL;
    case EM85_ROUND_MODE_OFM_DOUBLE_ASYMMETRIC: return EM_ROUND_DOUBLE_ASYMMETRIC;
    case EM85_ROUND_MODE_OFM_SYMMETRIC: return EM_ROUND_SYMMETRIC;
    case EM85_ROUND_MODE_OFM_TRUNCATE_TO_ZERO: return EM_ROUNDING_TRUNCATE;
    case EM85_ROUND_MODE_OFM_TRUNCATE_TO_LOWER: return EM_ROUND_TRUNCATE_TO_LOWER;
    default: return 0xffu;
    }
}

/* LUT_S8_S8 / LUT_U8_U8: a 256-byte table in slot `table`, indexed by the OFM value as on the
   U55 (em_out_value); LUT_S16_S16: the 2048-byte interpolating table (table 0), the U55's
   16-bit format (regor RewriteTable is shared). Other LUT functions stop. */
static int load_lut(em_state *s, em_out *o, unsigned function, unsigned table) {
    unsigned needed;
    o->lut = NULL;
    o->lut16 = 0;
    if (function == EM85_ACTIVATION_FUNCTION_LUT_NONE) return 0;
    if (function == EM85_ACTIVATION_FUNCTION_LUT_S8_S8 || function == EM85_ACTIVATION_FUNCTION_LUT_U8_U8) {
        int is_signed = function == EM85_ACTIVATION_FUNCTION_LUT_S8_S8;
        if (o->fm.bytes != 1 || o->fm.is_signed != is_signed)
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION activation_function value %u with a %d-byte "
                           "OFM", function, o->fm.bytes);
        needed = 1u << table;
        o->lut = s->lut85 + table * EM85_LUT_SLOT;
    } else if (function == EM85_ACTIVATION_FUNCTION_LUT_S16_S16 && table == 0 && o->fm.bytes == 2 && o->fm.is_signed) {
        if (o->round_mode != EM_ROUNDING_NATURAL)
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "16-bit LUT with OFM round mode %u", o->round_mode);
        needed = 0xffu;
        o->lut = s->lut85;
        o->lut16 = 1;
    } else {
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION activation_function value %u table %u on "
                       "Ethos-U85-%d (not modelled)", function, table, s->macs);
    }
    if ((s->lut_loaded & needed) != needed)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "LUT table %u read but no DMA loaded it in this stream", table);
    return 0;
}

static int load_activation(em_state *s, em_out *o) {
    uint64_t act = EM85_R0(s, NPU_SET_ACTIVATION);
    unsigned function = EM85_F_NPU_SET_ACTIVATION_ACTIVATION_FUNCTION(act);
    unsigned clip = EM85_F_NPU_SET_ACTIVATION_ACTIVATION_CLIP_RANGE(act);
    uint32_t lo = EM85_F_NPU_SET_ACTIVATION_MIN_CLIP_BOUNDARY(EM85_R0(s, NPU_SET_ACTIVATION_MIN));
    uint32_t hi = EM85_F_NPU_SET_ACTIVATION_MAX_CLIP_BOUNDARY(EM85_R0(s, NPU_SET_ACTIVATION_MAX));
    int rc = load_lut(s, o, function, EM85_F_NPU_SET_ACTIVATION_TABLE(act));
    if (rc) return rc;
    if (clip == EM85_ACTIVATION_CLIP_RANGE_NONE) {
        o->act_min = o->type_min; /* regor GenerateActivation: NONE for > 16-bit or unbounded */
        o->act_max = o->type_max;
    } else if (clip == EM85_ACTIVATION_CLIP_RANGE_B16) {
        /* 16-bit boundaries, signed or unsigned as the OFM (GenerateActivation clamps them to
           int16 min .. uint16 max) */
        o->act_min = o->fm.is_signed ? em_sext(lo, 16) : (int64_t)lo;
        o->act_max = o->fm.is_signed ? em_sext(hi, 16) : (int64_t)hi;
    } else {
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION activation_clip_range value %u", clip);
    }
    return 0;
}

/* OFM transposes: the operation computes the OFM in its own (y, x, c) (HEIGHT/WIDTH/DEPTH_M1,
   "before transposition") and the hardware stores it with its axes permuted (regor
   ethos_u85_register_cs_generator.cpp GenerateOFM: tiles and strides "after transposition";
   common/transpose_type.hpp: NWCH stores the W axis as H, C as W, H as C). The model lets the
   operation write a dense staging copy and then stores each element where the hardware puts it,
   through the OFM's own tiles, format and strides (em85_store_transposed). */
enum { AXIS_H, AXIS_W, AXIS_C };
static const struct { unsigned value; int held[3]; } transposes[] = {
    /* per transpose: the op's axis (H, W, C) that stored axis H, W, C holds */
    {EM85_ACTIVATION_TRANSPOSE_WHC, {AXIS_W, AXIS_H, AXIS_C}}, {EM85_ACTIVATION_TRANSPOSE_HCW, {AXIS_H, AXIS_C, AXIS_W}},
    {EM85_ACTIVATION_TRANSPOSE_WCH, {AXIS_W, AXIS_C, AXIS_H}}, {EM85_ACTIVATION_TRANSPOSE_CHW, {AXIS_C, AXIS_H, AXIS_W}},
    {EM85_ACTIVATION_TRANSPOSE_CWH, {AXIS_C, AXIS_W, AXIS_H}},
};

/* OFM reversal (activation_reverse H, W or C; regor ToActivationReverse, from a TOSA REVERSE
   fused into the operation's output): the hardware stores op element (y, x, c) mirrored along
   that axis of the operation's OFM (HEIGHT/WIDTH/DEPTH_M1). regor moves no tile base for it
   (GenerateOFM) and never cuts the reversed axis (ArchEthosU85::CanSubdivide keeps H whole,
   scheduler.cpp keeps a C-reversed OFM whole and linear), and it never combines a reversal with
   a transpose or chaining (GenerateOFMPrecision asserts), so the mirror spans the whole OFM
   box of the operation. */
static int reversed_axis(unsigned reverse) {
    if (reverse == EM85_ACTIVATION_REVERSE_H) return AXIS_H;
    if (reverse == EM85_ACTIVATION_REVERSE_W) return AXIS_W;
    return reverse == EM85_ACTIVATION_REVERSE_C ? AXIS_C : -1;
}

static int stage_store(em_state *s, em_out *o, unsigned transpose, unsigned reverse) {
    em85_staged *st = &s->staged;
    size_t i, count = sizeof(transposes) / sizeof(transposes[0]);
    static const int identity[3] = {AXIS_H, AXIS_W, AXIS_C};
    const int *held = identity;
    if (transpose == EM85_ACTIVATION_TRANSPOSE_HWC && reverse == EM85_ACTIVATION_REVERSE_NONE) return 0;
    if (reverse != EM85_ACTIVATION_REVERSE_NONE &&
        (reversed_axis(reverse) < 0 || transpose != EM85_ACTIVATION_TRANSPOSE_HWC))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_OFM_PRECISION activation_reverse value %u with "
                       "activation_transpose %u on Ethos-U85-%d (not modelled)", reverse, transpose, s->macs);
    for (i = 0; i < count && transposes[i].value != transpose; i++) continue;
    if (transpose != EM85_ACTIVATION_TRANSPOSE_HWC && i == count)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_OFM_PRECISION activation_transpose value %u on Ethos-U85-%d",
                       transpose, s->macs);
    if (i < count) held = transposes[i].held;
    if ((uint64_t)o->height * (uint64_t)o->width * (uint64_t)o->depth * (uint64_t)o->fm.bytes >
        NPU_MODEL_TRANSPOSE_CAPACITY)
        return em_fail(s, NPU_MODEL_CAPACITY, "transposed or reversed OFM of %dx%dx%d exceeds "
                       "NPU_MODEL_TRANSPOSE_CAPACITY", o->height, o->width, o->depth);
    st->stored = o->fm;
    st->height = o->height; st->width = o->width; st->depth = o->depth;
    st->held[AXIS_H] = held[AXIS_H];
    st->held[AXIS_W] = held[AXIS_W];
    st->held[AXIS_C] = held[AXIS_C];
    st->reversed = reversed_axis(reverse);
    st->active = 1;
    /* the operation writes dense NHWC staging in its own coordinates */
    o->fm.tile[0] = o->fm.tile[1] = o->fm.tile[2] = o->fm.tile[3] = s->staging;
    o->fm.height0 = o->fm.height1 = o->height;
    o->fm.width0 = o->width;
    o->fm.nhcwb16 = 0;
    o->fm.stride_c = o->fm.bytes;
    o->fm.stride_x = (int64_t)o->depth * o->fm.bytes;
    o->fm.stride_y = (int64_t)o->width * o->depth * o->fm.bytes;
    o->fm.lo = s->staging;
    o->fm.hi = s->staging + NPU_MODEL_TRANSPOSE_CAPACITY;
    return 0;
}

/* The staged OFM stored without per-element checks when it is not reversed, the stored map is NHWC in one tile and
   every element lands inside the region: op element (y, x, c) then goes to tile 0 + y * d[H] +
   x * d[W] + c * d[C], d being the stride of the stored axis that holds each op axis. 0 when
   that does not hold (the checked loop below then stores it). */
static int store_unchecked(const uint8_t *staging, const em85_staged *st) {
    const em_fmap *f = &st->stored;
    const int dims[3] = {st->height, st->width, st->depth}, bytes = f->bytes;
    int64_t d[3], low = 0, high = bytes, at;
    int axis, y, x, c;
    if (f->nhcwb16 || st->reversed >= 0 || dims[st->held[AXIS_H]] > f->height0 || dims[st->held[AXIS_W]] > f->width0) return 0;
    d[st->held[AXIS_H]] = f->stride_y;
    d[st->held[AXIS_W]] = f->stride_x;
    d[st->held[AXIS_C]] = f->stride_c;
    for (axis = 0; axis < 3; axis++) {
        int64_t span = (int64_t)(dims[axis] - 1) * d[axis];
        if (span < 0) low += span;
        else high += span;
    }
    at = (int64_t)(f->tile[0] - f->lo);
    if (at + low < 0 || at + high > (int64_t)(f->hi - f->lo)) return 0;
    for (y = 0; y < dims[AXIS_H]; y++)
        for (x = 0; x < dims[AXIS_W]; x++) {
            uint8_t *to = f->tile[0] + y * d[AXIS_H] + x * d[AXIS_W];
            if (bytes == 1) {
                for (c = 0; c < dims[AXIS_C]; c++) to[c * d[AXIS_C]] = staging[c];
            } else {
                for (c = 0; c < dims[AXIS_C]; c++) memcpy(to + c * d[AXIS_C], staging + (size_t)c * bytes, (size_t)bytes);
            }
            staging += (size_t)dims[AXIS_C] * bytes;
        }
    return 1;
}

void em85_store_transposed(em_state *s) {
    em85_staged *st = &s->staged;
    const int dims[3] = {st->height, st->width, st->depth};
    int at[3], y, x, c;
    if (!st->active) return;
    st->active = 0;
    if (store_unchecked(s->staging, st)) return;
    for (y = 0; y < st->height; y++)
        for (x = 0; x < st->width; x++)
            for (c = 0; c < st->depth; c++) {
                const uint8_t *from = s->staging + (((size_t)y * st->width + x) * st->depth + c) * st->stored.bytes;
                uint8_t *to;
                at[AXIS_H] = y; at[AXIS_W] = x; at[AXIS_C] = c;
                if (st->reversed >= 0) at[st->reversed] = dims[st->reversed] - 1 - at[st->reversed];
                to = em_fm_ptr(&st->stored, at[st->held[AXIS_H]], at[st->held[AXIS_W]], at[st->held[AXIS_C]]);
                if (to != NULL) memcpy(to, from, (size_t)st->stored.bytes);
            }
}

void em85_ofm_shape(em_state *s, em_out *o) {
    o->height = (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_HEIGHT_M1)) + 1;
    o->width = (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_WIDTH_M1)) + 1;
    o->depth = (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_DEPTH_M1)) + 1;
}

int em85_load_out(em_state *s, em_out *o, int b64) {
    uint64_t prec = EM85_R0(s, NPU_SET_OFM_PRECISION);
    uint64_t scale = EM85_R1(s, NPU_SET_OFM_SCALE);
    unsigned reverse = EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_REVERSE(prec);
    unsigned transpose = EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_TRANSPOSE(prec);
    int rc;
    s->staged.active = 0;
    if ((rc = b64 ? em85_load_fmap_b64(s, 2, &o->fm) : em_load_fmap(s, 2, &o->fm))) return rc;
    if (o->fm.bytes == 8 && transpose != EM85_ACTIVATION_TRANSPOSE_HWC)
        /* regor never transposes a 64-bit OFM in hardware: "Int64 Transpose requires
           decomposition" (ethos_u85_constraints.cpp:569-577) */
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_OFM_PRECISION activation_transpose value %u with B64 on "
                       "Ethos-U85-%d (not modelled)", em_opname(85, 0, s->op_code), transpose, s->macs);
    em85_ofm_shape(s, o);
    o->round_mode = em85_round_mode(EM85_F_NPU_SET_OFM_SCALE_ROUND_MODE(scale));
    if (o->round_mode == 0xffu)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_OFM_SCALE round_mode value %u",
                       EM85_F_NPU_SET_OFM_SCALE_ROUND_MODE(scale));
    if (EM85_F_NPU_SET_OFM_SCALE_DBL_RND(scale) != 0)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_OFM_SCALE dbl_rnd value %u (regor writes 0 for the OFM)",
                       EM85_F_NPU_SET_OFM_SCALE_DBL_RND(scale));
    em_out_type_range(o);
    if ((rc = stage_store(s, o, transpose, reverse))) return rc;
    return load_activation(s, o);
}

int em85_global_scale(em_state *s, const char *command, int64_t *scale, int *shift) {
    uint64_t ofm_scale = EM85_R1(s, NPU_SET_OFM_SCALE);
    if (EM85_F_NPU_SET_OFM_PRECISION_SCALE_MODE(EM85_R0(s, NPU_SET_OFM_PRECISION)) != EM85_OFM_SCALE_MODE_GLOBAL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s with per-channel OFM scaling on Ethos-U85-%d", command, s->macs);
    *scale = (int64_t)EM85_F_NPU_SET_OFM_SCALE_SCALE(ofm_scale);
    *shift = (int)EM85_F_NPU_SET_OFM_SCALE_SHIFT(ofm_scale);
    return 0;
}

int em85_acc_check(em_state *s, const char *command, int64_t value, int bits) {
    if (value >= -((int64_t)1 << (bits - 1)) && value < ((int64_t)1 << (bits - 1))) return 0;
    /* what the accumulator does past its range is nowhere in regor: stop */
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s: a %d-bit accumulator value out of range (overflow not modelled)",
                   command, bits);
}
