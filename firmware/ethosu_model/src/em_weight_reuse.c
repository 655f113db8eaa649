/* Reuse of decoded weights: Vela splits one operation into several commands over one weight
   stream (DeiT-tiny's patch embedding on Ethos-U85 is 196 CONVs of the same 16x16x3x192
   kernel, Wav2Letter's 1x32 CONV on U55 10 of 16 M weights), and a host process runs the same
   program again and again (verify's input sets, a benchmark's inferences). A decode is reused
   when everything it depended on is the same: architecture, configuration, kernel and channels
   (em_kernel), the streams' lengths and their bytes, compared byte for byte with the copy kept
   here (never a digest; not their addresses: a host run passes a fresh copy of the weights).
   Nothing else feeds the decoders (em_decode_weights, em_decode_weights_u85). The last decode
   stays in the dense buffer; ETHOSU_MODEL_WEIGHT_KEEP (int16 elements) more keep copies of
   earlier decodes, appended until the store is full and then all forgotten at once. */
#include <string.h>

#include "em_internal.h"

#if ETHOSU_MODEL_WEIGHT_REUSE_BYTES > 0
#ifndef ETHOSU_MODEL_WEIGHT_KEEP
#define ETHOSU_MODEL_WEIGHT_KEEP 0u
#endif
#define KEPT_MAX 1024

typedef struct kept_decode {
    em_weight_key key;         /* stream addresses zeroed */
    size_t streams, dense;     /* offsets of the stream copy and of the decoded weights */
    size_t count;              /* decoded weights */
} kept_decode;

static uint8_t g_streams[ETHOSU_MODEL_WEIGHT_REUSE_BYTES];
#if ETHOSU_MODEL_WEIGHT_KEEP > 0
static int16_t g_kept[ETHOSU_MODEL_WEIGHT_KEEP];
#endif
static kept_decode g_decodes[KEPT_MAX];
static int g_count;                   /* entries in g_decodes */
static size_t g_stream_end, g_kept_end;
static int g_last = -1;               /* the entry the dense buffer holds, -1 none */

static size_t stream_bytes(const em_weight_key *key) {
    size_t total = 0;
    int d;
    for (d = 0; d < 4; d++) total += key->w.data[d] != NULL ? key->w.length[d] : 0u;
    return total;
}

/* The key without the streams' addresses. */
static void address_free(const em_weight_key *key, em_weight_key *out) {
    int d;
    memcpy(out, key, sizeof(*out));
    for (d = 0; d < 4; d++) out->w.data[d] = NULL;
}

static int same_decode(const kept_decode *e, const em_weight_key *bare, const em_weight_key *key) {
    size_t at = e->streams;
    int d;
    if (memcmp(bare, &e->key, sizeof(*bare)) != 0) return 0;
    for (d = 0; d < 4; d++) {
        if (key->w.data[d] == NULL) continue;
        if (memcmp(g_streams + at, key->w.data[d], key->w.length[d]) != 0) return 0;
        at += key->w.length[d];
    }
    return 1;
}

int em_weights_reusable(const em_weight_key *key, int16_t *dense, size_t count) {
    em_weight_key bare;
    int i;
    address_free(key, &bare);
    if (g_last >= 0 && same_decode(&g_decodes[g_last], &bare, key)) return 1;
    for (i = 0; i < g_count; i++) {
        const kept_decode *e = &g_decodes[i];
        if (i == g_last || e->count != count || e->dense == (size_t)-1 || !same_decode(e, &bare, key)) continue;
#if ETHOSU_MODEL_WEIGHT_KEEP > 0
        memcpy(dense, g_kept + e->dense, count * sizeof(int16_t));
        g_last = i;
        return 1;
#endif
    }
    (void)dense;
    return 0;
}

void em_weights_decoded(const em_weight_key *key, const int16_t *dense, size_t count) {
    size_t bytes = stream_bytes(key);
    kept_decode *e;
    int d;
    g_last = -1;
    if (bytes > sizeof(g_streams)) return;
    if (g_count == KEPT_MAX || g_stream_end + bytes > sizeof(g_streams)) g_count = 0, g_stream_end = g_kept_end = 0;
    e = &g_decodes[g_count];
    address_free(key, &e->key);
    e->streams = g_stream_end;
    e->count = count;
    e->dense = (size_t)-1;
    for (d = 0; d < 4; d++) {
        if (key->w.data[d] == NULL) continue;
        memcpy(g_streams + g_stream_end, key->w.data[d], key->w.length[d]);
        g_stream_end += key->w.length[d];
    }
#if ETHOSU_MODEL_WEIGHT_KEEP > 0
    if (count <= ETHOSU_MODEL_WEIGHT_KEEP - g_kept_end) {
        memcpy(g_kept + g_kept_end, dense, count * sizeof(int16_t));
        e->dense = g_kept_end;
        g_kept_end += count;
    }
#endif
    (void)dense;
    g_last = g_count++;
}

void em_weights_forget(void) { g_last = -1; }
#else
int em_weights_reusable(const em_weight_key *key, int16_t *dense, size_t count) {
    (void)key; (void)dense; (void)count;
    return 0;
}
void em_weights_decoded(const em_weight_key *key, const int16_t *dense, size_t count) {
    (void)key; (void)dense; (void)count;
}
void em_weights_forget(void) {}
#endif
