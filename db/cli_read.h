/*
 * cli_read.h — the reads of the command line's `ls`, `show`, `queue` and
 * `export`: the runs list, one run's header, config, evaluations and
 * checkpoints, a run looked up by name, both as typed structs (numbers as
 * numbers, NAN for SQL NULL, RunStatus for the status) and as JSON built by
 * SQLite (so numbers keep their types); and a cursor over the rows of a
 * view (the queue, the results or curves export) whose cells carry the
 * type SQLite gives them.
 *
 * Text columns are copied into fixed arrays, "" for SQL NULL.  Not for:
 * writing, or formatting for people (app/, experiments/format.h).
 */
#ifndef MIXBENCH_CLI_READ_H
#define MIXBENCH_CLI_READ_H

#include <stdint.h>

#include "db/status.h"
#include "db/store.h"

/* A count the store has no value for (n_params of a queued run). */
#define CLI_NO_COUNT (-1)

/* One line of `ls`: a results row. */
typedef struct {
    int64_t id;
    char name[128];             /* "" when the run has none */
    RunStatus status;
    char arch[32], task[32];
    char data[512];
    int64_t steps_done, total_steps;
    double train_loss;          /* last smoothed; NAN before the first step */
    double valid_loss, test_loss;
    double best_valid_loss;     /* the lowest valid evaluation (NAN: none) */
    double best_valid_step;     /* its step, the first of equal ones (NAN: none) */
    double tokens_per_s;        /* whole run, or the last step's while it runs */
    double answer_accuracy;     /* test accuracy of data that scores only answers
                                   (builtin:mqar, copy, selective-copy); else NAN */
    char created_at[32];        /* ISO-8601 UTC */
    char tags[256];             /* space-separated, "" when none */
    int starred;
} CliRunRow;

/* The runs by id, of one status (RUN_STATUS_COUNT: any) and one arch (NULL:
   any).  *out is malloc'd (free() it; NULL when *n is 0). */
int cli_runs(Store *s, RunStatus status, const char *arch, CliRunRow **out, int *n, char *err);
/* The same runs as a JSON array of results rows (malloc'd text). */
int cli_runs_json(Store *s, RunStatus status, const char *arch, char **json, char *err);
/* As cli_runs_json, of the runs whose ids are in ids_json (a JSON array;
   NULL: every run): `ls --where`. */
int cli_runs_json_of(Store *s, RunStatus status, const char *arch, const char *ids_json, char **json, char *err);

/* The head of `show`: a runs row. */
typedef struct {
    int64_t id;
    char name[128];
    RunStatus status;
    char arch[32], task[32];
    char data[512], tokenizer[64];
    char created_at[32], started_at[32], finished_at[32];
    int64_t steps_done, total_steps, tokens_seen;
    double wall_seconds, tokens_per_s, peak_mem_mb;   /* NAN until the run ends */
    double infer_samples_per_s;
    int64_t n_params, n_params_nonembedding;          /* CLI_NO_COUNT when unknown */
    char error[512];
} CliRunDetail;

/* *found 0 when there is no run id. */
int cli_run_detail(Store *s, int64_t id, CliRunDetail *out, int *found, char *err);
/* The newest run (highest id) named name; *id 0 when none. */
int cli_run_by_name(Store *s, const char *name, int64_t *id, char *err);
/* One run with its config, results, evals, checkpoints and metrics as one
   JSON object (malloc'd text; NULL when there is no such run). */
int cli_run_json(Store *s, int64_t id, char **json, char *err);

/* ---- rows of a view, with SQLite's types --------------------------------- */

typedef enum { DB_NULL, DB_INT, DB_REAL, DB_TEXT } DbType;

/* One cell: the type SQLite reports (sqlite3_column_type) with its value,
   and for every type but DB_NULL the text SQLite renders it as (what the
   sqlite3 shell and CSV show). */
typedef struct {
    DbType type;
    int64_t i;                  /* DB_INT */
    double d;                   /* DB_REAL */
    const char *text;           /* NULL for DB_NULL */
} DbValue;

/* An open read, stepped row by row so that a large export is never held
   whole in memory. */
typedef struct DbRows DbRows;

/* The queue view: queued, running and paused jobs. */
int cli_queue_open(Store *s, DbRows **out, char *err);
/* `export`: the results view joined with every key in cfg_keys as a
   cfg_KEY column and the run's coords; with curves, the curves view.  sweep
   (an id or a name, the newest of that name) keeps one sweep's runs; NULL
   keeps all. */
int cli_export_open(Store *s, int curves, const char *sweep, const char *const *cfg_keys, int n_cfg,
                    DbRows **out, char *err);
/* As cli_export_open, of the runs whose ids are in ids_json (a JSON array;
   NULL: every run): `export --where`.  loss_best (`--loss best`): where the
   results have valid_loss (the last evaluation), best_valid_loss and
   best_valid_step (the lowest evaluation and its step) instead, and no
   other best_valid_loss column. */
int cli_export_open_of(Store *s, int curves, const char *sweep, const char *ids_json, const char *const *cfg_keys,
                       int n_cfg, int loss_best, DbRows **out, char *err);
int db_rows_count(const DbRows *r);
const char *db_rows_name(const DbRows *r, int col);
/* The next row into *row (db_rows_count cells, valid until the next call);
   *row NULL at the end. */
int db_rows_next(DbRows *r, const DbValue **row, char *err);
void db_rows_close(DbRows *r);

#endif
