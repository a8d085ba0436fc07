/*
 * mixer.h — the one interface every token mixer implements.  A mixer is a
 * file engine/mixers/NAME.c defining a `const MixerOps mixer_NAME` and one
 * line in engine/mixers/registry.c; the model skeleton never changes.
 *
 * A mixer declares its parameters (names under blocks.{i}.mix., shapes, init,
 * weight-decay group), how many floats it keeps per sample for its backward
 * pass, how much per-thread scratch it needs, and a forward/backward pair.
 * The parameters of one block lie contiguously in declaration order, so a
 * mixer may treat adjacent declarations (wq, wk, wv) as one matrix (params
 * with sparse_rows are the exception: they live after every dense param,
 * still adjacent to each other in declaration order; engine/sparse.h).
 * Forward reads x [B, n, d] and writes y [B, n, d]; backward reads dy and
 * writes dx (overwrite) and accumulates into the parameter gradients.  Both
 * run on one thread over a contiguous slice of the batch, so they must not
 * touch anything but their arguments (two jobs train at once).
 */
#ifndef MIXBENCH_MIXER_H
#define MIXBENCH_MIXER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"

#define MIX_MAX_PARAMS 72

struct RowGrad;
struct Gemm;

/* INIT_NORMAL N(0, 0.02); INIT_TOKEN_EMB N(0, emb_std); INIT_LINEAR a linear
   layer's weight [out, in]: N(0, 0.02), or N(0, 1/sqrt(in)) under the key
   init=fan_in (SPEC section 5).  A mixer declares its linear layers'
   weights INIT_LINEAR, anything else (level weights, tables) INIT_NORMAL.
   The state-space mixers' own (docs/mixers-ssm.md): INIT_UNIFORM_INV_SQRT_FAN
   U(-1/sqrt(k), 1/sqrt(k)), k the last dimension (PyTorch's Conv1d default,
   for short depthwise convolutions); INIT_S4D_REAL log(1 + j mod k) on a
   [rows, k] matrix (S4D-real A = -(1..k), stored as A_log); INIT_DT_BIAS
   softplus^-1(dt), dt = exp(U(log 1e-3, log 1e-1)) floored at 1e-4. */
enum { INIT_NORMAL, INIT_ZERO, INIT_ONE, INIT_UNIFORM_INV_SQRT_N, INIT_TOKEN_EMB, INIT_LINEAR,
       INIT_UNIFORM_INV_SQRT_FAN, INIT_S4D_REAL, INIT_DT_BIAS };

typedef struct {
    char name[32];       /* e.g. "wq", "w0", "mlpx.w1" */
    int ndim;
    int64_t shape[2];
    int init;            /* INIT_* */
    int decay;           /* 1: in the weight-decay group */
    int sparse_rows;     /* 1: gradient touches few rows (pair tables): it
                            goes to a row accumulator, not a dense buffer */
    int64_t rows_per_sample; /* sparse_rows: most rows one sample's gradient
                            can touch (bounds the accumulator; 0 = all) */
    int dense;           /* 1: a linear layer's weight, used once per token
                            (the bench counts 6 FLOPs per such parameter) */
} ParamDecl;

typedef struct {
    const Config *cfg;
    int B, n, d, heads;
    int causal;          /* 1 causal, 0 bidirectional */
    int training;
    int block;           /* block index within its stack, from 0 */
    int sample0;         /* global index of the first sample of this slice */
    const int32_t *tokens;     /* [B, n] input ids of the slice */
    const float *const *w;     /* parameters, in declaration order */
    float *const *dw;          /* their gradients (backward accumulates);
                                  NULL for sparse_rows params */
    /* sparse_rows params: this thread's row accumulator (engine/sparse.h),
       which backward adds into with rowgrad_row(); NULL for the others */
    struct RowGrad *row_grads[MIX_MAX_PARAMS];
    float *saved;        /* [B * saved_per_sample] kept from forward to backward */
    float *scratch;      /* scratch_floats(cfg, B) floats, this thread's own */
    void *state;         /* the block's private state from create(), or NULL */
    struct Gemm *gemm;   /* this thread's product context for matmul, trmm_lower
                            and the linear layers (engine/gemm.h; NULL: float32,
                            uncounted) */
    uint64_t rng_key;    /* per step/stack/block key for stochastic options */
} MixArgs;

struct MixerInfer;

typedef struct MixerOps {
    const char *name;
    const char *summary;
    int has_causal, has_bidir;
    int default_pos;                          /* POS_* */
    int autoencode_pos;                       /* POS_* for task autoencode
                                                 (POS_DEFAULT: default_pos) */
    /* The token embedding's init std when emb_std is 0 (NULL: 0.02;
       SPEC section 5). */
    double (*default_emb_std)(const Config *c);
    /* Extra checks of the config (may be NULL). */
    int (*check_config)(const Config *c, char *err);
    /* Fills decl[0..count) for one block; returns count. */
    int (*declare)(const Config *c, ParamDecl *decl);
    size_t (*saved_per_sample)(const Config *c);
    size_t (*scratch_floats)(const Config *c, int B);
    /* Private per-block state such as FFT plans (both may be NULL). */
    void *(*create)(const Config *c, char *err);
    void (*destroy)(void *state);
    void (*forward)(const MixArgs *a, const float *x, float *y);
    void (*backward)(const MixArgs *a, const float *x, const float *dy, float *dx);
    /* Incremental decoding for generate (causal mode; NULL: the caller
       recomputes the window).  cache_floats: per-block state of one
       sequence of up to n positions.  forward_step writes y_t [d] for
       position t from x_t [d] (this block's mixer input at t) and what
       positions < t left in the cache, then adds position t's part to the
       cache.  a->B is 1, a->tokens holds the sequence's ids [n] (valid up to
       t), a->scratch has scratch_floats(c, 1) floats. */
    size_t (*cache_floats)(const Config *c);
    void (*forward_step)(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache);
    /* Multiply-adds x 2 of the mixer's own work (not its parameters used in
       matrix products, which the bench counts as 6 x params) per token for
       forward + backward: the bench's FLOP rule. */
    double (*extra_flops_per_token)(const Config *c, int causal);
    /* Batch-1 inference with state built once per block, e.g. linear
       layers packed (engine/infer.h; NULL: forward and forward_step). */
    const struct MixerInfer *infer;
    /* Settings besides the defaults under which tests/engine/test_mixer_contract.c
       checks the mixer: each a space-separated list of key=value (the keys
       that change its math, sizes that reach another code path), the list
       NULL-terminated (NULL: the defaults only; docs/adding-a-mixer.md). */
    const char *const *check_variants;
    /* The largest weight std the contract's gradient check starts from (0:
       0.5): a mixer whose math bends sharply at N(0, 0.5) weights (gla's
       per-head GroupNorm where a head's output is near 0) gives a smaller
       one, with its reason beside it. */
    float check_weight_scale;
} MixerOps;

/* Fills *p with one declaration: name, shape [rows] (cols 0) or [rows,
   cols], init; no decay, not dense, not sparse (the caller sets those). */
void mix_decl(ParamDecl *p, const char *name, int64_t rows, int64_t cols, int init);

const MixerOps *mixer_find(const char *name);
/* Space-separated names of all mixers. */
void mixer_names(char *buf, size_t cap);
int mixer_count(void);
const MixerOps *mixer_at(int i);

#endif
