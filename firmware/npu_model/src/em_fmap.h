/* Feature maps: element access (checked, by runs) and loading from the registers. */
#ifndef EM_FMAP_H
#define EM_FMAP_H

#include "em_state.h"

/* Tile of (y, x) and the byte offset of its channel 0 within the tile. */
static inline int em_fm_tile(const em_fmap *f, int y, int x, int64_t *off) {
    int t = 0;
    if (x >= f->width0) { t = 1; x -= f->width0; if (y >= f->height1) { t = 3; y -= f->height1; } }
    else if (y >= f->height0) { t = 2; y -= f->height0; }
    *off = (int64_t)y * f->stride_y + (int64_t)x * f->stride_x;
    return t;
}

/* Byte offset of channel c from channel 0 (NHWC: c * stride_c; NHCWB16: 16-channel bricks). */
static inline int64_t em_fm_coff(const em_fmap *f, int c) {
    if (f->nhcwb16) return (int64_t)(c >> 4) * f->stride_c + (int64_t)(c & 15) * f->bytes;
    return (int64_t)c * f->stride_c;
}

static inline uint8_t *em_fm_ptr(const em_fmap *f, int y, int x, int c) {
    int64_t off;
    int t = em_fm_tile(f, y, x, &off);
    off += em_fm_coff(f, c);
    {
        const uint8_t *p = f->tile[t] + off;
        if (p < f->lo || p + f->bytes > f->hi) { if (!*f->fault) *f->fault = f->which + 1; return NULL; }
        return f->tile[t] + off;
    }
}
/* 1 for an 8-bit NHWC map: a position's channels are consecutive bytes. */
static inline int em_fm_is_nhwc8(const em_fmap *f) { return f->bytes == 1 && !f->nhcwb16 && f->stride_c == 1; }

/* Channel 0 of (y, x) when channels 0..depth-1 of that position all lie inside the region
   (channel c is then at the result + em_fm_coff(f, c)); NULL otherwise, and nothing is
   recorded: the caller then takes the checked accessors, which record the fault. */
static inline uint8_t *em_fm_run(const em_fmap *f, int y, int x, int depth) {
    int64_t off, span, lo_c, hi_c, at;
    int t = em_fm_tile(f, y, x, &off);
    /* the extreme channel offsets: the last brick (or channel) and, in a brick, channel 15 */
    span = f->nhcwb16 ? (int64_t)((depth - 1) >> 4) * f->stride_c : (int64_t)(depth - 1) * f->stride_c;
    lo_c = span < 0 ? span : 0;
    hi_c = (span > 0 ? span : 0) + (f->nhcwb16 ? (int64_t)((depth < 16 ? depth : 16) - 1) * f->bytes : 0);
    at = (int64_t)(f->tile[t] - f->lo) + off;
    if (at + lo_c < 0 || at + hi_c + f->bytes > (int64_t)(f->hi - f->lo)) return NULL;
    return f->tile[t] + off;
}

static inline int64_t em_fm_get(const em_fmap *f, const uint8_t *p) {
    switch (f->bytes) {
    case 1: return f->is_signed ? (int32_t)(int8_t)p[0] : (int32_t)p[0];
    case 2: {
        uint16_t v = (uint16_t)(p[0] | (p[1] << 8));
        return f->is_signed ? (int32_t)(int16_t)v : (int32_t)v;
    }
    case 4:
        return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
    default: { /* 8: a U85 B64 element, two's complement (regor stores int48 tensors as int64) */
        uint64_t u = 0;
        int i;
        for (i = 7; i >= 0; i--) u = (u << 8) | p[i];
        return u >> 63 ? -(int64_t)(~u) - 1 : (int64_t)u;
    }
    }
}

static inline void em_fm_put(const em_fmap *f, uint8_t *p, int64_t v) {
    uint64_t u = (uint64_t)v;
    p[0] = (uint8_t)u;
    if (f->bytes > 1) p[1] = (uint8_t)(u >> 8);
    if (f->bytes > 2) { p[2] = (uint8_t)(u >> 16); p[3] = (uint8_t)(u >> 24); }
    if (f->bytes > 4) { p[4] = (uint8_t)(u >> 32); p[5] = (uint8_t)(u >> 40); p[6] = (uint8_t)(u >> 48); p[7] = (uint8_t)(u >> 56); }
}

static inline int64_t em_fm_read(const em_fmap *f, int y, int x, int c) {
    const uint8_t *p = em_fm_ptr(f, y, x, c);
    return p == NULL ? 0 : em_fm_get(f, p);
}

static inline void em_fm_write(const em_fmap *f, int y, int x, int c, int64_t v) {
    uint8_t *p = em_fm_ptr(f, y, x, c);
    if (p != NULL) em_fm_put(f, p, v);
}

/* Runs of channels (em_fmap.c): channels c0..c0+n-1 of (y, x) read as em_fm_read reads each
   (0, and the fault recorded, for one outside the region), or written as em_fm_write writes
   each; one bounds check per run where the run lies inside the region. */
void em_fm_read_run(const em_fmap *f, int y, int x, int c0, int n, int64_t *out);
void em_fm_write_run(const em_fmap *f, int y, int x, int c0, int n, const int64_t *values);

/* Feature maps from the registers (em_fmap.c): 0 = IFM, 1 = IFM2, 2 = OFM. Returns 0 or an
   error code. */
int em_load_fmap(em_state *s, int which, em_fmap *f);
/* U85: em_load_fmap that also takes a B64 feature map (8-byte signed elements, NHWC or NHCWB16,
   in memory, zero point 0); only the operations that model one call it. */
int em85_load_fmap_b64(em_state *s, int which, em_fmap *f);
const char *em_fmap_name(const em_state *s, int which);
unsigned em_fmap_region(const em_state *s, int which);

#endif
