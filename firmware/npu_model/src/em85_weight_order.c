/* The Ethos-U85 weight order (regor architecture/ethosu85/ethos_u85_weight_encoder.cpp
   EthosU85WeightOrdering, EthosU85WeightOrderingFwd): the SWD streams of the weight decoders, or
   the one FWD stream, decoded into dense weights. */
#include <string.h>

#include "em_weight_codecs.h"

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

/* The weights of one decoder's order: its own SWD stream, or its share of the one FWD stream,
   which interleaves the decoders' orders in blocks of `block` weights (regor
   EthosU85WeightOrderingFwd::Get; every order is a whole number of blocks). */
typedef struct u85_source {
    em_mlw_dec *swd;
    const em_fwd_stream *fwd;
    uint32_t taken, block;
    int core, cores;
} u85_source;

static int source_take(u85_source *src, int16_t *out, int n) {
    int i;
    if (src->swd) return em_mlw_take(src->swd, out, n);
    for (i = 0; i < n; i++, src->taken++) {
        uint32_t t = src->taken;
        uint32_t at = ((t / src->block) * (uint32_t)src->cores + (uint32_t)src->core) * src->block + t % src->block;
        if (em_fwd_get(src->fwd, at, out + i)) return -1;
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
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "Ethos-U85-%d has no %dx%d OFM microblock (ACC_FORMAT)", c->macs,
                       k->ublock_h, k->ublock_w);
    if (k->sparse && k->depthwise)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "2:4-sparse weights on a DEPTHWISE (WEIGHT_FORMAT)");
    if (k->fast && k->depthwise)
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "fast (FWD) weights on a DEPTHWISE (WEIGHT_FORMAT)");
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
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "kernel stride %dx%d / dilation %dx%d outside the U85 weight order",
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
                int64_t at = em_dense_at(k, ofm_base + ouz + oi, wy, wx, ifm_base + iui);
                if (at < 0) continue;
                if (k->depthwise) { dense[at] = block[oi * o->step]; continue; }
                for (iz = 0; iz < o->step && ifm_base + iui + iz < k->ifm_depth; iz++)
                    dense[at + iz] = block[oi * o->step + iz];
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
/* The OFM block where channel k->ofm_hi lies starts here: mark it for the next block (when the
   command has channels past ofm_hi). */
static void mark_block(const em_kernel *k, const u85_source *src, int core, int ob, int clipped_ofm, int step,
                       int last_ib, int *marked) {
    if (*marked || ob + clipped_ofm <= k->ofm_hi || k->ofm_hi >= k->ofm_depth) return;
    if (src->swd) em_mlw_mark_here(src->swd, &em_g_resume.at[core].mlw);
    em_g_resume.at[core].fwd_taken = src->taken;
    em_g_resume.at[core].ob = ob;
    em_g_resume.at[core].step = step;
    em_g_resume.at[core].last_ib = last_ib;
    *marked = 1;
}

/* Where this decoder's order starts: its first OFM block, or the mark a block before left. */
typedef struct u85_start {
    int ob, step, last_ib;
} u85_start;

static int u85_order_stream(em_state *s, const em_kernel *k, const u85_order *o, u85_source *src, int core,
                            const u85_start *start, int16_t *dense, int *marked) {
    const int ifm_depth = k->depthwise ? 1 : k->ifm_depth;
    int ob, ib = 0, step = start->step, sx, sy, iuo, ouo, last_ib = start->last_ib;
    /* OFM blocks lead the stream: past the decoded channels the rest is not read */
    for (ob = start->ob; ob < k->ofm_depth; ob += k->ofm_block_depth) {
        int clipped_ofm = k->ofm_depth - ob < k->ofm_block_depth ? k->ofm_depth - ob : k->ofm_block_depth;
        mark_block(k, src, core, ob, clipped_ofm, step, last_ib, marked);
        if (ob >= k->ofm_hi) break;
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
                                return em_fail(s, NPU_MODEL_UNSUPPORTED,
                                               "weight stream of decoder %d ends early or is malformed", core);
                }
            }
        }
    }
    return 0;
}

/* Every decoder's order, each from its mark when the block before left marks for this one. */
static int u85_decoders(em_state *s, const em_kernel *k, const u85_order *o, int macs, const em_weight_streams *w,
                        u85_source *src, int16_t *dense) {
    const int resume = em_resume_applies(k, w, macs);
    int core, rc, marked = 1;
    for (core = 0; core < o->cores; core++) {
        u85_start start = {0, -o->ifm_block, 0};
        int core_marked = 0, resumed = 0;
        if (!src->fwd && w->data[core] == NULL) {
            em_weights_resume_forget();
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "weight decoder %d has no stream", core);
        }
        src->core = core;
        src->taken = 0;
        if (resume) {
            src->swd = src->fwd ? NULL : em_mlw_resume(w->data[core], w->length[core], &em_g_resume.at[core].mlw);
            resumed = src->fwd != NULL || src->swd != NULL;
        }
        if (resumed) {
            start.ob = em_g_resume.at[core].ob;
            start.step = em_g_resume.at[core].step;
            start.last_ib = em_g_resume.at[core].last_ib;
            src->taken = em_g_resume.at[core].fwd_taken;
        } else if (!src->fwd) {
            src->swd = em_mlw_open(w->data[core], w->length[core]);
        }
        if ((rc = u85_order_stream(s, k, o, src, core, &start, dense, &core_marked))) {
            em_weights_resume_forget();
            return rc;
        }
        marked &= core_marked;
    }
    em_resume_recorded(k, w, macs, marked);
    return 0;
}

int em_decode_weights_u85(em_state *s, const em_kernel *k, int macs, const em_weight_streams *w, int16_t *dense) {
    const u85_config *c = u85_config_of(macs);
    size_t total = (size_t)(k->ofm_hi - k->ofm_lo) * em_weights_per_channel(k);
    u85_order o;
    u85_source src;
    em_fwd_stream fwd;
    int rc;
    if (c == NULL) return em_fail(s, NPU_MODEL_CONFIG_MISMATCH, "no Ethos-U85 configuration has %d MACs", macs);
    if (total > NPU_MODEL_WEIGHT_CAPACITY)
        return em_fail(s, NPU_MODEL_CAPACITY, "%u weights in one command exceed NPU_MODEL_WEIGHT_CAPACITY %u",
                       (unsigned)total, (unsigned)NPU_MODEL_WEIGHT_CAPACITY);
    memset(&o, 0, sizeof(o));
    if ((rc = u85_order_init(s, k, c, &o))) return rc;
    memset(dense, 0, total * sizeof(int16_t));
    memset(&src, 0, sizeof(src));
    if (k->fast) {
        if (em_fwd_open(&fwd, w->data[0], w->length[0]))
            return em_fail(s, NPU_MODEL_UNSUPPORTED, "FWD weight stream of %u bytes has no 32-byte header",
                           (unsigned)w->length[0]);
        src.fwd = &fwd;
        src.cores = c->cores;
        /* EthosU85WeightOrderingFwd: ofmUBlock x ifmUBlock x subKernelRound / streams */
        src.block = (uint32_t)(o.ofm_ub * o.ifm_ub * o.round / c->cores);
    }
    return u85_decoders(s, k, &o, macs, w, &src, dense);
}
