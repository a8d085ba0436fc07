/*
 * fft_plans.h — a small shared helper around FFTW3 (single precision) for
 * the mixers that transform their input: fft (engine/mixers/fft.c) and conv
 * (engine/mixers/conv.c).
 *
 * Plans are made once per shape, at model build time (a mixer's create()),
 * and run many times on any thread with FFTW's new-array execute functions,
 * which are thread-safe.  Planning and destroying go through one process-wide
 * lock because FFTW's planner is not thread-safe (fft_plans.c says why that
 * lock is the only global state).  Every plan uses FFTW_ESTIMATE: the plan,
 * and so every rounding, depends only on the shape, never on timings, so the
 * same seed and thread count give the same numbers bit for bit.
 *
 * Buffers: FFTW's SIMD plans require that a new array has the alignment the
 * plan was made with.  Plans are made on fftwf_malloc'd arrays, so every
 * buffer given to fft_exec must start on a 64-byte boundary: carve them from
 * scratch with fft_carve, and count fft_floats(size) for each buffer plus
 * FFT_ALIGN_FLOATS once in scratch_floats.
 * Complex numbers are interleaved (re, im) float pairs, FFTW's layout.
 *
 * Not for: the math of any mixer (transform sizes, scaling, adjoints live
 * with the mixer that uses them); the mixer-specific things here are the
 * conv and hyena mixers' path switches, declared at the end for tests.
 */
#ifndef MIXBENCH_FFT_PLANS_H
#define MIXBENCH_FFT_PLANS_H

#include <stddef.h>
#include <stdint.h>

#include <fftw3.h>

enum { FFT_C2C, FFT_R2C, FFT_C2R };

typedef struct {
    fftwf_plan plan;     /* NULL: no plan */
    int kind;            /* FFT_C2C, FFT_R2C or FFT_C2R */
} FftPlan;

/* Buffers start on this many floats (64 bytes). */
#define FFT_ALIGN_FLOATS 16

/* Floats to reserve for an aligned buffer of `floats` floats carved from
   scratch (rounded up to the alignment; the caller adds FFT_ALIGN_FLOATS
   once for the scratch base itself). */
static inline size_t fft_floats(size_t floats)
{
    return (floats + FFT_ALIGN_FLOATS - 1) / FFT_ALIGN_FLOATS * FFT_ALIGN_FLOATS;
}

/* Returns the next 64-byte-aligned buffer of `floats` floats at *cursor and
   advances it.  Start with cursor = scratch (any alignment). */
static inline float *fft_carve(float **cursor, size_t floats)
{
    uintptr_t p = ((uintptr_t)*cursor + 63) & ~(uintptr_t)63;
    float *buf = (float *)p;
    *cursor = buf + fft_floats(floats);
    return buf;
}

/* Out-of-place complex DFT of length N: in [N complex] -> out [N complex],
   X[k] = sum_j x[j] e^(sign 2 pi i jk/N), sign = FFTW_FORWARD (-1) or
   FFTW_BACKWARD (+1), unnormalised.  (Out of place because FFTW's in-place
   plans for large N, 2^14 and up, malloc a buffer on every run.) */
int fft_plan_c2c(FftPlan *p, int N, int sign, char *err);

/* Out-of-place 2-D real DFT, unnormalised (forward sign):
   in [n0, n1] real -> out [n0, n1/2 + 1] complex (the other half of the
   spectrum is the conjugate mirror). */
int fft_plan_r2c_2d(FftPlan *p, int n0, int n1, char *err);

/* Out-of-place real DFTs of length L of each of `rows` contiguous rows,
   unnormalised:
   r2c: in [rows, L] real -> out [rows, L/2 + 1] complex (forward sign);
   c2r: in [rows, L/2 + 1] complex -> out [rows, L] real (backward sign;
   destroys its input).  (Rows, not strided columns: with FFTW_ESTIMATE a
   batch of contiguous transforms ran ~14x faster than the same batch down
   the columns of a [L, rows] array, L = 256 or 1024, rows = 256.) */
int fft_plan_r2c_rows(FftPlan *p, int L, int rows, char *err);
int fft_plan_c2r_rows(FftPlan *p, int L, int rows, char *err);

/* Runs a plan on new arrays (64-byte aligned, distinct).  Thread-safe: any
   number of threads may run the same plan at once on different buffers.
   FFTW allocates nothing here for the shapes the mixers use (powers of two
   and small factors), but its generic solvers for large prime factors
   (a 97 x 62 r2c, say) malloc working buffers inside the run. */
void fft_exec(const FftPlan *p, float *in, float *out);

/* Frees the plan (NULL plans are ignored); serialised with planning. */
void fft_plan_free(FftPlan *p);

/* The smallest N >= min of the form 2^a, 3 2^a or 5 2^a.  FFTW is fastest
   on powers of two and nearly as fast with one factor 3 or 5; sizes with
   several odd factors (450 = 2 3^2 5^2) ran a real transform batch ~30%
   slower than 512 here. */
int fft_good_size(int min);

/* ---- the conv mixer's choice of path (engine/mixers/conv.c) ----
   The conv mixer computes its causal convolution either directly or by FFT
   (whichever its measured threshold says is cheaper for n); both give the
   same numbers to float rounding.  Tests force each path on one block. */
enum { CONV_AUTO, CONV_DIRECT, CONV_FFT };

/* The path CONV_AUTO takes for n positions. */
int conv_auto_path(int n);
/* Sets the path of one conv block's state (BlockParams.mix_state, from
   create()); not while that block runs.  Returns -1 for an unknown path, or
   CONV_DIRECT where n >= 2 x the threshold (its n^2 scratch is not
   reserved there). */
int conv_force_path(void *conv_state, int path);
/* The same for a hyena block's long convolution (engine/mixers/hyena.c):
   direct below its threshold, FFT from it; any path at any n. */
int hyena_force_path(void *hyena_state, int path);

#endif
