/* NPU_OP_POOL: max, average, reduce-sum. */
#include <string.h>

#include "em_internal.h"

/* --- POOL --- */

#define SUM_RUN 256 /* channels read per pass */

/* The sum over `depth` IFM channels at (iy, ix) of value - zero point; an int32 NHWC run
   inside the region (Vela's U55 MatMul sums the MUL's int32 rows so) is summed where it lies. */
static int64_t channel_sum(const em_fmap *in, int iy, int ix, int depth) {
    int64_t values[SUM_RUN], sum = 0;
    int c0, i;
    const uint8_t *run = in->bytes == 4 && !in->nhcwb16 && in->stride_c == 4 ? em_fm_run(in, iy, ix, depth) : NULL;
    if (run != NULL) {
        for (i = 0; i < depth; i++) sum += em_le32(run + (size_t)i * 4u);
        return sum - (int64_t)depth * in->zero_point;
    }
    for (c0 = 0; c0 < depth; c0 += SUM_RUN) {
        const int n = depth - c0 < SUM_RUN ? depth - c0 : SUM_RUN;
        em_fm_read_run(in, iy, ix, c0, n, values);
        for (i = 0; i < n; i++) sum += values[i];
    }
    return sum - (int64_t)depth * in->zero_point;
}

int64_t em_pool_window(const em_fmap *in, const em_geom *g, int oy, int ox, int c, int kind, int ifm_depth,
                       int *count) {
    int64_t acc = kind == EM_WINDOW_MAX ? INT64_MIN : kind == EM_WINDOW_MIN ? INT64_MAX : 0;
    int ky, kx;
    for (ky = 0; ky < g->kh; ky++) {
        int iy = em_tap_row(g, oy, ky);
        if (iy < 0) continue;
        for (kx = 0; kx < g->kw; kx++) {
            int ix = em_tap_col(g, ox, kx);
            int64_t x;
            if (ix < 0) continue;
            if (kind == EM_WINDOW_CHANNEL_SUM) {
                x = channel_sum(in, iy, ix, ifm_depth); /* the IFM channels into one (OFM depth 1) */
            } else {
                x = em_fm_read(in, iy, ix, c) - in->zero_point;
            }
            if (kind == EM_WINDOW_MAX) acc = x > acc ? x : acc;
            else if (kind == EM_WINDOW_MIN) acc = x < acc ? x : acc;
            else acc += x;
            (*count)++;
        }
    }
    return acc;
}

/* A padded AVERAGE divides by the number of valid (non-padding) elements in hardware: regor
   ethos_u55_register_cs_generator.cpp GenerateOFMScalingForPooling ("padded average-pools use
   HW-scaling", lines 559-563) leaves OFM_SCALE at unit and asserts there is no rescale to fuse,
   so the NPU must compute TOSA's AVG_POOL2D itself: the sum times reciprocal_scale(count)
   (multiplier ((1 << 30) + 1) << k / count, shift 30 + k, 2^(k-1) < count <= 2^k), rounded
   as the OFM round mode says (NATURAL, the TOSA single rounding; regor graph_builder.cpp
   AddOutput gives every pool NATURAL). Checked bit-exactly against the TOSA reference. */
int64_t em_pool_average(em_state *s, int64_t sum, int count, unsigned mode, int *err) {
    int k = 0;
    if (count == 0) {
        *err = em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with a kernel wholly in the padding");
        return 0;
    }
    while ((1u << k) < (unsigned)count) k++;
    return em_scale(s, sum, ((((int64_t)1 << 30) + 1) << k) / count, 30 + k, mode, err);
}

/* A loaded accumulator value, and with its record's bias, must fit the accumulator (where the
   U85 adds the bias, and at what width, regor does not say). */
static int check_loaded(em_state *s, int64_t acc, int64_t bias, int bits) {
    int rc = em85_acc_check(s, "NPU_OP_POOL acc_input IFM2", acc, bits);
    return rc ? rc : em85_acc_check(s, "NPU_OP_POOL acc_input IFM2 plus bias", acc + bias, bits);
}

int em_pool_scaled(em_state *s, const em_pool_scaling *sc, unsigned round, int c, int64_t acc, int count,
                   int64_t *value) {
    int err = 0;
    if (sc->loaded_bits && (err = check_loaded(s, acc, sc->per_channel ? s->bias[c] : 0, sc->loaded_bits))) return err;
    *value = sc->hw_average ? em_pool_average(s, acc, count, round, &err)
             : sc->per_channel ? em_scale_inline(s, acc + s->bias[c], s->mult[c], s->shift[c], round, &err)
                               : em_scale_inline(s, acc, sc->scale, sc->shift, round, &err);
    return err;
}

int em_pool_is_pointwise(const em_geom *g) {
    return g->kh == 1 && g->kw == 1 && g->stride_x == 1 && g->stride_y == 1 && g->pad_top == 0 && g->pad_left == 0 &&
           g->pad_bottom == 0 && g->pad_right == 0 && g->upscale == EM_RESAMPLING_MODE_NONE;
}

#define POOL_ROW 256 /* channels per pass */
static int64_t g_row[POOL_ROW];
static int64_t g_table[256];
#define TABLE_WORTH 128 /* OFM elements from which building a table of 256 values pays (a
                           reused table pays from the first element) */

/* What the 256 values of g_table are a function of (no LUT, one scale for every channel). */
typedef struct table_key {
    int64_t scale, in_zero_point, out_zero_point, act_min, act_max, type_min, type_max;
    int shift, hw_average, round, in_signed;
} table_key;
static table_key g_table_key;
static int g_table_valid;

static void key_of(const em_out *o, const em_fmap *in, const em_pool_scaling *sc, table_key *k) {
    memset(k, 0, sizeof(*k)); /* padding too: keys compare with memcmp */
    k->scale = sc->scale; k->shift = sc->shift; k->hw_average = sc->hw_average; k->round = (int)o->round_mode;
    k->in_zero_point = in->zero_point; k->in_signed = in->is_signed;
    k->out_zero_point = o->fm.zero_point;
    k->act_min = o->act_min; k->act_max = o->act_max; k->type_min = o->type_min; k->type_max = o->type_max;
}

/* The 256 OFM values of an 8-bit IFM's bytes into g_table when one scale serves every channel;
   0 (and the run's status as it was) when one of them fails: the element loop then meets the
   failure where the operation does. Without a LUT the table stays for the next command with the
   same key (DeiT-tiny on U55 runs thousands of small 1x1 average pools, Vela's transposes). */
static int byte_table(em_state *s, const em_out *o, const em_fmap *in, const em_pool_scaling *sc) {
    const npu_model_status kept = *s->status;
    table_key key;
    int v;
    if (in->bytes != 1 || sc->per_channel || sc->loaded_bits) return 0;
    key_of(o, in, sc, &key);
    if (o->lut == NULL && g_table_valid && memcmp(&key, &g_table_key, sizeof(key)) == 0) return 1;
    if ((int64_t)o->height * o->width * o->depth < TABLE_WORTH) return 0; /* cheaper element by element */
    g_table_valid = 0;
    for (v = 0; v < 256; v++) {
        int64_t raw = in->is_signed ? (int64_t)(int8_t)v : (int64_t)v;
        if (em_pool_scaled(s, sc, o->round_mode, 0, raw - in->zero_point, 1, &g_table[v])) {
            *s->status = kept;
            return 0;
        }
        g_table[v] = em_out_value(o, g_table[v]);
    }
    g_table_key = key;
    g_table_valid = o->lut == NULL;
    return 1;
}

/* Channel 0 of positions (y, 0) and (y, width - 1) when both lie in one tile and all their
   channels inside the region (position x is then at the first + x * stride_x: the region check
   is affine in x, so the ends bound every position between); NULL otherwise. */
static const uint8_t *row_run(const em_fmap *f, int y, int width, int depth) {
    int64_t off;
    if (em_fm_tile(f, y, 0, &off) != em_fm_tile(f, y, width - 1, &off)) return NULL;
    if (em_fm_run(f, y, width - 1, depth) == NULL) return NULL;
    return em_fm_run(f, y, 0, depth);
}

/* OFM row oy through g_table, 8-bit NHWC in and out, each pass of POOL_ROW channels of a
   position read before it is written (as the general loop does); 0 when a run leaves its tile
   or region. Vela's transposes on U55 are such pools of one channel per position, thousands per
   DeiT-tiny. */
static int tabled_row8(const em_out *o, const em_fmap *in, int oy) {
    const uint8_t *src = row_run(in, oy, o->width, o->depth);
    uint8_t *dst = (uint8_t *)(uintptr_t)row_run(&o->fm, oy, o->width, o->depth), bytes[POOL_ROW];
    int ox, c0, i;
    if (src == NULL || dst == NULL) return 0;
    for (ox = 0; ox < o->width; ox++, src += in->stride_x, dst += o->fm.stride_x)
        for (c0 = 0; c0 < o->depth; c0 += POOL_ROW) {
            const int n = o->depth - c0 < POOL_ROW ? o->depth - c0 : POOL_ROW;
            for (i = 0; i < n; i++) bytes[i] = (uint8_t)g_table[src[c0 + i]];
            memcpy(dst + c0, bytes, (size_t)n);
        }
    return 1;
}

int em_pool_pointwise(em_state *s, const em_out *o, const em_fmap *in, const em_pool_scaling *sc) {
    const int tabled = byte_table(s, o, in, sc);
    const int bytewise = tabled && em_fm_is_nhwc8(in) && em_fm_is_nhwc8(&o->fm);
    int oy, ox, c0, i, rc;
    for (oy = 0; oy < o->height; oy++) {
        if (bytewise && tabled_row8(o, in, oy)) continue;
        for (ox = 0; ox < o->width; ox++) {
            for (c0 = 0; c0 < o->depth; c0 += POOL_ROW) {
                const int n = o->depth - c0 < POOL_ROW ? o->depth - c0 : POOL_ROW;
                em_fm_read_run(in, oy, ox, c0, n, g_row);
                if (tabled) {
                    for (i = 0; i < n; i++) g_row[i] = g_table[(uint8_t)g_row[i]];
                    em_fm_write_run(&o->fm, oy, ox, c0, n, g_row);
                    continue;
                }
                for (i = 0; i < n; i++)
                    if ((rc = em_pool_scaled(s, sc, o->round_mode, c0 + i, g_row[i] - in->zero_point, 1, &g_row[i])))
                        return rc;
                em_store_run(o, oy, ox, c0, n, g_row);
            }
        }
    }
    return 0;
}

static int check_hw_average(em_state *s, const em_out *o, int64_t scale, int shift, int per_ch) {
    if (per_ch || scale != 1 || shift != 0)
        return em_fail(s, NPU_MODEL_UNSUPPORTED,
                       "NPU_OP_POOL AVERAGE with padding and a rescale (OFM_SCALE %u shift %d)", (unsigned)scale, shift);
    if (o->round_mode != EM_ROUNDING_NATURAL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with padding and round mode %u",
                       o->round_mode);
    return 0;
}

int em_op_pool(em_state *s, unsigned mode) {
    em_out o;
    em_fmap in;
    em_geom g;
    int rc, oy, ox, c;
    int64_t scale = (int64_t)EM_D1(s, NPU_SET_OFM_SCALE); /* unsigned: 1x1 average = 2^31 + 1 */
    int shift = (int)EM_F_NPU_SET_OFM_SCALE_SHIFT(EM_R1(s, NPU_SET_OFM_SCALE));
    int per_ch = em_per_channel(s);
    int ifm_depth = (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1;
    int hw_scaled;
    if ((rc = em_load_out(s, &o)) || (rc = em_load_fmap(s, 0, &in)) || (rc = em_load_geom(s, &o, &g)) ||
        (rc = em_ifm_tiles_apart(s, "NPU_OP_POOL", &in, &g)))
        return rc;
    if (mode == EM_POOLING_MODE_REDUCE_SUM && o.depth != 1)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL REDUCE_SUM with OFM depth %d (not 1)", o.depth);
    if (mode > EM_POOLING_MODE_REDUCE_SUM) return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL mode %u", mode);
    hw_scaled = mode == EM_POOLING_MODE_AVERAGE && g.pad_top + g.pad_left + g.pad_bottom + g.pad_right > 0;
    if (hw_scaled && (rc = check_hw_average(s, &o, scale, shift, per_ch))) return rc;
    if (g.dil_x != 1 || g.dil_y != 1) return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL with dilation");
    if (g.upscale != EM_RESAMPLING_MODE_NONE)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL with NPU_SET_IFM_UPSCALE mode %u", (unsigned)g.upscale);
    if ((rc = em_padding_past_ifm(s, "NPU_OP_POOL", &g))) return rc; /* after the pool's own refusals */
    if (per_ch && (rc = em_load_scales(s, o.depth))) return rc;
    if (em_pool_is_pointwise(&g) && mode != EM_POOLING_MODE_REDUCE_SUM) {
        em_pool_scaling sc = {0, per_ch, scale, shift, 0}; /* no padding: never the NPU's own average */
        return em_pool_pointwise(s, &o, &in, &sc);
    }
    for (oy = 0; oy < o.height; oy++) {
        for (ox = 0; ox < o.width; ox++) {
            for (c = 0; c < o.depth; c++) {
                int64_t v, acc;
                int err = 0, count = 0;
                acc = em_pool_window(&in, &g, oy, ox, c,
                                     mode == EM_POOLING_MODE_MAX ? EM_WINDOW_MAX
                                     : mode == EM_POOLING_MODE_REDUCE_SUM ? EM_WINDOW_CHANNEL_SUM : EM_WINDOW_SUM,
                                     ifm_depth, &count);
                if (hw_scaled) v = em_pool_average(s, acc, count, o.round_mode, &err);
                else if (per_ch) v = em_scale(s, acc + s->bias[c], s->mult[c], s->shift[c], o.round_mode, &err);
                else v = em_scale(s, acc, scale, shift, o.round_mode, &err);
                if (err) return err;
                em_store(&o, oy, ox, c, v);
            }
        }
    }
    return 0;
}

