/*
 * tests/cli/bench_exchange.c — the gradient exchange alone, under mpirun:
 * ms to sum one model's dense gradient over the ranks by our ring
 * (MIXBENCH_ALLREDUCE=ring), by Open MPI's MPI_Allreduce on the trainer's
 * buckets (mpi) and by one MPI_Allreduce on the whole gradient (what a
 * bucket costs beyond its bytes), each after an all-gather that lines the ranks up, so no
 * rank's time includes waiting for another's compute (a training step's
 * exchange does: tests/cli/bench_allreduce.sh measures that one).
 *
 *     make build/tests/cli/bench_exchange
 *     mpirun -np 2 build/tests/cli/bench_exchange R key=value...   (the model's config keys)
 *
 * Rank 0 prints, per way, the median and range of R repetitions.  A
 * measurement, not a test (tests/run.sh runs test_* only).
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/dist.h"
#include "engine/grad_buckets.h"
#include "engine/model.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *way, double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof *ms, by_value);
    printf("%-5s %8.2f ms median  [%.2f - %.2f]\n", way, ms[n / 2], ms[0], ms[n - 1]);
}

int main(int argc, char **argv)
{
    char err[ERR_LEN];
    Dist *d = NULL;
    if (argc < 2 || dist_init(&d, err) || dist_size(d) < 2) {
        fprintf(stderr, "usage: mpirun -np N %s R key=value... (%s)\n", argv[0], d ? "" : err);
        return 2;
    }
    int reps = atoi(argv[1]);
    Config c;
    config_defaults(&c);
    for (int i = 2; i < argc; i++)
        if (config_set_arg(&c, argv[i], err)) return fprintf(stderr, "%s\n", err), 2;
    Model m;
    if (config_validate(&c, err) || model_plan(&m, &c, err)) return fprintf(stderr, "%s\n", err), 2;
    Work w = {0};
    w.grads = calloc(m.n_dense_floats, sizeof(float));
    float *scratch = malloc(sizeof(float) * dist_sum_scratch(d, m.n_dense_floats));
    double *ring = calloc((size_t)reps, sizeof(double)), *lib = calloc((size_t)reps, sizeof(double));
    double *whole = calloc((size_t)reps, sizeof(double));
    GradBuckets *b = NULL;
    if (!w.grads || !scratch || !ring || !lib || !whole || grad_buckets_create(&b, &m, &w, 1, d, 0, err))
        return fprintf(stderr, "%s\n", err), 2;
    for (size_t i = 0; i < m.n_dense_floats; i++) w.grads[i] = 1e-3f * (float)(i % 1000);
    for (int r = 0; r < reps; r++) {
        double t = 0.0;
        if (dist_agree(d, 0, err)) return 1;
        t = now_seconds();
        if (dist_sum_floats(d, w.grads, m.n_dense_floats, scratch, err)) return fprintf(stderr, "%s\n", err), 1;
        ring[r] = 1e3 * (now_seconds() - t);
        if (dist_agree(d, 0, err)) return 1;
        t = now_seconds();
        if (grad_buckets_allreduce(b, err)) return fprintf(stderr, "%s\n", err), 1;
        lib[r] = 1e3 * (now_seconds() - t);
        if (dist_agree(d, 0, err)) return 1;
        t = now_seconds();
        if (dist_allreduce_floats(d, w.grads, m.n_dense_floats, err)) return fprintf(stderr, "%s\n", err), 1;
        whole[r] = 1e3 * (now_seconds() - t);
    }
    if (dist_rank(d) == 0) {
        printf("%s: %zu gradient floats (%.1f MB), %d ranks, %d repetitions\n", c.arch, m.n_dense_floats,
               4e-6 * (double)m.n_dense_floats, dist_size(d), reps);
        report("ring", ring, reps);
        report("mpi", lib, reps);
        report("whole", whole, reps);
    }
    grad_buckets_free(b);
    model_free(&m);
    free(w.grads);
    free(scratch);
    free(ring);
    free(lib);
    free(whole);
    dist_finalize(d);
    return 0;
}
