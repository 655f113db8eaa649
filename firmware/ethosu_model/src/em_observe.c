/* The operation observer (ethosu_model_observe): after each NPU_OP_CONV/DEPTHWISE/POOL/
   ELEMENTWISE/RESIZE (RESIZE: U85 only; and, with index -1 and no feature maps, each NPU_OP_DMA_START) the callback sees the operation's index, command and feature maps as
   its registers describe them; a non-zero return stops the stream there (ETHOSU_MODEL_STOPPED). */
#include <string.h>

#include "em_internal.h"

static ethosu_model_observer g_observer;
static void *g_observer_user;

void ethosu_model_observe(ethosu_model_observer observer, void *user) {
    g_observer = observer;
    g_observer_user = user;
}

void em_observe_reset(em_state *s) { s->operations = 0; }

static int is_compute(int arch, unsigned code) {
    if (arch == 85)
        return code == EM85_CMD0_NPU_OP_CONV || code == EM85_CMD0_NPU_OP_DEPTHWISE || code == EM85_CMD0_NPU_OP_POOL ||
               code == EM85_CMD0_NPU_OP_ELEMENTWISE || code == EM85_CMD0_NPU_OP_RESIZE;
    return code == EM_CMD0_NPU_OP_CONV || code == EM_CMD0_NPU_OP_DEPTHWISE || code == EM_CMD0_NPU_OP_POOL ||
           code == EM_CMD0_NPU_OP_ELEMENTWISE;
}

static int ofm_dim(em_state *s, int axis) {
    if (s->arch == 85) {
        if (axis == 0) return (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_HEIGHT_M1)) + 1;
        if (axis == 1) return (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_WIDTH_M1)) + 1;
        return (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_DEPTH_M1)) + 1;
    }
    if (axis == 0) return (int)EM_P0(s, NPU_SET_OFM_HEIGHT_M1) + 1;
    if (axis == 1) return (int)EM_P0(s, NPU_SET_OFM_WIDTH_M1) + 1;
    return (int)EM_P0(s, NPU_SET_OFM_DEPTH_M1) + 1;
}

static int ifm_depth(em_state *s) {
    if (s->arch == 85) return (int)EM85_F_NPU_SET_IFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_IFM_DEPTH_M1)) + 1;
    return (int)EM_P0(s, NPU_SET_IFM_DEPTH_M1) + 1;
}

/* Feature map `which` (0 IFM, 1 IFM2, 2 OFM) as the registers describe it, without failing
   the run (the operation has already run; an unreadable map is reported as region -1). */
static void describe(em_state *s, int which, ethosu_model_fmap *out) {
    em_fmap f;
    unsigned region = em_fmap_region(s, which);
    int fault = s->fault;
    out->region = -1;
    /* a U85 B64 map is described too (no B64 exists on U55/U65: the call is em_load_fmap's there) */
    if (em85_load_fmap_b64(s, which, &f) != 0 || region >= (unsigned)s->regions ||
        f.lo != (const uint8_t *)(uintptr_t)s->base[region]) {
        s->fault = fault;
        return;
    }
    out->region = (int)region;
    out->offset = (uint64_t)(f.tile[0] - f.lo);
    out->height0 = f.height0;
    out->width0 = f.width0;
    out->bytes = f.bytes;
    out->nhcwb16 = f.nhcwb16;
    out->stride_x = f.stride_x;
    out->stride_y = f.stride_y;
    out->stride_c = f.stride_c;
    if (which == 2) {
        out->height = ofm_dim(s, 0);
        out->width = ofm_dim(s, 1);
        out->depth = ofm_dim(s, 2);
    } else {
        out->height = f.height0;
        out->width = f.width0;
        out->depth = ifm_depth(s);
    }
    s->fault = fault;
}

static int is_dma(int arch, unsigned code) {
    return code == (arch == 85 ? EM85_CMD0_NPU_OP_DMA_START : EM_CMD0_NPU_OP_DMA_START);
}

int em_observe_op(em_state *s, unsigned code, size_t word) {
    ethosu_model_operation op;
    int compute = is_compute(s->arch, code);
    if (!compute && !is_dma(s->arch, code)) return 0;
    if (compute) s->operations += 1;
    if (g_observer == NULL) return 0;
    memset(&op, 0, sizeof(op));
    op.index = compute ? s->operations - 1 : -1; /* a DMA: no feature maps, index -1 */
    op.ofm.region = op.ifm.region = op.ifm2.region = -1;
    op.code = code;
    op.word = (uint32_t)word;
    op.name = em_opname(s->arch, 0, code);
    if (!compute) return g_observer(&op, g_observer_user) == 0 ? 0 : em_fail(s, ETHOSU_MODEL_STOPPED, "stopped by the observer after a DMA");
    describe(s, 2, &op.ofm);
    describe(s, 0, &op.ifm);
    op.ifm2.region = -1;
    if (code == (s->arch == 85 ? EM85_CMD0_NPU_OP_ELEMENTWISE : EM_CMD0_NPU_OP_ELEMENTWISE)) describe(s, 1, &op.ifm2);
    if (g_observer(&op, g_observer_user) == 0) return 0;
    return em_fail(s, ETHOSU_MODEL_STOPPED, "stopped by the observer after operation %d", op.index);
}
