/* Ethos-U85 NPU_OP_ELEMENTWISE: each operand scaled by its own register (IFM_SCALE, IFM2_SCALE:
   scale, shift, IFM round mode), the operation in the accumulator, then OFM_SCALE (regor
   ethos_u85_register_cs_generator.cpp GenerateScalingForElementwise). Broadcasts: H, W, C and
   SCALAR (the operand is NPU_SET_OP_SCALAR) on either input (GenerateInputBroadcast). */
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
} operand;

static unsigned ifm_round(unsigned field) {
    return field == EM85_ROUND_MODE_IFM_NATURAL ? EM_ROUNDING_NATURAL : EM_ROUNDING_TFL; /* DOUBLE_SYMMETRIC */
}

static int load_operand(em_state *s, int which, uint64_t broadcast, uint64_t scale_word, operand *p) {
    unsigned mode = EM85_F_NPU_SET_IFM_BROADCAST_BROADCAST_MODE(broadcast); /* IFM2's has the same layout */
    memset(p, 0, sizeof(*p));
    if (EM85_F_NPU_SET_IFM_SCALE_DBL_RND(scale_word) != 0)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_%s_SCALE dbl_rnd value %u on Ethos-U85 (regor sets it only "
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
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_SET_%s_BROADCAST broadcast_mode value %u", em_fmap_name(s, which),
                       mode);
    p->bh = (mode & EM85_BROADCAST_MODE_H) != 0;
    p->bw = (mode & EM85_BROADCAST_MODE_W) != 0;
    p->bc = (mode & EM85_BROADCAST_MODE_C) != 0;
    return em_load_fmap(s, which, &p->fm);
}

/* The operand at (y, x, c) with its zero point removed and its scale applied. */
static int64_t operand_value(em_state *s, const operand *p, int y, int x, int c, int *err) {
    int64_t v = p->scalar ? p->scalar_value : em_fm_read(&p->fm, p->bh ? 0 : y, p->bw ? 0 : x, p->bc ? 0 : c);
    return em_scale(s, v - p->fm.zero_point, p->scale, p->shift, p->round, err);
}

static int binary(unsigned mode) {
    return mode == EM85_ELEMENTWISE_MODE_ADD || mode == EM85_ELEMENTWISE_MODE_SUB ||
           mode == EM85_ELEMENTWISE_MODE_MUL || mode == EM85_ELEMENTWISE_MODE_MIN || mode == EM85_ELEMENTWISE_MODE_MAX;
}

/* The unary modes modelled: ABS (IFM scaled, then |.|, then OFM_SCALE: regor
   GenerateScalingForElementwise scales a unary op's one input like a binary op's). */
static int unary(unsigned mode) { return mode == EM85_ELEMENTWISE_MODE_ABS; }

static int64_t combine(unsigned mode, int64_t a, int64_t b) {
    switch (mode) {
    case EM85_ELEMENTWISE_MODE_ADD: return a + b;
    case EM85_ELEMENTWISE_MODE_SUB: return a - b;
    case EM85_ELEMENTWISE_MODE_MUL: return a * b;
    case EM85_ELEMENTWISE_MODE_MIN: return a < b ? a : b;
    case EM85_ELEMENTWISE_MODE_ABS: return a < 0 ? -a : a;
    default: return a > b ? a : b;
    }
}

int em85_op_elementwise(em_state *s, unsigned mode) {
    em_out o;
    operand a, b;
    int64_t scale;
    int shift, acc_bits, from_ifm2, rc, y, x, c;
    if (!binary(mode) && !unary(mode))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_ELEMENTWISE elementwise_mode value %u on Ethos-U85-%d "
                       "(not modelled)", mode, s->macs);
    if ((rc = em85_accumulator(s, "NPU_OP_ELEMENTWISE", 0, &acc_bits, &from_ifm2)) || (rc = em85_load_out(s, &o, 0)) ||
        (rc = load_operand(s, 0, EM85_R0(s, NPU_SET_IFM_BROADCAST), EM85_R1(s, NPU_SET_IFM_SCALE), &a)) ||
        (binary(mode) &&
         (rc = load_operand(s, 1, EM85_R0(s, NPU_SET_IFM2_BROADCAST), EM85_R1(s, NPU_SET_IFM2_SCALE), &b))) ||
        (rc = em85_global_scale(s, "NPU_OP_ELEMENTWISE", &scale, &shift)))
        return rc;
    for (y = 0; y < o.height; y++) {
        for (x = 0; x < o.width; x++) {
            for (c = 0; c < o.depth; c++) {
                int err = 0;
                int64_t va = operand_value(s, &a, y, x, c, &err), v;
                int64_t vb = binary(mode) ? operand_value(s, &b, y, x, c, &err) : 0;
                if (err) return err;
                v = combine(mode, va, vb);
                if ((rc = em85_acc_check(s, "NPU_OP_ELEMENTWISE", v, acc_bits))) return rc;
                v = em_scale(s, v, scale, shift, o.round_mode, &err);
                if (err) return err;
                em_store(&o, y, x, c, v);
            }
        }
    }
    return 0;
}
