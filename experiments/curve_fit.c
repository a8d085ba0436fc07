/*
 * curve_fit.c — curve_fit of curve_fit.h.  The fit works in x = t / t_ref
 * (t_ref the largest t) with parameters (E, B, a): L = E + B x^-a, so that
 * the power term is of the loss's size whatever the token counts; A is
 * B t_ref^a, its standard error by the delta method.
 */
#include "experiments/curve_fit.h"

#include <assert.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"

typedef struct {
    const double *x, *y;
    int n;
} FitData;

static int residuals(const gsl_vector *p, void *data, gsl_vector *f)
{
    const FitData *d = data;
    double E = gsl_vector_get(p, 0), B = gsl_vector_get(p, 1), a = gsl_vector_get(p, 2);
    for (int i = 0; i < d->n; i++) gsl_vector_set(f, (size_t)i, E + B * pow(d->x[i], -a) - d->y[i]);
    return GSL_SUCCESS;
}

static int jacobian(const gsl_vector *p, void *data, gsl_matrix *J)
{
    const FitData *d = data;
    double B = gsl_vector_get(p, 1), a = gsl_vector_get(p, 2);
    for (int i = 0; i < d->n; i++) {
        double xa = pow(d->x[i], -a);
        gsl_matrix_set(J, (size_t)i, 0, 1.0);
        gsl_matrix_set(J, (size_t)i, 1, xa);
        gsl_matrix_set(J, (size_t)i, 2, -B * xa * log(d->x[i]));
    }
    return GSL_SUCCESS;
}

/* Distinct values among t (at a relative 1e-9). */
static int distinct(const double *t, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = fabs(t[j] - t[i]) <= 1e-9 * fabs(t[i]);
        k += !seen;
    }
    return k;
}

int curve_fit(const double *t, const double *loss, int n, CurveFit *out, char *err)
{
    assert(t && loss && out && err);
    memset(out, 0, sizeof *out);
    if (n < 4) return err_set(err, "curve fit: %d evaluations, need at least 4", n);
    double t_ref = 0, ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (!(t[i] > 0) || !isfinite(t[i]) || !isfinite(loss[i]))
            return err_set(err, "curve fit: evaluation %d is not a finite loss at a positive token count", i);
        t_ref = fmax(t_ref, t[i]);
        ymin = fmin(ymin, loss[i]);
        ymax = fmax(ymax, loss[i]);
    }
    if (distinct(t, n) < 3) return err_set(err, "curve fit: evaluations at %d token counts, need 3", distinct(t, n));
    double *x = malloc((size_t)n * sizeof *x);
    if (!x) return err_set(err, "curve fit: out of memory");
    for (int i = 0; i < n; i++) x[i] = t[i] / t_ref;
    FitData data = {x, loss, n};
    gsl_multifit_nlinear_fdf fdf = {.f = residuals, .df = jacobian, .n = (size_t)n, .p = 3, .params = &data};
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, (size_t)n, 3);
    gsl_matrix *covar = gsl_matrix_alloc(3, 3);
    if (!w || !covar) {
        free(x);
        if (w) gsl_multifit_nlinear_free(w);
        if (covar) gsl_matrix_free(covar);
        return err_set(err, "curve fit: out of memory");
    }
    /* a start that a falling curve is near: E a little under its lowest
       loss, the power term the rest at t_ref, a = 0.5 */
    double span = fmax(ymax - ymin, 1e-6);
    double p0[3] = {ymin - 0.1 * span, 0.1 * span, 0.5};
    gsl_vector_view start = gsl_vector_view_array(p0, 3);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int info = 0;
    int rc = gsl_multifit_nlinear_init(&start.vector, &fdf, w);
    if (rc == GSL_SUCCESS) rc = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
    int ret = 0;
    if (rc != GSL_SUCCESS && rc != GSL_EMAXITER) {
        ret = err_set(err, "curve fit: least squares failed (%s)", gsl_strerror(rc));
    } else {
        gsl_vector *p = gsl_multifit_nlinear_position(w);
        gsl_vector *f = gsl_multifit_nlinear_residual(w);
        gsl_matrix *J = gsl_multifit_nlinear_jac(w);
        gsl_multifit_nlinear_covar(J, 0.0, covar);
        double chi;
        gsl_blas_ddot(f, f, &chi);
        double s2 = n > 3 ? chi / (n - 3) : 0;
        out->E = gsl_vector_get(p, 0);
        out->B = gsl_vector_get(p, 1);
        out->a = gsl_vector_get(p, 2);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) out->cov[r][c] = gsl_matrix_get(covar, (size_t)r, (size_t)c) * s2;
        out->t_ref = t_ref;
        out->n = n;
        out->rmse = sqrt(chi / n);
        out->se_E = sqrt(fmax(out->cov[0][0], 0));
        out->se_B = sqrt(fmax(out->cov[1][1], 0));
        out->se_a = sqrt(fmax(out->cov[2][2], 0));
        /* A = B t_ref^a: dA/dB = t_ref^a, dA/da = A ln t_ref */
        double ta = pow(t_ref, out->a), lt = log(t_ref);
        out->A = out->B * ta;
        double gB = ta, ga = out->A * lt;
        out->se_A = sqrt(fmax(gB * gB * out->cov[1][1] + 2 * gB * ga * out->cov[1][2] + ga * ga * out->cov[2][2], 0));
        if (!isfinite(out->E) || !isfinite(out->B) || !isfinite(out->a))
            ret = err_set(err, "curve fit: the fit did not converge to finite parameters");
    }
    gsl_set_error_handler(old);
    gsl_multifit_nlinear_free(w);
    gsl_matrix_free(covar);
    free(x);
    return ret;
}

double curve_predict(const CurveFit *f, double t)
{
    return f->E + f->B * pow(t / f->t_ref, -f->a);
}

double curve_predict_se(const CurveFit *f, double t)
{
    double x = t / f->t_ref, xa = pow(x, -f->a);
    double g[3] = {1.0, xa, -f->B * xa * log(x)};
    double v = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) v += g[r] * f->cov[r][c] * g[c];
    return sqrt(fmax(v, 0));
}

void curve_sample(const CurveFit *f, double t0, double t1, int n, double *t, double *y)
{
    assert(f && t0 > 0 && t1 >= t0 && n >= 2);
    for (int i = 0; i < n; i++) {
        t[i] = exp(log(t0) + (log(t1) - log(t0)) * i / (n - 1));
        y[i] = curve_predict(f, t[i]);
    }
}

double curve_crossing(const CurveFit *f, const CurveFit *g, double t0, double t1)
{
    assert(f && g && t0 > 0 && t1 > t0);
    enum { STEPS = 400 };
    double lo = log(t0), step = (log(t1) - lo) / STEPS;
    double prev = curve_predict(f, t0) - curve_predict(g, t0);
    for (int k = 1; k <= STEPS; k++) {
        double b = lo + k * step, d = curve_predict(f, exp(b)) - curve_predict(g, exp(b));
        if (prev != 0 && (d == 0 || (d < 0) != (prev < 0))) {
            double a = b - step;   /* bisect [a, b] in log t */
            for (int it = 0; it < 60; it++) {
                double m = 0.5 * (a + b), dm = curve_predict(f, exp(m)) - curve_predict(g, exp(m));
                if ((dm < 0) == (prev < 0) && dm != 0) a = m;
                else b = m;
            }
            return exp(b);
        }
        prev = d;
    }
    return 0;
}
