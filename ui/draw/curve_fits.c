/*
 * curve_fits.c — curve_fits.h: the points gathered, fitted and sampled with
 * experiments/curve_fit.h.
 */
#include "ui/draw/curve_fits.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "engine/common.h"

int curves_fit(const CurvePoints *const *valid, int n, CurveAxis x, CurveFit *out, char *err)
{
    assert(valid && n >= 0 && out && err);
    int total = 0;
    for (int k = 0; k < n; k++) total += valid[k]->n;
    double *t = malloc((size_t)(total ? total : 1) * sizeof *t), *y = malloc((size_t)(total ? total : 1) * sizeof *y);
    if (!t || !y) {
        free(t);
        free(y);
        return err_set(err, "fit: out of memory");
    }
    int m = 0;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < valid[k]->n; i++)
            if (valid[k]->x[x][i] > 0 && isfinite(valid[k]->x[x][i]) && isfinite(valid[k]->loss[i])) {
                t[m] = valid[k]->x[x][i];
                y[m++] = valid[k]->loss[i];
            }
    int rc = curve_fit(t, y, m, out, err);
    free(t);
    free(y);
    return rc;
}

void fit_past_budget(const CurveFit *f, double reach, double x[FIT_SAMPLES], double y[FIT_SAMPLES])
{
    assert(f && f->t_ref > 0 && reach >= 1);
    curve_sample(f, f->t_ref, reach * f->t_ref, FIT_SAMPLES, x, y);
}

double fits_crossing(const CurveFit *f, const CurveFit *g)
{
    assert(f && g);
    double from = fmax(f->t_ref, g->t_ref), to = FIT_HORIZON * fmin(f->t_ref, g->t_ref);
    return to > from ? curve_crossing(f, g, from, to) : 0;
}
