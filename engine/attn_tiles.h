/*
 * attn_tiles.h — softmax attention of one head in tiles, in memory linear in
 * n (FlashAttention-2: Dao 2023): the n x n scores never exist at once.
 *
 * Forward walks query tiles of ATTN_TILE_Q rows; each one meets the key
 * tiles of ATTN_TILE_K keys its mask lets it see, keeping per query only the
 * running maximum m and sum l of the softmax (an online softmax: when m
 * grows, the sum and the output so far are rescaled by exp(m_old - m_new)),
 * and leaves the logsumexp m + log l of every query for backward.  Backward
 * recomputes each score tile from q, k and that logsumexp, P = exp(S - lse),
 * and with delta_i = dout_i . o_i (the row sum of P * dP) forms
 * dS = P * (dP - delta) tile by tile.  Every tile product is a matmul
 * (engine/ops.h) through the caller's Gemm context, so precision=bf16 and
 * the product counters see them as before.
 *
 * The mask is a key range per query: causal (keys j <= i) and/or a window
 * (|i - j| < window); tiles wholly outside it are skipped, so a sliding
 * window costs O(n window).
 *
 * Not for: the projections and the heads' layout (engine/mixers/attention.c),
 * incremental decoding (attention.c's forward_step reads the KV cache).
 */
#ifndef MIXBENCH_ATTN_TILES_H
#define MIXBENCH_ATTN_TILES_H

#include <stddef.h>

struct Gemm;

/* Query rows and keys per tile. */
enum { ATTN_TILE_Q = 64, ATTN_TILE_K = 128 };

/* Which keys query i sees: j <= i when causal; |i - j| < window when
   window > 0 (0: every key the causal rule leaves). */
typedef struct {
    int causal;
    int window;
} AttnMask;

/* Floats of scratch the two functions below need (the same for both). */
size_t attn_tiles_scratch_floats(void);

/* One head: q, k, v [n, dh] rows at stride ld (row t at q + t ld) ->
   o [n, dh] at stride ldo, lse [n] the logsumexp of each query's scaled
   scores (scale q.k over the keys it sees), which backward reads. */
void attn_tiles_forward(struct Gemm *g, const AttnMask *mask, int n, int dh, float scale, const float *q,
                        const float *k, const float *v, int ld, float *o, int ldo, float *lse, float *scratch);

/* The gradients of that head: from q, k, v (stride ld), forward's o and
   lse, and dout [n, dh] (o and dout at stride ldo), writes (overwrites)
   dq, dk, dv [n, dh] at stride ldd. */
void attn_tiles_backward(struct Gemm *g, const AttnMask *mask, int n, int dh, float scale, const float *q,
                         const float *k, const float *v, int ld, const float *o, const float *dout, int ldo,
                         const float *lse, float *dq, float *dk, float *dv, int ldd, float *scratch);

#endif
