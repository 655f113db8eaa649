/* The standard weight format (SWD, as ethosu.mlw_codec decodes it; U55, U65 and U85 share it):
   slices of weight symbols and zero runs, a palette that spans slices. */
#include <string.h>

#include "em_weight_codecs.h"

#define ZDIV_DISABLE 6
#define ZDIV_EOS 7
#define WDIV_UNCOMPRESSED 7

static em_mlw_dec g_dec;

/* The remainders of min(nsym, room) symbols (q[i] << div | the next div bits) into dst;
   returns how many. Where 8 bytes of the stream remain, from one 64-bit window at a time (the
   same bits em_get_bits reads one by one). */
static int read_values(em_bits_in *bb, const int *q, int nsym, int room, int div, uint16_t *dst) {
    const int count = nsym < room ? nsym : room;
    const uint64_t mask = ((uint64_t)1 << div) - 1u;
    int i = 0;
    while (i < count) {
        uint32_t byte = bb->pos >> 3;
        uint64_t window;
        int avail;
        if (byte + 8u > bb->size) {
            for (; i < count; i++) dst[i] = (uint16_t)((q[i] << div) + (int)em_get_bits(bb, div));
            break;
        }
        window = em_load64(bb->buf + byte) >> (bb->pos & 7u);
        avail = 64 - (int)(bb->pos & 7u);
        for (; i < count && avail >= div; i++, avail -= div) {
            dst[i] = (uint16_t)((q[i] << div) + (int)(window & mask));
            window >>= div;
            bb->pos += (uint32_t)div;
        }
    }
    return count;
}

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
        if (w_prev_en) w_prev_pos += read_values(bb, w_prev_q, w_prev_nsym, d->nvalues - w_prev_pos, wdiv, d->wv + w_prev_pos);
        if (z_prev_en) z_prev_pos += read_values(bb, z_prev_q, z_prev_nsym, z_nvalues - z_prev_pos, zdiv, d->zv + z_prev_pos);
        w_prev_en = w_en; w_prev_nsym = w_nsym; memcpy(w_prev_q, w_q, sizeof(w_q));
        z_prev_en = z_en; z_prev_nsym = z_nsym; memcpy(z_prev_q, z_q, sizeof(z_q));
        if (bb->overrun) return -1;
    } while (w_prev_en || z_prev_en);
    d->index = 0;
    d->zeros_left = (d->new_palette && d->use_zero_run) ? d->zv[0] : 0;
    d->started = 0;
    return 0;
}

/* Weights of the current slice into out[k..n) (each followed by its zero run), the decoder's
   fields in locals (out may alias nothing of the decoder, but the compiler cannot know); returns
   the new k. A zero run cut by n stays in d->zeros_left. */
static int take_slice(em_mlw_dec *d, int16_t *out, int k, int n) {
    const uint16_t *wv = d->wv, *zv = d->zv + (d->new_palette ? 1 : 0);
    const int16_t *palette = d->palette;
    const int palsize = d->palsize, direct = d->direct_offset - d->palsize, nvalues = d->nvalues;
    int index = d->index;
    if (!d->use_zero_run) {
        for (; k < n && index < nvalues; k++, index++) {
            int raw = wv[index];
            out[k] = em_unfold(raw < palsize ? palette[raw] : raw + direct);
        }
    } else {
        while (k < n && index < nvalues) {
            int raw = wv[index], zeros = zv[index];
            out[k++] = em_unfold(raw < palsize ? palette[raw] : raw + direct);
            index++;
            if (zeros > 0) {
                int now = zeros < n - k ? zeros : n - k;
                memset(out + k, 0, (size_t)now * sizeof(int16_t));
                k += now;
                d->zeros_left = zeros - now;
            }
        }
    }
    d->index = index;
    return k;
}

int em_mlw_take(em_mlw_dec *d, int16_t *out, int n) {
    int k = 0, from = 0; /* out[from..] come from the current slice */
    while (k < n) {
        if (d->zeros_left > 0) {
            int zeros = d->zeros_left < n - k ? d->zeros_left : n - k;
            memset(out + k, 0, (size_t)zeros * sizeof(int16_t));
            d->zeros_left -= zeros;
            k += zeros;
        } else if (!d->done && d->index < d->nvalues) {
            k = take_slice(d, out, k, n);
        } else {
            d->slice_pos = d->in.pos;
            d->slice_first = d->first;
            d->taken = 0;
            from = k;
            if (d->done || decode_slice(d) != 0) {
                d->done = 1;
                return -1;
            }
        }
    }
    d->taken += n - from;
    return 0;
}

void em_mlw_mark_here(const em_mlw_dec *d, em_mlw_mark *m) {
    m->pos = d->slice_pos;
    m->first = d->slice_first;
    m->palsize = d->palsize;
    m->palbits = d->palbits;
    m->direct_offset = d->direct_offset;
    memcpy(m->palette, d->palette, sizeof(m->palette));
    m->taken = d->taken;
}

em_mlw_dec *em_mlw_resume(const uint8_t *buf, uint32_t size, const em_mlw_mark *m) {
    em_mlw_dec *d = em_mlw_open(buf, size);
    int16_t sink[64];
    long left = m->taken;
    d->in.pos = m->pos;
    d->first = m->first;
    d->palsize = m->palsize;
    d->palbits = m->palbits;
    d->direct_offset = m->direct_offset;
    memcpy(d->palette, m->palette, sizeof(d->palette));
    d->slice_pos = d->in.pos;
    d->slice_first = d->first;
    if (decode_slice(d) != 0) return NULL;
    d->taken = 0;
    while (left > 0) {
        int n = left < 64 ? (int)left : 64;
        if (em_mlw_take(d, sink, n) != 0) return NULL;
        left -= n;
    }
    return d;
}

em_mlw_dec *em_mlw_open(const uint8_t *buf, uint32_t size) {
    em_mlw_dec *d = &g_dec;
    memset(&d->in, 0, sizeof(d->in));
    d->in.buf = buf;
    d->in.size = size;
    d->nvalues = d->index = d->zeros_left = 0;
    d->slice_pos = 0;
    d->slice_first = 1;
    d->taken = 0;
    d->first = 1;
    d->done = 0;
    d->palsize = 0;
    d->palbits = 0;
    return d;
}
