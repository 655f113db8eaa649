/* The COP1 driver payload (what ethosu_invoke_v3 receives): its driver actions walked once, for
   running and for listing. */
#include "em_internal.h"

#define EM_FOURCC 0x31504f43u /* "COP1" */
#define EM_DA_OPTIMIZER_CONFIG 1u
#define EM_DA_COMMAND_STREAM 2u
#define EM_DA_NOP 5u

int em_config_arch(uint32_t config) {
    static const int arch_of_product[3] = {55, 65, 85}; /* regor ConfigRegister: product 0/1/2 */
    unsigned product = (config >> 28) & 0xfu;
    return product < 3 ? arch_of_product[product] : 0;
}

unsigned em_config_macs(uint32_t config) { return 1u << (config & 0xfu); }

int em_walk_payload(const uint32_t *words, size_t count, const em_payload_visitor *visit, void *ctx) {
    size_t i = 1;
    int seen_config = 0, rc;
    if (count == 0 || words[0] != EM_FOURCC)
        return visit->malformed(ctx, "custom data is not a COP1 driver payload", 0);
    while (i < count) {
        unsigned action = words[i] & 0xffu;
        if (action == EM_DA_OPTIMIZER_CONFIG) {
            if (i + 2 >= count) return visit->malformed(ctx, "truncated optimizer config", 0);
            rc = visit->config(ctx, words[i + 1]);
            if (rc) return rc;
            seen_config = 1;
            i += 3;
        } else if (action == EM_DA_COMMAND_STREAM) {
            size_t length = ((words[i] >> 8) & 0xffu) << 16 | (words[i] >> 16);
            if (i + 1 + length > count) return visit->malformed(ctx, "truncated command stream", 0);
            if (!seen_config) return visit->malformed(ctx, "command stream without an optimizer config", 0);
            rc = visit->stream(ctx, words + i + 1, length);
            if (rc) return rc;
            i += 1 + length;
        } else if (action == EM_DA_NOP) {
            i += 1;
        } else {
            return visit->malformed(ctx, "driver action %u", action);
        }
    }
    return 0;
}
