/* Ethos-U85 NPU_OP_RESIZE: NEAREST and BILINEAR, as regor's register generator programs them
   (ethos_u85_register_cs_generator.cpp GenerateResizeOp, lines 1878-1949) and as TOSA RESIZE
   defines the sampling. Feature maps and the output stage (OFM_SCALE, zero point, activation,
   saturation) are the shared ones; what regor never emits for a resize stops with one line.

   Registers, per axis (X: width, Y: height):
   - RESIZE_*_SCALE_N_M1: the scale numerator n - 1 (TOSA scale_n);
   - RESIZE_*_STEP (cmd1 NPU_SET_RESIZE_X/Y): one_step_int/mod = d / n, d % n (the
     denominator d, TOSA scale_d, is not written itself) and blk_step_int/mod =
     (block - 1) * d / n, % n for the OFM block (lines 1907-1917);
   - RESIZE_*_OFFSET: TOSA offset, signed 12 bits, -n <= offset < n (regor
     graphir_optimiser.cpp ConvertResizeOffsets slices the IFM for larger ones);
   - KERNEL_HEIGHT_M1/WIDTH_M1: the IFM rows/columns the resize reads (the IFM height; the
     width capped at the last column read + 1, lines 1900 and 1947-1948); edge samples clamp
     to them as TOSA clamps to the IFM.
   Output position o samples IFM position p = o * d + offset in units of 1/n: index
   floor(p / n), fraction p mod n. NEAREST takes the lower index when 2 * fraction < n, else the
   upper; BILINEAR weighs the four neighbours by (n - f) and f per axis, TOSA's integer
   accumulator (scaled by n_y * n_x). The hardware's value carries 16 more fraction bits:
   regor writes OFM_SCALE shift = 16 + the TOSA shift with scale 1 ("scaling is shift only and
   + 16", lines 1902-1904 and 1938), so the value below is TOSA's times 2^16.

   A bilinear RESIZE of int16 is int48 in TOSA (RESIZE out_t for in_t int16, BILINEAR): its
   RESCALE then follows as a separate command. regor keeps that result as a B64 OFM (int48
   tensors are int64, graphir_optimiser.cpp:71-90), written through the same output stage:
   OFM_SCALE shift 16 (no TOSA shift is folded into an int48 result) removes the 16 fraction bits
   exactly and there is no clamp (activation clip range NONE for a > 16-bit OFM,
   GenerateActivation:1011), so the map holds TOSA's int48 value; a NONE pool reads it back as
   its IFM2 accumulator and rescales it (em85_pool.c). Any other B64 RESIZE stops: NEAREST (TOSA
   keeps the input type) or an I32 accumulator (regor picks Acc48 for an OFM of more than 32
   bits, ethos_u85.cpp:938-943). */
#include "em_internal.h"

#define RESIZE_FRACTION_BITS 16
#define OFFSET_BITS 12

typedef struct resize_axis {
    int n, d, offset;
    int extent; /* IFM positions read: KERNEL_*_M1 + 1 */
} resize_axis;

typedef struct resize_step {
    unsigned one_int, one_mod, blk_int, blk_mod;
} resize_step;

#define RESIZE_STEP(AXIS, w)                                                                                       \
    {EM85_F_NPU_SET_RESIZE_##AXIS##_STEP_ONE_STEP_INT(w), EM85_F_NPU_SET_RESIZE_##AXIS##_STEP_ONE_STEP_MOD(w),     \
     EM85_F_NPU_SET_RESIZE_##AXIS##_STEP_BLK_STEP_INT(w), EM85_F_NPU_SET_RESIZE_##AXIS##_STEP_BLK_STEP_MOD(w)}
#define RESIZE_REG(AXIS, REG)                                                                                      \
    EM85_F_NPU_SET_RESIZE_##AXIS##_##REG##_RESIZE_##AXIS##_##REG(EM85_R0(s, NPU_SET_RESIZE_##AXIS##_##REG))
/* load_axis of axis X or Y from its registers (in a function with the state `s`) */
#define LOAD_AXIS(AXIS, step, extent, block, out)                                                                    \
    load_axis(s, #AXIS, RESIZE_REG(AXIS, SCALE_N_M1), step, RESIZE_REG(AXIS, OFFSET), extent, block, out)

/* One axis from its registers; `block` is the OFM block's extent on it (OFM_BLK_*_M1 + 1).
   regor gives the hardware the positions as steps, one per element and one per OFM block; the
   model samples o * d + offset directly, the same positions when the block step is the one
   regor derives from d and the block, so any other block step stops. */
static int load_axis(em_state *s, const char *axis, unsigned n_m1, resize_step step, unsigned offset, int extent,
                     int block, resize_axis *a) {
    int64_t span;
    a->n = (int)n_m1 + 1;
    a->d = (int)step.one_int * a->n + (int)step.one_mod;
    a->offset = em_sext(offset, OFFSET_BITS);
    a->extent = extent;
    span = (int64_t)(block - 1) * a->d;
    if (step.one_mod >= (unsigned)a->n || a->d == 0)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE NPU_SET_RESIZE_%s_STEP one_step_mod value %u with "
                       "scale n %d on Ethos-U85-%d (not modelled)", axis, step.one_mod, a->n, s->macs);
    if (step.blk_int != (unsigned)(span / a->n) || step.blk_mod != (unsigned)(span % a->n))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE NPU_SET_RESIZE_%s_STEP blk_step_int value %u "
                       "blk_step_mod value %u for an OFM block of %d on Ethos-U85-%d (not modelled)",
                       axis, step.blk_int, step.blk_mod, block, s->macs);
    if (a->offset < -a->n || a->offset >= a->n) /* regor asserts this range (lines 1924-1928) */
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE NPU_SET_RESIZE_%s_OFFSET value %d with scale n %d "
                       "on Ethos-U85-%d (not modelled)", axis, a->offset, a->n, s->macs);
    return 0;
}

static int clamp_index(const resize_axis *a, int64_t i) {
    return i < 0 ? 0 : (i >= a->extent ? a->extent - 1 : (int)i);
}

/* IFM indices (lower, upper, clamped to the extent) and fraction of output position o. */
static void sample(const resize_axis *a, int o, int *lower, int *upper, int *fraction) {
    int64_t p = (int64_t)o * a->d + a->offset;
    int64_t i = p >= 0 ? p / a->n : -((-p + a->n - 1) / a->n); /* floor */
    *fraction = (int)(p - i * a->n);
    *lower = clamp_index(a, i);
    *upper = clamp_index(a, i + 1);
}

typedef struct resize_op {
    unsigned mode;
    resize_axis x, y;
    em_fmap in;
    em_out o;
    int64_t scale;
    int shift;
} resize_op;

static int64_t ifm_at(const resize_op *r, int y, int x, int c) {
    return em_fm_read(&r->in, y, x, c) - r->in.zero_point;
}

/* TOSA RESIZE's integer result at (oy, ox, c): the nearest sample, or the bilinear sum. */
static int64_t resize_value(const resize_op *r, int oy, int ox, int c) {
    int y0, y1, fy, x0, x1, fx;
    sample(&r->y, oy, &y0, &y1, &fy);
    sample(&r->x, ox, &x0, &x1, &fx);
    if (r->mode == EM85_RESIZE_MODE_NEAREST)
        return ifm_at(r, 2 * fy >= r->y.n ? y1 : y0, 2 * fx >= r->x.n ? x1 : x0, c);
    return ifm_at(r, y0, x0, c) * (r->y.n - fy) * (r->x.n - fx) + ifm_at(r, y0, x1, c) * (r->y.n - fy) * fx +
           ifm_at(r, y1, x0, c) * fy * (r->x.n - fx) + ifm_at(r, y1, x1, c) * fy * fx;
}

/* What regor asserts or writes for every resize (GenerateResizeOp lines 1904-1938): global
   OFM scale 1, no IFM upscale, an untransposed OFM, OFM blocks one row high, IFM2 zero point
   0; and (TOSA RESIZE has no zero points) an IFM zero point of 0. */
static int check_fixed(em_state *s, const resize_op *r) {
    uint64_t prec = EM85_R0(s, NPU_SET_OFM_PRECISION);
    int ifm_depth = (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    const struct { int value, expected; const char *field; } fixed[] = {
        {(int)EM85_F_NPU_SET_IFM_UPSCALE_MODE(EM85_R0(s, NPU_SET_IFM_UPSCALE)), (int)EM85_IFM_UPSCALE_MODE_NONE,
         "NPU_SET_IFM_UPSCALE mode"},
        {(int)EM85_F_NPU_SET_OFM_PRECISION_ACTIVATION_TRANSPOSE(prec), (int)EM85_ACTIVATION_TRANSPOSE_HWC,
         "NPU_SET_OFM_PRECISION activation_transpose"},
        {(int)EM85_F_NPU_SET_OFM_BLK_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_BLK_HEIGHT_M1)), 0,
         "NPU_SET_OFM_BLK_HEIGHT_M1 height_m1"},
        {em_sext(EM85_F_NPU_SET_IFM2_ZERO_POINT_ZERO_POINT(EM85_R0(s, NPU_SET_IFM2_ZERO_POINT)), 16), 0,
         "NPU_SET_IFM2_ZERO_POINT zero_point"},
        {r->in.zero_point, 0, "NPU_SET_IFM_ZERO_POINT zero_point"},
        {ifm_depth - 1, r->o.depth - 1, "NPU_SET_IFM_DEPTH_M1 depth_m1"},
    };
    size_t i;
    if (r->scale != 1)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE NPU_SET_OFM_SCALE scale value %u on Ethos-U85-%d "
                       "(not modelled)", (unsigned)r->scale, s->macs);
    for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        if (fixed[i].value != fixed[i].expected)
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE %s value %d on Ethos-U85-%d (not modelled)",
                           fixed[i].field, fixed[i].value, s->macs);
    return 0;
}

static int load_resize(em_state *s, unsigned mode, resize_op *r) {
    resize_step step_x = RESIZE_STEP(X, EM85_R1(s, NPU_SET_RESIZE_X));
    resize_step step_y = RESIZE_STEP(Y, EM85_R1(s, NPU_SET_RESIZE_Y));
    int block_w = (int)EM85_F_NPU_SET_OFM_BLK_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_WIDTH_M1)) + 1;
    int extent_h = (int)EM85_F_NPU_SET_KERNEL_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_KERNEL_HEIGHT_M1)) + 1;
    int extent_w = (int)EM85_F_NPU_SET_KERNEL_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_KERNEL_WIDTH_M1)) + 1;
    em85_acc acc;
    int rc, b64 = mode == EM85_RESIZE_MODE_BILINEAR;
    r->mode = mode;
    if (mode != EM85_RESIZE_MODE_NEAREST && mode != EM85_RESIZE_MODE_BILINEAR)
        /* regor ToResizeMode maps only Bilinear and Nearest (REPLICATE is never emitted) */
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE resize_mode value %u on Ethos-U85-%d (not modelled)",
                       mode, s->macs);
    if ((rc = em85_accumulator(s, "NPU_OP_RESIZE", 0, &acc)) ||
        (rc = em85_global_scale(s, "NPU_OP_RESIZE", &r->scale, &r->shift)) || (rc = em_load_fmap(s, 0, &r->in)) ||
        (rc = em85_load_out(s, &r->o, b64)) || (rc = check_fixed(s, r)))
        return rc;
    if (r->o.fm.bytes == 8 && acc.bits != 48)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_RESIZE NPU_SET_ACC_FORMAT acc_format value %u with a B64 OFM "
                       "on Ethos-U85-%d (not modelled)",
                       EM85_F_NPU_SET_ACC_FORMAT_ACC_FORMAT(EM85_R0(s, NPU_SET_ACC_FORMAT)), s->macs);
    if ((rc = LOAD_AXIS(X, step_x, extent_w, block_w, &r->x))) return rc;
    return LOAD_AXIS(Y, step_y, extent_h, 1, &r->y);
}

int em85_op_resize(em_state *s, unsigned mode) {
    resize_op r;
    int rc, oy, ox, c;
    if ((rc = load_resize(s, mode, &r))) return rc;
    for (oy = 0; oy < r.o.height; oy++) {
        for (ox = 0; ox < r.o.width; ox++) {
            for (c = 0; c < r.o.depth; c++) {
                int err = 0;
                int64_t internal = resize_value(&r, oy, ox, c) * ((int64_t)1 << RESIZE_FRACTION_BITS);
                int64_t v = em_scale(s, internal, r.scale, r.shift, r.o.round_mode, &err);
                if (err) return err;
                em_store(&r.o, oy, ox, c, v);
            }
        }
    }
    return 0;
}
