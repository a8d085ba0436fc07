/*
 * points.h — a sweep's finished runs grouped into points: runs whose
 * coordinates are the same apart from `seed` are one point, and each metric
 * of a point is summarised over its seeds (mean, se, min-max: stats.h).
 * Points are what verdicts compare, what the report prints and what the
 * workbench shows as "mean +- se (n seeds)".  Also: matching a point, or a
 * paper figure, against a selector such as "arch=mixer d=128" (a `data`
 * value without a '/' matches a data path by its base name: `data=ptb`
 * matches ../shared/data/ptb).
 *
 * Not for: reading the store (db/results.h) or judging claims (claims.h).
 */
#ifndef MIXBENCH_POINTS_H
#define MIXBENCH_POINTS_H

#include "db/results.h"
#include "experiments/stats.h"

/* The one table of metrics (points.c METRICS): what the report, the
   verdicts and every screen call a number, and how it is read. */
typedef enum {
    PM_TEST_LOSS,
    PM_VALID_LOSS,
    PM_TEST_PERPLEXITY,
    PM_TEST_ACCURACY,
    PM_TRAIN_LOSS,
    PM_TOKENS_PER_S,        /* training */
    PM_TEST_LOSS_ALL,       /* mlm: every position a target (SPEC section 3) */
    PM_VALID_LOSS_ALL,
    PM_SAMPLES_PER_S,       /* batch-1, one-thread inference (runs.infer_samples_per_s) */
    PM_ANSWER_ACCURACY,     /* test accuracy of data that scores only answers
                               (builtin:mqar, copy, selective-copy); NAN for other data */
    PM_BEST_VALID_LOSS,     /* the lowest valid evaluation */
    PM_TOKENS,
    PM_WALL,
    PM_UNIGRAM,             /* the dataset's unigram entropy (nats) */
    PM_BEST_VALID_STEP,     /* the step of the lowest valid evaluation */
    PM_PEAK_MB,             /* the run's own peak memory, MB (runs.peak_run_mb) */
    PM_TOKENS_PER_CPU_S,    /* training tokens per CPU-second (tokens / runs.train_cpu_seconds):
                               what a core of its own trains per second */
    PM_COUNT
} PointMetric;

/* The metrics a screen cycles through (the Grid's m), in that order. */
#define PM_SHOWN 10

typedef struct {
    const char *name;       /* "test_loss": the report's and the paper figures' name */
    const char *label;      /* "test loss": the screens' */
    const char *paper;      /* paper_figures.metric of the same measure, NULL: none */
    int higher_better;
    int learned;            /* 1: a measure of what the model learned (a loss, an accuracy): a run
                               that did not learn makes it no evidence; 0: speed, size, budget */
} PointMetricInfo;

const PointMetricInfo *point_metric_info(PointMetric m);
/* "test_loss", "test_loss_all", ... (point_metric_info(m)->name). */
const char *point_metric_name(PointMetric m);
/* The metric called name, or -1. */
int point_metric_find(const char *name);
/* A run's value of m (NAN when the store has none). */
double result_metric(const ResultRun *r, PointMetric m);

/* The metric preset's paper reports its figures in, which the screens open
   on: test loss_all for the PairConnect loss presets (their paper's losses
   are over every position, shared/papers S1), samples/s for
   pairconnect-speed, training tokens per CPU-second for long-context,
   test perplexity for prefix-models, else test loss. */
PointMetric preset_paper_metric(const char *preset);
/* The metric a sweep's tables and figures open on: the preset's paper
   metric (preset_paper_metric) for a preset that names one, else answer
   accuracy when one of runs[0..n) is on data that scores only answers
   (builtin:mqar, copy, selective-copy: recall is measured by it, the loss
   stands beside), else test loss. */
PointMetric headline_metric(const char *preset, const ResultRun *runs, int n);
/* The paper_figures metric that stands beside our metric m of preset, NULL
   when none does: a loss on the paper's all-positions scale only beside
   our loss_all, and its other losses only beside our masked ones. */
const char *paper_metric_beside(const char *preset, PointMetric m);
/* Our metric that stands beside a figure of metric `name` in `setting`
   (a PairConnect S1 loss beside our loss_all). */
PointMetric metric_beside_figure(const char *name, const char *setting);

/* What "learned" means when a claim is judged (shared/papers/README.md): a
   run's best valid loss at least LEARNED_NATS below its data's unigram
   entropy H; for the claims on loss_all (every position a target, the
   PairConnect paper's convention) its valid loss_all below 2 p H, p the
   share of masked positions (0.9 x 0.15): a model that copies the visible
   words and predicts unigram frequencies at the masked ones scores about
   p H, so below 2 p H it has learned to copy and is left with the masked
   words. */
#define LEARNED_NATS 0.3
#define LEARNED_MASKED_SHARE (0.9 * 0.15)
#define LEARNED_ALL_FACTOR 2.0
/* 1 when run r learned enough for a claim judged on metric m. */
int result_learned(const ResultRun *r, PointMetric m);

typedef struct {
    int n_coords;
    CoordPair coords[RESULT_MAX_COORDS];  /* the run's coordinates without seed */
    char arch[32], task[16];
    int n_runs;             /* seeds (every run given, finished or not) */
    int n_done;             /* finished: status done (the statistics are theirs) */
    int n_pending;          /* queued, running, paused, interrupted */
    int64_t running_steps, running_total;   /* the pending runs' steps done and planned */
    int n_not_learning;     /* runs flagged "not learning: unigram level" */
    int n_unlearned;        /* runs that did not learn enough to judge a claim on
                               their loss: best valid loss not LEARNED_NATS below
                               the unigram entropy */
    int n_unlearned_all;    /* ... on loss_all (the PairConnect paper's scale):
                               valid loss_all not below LEARNED_ALL_FACTOR x the
                               masked share x the unigram entropy */
    SeedStats stat[PM_COUNT];
    double budget_min, budget_max;  /* the training tokens its finished runs were
                                       given (result_budget_tokens); NAN: none */
} Point;

/* The training tokens run r was given: those it saw, or, when it stopped
   early by its own rule (stop_accuracy once solved, patience: done before
   its planned steps, experiments/job.c), those its planned steps hold; so
   a solved run is not a shorter budget beside one that trained to the end
   (claims compare budgets, not tokens seen). */
double result_budget_tokens(const ResultRun *r);

/* Groups runs into points (every coordinate but seed, arch and task), in
   the order their first run appears; each metric's statistics are over
   the finished runs (status done), the others are counted.  owner (may be
   NULL) receives each run's point.  *out is malloc'd (free() it). */
int points_group(const ResultRun *runs, int n, Point **out, int *n_points, int *owner);

/* 1 when every key=value word of selector ("arch=mixer d=128"; "" matches
   everything) equals the value in pairs (data by base name, see above); a
   value may list alternatives: "n_ctx=32|128". */
int coords_select(const CoordPair *pairs, int n, const char *selector);
/* coords_select on a point's coordinates, where arch and task, when they
   are not axes, are the point's own (so "arch=pairconnect" selects the
   points of a sweep whose arch is fixed). */
int point_select(const Point *p, const char *selector);
/* 1 when a and b hold the same value of each key in keys ("data layers";
   a key absent from both counts as equal). */
int coords_agree(const CoordPair *a, int na, const CoordPair *b, int nb, const char *keys);
/* 1 when two data values name the same corpus: equal, or equal base names
   when one of them has no '/' or starts with $ ($MIXBENCH_DATA/ptb). */
int data_same(const char *a, const char *b);

/* "ptb 2 4": the values of keys in pairs (data by base name), for labels. */
void coords_label(const CoordPair *pairs, int n, const char *keys, char *out, int cap);

#endif
