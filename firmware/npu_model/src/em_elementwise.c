/* NPU_OP_ELEMENTWISE: binary and unary modes, broadcasts, operand scaling, shifts, CLZ. */
#include <string.h>

#include "em_internal.h"

/* The fixed left shift the hardware applies to the unscaled operand of ADD/SUB in a 32-bit
   scale mode: regor ethos_u55_constraints.cpp:116 (SupportsAdvancedAddSubIFMScaling, "the fixed
   left shift used by the hardware") only fuses a 32-bit IFM scale when the other input's scale
   is exactly 1 << (8-bit ? 19 : 14): TFLite's add convention, a left shift of 20 (15 for
   16-bit) times the larger input's multiplier 0.5. OPB_SCALE is not it: regor writes the other
   scale's low 16 bits there (ethos_u55_register_cs_generator.cpp:628-640), 0 for 2^19. */
#define EM_ADVANCED_SCALE_SHIFT_8BIT 19
#define EM_ADVANCED_SCALE_SHIFT_16BIT 14

/* The registers an elementwise command reads, decoded once. */
typedef struct em_ew {
    unsigned mode, scale_mode, ifm_round;
    int binary, scalar, bh, bw, bd, reversed, per_channel;
    int unit_shift; /* ADD/SUB 32-bit scale modes: the fixed shift of the unscaled operand */
    int64_t ofm_scale;
    int ofm_shift, opa_shift;
    int32_t opa_scale, opb_scale, scalar_value;
} em_ew;

static int is_mode(unsigned mode, unsigned a, unsigned b) { return mode == a || mode == b; }

static int is_bit_op(unsigned mode) {
    return mode == EM_ELEMENTWISE_MODE_CLZ || is_mode(mode, EM_ELEMENTWISE_MODE_SHL, EM_ELEMENTWISE_MODE_SHR);
}

int em_elementwise_unary(unsigned mode) {
    return mode == EM_ELEMENTWISE_MODE_ABS || mode == EM_ELEMENTWISE_MODE_LRELU || mode == EM_ELEMENTWISE_MODE_CLZ;
}

static void load_ew(em_state *s, unsigned mode, em_ew *e) {
    uint64_t bc = EM_R0(s, NPU_SET_IFM2_BROADCAST);
    uint64_t prec = EM_R0(s, NPU_SET_IFM_PRECISION);
    e->mode = mode;
    e->scale_mode = EM_F_NPU_SET_IFM_PRECISION_SCALE_MODE(prec);
    e->ifm_round = EM_F_NPU_SET_IFM_PRECISION_ROUND_MODE(prec);
    e->binary = !em_elementwise_unary(mode);
    e->scalar = (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_SCALAR(bc);
    e->bh = (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_HEIGHT(bc);
    e->bw = (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_WIDTH(bc);
    e->bd = (int)EM_F_NPU_SET_IFM2_BROADCAST_BROADCAST_DEPTH(bc);
    e->reversed = (int)EM_F_NPU_SET_IFM2_BROADCAST_OPERAND_ORDER(bc);
    e->ofm_scale = (int64_t)EM_D1(s, NPU_SET_OFM_SCALE);
    e->ofm_shift = (int)EM_F_NPU_SET_OFM_SCALE_SHIFT(EM_R1(s, NPU_SET_OFM_SCALE));
    e->opa_scale = (int32_t)EM_D1(s, NPU_SET_OPA_SCALE);
    e->opa_shift = (int)EM_F_NPU_SET_OPA_SCALE_SHIFT(EM_R1(s, NPU_SET_OPA_SCALE));
    e->opb_scale = (int32_t)EM_D1(s, NPU_SET_OPB_SCALE);
    e->per_channel = em_per_channel(s);
    e->scalar_value = 0;
}

static int load_ifm2(em_state *s, em_ew *e, em_fmap *b_fm) {
    if (!e->binary) {
        memset(b_fm, 0, sizeof(*b_fm));
        return 0;
    }
    if (e->scalar) {
        unsigned prec2 = EM_F_NPU_SET_IFM2_PRECISION_PRECISION(EM_R0(s, NPU_SET_IFM2_PRECISION));
        uint32_t raw = EM_P0(s, NPU_SET_IFM2_SCALAR);
        memset(b_fm, 0, sizeof(*b_fm));
        b_fm->is_signed = (int)(prec2 & 1u);
        b_fm->zero_point = b_fm->is_signed ? em_sext(EM_P0(s, NPU_SET_IFM2_ZERO_POINT), 16)
                                           : (int32_t)EM_P0(s, NPU_SET_IFM2_ZERO_POINT);
        e->scalar_value = b_fm->is_signed ? em_sext(raw, 16) : (int32_t)raw;
        return 0;
    }
    return em_load_fmap(s, 1, b_fm);
}

/* What the model does not implement for this command: one-line refusals. */
static int check_ew(em_state *s, const em_ew *e, const em_fmap *a_fm, const em_out *o) {
    unsigned mode = e->mode;
    int add_sub = is_mode(mode, EM_ELEMENTWISE_MODE_ADD, EM_ELEMENTWISE_MODE_SUB);
    if (e->per_channel && (add_sub || mode == EM_ELEMENTWISE_MODE_MUL || mode == EM_ELEMENTWISE_MODE_ABS ||
                              mode == EM_ELEMENTWISE_MODE_LRELU))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE mode %u with per-channel scaling", mode);
    if (add_sub && e->scale_mode != EM_IFM_SCALE_MODE_SCALE_16BIT && a_fm->bytes == 4)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE ADD/SUB 32-bit scale mode %u with a 4-byte IFM",
                       e->scale_mode);
    if (is_bit_op(mode)) {
        /* regor ethos_u55_constraints.cpp: CLZ/SHL take and give int32, SHR (Asr) takes int32;
           regor's generator never scales them (OFM_PRECISION per-channel = bypass). */
        if (a_fm->bytes != 4 || (mode != EM_ELEMENTWISE_MODE_SHR && o->fm.bytes != 4))
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE mode %u with a %d-byte IFM and %d-byte OFM",
                           mode, a_fm->bytes, o->fm.bytes);
        if (!e->per_channel)
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE mode %u with global OFM scaling", mode);
        if (mode == EM_ELEMENTWISE_MODE_SHR && o->round_mode != EM_ROUNDING_NATURAL)
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE SHR with OFM round mode %u", o->round_mode);
    }
    return 0;
}

/* ADD/SUB: both operands scaled (OPA/OPB 16-bit scales, or one 32-bit scale and the fixed
   left shift for the other), then the OFM scale. */
static int64_t add_sub(em_state *s, const em_ew *e, int64_t a, int64_t b, unsigned round, int *err) {
    if (e->scale_mode == EM_IFM_SCALE_MODE_SCALE_16BIT) {
        a = a * e->opa_scale;
        b = b * e->opb_scale;
    } else {
        /* The operand the mode names (after IFM2 operand order) takes OPA_SCALE (scale and
           shift, IFM round mode); the other is shifted left by the fixed amount (OPB_SCALE
           holds only the low 16 bits of the other scale: regor GenerateScalingForElementwise). */
        int64_t *scaled = e->scale_mode == EM_IFM_SCALE_MODE_SCALE_OPA_32BIT ? &a : &b;
        int64_t *unit = scaled == &a ? &b : &a;
        *scaled = em_scale_inline(s, *scaled, e->opa_scale, e->opa_shift, e->ifm_round, err);
        *unit = *unit * ((int64_t)1 << e->unit_shift);
    }
    return em_scale_inline(s, e->mode == EM_ELEMENTWISE_MODE_ADD ? a + b : a - b, e->ofm_scale, e->ofm_shift, round, err);
}

/* SHL (TOSA LOGICAL_LEFT_SHIFT: regor graphir_optimiser.cpp:470 EwShl shifts as uint64, the
   int32 OFM keeps the low 32 bits) and SHR (TOSA ARITHMETIC_RIGHT_SHIFT, regor OpType::Asr:
   the OFM round mode rounds, NATURAL for round=true, graphir_optimiser.cpp:197; round=false
   has no U55 encoding and is refused in check_ew). TOSA requires amounts in 0..31. */
static int64_t shift(em_state *s, unsigned mode, int64_t a, int64_t b, int *err) {
    if (b < 0 || b > 31) {
        *err = em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE shift amount %d outside 0..31", (int)b);
        return 0;
    }
    if (mode == EM_ELEMENTWISE_MODE_SHL) return (int64_t)em_sext((uint32_t)((uint64_t)a << b), 32);
    return em_scale_inline(s, a, 1, (int)b, EM_ROUNDING_NATURAL, err);
}

static int64_t ew_value(em_state *s, const em_ew *e, const em_out *o, int64_t a, int64_t b, int *err) {
    unsigned mode = e->mode;
    if (e->reversed) { int64_t t = a; a = b; b = t; } /* operand A is the IFM2 */
    if (is_mode(mode, EM_ELEMENTWISE_MODE_ADD, EM_ELEMENTWISE_MODE_SUB)) return add_sub(s, e, a, b, o->round_mode, err);
    if (mode == EM_ELEMENTWISE_MODE_MUL) return em_scale_inline(s, a * b, e->ofm_scale, e->ofm_shift, o->round_mode, err);
    if (is_mode(mode, EM_ELEMENTWISE_MODE_MIN, EM_ELEMENTWISE_MODE_MAX)) {
        int64_t m = mode == EM_ELEMENTWISE_MODE_MIN ? (a < b ? a : b) : (a > b ? a : b);
        return e->per_channel ? m : em_scale_inline(s, m, e->ofm_scale, e->ofm_shift, o->round_mode, err);
    }
    if (mode == EM_ELEMENTWISE_MODE_ABS) return em_scale_inline(s, a < 0 ? -a : a, e->ofm_scale, e->ofm_shift, o->round_mode, err);
    if (mode == EM_ELEMENTWISE_MODE_LRELU) return a < 0 ? em_scale_inline(s, a, e->ofm_scale, e->ofm_shift, o->round_mode, err) : a;
    if (mode == EM_ELEMENTWISE_MODE_CLZ) return em_clz32((uint32_t)a);
    return shift(s, mode, a, b, err);
}

#define EW_ROW 256 /* elements per pass */
static int64_t g_a[EW_ROW], g_b[EW_ROW];

/* Channels c0..c0+n-1 of IFM2 at (y, x), zero point removed: the scalar, the one channel of a
   depth broadcast, or a run. */
static void ifm2_run(const em_ew *e, const em_fmap *b, int y, int x, int c0, int n, int64_t *out) {
    int i;
    if (e->scalar || e->bd) {
        int64_t v = e->scalar ? e->scalar_value : em_fm_read(b, e->bh ? 0 : y, e->bw ? 0 : x, 0);
        for (i = 0; i < n; i++) out[i] = v;
    } else {
        em_fm_read_run(b, e->bh ? 0 : y, e->bw ? 0 : x, c0, n, out);
    }
    for (i = 0; i < n; i++) out[i] -= b->zero_point;
}

/* ew_value's MUL (commutative: the operand order aside) over g_a, g_b and the output stage; a
   unit OFM scale is exact without the scaling, an OFM without a LUT is clamped in the same pass. */
static int mul_row(em_state *s, const em_ew *e, const em_out *o, const em_fmap *a, int y, int x, int c0, int n) {
    const int64_t za = a->zero_point, zo = o->fm.zero_point, scale = e->ofm_scale;
    const int64_t act_min = o->act_min, act_max = o->act_max, type_min = o->type_min, type_max = o->type_max;
    const int shift = e->ofm_shift;
    const unsigned round = o->round_mode;
    /* NATURAL, and TFL below a shift of 32, add one constant before the shift (em_round_addend) */
    const int constant = shift >= 1 && shift <= 31 && (round == EM_ROUNDING_NATURAL || round == EM_ROUNDING_TFL);
    const int64_t addend = constant ? (int64_t)1 << (shift - 1) : 0, limit = (int64_t)1 << 30;
    int i, err = 0;
    if (scale == 1 && shift == 0) {
        for (i = 0; i < n; i++) g_a[i] = (g_a[i] - za) * g_b[i];
    } else {
        for (i = 0; i < n && !err; i++) {
            int64_t v = (g_a[i] - za) * g_b[i];
            g_a[i] = constant && v > -limit && v < limit ? (v * scale + addend) >> shift /* em_scale_fast */
                                                          : em_scale_inline(s, v, scale, shift, round, &err);
        }
    }
    if (err) return err;
    if (o->lut != NULL) {
        em_store_run(o, y, x, c0, n, g_a);
        return 0;
    }
    for (i = 0; i < n; i++) g_a[i] = em_out_clamp(g_a[i] + zo, act_min, act_max, type_min, type_max);
    em_fm_write_run(&o->fm, y, x, c0, n, g_a);
    return 0;
}

/* Channels c0.. (at most EW_ROW) of OFM position (y, x). */
static int row(em_state *s, const em_ew *e, const em_out *o, const em_fmap *a, const em_fmap *b, int y, int x, int c0) {
    const int n = o->depth - c0 < EW_ROW ? o->depth - c0 : EW_ROW;
    int i, err = 0;
    em_fm_read_run(a, y, x, c0, n, g_a);
    if (e->binary) ifm2_run(e, b, y, x, c0, n, g_b);
    if (e->mode == EM_ELEMENTWISE_MODE_MUL) return mul_row(s, e, o, a, y, x, c0, n);
    for (i = 0; i < n; i++) {
        g_a[i] = ew_value(s, e, o, g_a[i] - a->zero_point, e->binary ? g_b[i] : 0, &err);
        if (err) return err;
    }
    em_store_run(o, y, x, c0, n, g_a);
    return 0;
}

/* 1 when the command is a MUL the fused 8-bit path (em_mul8.c) computes exactly; fills `m`. */
static int fused_mul(const em_ew *e, const em_fmap *a, const em_fmap *b, const em_out *o, em_mul8 *m) {
    m->unit_scale = e->ofm_scale == 1 && e->ofm_shift == 0;
    m->scalar = e->scalar;
    m->bh = e->bh;
    m->bw = e->bw;
    m->scalar_value = e->scalar_value;
    return e->mode == EM_ELEMENTWISE_MODE_MUL && (e->scalar || !e->bd) && em_mul8_applies(m, a, b, o);
}

int em_op_elementwise(em_state *s, unsigned mode) {
    em_out o;
    em_fmap a_fm, b_fm;
    em_ew e;
    em_mul8 m;
    int rc, y, x, c, fused;
    if (mode > EM_ELEMENTWISE_MODE_SHL)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE mode %u", mode);
    load_ew(s, mode, &e);
    if ((rc = em_load_out(s, &o)) || (rc = em_load_fmap(s, 0, &a_fm)) || (rc = load_ifm2(s, &e, &b_fm)) ||
        (rc = check_ew(s, &e, &a_fm, &o)))
        return rc;
    e.unit_shift = a_fm.bytes == 1 ? EM_ADVANCED_SCALE_SHIFT_8BIT : EM_ADVANCED_SCALE_SHIFT_16BIT;
    fused = fused_mul(&e, &a_fm, &b_fm, &o, &m);
    for (y = 0; y < o.height; y++)
        for (x = 0; x < o.width; x++) {
            if (fused && em_mul8_position(&m, &a_fm, &b_fm, &o, y, x)) continue;
            for (c = 0; c < o.depth; c += EW_ROW)
                if ((rc = row(s, &e, &o, &a_fm, &b_fm, y, x, c))) return rc;
        }
    return 0;
}
