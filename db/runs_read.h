/*
 * runs_read.h — typed reads of runs for the workbench's Runs, Run and
 * Compare screens: every run with its last numbers (the results view), one
 * run's config, evaluations and checkpoints, its seed group, the runs
 * Compare falls back to, and a run's curve points past a step.  Numbers
 * come back as numbers: int64_t counts, doubles with NAN for SQL NULL, the
 * status as a RunStatus.
 *
 * A seed group: runs of one sweep whose coordinates are equal apart from
 * seed; a run outside a sweep, the runs outside a sweep whose config is
 * equal apart from seed (and threads, which does not change the model).
 *
 * Not for: writing, grids and paper figures (db/results.h), or drawing.
 */
#ifndef MIXBENCH_RUNS_READ_H
#define MIXBENCH_RUNS_READ_H

#include <stdint.h>

#include "db/status.h"
#include "db/store.h"
#include "engine/config.h"

/* A run as the screens list and head it: the runs row, its sweep, and the
   results view's last numbers and unigram facts. */
typedef struct {
    int64_t id;
    char name[64], arch[32], task[32], data[256];
    RunStatus status;            /* RUN_STATUS_COUNT for a text it does not know */
    char error[256];             /* "" when none */
    int64_t sweep_id;            /* 0: no sweep */
    char sweep[64];              /* the sweep's name, "" when none */
    char coords[256];            /* "k=v k=v" (seed included), "" outside a sweep */
    uint64_t seed_group;         /* equal for the runs of one seed group (a hash) */
    int64_t seed, threads;
    int64_t steps_done, total_steps, tokens_seen;
    int64_t n_params, n_params_nonembedding;   /* 0 until the job starts */
    double run_tokens_per_s;     /* runs.tokens_per_s: written when the job ends */
    double wall_seconds;         /* training seconds so far */
    double tokens_per_s;         /* runs.tokens_per_s, else the last metric's */
    double train_loss;           /* smoothed, last step */
    double best_valid_loss, valid_loss;        /* the lowest and the last */
    double test_loss, test_perplexity, test_accuracy;
    double valid_loss_all, test_loss_all;      /* mlm: every position a target */
    double unigram_nats;         /* the dataset's unigram entropy */
    double unigram_gap;          /* unigram_nats minus the run's best loss */
    int not_learning;            /* finished less than 0.1 nat below the unigram level */
    int64_t resumed_step;        /* the step it last resumed from after a restart; -1 never */
    int is_search;               /* a trial of its sweep's lr=tune (runs.role 'lr-search') */
    double lr;                   /* its config's learning rate */
    char tags[256];              /* space-separated, sorted; "" when none (schema version 7) */
    char note[256];              /* "" when none */
    int starred;                 /* protected from the trash */
    char config_json[2048];      /* the config as stored (a JSON object), for filters on any key */
} RunSummary;

/* Every run not in the trash, by id.  *out is malloc'd (free() it; NULL
   when *n is 0). */
int runs_read_all(Store *s, RunSummary **out, int *n, char *err);
/* The runs in the trash (db/organise.h), by id. */
int runs_read_trash(Store *s, RunSummary **out, int *n, char *err);
/* One run; *found 0 when it is not in the store. */
int runs_read_one(Store *s, int64_t run_id, RunSummary *out, int *found, char *err);
/* The highest run id, 0 when the store has none. */
int runs_read_latest_id(Store *s, int64_t *run_id, char *err);

/* One key of a run's config, in the config's order. */
typedef struct {
    char key[64];
    char value[512];             /* as text: a string as it is, an integer exactly, a real as
                                    %.9g (config_get's form), true / false / null */
    double number;               /* the value when it is a number, else NAN */
    int scalar;                  /* a string, number or boolean (not null, array or object) */
} RunConfigEntry;

/* Every key of the run's config (*out malloc'd, NULL when *n is 0). */
int runs_read_config(Store *s, int64_t run_id, RunConfigEntry **out, int *n, char *err);
/* The config those keys describe (over the defaults; a key that no longer
   parses keeps its default): what config_key_applies asks. */
void runs_config_of(const RunConfigEntry *entries, int n, Config *c);

/* An evaluation. */
typedef struct {
    int64_t step;
    char split[8];               /* valid, test, train */
    double loss, perplexity, accuracy;
    double bits_per_byte;        /* char data only; NAN otherwise */
    int64_t n_tokens;            /* target tokens scored; -1 when not recorded */
    double loss_all;             /* mlm: every position a target; NAN otherwise */
} RunEval;

/* The run's evaluations: oldest first (by step, then train, valid, test)
   or newest first (then by split); at most limit (0: all).  *out malloc'd. */
int runs_read_evals(Store *s, int64_t run_id, int newest_first, int limit, RunEval **out, int *n, char *err);

typedef struct {
    int64_t step;
    char path[1024];
    char created_at[32];         /* UTC, ISO 8601 */
} RunCheckpoint;

/* The run's checkpoints, by step (then path), oldest or newest first; at
   most limit (0: all).  *out malloc'd. */
int runs_read_checkpoints(Store *s, int64_t run_id, int newest_first, int limit, RunCheckpoint **out, int *n,
                          char *err);

/* The runs in run_id's seed group (itself included), by id, at most cap. */
int runs_read_seed_group(Store *s, int64_t run_id, int64_t *ids, int cap, int *n, char *err);

/* Compare's runs when none are picked: the newest finished runs (status
   done) of the latest sweep that has any, else of no sweep; newest first,
   at most cap.  *sweep_id (0: no sweep) and sweep (its name, 64 bytes) are
   those of the runs found. */
int runs_read_last_finished(Store *s, int64_t *ids, int cap, int *n, int64_t *sweep_id, char sweep[64],
                            char *err);

/* A point of a run's curve with its three x axes. */
typedef struct {
    int64_t step;
    double tokens, wall;         /* training tokens and seconds at that step */
    double value;                /* NAN where the store has NULL */
} RunCurvePoint;

typedef enum {
    RUN_CURVE_TRAIN_RAW,         /* metrics.train_loss */
    RUN_CURVE_TRAIN_SMOOTH,      /* metrics.train_loss_smooth */
    RUN_CURVE_VALID,             /* evals.loss of split 'valid'; tokens and wall of
                                    the last metric row at or before its step */
} RunCurveKind;

/* The points past step after, by step, at most limit (0: all).  *out is
   malloc'd (free() it; NULL when *n is 0). */
int runs_read_curve(Store *s, int64_t run_id, RunCurveKind kind, int64_t after, int limit,
                    RunCurvePoint **out, int *n, char *err);

/* As runs_read_curve, at most max_points points evenly spaced over the
   steps past after (a seek each, whatever the run's length); the valid
   curve is read whole.  For a first look at a long run. */
int runs_read_curve_sampled(Store *s, int64_t run_id, RunCurveKind kind, int64_t after, int max_points,
                            RunCurvePoint **out, int *n, char *err);

#endif
