/*
 * fft_rows.h — the data movement and spectral products shared by the
 * mixers that convolve each feature's sequence by FFT (engine/mixers/conv.c,
 * engine/mixers/hyena.c): a sample's features [n, d] become contiguous rows
 * [R, L] (FFTW ran contiguous rows ~14x faster than strided columns,
 * fft_plans.h), their spectra are multiplied by kernel spectra, and
 * gradients of the kernels are accumulated as cross-spectra.
 *
 * Feature f of a chunk starting at f0 meets kernel (f0 + f) / dk: conv has
 * one kernel per head (dk = d / h), hyena one per feature (dk = 1).
 * Complex numbers are interleaved (re, im) pairs, FFTW's layout.
 * Not for: plans (fft_plans.h) or any mixer's scaling and adjoint rules.
 */
#ifndef MIXBENCH_FFT_ROWS_H
#define MIXBENCH_FFT_ROWS_H

/* rows [R, L] = src[:, 0..R)^T of src [n, ld] (times scale(t) when scale is
   not NULL), zeros past n. */
void fft_rows_load(float *rows, const float *src, int n, int R, int ld, int L, float (*scale)(int t));
/* dst[:, 0..R) of dst [n, ld] = rows [R, L]^T for t < n (times scale(t)
   when scale is not NULL). */
void fft_rows_store(float *dst, const float *rows, int n, int R, int ld, int L, float (*scale)(int t));
/* spec [R, half] of features f0.. *= wspec[(f0 + i) / dk] [half] (conj_w:
   times the conjugate). */
void fft_rows_multiply(float *spec, const float *wspec, int half, int f0, int R, int dk, int conj_w);
/* acc[(f0 + i) / dk] [half] += G_i conj(X_i) for the rows i < R of the
   spectra X, G [R, half]: the spectrum of the kernel gradient. */
void fft_rows_cross(float *acc, const float *X, const float *G, int half, int f0, int R, int dk);

#endif
