/* Reuse of decoded weights: Vela splits one operation into several commands over one weight
   stream (DeiT-tiny's patch embedding on Ethos-U85 is 196 CONVs of the same 16x16x3x192
   kernel, Wav2Letter's 1x32 CONV on U55 10 of 16 M weights), and a host process runs the same
   program again and again (verify's input sets, a benchmark's inferences). A decode is reused
   when everything it depended on is the same: architecture, configuration, kernel and channels
   (em_kernel), the streams' lengths and their bytes, compared byte for byte with the copy kept
   here (never a digest; not their addresses: a host run passes a fresh copy of the weights).
   Nothing else feeds the decoders (em_decode_weights, em_decode_weights_u85). Decodes go
   straight into a store of NPU_MODEL_WEIGHT_KEEP int16 elements where they fit (appended
   until the store is full, then all forgotten at once), else into the caller's buffer, where
   only the last one stays valid (until em_weights_forget). */
#include <string.h>

#include "em_internal.h"

#if NPU_MODEL_WEIGHT_REUSE_BYTES > 0
#ifndef NPU_MODEL_WEIGHT_KEEP
#define NPU_MODEL_WEIGHT_KEEP 0u
#endif
#define KEPT_MAX 1024

typedef struct kept_decode {
    em_weight_key key;         /* stream addresses zeroed */
    size_t streams;            /* offset of the stream copy */
    const int16_t *weights;    /* in the store or the caller's buffer; NULL: no longer valid */
    size_t count;
    int32_t max_abs;
} kept_decode;

static uint8_t g_streams[NPU_MODEL_WEIGHT_REUSE_BYTES];
static int16_t g_kept[NPU_MODEL_WEIGHT_KEEP > 0 ? NPU_MODEL_WEIGHT_KEEP : 1u];
static kept_decode g_decodes[KEPT_MAX];
static int g_count;                   /* entries in g_decodes */
static size_t g_stream_end, g_kept_end;
static int g_outside = -1;            /* the entry whose weights are in the caller's buffer */

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

static void forget_all(void) {
    g_count = 0;
    g_stream_end = g_kept_end = 0;
    g_outside = -1;
}

const int16_t *em_weights_kept(const em_weight_key *key, size_t count, int32_t *max_abs) {
    em_weight_key bare;
    int i;
    address_free(key, &bare);
    for (i = g_count - 1; i >= 0; i--) {
        const kept_decode *e = &g_decodes[i];
        if (e->weights == NULL || e->count != count || !same_decode(e, &bare, key)) continue;
        *max_abs = e->max_abs;
        return e->weights;
    }
    return NULL;
}

int16_t *em_weights_room(const em_weight_key *key, size_t count, int16_t *fallback) {
    size_t bytes = stream_bytes(key);
    if (bytes > sizeof(g_streams) || count > NPU_MODEL_WEIGHT_KEEP) return fallback;
    if (g_count == KEPT_MAX || bytes > sizeof(g_streams) - g_stream_end || count > NPU_MODEL_WEIGHT_KEEP - g_kept_end)
        forget_all();
    return g_kept + g_kept_end;
}

void em_weights_decoded(const em_weight_key *key, const int16_t *weights, size_t count, int32_t max_abs) {
    size_t bytes = stream_bytes(key);
    const int inside = weights == g_kept + g_kept_end && count <= NPU_MODEL_WEIGHT_KEEP - g_kept_end;
    kept_decode *e;
    int d;
    if (!inside) em_weights_forget(); /* the caller's buffer holds these now */
    if (bytes > sizeof(g_streams)) return;
    if (g_count == KEPT_MAX || bytes > sizeof(g_streams) - g_stream_end) {
        if (inside) return; /* em_weights_room made room: cannot happen */
        forget_all();
    }
    e = &g_decodes[g_count];
    address_free(key, &e->key);
    e->streams = g_stream_end;
    e->weights = weights;
    e->count = count;
    e->max_abs = max_abs;
    for (d = 0; d < 4; d++) {
        if (key->w.data[d] == NULL) continue;
        memcpy(g_streams + g_stream_end, key->w.data[d], key->w.length[d]);
        g_stream_end += key->w.length[d];
    }
    if (inside) g_kept_end += count;
    else g_outside = g_count;
    g_count++;
}

void em_weights_forget(void) {
    if (g_outside >= 0) g_decodes[g_outside].weights = NULL;
    g_outside = -1;
}
#else
const int16_t *em_weights_kept(const em_weight_key *key, size_t count, int32_t *max_abs) {
    (void)key; (void)count; (void)max_abs;
    return NULL;
}
int16_t *em_weights_room(const em_weight_key *key, size_t count, int16_t *fallback) {
    (void)key; (void)count;
    return fallback;
}
void em_weights_decoded(const em_weight_key *key, const int16_t *weights, size_t count, int32_t max_abs) {
    (void)key; (void)weights; (void)count; (void)max_abs;
}
void em_weights_forget(void) {}
#endif
