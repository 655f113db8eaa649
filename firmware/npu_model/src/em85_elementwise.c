/* Ethos-U85 NPU_OP_ELEMENTWISE: each operand scaled by its own register (IFM_SCALE, IFM2_SCALE:
   scale, shift, IFM round mode), the operation in the accumulator, then OFM_SCALE (regor
   ethos_u85_register_cs_generator.cpp GenerateScalingForElementwise). Broadcasts: H, W, C and
   SCALAR (the operand is NPU_SET_OP_SCALAR) on either input (GenerateInputBroadcast).

   Modes (regor ethos_u85_register_cs_generator.cpp:163-187 maps the operations to them):
   arithmetic (ADD, SUB, MUL, MIN, MAX, ABS); comparisons CMP_EQ/NE/GE/GT giving regor's internal
   bool, all bits set for true and 0 for false (graphir_optimiser.cpp:130-150: a graph's bool
   output is that value AND 1, a bool input becomes it through CMP_NE 0; :2090-2105 SELECT is
   OR(AND(a, s), AND_NOT(b, s)), which needs every bit of s); the bitwise AND, OR, XOR, NOT,
   AND_NOT (a & ~b) that logical and bitwise operations both map to; SHL, SHR (TOSA
   ARITHMETIC_RIGHT_SHIFT, regor OpType::Asr, rounded by the OFM round mode), LSR (TOSA
   LOGICAL_RIGHT_SHIFT, regor OpType::SHR, graph_builder.cpp:64) and DIV (TOSA INTDIV, toward
   zero), which regor never scales (:781-784 asserts unit scales); CLZ (TOSA CLZ,
   graph_builder.cpp:76). LRELU is unary: regor's GenerateScalingForElementwise (:764-772)
   writes the identity rescale ifm/ofm into IFM_SCALE, alpha * ifm/ofm into IFM2_SCALE and a unit
   OFM_SCALE, which is TFLite's LEAKY_RELU (the only source of the mode,
   tflite_graph_optimiser.cpp:2204-2240, alpha > 0 and not 1) only if IFM_SCALE takes the
   non-negative inputs and IFM2_SCALE the negative ones. LSR and CLZ take a 32-bit IFM: whether
   the NPU shifts an 8- or 16-bit operand in its own width (as TOSA) or in the 32-bit
   accumulator is nowhere in regor, so those stop. The operands of every mode pass their IFM
   scales (unit where regor asserts it) and the result OFM_SCALE. */
#include <string.h>

#include "em_internal.h"


/* One input of the operation: a feature map (with broadcast axes) or the scalar. */
typedef struct operand {
    em_fmap fm;
    int scalar, bh, bw, bc;
    int64_t scalar_value;
    int64_t scale;
    int shift;
    unsigned round;
    int tabled;         /* an 8-bit map: table[byte] is the operand value of each byte */
    int64_t table[256];
} operand;

static unsigned ifm_round(unsigned field) {
    return field == EM85_ROUND_MODE_IFM_NATURAL ? EM_ROUNDING_NATURAL : EM_ROUNDING_TFL; /* DOUBLE_SYMMETRIC */
}

static int load_operand(em_state *s, int which, uint64_t broadcast, uint64_t scale_word, operand *p) {
    unsigned mode = EM85_F_NPU_SET_IFM_BROADCAST_BROADCAST_MODE(broadcast); /* IFM2's has the same layout */
    memset(p, 0, sizeof(*p));
    if (EM85_F_NPU_SET_IFM_SCALE_DBL_RND(scale_word) != 0)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_%s_SCALE dbl_rnd value %u on Ethos-U85 (regor sets it only "
                       "for TFLite add/sub, not modelled)", em_fmap_name(s, which),
                       EM85_F_NPU_SET_IFM_SCALE_DBL_RND(scale_word));
    p->scale = (int64_t)EM85_F_NPU_SET_IFM_SCALE_SCALE(scale_word);
    p->shift = (int)EM85_F_NPU_SET_IFM_SCALE_SHIFT(scale_word);
    p->round = ifm_round(EM85_F_NPU_SET_IFM_SCALE_ROUND_MODE(scale_word));
    if (mode == EM85_BROADCAST_MODE_SCALAR) {
        uint32_t zp_word = (uint32_t)((which == 0 ? EM85_R0(s, NPU_SET_IFM_ZERO_POINT) : EM85_R0(s, NPU_SET_IFM2_ZERO_POINT)) >> 16);
        uint64_t prec = which == 0 ? EM85_R0(s, NPU_SET_IFM_PRECISION) : EM85_R0(s, NPU_SET_IFM2_PRECISION);
        p->scalar = 1;
        p->fm.is_signed = EM85_F_NPU_SET_IFM_PRECISION_ACTIVATION_TYPE(prec) == EM85_ACTIVATION_TYPE_SIGNED;
        p->fm.zero_point = p->fm.is_signed ? em_sext(zp_word, 16) : (int32_t)(zp_word & 0xffffu);
        p->scalar_value = (int64_t)(int32_t)(uint32_t)(EM85_R1(s, NPU_SET_OP_SCALAR) >> 32);
        return 0;
    }
    if (mode & ~(EM85_BROADCAST_MODE_H | EM85_BROADCAST_MODE_W | EM85_BROADCAST_MODE_C))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_SET_%s_BROADCAST broadcast_mode value %u", em_fmap_name(s, which),
                       mode);
    p->bh = (mode & EM85_BROADCAST_MODE_H) != 0;
    p->bw = (mode & EM85_BROADCAST_MODE_W) != 0;
    p->bc = (mode & EM85_BROADCAST_MODE_C) != 0;
    return em_load_fmap(s, which, &p->fm);
}

/* Channels c0..c0+n-1 of the operand at (y, x) as stored, into out. */
static void operand_read_run(const operand *p, int y, int x, int c0, int n, int64_t *out) {
    int i;
    if (p->scalar) for (i = 0; i < n; i++) out[i] = p->scalar_value;
    else if (p->bc) {
        int64_t v = em_fm_read(&p->fm, p->bh ? 0 : y, p->bw ? 0 : x, 0);
        for (i = 0; i < n; i++) out[i] = v;
    } else em_fm_read_run(&p->fm, p->bh ? 0 : y, p->bw ? 0 : x, c0, n, out);
}

/* Channels c0..c0+n-1 of the operand at (y, x) with its zero point removed and its scale
   applied, into out. */
static int operand_run(em_state *s, const operand *p, int y, int x, int c0, int n, int64_t *out) {
    int i, err = 0;
    operand_read_run(p, y, x, c0, n, out);
    if (p->tabled) {
        for (i = 0; i < n; i++) out[i] = p->table[(uint8_t)out[i]];
        return 0;
    }
    for (i = 0; i < n && !err; i++) out[i] = em_scale_inline(s, out[i] - p->fm.zero_point, p->scale, p->shift, p->round, &err);
    return err;
}

/* LRELU over channels c0..c0+n-1: the input less its zero point, scaled by IFM_SCALE where it is
   not negative and by IFM2_SCALE (alpha folded in) where it is. */
static int leaky_run(em_state *s, const operand *a, int y, int x, int c0, int n, int64_t *out) {
    uint64_t alpha = EM85_R1(s, NPU_SET_IFM2_SCALE);
    int64_t alpha_scale = (int64_t)EM85_F_NPU_SET_IFM_SCALE_SCALE(alpha);
    int alpha_shift = (int)EM85_F_NPU_SET_IFM_SCALE_SHIFT(alpha), i, err = 0;
    unsigned alpha_round = ifm_round(EM85_F_NPU_SET_IFM_SCALE_ROUND_MODE(alpha));
    operand_read_run(a, y, x, c0, n, out);
    for (i = 0; i < n && !err; i++) {
        int64_t v = out[i] - a->fm.zero_point;
        out[i] = v >= 0 ? em_scale_inline(s, v, a->scale, a->shift, a->round, &err)
                        : em_scale_inline(s, v, alpha_scale, alpha_shift, alpha_round, &err);
    }
    return err;
}

/* The operand value of every byte of an 8-bit map, once per operation (not for a failing
   scale: the element loop then meets the failure where the operation does, and the run's status
   is kept as it was). */
static void tabulate(em_state *s, operand *p) {
    const npu_model_status kept = *s->status;
    int v, err = 0;
    p->tabled = 0;
    if (p->scalar || p->fm.bytes != 1) return;
    for (v = 0; v < 256 && !err; v++) {
        int64_t raw = p->fm.is_signed ? (int64_t)(int8_t)v : (int64_t)v;
        p->table[v] = em_scale_inline(s, raw - p->fm.zero_point, p->scale, p->shift, p->round, &err);
    }
    if (err) *s->status = kept;
    else p->tabled = 1;
}

/* What a mode computes, by kind; 0: not modelled. */
enum { ARITHMETIC = 1, COMPARISON, BITWISE, SHIFT, DIVISION, LEADING_ZEROS, LEAKY };

static int mode_kind(unsigned mode) {
    switch (mode) {
    case EM85_ELEMENTWISE_MODE_ADD: case EM85_ELEMENTWISE_MODE_SUB: case EM85_ELEMENTWISE_MODE_MUL:
    case EM85_ELEMENTWISE_MODE_MIN: case EM85_ELEMENTWISE_MODE_MAX: case EM85_ELEMENTWISE_MODE_ABS:
        return ARITHMETIC;
    case EM85_ELEMENTWISE_MODE_CMP_EQ: case EM85_ELEMENTWISE_MODE_CMP_NE: case EM85_ELEMENTWISE_MODE_CMP_GE:
    case EM85_ELEMENTWISE_MODE_CMP_GT:
        return COMPARISON;
    case EM85_ELEMENTWISE_MODE_AND: case EM85_ELEMENTWISE_MODE_OR: case EM85_ELEMENTWISE_MODE_XOR:
    case EM85_ELEMENTWISE_MODE_NOT: case EM85_ELEMENTWISE_MODE_AND_NOT:
        return BITWISE;
    case EM85_ELEMENTWISE_MODE_SHL: case EM85_ELEMENTWISE_MODE_SHR: case EM85_ELEMENTWISE_MODE_LSR: return SHIFT;
    case EM85_ELEMENTWISE_MODE_DIV: return DIVISION;
    case EM85_ELEMENTWISE_MODE_CLZ: return LEADING_ZEROS;
    case EM85_ELEMENTWISE_MODE_LRELU: return LEAKY;
    default: return 0;
    }
}

static int unary(unsigned mode) {
    return mode == EM85_ELEMENTWISE_MODE_ABS || mode == EM85_ELEMENTWISE_MODE_NOT || mode == EM85_ELEMENTWISE_MODE_CLZ ||
           mode == EM85_ELEMENTWISE_MODE_LRELU;
}

static int64_t arithmetic(unsigned mode, int64_t a, int64_t b) {
    switch (mode) {
    case EM85_ELEMENTWISE_MODE_ADD: return a + b;
    case EM85_ELEMENTWISE_MODE_SUB: return a - b;
    case EM85_ELEMENTWISE_MODE_MUL: return a * b;
    case EM85_ELEMENTWISE_MODE_MIN: return a < b ? a : b;
    case EM85_ELEMENTWISE_MODE_ABS: return a < 0 ? -a : a;
    default: return a > b ? a : b;
    }
}

static int64_t comparison(unsigned mode, int64_t a, int64_t b) {
    int holds = mode == EM85_ELEMENTWISE_MODE_CMP_EQ   ? a == b
                : mode == EM85_ELEMENTWISE_MODE_CMP_NE ? a != b
                : mode == EM85_ELEMENTWISE_MODE_CMP_GE ? a >= b
                                                       : a > b;
    return holds ? -1 : 0; /* regor's internal bool: every bit set */
}

static int64_t bitwise(unsigned mode, int64_t a, int64_t b) {
    switch (mode) {
    case EM85_ELEMENTWISE_MODE_AND: return a & b;
    case EM85_ELEMENTWISE_MODE_OR: return a | b;
    case EM85_ELEMENTWISE_MODE_XOR: return a ^ b;
    case EM85_ELEMENTWISE_MODE_NOT: return ~a;
    default: return a & ~b; /* AND_NOT */
    }
}

/* SHL keeps the low 32 bits (TOSA LOGICAL_LEFT_SHIFT on int32, as em_elementwise.c); SHR shifts
   right arithmetically, rounded by the OFM round mode; LSR shifts the 32 bits right, zeros in
   (TOSA LOGICAL_RIGHT_SHIFT on int32). TOSA requires amounts in 0..31. */
static int64_t shift(em_state *s, unsigned mode, int64_t a, int64_t b, unsigned round, int *err) {
    if (b < 0 || b > 31) {
        *err = em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE shift amount %d outside 0..31 on Ethos-U85-%d",
                       (int)b, s->macs);
        return 0;
    }
    if (mode == EM85_ELEMENTWISE_MODE_SHL) return (int64_t)em_sext((uint32_t)((uint64_t)a << b), 32);
    if (mode == EM85_ELEMENTWISE_MODE_LSR) return (int64_t)(int32_t)((uint32_t)a >> b);
    return em_scale(s, a, 1, (int)b, round, err);
}

/* TOSA INTDIV: the quotient rounded toward zero (C's division); a zero divisor stops. */
static int64_t division(em_state *s, int64_t a, int64_t b, int *err) {
    if (b == 0) {
        *err = em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE DIV by zero on Ethos-U85-%d (not modelled)",
                       s->macs);
        return 0;
    }
    return a / b;
}

/* The accumulator value of one element (before OFM_SCALE). */
static int64_t element(em_state *s, unsigned mode, int64_t a, int64_t b, unsigned round, int *err) {
    switch (mode_kind(mode)) {
    case ARITHMETIC: return arithmetic(mode, a, b);
    case COMPARISON: return comparison(mode, a, b);
    case BITWISE: return bitwise(mode, a, b);
    case SHIFT: return shift(s, mode, a, b, round, err);
    case LEADING_ZEROS: return em_clz32((uint32_t)a);
    case LEAKY: return a; /* leaky_run scaled it already */
    default: return division(s, a, b, err);
    }
}

/* The modes that read a 32-bit IFM only (see the head of this file). */
static int needs_32bit_ifm(em_state *s, unsigned mode, const operand *a) {
    if ((mode != EM85_ELEMENTWISE_MODE_LSR && mode != EM85_ELEMENTWISE_MODE_CLZ) || a->scalar || a->fm.bytes == 4) return 0;
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE elementwise_mode %s with NPU_SET_IFM_PRECISION "
                   "activation_precision of %d bits on Ethos-U85-%d (not modelled: only 32-bit)",
                   mode == EM85_ELEMENTWISE_MODE_LSR ? "LSR" : "CLZ", 8 * a->fm.bytes, s->macs);
}

/* LRELU's alpha scale in IFM2_SCALE: the same refusal as an operand's scale (load_operand). */
static int alpha_scale(em_state *s, unsigned mode) {
    uint64_t word = EM85_R1(s, NPU_SET_IFM2_SCALE);
    if (mode != EM85_ELEMENTWISE_MODE_LRELU || EM85_F_NPU_SET_IFM_SCALE_DBL_RND(word) == 0) return 0;
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE LRELU NPU_SET_IFM2_SCALE dbl_rnd value %u on "
                   "Ethos-U85-%d (not modelled)", EM85_F_NPU_SET_IFM_SCALE_DBL_RND(word), s->macs);
}

#define ROW 256 /* elements computed per pass */
static int64_t g_a[ROW], g_b[ROW];

/* Channels c0.. (at most ROW) of OFM position (y, x); b NULL for a unary mode. */
static int row(em_state *s, unsigned mode, const em_out *o, const operand *a, const operand *b, const em85_acc *acc,
               int64_t scale, int shift_, int y, int x, int c0) {
    const int n = o->depth - c0 < ROW ? o->depth - c0 : ROW;
    int i, rc, err = 0;
    rc = mode == EM85_ELEMENTWISE_MODE_LRELU ? leaky_run(s, a, y, x, c0, n, g_a) : operand_run(s, a, y, x, c0, n, g_a);
    if (rc) return rc;
    if (b != NULL && (rc = operand_run(s, b, y, x, c0, n, g_b))) return rc;
    for (i = 0; i < n; i++) {
        int64_t v = element(s, mode, g_a[i], b != NULL ? g_b[i] : 0, o->round_mode, &err);
        if (err) return err;
        if ((v < -((int64_t)1 << (acc->bits - 1)) || v >= ((int64_t)1 << (acc->bits - 1))) &&
            (rc = em85_acc_check(s, "NPU_OP_ELEMENTWISE", v, acc->bits)))
            return rc;
        g_a[i] = em_scale_inline(s, v, scale, shift_, o->round_mode, &err);
        if (err) return err;
    }
    em_store_run(o, y, x, c0, n, g_a);
    return 0;
}

int em85_op_elementwise(em_state *s, unsigned mode) {
    em_out o;
    operand a, b;
    int64_t scale;
    em85_acc acc;
    int shift_, rc, y, x, c;
    const int binary = !unary(mode);
    if (!mode_kind(mode))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE elementwise_mode value %u on Ethos-U85-%d "
                       "(not modelled)", mode, s->macs);
    if ((rc = em85_accumulator(s, "NPU_OP_ELEMENTWISE", 0, &acc)) || (rc = em85_load_out(s, &o, 0)) ||
        (rc = load_operand(s, 0, EM85_R0(s, NPU_SET_IFM_BROADCAST), EM85_R1(s, NPU_SET_IFM_SCALE), &a)) ||
        (binary && (rc = load_operand(s, 1, EM85_R0(s, NPU_SET_IFM2_BROADCAST), EM85_R1(s, NPU_SET_IFM2_SCALE), &b))) ||
        (rc = em85_global_scale(s, "NPU_OP_ELEMENTWISE", &scale, &shift_)) || (rc = needs_32bit_ifm(s, mode, &a)) ||
        (rc = alpha_scale(s, mode)))
        return rc;
    tabulate(s, &a);
    if (binary) tabulate(s, &b);
    for (y = 0; y < o.height; y++)
        for (x = 0; x < o.width; x++)
            for (c = 0; c < o.depth; c += ROW)
                if ((rc = row(s, mode, &o, &a, binary ? &b : NULL, &acc, scale, shift_, y, x, c))) return rc;
    return 0;
}
