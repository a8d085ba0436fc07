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

/* Opens (creating it if needed) and migrates the store at path.  Sets WAL
   mode, foreign keys, a busy timeout and synchronous=NORMAL.  A store whose
   schema is newer than this binary's is refused.  One Store belongs to one
   thread at a time; two jobs in one process open one Store each. */
int store_open(const char *path, Store **out, char *err);
void store_close(Store *s);

/* Several writes as one: store_begin takes the write lock (BEGIN
   IMMEDIATE); store_end commits when status is 0, else rolls back, and
   returns -1 when status was an error or the commit failed (err says why;
   the first error is kept).  The store's own writes made in between join
   the transaction instead of opening theirs. */
int store_begin(Store *s, const char *what, char *err);
int store_end(Store *s, int status, const char *what, char *err);

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
    int64_t resumed_step;      /* store_job_started: the step a restarted job
                                  resumes from (0: it starts fresh) */
} RunInfo;

int store_run_create(Store *s, const RunInfo *info, int64_t *run_id, char *err);

typedef struct {
    int64_t step;              /* steps done (1-based after the first step) */
    int64_t tokens;            /* training input tokens seen */
    double wall;               /* seconds of training so far (evaluations excluded) */
    double train_loss;         /* raw loss of this step */
    double train_loss_smooth;  /* exponential moving average */
    double lr;
    double grad_norm;          /* before clipping */
    double tokens_per_s;
} MetricRow;

/* In every row written here, a non-finite double (NAN for "not measured",
   an infinite loss) is stored as SQL NULL. */

/* Appends rows in one transaction (a row at an existing step replaces it, as
   when a run resumes from a checkpoint) and keeps the run's steps_done,
   tokens_seen and wall_seconds current, so `ls` shows live progress. */
int store_metrics_append(Store *s, int64_t run_id, const MetricRow *rows, int n, char *err);

typedef struct {
    int64_t step;
    const char *split;         /* "valid" | "test" | "train" */
    double loss;               /* mean nats per target token */
    double accuracy;           /* top-1 over target tokens */
    double bits_per_byte;      /* NAN unless char data */
    int64_t n_tokens;          /* target tokens evaluated */
    double loss_all;           /* mlm: mean nats over every position; NAN for other tasks */
} EvalRow;

int store_eval_add(Store *s, int64_t run_id, const EvalRow *row, char *err);
int store_checkpoint_add(Store *s, int64_t run_id, int64_t step, const char *path, char *err);

/* Final state: status is 'done' | 'failed' | 'diverged' | 'cancelled' |
   'interrupted'; error may be NULL.  A job's control request and owner_pid
   (db/jobs.h) are cleared: no worker holds it any more. */
typedef struct {
    const char *status;
    const char *error;
    int64_t steps_done;
    int64_t tokens_seen;
    double wall_seconds;
    double tokens_per_s;
    double peak_mem_mb;     /* the process's ru_maxrss at the end (since the last job that began
                               alone reset it: experiments/job_memory.h) */
    double peak_run_mb;     /* the run's own peak (experiments/job_memory.h), NAN: none */
    double train_cpu_seconds;   /* the process's CPU seconds over its training steps, the job alone
                                   in it (experiments/job_memory.h), NAN: none */
} RunEnd;

int store_run_finish(Store *s, int64_t run_id, const RunEnd *end, char *err);

/* Reading, for `mixbench ls` and `show`.  The callback receives one row as
   column names and text values (NULL for SQL NULL); returning non-zero stops. */
typedef int (*StoreRowFn)(void *ctx, int ncols, char **values, char **names);
int store_query(Store *s, const char *sql, StoreRowFn fn, void *ctx, char *err);

/* ---- Added beyond the first interface. ---- */

/* As store_open, but never creates the file: for readers such as `mixbench
   ls`.  A missing file fails with "PATH: no such store (run `mixbench run`
   first)". */
int store_open_existing(const char *path, Store **out, char *err);

/* The store's file as it was opened. */
const char *store_file(const Store *s);

/* 1 while a transaction (store_begin) is open on this connection. */
int store_in_transaction(Store *s);

/* 1 when the store was opened read-only: an existing file on a read-only
   mount or marked immutable is opened so (store_open included); reads work,
   a write fails with one line ("attempt to write a readonly database"). */
int store_read_only(const Store *s);

/* The schema version this binary knows (the number of migrations), and the
   one the open file is at (PRAGMA user_version). */
int store_schema_latest(void);
int store_schema_version(Store *s, int *version, char *err);

/* Status changes between creation and the end ('queued', 'running',
   'paused', or a final one); the first change to 'running' sets started_at,
   a final status sets finished_at; any status but 'running' clears the
   job's control request and owner_pid.  An unknown run is an error. */
int store_run_set_status(Store *s, int64_t run_id, const char *status, char *err);

/* *exists = 1 when the run is in the store, else 0. */
int store_run_exists(Store *s, int64_t run_id, int *exists, char *err);

/* store_query with text parameters bound to ?1..?n_params (a NULL entry
   binds SQL NULL; SQLite converts text to numbers where a column needs it). */
int store_query_params(Store *s, const char *sql, const char *const *params, int n_params,
                       StoreRowFn fn, void *ctx, char *err);

/* One numeric series of a run, ordered by step, for plots and sparklines.
   Rows whose value is NULL are left out.  *steps and *values are malloc'd
   (free() both; NULL when *n is 0). */
typedef enum {
    STORE_SERIES_TRAIN_LOSS,        /* metrics.train_loss (raw) */
    STORE_SERIES_TRAIN_LOSS_SMOOTH, /* metrics.train_loss_smooth */
    STORE_SERIES_LR,                /* metrics.lr */
    STORE_SERIES_GRAD_NORM,         /* metrics.grad_norm */
    STORE_SERIES_TOKENS_PER_S,      /* metrics.tokens_per_s */
    STORE_SERIES_VALID_LOSS,        /* evals.loss, split 'valid' */
    STORE_SERIES_VALID_ACCURACY,    /* evals.accuracy, split 'valid' */
    STORE_SERIES_TEST_LOSS          /* evals.loss, split 'test' */
} StoreSeries;

int store_run_series(Store *s, int64_t run_id, StoreSeries what, double **steps,
                     double **values, int *n, char *err);

/* As store_run_series, at most max_points points (0: all) evenly spaced
   over the run's steps for the series of metrics (those of evals are read
   whole): a plot or a sparkline of a run of a million steps reads as many
   rows as it can show, by index seeks. */
int store_run_series_sampled(Store *s, int64_t run_id, StoreSeries what, int max_points,
                             double **steps, double **values, int *n, char *err);

/* The smoothed train loss curve, for sparklines: store_run_series_sampled(...,
   TRAIN_LOSS_SMOOTH, STORE_CURVE_POINTS, ...). */
#define STORE_CURVE_POINTS 512
int store_run_curve(Store *s, int64_t run_id, double **steps, double **loss, int *n, char *err);

/* ---- Schema version 3: what the seeds' claims are judged by (db/datasets.c). ---- */

/* The unigram entropy (nats) of a dataset's training split, keyed by the
   run columns data, tokenizer and vocab; *nats is NAN when not stored yet. */
int store_dataset_unigram_get(Store *s, const char *data, const char *tokenizer, int vocab,
                              double *nats, char *err);
int store_dataset_unigram_put(Store *s, const char *data, const char *tokenizer, int vocab,
                              int64_t train_tokens, double nats, char *err);
/* runs.infer_samples_per_s of a run (batch 1, one thread, at its end). */
int store_run_set_infer(Store *s, int64_t run_id, double samples_per_s, char *err);

#endif
