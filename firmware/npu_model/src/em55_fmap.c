/* Ethos-U55/U65 feature maps: the IFM, IFM2 and OFM register rows of their layout, the region
   field, the refusal of a precision not modelled; every map is in memory. */
#include "em_internal.h"

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

const fmap_regs em55_fmaps[3] = {
    EM_FMAP_ROW(EM, IFM, 0, ifm_element, ifm_precision, ifm_format, EM_DATA_FORMAT_NHWC, EM_DATA_FORMAT_NHCWB16, NULL, 0),
    EM_FMAP_ROW(EM, IFM2, 0, ifm_element, ifm2_precision, ifm2_format, EM_DATA_FORMAT_NHWC, EM_DATA_FORMAT_NHCWB16, NULL, 0),
    EM_FMAP_ROW(EM, OFM, 1, ofm_element, ofm_precision, ofm_format, EM_DATA_FORMAT_NHWC, EM_DATA_FORMAT_NHCWB16, NULL, 0),
};


unsigned em55_fmap_region(uint64_t word) { return EM_F_NPU_SET_IFM_REGION_PARAM(word); }

int em55_refuse_element(em_state *s, const fmap_regs *r, unsigned precision) {
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s precision value %u", r->name, precision);
}

int em55_fmap_storage(em_state *s, int which, const fmap_regs *r, uint64_t prec, uint32_t zp, int b64, em_fmap *f) {
    (void)s; (void)which; (void)r; (void)prec; (void)zp; (void)b64; (void)f;
    return EM_FMAP_IN_MEMORY;
}
