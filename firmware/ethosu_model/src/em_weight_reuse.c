/* Reuse of decoded weights: Vela splits one operation into several commands over one weight
   stream (DeiT-tiny's patch embedding on Ethos-U85 is 196 CONVs of the same 16x16x3x192
   kernel), and a host process runs the same program again and again (verify's input sets).
   The last decode is reused when everything it depended on is the same: architecture,
   configuration, kernel and channels (em_kernel), and the streams, compared byte for byte with
   the copy kept here (never a digest). Nothing else feeds the decoders (em_decode_weights,
   em_decode_weights_u85). */
#include <string.h>

#include "em_internal.h"

#if ETHOSU_MODEL_WEIGHT_REUSE_BYTES > 0
static uint8_t g_streams[ETHOSU_MODEL_WEIGHT_REUSE_BYTES];
static em_weight_key g_key;
static int g_valid;

static size_t stream_bytes(const em_weight_key *key) {
    size_t total = 0;
    int d;
    for (d = 0; d < 4; d++) total += key->w.data[d] != NULL ? key->w.length[d] : 0u;
    return total;
}

int em_weights_reusable(const em_weight_key *key) {
    size_t at = 0;
    int d;
    if (!g_valid || memcmp(key, &g_key, sizeof(*key)) != 0) return 0;
    for (d = 0; d < 4; d++) {
        if (key->w.data[d] == NULL) continue;
        if (memcmp(g_streams + at, key->w.data[d], key->w.length[d]) != 0) return 0;
        at += key->w.length[d];
    }
    return 1;
}

void em_weights_decoded(const em_weight_key *key) {
    size_t at = 0;
    int d;
    g_valid = 0;
    if (stream_bytes(key) > sizeof(g_streams)) return;
    for (d = 0; d < 4; d++) {
        if (key->w.data[d] == NULL) continue;
        memcpy(g_streams + at, key->w.data[d], key->w.length[d]);
        at += key->w.length[d];
    }
    g_key = *key;
    g_valid = 1;
}

void em_weights_forget(void) { g_valid = 0; }
#else
int em_weights_reusable(const em_weight_key *key) { (void)key; return 0; }
void em_weights_decoded(const em_weight_key *key) { (void)key; }
void em_weights_forget(void) {}
#endif
