/* Ethos-U85 feature maps: the IFM, IFM2 and OFM register rows of its layout, and what a map
   not in plain memory needs (a chain buffer, a B64 map) before em_fmap.c loads it. */
#include "em_internal.h"

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

const fmap_regs em85_fmaps[3] = {
    EM_FMAP_ROW(EM85, IFM, 0, ifm_element85, ifm_precision85, ifm_format85, EM85_ACTIVATION_FORMAT_NHWC,
                EM85_ACTIVATION_FORMAT_NHCWB16, ifm_storage85, EM85_ACTIVATION_STORAGE_TILE2X2),
    EM_FMAP_ROW(EM85, IFM2, 0, ifm2_element85, ifm2_precision85, ifm2_format85, EM85_ACTIVATION_FORMAT_NHWC,
                EM85_ACTIVATION_FORMAT_NHCWB16, ifm2_storage85, EM85_ACTIVATION_STORAGE_TILE2X2),
    EM_FMAP_ROW(EM85, OFM, 1, ofm_element85, ofm_precision85, ofm_format85, EM85_ACTIVATION_FORMAT_NHWC,
                EM85_ACTIVATION_FORMAT_NHCWB16, ofm_storage85, EM85_ACTIVATION_STORAGE_TILE2X2),
};


/* every U85 size is known: what fails is an unsigned B32/B64 */
int em85_refuse_element(em_state *s, const fmap_regs *r, unsigned precision) {
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_%s_PRECISION activation_type UNSIGNED with "
                   "activation_precision value %u on Ethos-U85-%d (not modelled)", em_opname(85, 0, s->op_code),
                   r->name, precision, s->macs);
}

/* A chained feature map: dense NHWC in chain buffer `cb` (the hardware passes it inside the NPU;
   its BASE/STRIDE registers are not written for it, regor GenerateIFM/GenerateOFM). The OFM
   records its shape; a reader takes the consumer's OFM shape when the element counts agree
   ("Can chain any unary EW regardless of shape as long as number of elements match", regor
   ethos_u85.cpp EthosU85OpGroup::Chain), else the producer's (a broadcast operand). */
static int load_chained(em_state *s, const fmap_regs *r, int which, unsigned cb, em_fmap *f) {
    em85_chain *chain = &s->chain[cb];
    int h = em85_ofm_dim(s, 0);
    int w = em85_ofm_dim(s, 1);
    int c = em85_ofm_dim(s, 2);
    if (which == 2) {
        if ((uint64_t)h * (uint64_t)w * (uint64_t)c * (uint64_t)f->bytes > NPU_MODEL_CHAIN_CAPACITY)
            return em_fail(s, NPU_MODEL_CAPACITY, "chained OFM of %dx%dx%d exceeds NPU_MODEL_CHAIN_CAPACITY", h, w, c);
        chain->height = h; chain->width = w; chain->depth = c; chain->bytes = f->bytes;
    } else if (chain->bytes == 0) {
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "chained %s reads chain buffer %u that no operation wrote",
                       r->name, cb);
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

int em85_fmap_storage(em_state *s, int which, const fmap_regs *r, uint64_t prec, uint32_t zp, int b64, em_fmap *f) {
    int rc;
    if (f->bytes == 8 && (rc = check_b64(s, r, prec, zp, b64))) return rc;
    if (r->storage_field(prec) == EM85_ACTIVATION_STORAGE_CHAINED) {
        f->zero_point = f->is_signed ? em_sext(zp, 16) : (int32_t)zp;
        f->fault = &s->fault;
        f->which = which;
        return load_chained(s, r, which, EM85_F_NPU_SET_IFM_REGION_REGION(s->reg0[r->region & 0x1ffu]), f);
    }
    if (r->storage_field(prec) != r->in_memory)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s activation_storage value %u on Ethos-U85 (not modelled)",
                       r->name, r->storage_field(prec));
    return EM_FMAP_IN_MEMORY;
}
