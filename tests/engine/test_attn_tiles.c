/*
 * test_attn_tiles.c — the tiled attention of engine/attn_tiles.c against
 * the untiled form (a naive double-precision reference here: the n x n
 * softmax, its product with v, and the softmax's backward), forward and
 * backward, causal and bidirectional, with and without a window, at every
 * tile edge: one query, n below a tile, n a tile, n not a multiple of
 * either tile; strided rows as the mixer lays them out.  Then the mixer
 * (attention, and swa with a window): samples on 2 threads at once give
 * the outputs and input gradients of 1 thread bit for bit; and its
 * memory, from the engine's own accounting (job_memory_bytes, work_alloc),
 * grows linearly in n where the untiled form kept h n^2 scores.
 */
#include <cblas.h>
#include <pthread.h>

#include "engine/attn_tiles.h"
#include "engine/memory.h"
#include "engine/mixer.h"
#include "tests/test_util.h"

/* Keys query i sees under the mask. */
static int sees(const AttnMask *mk, int i, int j)
{
    if (mk->causal && j > i) return 0;
    return mk->window <= 0 || abs(i - j) < mk->window;
}

/* The untiled form in double: P = softmax(scale q k^T, masked), o = P v;
   backward dP = dout v^T, dS = P (dP - rowsum(P dP)), dq = scale dS k,
   dk = scale dS^T q, dv = P^T dout.  Rows at stride ld / ldo, n x dh out. */
static void naive(const AttnMask *mk, int n, int dh, double scale, const float *q, const float *k, const float *v,
                  int ld, const float *dout, int ldo, double *o, double *dq, double *dk, double *dv)
{
    double *P = calloc((size_t)n * n, sizeof(double)), *dP = calloc((size_t)n * n, sizeof(double));
    memset(o, 0, sizeof(double) * n * dh);
    memset(dq, 0, sizeof(double) * n * dh);
    memset(dk, 0, sizeof(double) * n * dh);
    memset(dv, 0, sizeof(double) * n * dh);
    for (int i = 0; i < n; i++) {
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < n; j++) {
            if (!sees(mk, i, j)) continue;
            double s = 0;
            for (int c = 0; c < dh; c++) s += (double)q[(size_t)i * ld + c] * k[(size_t)j * ld + c];
            P[(size_t)i * n + j] = s * scale;
            mx = fmax(mx, s * scale);
        }
        for (int j = 0; j < n; j++)
            if (sees(mk, i, j)) sum += (P[(size_t)i * n + j] = exp(P[(size_t)i * n + j] - mx));
        for (int j = 0; j < n; j++) {
            P[(size_t)i * n + j] = sees(mk, i, j) ? P[(size_t)i * n + j] / sum : 0.0;
            for (int c = 0; c < dh; c++) o[(size_t)i * dh + c] += P[(size_t)i * n + j] * v[(size_t)j * ld + c];
        }
    }
    for (int i = 0; i < n; i++) {
        double dot = 0;
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int c = 0; c < dh; c++) s += (double)dout[(size_t)i * ldo + c] * v[(size_t)j * ld + c];
            dP[(size_t)i * n + j] = s;
            dot += P[(size_t)i * n + j] * s;
        }
        for (int j = 0; j < n; j++) {
            double p = P[(size_t)i * n + j], ds = p * (dP[(size_t)i * n + j] - dot);
            for (int c = 0; c < dh; c++) {
                dq[(size_t)i * dh + c] += scale * ds * k[(size_t)j * ld + c];
                dk[(size_t)j * dh + c] += scale * ds * q[(size_t)i * ld + c];
                dv[(size_t)j * dh + c] += p * dout[(size_t)i * ldo + c];
            }
        }
    }
    free(P);
    free(dP);
}

/* max |tiled - reference| over n x dh entries (tiled at stride ld) over
   the reference's largest entry. */
static double rel_err(const float *tiled, int ld, const double *ref, int n, int dh)
{
    double diff = 0, scale = 0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < dh; c++) {
            diff = fmax(diff, fabs(tiled[(size_t)i * ld + c] - ref[(size_t)i * dh + c]));
            scale = fmax(scale, fabs(ref[(size_t)i * dh + c]));
        }
    return scale > 0 ? diff / scale : diff;
}

static void check_case(int n, int causal, int window)
{
    enum { DH = 8, LD = 3 * DH + 5, LDO = DH + 3 };   /* strides as the mixer's, a little wider */
    AttnMask mk = {causal, window};
    float scale = 1.0f / sqrtf((float)DH);
    size_t rows = (size_t)n * LD, orows = (size_t)n * LDO;
    float *qkv = malloc(sizeof(float) * rows), *o = malloc(sizeof(float) * orows),
          *dout = malloc(sizeof(float) * orows), *dqkv = malloc(sizeof(float) * rows),
          *lse = malloc(sizeof(float) * n), *scratch = malloc(sizeof(float) * attn_tiles_scratch_floats());
    double *ro = malloc(sizeof(double) * n * DH), *rdq = malloc(sizeof(double) * n * DH),
           *rdk = malloc(sizeof(double) * n * DH), *rdv = malloc(sizeof(double) * n * DH);
    Rng r;
    rng_seed(&r, 100 + n * 4 + causal * 2 + window);
    fill(qkv, rows, &r, 1.5f);    /* scores spread over several units: the online rescaling matters */
    fill(dout, orows, &r, 1.0f);
    for (size_t i = 0; i < rows; i++) dqkv[i] = NAN;   /* the columns between heads stay untouched */
    const float *q = qkv, *k = qkv + DH, *v = qkv + 2 * DH;
    attn_tiles_forward(NULL, &mk, n, DH, scale, q, k, v, LD, o, LDO, lse, scratch);
    attn_tiles_backward(NULL, &mk, n, DH, scale, q, k, v, LD, o, dout, LDO, lse, dqkv, dqkv + DH, dqkv + 2 * DH, LD,
                        scratch);
    naive(&mk, n, DH, scale, q, k, v, LD, dout, LDO, ro, rdq, rdk, rdv);
    double e[4] = {rel_err(o, LDO, ro, n, DH), rel_err(dqkv, LD, rdq, n, DH), rel_err(dqkv + DH, LD, rdk, n, DH),
                   rel_err(dqkv + 2 * DH, LD, rdv, n, DH)};
    static const char *const what[] = {"o", "dq", "dk", "dv"};
    for (int i = 0; i < 4; i++)
        CHECK(e[i] < 2e-5, "n=%d causal=%d window=%d: %s off the untiled form by %.3g (relative)", n, causal, window,
              what[i], e[i]);
    int untouched = 1;
    for (int t = 0; t < n; t++)
        for (int c = 3 * DH; c < LD; c++) untouched &= isnan(dqkv[(size_t)t * LD + c]);
    CHECK(untouched, "n=%d: backward wrote outside dq, dk, dv", n);
    free(qkv), free(o), free(dout), free(dqkv), free(lse), free(scratch);
    free(ro), free(rdq), free(rdk), free(rdv);
}

/* Every tile edge, both masks; and windows narrower than a tile, wider
   than one, and wider than n (a sliding window reuses these tiles). */
static void test_tiles_match_untiled(void)
{
    const int TQ = ATTN_TILE_Q, TK = ATTN_TILE_K;
    const int lengths[] = {1, 2, 7, TQ - 1, TQ, TQ + 1, TK, TK + 3, 2 * TK + TQ + 5};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        for (int causal = 0; causal <= 1; causal++) check_case(lengths[i], causal, 0);
    const int windows[] = {1, 5, TQ + 3, TK + 9, 4 * TK};
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++)
        for (int causal = 0; causal <= 1; causal++) check_case(2 * TK + TQ + 5, causal, windows[i]);
}

/* ---- the mixer on 1 and 2 threads ---- */

typedef struct {
    const MixerOps *ops;
    MixArgs a;
    const float *x, *dy;
    float *y, *dx;
} Slice;

static void *run_slice(void *arg)
{
    Slice *s = arg;
    s->ops->forward(&s->a, s->x, s->y);
    s->ops->backward(&s->a, s->x, s->dy, s->dx);
    return NULL;
}

/* Runs s[0..2) on two threads at once (threaded) or one after the other
   on this one. */
static void run_slices(Slice *s, int threaded)
{
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        if (threaded) pthread_create(&th[t], NULL, run_slice, &s[t]);
        else run_slice(&s[t]);
    }
    for (int t = 0; threaded && t < 2; t++) pthread_join(th[t], NULL);
}

/* Two samples, each a slice of its own (saved values, scratch, gradients)
   as the trainer's threads hold them: on 2 threads at once the same bits as
   on 1 thread one after the other; and the batch of both in one call (one
   thread's batch) the same to float32 rounding (its projections are one
   sgemm of 2n rows, whose blocking may round differently). */
static void check_threads(const char *arch, const char *extra, int causal)
{
    const int B = 2, n = ATTN_TILE_K + ATTN_TILE_Q + 3;
    MixerRig rig;
    memset(&rig, 0, sizeof rig);
    char err[ERR_LEN] = "";
    char nn[32], aa[48];
    snprintf(nn, sizeof nn, "n_ctx=%d", n);
    snprintf(aa, sizeof aa, "arch=%s", arch);
    if (tm_build(&rig.m, &rig.c, aa, causal ? "task=clm" : "task=mlm", "d=16", "heads=2", nn, "layers=1", extra,
                 NULL) ||
        work_alloc(&rig.w, &rig.m, B, 1, err)) {
        CHECK(0, "build: %s", err);
        return;
    }
    rig_wire(&rig, B, n, causal);
    const MixerOps *ops = rig.m.mixer;
    size_t nd = (size_t)n * rig.c.d, all = (size_t)B * nd;
    float *x = malloc(sizeof(float) * all), *dy = malloc(sizeof(float) * all), *out[3][2];
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 2; k++) out[v][k] = malloc(sizeof(float) * all);   /* [way][y or dx] */
    Rng r;
    rng_seed(&r, 7 + causal);
    fill(x, all, &r, 1.0f);
    fill(dy, all, &r, 1.0f);
    const BlockParams *bp = &rig.m.stacks[0].blocks[0];
    for (int k = 0; k < bp->n_mix; k++)
        fill(model_param(&rig.m, bp->mix0 + k), rig.m.params[bp->mix0 + k].numel, &r, 0.5f);
    ops->forward(&rig.a, x, out[0][0]);
    ops->backward(&rig.a, x, dy, out[0][1]);
    Slice s[2];
    float *own[2][3], *dw[2][MIX_MAX_PARAMS];
    for (int t = 0; t < 2; t++) {
        own[t][0] = malloc(sizeof(float) * ops->saved_per_sample(&rig.m.cfg));
        own[t][1] = malloc(sizeof(float) * ops->scratch_floats(&rig.m.cfg, 1));
        own[t][2] = calloc(rig.m.n_dense_floats, sizeof(float));
        for (int k = 0; k < bp->n_mix; k++) dw[t][k] = own[t][2] + rig.m.params[bp->mix0 + k].offset;
    }
    for (int way = 1; way <= 2; way++) {
        for (int t = 0; t < 2; t++) {
            s[t].ops = ops;
            s[t].a = rig.a;
            s[t].a.B = 1;
            s[t].a.saved = own[t][0];
            s[t].a.scratch = own[t][1];
            s[t].a.dw = dw[t];
            s[t].x = x + t * nd;
            s[t].dy = dy + t * nd;
            s[t].y = out[way][0] + t * nd;
            s[t].dx = out[way][1] + t * nd;
        }
        run_slices(s, way == 2);
    }
    for (int k = 0; k < 2; k++) {
        const char *what = k ? "dx" : "y";
        CHECK(memcmp(out[1][k], out[2][k], sizeof(float) * all) == 0,
              "%s causal=%d: %s differs between 2 threads and 1", arch, causal, what);
        double scale = max_abs(out[0][k], all), diff = max_diff(out[0][k], out[1][k], all);
        CHECK(scale > 0 && diff <= 1e-5 * scale, "%s causal=%d: %s of the batch in one call off by %g (scale %g)",
              arch, causal, what, diff, scale);
    }
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++) free(own[t][k]);
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 2; k++) free(out[v][k]);
    free(x), free(dy);
    rig_close(&rig);
}

static void test_threads_bit_identical(void)
{
    check_threads("attention", NULL, 1);
    check_threads("attention", NULL, 0);
    /* swa: the same tiles under a window (engine/mixers/swa.c) */
    check_threads("swa", "window=5", 1);
    check_threads("swa", "window=5", 0);
}

/* ---- memory ---- */

/* The engine's estimate (job_memory_bytes: what a job is refused by) and
   the work arena it really allocates, at n and 2n: each grows by at most
   about 2x, and at 4096 the whole estimate is below the h n^2 floats the
   untiled scores alone took. */
static void test_memory_linear(void)
{
    const int h = 4;
    double est[2], arena[2];
    for (int i = 0; i < 2; i++) {
        int n = 2048 << i;
        char nn[32], err[ERR_LEN];
        snprintf(nn, sizeof nn, "n_ctx=%d", n);
        Config c;
        const char *args[] = {"arch=attention", "task=clm", "d=64", "heads=4", "layers=2", "batch=1", "vocab=100",
                              nn, NULL};
        MemoryNeed need;
        if (tm_config(&c, args) || config_validate(&c, err) || job_memory_bytes(&c, 1, 0, 0, &need, err)) {
            CHECK(0, "n=%d: %s", n, err);
            return;
        }
        est[i] = need.activations;
        Model m;
        Work w;
        if (model_build(&m, &c, err) || work_alloc(&w, &m, 1, 1, err)) {
            CHECK(0, "n=%d: %s", n, err);
            return;
        }
        arena[i] = (double)w.arena_bytes;
        CHECK(m.mixer->saved_per_sample(&c) < (size_t)n * 8 * c.d, "n=%d: saved %zu floats a sample", n,
              m.mixer->saved_per_sample(&c));
        if (i == 1)
            CHECK(need.total < 4.0 * h * (double)n * n, "n=%d: estimate %.0f bytes, not below the h n^2 scores' %.0f",
                  n, need.total, 4.0 * h * (double)n * n);
        work_free(&w);
        model_free(&m);
    }
    CHECK(est[1] <= 2.05 * est[0], "activations estimate %.0f at 4096, %.0f at 2048: not linear", est[1], est[0]);
    CHECK(arena[1] <= 2.05 * arena[0], "work arena %.0f at 4096, %.0f at 2048: not linear", arena[1], arena[0]);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_tiles_match_untiled);
    RUN(test_threads_bit_identical);
    RUN(test_memory_linear);
    return check_failures_ ? 1 : 0;
}
