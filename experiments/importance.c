/*
 * importance.c — the functional ANOVA of a sweep's grid (importance.h).
 * A cell's value y(x) splits into the grand mean, a main effect per axis
 * f_i(x_i) = mean(y | x_i) - mean, an interaction per pair f_ij(x_i, x_j)
 * = mean(y | x_i, x_j) - f_i - f_j - mean, and the rest; over a full grid
 * with every cell weighing the same these parts are orthogonal, so the
 * variance of y is the sum of theirs, and each part's variance over the
 * total is its share.
 */
#include "experiments/importance.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"

/* The value index of factor f in cell c (row-major, factor 0 slowest). */
static int level_of(const int *levels, int k, long c, int f)
{
    for (int i = k - 1; i > f; i--) c /= levels[i];
    return (int)(c % levels[f]);
}

/* means[l] = the mean of y over the cells where factor f is at level l. */
static void margin1(const int *levels, int k, long n, const double *y, int f, double *means)
{
    double count[PIVOT_MAX_VALUES] = {0};
    for (int l = 0; l < levels[f]; l++) means[l] = 0;
    for (long c = 0; c < n; c++) {
        int l = level_of(levels, k, c, f);
        means[l] += y[c];
        count[l]++;
    }
    for (int l = 0; l < levels[f]; l++) means[l] /= count[l];
}

/* Main effects eff[f][l] = mean(y | factor f at l) - grand. */
static void main_effects(const int *levels, int k, long n, const double *y, double grand,
                         double (*eff)[PIVOT_MAX_VALUES])
{
    for (int f = 0; f < k; f++) {
        margin1(levels, k, n, y, f, eff[f]);
        for (int l = 0; l < levels[f]; l++) eff[f][l] -= grand;
    }
}

static double mean_of(const double *y, long n)
{
    double sum = 0;
    for (long c = 0; c < n; c++) sum += y[c];
    return sum / (double)n;
}

/* Fills the cells without a value (missing[c]) with the additive model's:
   grand mean plus main effects, refitted until nothing moves (the fit
   converges to the least-squares additive fit of the observed cells). */
static void impute(const int *levels, int k, long n, double *y, const unsigned char *missing,
                   double (*eff)[PIVOT_MAX_VALUES])
{
    for (int iter = 0; iter < 500; iter++) {
        double grand = mean_of(y, n), moved = 0, scale = 0;
        main_effects(levels, k, n, y, grand, eff);
        for (long c = 0; c < n; c++) {
            scale = MB_MAX(scale, fabs(y[c]));
            if (!missing[c]) continue;
            double fit = grand;
            for (int f = 0; f < k; f++) fit += eff[f][level_of(levels, k, c, f)];
            moved = MB_MAX(moved, fabs(fit - y[c]));
            y[c] = fit;
        }
        if (moved <= 1e-13 * (scale > 0 ? scale : 1)) return;
    }
}

/* The variance of the interaction of factors a < b. */
static double pair_variance(const int *levels, int k, long n, const double *y, double grand,
                            double (*eff)[PIVOT_MAX_VALUES], int a, int b)
{
    int na = levels[a], nb = levels[b];
    double *sum = calloc((size_t)na * (size_t)nb, sizeof *sum);
    if (!sum) return NAN;
    for (long c = 0; c < n; c++) sum[level_of(levels, k, c, a) * nb + level_of(levels, k, c, b)] += y[c];
    double per = (double)n / (double)(na * nb), var = 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            double f = sum[i * nb + j] / per - eff[a][i] - eff[b][j] - grand;
            var += f * f;
        }
    free(sum);
    return var / (double)(na * nb);
}

int importance_grid(const int *levels, int k, const double *cells, Importance *out, char *err)
{
    assert(levels && cells && out && err && k > 0 && k <= IMP_MAX_FACTORS);
    long n = 1;
    for (int f = 0; f < k; f++) {
        assert(levels[f] >= 2 && levels[f] <= PIVOT_MAX_VALUES);
        n *= levels[f];
        if (n > IMP_MAX_CELLS) return err_set(err, "the grid has more than %d cells", IMP_MAX_CELLS);
    }
    double *y = malloc((size_t)n * sizeof *y);
    unsigned char *missing = malloc((size_t)n);
    double(*eff)[PIVOT_MAX_VALUES] = calloc(IMP_MAX_FACTORS, sizeof *eff);
    if (!y || !missing || !eff) {
        free(y), free(missing), free(eff);
        return err_set(err, "importance: out of memory");
    }
    int observed = 0;
    double sum = 0;
    for (long c = 0; c < n; c++) {
        missing[c] = !isfinite(cells[c]);
        observed += !missing[c];
        sum += missing[c] ? 0 : cells[c];
    }
    out->n_factors = k;
    out->n_cells = (int)n;
    out->n_observed = observed;
    out->n_imputed = (int)n - observed;
    if (observed < 2 || 2 * (long)observed < n) {
        free(y), free(missing), free(eff);
        return err_set(err, "%d of %ld cells have a value: importance needs at least half of them", observed, n);
    }
    for (long c = 0; c < n; c++) y[c] = missing[c] ? sum / observed : cells[c];
    if (observed < n) impute(levels, k, n, y, missing, eff);
    double grand = mean_of(y, n), total = 0, explained = 0;
    for (long c = 0; c < n; c++) total += (y[c] - grand) * (y[c] - grand);
    total /= (double)n;
    main_effects(levels, k, n, y, grand, eff);
    out->variance = total;
    memset(out->main, 0, sizeof out->main);
    memset(out->pair, 0, sizeof out->pair);
    for (int f = 0; f < k && total > 0; f++) {
        double v = 0;
        for (int l = 0; l < levels[f]; l++) v += eff[f][l] * eff[f][l];
        out->main[f] = v / levels[f] / total;
        explained += out->main[f];
    }
    for (int a = 0; a < k && total > 0; a++)
        for (int b = a + 1; b < k; b++) {
            out->pair[a][b] = pair_variance(levels, k, n, y, grand, eff, a, b) / total;
            explained += out->pair[a][b];
        }
    /* rounding may leave a hair below zero */
    out->higher = total > 0 ? MB_MAX(0.0, 1.0 - explained) : 0;
    free(y), free(missing), free(eff);
    return 0;
}

int importance_of_pivot(const Pivot *p, PointMetric m, Importance *out, char *err)
{
    assert(p && out && err);
    memset(out, 0, sizeof *out);
    /* the knobs: axes with two values or more, but seed; an axis whose
       values follow from an earlier knob's, or the other way round (zipped:
       "(d,lr)=(64,1e-3),(128,1e-3),(256,5e-4)"), joins it: crossing them
       would leave cells that no job is at.  A knob's values are those of
       its finest axis. */
    int axis_of[IMP_MAX_FACTORS], factor_of[PIVOT_MAX_AXES], levels[IMP_MAX_FACTORS], k = 0;
    for (int a = 0; a < p->n_axes; a++) {
        factor_of[a] = -1;
        if (!strcmp(p->axis[a], "seed") || p->n_values[a] < 2) continue;
        for (int f = 0; f < k && factor_of[a] < 0; f++)
            if (pivot_determined_by(p, a, axis_of[f]) || pivot_determined_by(p, axis_of[f], a)) factor_of[a] = f;
        if (factor_of[a] >= 0) {
            int f = factor_of[a];
            if (!pivot_determined_by(p, a, axis_of[f])) axis_of[f] = a, levels[f] = p->n_values[a];
            size_t len = strlen(out->factor[f]);
            snprintf(out->factor[f] + len, sizeof out->factor[0] - len, ",%s", p->axis[a]);
            continue;
        }
        if (k == IMP_MAX_FACTORS) return err_set(err, "more than %d axes", IMP_MAX_FACTORS);
        factor_of[a] = k;
        axis_of[k] = a;
        levels[k] = p->n_values[a];
        snprintf(out->factor[k], sizeof out->factor[0], "%s", p->axis[a]);
        k++;
    }
    if (k == 0) return err_set(err, "no axis of this sweep but seed has two values: nothing to compare");
    long n = 1;
    for (int f = 0; f < k; f++)
        if ((n *= levels[f]) > IMP_MAX_CELLS) return err_set(err, "the grid has more than %d cells", IMP_MAX_CELLS);
    double *sum = calloc((size_t)n, sizeof *sum), *count = calloc((size_t)n, sizeof *count);
    double *sumsq = calloc((size_t)n, sizeof *sumsq);
    if (!sum || !count || !sumsq) {
        free(sum), free(count), free(sumsq);
        return err_set(err, "importance: out of memory");
    }
    for (int i = 0; i < p->n_runs; i++) {
        double v = result_metric(&p->runs[i], m);
        if (p->runs[i].state != RUN_DONE || !isfinite(v)) continue;
        long c = 0;
        for (int f = 0; f < k && c >= 0; f++)
            c = p->coord[i][axis_of[f]] < 0 ? -1 : c * levels[f] + p->coord[i][axis_of[f]];
        if (c < 0) continue;
        sum[c] += v;
        sumsq[c] += v * v;
        count[c]++;
        out->n_runs++;
    }
    /* seed noise: the pooled variance within cells, over each cell's count */
    double within = 0, dof = 0, inverse = 0;
    int observed = 0;
    for (long c = 0; c < n; c++) {
        if (count[c] == 0) continue;
        observed++;
        inverse += 1 / count[c];
        if (count[c] > 1) within += MB_MAX(0.0, sumsq[c] - sum[c] * sum[c] / count[c]), dof += count[c] - 1;
    }
    for (long c = 0; c < n; c++) sum[c] = count[c] > 0 ? sum[c] / count[c] : NAN;
    int rc = importance_grid(levels, k, sum, out, err);
    for (int f = 0; f < k; f++) out->levels[f] = levels[f];
    out->noise = dof > 0 && out->variance > 0 ? within / dof * inverse / observed / out->variance : NAN;
    free(sum), free(count), free(sumsq);
    return rc;
}

typedef struct {
    double share;
    int a, b;                    /* b -1: a main effect */
} Effect;

void importance_summary(const Importance *imp, int max, char *out, size_t cap)
{
    assert(imp && out);
    Effect e[IMP_MAX_FACTORS * (IMP_MAX_FACTORS + 1) / 2 + 1];
    int n = 0;
    for (int a = 0; a < imp->n_factors; a++) {
        e[n++] = (Effect){imp->main[a], a, -1};
        for (int b = a + 1; b < imp->n_factors; b++) e[n++] = (Effect){imp->pair[a][b], a, b};
    }
    if (imp->n_factors > 2) e[n++] = (Effect){imp->higher, -1, -1};
    for (int i = 1; i < n; i++) /* insertion sort, largest first */
        for (int j = i; j > 0 && e[j].share > e[j - 1].share; j--) {
            Effect t = e[j];
            e[j] = e[j - 1];
            e[j - 1] = t;
        }
    size_t len = 0;
    out[0] = 0;
    int shown = 0;
    for (int i = 0; i < n && len < cap; i++) {
        if (e[i].share < 0.005) continue;
        if (shown == max) {
            snprintf(out + len, cap - len, ", ...");
            return;
        }
        char name[200];
        if (e[i].a < 0) snprintf(name, sizeof name, "higher");
        else if (e[i].b < 0) snprintf(name, sizeof name, "%s", imp->factor[e[i].a]);
        else snprintf(name, sizeof name, "%s x %s", imp->factor[e[i].a], imp->factor[e[i].b]);
        len += (size_t)snprintf(out + len, cap - len, "%s%s %.0f%%", shown ? ", " : "", name, 100 * e[i].share);
        shown++;
    }
    if (!shown)
        snprintf(out, cap, "%s", imp->variance > 0 ? "no effect above 0.5%" : "the metric is the same in every cell");
}

void importance_noise_text(const Importance *imp, int brief, char *out, size_t cap)
{
    assert(imp && out);
    if (!isfinite(imp->noise)) snprintf(out, cap, "%s", "");
    else if (imp->noise < 1)
        snprintf(out, cap, brief ? "seed noise alone %.0f%%" : "seed noise alone would make %.0f%% of this variance",
                 100 * imp->noise);
    else
        snprintf(out, cap,
                 brief ? "seed noise alone %.1fx this: within noise"
                       : "seed noise alone would make %.1f times this variance: the cells do not differ beyond "
                         "seed noise, and the shares above say nothing",
                 imp->noise);
}
