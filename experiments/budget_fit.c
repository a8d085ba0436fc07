/*
 * budget_fit.c — budget_fit.h: the compared points' curves read from the
 * store (db/results.h, db/runs_read.h) and fitted (curve_fit.h).
 */
#include "experiments/budget_fit.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "db/runs_read.h"
#include "engine/common.h"
#include "experiments/format.h"
#include "experiments/points.h"

/* Appends run_id's valid evaluations (tokens > 0) to *t, *y. */
static int add_curve(Store *s, int64_t run_id, double **t, double **y, int *n, int *cap, char *err)
{
    RunCurvePoint *pts = NULL;
    int np = 0;
    if (runs_read_curve(s, run_id, RUN_CURVE_VALID, 0, 0, &pts, &np, err)) return -1;
    for (int i = 0; i < np; i++) {
        if (!(pts[i].tokens > 0) || !isfinite(pts[i].value)) continue;
        if (*n == *cap) {
            int want = *cap ? 2 * *cap : 64;
            double *nt = realloc(*t, (size_t)want * sizeof *nt);
            if (nt) *t = nt;
            double *ny = nt ? realloc(*y, (size_t)want * sizeof *ny) : NULL;
            if (ny) *y = ny;
            if (!nt || !ny) {
                free(pts);
                return err_set(err, "budget fit: out of memory");
            }
            *cap = want;
        }
        (*t)[*n] = pts[i].tokens;
        (*y)[*n] = pts[i].value;
        (*n)++;
    }
    free(pts);
    return 0;
}

int budget_fit_point(Store *s, long long sweep_id, const char *selector, CurveFit *out, int *ok, char *err)
{
    assert(s && selector && out && ok && err);
    *ok = 0;
    ResultRun *runs = NULL;
    Point *pts = NULL;
    int nr = 0, np = 0, rc = 0;
    if (results_sweep_runs(s, sweep_id, 1, &runs, &nr, err)) return -1;
    int *owner = nr ? malloc((size_t)nr * sizeof *owner) : NULL;
    if (nr && !owner) rc = err_set(err, "budget fit: out of memory");
    if (!rc && nr) rc = points_group(runs, nr, &pts, &np, owner) ? err_set(err, "budget fit: out of memory") : 0;
    double *t = NULL, *y = NULL;
    int n = 0, cap = 0;
    for (int i = 0; !rc && i < nr; i++)
        if (owner[i] >= 0 && point_select(&pts[owner[i]], selector))
            rc = add_curve(s, runs[i].run_id, &t, &y, &n, &cap, err);
    if (!rc && n >= 4) {
        char fit_err[256];
        *ok = curve_fit(t, y, n, out, fit_err) == 0;
    }
    free(t);
    free(y);
    free(owner);
    free(pts);
    free(runs);
    return rc;
}

/* "the mixer" for a point of arch mixer; else its selector. */
static void name_of(Store *s, long long sweep_id, const char *selector, char *out, size_t cap)
{
    const char *arch = strstr(selector, "arch=");
    if (arch) {
        int len = (int)strcspn(arch + 5, " ");
        snprintf(out, cap, "%.*s", len, arch + 5);
    } else {
        snprintf(out, cap, "%s", selector);
    }
    (void)s, (void)sweep_id;
}

int budget_fit_claim(Store *s, long long sweep_id, const ClaimResult *c, char *out, size_t cap, int *bound,
                     double *cross, char *err)
{
    assert(s && c && out && bound && cross && err);
    out[0] = 0;
    *bound = 0;
    *cross = 0;
    size_t len = 0;
    for (int i = 0; i < c->n_pairs && len + 1 < cap; i++) {
        CurveFit f[2];
        int ok[2];
        for (int k = 0; k < 2; k++)
            if (budget_fit_point(s, sweep_id, c->pair[i][k], &f[k], &ok[k], err)) return -1;
        if (!ok[0] || !ok[1]) continue;
        double budget = fmax(f[0].t_ref, f[1].t_ref);
        double at = 10 * budget, gap = curve_predict(&f[0], at) - curve_predict(&f[1], at);
        double se = hypot(curve_predict_se(&f[0], at), curve_predict_se(&f[1], at));
        char tok[32], names[2][128], where[32];
        fmt_short(at, tok, sizeof tok);
        name_of(s, sweep_id, c->pair[i][0], names[0], sizeof names[0]);
        name_of(s, sweep_id, c->pair[i][1], names[1], sizeof names[1]);
        if (!strcmp(names[0], names[1])) {
            snprintf(names[0], sizeof names[0], "%s", c->pair[i][0]);
            snprintf(names[1], sizeof names[1], "%s", c->pair[i][1]);
        }
        len += (size_t)snprintf(out + len, cap - len, "%sfit at %s tokens (10x): %s - %s %.3f +- %.3f",
                                len ? "; " : "", tok, names[0], names[1], gap, se);
        double x = curve_crossing(&f[0], &f[1], budget, 100 * budget);
        if (x > 0 && len + 1 < cap) {
            /* the one above at the budget is the one that overtakes */
            int up = curve_predict(&f[0], budget) > curve_predict(&f[1], budget) ? 0 : 1;
            fmt_short(x, where, sizeof where);
            len += (size_t)snprintf(out + len, cap - len, "; %s overtakes %s near %s tokens (fit)", names[up],
                                    names[1 - up], where);
            if (x <= 10 * budget && !*bound) {
                *bound = 1;
                *cross = x;
            }
        }
        if (len >= cap) len = cap - 1;
    }
    return 0;
}
