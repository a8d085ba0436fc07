/*
 * swa.c — sliding-window attention (Longformer: Beltagy et al. 2020;
 * Mistral 7B: Jiang et al. 2023): multi-head softmax attention in which
 * query i sees only the keys j with i - window < j <= i (causal; the token
 * itself included, `window` keys at most) or |i - j| < window
 * (bidirectional, Longformer's symmetric window).  docs/mixers.md, "swa".
 *
 * It is attention plus a window: the same parameters, projections, heads,
 * saved layout and tiles (engine/mixers/attention.h), the window handed to
 * the tiles' AttnMask, which skips the key tiles wholly outside it, so a
 * step costs O(n window d).  With window >= n every key of attention's
 * mask is inside and the outputs are attention's bit for bit.  Generation
 * keeps only the last min(window, n_ctx) keys and values per head, a ring
 * (memory constant in the context length).
 */
#include "engine/mixer.h"
#include "engine/mixers/attention.h"

/* The keys each query sees at most, for the cache and the FLOP rule. */
static int causal_keys(const Config *c) { return c->window < c->n_ctx ? c->window : c->n_ctx; }

static int bidir_keys(const Config *c)
{
    long both = 2L * c->window - 1;
    return both < c->n_ctx ? (int)both : c->n_ctx;
}

static void swa_forward(const MixArgs *a, const float *x, float *y)
{
    attention_forward_window(a, a->cfg->window, x, y);
}

static void swa_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    attention_backward_window(a, a->cfg->window, x, dy, dx);
}

static size_t swa_cache_floats(const Config *c) { return attention_cache_slots_floats(c, causal_keys(c)); }

static void swa_forward_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    attention_step_slots(a, causal_keys(a->cfg), t, x_t, y_t, cache);
}

/* Attention's rule (12 keys d) with the keys a query's window holds, not
   n: min(window, n) causal, min(2 window - 1, n) bidirectional; window >= n
   counts what attention counts. */
static double swa_flops(const Config *c, int causal)
{
    return attention_flops_keys(c, causal ? causal_keys(c) : bidir_keys(c));
}

/* the contract tests' variants (tests/engine/test_mixer_contract.c): windows
   narrower than their n (the default 32 covers its n of 6): itself only,
   two keys, and five at n = 70 (a full query tile and a ragged one) */
static const char *const SWA_CHECK_VARIANTS[] = {"window=1", "window=2", "window=5 n_ctx=70", NULL};

const MixerOps mixer_swa = {
    .name = "swa",
    .summary = "sliding-window softmax attention, key window (Longformer, Mistral)",
    .has_causal = 1,
    .has_bidir = 1,
    .default_pos = POS_LEARNED,
    .declare = attention_declare,
    .saved_per_sample = attention_saved,
    .scratch_floats = attention_scratch,
    .forward = swa_forward,
    .backward = swa_backward,
    .cache_floats = swa_cache_floats,
    .forward_step = swa_forward_step,
    .extra_flops_per_token = swa_flops,
    .check_variants = SWA_CHECK_VARIANTS,
};
