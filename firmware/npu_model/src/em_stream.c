/* The command stream walk: the register file is written by NPU_SET_* commands and each NPU_OP_*
   runs against it; the entry point npu_model_invoke. */
#include <string.h>

#include "em_internal.h"

static em_state g_state; /* one NPU; not re-entrant (neither is the hardware) */

/* An operation's feature-map access fell outside the region the driver gave: the stream's
   registers describe more than the region holds (the hardware would read or clobber memory
   beyond it), so the model stops instead of computing something plausible. */
static int fault(em_state *s, unsigned code, size_t word) {
    int which = s->fault - 1;
    unsigned region = em_fmap_region(s, which);
    return em_fail(s, NPU_MODEL_BAD_ADDRESS, "%s at word %u: its %s registers address bytes beyond region %u (%u bytes)",
                   em_opname(s->arch, 0, code), (unsigned)word, em_fmap_name(s, which), region, (unsigned)s->size[region]);
}

static int run_stream(void *ctx, const uint32_t *words, size_t count) {
    em_state *s = (em_state *)ctx;
    size_t i = 0;
    while (i < count) {
        uint32_t w = words[i];
        unsigned code = w & 0x3ffu;
        unsigned control = (w >> 14) & 3u;
        if (control == 0) {
            if (!em_known_command(s->arch, 0, code))
                return em_fail(s, NPU_MODEL_UNSUPPORTED, "unknown cmd0 opcode %x at word %u", code, (unsigned)i);
            if (code < 0x100u) {
                int rc;
                s->fault = 0;
                s->op_code = code;
                rc = s->ops->run_operation(s, code, w >> 16);
                if (rc) return rc;
                if (s->fault) return fault(s, code, i);
                if ((rc = em_observe_op(s, code, w >> 16, i))) return rc;
                if (code == EM_CMD0_NPU_OP_STOP) return 0;
            } else {
                s->reg0[code & 0x1ffu] = w;
            }
            i += 1;
        } else {
            if (i + 1 >= count) return em_fail(s, NPU_MODEL_BAD_PAYLOAD, "command stream ends inside a cmd1");
            if (!em_known_command(s->arch, 1, code))
                return em_fail(s, NPU_MODEL_UNSUPPORTED, "unknown cmd1 opcode %x at word %u", code, (unsigned)i);
            if (code >= 0x100u) { /* a cmd1 operation (the U85's NPU_OP_BRANCH): it says where to go on */
                int rc = s->ops->run_cmd1_operation(s, code, (uint64_t)w | ((uint64_t)words[i + 1] << 32), i, count, &i);
                if (rc) return rc;
                continue;
            }
            s->reg1[code & 0xffu] = (uint64_t)w | ((uint64_t)words[i + 1] << 32);
            i += 2;
        }
    }
    return 0;
}

/* SHRAM banks per MAC configuration: regor architecture/ethosu55/ethos_u55.cpp s_EthosU55Configs
   (shramBanks) and ethosu65/ethos_u65.cpp s_EthosU65Configs. */
static int shram_banks(int macs) { return macs <= 64 ? 16 : (macs == 128 ? 24 : 48); }

static int check_config(void *ctx, uint32_t cfg) {
    em_state *s = (em_state *)ctx;
    const npu_model_npu *npu = s->npu;
    unsigned total = (unsigned)npu->macs * (npu->cores ? npu->cores : 1u);
    int arch = em_config_arch(cfg);
    if (!em_arch_known(npu->arch))
        return em_fail(s, NPU_MODEL_UNSUPPORTED, "NPU arch U%u (the model runs U55, U65 and U85)", npu->arch);
    if (arch != (int)npu->arch || em_config_macs(cfg) != total)
        return em_fail(s, NPU_MODEL_CONFIG_MISMATCH,
                       "payload compiled for Ethos-U%d with %u MACs, target is Ethos-U%u-%u (recompile for the target)",
                       arch, em_config_macs(cfg), (unsigned)npu->arch, total);
    s->arch = arch;
    s->ops = em_arch_for(arch);
    return 0;
}

static int malformed(void *ctx, const char *what, unsigned value) {
    return em_fail((em_state *)ctx, NPU_MODEL_BAD_PAYLOAD, what, value);
}

int npu_model_invoke(const npu_model_npu *npu, const void *custom_data, size_t custom_data_size,
                        const uint64_t *base_addr, const size_t *base_addr_size, int num_base_addr,
                        npu_model_status *status) {
    static const em_payload_visitor visit = {check_config, run_stream, malformed};
    em_state *s = &g_state;
    memset(s->reg0, 0, sizeof(s->reg0));
    memset(s->reg1, 0, sizeof(s->reg1));
    status->code = 0;
    status->message[0] = '\0';
    s->status = status;
    s->npu = npu;
    s->base = base_addr;
    s->size = base_addr_size;
    s->regions = num_base_addr;
    s->cores = npu->cores ? npu->cores : 1;
    s->macs = npu->macs;
    s->ops = em_arch_for(npu->arch);
    s->arch = s->ops->arch; /* the register layout (U65 streams use the U55's) */
    s->shram_banks = shram_banks(npu->macs);
    s->lut_loaded = 0; /* regor forgets every LUT at the start of a stream and reloads them */
    memset(s->chain, 0, sizeof(s->chain));
    memset(&s->kept, 0, sizeof(s->kept)); /* an accumulator is kept within one stream */
    memset(&s->cond, 0, sizeof(s->cond)); /* no operation has set the branch condition */
    s->cond.flag = -1;
    em_observe_reset(s);
    if (custom_data_size % 4 != 0) return malformed(s, "custom data is not a COP1 driver payload", 0);
    if (num_base_addr > EM_MAX_REGIONS)
        return em_fail(s, NPU_MODEL_BAD_PAYLOAD, "%d base addresses (at most %d)", num_base_addr, EM_MAX_REGIONS);
    return em_walk_payload((const uint32_t *)custom_data, custom_data_size / 4, &visit, s);
}
