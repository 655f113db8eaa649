/* Feature maps from the registers: one table row per feature map (IFM, IFM2, OFM) names the
   commands that describe it, and one routine loads any of them. */
#include <string.h>

#include "em_internal.h"

typedef struct fmap_regs {
    const char *name;
    unsigned precision, region, zero_point;   /* cmd0 */
    unsigned height0, height1, width0;        /* cmd0, value - 1 */
    unsigned base[4], stride[3];              /* cmd1: BASE0..3, STRIDE_X/Y/C */
    int signed_xy;                            /* X/Y strides are signed (the OFM's may be negative) */
    /* bytes and signedness the precision register names, -1 when not modelled */
    int (*element)(uint64_t word, int *bytes, int *is_signed);
    unsigned (*precision_field)(uint64_t word);
    unsigned (*format_field)(uint64_t word);
    unsigned nhwc, nhcwb16;                   /* the format field's values */
    /* U85: the storage field and its value for a feature map in memory; NULL on U55/U65 */
    unsigned (*storage_field)(uint64_t word);
    unsigned in_memory;
} fmap_regs;

static int ifm_element(uint64_t word, int *bytes, int *is_signed) {
    switch (EM_F_NPU_SET_IFM_PRECISION_PRECISION(word)) {
    case EM_IFM_PRECISION_U8: *bytes = 1; *is_signed = 0; return 0;
    case EM_IFM_PRECISION_S8: *bytes = 1; *is_signed = 1; return 0;
    case EM_IFM_PRECISION_U16: *bytes = 2; *is_signed = 0; return 0;
    case EM_IFM_PRECISION_S16: *bytes = 2; *is_signed = 1; return 0;
    case EM_IFM_PRECISION_S32: *bytes = 4; *is_signed = 1; return 0;
    default: return -1;
    }
}

static int ofm_element(uint64_t word, int *bytes, int *is_signed) {
    switch (EM_F_NPU_SET_OFM_PRECISION_PRECISION(word)) {
    case EM_OFM_PRECISION_U8: *bytes = 1; *is_signed = 0; return 0;
    case EM_OFM_PRECISION_S8: *bytes = 1; *is_signed = 1; return 0;
    case EM_OFM_PRECISION_U16: *bytes = 2; *is_signed = 0; return 0;
    case EM_OFM_PRECISION_S16: *bytes = 2; *is_signed = 1; return 0;
    case EM_OFM_PRECISION_S32: *bytes = 4; *is_signed = 1; return 0;
    default: return -1;
    }
}

static unsigned ifm_precision(uint64_t w) { return EM_F_NPU_SET_IFM_PRECISION_PRECISION(w); }
static unsigned ifm_format(uint64_t w) { return EM_F_NPU_SET_IFM_PRECISION_FORMAT(w); }
static unsigned ifm2_precision(uint64_t w) { return EM_F_NPU_SET_IFM2_PRECISION_PRECISION(w); }
static unsigned ifm2_format(uint64_t w) { return EM_F_NPU_SET_IFM2_PRECISION_FORMAT(w); }
static unsigned ofm_precision(uint64_t w) { return EM_F_NPU_SET_OFM_PRECISION_PRECISION(w); }
static unsigned ofm_format(uint64_t w) { return EM_F_NPU_SET_OFM_PRECISION_FORMAT(w); }

/* U85: signedness is its own field (activation_type); activation_precision gives the size.
   B64 holds what regor types int48 or int64 (ToActivationPrecision, regor
   ethos_u85_register_cs_generator.cpp:216-233: 48 and 64 bits are both B64; int48 tensors are
   stored as int64, graphir_optimiser.cpp:71-90 ConvertInt48Tensors), signed only, and only
   where the operation asks for it (em85_load_fmap_b64). The IFM, IFM2 and OFM registers place
   the fields differently. */
static int u85_element(unsigned type, unsigned precision, int *bytes, int *is_signed) {
    switch (precision) {
    case EM85_ACTIVATION_PRECISION_B8: *bytes = 1; break;
    case EM85_ACTIVATION_PRECISION_B16: *bytes = 2; break;
    case EM85_ACTIVATION_PRECISION_B32: *bytes = 4; break;
    case EM85_ACTIVATION_PRECISION_B64: *bytes = 8; break;
    default: return -1;
    }
    *is_signed = type == EM85_ACTIVATION_TYPE_SIGNED;
    return (*bytes >= 4 && !*is_signed) ? -1 : 0;
}

#define EM85_PRECISION_FIELDS(LOWER, UPPER)                                                                       \
    static int LOWER##_element85(uint64_t w, int *bytes, int *is_signed) {                                        \
        return u85_element(EM85_F_NPU_SET_##UPPER##_PRECISION_ACTIVATION_TYPE(w),                                   \
                           EM85_F_NPU_SET_##UPPER##_PRECISION_ACTIVATION_PRECISION(w), bytes, is_signed);           \
    }                                                                                                             \
    static unsigned LOWER##_precision85(uint64_t w) { return EM85_F_NPU_SET_##UPPER##_PRECISION_ACTIVATION_PRECISION(w); } \
    static unsigned LOWER##_format85(uint64_t w) { return EM85_F_NPU_SET_##UPPER##_PRECISION_ACTIVATION_FORMAT(w); }     \
    static unsigned LOWER##_storage85(uint64_t w) { return EM85_F_NPU_SET_##UPPER##_PRECISION_ACTIVATION_STORAGE(w); }
EM85_PRECISION_FIELDS(ifm, IFM)
EM85_PRECISION_FIELDS(ifm2, IFM2)
EM85_PRECISION_FIELDS(ofm, OFM)

#define EM_FMAP_ROW(PFX, NAME, SIGNED_XY, ELEMENT, PREC, FORMAT, NHWC, NHCWB16, STORAGE, IN_MEMORY)                  \
    {#NAME, PFX##_CMD0_NPU_SET_##NAME##_PRECISION, PFX##_CMD0_NPU_SET_##NAME##_REGION,                                 \
     PFX##_CMD0_NPU_SET_##NAME##_ZERO_POINT, PFX##_CMD0_NPU_SET_##NAME##_HEIGHT0_M1,                                   \
     PFX##_CMD0_NPU_SET_##NAME##_HEIGHT1_M1, PFX##_CMD0_NPU_SET_##NAME##_WIDTH0_M1,                                    \
     {PFX##_CMD1_NPU_SET_##NAME##_BASE0, PFX##_CMD1_NPU_SET_##NAME##_BASE1, PFX##_CMD1_NPU_SET_##NAME##_BASE2,         \
      PFX##_CMD1_NPU_SET_##NAME##_BASE3},                                                                            \
     {PFX##_CMD1_NPU_SET_##NAME##_STRIDE_X, PFX##_CMD1_NPU_SET_##NAME##_STRIDE_Y, PFX##_CMD1_NPU_SET_##NAME##_STRIDE_C}, \
     SIGNED_XY, ELEMENT, PREC, FORMAT, NHWC, NHCWB16, STORAGE, IN_MEMORY}

static const fmap_regs fmap_table[3] = {
    EM_FMAP_ROW(EM, IFM, 0, ifm_element, ifm_precision, ifm_format, EM_DATA_FORMAT_NHWC, EM_DATA_FORMAT_NHCWB16, NULL, 0),
    EM_FMAP_ROW(EM, IFM2, 0, ifm_element, ifm2_precision, ifm2_format, EM_DATA_FORMAT_NHWC, EM_DATA_FORMAT_NHCWB16, NULL, 0),
    EM_FMAP_ROW(EM, OFM, 1, ofm_element, ofm_precision, ofm_format, EM_DATA_FORMAT_NHWC, EM_DATA_FORMAT_NHCWB16, NULL, 0),
};

static const fmap_regs fmap_table85[3] = {
    EM_FMAP_ROW(EM85, IFM, 0, ifm_element85, ifm_precision85, ifm_format85, EM85_ACTIVATION_FORMAT_NHWC,
                EM85_ACTIVATION_FORMAT_NHCWB16, ifm_storage85, EM85_ACTIVATION_STORAGE_TILE2X2),
    EM_FMAP_ROW(EM85, IFM2, 0, ifm2_element85, ifm2_precision85, ifm2_format85, EM85_ACTIVATION_FORMAT_NHWC,
                EM85_ACTIVATION_FORMAT_NHCWB16, ifm2_storage85, EM85_ACTIVATION_STORAGE_TILE2X2),
    EM_FMAP_ROW(EM85, OFM, 1, ofm_element85, ofm_precision85, ofm_format85, EM85_ACTIVATION_FORMAT_NHWC,
                EM85_ACTIVATION_FORMAT_NHCWB16, ofm_storage85, EM85_ACTIVATION_STORAGE_TILE2X2),
};

static const fmap_regs *row(const em_state *s, int which) {
    return s->arch == 85 ? &fmap_table85[which] : &fmap_table[which];
}

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
    return s->arch == 85 ? EM85_F_NPU_SET_IFM_REGION_REGION(word) : EM_F_NPU_SET_IFM_REGION_PARAM(word);
}

/* A chained feature map: dense NHWC in chain buffer `cb` (the hardware passes it inside the NPU;
   its BASE/STRIDE registers are not written for it, regor GenerateIFM/GenerateOFM). The OFM
   records its shape; a reader takes the consumer's OFM shape when the element counts agree
   ("Can chain any unary EW regardless of shape as long as number of elements match", regor
   ethos_u85.cpp EthosU85OpGroup::Chain), else the producer's (a broadcast operand). */
static int load_chained(em_state *s, int which, unsigned cb, em_fmap *f) {
    em85_chain *chain = &s->chain[cb];
    int h = (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(reg0(s, EM85_CMD0_NPU_SET_OFM_HEIGHT_M1)) + 1;
    int w = (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(reg0(s, EM85_CMD0_NPU_SET_OFM_WIDTH_M1)) + 1;
    int c = (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(reg0(s, EM85_CMD0_NPU_SET_OFM_DEPTH_M1)) + 1;
    if (which == 2) {
        if ((uint64_t)h * (uint64_t)w * (uint64_t)c * (uint64_t)f->bytes > NPU_MODEL_CHAIN_CAPACITY)
            return em_fail(s, NPU_MODEL_CAPACITY, "chained OFM of %dx%dx%d exceeds NPU_MODEL_CHAIN_CAPACITY", h, w, c);
        chain->height = h; chain->width = w; chain->depth = c; chain->bytes = f->bytes;
    } else if (chain->bytes == 0) {
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "chained %s reads chain buffer %u that no operation wrote",
                       row(s, which)->name, cb);
    } else if ((int64_t)h * w * c != (int64_t)chain->height * chain->width * chain->depth) {
        h = chain->height; w = chain->width; c = chain->depth;
    }
    f->tile[0] = f->tile[1] = f->tile[2] = f->tile[3] = s->chain_data[cb];
    f->height0 = f->height1 = h;
    f->width0 = w;
    f->stride_c = f->bytes;
    f->stride_x = (int64_t)c * f->bytes;
    f->stride_y = (int64_t)w * c * f->bytes;
    f->lo = s->chain_data[cb];
    f->hi = f->lo + NPU_MODEL_CHAIN_CAPACITY;
    return 0;
}

/* 0 for a B64 feature map the running operation models (`b64`) in the form regor writes one:
   in memory, zero point 0 (TOSA's int48 has none), NHWC or NHCWB16. An NHCWB16 B64 map is the
   8-bit one's layout with 8-byte elements: a brick holds 16 channels of 8 bytes (STRIDE_X =
   16 * 8), channel c at (c / 16) * STRIDE_C + (c % 16) * 8 (regor
   high_level_command_stream_generator.cpp GetStrides:49-56, ethos_u85_register_cs_generator.cpp
   AddressForCoordinate:493-500; int48 tensors are int64 by then, graphir_optimiser.cpp:71-90),
   which em_fm_coff computes from the element size (load_fmap checks the format as for any map).
   Anything else stops with one line naming
   the command, the field, its value and the target. */
static int check_b64(em_state *s, const fmap_regs *r, uint64_t prec, uint32_t zp, int b64) {
    const char *op = em_opname(85, 0, s->op_code);
    if (!b64)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_%s_PRECISION activation_precision value %u (B64) on "
                       "Ethos-U85-%d (not modelled)", op, r->name, r->precision_field(prec), s->macs);
    if (r->storage_field(prec) != r->in_memory)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_%s_PRECISION activation_storage value %u with B64 on "
                       "Ethos-U85-%d (not modelled)", op, r->name, r->storage_field(prec), s->macs);
    if (zp != 0)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_%s_ZERO_POINT value %u with B64 on Ethos-U85-%d (not "
                       "modelled)", op, r->name, zp, s->macs);
    return 0;
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
    if (r->element(prec, &f->bytes, &f->is_signed) != 0) {
        if (s->arch != 85) return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s precision value %u", r->name, precision);
        /* every U85 size is known: what fails is an unsigned B32/B64 */
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_%s_PRECISION activation_type UNSIGNED with "
                       "activation_precision value %u on Ethos-U85-%d (not modelled)", em_opname(85, 0, s->op_code),
                       r->name, precision, s->macs);
    }
    if (f->bytes == 8 && (rc = check_b64(s, r, prec, zp, b64))) return rc;
    if (r->storage_field && r->storage_field(prec) == EM85_ACTIVATION_STORAGE_CHAINED) {
        f->zero_point = f->is_signed ? em_sext(zp, 16) : (int32_t)zp;
        f->fault = &s->fault;
        f->which = which;
        return load_chained(s, which, region, f);
    }
    if (r->storage_field && r->storage_field(prec) != r->in_memory)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s activation_storage value %u on Ethos-U85 (not modelled)",
                       r->name, r->storage_field(prec));
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
