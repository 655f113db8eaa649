/* The standard weight format (SWD, as ethosu.mlw_codec decodes it; U55, U65 and U85 share it):
   slices of weight symbols and zero runs, a palette that spans slices. */
#include <string.h>

#include "em_weight_codecs.h"

#define ZDIV_DISABLE 6
#define ZDIV_EOS 7
#define WDIV_UNCOMPRESSED 7

static em_mlw_dec g_dec;

static int decode_slice(em_mlw_dec *d) {
    em_bits_in *bb = &d->in;
    int zdiv, wdiv, wtrunc, i;
    int w_unc, w_pos = 0, z_pos = 0, w_prev_pos = 0, z_prev_pos = 0, z_nvalues;
    int w_q[12], z_q[12], w_prev_q[12], z_prev_q[12];
    int w_carry = 0, z_carry = 0, w_nsym = 0, z_nsym = 0;
    int w_prev_en = 0, w_prev_nsym = 0, z_prev_en = 0, z_prev_nsym = 0, z_unary_len;
    zdiv = (int)em_get_bits(bb, 3);
    while (zdiv == ZDIV_EOS) {
        em_get_bits(bb, (int)((8 - (bb->pos & 7)) & 7));
        d->first = 1;
        if (bb->pos / 8 >= bb->size) return 1;
        zdiv = (int)em_get_bits(bb, 3);
    }
    if (bb->pos / 8 >= bb->size) return 1;
    if (!(zdiv < 4 || zdiv == ZDIV_DISABLE)) return -1;
    d->use_zero_run = zdiv != ZDIV_DISABLE;
    d->nvalues = (int)em_get_bits(bb, 15) + 1;
    wdiv = (int)em_get_bits(bb, 3);
    wtrunc = (int)em_get_bits(bb, 1);
    d->new_palette = (int)em_get_bits(bb, 1);
    if (d->first && !d->new_palette) return -1;
    d->first = 0;
    if (d->new_palette) {
        d->direct_offset = (int)em_get_bits(bb, 5);
        d->palsize = (int)em_get_bits(bb, 5);
        if (d->palsize > 0) d->palsize++;
        d->palbits = (int)em_get_bits(bb, 3) + 2;
        for (i = 0; i < d->palsize; i++) d->palette[i] = (int16_t)em_get_bits(bb, d->palbits);
    }
    if (wdiv == WDIV_UNCOMPRESSED) {
        int ubits = 0;
        w_unc = 1;
        if (d->palsize > 0) { while ((1 << ubits) < d->palsize) ubits++; }
        else ubits = d->palbits;
        wdiv = ubits;
    } else {
        w_unc = 0;
        if (wdiv >= 6) return -1;
    }
    z_nvalues = d->nvalues + (d->new_palette ? 1 : 0);
    d->zv[0] = 0;
    z_unary_len = zdiv < 3 ? 12 : 8;
    memset(w_q, 0, sizeof(w_q)); memset(z_q, 0, sizeof(z_q));
    memset(w_prev_q, 0, sizeof(w_prev_q)); memset(z_prev_q, 0, sizeof(z_prev_q));
    do {
        int balance = d->use_zero_run ? w_pos - z_pos : 0;
        int w_en = (balance < 8 || !d->use_zero_run) && w_pos < d->nvalues;
        int z_en = balance >= 0 && d->use_zero_run && z_pos < z_nvalues;
        uint32_t w_unary0 = 0, w_unary1, z_unary;
        if (w_en && !w_unc) w_unary0 = em_get_bits(bb, 12);
        if (z_en) {
            int cnt = z_carry;
            z_unary = em_get_bits(bb, z_unary_len);
            z_nsym = 0;
            for (i = 0; i < z_unary_len; i++) { /* a 1 extends the run, a 0 ends a symbol (branch-free) */
                int one = (int)((z_unary >> i) & 1u);
                cnt += one;
                z_q[z_nsym] = cnt;
                z_nsym += 1 - one;
                cnt *= one;
            }
            z_carry = cnt;
            z_pos += z_nsym;
        }
        if (w_en) {
            int len1 = 0, cnt = w_carry, max_sym = (w_unc && wdiv > 5) ? 8 : 12;
            for (i = 0; i < max_sym; i++) len1 += (int)((w_unary0 >> i) & 1u);
            w_unary1 = em_get_bits(bb, len1);
            w_nsym = 0;
            for (i = 0; i < max_sym; i++) { /* code 0, 1 or 2 per unary0 bit (branch-free) */
                uint32_t first = (w_unary0 >> i) & 1u, second = w_unary1 & first;
                int ends = second == 0u || wtrunc;
                w_unary1 >>= first;
                cnt += (int)(first + second);
                w_q[w_nsym] = cnt;
                w_nsym += ends;
                cnt *= 1 - ends;
            }
            w_carry = cnt;
            w_pos += w_nsym;
        }
        if (w_prev_en) {
            for (i = 0; i < w_prev_nsym && w_prev_pos < d->nvalues; i++, w_prev_pos++)
                d->wv[w_prev_pos] = (uint16_t)((w_prev_q[i] << wdiv) + (int)em_get_bits(bb, wdiv));
        }
        if (z_prev_en) {
            for (i = 0; i < z_prev_nsym && z_prev_pos < z_nvalues; i++, z_prev_pos++)
                d->zv[z_prev_pos] = (uint16_t)((z_prev_q[i] << zdiv) + (int)em_get_bits(bb, zdiv));
        }
        w_prev_en = w_en; w_prev_nsym = w_nsym; memcpy(w_prev_q, w_q, sizeof(w_q));
        z_prev_en = z_en; z_prev_nsym = z_nsym; memcpy(z_prev_q, z_q, sizeof(z_q));
        if (bb->overrun) return -1;
    } while (w_prev_en || z_prev_en);
    d->index = 0;
    d->zeros_left = (d->new_palette && d->use_zero_run) ? d->zv[0] : 0;
    d->started = 0;
    return 0;
}

/* Next weight; returns 0, or -1 at the end of the stream / on a malformed stream. */
static int mlw_next(em_mlw_dec *d, int16_t *out) {
    for (;;) {
        if (d->zeros_left > 0) { d->zeros_left--; *out = 0; return 0; }
        if (!d->done && d->index < d->nvalues) {
            int raw = d->wv[d->index], val;
            val = raw < d->palsize ? d->palette[raw] : raw - d->palsize + d->direct_offset;
            *out = em_unfold(val);
            if (d->use_zero_run) d->zeros_left = d->zv[d->index + (d->new_palette ? 1 : 0)];
            d->index++;
            return 0;
        }
        if (d->done) return -1;
        {
            int rc = decode_slice(d);
            if (rc != 0) { d->done = 1; return -1; }
        }
    }
}

int em_mlw_take(em_mlw_dec *d, int16_t *out, int n) {
    int k = 0;
    while (k < n) {
        if (d->zeros_left > 0) {
            int zeros = d->zeros_left < n - k ? d->zeros_left : n - k;
            memset(out + k, 0, (size_t)zeros * sizeof(int16_t));
            d->zeros_left -= zeros;
            k += zeros;
        } else {
            if (mlw_next(d, out + k) != 0) return -1;
            k++;
        }
    }
    return 0;
}

em_mlw_dec *em_mlw_open(const uint8_t *buf, uint32_t size) {
    em_mlw_dec *d = &g_dec;
    memset(&d->in, 0, sizeof(d->in));
    d->in.buf = buf;
    d->in.size = size;
    d->nvalues = d->index = d->zeros_left = 0;
    d->first = 1;
    d->done = 0;
    d->palsize = 0;
    d->palbits = 0;
    return d;
}
