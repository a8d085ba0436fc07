/*
 * cmd_report.c — `mixbench report [PRESET ... | SWEEP ...] [--db FILE] [--md FILE
 * [--figures DIR]]` (SWEEP: an id, sweep:ID or a sweep's name, any sweep's
 * report: experiments/report.h report_sweep): the reproduction report of experiments/report.h, on
 * the terminal, or as Markdown into FILE with each preset's figures drawn
 * as SVG into DIR (relative to FILE's folder, default figures/) and linked
 * by that relative path: the Grid heatmap of its sweep (PRESET.svg), a
 * recall sweep's answer accuracy against d (PRESET-recall.svg, Zoology's
 * Figure 2 layout), and its curves (PRESET-curves.svg): the AE/Bidir figure for the autoencoder,
 * bidirectional and completion presets, else its points' (a seed group
 * each) when it has at most 8; when the preset's claims compare points,
 * the curves figure carries each point's power-law fit past the budget
 * (FIGURE_FITS, on a log training-tokens axis); a long-context study
 * (experiments/report_lengths.h) has its tokens/s and memory against n
 * (PRESET-lengths.svg, ui/draw/figure_bench.h) in place of the curves.  Only
 * argument parsing, the figures' files and printing live here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/commands.h"
#include "db/results.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "engine/text.h"
#include "experiments/claims.h"
#include "experiments/points.h"
#include "experiments/sweep.h"
#include "experiments/report.h"
#include "experiments/report_lengths.h"
#include "experiments/study.h"
#include "ui/draw/figure_bench.h"
#include "ui/draw/figure_build.h"

enum { MAX_PRESETS = 64, MAX_NAMED_SWEEPS = 100000 };

/* Where the figures go: on disk (dir) and as the Markdown links them (link). */
typedef struct {
    Store *store;
    char dir[1024], link[256];
} FigureDir;

/* mkdir -p */
static int make_dirs(const char *path, char *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/') continue;
        char was = *p;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return err_set(err, "cannot make %s: %s", buf, strerror(errno));
        if (!(*p = was)) return 0;
    }
}

/* One figure: written to DIR/NAME.svg, listed with its caption. */
static int add_figure(FigureDir *d, Figure *fig, int built, const char *name, ReportFigure *out, int *n, char *err)
{
    char path[1536];
    snprintf(path, sizeof path, "%s/%s.svg", d->dir, name);
    int rc = built ? -1 : figure_write(fig, path, err);
    if (!rc) {
        snprintf(out[*n].path, sizeof out[*n].path, "%s/%s.svg", d->link, name);
        snprintf(out[*n].caption, sizeof out[*n].caption, "%s", fig->title);
        (*n)++;
    }
    figure_free(fig);
    return rc;
}

/* The first run of each point of the sweep (at most FIGURE_MAX_CURVES
   points: more are left to the heatmap); 0 points when there are more. */
static int point_runs(Store *s, int64_t sweep_id, int64_t *ids, int *n_ids, char *err)
{
    ResultRun *runs = NULL;
    int n = 0, np = 0;
    *n_ids = 0;
    if (results_sweep_runs(s, sweep_id, 1, &runs, &n, err)) return -1;
    Point *pts = NULL;
    int *owner = malloc((size_t)(n ? n : 1) * sizeof *owner);
    int rc = !owner || points_group(runs, n, &pts, &np, owner) ? err_set(err, "report: out of memory") : 0;
    for (int p = 0; p < np && np <= FIGURE_MAX_CURVES && !rc; p++)
        for (int i = 0; i < n; i++)
            if (owner[i] == p) {
                ids[(*n_ids)++] = runs[i].run_id;
                break;
            }
    free(owner);
    free(pts);
    free(runs);
    return rc;
}

/* FIGURE_FITS when some claim of preset compares points on the sweep (the
   pairs experiments/budget_fit.h fits for the report's numbers), else 0. */
static int fit_flags(Store *s, const char *preset, int64_t sweep_id, int *flags, char *err)
{
    ClaimResult *claims = NULL;
    int n = 0;
    *flags = 0;
    if (claims_judge(s, preset, sweep_id, &claims, &n, err)) return -1;
    for (int i = 0; i < n; i++)
        if (claims[i].n_pairs > 0) *flags = FIGURE_FITS;
    free(claims);
    return 0;
}

/* *lengths 1 when the sweep gets the long-context table (experiments/report_lengths.h). */
static int lengths_of(Store *s, const char *preset, int64_t sweep_id, int *lengths, char *err)
{
    ResultRun *runs = NULL;
    Point *pts = NULL;
    int n = 0, np = 0;
    *lengths = 0;
    if (results_sweep_runs(s, sweep_id, 1, &runs, &n, err)) return -1;
    int rc = points_group(runs, n, &pts, &np, NULL) ? err_set(err, "report: out of memory") : 0;
    if (!rc) *lengths = lengths_sweep(preset, pts, np);
    free(pts);
    free(runs);
    return rc;
}

static int preset_figures(void *ctx, const char *preset, int64_t sweep_id, ReportFigure *out, int *n, char *err)
{
    FigureDir *d = ctx;
    Figure fig;
    char name[96];
    *n = 0;
    GridView v = {sweep_id, -1, NULL, NULL, ""};   /* every axis not shown averaged */
    snprintf(name, sizeof name, "%s", preset);
    if (add_figure(d, &fig, figure_grid_report(d->store, &v, &fig, err), name, out, n, err)) return -1;
    /* a recall sweep's accuracy against d (Zoology's Figure 2), when it has one */
    if (figure_recall(d->store, sweep_id, &fig, err)) return -1;
    snprintf(name, sizeof name, "%s-recall", preset);
    if (fig.n_plots && add_figure(d, &fig, 0, name, out, n, err)) return -1;
    if (!fig.n_plots) figure_free(&fig);
    snprintf(name, sizeof name, "%s-curves", preset);
    int flags;
    if (fit_flags(d->store, preset, sweep_id, &flags, err)) return -1;
    if (figure_ae_preset(preset))
        return add_figure(d, &fig, figure_ae(d->store, sweep_id, 0, flags, &fig, err), name, out, n, err);
    int lengths;
    if (lengths_of(d->store, preset, sweep_id, &lengths, err)) return -1;
    if (lengths) {   /* a long-context study: tokens/s and memory against n in place of the curves */
        snprintf(name, sizeof name, "%s-lengths", preset);
        return add_figure(d, &fig, figure_bench_sweep(d->store, sweep_id, &fig, err), name, out, n, err);
    }
    int64_t ids[FIGURE_MAX_CURVES];
    int n_ids;
    if (point_runs(d->store, sweep_id, ids, &n_ids, err)) return -1;
    if (n_ids < 2) return 0;
    return add_figure(d, &fig, figure_compare(d->store, ids, n_ids, COMPARE_GROUPS, CURVE_X_STEPS, flags, &fig, err),
                      name, out, n, err);
}

/* The figures' folder: dir relative to md_path's folder (or absolute). */
static int figure_dir(const char *md_path, const char *dir, FigureDir *d, char *err)
{
    const char *slash = strrchr(md_path, '/');
    struct stat folder;
    char parent[1024];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - md_path) + 1 : 1, slash ? md_path : ".");
    if (stat(parent, &folder) || !S_ISDIR(folder.st_mode)) return err_set(err, "cannot write %s: no folder %s", md_path, parent);
    snprintf(d->link, sizeof d->link, "%s", dir);
    if (dir[0] == '/' || !slash) snprintf(d->dir, sizeof d->dir, "%s", dir);
    else snprintf(d->dir, sizeof d->dir, "%.*s/%s", (int)(slash - md_path), md_path, dir);
    return make_dirs(d->dir, err);
}

static int write_md(const char *md_path, const StrBuf *out)
{
    FILE *f = fopen(md_path, "w");
    if (!f) return cli_fail("report: cannot write %s", md_path);
    int bad = fwrite(out->data, 1, out->len, f) != out->len;
    bad |= fclose(f) != 0;
    if (bad) return cli_fail("report: writing %s failed", md_path);
    printf("report written to %s\n", md_path);
    return 0;
}

/* The sweep an argument that is no preset names: "3", "sweep:3", or a
   sweep's name (its newest). */
static int sweep_named(Store *st, const char *arg, int64_t *id, char *err)
{
    const char *text = strncmp(arg, "sweep:", 6) ? arg : arg + 6;
    if (text_to_int64(text, id) == 0) {
        if (*id > 0) return 0;
        return err_set(err, "report: '%s' is not a sweep id (a positive integer)", arg);
    }
    SweepRow *rows = NULL;
    int n = 0;
    *id = 0;
    if (sweeps_read_latest(st, NULL, 0, MAX_NAMED_SWEEPS, &rows, &n, err)) return -1;
    for (int i = 0; i < n; i++)   /* oldest first: the newest of that name wins */
        if (!strcmp(rows[i].name, text) || !strcmp(rows[i].preset, text)) *id = rows[i].id;
    free(rows);
    if (!*id) return err_set(err, "report: unknown preset '%s', and no sweep of this store is named so", arg);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *md_path = NULL, *fig_dir = "figures", *loss = NULL;
    const char *presets[MAX_PRESETS];
    int n_presets = 0, loss_best;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"md", 1, &md_path, NULL}, {"figures", 1, &fig_dir, NULL},
                     {"loss", 1, &loss, NULL},  {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, presets, MAX_PRESETS, &n_presets, err)) return cli_fail("report: %s", err);
    if (cli_loss_choice("report", loss, &loss_best)) return 1;
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    FigureDir dir = {st, "", ""};
    if (md_path && figure_dir(md_path, fig_dir, &dir, err)) {
        store_close(st);
        return cli_fail("report: %s", err);
    }
    StrBuf out;
    sb_init(&out);
    int flags = (md_path ? REPORT_MARKDOWN : 0) | (loss_best ? REPORT_LOSS_BEST : 0), rc = 0;
    int64_t sweeps[MAX_PRESETS];
    int n_sweeps = 0;
    /* a study named here may be one stored with a sweep (docs/studies.md) */
    rc = studies_from_store(st, err);
    for (int i = 0; i < n_presets && !rc; i++)
        if (!preset_find(presets[i])) rc = sweep_named(st, presets[i], &sweeps[n_sweeps++], err);
    if (!rc && n_sweeps && n_sweeps < n_presets)
        rc = err_set(err, "report: name presets or sweeps, not both (a preset's sweep: its id)");
    for (int i = 0; i < n_sweeps && !rc; i++)
        rc = report_sweep(st, sweeps[i], flags, md_path ? preset_figures : NULL, &dir, &out, err);
    if (!rc && !n_sweeps)
        rc = report_build_with_figures(st, presets, n_presets, flags, md_path ? preset_figures : NULL, &dir, &out, err);
    store_close(st);
    figure_cleanup();
    if (!rc && md_path) rc = write_md(md_path, &out);
    else if (!rc) fputs(out.data, stdout);
    else rc = cli_fail("%s", err);
    sb_free(&out);
    return rc;
}
