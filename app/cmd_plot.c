/*
 * cmd_plot.c — `mixbench plot run|compare|grid|ae|parallel|bench ...`: the
 * workbench's figures (ui/draw/figure_build.h; bench: the JSON of `mixbench
 * bench --n`, app/bench_length.c) written as SVG, PDF or PNG by the output
 * file's extension.  Only argument parsing, choosing the runs (an id or a
 * unique name: db/organise.h store_run_lookup) or the sweep, and printing
 * live here (its help is its entry in app/commands.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench.h"
#include "app/cli.h"
#include "app/commands.h"
#include "db/organise.h"
#include "db/results.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "engine/text.h"
#include "experiments/points.h"
#include "ui/draw/figure_build.h"

enum { MAX_RUNS = 64 };


/* The sweep a SWEEP argument names (an id, or a preset's newest sweep); the
   latest without one: of the AE/Bidir sweeps (ae), else of every sweep. */
static int find_sweep(Store *st, const char *arg, int ae, int64_t *id, char *err)
{
    SweepRow row;
    int found = 0;
    if (arg && text_to_int64(arg, id) == 0) {
        if (results_sweep(st, *id, &row, &found, err)) return -1;
        return found ? 0 : err_set(err, "no sweep %s in the store (mixbench report lists the presets run)", arg);
    }
    if (arg) {
        if (results_newest_sweep(st, arg, &row, &found, err)) return -1;
        if (!found) return err_set(err, "no sweep named '%s' in the store", arg);
        *id = row.id;
        return 0;
    }
    SweepRow *rows = NULL;
    int n = 0;
    if ((ae ? sweeps_read_latest_ae(st, 1, &rows, &n, err) : sweeps_read_latest(st, NULL, 0, 1, &rows, &n, err)))
        return -1;
    *id = n ? rows[0].id : 0;
    free(rows);
    if (n) return 0;
    return ae ? err_set(err, "no AE/Bidir sweep in the store (an autoencoder, bidirectional or completion sweep, "
                             "or one with task autoencode, bidir or complete)")
              : err_set(err, "no sweep in the store");
}

static int parse_axis(const char *text, CurveAxis *x)
{
    if (!text || !strcmp(text, "steps")) *x = CURVE_X_STEPS;
    else if (!strcmp(text, "tokens")) *x = CURVE_X_TOKENS;
    else if (!strcmp(text, "time") || !strcmp(text, "wall")) *x = CURVE_X_WALL;
    else return cli_fail("plot: --x %s: one of steps, tokens, time", text);
    return 0;
}

typedef struct {
    const char *kind, *db, *out, *x, *log, *seeds, *metric, *rows, *cols, *at, *valid, *range, *fits;
    const char *args[MAX_RUNS];
    int n_args;
} PlotArgs;

/* Builds the figure the arguments ask for; its default file name into name. */
static int build(Store *st, const PlotArgs *a, Figure *fig, char *name, size_t cap, char *err)
{
    CurveAxis x = CURVE_X_STEPS;
    if (parse_axis(a->x, &x)) return 1;
    /* --fits: the curves' power-law fits past the budget, on a log tokens axis */
    int flags = (a->log ? FIGURE_LOG_Y : 0) | (a->fits ? FIGURE_FITS : 0);
    if (a->fits && strcmp(a->kind, "compare") && strcmp(a->kind, "ae"))
        return cli_fail("plot %s: --fits is for plot compare and plot ae", a->kind);
    if (a->fits && a->x && x != CURVE_X_TOKENS)
        return cli_fail("plot %s: --fits draws against training tokens, not --x %s", a->kind, a->x);
    if (!strcmp(a->kind, "run") || !strcmp(a->kind, "compare")) {
        int64_t ids[MAX_RUNS];
        if (a->n_args == 0) return cli_fail("plot %s: name a run (mixbench ls lists them)", a->kind);
        if (!strcmp(a->kind, "run") && a->n_args > 1) return cli_fail("plot run: one run (plot compare takes several)");
        for (int i = 0; i < a->n_args; i++)   /* an id or a unique name, as every command takes a run */
            if (store_run_lookup(st, a->args[i], 0, &ids[i], err)) return -1;
        CompareSeeds seeds = COMPARE_POOL;
        if (a->seeds && !strcmp(a->seeds, "groups")) seeds = COMPARE_GROUPS;
        else if (a->seeds && !strcmp(a->seeds, "runs")) seeds = COMPARE_RUNS;
        else if (a->seeds && strcmp(a->seeds, "pool")) return cli_fail("plot: --seeds %s: one of pool, groups, runs", a->seeds);
        snprintf(name, cap, "%s%lld.svg", a->kind, (long long)ids[0]);
        return a->kind[0] == 'r' ? figure_run(st, ids[0], x, a->log != NULL, fig, err)
                                 : figure_compare(st, ids, a->n_args, seeds, x, flags, fig, err);
    }
    if (a->n_args > 1) return cli_fail("plot %s: one sweep at most", a->kind);
    int is_ae = !strcmp(a->kind, "ae");
    int metric = -1;
    if (a->metric && (metric = point_metric_find(a->metric)) < 0)
        return cli_fail("plot %s: unknown metric '%s' (mixbench plot --help lists them)", a->kind, a->metric);
    if (a->seeds && !strcmp(a->kind, "parallel") && strcmp(a->seeds, "groups") && strcmp(a->seeds, "runs"))
        return cli_fail("plot parallel: --seeds %s: one of groups (a line per seed group), runs", a->seeds);
    int64_t sweep = 0;
    if (find_sweep(st, a->n_args ? a->args[0] : NULL, is_ae, &sweep, err)) return -1;
    snprintf(name, cap, "%s-sweep%lld.svg", a->kind, (long long)sweep);
    if (is_ae) return figure_ae(st, sweep, a->valid != NULL, flags, fig, err);
    if (!strcmp(a->kind, "parallel")) {
        ParallelView pv = {sweep, metric, !a->seeds || !strcmp(a->seeds, "groups"), a->range};
        return figure_parallel(st, &pv, fig, err);
    }
    GridView v = {sweep, metric, a->rows, a->cols, a->at};
    return figure_grid(st, &v, fig, err);
}

int cmd_plot(int argc, char **argv)
{
    PlotArgs a;
    memset(&a, 0, sizeof a);
    a.db = "mixbench.db";
    CliOpt opts[] = {{"db", 1, &a.db, NULL},         {"output", 1, &a.out, "o"},  {"x", 1, &a.x, NULL},
                     {"log", 0, &a.log, NULL},       {"seeds", 1, &a.seeds, NULL}, {"metric", 1, &a.metric, NULL},
                     {"rows", 1, &a.rows, NULL},     {"cols", 1, &a.cols, NULL},  {"at", 1, &a.at, NULL},
                     {"valid", 0, &a.valid, NULL},   {"range", 1, &a.range, NULL}, {"fits", 0, &a.fits, NULL},
                     {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    const char *positional[MAX_RUNS + 1];
    int n_pos = 0;
    if (cli_parse(argc, argv, opts, NULL, positional, MAX_RUNS + 1, &n_pos, err)) return cli_fail("plot: %s", err);
    static const char *const KINDS[] = {"run", "compare", "grid", "ae", "parallel", "bench"};
    for (int k = 0; k < 6 && n_pos > 0; k++)
        if (!strcmp(positional[0], KINDS[k])) a.kind = KINDS[k];
    if (!a.kind) {
        if (!n_pos) command_help(command_find("plot"), stderr);
        return cli_fail("plot: %s (one of run, compare, grid, ae, parallel, bench)",
                        n_pos ? "unknown figure kind" : "which figure?");
    }
    a.n_args = n_pos - 1;
    memcpy(a.args, positional + 1, (size_t)a.n_args * sizeof a.args[0]);
    FigFormat format;
    if (a.out && figure_format_of(a.out, &format, err)) return cli_fail("plot: %s", err);
    Figure fig;
    figure_init(&fig);
    char name[96];
    int rc;
    if (!strcmp(a.kind, "bench")) {   /* from bench --n --json files, not the store */
        snprintf(name, sizeof name, "bench.svg");
        rc = bench_lengths_figure(a.args, a.n_args, &fig, err) ? -1 : 0;
    } else {
        Store *st;
        if (store_open_existing(a.db, &st, err)) {
            figure_free(&fig);
            return cli_fail("%s", err);
        }
        rc = build(st, &a, &fig, name, sizeof name, err);
        store_close(st);
    }
    if (rc < 0) rc = cli_fail("plot %s: %s", a.kind, err);
    if (!rc && figure_write(&fig, a.out ? a.out : name, err)) rc = cli_fail("plot: %s", err);
    if (!rc) printf("figure written to %s\n", a.out ? a.out : name);
    figure_free(&fig);
    figure_cleanup();
    return rc;
}
