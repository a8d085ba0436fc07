/*
 * cumsum.c — the prefix-sum model of Backurs et al. (SPEC section 2): a
 * causal, parameter-free mixer, each position the scaled sum of its prefix.
 *
 *   x [B, n, d] -> y [B, n, d]:  y[t] = (t+1)^(-1/2) * sum_{s<=t} x[s]
 *   backward:                    dx[s] = sum_{t>=s} (t+1)^(-1/2) dy[t]
 *
 * Both passes keep one running sum [d] in scratch; incremental decoding
 * keeps the same sum as its cache, so a token costs O(d) at any position.
 * Not for bidirectional mode (the prefix sum is causal by definition).
 */
#include <math.h>
#include <string.h>

#include "engine/mixer.h"

static int cumsum_declare(const Config *c, ParamDecl *decl)
{
    (void)c;
    (void)decl;
    return 0;
}

static size_t cumsum_saved(const Config *c)
{
    (void)c;
    return 0;
}

/* The running sum [d]. */
static size_t cumsum_scratch(const Config *c, int B)
{
    (void)B;
    return (size_t)c->d;
}

static float position_scale(int t)
{
    return (float)(1.0 / sqrt((double)t + 1.0));
}

/* y_t [d] = (t+1)^(-1/2) * (sum [d] += x_t [d]) */
static void prefix_step(float *sum, const float *x_t, float *y_t, int t, int d)
{
    float scale = position_scale(t);
    for (int f = 0; f < d; f++) {
        sum[f] += x_t[f];
        y_t[f] = scale * sum[f];
    }
}

static void cumsum_forward(const MixArgs *a, const float *x, float *y)
{
    int n = a->n, d = a->d;
    float *sum = a->scratch;
    for (int b = 0; b < a->B; b++) {
        memset(sum, 0, sizeof(float) * d);
        for (int t = 0; t < n; t++) {
            size_t row = ((size_t)b * n + t) * d;
            prefix_step(sum, x + row, y + row, t, d);
        }
    }
}

static void cumsum_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    (void)x;
    int n = a->n, d = a->d;
    float *sum = a->scratch;
    for (int b = 0; b < a->B; b++) {
        memset(sum, 0, sizeof(float) * d);
        for (int t = n - 1; t >= 0; t--) {
            size_t row = ((size_t)b * n + t) * d;
            float scale = position_scale(t);
            for (int f = 0; f < d; f++) {
                sum[f] += scale * dy[row + f];
                dx[row + f] = sum[f];
            }
        }
    }
}

/* Cache: the running sum of x over positions < t [d]. */
static size_t cumsum_cache_floats(const Config *c)
{
    return (size_t)c->d;
}

static void cumsum_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    if (t == 0) memset(cache, 0, sizeof(float) * a->d);
    prefix_step(cache, x_t, y_t, t, a->d);
}

/* Per token and block: forward one add and one multiply per feature, the
   backward pass the same: 4 d FLOPs, independent of n. */
static double cumsum_flops(const Config *c, int causal)
{
    (void)causal;
    return 4.0 * c->d;
}

/* 2 sqrt(n): in every block after the first the weightless prefix sum grows
   like sqrt(t+1) along the positions and drowns a smaller embedding (SPEC
   section 5; measured in docs/learn_check.md: 16 at n 64 learns, 0.02 and 1
   do not). */
static double cumsum_emb_std(const Config *c)
{
    return 2.0 * sqrt((double)c->n_ctx);
}

const MixerOps mixer_cumsum = {
    .name = "cumsum",
    .summary = "prefix-sum model: scaled running sum over positions, no parameters",
    .has_causal = 1,
    .has_bidir = 0,
    .default_pos = POS_NONE,
    .default_emb_std = cumsum_emb_std,
    .declare = cumsum_declare,
    .saved_per_sample = cumsum_saved,
    .scratch_floats = cumsum_scratch,
    .forward = cumsum_forward,
    .backward = cumsum_backward,
    .cache_floats = cumsum_cache_floats,
    .forward_step = cumsum_forward_step,
    .extra_flops_per_token = cumsum_flops,
};
