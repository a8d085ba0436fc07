/*
 * clm.c — causal language modelling (SPEC section 3): a window of n+1
 * tokens, inputs are the first n, the target at every position is the next
 * token.  Causal mixers only.
 */
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"
#include "engine/task.h"

static int clm_check(const MixerOps *mixer, const Config *c, char *err)
{
    (void)c;
    if (!mixer->has_causal)
        return err_set(err, "task clm needs a causal mixer; %s has no causal mode (SPEC section 3)",
                       mixer->name);
    return 0;
}

static int clm_stacks(const Config *c, const MixerOps *mixer, StackSpec *out)
{
    (void)c;
    (void)mixer;
    strcpy(out[0].prefix, "");
    out[0].causal = 1;
    return 1;
}

static int clm_window(const Config *c) { return c->n_ctx + 1; }

static void clm_prepare(const Config *c, int B, const int32_t *windows, const uint8_t *scored,
                        int32_t *inputs, int32_t *targets, int training, Rng *rng,
                        const int64_t *window_index)
{
    (void)training;
    (void)rng;
    (void)window_index;
    int n = c->n_ctx;
    for (int b = 0; b < B; b++) {
        const int32_t *w = windows + (size_t)b * (n + 1);
        memcpy(inputs + (size_t)b * n, w, sizeof(int32_t) * n);
        memcpy(targets + (size_t)b * n, w + 1, sizeof(int32_t) * n);
        if (scored)
            for (int t = 0; t < n; t++)
                if (!scored[(size_t)b * (n + 1) + t + 1]) targets[(size_t)b * n + t] = -1;
    }
}

/* The shared single-stack path: embed, stack, head over every position,
   cross-entropy on the rows that have a target. */
void task_single_stack_run(TaskCall *t, int zero_block, int zero_from)
{
    const Model *m = t->m;
    Work *w = t->w;
    int n = m->cfg.n_ctx, N = t->B * n;
    StackCall sc = {m, w, t->B, t->sample0, t->training, t->step_key, zero_block, zero_from};
    StackActs *sa = &w->stacks[0];
    embed_forward(m, 0, sa->blocks[0].x, w->inputs, t->B);
    stack_forward(&sc, 0, w->inputs);
    head_forward(m, w->logits, sa->out, N);
    t->loss_sum = xent_forward_backward(w->logits, w->targets, N, m->cfg.vocab, t->loss_scale,
                                        t->want_grad, &t->correct);
    t->n_targets = 0;
    for (int i = 0; i < N; i++) t->n_targets += w->targets[i] >= 0;
    if (!t->want_grad) return;
    head_backward(m, w->grads, w->head_in, w->logits, sa->out, N);
    stack_backward(&sc, 0, w->inputs, w->head_in, w->t1);
    embed_backward(m, 0, w->grads, w->t1, w->inputs, t->B);
}

static void clm_run(TaskCall *t) { task_single_stack_run(t, -1, 0); }

const TaskOps task_clm = {
    .name = "clm",
    .summary = "causal language modelling: next token at every position",
    .check_arch = clm_check,
    .stacks = clm_stacks,
    .window_len = clm_window,
    .prepare = clm_prepare,
    .run = clm_run,
};
