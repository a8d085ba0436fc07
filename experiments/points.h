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

typedef enum {
    PM_TEST_LOSS,
    PM_TEST_LOSS_ALL,
    PM_TRAIN_LOSS,
    PM_TEST_PERPLEXITY,
    PM_SAMPLES_PER_S,       /* batch-1, one-thread inference (runs.infer_samples_per_s) */
    PM_TOKENS,
    PM_WALL,
    PM_UNIGRAM,             /* the dataset's unigram entropy (nats) */
    PM_COUNT
} PointMetric;

/* "test_loss", "test_loss_all", "train_loss", "test_perplexity",
   "samples_per_s" (the paper figures' names), "tokens", "wall", "unigram_nats". */
const char *point_metric_name(PointMetric m);
/* The metric called name, or -1. */
int point_metric_find(const char *name);
/* A run's value of m (NAN when the store has none). */
double result_metric(const ResultRun *r, PointMetric m);

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
    int n_runs;             /* seeds */
    int n_not_learning;     /* runs flagged "not learning: unigram level" */
    int n_unlearned;        /* runs that did not learn enough to judge a claim on
                               their loss: best valid loss not LEARNED_NATS below
                               the unigram entropy */
    int n_unlearned_all;    /* ... on loss_all (the PairConnect paper's scale):
                               valid loss_all not below LEARNED_ALL_FACTOR x the
                               masked share x the unigram entropy */
    SeedStats stat[PM_COUNT];
} Point;

/* Groups runs (finished ones: see results_sweep_runs) into points, in the
   order their first run appears.  *out is malloc'd (free() it). */
int points_group(const ResultRun *runs, int n, Point **out, int *n_points);

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
