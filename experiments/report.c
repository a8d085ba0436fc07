/*
 * report.c — report_build of report.h.  Which of our metrics stands beside
 * a paper figure: the same name, except that a PairConnect (S1) test or
 * train loss is an all-positions loss, so it stands beside our loss_all
 * (SPEC section 3) when the runs have one.
 */
#include "experiments/report.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/adaptive.h"
#include "db/results.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "experiments/adaptive.h"
#include "experiments/claims.h"
#include "experiments/importance.h"
#include "experiments/pivot.h"
#include "experiments/points.h"
#include "experiments/recall_table.h"
#include "experiments/stats.h"
#include "experiments/report_lengths.h"
#include "experiments/study.h"
#include "experiments/sweep.h"
#include "experiments/verdicts.h"

/* 1 when every coordinate of the figure is the point's. */
static int figure_at(const FigureRow *f, const Point *p)
{
    char selector[2048];
    int len = 0;
    selector[0] = 0;
    for (int k = 0; k < f->n_coords && len < (int)sizeof selector; k++)
        len += snprintf(selector + len, sizeof selector - (size_t)len, "%s%s=%s", k ? " " : "", f->coords[k].key,
                        f->coords[k].value);
    return point_select(p, selector);
}

static void add_metric(PointMetric *cols, int *n, PointMetric m)
{
    for (int i = 0; i < *n; i++)
        if (cols[i] == m) return;
    cols[(*n)++] = m;
}

/* The columns of a preset's table: test loss, then what its figures and
   claims compare (only those some point has); with loss_best the best
   valid loss and its step beside test loss, in place of the last valid
   loss. */
static int columns(const char *preset, const FigureRow *figs, int n_figs, const Point *pts, int np, int loss_best,
                   PointMetric *cols)
{
    PointMetric want[PM_COUNT];
    int n_want = 0, n = 0;
    /* answer accuracy, the headline of a recall study, only where a point
       has it (data scoring only answers), with its test loss beside */
    add_metric(want, &n_want, PM_ANSWER_ACCURACY);
    add_metric(want, &n_want, PM_TEST_LOSS);
    if (loss_best) {
        add_metric(want, &n_want, PM_BEST_VALID_LOSS);
        add_metric(want, &n_want, PM_BEST_VALID_STEP);
    }
    for (int i = 0; i < n_figs; i++) add_metric(want, &n_want, metric_beside_figure(figs[i].metric, figs[i].setting));
    for (int i = 0; i < claim_count(); i++)
        if (!strcmp(claim_preset(i), preset)) add_metric(want, &n_want, claim_metric(i));
    int kept = 0;   /* with loss_best the last valid loss gives way */
    for (int i = 0; i < n_want; i++)
        if (!loss_best || want[i] != PM_VALID_LOSS) want[kept++] = want[i];
    n_want = kept;
    for (int i = 0; i < n_want; i++)
        for (int p = 0; p < np; p++)
            if (pts[p].stat[want[i]].n > 0) {
                cols[n++] = want[i];
                break;
            }
    return n;
}

static void fmt_stat(char *out, size_t cap, const SeedStats *st, PointMetric m)
{
    if (st->n == 0) {
        snprintf(out, cap, "-");
        return;
    }
    int places = m == PM_BEST_VALID_STEP ? 0
                 : m == PM_SAMPLES_PER_S || m == PM_TOKENS_PER_S || m == PM_TOKENS_PER_CPU_S || m == PM_PEAK_MB ||
                           m == PM_TEST_PERPLEXITY
                       ? 1
                       : 3;
    /* one seed has no spread to show: its value alone, not "+- 0.000" */
    if (st->n == 1) snprintf(out, cap, "%.*f", places, st->mean);
    else snprintf(out, cap, "%.*f +- %.*f", places, st->mean, places, st->se);
}

/* "S3 test_loss 4.35, S3 train_loss 4.53" for the figures at point p. */
static void fmt_paper(char *out, size_t cap, const FigureRow *figs, int n_figs, const Point *p)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < n_figs && len < cap; i++)
        if (figure_at(&figs[i], p))
            len += (size_t)snprintf(out + len, cap - len, "%s%s %s %.4g", len ? ", " : "", figs[i].setting,
                                    figs[i].metric, figs[i].value);
    if (!len) snprintf(out, cap, "-");
}

static void fmt_point(char *out, size_t cap, const Point *p)
{
    size_t len = 0;
    out[0] = 0;
    for (int k = 0; k < p->n_coords && len < cap; k++) {
        char label[300];
        coords_label(p->coords, p->n_coords, p->coords[k].key, label, sizeof label);
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "", label);
    }
    if (!len) snprintf(out, cap, "%s", p->arch);
}

/* One table row: cells[0..n) padded to widths (text) or between bars (markdown). */
static void row_out(StrBuf *out, int markdown, char cells[][160], int n, const int *widths)
{
    for (int i = 0; i < n; i++) {
        if (markdown) sb_printf(out, "| %s ", cells[i]);
        else sb_printf(out, "  %-*s", i + 1 < n ? widths[i] : 0, cells[i]);   /* no padding at the end */
    }
    sb_append(out, markdown ? "|\n" : "\n");
}

/* point, seeds, the metrics, tokens, wall, paper (a preset's sweep only:
   preset "" has none) */
enum { MAX_COLS = 5 + PM_COUNT };
/* the sweeps a store of no preset reports */
enum { REPORT_MAX_SWEEPS = 256 };

static void points_table(StrBuf *out, int markdown, int loss_best, const char *preset, const Point *pts, int np,
                         const FigureRow *figs, int n_figs)
{
    PointMetric cols[PM_COUNT];
    int n_cols = columns(preset, figs, n_figs, pts, np, loss_best, cols);
    int n_cells = (preset[0] ? 5 : 4) + n_cols, all_scale = preset_paper_metric(preset) == PM_TEST_LOSS_ALL;
    char(*cells)[MAX_COLS][160] = calloc((size_t)np + 1, sizeof *cells);
    if (!cells) return;
    snprintf(cells[0][0], 160, "point");
    snprintf(cells[0][1], 160, "seeds");
    for (int c = 0; c < n_cols; c++) snprintf(cells[0][2 + c], 160, "%s", point_metric_name(cols[c]));
    snprintf(cells[0][2 + n_cols], 160, "tokens");
    snprintf(cells[0][3 + n_cols], 160, "wall s");
    snprintf(cells[0][4 + n_cols], 160, "paper");
    for (int p = 0; p < np; p++) {
        char(*row)[160] = cells[p + 1];
        fmt_point(row[0], 160, &pts[p]);
        /* the claims' gate on the preset's own scale (points.h result_learned) */
        int unlearned = all_scale ? pts[p].n_unlearned_all : pts[p].n_unlearned;
        if (unlearned) snprintf(row[1], 160, "%d (%d not learned)", pts[p].n_runs, unlearned);
        else snprintf(row[1], 160, "%d", pts[p].n_runs);
        for (int c = 0; c < n_cols; c++) fmt_stat(row[2 + c], 160, &pts[p].stat[cols[c]], cols[c]);
        snprintf(row[2 + n_cols], 160, "%.0f", pts[p].stat[PM_TOKENS].mean);
        snprintf(row[3 + n_cols], 160, "%.1f", pts[p].stat[PM_WALL].mean);
        fmt_paper(row[4 + n_cols], 160, figs, n_figs, &pts[p]);
    }
    int widths[MAX_COLS] = {0};
    for (int r = 0; r <= np; r++)
        for (int c = 0; c < n_cells; c++) {
            int w = (int)strlen(cells[r][c]);
            if (w > widths[c]) widths[c] = w;
        }
    sb_append(out, "\n");
    row_out(out, markdown, cells[0], n_cells, widths);
    if (markdown) {
        for (int c = 0; c < n_cells; c++) sb_append(out, "|---");
        sb_append(out, "|\n");
    }
    for (int r = 1; r <= np; r++) row_out(out, markdown, cells[r], n_cells, widths);
    free(cells);
}

/* A recall sweep's table after Zoology's Figure 2 (experiments/
   recall_table.h): per architecture and width d, the largest MQAR cell
   (n, pairs) it solves; nothing for a sweep without MQAR points at two
   widths or more.  all[n_all]: every job of the sweep, so that a larger
   cell not trained yet is said to be so. */
static void solved_table(StrBuf *out, int markdown, const ResultRun *all, int n_all, double alpha)
{
    RecallView *v = calloc(1, sizeof *v);
    Point *pts = NULL;
    int np = 0;
    if (!v || points_group(all, n_all, &pts, &np, NULL)) {
        free(v);
        return;
    }
    recall_view(pts, np, alpha, v);
    if (v->n_cells && v->n_d >= 2) {
        int n_cells = 1 + v->n_d, widths[1 + RECALL_MAX_D] = {0};
        char(*cells)[MAX_COLS][160] = calloc((size_t)v->n_series + 1, sizeof *cells);
        if (!cells) {
            free(v);
            free(pts);
            return;
        }
        snprintf(cells[0][0], 160, "arch");
        for (int k = 0; k < v->n_d; k++) snprintf(cells[0][1 + k], 160, "d=%d", v->d[k]);
        for (int s = 0; s < v->n_series; s++) {
            snprintf(cells[s + 1][0], 160, "%s", v->series[s]);
            for (int k = 0; k < v->n_d; k++) recall_largest(v, s, k, cells[s + 1][1 + k], 160);
        }
        sb_printf(out, markdown ? "\nThe largest (n, pairs) each architecture solves at each d (solved: the one-sided "
                                  "%.3g%% lower bound of its answer accuracy over seeds at least %.2f, Zoology's bar; "
                                  "each point tested alone at alpha %g: a table, not a claim):\n"
                                : "\n  the largest (n, pairs) each architecture solves at each d (solved: the one-sided "
                                  "%.3g%% lower bound of its answer accuracy over seeds at least %.2f, Zoology's bar; "
                                  "each point tested alone at alpha %g: a table, not a claim):\n",
                  100 * (1 - alpha), RECALL_SOLVED, alpha);
        for (int r = 0; r <= v->n_series; r++)
            for (int c = 0; c < n_cells; c++) widths[c] = MB_MAX(widths[c], (int)strlen(cells[r][c]));
        sb_append(out, "\n");
        row_out(out, markdown, cells[0], n_cells, widths);
        if (markdown) {
            for (int c = 0; c < n_cells; c++) sb_append(out, "|---");
            sb_append(out, "|\n");
        }
        for (int r = 1; r <= v->n_series; r++) row_out(out, markdown, cells[r], n_cells, widths);
        free(cells);
    }
    free(v);
    free(pts);   /* v->at pointed into it */
}

/* The settings the preset's figures come from, each once. */
static void settings_list(StrBuf *out, int markdown, const FigureRow *figs, int n_figs)
{
    for (int i = 0; i < n_figs; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= !strcmp(figs[i].setting, figs[j].setting);
        if (seen) continue;
        if (i == 0) sb_append(out, "\nThe paper's settings (its figures are context; compare the relations):\n");
        sb_printf(out, "%s%s: %s (%s)\n", markdown ? "- " : "  ", figs[i].setting,
                  figs[i].setting_text[0] ? figs[i].setting_text : "-", figs[i].note);
    }
}

/* The preset's figures as Markdown images, one paragraph each. */
static int figure_links(StrBuf *out, const char *preset, int64_t sweep_id, ReportFigureFn figures, void *ctx,
                        char *err)
{
    ReportFigure figs[REPORT_MAX_FIGURES];
    int n = 0;
    if (figures(ctx, preset, sweep_id, figs, &n, err)) return -1;
    for (int i = 0; i < n && i < REPORT_MAX_FIGURES; i++)
        sb_printf(out, "\n![%s](%s)\n", figs[i].caption, figs[i].path);
    return 0;
}

/* Which knob matters for the sweep's headline metric (points.h
   headline_metric: the preset's own, answer accuracy on recall data, test
   loss otherwise) over the sweep's grid (experiments/importance.h), a random
   search's drawn axes binned (pivot_bin_search): a line, or a table in
   Markdown; why not, when it cannot be said. */
static int knobs(Store *s, int64_t sweep_id, const char *preset, int markdown, StrBuf *out, char *err)
{
    Pivot p;
    if (pivot_load(s, sweep_id, &p, err)) return -1;
    int search = pivot_is_search(&p);
    if (search) {   /* its drawn values binned into PIVOT_SEARCH_BINS ranges an axis */
        Pivot binned;
        int rc = pivot_bin_search(&p, PIVOT_SEARCH_BINS, &binned, err);
        pivot_free(&p);
        if (rc) return -1;
        p = binned;
    }
    PointMetric m = headline_metric(preset, p.runs, p.n_runs);
    Importance imp;
    char why[ERR_LEN];
    const char *label = point_metric_info(m)->label;
    if (importance_of_pivot(&p, m, &imp, why)) {
        sb_printf(out, "%sWhich knob matters (%s): not said: %s\n", markdown ? "\n" : "\n  ", label, why);
        pivot_free(&p);
        return 0;
    }
    pivot_free(&p);
    char how[160];
    if (search)
        snprintf(how, sizeof how, "share of the variance of %s over %d cells, each drawn axis in %d ranges of its "
                 "values, functional ANOVA", label, imp.n_cells, PIVOT_SEARCH_BINS);
    else
        snprintf(how, sizeof how, "share of the variance of %s over the grid's %d cells, functional ANOVA", label,
                 imp.n_cells);
    if (imp.n_imputed)
        snprintf(how + strlen(how), sizeof how - strlen(how), "; %d cells without runs filled additively",
                 imp.n_imputed);
    char noise[200];
    importance_noise_text(&imp, 0, noise, sizeof noise);
    if (!markdown) {
        char text[1024];
        importance_summary(&imp, 12, text, sizeof text);
        sb_printf(out, "\n  Which knob matters (%s):\n    %s\n%s%s%s", how, text, noise[0] ? "    (" : "", noise,
                  noise[0] ? ")\n" : "");
        return 0;
    }
    sb_printf(out, "\nWhich knob matters (%s):\n\n| knob | share |\n|---|---|\n", how);
    for (int a = 0; a < imp.n_factors; a++) {
        sb_printf(out, "| %s | %.1f%% |\n", imp.factor[a], 100 * imp.main[a]);
        for (int b = a + 1; b < imp.n_factors; b++)
            sb_printf(out, "| %s x %s | %.1f%% |\n", imp.factor[a], imp.factor[b], 100 * imp.pair[a][b]);
    }
    if (imp.n_factors > 2) sb_printf(out, "| three or more together | %.1f%% |\n", 100 * imp.higher);
    if (noise[0]) sb_printf(out, "\nS%s.\n", noise + 1);
    return 0;
}

/* " --until-conclusive --max-hours H" when the sweep was queued so (its cap
   as it is now: `sweep --continue` raises it), else "". */
static int until_option(Store *s, int64_t sweep_id, char *out, size_t cap, double *alpha, char *err)
{
    SweepPlanRow row;
    SweepPlan plan;
    int found = 0;
    out[0] = 0;
    *alpha = STATS_ALPHA;
    if (store_sweep_plan(s, sweep_id, &row, &found, err)) return -1;
    if (!found || !row.plan_json[0]) return 0;
    if (sweep_plan_parse(row.plan_json, &plan, err)) return -1;
    *alpha = plan.alpha;
    if (plan.until_conclusive)
        snprintf(out, cap, plan.max_hours > 0 ? " --until-conclusive --max-hours %g" : " --until-conclusive",
                 plan.max_hours);
    return 0;
}

/* The verdicts at a glance: how many claims got each, and of those decided
   (holds, does not hold) how many compared points that all learned. */
typedef struct {
    int verdict[VERDICT_UNDECIDED_BUDGET + 1];
    int decided_gated;
    int partial;            /* judged on the runs finished so far of a round still training */
    int rejudged;           /* verdicts today's tests changed from a history judged before issue 39 */
} Tally;

static int sweep_section(Store *s, const Preset *pr, const SweepRow *swp, int flags, ReportFigureFn figures,
                         void *ctx, Tally *tally, StrBuf *out, char *err);

static int one_preset(Store *s, const Preset *pr, int flags, ReportFigureFn figures, void *ctx, Tally *tally,
                      StrBuf *out, char *err)
{
    int markdown = flags & REPORT_MARKDOWN;
    if (markdown) sb_printf(out, "\n## %s (%s)\n\n%s\n", pr->name, pr->source, pr->what);
    else sb_printf(out, "\n%s (%s)\n  %s\n", pr->name, pr->source, pr->what);
    SweepRow sw;
    int found;
    if (results_newest_sweep(s, pr->name, &sw, &found, err)) return -1;
    if (!found) {
        sb_printf(out, "%snot run: no sweep of %s in this store (`mixbench sweep %s`)\n", markdown ? "\n" : "  ",
                  pr->name, pr->name);
        return 0;
    }
    return sweep_section(s, pr, &sw, flags, figures, ctx, tally, out, err);
}

/* Whether the sweep ran an earlier form of preset pr: an axis of the
   preset as it is now that its runs lack, or one of theirs it lacks (seed
   and trial aside).  Then *was gets the runs' axes ("n_ctx, data, arch"),
   so the section does not pass the preset's description off as theirs. */
static int preset_changed(const Preset *pr, const ResultRun *runs, int n, char *was, size_t cap)
{
    was[0] = 0;
    if (!pr || n == 0) return 0;
    Sweep now;
    char err[ERR_LEN];
    char *argv[1] = {(char *)pr->name};
    Config base;
    config_defaults(&base);
    memset(&now, 0, sizeof now);
    if (sweep_parse(1, argv, &base, &now, err)) return 0;   /* an unparsable preset says nothing here */
    int changed = 0;
    size_t len = 0;
    for (int k = 0; k < runs[0].n_coords; k++) {
        const char *key = runs[0].coords[k].key;
        if (!strcmp(key, "seed") || !strcmp(key, "trial")) continue;
        char quoted[80];
        snprintf(quoted, sizeof quoted, "\"%s\"", key);
        changed |= !strstr(now.axes, quoted);
        len += (size_t)snprintf(was + len, len < cap ? cap - len : 0, "%s%s", len ? ", " : "", key);
    }
    /* the preset's axes the runs lack */
    for (const char *q = strchr(now.axes, '"'); q && !changed; q = strchr(q, '"')) {
        const char *e = strchr(q + 1, '"');
        if (!e) break;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(e - q - 1), q + 1);
        int found = !strcmp(key, "seed") || !strcmp(key, "trial");
        for (int k = 0; k < runs[0].n_coords && !found; k++) found = !strcmp(runs[0].coords[k].key, key);
        changed |= !found;
        q = e + 1;
    }
    sweep_free(&now);
    return changed;
}

/* The body of sweep sw's section: how it was made, its figures, its
   table of points (mean +- se per seed group; a random search's trials
   best first), which knob matters; for a preset's (pr) its paper's
   settings and its claims' verdicts. */
static int sweep_section(Store *s, const Preset *pr, const SweepRow *swp, int flags, ReportFigureFn figures,
                         void *ctx, Tally *tally, StrBuf *out, char *err)
{
    int markdown = flags & REPORT_MARKDOWN;
    SweepRow sw = *swp;
    char name[64];   /* the preset's, else "sweepN": its figures' files */
    if (pr) snprintf(name, sizeof name, "%s", pr->name);
    else snprintf(name, sizeof name, "sweep%lld", (long long)sw.id);
    char until[96], tuned[512];
    double alpha;
    if (until_option(s, sw.id, until, sizeof until, &alpha, err) ||
        adaptive_tuned_summary(s, sw.id, tuned, sizeof tuned, err))
        return -1;
    ResultRun *runs = NULL;
    int n_runs = 0, n_all = 0;
    ResultRun *all = NULL;
    if (results_sweep_runs(s, sw.id, 0, &all, &n_all, err)) return -1;
    if (results_sweep_runs(s, sw.id, 1, &runs, &n_runs, err)) {
        free(all);
        return -1;
    }
    FigureRow *figs = NULL;
    int n_figs = 0;
    if (pr && results_paper_figures(s, pr->name, &figs, &n_figs, err)) {
        free(runs);
        free(all);
        return -1;
    }
    Point *pts = NULL;
    int np = 0;
    if (points_group(runs, n_runs, &pts, &np, NULL)) {
        free(runs);
        free(figs);
        free(all);
        return err_set(err, "report: out of memory");
    }
    if (n_all) sb_printf(out, "%ssweep %lld (%s): %d of %d jobs finished; made by\n", markdown ? "\n" : "  ",
                         (long long)sw.id, sw.created_at, n_runs, n_all);
    else sb_printf(out, "%ssweep %lld (%s): no jobs yet; made by\n", markdown ? "\n" : "  ", (long long)sw.id,
                   sw.created_at);
    sb_printf(out, markdown ? "\n    mixbench sweep %s%s\n" : "    mixbench sweep %s%s\n", sw.spec, until);
    char was[256];
    if (preset_changed(pr, runs, n_runs, was, sizeof was))
        sb_printf(out, markdown ? "\n**An earlier form of the preset** (axes %s): the description above is %s as it "
                                  "is now, not what this sweep ran; the line above is what it ran.\n"
                                : "  an earlier form of the preset (axes %s): the description above is %s as it is "
                                  "now, not what this sweep ran; the line above is what it ran\n",
                  was, pr->name);
    if (tuned[0]) sb_printf(out, "%s%s (lr=tune: successive halving on a log grid, experiments/adaptive.h)\n",
                            markdown ? "\n" : "  ", tuned);
    else if (n_runs && pr) sb_printf(out, "%slr fixed at %.3g for every run (the preset's own; a paper's lr belongs to its "
                                          "scale, not ours)\n", markdown ? "\n" : "  ", runs[0].lr);
    int rc = markdown && figures && n_runs ? figure_links(out, name, sw.id, figures, ctx, err) : 0;
    const char *preset = pr ? pr->name : "";
    int search = 0;
    for (int k = 0; n_runs && k < runs[0].n_coords; k++) search |= !strcmp(runs[0].coords[k].key, "trial");
    if (search && np) {
        PointMetric m = headline_metric(preset, runs, n_runs);
        pivot_sort_points(pts, np, m);
        sb_printf(out, "%sa random search: its %d trials (a seed group each), the best %s first\n",
                  markdown ? "\n" : "\n  ", np, point_metric_info(m)->label);
    }
    if (np) points_table(out, markdown, flags & REPORT_LOSS_BEST, preset, pts, np, figs, n_figs);
    if (np) solved_table(out, markdown, all, n_all, alpha);
    /* a long-context study: throughput and memory against n, what was not run and why */
    if (!rc && pr && lengths_sweep(preset, pts, np)) rc = lengths_section(s, all, n_all, pts, np, markdown, out, err);
    if (!rc && n_runs) rc = knobs(s, sw.id, preset, markdown, out, err);
    settings_list(out, markdown, figs, n_figs);
    ClaimNow *claims = NULL;
    int n_claims = 0;
    if (!rc && pr) rc = verdicts_now(s, pr->name, sw.id, &claims, &n_claims, err);
    int with_how = 0;
    for (int i = 0; i < n_claims; i++) with_how |= claims[i].how[0] != 0;
    if (!rc && n_claims) {
        /* the level every verdict of the sweep is taken at (its plan's
           alpha), spent over --until-conclusive's looks: this round's share */
        const ClaimResult *c0 = &claims[0].c;
        double alpha = c0->alpha;
        char look[160] = "";
        if (c0->looks)
            snprintf(look, sizeof look, ", spent over the rounds: round %d of at most %d, alpha %.2g at this look",
                     c0->look, c0->looks, alpha);
        sb_printf(out, markdown ? "\nVerdicts at alpha = %g%s; in brackets the %.3g%% intervals, whose ends are the "
                                  "one-sided %.3g%% bounds (docs/statistics.md).\n"
                                : "\n  Claims (verdicts at alpha = %g%s; in brackets the %.3g%% intervals, whose ends are "
                                  "the one-sided %.3g%% bounds):\n",
                  c0->looks ? c0->sweep_alpha : alpha, look, 100 * (1 - 2 * alpha), 100 * (1 - alpha));
        if (markdown)
            sb_append(out, with_how ? "\n| claim | verdict | numbers | how it was reached |\n|---|---|---|---|\n"
                                    : "\n| claim | verdict | numbers |\n|---|---|---|\n");
        for (int i = 0; i < n_claims; i++) {
            const ClaimResult *c = &claims[i].c;
            const char *how = claims[i].how;
            tally->verdict[c->verdict]++;
            tally->decided_gated += c->gated && (c->verdict == VERDICT_HOLDS || c->verdict == VERDICT_FAILS);
            tally->partial += claims[i].partial;
            tally->rejudged += claims[i].was[0] != 0;
            /* an undecided verdict with its reason */
            char why[sizeof c->reason + 4] = "";
            if (c->reason[0]) snprintf(why, sizeof why, markdown ? " (%s)" : "(%s) ", c->reason);
            /* a re-judged verdict with the one it replaces */
            char was[sizeof claims[i].was + 16] = "";
            if (claims[i].was[0]) snprintf(was, sizeof was, markdown ? " (was: %s)" : ", was: %s", claims[i].was);
            if (markdown && with_how)
                sb_printf(out, "| %s | **%s**%s%s | %s | %s |\n", c->claim, verdict_name(c->verdict), was, why,
                          c->numbers, how);
            else if (markdown)
                sb_printf(out, "| %s | **%s**%s%s | %s |\n", c->claim, verdict_name(c->verdict), was, why, c->numbers);
            else
                sb_printf(out, "  [%s%s] %s\n      %s%s%s%s\n", verdict_name(c->verdict), was, c->claim, why,
                          c->numbers, how[0] ? "\n      " : "", how);
        }
    }
    free(claims);
    free(pts);
    free(figs);
    free(runs);
    free(all);
    return rc;
}

/* Sweep sw's section, whatever it was queued from: a preset's as its
   preset's (on this sweep), else headed by its name and kind. */
static int any_sweep(Store *s, const SweepRow *sw, int flags, ReportFigureFn figures, void *ctx, Tally *tally,
                     StrBuf *out, char *err)
{
    char preset[64];
    snprintf(preset, sizeof preset, "%.*s", (int)strcspn(sw->preset, "@"), sw->preset);
    const Preset *pr = preset_find(preset);
    int markdown = flags & REPORT_MARKDOWN;
    if (pr && markdown) sb_printf(out, "\n## %s (%s)\n\n%s\n", pr->name, pr->source, pr->what);
    else if (pr) sb_printf(out, "\n%s (%s)\n  %s\n", pr->name, pr->source, pr->what);
    else sb_printf(out, markdown ? "\n## sweep %lld: %s (%s)\n" : "\nsweep %lld: %s (%s)\n", (long long)sw->id,
                   sw->name, strstr(sw->spec, "search=random") ? "a random search" : "a grid");
    return sweep_section(s, pr, sw, flags, figures, ctx, tally, out, err);
}

int report_sweep(Store *s, int64_t sweep_id, int flags, ReportFigureFn figures, void *ctx, StrBuf *out, char *err)
{
    assert(s && out && err);
    SweepRow sw;
    int found;
    if (studies_from_store(s, err) || results_sweep(s, sweep_id, &sw, &found, err)) return -1;
    if (!found) return err_set(err, "report: no sweep %lld in the store (mixbench ls lists them)", (long long)sweep_id);
    Tally tally = {{0}, 0, 0, 0};
    sb_append(out, flags & REPORT_MARKDOWN ? "# mixbench: one sweep's report\n"
                                           : "mixbench: one sweep's report (mean +- standard error over seeds, finished runs)\n");
    if (any_sweep(s, &sw, flags, figures, ctx, &tally, out, err)) return -1;
    return sb_ok(out) ? 0 : err_set(err, "report: out of memory");
}

int report_build(Store *s, const char *const *presets, int n_presets, int flags, StrBuf *out, char *err)
{
    return report_build_with_figures(s, presets, n_presets, flags, NULL, NULL, out, err);
}

int report_build_with_figures(Store *s, const char *const *presets, int n_presets, int flags,
                              ReportFigureFn figures, void *ctx, StrBuf *out, char *err)
{
    assert(err);
    int markdown = flags & REPORT_MARKDOWN;
    /* the studies stored with its sweeps, which this process may not know */
    if (s && studies_from_store(s, err)) return -1;
    for (int i = 0; i < n_presets; i++)
        if (!preset_find(presets[i])) return err_set(err, "report: unknown preset '%s'", presets[i]);
    sb_append(out, markdown ? "# mixbench: the seed papers' claims, reproduced\n"
                            : "mixbench: the seed papers' claims, reproduced\n");
    sb_append(out, markdown ? "\nOurs: mean +- standard error over seeds (runs that finished).  Each claim is "
                              "tested at its sweep's alpha by the test its kind needs (Welch's t, TOST on the ratio, "
                              "Holm over the points: docs/statistics.md); a verdict is \"undecided\" when its "
                              "interval decides neither way, with the reason.  \"N not "
                              "learned\" beside the seeds: N finished runs did not learn enough to judge a claim "
                              "on (best valid loss less than 0.3 nat below the unigram entropy; on the PairConnect "
                              "presets' scale, valid loss_all not below 2 p H).\n"
                            : "  ours: mean +- standard error over seeds (finished runs); each claim tested at its "
                              "sweep's alpha (docs/statistics.md), \"undecided\" with its reason; \"N not learned\": N runs short of "
                              "the claims' gate (0.3 nat under the unigram entropy; loss_all under 2 p H)\n");
    if (flags & REPORT_LOSS_BEST)
        sb_append(out, markdown ? "\nValid loss: each run's lowest evaluation (best_valid_loss) and its step "
                                  "(best_valid_step), not its last (`--loss best`).\n"
                                : "  valid loss: each run's lowest evaluation (best_valid_loss) and its step "
                                  "(best_valid_step), not its last (--loss best)\n");
    int shown = 0;
    Tally tally = {{0}, 0, 0, 0};
    StrBuf body;
    sb_init(&body);
    for (int i = 0; i < (n_presets ? n_presets : preset_count()); i++) {
        const Preset *pr = n_presets ? preset_find(presets[i]) : preset_at(i);
        if (!n_presets) {
            SweepRow sw;
            int found;
            if (results_newest_sweep(s, pr->name, &sw, &found, err)) {
                sb_free(&body);
                return -1;
            }
            if (!found) continue;
        }
        if (one_preset(s, pr, flags, figures, ctx, &tally, &body, err)) {
            sb_free(&body);
            return -1;
        }
        shown++;
    }
    /* the verdicts at a glance, before the sections */
    int claims = 0;
    for (int v = 0; v <= VERDICT_UNDECIDED_BUDGET; v++) claims += tally.verdict[v];
    if (claims) {
        static const Verdict order[] = {VERDICT_HOLDS, VERDICT_FAILS, VERDICT_UNDECIDED, VERDICT_UNDECIDED_BUDGET,
                                        VERDICT_NOT_RUN};
        sb_printf(out, markdown ? "\n**%d claim%s:** " : "  %d claim%s: ", claims, claims == 1 ? "" : "s");
        for (int k = 0, said = 0; k < 5; k++) {
            int n = tally.verdict[order[k]];
            const char *name = order[k] == VERDICT_HOLDS ? (n == 1 ? "holds" : "hold")
                               : order[k] == VERDICT_FAILS ? (n == 1 ? "does not hold" : "do not hold")
                                                           : verdict_name(order[k]);
            if (n) sb_printf(out, "%s%d %s", said++ ? ", " : "", n, name);
        }
        int decided = tally.verdict[VERDICT_HOLDS] + tally.verdict[VERDICT_FAILS];
        if (decided)
            sb_printf(out, "; of the %d decided, %d compare%s points that all learned and %d judge%s the unigram "
                           "level itself or speed, where no learning gate applies",
                      decided, tally.decided_gated, tally.decided_gated == 1 ? "s" : "", decided - tally.decided_gated,
                      decided - tally.decided_gated == 1 ? "s" : "");
        if (tally.partial)
            sb_printf(out, "; %d judged on the finished runs of a first round still training", tally.partial);
        if (tally.rejudged)
            sb_printf(out, "; %d re-judged: today's tests give another verdict than the rules before issue 39 "
                           "gave on the same runs (\"was:\" beside it, and why)", tally.rejudged);
        sb_append(out, markdown ? ".\n" : "\n");
    }
    int body_ok = sb_ok(&body);
    sb_append_len(out, body.data, body.len);
    sb_free(&body);
    if (!body_ok) return err_set(err, "report: out of memory");
    if (!shown && !n_presets) {   /* a store of grids and searches: every sweep's section */
        SweepRow *sweeps = NULL;
        int n = 0, rc = sweeps_read_latest(s, NULL, 0, REPORT_MAX_SWEEPS, &sweeps, &n, err);
        for (int i = 0; i < n && !rc; i++, shown++)
            rc = any_sweep(s, &sweeps[i], flags, figures, ctx, &tally, out, err);
        free(sweeps);
        if (rc) return -1;
    }
    if (!shown) sb_append(out, "\nno sweep has been queued in this store (`mixbench sweep PRESET` or a grid)\n");
    if (!sb_ok(out)) return err_set(err, "report: out of memory");
    return 0;
}
