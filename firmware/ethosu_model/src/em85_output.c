/* Ethos-U85: the output stage from its registers (OFM, OFM_SCALE round mode, activation). The
   values themselves go through the shared em_out_value (zero point, clamp, saturation). */
#include "em_internal.h"

#define R0(s, op) ((s)->reg0[(EM85_CMD0_##op) & 0x1ffu])
#define R1(s, op) ((s)->reg1[(EM85_CMD1_##op) & 0xffu])

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
            return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION activation_function value %u with a %d-byte "
                           "OFM", function, o->fm.bytes);
        needed = 1u << table;
        o->lut = s->lut85 + table * EM85_LUT_SLOT;
    } else if (function == EM85_ACTIVATION_FUNCTION_LUT_S16_S16 && table == 0 && o->fm.bytes == 2 && o->fm.is_signed) {
        if (o->round_mode != EM_ROUNDING_NATURAL)
            return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "16-bit LUT with OFM round mode %u", o->round_mode);
        needed = 0xffu;
        o->lut = s->lut85;
        o->lut16 = 1;
    } else {
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION activation_function value %u table %u on "
                       "Ethos-U85-%d (not modelled)", function, table, s->macs);
    }
    if ((s->lut_loaded & needed) != needed)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "LUT table %u read but no DMA loaded it in this stream", table);
    return 0;
}

static int load_activation(em_state *s, em_out *o) {
    uint64_t act = R0(s, NPU_SET_ACTIVATION);
    unsigned function = EM85_F_NPU_SET_ACTIVATION_ACTIVATION_FUNCTION(act);
    unsigned clip = EM85_F_NPU_SET_ACTIVATION_ACTIVATION_CLIP_RANGE(act);
    uint32_t lo = EM85_F_NPU_SET_ACTIVATION_MIN_CLIP_BOUNDARY(R0(s, NPU_SET_ACTIVATION_MIN));
    uint32_t hi = EM85_F_NPU_SET_ACTIVATION_MAX_CLIP_BOUNDARY(R0(s, NPU_SET_ACTIVATION_MAX));
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
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION activation_clip_range value %u", clip);
    }
    return 0;
}

/* OFM transposes: the operation computes the OFM in its own (y, x, c) and the hardware stores
   it with its axes permuted (regor ethos_u85_register_cs_generator.cpp GenerateOFM: OFM size
   "before transposition", tiles and strides "after"; common/transpose_type.hpp: NWCH stores
   the W axis as H, C as W, H as C). The model gives the OFM view the strides of the stored
   axes that hold each of its axes, so every store lands where the hardware puts it. Modelled
   for OFMs in one tile (NHCWB16: when the stored C holds the op's C, or fits one brick). */
static int transpose_view(em_state *s, em_out *o, unsigned transpose) {
    enum { AXIS_H, AXIS_W, AXIS_C };
    /* per transpose: the op's axis (H, W, C) that stored axis H, W, C holds */
    static const struct { unsigned value; int held[3]; } table[] = {
        {EM85_ACTIVATION_TRANSPOSE_WHC, {AXIS_W, AXIS_H, AXIS_C}}, {EM85_ACTIVATION_TRANSPOSE_HCW, {AXIS_H, AXIS_C, AXIS_W}},
        {EM85_ACTIVATION_TRANSPOSE_WCH, {AXIS_W, AXIS_C, AXIS_H}}, {EM85_ACTIVATION_TRANSPOSE_CHW, {AXIS_C, AXIS_H, AXIS_W}},
        {EM85_ACTIVATION_TRANSPOSE_CWH, {AXIS_C, AXIS_W, AXIS_H}},
    };
    int64_t stored_stride[3], view_stride[3];
    int extent[3], stored_extent[3], i, axis;
    if (transpose == EM85_ACTIVATION_TRANSPOSE_HWC) return 0;
    for (i = 0; i < (int)(sizeof(table) / sizeof(table[0])) && table[i].value != transpose; i++) continue;
    if (i == (int)(sizeof(table) / sizeof(table[0])))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_OFM_PRECISION activation_transpose value %u on Ethos-U85-%d",
                       transpose, s->macs);
    extent[AXIS_H] = o->height; extent[AXIS_W] = o->width; extent[AXIS_C] = o->depth;
    /* stored C: NHCWB16 bricks when it holds the op's C (channel addressing unchanged), else
       linear, which an NHCWB16 OFM is only inside one 16-channel brick */
    stored_stride[AXIS_H] = o->fm.stride_y; stored_stride[AXIS_W] = o->fm.stride_x;
    stored_stride[AXIS_C] = table[i].held[AXIS_C] == AXIS_C ? o->fm.stride_c : o->fm.bytes;
    for (axis = 0; axis < 3; axis++) {
        stored_extent[axis] = extent[table[i].held[axis]];
        view_stride[table[i].held[axis]] = stored_stride[axis];
    }
    if (o->fm.nhcwb16 && table[i].held[AXIS_C] != AXIS_C) {
        if (stored_extent[AXIS_C] > 16)
            return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_OFM_PRECISION activation_transpose value %u into an "
                           "NHCWB16 OFM deeper than 16 on Ethos-U85-%d (not modelled)", transpose, s->macs);
        o->fm.nhcwb16 = 0;
    }
    if (o->fm.height0 < stored_extent[AXIS_H] || o->fm.width0 < stored_extent[AXIS_W])
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_OFM_PRECISION activation_transpose value %u with a tiled "
                       "OFM on Ethos-U85-%d (not modelled)", transpose, s->macs);
    o->fm.stride_y = view_stride[AXIS_H];
    o->fm.stride_x = view_stride[AXIS_W];
    o->fm.stride_c = view_stride[AXIS_C];
    o->fm.height0 = o->fm.height1 = o->height; /* one tile, in the op's coordinates */
    o->fm.width0 = o->width;
    return 0;
}

int em85_load_out(em_state *s, em_out *o) {
    uint64_t prec = R0(s, NPU_SET_OFM_PRECISION);
    uint64_t scale = R1(s, NPU_SET_OFM_SCALE);
    unsigned reverse = EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_REVERSE(prec);
    unsigned transpose = EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_TRANSPOSE(prec);
    int rc = em_load_fmap(s, 2, &o->fm);
    if (rc) return rc;
    if (reverse != EM85_ACTIVATION_REVERSE_NONE)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_OFM_PRECISION activation_reverse value %u on Ethos-U85 "
                       "(not modelled)", reverse);
    o->height = (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(R0(s, NPU_SET_OFM_HEIGHT_M1)) + 1;
    o->width = (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(R0(s, NPU_SET_OFM_WIDTH_M1)) + 1;
    o->depth = (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(R0(s, NPU_SET_OFM_DEPTH_M1)) + 1;
    o->round_mode = em85_round_mode(EM85_F_NPU_SET_OFM_SCALE_ROUND_MODE(scale));
    if (o->round_mode == 0xffu)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_OFM_SCALE round_mode value %u",
                       EM85_F_NPU_SET_OFM_SCALE_ROUND_MODE(scale));
    if (EM85_F_NPU_SET_OFM_SCALE_DBL_RND(scale) != 0)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_OFM_SCALE dbl_rnd value %u (regor writes 0 for the OFM)",
                       EM85_F_NPU_SET_OFM_SCALE_DBL_RND(scale));
    em_out_type_range(o);
    if ((rc = transpose_view(s, o, transpose))) return rc;
    return load_activation(s, o);
}
