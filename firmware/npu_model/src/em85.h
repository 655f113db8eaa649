/* Ethos-U85 only: its operations, register loaders, accumulator (kept and checked) and output
   stage. */
#ifndef EM85_H
#define EM85_H

#include "em_output.h"
#include "em_weights.h"

/* Ethos-U85 (em85_*.c): the operations of a U85 stream (em85_ops.c dispatches); the register
   loaders they share (em85_registers.c: ACC_FORMAT, kernel, CONV registers, scale records); the
   output stage of its registers (em85_output.c). */
int em85_run_operation(em_state *s, unsigned code, unsigned param);
int em85_op_elementwise(em_state *s, unsigned mode);
int em85_op_pool(em_state *s, unsigned mode);
int em85_op_argmax(em_state *s, unsigned mode); /* em85_argmax.c: ARGMAX_X */
/* NPU_OP_RESIZE (em85_resize.c): NEAREST or BILINEAR `mode`. */
int em85_op_resize(em_state *s, unsigned mode);
int em85_dma_start(em_state *s);
/* NPU_OP_BRANCH (em85_branch.c): em85_cond_after records, after cmd0 operation `code`, the
   COND_STATUS result flag it leaves; em85_run_cmd1_operation runs a branch (em_arch.h). */
int em85_cond_after(em_state *s, unsigned code);
int em85_run_cmd1_operation(em_state *s, unsigned code, uint64_t value, size_t word, size_t count, size_t *next);
/* ACC_FORMAT of the current command. */
typedef struct em85_acc {
    int bits;      /* acc_format: 32 or 48 */
    int from_ifm2; /* acc_input IFM2: the accumulator loaded from the IFM2 feature map */
    int keep;      /* acc_input KEEP: it starts from the accumulator the previous command kept */
    int output;    /* acc_output ENABLE (1): the OFM is written; DISABLE (0): the accumulator is kept */
} em85_acc;
#define EM85_ACC_IFM2 1u /* the caller models acc_input IFM2 */
#define EM85_ACC_KEEP 2u /* the caller models acc_input KEEP and acc_output DISABLE */
/* The registers of a U85 CONV/DEPTHWISE (em_arch.h em_conv_regs): output stage, IFM, geometry,
   IFM depth, the kernel and the weight streams (all channels: the caller decodes them, in blocks
   where they exceed the buffer), the scale records into s. */
struct em_conv_regs;
int em85_load_conv(em_state *s, int depthwise, struct em_conv_regs *c);
/* The Acc32/Acc48 scale records of `depth` channels at SCALE_BASE into s->bias/mult/shift. */
int em85_load_scales(em_state *s, int depth, int acc_bits);
/* NPU_OP_CONV with weights_ifm2: a MatMul against the IFM2 feature map. */
int em85_op_matmul(em_state *s);
/* Kernel, stride, dilation, padding and upscale registers of the current U85 command. */
int em85_load_geom(em_state *s, const em_out *o, em_geom *g);
/* Decodes ACC_FORMAT into `acc`; refuses, naming `command`, what `allowed` does not include. */
int em85_accumulator(em_state *s, const char *command, unsigned allowed, em85_acc *acc);
/* The kept accumulator (em85_kept.c). em85_kept_begin checks that an operation with an OFM of
   height x width x depth may take (acc->keep: the kept one has that shape) and keep (fits
   NPU_MODEL_ACC_CAPACITY) its accumulator, and takes that shape for what it keeps;
   em85_kept_end, after an operation whose output is enabled, records that nothing is kept. */
int em85_kept_begin(em_state *s, const char *command, const em85_acc *acc, int height, int width, int depth);
void em85_kept_end(em_state *s, const em85_acc *acc);
static inline int64_t *em85_kept_at(em_state *s, int y, int x, int c) {
    return &s->kept_acc[((size_t)y * (size_t)s->kept.width + (size_t)x) * (size_t)s->kept.depth + (size_t)c];
}
/* The OFM registers of a U85 operation into `o`; `b64` when the operation models a B64 OFM (the
   raw accumulator, em85_load_conv; a bilinear resize's int48 result, em85_op_resize), else a B64 OFM is refused naming the command. */
int em85_load_out(em_state *s, em_out *o, int b64);
/* Only the OFM height, width and depth into `o` (a command that keeps its accumulator: acc_output
   DISABLE, OFM activation_storage NONE, nothing stored). */
void em85_ofm_shape(em_state *s, em_out *o);
/* After a U85 operation: a staged transposed OFM to its stored layout. */
void em85_store_transposed(em_state *s);
/* OFM_SCALE of a globally scaled U85 command (refuses per-channel OFM_PRECISION). */
int em85_global_scale(em_state *s, const char *command, int64_t *scale, int *shift);
/* 0 when `value` fits a `bits`-bit accumulator, else a one-line refusal. */
int em85_acc_check(em_state *s, const char *command, int64_t value, int bits);
/* The model's round mode of a U85 round_mode_ofm value, or 0xff when it has none. */
unsigned em85_round_mode(unsigned ofm_mode);

#endif
