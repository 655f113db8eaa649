/* The two weight codecs (em_mlw.c: the standard format, SWD; em_fwd.c: the U85 fast format,
   FWD) and the bit reader they share. The weight orders (em_weight_order.c, em85_weight_order.c)
   pull weights from them. */
#ifndef EM_WEIGHT_CODECS_H
#define EM_WEIGHT_CODECS_H

#include <stdint.h>

#include "em_internal.h"

typedef struct em_bits_in {
    const uint8_t *buf;
    uint32_t size, pos; /* pos in bits */
    int overrun;
} em_bits_in;

static inline uint32_t em_get_bits_slow(em_bits_in *b, int n) {
    uint32_t v = 0;
    int i;
    for (i = 0; i < n; i++) {
        uint32_t byte = b->pos >> 3;
        if (byte >= b->size) { b->overrun = 1; return 0; }
        v |= (uint32_t)((b->buf[byte] >> (b->pos & 7)) & 1u) << i;
        b->pos++;
    }
    return v;
}

/* 8 bytes, little-endian (compilers merge this into one load where they can). */
static inline uint64_t em_load64(const uint8_t *p) {
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

/* n (0..25) bits, least significant first; near the end of the buffer bit by bit (an overrun
   is recorded and gives 0). */
static inline uint32_t em_get_bits(em_bits_in *b, int n) {
    uint32_t byte = b->pos >> 3, shift = b->pos & 7u, v;
    if (n == 0) return 0;
    if (byte + 4u > b->size) return em_get_bits_slow(b, n);
    v = (uint32_t)b->buf[byte] | ((uint32_t)b->buf[byte + 1] << 8) | ((uint32_t)b->buf[byte + 2] << 16) |
        ((uint32_t)b->buf[byte + 3] << 24);
    b->pos += (uint32_t)n;
    return (v >> shift) & ((1u << n) - 1u);
}

/* Both formats store a weight folded: magnitude << 1 | sign (branch-free: random signs
   mispredict a branch half the time). */
static inline int16_t em_unfold(int folded) {
    const int negative = -(folded & 1);
    return (int16_t)(((folded >> 1) ^ negative) - negative);
}

/* A pull decoder: one slice of weight symbols and zero runs at a time. */
typedef struct em_mlw_dec {
    em_bits_in in;
    uint16_t wv[EM_MLW_SLICE_MAX];
    uint16_t zv[EM_MLW_SLICE_MAX];
    int16_t palette[512];
    int palsize, palbits, direct_offset, use_zero_run, new_palette; /* palette state spans slices */
    int nvalues, index, zeros_left, started, first;
    int done;
} em_mlw_dec;

/* The one standard-format decoder, reset to read `buf` (its palette state then spans slices). */
em_mlw_dec *em_mlw_open(const uint8_t *buf, uint32_t size);
/* The next n weights into out (zero runs as blocks); -1 when the stream ends early or is
   malformed. */
int em_mlw_take(em_mlw_dec *d, int16_t *out, int n);

/* A fast-weight (FWD) stream: a 256-bit header (bit 0 raw, bit 1 4-entry LUT, bits 104-111 the
   raw zero adjust, bits 112-255 sixteen folded 9-bit LUT entries), then fixed-width codes: 2
   bits (4-entry LUT), 4 bits (16-entry LUT) or 8 bits (raw, value + zero adjust). */
#define FWD_HEADER_BITS 256u
typedef struct em_fwd_stream {
    const uint8_t *data;
    uint32_t size;
    int bits, zero_adjust;
    int16_t lut[16];
} em_fwd_stream;
/* Reads the header; -1 when the stream is shorter than it. */
int em_fwd_open(em_fwd_stream *f, const uint8_t *data, uint32_t size);
/* Weight `index` of the stream; -1 past its end. */
int em_fwd_get(const em_fwd_stream *f, uint32_t index, int16_t *out);

#endif
