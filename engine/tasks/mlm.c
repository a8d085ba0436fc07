/*
 * mlm.c — masked language modelling (SPEC section 3).  A window of n tokens;
 * a sequence is masked with probability 0.9; in a masked sequence each
 * position is chosen with probability 0.15 (at least one, drawn uniformly),
 * and chosen tokens become MASK.  The loss is the mean over all chosen
 * positions of the batch, and logits are computed at those positions only.
 * With mlm_loss = all (training only) the masking is the same but every
 * position is a target, its original token (a chosen position's is the
 * token MASK replaced, any other's its own unchanged input), and the loss is
 * the mean over all B*n positions; the head then runs on every row.  An
 * evaluation reports both: loss over the chosen positions and loss_all over
 * every position, from one forward pass (task_head_loss_all).
 * Bidirectional mixers only.
 *
 * Training draws from the run's generator, per sequence in batch order: one
 * uniform for "masked?", then (if masked) one uniform per position in order,
 * then, if none was chosen, one uniform index.  Evaluation masks by the
 * SPEC's fixed MurmurHash3 rule, so every run and tool sees the same test set.
 */
#include <string.h>

#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/murmur3.h"
#include "engine/task.h"

#define MLM_SEED 0x6d6c6du
#define MLM_SEED_FALLBACK 0x6d6c6eu

static int mlm_check(const MixerOps *mixer, const Config *c, char *err)
{
    (void)c;
    if (!mixer->has_bidir)
        return err_set(err, "task mlm needs a bidirectional mixer; %s is causal only (SPEC section 3)",
                       mixer->name);
    return 0;
}

static int mlm_stacks(const Config *c, const MixerOps *mixer, StackSpec *out)
{
    (void)c;
    (void)mixer;
    strcpy(out[0].prefix, "");
    out[0].causal = 0;
    return 1;
}

static int mlm_window(const Config *c) { return c->n_ctx; }

/* The SPEC's fixed evaluation rule: window w is masked iff
   murmur3(le32(w)) mod 10 != 0; position p of a masked window is chosen iff
   murmur3(le32(w) || le32(p)) mod 10000 < 1500. */
static int eval_window_masked(int64_t w) { return murmur3_u32((uint32_t)w, MLM_SEED) % 10 != 0; }

static int eval_position_chosen(int64_t w, int p)
{
    return murmur3_u32_pair((uint32_t)w, (uint32_t)p, MLM_SEED) % 10000 < 1500;
}

static void mlm_prepare(const Config *c, int B, const int32_t *windows, const uint8_t *scored,
                        int32_t *inputs, int32_t *targets, int training, Rng *rng,
                        const int64_t *window_index)
{
    (void)scored;
    int n = c->n_ctx;
    for (int b = 0; b < B; b++) {
        const int32_t *win = windows + (size_t)b * n;
        int32_t *in = inputs + (size_t)b * n, *tg = targets + (size_t)b * n;
        memcpy(in, win, sizeof(int32_t) * n);
        for (int p = 0; p < n; p++) tg[p] = -1;
        int masked, chosen = 0;
        if (training) {
            masked = rng_double(rng) < 0.9;
            if (masked)
                for (int p = 0; p < n; p++)
                    if (rng_double(rng) < 0.15) {
                        tg[p] = win[p];
                        chosen++;
                    }
            if (masked && !chosen) {
                int p = (int)rng_below(rng, (uint64_t)n);
                tg[p] = win[p];
                chosen++;
            }
        } else {
            int64_t w = window_index[b];
            masked = eval_window_masked(w);
            if (masked)
                for (int p = 0; p < n; p++)
                    if (eval_position_chosen(w, p)) {
                        tg[p] = win[p];
                        chosen++;
                    }
            if (masked && !chosen) {
                int p = (int)(murmur3_u32((uint32_t)w, MLM_SEED_FALLBACK) % (uint32_t)n);
                tg[p] = win[p];
            }
        }
        for (int p = 0; p < n; p++)
            if (tg[p] >= 0) in[p] = TOKEN_MASK;
        if (training && c->mlm_loss == MLM_LOSS_ALL) memcpy(tg, win, sizeof(int32_t) * n);
    }
}

static void mlm_run(TaskCall *t)
{
    if (t->score_all) {
        /* loss_all: a position without a target predicts its own input */
        Work *w = t->w;
        size_t N = (size_t)t->B * t->m->cfg.n_ctx;
        for (size_t i = 0; i < N; i++) w->targets_all[i] = w->targets[i] >= 0 ? w->targets[i] : w->inputs[i];
    }
    task_single_stack_run(t, -1, 0);
}

const TaskOps task_mlm = {
    .name = "mlm",
    .summary = "masked language modelling: 15% of positions of 90% of sequences, MASK only",
    .check_arch = mlm_check,
    .stacks = mlm_stacks,
    .window_len = mlm_window,
    .prepare = mlm_prepare,
    .run = mlm_run,
    .has_loss_all = 1,
};
