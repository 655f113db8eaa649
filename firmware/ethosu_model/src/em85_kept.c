/* Ethos-U85: the accumulator kept between commands. regor keeps it where it splits one
   operation into several commands that add into the same accumulators: a kernel stride above 3
   (scheduler_decompose.cpp:716-840 DecomposeForStrides: one 1x1 command per kernel tap, acc_input
   KEEP after the first, acc_output DISABLE before the last), weights that are not constant
   (:960-1060, a NONE pool preloads the bias from IFM2, then one MatMul per tap) and a MatMul
   over IFM depth slices (:2290-2320).

   What the NPU keeps is one OFM block's accumulators, by their place in the block: regor cuts
   the last two into one-block commands "to ensure that the accumulators are not overwritten"
   by the next block (:2270-2276, :996-1050), and a command's OFM starts at its own OFM_BASE, so
   nothing in the registers places it in a larger tensor. The model keeps them by OFM element
   of a one-block command (the bias and scale of the per-channel records are applied once, by
   the command whose output is enabled); a keeping command of several blocks, or a KEEP whose
   OFM differs from what was kept, stops. Vela 5.1.0 emits the latter for Wav2Letter's
   stride-160 waveform stem on U85-128: the weight-buffering depth slices of the scheduler
   (scheduler.cpp:1579-1630, no exception for a kept accumulator) cut a tap's 250 channels into
   128 + 122, each slice a command of its own whose channels sit in the same places of the
   block, so the next KEEP over all 250 reads 128 channels no command accumulated there: the
   NPU's result is undefined, not a value to model. */
#include "em_internal.h"

static int one_block(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth) {
    int bh = (int)EM85_F_NPU_SET_OFM_BLK_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_BLK_HEIGHT_M1)) + 1;
    int bw = (int)EM85_F_NPU_SET_OFM_BLK_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_WIDTH_M1)) + 1;
    int bd = (int)EM85_F_NPU_SET_OFM_BLK_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_DEPTH_M1)) + 1;
    if ((!acc->keep && acc->output) || (height <= bh && width <= bw && depth <= bd)) return 0;
    return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT %s with an OFM of %dx%dx%d in OFM blocks of "
                   "%dx%dx%d on Ethos-U85-%d (not modelled: the NPU keeps one block)", command,
                   acc->keep ? "acc_input KEEP" : "acc_output DISABLE", height, width, depth, bh, bw, bd, s->macs);
}

int em85_kept_begin(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth) {
    const em85_kept *k = &s->kept;
    int rc = one_block(s, command, acc, height, width, depth);
    if (rc) return rc;
    if (acc->keep && (k->height != height || k->width != width || k->depth != depth))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_input KEEP with an OFM of %dx%dx%d after "
                       "a kept accumulator of %dx%dx%d on Ethos-U85-%d (undefined: the NPU keeps one OFM block by "
                       "place)", command, height, width, depth, k->height, k->width, k->depth, s->macs);
    if (!acc->output && (size_t)height * (size_t)width * (size_t)depth > ETHOSU_MODEL_ACC_CAPACITY)
        return em_fail(s, ETHOSU_MODEL_CAPACITY, "%s keeps %u accumulators, more than ETHOSU_MODEL_ACC_CAPACITY %u",
                       command, (unsigned)((size_t)height * (size_t)width * (size_t)depth),
                       (unsigned)ETHOSU_MODEL_ACC_CAPACITY);
    if (!acc->output) {
        s->kept.height = height;
        s->kept.width = width;
        s->kept.depth = depth;
    }
    return 0;
}

void em85_kept_end(em_state *s, const em85_acc *acc) {
    if (acc->output) s->kept.height = s->kept.width = s->kept.depth = 0;
}
