/* Payload parsing, the register file, command dispatch, DMA, feature maps and scaling. */
#include <stdarg.h>
#include <string.h>

#include "em_internal.h"

static em_state g_state; /* one NPU; not re-entrant (neither is the hardware) */

#define EM_FOURCC 0x31504f43u /* "COP1" */
#define EM_DA_OPTIMIZER_CONFIG 1u
#define EM_DA_COMMAND_STREAM 2u
#define EM_DA_NOP 5u

/* --- messages (no libc printf: a tiny formatter for %s %d %u %x) --- */

static size_t put_str(char *out, size_t at, size_t cap, const char *text) {
    while (*text && at + 1 < cap) out[at++] = *text++;
    return at;
}

static size_t put_num(char *out, size_t at, size_t cap, uint32_t value, int negative, unsigned base) {
    char digits[12];
    int n = 0;
    if (negative) at = put_str(out, at, cap, "-");
    if (base == 16) at = put_str(out, at, cap, "0x");
    do { digits[n++] = "0123456789abcdef"[value % base]; value /= base; } while (value);
    while (n && at + 1 < cap) out[at++] = digits[--n];
    return at;
}

int em_fail(em_state *s, int code, const char *fmt, ...) {
    char *out = s->status->message;
    size_t cap = sizeof(s->status->message), at = 0;
    va_list args;
    va_start(args, fmt);
    for (; *fmt && at + 1 < cap; fmt++) {
        if (*fmt != '%') { out[at++] = *fmt; continue; }
        fmt++;
        if (*fmt == 's') at = put_str(out, at, cap, va_arg(args, const char *));
        else if (*fmt == 'd') {
            int v = va_arg(args, int);
            at = put_num(out, at, cap, v < 0 ? (uint32_t)(-(int64_t)v) : (uint32_t)v, v < 0, 10);
        } else if (*fmt == 'u') at = put_num(out, at, cap, va_arg(args, unsigned), 0, 10);
        else if (*fmt == 'x') at = put_num(out, at, cap, va_arg(args, unsigned), 0, 16);
        else out[at++] = *fmt;
    }
    va_end(args);
    out[at] = '\0';
    s->status->code = code;
    return code;
}

const char *em_opname(int kind, unsigned code) {
    size_t i;
    for (i = 0; i < sizeof(em_cmd_names) / sizeof(em_cmd_names[0]); i++)
        if (em_cmd_names[i].kind == kind && em_cmd_names[i].code == code) return em_cmd_names[i].name;
    return "unknown command";
}

uint8_t *em_address(em_state *s, unsigned region, uint64_t offset, uint64_t length, const char *what) {
    if ((int)region >= s->regions) {
        em_fail(s, ETHOSU_MODEL_BAD_ADDRESS, "%s uses region %u but the driver gave %d regions", what, region,
                s->regions);
        return NULL;
    }
    if (offset + length > s->size[region]) {
        em_fail(s, ETHOSU_MODEL_BAD_ADDRESS, "%s reads/writes %u bytes at offset %x of region %u (size %u)", what,
                (unsigned)length, (unsigned)offset, region, (unsigned)s->size[region]);
        return NULL;
    }
    return (uint8_t *)(uintptr_t)(s->base[region] + offset);
}

/* --- rounding: value * scale >> shift, in the OFM/IFM round mode --- */

/* 64 x 33 -> 97-bit product as hi:lo, then an arithmetic right shift (portable C99). */
static void mul_64_33(int64_t a, int64_t b, int64_t *hi, uint64_t *lo) {
    int negative = (a < 0) != (b < 0);
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b; /* |b| <= 2^32 */
    uint64_t p0 = (ua & 0xffffffffu) * ub, p1 = (ua >> 32) * ub;
    uint64_t l = p0 + (p1 << 32);
    uint64_t h = (p1 >> 32) + (l < p0);
    if (negative) { l = ~l + 1; h = ~h + (l == 0); }
    *hi = (int64_t)h;
    *lo = l;
}

static void add_128(int64_t *hi, uint64_t *lo, int64_t add) {
    uint64_t old = *lo;
    *lo += (uint64_t)add;
    *hi += (add < 0 ? -1 : 0) + (*lo < old);
}

static int64_t shr_128(int64_t hi, uint64_t lo, int shift) {
    if (shift == 0) return (int64_t)lo;
    if (shift >= 64) return hi >> (shift - 64);
    return (int64_t)((lo >> shift) | ((uint64_t)hi << (64 - shift)));
}

int64_t em_scale(em_state *s, int64_t value, int64_t scale, int shift, unsigned mode, int *err) {
    int64_t hi, fast;
    uint64_t lo;
    if (shift < 0 || shift > 63) { *err = em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "scale shift %d", shift); return 0; }
    if (em_scale_fast(value, scale, shift, mode, &fast)) return fast;
    mul_64_33(value, scale, &hi, &lo);
    if (shift == 0) return (int64_t)lo;
    if (!em_round_mode_known(mode)) {
        *err = em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "round mode %u", mode);
        return 0;
    }
    add_128(&hi, &lo, em_round_addend(mode, shift, value, hi < 0));
    return shr_128(hi, lo, shift);
}

/* --- feature maps --- */

static int ifm_precision(uint32_t precision, int *bytes, int *is_signed) {
    switch (precision) {
    case EM_IFM_PRECISION_U8: *bytes = 1; *is_signed = 0; return 0;
    case EM_IFM_PRECISION_S8: *bytes = 1; *is_signed = 1; return 0;
    case EM_IFM_PRECISION_U16: *bytes = 2; *is_signed = 0; return 0;
    case EM_IFM_PRECISION_S16: *bytes = 2; *is_signed = 1; return 0;
    case EM_IFM_PRECISION_S32: *bytes = 4; *is_signed = 1; return 0;
    default: return -1;
    }
}

static int ofm_precision(uint32_t precision, int *bytes, int *is_signed) {
    switch (precision) {
    case EM_OFM_PRECISION_U8: *bytes = 1; *is_signed = 0; return 0;
    case EM_OFM_PRECISION_S8: *bytes = 1; *is_signed = 1; return 0;
    case EM_OFM_PRECISION_U16: *bytes = 2; *is_signed = 0; return 0;
    case EM_OFM_PRECISION_S16: *bytes = 2; *is_signed = 1; return 0;
    case EM_OFM_PRECISION_S32: *bytes = 4; *is_signed = 1; return 0;
    default: return -1;
    }
}

static uint64_t base_of(uint64_t word) {
    /* 32-bit data plus the upper address bits U65 keeps in the param (40-bit addresses). */
    return (word >> 32) | (((word >> 16) & 0xffu) << 32);
}

int em_load_fmap(em_state *s, int which, em_fmap *f) {
    static const char *names[3] = {"IFM", "IFM2", "OFM"};
    uint64_t base[4], prec;
    unsigned region, format, precision;
    uint32_t zp;
    int t, ok;
    memset(f, 0, sizeof(*f));
    if (which == 0) {
        prec = EM_R0(s, NPU_SET_IFM_PRECISION);
        precision = EM_F_NPU_SET_IFM_PRECISION_PRECISION(prec);
        format = EM_F_NPU_SET_IFM_PRECISION_FORMAT(prec);
        region = EM_F_NPU_SET_IFM_REGION_PARAM(EM_R0(s, NPU_SET_IFM_REGION));
        base[0] = base_of(EM_R1(s, NPU_SET_IFM_BASE0)); base[1] = base_of(EM_R1(s, NPU_SET_IFM_BASE1));
        base[2] = base_of(EM_R1(s, NPU_SET_IFM_BASE2)); base[3] = base_of(EM_R1(s, NPU_SET_IFM_BASE3));
        f->height0 = (int)EM_P0(s, NPU_SET_IFM_HEIGHT0_M1) + 1;
        f->height1 = (int)EM_P0(s, NPU_SET_IFM_HEIGHT1_M1) + 1;
        f->width0 = (int)EM_P0(s, NPU_SET_IFM_WIDTH0_M1) + 1;
        f->stride_x = (int64_t)EM_D1(s, NPU_SET_IFM_STRIDE_X);
        f->stride_y = (int64_t)EM_D1(s, NPU_SET_IFM_STRIDE_Y);
        f->stride_c = (int64_t)EM_D1(s, NPU_SET_IFM_STRIDE_C);
        ok = ifm_precision(precision, &f->bytes, &f->is_signed);
        zp = EM_P0(s, NPU_SET_IFM_ZERO_POINT);
    } else if (which == 1) {
        prec = EM_R0(s, NPU_SET_IFM2_PRECISION);
        precision = EM_F_NPU_SET_IFM2_PRECISION_PRECISION(prec);
        format = EM_F_NPU_SET_IFM2_PRECISION_FORMAT(prec);
        region = EM_F_NPU_SET_IFM2_REGION_PARAM(EM_R0(s, NPU_SET_IFM2_REGION));
        base[0] = base_of(EM_R1(s, NPU_SET_IFM2_BASE0)); base[1] = base_of(EM_R1(s, NPU_SET_IFM2_BASE1));
        base[2] = base_of(EM_R1(s, NPU_SET_IFM2_BASE2)); base[3] = base_of(EM_R1(s, NPU_SET_IFM2_BASE3));
        f->height0 = (int)EM_P0(s, NPU_SET_IFM2_HEIGHT0_M1) + 1;
        f->height1 = (int)EM_P0(s, NPU_SET_IFM2_HEIGHT1_M1) + 1;
        f->width0 = (int)EM_P0(s, NPU_SET_IFM2_WIDTH0_M1) + 1;
        f->stride_x = (int64_t)EM_D1(s, NPU_SET_IFM2_STRIDE_X);
        f->stride_y = (int64_t)EM_D1(s, NPU_SET_IFM2_STRIDE_Y);
        f->stride_c = (int64_t)EM_D1(s, NPU_SET_IFM2_STRIDE_C);
        ok = ifm_precision(precision, &f->bytes, &f->is_signed);
        zp = EM_P0(s, NPU_SET_IFM2_ZERO_POINT);
    } else {
        prec = EM_R0(s, NPU_SET_OFM_PRECISION);
        precision = EM_F_NPU_SET_OFM_PRECISION_PRECISION(prec);
        format = EM_F_NPU_SET_OFM_PRECISION_FORMAT(prec);
        region = EM_F_NPU_SET_OFM_REGION_PARAM(EM_R0(s, NPU_SET_OFM_REGION));
        base[0] = base_of(EM_R1(s, NPU_SET_OFM_BASE0)); base[1] = base_of(EM_R1(s, NPU_SET_OFM_BASE1));
        base[2] = base_of(EM_R1(s, NPU_SET_OFM_BASE2)); base[3] = base_of(EM_R1(s, NPU_SET_OFM_BASE3));
        f->height0 = (int)EM_P0(s, NPU_SET_OFM_HEIGHT0_M1) + 1;
        f->height1 = (int)EM_P0(s, NPU_SET_OFM_HEIGHT1_M1) + 1;
        f->width0 = (int)EM_P0(s, NPU_SET_OFM_WIDTH0_M1) + 1;
        f->stride_x = (int64_t)(int32_t)EM_D1(s, NPU_SET_OFM_STRIDE_X);
        f->stride_y = (int64_t)(int32_t)EM_D1(s, NPU_SET_OFM_STRIDE_Y);
        f->stride_c = (int64_t)EM_D1(s, NPU_SET_OFM_STRIDE_C);
        ok = ofm_precision(precision, &f->bytes, &f->is_signed);
        zp = EM_P0(s, NPU_SET_OFM_ZERO_POINT);
    }
    if (ok != 0)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s precision value %u", names[which], precision);
    if (format == EM_DATA_FORMAT_NHCWB16) f->nhcwb16 = 1;
    else if (format != EM_DATA_FORMAT_NHWC)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s format value %u", names[which], format);
    else f->stride_c = f->bytes; /* NHWC channels are contiguous: the hardware ignores STRIDE_C
                                    (regor ethos_u55_register_cs_generator.cpp
                                    InsertTransposeCommand: "Ethos-U55 ignores channel stride
                                    for NHWC tensors"; its AvgPool transposes leave a stale one) */
    f->zero_point = f->is_signed ? em_sext(zp, 16) : (int32_t)zp;
    for (t = 0; t < 4; t++) {
        f->tile[t] = em_address(s, region, base[t], 0, names[which]);
        if (f->tile[t] == NULL) return s->status->code;
    }
    f->lo = (const uint8_t *)(uintptr_t)s->base[region];
    f->hi = f->lo + s->size[region];
    f->fault = &s->fault;
    f->which = which;
    return 0;
}

/* --- DMA --- */

static int run_dma(em_state *s) {
    uint64_t src_reg = EM_R0(s, NPU_SET_DMA0_SRC_REGION), dst_reg = EM_R0(s, NPU_SET_DMA0_DST_REGION);
    uint64_t length = EM_D1(s, NPU_SET_DMA0_LEN);
    uint64_t src_off = base_of(EM_R1(s, NPU_SET_DMA0_SRC)), dst_off = base_of(EM_R1(s, NPU_SET_DMA0_DST));
    const uint8_t *src;
    uint8_t *dst;
    if (EM_F_NPU_SET_DMA0_SRC_REGION_STRIDE_MODE(src_reg) != EM_STRIDE_MODE_STRIDE_MODE_1D ||
        EM_F_NPU_SET_DMA0_DST_REGION_STRIDE_MODE(dst_reg) != EM_STRIDE_MODE_STRIDE_MODE_1D)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START with a 2D/3D stride mode");
    if (EM_F_NPU_SET_DMA0_SRC_REGION_INTERNAL(src_reg))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_DMA_START from internal memory");
    src = em_address(s, EM_F_NPU_SET_DMA0_SRC_REGION_REGION(src_reg), src_off, length, "DMA source");
    if (src == NULL) return s->status->code;
    if (EM_F_NPU_SET_DMA0_DST_REGION_INTERNAL(dst_reg)) {
        if (dst_off + length > (uint64_t)s->shram_banks * 1024u)
            /* Vela 5.1.0 does this for a LUT fused into a transpose on 16-bank U55s: regor's
               InsertTransposeCommand asks for a block config without lutBytes, so its LUT
               banks start at the end of SHRAM (ethos_u55.cpp lutBanks, reservedEndBanks 0). */
            return em_fail(s, ETHOSU_MODEL_BAD_ADDRESS,
                           "DMA to SHRAM offset %x length %u ends beyond its %d banks (the stream "
                           "places data outside SHRAM; undefined on the hardware)",
                           (unsigned)dst_off, (unsigned)length, s->shram_banks);
        memcpy(s->shram + dst_off, src, (size_t)length);
        em_lut_written(s, dst_off, length);
        return 0;
    }
    dst = em_address(s, EM_F_NPU_SET_DMA0_DST_REGION_REGION(dst_reg), dst_off, length, "DMA destination");
    if (dst == NULL) return s->status->code;
    memmove(dst, src, (size_t)length);
    return 0;
}

/* --- command stream --- */

static int run_compute(em_state *s, unsigned code, unsigned param) {
    int rc;
    switch (code) {
    case EM_CMD0_NPU_OP_CONV: rc = em_op_conv(s, 0); break;
    case EM_CMD0_NPU_OP_DEPTHWISE: rc = em_op_conv(s, 1); break;
    case EM_CMD0_NPU_OP_POOL: rc = em_op_pool(s, param); break;
    default: rc = em_op_elementwise(s, param); break;
    }
    if (rc == 0) em_lut_after_op(s);
    return rc;
}

static int run_operation(em_state *s, unsigned code, unsigned param) {
    switch (code) {
    case EM_CMD0_NPU_OP_STOP: return 0;
    case EM_CMD0_NPU_OP_IRQ:
    case EM_CMD0_NPU_OP_DMA_WAIT:
    case EM_CMD0_NPU_OP_KERNEL_WAIT:
    case EM_CMD0_NPU_OP_PMU_MASK: return 0; /* ordering/timing only: the model is sequential */
    case EM_CMD0_NPU_OP_CONV:
    case EM_CMD0_NPU_OP_DEPTHWISE:
    case EM_CMD0_NPU_OP_POOL:
    case EM_CMD0_NPU_OP_ELEMENTWISE: return run_compute(s, code, param);
    case EM_CMD0_NPU_OP_DMA_START: return run_dma(s);
    default: return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "command %s (%x)", em_opname(0, code), code);
    }
}

static int known(int kind, unsigned code) {
    size_t i;
    for (i = 0; i < sizeof(em_cmd_names) / sizeof(em_cmd_names[0]); i++)
        if (em_cmd_names[i].kind == kind && em_cmd_names[i].code == code) return 1;
    return 0;
}

/* An operation's feature-map access fell outside the region the driver gave: the stream's
   registers describe more than the region holds (the hardware would read or clobber memory
   beyond it), so the model stops instead of computing something plausible. */
static int fault(em_state *s, unsigned code, size_t word) {
    static const char *const names[3] = {"IFM", "IFM2", "OFM"};
    unsigned which = (unsigned)(s->fault - 1);
    unsigned region = EM_F_NPU_SET_IFM_REGION_PARAM(EM_R0(s, NPU_SET_IFM_REGION));
    if (which == 1) region = EM_F_NPU_SET_IFM2_REGION_PARAM(EM_R0(s, NPU_SET_IFM2_REGION));
    if (which == 2) region = EM_F_NPU_SET_OFM_REGION_PARAM(EM_R0(s, NPU_SET_OFM_REGION));
    return em_fail(s, ETHOSU_MODEL_BAD_ADDRESS, "%s at word %u: its %s registers address bytes beyond region %u (%u bytes)",
                   em_opname(0, code), (unsigned)word, names[which], region, (unsigned)s->size[region]);
}

static int run_stream(em_state *s, const uint32_t *words, size_t count) {
    size_t i = 0;
    while (i < count) {
        uint32_t w = words[i];
        unsigned code = w & 0x3ffu;
        unsigned control = (w >> 14) & 3u;
        if (control == 0) {
            if (!known(0, code))
                return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "unknown cmd0 opcode %x at word %u", code, (unsigned)i);
            if (code < 0x100u) {
                int rc;
                s->fault = 0;
                rc = run_operation(s, code, w >> 16);
                if (rc) return rc;
                if (s->fault) return fault(s, code, i);
                if (code == EM_CMD0_NPU_OP_STOP) return 0;
            } else {
                s->reg0[code & 0x1ffu] = w;
            }
            i += 1;
        } else {
            if (i + 1 >= count) return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "command stream ends inside a cmd1");
            if (!known(1, code))
                return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "unknown cmd1 opcode %x at word %u", code, (unsigned)i);
            s->reg1[code & 0xffu] = (uint64_t)w | ((uint64_t)words[i + 1] << 32);
            i += 2;
        }
    }
    return 0;
}

/* SHRAM banks per MAC configuration: regor architecture/ethosu55/ethos_u55.cpp s_EthosU55Configs
   (shramBanks) and ethosu65/ethos_u65.cpp s_EthosU65Configs. */
static int shram_banks(int macs) { return macs <= 64 ? 16 : (macs == 128 ? 24 : 48); }

static int check_config(em_state *s, const ethosu_model_npu *npu, uint32_t cfg) {
    unsigned macs_log2 = cfg & 0xfu, product = (cfg >> 28) & 0xfu;
    unsigned want_product = npu->arch == 65 ? 1u : 0u;
    unsigned want_log2 = 0, total = (unsigned)npu->macs * (npu->cores ? npu->cores : 1u);
    while ((1u << (want_log2 + 1)) <= total) want_log2++;
    if (npu->arch != 55 && npu->arch != 65)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU arch U%u (the model runs U55 and U65)", npu->arch);
    if (product != want_product || macs_log2 != want_log2)
        return em_fail(s, ETHOSU_MODEL_CONFIG_MISMATCH,
                       "payload compiled for Ethos-U%u with %u MACs, target is Ethos-U%u-%u (recompile for the target)",
                       product ? 65u : 55u, 1u << macs_log2, (unsigned)npu->arch, total);
    return 0;
}

int ethosu_model_invoke(const ethosu_model_npu *npu, const void *custom_data, size_t custom_data_size,
                        const uint64_t *base_addr, const size_t *base_addr_size, int num_base_addr,
                        ethosu_model_status *status) {
    em_state *s = &g_state;
    const uint32_t *words = (const uint32_t *)custom_data;
    size_t count = custom_data_size / 4, i = 1;
    int seen_config = 0, rc;
    memset(s->reg0, 0, sizeof(s->reg0));
    memset(s->reg1, 0, sizeof(s->reg1));
    status->code = 0;
    status->message[0] = '\0';
    s->status = status;
    s->base = base_addr;
    s->size = base_addr_size;
    s->regions = num_base_addr;
    s->cores = npu->cores ? npu->cores : 1;
    s->macs = npu->macs;
    s->shram_banks = shram_banks(npu->macs);
    s->lut_loaded = 0; /* regor forgets every LUT at the start of a stream and reloads them */
    if (custom_data_size % 4 != 0 || count == 0 || words[0] != EM_FOURCC)
        return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "custom data is not a COP1 driver payload");
    if (num_base_addr > EM_MAX_REGIONS)
        return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "%d base addresses (at most %d)", num_base_addr, EM_MAX_REGIONS);
    while (i < count) {
        unsigned action = words[i] & 0xffu;
        if (action == EM_DA_OPTIMIZER_CONFIG) {
            if (i + 2 >= count) return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "truncated optimizer config");
            rc = check_config(s, npu, words[i + 1]);
            if (rc) return rc;
            seen_config = 1;
            i += 3;
        } else if (action == EM_DA_COMMAND_STREAM) {
            size_t length = ((words[i] >> 8) & 0xffu) << 16 | (words[i] >> 16);
            if (i + 1 + length > count) return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "truncated command stream");
            if (!seen_config)
                return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "command stream without an optimizer config");
            rc = run_stream(s, words + i + 1, length);
            if (rc) return rc;
            i += 1 + length;
        } else if (action == EM_DA_NOP) {
            i += 1;
        } else {
            return em_fail(s, ETHOSU_MODEL_BAD_PAYLOAD, "driver action %u", action);
        }
    }
    return 0;
}

/* --- listing (checked against Vela's --verbose-register-command-stream) --- */

static size_t put_hex(char *out, size_t at, size_t cap, uint32_t value, int digits) {
    int i;
    for (i = digits - 1; i >= 0 && at + 1 < cap; i--) out[at++] = "0123456789abcdef"[(value >> (4 * i)) & 15u];
    return at;
}

static int list_stream(const uint32_t *words, size_t count, char *out, size_t cap, size_t *at) {
    size_t i = 0;
    int listed = 0;
    while (i < count) {
        uint32_t w = words[i];
        int kind = ((w >> 14) & 3u) ? 1 : 0;
        unsigned code = w & 0x3ffu;
        *at = put_hex(out, *at, cap, (uint32_t)(i * 4), 6);
        *at = put_str(out, *at, cap, " ");
        *at = put_str(out, *at, cap, em_opname(kind, code));
        *at = put_str(out, *at, cap, " ");
        *at = put_hex(out, *at, cap, w >> 16, 4);
        *at = put_str(out, *at, cap, " ");
        if (kind) {
            if (i + 1 >= count) return -1;
            *at = put_hex(out, *at, cap, words[i + 1], 8);
            i += 2;
        } else {
            *at = put_str(out, *at, cap, "-");
            i += 1;
        }
        *at = put_str(out, *at, cap, "\n");
        if (*at + 1 >= cap) return -1;
        listed++;
    }
    return listed;
}

int ethosu_model_list(const void *custom_data, size_t custom_data_size, char *out, size_t out_size) {
    const uint32_t *words = (const uint32_t *)custom_data;
    size_t count = custom_data_size / 4, i = 1, at = 0;
    int total = 0;
    if (out_size == 0 || count == 0 || words[0] != EM_FOURCC) return -1;
    while (i < count) {
        unsigned action = words[i] & 0xffu;
        if (action == EM_DA_OPTIMIZER_CONFIG) i += 3;
        else if (action == EM_DA_NOP) i += 1;
        else if (action == EM_DA_COMMAND_STREAM) {
            size_t length = ((words[i] >> 8) & 0xffu) << 16 | (words[i] >> 16);
            int listed;
            if (i + 1 + length > count) return -1;
            listed = list_stream(words + i + 1, length, out, out_size, &at);
            if (listed < 0) return -1;
            total += listed;
            i += 1 + length;
        } else return -1;
    }
    out[at] = '\0';
    return total;
}
