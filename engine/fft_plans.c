/*
 * fft_plans.c — FFTW3 plans made once per shape and run on any thread
 * (fft_plans.h).  Not for: any mixer's math.
 */
#include "engine/fft_plans.h"

#include <pthread.h>

#include "engine/common.h"

/* FFTW's planner (plan creation and destruction) keeps process-wide tables
   of its own: the twiddle-factor cache shared between plans, the wisdom
   store and the planner's memo tables.  Calling it from two threads at once
   corrupts them, and two training jobs in one process build models at the
   same time, so every call into the planner holds this lock.  It is the only
   global mutable state of the engine, and it has to be global because the
   state it guards is FFTW's, not ours; plan execution does not take it. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

/* Makes a plan of `kind` for `rows` contiguous transforms of shape dims
   [rank] on scratch arrays of in_floats / out_floats floats (fftwf_malloc'd,
   so SIMD-aligned like the 64-byte buffers of fft_exec).  FFTW_ESTIMATE
   does not touch the arrays, and makes the same plan for the same shape
   every time. */
static int make_plan(FftPlan *p, int kind, size_t in_floats, size_t out_floats,
                     int rank, const int *dims, int rows, int sign, char *err)
{
    int last = dims[rank - 1], points = 1;
    for (int i = 0; i < rank; i++) points *= dims[i];
    /* distance between rows, in elements (floats for real, pairs for complex) */
    int real_dist = points, half_dist = points / last * (last / 2 + 1);
    p->plan = NULL;
    p->kind = kind;
    pthread_mutex_lock(&planner_lock);
    float *in = fftwf_malloc(sizeof(float) * in_floats);
    float *out = fftwf_malloc(sizeof(float) * out_floats);
    if (in && out) {
        unsigned flags = FFTW_ESTIMATE;
        switch (kind) {
        case FFT_C2C:
            p->plan = fftwf_plan_many_dft(rank, dims, rows, (fftwf_complex *)in, NULL, 1, points,
                                          (fftwf_complex *)out, NULL, 1, points, sign, flags);
            break;
        case FFT_R2C:
            p->plan = fftwf_plan_many_dft_r2c(rank, dims, rows, in, NULL, 1, real_dist, (fftwf_complex *)out, NULL,
                                              1, half_dist, flags);
            break;
        default:
            p->plan = fftwf_plan_many_dft_c2r(rank, dims, rows, (fftwf_complex *)in, NULL, 1, half_dist, out, NULL,
                                              1, real_dist, flags | FFTW_DESTROY_INPUT);
        }
    }
    fftwf_free(out);
    fftwf_free(in);
    pthread_mutex_unlock(&planner_lock);
    if (!p->plan) return err_set(err, "fft: FFTW could not plan a transform of %d points", points);
    return 0;
}

int fft_plan_c2c(FftPlan *p, int N, int sign, char *err)
{
    int dims[1] = {N};
    return make_plan(p, FFT_C2C, 2 * (size_t)N, 2 * (size_t)N, 1, dims, 1, sign, err);
}

int fft_plan_r2c_2d(FftPlan *p, int n0, int n1, char *err)
{
    int dims[2] = {n0, n1};
    return make_plan(p, FFT_R2C, (size_t)n0 * n1, (size_t)n0 * (n1 / 2 + 1) * 2, 2, dims, 1, 0, err);
}

int fft_plan_r2c_rows(FftPlan *p, int L, int rows, char *err)
{
    int dims[1] = {L};
    return make_plan(p, FFT_R2C, (size_t)L * rows, (size_t)(L / 2 + 1) * 2 * rows, 1, dims, rows, 0, err);
}

int fft_plan_c2r_rows(FftPlan *p, int L, int rows, char *err)
{
    int dims[1] = {L};
    return make_plan(p, FFT_C2R, (size_t)(L / 2 + 1) * 2 * rows, (size_t)L * rows, 1, dims, rows, 0, err);
}

void fft_exec(const FftPlan *p, float *in, float *out)
{
    switch (p->kind) {
    case FFT_C2C: fftwf_execute_dft(p->plan, (fftwf_complex *)in, (fftwf_complex *)out); break;
    case FFT_R2C: fftwf_execute_dft_r2c(p->plan, in, (fftwf_complex *)out); break;
    default: fftwf_execute_dft_c2r(p->plan, (fftwf_complex *)in, out);
    }
}

void fft_plan_free(FftPlan *p)
{
    if (!p->plan) return;
    pthread_mutex_lock(&planner_lock);
    fftwf_destroy_plan(p->plan);
    pthread_mutex_unlock(&planner_lock);
    p->plan = NULL;
}

int fft_good_size(int min)
{
    int best = 0;
    for (int odd = 1; odd <= 5; odd += 2) {
        int N = odd;
        while (N < min) N *= 2;
        if (!best || N < best) best = N;
    }
    return best;
}
