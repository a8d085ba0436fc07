/*
 * attention.h — multi-head softmax attention with an optional key window:
 * the one body behind two mixers, `attention` (every key its mask allows,
 * window 0) and `swa` (sliding-window attention: the keys within `window`
 * positions, docs/mixers.md).  Same parameters (wq wk wv wo, bq bk bv bo),
 * projections, heads and saved layout; the window only narrows the tiles'
 * AttnMask (engine/attn_tiles.h) and, in generation, the key/value cache.
 *
 * Not for: the tiles themselves (engine/attn_tiles.c).
 */
#ifndef MIXBENCH_MIXERS_ATTENTION_H
#define MIXBENCH_MIXERS_ATTENTION_H

#include <stddef.h>

#include "engine/mixer.h"

int attention_declare(const Config *c, ParamDecl *decl);
size_t attention_saved(const Config *c);
size_t attention_scratch(const Config *c, int B);

/* x [B, n, d] -> y [B, n, d]; query i sees keys j <= i (causal) or all j,
   and with window > 0 only |i - j| < window (0: no window). */
void attention_forward_window(const MixArgs *a, int window, const float *x, float *y);
void attention_backward_window(const MixArgs *a, int window, const float *x, const float *dy, float *dx);

/* The key/value cache keeps `slots` positions per head (n_ctx for
   attention, min(window, n_ctx) for swa), position t in slot t mod slots:
   a query at t reads the last min(t + 1, slots) of them. */
size_t attention_cache_slots_floats(const Config *c, int slots);
void attention_step_slots(const MixArgs *a, int slots, int t, const float *x_t, float *y_t, float *cache);

/* The bench's FLOPs per token (forward + backward) when each query is
   counted against `keys` keys: 12 keys d. */
double attention_flops_keys(const Config *c, int keys);

#endif
