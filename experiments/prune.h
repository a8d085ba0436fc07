/*
 * prune.h — stopping hopeless trials early, across the runs of a sweep:
 * the successive halving that lr=tune's search makes synchronously, and
 * that a random search's pruner (`--prune asha`) makes asynchronously;
 * and `--prune median`.  One mechanism: a rung's trials are ranked by
 * their final valid loss at the same budget (prune_rank), the kept ones
 * continue to the next budget as a wsd extension from their cool-down's
 * checkpoint (prune_continue), the others end with status 'pruned'
 * (store_run_prune, db/adaptive.h) and runs.error says why.
 *
 *   --prune asha    prune_eta=E (3) prune_grace=F (0.1): rungs at the
 *                   budgets B/E^K, ..., B/E, B (K the largest with
 *                   E^-K >= F); every trial starts at the first.  A
 *                   trial (its seeds: a seed group, its loss their mean)
 *                   continues from rung k when it is among the best
 *                   floor(c/E) of the first c trials that reached rung k,
 *                   for some c (ASHA's rule, Li et al. 2020, with the
 *                   trials taken in their order rather than as they
 *                   happen to finish), or when it is the best of all the
 *                   trials that reach rung k (a pruner always lets the
 *                   best of a rung go on, so something reaches the full
 *                   budget even when floor(n/E) is 0: 2 trials at a rung
 *                   of E=3); it is pruned once neither can make it so.
 *                   A trial that failed or diverged is the worst.
 *   --prune median  prune_grace=F (0.1) prune_startup=N (3): a trial whose
 *                   valid loss at an evaluation past F of its budget (not
 *                   its last) is above the median of the earlier
 *                   completed trials' at the same step is pruned there
 *                   (Optuna's MedianPruner), once N earlier trials have
 *                   completed.
 *
 * Trials compete within their bracket: the sweep's grid point without the
 * drawn keys, trial and seed (arch=mixer,attention: each architecture's
 * trials among themselves).  Every decision is a function of the store's
 * results taken in trial order: a trial waits for the trials before it,
 * so the same results give the same decisions whatever the number of
 * workers and whenever they finish (a run judged while it still trains
 * stops at its next check, a done one becomes pruned).  A pruned run's
 * worker takes the next queued trial.
 *
 * Not for: parsing the words (search.h) or lr=tune's own bookkeeping
 * (adaptive.c).
 */
#ifndef MIXBENCH_PRUNE_H
#define MIXBENCH_PRUNE_H

#include <stdint.h>

#include "db/adaptive.h"
#include "db/store.h"
#include "engine/config.h"
#include "experiments/rungs.h"
#include "experiments/sweep.h"

/* One trial at a rung: order breaks ties (trial number, or lr=tune's lr
   index), loss its final valid loss there (non-finite: the worst). */
typedef struct {
    int order;
    double loss;
} RungEntry;

/* Sorts e best first: lower loss, then lower order. */
void prune_rank(RungEntry *e, int n);
/* How many of n continue: synchronously (the whole rung in) ceil(n/eta),
   asynchronously (ASHA, c trials in so far) floor(c/eta). */
int prune_keep_sync(int n, double eta);
int prune_keep_async(int n, double eta);
/* Continues run_id to budget (tokens when `tokens`, else steps): a wsd
   extension from its cool-down's checkpoint (experiments/extend.h). */
int prune_continue(Store *s, int64_t run_id, int tokens, int64_t budget, char *err);

/* One step of the sweep's pruner (inside adaptive_advance's transaction):
   records finished rungs, continues and prunes (asha), prunes (median).
   *acted is set when a run was continued. */
int prune_step(Store *s, const SweepPlanRow *row, const SweepPlan *plan, const AdaptiveRun *runs, int n_runs,
               int *acted, char *err);

#endif
