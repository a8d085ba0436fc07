/*
 * test_importance.c — which knob matters (experiments/importance.c)
 * against hand-computed grids: a metric of one axis only gives that axis
 * 100%, an additive one no interaction and each axis its variance's
 * share, XOR all interaction, a three-way parity all "higher"; a missing
 * cell of an additive grid filled without adding interaction; too few
 * cells refused; and over a sweep's pivot: seeds averaged inside a cell
 * whatever their count, the seed noise from their spread, the seed axis
 * and one-value axes left out, zipped axes (both ways, or one following
 * the other) merged into one knob; the summary line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "experiments/importance.h"
#include "experiments/pivot.h"
#include "tests/check.h"

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

/* a check with the decomposition's numbers and the error beside */
#define CHECK_IMP(cond)                                                                                     \
    CHECK(cond, "main %g %g, pair %g, higher %g, variance %g; %s", imp.main[0], imp.main[1], imp.pair[0][1], \
          imp.higher, imp.variance, err)

static void test_one_axis(void)
{
    /* 3 x 2: y depends on the first axis only */
    int levels[2] = {3, 2};
    double y[6] = {1, 1, 4, 4, 2, 2};
    Importance imp;
    char err[ERR_LEN];
    CHECK_IMP(importance_grid(levels, 2, y, &imp, err) == 0);
    CHECK_IMP(near(imp.main[0], 1.0));
    CHECK_IMP(near(imp.main[1], 0.0));
    CHECK_IMP(near(imp.pair[0][1], 0.0));
    CHECK_IMP(near(imp.higher, 0.0));
    CHECK_IMP(imp.n_imputed == 0 && imp.n_cells == 6);
}

static void test_additive(void)
{
    /* y = a + 2b, a, b in {0, 1, 2}: var(a) = 2/3, var(2b) = 8/3, so a has
       0.2 of the variance, b 0.8, and they do not interact */
    int levels[2] = {3, 3};
    double y[9];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) y[a * 3 + b] = a + 2 * b;
    Importance imp;
    char err[ERR_LEN];
    CHECK_IMP(importance_grid(levels, 2, y, &imp, err) == 0);
    CHECK_IMP(near(imp.main[0], 0.2));
    CHECK_IMP(near(imp.main[1], 0.8));
    CHECK_IMP(near(imp.pair[0][1], 0.0));
    CHECK_IMP(near(imp.variance, 10.0 / 3));
}

static void test_xor(void)
{
    int levels[2] = {2, 2};
    double y[4] = {0, 1, 1, 0};
    Importance imp;
    char err[ERR_LEN];
    CHECK_IMP(importance_grid(levels, 2, y, &imp, err) == 0);
    CHECK_IMP(near(imp.main[0], 0.0) && near(imp.main[1], 0.0));
    CHECK_IMP(near(imp.pair[0][1], 1.0));
}

static void test_parity3(void)
{
    /* y = a xor b xor c: no axis or pair says anything, all of it is the
       three-way interaction */
    int levels[3] = {2, 2, 2};
    double y[8];
    for (int c = 0; c < 8; c++) y[c] = ((c >> 2) ^ (c >> 1) ^ c) & 1;
    Importance imp;
    char err[ERR_LEN];
    CHECK_IMP(importance_grid(levels, 3, y, &imp, err) == 0);
    for (int a = 0; a < 3; a++) {
        CHECK_IMP(near(imp.main[a], 0.0));
        for (int b = a + 1; b < 3; b++) CHECK_IMP(near(imp.pair[a][b], 0.0));
    }
    CHECK_IMP(near(imp.higher, 1.0));
}

static void test_missing_cell(void)
{
    /* the additive grid with one cell gone: filled from the others, it is
       the same grid, so the same shares and no interaction */
    int levels[2] = {3, 3};
    double y[9];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) y[a * 3 + b] = a + 2 * b;
    y[4] = NAN;
    Importance imp;
    char err[ERR_LEN];
    CHECK_IMP(importance_grid(levels, 2, y, &imp, err) == 0);
    CHECK_IMP(imp.n_imputed == 1 && imp.n_observed == 8);
    CHECK_IMP(fabs(imp.main[0] - 0.2) < 1e-6);
    CHECK_IMP(fabs(imp.main[1] - 0.8) < 1e-6);
    CHECK_IMP(fabs(imp.pair[0][1]) < 1e-6);
}

static void test_too_few(void)
{
    int levels[3] = {2, 2, 2};
    double y[8] = {1, 2, 3, NAN, NAN, NAN, NAN, NAN};
    Importance imp;
    char err[ERR_LEN] = "";
    CHECK_IMP(importance_grid(levels, 3, y, &imp, err) == -1);
    CHECK_IMP(strstr(err, "3 of 8 cells") != NULL);
}

static void test_flat(void)
{
    int levels[2] = {2, 2};
    double y[4] = {3, 3, 3, 3};
    Importance imp;
    char err[ERR_LEN];
    CHECK_IMP(importance_grid(levels, 2, y, &imp, err) == 0);
    CHECK_IMP(imp.variance == 0 && imp.main[0] == 0 && imp.higher == 0);
    char text[200];
    importance_summary(&imp, 5, text, sizeof text);
    CHECK(strstr(text, "same in every cell") != NULL, "%s", text);
}

/* A finished run at "lr=L layers=N heads=H seed=S" with valid loss v. */
static ResultRun run_at(const char *lr, const char *layers, const char *heads, const char *seed, double v)
{
    ResultRun r;
    memset(&r, 0, sizeof r);
    r.state = RUN_DONE;
    snprintf(r.status, sizeof r.status, "done");
    const char *kv[4][2] = {{"lr", lr}, {"layers", layers}, {"heads", heads}, {"seed", seed}};
    for (int k = 0; k < 4; k++) {
        snprintf(r.coords[k].key, sizeof r.coords[k].key, "%s", kv[k][0]);
        snprintf(r.coords[k].value, sizeof r.coords[k].value, "%s", kv[k][1]);
    }
    r.n_coords = 4;
    r.valid_loss = v;
    r.test_loss = NAN;
    return r;
}

static void test_pivot(void)
{
    /* lr x (layers, heads zipped), seeds 1-3 with unequal counts: the loss
       is lr-only in the cells' means; the seeds of lr=1e-3 layers=2 are 4.9
       and 5.1 (mean 5), and that cell's third seed would tip the mean if
       cells were weighed by their runs */
    ResultRun *runs = malloc(8 * sizeof *runs);
    int n = 0;
    runs[n++] = run_at("1e-3", "1", "2", "1", 5.0);
    runs[n++] = run_at("1e-3", "2", "4", "1", 4.9);
    runs[n++] = run_at("1e-3", "2", "4", "2", 5.1);
    runs[n++] = run_at("1e-2", "1", "2", "1", 4.0);
    runs[n++] = run_at("1e-2", "2", "4", "1", 4.0);
    runs[n++] = run_at("1e-2", "2", "4", "2", 4.0);
    runs[n++] = run_at("1e-2", "2", "4", "3", 4.0);
    runs[n] = run_at("1e-2", "1", "2", "2", NAN);   /* a failed run counts nowhere */
    runs[n].state = RUN_FAILED;
    n++;
    const char *axes[4] = {"lr", "layers", "heads", "seed"};
    Pivot p;
    char err[ERR_LEN];
    CHECK(pivot_build(&p, axes, 4, runs, n, NULL, err) == 0, "%s", err);
    Importance imp;
    CHECK_IMP(importance_of_pivot(&p, PM_VALID_LOSS, &imp, err) == 0);
    CHECK_IMP(imp.n_factors == 2);
    CHECK_IMP(!strcmp(imp.factor[0], "lr"));
    CHECK_IMP(!strcmp(imp.factor[1], "layers,heads"));
    CHECK_IMP(imp.n_runs == 7 && imp.n_cells == 4 && imp.n_imputed == 0);
    CHECK_IMP(near(imp.main[0], 1.0));
    CHECK_IMP(near(imp.main[1], 0.0));
    char text[200];
    importance_summary(&imp, 5, text, sizeof text);
    CHECK(!strcmp(text, "lr 100%"), "%s", text);
    /* seed noise: pooled within-cell variance (0.02 over 1 + 0 over 2 degrees
       of freedom) times the mean of 1/n over the cells (1, 1/2, 1, 1/3),
       over the cells' variance (0.25) */
    CHECK(fabs(imp.noise - (0.02 / 3) * ((1 + 0.5 + 1 + 1.0 / 3) / 4) / 0.25) < 1e-9, "noise %g", imp.noise);
    /* a metric no run has: no cells */
    CHECK_IMP(importance_of_pivot(&p, PM_TEST_LOSS, &imp, err) == -1);
    CHECK_IMP(strstr(err, "0 of 4 cells") != NULL);
    pivot_free(&p);
}

static void test_seed_only(void)
{
    ResultRun *runs = malloc(2 * sizeof *runs);
    runs[0] = run_at("1e-3", "1", "2", "1", 5.0);
    runs[1] = run_at("1e-3", "1", "2", "2", 5.2);
    const char *axes[2] = {"lr", "seed"};
    Pivot p;
    char err[ERR_LEN];
    CHECK(pivot_build(&p, axes, 2, runs, 2, NULL, err) == 0, "%s", err);
    Importance imp;
    CHECK_IMP(importance_of_pivot(&p, PM_VALID_LOSS, &imp, err) == -1);
    CHECK_IMP(strstr(err, "nothing to compare") != NULL);
    pivot_free(&p);
}

static void test_nested(void)
{
    /* (layers, lr) zipped one way only: lr follows from layers (1 and 2 at
       1e-3, 4 at 5e-4), not layers from lr; one knob of layers' 3 values */
    ResultRun *runs = malloc(3 * sizeof *runs);
    runs[0] = run_at("1e-3", "1", "2", "1", 5.0);
    runs[1] = run_at("1e-3", "2", "2", "1", 4.0);
    runs[2] = run_at("5e-4", "4", "2", "1", 3.0);
    const char *axes[2] = {"lr", "layers"};
    Pivot p;
    char err[ERR_LEN];
    CHECK(pivot_build(&p, axes, 2, runs, 3, NULL, err) == 0, "%s", err);
    Importance imp;
    CHECK_IMP(importance_of_pivot(&p, PM_VALID_LOSS, &imp, err) == 0);
    CHECK(imp.n_factors == 1 && !strcmp(imp.factor[0], "lr,layers") && imp.levels[0] == 3 && imp.n_cells == 3,
          "%d factors: %s, %d levels, %d cells", imp.n_factors, imp.factor[0], imp.levels[0], imp.n_cells);
    CHECK_IMP(near(imp.main[0], 1.0) && imp.n_imputed == 0);
    pivot_free(&p);
}

static void test_summary(void)
{
    Importance imp;
    memset(&imp, 0, sizeof imp);
    imp.n_factors = 3;
    snprintf(imp.factor[0], sizeof imp.factor[0], "lr");
    snprintf(imp.factor[1], sizeof imp.factor[1], "layers");
    snprintf(imp.factor[2], sizeof imp.factor[2], "d");
    imp.main[0] = 0.6, imp.main[1] = 0.2, imp.main[2] = 0.001;
    imp.pair[0][1] = 0.15, imp.higher = 0.049;
    imp.variance = 1;
    char text[200];
    importance_summary(&imp, 5, text, sizeof text);
    CHECK(!strcmp(text, "lr 60%, layers 20%, lr x layers 15%, higher 5%"), "%s", text);
    importance_summary(&imp, 2, text, sizeof text);
    CHECK(!strcmp(text, "lr 60%, layers 20%, ..."), "%s", text);
}

/* The noise beside the shares: a share of the variance while it is one,
   a multiple of it (and a verdict on the shares) once it is more. */
static void test_noise_text(void)
{
    Importance imp;
    memset(&imp, 0, sizeof imp);
    char text[200];
    imp.noise = NAN;
    importance_noise_text(&imp, 0, text, sizeof text);
    CHECK(!text[0], "no noise: '%s'", text);
    imp.noise = 0.12;
    importance_noise_text(&imp, 0, text, sizeof text);
    CHECK(!strcmp(text, "seed noise alone would make 12% of this variance"), "%s", text);
    importance_noise_text(&imp, 1, text, sizeof text);
    CHECK(!strcmp(text, "seed noise alone 12%"), "%s", text);
    imp.noise = 39.04; /* dispatcher-vs-msa's two cells: 6.122 +- 0.066 and 6.106 +- 0.025 */
    importance_noise_text(&imp, 0, text, sizeof text);
    CHECK(!strncmp(text, "seed noise alone would make 39.0 times this variance: the cells do not differ", 77), "%s",
          text);
    CHECK(!strstr(text, "%"), "no percentage once noise exceeds the variance: %s", text);
    importance_noise_text(&imp, 1, text, sizeof text);
    CHECK(!strcmp(text, "seed noise alone 39.0x this: within noise"), "%s", text);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_one_axis);
    RUN(test_additive);
    RUN(test_xor);
    RUN(test_parity3);
    RUN(test_missing_cell);
    RUN(test_too_few);
    RUN(test_flat);
    RUN(test_pivot);
    RUN(test_seed_only);
    RUN(test_nested);
    RUN(test_summary);
    RUN(test_noise_text);
    CHECK_EXIT();
}
