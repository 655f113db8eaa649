/* The operation observer (npu_model_observe): after each NPU_OP_CONV/DEPTHWISE/POOL/
   ELEMENTWISE/RESIZE (RESIZE: U85 only; and, with index -1 and no feature maps, each
   NPU_OP_DMA_START) the callback sees
   the operation's index, command and feature maps as the operation really read and stored them;
   a non-zero return stops the stream there (NPU_MODEL_STOPPED).
   On the U85 that is not always what the registers say: a CHAINED OFM/IFM is a chain buffer
   inside the NPU (em_fmap.c load_chained; reported with its chain buffer and region -1); a
   transposed OFM is stored with its axes permuted through registers that describe the stored
   tensor (em85_output.c; reported with the stored shape and the permutation); and an operand
   the operation does not read (a scalar or a unary operation's IFM2, a NONE pool's dummy IFM)
   is not reported, a broadcast axis is read once (em85_observe.c). What differs between the
   layouts comes through the architecture's table (em_arch.h). */
#include <string.h>

#include "em_internal.h"

static npu_model_observer g_observer;
static void *g_observer_user;

void npu_model_observe(npu_model_observer observer, void *user) {
    g_observer = observer;
    g_observer_user = user;
}

void em_observe_reset(em_state *s) { s->operations = 0; }

static int permutation(const int axes[3]) {
    return axes[0] != axes[1] && axes[0] != axes[2] && axes[1] != axes[2] && axes[0] + axes[1] + axes[2] == 3;
}

/* The shape feature map `which` has as read or stored: the OFM's as stored (permuted by a
   transpose), an input's over tile 0 with the IFM depth. */
static void shape(em_state *s, int which, const em_fmap *f, npu_model_fmap *out) {
    int op[3], i;
    if (which != 2) {
        out->height = f->height0;
        out->width = f->width0;
        out->depth = s->ops->ifm_depth(s);
        return;
    }
    for (i = 0; i < 3; i++) op[i] = s->ops->ofm_dim(s, i);
    s->ops->ofm_axes(s, out->axes);
    out->height = op[out->axes[0]];
    out->width = op[out->axes[1]];
    out->depth = op[out->axes[2]];
}

/* Feature map `which` (0 IFM, 1 IFM2, 2 OFM) as the operation read or stored it, without failing
   the run (the operation has already run; an unreadable map is reported as region -1). */
static void describe(em_state *s, int which, npu_model_fmap *out) {
    em_fmap f;
    unsigned region = em_fmap_region(s, which);
    int fault = s->fault, chained;
    npu_model_status kept = *s->status; /* a map that does not load leaves the run's status */
    out->region = out->chain = -1;
    out->axes[0] = 0; out->axes[1] = 1; out->axes[2] = 2;
    /* a U85 B64 map is described too (no B64 exists on U55/U65: the call is em_load_fmap's there) */
    if (em85_load_fmap_b64(s, which, &f) != 0) {
        s->fault = fault;
        *s->status = kept;
        return;
    }
    chained = s->ops->chained(s, which);
    out->bytes = f.bytes;
    shape(s, which, &f, out);
    s->fault = fault;
    if (chained) {
        out->chain = (int)region;
        return;
    }
    if (region >= (unsigned)s->regions || f.lo != (const uint8_t *)(uintptr_t)s->base[region]) return;
    if (!permutation(out->axes)) return; /* none staged (an OFM not through em85_load_out): not described */
    out->region = (int)region;
    out->offset = (uint64_t)(f.tile[0] - f.lo);
    out->height0 = f.height0;
    out->width0 = f.width0;
    out->nhcwb16 = f.nhcwb16;
    out->stride_x = f.stride_x;
    out->stride_y = f.stride_y;
    out->stride_c = f.stride_c;
}

int em_observe_op(em_state *s, unsigned code, unsigned param, size_t word) {
    npu_model_operation op;
    int compute = s->ops->is_compute(code);
    if (!compute && code != s->ops->dma_start) return 0;
    if (compute) s->operations += 1;
    if (g_observer == NULL) return 0;
    memset(&op, 0, sizeof(op));
    op.index = compute ? s->operations - 1 : -1; /* a DMA: no feature maps, index -1 */
    em_observe_unread(&op.ofm);
    em_observe_unread(&op.ifm);
    em_observe_unread(&op.ifm2);
    op.code = code;
    op.word = (uint32_t)word;
    op.name = em_opname(s->arch, 0, code);
    if (!compute) return g_observer(&op, g_observer_user) == 0 ? 0 : em_fail(s, NPU_MODEL_STOPPED, "stopped by the observer after a DMA");
    describe(s, 2, &op.ofm);
    describe(s, 0, &op.ifm);
    if (s->ops->describes_ifm2(code)) describe(s, 1, &op.ifm2);
    s->ops->reads(s, code, param, &op); /* em85_observe.c, em55_arch.c */
    if (g_observer(&op, g_observer_user) == 0) return 0;
    return em_fail(s, NPU_MODEL_STOPPED, "stopped by the observer after operation %d", op.index);
}
