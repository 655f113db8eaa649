/* Ethos-U85 NPU_OP_POOL ARGMAX_X: the index of the largest value along the kernel's width.
   What regor writes it for (the pinned Vela's ethosu/regor):
   - ExecuTorch lowers torch.argmax (an integer input, the index narrowed to int32) to TOSA ARGMAX;
     graphir_optimiser.cpp RewriteArgmax keeps it native on the U85, reshaped to a 3-D tensor
     around the reduced axis so that the axis is W, with a kernel as wide as that axis, 1 high,
     stride 1, no padding, and an OFM one element wide (ReshapeTo3DAroundAxis, SetKernel);
   - GetPoolingMode writes ARGMAX_X for that W axis (ARGMAX_Y only for an H axis, which the
     rewrite never leaves: the model refuses it, see npu_coverage_status.toml);
   - GenerateOFMScalingForPooling writes OFM_SCALE 1, shift 16 ("Argmax requires custom scaling
     to separate values and indices"); the OFM has unit quantization, zero point 0
     (tflite_graph_optimiser.cpp "ArgMax has to have unit quantization"), rounding
     TRUNCATE_TO_LOWER.
   The index it must produce is TOSA ARGMAX's: the first position of the largest value. The model
   computes that index and stops on any register value that departs from the configuration
   above, since how the NPU packs values and indices in its accumulator is nowhere in regor. */
#include "em_internal.h"

static int check_argmax(em_state *s, const em_out *o, const em_geom *g, int64_t scale, int shift) {
    if (scale != 1 || shift != 16 || o->fm.zero_point != 0)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL ARGMAX_X with OFM_SCALE %u shift %d, OFM zero point %d "
                       "on Ethos-U85-%d (regor writes scale 1, shift 16, zero point 0)",
                       (unsigned)scale, shift, (int)o->fm.zero_point, s->macs);
    if (g->kh != 1 || g->stride_x != 1 || g->dil_x != 1 || g->dil_y != 1 || g->upscale != EM_RESAMPLING_MODE_NONE ||
        g->pad_top || g->pad_left || g->pad_bottom || g->pad_right)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL ARGMAX_X with a %dx%d kernel, stride %d, dilation "
                       "or padding on Ethos-U85-%d (regor writes a 1-high unpadded kernel, stride 1)",
                       g->kh, g->kw, g->stride_x, s->macs);
    return 0;
}

/* The first kernel column holding the largest value of row (oy, ox, c)'s window. */
static int64_t first_largest(const em_fmap *in, const em_geom *g, int oy, int ox, int c) {
    int iy = em_tap_row(g, oy, 0), kx, best = 0;
    int64_t largest = em_fm_read(in, iy, em_tap_col(g, ox, 0), c);
    for (kx = 1; kx < g->kw; kx++) {
        int64_t v = em_fm_read(in, iy, em_tap_col(g, ox, kx), c);
        if (v > largest) {
            largest = v;
            best = kx;
        }
    }
    return best;
}

int em85_op_argmax(em_state *s, unsigned mode) {
    em_out o;
    em_fmap in;
    em_geom g;
    em85_acc acc;
    int64_t scale = 1;
    int rc, oy, ox, c, shift = 0;
    if (mode != EM85_POOLING_MODE_ARGMAX_X)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_POOL pooling_mode value %u on Ethos-U85-%d (not modelled)",
                       mode, s->macs);
    if ((rc = em85_accumulator(s, "NPU_OP_POOL", 0u, &acc)) || (rc = em85_global_scale(s, "NPU_OP_POOL", &scale, &shift)) ||
        (rc = em85_load_out(s, &o, 0)) || (rc = em85_load_geom(s, &o, &g)) || (rc = check_argmax(s, &o, &g, scale, shift)) ||
        (rc = em_load_fmap(s, 0, &in)) || (rc = em_ifm_readable(s, "NPU_OP_POOL", &in, &g)))
        return rc;
    for (oy = 0; oy < o.height; oy++)
        for (ox = 0; ox < o.width; ox++)
            for (c = 0; c < o.depth; c++) em_store(&o, oy, ox, c, first_largest(&in, &g, oy, ox, c));
    return 0;
}
