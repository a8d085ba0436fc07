/*
 * test_pairconnect_infer.c — pairconnect's batch-1 inference path
 * (MixerInfer: MLPs packed once, MLPp's first layer folded into the tables
 * while they are small) gives its training forward's outputs block by block,
 * causal and bidirectional, mean and sum reductions, a d_pair that is not a
 * multiple of the vector width, rows wider than 128 and not a multiple of
 * 256 floats, and at a table size too large to fold; its
 * incremental step gives forward_step's rows.  All to float32 rounding.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/infer.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

static double max_abs_diff(const float *a, const float *b, size_t n, double *scale)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        worst = fmax(worst, fabs((double)a[i] - b[i]));
        *scale = fmax(*scale, fabs(b[i]));
    }
    return worst;
}

/* Every block of a pairconnect model built from the settings: infer
   forward (and step when causal) against forward (and forward_step). */
static void compare_blocks(const char *task, const char *hash, const char *d, const char *d_pair,
                           const char *reduce, const char *layers)
{
    Model m;
    Config c;
    if (tm_build(&m, &c, "arch=pairconnect", task, hash, d, d_pair, reduce, layers, "heads=2", "n_ctx=16", NULL)) {
        CHECK(0, "build %s %s", task, hash);
        return;
    }
    Rng r;
    rng_seed(&r, 21);
    tm_randomize(&m, &r, 0.3f);
    char err[512];
    Infer *inf = NULL;
    if (infer_create(&inf, &m, c.n_ctx, err)) {
        CHECK(0, "%s", err);
        model_free(&m);
        return;
    }
    const MixerOps *mx = m.mixer;
    int n = c.n_ctx, dm = c.d;
    size_t nd = (size_t)n * dm;
    int32_t ids[16];
    for (int t = 0; t < n; t++) ids[t] = 2 + (int32_t)rng_below(&r, (uint32_t)c.vocab - 2);
    float *x = malloc(sizeof(float) * nd), *ref = malloc(sizeof(float) * nd), *y = malloc(sizeof(float) * nd);
    float *saved = calloc(mx->saved_per_sample(&c), sizeof(float));
    float *scratch = calloc(mx->scratch_floats(&c, 1), sizeof(float));
    for (int l = 0; l < c.layers; l++) {
        const float *w[MIX_MAX_PARAMS];
        float *dw[MIX_MAX_PARAMS];
        MixArgs a;
        infer_mix_args(&m, l, ids, scratch, w, dw, &a);
        a.saved = saved;
        for (size_t i = 0; i < nd; i++) x[i] = (float)rng_normal(&r);
        mx->forward(&a, x, ref);
        void *state = infer_mix_state(inf, l);
        CHECK(state != NULL, "block %d has no inference state", l);
        if (!state) break;
        mx->infer->forward(&a, state, x, y);
        double scale = 0, worst = max_abs_diff(y, ref, nd, &scale);
        CHECK(worst <= 1e-5 * fmax(scale, 1.0), "%s %s %s %s %s block %d: window differs by %g (scale %g)", task,
              hash, d, d_pair, reduce, l, worst, scale);
        if (!a.causal) continue;
        double step_worst = 0, step_scale = 0;
        for (int t = 0; t < n; t++) {
            float row[256], row_ref[256];   /* d <= 256 */
            mx->forward_step(&a, t, x + (size_t)t * dm, row_ref, NULL);
            mx->infer->step(&a, state, t, x + (size_t)t * dm, row, NULL);
            step_worst = fmax(step_worst, max_abs_diff(row, row_ref, (size_t)dm, &step_scale));
            step_worst = fmax(step_worst, max_abs_diff(row, ref + (size_t)t * dm, (size_t)dm, &step_scale));
        }
        CHECK(step_worst <= 1e-5 * fmax(step_scale, 1.0), "%s %s block %d: steps differ by %g (scale %g)", task,
              hash, l, step_worst, step_scale);
    }
    free(x);
    free(ref);
    free(y);
    free(saved);
    free(scratch);
    infer_free(inf);
    model_free(&m);
}

static void test_causal_k100(void) { compare_blocks("task=clm", "hash_size=100", "d=32", "d_pair=0", "pair_reduce=mean", "layers=2"); }

static void test_bidirectional_k100(void)
{
    compare_blocks("task=mlm", "hash_size=100", "d=32", "d_pair=0", "pair_reduce=mean", "layers=2");
}

/* d_pair 24: one 16-float vector and 8 floats left over in every row sum */
static void test_odd_width_sum(void)
{
    compare_blocks("task=clm", "hash_size=100", "d=32", "d_pair=24", "pair_reduce=sum", "layers=2");
    compare_blocks("task=mlm", "hash_size=1000", "d=48", "d_pair=24", "pair_reduce=mean", "layers=1");
}

/* 2 tables x 140000 rows x d_pair 16 is past the folding limit (4 Mi
   floats per block): MLPp's first layer runs packed instead */
/* wider rows than the vector blocks of the gathers' 256-float sums:
   tables 4000 x 160 floats, folded 4000 x 144 */
static void test_wide_rows(void)
{
    compare_blocks("task=mlm", "hash_size=4000", "d=160", "d_pair=144", "pair_reduce=mean", "layers=1");
    compare_blocks("task=clm", "hash_size=4000", "d=160", "d_pair=144", "pair_reduce=sum", "layers=1");
}

static void test_unfolded(void)
{
    compare_blocks("task=mlm", "hash_size=140000", "d=16", "d_pair=16", "pair_reduce=mean", "layers=1");
    compare_blocks("task=clm", "hash_size=140000", "d=16", "d_pair=16", "pair_reduce=mean", "layers=1");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_causal_k100);
    RUN(test_bidirectional_k100);
    RUN(test_odd_width_sum);
    RUN(test_wide_rows);
    RUN(test_unfolded);
    CHECK_EXIT();
}
