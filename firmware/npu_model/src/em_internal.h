/* Internal state and helpers of the Ethos-U NPU model. */
#ifndef EM_INTERNAL_H
#define EM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "npu_model.h"
#include "npu_model_regs.h"
#include "npu_model_regs85.h"

/* Static capacities (no dynamic allocation); a firmware build may lower them. */
#ifndef NPU_MODEL_WEIGHT_CAPACITY
#define NPU_MODEL_WEIGHT_CAPACITY (1u << 21) /* decoded weights of one command */
#endif
#ifndef NPU_MODEL_MAX_DEPTH
#define NPU_MODEL_MAX_DEPTH 8192u /* channels of one feature map */
#endif
#define EM_MLW_SLICE_MAX 32769u /* SLICELEN is 15 bits, +1 for the leading zero run */
#define EM_SHRAM_BYTES (96u * 1024u)
#define EM_MAX_REGIONS 8
/* U85 LUT memory: 8 slots of 256 bytes, a 2048-byte table fills all (regor ethos_u85
   register_cs_generator.cpp GenerateActivation, ArchEthosU85::LUT_SLOT_SIZE). */
#define EM85_LUT_SLOT 256u
#define EM85_LUT_BYTES 2048u
/* U85 operation chaining: the chain buffers an OFM with CHAINED storage writes and a later
   IFM/IFM2 reads (the REGION field names the buffer; regor ethos_u85.cpp EthosU85OpGroup). */
#define EM85_CHAIN_BUFFERS 8
#ifndef NPU_MODEL_CHAIN_CAPACITY
#define NPU_MODEL_CHAIN_CAPACITY (1u << 18) /* bytes of one chain buffer (mv2 on U85-128 needs 75264) */
#endif
#ifndef NPU_MODEL_TRANSPOSE_CAPACITY
#define NPU_MODEL_TRANSPOSE_CAPACITY (1u << 21) /* bytes of a transposed OFM, staged (112x112x32 int8 = 401408) */
#endif
/* U85: the accumulator a command kept (ACC_FORMAT acc_output DISABLE) for the next one to
   continue (acc_input KEEP), per OFM element of the keeping command (em85_kept.c). */
#ifndef NPU_MODEL_ACC_CAPACITY
#define NPU_MODEL_ACC_CAPACITY (1u << 15) /* accumulators (U85-2048's 128 KiB of Acc32 is 32768) */
#endif
typedef struct em85_kept {
    int height, width, depth; /* 0 height: nothing kept */
} em85_kept;
typedef struct em85_chain {
    int height, width, depth, bytes; /* 0 bytes: not written in this stream */
} em85_chain;

/* A feature map as the registers describe it (4 tiles, NHWC or NHCWB16). */
typedef struct em_fmap {
    uint8_t *tile[4];
    int height0, height1, width0;
    int64_t stride_x, stride_y, stride_c;
    int nhcwb16;
    int bytes;     /* element size: 1, 2, 4 or (U85 B64) 8 */
    int is_signed;
    int32_t zero_point;
    const uint8_t *lo, *hi; /* the region: every access is checked against it */
    int *fault;             /* which + 1 of the first access outside; the op then fails */
    int which;              /* 0 = IFM, 1 = IFM2, 2 = OFM */
} em_fmap;

/* U85: a transposed or reversed OFM staged densely in the op's coordinates, then stored
   permuted or mirrored. */
typedef struct em85_staged {
    int active;
    em_fmap stored;             /* the OFM as its registers describe it (after transposition) */
    int height, width, depth;   /* the operation's OFM */
    int held[3];                /* the op's axis (0 H, 1 W, 2 C) each stored axis H, W, C holds */
    int reversed;               /* the op's axis (0 H, 1 W, 2 C) stored mirrored, or -1 */
} em85_staged;

typedef struct em_state {
    npu_model_status *status;
    const npu_model_npu *npu; /* the target of the running invoke */
    const uint64_t *base;
    const size_t *size;
    int regions;
    int arch; /* 55, 65 or 85: which register layout the stream uses */
    int cores;
    int macs;
    int shram_banks;
    int fault;
    int operations; /* NPU operations run so far in this invoke (em_observe.c) */
    unsigned op_code; /* cmd0 opcode of the running operation (refusals name it) */
    uint64_t reg0[0x200]; /* last NPU_SET_* cmd0 word per opcode */
    uint64_t reg1[0x100]; /* last NPU_SET_* cmd1 (word | data << 32) per opcode */
    uint8_t shram[EM_SHRAM_BYTES];
    unsigned lut_loaded; /* bit n: LUT slot n holds DMA'd data not since reused (em_output.c) */
    uint8_t lut85[EM85_LUT_BYTES]; /* U85: the LUT memory DMA writes (internal destination) */
    em85_chain chain[EM85_CHAIN_BUFFERS];
    em85_staged staged; /* a transposed OFM waiting in `staging` for em85_store_transposed */
    uint8_t staging[NPU_MODEL_TRANSPOSE_CAPACITY];
    uint8_t chain_data[EM85_CHAIN_BUFFERS][NPU_MODEL_CHAIN_CAPACITY];
    em85_kept kept;
    int64_t kept_acc[NPU_MODEL_ACC_CAPACITY];
    /* per-channel scale records of the current command (em_load_scales) */
    int64_t bias[NPU_MODEL_MAX_DEPTH];
    int32_t mult[NPU_MODEL_MAX_DEPTH];
    uint8_t shift[NPU_MODEL_MAX_DEPTH];
} em_state;


/* Messages (em_message.c): em_fail formats %s %d %u %x into the status and returns `code`. */
int em_fail(em_state *s, int code, const char *fmt, ...);
size_t em_put_str(char *out, size_t at, size_t cap, const char *text);
size_t em_put_hex(char *out, size_t at, size_t cap, uint32_t value, int digits);

/* The operation observer (em_observe.c): count and report the operation `code` just run. */
void em_observe_reset(em_state *s);
int em_observe_op(em_state *s, unsigned code, unsigned param, size_t word);

/* The register file (em_regfile.c). */
/* Command names and which commands exist, in the layout of `arch` (55/65 share one). */
const char *em_opname(int arch, int kind, unsigned code);
int em_known_command(int arch, int kind, unsigned code);
/* The address a base register (cmd1 word | data << 32) holds. */
uint64_t em_base_of(uint64_t word);
/* Region `region` + offset when [offset, offset + length) lies inside it, else NULL (and fails). */
uint8_t *em_address(em_state *s, unsigned region, uint64_t offset, uint64_t length, const char *what);

/* The driver payload walked once (em_payload.c): config words and command streams in order,
   `malformed` with a message (and one %u value) when the payload is not well formed. Returns 0
   or the first non-zero a callback returned. */
typedef struct em_payload_visitor {
    int (*config)(void *ctx, uint32_t config);
    int (*stream)(void *ctx, const uint32_t *words, size_t count);
    int (*malformed)(void *ctx, const char *what, unsigned value);
} em_payload_visitor;
int em_walk_payload(const uint32_t *words, size_t count, const em_payload_visitor *visit, void *ctx);
/* The NPU a COP1 config word names: 55, 65 or 85 (0 for another product), and its MAC count. */
int em_config_arch(uint32_t config);
unsigned em_config_macs(uint32_t config);

/* NPU_OP_DMA_START (em_dma.c). */
int em_dma_start(em_state *s);

static inline int32_t em_sext(uint32_t v, int bits) {
    uint32_t m = 1u << (bits - 1);
    v &= (bits == 32) ? 0xffffffffu : ((1u << bits) - 1u);
    return (int32_t)((v ^ m) - m);
}

/* Leading zeros of a 32-bit value, 32 for 0 (regor data_type.hpp:148, TOSA CLZ). */
static inline int em_clz32(uint32_t v) {
    int n = 0;
    if (v == 0) return 32;
    while (!(v & 0x80000000u)) { v <<= 1; n++; }
    return n;
}

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

/* The little-endian int32 at p. */
static inline int32_t em_le32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
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
/* Scaling (em_scale.c): value * scale (|scale| <= 2^32: OFM_SCALE is unsigned), shifted right by `shift` with the hardware rounding `mode`. */
int64_t em_scale(em_state *s, int64_t value, int64_t scale, int shift, unsigned mode, int *err);

/* Round modes beyond the U55/U65 three (TFL, TRUNCATE, NATURAL, the U55 register values): the
   U85's other OFM modes, numbered past every U55 value (em85_round_mode maps the U85 field). */
#define EM_ROUND_SYMMETRIC 0x10u
#define EM_ROUND_DOUBLE_ASYMMETRIC 0x11u
#define EM_ROUND_TRUNCATE_TO_LOWER 0x12u

/* 1 for the round modes the model implements. */
static inline int em_round_mode_known(unsigned mode) {
    return mode == EM_ROUNDING_NATURAL || mode == EM_ROUNDING_TFL || mode == EM_ROUNDING_TRUNCATE ||
           mode == EM_ROUND_SYMMETRIC || mode == EM_ROUND_DOUBLE_ASYMMETRIC || mode == EM_ROUND_TRUNCATE_TO_LOWER;
}

/* The term added before the right shift by `shift` (>= 1) in a known round `mode`, for a
   product whose sign is `negative` (value is the unscaled input: TFL's double rounding looks at
   its sign). Shared by em_scale and em_scale_fast. */
static inline int64_t em_round_addend(unsigned mode, int shift, int64_t value, int negative) {
    if (mode == EM_ROUNDING_NATURAL) return (int64_t)1 << (shift - 1);
    if (mode == EM_ROUNDING_TFL) {
        /* Double rounding as TOSA's apply_scale_32(double_round=true) defines it (the U85's
           DOUBLE_SYMMETRIC: regor graphir_optimiser.cpp Scale(), RoundMode::DBL). */
        int64_t round = (int64_t)1 << (shift - 1);
        if (shift > 31) round += value >= 0 ? ((int64_t)1 << 30) : -((int64_t)1 << 30);
        return round;
    }
    if (mode == EM_ROUNDING_TRUNCATE) return negative ? ((int64_t)1 << shift) - 1 : 0; /* toward zero */
    /* The U85's other modes, as regor graphir_optimiser.cpp Scale() (lines 420-460) defines them. */
    if (mode == EM_ROUND_SYMMETRIC) return ((int64_t)1 << (shift - 1)) - (value < 0 ? 1 : 0);
    if (mode == EM_ROUND_DOUBLE_ASYMMETRIC) return ((int64_t)1 << (shift - 1)) + (shift > 31 ? ((int64_t)1 << 30) : 0);
    return 0; /* TRUNCATE_TO_LOWER: toward minus infinity */
}

/* em_scale's result without the 128-bit product, when |value| < 2^30 and shift <= 62 (value *
   scale and the rounding term then fit int64): returns 1 and sets *out, else 0 (em_scale then
   takes the general path). Same rounding modes as em_scale. */
static inline int em_scale_fast(int64_t value, int64_t scale, int shift, unsigned mode, int64_t *out) {
    int64_t p;
    if (value <= -((int64_t)1 << 30) || value >= ((int64_t)1 << 30) || shift < 0 || shift > 62) return 0;
    p = value * scale;
    if (shift == 0) { *out = p; return 1; }
    if (!em_round_mode_known(mode)) return 0;
    *out = (p + em_round_addend(mode, shift, value, p < 0)) >> shift;
    return 1;
}

/* em_scale's 128-bit product and shift in the compiler's own 128-bit type where it has one
   (host builds; not 32-bit Arm): returns 1 and sets *out for a shift of 1..63 in a known round
   mode, else 0 (em_scale then takes its portable path). */
static inline int em_scale_native(int64_t value, int64_t scale, int shift, unsigned mode, int64_t *out) {
#ifdef __SIZEOF_INT128__
    if (shift >= 1 && shift <= 63 && em_round_mode_known(mode)) {
        __int128 p = (__int128)value * scale;
        *out = (int64_t)((p + em_round_addend(mode, shift, value, p < 0)) >> shift);
        return 1;
    }
#else
    (void)value; (void)scale; (void)shift; (void)mode; (void)out;
#endif
    return 0;
}

/* em_scale with its fast paths inline (the common case of a per-element loop). */
static inline int64_t em_scale_inline(em_state *s, int64_t value, int64_t scale, int shift, unsigned mode, int *err) {
    int64_t out;
    if (em_scale_fast(value, scale, shift, mode, &out) || em_scale_native(value, scale, shift, mode, &out)) return out;
    return em_scale(s, value, scale, shift, mode, err);
}

/* Weights (em_weight_order.c: U55/U65; em85_weight_order.c: U85; the codecs behind them in
   em_weight_codecs.h). */
typedef struct em_kernel {
    int kh, kw;          /* kernel taps (undilated) */
    int dil_x, dil_y;
    int ofm_depth, ifm_depth;
    int depthwise, part_kernel, ifm_bits, ofm_block_depth;
    /* Ethos-U85 only: KERNEL_STRIDE strides (the U85 order groups taps by stride phase),
       ACC_FORMAT microblock (width, height), WEIGHT_FORMAT (fast = FWD, sparse = 2:4) */
    int stride_x, stride_y, ublock_w, ublock_h, fast, sparse;
    /* the output channels decoded: [ofm_lo, ofm_hi) (a command whose weights exceed
       NPU_MODEL_WEIGHT_CAPACITY is decoded in blocks of channels, em_conv.c) */
    int ofm_lo, ofm_hi;
} em_kernel;

/* Weights of one output channel of k (all its taps and IFM channels). */
static inline size_t em_weights_per_channel(const em_kernel *k) {
    return (size_t)k->kh * (size_t)k->kw * (k->depthwise ? 1u : (size_t)k->ifm_depth);
}

/* The dense index of weight (o, wy, wx, i) among the decoded channels [ofm_lo, ofm_hi), or -1
   when channel o is not decoded. */
static inline int64_t em_dense_at(const em_kernel *k, int o, int wy, int wx, int i) {
    if (o < k->ofm_lo || o >= k->ofm_hi) return -1;
    o -= k->ofm_lo;
    if (k->depthwise) return ((int64_t)wy * k->kw + wx) * (k->ofm_hi - k->ofm_lo) + o;
    return (((int64_t)o * k->kh + wy) * k->kw + wx) * k->ifm_depth + i;
}
/* The weight streams of a command (U55/U65: one per core; U85: one per weight decoder, or one
   FWD stream); NULL where a core or decoder has none. */
typedef struct em_weight_streams {
    const uint8_t *data[4];
    uint32_t length[4];
} em_weight_streams;
/* U55/U65: the streams at WEIGHT_BASE/WEIGHT1_BASE of the cores that own one of `ofm_depth`
   channels. Returns 0 or an error code. */
int em_weight_streams_u55(em_state *s, int ofm_depth, em_weight_streams *w);
/* Decodes the U55/U65 weight streams `w` of the current command, channels [k->ofm_lo,
   k->ofm_hi), into dense [o - ofm_lo][ky][kx][i], or [ky][kx][o - ofm_lo] for depthwise
   (channels contiguous per tap); at most NPU_MODEL_WEIGHT_CAPACITY weights. Returns 0 or an
   error code. */
int em_decode_weights(em_state *s, const em_kernel *k, const em_weight_streams *w, int16_t *dense);
/* The decoders read a block on from where the previous block of the same command stopped
   (em_weight_resume); a new command, or a block not decoded, forgets that place. */
void em_weights_resume_forget(void);

/* Ethos-U85 weights: the streams at WEIGHT_BASE..WEIGHT3_BASE (SWD: one per weight decoder,
   em_u85_weight_decoders(macs) of them; FWD: the first only) decoded into the same dense
   layout as em_decode_weights. `macs` is the configuration's total (128..2048). */
int em_u85_weight_decoders(int macs);
int em_decode_weights_u85(em_state *s, const em_kernel *k, int macs, const em_weight_streams *w, int16_t *dense);
/* Ethos-U85 scale records (one stream at SCALE_BASE, channel order): 10 bytes, Acc32 (int32
   bias, uint31 scale, 6-bit shift) or Acc48 (int48 bias, uint15 scale, 6-bit shift), for
   `depth` output channels into s->bias/mult/shift. Returns 0 or an error code. */
int em_load_scales_u85(em_state *s, const uint8_t *records, uint64_t length, int depth, int acc48);

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

/* Ethos-U85 (em85_*.c): the operations of a U85 stream (em85_ops.c dispatches); the register
   loaders they share (em85_registers.c: ACC_FORMAT, kernel, CONV registers, scale records); the
   output stage of its registers (em85_output.c). */
int em85_run_operation(em_state *s, unsigned code, unsigned param);
int em85_op_elementwise(em_state *s, unsigned mode);
int em85_op_pool(em_state *s, unsigned mode);
int em85_op_argmax(em_state *s, unsigned mode); /* em85_argmax.c: ARGMAX_X */
/* NPU_OP_RESIZE (em85_resize.c): NEAREST or BILINEAR `mode`. */
int em85_op_resize(em_state *s, unsigned mode);
int em85_dma_start(em_state *s);
/* ACC_FORMAT of the current command. */
typedef struct em85_acc {
    int bits;      /* acc_format: 32 or 48 */
    int from_ifm2; /* acc_input IFM2: the accumulator loaded from the IFM2 feature map */
    int keep;      /* acc_input KEEP: it starts from the accumulator the previous command kept */
    int output;    /* acc_output ENABLE (1): the OFM is written; DISABLE (0): the accumulator is kept */
} em85_acc;
#define EM85_ACC_IFM2 1u /* the caller models acc_input IFM2 */
#define EM85_ACC_KEEP 2u /* the caller models acc_input KEEP and acc_output DISABLE */
/* The registers of a U85 CONV/DEPTHWISE: output stage, IFM, geometry, IFM depth, the kernel and
   the weight streams (all channels: the caller decodes them, in blocks where they exceed the
   buffer) into the caller's structures, the scale records into s. */
typedef struct em85_conv {
    em_out *o;
    em_fmap *in;
    em_geom *g;
    em_kernel *k;
    em_weight_streams *w;
    int ifm_depth;
    em85_acc acc; /* ACC_FORMAT */
} em85_conv;
int em85_load_conv(em_state *s, int depthwise, em85_conv *c);
/* The Acc32/Acc48 scale records of `depth` channels at SCALE_BASE into s->bias/mult/shift. */
int em85_load_scales(em_state *s, int depth, int acc_bits);
/* NPU_OP_CONV with weights_ifm2: a MatMul against the IFM2 feature map. */
int em85_op_matmul(em_state *s);
/* Kernel, stride, dilation, padding and upscale registers of the current U85 command. */
int em85_load_geom(em_state *s, const em_out *o, em_geom *g);
/* Decodes ACC_FORMAT into `acc`; refuses, naming `command`, what `allowed` does not include. */
int em85_accumulator(em_state *s, const char *command, unsigned allowed, em85_acc *acc);
/* The kept accumulator (em85_kept.c). em85_kept_begin checks that an operation with an OFM of
   height x width x depth may take (acc->keep: the kept one has that shape) and keep (fits
   NPU_MODEL_ACC_CAPACITY) its accumulator, and takes that shape for what it keeps;
   em85_kept_end, after an operation whose output is enabled, records that nothing is kept. */
int em85_kept_begin(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth);
void em85_kept_end(em_state *s, const em85_acc *acc);
static inline int64_t *em85_kept_at(em_state *s, int y, int x, int c) {
    return &s->kept_acc[((size_t)y * (size_t)s->kept.width + (size_t)x) * (size_t)s->kept.depth + (size_t)c];
}
/* The OFM registers of a U85 operation into `o`; `b64` when the operation models a B64 OFM (the
   raw accumulator, em85_load_conv; a bilinear resize's int48 result, em85_op_resize), else a B64 OFM is refused naming the command. */
int em85_load_out(em_state *s, em_out *o, int b64);
/* Only the OFM height, width and depth into `o` (a command that keeps its accumulator: acc_output
   DISABLE, OFM activation_storage NONE, nothing stored). */
void em85_ofm_shape(em_state *s, em_out *o);
/* After a U85 operation: a staged transposed OFM to its stored layout. */
void em85_store_transposed(em_state *s);
/* OFM_SCALE of a globally scaled U85 command (refuses per-channel OFM_PRECISION). */
int em85_global_scale(em_state *s, const char *command, int64_t *scale, int *shift);
/* 0 when `value` fits a `bits`-bit accumulator, else a one-line refusal. */
int em85_acc_check(em_state *s, const char *command, int64_t value, int bits);
/* The model's round mode of a U85 round_mode_ofm value, or 0xff when it has none. */
unsigned em85_round_mode(unsigned ofm_mode);
/* The type range of o->fm (OFM bytes and signedness) into o->type_min/type_max. */
void em_out_type_range(em_out *o);

/* A pooling window at output (oy, ox), channel c, zero point removed: its maximum, its sum, the
   sum over its taps of all `ifm_depth` channels, or its minimum (the U85's MIN, regor
   GeneratePoolingOp for ReduceMin); *count gets the taps inside the IFM. */
#define EM_WINDOW_MAX 0
#define EM_WINDOW_SUM 1
#define EM_WINDOW_CHANNEL_SUM 2
#define EM_WINDOW_MIN 3
int64_t em_pool_window(const em_fmap *in, const em_geom *g, int oy, int ox, int c, int kind, int ifm_depth,
                       int *count);
/* The average the NPU computes itself: sum / count as TOSA AVG_POOL2D (reciprocal_scale). */
int64_t em_pool_average(em_state *s, int64_t sum, int count, unsigned mode, int *err);
/* How a pool (U55/U65 and U85) scales the accumulator of a channel into the OFM stage. */
typedef struct em_pool_scaling {
    int hw_average;  /* the NPU's own average (em_pool_average) */
    int per_channel; /* the records in s->bias/mult/shift: bias, then scale */
    int64_t scale;   /* else OFM_SCALE and its shift */
    int shift;
    int loaded_bits; /* U85 acc_input IFM2: the loaded accumulator, and it plus the bias, must fit
                        this many bits (em85_acc_check); 0 for a window of IFM values */
} em_pool_scaling;
/* The scaled value of channel c from its accumulator `acc` over `count` taps; 0 or an error. */
int em_pool_scaled(em_state *s, const em_pool_scaling *sc, unsigned round, int c, int64_t acc, int count,
                   int64_t *value);
/* 1 for a 1x1 window at stride 1 without padding or upscaling: every window is one IFM element,
   the output position's own (em_pool_window's taps reduce to it, with a count of 1). */
int em_pool_is_pointwise(const em_geom *g);
/* A pointwise pool of `in` (the IFM, or U85's IFM2 accumulator input) into o, a run of channels
   at a time; an 8-bit IFM with one scale for every channel through a table of its 256 values. */
int em_pool_pointwise(em_state *s, const em_out *o, const em_fmap *in, const em_pool_scaling *sc);

/* Reuse of decoded weights (em_weight_reuse.c): the weights a command decoded stay valid for a
   later command with the same kernel, channels, configuration and weight streams, byte for byte
   (Vela splits one operation into commands that share a stream; a host runs a program again).
   The streams are kept to compare in NPU_MODEL_WEIGHT_REUSE_BYTES (0: no reuse, the firmware
   default), the decoded weights in a store of NPU_MODEL_WEIGHT_KEEP int16 elements (0: only
   the last decode, in the caller's buffer). */
#ifndef NPU_MODEL_WEIGHT_REUSE_BYTES
#define NPU_MODEL_WEIGHT_REUSE_BYTES 0u
#endif
typedef struct em_weight_key {
    int arch, macs, cores;
    em_kernel k;
    em_weight_streams w;
} em_weight_key;
/* The `count` weights `key` decodes to, decoded before and still held (their largest magnitude
   in max_abs), or NULL. */
const int16_t *em_weights_kept(const em_weight_key *key, size_t count, int32_t *max_abs);
/* Where to decode `count` weights of `key`: room in the store, else `fallback`. */
int16_t *em_weights_room(const em_weight_key *key, size_t count, int16_t *fallback);
/* `weights` (from em_weights_room) now hold the decode of `key`. */
void em_weights_decoded(const em_weight_key *key, const int16_t *weights, size_t count, int32_t max_abs);
/* The fallback buffer is about to hold something else. */
void em_weights_forget(void);

/* Dot products (em_dot.c): row `a` with `count` (at most EM_DOT_ROWS) rows of `n` int16 each,
   consecutive from `rows`, each added to its sums[r]; partial sums are int32 over `chunk`
   products, which the caller sizes so that they cannot overflow. */
#define EM_DOT_ROWS 4
void em_dot16(const int16_t *a, const int16_t *rows, int n, int count, int chunk, int64_t *sums);

/* The int16 buffer of one command's dense operand (em_conv.c: the decoded weights; a U85 MatMul's
   IFM2), NPU_MODEL_WEIGHT_CAPACITY elements, valid until the next operation. */
int16_t *em_dense_buffer(void);
/* The largest |value - zero point| an 8-bit feature map holds; 0 for wider maps. */
int32_t em_max_abs_input(const em_fmap *in);

/* The fused 8-bit MUL (em_mul8.c): what it needs of an elementwise command's registers. */
typedef struct em_mul8 {
    int unit_scale;         /* OFM_SCALE 1, shift 0 */
    int scalar, bh, bw;     /* IFM2 broadcast: a scalar, or its height/width */
    int32_t scalar_value;
} em_mul8;
/* 1 when the fused path computes this MUL exactly (8-bit NHWC operands, small zero points, an
   NHWC OFM of at most 4 bytes, unit scale, no LUT). */
int em_mul8_applies(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o);
/* Every channel of OFM position (y, x); 0 (nothing written) when a run leaves its region. */
int em_mul8_position(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o, int y, int x);

/* Operations (em_conv.c, em_pool.c, em_elementwise.c). */
int em_op_conv(em_state *s, int depthwise);
int em_op_pool(em_state *s, unsigned mode);
int em_op_elementwise(em_state *s, unsigned mode);
/* 1 for a U55/U65 elementwise mode of one operand (ABS, LRELU, CLZ): IFM2 is not read. */
int em_elementwise_unary(unsigned mode);

#define EM85_R0(s, op) ((s)->reg0[(EM85_CMD0_##op) & 0x1ffu]) /* the U85's, by its names */
#define EM85_R1(s, op) ((s)->reg1[(EM85_CMD1_##op) & 0xffu])
#define EM_R0(s, op) ((s)->reg0[(EM_CMD0_##op) & 0x1ff])
#define EM_R1(s, op) ((s)->reg1[(EM_CMD1_##op) & 0xff])
#define EM_P0(s, op) ((uint32_t)((EM_R0(s, op) >> 16) & 0xffffu)) /* cmd0 16-bit param */
#define EM_D1(s, op) ((uint32_t)(EM_R1(s, op) >> 32))              /* cmd1 32-bit data */

#endif
