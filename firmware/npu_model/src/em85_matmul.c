/* Ethos-U85 NPU_OP_CONV with weights_ifm2: a MatMul against the IFM2 feature map.
 *
 * With 8-bit operands whose values minus their zero points fit int16 (every int8 MatMul), IFM2's
 * columns are gathered once into the dense int16 buffer and each IFM row once into an int16 row,
 * so an output element is one int16 dot product (int32 partial sums over chunks that cannot
 * overflow, as em_conv.c's patch path); other operands take the element-wise direct path. Both
 * compute the same int64 accumulator. */
#include "em_internal.h"

#define INT32_LIMIT 2147483647

static int16_t g_row[NPU_MODEL_MAX_DEPTH];
static int64_t g_values[NPU_MODEL_MAX_DEPTH];

typedef struct matmul {
    em_state *s;
    em_out o;
    em_fmap a, b;
    int64_t scale;
    int shift, depth, acc_bits;
    int chunk; /* products an int32 partial sum can take without overflow (dense path) */
} matmul;

/* The OFM element from its accumulator; 0 or an error code. */
static int finish(matmul *m, int64_t acc, int64_t *value) {
    int err = 0, rc = em85_acc_check(m->s, "NPU_OP_CONV weights_ifm2", acc, m->acc_bits);
    if (rc) return rc;
    *value = em_scale_inline(m->s, acc, m->scale, m->shift, m->o.round_mode, &err);
    return err;
}

static int direct(matmul *m) {
    int x, n, k, rc;
    for (x = 0; x < m->o.width; x++) {
        for (n = 0; n < m->o.depth; n++) {
            int64_t acc = 0, v;
            for (k = 0; k < m->depth; k++)
                acc += (em_fm_read(&m->a, 0, x, k) - m->a.zero_point) * (em_fm_read(&m->b, 0, n, k) - m->b.zero_point);
            if ((rc = finish(m, acc, &v))) return rc;
            em_store(&m->o, 0, x, n, v);
        }
    }
    return 0;
}

/* 1 when the dense path applies (sets m->chunk). */
static int dense_fits(matmul *m) {
    int64_t max_a = em_max_abs_input(&m->a), max_b = em_max_abs_input(&m->b), product = max_a * max_b;
    if (max_a == 0 || max_b == 0 || max_a > 32767 || max_b > 32767) return 0;
    if (m->depth > (int)NPU_MODEL_MAX_DEPTH || m->o.depth > (int)NPU_MODEL_MAX_DEPTH) return 0;
    if ((uint64_t)m->o.depth * (uint64_t)m->depth > NPU_MODEL_WEIGHT_CAPACITY) return 0;
    m->chunk = (int)(INT32_LIMIT / product);
    return m->chunk >= 1;
}

/* Row (0, x) of `f` over the MatMul depth, zero point removed, into int16 `to`. */
static void gather(const matmul *m, const em_fmap *f, int x, int16_t *to) {
    int k;
    em_fm_read_run(f, 0, x, 0, m->depth, g_values);
    for (k = 0; k < m->depth; k++) to[k] = (int16_t)(g_values[k] - f->zero_point);
}

static int dense(matmul *m) {
    int16_t *cols = em_dense_buffer();
    const int width = m->o.width, columns = m->o.depth, n = m->depth;
    int x, c, i, rc;
    for (c = 0; c < columns; c++) gather(m, &m->b, c, cols + (size_t)c * n);
    for (x = 0; x < width; x++) {
        int64_t sums[EM_DOT_ROWS];
        gather(m, &m->a, x, g_row);
        for (c = 0; c < columns;) {
            int count = columns - c >= EM_DOT_ROWS ? EM_DOT_ROWS : 1;
            for (i = 0; i < count; i++) sums[i] = 0;
            em_dot16(g_row, cols + (size_t)c * n, n, count, m->chunk, sums);
            for (i = 0; i < count; i++, c++)
                if ((rc = finish(m, sums[i], &g_values[c]))) return rc;
        }
        em_store_run(&m->o, 0, x, 0, columns, g_values);
    }
    return 0;
}

/* NPU_OP_CONV with weights_ifm2 (regor ethos_u85_register_cs_generator.cpp
   GenerateConvolutionOp: "Dynamic weights", a MatMul): a 1x1 convolution whose weights are the
   IFM2 feature map, output channel n taking IFM2 column n (its channels are the IFM's), global
   OFM scaling. OFM[y][x][n] = OFM_SCALE(sum_k (IFM[y][x][k] - zp) * (IFM2[0][n][k] - zp2)).
   regor constrains a MatMul's batch to 1 (ethos_u85_constraints.cpp:712-724), so the OFM has
   one row. */
int em85_op_matmul(em_state *s) {
    matmul m;
    em_geom g;
    em85_acc acc_format;
    int rc;
    m.s = s;
    m.depth = (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    if ((rc = em85_accumulator(s, "NPU_OP_CONV", 0, &acc_format)) || (rc = em85_load_out(s, &m.o, 0)) ||
        (rc = em_load_fmap(s, 0, &m.a)) || (rc = em_load_fmap(s, 1, &m.b)) || (rc = em85_load_geom(s, &m.o, &g)) ||
        (rc = em85_global_scale(s, "NPU_OP_CONV weights_ifm2", &m.scale, &m.shift)))
        return rc;
    if (m.o.height != 1 || g.kh_dil != 1 || g.kw_dil != 1 || g.stride_x != 1 || g.stride_y != 1)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_CONV weights_ifm2 with OFM height %d or a kernel other "
                       "than 1x1 on Ethos-U85-%d (not modelled)", m.o.height, s->macs);
    m.acc_bits = acc_format.bits;
    return dense_fits(&m) ? dense(&m) : direct(&m);
}
