/*
 * run_curve.c — incremental loading of a run's train and valid loss curves
 * (ui/draw/run_curve.h).  Each update asks the store (db/runs_read.h) for
 * the points past the last step it holds, by the primary keys of metrics
 * and evals.
 */
#include "ui/draw/run_curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs_read.h"
#include "engine/common.h"
#include "experiments/stats.h"

const char *curve_axis_name(CurveAxis axis)
{
    static const char *const names[CURVE_X_COUNT] = {"steps", "tokens", "wall seconds"};
    return axis >= 0 && axis < CURVE_X_COUNT ? names[axis] : "?";
}

void run_curve_init(RunCurve *c, int64_t run_id)
{
    memset(c, 0, sizeof *c);
    c->run_id = run_id;
}

static void points_free(CurvePoints *p)
{
    for (int a = 0; a < CURVE_X_COUNT; a++) free(p->x[a]);
    free(p->loss);
    memset(p, 0, sizeof *p);
}

void run_curve_free(RunCurve *c)
{
    points_free(&c->train);
    points_free(&c->valid);
}

/* Appends the points past p->last_step of one curve. */
static int load_after(Store *st, int64_t run_id, RunCurveKind kind, CurvePoints *p, char *err)
{
    RunCurvePoint *rows;
    int n;
    if (runs_read_curve(st, run_id, kind, p->last_step, 0, &rows, &n, err)) return -1;
    if (p->n + n > p->cap) {
        int cap = p->cap ? p->cap : 256;
        while (cap < p->n + n) cap *= 2;
        for (int k = 0; k <= CURVE_X_COUNT; k++) {
            double **arr = k < CURVE_X_COUNT ? &p->x[k] : &p->loss;
            double *grown = realloc(*arr, (size_t)cap * sizeof **arr);
            if (!grown) {
                free(rows);
                return err_set(err, "run %lld: out of memory for its curve", (long long)run_id);
            }
            *arr = grown;
        }
        p->cap = cap;
    }
    for (int i = 0; i < n; i++, p->n++) {
        p->x[CURVE_X_STEPS][p->n] = (double)rows[i].step;
        p->x[CURVE_X_TOKENS][p->n] = rows[i].tokens;
        p->x[CURVE_X_WALL][p->n] = rows[i].wall;
        p->loss[p->n] = rows[i].value;
        if (rows[i].step > p->last_step) p->last_step = rows[i].step;
    }
    free(rows);
    return 0;
}

int run_curve_update(RunCurve *c, Store *st, char *err)
{
    if (load_after(st, c->run_id, RUN_CURVE_TRAIN_SMOOTH, &c->train, err)) return -1;
    return load_after(st, c->run_id, RUN_CURVE_VALID, &c->valid, err);
}

/* The index of step in p (whose steps ascend), -1 when absent. */
static int find_step(const CurvePoints *p, double step)
{
    int lo = 0, hi = p->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        double s = p->x[CURVE_X_STEPS][mid];
        if (s == step) return mid;
        if (s < step) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

void mean_curve_free(MeanCurve *m)
{
    for (int a = 0; a < CURVE_X_COUNT; a++) free(m->x[a]);
    free(m->mean);
    free(m->band);
    free(m->se_band);
    memset(m, 0, sizeof *m);
}

int mean_curve_build(MeanCurve *m, const CurvePoints *const *curves, int n_curves, char *err)
{
    m->n = 0;
    const CurvePoints *grid = NULL;
    for (int k = 0; k < n_curves; k++)
        if (curves[k] && (!grid || curves[k]->n > grid->n)) grid = curves[k];
    if (!grid || grid->n == 0) return 0;
    if (grid->n > m->cap) {
        int cap = grid->n;
        for (int a = 0; a < CURVE_X_COUNT; a++) {
            double *p = realloc(m->x[a], (size_t)cap * sizeof *p);
            if (!p) return err_set(err, "mean curve: out of memory");
            m->x[a] = p;
        }
        double *mean = realloc(m->mean, (size_t)cap * sizeof *mean);
        if (!mean) return err_set(err, "mean curve: out of memory");
        m->mean = mean;
        double *band = realloc(m->band, 2 * (size_t)cap * sizeof *band);
        if (!band) return err_set(err, "mean curve: out of memory");
        m->band = band;
        double *se_band = realloc(m->se_band, 2 * (size_t)cap * sizeof *se_band);
        if (!se_band) return err_set(err, "mean curve: out of memory");
        m->se_band = se_band;
        m->cap = cap;
    }
    int n = grid->n;
    double values[64];
    for (int i = 0; i < n; i++) {
        double step = grid->x[CURVE_X_STEPS][i], xsum[CURVE_X_COUNT] = {0};
        int count = 0;
        for (int k = 0; k < n_curves && count < 64; k++) {
            int j = curves[k] ? find_step(curves[k], step) : -1;
            if (j < 0 || !isfinite(curves[k]->loss[j])) continue;
            values[count++] = curves[k]->loss[j];
            for (int a = 0; a < CURVE_X_COUNT; a++) xsum[a] += curves[k]->x[a][j];
        }
        SeedStats s = seed_stats(values, count);
        for (int a = 0; a < CURVE_X_COUNT; a++) m->x[a][i] = count ? xsum[a] / count : NAN;
        m->mean[i] = s.mean;
        m->band[i] = s.min;
        m->band[n + i] = s.max;
        m->se_band[i] = s.mean - s.se;
        m->se_band[n + i] = s.mean + s.se;
    }
    m->n = n;
    return 0;
}
