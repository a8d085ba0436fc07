/*
 * model.h — the model skeleton of SPEC section 1, shared by every
 * architecture: token (+ positional) embedding, stacks of blocks
 * (x + Mix(LN1 x), x + FFN(LN2 x), or the post/none variants), a final
 * LayerNorm and the output head.  Only the token mixer differs between
 * architectures (engine/mixer.h); tasks (engine/task.h) decide how many
 * stacks there are and how they are wired.
 *
 * Memory: the parameters are one float array (Model.w) described by a table
 * of Param entries; activations live in a Work arena per thread, sized up
 * front for that thread's share of the batch, so a step allocates nothing.
 */
#ifndef MIXBENCH_MODEL_H
#define MIXBENCH_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"
#include "engine/mixer.h"

struct TaskOps;

typedef struct {
    char name[96];       /* checkpoint tensor name, e.g. "blocks.0.mix.wq" */
    int ndim;
    int64_t shape[2];
    size_t offset, numel;
    int init, decay, sparse_rows, dense;
    int embedding;       /* tok_emb, pos_emb, pair tables: not "non-embedding" */
    int64_t rows_per_sample;   /* sparse_rows: see ParamDecl */
    int sparse_index;    /* index among the sparse_rows params, or -1 */
    int packed;          /* 1: the next parameter follows it with no padding (a
                            block's mixer declarations of one kind, which a mixer
                            may read as one array: engine/mixer.h); 0: the next
                            starts on a 64-byte boundary */
} Param;

typedef struct {
    int ln1_w, ln1_b, ln2_w, ln2_b;    /* -1 when norm = none */
    int mix0, n_mix;                   /* the mixer's params: mix0 .. mix0+n_mix-1 */
    int w1, b1, w2, b2;
    void *mix_state;
} BlockParams;

typedef struct {
    char prefix[8];      /* "", "fwd.", "rev.", "enc.", "dec." */
    int causal;
    int pos_emb;         /* learned positional embedding param, or -1 */
    BlockParams *blocks;
    int lnf_w, lnf_b;    /* -1 when norm = none */
} Stack;

#define MODEL_MAX_STACKS 2

typedef struct Model {
    Config cfg;
    const MixerOps *mixer;
    const struct TaskOps *task;
    Param *params;
    int n_params;
    size_t n_floats;
    size_t n_dense_floats;   /* params with dense gradients lie in w[0, n_dense_floats),
                                sparse_rows params after them (engine/sparse.h) */
    int n_sparse;            /* number of sparse_rows params */
    float *w;            /* every parameter, one allocation */
    int tok_emb, head_w, head_b;   /* head_w == tok_emb when tie */
    Stack stacks[MODEL_MAX_STACKS];
    int n_stacks;
    int pos;             /* resolved POS_* */
    float *sinusoid;     /* [n, d] fixed table when pos = sinusoidal */
} Model;

/* Builds the parameter table for a validated config and initialises the
   weights from cfg.seed (each tensor from its own stream, derived from its
   name, so tensors do not depend on each other's order). */
int model_build(Model *m, const Config *c, char *err);
/* The parameter table alone (names, shapes, offsets, n_floats): no weights
   (w is NULL), no mixer state; for sizing a job before allocating it
   (engine/memory.h).  model_free frees it. */
int model_plan(Model *m, const Config *c, char *err);
void model_free(Model *m);
int model_find_param(const Model *m, const char *name);
static inline float *model_param(const Model *m, int idx) { return m->w + m->params[idx].offset; }
/* Total and non-embedding parameter counts (tok_emb, pos_emb and pair tables
   are embeddings; lm_head.w is not). */
int64_t model_count_params(const Model *m, int64_t *non_embedding);
/* Multiplied-and-added parameters per token, the bench's 6 x P rule: dense
   linear weights plus lm_head. */
int64_t model_dense_params(const Model *m);
/* Bench FLOPs per token for training (forward + backward). */
double model_train_flops_per_token(const Model *m);

/* ---- activations and per-thread work space ---- */

typedef struct {
    float *x;                          /* [B, n, d] block input */
    float *a, *ln1_mean, *ln1_rstd;    /* pre: LN1(x) */
    float *m;                          /* Mix(.) */
    float *mix_saved;                  /* [B * saved_per_sample] */
    float *s1;                         /* x + drop(m) */
    float *x1;                         /* post: LN1(s1); else == s1 */
    float *b, *ln2_mean, *ln2_rstd;    /* pre: LN2(x1) */
    float *h, *ha;                     /* [B, n, d_ff] FFN pre/post activation */
    float *f;                          /* FFN out */
    float *s2;                         /* x1 + drop(f): post: LN2 input, else the next x */
} BlockActs;

typedef struct {
    BlockActs *blocks;
    float *xL;                         /* last block output [B, n, d] */
    float *out, *lnf_mean, *lnf_rstd;  /* LN_f(xL), or == xL when norm = none */
} StackActs;

typedef struct {
    int B;                             /* capacity in samples */
    StackActs stacks[MODEL_MAX_STACKS];
    int32_t *inputs, *targets;         /* [B, n] */
    int32_t *inputs_rev;               /* [B, n] flipped inputs (bidir) */
    int32_t *target_rows;              /* [B * n] rows that have a target */
    int32_t *targets_compact;          /* [B * n] their targets */
    int32_t *targets_all;              /* [B * n] every position's target when
                                          an evaluation scores all (mlm loss_all) */
    float *logits;                     /* [B * n, V] (only target rows are computed) */
    float *head_in;                    /* [B * n, d] rows fed to the head */
    float *head_grad;                  /* [B * n, d] gradient of those rows */
    float *dout, *dout2;               /* [B, n, d] gradients of stack outputs */
    float *g, *t1, *t2;                /* [B, n, d] backward temporaries */
    float *dh;                         /* [B, n, d_ff] */
    float *mix_scratch;
    float *grads;                      /* [n_dense_floats], this thread's gradient */
    struct RowGrad *row_grads;         /* [n_row_grads = n_sparse] this thread's */
    int n_row_grads;                   /* sparse-row gradients (engine/sparse.h) */
    struct Gemm *gemm;                 /* this thread's product context:
                                          precision and counts (engine/gemm.h) */
    /* called on this thread after each block's backward (stack, block):
       that block's gradient is final (engine/grad_buckets.h); NULL: none */
    void (*block_done)(void *arg, int stack, int block);
    void *block_done_arg;
    void *arena;
    size_t arena_bytes;
} Work;

/* Allocates the work space for B samples (grads too when with_grads). */
int work_alloc(Work *w, const Model *m, int B, int with_grads, char *err);
void work_free(Work *w);
/* The bytes of work_alloc's arena for B samples, computed without allocating
   it (the dense gradient included when with_grads; the sparse-row
   accumulators are not in the arena). */
size_t work_arena_bytes(const Model *m, int B, int with_grads);

/* The per-call context of the stack kernels. */
typedef struct {
    const Model *m;
    Work *w;
    int B;               /* samples in this slice (<= w->B) */
    int sample0;         /* global index of the first sample */
    int training;
    uint64_t step_key;   /* differs per step: dropout streams */
    int zero_block, zero_from;  /* complete: zero positions >= zero_from
                                   before block zero_block (-1: never) */
    int want_grad;       /* a backward follows the forward: the FFN keeps
                            GELU's slope for it (bias_act_forward_slope) */
    /* Rows the loss reads (ascending, n_rows of B*n), or NULL for all.  Given,
       the last block's position-wise part after its mixer (residual sum,
       LayerNorms, FFN) and LN_f run on these rows only: out holds them
       compacted, n_rows x d, and stack_backward takes dout the same way.
       Not with dropout in training (its mask is indexed by position). */
    const int32_t *rows;
    int n_rows;
} StackCall;

/* x0 [B, n, d] = tok_emb[tokens] + pos. */
void embed_forward(const Model *m, int stack, float *x0, const int32_t *tokens, int B);
/* Scatter-adds dx0 into the token (and learned position) embedding grads. */
void embed_backward(const Model *m, int stack, float *grads, const float *dx0,
                    const int32_t *tokens, int B);
/* Runs stack s on w->stacks[s].blocks[0].x (already embedded) and leaves the
   result in w->stacks[s].out (only c->rows, compacted, when given). */
void stack_forward(const StackCall *c, int s, const int32_t *tokens);
/* dout [B, n, d] (or [n_rows, d] with c->rows) -> dx0 [B, n, d]
   (overwritten), parameter grads accumulate into w->grads.  dout may be
   clobbered. */
void stack_backward(const StackCall *c, int s, const int32_t *tokens, float *dout, float *dx0);
/* logits [N, V] = rows [N, d] W^T + b (+ b only with_bias: the training
   loss adds it itself, xent_head). */
void head_forward(const Model *m, struct Gemm *g, float *logits, const float *rows, int N, int with_bias);
/* dlogits [N, V] -> drows [N, d]; head grads accumulate (b's only
   with_bias: else xent_head has added them). */
void head_backward(const Model *m, struct Gemm *g, float *grads, float *drows, const float *dlogits,
                   const float *rows, int N, int with_bias);

#endif
