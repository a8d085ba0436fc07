/*
 * ui_reads.h — the reads the workbench (ui/) needs beyond store.h: the Runs
 * table with each run's seed group and unigram flag, one run's unigram and
 * all-positions losses, its evaluations, a sweep's jobs with every metric
 * the Grid shows, a preset's paper figures with the paper's setting, and
 * the runs that differ from a run only in seed.
 *
 * A seed group: runs of one sweep whose coordinates are equal apart from
 * seed; a run outside a sweep, the runs outside a sweep whose config is
 * equal apart from seed (and threads, which does not change the model).
 *
 * Not for: writing, or drawing (ui/).  The row callbacks receive text
 * values as store_query does (NULL for SQL NULL), in the column order
 * documented at each function.
 */
#ifndef MIXBENCH_UI_READS_H
#define MIXBENCH_UI_READS_H

#include <stdint.h>

#include "db/store.h"

/* Every run, by id: id, name, arch, task, data, status, steps_done,
   total_steps, train_loss (last smoothed), tokens_per_s, valid_loss (last),
   sweep name, sweep_id, coords ("k=v k=v", seed included), error, seed
   group key, seed, not_learning (0/1), unigram_nats, unigram_gap,
   test_loss. */
int store_ui_runs(Store *s, StoreRowFn fn, void *ctx, char *err);

/* What the Run and Compare screens show of a run beyond its curve.  NAN
   for what is not known; not_learning as in the results view. */
typedef struct {
    double unigram_nats;         /* the dataset's unigram entropy */
    double unigram_gap;          /* unigram_nats minus the run's best loss */
    int not_learning;            /* finished less than 0.1 nat below it */
    double best_valid_loss;
    double valid_loss_all, test_loss_all;   /* mlm: every position a target */
} UiRunFacts;

int store_ui_run_facts(Store *s, int64_t run_id, UiRunFacts *out, char *err);

/* A run's latest evaluations, newest first, at most limit: step, split,
   loss, perplexity, accuracy, loss_all. */
int store_ui_evals(Store *s, int64_t run_id, int limit, StoreRowFn fn, void *ctx, char *err);

/* The jobs of a sweep, by id: run_id, status, steps_done, total_steps,
   coords (JSON), d, layers, n_ctx, tokens_seen, seed, not_learning, then the
   metrics test_loss, valid_loss, test_perplexity, test_accuracy,
   train_loss, tokens_per_s, test_loss_all, valid_loss_all,
   infer_samples_per_s (STORE_UI_N_METRICS of them, from column
   STORE_UI_FIRST_METRIC). */
#define STORE_UI_FIRST_METRIC 11
#define STORE_UI_N_METRICS 9
int store_ui_sweep_runs(Store *s, int64_t sweep_id, StoreRowFn fn, void *ctx, char *err);

/* A preset's paper figures: coords (JSON), metric, value, setting,
   setting_text ("" when none), note ("" when none). */
int store_ui_paper_figures(Store *s, const char *preset, StoreRowFn fn, void *ctx, char *err);

/* The runs in run_id's seed group (itself included), by id, at most cap
   into ids; *n gets the count written. */
int store_ui_seed_group(Store *s, int64_t run_id, int64_t *ids, int cap, int *n, char *err);

#endif
