/*
 * fft.c — the parameter-free Fourier mixer of Backurs et al. (Appendix A),
 * SPEC section 2.  Bidirectional only: every output mixes every position.
 *
 *   fft_mode = nd (default), per sample:  x [n, d] floats viewed as
 *     z [N = n*d/2] complex (consecutive pairs are re, im);
 *     Z[k] = N^(-1/2) sum_j z[j] e^(-2 pi i jk/N); y = Z viewed back as [n, d].
 *   fft_mode = fnet, per sample (FNet, unnormalised):
 *     y[k, l] = Re sum_{t, f} x[t, f] e^(-2 pi i (kt/n + lf/d)).
 *
 * Backward (the transpose of each map, as a real-linear map):
 *   nd: the map is unitary on C^N; the real transpose of a complex-linear
 *     map is its conjugate transpose, so dx = the orthonormal inverse DFT
 *     of dy (sign +1, scale N^(-1/2)).
 *   fnet: y = K x with K[(k,l), (t,f)] = cos(2 pi (kt/n + lf/d)), which is
 *     symmetric under (k,l) <-> (t,f): dx = Re DFT2(dy), the same map.
 * tests/engine/test_fft.c checks both against direct double-precision sums and
 * tests/engine/test_grad.c against finite differences.
 *
 * Each transform copies the sample into 64-byte-aligned scratch (the plans'
 * alignment), runs the block's plan from there into a second scratch
 * buffer, and writes the (scaled) result out.  Plans come from create() (engine/fft_plans.h).  Not for: anything
 * causal (the transform mixes all positions).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/fft_plans.h"
#include "engine/mixer.h"

typedef struct {
    int mode;            /* FFT_ND or FFT_FNET */
    int n, d;
    FftPlan forward;     /* nd: c2c sign -1; fnet: r2c [n, d] */
    FftPlan inverse;     /* nd: c2c sign +1; fnet: unused */
} FftState;

static int fft_check(const Config *c, char *err)
{
    if (c->fft_mode == FFT_ND && ((int64_t)c->n_ctx * c->d) % 2)
        return err_set(err, "fft: fft_mode=nd views n*d floats as complex pairs, so n_ctx*d must be even "
                            "(n_ctx=%d, d=%d)", c->n_ctx, c->d);
    return 0;
}

static int fft_declare(const Config *c, ParamDecl *decl)
{
    (void)c;
    (void)decl;
    return 0;
}

static size_t fft_saved(const Config *c)
{
    (void)c;
    return 0;
}

/* One sample [n*d] and its transform: nd [n*d]; fnet the half spectrum
   [n, d/2+1] complex. */
static size_t fft_scratch(const Config *c, int B)
{
    (void)B;
    size_t n = c->n_ctx, d = c->d;
    size_t out = c->fft_mode == FFT_FNET ? n * (d / 2 + 1) * 2 : n * d;
    return fft_floats(n * d) + fft_floats(out) + FFT_ALIGN_FLOATS;
}

static void fft_destroy(void *state)
{
    FftState *s = state;
    if (!s) return;
    fft_plan_free(&s->forward);
    fft_plan_free(&s->inverse);
    free(s);
}

static void *fft_create(const Config *c, char *err)
{
    FftState *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "fft: out of memory");
        return NULL;
    }
    s->mode = c->fft_mode;
    s->n = c->n_ctx;
    s->d = c->d;
    int bad;
    if (s->mode == FFT_ND) {
        int N = s->n * s->d / 2;
        bad = fft_plan_c2c(&s->forward, N, FFTW_FORWARD, err) || fft_plan_c2c(&s->inverse, N, FFTW_BACKWARD, err);
    } else {
        bad = fft_plan_r2c_2d(&s->forward, s->n, s->d, err);
    }
    if (bad) {
        fft_destroy(s);
        return NULL;
    }
    return s;
}

/* in [B, n, d] -> out [B, n, d]: the orthonormal length-n*d/2 complex DFT
   of each sample through `plan` (forward for y, inverse for dx). */
static void nd_apply(const MixArgs *a, const FftPlan *plan, const float *in, float *out)
{
    size_t nd = (size_t)a->n * a->d;
    float *cursor = a->scratch, *buf = fft_carve(&cursor, nd), *spec = fft_carve(&cursor, nd);
    float scale = (float)(1.0 / sqrt((double)(nd / 2)));
    for (int b = 0; b < a->B; b++) {
        memcpy(buf, in + b * nd, sizeof(float) * nd);
        fft_exec(plan, buf, spec);
        float *o = out + b * nd;
        for (size_t i = 0; i < nd; i++) o[i] = spec[i] * scale;
    }
}

/* in [B, n, d] -> out [B, n, d] = Re DFT2 of each sample.  The r2c plan
   gives columns l <= d/2; the rest mirror as Z[k, l] = conj Z[-k, d-l]. */
static void fnet_apply(const MixArgs *a, const FftPlan *plan, const float *in, float *out)
{
    int n = a->n, d = a->d, half = d / 2 + 1;
    size_t nd = (size_t)n * d;
    float *cursor = a->scratch;
    float *buf = fft_carve(&cursor, nd), *spec = fft_carve(&cursor, (size_t)n * half * 2);
    for (int b = 0; b < a->B; b++) {
        memcpy(buf, in + b * nd, sizeof(float) * nd);
        fft_exec(plan, buf, spec);
        float *o = out + b * nd;
        for (int k = 0; k < n; k++) {
            const float *row = spec + (size_t)k * half * 2;
            const float *mirror = spec + (size_t)((n - k) % n) * half * 2;
            float *orow = o + (size_t)k * d;
            for (int l = 0; l < half && l < d; l++) orow[l] = row[2 * l];
            for (int l = half; l < d; l++) orow[l] = mirror[2 * (d - l)];
        }
    }
}

static void fft_forward(const MixArgs *a, const float *x, float *y)
{
    const FftState *s = a->state;
    if (s->mode == FFT_ND) nd_apply(a, &s->forward, x, y);
    else fnet_apply(a, &s->forward, x, y);
}

/* dy [B, n, d] -> dx [B, n, d]; no parameters. */
static void fft_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    (void)x;
    const FftState *s = a->state;
    if (s->mode == FFT_ND) nd_apply(a, &s->inverse, dy, dx);
    else fnet_apply(a, &s->forward, dy, dx);
}

/* FLOPs per token, forward + backward, by the usual FFT count: a complex
   DFT of length N costs 5 N log2 N, a real one of N points 2.5 N log2 N.
   nd: two complex transforms of N = n d/2 per sample, / n tokens:
   5 d log2(n d/2).  fnet: two real 2-D transforms of n d points per sample:
   5 d log2(n d).  The copies and the scaling are not counted. */
static double fft_flops(const Config *c, int causal)
{
    (void)causal;
    double n = c->n_ctx, d = c->d;
    if (c->fft_mode == FFT_ND) return 5.0 * d * log2(fmax(n * d / 2, 2.0));
    return 5.0 * d * log2(fmax(n * d, 2.0));
}

/* tests/engine/test_mixer_contract.c checks this besides the defaults */
static const char *const FFT_CHECK_VARIANTS[] = {"fft_mode=fnet", NULL};

const MixerOps mixer_fft = {
    .name = "fft",
    .summary = "parameter-free Fourier mixing (Backurs et al.; fft_mode=nd|fnet)",
    .has_causal = 0,
    .has_bidir = 1,
    .default_pos = POS_NONE,
    .check_config = fft_check,
    .declare = fft_declare,
    .saved_per_sample = fft_saved,
    .scratch_floats = fft_scratch,
    .create = fft_create,
    .destroy = fft_destroy,
    .forward = fft_forward,
    .backward = fft_backward,
    .extra_flops_per_token = fft_flops,
    .check_variants = FFT_CHECK_VARIANTS,
};
