/* The U55/U65 weight order (regor architecture/ethosu55/ethos_u55_weight_encoder.cpp): the
   standard-format streams of the cores decoded into dense weights. */
#include <string.h>

#include "em_weight_codecs.h"

static int round_up(int v, int m) { return (v + m - 1) / m * m; }

/* The order of one core's stream: EthosUWeightOrdering::GetNext in regor
   architecture/ethosu55/ethos_u55_weight_encoder.cpp. Fills `dense` for the ofm channels
   core, core + cores, ... (the stream interleaves channels over the cores). */
em_weight_resume em_g_resume;

static void bare_kernel(const em_kernel *k, em_kernel *out) {
    memcpy(out, k, sizeof(*out));
    out->ofm_lo = out->ofm_hi = 0;
}

int em_resume_applies(const em_kernel *k, const em_weight_streams *w, int macs) {
    em_kernel bare;
    if (!em_g_resume.valid || k->ofm_lo == 0 || em_g_resume.next_lo != k->ofm_lo || em_g_resume.macs != macs) return 0;
    bare_kernel(k, &bare);
    return memcmp(&bare, &em_g_resume.k, sizeof(bare)) == 0 && memcmp(w, &em_g_resume.w, sizeof(*w)) == 0;
}

void em_resume_recorded(const em_kernel *k, const em_weight_streams *w, int macs, int marked) {
    em_g_resume.valid = marked;
    em_g_resume.next_lo = k->ofm_hi;
    em_g_resume.macs = macs;
    bare_kernel(k, &em_g_resume.k);
    memcpy(&em_g_resume.w, w, sizeof(*w));
}

void em_weights_resume_forget(void) { em_g_resume.valid = 0; }

/* The OFM block of this core's stream where channel ofm_hi lies starts here: mark it for the
   next block (when the command has channels past ofm_hi). */
static void mark_block(const em_kernel *k, em_mlw_dec *d, int core, int cores, int ob, int clipped_ofm, int *marked) {
    if (*marked || core + (ob + clipped_ofm - 1) * cores < k->ofm_hi || k->ofm_hi >= k->ofm_depth) return;
    em_mlw_mark_here(d, &em_g_resume.at[core].mlw);
    em_g_resume.at[core].ob = ob;
    *marked = 1;
}

static int order_stream(em_state *s, const em_kernel *k, em_mlw_dec *d, int core, int start_ob, int16_t *dense,
                        int *marked) {
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
    /* OFM blocks lead the stream: past the decoded channels the rest is not read */
    for (ob = start_ob; ob < ofm_depth; ob += stream_block) {
        int clipped_ofm = ofm_depth - ob < stream_block ? ofm_depth - ob : stream_block;
        mark_block(k, d, core, cores, ob, clipped_ofm, marked);
        if (core + ob * cores >= k->ofm_hi) break;
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
                            if (em_mlw_take(d, block, ofm_ub * iu) != 0)
                                return em_fail(s, NPU_MODEL_UNSUPPORTED,
                                               "weight stream of core %d ends early or is malformed", core);
                            if (ky >= sub_h) continue;
                            for (ouz = 0; ouz < n_o; ouz++) {
                                int64_t at = em_dense_at(k, core + (ofm_z + ouz) * cores, sy + ky, sx + kx, ifm_z);
                                if (at < 0) continue;
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

int em_weight_streams_u55(em_state *s, int ofm_depth, em_weight_streams *w) {
    unsigned region = EM_F_NPU_SET_WEIGHT_REGION_PARAM(EM_R0(s, NPU_SET_WEIGHT_REGION));
    int core;
    memset(w, 0, sizeof(*w));
    for (core = 0; core < s->cores && core < ofm_depth; core++) {
        uint64_t base = core ? EM_D1(s, NPU_SET_WEIGHT1_BASE) : EM_D1(s, NPU_SET_WEIGHT_BASE);
        uint64_t length = core ? EM_D1(s, NPU_SET_WEIGHT1_LENGTH) : EM_D1(s, NPU_SET_WEIGHT_LENGTH);
        w->data[core] = em_address(s, region, base, length, "weight stream");
        if (w->data[core] == NULL) return s->status->code;
        w->length[core] = (uint32_t)length;
    }
    return 0;
}

int em_decode_weights(em_state *s, const em_kernel *k, const em_weight_streams *w, int16_t *dense) {
    int core;
    size_t total = (size_t)(k->ofm_hi - k->ofm_lo) * em_weights_per_channel(k);
    if (total > NPU_MODEL_WEIGHT_CAPACITY)
        return em_fail(s, NPU_MODEL_CAPACITY, "%u weights in one command exceed NPU_MODEL_WEIGHT_CAPACITY %u",
                       (unsigned)total, (unsigned)NPU_MODEL_WEIGHT_CAPACITY);
    const int resume = em_resume_applies(k, w, s->macs);
    int marked = 1;
    memset(dense, 0, total * sizeof(int16_t));
    for (core = 0; core < s->cores && core < k->ofm_depth; core++) {
        em_mlw_dec *d = resume ? em_mlw_resume(w->data[core], w->length[core], &em_g_resume.at[core].mlw) : NULL;
        int start_ob = d != NULL ? em_g_resume.at[core].ob : 0, core_marked = 0, rc;
        if (d == NULL) d = em_mlw_open(w->data[core], w->length[core]);
        rc = order_stream(s, k, d, core, start_ob, dense, &core_marked);
        if (rc) {
            em_weights_resume_forget();
            return rc;
        }
        marked &= core_marked;
    }
    em_resume_recorded(k, w, s->macs, marked);
    return 0;
}
