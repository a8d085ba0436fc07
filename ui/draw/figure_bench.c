/*
 * figure_bench.c — `mixbench plot bench`'s figure (figure_bench.h): three
 * log-log panels over n, one series per architecture, crossovers with
 * attention marked and listed.
 */
#include "ui/draw/figure_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "engine/common.h"
#include "experiments/points.h"

/* arch's points sorted by n: their indices into idx, the count returned. */
static int arch_points(const BenchPoint *pts, int count, const char *arch, int *idx)
{
    int k = 0;
    for (int i = 0; i < count; i++)
        if (!strcmp(pts[i].arch, arch)) {
            int j = k++;
            while (j > 0 && pts[idx[j - 1]].n > pts[i].n) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = i;
        }
    return k;
}

/* attention's point at length n, or -1. */
static int find_at(const BenchPoint *pts, int count, const char *arch, int n)
{
    for (int i = 0; i < count; i++)
        if (pts[i].n == n && !strcmp(pts[i].arch, arch)) return i;
    return -1;
}

int bench_crossover(const BenchPoint *pts, int count, const char *arch, double *n_cross, double *tok_cross, int *lo,
                    int *hi)
{
    int *idx = malloc(sizeof(int) * (count ? count : 1)), k = arch_points(pts, count, arch, idx), seen = 0, rc = 0;
    double prev_r = 0, prev_n = 0, prev_t = 0;
    *lo = *hi = -1;
    for (int i = 0; i < k && rc == 0; i++) {
        const BenchPoint *p = &pts[idx[i]];
        int a = find_at(pts, count, "attention", p->n);
        if (a < 0 || !(p->tokens_per_s > 0) || !(pts[a].tokens_per_s > 0)) continue;
        double r = log(p->tokens_per_s / pts[a].tokens_per_s), ln = log((double)p->n), lt = log(pts[a].tokens_per_s);
        if (seen && prev_r < 0 && r >= 0) {
            double f = -prev_r / (r - prev_r);
            *n_cross = exp(prev_n + f * (ln - prev_n));
            *tok_cross = exp(prev_t + f * (lt - prev_t));
            *lo = (int)lround(exp(prev_n));
            *hi = p->n;
            rc = 1;
        }
        if (!seen && r >= 0) rc = 2;   /* ahead from the first common length */
        seen = 1;
        prev_r = r, prev_n = ln, prev_t = lt;
    }
    free(idx);
    return seen ? rc : -1;
}

/* A series per architecture of one panel: y picked from each point. */
static int panel(Figure *f, const BenchPoint *pts, int count, char (*archs)[32], int n_archs, const char *title,
                 const char *y_label, int what, char *err)
{
    FigPlot *p = figure_add_plot(f, title, "sequence length n", y_label, 1);
    if (!p) return err_set(err, "out of memory for the figure");
    p->log_x = 1;
    int *idx = malloc(sizeof(int) * count);
    double *x = malloc(sizeof(double) * count), *y = malloc(sizeof(double) * count);
    int rc = idx && x && y ? 0 : err_set(err, "out of memory for the figure");
    for (int a = 0; a < n_archs && !rc; a++) {
        int k = arch_points(pts, count, archs[a], idx);
        int kept = 0;   /* a value not measured is left out */
        for (int i = 0; i < k; i++) {
            const BenchPoint *q = &pts[idx[i]];
            x[kept] = q->n;
            y[kept] = what == 0 ? q->tokens_per_s : what == 1 ? q->peak_bytes / 1e6 : q->generate_ms;
            kept += isfinite(y[kept]) && y[kept] > 0;
        }
        k = kept;
        if (k == 0) continue;   /* not measured at any length (its colour stays its own) */
        FigSeries *s = fig_plot_series(p, FIG_LINE, a, x, y, k);
        FigSeries *m = s ? fig_plot_series(p, FIG_MARKERS, a, x, y, k) : NULL;
        if (!m) rc = err_set(err, "out of memory for the figure");
        else snprintf(s->label, sizeof s->label, "%s", archs[a]);
        double nc, tc;
        int lo, hi;
        if (!rc && what == 0 && strcmp(archs[a], "attention") &&
            bench_crossover(pts, count, archs[a], &nc, &tc, &lo, &hi) == 1 &&
            !fig_plot_series(p, FIG_MARKERS, FIG_GRAY, &nc, &tc, 1))
            rc = err_set(err, "out of memory for the figure");
    }
    free(idx), free(x), free(y);
    return rc;
}

/* The figure of pts under the note (what was measured, and how), its
   training panel's y axis called rate. */
static int figure_of(const BenchPoint *pts, int count, const char *note, const char *rate, Figure *f, char *err)
{
    if (count < 1) return err_set(err, "no bench lines to draw");
    char (*archs)[32] = malloc(sizeof *archs * count);
    if (!archs) return err_set(err, "out of memory for the figure");
    int n_archs = 0, rc = 0;
    for (int i = 0; i < count; i++) {
        int known = 0;
        for (int a = 0; a < n_archs; a++) known |= !strcmp(archs[a], pts[i].arch);
        if (!known) snprintf(archs[n_archs++], 32, "%s", pts[i].arch);
    }
    int generated = 0;
    for (int i = 0; i < count; i++) generated |= isfinite(pts[i].generate_ms);
    snprintf(f->title, sizeof f->title, "Throughput and memory against the sequence length");
    if (figure_note(f, FIG_TONE_DIM, "%s", note)) rc = err_set(err, "out of memory for the figure");
    if (!rc) rc = panel(f, pts, count, archs, n_archs, "training", rate, 0, err);
    if (!rc) rc = panel(f, pts, count, archs, n_archs, "peak memory", "MB", 1, err);
    if (!rc && generated) rc = panel(f, pts, count, archs, n_archs, "generation", "ms per token", 2, err);
    for (int a = 0; a < n_archs && !rc; a++) {
        double nc, tc;
        int lo, hi;
        if (!strcmp(archs[a], "attention")) continue;
        int c = bench_crossover(pts, count, archs[a], &nc, &tc, &lo, &hi);
        if (c == 1)
            rc = figure_footer(f, FIG_TONE_PLAIN, "%s overtakes attention's training tokens/s at n = %.0f (between %d "
                               "and %d; the gray marker)", archs[a], nc, lo, hi) ? -1 : 0;
        else if (c == 0 || c == 2)
            rc = figure_footer(f, FIG_TONE_DIM, "%s trains %s", archs[a],
                               c == 0 ? "slower than attention at every common length"
                                      : "faster than attention already at the shortest common length") ? -1 : 0;
        if (rc) err_set(err, "out of memory for the figure");
    }
    free(archs);
    return rc;
}

int figure_bench(const BenchPoint *pts, int count, Figure *f, char *err)
{
    return figure_of(pts, count,
                     "mixbench bench --n: training on random tokens; generation batch 1, the last tokens of a "
                     "sequence grown to n; both axes logarithmic",
                     "tokens/s", f, err);
}

int figure_bench_sweep(Store *s, int64_t sweep_id, Figure *f, char *err)
{
    figure_init(f);
    ResultRun *runs = NULL;
    Point *pts = NULL;
    int n_runs = 0, np = 0;
    if (results_sweep_runs(s, sweep_id, 1, &runs, &n_runs, err)) return -1;
    if (points_group(runs, n_runs, &pts, &np, NULL)) {
        free(runs);
        return err_set(err, "out of memory for the figure");
    }
    BenchPoint *bp = calloc((size_t)np + 1, sizeof *bp);
    int count = 0, rc = bp ? 0 : err_set(err, "out of memory for the figure"), per_cpu = 1;
    for (int i = 0; i < np; i++)
        if (pts[i].stat[PM_TOKENS_PER_S].n) per_cpu &= pts[i].stat[PM_TOKENS_PER_CPU_S].n > 0;
    PointMetric m = per_cpu ? PM_TOKENS_PER_CPU_S : PM_TOKENS_PER_S;
    for (int i = 0; i < np && !rc; i++) {
        const char *n = coord_value(pts[i].coords, pts[i].n_coords, "n_ctx");
        if (!n || pts[i].stat[m].n == 0) continue;
        BenchPoint *b = &bp[count++];
        snprintf(b->arch, sizeof b->arch, "%s", pts[i].arch);
        b->n = atoi(n);
        b->tokens_per_s = pts[i].stat[m].mean;
        b->peak_bytes = pts[i].stat[PM_PEAK_MB].n ? 1e6 * pts[i].stat[PM_PEAK_MB].mean : NAN;
        b->generate_ms = NAN;
    }
    if (!rc && count == 0) rc = err_set(err, "sweep %lld has no finished run with tokens/s over n_ctx", (long long)sweep_id);
    if (!rc) {
        char note[400];
        snprintf(note, sizeof note, "sweep %lld: training tokens per %s and each run's own peak memory, mean over "
                 "its seeds; both axes logarithmic.  A gray marker: where an architecture's mean crosses attention's "
                 "(interpolated); the report's crossover claims say from which n it is above beyond seed noise",
                 (long long)sweep_id, per_cpu ? "CPU-second of the run's own" : "second");
        rc = figure_of(bp, count, note, per_cpu ? "tokens per CPU-second" : "tokens/s", f, err);
    }
    free(bp);
    free(pts);
    free(runs);
    return rc;
}
