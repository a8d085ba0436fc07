/*
 * test_swa.c — the swa mixer's own checks (docs/mixers.md, "swa") beyond
 * those every mixer gets from the registry (test_grad, test_incremental,
 * test_generate, test_tasks, test_alloc, the crosscheck): the window key
 * refused in one line; outputs and input gradients equal to a naive masked
 * quadratic form in double for windows 1, 3 and n - 1 at an n that is not
 * a multiple of either tile edge, causal and bidirectional; window >= n
 * equal to attention bit for bit; a perturbed token moves only the outputs
 * its window reaches (the mixer alone, and a two-layer model's logits); the
 * generation cache bounded by the window; a short run on builtin:stories
 * whose loss falls.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "engine/attn_tiles.h"
#include "tests/test_util.h"

enum { WQ, WK, WV, WO, BQ, BK, BV, BO };

/* Each bad window is refused by config_set with one line naming it. */
static void test_refusals(void)
{
    const char *bad[] = {"0", "-1", "65537", "2.5", "many", ""};
    for (int i = 0; i < 6; i++) {
        Config c;
        char err[512] = "";
        config_defaults(&c);
        config_set(&c, "arch", "swa", err);
        int rc = config_set(&c, "window", bad[i], err);
        CHECK(rc != 0, "window=%s accepted", bad[i]);
        CHECK(strstr(err, "window") && !strchr(err, '\n'), "window=%s: message '%s'", bad[i], err);
    }
    Config c;
    config_defaults(&c);
    CHECK(c.window == 32, "default window %d, docs/mixers.md says 32", c.window);
}

/* Key j is visible to query i (docs/mixers.md, written apart from
   engine/attn_tiles.c's key ranges). */
static int visible(int causal, int window, int i, int j)
{
    return causal ? j <= i && j > i - window : abs(i - j) < window;
}

/* y = W x + b for one row in double: W [rows, cols] float. */
static void affine(double *y, const float *W, const float *b, const double *x, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        double s = b ? b[r] : 0.0;
        for (int c = 0; c < cols; c++) s += (double)W[(size_t)r * cols + c] * x[c];
        y[r] = s;
    }
}

/* The whole mixer on one sample in double, by its definition: q, k, v
   (each from its own weight), P = softmax(q k^T / sqrt(dh)) over the
   visible keys, o = P v, y = o Wo^T + bo; and its backward from dy:
   dO = dy Wo, dS = P (dP - rowsum(P dP)), dq, dk, dv, dx. */
static void naive(const float *const *w, int n, int d, int h, int causal, int window, const float *x,
                  const float *dy, double *y, double *dx)
{
    int dh = d / h;
    double scale = 1.0 / sqrt((double)dh);
    double *xd = calloc((size_t)n * d, sizeof(double)), *q = calloc((size_t)n * d, sizeof(double)),
           *k = calloc((size_t)n * d, sizeof(double)), *v = calloc((size_t)n * d, sizeof(double)),
           *o = calloc((size_t)n * d, sizeof(double)), *dO = calloc((size_t)n * d, sizeof(double)),
           *dq = calloc((size_t)n * d, sizeof(double)), *dk = calloc((size_t)n * d, sizeof(double)),
           *dv = calloc((size_t)n * d, sizeof(double)), *P = calloc((size_t)n * n, sizeof(double)),
           *dP = calloc((size_t)n * n, sizeof(double));
    for (size_t i = 0; i < (size_t)n * d; i++) xd[i] = x[i];
    for (int t = 0; t < n; t++) {
        affine(q + (size_t)t * d, w[WQ], w[BQ], xd + (size_t)t * d, d, d);
        affine(k + (size_t)t * d, w[WK], w[BK], xd + (size_t)t * d, d, d);
        affine(v + (size_t)t * d, w[WV], w[BV], xd + (size_t)t * d, d, d);
        for (int c = 0; c < d; c++) {
            double s = 0;
            for (int r = 0; r < d; r++) s += (double)dy[(size_t)t * d + r] * w[WO][(size_t)r * d + c];
            dO[(size_t)t * d + c] = s;
        }
    }
    for (int hd = 0; hd < h; hd++) {
        int c0 = hd * dh;
        for (int i = 0; i < n; i++) {
            double mx = -INFINITY, sum = 0, delta = 0;
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int c = 0; c < dh; c++) s += q[(size_t)i * d + c0 + c] * k[(size_t)j * d + c0 + c];
                P[(size_t)i * n + j] = s * scale;
                if (visible(causal, window, i, j)) mx = fmax(mx, s * scale);
            }
            for (int j = 0; j < n; j++) {
                double e = visible(causal, window, i, j) ? exp(P[(size_t)i * n + j] - mx) : 0.0;
                P[(size_t)i * n + j] = e;
                sum += e;
            }
            for (int j = 0; j < n; j++) {
                double p = P[(size_t)i * n + j] /= sum, g = 0;
                for (int c = 0; c < dh; c++) {
                    o[(size_t)i * d + c0 + c] += p * v[(size_t)j * d + c0 + c];
                    g += dO[(size_t)i * d + c0 + c] * v[(size_t)j * d + c0 + c];
                }
                dP[(size_t)i * n + j] = g;
                delta += p * g;
            }
            for (int j = 0; j < n; j++) {
                double p = P[(size_t)i * n + j], ds = p * (dP[(size_t)i * n + j] - delta);
                for (int c = 0; c < dh; c++) {
                    dq[(size_t)i * d + c0 + c] += scale * ds * k[(size_t)j * d + c0 + c];
                    dk[(size_t)j * d + c0 + c] += scale * ds * q[(size_t)i * d + c0 + c];
                    dv[(size_t)j * d + c0 + c] += p * dO[(size_t)i * d + c0 + c];
                }
            }
        }
    }
    for (int t = 0; t < n; t++) {
        affine(y + (size_t)t * d, w[WO], w[BO], o + (size_t)t * d, d, d);
        for (int c = 0; c < d; c++) {
            double s = 0;
            for (int r = 0; r < d; r++)
                s += dq[(size_t)t * d + r] * w[WQ][(size_t)r * d + c] + dk[(size_t)t * d + r] * w[WK][(size_t)r * d + c] +
                     dv[(size_t)t * d + r] * w[WV][(size_t)r * d + c];
            dx[(size_t)t * d + c] = s;
        }
    }
    free(xd), free(q), free(k), free(v), free(o), free(dO), free(dq), free(dk), free(dv), free(P), free(dP);
}

/* The largest |got - want| over the largest |want|. */
static double rel_diff(const float *got, const double *want, size_t N)
{
    double diff = 0, scale = 0;
    for (size_t i = 0; i < N; i++) {
        diff = fmax(diff, fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
    }
    return scale > 0 ? diff / scale : INFINITY;
}

/* A rig of arch on B samples of n (d 16, h 2, one layer), the mixer's
   weights N(0, 0.5) from seed; extra: one more key=value or NULL. */
static int rig_open(MixerRig *r, const char *arch, const char *extra, int B, int n, int causal, uint64_t seed)
{
    char a_arg[48], n_arg[32];
    snprintf(a_arg, sizeof a_arg, "arch=%s", arch);
    snprintf(n_arg, sizeof n_arg, "n_ctx=%d", n);
    memset(r, 0, sizeof *r);
    if (tm_build(&r->m, &r->c, a_arg, n_arg, causal ? "task=clm" : "task=mlm", "d=16", "heads=2", "layers=1", extra,
                 NULL))
        return -1;
    return rig_alloc_random(r, B, n, causal, seed);
}

/* Windows 1, 3 and n - 1 at n = 70 (a query tile of 64 and a ragged one,
   inside one key tile) and window 3 and 130 at n = 200 (two key tiles),
   both modes, two samples: y and dx against the double form. */
static void test_matches_naive(void)
{
    const int cases[][2] = {{70, 1}, {70, 3}, {70, 69}, {200, 3}, {200, 130}};
    for (int ci = 0; ci < 5; ci++)
        for (int causal = 1; causal >= 0; causal--) {
            int n = cases[ci][0], window = cases[ci][1], B = 2;
            char wk[32];
            snprintf(wk, sizeof wk, "window=%d", window);
            MixerRig r;
            if (rig_open(&r, "swa", wk, B, n, causal, 3 + ci)) { CHECK(0, "build n=%d %s", n, wk); continue; }
            int d = r.c.d;
            size_t nd = (size_t)n * d, N = (size_t)B * nd;
            float *x = malloc(sizeof(float) * N), *dy = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N),
                  *dx = malloc(sizeof(float) * N);
            double *y_ref = malloc(sizeof(double) * N), *dx_ref = malloc(sizeof(double) * N);
            Rng rng;
            rng_seed(&rng, 40 + ci);
            fill(x, N, &rng, 1.0f);
            fill(dy, N, &rng, 1.0f);
            r.m.mixer->forward(&r.a, x, y);
            r.m.mixer->backward(&r.a, x, dy, dx);
            for (int b = 0; b < B; b++)
                naive(r.wp, n, d, r.c.heads, causal, window, x + b * nd, dy + b * nd, y_ref + b * nd, dx_ref + b * nd);
            double ey = rel_diff(y, y_ref, N), edx = rel_diff(dx, dx_ref, N);
            CHECK(ey < 1e-5 && edx < 1e-5, "n=%d window=%d causal=%d: y off by %.2g, dx by %.2g (relative)", n, window,
                  causal, ey, edx);
            free(x), free(dy), free(y), free(dx), free(y_ref), free(dx_ref);
            rig_close(&r);
        }
}

/* window = n and the largest window: outputs, input gradients and weight
   gradients equal attention's with the same weights, bit for bit, at an n
   of several tiles, both modes. */
static void test_wide_window_is_attention(void)
{
    const int n = ATTN_TILE_K + ATTN_TILE_Q + 5, B = 2;
    const char *windows[] = {"window=197", "window=65536"};
    for (int wi = 0; wi < 2; wi++)
        for (int causal = 1; causal >= 0; causal--) {
            MixerRig att, swa;
            if (rig_open(&att, "attention", NULL, B, n, causal, 9) || rig_open(&swa, "swa", windows[wi], B, n, causal, 9)) {
                CHECK(0, "build");
                return;
            }
            size_t N = (size_t)B * n * att.c.d;
            float *x = malloc(sizeof(float) * N), *dy = malloc(sizeof(float) * N), *out[2][2];
            for (int k = 0; k < 4; k++) out[k / 2][k % 2] = malloc(sizeof(float) * N);
            Rng rng;
            rng_seed(&rng, 12);
            fill(x, N, &rng, 1.0f);
            fill(dy, N, &rng, 1.0f);
            MixerRig *rigs[2] = {&att, &swa};
            for (int k = 0; k < 2; k++) {
                rigs[k]->m.mixer->forward(&rigs[k]->a, x, out[k][0]);
                rigs[k]->m.mixer->backward(&rigs[k]->a, x, dy, out[k][1]);
            }
            int same = !memcmp(out[0][0], out[1][0], sizeof(float) * N) && !memcmp(out[0][1], out[1][1], sizeof(float) * N);
            const BlockParams *bp = &att.m.stacks[0].blocks[0];
            for (int k = 0; k < bp->n_mix; k++)
                same &= !memcmp(att.dwp[k], swa.dwp[k], sizeof(float) * att.m.params[bp->mix0 + k].numel);
            CHECK(same, "%s causal=%d: swa differs from attention", windows[wi], causal);
            for (int k = 0; k < 4; k++) free(out[k / 2][k % 2]);
            free(x), free(dy);
            rig_close(&att);
            rig_close(&swa);
        }
}

/* The mixer alone, window 3, n 70: a changed input row t changes the
   outputs its window reaches (rows t .. t + 2 causal, |i - t| < 3
   bidirectional) and leaves every other row bit for bit. */
static void test_window_locality(void)
{
    const int n = 70, window = 3, ts[] = {0, 5, 63, 64, 69};
    for (int causal = 1; causal >= 0; causal--) {
        MixerRig r;
        if (rig_open(&r, "swa", "window=3", 1, n, causal, 21)) { CHECK(0, "build"); return; }
        int d = r.c.d;
        size_t N = (size_t)n * d;
        float *x = malloc(sizeof(float) * N), *y0 = malloc(sizeof(float) * N), *y1 = malloc(sizeof(float) * N);
        Rng rng;
        rng_seed(&rng, 22);
        fill(x, N, &rng, 1.0f);
        r.m.mixer->forward(&r.a, x, y0);
        for (int k = 0; k < 5; k++) {
            int t = ts[k];
            float keep[64];
            memcpy(keep, x + (size_t)t * d, sizeof(float) * d);
            for (int c = 0; c < d; c++) x[(size_t)t * d + c] += 0.5f;
            r.m.mixer->forward(&r.a, x, y1);
            memcpy(x + (size_t)t * d, keep, sizeof(float) * d);
            int wrong = 0;
            for (int i = 0; i < n; i++) {
                int reached = causal ? i >= t && i < t + window : abs(i - t) < window;
                int moved = memcmp(y0 + (size_t)i * d, y1 + (size_t)i * d, sizeof(float) * d) != 0;
                if (moved != reached && wrong++ < 3)
                    CHECK(0, "causal=%d: changing row %d %s row %d", causal, t, moved ? "moved" : "left", i);
            }
        }
        free(x), free(y0), free(y1);
        rig_close(&r);
    }
}

/* A two-layer clm model, window 2: changing token t leaves the logits
   before t, and from t + 3 on (two layers reach one position back each),
   bit for bit, and moves the ones at t. */
static void test_model_causality(void)
{
    Model m;
    Config c;
    if (tm_build(&m, &c, "arch=swa", "window=2", "task=clm", "n_ctx=12", NULL)) { CHECK(0, "build"); return; }
    Rng r;
    rng_seed(&r, 5);
    tm_randomize(&m, &r, 0.3f);
    Work w;
    char err[ERR_LEN];
    if (work_alloc(&w, &m, 1, 0, err)) { CHECK(0, "%s", err); model_free(&m); return; }
    int n = c.n_ctx, V = c.vocab;
    float *ref = malloc(sizeof(float) * (size_t)n * V);
    for (int t = 0; t < n; t++) {
        for (int k = 0; k < n; k++) { w.inputs[k] = 2 + k % (V - 2); w.targets[k] = 3; }
        tm_run(&m, &w, 1, 0, 0);
        memcpy(ref, w.logits, sizeof(float) * (size_t)n * V);
        w.inputs[t] = 2 + (t + 5) % (V - 2);
        tm_run(&m, &w, 1, 0, 0);
        for (int i = 0; i < n; i++) {
            int same = !memcmp(ref + (size_t)i * V, w.logits + (size_t)i * V, sizeof(float) * V);
            if (i < t || i >= t + 3) CHECK(same, "token %d: the logits at %d moved", t, i);
            if (i == t) CHECK(!same, "token %d: its own logits unmoved", t);
        }
    }
    free(ref);
    work_free(&w);
    model_free(&m);
}

/* Generation keeps min(window, n_ctx) keys and values per head: the same
   at n_ctx 64 and 4096, and attention's whole-context cache once the
   window covers n_ctx. */
static void test_cache_bounded(void)
{
    const MixerOps *swa = mixer_find("swa"), *att = mixer_find("attention");
    Config c;
    config_defaults(&c);
    config_set_arg(&c, "arch=swa", NULL);
    config_set_arg(&c, "window=16", NULL);
    size_t at64 = swa->cache_floats(&c);
    c.n_ctx = 4096;
    size_t at4096 = swa->cache_floats(&c);
    CHECK(at64 == (size_t)16 * 2 * c.d && at4096 == at64, "window 16: cache %zu floats at n 64, %zu at n 4096", at64,
          at4096);
    c.window = 65536;
    CHECK(swa->cache_floats(&c) == att->cache_floats(&c), "window past n_ctx: %zu floats, attention %zu",
          swa->cache_floats(&c), att->cache_floats(&c));
}

/* builtin:stories, window 8 at n_ctx 32: the mean loss of the last 10 of
   150 steps below the first step's by a third (measured: see the printed
   line; seconds on one thread). */
static void test_loss_falls(void)
{
    Config c;
    const char *args[] = {"arch=swa", "window=8", "d=32", "layers=2", "heads=2", "n_ctx=32", "batch=8", "steps=150",
                          "lr=0.005", "warmup=10", "decay=constant", "threads=1", "eval_tokens=2048", NULL};
    if (tm_config(&c, args)) { CHECK(0, "config"); return; }
    Dataset ds;
    char err[ERR_LEN];
    if (dataset_load_config(&c, NULL, &ds, err)) { CHECK(0, "%s", err); return; }
    double losses[150];
    double valid = tm_train(&c, &ds, losses, NULL), last = 0;
    for (int s = 140; s < 150; s++) last += losses[s] / 10;
    printf("  builtin:stories: loss %.3f at step 1, %.3f over the last 10 of 150, valid %.3f\n", losses[0], last, valid);
    CHECK(isfinite(valid) && last < losses[0] * 2 / 3, "loss %.3f -> %.3f", losses[0], last);
    dataset_free(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_refusals);
    RUN(test_matches_naive);
    RUN(test_wide_window_is_attention);
    RUN(test_window_locality);
    RUN(test_model_causality);
    RUN(test_cache_bounded);
    RUN(test_loss_falls);
    CHECK_EXIT();
}
