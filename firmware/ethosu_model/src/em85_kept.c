/* Ethos-U85: the accumulator kept between commands. regor keeps it where it splits one
   operation into several commands that add into the same accumulators: a kernel stride above 3
   (scheduler_decompose.cpp:716-840 DecomposeForStrides: one 1x1 command per kernel tap, acc_input
   KEEP after the first, acc_output DISABLE before the last), weights that are not constant
   (:960-1060, a NONE pool preloads the bias from IFM2, then one MatMul per tap) and a MatMul
   over IFM depth slices (:2290-2320). Each such command's OFM is one block (the scheduler does
   not stripe them, scheduler.cpp:1823-1827), so the kept accumulator is indexed by the OFM
   element; the bias and scale of the per-channel records are applied once, by the command
   whose output is enabled. */
#include "em_internal.h"

int em85_kept_begin(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth) {
    const em85_kept *k = &s->kept;
    if (acc->keep && (k->height != height || k->width != width || k->depth != depth))
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_input KEEP with an OFM of %dx%dx%d after "
                       "a kept accumulator of %dx%dx%d on Ethos-U85-%d (not modelled)", command, height, width, depth,
                       k->height, k->width, k->depth, s->macs);
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
