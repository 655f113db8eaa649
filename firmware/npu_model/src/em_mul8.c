/* NPU_OP_ELEMENTWISE MUL of 8-bit NHWC operands at unit OFM scale without a LUT, fused: each
   row of channels is read, multiplied, offset, clamped and stored in one pass of int32
   arithmetic. This is what Vela lowers a U55 MatMul to (a MUL and a channel REDUCE_SUM per block
   of rows: DeiT-tiny on U55-128 runs 3,132 of them per inference). The general path
   (em_elementwise.c) computes the same values in int64; the limits below keep every
   intermediate within int32, so the results are the same bit for bit. */
#include <string.h>

#include "em_internal.h"

#define MUL8_ROW 256          /* channels per pass: em_elementwise.c EW_ROW, the same read/write order */
#define MUL8_ZERO_POINT 255   /* |zero point| at most this: |operand - zero point| <= 383 */
#define MUL8_SCALAR (1 << 20) /* |scalar - zero point| at most this: |product| < 2^29 */

static int small(int64_t v, int64_t limit) { return v >= -limit && v <= limit; }

int em_mul8_applies(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o) {
    return m->unit_scale && o->lut == NULL && em_fm_is_nhwc8(a) && small(a->zero_point, MUL8_ZERO_POINT) &&
           (m->scalar ? small((int64_t)m->scalar_value - b->zero_point, MUL8_SCALAR)
                      : em_fm_is_nhwc8(b) && small(b->zero_point, MUL8_ZERO_POINT)) &&
           !o->fm.nhcwb16 && o->fm.stride_c == o->fm.bytes && o->fm.bytes <= 4;
}

/* Channel i of an 8-bit run: signed or not. */
static inline int32_t at8(const uint8_t *run, int is_signed, int i) {
    return is_signed ? (int32_t)(int8_t)run[i] : (int32_t)run[i];
}

static void store32(uint8_t *out, int bytes, const int32_t *v, int n) {
    int i;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bytes == 4) { memcpy(out, v, (size_t)n * 4u); return; }
#endif
    if (bytes == 1) for (i = 0; i < n; i++) out[i] = (uint8_t)v[i];
    else if (bytes == 2) for (i = 0; i < n; i++) { out[2 * i] = (uint8_t)v[i]; out[2 * i + 1] = (uint8_t)(v[i] >> 8); }
    else
        for (i = 0; i < n; i++) {
            uint32_t u = (uint32_t)v[i];
            out[4 * i] = (uint8_t)u; out[4 * i + 1] = (uint8_t)(u >> 8);
            out[4 * i + 2] = (uint8_t)(u >> 16); out[4 * i + 3] = (uint8_t)(u >> 24);
        }
}

/* em_out_clamp's four bounds (activation, then the type's, all within int32 here) as one
   clamp: a chain of max/min bounds is the clamp to what it makes of the smallest and the
   largest value (each bound keeps the chain a clamp, maybe to one value). */
static void bounds_of(const em_out *o, int32_t *lo, int32_t *hi) {
    *lo = (int32_t)em_out_clamp(INT32_MIN, o->act_min, o->act_max, o->type_min, o->type_max);
    *hi = (int32_t)em_out_clamp(INT32_MAX, o->act_min, o->act_max, o->type_min, o->type_max);
}

static inline int32_t clamp32(int32_t v, int32_t lo, int32_t hi) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* `n` channels: (a - za) * (b - zb) + zo, clamped; b NULL takes the scalar operand. The
   signedness tests are loop-invariant: the compiler unswitches them. */
static void mul8_chunk(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const uint8_t *ra, const uint8_t *rb,
                       int32_t lo, int32_t hi, int32_t zo, int n, int32_t *v) {
    const int32_t za = a->zero_point, sa = a->is_signed;
    int16_t da[MUL8_ROW], db[MUL8_ROW]; /* operands less their zero points: |.| <= 383 */
    int i;
    for (i = 0; i < n; i++) da[i] = (int16_t)(at8(ra, sa, i) - za);
    if (rb == NULL) {
        const int32_t k = m->scalar_value - b->zero_point;
        for (i = 0; i < n; i++) v[i] = clamp32(da[i] * k + zo, lo, hi);
    } else {
        const int32_t zb = b->zero_point, sb = b->is_signed;
        for (i = 0; i < n; i++) db[i] = (int16_t)(at8(rb, sb, i) - zb);
        for (i = 0; i < n; i++) v[i] = clamp32((int32_t)da[i] * db[i] + zo, lo, hi); /* 16 x 16 -> 32 bits */
    }
}

/* The runs of OFM position (y, x), or 0 when one of them leaves its region (the caller then
   takes the checked path, which records the fault). */
static int runs(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o, int y, int x,
                const uint8_t **ra, const uint8_t **rb, uint8_t **ro) {
    *ra = em_fm_run(a, y, x, o->depth);
    *rb = m->scalar ? NULL : em_fm_run(b, m->bh ? 0 : y, m->bw ? 0 : x, o->depth);
    *ro = em_fm_run(&o->fm, y, x, o->depth);
    return *ra != NULL && (m->scalar || *rb != NULL) && *ro != NULL;
}

int em_mul8_position(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o, int y, int x) {
    const int32_t zo = o->fm.zero_point;
    int32_t lo, hi;
    const uint8_t *ra, *rb;
    uint8_t *ro;
    int32_t v[MUL8_ROW];
    int c0;
    if (!runs(m, a, b, o, y, x, &ra, &rb, &ro)) return 0;
    bounds_of(o, &lo, &hi);
    for (c0 = 0; c0 < o->depth; c0 += MUL8_ROW) {
        const int n = o->depth - c0 < MUL8_ROW ? o->depth - c0 : MUL8_ROW;
        mul8_chunk(m, a, b, ra + c0, rb ? rb + c0 : NULL, lo, hi, zo, n, v);
        store32(ro + (size_t)c0 * (size_t)o->fm.bytes, o->fm.bytes, v, n);
    }
    return 1;
}
