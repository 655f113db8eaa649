/* NPU_OP_POOL: max, average, reduce-sum. */
#include <string.h>

#include "em_internal.h"

/* --- POOL --- */

int em_op_pool(em_state *s, unsigned mode) {
    em_out o;
    em_fmap in;
    em_geom g;
    int rc, oy, ox, ky, kx, c;
    int64_t scale = (int64_t)EM_D1(s, NPU_SET_OFM_SCALE); /* unsigned: 1x1 average = 2^31 + 1 */
    int shift = (int)EM_F_NPU_SET_OFM_SCALE_SHIFT(EM_R1(s, NPU_SET_OFM_SCALE));
    int per_ch = em_per_channel(s);
    int ifm_depth = (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1;
    if ((rc = em_load_out(s, &o)) || (rc = em_load_fmap(s, 0, &in)) || (rc = em_load_geom(s, &o, &g))) return rc;
    if (mode == EM_POOLING_MODE_REDUCE_SUM && o.depth != 1)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL REDUCE_SUM with OFM depth %d (not 1)", o.depth);
    if (mode > EM_POOLING_MODE_REDUCE_SUM) return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL mode %u", mode);
    if (mode == EM_POOLING_MODE_AVERAGE && g.pad_top + g.pad_left + g.pad_bottom + g.pad_right > 0)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL AVERAGE with padding (hardware-scaled average)");
    if (g.dil_x != 1 || g.dil_y != 1) return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL with dilation");
    if (g.upscale != EM_RESAMPLING_MODE_NONE)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "NPU_OP_POOL with NPU_SET_IFM_UPSCALE mode %u", (unsigned)g.upscale);
    if (per_ch && (rc = em_load_scales(s, o.depth))) return rc;
    for (oy = 0; oy < o.height; oy++) {
        for (ox = 0; ox < o.width; ox++) {
            for (c = 0; c < o.depth; c++) {
                int64_t acc = mode == EM_POOLING_MODE_MAX ? INT64_MIN : 0, v;
                int err = 0;
                for (ky = 0; ky < g.kh; ky++) {
                    int iy = oy * g.stride_y - g.pad_top + ky;
                    if (iy < 0 || iy >= g.ifm_h) continue;
                    for (kx = 0; kx < g.kw; kx++) {
                        int ix = ox * g.stride_x - g.pad_left + kx;
                        int64_t x;
                        if (ix < 0 || ix >= g.ifm_w) continue;
                        if (mode == EM_POOLING_MODE_REDUCE_SUM) {
                            /* sums the IFM channels into one (OFM depth 1) */
                            int ch;
                            for (ch = 0, x = 0; ch < ifm_depth; ch++)
                                x += (int64_t)em_fm_read(&in, iy, ix, ch) - in.zero_point;
                        } else {
                            x = (int64_t)em_fm_read(&in, iy, ix, c) - in.zero_point;
                        }
                        if (mode == EM_POOLING_MODE_MAX) acc = x > acc ? x : acc;
                        else acc += x;
                    }
                }
                if (per_ch) v = em_scale(s, acc + s->bias[c], s->mult[c], s->shift[c], o.round_mode, &err);
                else v = em_scale(s, acc, scale, shift, o.round_mode, &err);
                if (err) return err;
                em_store(&o, oy, ox, c, v);
            }
        }
    }
    return 0;
}

