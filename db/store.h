/*
 * store.h — the SQLite store: every run, metric, evaluation and checkpoint
 * of mixbench lives in one SQLite file (WAL mode, foreign keys on, schema
 * versioned with forward migrations), so `sqlite3 mixbench.db` answers any
 * question afterwards, even while jobs write.
 *
 * Not for: math (engine/) or drawing (ui/).  Every sqlite3_* return code is
 * checked; failures come back as -1 with a one-line message in err.
 */
#ifndef MIXBENCH_STORE_H
#define MIXBENCH_STORE_H

#include <stdint.h>

typedef struct Store Store;

int store_open(const char *path, Store **out, char *err);
void store_close(Store *s);

/* A new run, status 'running'. */
typedef struct {
    const char *name;          /* optional label, may be NULL */
    const char *arch, *task, *data, *tokenizer;
    const char *config_json;   /* the full config as a JSON object */
    int64_t n_params, n_params_nonembedding;
    int64_t total_steps;       /* planned steps (0 if the budget is seconds) */
    int64_t seed;
    int threads;
    int d, layers, heads, n_ctx, vocab;
} RunInfo;

int store_run_create(Store *s, const RunInfo *info, int64_t *run_id, char *err);

typedef struct {
    int64_t step;              /* steps done (1-based after the first step) */
    int64_t tokens;            /* training input tokens seen */
    double wall;               /* seconds since the run started */
    double train_loss;         /* raw loss of this step */
    double train_loss_smooth;  /* exponential moving average */
    double lr;
    double grad_norm;          /* before clipping */
    double tokens_per_s;
} MetricRow;

/* Appends rows in one transaction. */
int store_metrics_append(Store *s, int64_t run_id, const MetricRow *rows, int n, char *err);

typedef struct {
    int64_t step;
    const char *split;         /* "valid" | "test" | "train" */
    double loss;               /* mean nats per target token */
    double accuracy;           /* top-1 over target tokens */
    double bits_per_byte;      /* NAN unless char data */
    int64_t n_tokens;          /* target tokens evaluated */
} EvalRow;

int store_eval_add(Store *s, int64_t run_id, const EvalRow *row, char *err);
int store_checkpoint_add(Store *s, int64_t run_id, int64_t step, const char *path, char *err);

/* Final state: status is 'done' | 'failed' | 'diverged' | 'cancelled' |
   'interrupted'; error may be NULL. */
typedef struct {
    const char *status;
    const char *error;
    int64_t steps_done;
    int64_t tokens_seen;
    double wall_seconds;
    double tokens_per_s;
    double peak_mem_mb;
} RunEnd;

int store_run_finish(Store *s, int64_t run_id, const RunEnd *end, char *err);

/* Reading, for `mixbench ls` and `show`.  The callback receives one row as
   column names and text values (NULL for SQL NULL); returning non-zero stops. */
typedef int (*StoreRowFn)(void *ctx, int ncols, char **values, char **names);
int store_query(Store *s, const char *sql, StoreRowFn fn, void *ctx, char *err);

#endif
