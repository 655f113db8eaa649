/* Pooling windows, the NPU's average and a pool's scaling (U55/U65 and U85). */
#ifndef EM_POOL_H
#define EM_POOL_H

#include "em_output.h"

/* A pooling window at output (oy, ox), channel c, zero point removed: its maximum, its sum, the
   sum over its taps of all `ifm_depth` channels, or its minimum (the U85's MIN, regor
   GeneratePoolingOp for ReduceMin); *count gets the taps inside the IFM. */
#define EM_WINDOW_MAX 0
#define EM_WINDOW_SUM 1
#define EM_WINDOW_CHANNEL_SUM 2
#define EM_WINDOW_MIN 3
int64_t em_pool_window(const em_fmap *in, const em_geom *g, int oy, int ox, int c, int kind, int ifm_depth,
                       int *count);
/* The average the NPU computes itself: sum / count as TOSA AVG_POOL2D (reciprocal_scale). */
int64_t em_pool_average(em_state *s, int64_t sum, int count, unsigned mode, int *err);
/* How a pool (U55/U65 and U85) scales the accumulator of a channel into the OFM stage. */
typedef struct em_pool_scaling {
    int hw_average;  /* the NPU's own average (em_pool_average) */
    int per_channel; /* the records in s->bias/mult/shift: bias, then scale */
    int64_t scale;   /* else OFM_SCALE and its shift */
    int shift;
    int loaded_bits; /* U85 acc_input IFM2: the loaded accumulator, and it plus the bias, must fit
                        this many bits (em85_acc_check); 0 for a window of IFM values */
} em_pool_scaling;
/* The scaled value of channel c from its accumulator `acc` over `count` taps; 0 or an error. */
int em_pool_scaled(em_state *s, const em_pool_scaling *sc, unsigned round, int c, int64_t acc, int count,
                   int64_t *value);
/* 1 for a 1x1 window at stride 1 without padding or upscaling: every window is one IFM element,
   the output position's own (em_pool_window's taps reduce to it, with a count of 1). */
int em_pool_is_pointwise(const em_geom *g);
/* A pointwise pool of `in` (the IFM, or U85's IFM2 accumulator input) into o, a run of channels
   at a time; an 8-bit IFM with one scale for every channel through a table of its 256 values. */
int em_pool_pointwise(em_state *s, const em_out *o, const em_fmap *in, const em_pool_scaling *sc);

#endif
