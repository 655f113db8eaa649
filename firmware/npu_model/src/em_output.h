/* The output stage and the geometry of a command: OFM registers, LUT, stores, kernel taps,
   IFM checks, scale records. */
#ifndef EM_OUTPUT_H
#define EM_OUTPUT_H

#include "em_fmap.h"

/* The output stage (em_output.c). */
typedef struct em_out {
    em_fmap fm;
    int height, width, depth;
    unsigned round_mode;
    int64_t act_min, act_max, type_min, type_max;
    const uint8_t *lut; /* the LUT slot in SHRAM, or NULL */
    int lut16;          /* 1: 512 x 32-bit interpolating entries (16-bit OFM), 0: 256 bytes */
} em_out;

typedef struct em_geom {
    int kh, kw, dil_x, dil_y, stride_x, stride_y, kh_dil, kw_dil;
    int pad_top, pad_left, pad_bottom, pad_right;
    int upscale; /* resampling_mode */
    int ifm_h, ifm_w; /* extent of the (upscaled) IFM the op reads */
    int part_kernel;
} em_geom;

/* The IFM row (column) kernel tap ky (kx) of output row oy (column ox) reads, or -1 when the
   tap falls in the padding (or, for a TRANSPOSE upscale, on an inserted zero). */
static inline int em_tap_index(int at, int extent, int upscale) {
    if (at < 0 || at >= extent) return -1;
    if (upscale == EM_RESAMPLING_MODE_TRANSPOSE) {
        /* zero insertion: IFM row i sits at upscaled row 2i (measured) */
        if (at & 1) return -1;
        at >>= 1;
    }
    return at;
}

static inline int em_tap_row(const em_geom *g, int oy, int ky) {
    return em_tap_index(oy * g->stride_y - g->pad_top + ky * g->dil_y, g->ifm_h, g->upscale);
}

static inline int em_tap_col(const em_geom *g, int ox, int kx) {
    return em_tap_index(ox * g->stride_x - g->pad_left + kx * g->dil_x, g->ifm_w, g->upscale);
}

/* LUT slot bookkeeping: a DMA wrote SHRAM [offset, offset + length); an operation finished
   (with or without a LUT activation). */
void em_lut_written(em_state *s, uint64_t offset, uint64_t length);
void em_lut_after_op(em_state *s);
/* OFM registers, activation and LUT into `o`. Returns 0 or an error code. */
int em_load_out(em_state *s, em_out *o);
/* The OFM value of one scaled value: zero point, LUT, activation clamp, saturation to the OFM type. */
int64_t em_out_value(const em_out *o, int64_t scaled);
/* em_out_value's clamps of a value (zero point added) without a LUT: activation, then OFM type. */
static inline int64_t em_out_clamp(int64_t v, int64_t act_min, int64_t act_max, int64_t type_min, int64_t type_max) {
    v = v < act_min ? act_min : v;
    v = v > act_max ? act_max : v;
    v = v < type_min ? type_min : v;
    return v > type_max ? type_max : v;
}
/* Writes em_out_value(o, scaled) at (y, x, c). */
void em_store(const em_out *o, int y, int x, int c, int64_t scaled);
/* em_out_value of each of `count` values, in place. */
void em_out_values(const em_out *o, int64_t *values, int count);
/* em_store of channels c0..c0+n-1 of (y, x) from scaled[0..n-1] (turned into OFM values in place). */
void em_store_run(const em_out *o, int y, int x, int c0, int n, int64_t *scaled);
/* Kernel, stride, dilation, padding and upscale registers of the current command. */
int em_load_geom(em_state *s, const em_out *o, em_geom *g);
/* Stops when an IFM's tile 0 and tile 2 row bands overlap (em_fmap.c: a stream that reads one
   byte as two rows). */
int em_ifm_tiles_apart(em_state *s, const char *command, const em_fmap *f, const em_geom *g);
/* Stops when a 1x1, stride-1 kernel pads an IFM of one row (column) by 2 or more on a side
   (em_fmap.c: OFM rows or columns of padding alone, a stream no layer compiles to). */
int em_padding_past_ifm(em_state *s, const char *command, const em_geom *g);
/* Both IFM checks above, the tiles first. */
int em_ifm_readable(em_state *s, const char *command, const em_fmap *f, const em_geom *g);
/* The 10-byte scale records of `depth` output channels into s->bias/mult/shift. */
int em_load_scales(em_state *s, int depth);
/* 1 when the OFM uses per-channel scale records, 0 for global OFM_SCALE. */
int em_per_channel(em_state *s);
/* The type range of o->fm (OFM bytes and signedness) into o->type_min/type_max. */
void em_out_type_range(em_out *o);

#endif
