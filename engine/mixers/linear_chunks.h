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
 * linattn calls it with gamma = 1 only; the gamma < 1 path is for gla
 * (RetNet's fixed decay) and has no caller or test yet.
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

#endif
