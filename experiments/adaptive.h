/*
 * adaptive.h — sweeps that decide what to run next from what they found
 * (sweeps.plan_json, experiments/sweep.h SweepPlan):
 *
 *   lr=tune             each point (the jobs equal apart from seed) first
 *                       searches its learning rate: tune_points values on a
 *                       log grid (3e-4..1e-2), trained tune_share of the
 *                       point's budget (rung 0), but at least
 *                       ADAPTIVE_TUNE_MIN_STEPS steps and
 *                       ADAPTIVE_TUNE_MIN_WARMUPS warm-ups (a rung that ends
 *                       while the learning rate still rises ranks the
 *                       warm-up, not the rate) and at most the whole
 *                       budget; the better half (ceil) of
 *                       each rung, ranked by final valid loss at the same
 *                       tokens, continues to twice the budget (a wsd
 *                       extension), until one is left: 5 -> 3 -> 2 -> 1
 *                       at 1x, 2x and 4x the first budget (prune.h's
 *                       successive halving, synchronous), the others
 *                       pruned; a rung whose doubling would pass the
 *                       point's own budget goes on to the budget itself,
 *                       where a learned rung picks its winner (past it
 *                       only on the plateau).  A winner
 *                       at the edge of what was searched meets the rate
 *                       a grid step beyond, trained from the start to
 *                       its rung, up to ADAPTIVE_TUNE_EDGE_STEPS steps
 *                       past the grid.  The trials are
 *                       runs of the sweep with role 'lr-search' (not in
 *                       sweep_results, verdicts or points); the winner is
 *                       stored in tuned_lrs and the point's seeds are then
 *                       queued with it.
 *   --until-conclusive  once every job of the sweep has finished, the
 *                       preset's claims are judged (experiments/claims.h)
 *                       and the round recorded in `verdicts`; a claim that
 *                       is undecided (budget) because a compared point did not
 *                       learn enough gets the runs of both points of that
 *                       comparison extended to twice their budget (all
 *                       seeds), so that they are compared at equal tokens,
 *                       and one whose points trained on unequal budgets
 *                       gets the shorter point's extended; a claim undecided
 *                       by its interval gets, at each compared point, the
 *                       seeds a side its tests need for 80% power at the
 *                       spread measured (ClaimResult.seeds_needed), at most
 *                       ADAPTIVE_MAX_SEEDS, fewer (one more at least) where
 *                       the round would pass max_hours; then the next
 *                       round, until every claim is decided, nothing more
 *                       can decide one, STATS_MAX_LOOKS rounds were judged
 *                       (alpha is spent over them: each round's verdicts
 *                       at stats.h alpha_at_look), or the next round would pass
 *                       max_hours of training (CPU hours: training
 *                       seconds x threads of every run of the sweep, the
 *                       search included).  sweeps.concluded says which.
 *
 *   --prune asha|median a random search's trials stopped early (prune.h).
 *
 * Every decision is made from the store alone, inside one write
 * transaction (so two workers never act twice, and the number of workers
 * does not change what is decided), by whoever calls adaptive_advance:
 * the workers after each job and when the queue runs dry, `mixbench sweep`
 * right after queueing.
 *
 * Not for: judging claims (claims.h) or continuing a run (extend.h).
 */
#ifndef MIXBENCH_ADAPTIVE_H
#define MIXBENCH_ADAPTIVE_H

#include <stdint.h>

#include "db/store.h"
#include "engine/config.h"
#include "experiments/claims.h"
#include "experiments/sweep.h"

#define ADAPTIVE_MAX_SEEDS CLAIM_MAX_SEEDS  /* an undecided claim's points get seeds up to this */
#define ADAPTIVE_TUNE_MIN_STEPS 50   /* lr=tune's first rung trains at least this many steps */
#define ADAPTIVE_TUNE_MIN_WARMUPS 5  /* ... and this many warm-ups */
#define ADAPTIVE_TUNE_EDGE_STEPS 2   /* a winner at the grid's edge: up to this many grid steps past it */

/* One step of sweep_id's plan, as far as the store allows now.  *acted
   is set when something was queued, extended or concluded. */
int adaptive_advance(Store *s, int64_t sweep_id, int *acted, char *err);
/* adaptive_advance for run_id's sweep when it prunes runs while they train
   (--prune median), after each of the run's valid evaluations (a worker's
   JobSpec.evaluated); nothing otherwise. */
int adaptive_advance_run(Store *s, int64_t run_id, int *acted, char *err);
/* adaptive_advance for every sweep whose plan is still going. */
int adaptive_advance_all(Store *s, int *acted, char *err);

/* `mixbench sweep --continue`: sweep_id (--until-conclusive) goes on.
   max_hours > 0 raises its cap (*old_cap) to max_hours; <= 0 keeps it.
   A sweep that stopped (its cap, every claim decided, nothing more
   decides one) goes on from the round it stopped in: judged again by
   today's claims code, then extended or given seeds, or concluded again;
   one still going keeps going under the new cap.  Refused, with the store
   untouched: a sweep that does not exist or has no plan, a cap that is not
   larger (or none to raise), no new cap for a sweep its cap stopped, and
   nothing to do (still going, no new cap). */
int adaptive_continue(Store *s, int64_t sweep_id, double max_hours, double *old_cap, char *err);

/* The learning rates tuned so far, "lr tuned per architecture: attention
   2e-3, mixer 4e-3" (several points of one architecture: "mixer 4e-3 to
   8e-3"), then the architectures whose search chose while no trial had
   learned enough to judge a claim on the loss it trains on (points.h
   result_learned: loss_all for a masked LM with mlm_loss=all), whose
   ranking is weak: "; chosen on the unigram plateau (no trial had learned
   yet): mixer", then those whose search chose an end of a grid of 3 or
   more rates: "; at the grid's edge, a better rate may lie beyond it: fft
   (0.01)"; "" when the sweep tuned none. */
int adaptive_tuned_summary(Store *s, int64_t sweep_id, char *out, int cap, char *err);

/* What one point's lr search trains, in runs of the point's budget: the
   first rung's trials at `share` of it, then the survivors continued from
   their cool-down's start (1 - cooldown of the budget) to twice it. */
double adaptive_search_runs(int points, double share, double cooldown);
/* The same at most: while no trial of a rung has left the unigram plateau
   every trial continues to twice the budget (up to the point's own), the
   halving after that stops at the plain schedule's last rung, and the
   winner at the grid's edge meets ADAPTIVE_TUNE_EDGE_STEPS rates beyond it
   (grids of 3 or more), each trained from the start to that rung. */
double adaptive_search_runs_worst(int points, double share, double cooldown);

/* What a sweep's lr=tune searches train, in runs of its points' budgets
   summed over its points (one job a point: the first seed's), as planned
   and at most, and the range of their first rungs' shares; all 0 without
   lr=tune. */
typedef struct {
    int points;
    double runs, worst;         /* summed over the points */
    double share_lo, share_hi;
} SearchEstimate;
SearchEstimate adaptive_search_estimate(const Sweep *sw);

/* The share of c's budget lr=tune's first rung trains: the plan's
   tune_share, raised to ADAPTIVE_TUNE_MIN_STEPS steps and
   ADAPTIVE_TUNE_MIN_WARMUPS warm-ups, at most 1. */
double adaptive_first_share(const SweepPlan *pl, const Config *c);

/* The learning rates on lr=tune's log grid: value k of n on [lo, hi]. */
double adaptive_grid_lr(double lo, double hi, int k, int n);

#endif
