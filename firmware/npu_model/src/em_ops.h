/* The operations of a U55/U65 stream and what they share: dot products, the dense operand
   buffer, the fused 8-bit MUL. */
#ifndef EM_OPS_H
#define EM_OPS_H

#include "em_output.h"

/* Dot products (em_dot.c): row `a` with `count` (at most EM_DOT_ROWS) rows of `n` int16 each,
   consecutive from `rows`, each added to its sums[r]; partial sums are int32 over `chunk`
   products, which the caller sizes so that they cannot overflow. */
#define EM_DOT_ROWS 4
void em_dot16(const int16_t *a, const int16_t *rows, int n, int count, int chunk, int64_t *sums);

/* The int16 buffer of one command's dense operand (em_conv.c: the decoded weights; a U85 MatMul's
   IFM2), NPU_MODEL_WEIGHT_CAPACITY elements, valid until the next operation. */
int16_t *em_dense_buffer(void);
/* The largest |value - zero point| an 8-bit feature map holds; 0 for wider maps. */
int32_t em_max_abs_input(const em_fmap *in);

/* The fused 8-bit MUL (em_mul8.c): what it needs of an elementwise command's registers. */
typedef struct em_mul8 {
    int unit_scale;         /* OFM_SCALE 1, shift 0 */
    int scalar, bh, bw;     /* IFM2 broadcast: a scalar, or its height/width */
    int32_t scalar_value;
} em_mul8;
/* 1 when the fused path computes this MUL exactly (8-bit NHWC operands, small zero points, an
   NHWC OFM of at most 4 bytes, unit scale, no LUT). */
int em_mul8_applies(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o);
/* Every channel of OFM position (y, x); 0 (nothing written) when a run leaves its region. */
int em_mul8_position(const em_mul8 *m, const em_fmap *a, const em_fmap *b, const em_out *o, int y, int x);

/* Operations (em_conv.c, em_pool.c, em_elementwise.c). */
int em_op_conv(em_state *s, int depthwise);
int em_op_pool(em_state *s, unsigned mode);
int em_op_elementwise(em_state *s, unsigned mode);
/* 1 for a U55/U65 elementwise mode of one operand (ABS, LRELU, CLZ): IFM2 is not read. */
int em_elementwise_unary(unsigned mode);

#endif
