/*
 * linear_chunks.h — the chunked form of (decayed) linear attention shared by
 * linattn and gla (docs/mixers.md): for one head of one sample,
 *
 *   out_t = sum_{s<=t} gamma^(t-s) (a_t . b_s) v_s       a, b [n, F], v, out [n, E]
 *   (bidirectional, gamma = 1 only: s over all n)
 *
 * computed chunk by chunk: within a chunk of at most LINEAR_CHUNK positions
 * the masked (and decayed) product (a b^T) v, across chunks a state
 * S [F, E] carried forward; every product goes through matmul (engine/gemm.h).
 * The backward pass recomputes the chunk products (nothing per chunk is
 * saved): one pass forward for da, one backward for db and dv.
 * Not for: the feature maps, projections or normalisation around it.
 * linattn calls it with gamma = 1; gla's gate=fixed (RetNet's decay) with a
 * gamma < 1 per head.
 *
 * The gated form (gla's gate=data, GLA's per-feature decay) is below the
 * scalar one: a log gate per position and feature instead of one gamma,
 *
 *   out_t = sum_{s<=t} sum_f a_t[f] b_s[f] exp(P_t[f] - P_s[f]) v_s,
 *   P_t = sum_{u<=t} lg_u,  lg [n, F] <= 0,
 *
 * chunked the same way, with the decays written relative to a reference
 * position so that no factor exceeds 1 (linear_chunks.c says how).
 */
#ifndef MIXBENCH_LINEAR_CHUNKS_H
#define MIXBENCH_LINEAR_CHUNKS_H

#include <stddef.h>

struct Gemm;

/* Positions per chunk: fla's choice for its chunked kernels (64); measured
   here in docs/mixers.md. */
#define LINEAR_CHUNK 64

/* Work of one head's pass, carved from scratch by chunks_carve. */
typedef struct {
    float *A;        /* [C, C] the chunk's masked scores */
    float *S;        /* [F, E] the carried state */
    float *as, *bs;  /* [C, F] a and b rows scaled by powers of gamma */
    float *vs;       /* [C, E] v rows scaled likewise */
} ChunkWork;

/* Floats chunks_carve takes. */
size_t chunks_scratch(int F, int E);
ChunkWork chunks_carve(float *scratch, int F, int E);

/* out [n, E] from a, b [n, F], v [n, E]; causal 0 needs gamma = 1. */
void chunks_forward(struct Gemm *g, const ChunkWork *w, int causal, float gamma, const float *a, const float *b,
                    const float *v, float *out, int n, int F, int E);
/* da, db [n, F], dv [n, E] (overwritten) from dout [n, E]. */
void chunks_backward(struct Gemm *g, const ChunkWork *w, int causal, float gamma, const float *a, const float *b,
                     const float *v, const float *dout, float *da, float *db, float *dv, int n, int F, int E);

/* One position of the recurrence: S [F, E] = gamma S + b (x) v, then
   out [E] = a^T S (out may be v). */
void chunks_step(float *S, const float *a, const float *b, const float *v, float *out, int F, int E, float gamma);

/* FLOPs per token, forward + backward, of the products above at n
   positions (chunks of min(n, LINEAR_CHUNK), full squares computed). */
double chunks_flops(int n, int F, int E, int causal);

/* ---- the gated form (causal only) ---- */

/* Rows per sub-chunk: a chunk's rows meet the sub-chunks before theirs
   through a product, their own sub-chunk pair by pair (GLA's
   secondary-level chunking). */
#define GATED_SUB 16

/* Work of one head's gated pass, carved by chunks_gated_carve. */
typedef struct {
    ChunkWork c;     /* A [C, C] scores, S [F, E] state, as, bs [C, F], vs [C, E] */
    float *M;        /* [C, C] dout v^T of the chunk */
    float *G;        /* [C, F] the chunk's running sums of lg */
    float *ea, *eb;  /* [C, F] decay factors of rows of a and of b */
    float *prod;     /* [C, F] a product before its rows are scaled */
    float *pairs;    /* [C, GATED_SUB, F] exp(G_i - G_j), j in i's sub-chunk, j <= i */
} GatedWork;

size_t chunks_gated_scratch(int F, int E);
GatedWork chunks_gated_carve(float *scratch, int F, int E);

/* out [n, E] from a, b, lg [n, F] and v [n, E]. */
void chunks_gated_forward(struct Gemm *g, const GatedWork *w, const float *a, const float *b, const float *lg,
                          const float *v, float *out, int n, int F, int E);
/* da, db, dlg [n, F] and dv [n, E] (overwritten) from dout [n, E]. */
void chunks_gated_backward(struct Gemm *g, const GatedWork *w, const float *a, const float *b, const float *lg,
                           const float *v, const float *dout, float *da, float *db, float *dlg, float *dv, int n,
                           int F, int E);

/* One position: S [F, E] = diag(alpha) S + b (x) v, then out [E] = a^T S
   (alpha [F] the gates exp(lg_t); out may be v). */
void chunks_gated_step(float *S, const float *a, const float *b, const float *alpha, const float *v, float *out,
                       int F, int E);

/* FLOPs per token, forward + backward, of the gated products (the
   exponentials not counted). */
double chunks_gated_flops(int n, int F, int E);

#endif
