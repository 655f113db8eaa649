/* Scaling: value * scale >> shift in the OFM/IFM round mode, exact over the full range. */
#include "em_internal.h"

/* 64 x 33 -> 97-bit product as hi:lo, then an arithmetic right shift (portable C99). */
static void mul_64_33(int64_t a, int64_t b, int64_t *hi, uint64_t *lo) {
    int negative = (a < 0) != (b < 0);
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b; /* |b| <= 2^32 */
    uint64_t p0 = (ua & 0xffffffffu) * ub, p1 = (ua >> 32) * ub;
    uint64_t l = p0 + (p1 << 32);
    uint64_t h = (p1 >> 32) + (l < p0);
    if (negative) { l = ~l + 1; h = ~h + (l == 0); }
    *hi = (int64_t)h;
    *lo = l;
}

static void add_128(int64_t *hi, uint64_t *lo, int64_t add) {
    uint64_t old = *lo;
    *lo += (uint64_t)add;
    *hi += (add < 0 ? -1 : 0) + (*lo < old);
}

static int64_t shr_128(int64_t hi, uint64_t lo, int shift) {
    if (shift == 0) return (int64_t)lo;
    if (shift >= 64) return hi >> (shift - 64);
    return (int64_t)((lo >> shift) | ((uint64_t)hi << (64 - shift)));
}

int64_t em_scale(em_state *s, int64_t value, int64_t scale, int shift, unsigned mode, int *err) {
    int64_t hi, fast;
    uint64_t lo;
    if (shift < 0 || shift > 63) { *err = em_fail(s, NPU_MODEL_UNSUPPORTED, "scale shift %d", shift); return 0; }
    if (em_scale_fast(value, scale, shift, mode, &fast) || em_scale_native(value, scale, shift, mode, &fast)) return fast;
    mul_64_33(value, scale, &hi, &lo);
    if (shift == 0) return (int64_t)lo;
    if (!em_round_mode_known(mode)) {
        *err = em_fail(s, NPU_MODEL_UNSUPPORTED, "round mode %u", mode);
        return 0;
    }
    add_128(&hi, &lo, em_round_addend(mode, shift, value, hi < 0));
    return shr_128(hi, lo, shift);
}
