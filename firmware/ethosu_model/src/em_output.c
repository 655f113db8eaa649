/* The output stage shared by every operation: OFM registers, rounding, zero point, LUT, clamp,
   saturation; kernel geometry; per-channel scale records. */
#include <string.h>

#include "em_internal.h"

/* --- the output stage: round, zero point, LUT, clamp, saturate --- */

int em_load_out(em_state *s, em_out *o) {
    uint64_t act = EM_R0(s, NPU_SET_ACTIVATION);
    unsigned type = EM_F_NPU_SET_ACTIVATION_TYPE(act), clip = EM_F_NPU_SET_ACTIVATION_ACT_CLIP_RANGE(act);
    int rc = em_load_fmap(s, 2, &o->fm);
    if (rc) return rc;
    o->height = (int)EM_P0(s, NPU_SET_OFM_HEIGHT_M1) + 1;
    o->width = (int)EM_P0(s, NPU_SET_OFM_WIDTH_M1) + 1;
    o->depth = (int)EM_P0(s, NPU_SET_OFM_DEPTH_M1) + 1;
    o->round_mode = EM_F_NPU_SET_OFM_PRECISION_ROUNDING(EM_R0(s, NPU_SET_OFM_PRECISION));
    if (o->fm.bytes == 4) {
        o->type_min = -((int64_t)1 << 31); o->type_max = ((int64_t)1 << 31) - 1;
    } else if (o->fm.is_signed) {
        o->type_min = -((int64_t)1 << (8 * o->fm.bytes - 1)); o->type_max = ((int64_t)1 << (8 * o->fm.bytes - 1)) - 1;
    } else {
        o->type_min = 0; o->type_max = ((int64_t)1 << (8 * o->fm.bytes)) - 1;
    }
    if (o->fm.bytes == 4) {
        /* regor GenerateActivation: min/max registers are 16-bit; a 32-bit OFM is not clamped
           by them unless a clip range forces it (not modelled). */
        o->act_min = o->type_min; o->act_max = o->type_max;
    } else if (o->fm.is_signed) {
        o->act_min = em_sext(EM_P0(s, NPU_SET_ACTIVATION_MIN), 16);
        o->act_max = em_sext(EM_P0(s, NPU_SET_ACTIVATION_MAX), 16);
    } else {
        o->act_min = EM_P0(s, NPU_SET_ACTIVATION_MIN);
        o->act_max = EM_P0(s, NPU_SET_ACTIVATION_MAX);
    }
    if (clip != EM_CLIP_RANGE_OFM_PRECISION)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION clip range value %u", clip);
    o->lut = NULL;
    if (type >= EM_ACTIVATION_LUT_START && type <= EM_ACTIVATION_LUT_END) {
        /* LUT slots sit in the last two SHRAM banks (regor ethos_u55.hpp _shram.lutBanks = 2;
           Vela's LUT DMAs go to (banks - 2) * 1024 + slot * 256 on U55-32 and U55-128 alike). */
        int lut_banks = 2;
        if (o->fm.bytes != 1)
            return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "LUT activation with a %d-byte OFM (16-bit LUTs)", o->fm.bytes);
        o->lut = s->shram + (size_t)(s->shram_banks - lut_banks) * 1024u + (type - EM_ACTIVATION_LUT_START) * 256u;
    } else if (type != EM_ACTIVATION_NONE) {
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION type %u (native TANH/SIGMOID)", type);
    }
    return 0;
}

void em_store(const em_out *o, int y, int x, int c, int64_t scaled) {
    int64_t v = scaled + o->fm.zero_point;
    if (o->lut) {
        int64_t lo = o->fm.is_signed ? -128 : 0, hi = o->fm.is_signed ? 127 : 255;
        v = v < lo ? lo : (v > hi ? hi : v);
        v = o->fm.is_signed ? (int64_t)(int8_t)o->lut[v + 128] : (int64_t)o->lut[v];
    }
    if (v < o->act_min) v = o->act_min;
    if (v > o->act_max) v = o->act_max;
    if (v < o->type_min) v = o->type_min;
    if (v > o->type_max) v = o->type_max;
    em_fm_write(&o->fm, y, x, c, v);
}

/* --- kernel geometry --- */

int em_load_geom(em_state *s, const em_out *o, em_geom *g) {
    uint32_t st = EM_P0(s, NPU_SET_KERNEL_STRIDE);
    g->kh_dil = (int)EM_P0(s, NPU_SET_KERNEL_HEIGHT_M1) + 1;
    g->kw_dil = (int)EM_P0(s, NPU_SET_KERNEL_WIDTH_M1) + 1;
    g->stride_x = (int)(((st >> EM_KSTRIDE_STRIDE_X_LSB) & 1u) | (((st >> EM_KSTRIDE_STRIDE_X_MSB) & 1u) << 1)) + 1;
    g->stride_y = (int)(((st >> EM_KSTRIDE_STRIDE_Y_LSB) & 1u) | (((st >> EM_KSTRIDE_STRIDE_Y_MSB) & 1u) << 1)) + 1;
    g->dil_x = (int)((st >> EM_KSTRIDE_DILATION_X) & 1u) + 1;
    g->dil_y = (int)((st >> EM_KSTRIDE_DILATION_Y) & 1u) + 1;
    g->part_kernel = (int)((st >> EM_KSTRIDE_PART_KERNEL_FIRST) & 1u);
    g->kh = (g->kh_dil - 1) / g->dil_y + 1;
    g->kw = (g->kw_dil - 1) / g->dil_x + 1;
    g->pad_top = (int)EM_P0(s, NPU_SET_IFM_PAD_TOP);
    g->pad_left = (int)EM_P0(s, NPU_SET_IFM_PAD_LEFT);
    g->pad_bottom = (int)EM_P0(s, NPU_SET_IFM_PAD_BOTTOM);
    g->pad_right = (int)EM_P0(s, NPU_SET_IFM_PAD_RIGHT);
    g->upscale = (int)EM_F_NPU_SET_IFM_UPSCALE_MODE(EM_R0(s, NPU_SET_IFM_UPSCALE));
    if (g->upscale != EM_RESAMPLING_MODE_NONE && g->upscale != EM_RESAMPLING_MODE_TRANSPOSE)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_IFM_UPSCALE mode %u (NEAREST: a TOSA RESIZE, never delegated "
                       "to U55/U65 by ExecuTorch)", (unsigned)g->upscale);
    g->ifm_h = (o->height - 1) * g->stride_y + g->kh_dil - g->pad_top - g->pad_bottom;
    g->ifm_w = (o->width - 1) * g->stride_x + g->kw_dil - g->pad_left - g->pad_right;
    return 0;
}

/* --- scale/bias records: 10 bytes (40-bit bias, 32-bit scale, 6-bit shift), regor
   ethos_u55_weight_encoder.cpp EncodeBias; channels interleaved over the cores --- */

int em_load_scales(em_state *s, int depth) {
    int core;
    unsigned region = EM_F_NPU_SET_SCALE_REGION_PARAM(EM_R0(s, NPU_SET_SCALE_REGION));
    if (depth > (int)ETHOSU_MODEL_MAX_DEPTH)
        return em_fail(s, ETHOSU_MODEL_CAPACITY, "OFM depth %d exceeds ETHOSU_MODEL_MAX_DEPTH", depth);
    for (core = 0; core < s->cores && core < depth; core++) {
        int count = (depth + s->cores - 1 - core) / s->cores, j;
        uint64_t base = core ? EM_D1(s, NPU_SET_SCALE1_BASE) : EM_D1(s, NPU_SET_SCALE_BASE);
        const uint8_t *p = em_address(s, region, base, (uint64_t)count * 10u, "scale stream");
        if (p == NULL) return s->status->code;
        for (j = 0; j < count; j++, p += 10) {
            int o = core + j * s->cores;
            uint64_t b = (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
                         ((uint64_t)p[4] << 32);
            s->bias[o] = (int64_t)((b ^ ((uint64_t)1 << 39)) - ((uint64_t)1 << 39));
            s->mult[o] = (int32_t)((uint32_t)p[5] | ((uint32_t)p[6] << 8) | ((uint32_t)p[7] << 16) | ((uint32_t)p[8] << 24));
            s->shift[o] = (uint8_t)(p[9] & 0x3f);
        }
    }
    return 0;
}

int em_per_channel(em_state *s) {
    return EM_F_NPU_SET_OFM_PRECISION_SCALING(EM_R0(s, NPU_SET_OFM_PRECISION)) == 0;
}

