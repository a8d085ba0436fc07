/*
 * test_pivot.c — the Grid's default view (experiments/pivot.c), the one
 * the Grid screen and `plot grid` share: the first axis down the rows,
 * the next across; seed never fixed (a cell is its seed group's
 * mean); an axis zipped with a shown one (heads with arch) follows it, so
 * the attention column has its runs; other axes fixed at their first
 * value.  A random search: its drawn axes binned for which knob
 * matters (pivot_bin_search), its trials sorted best first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "experiments/pivot.h"
#include "tests/check.h"

/* A finished run at the words "key=value ..." with test loss v. */
static ResultRun run_at(const char *words, double v)
{
    ResultRun r;
    memset(&r, 0, sizeof r);
    r.state = RUN_DONE;
    snprintf(r.status, sizeof r.status, "done");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", words);
    for (char *w = strtok(buf, " "); w && r.n_coords < RESULT_MAX_COORDS; w = strtok(NULL, " ")) {
        char *eq = strchr(w, '=');
        *eq = 0;
        snprintf(r.coords[r.n_coords].key, sizeof r.coords[0].key, "%s", w);
        snprintf(r.coords[r.n_coords].value, sizeof r.coords[0].value, "%s", eq + 1);
        r.n_coords++;
    }
    r.test_loss = v;
    r.valid_loss = NAN;
    return r;
}

/* runs laid out on axes, and the default view of them into row, col, fixed_at */
static void default_view(Pivot *p, const char *const *axes, ResultRun *runs, int n, int *row, int *col, int *fixed_at)
{
    char err[ERR_LEN];
    CHECK(pivot_build(p, axes, 4, runs, n, NULL, err) == 0, "%s", err);
    *row = *col = -1;
    pivot_default_axes(p, NULL, row, col);
    pivot_default_fixed(p, *row, *col, fixed_at);
}

/* The sweep: arch=attention,mixer layers=1,2 lr=1e-3,3e-3 repeats=2. */
static void test_default_grid(void)
{
    static const char *const arch[2] = {"attention", "mixer"}, *const lr[2] = {"1e-3", "3e-3"};
    ResultRun *runs = malloc(16 * sizeof *runs);
    int n = 0;
    for (int a = 0; a < 2; a++)
        for (int l = 1; l <= 2; l++)
            for (int k = 0; k < 2; k++)
                for (int s = 1; s <= 2; s++) {
                    char words[128];
                    snprintf(words, sizeof words, "arch=%s layers=%d lr=%s seed=%d", arch[a], l, lr[k], s);
                    runs[n++] = run_at(words, 10 * a + l + 0.1 * k + 0.01 * s);
                }
    const char *axes[4] = {"arch", "layers", "lr", "seed"};
    Pivot p;
    int row, col, fixed_at[PIVOT_MAX_AXES];
    default_view(&p, axes, runs, n, &row, &col, fixed_at);
    CHECK(row == 0 && col == 1, "rows %d columns %d", row, col);
    CHECK(fixed_at[2] == 0 && fixed_at[3] == -1 && fixed_at[0] == -1 && fixed_at[1] == -1, "fixed %d %d %d %d",
          fixed_at[0], fixed_at[1], fixed_at[2], fixed_at[3]);
    /* a named column: the rows the first other axis that may go */
    int r2 = -1, c2 = 0;
    pivot_default_axes(&p, NULL, &r2, &c2);
    CHECK(r2 == 1 && c2 == 0, "rows %d columns %d", r2, c2);
    CHECK(pivot_axis_free(&p, 2, row, col) && !pivot_axis_free(&p, 3, row, col), "lr free, seed not");
    PivotCell cells[4];
    pivot_cells(&p, row, col, fixed_at, PM_TEST_LOSS, NULL, 0, NULL, cells);
    /* attention, layers=1, lr=1e-3: seeds 1 and 2 averaged */
    CHECK(cells[0].n_value == 2 && fabs(cells[0].stats.mean - 1.015) < 1e-9, "n %d mean %g", cells[0].n_value,
          cells[0].stats.mean);
    CHECK(cells[3].n_value == 2 && fabs(cells[3].stats.mean - 12.015) < 1e-9, "n %d mean %g", cells[3].n_value,
          cells[3].stats.mean);
    pivot_free(&p);
}

/* Sweep 19 of the long store: n_ctx x (arch,heads)=(mixer,1),(attention,4)
   x 3 seeds: heads follows arch, the attention column is full. */
static void test_zipped_follows(void)
{
    ResultRun *runs = malloc(12 * sizeof *runs);
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 2; a++)
            for (int s = 1; s <= 3; s++) {
                char words[128];
                snprintf(words, sizeof words, "n_ctx=%d arch=%s heads=%d seed=%d", c ? 128 : 32, a ? "attention" : "mixer",
                         a ? 4 : 1, s);
                runs[n++] = run_at(words, 4 + a + c + 0.01 * s);
            }
    const char *axes[4] = {"n_ctx", "arch", "heads", "seed"};
    Pivot p;
    int row, col, fixed_at[PIVOT_MAX_AXES];
    default_view(&p, axes, runs, n, &row, &col, fixed_at);
    CHECK(row == 0 && col == 1, "rows %d columns %d", row, col);
    CHECK(fixed_at[2] == -1 && fixed_at[3] == -1, "heads fixed at %d, seed at %d", fixed_at[2], fixed_at[3]);
    PivotCell cells[4];
    pivot_cells(&p, row, col, fixed_at, PM_TEST_LOSS, NULL, 0, NULL, cells);
    for (int i = 0; i < 4; i++)
        CHECK(cells[i].n_value == 3 && cells[i].n_pending == 0, "cell %d: %d values, %d pending", i, cells[i].n_value,
              cells[i].n_pending);
    pivot_free(&p);
}

/* A search's 6 trials of lr: trial and seed dropped, lr in 3 ranges of 2
   values each, every run kept. */
static void test_search_bins(void)
{
    static const char *const lr[6] = {"3e-4", "1e-4", "6e-4", "2e-4", "5e-4", "4e-4"};
    ResultRun *runs = malloc(6 * sizeof *runs);
    for (int t = 0; t < 6; t++) {
        char words[96];
        snprintf(words, sizeof words, "lr=%s trial=%d", lr[t], t + 1);
        runs[t] = run_at(words, t);
    }
    const char *axes[2] = {"lr", "trial"};
    Pivot p, b;
    char err[ERR_LEN];
    CHECK(pivot_build(&p, axes, 2, runs, 6, NULL, err) == 0, "%s", err);
    CHECK(pivot_is_search(&p), "a trial axis makes a search");
    CHECK(pivot_bin_search(&p, 3, &b, err) == 0, "%s", err);
    CHECK(b.n_axes == 1 && !strcmp(b.axis[0], "lr") && b.n_values[0] == 3 && b.n_runs == 6, "%d axes, %d values",
          b.n_axes, b.n_values[0]);
    CHECK(!strcmp(b.values[0][0], "3e-4..4e-4") && !strcmp(b.values[0][1], "1e-4..2e-4") &&
              !strcmp(b.values[0][2], "5e-4..6e-4"),
          "%s %s %s", b.values[0][0], b.values[0][1], b.values[0][2]);
    CHECK(!strcmp(p.values[0][0], "1e-4"), "the source keeps its values: %s", p.values[0][0]);
    pivot_free(&b);
    pivot_free(&p);
}

/* Trials best first, those without a value last, for a lower-better and a
   higher-better metric. */
static void test_sort_points(void)
{
    Point pts[4];
    memset(pts, 0, sizeof pts);
    const double v[4] = {3, 1, NAN, 2};
    for (int i = 0; i < 4; i++) {
        pts[i].n_runs = i;   /* tells them apart */
        pts[i].stat[PM_TEST_LOSS] = seed_stats(isnan(v[i]) ? NULL : &v[i], isnan(v[i]) ? 0 : 1);
        pts[i].stat[PM_TEST_ACCURACY] = pts[i].stat[PM_TEST_LOSS];
    }
    pivot_sort_points(pts, 4, PM_TEST_LOSS);
    CHECK(pts[0].n_runs == 1 && pts[1].n_runs == 3 && pts[2].n_runs == 0 && pts[3].n_runs == 2, "%d %d %d %d",
          pts[0].n_runs, pts[1].n_runs, pts[2].n_runs, pts[3].n_runs);
    pivot_sort_points(pts, 4, PM_TEST_ACCURACY);
    CHECK(pts[0].n_runs == 0 && pts[1].n_runs == 3 && pts[2].n_runs == 1 && pts[3].n_runs == 2, "%d %d %d %d",
          pts[0].n_runs, pts[1].n_runs, pts[2].n_runs, pts[3].n_runs);
}

/* Values are kept whole: the zoology study's data specs, which differ only
   past their 48th character, are three values, not a new one a run (which
   had filled the axis to its 64 and made "which knob matters" count 960
   cells for 45). */
static void test_long_values(void)
{
    static const char *const data[3] = {"builtin:mqar:pairs=4:vocab=256:examples=100000",
                                        "builtin:mqar:pairs=8:train_pairs=4:vocab=256:examples=100000",
                                        "builtin:mqar:pairs=16:train_pairs=4:vocab=256:examples=100000"};
    ResultRun *runs = malloc(12 * sizeof *runs);
    int n = 0;
    for (int i = 0; i < 3; i++)
        for (int d = 32; d <= 64; d *= 2)
            for (int s = 1; s <= 2; s++) {
                char words[200];
                snprintf(words, sizeof words, "data=%s d=%d seed=%d", data[i], d, s);
                runs[n++] = run_at(words, i + d / 100.0);
            }
    const char *axes[3] = {"data", "d", "seed"};
    Pivot p;
    char err[ERR_LEN];
    CHECK(pivot_build(&p, axes, 3, runs, n, NULL, err) == 0, "%s", err);
    CHECK(p.n_values[0] == 3 && p.n_values[1] == 2, "data %d values, d %d", p.n_values[0], p.n_values[1]);
    for (int i = 0; i < 3 && i < p.n_values[0]; i++) CHECK(!strcmp(p.values[0][i], data[i]), "%s", p.values[0][i]);
    for (int r = 0; r < n; r++) CHECK(p.coord[r][0] == r / 4, "run %d at data %d", r, p.coord[r][0]);
    /* shown without the parts all three share; d as it is */
    static const char *const shown[3] = {"pairs=4", "pairs=8:train_pairs=4", "pairs=16:train_pairs=4"};
    char label[PIVOT_VALUE_LEN];
    for (int i = 0; i < 3 && i < p.n_values[0]; i++) {
        pivot_value_label(&p, 0, i, label, sizeof label);
        CHECK(!strcmp(label, shown[i]), "%s: %s", p.values[0][i], label);
    }
    pivot_value_label(&p, 1, 1, label, sizeof label);
    CHECK(!strcmp(label, "64"), "d: %s", label);
    pivot_free(&p);
}

/* The recall study's data axis: MQAR beside copying, options split at ','
   too; a value whose every part every other value has is shown whole. */
static void test_data_labels(void)
{
    static const char *const data[4] = {"builtin:mqar:pairs=4:scatter=1:examples=100000", "builtin:copy:examples=100000",
                                        "builtin:selective-copy,examples=100000", "builtin:copy"};
    static const char *const shown[4] = {"mqar:pairs=4:scatter=1:examples=100000", "copy:examples=100000",
                                         "selective-copy:examples=100000", "copy"};
    ResultRun *runs = malloc(4 * sizeof *runs);
    for (int i = 0; i < 4; i++) {
        char words[200];
        snprintf(words, sizeof words, "data=%s", data[i]);
        runs[i] = run_at(words, i);
    }
    const char *axes[1] = {"data"};
    Pivot p;
    char err[ERR_LEN], label[PIVOT_VALUE_LEN];
    CHECK(pivot_build(&p, axes, 1, runs, 4, NULL, err) == 0 && p.n_values[0] == 4, "%s", err);
    for (int i = 0; i < 4 && i < p.n_values[0]; i++) {
        pivot_value_label(&p, 0, i, label, sizeof label);
        CHECK(!strcmp(label, shown[i]), "%s: %s", p.values[0][i], label);
    }
    pivot_free(&p);
    /* every part of builtin:copy is in builtin:copy:examples=10 too */
    runs = malloc(2 * sizeof *runs);
    runs[0] = run_at("data=builtin:copy", 1);
    runs[1] = run_at("data=builtin:copy:examples=10", 2);
    CHECK(pivot_build(&p, axes, 1, runs, 2, NULL, err) == 0 && p.n_values[0] == 2, "%s", err);
    pivot_value_label(&p, 0, 0, label, sizeof label);
    CHECK(!strcmp(label, "builtin:copy"), "whole: %s", label);
    pivot_value_label(&p, 0, 1, label, sizeof label);
    CHECK(!strcmp(label, "examples=10"), "%s", label);
    pivot_free(&p);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_default_grid);
    RUN(test_zipped_follows);
    RUN(test_search_bins);
    RUN(test_sort_points);
    RUN(test_long_values);
    RUN(test_data_labels);
    CHECK_EXIT();
}
