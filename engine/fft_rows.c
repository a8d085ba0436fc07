/*
 * fft_rows.c — features to rows and back, and the spectral products of the
 * FFT convolutions (fft_rows.h).  Not for: any mixer's math.
 */
#include "engine/fft_rows.h"

#include <stddef.h>
#include <string.h>

#include "engine/common.h"

/* the transposes walk TILE x TILE blocks so both sides stay in cache */
#define TILE 16

void fft_rows_load(float *rows, const float *src, int n, int R, int ld, int L, float (*scale)(int t))
{
    for (int t0 = 0; t0 < n; t0 += TILE)
        for (int f0 = 0; f0 < R; f0 += TILE) {
            int t1 = MB_MIN(t0 + TILE, n), f1 = MB_MIN(f0 + TILE, R);
            for (int t = t0; t < t1; t++) {
                float c = scale ? scale(t) : 1.0f;
                const float *row = src + (size_t)t * ld;
                for (int f = f0; f < f1; f++) rows[(size_t)f * L + t] = c * row[f];
            }
        }
    for (int f = 0; f < R; f++) memset(rows + (size_t)f * L + n, 0, sizeof(float) * (size_t)(L - n));
}

void fft_rows_store(float *dst, const float *rows, int n, int R, int ld, int L, float (*scale)(int t))
{
    for (int t0 = 0; t0 < n; t0 += TILE)
        for (int f0 = 0; f0 < R; f0 += TILE) {
            int t1 = MB_MIN(t0 + TILE, n), f1 = MB_MIN(f0 + TILE, R);
            for (int t = t0; t < t1; t++) {
                float c = scale ? scale(t) : 1.0f;
                float *row = dst + (size_t)t * ld;
                for (int f = f0; f < f1; f++) row[f] = c * rows[(size_t)f * L + t];
            }
        }
}

void fft_rows_multiply(float *spec, const float *wspec, int half, int f0, int R, int dk, int conj_w)
{
    float sign = conj_w ? -1.0f : 1.0f;
    for (int i = 0; i < R; i++) {
        const float *w = wspec + (size_t)((f0 + i) / dk) * half * 2;
        float *z = spec + (size_t)i * half * 2;
        for (int m = 0; m < half; m++) {
            float wr = w[2 * m], wi = sign * w[2 * m + 1], zr = z[2 * m], zi = z[2 * m + 1];
            z[2 * m] = zr * wr - zi * wi;
            z[2 * m + 1] = zr * wi + zi * wr;
        }
    }
}

void fft_rows_cross(float *acc, const float *X, const float *G, int half, int f0, int R, int dk)
{
    for (int i = 0; i < R; i++) {
        const float *x = X + (size_t)i * half * 2, *g = G + (size_t)i * half * 2;
        float *a = acc + (size_t)((f0 + i) / dk) * half * 2;
        for (int m = 0; m < half; m++) {
            a[2 * m] += g[2 * m] * x[2 * m] + g[2 * m + 1] * x[2 * m + 1];
            a[2 * m + 1] += g[2 * m + 1] * x[2 * m] - g[2 * m] * x[2 * m + 1];
        }
    }
}
