/*
 * adaptive.h — the store's side of sweeps that decide what to run next
 * (experiments/adaptive.h): their plan and round, their runs as the
 * controller reads them (point, lr, budget, final valid loss, CPU time),
 * the lr each point's search chose (tuned_lrs), the verdict history
 * (verdicts), and the few writes the controller makes besides queueing and
 * extending (a run's role).
 *
 * Not for: deciding anything (experiments/adaptive.c).
 */
#ifndef MIXBENCH_DB_ADAPTIVE_H
#define MIXBENCH_DB_ADAPTIVE_H

#include <stdint.h>

#include "db/status.h"
#include "db/store.h"

/* A sweeps row's plan: plan_json ("" for a plain sweep), round, why its
   rounds stopped ("" while going), and the rest of the row. */
typedef struct {
    int64_t id;
    char name[64];          /* the preset it was queued from (sweeps.preset), whatever its label */
    char spec[2048];
    char plan_json[1024];
    int round;
    char concluded[512];
} SweepPlanRow;

int store_sweep_plan(Store *s, int64_t sweep_id, SweepPlanRow *out, int *found, char *err);
/* The sweeps with a plan whose rounds have not stopped, oldest first. */
int store_adaptive_sweeps(Store *s, int64_t **ids, int *n, char *err);

/* A run of a sweep as the controller reads it. */
typedef struct {
    int64_t id;
    RunStatus status;
    int is_search;              /* role 'lr-search' */
    char point[512];            /* coords_json without seed (and, for a trial, lr), as SQLite's json() writes it */
    char coords[512];           /* coords_json */
    char *config_json;          /* malloc'd */
    double lr;
    int64_t seed, total_steps;  /* runs.total_steps (the controller puts its config's budget there) */
    double tokens;              /* training tokens seen */
    double valid_loss;          /* the last valid evaluation of the loss it trains on (a masked LM
                                   with mlm_loss=all: loss_all); NAN none */
    int ranks_all;              /* valid_loss is loss_all (a masked LM with mlm_loss=all) */
    double unigram_nats;        /* its data's unigram entropy; NAN unknown */
    double cpu_seconds;         /* training seconds x threads */
} AdaptiveRun;

int store_adaptive_runs(Store *s, int64_t sweep_id, AdaptiveRun **out, int *n, char *err);
void adaptive_runs_free(AdaptiveRun *runs, int n);

/* coords (a JSON object) without its seed, as the points of
   store_adaptive_runs are written. */
int store_json_point(Store *s, const char *coords, char *out, int cap, char *err);
/* point (a JSON object) with "key": "value" set, into out. */
int store_json_with(Store *s, const char *point, const char *key, const char *value, char *out, int cap, char *err);

/* How far a sweep's lr=tune search has got: its trials (role 'lr-search',
   not in the trash) and how many of them are no longer queued, running or
   paused.  One count query: the screens call it on every draw. */
int store_search_progress(Store *s, int64_t sweep_id, int *finished, int *trials, char *err);

/* runs.role ('lr-search' or NULL). */
int store_run_set_role(Store *s, int64_t run_id, const char *role, char *err);

/* The pruner stops run_id (inside the caller's transaction), why going to
   runs.error: a running job gets the request 'prune' (its worker ends it
   'pruned' after its last evaluation: experiments/job.c); a queued, paused
   or interrupted one, and a done one (a rung that waited for the others),
   becomes 'pruned' at once.  A run that failed, diverged, was cancelled or
   is pruned already is left as it is. */
int store_run_prune(Store *s, int64_t run_id, const char *why, char *err);

/* One valid evaluation of a run of a sweep (median pruning's curves; the
   loss as AdaptiveRun.valid_loss). */
typedef struct {
    int64_t run_id, step;
    double loss;
} ValidEval;
/* Every valid evaluation of the sweep's runs, by run then step.  *out
   malloc'd (NULL when *n is 0). */
int store_sweep_valid_evals(Store *s, int64_t sweep_id, ValidEval **out, int *n, char *err);
/* The sweep of run_id when that sweep's plan prunes runs while they train
   (--prune median) and is still going; *sweep_id 0 otherwise.  A plain
   read: a worker asks after every evaluation. */
int store_run_pruning_sweep(Store *s, int64_t run_id, int64_t *sweep_id, char *err);

/* A run's result at a rung of --prune asha (table rungs). */
typedef struct {
    int64_t run_id;
    int rung;
    double loss;            /* INFINITY: it failed, diverged or was cancelled there */
} RungRow;
/* Records run_id's result at rung (steps: its budget there); a rung already
   recorded is kept as it is. */
int store_rung_put(Store *s, int64_t run_id, int rung, int64_t steps, double loss, char *err);
/* Every rung result of the sweep's runs.  *out malloc'd (NULL when *n is 0). */
int store_sweep_rungs(Store *s, int64_t sweep_id, RungRow **out, int *n, char *err);

/* The lr each point's search chose, and what its winning trial had
   learned when it won (results; NAN when not known: read only). */
typedef struct {
    char point[512];
    char arch[32];
    double lr;
    int trials;
    double best_valid_loss, valid_loss_all, unigram_nats;
    int not_learning;
    int ranks_all;          /* 1: a masked LM trained with mlm_loss=all (judged on loss_all) */
} TunedLr;
int store_tuned_lrs(Store *s, int64_t sweep_id, TunedLr **out, int *n, char *err);
int store_tuned_lr_put(Store *s, int64_t sweep_id, const TunedLr *t, char *err);

/* One claim's verdict in one round (verdicts). */
typedef struct {
    int round;
    char claim[512];
    char verdict[32];
    char numbers[4096];
    int64_t tokens_per_run;
    int seeds;
    char action[512];
    int rules;              /* VERDICT_RULES_*: the rules that judged it */
} VerdictRow;
/* Which rules judged a stored verdict (verdicts.rules): before issue 39 one
   Welch test at 95% per look; since, a test per claim kind at alpha spent
   over the rounds (docs/statistics.md).  store_verdict_put writes the
   current ones. */
enum { VERDICT_RULES_WELCH95 = 1, VERDICT_RULES_TESTS = 2 };
int store_verdict_put(Store *s, int64_t sweep_id, const VerdictRow *v, char *err);
/* A sweep's history, by round then claim.  *out malloc'd. */
int store_verdicts(Store *s, int64_t sweep_id, VerdictRow **out, int *n, char *err);

#endif
