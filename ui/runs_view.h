/*
 * runs_view.h — what the two files of the Runs screen share: its state
 * (the rows, the seed groups, the list, the filter, the sort, what is
 * being typed); the drawing of its table is ui/runs_table.h.  ui/screen_runs.c loads,
 * filters, sorts and takes the keys; ui/runs_table.c lays the columns out
 * for the width (the sweep's axes and the tags among them) and draws.
 *
 * Not for: any other screen.
 */
#ifndef MIXBENCH_UI_RUNS_VIEW_H
#define MIXBENCH_UI_RUNS_VIEW_H

#include <stdint.h>

#include "db/runs_read.h"
#include "experiments/run_filter.h"
#include "experiments/stats.h"
#include "ui/organise.h"
#include "ui/ui.h"

#define SPARK_MAX_WIDTH 30

/* Every column of the table, in its order (the sparkline aside). */
typedef enum {
    SORT_ID, SORT_ARCH, SORT_TASK, SORT_DATA, SORT_STATUS, SORT_STEP, SORT_TRAIN, SORT_VALID, SORT_SPEED, SORT_ETA,
    N_SORTS
} SortKey;

/* A run's train-loss history for its sparkline, extended as it trains. */
typedef struct {
    double *loss;                /* smoothed train loss, by step */
    int n, cap;
    int64_t last_step;           /* the last step fetched */
    double fetched_at;           /* now_seconds() of the last fetch, 0: never */
    RunStatus fetched_status;    /* the run's status then (one more fetch when it changes) */
} Spark;

typedef struct {
    RunSummary run;              /* the store's, overlaid with the scheduler's live progress */
    double eta;                  /* seconds, NAN: not known */
    int n_seeds;                 /* a group's row: its status column says "N seeds" */
    Spark spark;
} RunRow;

/* One row per seed group (the g view): a RunRow holding the means, "N
   seeds" (or the livest member's status), the first member's id. */
#define GROUP_IDS 16             /* member ids listed under the table */
typedef struct {
    RunRow row;                  /* no sparkline */
    int n, n_not_learning;
    int64_t ids[GROUP_IDS];
    SeedStats train, valid, test, speed;
} GroupRow;

typedef struct {
    RunRow *rows;                /* every run, by id */
    int n, cap;
    int *visible;                /* indices into rows (groups when grouped): filtered and sorted */
    GroupRow *groups;            /* the seed groups of rows, by first id */
    int n_groups;
    int grouped;                 /* g: one row per seed group */
    int n_visible;
    UiList list;                 /* over visible: cursor, scroll, the selected run, the filter's text */
    RunFilter filter;            /* that text parsed (experiments/run_filter.h) */
    char filter_error[ERR_LEN];  /* why it does not parse ("" when it does): no row shows */
    SortKey sort;
    int descending;
    int64_t extending;           /* the run whose new budget is being typed (`e`), 0 none */
    UiTextField budget;          /* its "tokens=N" or "steps=N" */
    UiOrganise org;              /* a tag, note or name being typed (ui/organise.h) */
    int loaded;                  /* the store was read at least once */
} RunsState;

extern const char *const RUNS_SORT_NAMES[N_SORTS];

/* The row at index i of the list shown (a run, or a group when grouped). */
RunRow *runs_row_at(RunsState *st, int i);
/* What the status column says of a row ("done", "3 seeds"). */
const char *runs_status_text(const RunRow *r, char *buf, size_t cap);

#endif
