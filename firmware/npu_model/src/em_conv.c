/* NPU_OP_CONV and NPU_OP_DEPTHWISE (fully connected is a 1x1 CONV).
 *
 * Every path computes the same int64 accumulator, bias + sum over the taps inside the IFM of
 * (IFM - zero point) * weight, then scales and stores it per output channel.
 * - Patch path (8-bit IFM whose values minus the zero point fit int16): the IFM patch of an
 *   output position is gathered once into a contiguous int16 buffer [ky][kx][i] (0 for taps
 *   in the padding), the layout of the decoded weights, so one CONV output channel is one
 *   int16 dot product, taken for up to CONV_POSITIONS positions per pass over a weight row.
 *   Partial sums are int32 over chunks short enough that they cannot overflow.
 * - Direct path (16-bit IFM, patches beyond the buffer): reads each tap's channels per
 *   position and accumulates in int64.
 */
#include <string.h>

#include "em_internal.h"

#ifndef NPU_MODEL_PATCH_CAPACITY
#define NPU_MODEL_PATCH_CAPACITY 32768u /* int16 elements: IFM patches of the positions in flight */
#endif
#define CONV_POSITIONS EM_DOT_ROWS
#define INT32_LIMIT 2147483647

static int16_t g_weights[NPU_MODEL_WEIGHT_CAPACITY];
static int16_t g_patch[NPU_MODEL_PATCH_CAPACITY];
static int64_t g_acc[CONV_POSITIONS][NPU_MODEL_MAX_DEPTH];
static int32_t g_col[NPU_MODEL_MAX_DEPTH];
static int32_t g_dw32[NPU_MODEL_MAX_DEPTH];

typedef struct conv_job {
    em_state *s;
    em_fmap in;
    em_out o;
    em_geom g;
    int depthwise, ifm_depth;
    int depth;   /* channels read per tap: IFM depth (CONV) or OFM depth (DEPTHWISE) */
    int patch;   /* int16 elements of one position's patch: kh * kw * depth */
    int chunk;   /* products an int32 partial sum can take without overflow */
    int acc_bits;            /* U85: the ACC_FORMAT accumulator (32 or 48 bits); 0 elsewhere */
    int keep, output;        /* U85: start from the kept accumulator; write the OFM (else keep it) */
    int64_t acc_lo, acc_hi;  /* the accumulator's range (int64 where it is not checked) */
    em_kernel k;             /* the weights; k.ofm_lo/ofm_hi the channels decoded */
    const int16_t *weights;  /* their decode: g_weights or a kept one (em_weight_reuse.c) */
    int32_t max_w;           /* the largest |weight| among them */
    em_weight_streams w;     /* the weight streams (U55/U65: of the cores; U85: of the decoders) */
    int c0, c1;              /* the output channels computed now: k.ofm_lo, k.ofm_hi */
    em85_acc acc;            /* U85: ACC_FORMAT (output 1 elsewhere) */
} conv_job;

/* --- the output stage of one position: scale per channel, then store --- */

/* The accumulator of (oy, ox, c) before the products: the record's bias where the output is
   written (the output stage adds it, once per kept chain: em85_kept.c), plus the kept one. */
static inline int64_t acc_start(const conv_job *j, int oy, int ox, int c) {
    int64_t v = j->output ? j->s->bias[c] : 0;
    return j->keep ? v + *em85_kept_at(j->s, oy, ox, c) : v;
}

/* U85 acc_output DISABLE: channels j->c0..c1-1 of acc kept for the next command. */
static int keep_position(conv_job *j, int oy, int ox, const int64_t *acc) {
    int c;
    for (c = j->c0; c < j->c1; c++) {
        if (acc[c] < j->acc_lo || acc[c] > j->acc_hi)
            return em85_acc_check(j->s, j->depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV", acc[c], j->acc_bits);
        *em85_kept_at(j->s, oy, ox, c) = acc[c];
    }
    return 0;
}

/* Channels j->c0..c1-1 of acc (indexed by channel). */
static int store_position(conv_job *j, int oy, int ox, int64_t *acc) {
    const em_out *o = &j->o;
    const int32_t *mult = j->s->mult;
    const uint8_t *shift = j->s->shift;
    const int c0 = j->c0, c1 = j->c1;
    const unsigned mode = o->round_mode;
    int c;
    if (!j->output) return keep_position(j, oy, ox, acc);
    for (c = c0; c < c1; c++) {
        if (acc[c] < j->acc_lo || acc[c] > j->acc_hi)
            return em85_acc_check(j->s, j->depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV", acc[c], j->acc_bits);
        if (!em_scale_fast(acc[c], mult[c], shift[c], mode, &acc[c])) {
            int err = 0;
            acc[c] = em_scale(j->s, acc[c], mult[c], shift[c], mode, &err);
            if (err) return err;
        }
    }
    em_store_run(o, oy, ox, c0, c1 - c0, acc + c0);
    return 0;
}

/* --- patch path --- */

/* n contiguous 8-bit values minus the zero point. */
static void widen8(const uint8_t *src, int n, int is_signed, int16_t zp, int16_t *dst) {
    int i;
    if (is_signed) for (i = 0; i < n; i++) dst[i] = (int16_t)((int8_t)src[i] - zp);
    else for (i = 0; i < n; i++) dst[i] = (int16_t)(src[i] - zp);
}

/* `depth` channels of the 8-bit IFM at (iy, ix) minus the zero point into dst (NHWC channels
   are contiguous: em_load_fmap ignores STRIDE_C there, as the hardware does). */
static void gather_tap(const em_fmap *in, int iy, int ix, int depth, int16_t *dst) {
    const uint8_t *run = em_fm_run(in, iy, ix, depth);
    const int16_t zp = (int16_t)in->zero_point;
    int i;
    if (run == NULL) {
        for (i = 0; i < depth; i++) dst[i] = (int16_t)(em_fm_read(in, iy, ix, i) - in->zero_point);
    } else if (in->nhcwb16) {
        for (i = 0; i < depth; i += 16)
            widen8(run + (i >> 4) * in->stride_c, depth - i < 16 ? depth - i : 16, in->is_signed, zp, dst + i);
    } else {
        widen8(run, depth, in->is_signed, zp, dst);
    }
}

static void gather_patch(const conv_job *j, int oy, int ox, int16_t *patch) {
    const em_geom *g = &j->g;
    int ky, kx;
    for (ky = 0; ky < g->kh; ky++) {
        int iy = em_tap_row(g, oy, ky);
        for (kx = 0; kx < g->kw; kx++, patch += j->depth) {
            int ix = em_tap_col(g, ox, kx);
            if (iy < 0 || ix < 0) memset(patch, 0, (size_t)j->depth * sizeof(int16_t));
            else gather_tap(&j->in, iy, ix, j->depth, patch);
        }
    }
}

/* CONV: `positions` consecutive output columns from ox0 of row oy. */
static int conv_positions(conv_job *j, int oy, int ox0, int positions) {
    int p, c;
    int64_t sums[CONV_POSITIONS];
    for (p = 0; p < positions; p++) gather_patch(j, oy, ox0 + p, g_patch + (size_t)p * j->patch);
    for (c = j->c0; c < j->c1; c++) {
        for (p = 0; p < positions; p++) sums[p] = acc_start(j, oy, ox0 + p, c);
        em_dot16(j->weights + (size_t)(c - j->c0) * j->patch, g_patch, j->patch, positions, j->chunk, sums);
        for (p = 0; p < positions; p++) g_acc[p][c] = sums[p];
    }
    for (p = 0; p < positions; p++) {
        int rc = store_position(j, oy, ox0 + p, g_acc[p]);
        if (rc) return rc;
    }
    return 0;
}

/* DEPTHWISE: one position; weights are [ky][kx][c - c0] like the patch ([ky][kx][c]), so each
   tap is an element-wise product over the channels (int32 while j->chunk allows all taps). */
static int depthwise_position(conv_job *j, int oy, int ox) {
    const int depth = j->o.depth, taps = j->g.kh * j->g.kw, c0 = j->c0, c1 = j->c1, n = c1 - c0;
    int64_t *acc = g_acc[0];
    int t, c;
    gather_patch(j, oy, ox, g_patch);
    for (c = c0; c < c1; c++) acc[c] = acc_start(j, oy, ox, c);
    if (taps <= j->chunk) {
        for (c = c0; c < c1; c++) g_dw32[c] = 0;
        for (t = 0; t < taps; t++) {
            const int16_t *pt = g_patch + (size_t)t * depth, *wt = j->weights + (size_t)t * n - c0;
            for (c = c0; c < c1; c++) g_dw32[c] += (int32_t)pt[c] * wt[c];
        }
        for (c = c0; c < c1; c++) acc[c] += g_dw32[c];
    } else {
        for (t = 0; t < taps; t++) {
            const int16_t *pt = g_patch + (size_t)t * depth, *wt = j->weights + (size_t)t * n - c0;
            for (c = c0; c < c1; c++) acc[c] += (int64_t)pt[c] * wt[c];
        }
    }
    return store_position(j, oy, ox, acc);
}

/* --- direct path --- */

static int direct_position(conv_job *j, int oy, int ox) {
    const em_geom *g = &j->g;
    const int c0 = j->c0, c1 = j->c1, n = c1 - c0;
    int64_t *acc = g_acc[0];
    int ky, kx, c, i;
    for (c = c0; c < c1; c++) acc[c] = acc_start(j, oy, ox, c);
    for (ky = 0; ky < g->kh; ky++) {
        int iy = em_tap_row(g, oy, ky);
        if (iy < 0) continue;
        for (kx = 0; kx < g->kw; kx++) {
            int ix = em_tap_col(g, ox, kx), tap = ky * g->kw + kx;
            if (ix < 0) continue;
            for (i = 0; i < j->depth; i++) g_col[i] = (int32_t)(em_fm_read(&j->in, iy, ix, i) - j->in.zero_point);
            for (c = c0; c < c1; c++) {
                if (j->depthwise) {
                    acc[c] += (int64_t)g_col[c] * j->weights[(size_t)tap * n + (c - c0)];
                } else {
                    const int16_t *w = j->weights + ((size_t)(c - c0) * g->kh * g->kw + tap) * j->ifm_depth;
                    for (i = 0; i < j->ifm_depth; i++) acc[c] += (int64_t)g_col[i] * w[i];
                }
            }
        }
    }
    return store_position(j, oy, ox, acc);
}

/* --- the operation --- */

static int32_t max_abs_weight(const int16_t *weights, size_t count) {
    int32_t m = 0;
    size_t i;
    for (i = 0; i < count; i++) {
        int32_t v = weights[i] < 0 ? -(int32_t)weights[i] : weights[i];
        if (v > m) m = v;
    }
    return m;
}

int32_t em_max_abs_input(const em_fmap *in) {
    int32_t lo = in->is_signed ? -128 : 0, hi = in->is_signed ? 127 : 255;
    int32_t a = lo - in->zero_point, b = hi - in->zero_point;
    if (in->bytes != 1) return 0;
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    return a > b ? a : b;
}

int16_t *em_dense_buffer(void) {
    em_weights_forget();
    return g_weights;
}

/* 1 when the patch path applies; sets j->chunk. */
static int patch_path(conv_job *j, int32_t max_w) {
    int32_t max_in = em_max_abs_input(&j->in);
    int64_t product = (int64_t)max_in * max_w;
    if (max_in == 0 || max_in > 32767 || (size_t)j->patch > NPU_MODEL_PATCH_CAPACITY) return 0;
    j->chunk = product == 0 ? j->patch + 1 : (int)(INT32_LIMIT / product);
    if (j->chunk < 1) return 0;
    return 1;
}

/* What every architecture's job needs once its registers are loaded. */
static int finish_job(em_state *s, conv_job *j) {
    if (j->ifm_depth > (int)NPU_MODEL_MAX_DEPTH)
        return em_fail(s, NPU_MODEL_CAPACITY, "IFM depth %d exceeds NPU_MODEL_MAX_DEPTH", j->ifm_depth);
    if (j->in.bytes == 4)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s with a 32-bit IFM", j->depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV");
    j->depth = j->depthwise ? j->o.depth : j->ifm_depth;
    j->patch = j->g.kh * j->g.kw * j->depth;
    return 0;
}

/* The registers (through the architecture's table), the checks every job shares, then the
   weights and scales. */
static int load_job(em_state *s, int depthwise, conv_job *j) {
    const em_arch *arch = s->ops;
    em_conv_regs regs;
    int rc;
    memset(j, 0, sizeof(*j));
    memset(&regs, 0, sizeof(regs));
    j->s = s;
    j->depthwise = depthwise;
    j->acc_lo = INT64_MIN;
    j->acc_hi = INT64_MAX;
    regs.o = &j->o; regs.in = &j->in; regs.g = &j->g; regs.k = &j->k; regs.w = &j->w;
    regs.acc.output = 1;
    if ((rc = arch->conv_registers(s, depthwise, &regs))) return rc;
    j->ifm_depth = regs.ifm_depth;
    if (regs.acc.bits) {
        /* the accumulator a B64 OFM receives as it is: a value past it stops (em85_acc_check) */
        j->acc_bits = regs.acc.bits;
        j->acc_lo = -((int64_t)1 << (regs.acc.bits - 1));
        j->acc_hi = ((int64_t)1 << (regs.acc.bits - 1)) - 1;
    }
    j->keep = regs.acc.keep;
    j->output = regs.acc.output;
    j->acc = regs.acc;
    if ((rc = finish_job(s, j))) return rc;
    return arch->conv_weights(s, depthwise, &regs);
}

/* Output channels per block of decoded weights: all of them where NPU_MODEL_WEIGHT_CAPACITY
   holds the command's weights, else as many as it holds (a multiple of 16, one NHCWB16 brick,
   where it can); 0 with a capacity error when not even one channel's weights fit. */
static int channels_per_block(conv_job *j) {
    size_t per_channel = em_weights_per_channel(&j->k), fit = NPU_MODEL_WEIGHT_CAPACITY / per_channel;
    if (fit == 0) {
        em_fail(j->s, NPU_MODEL_CAPACITY, "%u weights of one output channel exceed NPU_MODEL_WEIGHT_CAPACITY %u",
                (unsigned)per_channel, (unsigned)NPU_MODEL_WEIGHT_CAPACITY);
        return 0;
    }
    if (fit >= (size_t)j->o.depth) return j->o.depth;
    return (int)(fit > 16 ? fit - fit % 16 : fit);
}

/* The weights of channels [c0, c1): decoded into the store of kept decodes or g_weights, or a
   kept decode of the same weights (em_weight_reuse.c). */
static int decode_block(conv_job *j, int c0, int c1) {
    em_weight_key key;
    int16_t *into;
    size_t count;
    int rc;
    j->c0 = j->k.ofm_lo = c0;
    j->c1 = j->k.ofm_hi = c1;
    memset(&key, 0, sizeof(key));
    key.arch = j->s->arch;
    key.macs = j->s->macs;
    key.cores = j->s->cores;
    key.k = j->k;
    key.w = j->w;
    count = (size_t)(c1 - c0) * em_weights_per_channel(&j->k);
    if ((j->weights = em_weights_kept(&key, count, &j->max_w)) != NULL) {
        em_weights_resume_forget(); /* the next block reads its streams from the start */
        return 0;
    }
    into = em_weights_room(&key, count, g_weights);
    if (into == g_weights) em_weights_forget();
    if ((rc = j->s->ops->decode_weights(j->s, &j->k, &j->w, into))) return rc;
    j->weights = into;
    j->max_w = max_abs_weight(into, count);
    em_weights_decoded(&key, into, count, j->max_w);
    return 0;
}

/* Every output position of channels [j->c0, j->c1). */
static int run_block(conv_job *j) {
    const int depthwise = j->depthwise;
    int rc, oy, ox;
    int patches = patch_path(j, j->max_w);
    for (oy = 0; oy < j->o.height; oy++) {
        for (ox = 0; ox < j->o.width;) {
            int step = 1;
            if (!patches) rc = direct_position(j, oy, ox);
            else if (depthwise) rc = depthwise_position(j, oy, ox);
            else {
                int fit = (int)(NPU_MODEL_PATCH_CAPACITY / (size_t)j->patch);
                step = j->o.width - ox;
                if (step > CONV_POSITIONS) step = CONV_POSITIONS;
                if (step > fit) step = fit;
                rc = conv_positions(j, oy, ox, step);
            }
            if (rc) return rc;
            ox += step;
        }
    }
    return 0;
}

int em_op_conv(em_state *s, int depthwise) {
    conv_job j;
    int rc, c0, block;
    if ((rc = load_job(s, depthwise, &j))) return rc;
    if ((block = channels_per_block(&j)) == 0) return s->status->code;
    em_weights_resume_forget();
    for (c0 = 0; c0 < j.o.depth; c0 += block) {
        int c1 = j.o.depth - c0 < block ? j.o.depth : c0 + block;
        if ((rc = decode_block(&j, c0, c1)) || (rc = run_block(&j))) return rc;
    }
    s->ops->conv_done(s, &j.acc);
    return 0;
}
