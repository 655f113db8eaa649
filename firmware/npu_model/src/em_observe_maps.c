/* What an operation reads of a feature map, for the observer (em_observe.c) and each
   architecture's account of its operations (em55_arch.c, em85_observe.c). */
#include <string.h>

#include "em_internal.h"

static int smaller(int a, int b) { return a < b ? a : b; }

void em_observe_unread(npu_model_fmap *f) {
    memset(f, 0, sizeof(*f));
    f->region = f->chain = -1;
    f->axes[1] = 1; f->axes[2] = 2;
}

void em_observe_over(npu_model_fmap *f, int height, int width, int depth) {
    f->height = f->height0 > 0 ? smaller(height, f->height0) : height;
    f->width = f->width0 > 0 ? smaller(width, f->width0) : width;
    f->depth = depth;
}

/* An elementwise operand read over the OFM's shape, once along each broadcast axis, not at all
   when it is the scalar. */
void em_observe_broadcast(const em_state *s, npu_model_fmap *f, int scalar, int bh, int bw, int bd) {
    if (scalar) {
        em_observe_unread(f);
        return;
    }
    em_observe_over(f, bh ? 1 : s->ops->ofm_dim(s, 0), bw ? 1 : s->ops->ofm_dim(s, 1),
                    bd ? 1 : s->ops->ofm_dim(s, 2));
}
