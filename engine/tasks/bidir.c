/*
 * bidir.c — all-next-token prediction in both directions (Masked Mixers II,
 * SPEC section 3).  Two causal stacks ("fwd.", "rev.") with their own blocks,
 * positional embeddings and final LN share tok_emb and the head.  The
 * forward stack reads the window, the reverse stack the flipped window;
 * token t is predicted from f[t-1] + r[t+1] (r flipped back; a missing
 * neighbour is zero), for every t in the window.  Neither stack sees the
 * token it predicts.  Every causal mixer (pairconnect hashes the flipped ids
 * in the reverse stack).
 */
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"
#include "engine/task.h"

static int bidir_check(const MixerOps *mixer, const Config *c, char *err)
{
    (void)c;
    if (!mixer->has_causal)
        return err_set(err, "task bidir needs a causal mixer; %s has no causal mode (SPEC section 3)",
                       mixer->name);
    return 0;
}

static int bidir_stacks(const Config *c, const MixerOps *mixer, StackSpec *out)
{
    (void)c;
    (void)mixer;
    strcpy(out[0].prefix, "fwd.");
    out[0].causal = 1;
    strcpy(out[1].prefix, "rev.");
    out[1].causal = 1;
    return 2;
}

static int bidir_window(const Config *c) { return c->n_ctx; }

static void bidir_prepare(const Config *c, int B, const int32_t *windows, const uint8_t *scored,
                          int32_t *inputs, int32_t *targets, int training, Rng *rng,
                          const int64_t *window_index)
{
    (void)training;
    (void)rng;
    (void)window_index;
    size_t N = (size_t)B * c->n_ctx;
    memcpy(inputs, windows, sizeof(int32_t) * N);
    memcpy(targets, windows, sizeof(int32_t) * N);
    if (scored)
        for (size_t i = 0; i < N; i++)
            if (!scored[i]) targets[i] = -1;
}

/* dst[b, t] = src[b, n-1-t] for rows of `width` elements of `size` bytes. */
static void flip_rows(void *dst, const void *src, int B, int n, size_t row_bytes)
{
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++)
            memcpy((char *)dst + ((size_t)b * n + t) * row_bytes,
                   (const char *)src + ((size_t)b * n + (n - 1 - t)) * row_bytes, row_bytes);
}

static void bidir_run(TaskCall *t)
{
    const Model *m = t->m;
    Work *w = t->w;
    int B = t->B, n = m->cfg.n_ctx, d = m->cfg.d;
    size_t row = sizeof(float) * d;
    StackCall sc = {m, w, B, t->sample0, t->training, t->step_key, -1, 0, t->want_grad, NULL, 0};
    flip_rows(w->inputs_rev, w->inputs, B, n, sizeof(int32_t));
    embed_forward(m, 0, w->stacks[0].blocks[0].x, w->inputs, B);
    embed_forward(m, 1, w->stacks[1].blocks[0].x, w->inputs_rev, B);
    stack_forward(&sc, 0, w->inputs);
    stack_forward(&sc, 1, w->inputs_rev);
    const float *f = w->stacks[0].out, *r = w->stacks[1].out;
    /* h[b, t] = f[b, t-1] + r_flipped[b, t+1], r_flipped[b, u] = r[b, n-1-u] */
    float *h = w->t2;
    for (int b = 0; b < B; b++)
        for (int s = 0; s < n; s++) {
            float *hr = h + ((size_t)b * n + s) * d;
            memset(hr, 0, row);
            if (s >= 1) vec_acc(hr, f + ((size_t)b * n + s - 1) * d, d);
            if (s + 1 < n) vec_acc(hr, r + ((size_t)b * n + (n - 2 - s)) * d, d);
        }
    task_head_loss(t, h, w->targets, w->t1);
    if (!t->want_grad) return;
    const float *dh = w->t1;   /* read before stack_backward reuses t1 */
    float *df = w->dout, *dr = w->dout2;
    memset(df, 0, row * (size_t)B * n);
    memset(dr, 0, row * (size_t)B * n);
    for (int b = 0; b < B; b++)
        for (int s = 0; s < n; s++) {
            const float *g = dh + ((size_t)b * n + s) * d;
            if (s >= 1) vec_acc(df + ((size_t)b * n + s - 1) * d, g, d);
            if (s + 1 < n) vec_acc(dr + ((size_t)b * n + (n - 2 - s)) * d, g, d);
        }
    stack_backward(&sc, 0, w->inputs, df, w->t1);
    embed_backward(m, 0, w->grads, w->t1, w->inputs, B);
    stack_backward(&sc, 1, w->inputs_rev, dr, w->t1);
    embed_backward(m, 1, w->grads, w->t1, w->inputs_rev, B);
}

const TaskOps task_bidir = {
    .name = "bidir",
    .summary = "all-next-token in both directions: two causal stacks, token t from f[t-1] + r[t+1]",
    .check_arch = bidir_check,
    .stacks = bidir_stacks,
    .window_len = bidir_window,
    .prepare = bidir_prepare,
    .run = bidir_run,
};
