/*
 * pivot.c — a sweep's runs on its axes, and cells of seed statistics
 * (pivot.h).
 */
#include "experiments/pivot.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/sweeps_read.h"
#include "engine/common.h"
#include "engine/text.h"

/* Equal values of one axis: the same text, the same number ("1e3" and
   "1000"), or for data the same corpus (points.h data_same). */
static int same_value(const char *key, const char *a, const char *b)
{
    if (!a || !b) return 0;
    if (!strcmp(a, b)) return 1;
    if (!strcmp(key, "data")) return data_same(a, b);
    double x, y;
    return text_to_double(a, &x) == 0 && text_to_double(b, &y) == 0 && x == y;
}

/* The index of value text on axis a, added when new; -1 when full. */
static int value_index(Pivot *p, int a, const char *text)
{
    for (int i = 0; i < p->n_values[a]; i++)
        if (!strcmp(p->values[a][i], text)) return i;
    if (p->n_values[a] == PIVOT_MAX_VALUES) return -1;
    snprintf(p->values[a][p->n_values[a]], PIVOT_VALUE_LEN, "%s", text);
    return p->n_values[a]++;
}

/* Orders each axis whose values are all numbers by value (hash_size 100
   500 1000, not in the order the jobs came), renumbering the runs'
   coordinates; other axes keep the sweep's order. */
static void sort_numeric_axes(Pivot *p)
{
    for (int a = 0; a < p->n_axes; a++) {
        int n = p->n_values[a], numeric = n > 1;
        double key[PIVOT_MAX_VALUES];
        for (int i = 0; i < n && numeric; i++) numeric = text_to_double(p->values[a][i], &key[i]) == 0;
        if (!numeric) continue;
        int order[PIVOT_MAX_VALUES], new_index[PIVOT_MAX_VALUES];
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = 1; i < n; i++) /* insertion sort of the indices by value */
            for (int j = i; j > 0 && key[order[j]] < key[order[j - 1]]; j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        char sorted[PIVOT_MAX_VALUES][PIVOT_VALUE_LEN];
        for (int i = 0; i < n; i++) {
            new_index[order[i]] = i;
            memcpy(sorted[i], p->values[a][order[i]], PIVOT_VALUE_LEN);
        }
        memcpy(p->values[a], sorted, (size_t)n * PIVOT_VALUE_LEN);
        for (int r = 0; r < p->n_runs; r++)
            if (p->coord[r][a] >= 0) p->coord[r][a] = new_index[p->coord[r][a]];
    }
}

/* 1 when part (len bytes) is one of the ':'/','-separated parts of spec. */
static int has_part(const char *spec, const char *part, size_t len)
{
    for (const char *s = spec; *s;) {
        size_t n = strcspn(s, ":,");
        if (n == len && !memcmp(s, part, len)) return 1;
        s += n + (s[n] != 0);
    }
    return 0;
}

void pivot_value_label(const Pivot *p, int a, int i, char *out, size_t cap)
{
    assert(p && a >= 0 && a < p->n_axes && i >= 0 && i < p->n_values[a] && cap > 0);
    const char *v = p->values[a][i];
    snprintf(out, cap, "%s", v);
    if (strcmp(p->axis[a], "data") || p->n_values[a] < 2) return;
    size_t len = 0;
    for (const char *s = v; *s && len + 1 < cap;) {
        size_t n = strcspn(s, ":,");
        int shared = 1;
        for (int j = 0; j < p->n_values[a] && shared; j++) shared = j == i || has_part(p->values[a][j], s, n);
        if (!shared) len += (size_t)snprintf(out + len, cap - len, "%s%.*s", len ? ":" : "", (int)n, s);
        s += n + (s[n] != 0);
    }
    if (len == 0) snprintf(out, cap, "%s", v);
}

int pivot_axis(const Pivot *p, const char *key)
{
    assert(p);
    for (int a = 0; a < p->n_axes; a++)
        if (!strcmp(p->axis[a], key)) return a;
    return -1;
}

int pivot_determined_by(const Pivot *p, int b, int a)
{
    assert(p && a >= 0 && b >= 0 && a < p->n_axes && b < p->n_axes);
    for (int i = 0; i < p->n_runs; i++)
        for (int j = 0; j < i; j++)
            if (p->coord[i][a] == p->coord[j][a] && p->coord[i][b] != p->coord[j][b]) return 0;
    return 1;
}

int pivot_build(Pivot *p, const char *const *axes, int n_axes, ResultRun *runs, int n_runs, const Pivot *keep,
                char *err)
{
    assert(err);
    memset(p, 0, sizeof *p);
    p->runs = runs;
    p->n_runs = n_runs;
    p->coord = calloc((size_t)(n_runs ? n_runs : 1), sizeof *p->coord);
    p->values = calloc(PIVOT_MAX_AXES, sizeof *p->values);
    if (!p->coord || !p->values) return err_set(err, "pivot: out of memory for %d runs", n_runs);
    for (int a = 0; a < n_axes && p->n_axes < PIVOT_MAX_AXES; a++) {
        snprintf(p->axis[p->n_axes], sizeof p->axis[0], "%s", axes[a]);
        int k = keep ? pivot_axis(keep, axes[a]) : -1;
        for (int i = 0; k >= 0 && i < keep->n_values[k]; i++) value_index(p, p->n_axes, keep->values[k][i]);
        p->n_axes++;
    }
    for (int r = 0; r < n_runs; r++)
        for (int a = 0; a < PIVOT_MAX_AXES; a++) {
            const char *v = a < p->n_axes ? coord_value(runs[r].coords, runs[r].n_coords, p->axis[a]) : NULL;
            p->coord[r][a] = v ? value_index(p, a, v) : -1;
        }
    sort_numeric_axes(p);
    return 0;
}

int pivot_load(Store *s, int64_t sweep_id, Pivot *p, char *err)
{
    assert(s && p && err && sweep_id > 0);
    memset(p, 0, sizeof *p);
    SweepAxes axes;
    if (sweeps_read_axes(s, sweep_id, &axes, err)) return -1;
    ResultRun *runs = NULL;
    int n = 0;
    if (results_sweep_runs(s, sweep_id, 0, &runs, &n, err)) return -1;
    if (n == 0) {
        free(runs);
        return err_set(err, "sweep %lld has no jobs", (long long)sweep_id);
    }
    const char *names[SWEEP_MAX_AXES];
    for (int a = 0; a < axes.n; a++) names[a] = axes.key[a];
    if (pivot_build(p, names, axes.n, runs, n, NULL, err)) {
        pivot_free(p);
        return -1;
    }
    return 0;
}

void pivot_free(Pivot *p)
{
    assert(p);
    free(p->runs);
    free(p->coord);
    free(p->values);
    memset(p, 0, sizeof *p);
}

int pivot_table_axis(const Pivot *p, int a, const int *fixed_at, int other)
{
    assert(p && a >= 0 && a < p->n_axes);
    if (!strcmp(p->axis[a], "seed") || a == other || (fixed_at && fixed_at[a] >= 0) || p->n_values[a] < 2) return 0;
    return other < 0 || (!pivot_determined_by(p, a, other) && !pivot_determined_by(p, other, a));
}

void pivot_default_axes(const Pivot *p, const int *fixed_at, int *row, int *col)
{
    assert(p && row && col);
    int named_col = *col >= 0, named_row = *row >= 0;
    for (int a = 0; a < p->n_axes && *row < 0 && !named_row; a++)
        if (pivot_table_axis(p, a, fixed_at, *col)) *row = a;
    for (int a = 0; a < p->n_axes && *col < 0 && !named_col; a++)
        if (pivot_table_axis(p, a, fixed_at, *row)) *col = a;
    if (*col < 0 && *row >= 0 && !named_row) {   /* one axis: a single row, its values across */
        *col = *row;
        *row = -1;
    }
    if (*col < 0 && *row < 0 && p->n_axes > 0) *col = 0;
}

int pivot_follows(const Pivot *p, int a, int row, int col)
{
    assert(p && a >= 0 && a < p->n_axes);
    if (p->n_values[a] < 2) return -1;
    return row >= 0 && pivot_determined_by(p, a, row) ? row : col >= 0 && pivot_determined_by(p, a, col) ? col : -1;
}

int pivot_axis_free(const Pivot *p, int a, int row, int col)
{
    assert(p && a >= 0 && a < p->n_axes);
    if (a == row || a == col || !strcmp(p->axis[a], "seed") || p->n_values[a] < 2) return 0;
    return pivot_follows(p, a, row, col) < 0;
}

void pivot_default_fixed(const Pivot *p, int row, int col, int *fixed_at)
{
    assert(p && fixed_at);
    for (int a = 0; a < PIVOT_MAX_AXES; a++) fixed_at[a] = a < p->n_axes && pivot_axis_free(p, a, row, col) ? 0 : -1;
}

int pivot_is_search(const Pivot *p) { return pivot_axis(p, "trial") >= 0; }

int pivot_bin_search(const Pivot *src, int bins, Pivot *out, char *err)
{
    assert(src && out && err && bins > 0);
    memset(out, 0, sizeof *out);
    ResultRun *runs = malloc((size_t)(src->n_runs ? src->n_runs : 1) * sizeof *runs);
    if (!runs) return err_set(err, "pivot: out of memory for %d runs", src->n_runs);
    memcpy(runs, src->runs, (size_t)src->n_runs * sizeof *runs);
    const char *axes[PIVOT_MAX_AXES];
    int n_axes = 0;
    for (int a = 0; a < src->n_axes; a++) {
        if (!strcmp(src->axis[a], "trial")) continue;
        axes[n_axes++] = src->axis[a];
        double x;
        int n = src->n_values[a];
        if (n <= bins || text_to_double(src->values[a][0], &x)) continue;   /* few values, or not numeric */
        for (int r = 0; r < src->n_runs; r++) {
            int i = src->coord[r][a];
            if (i < 0) continue;
            int b = i * bins / n, lo = (b * n + bins - 1) / bins, hi = ((b + 1) * n + bins - 1) / bins - 1;
            for (int k = 0; k < runs[r].n_coords; k++)
                if (!strcmp(runs[r].coords[k].key, src->axis[a]))
                    snprintf(runs[r].coords[k].value, sizeof runs[r].coords[k].value, "%s..%s", src->values[a][lo],
                             src->values[a][hi]);
        }
    }
    if (pivot_build(out, axes, n_axes, runs, src->n_runs, NULL, err)) {
        pivot_free(out);
        return -1;
    }
    return 0;
}

void pivot_sort_points(Point *pts, int n, PointMetric m)
{
    int higher = point_metric_info(m)->higher_better;
    for (int i = 1; i < n; i++) /* insertion sort: stable, a search has few trials */
        for (int j = i; j > 0; j--) {
            double a = pts[j].stat[m].n ? pts[j].stat[m].mean : NAN, b = pts[j - 1].stat[m].n ? pts[j - 1].stat[m].mean : NAN;
            int before = isfinite(a) && (!isfinite(b) || (higher ? a > b : a < b));
            if (!before) break;
            Point t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
}

/* Does figure f belong to the cell (row value r, column value c) with the
   other axes at fixed_at?  Keys that are not axes of the sweep do not
   decide; an averaged axis (fixed_at -1) named by the figure matches only
   where every run of the cell has one value of it (one[a], -1 else): an
   axis zipped with the row or column one, as heads with arch in
   "(arch,heads)=(mixer,1),(attention,4)". */
static int figure_here(const Pivot *p, const FigureRow *f, int row_axis, int r, int col_axis, int c,
                       const int *fixed_at, const int *one)
{
    for (int k = 0; k < f->n_coords; k++) {
        int a = pivot_axis(p, f->coords[k].key);
        if (a < 0) continue;
        int want = a == row_axis ? r : a == col_axis ? c : fixed_at[a] >= 0 ? fixed_at[a] : one[a];
        if (want < 0 || !same_value(p->axis[a], p->values[a][want], f->coords[k].value)) return 0;
    }
    return 1;
}

/* Run i's cell (row * cols + column), -1 when it is not in the table. */
static int cell_of(const Pivot *p, int i, int row_axis, int col_axis, int rows, int cols, const int *fixed_at)
{
    int r = row_axis >= 0 ? p->coord[i][row_axis] : 0;
    int c = col_axis >= 0 ? p->coord[i][col_axis] : 0;
    if (r < 0 || c < 0 || r >= rows || c >= cols) return -1;
    for (int a = 0; a < p->n_axes; a++)
        if (a != row_axis && a != col_axis && fixed_at[a] >= 0 && p->coord[i][a] != fixed_at[a]) return -1;
    return r * cols + c;
}

/* Counts run j into its cell: a finished value, or pending (the first
   pending status, or a running one's progress), or stopped. */
static void count_run(PivotCell *cell, const ResultRun *j, PointMetric m)
{
    double v = result_metric(j, m);
    cell->n_runs++;
    if (j->state == RUN_DONE && isfinite(v)) {
        cell->n_value++;
        cell->n_unlearned += !result_learned(j, m);
    } else if (!run_status_final(j->state)) {   /* queued, running, paused, interrupted */
        if (cell->n_pending++ == 0 || j->state == RUN_RUNNING) {
            if (j->state == RUN_RUNNING && j->total_steps > 0)
                snprintf(cell->pending, sizeof cell->pending, "%lld%%", (long long)(100 * j->steps_done / j->total_steps));
            else snprintf(cell->pending, sizeof cell->pending, "%s", run_status_name(j->state));
        }
    } else {
        snprintf(cell->stopped, sizeof cell->stopped, "%s", j->state != RUN_DONE ? run_status_name(j->state) : "-");
    }
}

void pivot_cells(const Pivot *p, int row_axis, int col_axis, const int *fixed_at, PointMetric m,
                 const FigureRow *figures, int n_figures, const char *paper_metric, PivotCell *cells)
{
    assert(p);
    int rows = row_axis >= 0 ? MB_MAX(1, p->n_values[row_axis]) : 1;
    int cols = col_axis >= 0 ? MB_MAX(1, p->n_values[col_axis]) : 1;
    for (int i = 0; i < rows * cols; i++) {
        memset(&cells[i], 0, sizeof cells[i]);
        cells[i].stats = seed_stats(NULL, 0);
        cells[i].paper = NAN;
    }
    double *values = malloc((size_t)(p->n_runs ? p->n_runs : 1) * sizeof *values);
    int *where = malloc((size_t)(p->n_runs ? p->n_runs : 1) * sizeof *where);
    if (!values || !where) {
        free(values);
        free(where);
        return;
    }
    for (int i = 0; i < p->n_runs; i++) {
        where[i] = cell_of(p, i, row_axis, col_axis, rows, cols, fixed_at);
        if (where[i] >= 0) count_run(&cells[where[i]], &p->runs[i], m);
    }
    for (int k = 0; k < rows * cols; k++) {
        int n = 0;
        for (int i = 0; i < p->n_runs; i++) {
            double v = result_metric(&p->runs[i], m);
            if (where[i] == k && p->runs[i].state == RUN_DONE && isfinite(v)) values[n++] = v;
        }
        cells[k].stats = seed_stats(values, n);
    }
    free(values);
    for (int r = 0; r < rows && n_figures && paper_metric; r++)
        for (int c = 0; c < cols; c++) {
            /* each axis's one value over the cell's runs (-1: several or none) */
            int one[PIVOT_MAX_AXES], k = r * cols + c;
            for (int a = 0; a < p->n_axes; a++) {
                one[a] = -2;
                for (int i = 0; i < p->n_runs && one[a] != -1; i++)
                    if (where[i] == k) one[a] = one[a] == -2 || one[a] == p->coord[i][a] ? p->coord[i][a] : -1;
                if (one[a] == -2) one[a] = -1;
            }
            for (int f = 0; f < n_figures && isnan(cells[k].paper); f++)
                if (!strcmp(figures[f].metric, paper_metric) &&
                    figure_here(p, &figures[f], row_axis, r, col_axis, c, fixed_at, one))
                    cells[k].paper = figures[f].value;
        }
    free(where);
}

/* Statuses from the livest: running, queued, paused, interrupted, then
   the ends that are not done (failed, diverged, cancelled, pruned). */
static int liveness(RunStatus s)
{
    static const int rank[RUN_STATUS_COUNT] = {
        [RUN_RUNNING] = 0, [RUN_QUEUED] = 1, [RUN_PAUSED] = 2, [RUN_INTERRUPTED] = 3,
        [RUN_DONE] = 4,    [RUN_FAILED] = 5, [RUN_DIVERGED] = 6, [RUN_CANCELLED] = 7, [RUN_PRUNED] = 8,
    };
    return s >= 0 && s < RUN_STATUS_COUNT ? rank[s] : RUN_STATUS_COUNT;
}

int pivot_seed_groups(const RunSummary *runs, int n_runs, SeedGroup *groups, int *n_groups, int *member)
{
    *n_groups = 0;
    int *of = malloc((size_t)(n_runs ? n_runs : 1) * sizeof *of);
    double *values = malloc((size_t)(n_runs ? n_runs : 1) * 4 * sizeof *values);
    if (!of || !values) {
        free(of);
        free(values);
        return -1;
    }
    for (int i = 0; i < n_runs; i++) of[i] = -1;
    double *train = values, *valid = values + n_runs, *test = values + 2 * n_runs, *speed = values + 3 * n_runs;
    for (int i = 0; i < n_runs; i++) {
        if (of[i] >= 0) continue;
        SeedGroup *g = &groups[(*n_groups)++];
        memset(g, 0, sizeof *g);
        g->first = i;
        g->live = -1;
        int n_done = 0;
        for (int j = i; j < n_runs; j++) {
            const RunSummary *r = &runs[j];
            if (r->seed_group != runs[i].seed_group) continue;
            of[j] = *n_groups - 1;
            g->n++;
            g->n_not_learning += r->not_learning;
            if (r->status == RUN_DONE) {
                train[n_done] = r->train_loss;
                valid[n_done] = r->valid_loss;
                test[n_done] = r->test_loss;
                speed[n_done] = r->tokens_per_s;
                n_done++;
            } else if (g->live < 0 || liveness(r->status) < liveness(runs[g->live].status)) {
                g->live = j;
            }
        }
        g->train = seed_stats(train, n_done);
        g->valid = seed_stats(valid, n_done);
        g->test = seed_stats(test, n_done);
        g->speed = seed_stats(speed, n_done);
    }
    if (member) memcpy(member, of, (size_t)n_runs * sizeof *of);
    free(of);
    free(values);
    return 0;
}

int pivot_tied_with_best(const PivotCell *cells, int n, int best)
{
    int tied = 0;
    for (int i = 0; best >= 0 && cells[best].n_value > 1 && i < n; i++)
        tied += i != best && cells[i].n_value > 1 &&
                fabs(cells[i].stats.mean - cells[best].stats.mean) < noise_margin(&cells[best].stats, &cells[i].stats);
    return tied;
}
