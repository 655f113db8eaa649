/* Scaling and rounding: em_scale and its inline fast paths. */
#ifndef EM_SCALE_H
#define EM_SCALE_H

#include "em_state.h"

/* Scaling (em_scale.c): value * scale (|scale| <= 2^32: OFM_SCALE is unsigned), shifted right by `shift` with the hardware rounding `mode`. */
int64_t em_scale(em_state *s, int64_t value, int64_t scale, int shift, unsigned mode, int *err);

/* Round modes beyond the U55/U65 three (TFL, TRUNCATE, NATURAL, the U55 register values): the
   U85's other OFM modes, numbered past every U55 value (em85_round_mode maps the U85 field). */
#define EM_ROUND_SYMMETRIC 0x10u
#define EM_ROUND_DOUBLE_ASYMMETRIC 0x11u
#define EM_ROUND_TRUNCATE_TO_LOWER 0x12u

/* 1 for the round modes the model implements. */
static inline int em_round_mode_known(unsigned mode) {
    return mode == EM_ROUNDING_NATURAL || mode == EM_ROUNDING_TFL || mode == EM_ROUNDING_TRUNCATE ||
           mode == EM_ROUND_SYMMETRIC || mode == EM_ROUND_DOUBLE_ASYMMETRIC || mode == EM_ROUND_TRUNCATE_TO_LOWER;
}

/* The term added before the right shift by `shift` (>= 1) in a known round `mode`, for a
   product whose sign is `negative` (value is the unscaled input: TFL's double rounding looks at
   its sign). Shared by em_scale and em_scale_fast. */
static inline int64_t em_round_addend(unsigned mode, int shift, int64_t value, int negative) {
    if (mode == EM_ROUNDING_NATURAL) return (int64_t)1 << (shift - 1);
    if (mode == EM_ROUNDING_TFL) {
        /* Double rounding as TOSA's apply_scale_32(double_round=true) defines it (the U85's
           DOUBLE_SYMMETRIC: regor graphir_optimiser.cpp Scale(), RoundMode::DBL). */
        int64_t round = (int64_t)1 << (shift - 1);
        if (shift > 31) round += value >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
        return round;
    }
    if (mode == EM_ROUNDING_TRUNCATE) return negative ? ((int64_t)1 << shift) - 1 : 0; /* toward zero */
    /* The U85's other modes, as regor graphir_optimiser.cpp Scale() (lines 420-460) defines them. */
    if (mode == EM_ROUND_SYMMETRIC) return ((int64_t)1 << (shift - 1)) - (value < 0 ? 1 : 0);
    if (mode == EM_ROUND_DOUBLE_ASYMMETRIC) return ((int64_t)1 << (shift - 1)) + (shift > 31 ? ((int64_t)1 << 30) : 0);
    return 0; /* TRUNCATE_TO_LOWER: toward minus infinity */
}

/* em_scale's result without the 128-bit product, when |value| < 2^30 and shift <= 62 (value *
   scale and the rounding term then fit int64): returns 1 and sets *out, else 0 (em_scale then
   takes the general path). Same rounding modes as em_scale. */
static inline int em_scale_fast(int64_t value, int64_t scale, int shift, unsigned mode, int64_t *out) {
    int64_t p;
    if (value <= -((int64_t)1 << 30) || value >= ((int64_t)1 << 30) || shift < 0 || shift > 62) return 0;
    p = value * scale;
    if (shift == 0) { *out = p; return 1; }
    if (!em_round_mode_known(mode)) return 0;
    *out = (p + em_round_addend(mode, shift, value, p < 0)) >> shift;
    return 1;
}

/* em_scale's 128-bit product and shift in the compiler's own 128-bit type where it has one
   (host builds; not 32-bit Arm): returns 1 and sets *out for a shift of 1..63 in a known round
   mode, else 0 (em_scale then takes its portable path). */
static inline int em_scale_native(int64_t value, int64_t scale, int shift, unsigned mode, int64_t *out) {
#ifdef __SIZEOF_INT128__
    if (shift >= 1 && shift <= 63 && em_round_mode_known(mode)) {
        __int128 p = (__int128)value * scale;
        *out = (int64_t)((p + em_round_addend(mode, shift, value, p < 0)) >> shift);
        return 1;
    }
#else
    (void)value; (void)scale; (void)shift; (void)mode; (void)out;
#endif
    return 0;
}

/* em_scale with its fast paths inline (the common case of a per-element loop). */
static inline int64_t em_scale_inline(em_state *s, int64_t value, int64_t scale, int shift, unsigned mode, int *err) {
    int64_t out;
    if (em_scale_fast(value, scale, shift, mode, &out) || em_scale_native(value, scale, shift, mode, &out)) return out;
    return em_scale(s, value, scale, shift, mode, err);
}

#endif
