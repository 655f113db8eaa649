/* Ethos-U85 NPU_OP_CONV with weights_ifm2: a MatMul against the IFM2 feature map. */
#include "em_internal.h"

/* NPU_OP_CONV with weights_ifm2 (regor ethos_u85_register_cs_generator.cpp
   GenerateConvolutionOp: "Dynamic weights", a MatMul): a 1x1 convolution whose weights are the
   IFM2 feature map, output channel n taking IFM2 column n (its channels are the IFM's), global
   OFM scaling. OFM[y][x][n] = OFM_SCALE(sum_k (IFM[y][x][k] - zp) * (IFM2[0][n][k] - zp2)).
   regor constrains a MatMul's batch to 1 (ethos_u85_constraints.cpp:712-724), so the OFM has
   one row. */
int em85_op_matmul(em_state *s) {
    em_out o;
    em_fmap a, b;
    em_geom g;
    int64_t scale;
    int depth = (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    em85_acc acc_format;
    int rc, shift, x, n, k;
    if ((rc = em85_accumulator(s, "NPU_OP_CONV", 0, &acc_format)) || (rc = em85_load_out(s, &o, 0)) ||
        (rc = em_load_fmap(s, 0, &a)) || (rc = em_load_fmap(s, 1, &b)) || (rc = em85_load_geom(s, &o, &g)) ||
        (rc = em85_global_scale(s, "NPU_OP_CONV weights_ifm2", &scale, &shift)))
        return rc;
    if (o.height != 1 || g.kh_dil != 1 || g.kw_dil != 1 || g.stride_x != 1 || g.stride_y != 1)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_CONV weights_ifm2 with OFM height %d or a kernel other "
                       "than 1x1 on Ethos-U85-%d (not modelled)", o.height, s->macs);
    for (x = 0; x < o.width; x++) {
        for (n = 0; n < o.depth; n++) {
            int64_t acc = 0, v;
            int err = 0;
            for (k = 0; k < depth; k++)
                acc += (em_fm_read(&a, 0, x, k) - a.zero_point) * (em_fm_read(&b, 0, n, k) - b.zero_point);
            if ((rc = em85_acc_check(s, "NPU_OP_CONV weights_ifm2", acc, acc_format.bits))) return rc;
            v = em_scale(s, acc, scale, shift, o.round_mode, &err);
            if (err) return err;
            em_store(&o, 0, x, n, v);
        }
    }
    return 0;
}
