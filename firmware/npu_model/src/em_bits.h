/* Bit helpers: sign extension, leading zeros, little-endian words. */
#ifndef EM_BITS_H
#define EM_BITS_H

#include <stdint.h>

static inline int32_t em_sext(uint32_t v, int bits) {
    uint32_t m = 1u << (bits - 1);
    v &= (bits == 32) ? 0xffffffffu : ((1u << bits) - 1u);
    return (int32_t)((v ^ m) - m);
}

/* Leading zeros of a 32-bit value, 32 for 0 (regor data_type.hpp:148, TOSA CLZ). */
static inline int em_clz32(uint32_t v) {
    int n = 0;
    if (v == 0) return 32;
    while (!(v & 0x80000000u)) { v <<= 1; n++; }
    return n;
}
/* The little-endian int32 at p. */
static inline int32_t em_le32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
}

#endif
