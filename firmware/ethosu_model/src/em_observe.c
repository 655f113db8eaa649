/* The operation observer (ethosu_model_observe): after each NPU_OP_CONV/DEPTHWISE/POOL/
   ELEMENTWISE the registered callback sees the operation's index, command and OFM as its
   registers describe it; a non-zero return stops the stream there (ETHOSU_MODEL_STOPPED). */
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
               code == EM85_CMD0_NPU_OP_ELEMENTWISE;
    return code == EM_CMD0_NPU_OP_CONV || code == EM_CMD0_NPU_OP_DEPTHWISE || code == EM_CMD0_NPU_OP_POOL ||
           code == EM_CMD0_NPU_OP_ELEMENTWISE;
}

static void describe_ofm(em_state *s, ethosu_model_operation *op) {
    em_fmap f;
    unsigned region = em_fmap_region(s, 2);
    int fault = s->fault;
    op->region = -1; /* chained (U85) or unreadable: not in a region */
    if (em_load_fmap(s, 2, &f) != 0 || region >= (unsigned)s->regions || f.lo != (const uint8_t *)(uintptr_t)s->base[region]) {
        s->fault = fault;
        return;
    }
    op->region = (int)region;
    op->offset = (uint64_t)(f.tile[0] - f.lo);
    op->height0 = f.height0;
    op->width0 = f.width0;
    op->bytes = f.bytes;
    op->nhcwb16 = f.nhcwb16;
    op->stride_x = f.stride_x;
    op->stride_y = f.stride_y;
    op->stride_c = f.stride_c;
    if (s->arch == 85) {
        op->height = (int)EM85_F_NPU_SET_OFM_HEIGHT_M1_HEIGHT_M1(EM85_R0(s, NPU_SET_OFM_HEIGHT_M1)) + 1;
        op->width = (int)EM85_F_NPU_SET_OFM_WIDTH_M1_WIDTH_M1(EM85_R0(s, NPU_SET_OFM_WIDTH_M1)) + 1;
        op->depth = (int)EM85_F_NPU_SET_OFM_DEPTH_M1_DEPTH_M1(EM85_R0(s, NPU_SET_OFM_DEPTH_M1)) + 1;
    } else {
        op->height = (int)EM_P0(s, NPU_SET_OFM_HEIGHT_M1) + 1;
        op->width = (int)EM_P0(s, NPU_SET_OFM_WIDTH_M1) + 1;
        op->depth = (int)EM_P0(s, NPU_SET_OFM_DEPTH_M1) + 1;
    }
    s->fault = fault;
}

int em_observe_op(em_state *s, unsigned code, size_t word) {
    ethosu_model_operation op;
    if (!is_compute(s->arch, code)) return 0;
    s->operations += 1;
    if (g_observer == NULL) return 0;
    memset(&op, 0, sizeof(op));
    op.index = s->operations - 1;
    op.code = code;
    op.word = (uint32_t)word;
    op.name = em_opname(s->arch, 0, code);
    describe_ofm(s, &op);
    if (g_observer(&op, g_observer_user) == 0) return 0;
    return em_fail(s, ETHOSU_MODEL_STOPPED, "stopped by the observer after operation %d", op.index);
}
