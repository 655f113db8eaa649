/* Ethos-U85: NPU_OP_BRANCH and the condition it tests.

   What the sources define (Vela 5.1.0 regor and the ethos-u-core-driver's ethosu85_interface.h):
   - branch_cond ALWAYS (0) jumps; RF_TRUE (1) jumps when COND_STATUS result_flag is 1 and
     otherwise goes on with the next command: regor writes an IF as "RF_TRUE to THEN; ALWAYS to
     ELSE" (ethos_u85_register_cs_generator.cpp:2190-2208, GenerateBranch; layout in
     high_level_command_stream_generator.cpp:385-444).
   - branch_target is "Branch target in bytes" (driver ethosu85_interface.h npu_op_branch_t),
     from the start of the command stream: regor writes 4 * the target command's word position
     in the stream it emits (ethos_u85_register_cs_generator.cpp:2276-2285).
   - result_flag: "The tensor result flag. For OFM with a single element, this is bit 0 of the
     value. Otherwise UNPREDICTABLE" (driver ethosu85_interface.h cond_status_r); regor makes the
     IF's condition the OFM of an operation so that it is written (graphir_optimiser.cpp:2765-2767,
     FixupControlFlow) and waits for all operations before a branch (cpp:2252-2257).
   Not defined there: whether a DMA changes the flag, so a branch on RF_TRUE after a DMA that
   followed the condition's operation stops, as does one whose flag is UNPREDICTABLE. */
#include "em_internal.h"

/* A bound on the branches one invoke takes: a WHILE_LOOP's iterations, not a stream that loops. */
#define EM85_MAX_BRANCHES 1000000u

int em85_cond_after(em_state *s, unsigned code) {
    em_fmap ofm;
    int rc;
    if (code == EM85_CMD0_NPU_OP_DMA_START) { s->cond.after_dma = 1; return 0; }
    if (!s->ops->is_compute(code)) return 0;
    s->cond.code = code;
    s->cond.after_dma = 0;
    s->cond.flag = -1;
    s->cond.elements = em85_ofm_dim(s, 0) * em85_ofm_dim(s, 1) * em85_ofm_dim(s, 2);
    if (s->cond.elements != 1) return 0;
    if (s->kept.height != 0) { /* acc_output DISABLE: the accumulator is kept, no OFM is written */
        s->cond.elements = 0;
        return 0;
    }
    if ((rc = em85_load_fmap_b64(s, 2, &ofm))) return rc;
    s->cond.flag = (int)(em_fm_read(&ofm, 0, 0, 0) & 1);
    return 0;
}

/* RF_TRUE's answer: 0 or 1, or -1 with the stop recorded. */
static int result_flag(em_state *s, size_t word) {
    if (s->cond.code == 0)
        return -em_fail(s, NPU_MODEL_UNSUPPORTED,
                        "NPU_OP_BRANCH branch_cond RF_TRUE at word %u: no operation wrote COND_STATUS before it",
                        (unsigned)word);
    if (s->cond.after_dma)
        return -em_fail(s, NPU_MODEL_UNSUPPORTED,
                        "NPU_OP_BRANCH branch_cond RF_TRUE at word %u follows a DMA (whether a DMA writes COND_STATUS "
                        "is not defined; not modelled)", (unsigned)word);
    if (s->cond.flag < 0)
        return -em_fail(s, NPU_MODEL_UNSUPPORTED,
                        "NPU_OP_BRANCH branch_cond RF_TRUE at word %u: its condition, the OFM of %s, has %d elements, "
                        "which leaves COND_STATUS UNPREDICTABLE (one element defines it)",
                        (unsigned)word, em_opname(85, 0, s->cond.code), s->cond.elements);
    return s->cond.flag;
}

int em85_run_cmd1_operation(em_state *s, unsigned code, uint64_t value, size_t word, size_t count, size_t *next) {
    uint32_t target = EM85_F_NPU_OP_BRANCH_BRANCH_TARGET(value);
    int taken = 1;
    if (code != EM85_CMD1_NPU_OP_BRANCH)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "command %s at word %u on Ethos-U85 (not modelled)",
                       em_opname(85, 1, code), (unsigned)word);
    if (EM85_F_NPU_OP_BRANCH_BRANCH_COND(value) == EM85_BRANCH_COND_RF_TRUE && (taken = result_flag(s, word)) < 0)
        return -taken;
    if (!taken) {
        *next = word + 2;
        return 0;
    }
    if (target % 4u != 0 || target / 4u >= count)
        return em_fail(s, NPU_MODEL_BAD_PAYLOAD, "NPU_OP_BRANCH at word %u targets byte %u, not a command of the %u-word stream",
                       (unsigned)word, (unsigned)target, (unsigned)count);
    if (++s->cond.branches > EM85_MAX_BRANCHES)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU_OP_BRANCH at word %u: more than %u branches taken in one invoke",
                       (unsigned)word, EM85_MAX_BRANCHES);
    *next = target / 4u;
    return 0;
}
