/* Weights: the kernel, the weight streams, their decoders (U55/U65 and U85) and the reuse of
   decoded weights. */
#ifndef EM_WEIGHTS_H
#define EM_WEIGHTS_H

#include "em_state.h"

/* Weights (em_weight_order.c: U55/U65; em85_weight_order.c: U85; the codecs behind them in
   em_weight_codecs.h). */
typedef struct em_kernel {
    int kh, kw;          /* kernel taps (undilated) */
    int dil_x, dil_y;
    int ofm_depth, ifm_depth;
    int depthwise, part_kernel, ifm_bits, ofm_block_depth;
    /* Ethos-U85 only: KERNEL_STRIDE strides (the U85 order groups taps by stride phase),
       ACC_FORMAT microblock (width, height), WEIGHT_FORMAT (fast = FWD, sparse = 2:4) */
    int stride_x, stride_y, ublock_w, ublock_h, fast, sparse;
    /* the output channels decoded: [ofm_lo, ofm_hi) (a command whose weights exceed
       NPU_MODEL_WEIGHT_CAPACITY is decoded in blocks of channels, em_conv.c) */
    int ofm_lo, ofm_hi;
} em_kernel;

/* Weights of one output channel of k (all its taps and IFM channels). */
static inline size_t em_weights_per_channel(const em_kernel *k) {
    return (size_t)k->kh * (size_t)k->kw * (k->depthwise ? 1u : (size_t)k->ifm_depth);
}

/* The dense index of weight (o, wy, wx, i) among the decoded channels [ofm_lo, ofm_hi), or -1
   when channel o is not decoded. */
static inline int64_t em_dense_at(const em_kernel *k, int o, int wy, int wx, int i) {
    if (o < k->ofm_lo || o >= k->ofm_hi) return -1;
    o -= k->ofm_lo;
    if (k->depthwise) return ((int64_t)wy * k->kw + wx) * (k->ofm_hi - k->ofm_lo) + o;
    return (((int64_t)o * k->kh + wy) * k->kw + wx) * k->ifm_depth + i;
}
/* The weight streams of a command (U55/U65: one per core; U85: one per weight decoder, or one
   FWD stream); NULL where a core or decoder has none. */
typedef struct em_weight_streams {
    const uint8_t *data[4];
    uint32_t length[4];
} em_weight_streams;
/* U55/U65: the streams at WEIGHT_BASE/WEIGHT1_BASE of the cores that own one of `ofm_depth`
   channels. Returns 0 or an error code. */
int em_weight_streams_u55(em_state *s, int ofm_depth, em_weight_streams *w);
/* Decodes the U55/U65 weight streams `w` of the current command, channels [k->ofm_lo,
   k->ofm_hi), into dense [o - ofm_lo][ky][kx][i], or [ky][kx][o - ofm_lo] for depthwise
   (channels contiguous per tap); at most NPU_MODEL_WEIGHT_CAPACITY weights. Returns 0 or an
   error code. */
int em_decode_weights(em_state *s, const em_kernel *k, const em_weight_streams *w, int16_t *dense);
/* The decoders read a block on from where the previous block of the same command stopped
   (em_weight_resume); a new command, or a block not decoded, forgets that place. */
void em_weights_resume_forget(void);

/* Ethos-U85 weights: the streams at WEIGHT_BASE..WEIGHT3_BASE (SWD: one per weight decoder,
   em_u85_weight_decoders(macs) of them; FWD: the first only) decoded into the same dense
   layout as em_decode_weights. `macs` is the configuration's total (128..2048). */
int em_u85_weight_decoders(int macs);
int em_decode_weights_u85(em_state *s, const em_kernel *k, int macs, const em_weight_streams *w, int16_t *dense);
/* Ethos-U85 scale records (one stream at SCALE_BASE, channel order): 10 bytes, Acc32 (int32
   bias, uint31 scale, 6-bit shift) or Acc48 (int48 bias, uint15 scale, 6-bit shift), for
   `depth` output channels into s->bias/mult/shift. Returns 0 or an error code. */
int em_load_scales_u85(em_state *s, const uint8_t *records, uint64_t length, int depth, int acc48);
/* Reuse of decoded weights (em_weight_reuse.c): the weights a command decoded stay valid for a
   later command with the same kernel, channels, configuration and weight streams, byte for byte
   (Vela splits one operation into commands that share a stream; a host runs a program again).
   The streams are kept to compare in NPU_MODEL_WEIGHT_REUSE_BYTES (0: no reuse, the firmware
   default), the decoded weights in a store of NPU_MODEL_WEIGHT_KEEP int16 elements (0: only
   the last decode, in the caller's buffer). */
#ifndef NPU_MODEL_WEIGHT_REUSE_BYTES
#define NPU_MODEL_WEIGHT_REUSE_BYTES 0u
#endif
typedef struct em_weight_key {
    int arch, macs, cores;
    em_kernel k;
    em_weight_streams w;
} em_weight_key;
/* The `count` weights `key` decodes to, decoded before and still held (their largest magnitude
   in max_abs), or NULL. */
const int16_t *em_weights_kept(const em_weight_key *key, size_t count, int32_t *max_abs);
/* Where to decode `count` weights of `key`: room in the store, else `fallback`. */
int16_t *em_weights_room(const em_weight_key *key, size_t count, int16_t *fallback);
/* `weights` (from em_weights_room) now hold the decode of `key`. */
void em_weights_decoded(const em_weight_key *key, const int16_t *weights, size_t count, int32_t max_abs);
/* The fallback buffer is about to hold something else. */
void em_weights_forget(void);

#endif
