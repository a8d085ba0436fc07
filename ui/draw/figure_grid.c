/*
 * figure_grid.c — the Grid figure (figure_build.h): a sweep laid out on two
 * of its axes by experiments/pivot.h, each cell the seed statistics of one
 * metric (experiments/points.h's table) with the paper's figure where the
 * store has one, shaded worse to better, the best outlined; the claims'
 * verdicts (experiments/verdicts.h) under it; a random search (no grid:
 * its drawn values) as its parallel coordinates instead
 * (figure_parallel.c).  Also what the figures share:
 * a sweep name's preset, the verdict lines, and where a screen's figure
 * goes.
 */
#include "ui/draw/figure_build.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "experiments/claims.h"
#include "experiments/pivot.h"
#include "experiments/points.h"
#include "experiments/study.h"
#include "experiments/sweep.h"
#include "experiments/verdicts.h"
#include "ui/draw/heatmap.h"

void figure_sweep_preset(const char *sweep_name, char *out, size_t cap)
{
    snprintf(out, cap, "%.*s", (int)strcspn(sweep_name, "@"), sweep_name);
}

int figure_load_sweep(Store *s, int64_t sweep_id, SweepRow *sw, char preset[64], char *err)
{
    assert(s && sw && preset && err);
    int found;
    if (results_sweep(s, sweep_id, sw, &found, err)) return -1;
    if (!found) return err_set(err, "no sweep %lld in the store", (long long)sweep_id);
    figure_sweep_preset(sw->preset, preset, 64);
    /* the studies stored with the store's sweeps: a study file's claims as
       it was queued, even where the file is gone (study_of_sweep) */
    return studies_from_store(s, err);
}

void figure_path_beside(const char *db_path, const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(db_path, '/'), *base = slash ? slash + 1 : db_path;
    const char *dot = strrchr(base, '.');
    int stem = dot && dot > base ? (int)(dot - base) : (int)strlen(base);
    snprintf(out, cap, "%.*s%.*s-%s.svg", slash ? (int)(base - db_path) : 0, db_path, stem, base, name);
}

int figure_add_verdicts(Figure *f, Store *s, const char *sweep_name, int64_t sweep_id, char *err)
{
    char preset[64];
    const Preset *study;
    figure_sweep_preset(sweep_name, preset, sizeof preset);
    if (study_of_sweep(s, sweep_name, &study, err)) return -1;
    if (!study) return 0;
    ClaimNow *claims = NULL;
    int n = 0;
    if (verdicts_now(s, preset, sweep_id, &claims, &n, err)) return -1;
    int rc = n && figure_footer(f, FIG_TONE_PLAIN, "The papers' claims, judged on this sweep:");
    for (int i = 0; i < n && !rc; i++) {
        const ClaimResult *c = &claims[i].c;
        Verdict v = c->verdict;
        FigTone tone = v == VERDICT_HOLDS ? FIG_TONE_GOOD : v == VERDICT_FAILS ? FIG_TONE_BAD
                       : v == VERDICT_NOT_RUN ? FIG_TONE_DIM : FIG_TONE_WARN;
        rc = figure_footer(f, tone, "%s: %s (%s%s%s)", verdict_name(v), c->claim, claims[i].training,
                           claims[i].training[0] ? ": " : "", c->numbers);
    }
    free(claims);
    return rc ? err_set(err, "figure: out of memory") : 0;
}

const char *figure_metric_unit(int m)
{
    switch ((PointMetric)m) {
    case PM_TEST_PERPLEXITY: return "perplexity";
    case PM_TEST_ACCURACY: return "fraction of tokens";
    case PM_ANSWER_ACCURACY: return "fraction of answers";
    case PM_TOKENS_PER_S: return "training tokens/s";
    case PM_SAMPLES_PER_S: return "samples/s, batch 1, one thread";
    case PM_TOKENS: return "tokens";
    case PM_WALL: return "seconds";
    case PM_BEST_VALID_STEP: return "step";
    default: return "nats per token";
    }
}

/* The row and column axes: named, else the default view's
   (experiments/pivot.h pivot_default_axes); with arch_across (the
   report's) arch across, else the first axis that may go, and the rows
   the next. */
static int choose_axes(const Pivot *p, const GridView *v, int arch_across, const int *fixed_at, int *row, int *col,
                       char *err)
{
    const char *names[2] = {v->rows, v->cols};
    int *which[2] = {row, col};
    for (int k = 0; k < 2; k++) {
        *which[k] = -1;
        if (!names[k]) continue;
        *which[k] = pivot_axis(p, names[k]);
        if (*which[k] < 0) {
            char axes[512] = "";
            for (int a = 0; a < p->n_axes; a++)
                snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", a ? " " : "", p->axis[a]);
            return err_set(err, "sweep %lld has no axis '%s' (its axes: %s)", (long long)v->sweep_id, names[k], axes);
        }
        if (fixed_at[*which[k]] >= 0) return err_set(err, "axis %s is fixed at a value: it cannot be a %s", names[k], k ? "column" : "row");
    }
    int arch = pivot_axis(p, "arch");
    if (arch_across && !v->cols && arch >= 0 && pivot_table_axis(p, arch, fixed_at, *row)) *col = arch;
    for (int a = 0; a < p->n_axes && arch_across && *col < 0 && !v->cols; a++)
        if (pivot_table_axis(p, a, fixed_at, *row)) *col = a;
    pivot_default_axes(p, fixed_at, row, col);
    if (*row >= 0 && *row == *col) return err_set(err, "rows and columns are the same axis '%s'", p->axis[*row]);
    return 0;
}

/* fixed_at of the words "key=value" of at ("key=all": averaged); the
   other axes stay averaged (-1). */
static int fix_axes(const Pivot *p, const char *at, int *fixed_at, char *err)
{
    for (int a = 0; a < PIVOT_MAX_AXES; a++) fixed_at[a] = -1;
    for (const char *w = at ? at : ""; *w;) {
        w += strspn(w, " ");
        size_t len = strcspn(w, " ");
        if (!len) break;
        char word[256], *eq;
        snprintf(word, sizeof word, "%.*s", (int)len, w);
        w += len;
        if (!(eq = strchr(word, '='))) return err_set(err, "'%s': fix an axis as key=value", word);
        *eq = 0;
        int a = pivot_axis(p, word), found = -1;
        if (a < 0) return err_set(err, "the sweep has no axis '%s'", word);
        if (!strcmp(eq + 1, "all")) continue;   /* KEY=all: averaged over */
        for (int i = 0; i < p->n_values[a] && found < 0; i++)
            if (heat_same_value(p->values[a][i], eq + 1)) found = i;
        if (found < 0) return err_set(err, "axis %s has no value '%s'", word, eq + 1);
        fixed_at[a] = found;
    }
    return 0;
}

/* A cell's text: "5.123", "5.123 ± 0.010" (the se to the mean's decimals),
   and its second line: what stands beside the metric (beside: its cell,
   NULL for another metric; the best valid loss's step, or an answer
   accuracy's test loss: beside_m), the paper's figure, what is pending or
   stopped. */
static void cell_text(const PivotCell *c, const PivotCell *beside, PointMetric beside_m, int show_n, int flag,
                      FigCell *out)
{
    if (c->n_value) {
        heat_format(c->stats.mean, 4, out->value, sizeof out->value);
        const char *dot = strchr(out->value, '.');
        int decimals = dot && strspn(dot + 1, "0123456789") == strlen(dot + 1) ? (int)strlen(dot + 1) : -1;
        size_t len = strlen(out->value);
        if (c->n_value > 1 && decimals >= 0)
            snprintf(out->value + len, sizeof out->value - len, " ± %.*f", decimals, c->stats.se);
        else if (c->n_value > 1)
            snprintf(out->value + len, sizeof out->value - len, " ± %.2g", c->stats.se);
        out->shade = c->stats.mean;
    } else if (c->n_pending) {
        snprintf(out->value, sizeof out->value, "… %s", c->pending);
    } else if (c->n_runs) {
        snprintf(out->value, sizeof out->value, "%s", c->stopped);
    }
    char paper[32] = "";
    if (!isnan(c->paper)) heat_format(c->paper, 4, paper, sizeof paper);
    int len = 0;
    char loss[32] = "";
    if (beside && beside->n_value && beside_m != PM_BEST_VALID_STEP) heat_format(beside->stats.mean, 4, loss, sizeof loss);
    if (beside && beside->n_value && beside_m == PM_BEST_VALID_STEP)
        len = snprintf(out->detail, sizeof out->detail, "at step %.0f", beside->stats.mean);
    else if (loss[0])
        len = snprintf(out->detail, sizeof out->detail, "test loss %s", loss);
    if (show_n && c->n_value)
        len += snprintf(out->detail + len, sizeof out->detail - (size_t)len, "%sn%d", len ? ", " : "", c->n_value);
    if (flag && c->n_unlearned) /* its mean is no claim's evidence */
        len += snprintf(out->detail + len, sizeof out->detail - (size_t)len, "%s! %d not learned", len ? ", " : "",
                        c->n_unlearned);
    if (c->n_value && c->n_pending)
        len += snprintf(out->detail + len, sizeof out->detail - (size_t)len, "%s%d pending", len ? ", " : "",
                        c->n_pending);
    if (paper[0]) snprintf(out->detail + len, sizeof out->detail - (size_t)len, "%spaper %s", len ? ", " : "", paper);
}

/* The heatmap of the cells, with its labels. */
static int fill_heatmap(Figure *f, const Pivot *p, int row, int col, PointMetric m, const PivotCell *cells,
                        const PivotCell *beside, PointMetric beside_m, char *err)
{
    int rows = row >= 0 ? p->n_values[row] : 1, cols = col >= 0 ? p->n_values[col] : 1;
    FigHeatmap *h = figure_set_heatmap(f, rows, cols);
    if (!h) return err_set(err, "figure: out of memory");
    const PointMetricInfo *info = point_metric_info(m);
    snprintf(h->row_axis, sizeof h->row_axis, "%s", row >= 0 ? p->axis[row] : "");
    snprintf(h->col_axis, sizeof h->col_axis, "%s", col >= 0 ? p->axis[col] : "");
    snprintf(h->scale_label, sizeof h->scale_label, "%s (%s; %s is better)", info->label, figure_metric_unit(m),
             info->higher_better ? "higher" : "lower");
    h->higher_better = info->higher_better;
    for (int r = 0; r < rows; r++) {
        if (row >= 0) pivot_value_label(p, row, r, h->row_labels[r], FIG_LABEL_LEN);
        else snprintf(h->row_labels[r], FIG_LABEL_LEN, "%s", info->label);
    }
    for (int c = 0; c < cols; c++) {
        if (col >= 0) pivot_value_label(p, col, c, h->col_labels[c], FIG_LABEL_LEN);
        else h->col_labels[c][0] = 0;
    }
    int common = -1, show_n = 0, flagged = 0;
    for (int i = 0; i < rows * cols; i++) {
        if (!cells[i].n_value) continue;
        if (common < 0) common = cells[i].n_value;
        show_n |= common != cells[i].n_value;
    }
    double *means = malloc((size_t)rows * (size_t)cols * sizeof *means);
    if (!means) return err_set(err, "figure: out of memory");
    for (int i = 0; i < rows * cols; i++) {
        cell_text(&cells[i], beside ? &beside[i] : NULL, beside_m, show_n, info->learned, &h->cells[i]);
        flagged |= info->learned && cells[i].n_unlearned;
        means[i] = cells[i].n_value ? cells[i].stats.mean : NAN;
    }
    int best = heat_best(means, rows * cols, info->higher_better);
    if (best >= 0) h->cells[best].best = 1;
    free(means);
    /* the colours run from the worst mean to the best whatever their
       spread: say which cells the seeds cannot tell from the best (the
       claims' margin, Welch's t at 95%) */
    int tied = pivot_tied_with_best(cells, rows * cols, best);
    if (tied && figure_note(f, FIG_TONE_DIM, "%d cell%s within seed noise of the best (Welch's t at 95%%, as the claims): "
                                             "the colours order the means, they do not tell %s apart",
                            tied, tied == 1 ? "" : "s", tied == 1 ? "the two" : "them"))
        return err_set(err, "figure: out of memory");
    if (common > 1 && !show_n && figure_note(f, FIG_TONE_DIM, "each cell: the mean ± standard error of its %d runs (seeds)", common))
        return err_set(err, "figure: out of memory");
    if (flagged && figure_note(f, FIG_TONE_BAD, "! not learned: runs short of the claims' gate, best valid loss 0.3 nat "
                                                 "below the data's unigram entropy (loss_all: under 2 p H); a mean of "
                                                 "theirs is no claim's evidence"))
        return err_set(err, "figure: out of memory");
    return 0;
}

/* "rows: layers, columns: heads; averaged over: seed" and the paper's
   setting; an axis zipped with a shown one ("(arch,heads)=...") has one
   value per cell, so it is "heads with arch", not averaged. */
static int grid_notes(Figure *f, const Pivot *p, int row, int col, const int *fixed_at, const FigureRow *figs,
                      int n_figs, const char *want, char *err)
{
    char text[1024];
    int len = snprintf(text, sizeof text, "%s%s%s%s", row >= 0 ? "rows: " : "", row >= 0 ? p->axis[row] : "",
                       row >= 0 ? ", columns: " : "columns: ", col >= 0 ? p->axis[col] : "-");
    static const char *const heads[3] = {"; averaged over: ", "; fixed at: ", "; "};
    for (int pass = 0; pass < 3; pass++) {
        int first = 1;
        for (int a = 0; a < p->n_axes && len < (int)sizeof text; a++) {
            int with = pivot_follows(p, a, row, col);
            int kind = fixed_at[a] >= 0 ? 1 : with >= 0 ? 2 : 0;
            if (a == row || a == col || kind != pass) continue;
            len += snprintf(text + len, sizeof text - (size_t)len, "%s%s", first ? heads[pass] : ", ", p->axis[a]);
            if (pass == 1) len += snprintf(text + len, sizeof text - (size_t)len, "=%s", p->values[a][fixed_at[a]]);
            if (pass == 2) len += snprintf(text + len, sizeof text - (size_t)len, " with %s", p->axis[with]);
            first = 0;
        }
    }
    int rc = figure_note(f, FIG_TONE_PLAIN, "%s", text);
    for (int i = 0; i < n_figs && !rc && want; i++) {
        int seen = strcmp(figs[i].metric, want) != 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(figs[j].metric, want) && !strcmp(figs[j].setting, figs[i].setting);
        if (!seen)
            rc = figure_note(f, FIG_TONE_DIM, "paper %s (a cell's second line): %s", figs[i].setting[0] ? figs[i].setting : "-",
                             figs[i].setting_text[0] ? figs[i].setting_text : figs[i].note);
    }
    return rc ? err_set(err, "figure: out of memory") : 0;
}

/* figure_grid, arch across when arch_across (figure_grid_report). */
static int grid_view(Store *s, const GridView *v, int arch_across, Figure *f, char *err)
{
    assert(s && v && f && err);
    figure_init(f);
    SweepRow sw;
    Pivot p;
    char preset[64];
    if (figure_load_sweep(s, v->sweep_id, &sw, preset, err) || pivot_load(s, v->sweep_id, &p, err)) return -1;
    if (pivot_is_search(&p) && !v->rows && !v->cols) {
        /* a random search's drawn values make no grid: its trials as
           parallel coordinates, a line per seed group coloured by the metric */
        pivot_free(&p);
        ParallelView pv = {v->sweep_id, v->metric, 1, NULL};
        return figure_parallel(s, &pv, f, err);
    }
    int is_preset = preset_find(preset) != NULL;
    PointMetric m = v->metric >= 0 && v->metric < PM_COUNT ? (PointMetric)v->metric
                                                           : headline_metric(is_preset ? preset : NULL, p.runs, p.n_runs);
    int row = -1, col = -1, fixed_at[PIVOT_MAX_AXES];
    FigureRow *figs = NULL;
    int n_figs = 0;
    PivotCell *cells = NULL;
    int rc = fix_axes(&p, v->at, fixed_at, err);
    if (!rc) rc = choose_axes(&p, v, arch_across, fixed_at, &row, &col, err);
    /* no --at: the Grid screen's view, each free axis at its first value */
    if (!rc && !v->at) pivot_default_fixed(&p, row, col, fixed_at);
    if (!rc && is_preset) rc = results_paper_figures(s, preset, &figs, &n_figs, err);
    int kept = 0;   /* a figure without a value says nothing */
    for (int i = 0; i < n_figs; i++)
        if (!isnan(figs[i].value)) figs[kept++] = figs[i];
    const char *want = is_preset ? paper_metric_beside(preset, m) : NULL;
    int rows = row >= 0 ? p.n_values[row] : 1, cols = col >= 0 ? p.n_values[col] : 1;
    if (!rc && !(cells = calloc((size_t)rows * (size_t)cols, sizeof *cells))) rc = err_set(err, "figure: out of memory");
    if (!rc) pivot_cells(&p, row, col, fixed_at, m, figs, kept, want, cells);
    /* under each cell: the best valid loss's (mean) step, an answer
       accuracy's test loss */
    PointMetric beside_m = m == PM_BEST_VALID_LOSS ? PM_BEST_VALID_STEP : m == PM_ANSWER_ACCURACY ? PM_TEST_LOSS : PM_COUNT;
    PivotCell *steps = !rc && beside_m != PM_COUNT ? calloc((size_t)rows * (size_t)cols, sizeof *steps) : NULL;
    if (steps) pivot_cells(&p, row, col, fixed_at, beside_m, NULL, 0, NULL, steps);
    snprintf(f->title, sizeof f->title, "Grid: sweep %lld %s, %s", (long long)v->sweep_id, sw.name,
             point_metric_info(m)->label);
    if (!rc) rc = grid_notes(f, &p, row, col, fixed_at, figs, kept, want, err);
    if (!rc) rc = fill_heatmap(f, &p, row, col, m, cells, steps, beside_m, err);
    if (!rc && figure_note(f, FIG_TONE_DIM, "made by mixbench sweep %s", sw.spec)) rc = err_set(err, "figure: out of memory");
    if (!rc) rc = figure_add_verdicts(f, s, sw.preset, v->sweep_id, err);
    free(cells);
    free(steps);
    free(figs);
    pivot_free(&p);
    if (rc) figure_free(f);
    return rc;
}

int figure_grid(Store *s, const GridView *v, Figure *f, char *err) { return grid_view(s, v, 0, f, err); }

int figure_grid_report(Store *s, const GridView *v, Figure *f, char *err) { return grid_view(s, v, 1, f, err); }
