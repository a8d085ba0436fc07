/*
 * pivot.h — a sweep's runs laid out on its axes, for tables: each axis with
 * the values its runs take (numeric axes ordered by value), each run's
 * place on them, and cells that pool the runs at one row and column value
 * (the other axes fixed at a value each, or averaged over) into the seed
 * statistics of a metric (points.h's table; mean, standard error, min-max
 * over the finished runs, stats.h) with the unfinished and stopped runs
 * counted and the paper's figure beside.  The Grid screen draws these
 * cells; points.h groups the same runs by every coordinate but seed for the
 * verdicts, the report and the AE/Bidir screen.
 *
 * Not for: SQL (db/results.h, which pivot_load reads through) or drawing
 * (ui/).
 */
#ifndef MIXBENCH_PIVOT_H
#define MIXBENCH_PIVOT_H

#include "db/results.h"
#include "db/runs_read.h"
#include "experiments/points.h"
#include "experiments/stats.h"

/* A value is kept whole, as long as a coordinate's (CoordPair.value): two
   values that differ only past a shorter length (data specs:
   builtin:mqar:pairs=8:train_pairs=4:vocab=256:examples=100000) are two. */
enum { PIVOT_MAX_AXES = 12, PIVOT_MAX_VALUES = 64, PIVOT_VALUE_LEN = sizeof(((CoordPair *)0)->value) };

typedef struct {
    int n_axes;
    char axis[PIVOT_MAX_AXES][64];
    char (*values)[PIVOT_MAX_VALUES][PIVOT_VALUE_LEN];   /* [PIVOT_MAX_AXES], owned: on the heap, ~200 kB */
    int n_values[PIVOT_MAX_AXES];
    ResultRun *runs;             /* owned */
    int n_runs;
    int (*coord)[PIVOT_MAX_AXES];  /* [n_runs]: each run's value index per axis, -1 absent */
} Pivot;

/* What one cell holds. */
typedef struct {
    SeedStats stats;             /* over the finished runs with a value */
    int n_value;                 /* finished runs with a value */
    int n_unlearned;             /* of those, short of the claims' learning gate for the cell's metric
                                    (experiments/points.h result_learned): no claim's evidence */
    int n_runs;
    int n_pending;               /* queued, running, paused, interrupted */
    char pending[24];            /* "45%" of a running one, else its status */
    char stopped[16];            /* failed / diverged / cancelled */
    double paper;                /* the paper's figure here; NAN: none */
} PivotCell;

/* Lays runs (taken over: freed by pivot_free) out on the axes.  An axis
   keeps the values of `keep` (the same axes' earlier pivot, may be NULL)
   in their order, so cells do not move between reloads. */
int pivot_build(Pivot *p, const char *const *axes, int n_axes, ResultRun *runs, int n_runs, const Pivot *keep,
                char *err);
void pivot_free(Pivot *p);
/* pivot_build of every job of sweep_id on the sweep's own axes (no keep);
   -1 with err when the sweep has no jobs. */
int pivot_load(Store *s, int64_t sweep_id, Pivot *p, char *err);

/* Value i of axis a as the Grid and its figure show it: on a data axis,
   the spec without the parts (split at ':' and ',') that every value of
   the axis shares, so that the zoology study's
   builtin:mqar:pairs=8:train_pairs=4:vocab=256:examples=100000 reads
   "pairs=8:train_pairs=4" beside "pairs=4"; any other value (and a data
   value left empty by that) as it is. */
void pivot_value_label(const Pivot *p, int a, int i, char *out, size_t cap);

/* The index of axis key, -1 when the sweep has no such axis. */
int pivot_axis(const Pivot *p, const char *key);

/* 1 when every run's value of axis b follows from its value of axis a
   (b is zipped with a: "(data,min_count)=..."). */
int pivot_determined_by(const Pivot *p, int b, int a);

/* The view the Grid screen and `plot grid` open on (one default for both).
   pivot_table_axis: may axis a go on the table beside axis other (-1:
   none)?  Not seed, not fixed (fixed_at[a] >= 0; fixed_at NULL: none is),
   two values or more, not zipped with other.  pivot_default_axes: the
   row and column axes not given (-1 in *row / *col): down the rows the
   first axis that may go on the table, across the columns the next one
   that is not its zipped partner (one such axis: a single row, its values
   across).  pivot_axis_free: 1 when axis a is one the view fixes at a
   value or averages (f on the screen, --at of `plot grid`): not shown, not
   seed (always averaged: a cell is its seed group's mean +- se), not
   zipped with a shown axis (it follows that axis: heads with arch), two
   values or more.  pivot_default_fixed: fixed_at of the default view,
   each free axis at its first value, the other axes -1. */
int pivot_table_axis(const Pivot *p, int a, const int *fixed_at, int other);
void pivot_default_axes(const Pivot *p, const int *fixed_at, int *row, int *col);
int pivot_axis_free(const Pivot *p, int a, int row, int col);
/* The shown axis (row or col) that axis a (two values or more) follows,
   zipped with it; -1 when none. */
int pivot_follows(const Pivot *p, int a, int row, int col);
void pivot_default_fixed(const Pivot *p, int row, int col, int *fixed_at);

/* 1 when the pivot is a random search's (it has the trial axis that
   search=random adds, experiments/search.h). */
int pivot_is_search(const Pivot *p);
/* A random search's pivot for which knob matters: its axes but trial,
   each numeric axis with more than `bins` values binned by rank into
   `bins` ranges of its values ("0.0001..0.0003"), so that trials drawn
   from a range share cells; the runs are copied (src keeps its own).
   -1 with err when out of memory. */
int pivot_bin_search(const Pivot *src, int bins, Pivot *out, char *err);
/* The bins of which knob matters over a search (the report's and the Grid's). */
enum { PIVOT_SEARCH_BINS = 3 };
/* Orders points (experiments/points.h) by their mean of m, the best
   first, those without a value last (a random search's trials, best
   first). */
void pivot_sort_points(Point *pts, int n, PointMetric m);

/* cells[rows x cols] (rows, cols: the row and column axes' value counts, 1
   for axis -1) of metric m: runs at each row and column value, the other
   axes at fixed_at[a] (a value index; -1: any, i.e. averaged over).  The
   paper's figures of metric `paper_metric` (NULL: none) whose coordinates
   name the cell stand in .paper. */
void pivot_cells(const Pivot *p, int row_axis, int col_axis, const int *fixed_at, PointMetric m,
                 const FigureRow *figures, int n_figures, const char *paper_metric, PivotCell *cells);

/* The seed groups of a list of runs (db/runs_read.h RunSummary, grouped
   by their seed_group, in the order their first member appears): per group
   its members, the seed statistics of its finished members' train, valid
   and test loss and tokens/s, and its livest member that is not done
   (running, queued, paused, interrupted, then failed, diverged,
   cancelled). */
typedef struct {
    int first;                   /* index of its first member */
    int n, n_not_learning;
    int live;                    /* index of the livest member not done, -1 none */
    SeedStats train, valid, test, speed;
} SeedGroup;

/* groups[n_runs] (at most one a run) and *n_groups; member[i] (may be NULL)
   receives run i's group.  -1 when out of memory. */
int pivot_seed_groups(const RunSummary *runs, int n_runs, SeedGroup *groups, int *n_groups, int *member);

/* How many of cells[n] the seeds cannot tell from cells[best]: a difference
   of means under the claims' margin (stats.h noise_margin, Welch's t at
   95%), both cells with 2 or more values.  0 when best < 0. */
int pivot_tied_with_best(const PivotCell *cells, int n, int best);

#endif
