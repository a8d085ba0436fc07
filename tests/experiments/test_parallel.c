/*
 * test_parallel.c — parallel coordinates (experiments/parallel.c): the
 * axes (the sweep's that vary, not seed, the metric last), a line per
 * finished run or per seed group (its mean) at its values' places,
 * brushing by a span of an axis's values and of the metric, and the range
 * text read and written back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "experiments/parallel.h"
#include "tests/check.h"

/* A finished run at "lr=L layers=N seed=S" with valid loss v. */
static ResultRun run_at(const char *lr, const char *layers, const char *seed, double v)
{
    ResultRun r;
    memset(&r, 0, sizeof r);
    r.state = RUN_DONE;
    const char *kv[4][2] = {{"lr", lr}, {"layers", layers}, {"d", "32"}, {"seed", seed}};
    for (int k = 0; k < 4; k++) {
        snprintf(r.coords[k].key, sizeof r.coords[k].key, "%s", kv[k][0]);
        snprintf(r.coords[k].value, sizeof r.coords[k].value, "%s", kv[k][1]);
    }
    r.n_coords = 4;
    r.valid_loss = v;
    return r;
}

/* lr 1e-3, 1e-2, 3e-2 x layers 1, 2, two seeds each; d one value; one
   run still queued. */
static void sweep(Pivot *p)
{
    static const char *LR[3] = {"3e-2", "1e-3", "1e-2"};   /* ordered by value by the pivot */
    ResultRun *runs = malloc(13 * sizeof *runs);
    int n = 0;
    for (int i = 0; i < 3; i++)
        for (int l = 1; l <= 2; l++)
            for (int s = 1; s <= 2; s++) {
                char layers[8], seed[8];
                snprintf(layers, sizeof layers, "%d", l);
                snprintf(seed, sizeof seed, "%d", s);
                runs[n++] = run_at(LR[i], layers, seed, 4.0 + i + 0.5 * l + 0.1 * s);
            }
    runs[n] = run_at("1e-3", "1", "3", NAN);
    runs[n++].state = RUN_QUEUED;
    const char *axes[4] = {"lr", "layers", "d", "seed"};
    char err[ERR_LEN];
    CHECK(pivot_build(p, axes, 4, runs, n, NULL, err) == 0, "%s", err);
}

static void test_runs(void)
{
    Pivot p;
    sweep(&p);
    Parallel par;
    char err[ERR_LEN];
    CHECK(parallel_build(&p, PM_VALID_LOSS, 0, NULL, &par, err) == 0, "%s", err);
    CHECK(par.n_axes == 3, "axes %d", par.n_axes);
    CHECK(!strcmp(par.name[0], "lr") && !strcmp(par.name[1], "layers") && !strcmp(par.name[2], "valid loss"),
          "%s %s %s", par.name[0], par.name[1], par.name[2]);
    CHECK(par.n_lines == 12 && par.n_kept == 12, "lines %d kept %d", par.n_lines, par.n_kept);
    CHECK(fabs(par.lo - 4.6) < 1e-12 && fabs(par.hi - 7.2) < 1e-12, "range %g..%g", par.lo, par.hi);
    /* the first run: lr 3e-2 (the top of lr's axis), layers 1 (bottom), valid 4.6 (bottom) */
    CHECK(par.pos[0] == 1.0 && par.pos[1] == 0.0 && par.pos[2] == 0.0, "%g %g %g", par.pos[0], par.pos[1], par.pos[2]);
    parallel_free(&par);
    pivot_free(&p);
}

static void test_groups_and_brush(void)
{
    Pivot p;
    sweep(&p);
    Parallel par;
    char err[ERR_LEN];
    ParBrush brush[PAR_MAX_AXES];
    /* lr 1e-3..1e-2 (the lower two values), and valid loss up to 6 */
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "lr=1e-3..1e-2 valid_loss=..6", brush, err) == 0, "%s", err);
    CHECK(brush[0].on && brush[0].lo == 0 && brush[0].hi == 1, "lr brush %g..%g", brush[0].lo, brush[0].hi);
    CHECK(brush[PAR_METRIC].on && brush[PAR_METRIC].hi == 6, "metric brush");
    CHECK(parallel_build(&p, PM_VALID_LOSS, 1, brush, &par, err) == 0, "%s", err);
    CHECK(par.n_lines == 6, "groups %d", par.n_lines);
    /* group means: 4 + i + 0.5 l + 0.15 (i 0 for 3e-2, 1 for 1e-3, 2 for 1e-2):
       kept: lr 1e-3 (5.65, 6.15 -> only 5.65) and 1e-2 (6.65, 7.15 -> none) */
    CHECK(par.n_kept == 1, "kept %d", par.n_kept);
    for (int l = 0; l < par.n_lines; l++)
        if (par.kept[l]) CHECK(fabs(par.value[l] - 5.65) < 1e-12 && par.n_runs[l] == 2, "%g", par.value[l]);
    char text[256];
    parallel_format_ranges(&p, PM_VALID_LOSS, brush, text, sizeof text);
    CHECK(!strcmp(text, "lr=1e-3..1e-2 valid_loss=..6"), "%s", text);
    /* numbers between the values: the values inside */
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "lr=0.002..1", brush, err) == 0 && brush[0].lo == 1 &&
              brush[0].hi == 2, "%s %g..%g", err, brush[0].lo, brush[0].hi);
    parallel_free(&par);
    pivot_free(&p);
}

static void test_refusals(void)
{
    Pivot p;
    sweep(&p);
    ParBrush brush[PAR_MAX_AXES];
    char err[ERR_LEN];
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "heads=1..2", brush, err) == -1 && strstr(err, "neither an axis"),
          "%s", err);
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "lr=1e-3", brush, err) == -1 && strstr(err, "KEY=LO..HI"), "%s",
          err);
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "lr=5..9", brush, err) == -1 && strstr(err, "no value"), "%s", err);
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "valid_loss=x..", brush, err) == -1 && strstr(err, "numbers"),
          "%s", err);
    CHECK(parallel_parse_ranges(&p, PM_VALID_LOSS, "valid_loss=6..5", brush, err) == -1 && strstr(err, "keeps nothing"),
          "%s", err);
    pivot_free(&p);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_runs);
    RUN(test_groups_and_brush);
    RUN(test_refusals);
    CHECK_EXIT();
}
