/*
 * broken_mixers.h — deliberately broken copies of a real mixer, for
 * tests/engine/test_mixer_contract.c to show that each contract check
 * (tests/engine/mixer_checks.h) catches what it is for.  Each copy is the
 * registered cumsum (engine/mixers/cumsum.c: y_t = (t+1)^(-1/2) sum_{s<=t}
 * x_s) with its forward or backward wrapped, under cumsum's name so that it
 * builds as cumsum does:
 *   broken_dropped_term  backward leaves out the s = t term of dx_t
 *                        (a wrong gradient; the forward is cumsum's)
 *   broken_leak          y_t also reads x_{t+1} (a causality leak; its
 *                        backward is the true one of that forward)
 *   broken_batch_mix     y adds half the mean over the samples of its slice
 *                        (the batch mixed, so a batch split over threads
 *                        gives other numbers; backward true to it)
 * Not for: anything but that test (nothing else may see these).
 */
#ifndef MIXBENCH_BROKEN_MIXERS_H
#define MIXBENCH_BROKEN_MIXERS_H

#include <math.h>
#include <string.h>

#include "engine/mixer.h"

static const MixerOps *cumsum_ops(void) { return mixer_find("cumsum"); }

/* dx_t -= (t+1)^(-1/2) dy_t: the term of y_t in dx_t gone */
static void dropped_term_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    cumsum_ops()->backward(a, x, dy, dx);
    for (int b = 0; b < a->B; b++)
        for (int t = 0; t < a->n; t++) {
            size_t row = ((size_t)b * a->n + t) * a->d;
            float scale = (float)(1.0 / sqrt(t + 1.0));
            for (int f = 0; f < a->d; f++) dx[row + f] -= scale * dy[row + f];
        }
}

/* y_t += x_{t+1} / 2 for t < n - 1 */
static void leak_forward(const MixArgs *a, const float *x, float *y)
{
    cumsum_ops()->forward(a, x, y);
    for (int b = 0; b < a->B; b++)
        for (int t = 0; t + 1 < a->n; t++) {
            size_t row = ((size_t)b * a->n + t) * a->d;
            for (int f = 0; f < a->d; f++) y[row + f] += 0.5f * x[row + a->d + f];
        }
}

/* dx_{t+1} += dy_t / 2 */
static void leak_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    cumsum_ops()->backward(a, x, dy, dx);
    for (int b = 0; b < a->B; b++)
        for (int t = 0; t + 1 < a->n; t++) {
            size_t row = ((size_t)b * a->n + t) * a->d;
            for (int f = 0; f < a->d; f++) dx[row + a->d + f] += 0.5f * dy[row + f];
        }
}

/* out[b, t, f] += sum_b' in[b', t, f] / (2 B), B the slice's samples */
static void add_half_batch_mean(const MixArgs *a, const float *in, float *out)
{
    size_t per = (size_t)a->n * a->d;
    for (size_t i = 0; i < per; i++) {
        float mean = 0;
        for (int b = 0; b < a->B; b++) mean += in[b * per + i];
        mean /= (float)(2 * a->B);
        for (int b = 0; b < a->B; b++) out[b * per + i] += mean;
    }
}

static void batch_mix_forward(const MixArgs *a, const float *x, float *y)
{
    cumsum_ops()->forward(a, x, y);
    add_half_batch_mean(a, x, y);
}

static void batch_mix_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    cumsum_ops()->backward(a, x, dy, dx);
    add_half_batch_mean(a, dy, dx);
}

/* The copies, made from cumsum's ops on first use (they must outlive the
   models built with them: static). */
static const MixerOps *broken_dropped_term(void)
{
    static MixerOps ops;
    ops = *cumsum_ops();
    ops.backward = dropped_term_backward;
    return &ops;
}

static const MixerOps *broken_leak(void)
{
    static MixerOps ops;
    ops = *cumsum_ops();
    ops.forward = leak_forward;
    ops.backward = leak_backward;
    return &ops;
}

static const MixerOps *broken_batch_mix(void)
{
    static MixerOps ops;
    ops = *cumsum_ops();
    ops.forward = batch_mix_forward;
    ops.backward = batch_mix_backward;
    return &ops;
}

#endif
