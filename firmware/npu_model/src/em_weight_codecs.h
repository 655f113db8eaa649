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
    uint32_t slice_pos; /* the current slice: where it starts, `first` before it, weights taken */
    int slice_first;
    long taken;
} em_mlw_dec;

/* A place in a standard-format stream to come back to (em_weight_resume): the current slice's
   start and palette state and the weights taken from it. */
typedef struct em_mlw_mark {
    uint32_t pos;
    int first, palsize, palbits, direct_offset;
    int16_t palette[512];
    long taken;
} em_mlw_mark;
void em_mlw_mark_here(const em_mlw_dec *d, em_mlw_mark *m);
/* The one decoder, reset to read `buf` from mark `m` on (NULL: the stream is malformed there). */
em_mlw_dec *em_mlw_resume(const uint8_t *buf, uint32_t size, const em_mlw_mark *m);

/* The one standard-format decoder, reset to read `buf` (its palette state then spans slices). */
em_mlw_dec *em_mlw_open(const uint8_t *buf, uint32_t size);
/* The next n weights into out (zero runs as blocks); -1 when the stream ends early or is
   malformed. */
int em_mlw_take(em_mlw_dec *d, int16_t *out, int n);

/* What a decode in blocks of output channels (em_conv.c) leaves for the next block of the same
   command: per stream (core or weight decoder) the place where the OFM block holding the next
   block's first channel starts, so each block reads on from there instead of from the stream's
   start (decoding a command in n blocks reads its streams about once, not n/2 times). */
typedef struct em_weight_resume {
    int valid, next_lo;         /* marks for a block starting at channel next_lo */
    em_kernel k;                /* of this kernel (ofm_lo, ofm_hi zeroed) */
    em_weight_streams w;        /* and these streams */
    int macs;
    struct {
        int ob, step, last_ib;  /* the OFM block; U85: the serpentine IFM order's state */
        uint32_t fwd_taken;     /* U85 FWD: weights of this decoder's order taken */
        em_mlw_mark mlw;        /* SWD: the decoder's place */
    } at[4];
} em_weight_resume;
extern em_weight_resume em_g_resume;
/* 1 when em_g_resume holds marks for kernel k's block starting at k->ofm_lo on streams w. */
int em_resume_applies(const em_kernel *k, const em_weight_streams *w, int macs);
/* Records that the marks now in em_g_resume.at are for the block after k's (when it has one). */
void em_resume_recorded(const em_kernel *k, const em_weight_streams *w, int macs, int marked);

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
