/*
 * rungs.c — the budgets of --prune asha's rungs (rungs.h).
 */
#include "experiments/rungs.h"

#include <assert.h>
#include <math.h>

int prune_top_rung(const SweepPlan *p)
{
    assert(p);
    if (p->prune != PRUNE_ASHA || !(p->prune_eta > 1) || !(p->prune_grace > 0)) return 0;
    return (int)floor(log(1 / p->prune_grace) / log(p->prune_eta) + 1e-9);
}

int64_t prune_rung_budget(const SweepPlan *p, int64_t full, int tokens, int64_t step_tokens, int k)
{
    assert(p && full > 0 && k >= 0);
    int top = prune_top_rung(p);
    if (k >= top) return full;
    int64_t b = llround((double)full / pow(p->prune_eta, top - k)), least = tokens ? step_tokens : 1;
    return b > least ? b : least;
}

int64_t prune_budget_of(const Config *c, int *tokens)
{
    *tokens = c->tokens > 0;
    return *tokens ? c->tokens : config_total_steps(c);
}

void prune_first_rung(const SweepPlan *p, Config *c)
{
    assert(p && c);
    if (!prune_top_rung(p)) return;
    int tokens;
    int64_t full = prune_budget_of(c, &tokens), b = prune_rung_budget(p, full, tokens, (int64_t)c->batch * c->n_ctx, 0);
    if (tokens) c->tokens = b;
    else c->steps = b;
}

double prune_asha_share(const SweepPlan *p, double cooldown)
{
    assert(p);
    int top = prune_top_rung(p);
    if (!top) return 1;
    double share = 0, reach = 1, before = 0;
    for (int k = 0; k <= top; k++) {
        double b = pow(p->prune_eta, k - top);
        /* the best of a rung always goes on: at least one of the trials */
        double least = p->trials > 0 ? 1.0 / p->trials : 0;
        share += (reach > least ? reach : least) * (b - (1 - cooldown) * before);
        before = b;
        reach /= p->prune_eta;
    }
    return share;
}
