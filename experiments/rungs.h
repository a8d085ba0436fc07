/*
 * rungs.h — the arithmetic of --prune asha's rungs on a sweep's plan
 * (experiments/prune.h says what the rungs are): the last rung, a rung's
 * budget, a job's first-rung budget, and the share of the trials' full
 * training asha is expected to spend.  Below the words that set the plan
 * (experiments/search.c checks a pruner leaves more than one rung) and the
 * pruner itself (experiments/prune.c).
 *
 * Not for: deciding which trials go on (prune.h).
 */
#ifndef MIXBENCH_RUNGS_H
#define MIXBENCH_RUNGS_H

#include <stdint.h>

#include "engine/config.h"
#include "experiments/sweep_plan.h"

/* c's budget: tokens when it has them (*tokens 1), else steps. */
int64_t prune_budget_of(const Config *c, int *tokens);
/* The last rung's index K of --prune asha (0: a single rung, nothing to
   prune: prune_grace >= 1/prune_eta); 0 without asha. */
int prune_top_rung(const SweepPlan *p);
/* Rung k's budget for a full budget `full` (tokens when `tokens`, with
   step_tokens a step's), at least one step. */
int64_t prune_rung_budget(const SweepPlan *p, int64_t full, int tokens, int64_t step_tokens, int k);
/* c's budget cut to --prune asha's first rung (sweep_queue.c queues it so). */
void prune_first_rung(const SweepPlan *p, Config *c);
/* The share of the trials' full training that asha spends if every rung
   keeps 1 in eta, and at least one of the plan's trials (the estimate's):
   a continuation trains from its cool-down's start, (1 - cooldown) of the
   rung before. */
double prune_asha_share(const SweepPlan *p, double cooldown);

#endif
