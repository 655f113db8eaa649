/* Weight streams: the compressed standard weight format (SWD, as ethosu.mlw_codec decodes it;
   U55, U65 and U85 share it), the U85 fast weight format (FWD, regor
   dependencies/mlw_codec/source/mlw_encode_fwd.cpp), the U55/U65 weight order (regor
   architecture/ethosu55/ethos_u55_weight_encoder.cpp) and the U85 one with its scale records
   (architecture/ethosu85/ethos_u85_weight_encoder.cpp). */
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

/* Both formats store a weight folded: magnitude << 1 | sign. */
static inline int16_t unfold(int folded) { return (int16_t)((folded & 1) ? -(folded >> 1) : (folded >> 1)); }

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
            *out = unfold(val);
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

/* ---------------------------------------------------------------------------------------- */
/* Ethos-U85                                                                                 */

/* regor architecture/ethosu85/ethos_u85.cpp s_EthosU85Configs: MACs, weight decoders (cores)
   and the OFM microblocks (height, width, depth) of each configuration. */
typedef struct u85_config {
    int macs, cores;
    int ublocks[3][3];
} u85_config;
static const u85_config k_u85_configs[] = {
    {128, 1, {{1, 2, 8}, {1, 1, 16}, {0, 0, 0}}},
    {256, 1, {{1, 2, 16}, {1, 4, 8}, {2, 2, 8}}},
    {512, 2, {{2, 2, 16}, {1, 4, 16}, {0, 0, 0}}},
    {1024, 4, {{2, 2, 32}, {1, 4, 32}, {2, 4, 16}}},
    {2048, 4, {{2, 2, 64}, {1, 4, 64}, {4, 4, 16}}},
};

static const u85_config *u85_config_of(int macs) {
    size_t i;
    for (i = 0; i < sizeof(k_u85_configs) / sizeof(k_u85_configs[0]); i++)
        if (k_u85_configs[i].macs == macs) return &k_u85_configs[i];
    return NULL;
}

int em_u85_weight_decoders(int macs) {
    const u85_config *c = u85_config_of(macs);
    return c ? c->cores : 0;
}

/* A fast-weight (FWD) stream: a 256-bit header (bit 0 raw, bit 1 4-entry LUT, bits 104-111 the
   raw zero adjust, bits 112-255 sixteen folded 9-bit LUT entries), then fixed-width codes: 2
   bits (4-entry LUT), 4 bits (16-entry LUT) or 8 bits (raw, value + zero adjust). */
#define FWD_HEADER_BITS 256u
typedef struct fwd_stream {
    const uint8_t *data;
    uint32_t size;
    int bits, zero_adjust;
    int16_t lut[16];
} fwd_stream;

static int fwd_open(fwd_stream *f, const uint8_t *data, uint32_t size) {
    bits_in b;
    int raw, small, i;
    if (size < FWD_HEADER_BITS / 8) return -1;
    memset(&b, 0, sizeof(b));
    b.buf = data;
    b.size = size;
    raw = (int)get_bits(&b, 1);
    small = (int)get_bits(&b, 1);
    b.pos = 104;
    f->zero_adjust = em_sext(get_bits(&b, 8), 8);
    for (i = 0; i < 16; i++) f->lut[i] = unfold((int)get_bits(&b, 9));
    f->bits = raw ? 8 : (small ? 2 : 4);
    f->data = data;
    f->size = size;
    return 0;
}

/* Weight `index` of the stream (codes never straddle a byte: 2, 4 and 8 bits from bit 256). */
static int fwd_get(const fwd_stream *f, uint32_t index, int16_t *out) {
    uint64_t bit = FWD_HEADER_BITS + (uint64_t)index * (uint64_t)f->bits;
    unsigned code;
    if ((bit >> 3) >= f->size) return -1;
    code = ((unsigned)f->data[bit >> 3] >> (bit & 7u)) & ((1u << f->bits) - 1u);
    *out = f->bits == 8 ? (int16_t)((int8_t)code - f->zero_adjust) : f->lut[code];
    return 0;
}

/* The weights of one decoder's order: its own SWD stream, or its share of the one FWD stream,
   which interleaves the decoders' orders in blocks of `block` weights (regor
   EthosU85WeightOrderingFwd::Get; every order is a whole number of blocks). */
typedef struct u85_source {
    mlw_dec *swd;
    const fwd_stream *fwd;
    uint32_t taken, block;
    int core, cores;
} u85_source;

static int source_take(u85_source *src, int16_t *out, int n) {
    int i;
    if (src->swd) return mlw_take(src->swd, out, n);
    for (i = 0; i < n; i++, src->taken++) {
        uint32_t t = src->taken;
        uint32_t at = ((t / src->block) * (uint32_t)src->cores + (uint32_t)src->core) * src->block + t % src->block;
        if (fwd_get(src->fwd, at, out + i)) return -1;
    }
    return 0;
}

static int source_skip(u85_source *src, long count) {
    int16_t sink[64];
    while (count > 0) {
        int n = count < 64 ? (int)count : 64;
        if (source_take(src, sink, n)) return -1;
        count -= n;
    }
    return 0;
}

/* The loop limits of EthosU85WeightOrdering's constructor and ArchEthosU85::FindBlockConfig. */
typedef struct u85_order {
    int cores, ofm_ub, ifm_block, ifm_ub, round, step, dw_pad;
    int stride_x, stride_y, decomp_x, decomp_y;
} u85_order;

static int u85_order_init(em_state *s, const em_kernel *k, const u85_config *c, u85_order *o) {
    const int ifm16 = k->ifm_bits == 16;
    int i;
    o->cores = c->cores; /* FWD too: its one stream interleaves the decoders' orders (u85_source) */
    o->ofm_ub = 0;
    for (i = 0; i < 3; i++)
        if (c->ublocks[i][0] == k->ublock_h && c->ublocks[i][1] == k->ublock_w) o->ofm_ub = c->ublocks[i][2];
    if (o->ofm_ub == 0)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "Ethos-U85-%d has no %dx%d OFM microblock (ACC_FORMAT)", c->macs,
                       k->ublock_h, k->ublock_w);
    if (k->sparse && k->depthwise)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "2:4-sparse weights on a DEPTHWISE (WEIGHT_FORMAT)");
    if (k->fast && k->depthwise)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "fast (FWD) weights on a DEPTHWISE (WEIGHT_FORMAT)");
    /* IFM block depth: ethos_u85.cpp FindBlockConfig (a depthwise order reads 1 IFM channel) */
    o->ifm_block = 64;
    if (k->depthwise) o->ifm_block = 1;
    else if (k->part_kernel) o->ifm_block = 16;
    else if (k->ifm_bits == 32 || ((c->macs == 128 || c->macs == 256) && o->ofm_ub == 16 && !k->sparse)) o->ifm_block = 32;
    else if (k->sparse && k->ifm_bits == 8) o->ifm_block = 128;
    o->stride_x = k->stride_x;
    o->stride_y = k->stride_y;
    if (k->depthwise) {
        o->round = 10;
        o->ifm_ub = 1;
    } else if (k->part_kernel) {
        o->round = (ifm16 || k->sparse) ? 10 : 5;
        o->ifm_ub = (ifm16 && !k->sparse) ? 8 : o->ifm_block;
    } else {
        o->stride_x = o->stride_y = 1;
        o->round = 1;
        o->ifm_ub = o->ifm_block;
    }
    o->step = k->depthwise ? 1 : (k->sparse ? 16 : 8);
    o->dw_pad = (!ifm16 && c->macs <= 256) ? 0 : (c->macs <= 512 ? 2 : 6);
    o->decomp_x = 8 / k->dil_x;
    o->decomp_y = 8 / k->dil_y;
    if (o->stride_x < 1 || o->stride_y < 1 || o->decomp_x < 1 || o->decomp_y < 1)
        return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "kernel stride %dx%d / dilation %dx%d outside the U85 weight order",
                       k->stride_x, k->stride_y, k->dil_x, k->dil_y);
    return 0;
}

/* The weights of one kernel tap in one micro-block: 4 OFM channels (per decoder group of 4)
   x o->step IFM channels, for every group this decoder owns. */
static int u85_tap(const em_kernel *k, const u85_order *o, u85_source *src, int core, int ofm_base, int ifm_base,
                   int wy, int wx, int16_t *dense) {
    int iui, ouz, oi, iz;
    for (iui = 0; iui < o->ifm_ub; iui += o->step) {
        for (ouz = core * 4; ouz < o->ofm_ub; ouz += 4 * o->cores) {
            int16_t block[4 * 16];
            if (source_take(src, block, 4 * o->step)) return -1;
            for (oi = 0; oi < 4; oi++) {
                int ofm_z = ofm_base + ouz + oi;
                if (ofm_z >= k->ofm_depth) continue;
                for (iz = 0; iz < o->step; iz++) {
                    int ifm_z = ifm_base + iui + iz;
                    if (k->depthwise)
                        dense[((size_t)wy * k->kw + wx) * k->ofm_depth + ofm_z] = block[oi * o->step + iz];
                    else if (ifm_z < k->ifm_depth)
                        dense[(((size_t)ofm_z * k->kh + wy) * k->kw + wx) * k->ifm_depth + ifm_z] =
                            block[oi * o->step + iz];
                }
            }
        }
    }
    return 0;
}

/* One sub-kernel (at most 8x8 taps) of one OFM and IFM micro-block: taps by stride phase, rows
   in serpentine order, then the padding that rounds the taps up to o->round. */
static int u85_subkernel(const em_kernel *k, const u85_order *o, u85_source *src, int core, int ofm_base,
                         int ifm_base, int sx, int sy, int sub_w, int sub_h, int16_t *dense) {
    const int per_tap = o->ofm_ub / o->cores; /* weights per IFM channel of a tap */
    int left = (sub_w * sub_h + o->round - 1) / o->round * o->round;
    int py, px, ky, kx;
    for (py = 0; py < o->stride_y; py++) {
        int rows = (sub_h + o->stride_y - 1 - py) / o->stride_y;
        for (px = 0; px < o->stride_x; px++) {
            int cols = (sub_w + o->stride_x - 1 - px) / o->stride_x;
            for (ky = 0; ky < rows; ky++) {
                for (kx = 0; kx < cols; kx++) {
                    int x = ky % 2 == 0 ? kx : cols - 1 - kx;
                    left--;
                    if (u85_tap(k, o, src, core, ofm_base, ifm_base, sy + py + ky * o->stride_y,
                                sx + px + x * o->stride_x, dense))
                        return -1;
                    if (k->depthwise && left % o->round == 0 && source_skip(src, (long)o->dw_pad * per_tap)) return -1;
                }
            }
        }
    }
    if (left > 0 && source_skip(src, (long)(left + (k->depthwise ? o->dw_pad : 0)) * o->ifm_ub * per_tap)) return -1;
    return 0;
}

/* One decoder's order: regor EthosU85WeightOrdering::GetNext (OFM blocks; IFM blocks in
   serpentine order across OFM blocks; sub-kernels column-major; IFM then OFM micro-blocks). */
static int u85_order_stream(em_state *s, const em_kernel *k, const u85_order *o, u85_source *src, int core,
                            int16_t *dense) {
    const int ifm_depth = k->depthwise ? 1 : k->ifm_depth;
    int ob, ib = 0, step = -o->ifm_block, sx, sy, iuo, ouo, last_ib = 0;
    for (ob = 0; ob < k->ofm_depth; ob += k->ofm_block_depth) {
        int clipped_ofm = k->ofm_depth - ob < k->ofm_block_depth ? k->ofm_depth - ob : k->ofm_block_depth;
        step = -step;
        for (ib = last_ib; ib < ifm_depth && ib >= 0; ib += step) {
            int clipped_ifm = ifm_depth - ib < o->ifm_block ? ifm_depth - ib : o->ifm_block;
            last_ib = ib;
            for (sx = 0; sx < k->kw; sx += o->decomp_x) {
                int sub_w = k->kw - sx < o->decomp_x ? k->kw - sx : o->decomp_x;
                for (sy = 0; sy < k->kh; sy += o->decomp_y) {
                    int sub_h = k->kh - sy < o->decomp_y ? k->kh - sy : o->decomp_y;
                    for (iuo = 0; iuo < (k->depthwise ? 1 : clipped_ifm); iuo += o->ifm_ub)
                        for (ouo = 0; ouo < clipped_ofm; ouo += o->ofm_ub)
                            if (u85_subkernel(k, o, src, core, ob + ouo, ib + iuo, sx, sy, sub_w, sub_h, dense))
                                return em_fail(s, ETHOSU_MODEL_UNSUPPORTED,
                                               "weight stream of decoder %d ends early or is malformed", core);
                }
            }
        }
    }
    return 0;
}

int em_decode_weights_u85(em_state *s, const em_kernel *k, int macs, const em_weight_streams *w, int16_t *dense) {
    const u85_config *c = u85_config_of(macs);
    size_t total = (size_t)k->ofm_depth * k->kh * k->kw * (k->depthwise ? 1u : (size_t)k->ifm_depth);
    u85_order o;
    u85_source src;
    fwd_stream fwd;
    int core, rc;
    if (c == NULL) return em_fail(s, ETHOSU_MODEL_CONFIG_MISMATCH, "no Ethos-U85 configuration has %d MACs", macs);
    if (total > ETHOSU_MODEL_WEIGHT_CAPACITY)
        return em_fail(s, ETHOSU_MODEL_CAPACITY, "%u weights in one command exceed ETHOSU_MODEL_WEIGHT_CAPACITY %u",
                       (unsigned)total, (unsigned)ETHOSU_MODEL_WEIGHT_CAPACITY);
    if ((rc = u85_order_init(s, k, c, &o))) return rc;
    memset(dense, 0, total * sizeof(int16_t));
    memset(&src, 0, sizeof(src));
    if (k->fast) {
        if (fwd_open(&fwd, w->data[0], w->length[0]))
            return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "FWD weight stream of %u bytes has no 32-byte header",
                           (unsigned)w->length[0]);
        src.fwd = &fwd;
        src.cores = c->cores;
        /* EthosU85WeightOrderingFwd: ofmUBlock x ifmUBlock x subKernelRound / streams */
        src.block = (uint32_t)(o.ofm_ub * o.ifm_ub * o.round / c->cores);
        for (core = 0; core < c->cores; core++) {
            src.core = core;
            src.taken = 0;
            if ((rc = u85_order_stream(s, k, &o, &src, core, dense))) return rc;
        }
        return 0;
    }
    src.swd = &g_dec;
    for (core = 0; core < c->cores; core++) {
        if (w->data[core] == NULL) return em_fail(s, ETHOSU_MODEL_UNSUPPORTED, "weight decoder %d has no stream", core);
        mlw_open(&g_dec, w->data[core], w->length[core]);
        if ((rc = u85_order_stream(s, k, &o, &src, core, dense))) return rc;
    }
    return 0;
}

static uint64_t le_bytes(const uint8_t *p, int count) {
    uint64_t v = 0;
    int i;
    for (i = count - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

int em_load_scales_u85(em_state *s, const uint8_t *records, uint64_t length, int depth, int acc48) {
    /* EncodeBias32 / EncodeBias48: bias bytes, then the scale, the shift in byte 8 */
    const int bias_bytes = acc48 ? 6 : 4;
    const uint64_t scale_mask = acc48 ? 0x7fffu : 0x7fffffffu;
    int o;
    if (depth > (int)ETHOSU_MODEL_MAX_DEPTH)
        return em_fail(s, ETHOSU_MODEL_CAPACITY, "OFM depth %d exceeds ETHOSU_MODEL_MAX_DEPTH", depth);
    if (records == NULL || length < (uint64_t)depth * 10u)
        return em_fail(s, ETHOSU_MODEL_BAD_ADDRESS, "scale stream of %u bytes holds fewer than %d records",
                       (unsigned)length, depth);
    for (o = 0; o < depth; o++, records += 10) {
        uint64_t bias = le_bytes(records, bias_bytes), sign = (uint64_t)1 << (8 * bias_bytes - 1);
        s->bias[o] = (int64_t)((bias ^ sign) - sign);
        s->mult[o] = (int32_t)(le_bytes(records + bias_bytes, 8 - bias_bytes) & scale_mask);
        s->shift[o] = (uint8_t)(records[8] & 0x3f);
    }
    return 0;
}
