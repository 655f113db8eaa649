/* The output stage shared by every operation: OFM registers, rounding, zero point, LUT, clamp,
   saturation; kernel geometry; per-channel scale records. */
#include <string.h>

#include "em_internal.h"

/* --- the output stage: round, zero point, LUT, clamp, saturate --- */

/* LUT slots sit in the last two SHRAM banks (regor ethos_u55.hpp _shram.lutBanks = 2,
   lutSlotSize = 256; ethos_u55.cpp TryBlockConfig lut_start = banks - lutBanks; Vela's LUT DMAs
   go to (banks - 2) * 1024 + slot * 256 on every configuration). */
#define EM_LUT_BANKS 2
#define EM_LUT_SLOT 256u
#define EM_LUT_SLOTS 8
#define EM_ALL_LUT_SLOTS 0xffu

static size_t lut_offset(const em_state *s) { return (size_t)(s->shram_banks - EM_LUT_BANKS) * 1024u; }

static int is_lut(unsigned type) { return type >= EM_ACTIVATION_LUT_START && type <= EM_ACTIVATION_LUT_END; }

void em_lut_written(em_state *s, uint64_t offset, uint64_t length) {
    int slot;
    for (slot = 0; slot < EM_LUT_SLOTS; slot++) {
        uint64_t start = lut_offset(s) + (uint64_t)slot * EM_LUT_SLOT;
        if (offset < start + EM_LUT_SLOT && offset + length > start) s->lut_loaded |= 1u << slot;
    }
}

void em_lut_after_op(em_state *s) {
    /* Without reserved LUT banks (16-bank SHRAM: ethos_u55.cpp reservedEndBanks = 0) an
       operation without a LUT may put accumulators there: regor then forgets every loaded LUT
       (ethos_u55_register_cs_generator.cpp: "LUT is overwritten by SHRAM accumulator buffers;
       clear slots") and reloads before the next use. The model does the same, so a stream
       that reads a LUT after such an operation without reloading it is refused. */
    if (s->shram_banks <= 16 && !is_lut(EM_F_NPU_SET_ACTIVATION_TYPE(EM_R0(s, NPU_SET_ACTIVATION))))
        s->lut_loaded = 0;
}

void em_out_type_range(em_out *o) {
    if (o->fm.bytes == 8) { /* U85 B64 (signed only): the accumulator, sign-extended */
        o->type_min = INT64_MIN; o->type_max = INT64_MAX;
    } else if (o->fm.bytes == 4) {
        o->type_min = -((int64_t)1 << 31); o->type_max = ((int64_t)1 << 31) - 1;
    } else if (o->fm.is_signed) {
        o->type_min = -((int64_t)1 << (8 * o->fm.bytes - 1)); o->type_max = ((int64_t)1 << (8 * o->fm.bytes - 1)) - 1;
    } else {
        o->type_min = 0; o->type_max = ((int64_t)1 << (8 * o->fm.bytes)) - 1;
    }
}

/* NPU_SET_ACTIVATION act_clip_range (regor ethos_u55_register_cs_generator.cpp
   GenerateActivation, lines 833-893): the range the OFM is clipped to and in which
   ACTIVATION_MIN/MAX (16 bits) are read. OFM_PRECISION: the OFM's own type, the registers
   signed or unsigned as the OFM and not applied to a 32-bit OFM (its range exceeds 16 bits);
   FORCE_UINT8/FORCE_INT8/FORCE_INT16: the forced type, whatever the OFM's precision (regor
   forces INT8 for a LUT into an int32 OFM and limits the registers to -128..127 for it), the
   registers read in the forced type's signedness. */
static int clip_bounds(em_state *s, em_out *o, unsigned clip) {
    uint32_t lo = EM_P0(s, NPU_SET_ACTIVATION_MIN), hi = EM_P0(s, NPU_SET_ACTIVATION_MAX);
    int forced_signed;
    int64_t forced_min, forced_max;
    if (clip == EM_CLIP_RANGE_OFM_PRECISION) {
        if (o->fm.bytes == 4) {
            o->act_min = o->type_min; o->act_max = o->type_max;
        } else {
            o->act_min = o->fm.is_signed ? em_sext(lo, 16) : (int64_t)lo;
            o->act_max = o->fm.is_signed ? em_sext(hi, 16) : (int64_t)hi;
        }
        return 0;
    }
    if (clip == EM_CLIP_RANGE_FORCE_UINT8) {
        forced_signed = 0; forced_min = 0; forced_max = 255;
    } else if (clip == EM_CLIP_RANGE_FORCE_INT8) {
        forced_signed = 1; forced_min = -128; forced_max = 127;
    } else if (clip == EM_CLIP_RANGE_FORCE_INT16) {
        forced_signed = 1; forced_min = -32768; forced_max = 32767;
    } else {
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION clip range value %u", clip);
    }
    o->act_min = forced_signed ? em_sext(lo, 16) : (int64_t)lo;
    o->act_max = forced_signed ? em_sext(hi, 16) : (int64_t)hi;
    if (o->act_min < forced_min) o->act_min = forced_min;
    if (o->act_max > forced_max) o->act_max = forced_max;
    return 0;
}

int em_load_out(em_state *s, em_out *o) {
    uint64_t act = EM_R0(s, NPU_SET_ACTIVATION);
    unsigned type = EM_F_NPU_SET_ACTIVATION_TYPE(act), clip = EM_F_NPU_SET_ACTIVATION_ACT_CLIP_RANGE(act);
    int rc = em_load_fmap(s, 2, &o->fm);
    if (rc) return rc;
    o->height = (int)EM_P0(s, NPU_SET_OFM_HEIGHT_M1) + 1;
    o->width = (int)EM_P0(s, NPU_SET_OFM_WIDTH_M1) + 1;
    o->depth = (int)EM_P0(s, NPU_SET_OFM_DEPTH_M1) + 1;
    o->round_mode = EM_F_NPU_SET_OFM_PRECISION_ROUNDING(EM_R0(s, NPU_SET_OFM_PRECISION));
    em_out_type_range(o);
    rc = clip_bounds(s, o, clip);
    if (rc) return rc;
    o->lut = NULL;
    o->lut16 = 0;
    if (is_lut(type)) {
        unsigned slot = type - EM_ACTIVATION_LUT_START, needed = 1u << slot;
        if (o->fm.bytes == 2 && o->fm.is_signed) {
            /* a 2048-byte LUT fills all eight slots: regor AllocateLutSlot steps by its size */
            if (type != EM_ACTIVATION_LUT_START)
                return em_fail(s, NPU_MODEL_UNSUPPORTED, "16-bit LUT in slot %u", type - EM_ACTIVATION_LUT_START);
            /* every 16-bit LUT op Vela emits rounds NATURAL (RewriteTable sets it; fused into a
               conv, the conv's rescale is NATURAL too): the only interpolation measured */
            if (o->round_mode != EM_ROUNDING_NATURAL)
                return em_fail(s, NPU_MODEL_UNSUPPORTED, "16-bit LUT with OFM round mode %u", o->round_mode);
            o->lut16 = 1;
            needed = EM_ALL_LUT_SLOTS;
        } else if (o->fm.bytes != 1) {
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "LUT activation with a %d-byte %s OFM", o->fm.bytes,
                           o->fm.is_signed ? "signed" : "unsigned");
        }
        if ((s->lut_loaded & needed) != needed)
            return em_fail(s, NPU_MODEL_UNSUPPORTED,
                           "LUT slot %u read but no DMA loaded it since SHRAM was last reused", slot);
        o->lut = s->shram + lut_offset(s) + slot * EM_LUT_SLOT;
    } else if (type != EM_ACTIVATION_NONE) {
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_ACTIVATION type %u (native TANH/SIGMOID)", type);
    }
    return 0;
}

/* The 16-bit LUT: 512 words of base (low 16 bits) and slope (high 16 bits), regor
   graphir_optimiser.cpp RewriteTable; the top 9 bits of the biased value pick the word, the low
   7 interpolate. This is TOSA TABLE (int16: (base << 7) + slope * fraction) followed by the
   rescale by 2^-7 that regor fuses into it (ethos_u55_constraints.cpp SupportedOFMQuant: "tables
   with an output shift of 7"), rounded half up (measured on all 65536 inputs; the op's OFM
   round mode is NATURAL, others are refused above). */
static int64_t lut16_lookup(const uint8_t *lut, int64_t v) {
    uint32_t biased = (uint32_t)((v < -32768 ? -32768 : (v > 32767 ? 32767 : v)) + 32768);
    const uint8_t *word = lut + (size_t)(biased >> 7) * 4u;
    int32_t base = (int16_t)(uint16_t)(word[0] | (word[1] << 8));
    int32_t slope = (int16_t)(uint16_t)(word[2] | (word[3] << 8));
    int32_t fraction = (int32_t)(biased & 0x7fu);
    return base + ((slope * fraction + 64) >> 7);
}

int64_t em_out_value(const em_out *o, int64_t scaled) {
    int64_t v = scaled + o->fm.zero_point;
    if (o->lut16) {
        v = lut16_lookup(o->lut, v);
    } else if (o->lut) {
        int64_t lo = o->fm.is_signed ? -128 : 0, hi = o->fm.is_signed ? 127 : 255;
        v = v < lo ? lo : (v > hi ? hi : v);
        v = o->fm.is_signed ? (int64_t)(int8_t)o->lut[v + 128] : (int64_t)o->lut[v];
    }
    if (v < o->act_min) v = o->act_min;
    if (v > o->act_max) v = o->act_max;
    if (v < o->type_min) v = o->type_min;
    if (v > o->type_max) v = o->type_max;
    return v;
}

void em_store(const em_out *o, int y, int x, int c, int64_t scaled) {
    em_fm_write(&o->fm, y, x, c, em_out_value(o, scaled));
}

void em_out_values(const em_out *o, int64_t *values, int count) {
    const int64_t zero_point = o->fm.zero_point, act_min = o->act_min, act_max = o->act_max;
    const int64_t type_min = o->type_min, type_max = o->type_max;
    int i;
    if (o->lut != NULL) {
        for (i = 0; i < count; i++) values[i] = em_out_value(o, values[i]);
        return;
    }
    for (i = 0; i < count; i++) /* em_out_value without a LUT, its bounds in registers */
        values[i] = em_out_clamp(values[i] + zero_point, act_min, act_max, type_min, type_max);
}

void em_store_run(const em_out *o, int y, int x, int c0, int n, int64_t *scaled) {
    em_out_values(o, scaled, n);
    em_fm_write_run(&o->fm, y, x, c0, n, scaled);
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
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_IFM_UPSCALE mode %u (NEAREST: a TOSA RESIZE, never delegated "
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
    if (depth > (int)NPU_MODEL_MAX_DEPTH)
        return em_fail(s, NPU_MODEL_CAPACITY, "OFM depth %d exceeds NPU_MODEL_MAX_DEPTH", depth);
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

