/* Ethos-U85: the accumulator kept between commands. regor keeps it where it splits one
   operation into several commands that add into the same accumulators: a kernel stride above 3
   (scheduler_decompose.cpp:716-840 DecomposeForStrides: one 1x1 command per kernel tap, acc_input
   KEEP after the first, acc_output DISABLE before the last), weights that are not constant
   (:960-1060, a NONE pool preloads the bias from IFM2, then one MatMul per tap) and a MatMul
   over IFM depth slices (:2290-2320).

   What the NPU keeps is one OFM block's accumulators, by their place in the block. Regor cuts
   an operation into OFM blocks before it cuts the stride into taps ("a block shape ... that
   will fit in accumulator RAM", :586-613, DecomposeBlocks :616-712), and cuts a MatMul into
   one-block commands "to ensure that the accumulators are not overwritten" by its next block
   (:2269-2276). No U85 register places a command's block in a larger kept set: the U85 has no
   NPU_SET_AB_START (ethos_u85_interface.hpp; U55 only, ethos_u55_register_cs_generator.cpp:
   1197) and ACC_FORMAT holds the op's mode alone (ethos_u85_register_cs_generator.cpp:
   1506-1572). Nor is it the OFM address: the NONE pool that preloads the bias writes its OFM
   at the tensor's start (scheduler_decompose.cpp:1003) for every block, while the MatMuls that
   KEEP it sit at their block's offset (:1048); Vela lists such a chain as a pool at one
   OFM_BASE kept by MatMuls at others. The model keeps them by OFM element of a one-block
   command (the bias and scale of the per-channel records are applied once, by the command
   whose output is enabled); a keeping command of several blocks, or a KEEP whose OFM differs
   from what was kept, stops.

   Vela 5.1.0 and 5.2.0 (same regor code, line numbers of 5.1.0) emit the latter for
   Wav2Letter's stride-160 waveform stem on U85-128 in the default memory mode
   (Dedicated_Sram_384KB): the weight-buffering depth slices (scheduler.cpp:1579-1630, no
   exception for a kept accumulator; ProposeMinimalSchedule :1823-1827 keeps only the stripe
   height of such a chain whole) cut some taps' 250 channels into 128 + 122, and every slice is
   a command with the op's own ACC_FORMAT (high_level_command_stream_generator.cpp:885-899).
   Vela's listing of the first tap: CONV OFM_BASE 0x170 1x2x128 RESET DISABLE, then CONV
   OFM_BASE 0x270 1x2x122 RESET DISABLE, then CONV OFM_BASE 0x170 1x2x250 KEEP DISABLE, all in
   one 1x2x256 OFM block. The 122-channel slice resets and fills places 0-121, where the first
   slice kept channels 0-121; the KEEP over 250 then adds to channels 128-249 of the tap at
   places 0-121 and to nothing of the chain at places 128-249. The NPU's result is undefined,
   not a value to model. With the weights in SRAM (Sram_Only) Vela buffers none, each tap is
   one 1x2x250 command, and the model is exact on the stem and on the whole Wav2Letter. */
#include "em_internal.h"

static int one_block(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth) {
    int bh = (int)EM85_F_NPU_SET_OFM_BLK_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_BLK_HEIGHT_M1)) + 1;
    int bw = (int)EM85_F_NPU_SET_OFM_BLK_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_WIDTH_M1)) + 1;
    int bd = (int)EM85_F_NPU_SET_OFM_BLK_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_BLK_DEPTH_M1)) + 1;
    if ((!acc->keep && acc->output) || (height <= bh && width <= bw && depth <= bd)) return 0;
    return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT %s with an OFM of %dx%dx%d in OFM blocks of "
                   "%dx%dx%d on Ethos-U85-%d (not modelled: the NPU keeps one block)", command,
                   acc->keep ? "acc_input KEEP" : "acc_output DISABLE", height, width, depth, bh, bw, bd, s->macs);
}

int em85_kept_begin(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth) {
    const em85_kept *k = &s->kept;
    int rc = one_block(s, command, acc, height, width, depth);
    if (rc) return rc;
    if (acc->keep && (k->height != height || k->width != width || k->depth != depth))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_input KEEP with an OFM of %dx%dx%d after "
                       "a kept accumulator of %dx%dx%d on Ethos-U85-%d (undefined: the NPU keeps one OFM block by "
                       "place)", command, height, width, depth, k->height, k->width, k->depth, s->macs);
    if (!acc->output && (size_t)height * (size_t)width * (size_t)depth > NPU_MODEL_ACC_CAPACITY)
        return em_fail(s, NPU_MODEL_CAPACITY, "%s keeps %u accumulators, more than NPU_MODEL_ACC_CAPACITY %u",
                       command, (unsigned)((size_t)height * (size_t)width * (size_t)depth),
                       (unsigned)NPU_MODEL_ACC_CAPACITY);
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
