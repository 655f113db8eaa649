/* Feature maps from the registers: one table row per feature map (IFM, IFM2, OFM) names the
   commands that describe it, and one routine loads any of them. */
#include <string.h>

#include "em_internal.h"

static const fmap_regs *row(const em_state *s, int which) { return &s->ops->fmaps[which]; }

static uint64_t reg0(const em_state *s, unsigned code) { return s->reg0[code & 0x1ffu]; }
static uint64_t reg1(const em_state *s, unsigned code) { return s->reg1[code & 0xffu]; }
static int minus1(const em_state *s, unsigned code) { return (int)((reg0(s, code) >> 16) & 0xffffu) + 1; }

static int64_t stride(const em_state *s, const fmap_regs *r, int axis) {
    uint32_t data = (uint32_t)(reg1(s, r->stride[axis]) >> 32);
    return (r->signed_xy && axis < 2) ? (int64_t)(int32_t)data : (int64_t)data;
}

const char *em_fmap_name(const em_state *s, int which) { return row(s, which)->name; }

unsigned em_fmap_region(const em_state *s, int which) {
    uint64_t word = reg0(s, row(s, which)->region); /* IFM/IFM2/OFM_REGION share one layout */
    return s->ops->fmap_region(word);
}

static int load_fmap(em_state *s, int which, em_fmap *f, int b64) {
    const fmap_regs *r = row(s, which);
    uint64_t prec = reg0(s, r->precision);
    unsigned region = em_fmap_region(s, which), format = r->format_field(prec), precision = r->precision_field(prec);
    uint32_t zp = (uint32_t)((reg0(s, r->zero_point) >> 16) & 0xffffu);
    int t, rc;
    memset(f, 0, sizeof(*f));
    f->height0 = minus1(s, r->height0);
    f->height1 = minus1(s, r->height1);
    f->width0 = minus1(s, r->width0);
    f->stride_x = stride(s, r, 0);
    f->stride_y = stride(s, r, 1);
    f->stride_c = stride(s, r, 2);
    if (r->element(prec, &f->bytes, &f->is_signed) != 0) return s->ops->refuse_element(s, r, precision);
    if ((rc = s->ops->fmap_storage(s, which, r, prec, zp, b64, f)) != EM_FMAP_IN_MEMORY) return rc;
    if (format == r->nhcwb16) f->nhcwb16 = 1;
    else if (format != r->nhwc)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s format value %u", r->name, format);
    else f->stride_c = f->bytes; /* NHWC channels are contiguous: the hardware ignores STRIDE_C
                                    (regor ethos_u55_register_cs_generator.cpp
                                    InsertTransposeCommand: "Ethos-U55 ignores channel stride
                                    for NHWC tensors"; its AvgPool transposes leave a stale one) */
    f->zero_point = f->is_signed ? em_sext(zp, 16) : (int32_t)zp;
    for (t = 0; t < 4; t++) {
        f->tile[t] = em_address(s, region, em_base_of(reg1(s, r->base[t])), 0, r->name);
        if (f->tile[t] == NULL) return s->status->code;
    }
    f->lo = (const uint8_t *)(uintptr_t)s->base[region];
    f->hi = f->lo + s->size[region];
    f->fault = &s->fault;
    f->which = which;
    return 0;
}

int em_load_fmap(em_state *s, int which, em_fmap *f) { return load_fmap(s, which, f, 0); }

int em85_load_fmap_b64(em_state *s, int which, em_fmap *f) { return load_fmap(s, which, f, 1); }

/* The channel run at (y, x) when channels 0..c0+n-1 lie inside the region, else NULL. */
static const uint8_t *run_of(const em_fmap *f, int y, int x, int c0, int n) { return em_fm_run(f, y, x, c0 + n); }

static void put_le32(uint8_t *p, int64_t value) {
    uint32_t v = (uint32_t)value;
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

void em_fm_read_run(const em_fmap *f, int y, int x, int c0, int n, int64_t *out) {
    const uint8_t *run = run_of(f, y, x, c0, n);
    int i;
    if (run == NULL) {
        for (i = 0; i < n; i++) out[i] = em_fm_read(f, y, x, c0 + i);
    } else if (f->bytes == 1 && !f->nhcwb16 && f->stride_c == 1) { /* NHWC int8/uint8: contiguous */
        run += c0;
        if (f->is_signed) for (i = 0; i < n; i++) out[i] = (int8_t)run[i];
        else for (i = 0; i < n; i++) out[i] = run[i];
    } else if (f->bytes == 1 && f->nhcwb16) {
        for (i = 0; i < n; i++) {
            int c = c0 + i;
            out[i] = f->is_signed ? (int8_t)run[(c >> 4) * f->stride_c + (c & 15)] : run[(c >> 4) * f->stride_c + (c & 15)];
        }
    } else if (f->bytes == 4 && !f->nhcwb16 && f->stride_c == 4) { /* NHWC int32 (always signed) */
        run += (size_t)c0 * 4u;
        for (i = 0; i < n; i++, run += 4) out[i] = em_le32(run);
    } else if (f->bytes == 4 && f->nhcwb16) { /* int32 in bricks of 16 channels */
        for (i = 0; i < n; i++) out[i] = em_le32(run + ((c0 + i) >> 4) * f->stride_c + ((c0 + i) & 15) * 4);
    } else {
        for (i = 0; i < n; i++) out[i] = em_fm_get(f, run + em_fm_coff(f, c0 + i));
    }
}

void em_fm_write_run(const em_fmap *f, int y, int x, int c0, int n, const int64_t *values) {
    uint8_t *run = (uint8_t *)(uintptr_t)run_of(f, y, x, c0, n);
    const int64_t stride_c = f->stride_c; /* a local: the byte stores below may alias anything */
    int i;
    if (run == NULL) {
        for (i = 0; i < n; i++) em_fm_write(f, y, x, c0 + i, values[i]);
    } else if (f->bytes == 1 && !f->nhcwb16 && stride_c == 1) {
        run += c0;
        for (i = 0; i < n; i++) run[i] = (uint8_t)values[i];
    } else if (f->bytes == 1 && f->nhcwb16) {
        for (i = 0; i < n; i++) run[((c0 + i) >> 4) * stride_c + ((c0 + i) & 15)] = (uint8_t)values[i];
    } else if (!f->nhcwb16 && stride_c == f->bytes && (f->bytes == 2 || f->bytes == 4)) { /* NHWC 16/32-bit */
        run += (size_t)c0 * (size_t)f->bytes;
        if (f->bytes == 2)
            for (i = 0; i < n; i++, run += 2) { run[0] = (uint8_t)values[i]; run[1] = (uint8_t)(values[i] >> 8); }
        else
            for (i = 0; i < n; i++, run += 4) put_le32(run, values[i]);
    } else if (f->bytes == 4 && f->nhcwb16) {
        for (i = 0; i < n; i++) put_le32(run + ((c0 + i) >> 4) * stride_c + ((c0 + i) & 15) * 4, values[i]);
    } else {
        for (i = 0; i < n; i++) em_fm_put(f, run + em_fm_coff(f, c0 + i), values[i]);
    }
}

/* An IFM's rows past HEIGHT0 come from tile 2 (BASE2). In a rolling buffer tile 2 holds the rows
   that wrapped to the buffer's start, so the bands of rows of tile 0 and tile 2 lie apart. Bands
   that overlap read one byte as two rows. Vela 5.1.0 writes that for the first feed-forward
   layer of a Conformer on U55-128 (and for its feed-forward block alone on a 10 x 99 x 16
   input, tests/npu_model/npu_model_cases_geometry.py feed_forward_990): regor's RewriteFullyConnected
   (graphir_optimiser.cpp:818-838) gives the batched fully connected layer's IFM the shape
   1 x 15 x 66 (990 rows: w = 66, the first divisor from
   max(990 / 16, sqrt(990))), while the command's OFM stays 990 x 1: its IFM registers say 15
   rows (HEIGHT0_M1 14, STRIDE_Y 66 rows, WIDTH0 1, PAD_BOTTOM 207), and rows 15..782 come from
   BASE2 0, over other tensors. What the NPU reads there is no value of the model's: it stops. */
int em_ifm_tiles_apart(em_state *s, const char *command, const em_fmap *f, const em_geom *g) {
    int64_t rows2 = (int64_t)g->ifm_h - f->height0, at0, at2;
    if (g->upscale != EM_RESAMPLING_MODE_NONE || rows2 <= 0 || f->stride_y <= 0) return 0;
    at0 = (int64_t)(f->tile[0] - f->lo);
    at2 = (int64_t)(f->tile[2] - f->lo);
    if (at2 >= at0 + (int64_t)f->height0 * f->stride_y || at0 >= at2 + rows2 * f->stride_y) return 0;
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s IFM rows %d..%d from NPU_SET_IFM_BASE2 overlap rows 0..%d from "
                   "NPU_SET_IFM_BASE0 (IFM_HEIGHT0_M1 %d): one byte read as two rows (not modelled)", command,
                   f->height0, g->ifm_h - 1, f->height0 - 1, f->height0 - 1);
}

/* A 1x1, stride-1 kernel over an IFM of one row (column) padded on one side by two or more: the
   OFM rows (columns) past the IFM's read padding alone. No layer pads so (the Wav2Letter stem's
   kernel taps that Vela splits up on U85 pad a 1-column IFM by 1, for 2 columns). Vela 5.1.0 writes it for a batched 1x1 convolution over a prime number of
   positions with a LUT activation fused into it (DeiT-tiny's MLP on U55-128, 197 tokens):
   RewriteFullyConnected (graphir_optimiser.cpp:818-838) gives the IFM the shape 1 x 1 x 197 (no
   divisor of 197 below it) while the command's OFM stays 197 x 1, so the stripe pads the one IFM
   row with 196 (IFM_PAD_BOTTOM 196; the operation's own padding is 0 in Vela's listing) and 196
   of the 197 tokens get the bias alone. What the NPU computes there is no value of the model's:
   it stops. */
static int side_past_ifm(em_state *s, const char *command, const char *field, int pad, int kernel, int stride,
                         int ifm, const char *line) {
    if (kernel != 1 || stride != 1 || ifm != 1 || pad < 2) return 0;
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s %s %d pads a 1x1 kernel's IFM of one %s: %d OFM %ss of padding "
                   "alone (Vela 5.1.0: a batched 1x1 conv with a fused LUT over a prime batch)", command, field, pad,
                   line, pad, line);
}

int em_padding_past_ifm(em_state *s, const char *command, const em_geom *g) {
    int rc;
    if (g->upscale != EM_RESAMPLING_MODE_NONE) return 0;
    if ((rc = side_past_ifm(s, command, "NPU_SET_IFM_PAD_TOP", g->pad_top, g->kh_dil, g->stride_y, g->ifm_h, "row")) ||
        (rc = side_past_ifm(s, command, "NPU_SET_IFM_PAD_BOTTOM", g->pad_bottom, g->kh_dil, g->stride_y, g->ifm_h,
                            "row")) ||
        (rc = side_past_ifm(s, command, "NPU_SET_IFM_PAD_LEFT", g->pad_left, g->kw_dil, g->stride_x, g->ifm_w,
                            "column")))
        return rc;
    return side_past_ifm(s, command, "NPU_SET_IFM_PAD_RIGHT", g->pad_right, g->kw_dil, g->stride_x, g->ifm_w,
                         "column");
}

int em_ifm_readable(em_state *s, const char *command, const em_fmap *f, const em_geom *g) {
    int rc = em_ifm_tiles_apart(s, command, f, g);
    return rc ? rc : em_padding_past_ifm(s, command, g);
}
