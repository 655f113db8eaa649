/* NPU_OP_CONV and NPU_OP_DEPTHWISE (fully connected is a 1x1 CONV). */
#include <string.h>

#include "em_internal.h"

static int16_t g_weights[ETHOSU_MODEL_WEIGHT_CAPACITY];
static int64_t g_acc[ETHOSU_MODEL_MAX_DEPTH];
static int32_t g_col[ETHOSU_MODEL_MAX_DEPTH];
static int16_t g_col16[ETHOSU_MODEL_MAX_DEPTH]; /* 8-bit IFM minus zero point fits 16 bits */

/* --- CONV / DEPTHWISE --- */

int em_op_conv(em_state *s, int depthwise) {
    em_out o;
    em_fmap in;
    em_geom g;
    em_kernel k;
    int rc, oy, ox, ky, kx, c, i;
    int ifm_depth = (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1;
    const char *name = depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV";
    if ((rc = em_load_out(s, &o)) || (rc = em_load_fmap(s, 0, &in)) || (rc = em_load_geom(s, &o, &g))) return rc;
    if (!em_per_channel(s))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s with global OFM scaling", name);
    if (ifm_depth > (int)ETHOSU_MODEL_MAX_DEPTH)
        return em_fail(s, ETHOSU_MODEL_CAPACITY, "IFM depth %d exceeds ETHOSU_MODEL_MAX_DEPTH", ifm_depth);
    if (in.bytes == 4) return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s with a 32-bit IFM", name);
    k.kh = g.kh; k.kw = g.kw; k.dil_x = g.dil_x; k.dil_y = g.dil_y;
    k.ofm_depth = o.depth; k.ifm_depth = ifm_depth; k.depthwise = depthwise; k.part_kernel = g.part_kernel;
    k.ifm_bits = in.bytes * 8;
    k.ofm_block_depth = (int)EM_P0(s, NPU_SET_OFM_BLK_DEPTH_M1) + 1;
    if ((rc = em_decode_weights(s, &k, g_weights)) || (rc = em_load_scales(s, o.depth))) return rc;
    for (oy = 0; oy < o.height; oy++) {
        for (ox = 0; ox < o.width; ox++) {
            for (c = 0; c < o.depth; c++) g_acc[c] = s->bias[c];
            for (ky = 0; ky < g.kh; ky++) {
                int iy = oy * g.stride_y - g.pad_top + ky * g.dil_y;
                if (iy < 0 || iy >= g.ifm_h) continue;
                if (g.upscale == EM_RESAMPLING_MODE_TRANSPOSE) {
                    /* zero insertion: IFM row i sits at upscaled row 2i (measured) */
                    if (iy & 1) continue;
                    iy >>= 1;
                }
                for (kx = 0; kx < g.kw; kx++) {
                    int ix = ox * g.stride_x - g.pad_left + kx * g.dil_x;
                    int depth = depthwise ? o.depth : ifm_depth;
                    if (ix < 0 || ix >= g.ifm_w) continue;
                    if (g.upscale == EM_RESAMPLING_MODE_TRANSPOSE) {
                        if (ix & 1) continue;
                        ix >>= 1;
                    }
                    for (i = 0; i < depth; i++) g_col[i] = em_fm_read(&in, iy, ix, i) - in.zero_point;
                    if (in.bytes == 1)
                        for (i = 0; i < depth; i++) g_col16[i] = (int16_t)g_col[i];
                    if (depthwise) {
                        for (c = 0; c < o.depth; c++)
                            g_acc[c] += (int64_t)g_col[c] * g_weights[((size_t)c * g.kh + ky) * g.kw + kx];
                    } else {
                        for (c = 0; c < o.depth; c++) {
                            const int16_t *w = g_weights + (((size_t)c * g.kh + ky) * g.kw + kx) * ifm_depth;
                            int64_t sum = 0;
                            if (in.bytes == 1) {
                                int32_t s32 = 0; /* int16 x int16 products: vectorises well */
                                for (i = 0; i < ifm_depth; i++) s32 += (int32_t)g_col16[i] * w[i];
                                sum = s32;
                            } else {
                                for (i = 0; i < ifm_depth; i++) sum += (int64_t)g_col[i] * w[i];
                            }
                            g_acc[c] += sum;
                        }
                    }
                }
            }
            for (c = 0; c < o.depth; c++) {
                int err = 0;
                int64_t v = em_scale(s, g_acc[c], s->mult[c], s->shift[c], o.round_mode, &err);
                if (err) return err;
                em_store(&o, oy, ox, c, v);
            }
        }
    }
    return 0;
}

