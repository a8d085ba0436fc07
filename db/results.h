/*
 * results.h — typed reads of a sweep's results for the verdicts, the
 * report and the workbench's screens: the newest sweep of a preset, its
 * jobs with their coordinates as key/value pairs and their final numbers as
 * doubles (NAN where the store has NULL), and the paper figures stored for
 * a preset.  Every read is one SELECT on the documented views (sweeps,
 * sweep_results, paper_figures); callers never write SQL.
 *
 * Not for: grouping runs over seeds or judging claims
 * (experiments/points.h, experiments/claims.h), or writing (jobs.h).
 */
#ifndef MIXBENCH_RESULTS_H
#define MIXBENCH_RESULTS_H

#include <stdint.h>

#include "db/status.h"
#include "db/store.h"

enum { RESULT_MAX_COORDS = 16 };

/* One axis value of a job or a figure: {"layers": "2"} is key "layers",
   value "2".  Values are as written in the spec (data paths expanded). */
typedef struct {
    char key[32];
    char value[256];
} CoordPair;

/* A sweeps row. */
typedef struct {
    int64_t id;
    char name[64];          /* its label: the preset or "grid" unless renamed (`sweep --name`, `rename`) */
    char preset[64];        /* what it was queued from: the preset, NAME@paper, "grid" or "demo" */
    char spec[2048];        /* as expanded when queued: `mixbench sweep <spec>` repeats it */
    char axes_json[512];
    char created_at[32];
    char note[1024];        /* its note (`note sweep:S`, N on Runs and Run), "" when none */
} SweepRow;

/* The newest sweep (highest id) queued from preset, not in the trash;
   *found 0 when none. */
int results_newest_sweep(Store *s, const char *preset, SweepRow *out, int *found, char *err);
/* The sweep with that id; *found 0 when none. */
int results_sweep(Store *s, int64_t sweep_id, SweepRow *out, int *found, char *err);

/* One job of a sweep (a sweep_results row). */
typedef struct {
    int64_t run_id;
    char status[16];        /* done, failed, queued, ... */
    char arch[32], task[16];
    char data[512];
    int n_coords;
    CoordPair coords[RESULT_MAX_COORDS];  /* in the sweep's axis order */
    double test_loss;       /* nats per target token, last test evaluation */
    double test_loss_all;   /* mlm: every position a target (SPEC section 3) */
    double train_loss;      /* smoothed, last step */
    double test_perplexity;
    double test_accuracy;
    double infer_samples_per_s;
    double tokens;          /* training tokens seen */
    double wall;            /* training seconds */
    double seed;
    double unigram_nats;    /* of its dataset; NAN when not computed */
    int not_learning;       /* 1: finished less than 0.1 nat below the unigram level */
    double best_valid_loss; /* the lowest valid evaluation */
    double best_valid_step; /* its step (the first of equal ones); NAN: no valid evaluation */
    double valid_loss_all;  /* mlm: the last valid evaluation over every position */
    double lr;              /* its config's learning rate */
    RunStatus state;        /* status as a RunStatus */
    int64_t steps_done, total_steps;
    double valid_loss;      /* the last valid evaluation */
    double tokens_per_s;    /* training */
    int64_t d, layers, n_ctx;   /* 0 when the run does not say */
    double peak_run_mb;     /* its own peak memory (runs.peak_run_mb); NAN: not measured */
    double train_cpu_seconds;   /* runs.train_cpu_seconds; NAN: not measured */
} ResultRun;

/* The jobs of a sweep in run id order; finished_only keeps status 'done'
   (a run that did not finish does not count in a comparison).  *out is
   malloc'd (free() it; NULL when *n is 0). */
int results_sweep_runs(Store *s, int64_t sweep_id, int finished_only, ResultRun **out, int *n, char *err);

/* A paper_figures row. */
typedef struct {
    int n_coords;
    CoordPair coords[RESULT_MAX_COORDS];
    char metric[32];        /* train_loss, test_loss, test_perplexity, samples_per_s */
    double value;
    char note[128];         /* the table or section */
    char setting[8];        /* S1..S7 */
    char setting_text[1024];
} FigureRow;

/* The figures stored for preset, ordered by setting, then as inserted
   (coords, metric).  *out is malloc'd (free() it; NULL when *n is 0). */
int results_paper_figures(Store *s, const char *preset, FigureRow **out, int *n, char *err);

/* The value of key among pairs, or NULL. */
const char *coord_value(const CoordPair *pairs, int n, const char *key);

#endif
