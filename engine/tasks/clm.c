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
