/*
 * dispatcher.c — the Dispatcher mixer (SPEC section 2): causal shift-and-sum
 * over log2 n levels instead of attention's n x n scores.
 *
 *   x [B, n, d] -> y [B, n, d]; heads split the standard way (head k is the
 *   feature slice k*dh .. k*dh+dh-1, dh = d/h).  Per head, with Win, Wout
 *   [dh, dh] and Wc [levels, dh] shared by all heads:
 *     V_0 = x_h Win^T                            [n, dh]
 *     C   = sigmoid(x_h Wc^T) * mask             [n, levels], mask[t,l] = t >= 2^l
 *     V_{l+1}[t] = V_l[t] + C[t,l] V_l[t - 2^l]  (V_l[t] where t < 2^l)
 *     y_h = V_levels Wout^T
 *   levels = ceil(log2 n), at least 1: n = 1 keeps one level whose mask is
 *   all zero, so wc is never an empty tensor and y = V_0 Wout^T.
 *
 * The matrices are shared and head k of row (b, t) is its k-th run of dh
 * floats, so x [B, n, d] is read as [B*n*h, dh] and one sgemm per matrix
 * serves every head.
 *
 * level_dropout p: in training each level is skipped (V_{l+1} = V_l) with
 * probability p, one draw per step, stack, block and level from a->rng_key,
 * so every sample and thread of a step agrees and backward skips the same
 * levels; no rescaling.
 *
 * Saved per sample: V_0 [n, d] and C [n, h, levels].  Backward recomputes
 * the levels of one sample at a time in scratch ([levels, n, d]) rather
 * than keeping them all, which would multiply the block's activations.
 *
 * Not for bidirectional mode: the Dispatcher is causal only.
 */
#include <math.h>
#include <string.h>

#include "engine/common.h"
#include "engine/infer.h"
#include "engine/mixer.h"
#include "engine/ops.h"
#include "engine/rng.h"

#define MAX_LEVELS 32   /* ceil(log2 n) for any int n */

enum { WIN, WC, WOUT };

static int level_count(int n)
{
    int levels = 1;
    while (levels < MAX_LEVELS - 1 && (1L << levels) < n) levels++;
    return levels;
}

/* init: INIT_LINEAR for win and wout (linear layers), INIT_NORMAL for the
   level weights wc (SPEC section 5 keeps their N(0, 0.02) under fan_in). */
static void declare_matrix(ParamDecl *p, const char *name, int rows, int cols, int init)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, name);
    p->ndim = 2;
    p->shape[0] = rows;
    p->shape[1] = cols;
    p->init = init;
    p->decay = 1;
    /* dense = 0: each is applied once per head, not once per token; its
       work is counted by dispatcher_flops */
}

static int dispatcher_declare(const Config *c, ParamDecl *decl)
{
    int dh = c->d / c->heads;
    declare_matrix(&decl[WIN], "win", dh, dh, INIT_LINEAR);
    declare_matrix(&decl[WC], "wc", level_count(c->n_ctx), dh, INIT_NORMAL);
    declare_matrix(&decl[WOUT], "wout", dh, dh, INIT_LINEAR);
    return 3;
}

static size_t dispatcher_saved(const Config *c)
{
    size_t n = c->n_ctx, d = c->d;
    return n * d + n * (size_t)c->heads * level_count(c->n_ctx);
}

/* forward: V [n, d]; backward: V_1 .. V_levels [levels, n, d], dL/dV [n, d],
   dL/d(x Wc^T) [n, h, levels]; forward_step: V_levels[t] [d], C[t] [h, levels]. */
static size_t dispatcher_scratch(const Config *c, int B)
{
    (void)B;
    size_t n = c->n_ctx, d = c->d, levels = level_count(c->n_ctx);
    return levels * n * d + n * d + n * (size_t)c->heads * levels;
}

/* The saved slice of a B-sample batch: V_0 [B, n, d], C [B, n, h, levels]. */
typedef struct {
    float *v0, *gates;
} Saved;

static Saved saved_split(const MixArgs *a)
{
    Saved s;
    s.v0 = a->saved;
    s.gates = s.v0 + (size_t)a->B * a->n * a->d;
    return s;
}

/* kept[l] = 0 when level l is dropped in this forward pass. */
static void draw_levels(const MixArgs *a, int levels, int *kept)
{
    double p = a->cfg->level_dropout;
    for (int l = 0; l < levels; l++) {
        double u = (double)(rng_hash(a->rng_key, (uint64_t)l) >> 11) * 0x1.0p-53;
        kept[l] = !(a->training && p > 0.0 && u < p);
    }
}

/* C[t, l] from z = x_t Wc^T: sigmoid(z) where t >= 2^l, else 0. */
static float gate(float z, int t, int l)
{
    return t >= (1L << l) ? 1.0f / (1.0f + expf(-z)) : 0.0f;
}

/* gates [rows, levels] = C in place from z; row r is position (r / h) % n. */
static void gates_activate(float *gates, int rows, int n, int h, int levels)
{
    for (int r = 0; r < rows; r++) {
        float *g = gates + (size_t)r * levels;
        for (int l = 0; l < levels; l++) g[l] = gate(g[l], (r / h) % n, l);
    }
}

/* One position of level l: out [d] = cur [d] + C[k, l] * earlier [d] for
   each head k, gates_t = C at this position [h, levels]. */
static void shift_add_row(float *out, const float *cur, const float *earlier, const float *gates_t, int h,
                          int dh, int levels, int l)
{
    for (int k = 0; k < h; k++) {
        float g = gates_t[k * levels + l];
        for (int f = k * dh; f < (k + 1) * dh; f++) out[f] = cur[f] + g * earlier[f];
    }
}

/* Level l on one sample: out [n, d] = V_{l+1} from in [n, d] = V_l.  out may
   equal in: t runs downwards, so in[t - 2^l] is read before it changes. */
static void level_forward(float *out, const float *in, const float *gates, int n, int h, int dh, int levels,
                          int l)
{
    int shift = 1 << l, d = h * dh;
    for (int t = n - 1; t >= shift; t--)
        shift_add_row(out + (size_t)t * d, in + (size_t)t * d, in + (size_t)(t - shift) * d,
                      gates + (size_t)t * h * levels, h, dh, levels, l);
    if (out != in) memcpy(out, in, sizeof(float) * (size_t)MB_MIN(shift, n) * d);
}

/* Gradient of level l on one sample: grad [n, d] holds dL/dV_{l+1} and
   becomes dL/dV_l; dgates [n, h, levels] receives dL/dC[., ., l]; v = V_l.
   t runs upwards, so grad[t] is still dL/dV_{l+1}[t] when it is read. */
static void level_backward(float *grad, float *dgates, const float *v, const float *gates, int n, int h, int dh,
                           int levels, int l)
{
    int shift = 1 << l, d = h * dh;
    for (int t = shift; t < n; t++) {
        for (int k = 0; k < h; k++) {
            size_t gi = ((size_t)t * h + k) * levels + l;
            float *g_now = grad + (size_t)t * d + k * dh, *g_back = grad + (size_t)(t - shift) * d + k * dh;
            const float *v_back = v + (size_t)(t - shift) * d + k * dh;
            float dot = 0.0f, c = gates[gi];
            for (int f = 0; f < dh; f++) {
                dot += g_now[f] * v_back[f];
                g_back[f] += c * g_now[f];
            }
            dgates[gi] = dot;
        }
    }
}

static void dispatcher_forward(const MixArgs *a, const float *x, float *y)
{
    int n = a->n, d = a->d, h = a->heads, dh = d / h, levels = level_count(n);
    int rows = a->B * n * h;
    int kept[MAX_LEVELS];
    Saved s = saved_split(a);
    float *v = a->scratch;   /* [n, d] */
    draw_levels(a, levels, kept);
    linear_forward(a->gemm, s.v0, x, a->w[WIN], NULL, rows, dh, dh);
    linear_forward(a->gemm, s.gates, x, a->w[WC], NULL, rows, dh, levels);
    gates_activate(s.gates, rows, n, h, levels);
    for (int b = 0; b < a->B; b++) {
        const float *gates = s.gates + (size_t)b * n * h * levels;
        memcpy(v, s.v0 + (size_t)b * n * d, sizeof(float) * (size_t)n * d);
        for (int l = 0; l < levels; l++)
            if (kept[l]) level_forward(v, v, gates, n, h, dh, levels, l);
        linear_forward(a->gemm, y + (size_t)b * n * d, v, a->w[WOUT], NULL, n * h, dh, dh);
    }
}

static void dispatcher_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    int n = a->n, d = a->d, h = a->heads, dh = d / h, levels = level_count(n);
    size_t nd = (size_t)n * d, ngates = (size_t)n * h * levels;
    int kept[MAX_LEVELS];
    const float *v[MAX_LEVELS + 1];   /* v[l] = V_l of the current sample */
    Saved s = saved_split(a);
    float *level_buf = a->scratch;                 /* [levels, n, d] */
    float *grad = level_buf + (size_t)levels * nd;  /* [n, d] */
    float *dgates = grad + nd;                     /* [n, h, levels] */
    draw_levels(a, levels, kept);
    for (int b = 0; b < a->B; b++) {
        const float *gates = s.gates + (size_t)b * ngates;
        const float *xb = x + (size_t)b * nd;
        float *dxb = dx + (size_t)b * nd;
        v[0] = s.v0 + (size_t)b * nd;
        for (int l = 0; l < levels; l++) {
            if (!kept[l]) {
                v[l + 1] = v[l];
                continue;
            }
            float *next = level_buf + (size_t)l * nd;
            level_forward(next, v[l], gates, n, h, dh, levels, l);
            v[l + 1] = next;
        }
        linear_backward(a->gemm, grad, a->dw[WOUT], NULL, dy + (size_t)b * nd, v[levels], a->w[WOUT], n * h, dh, dh, 0);
        memset(dgates, 0, sizeof(float) * ngates);
        for (int l = levels - 1; l >= 0; l--)
            if (kept[l]) level_backward(grad, dgates, v[l], gates, n, h, dh, levels, l);
        /* dC -> d(x Wc^T); masked entries have C = 0 and get 0 */
        for (size_t i = 0; i < ngates; i++) dgates[i] *= gates[i] * (1.0f - gates[i]);
        linear_backward(a->gemm, dxb, a->dw[WIN], NULL, grad, xb, a->w[WIN], n * h, dh, dh, 0);
        linear_backward(a->gemm, dxb, a->dw[WC], NULL, dgates, xb, a->w[WC], n * h, dh, levels, 1);
    }
}

/* Cache: V_l of every earlier position for l < levels, [levels, n, d]. */
static size_t dispatcher_cache_floats(const Config *c)
{
    return (size_t)level_count(c->n_ctx) * c->n_ctx * c->d;
}

/* Position t alone: O(levels * dh + dh^2) per head, whatever t is. */
static void dispatcher_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    int n = a->n, d = a->d, h = a->heads, dh = d / h, levels = level_count(n);
    size_t nd = (size_t)n * d;
    int kept[MAX_LEVELS];
    float *v_out = a->scratch;      /* V_levels[t] [d] */
    float *gates_t = v_out + d;     /* C[t] [h, levels] */
    draw_levels(a, levels, kept);
    for (int k = 0; k < h; k++) { /* one GEMV per head: nothing packed */
        linear_row(cache + (size_t)t * d + k * dh, x_t + k * dh, a->w[WIN], NULL, dh, dh);
        linear_row(gates_t + k * levels, x_t + k * dh, a->w[WC], NULL, dh, levels);
    }
    for (int k = 0; k < h; k++)
        for (int l = 0; l < levels; l++) gates_t[k * levels + l] = gate(gates_t[k * levels + l], t, l);
    for (int l = 0; l < levels; l++) {
        const float *cur = cache + l * nd + (size_t)t * d;
        float *next = l + 1 < levels ? cache + (l + 1) * nd + (size_t)t * d : v_out;
        int shift = 1 << l;
        if (kept[l] && t >= shift)
            shift_add_row(next, cur, cur - (size_t)shift * d, gates_t, h, dh, levels, l);
        else
            memcpy(next, cur, sizeof(float) * d);
    }
    for (int k = 0; k < h; k++) linear_row(y_t + k * dh, v_out + k * dh, a->w[WOUT], NULL, dh, dh);
}

/* Training FLOPs per token and block, forward + backward, 2 per
   multiply-add (dh = d/h, L = levels, A = L - (2^L - 1)/n: the levels
   summed over the share of positions t >= 2^l they touch):
     Win, Wout  2 dh^2 multiply-adds per head forward, x3 with backward: 12 d dh
     Wc         L dh per head forward, x3:                                6 L d
     levels     A dh per head forward; backward 3 A dh (the dot for dC,
                the gradient's shift-add, the recomputed levels):        8 A d
   Sigmoids are not counted (as attention's softmax is not), nor are levels
   skipped by level_dropout subtracted. */
static double dispatcher_flops(const Config *c, int causal)
{
    (void)causal;
    int levels = level_count(c->n_ctx);
    double d = c->d, dh = d / c->heads;
    double active = levels - ((double)(1L << levels) - 1.0) / c->n_ctx;
    return 12.0 * d * dh + 6.0 * levels * d + 8.0 * active * d;
}

const MixerOps mixer_dispatcher = {
    .name = "dispatcher",
    .summary = "Dispatcher: causal shift-and-sum over log2 n levels, matrices shared by heads",
    .has_causal = 1,
    .has_bidir = 0,
    .default_pos = POS_SINUSOIDAL,
    /* with the fixed table its autoencoder stays at the unigram loss
       (SPEC section 1, docs/learn_check.md) */
    .autoencode_pos = POS_LEARNED,
    .declare = dispatcher_declare,
    .saved_per_sample = dispatcher_saved,
    .scratch_floats = dispatcher_scratch,
    .forward = dispatcher_forward,
    .backward = dispatcher_backward,
    .cache_floats = dispatcher_cache_floats,
    .forward_step = dispatcher_forward_step,
    .extra_flops_per_token = dispatcher_flops,
};
