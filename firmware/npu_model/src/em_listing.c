/* The decoded command stream as text (checked against Vela's --verbose-register-command-stream). */
#include "em_internal.h"

typedef struct listing {
    char *out;
    size_t cap, at;
    int total;
    int arch; /* from the config word */
} listing;

static int list_stream(void *ctx, const uint32_t *words, size_t count) {
    listing *l = (listing *)ctx;
    size_t i = 0;
    while (i < count) {
        uint32_t w = words[i];
        int kind = ((w >> 14) & 3u) ? 1 : 0;
        unsigned code = w & 0x3ffu;
        l->at = em_put_hex(l->out, l->at, l->cap, (uint32_t)(i * 4), 6);
        l->at = em_put_str(l->out, l->at, l->cap, " ");
        l->at = em_put_str(l->out, l->at, l->cap, em_opname(l->arch, kind, code));
        l->at = em_put_str(l->out, l->at, l->cap, " ");
        l->at = em_put_hex(l->out, l->at, l->cap, w >> 16, 4);
        l->at = em_put_str(l->out, l->at, l->cap, " ");
        if (kind) {
            if (i + 1 >= count) return -1;
            l->at = em_put_hex(l->out, l->at, l->cap, words[i + 1], 8);
            i += 2;
        } else {
            l->at = em_put_str(l->out, l->at, l->cap, "-");
            i += 1;
        }
        l->at = em_put_str(l->out, l->at, l->cap, "\n");
        if (l->at + 1 >= l->cap) return -1;
        l->total++;
    }
    return 0;
}

static int list_config(void *ctx, uint32_t config) {
    ((listing *)ctx)->arch = em_config_arch(config);
    return 0;
}

static int list_malformed(void *ctx, const char *what, unsigned value) { (void)ctx; (void)what; (void)value; return -1; }

int npu_model_list(const void *custom_data, size_t custom_data_size, char *out, size_t out_size) {
    static const em_payload_visitor visit = {list_config, list_stream, list_malformed};
    listing l;
    if (out_size == 0) return -1;
    l.out = out; l.cap = out_size; l.at = 0; l.total = 0; l.arch = 55;
    if (em_walk_payload((const uint32_t *)custom_data, custom_data_size / 4, &visit, &l) != 0) return -1;
    out[l.at] = '\0';
    return l.total;
}
