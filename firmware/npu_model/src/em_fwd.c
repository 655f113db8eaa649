/* The Ethos-U85 fast weight format (FWD, regor dependencies/mlw_codec/source/mlw_encode_fwd.cpp,
   which has no decoder): a header, then fixed-width codes. */
#include <string.h>

#include "em_weight_codecs.h"

int em_fwd_open(em_fwd_stream *f, const uint8_t *data, uint32_t size) {
    em_bits_in b;
    int raw, small, i;
    if (size < FWD_HEADER_BITS / 8) return -1;
    memset(&b, 0, sizeof(b));
    b.buf = data;
    b.size = size;
    raw = (int)em_get_bits(&b, 1);
    small = (int)em_get_bits(&b, 1);
    b.pos = 104;
    f->zero_adjust = em_sext(em_get_bits(&b, 8), 8);
    for (i = 0; i < 16; i++) f->lut[i] = em_unfold((int)em_get_bits(&b, 9));
    f->bits = raw ? 8 : (small ? 2 : 4);
    f->data = data;
    f->size = size;
    return 0;
}

/* Weight `index` of the stream (codes never straddle a byte: 2, 4 and 8 bits from bit 256). */
int em_fwd_get(const em_fwd_stream *f, uint32_t index, int16_t *out) {
    uint64_t bit = FWD_HEADER_BITS + (uint64_t)index * (uint64_t)f->bits;
    unsigned code;
    if ((bit >> 3) >= f->size) return -1;
    code = ((unsigned)f->data[bit >> 3] >> (bit & 7u)) & ((1u << f->bits) - 1u);
    *out = f->bits == 8 ? (int16_t)((int8_t)code - f->zero_adjust) : f->lut[code];
    return 0;
}

