/* What differs between the register layouts: one table per layout (U55/U65: em55_arch.c; U85:
   em85_arch.c), picked once per invoke (em_arch.c) and kept in em_state.ops. The shared em_*.c
   files call through it and hold no branch on the architecture. */
#ifndef EM_ARCH_H
#define EM_ARCH_H

#include "em_ops.h"
#include "em85.h"

/* The registers of one feature map (IFM, IFM2, OFM) in one layout: em_fmap.c loads any of them. */
typedef struct fmap_regs {
    const char *name;
    unsigned precision, region, zero_point;   /* cmd0 */
    unsigned height0, height1, width0;        /* cmd0, value - 1 */
    unsigned base[4], stride[3];              /* cmd1: BASE0..3, STRIDE_X/Y/C */
    int signed_xy;                            /* X/Y strides are signed (the OFM's may be negative) */
    /* bytes and signedness the precision register names, -1 when not modelled */
    int (*element)(uint64_t word, int *bytes, int *is_signed);
    unsigned (*precision_field)(uint64_t word);
    unsigned (*format_field)(uint64_t word);
    unsigned nhwc, nhcwb16;                   /* the format field's values */
    /* U85: the storage field and its value for a feature map in memory; NULL on U55/U65 */
    unsigned (*storage_field)(uint64_t word);
    unsigned in_memory;
} fmap_regs;

#define EM_FMAP_ROW(PFX, NAME, SIGNED_XY, ELEMENT, PREC, FORMAT, NHWC, NHCWB16, STORAGE, IN_MEMORY)                  \
    {#NAME, PFX##_CMD0_NPU_SET_##NAME##_PRECISION, PFX##_CMD0_NPU_SET_##NAME##_REGION,                                 \
     PFX##_CMD0_NPU_SET_##NAME##_ZERO_POINT, PFX##_CMD0_NPU_SET_##NAME##_HEIGHT0_M1,                                   \
     PFX##_CMD0_NPU_SET_##NAME##_HEIGHT1_M1, PFX##_CMD0_NPU_SET_##NAME##_WIDTH0_M1,                                    \
     {PFX##_CMD1_NPU_SET_##NAME##_BASE0, PFX##_CMD1_NPU_SET_##NAME##_BASE1, PFX##_CMD1_NPU_SET_##NAME##_BASE2,         \
      PFX##_CMD1_NPU_SET_##NAME##_BASE3},                                                                            \
     {PFX##_CMD1_NPU_SET_##NAME##_STRIDE_X, PFX##_CMD1_NPU_SET_##NAME##_STRIDE_Y, PFX##_CMD1_NPU_SET_##NAME##_STRIDE_C}, \
     SIGNED_XY, ELEMENT, PREC, FORMAT, NHWC, NHCWB16, STORAGE, IN_MEMORY}

/* fmap_storage's answer for a feature map in its region: em_fmap.c loads it from there. */
#define EM_FMAP_IN_MEMORY (-1)

/* The registers of a CONV/DEPTHWISE: output stage, IFM, geometry, IFM depth, the kernel and the
   weight streams into the caller's structures, the scale records into s. */
typedef struct em_conv_regs {
    em_out *o;
    em_fmap *in;
    em_geom *g;
    em_kernel *k;
    em_weight_streams *w;
    int ifm_depth;
    em85_acc acc; /* U85: ACC_FORMAT; elsewhere output 1, bits 0 (the accumulator is int64) */
} em_conv_regs;

typedef struct em_arch {
    int arch; /* 55 (U55 and U65 share the layout) or 85 */
    /* the register file (em_regfile.c): which commands exist and their names */
    const em_opname_entry *commands;
    size_t command_count;
    /* feature maps (em_fmap.c): IFM, IFM2, OFM rows; the region field of a REGION word; the
       refusal of a precision `element` does not model; a map not in memory (U85 chained, B64
       checks): EM_FMAP_IN_MEMORY, or 0 with `f` loaded, or an error */
    const fmap_regs *fmaps;
    unsigned (*fmap_region)(uint64_t word);
    int (*refuse_element)(em_state *s, const fmap_regs *r, unsigned precision);
    int (*fmap_storage)(em_state *s, int which, const fmap_regs *r, uint64_t prec, uint32_t zp, int b64, em_fmap *f);
    /* the stream (em_stream.c): one cmd0 operation; one cmd1 operation (`value`: word | data
       << 32) at word `word` of a stream of `count` words, which sets the next word to run */
    int (*run_operation)(em_state *s, unsigned code, unsigned param);
    int (*run_cmd1_operation)(em_state *s, unsigned code, uint64_t value, size_t word, size_t count, size_t *next);
    /* CONV/DEPTHWISE (em_conv.c): the registers before the job's shared checks, the weights and
       scales after them, the decode of a block of channels, and the end of the operation */
    int (*conv_registers)(em_state *s, int depthwise, em_conv_regs *c);
    int (*conv_weights)(em_state *s, int depthwise, em_conv_regs *c);
    int (*decode_weights)(em_state *s, const em_kernel *k, const em_weight_streams *w, int16_t *dense);
    void (*conv_done)(em_state *s, const em85_acc *acc);
    /* the observer (em_observe.c): which commands are operations, the DMA's opcode, the OFM's
       dimensions (0 H, 1 W, 2 C) and IFM depth as registered, the op's axis each stored OFM
       axis holds, whether a map is a chain buffer, whether IFM2 is described, and what the
       operation reads of its inputs */
    int (*is_compute)(unsigned code);
    unsigned dma_start;
    int (*ofm_dim)(const em_state *s, int axis);
    int (*ifm_depth)(const em_state *s);
    void (*ofm_axes)(const em_state *s, int axes[3]);
    int (*chained)(const em_state *s, int which);
    int (*describes_ifm2)(unsigned code);
    void (*reads)(em_state *s, unsigned code, unsigned param, npu_model_operation *op);
} em_arch;

extern const em_arch em55_arch;
extern const em_arch em85_arch;
/* The table of the NPU `arch` (55, 65 or 85; em_arch_known says which the model runs). */
const em_arch *em_arch_for(int arch);
int em_arch_known(int arch);

/* What an operation reads, for the observers (em_observe_maps.c): nothing; over an h x w x d
   shape, within the map's tile 0 where it has one; over the OFM's shape, once along a broadcast
   axis, not at all when it is the scalar. */
void em_observe_unread(npu_model_fmap *f);
void em_observe_over(npu_model_fmap *f, int height, int width, int depth);
void em_observe_broadcast(const em_state *s, npu_model_fmap *f, int scalar, int bh, int bw, int bd);

/* U85 (em85_fmap.c, em85_arch.c, em85_observe.c): the hooks of its table. */
extern const fmap_regs em85_fmaps[3];
int em85_refuse_element(em_state *s, const fmap_regs *r, unsigned precision);
int em85_fmap_storage(em_state *s, int which, const fmap_regs *r, uint64_t prec, uint32_t zp, int b64, em_fmap *f);
int em85_ofm_dim(const em_state *s, int axis);
int em85_ifm_depth(const em_state *s);
void em85_ofm_axes(const em_state *s, int axes[3]);
int em85_chained(const em_state *s, int which);
void em85_reads(em_state *s, unsigned code, unsigned param, npu_model_operation *op);
/* U55/U65 (em55_fmap.c): the feature-map hooks of its table. */
extern const fmap_regs em55_fmaps[3];
unsigned em55_fmap_region(uint64_t word);
int em55_refuse_element(em_state *s, const fmap_regs *r, unsigned precision);
int em55_fmap_storage(em_state *s, int which, const fmap_regs *r, uint64_t prec, uint32_t zp, int b64, em_fmap *f);

#endif
