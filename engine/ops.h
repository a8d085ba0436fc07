/*
 * ops.h — the forward/backward kernels the model skeleton and the mixers are
 * built from.  Every kernel states its shapes; backward kernels accumulate
 * into parameter gradients and either write (accumulate = 0) or add to
 * (accumulate = 1) the input gradient.  No kernel allocates.
 */
#ifndef MIXBENCH_OPS_H
#define MIXBENCH_OPS_H

#include <stddef.h>
#include <stdint.h>

struct Gemm;

/* Matrix product on row-major storage, C = alpha op(A) op(B) + beta C:
   op(A) [M, K], op(B) [K, N], C [M, N], in the precision of g (the calling
   thread's context, engine/gemm.h): NULL is float32 (OpenBLAS sgemm).  The
   linear layers below take the same g. */
void matmul(struct Gemm *g, int trans_a, int trans_b, int M, int N, int K, float alpha,
            const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* y = op(T) x for a lower-triangular T [n, n] (op: transposed when trans),
   x and y [n, w], distinct, with row stride ld (strmm on a copy of x in y); its time
   and FLOPs counted in g (engine/gemm.h), whose precision it ignores. */
void trmm_lower(struct Gemm *g, int trans, int n, int w, const float *T, float *y, const float *x, int ld);

/* x [N, n_in] -> y [N, n_out] = x w^T + b;  w [n_out, n_in], b [n_out] or NULL. */
void linear_forward(struct Gemm *g, float *y, const float *x, const float *w, const float *b, int N, int n_in, int n_out);
/* y [N, n_out] = r + (x w^T + b) as one pass over y before the product
   (y_i = r_i + b, then sgemm with beta = 1) instead of linear_forward and a
   residual add: the same value up to float32 rounding (r + b is summed
   first).  r [N, n_out] may be y itself; b may be NULL. */
void linear_forward_residual(struct Gemm *g, float *y, const float *x, const float *w, const float *b, const float *r,
                             int N, int n_in, int n_out);
/* dy [N, n_out] -> dx [N, n_in] (NULL to skip), dw [n_out, n_in] +=,
   db [n_out] += (NULL to skip). */
void linear_backward(struct Gemm *g, float *dx, float *dw, float *db, const float *dy, const float *x,
                     const float *w, int N, int n_in, int n_out, int accumulate);

/* x [N, C] -> y [N, C], mean [N], rstd [N]; eps 1e-5. */
void layernorm_forward(float *y, float *mean, float *rstd, const float *x,
                       const float *w, const float *b, int N, int C);
/* dy [N, C] -> dx [N, C]; dw, db [C] +=. */
void layernorm_backward(float *dx, float *dw, float *db, const float *dy, const float *x,
                        const float *mean, const float *rstd, const float *w, int N, int C,
                        int accumulate);

/* Elementwise activation: x [n] -> y [n] (ACT_GELU exact erf, ACT_RELU, ACT_NONE). */
void act_forward(float *y, const float *x, size_t n, int act);
/* dx [n] = dy * act'(x) (accumulate adds). */
void act_backward(float *dx, const float *dy, const float *x, size_t n, int act, int accumulate);
/* A linear layer's bias and activation in one pass over rows still in
   cache (the layer's product computed without its bias): h [N, C] += b
   per row (b may be NULL), then y = act(h) (y == h for ACT_NONE).  The
   same bits as linear_forward with the bias, then act_forward, up to the
   order of the bias and the product's sum. */
void bias_act_forward(float *y, float *h, const float *b, int N, int C, int act);
/* dh [N, C] <- act'(h) * dh in place, and db [C] += its column sums row
   after row (linear_backward's order; db may be NULL). */
void act_backward_bias(float *dh, const float *h, float *db, int N, int C, int act);
/* The two above for a layer whose backward follows its forward (training):
   bias_act_forward_slope makes the same y and, for ACT_GELU, leaves h
   holding GELU'(h + b), computed from the same Phi as y; act_backward_slope
   then multiplies dh by it instead of computing it again.  Together the
   same bits as bias_act_forward then act_backward_bias (other acts: those
   two exactly, h holding h + b). */
void bias_act_forward_slope(float *y, float *h, const float *b, int N, int C, int act);
void act_backward_slope(float *dh, const float *slope, float *db, int N, int C, int act);

/* Softmax cross-entropy over rows of logits [N, V]; rows whose target is < 0
   are skipped (their dlogits set to 0).  Overwrites logits with
   dlogits * scale when want_grad.  Returns the summed loss (nats) over
   target rows; *correct counts top-1 hits. */
double xent_forward_backward(float *logits, const int32_t *targets, int N, int V,
                             float scale, int want_grad, int64_t *correct);
/* The same with the head's bias folded in: logits [N, V] are x W^T without
   it; bias [V] is added to every target row as the loss first reads it,
   and, when want_grad, the rows' gradients accumulate into dbias [V] while
   they are in cache (NULL: neither). */
double xent_head(float *logits, const float *bias, float *dbias, const int32_t *targets, int N, int V, float scale,
                 int want_grad, int64_t *correct);

/* Row softmax in place: x [N, C]; entries with col > row + offset are set to
   0 when causal (offset = 0 for square causal masks). */
void softmax_rows(float *x, int N, int C, int causal);

/* y [n] = a [n] + b [n] */
void vec_add(float *y, const float *a, const float *b, size_t n);
/* y [n] += a [n] */
void vec_acc(float *y, const float *a, size_t n);
/* y [M, d] = a[rows] + b[rows]: the rows of a, b [*, d] that rows lists. */
void rows_pick_add(float *y, const float *a, const float *b, const int32_t *rows, int M, int d);
/* In place, x [M, d] (row r for row rows[r]; rows ascending) -> x [N, d]
   with zeros in the rows not listed. */
void rows_spread(float *x, const int32_t *rows, int M, int N, int d);

/* Sum of x[i]^2 in double, in 8 interleaved partial sums (vectorises). */
double vec_sumsq(const float *x, size_t n);
/* The same in pieces: sumsq_blocks adds whole blocks of 8 (n a multiple of
   8) to the partial sums lane[8], kept across calls; sumsq_finish adds
   them up and then the tail's n < 8 squares: vec_sumsq's bits. */
void sumsq_blocks(double lane[8], const float *x, size_t n);
double sumsq_finish(const double lane[8], const float *tail, size_t n);

/* Fast elementwise exp on an array, accurate to about 1 ulp (vectorisable). */
void vec_exp(float *y, const float *x, size_t n);
/* y[i] = 1 / (1 + exp(-x[i])) with vec_exp's exp; y may be x. */
void vec_sigmoid(float *y, const float *x, size_t n);
/* In place x[i] = exp(x[i] - mx), i < n, with vec_exp's exp; returns their
   sum (16 interleaved partial sums: the cross-entropy's own loop). */
float exp_shift_sum(float *x, int n, float mx);

/* Causal depthwise convolution of width K over B samples of n rows (the
   short convolutions of mamba and hyena): channel c of x [B n, ldx] (its
   first C columns) -> y [B n, ldy],
   y[t, c] = b[c] + sum_k w[c, k] x[t - K+1 + k, c], x = 0 before t = 0;
   w [C, K], b [C]. */
void dwconv_forward(float *y, const float *x, const float *w, const float *b, int B, int n, int C, int K, int ldx,
                    int ldy);
/* dy [B n, lddy] -> dx [B n, lddx] (overwritten, first C columns);
   dw [C, K] and db [C] +=. */
void dwconv_backward(float *dx, float *dw, float *db, const float *dy, const float *x, const float *w, int B, int n,
                     int C, int K, int ldx, int lddy, int lddx);

/* Dropout as a pure function of (key, element index): keep with prob 1-p,
   scale 1/(1-p).  y [n] = x * mask (x may equal y). */
void dropout_apply(float *y, const float *x, size_t n, float p, uint64_t key, uint64_t index0);

#endif
