/*
 * complete.c — one-step completion (Masked Mixers II, SPEC section 3): a clm
 * window; with c = ceil(n/2), the hidden states at positions >= c are set to
 * zero before block floor(L/2), and the loss covers the predictions made at
 * positions c-1 .. n-1, i.e. every token after the prompt s[0..c).  Causal
 * mixers except pairconnect, whose pair lookups would read the targets.
 */
#include <string.h>

#include "engine/common.h"
#include "engine/task.h"

static int complete_check(const MixerOps *mixer, const Config *c, char *err)
{
    (void)c;
    if (!mixer->has_causal)
        return err_set(err, "task complete needs a causal mixer; %s has no causal mode (SPEC section 3)",
                       mixer->name);
    if (!strcmp(mixer->name, "pairconnect"))
        return err_set(err, "task complete excludes pairconnect: its pair lookups would read the targets "
                            "(SPEC section 3)");
    return 0;
}

static int complete_stacks(const Config *c, const MixerOps *mixer, StackSpec *out)
{
    (void)c;
    (void)mixer;
    strcpy(out[0].prefix, "");
    out[0].causal = 1;
    return 1;
}

static int complete_window(const Config *c) { return c->n_ctx + 1; }

static int prompt_len(const Config *c) { return (c->n_ctx + 1) / 2; }

static void complete_prepare(const Config *c, int B, const int32_t *windows, const uint8_t *scored,
                             int32_t *inputs, int32_t *targets, int training, Rng *rng,
                             const int64_t *window_index)
{
    const TaskOps *clm = task_find("clm");
    clm->prepare(c, B, windows, scored, inputs, targets, training, rng, window_index);
    int n = c->n_ctx, first = prompt_len(c) - 1;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < first; t++) targets[(size_t)b * n + t] = -1;
}

static void complete_run(TaskCall *t)
{
    task_single_stack_run(t, t->m->cfg.layers / 2, prompt_len(&t->m->cfg));
}

const TaskOps task_complete = {
    .name = "complete",
    .summary = "one-step completion: second half hidden before the middle block, loss on it",
    .check_arch = complete_check,
    .stacks = complete_stacks,
    .window_len = complete_window,
    .prepare = complete_prepare,
    .run = complete_run,
};
