/* Weight streams: the compressed weight format (as ethosu.mlw_codec decodes it) and the
   U55/U65 weight order (regor architecture/ethosu55/ethos_u55_weight_encoder.cpp). */
#include <string.h>

#include "em_internal.h"

#define ZDIV_DISABLE 6
#define ZDIV_EOS 7
#define WDIV_UNCOMPRESSED 7

typedef struct bits_in {
    const uint8_t *buf;
    uint32_t size, pos; /* pos in bits */
    int overrun;
} bits_in;

static uint32_t get_bits_slow(bits_in *b, int n) {
    uint32_t v = 0;
    int i;
    for (i = 0; i < n; i++) {
        uint32_t byte = b->pos >> 3;
        if (byte >= b->size) { b->overrun = 1; return 0; }
        v |= (uint32_t)((b->buf[byte] >> (b->pos & 7)) & 1u) << i;
        b->pos++;
    }
    return v;
}

/* n (0..25) bits, least significant first; near the end of the buffer bit by bit (an overrun
   is recorded and gives 0). */
static inline uint32_t get_bits(bits_in *b, int n) {
    uint32_t byte = b->pos >> 3, shift = b->pos & 7u, v;
    if (n == 0) return 0;
    if (byte + 4u > b->size) return get_bits_slow(b, n);
    v = (uint32_t)b->buf[byte] | ((uint32_t)b->buf[byte + 1] << 8) | ((uint32_t)b->buf[byte + 2] << 16) |
        ((uint32_t)b->buf[byte + 3] << 24);
    b->pos += (uint32_t)n;
    return (v >> shift) & ((1u << n) - 1u);
}

/* A pull decoder: one slice of weight symbols and zero runs at a time. */
typedef struct mlw_dec {
    bits_in in;
    uint16_t wv[EM_MLW_SLICE_MAX];
    uint16_t zv[EM_MLW_SLICE_MAX];
    int16_t palette[512];
    int palsize, palbits, direct_offset, use_zero_run, new_palette; /* palette state spans slices */
    int nvalues, index, zeros_left, started, first;
    int done;
} mlw_dec;

static mlw_dec g_dec;

static int decode_slice(mlw_dec *d) {
    bits_in *bb = &d->in;
    int zdiv, wdiv, wtrunc, i;
    int w_unc, w_pos = 0, z_pos = 0, w_prev_pos = 0, z_prev_pos = 0, z_nvalues;
    int w_q[12], z_q[12], w_prev_q[12], z_prev_q[12];
    int w_carry = 0, z_carry = 0, w_nsym = 0, z_nsym = 0;
    int w_prev_en = 0, w_prev_nsym = 0, z_prev_en = 0, z_prev_nsym = 0, z_unary_len;
    zdiv = (int)get_bits(bb, 3);
    while (zdiv == ZDIV_EOS) {
        get_bits(bb, (int)((8 - (bb->pos & 7)) & 7));
        d->first = 1;
        if (bb->pos / 8 >= bb->size) return 1;
        zdiv = (int)get_bits(bb, 3);
    }
    if (bb->pos / 8 >= bb->size) return 1;
    if (!(zdiv < 4 || zdiv == ZDIV_DISABLE)) return -1;
    d->use_zero_run = zdiv != ZDIV_DISABLE;
    d->nvalues = (int)get_bits(bb, 15) + 1;
    wdiv = (int)get_bits(bb, 3);
    wtrunc = (int)get_bits(bb, 1);
    d->new_palette = (int)get_bits(bb, 1);
    if (d->first && !d->new_palette) return -1;
    d->first = 0;
    if (d->new_palette) {
        d->direct_offset = (int)get_bits(bb, 5);
        d->palsize = (int)get_bits(bb, 5);
        if (d->palsize > 0) d->palsize++;
        d->palbits = (int)get_bits(bb, 3) + 2;
        for (i = 0; i < d->palsize; i++) d->palette[i] = (int16_t)get_bits(bb, d->palbits);
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
        if (w_en && !w_unc) w_unary0 = get_bits(bb, 12);
        if (z_en) {
            int cnt = z_carry;
            z_unary = get_bits(bb, z_unary_len);
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
            w_unary1 = get_bits(bb, len1);
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
                d->wv[w_prev_pos] = (uint16_t)((w_prev_q[i] << wdiv) + (int)get_bits(bb, wdiv));
        }
        if (z_prev_en) {
            for (i = 0; i < z_prev_nsym && z_prev_pos < z_nvalues; i++, z_prev_pos++)
                d->zv[z_prev_pos] = (uint16_t)((z_prev_q[i] << zdiv) + (int)get_bits(bb, zdiv));
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
static int mlw_next(mlw_dec *d, int16_t *out) {
    for (;;) {
        if (d->zeros_left > 0) { d->zeros_left--; *out = 0; return 0; }
        if (!d->done && d->index < d->nvalues) {
            int raw = d->wv[d->index], val;
            val = raw < d->palsize ? d->palette[raw] : raw - d->palsize + d->direct_offset;
            *out = (int16_t)((val & 1) ? -(val >> 1) : (val >> 1));
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

/* The next n weights into out (zero runs as blocks); -1 when the stream ends early or is
   malformed. */
static int mlw_take(mlw_dec *d, int16_t *out, int n) {
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

static void mlw_open(mlw_dec *d, const uint8_t *buf, uint32_t size) {
    memset(&d->in, 0, sizeof(d->in));
    d->in.buf = buf;
    d->in.size = size;
    d->nvalues = d->index = d->zeros_left = 0;
    d->first = 1;
    d->done = 0;
    d->palsize = 0;
    d->palbits = 0;
}

static int round_up(int v, int m) { return (v + m - 1) / m * m; }

/* The order of one core's stream: EthosUWeightOrdering::GetNext in regor
   architecture/ethosu55/ethos_u55_weight_encoder.cpp. Fills `dense` for the ofm channels
   core, core + cores, ... (the stream interleaves channels over the cores). */
static int order_stream(em_state *s, const em_kernel *k, mlw_dec *d, int core, int16_t *dense) {
    const int dw = k->depthwise, pk = k->part_kernel, cores = s->cores;
    /* micro-block depths: regor s_EthosU55Configs/s_EthosU65Configs (ofmUBlock, ifmUblock) */
    const int ofm_ub = s->macs == 32 ? 4 : 8, ifm_ub = 8;
    const int ifm_block = (pk || k->ifm_bits == 16) ? 16 : 32;
    const int decomp_x = 8 / k->dil_x, decomp_y = 8 / k->dil_y;
    const int round_elems = dw ? 4 : (pk ? (k->ifm_bits == 16 ? 2 : 4) : 1);
    const int ofm_depth = (k->ofm_depth + cores - 1 - core) / cores;
    const int ifm_depth = dw ? 1 : k->ifm_depth;
    const int stream_block = (k->ofm_block_depth + cores - 1 - core) / cores;
    const int iu = dw ? 1 : ifm_ub; /* IFM channels per micro-block row */
    int ob, ib, sy, sx, iuo, ou, ke, iui, ouz, iuz;
    for (ob = 0; ob < ofm_depth; ob += stream_block) {
        int clipped_ofm = ofm_depth - ob < stream_block ? ofm_depth - ob : stream_block;
        for (ib = 0; ib < ifm_depth; ib += ifm_block) {
            int clipped_ifm = dw ? ifm_ub : (pk ? (ifm_depth - ib < ifm_block ? ifm_depth - ib : ifm_block) : ifm_block);
            for (sy = 0; sy < k->kh; sy += decomp_y) {
                int sub_h = k->kh - sy < decomp_y ? k->kh - sy : decomp_y;
                for (sx = 0; sx < k->kw; sx += decomp_x) {
                    int sub_w = k->kw - sx < decomp_x ? k->kw - sx : decomp_x;
                    int elems = round_up(sub_w * sub_h, round_elems);
                    int outer = pk ? clipped_ifm : 1, inner = pk ? 1 : clipped_ifm;
                    for (iuo = 0; iuo < outer; iuo += ifm_ub)
                    for (ou = 0; ou < clipped_ofm; ou += ofm_ub)
                    for (ke = 0; ke < elems; ke++) {
                        int kx = ke % sub_w, ky = ke / sub_w;
                        for (iui = 0; iui < inner; iui += ifm_ub) {
                            /* one micro-block: ofm_ub channels x iu IFM channels, IFM fastest */
                            int ifm_z = ib + iui + iuo, ofm_z = ob + ou;
                            int n_o = ofm_depth - ofm_z < ofm_ub ? ofm_depth - ofm_z : ofm_ub;
                            int n_i = ifm_depth - ifm_z < iu ? ifm_depth - ifm_z : iu;
                            int16_t block[8 * 8];
                            if (mlw_take(d, block, ofm_ub * iu) != 0)
                                return em_fail(s, ETHOSU_MODEL_UNSUPPORTED,
                                               "weight stream of core %d ends early or is malformed", core);
                            if (ky >= sub_h) continue;
                            for (ouz = 0; ouz < n_o; ouz++) {
                                int o = core + (ofm_z + ouz) * cores, wy = sy + ky, wx = sx + kx;
                                size_t at = dw ? ((size_t)wy * k->kw + wx) * k->ofm_depth + o
                                               : (((size_t)o * k->kh + wy) * k->kw + wx) * k->ifm_depth + ifm_z;
                                for (iuz = 0; iuz < n_i; iuz++) dense[at + iuz] = block[ouz * iu + iuz];
                            }
                        }
                    }
                }
            }
        }
    }
    return 0;
}

int em_decode_weights(em_state *s, const em_kernel *k, int16_t *dense) {
    int core;
    size_t total = (size_t)k->ofm_depth * k->kh * k->kw * (k->depthwise ? 1u : (size_t)k->ifm_depth);
    if (total > ETHOSU_MODEL_WEIGHT_CAPACITY)
        return em_fail(s, ETHOSU_MODEL_CAPACITY, "%u weights in one command exceed ETHOSU_MODEL_WEIGHT_CAPACITY %u",
                       (unsigned)total, (unsigned)ETHOSU_MODEL_WEIGHT_CAPACITY);
    memset(dense, 0, total * sizeof(int16_t));
    for (core = 0; core < s->cores && core < k->ofm_depth; core++) {
        unsigned region = EM_F_NPU_SET_WEIGHT_REGION_PARAM(EM_R0(s, NPU_SET_WEIGHT_REGION));
        uint64_t base = core ? EM_D1(s, NPU_SET_WEIGHT1_BASE) : EM_D1(s, NPU_SET_WEIGHT_BASE);
        uint64_t length = core ? EM_D1(s, NPU_SET_WEIGHT1_LENGTH) : EM_D1(s, NPU_SET_WEIGHT_LENGTH);
        const uint8_t *stream = em_address(s, region, base, length, "weight stream");
        int rc;
        if (stream == NULL) return s->status->code;
        mlw_open(&g_dec, stream, (uint32_t)length);
        rc = order_stream(s, k, &g_dec, core, dense);
        if (rc) return rc;
    }
    return 0;
}
