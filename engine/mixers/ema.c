/*
 * ema.c — a per-channel exponential moving average with a learned decay
 * (the damped EMA at the heart of MEGA, Ma et al. 2023, without its
 * expansion; docs/mixers.md, "ema").  Causal only.  Per block one vector
 * decay [d] (a, zero at init); channel f of d forgets at the rate
 *
 *   lam_f = sigmoid(a_f + log(tau_f - 1)),   tau_f = 2 (S/2)^(f/(d-1))
 *
 * so that at init channel f averages over tau_f positions, the time scales
 * spread geometrically from 2 to S = ema_span:
 *
 *   x [B, n, d] -> y [B, n, d]:  y_t = lam * y_{t-1} + (1 - lam) * x_t,  y_{-1} = 0
 *   backward, g_t = dy_t + lam * g_{t+1}:
 *     dx_t = (1 - lam) g_t,   da += sum_t g_t (y_{t-1} - x_t) lam (1 - lam)
 *
 * Forward keeps y [n, d] (the backward pass reads y_{t-1}); incremental
 * decoding keeps y_{t-1} [d] as its cache, so a token costs O(d) at any
 * position.
 */
#include <math.h>
#include <string.h>

#include "engine/mixer.h"

static int ema_declare(const Config *c, ParamDecl *decl)
{
    mix_decl(&decl[0], "decay", c->d, 0, INIT_ZERO);   /* a; no weight decay */
    return 1;
}

/* y [n, d], kept from forward for backward */
static size_t ema_saved(const Config *c)
{
    return (size_t)c->n_ctx * c->d;
}

/* lam, 1 - lam and a running sum, [d] each */
static size_t ema_scratch(const Config *c, int B)
{
    (void)B;
    return 3 * (size_t)c->d;
}

/* keep [d] = lam, take [d] = 1 - lam (as sigmoid(-z): exact near lam = 1) */
static void ema_rates(const Config *c, const float *a, float *keep, float *take)
{
    int d = c->d;
    for (int f = 0; f < d; f++) {
        double tau = 2.0 * pow(c->ema_span / 2.0, d > 1 ? (double)f / (d - 1) : 0.0);
        double z = a[f] + log(tau - 1.0);
        keep[f] = (float)(1.0 / (1.0 + exp(-z)));
        take[f] = (float)(1.0 / (1.0 + exp(z)));
    }
}

/* y_t [d] = keep * y_prev + take * x_t (y_prev NULL at t = 0) */
static void ema_step(const float *keep, const float *take, const float *y_prev, const float *x_t, float *y_t, int d)
{
    for (int f = 0; f < d; f++) y_t[f] = (y_prev ? keep[f] * y_prev[f] : 0.0f) + take[f] * x_t[f];
}

static void ema_forward(const MixArgs *a, const float *x, float *y)
{
    int n = a->n, d = a->d;
    float *keep = a->scratch, *take = keep + d;
    ema_rates(a->cfg, a->w[0], keep, take);
    for (int b = 0; b < a->B; b++) {
        const float *xb = x + (size_t)b * n * d;
        float *yb = y + (size_t)b * n * d;
        for (int t = 0; t < n; t++)
            ema_step(keep, take, t ? yb + (size_t)(t - 1) * d : NULL, xb + (size_t)t * d, yb + (size_t)t * d, d);
        memcpy(a->saved + (size_t)b * n * d, yb, sizeof(float) * n * d);
    }
}

static void ema_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    int n = a->n, d = a->d;
    float *keep = a->scratch, *take = keep + d, *g = take + d, *da = a->dw[0];
    ema_rates(a->cfg, a->w[0], keep, take);
    for (int b = 0; b < a->B; b++) {
        size_t off = (size_t)b * n * d;
        const float *yb = a->saved + off;
        memset(g, 0, sizeof(float) * d);
        for (int t = n - 1; t >= 0; t--) {
            const float *x_t = x + off + (size_t)t * d, *dy_t = dy + off + (size_t)t * d;
            float *dx_t = dx + off + (size_t)t * d;
            for (int f = 0; f < d; f++) {
                float y_prev = t ? yb[(size_t)(t - 1) * d + f] : 0.0f;
                g[f] = dy_t[f] + keep[f] * g[f];
                dx_t[f] = take[f] * g[f];
                da[f] += g[f] * (y_prev - x_t[f]) * keep[f] * take[f];
            }
        }
    }
}

/* Cache: y_{t-1} [d]. */
static size_t ema_cache_floats(const Config *c)
{
    return (size_t)c->d;
}

static void ema_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    int d = a->d;
    float *keep = a->scratch, *take = keep + d;
    ema_rates(a->cfg, a->w[0], keep, take);
    ema_step(keep, take, t ? cache : NULL, x_t, y_t, d);
    memcpy(cache, y_t, sizeof(float) * d);
}

/* Per token and block: forward 3 d (two multiplies, an add), backward 9 d
   (the carried gradient 2, dx 1, the decay's gradient 6): 12 d. */
static double ema_flops(const Config *c, int causal)
{
    (void)causal;
    return 12.0 * c->d;
}

/* N(0, 1) for the token embedding, as the masked mixer's: at 0.02 the
   averages of the earlier positions drown it (builtin:markov, 400 steps at
   the defaults: valid loss 1.312 at 0.02, 1.253 at 1; docs/mixers.md). */
static double ema_emb_std(const Config *c)
{
    (void)c;
    return 1.0;
}

static const char *const EMA_CHECK_VARIANTS[] = {"ema_span=2", NULL};

const MixerOps mixer_ema = {
    .name = "ema",
    .summary = "exponential moving average per channel, learned decays from 2 to ema_span positions",
    .has_causal = 1,
    .has_bidir = 0,
    .default_pos = POS_NONE,
    .default_emb_std = ema_emb_std,
    .declare = ema_declare,
    .saved_per_sample = ema_saved,
    .scratch_floats = ema_scratch,
    .forward = ema_forward,
    .backward = ema_backward,
    .cache_floats = ema_cache_floats,
    .forward_step = ema_forward_step,
    .extra_flops_per_token = ema_flops,
    .check_variants = EMA_CHECK_VARIANTS,
};
