/* Ethos-U85: the operations of a U85 command stream. What is not modelled stops with one line
   naming the command, the field, its value and the target. */
#include "em_internal.h"

#define R0(s, op) ((s)->reg0[(EM85_CMD0_##op) & 0x1ffu])

/* ACC_FORMAT: the accumulator a command uses (em85_accumulator checks what is modelled). */
int em85_accumulator(em_state *s, const char *command, int *bits) {
    uint64_t acc = R0(s, NPU_SET_ACC_FORMAT);
    unsigned input = EM85_F_NPU_SET_ACC_FORMAT_ACC_INPUT(acc), output = EM85_F_NPU_SET_ACC_FORMAT_ACC_OUTPUT(acc);
    unsigned format = EM85_F_NPU_SET_ACC_FORMAT_ACC_FORMAT(acc);
    if (input != EM85_ACC_INPUT_RESET)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_input value %u on Ethos-U85-%d (not modelled)",
                       command, input, s->macs);
    if (output != EM85_ACC_OUTPUT_ENABLE)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_output value %u on Ethos-U85-%d (not modelled)",
                       command, output, s->macs);
    if (format != EM85_ACC_FORMAT_I32 && format != EM85_ACC_FORMAT_I48)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "%s NPU_SET_ACC_FORMAT acc_format value %u", command, format);
    *bits = format == EM85_ACC_FORMAT_I32 ? 32 : 48;
    return 0;
}

int em85_run_operation(em_state *s, unsigned code, unsigned param) {
    int rc;
    switch (code) {
    case EM85_CMD0_NPU_OP_STOP: return 0;
    case EM85_CMD0_NPU_OP_IRQ:
    case EM85_CMD0_NPU_OP_DMA_WAIT:
    case EM85_CMD0_NPU_OP_KERNEL_WAIT:
    case EM85_CMD0_NPU_OP_PMU_MASK: return 0; /* ordering/timing only: the model is sequential */
    case EM85_CMD0_NPU_OP_ELEMENTWISE:
        rc = em85_op_elementwise(s, EM85_F_NPU_OP_ELEMENTWISE_ELEMENTWISE_MODE((uint64_t)param << 16));
        return rc;
    default:
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "command %s (%x) on Ethos-U85-%d (not modelled)",
                       em_opname(85, 0, code), code, s->macs);
    }
}
