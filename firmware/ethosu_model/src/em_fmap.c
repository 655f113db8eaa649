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
    /* bytes and signedness of the precision register's PRECISION field, -1 when not modelled */
    int (*element)(unsigned precision, int *bytes, int *is_signed);
    unsigned (*precision_field)(uint64_t word);
    unsigned (*format_field)(uint64_t word);
} fmap_regs;

static int ifm_element(unsigned precision, int *bytes, int *is_signed) {
    switch (precision) {
    case EM_IFM_PRECISION_U8: *bytes = 1; *is_signed = 0; return 0;
    case EM_IFM_PRECISION_S8: *bytes = 1; *is_signed = 1; return 0;
    case EM_IFM_PRECISION_U16: *bytes = 2; *is_signed = 0; return 0;
    case EM_IFM_PRECISION_S16: *bytes = 2; *is_signed = 1; return 0;
    case EM_IFM_PRECISION_S32: *bytes = 4; *is_signed = 1; return 0;
    default: return -1;
    }
}

static int ofm_element(unsigned precision, int *bytes, int *is_signed) {
    switch (precision) {
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

#define EM_FMAP_ROW(NAME, P, SIGNED_XY, ELEMENT, PREC, FORMAT)                                              \
    {#NAME, EM_CMD0_NPU_SET_##P##_PRECISION, EM_CMD0_NPU_SET_##P##_REGION, EM_CMD0_NPU_SET_##P##_ZERO_POINT, \
     EM_CMD0_NPU_SET_##P##_HEIGHT0_M1, EM_CMD0_NPU_SET_##P##_HEIGHT1_M1, EM_CMD0_NPU_SET_##P##_WIDTH0_M1,     \
     {EM_CMD1_NPU_SET_##P##_BASE0, EM_CMD1_NPU_SET_##P##_BASE1, EM_CMD1_NPU_SET_##P##_BASE2,                 \
      EM_CMD1_NPU_SET_##P##_BASE3},                                                                          \
     {EM_CMD1_NPU_SET_##P##_STRIDE_X, EM_CMD1_NPU_SET_##P##_STRIDE_Y, EM_CMD1_NPU_SET_##P##_STRIDE_C},       \
     SIGNED_XY, ELEMENT, PREC, FORMAT}

static const fmap_regs fmap_table[3] = {
    EM_FMAP_ROW(IFM, IFM, 0, ifm_element, ifm_precision, ifm_format),
    EM_FMAP_ROW(IFM2, IFM2, 0, ifm_element, ifm2_precision, ifm2_format),
    EM_FMAP_ROW(OFM, OFM, 1, ofm_element, ofm_precision, ofm_format),
};

static uint64_t reg0(const em_state *s, unsigned code) { return s->reg0[code & 0x1ffu]; }
static uint64_t reg1(const em_state *s, unsigned code) { return s->reg1[code & 0xffu]; }
static int minus1(const em_state *s, unsigned code) { return (int)((reg0(s, code) >> 16) & 0xffffu) + 1; }

static int64_t stride(const em_state *s, const fmap_regs *r, int axis) {
    uint32_t data = (uint32_t)(reg1(s, r->stride[axis]) >> 32);
    return (r->signed_xy && axis < 2) ? (int64_t)(int32_t)data : (int64_t)data;
}

const char *em_fmap_name(int which) { return fmap_table[which].name; }

unsigned em_fmap_region(const em_state *s, int which) {
    return (unsigned)((reg0(s, fmap_table[which].region) >> 16) & 0xffffu);
}

int em_load_fmap(em_state *s, int which, em_fmap *f) {
    const fmap_regs *r = &fmap_table[which];
    uint64_t prec = reg0(s, r->precision);
    unsigned region = em_fmap_region(s, which), format = r->format_field(prec), precision = r->precision_field(prec);
    uint32_t zp = (uint32_t)((reg0(s, r->zero_point) >> 16) & 0xffffu);
    int t;
    memset(f, 0, sizeof(*f));
    f->height0 = minus1(s, r->height0);
    f->height1 = minus1(s, r->height1);
    f->width0 = minus1(s, r->width0);
    f->stride_x = stride(s, r, 0);
    f->stride_y = stride(s, r, 1);
    f->stride_c = stride(s, r, 2);
    if (r->element(precision, &f->bytes, &f->is_signed) != 0)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s precision value %u", r->name, precision);
    if (format == EM_DATA_FORMAT_NHCWB16) f->nhcwb16 = 1;
    else if (format != EM_DATA_FORMAT_NHWC)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s format value %u", r->name, format);
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
