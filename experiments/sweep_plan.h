/*
 * sweep_plan.h — what a sweep does beyond its grid (SweepPlan, stored as
 * sweeps.plan_json): lr=tune, --until-conclusive, a random search and its
 * pruner.  Its own header so that the words that set it
 * (experiments/search.h) and the rung arithmetic on it
 * (experiments/rungs.h) sit below the sweep that holds it
 * (experiments/sweep.h) and the pruner that reads it (experiments/prune.h).
 *
 * Not for: the words of the search that set it (experiments/search.h).
 */
#ifndef MIXBENCH_SWEEP_PLAN_H
#define MIXBENCH_SWEEP_PLAN_H

#include <stdint.h>

#include "engine/io/json.h"

/* What a sweep does beyond its grid (experiments/adaptive.h; stored as
   sweeps.plan_json): lr=tune searches each point's learning rate before
   its seeds train; --until-conclusive extends and adds seeds until the
   preset's claims are decided or max_hours of training are spent; a random
   search draws its trials from distributions, and a pruner stops the
   hopeless ones (experiments/search.h, experiments/prune.h). */
typedef enum { PRUNE_NONE, PRUNE_ASHA, PRUNE_MEDIAN } PruneKind;

typedef struct {
    int lr_tune;            /* lr=tune */
    double tune_lo, tune_hi;  /* tune_lr=LO..HI: the log grid's ends (3e-4..1e-2) */
    int tune_points;        /* tune_points=N: values on it (5) */
    double tune_share;      /* tune_share=F: the first rung's budget, a share of the point's (0.125) */
    int until_conclusive;   /* `sweep --until-conclusive` */
    double max_hours;       /* `--max-hours H`: the cap on the sweep's training (CPU hours) */
    int random_search;      /* search=random (`--search random`) */
    int trials;             /* trials=N (`--trials N`): every grid point gets them all */
    int64_t search_seed;    /* search_seed=S (`--search-seed S`, default 0): draws the trials */
    char search_keys[256];  /* the keys drawn from distributions, space-separated */
    PruneKind prune;        /* prune=asha|median (`--prune`) */
    double prune_eta;       /* asha: a rung keeps 1 trial in eta (3) */
    double prune_grace;     /* asha: the first rung is at least this share of the budget; median:
                               no trial is pruned before it (0.1) */
    int prune_startup;      /* median: finished trials needed before one is pruned (3) */
    double alpha;           /* alpha=A: the level of the claims' verdicts (stats.h STATS_ALPHA) */
} SweepPlan;

/* The plan as sweeps.plan_json stores it, and back (experiments/search.c). */
void sweep_plan_json(const SweepPlan *p, StrBuf *sb);
int sweep_plan_parse(const char *json, SweepPlan *p, char *err);

#endif
