/*
 * infer.h — the forward pass without training for one sequence (batch 1):
 * the inference bench's window (engine/infer_bench.c) and generation's rows
 * (engine/generate.c) share it.  Nothing is packed or allocated per call:
 * infer_create copies the FFN and head weights once into column panels
 * (PackedLinear) that a register-blocked kernel reads in order, for one row
 * (a GEMV) as for a window of rows, every buffer is sized up front, and a
 * mixer with MixerOps.infer gets its per-block state (its own linear layers
 * packed, say) built there once too.
 *
 * Each output of a packed linear layer is b + sum_k x_k w_k accumulated in
 * k order whatever the number of rows, so one row through infer_rows gives
 * the same FFN and head outputs, bit for bit, as that row inside a window.
 * Against sgemm (the training path) the summation order differs: results
 * agree to float32 rounding.
 *
 * Not for: training (engine/stack.c keeps activations for backward) or
 * several sequences at once.
 */
#ifndef MIXBENCH_INFER_H
#define MIXBENCH_INFER_H

#include <stdint.h>

#include "engine/model.h"

/* W [n_out, n_in] (a linear layer's weight as stored) in panels of 32
   output columns: p[panel][k][c] = W[panel * 32 + c][k], zero past n_out. */
typedef struct {
    int n_in, n_out, panels;
    float *p;
} PackedLinear;

int packed_linear_make(PackedLinear *pl, const float *w, int n_in, int n_out, char *err);
void packed_linear_free(PackedLinear *pl);
/* y [N, n_out] = x [N, n_in] W^T + b (b may be NULL). */
void packed_linear_forward(const PackedLinear *pl, float *y, const float *x, const float *b, int N);

/* y [n_out] = W x + b for one row straight from the stored W [n_out, n_in]
   (cblas_sgemv: no packing); b may be NULL.  For mixers' forward_step. */
void linear_row(float *y, const float *x, const float *w, const float *b, int n_in, int n_out);

/* MixerOps.infer: a mixer's batch-1 inference with per-block state that
   infer_create builds once from the block's weights w (in declaration
   order) for windows of up to n_ctx rows, and infer_free destroys.  The
   state is a snapshot: later changes to the weights are not seen.
   forward and step stand in for MixerOps.forward and forward_step (step
   may be NULL: forward_step), with the same MixArgs (B 1, a->saved and
   a->scratch sized for B 1) and the same outputs to float32 rounding.
   bytes: what create allocates (engine/memory.c counts it). */
typedef struct MixerInfer {
    void *(*create)(const Config *c, const float *const *w, char *err);
    void (*destroy)(void *state);
    double (*bytes)(const Config *c);
    void (*forward)(const MixArgs *a, void *state, const float *x, float *y);
    void (*step)(const MixArgs *a, void *state, int t, const float *x_t, float *y_t, float *cache);
} MixerInfer;

typedef struct Infer Infer;

/* For stack 0 of a built model, windows of up to max_rows rows (n_ctx for
   a full window, 1 for generation's single rows). */
int infer_create(Infer **out, const Model *m, int max_rows, char *err);
void infer_free(Infer *inf);
/* The bytes infer_create(m, max_rows) allocates (engine/memory.c counts
   them for the inference measurement at the end of a run). */
double infer_bytes(const Model *m, int max_rows);

/* The mixer of block `block` on N rows: in [N, d] -> out [N, d]. */
typedef void (*InferMix)(void *ctx, int block, const float *in, float *out, int N);

/* x0 [N, d] (embedded rows, overwritten) through every block (mixer by
   mix), LN_f and the head: logits [head_n, V] of rows head_from ..
   head_from + head_n - 1. */
void infer_rows(Infer *inf, float *x0, int N, InferMix mix, void *ctx, int head_from, int head_n, float *logits);

/* The full n_ctx-window forward pass of stack 0 on tokens [n_ctx] with the
   mixers' own forward (no dropout); logits of rows head_from ..
   head_from + head_n - 1.  infer_create's max_rows must be n_ctx. */
void infer_window(Infer *inf, const int32_t *tokens, int head_from, int head_n, float *logits);

/* Softmax cross-entropy summed over the rows whose target is >= 0, for
   timing and checks (no gradient; logits [N, V] are overwritten).  The
   sums run in 16 lanes, so the result agrees with xent_forward_backward
   to float32 rounding, not bit for bit. */
double infer_xent(float *logits, const int32_t *targets, int N, int V);

/* MixArgs for block `block` of stack 0 at batch 1, not training, on the
   sequence tokens (position 0 of the window): weights into w, NULL
   gradients into dw (both MIX_MAX_PARAMS long); saved stays NULL. */
void infer_mix_args(const Model *m, int block, const int32_t *tokens, float *scratch, const float **w, float **dw,
                    MixArgs *a);

/* Block `block`'s MixerInfer state, or NULL when the mixer has none. */
void *infer_mix_state(const Infer *inf, int block);

/* Buffers of infer_rows: a row-major [N, d] embedding buffer to fill. */
float *infer_input(Infer *inf);

#endif
