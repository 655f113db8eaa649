/* The NPU model's state: static capacities, the feature-map and state structures, register
   access by name, and the messages every file reports through. */
#ifndef EM_STATE_H
#define EM_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "npu_model.h"
#include "npu_model_regs.h"
#include "npu_model_regs85.h"

/* Static capacities (no dynamic allocation); a firmware build may lower them. */
#ifndef NPU_MODEL_WEIGHT_CAPACITY
#define NPU_MODEL_WEIGHT_CAPACITY (1u << 21) /* decoded weights of one command */
#endif
#ifndef NPU_MODEL_MAX_DEPTH
#define NPU_MODEL_MAX_DEPTH 8192u /* channels of one feature map */
#endif
#define EM_MLW_SLICE_MAX 32769u /* SLICELEN is 15 bits, +1 for the leading zero run */
#define EM_SHRAM_BYTES (96u * 1024u)
#define EM_MAX_REGIONS 8
/* U85 LUT memory: 8 slots of 256 bytes, a 2048-byte table fills all (regor ethos_u85
   register_cs_generator.cpp GenerateActivation, ArchEthosU85::LUT_SLOT_SIZE). */
#define EM85_LUT_SLOT 256u
#define EM85_LUT_BYTES 2048u
/* U85 operation chaining: the chain buffers an OFM with CHAINED storage writes and a later
   IFM/IFM2 reads (the REGION field names the buffer; regor ethos_u85.cpp EthosU85OpGroup). */
#define EM85_CHAIN_BUFFERS 8
#ifndef NPU_MODEL_CHAIN_CAPACITY
#define NPU_MODEL_CHAIN_CAPACITY (1u << 18) /* bytes of one chain buffer (mv2 on U85-128 needs 75264) */
#endif
#ifndef NPU_MODEL_TRANSPOSE_CAPACITY
#define NPU_MODEL_TRANSPOSE_CAPACITY (1u << 21) /* bytes of a transposed OFM, staged (112x112x32 int8 = 401408) */
#endif
/* U85: the accumulator a command kept (ACC_FORMAT acc_output DISABLE) for the next one to
   continue (acc_input KEEP), per OFM element of the keeping command (em85_kept.c). */
#ifndef NPU_MODEL_ACC_CAPACITY
#define NPU_MODEL_ACC_CAPACITY (1u << 15) /* accumulators (U85-2048's 128 KiB of Acc32 is 32768) */
#endif
typedef struct em85_kept {
    int height, width, depth; /* 0 height: nothing kept */
} em85_kept;
/* U85: COND_STATUS result_flag, which NPU_OP_BRANCH RF_TRUE tests (em85_branch.c): the flag,
   or why it is not defined (the OFM of the operation before the branch is not one element, no
   operation ran, or a DMA ran after it), and the branches taken so far in this invoke. */
typedef struct em85_cond {
    int flag;          /* 0 or 1; -1 when not defined */
    int elements;      /* the OFM elements of the operation that last wrote it */
    unsigned code;     /* that operation's cmd0 opcode; 0 when no operation ran */
    int after_dma;     /* a DMA_START ran after that operation */
    unsigned branches; /* branches taken in this invoke */
} em85_cond;
typedef struct em85_chain {
    int height, width, depth, bytes; /* 0 bytes: not written in this stream */
} em85_chain;

/* A feature map as the registers describe it (4 tiles, NHWC or NHCWB16). */
typedef struct em_fmap {
    uint8_t *tile[4];
    int height0, height1, width0;
    int64_t stride_x, stride_y, stride_c;
    int nhcwb16;
    int bytes;     /* element size: 1, 2, 4 or (U85 B64) 8 */
    int is_signed;
    int32_t zero_point;
    const uint8_t *lo, *hi; /* the region: every access is checked against it */
    int *fault;             /* which + 1 of the first access outside; the op then fails */
    int which;              /* 0 = IFM, 1 = IFM2, 2 = OFM */
} em_fmap;

/* U85: a transposed or reversed OFM staged densely in the op's coordinates, then stored
   permuted or mirrored. */
typedef struct em85_staged {
    int active;
    em_fmap stored;             /* the OFM as its registers describe it (after transposition) */
    int height, width, depth;   /* the operation's OFM */
    int held[3];                /* the op's axis (0 H, 1 W, 2 C) each stored axis H, W, C holds */
    int reversed;               /* the op's axis (0 H, 1 W, 2 C) stored mirrored, or -1 */
} em85_staged;

struct em_arch;
typedef struct em_state {
    npu_model_status *status;
    const struct em_arch *ops; /* what differs between the layouts (em_arch.h) */
    const npu_model_npu *npu; /* the target of the running invoke */
    const uint64_t *base;
    const size_t *size;
    int regions;
    int arch; /* 55, 65 or 85: which register layout the stream uses */
    int cores;
    int macs;
    int shram_banks;
    int fault;
    int operations; /* NPU operations run so far in this invoke (em_observe.c) */
    unsigned op_code; /* cmd0 opcode of the running operation (refusals name it) */
    uint64_t reg0[0x200]; /* last NPU_SET_* cmd0 word per opcode */
    uint64_t reg1[0x100]; /* last NPU_SET_* cmd1 (word | data << 32) per opcode */
    uint8_t shram[EM_SHRAM_BYTES];
    unsigned lut_loaded; /* bit n: LUT slot n holds DMA'd data not since reused (em_output.c) */
    uint8_t lut85[EM85_LUT_BYTES]; /* U85: the LUT memory DMA writes (internal destination) */
    em85_chain chain[EM85_CHAIN_BUFFERS];
    em85_staged staged; /* a transposed OFM waiting in `staging` for em85_store_transposed */
    uint8_t staging[NPU_MODEL_TRANSPOSE_CAPACITY];
    uint8_t chain_data[EM85_CHAIN_BUFFERS][NPU_MODEL_CHAIN_CAPACITY];
    em85_kept kept;
    em85_cond cond; /* U85: the branch condition (em85_branch.c) */
    int64_t kept_acc[NPU_MODEL_ACC_CAPACITY];
    /* per-channel scale records of the current command (em_load_scales) */
    int64_t bias[NPU_MODEL_MAX_DEPTH];
    int32_t mult[NPU_MODEL_MAX_DEPTH];
    uint8_t shift[NPU_MODEL_MAX_DEPTH];
} em_state;
#define EM85_R0(s, op) ((s)->reg0[(EM85_CMD0_##op) & 0x1ffu]) /* the U85's, by its names */
#define EM85_R1(s, op) ((s)->reg1[(EM85_CMD1_##op) & 0xffu])
#define EM_R0(s, op) ((s)->reg0[(EM_CMD0_##op) & 0x1ff])
#define EM_R1(s, op) ((s)->reg1[(EM_CMD1_##op) & 0xff])
#define EM_P0(s, op) ((uint32_t)((EM_R0(s, op) >> 16) & 0xffffu)) /* cmd0 16-bit param */
#define EM_D1(s, op) ((uint32_t)(EM_R1(s, op) >> 32))              /* cmd1 32-bit data */
/* Messages (em_message.c): em_fail formats %s %d %u %x into the status and returns `code`. */
int em_fail(em_state *s, int code, const char *fmt, ...);
size_t em_put_str(char *out, size_t at, size_t cap, const char *text);
size_t em_put_hex(char *out, size_t at, size_t cap, uint32_t value, int digits);

#endif
