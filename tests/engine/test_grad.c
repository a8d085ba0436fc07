/*
 * test_grad.c — finite-difference checks of every op's backward pass and of
 * whole models (each mixer, each mode, every norm and act option, every
 * task, mlm with mlm_loss=all, the loss's rows alone through the last block
 * against all rows).  Each mixer alone, and its causality, are checked by
 * tests/engine/test_mixer_contract.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/mixer.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "engine/sparse.h"
#include "tests/check.h"
#include "tests/test_util.h"

/* |a - b| within rtol * max(|a|, |b|) + atol */
static int close_to(double a, double b, double rtol, double atol)
{
    return fabs(a - b) <= rtol * fmax(fabs(a), fabs(b)) + atol;
}

/* ---- op-level checks: loss = sum(y * r) ---- */

static void test_linear_grad(void)
{
    enum { N = 5, I = 7, O = 4 };
    Rng r;
    rng_seed(&r, 1);
    float x[N * I], w[O * I], b[O], y[N * O], rr[N * O], dx[N * I], dw[O * I] = {0}, db[O] = {0};
    fill(x, N * I, &r, 1);
    fill(w, O * I, &r, 1);
    fill(b, O, &r, 1);
    fill(rr, N * O, &r, 1);
    linear_backward(NULL, dx, dw, db, rr, x, w, N, I, O, 0);
    float h = 1e-2f;
    for (int i = 0; i < N * I; i++) {
        float keep = x[i];
        x[i] = keep + h; linear_forward(NULL, y, x, w, b, N, I, O); double lp = dotd(y, rr, N * O);
        x[i] = keep - h; linear_forward(NULL, y, x, w, b, N, I, O); double lm = dotd(y, rr, N * O);
        x[i] = keep;
        CHECK(close_to((lp - lm) / (2 * h), dx[i], 1e-3, 1e-3), "dx[%d] %g vs %g", i, (lp - lm) / (2 * h), dx[i]);
    }
    for (int i = 0; i < O * I; i++) {
        float keep = w[i];
        w[i] = keep + h; linear_forward(NULL, y, x, w, b, N, I, O); double lp = dotd(y, rr, N * O);
        w[i] = keep - h; linear_forward(NULL, y, x, w, b, N, I, O); double lm = dotd(y, rr, N * O);
        w[i] = keep;
        CHECK(close_to((lp - lm) / (2 * h), dw[i], 1e-3, 1e-3), "dw[%d]", i);
    }
    for (int i = 0; i < O; i++) {
        float keep = b[i];
        b[i] = keep + h; linear_forward(NULL, y, x, w, b, N, I, O); double lp = dotd(y, rr, N * O);
        b[i] = keep - h; linear_forward(NULL, y, x, w, b, N, I, O); double lm = dotd(y, rr, N * O);
        b[i] = keep;
        CHECK(close_to((lp - lm) / (2 * h), db[i], 1e-3, 1e-3), "db[%d]", i);
    }
}

/* linear_forward_residual is linear_forward plus the residual, to float32
   rounding, with and without a bias, in place (r = y) too. */
static void test_linear_residual(void)
{
    enum { N = 5, I = 7, O = 4 };
    Rng r;
    rng_seed(&r, 2);
    float x[N * I], w[O * I], b[O], res[N * O], y[N * O], want[N * O];
    fill(x, N * I, &r, 1);
    fill(w, O * I, &r, 1);
    fill(b, O, &r, 1);
    fill(res, N * O, &r, 1);
    for (int with_bias = 0; with_bias <= 1; with_bias++)
        for (int in_place = 0; in_place <= 1; in_place++) {
            linear_forward(NULL, want, x, w, with_bias ? b : NULL, N, I, O);
            for (int i = 0; i < N * O; i++) want[i] += res[i];
            memcpy(y, res, sizeof y);
            linear_forward_residual(NULL, y, x, w, with_bias ? b : NULL, in_place ? y : res, N, I, O);
            for (int i = 0; i < N * O; i++)
                CHECK(close_to(y[i], want[i], 1e-6, 1e-6), "bias %d in place %d: y[%d] %g vs %g", with_bias, in_place,
                      i, y[i], want[i]);
        }
}

/* rows_pick_add gathers a[rows] + b[rows]; rows_spread scatters in place, zeros
   elsewhere: every row subset of a small N, the first and last row in and
   out of it included. */
static void test_rows_ops(void)
{
    enum { N = 6, D = 3 };
    float a[N * D], b[N * D], y[N * D], x[N * D];
    for (int i = 0; i < N * D; i++) {
        a[i] = (float)i;
        b[i] = 100.0f * (float)i;
    }
    int bad = 0;
    for (unsigned set = 0; set < (1u << N); set++) {
        int32_t rows[N];
        int M = 0;
        for (int i = 0; i < N; i++)
            if (set >> i & 1) rows[M++] = i;
        rows_pick_add(y, a, b, rows, M, D);
        for (int r = 0; r < M; r++)
            for (int k = 0; k < D; k++) bad += y[r * D + k] != 101.0f * (float)(rows[r] * D + k);
        for (int i = 0; i < N * D; i++) x[i] = -1.0f;
        for (int r = 0; r < M; r++)
            for (int k = 0; k < D; k++) x[r * D + k] = (float)(rows[r] * D + k);
        rows_spread(x, rows, M, N, D);
        for (int i = 0; i < N; i++)
            for (int k = 0; k < D; k++) bad += x[i * D + k] != ((set >> i & 1) ? (float)(i * D + k) : 0.0f);
    }
    CHECK(bad == 0, "%d elements wrong over the 64 row sets", bad);
}

/* C = 9 runs the scalar loops only, C = 41 the 16-lane ones and a tail;
   accumulate = 1 adds dx to what is there. */
static void test_layernorm_grad(void)
{
    enum { N = 4, CMAX = 41 };
    const int widths[2] = {9, 41};
    for (int wi = 0; wi < 2; wi++) {
        int C = widths[wi];
        Rng r;
        rng_seed(&r, 2);
        float x[N * CMAX], w[CMAX], b[CMAX], y[N * CMAX], rr[N * CMAX], dx[N * CMAX], dx2[N * CMAX];
        float dw[CMAX] = {0}, db[CMAX] = {0}, mean[N], rstd[N];
        fill(x, N * C, &r, 1);
        fill(w, C, &r, 1);
        fill(b, C, &r, 1);
        fill(rr, N * C, &r, 1);
        layernorm_forward(y, mean, rstd, x, w, b, N, C);
        layernorm_backward(dx, dw, db, rr, x, mean, rstd, w, N, C, 0);
        for (int i = 0; i < N * C; i++) dx2[i] = 0.25f;
        float dw2[CMAX] = {0}, db2[CMAX] = {0};
        layernorm_backward(dx2, dw2, db2, rr, x, mean, rstd, w, N, C, 1);
        int off = 0;
        for (int i = 0; i < N * C; i++) off += dx2[i] != 0.25f + dx[i];
        CHECK(off == 0, "C=%d: accumulate=1 differs from 0.25 + dx at %d elements", C, off);
        float h = 1e-2f;
        float *targets[3] = {x, w, b}, *grads[3] = {dx, dw, db};
        int sizes[3] = {N * C, C, C};
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < sizes[k]; i++) {
                float keep = targets[k][i];
                targets[k][i] = keep + h; layernorm_forward(y, mean, rstd, x, w, b, N, C); double lp = dotd(y, rr, N * C);
                targets[k][i] = keep - h; layernorm_forward(y, mean, rstd, x, w, b, N, C); double lm = dotd(y, rr, N * C);
                targets[k][i] = keep;
                CHECK(close_to((lp - lm) / (2 * h), grads[k][i], 2e-3, 2e-3), "C=%d: ln grad %d[%d]: %g vs %g", C, k,
                      i, (lp - lm) / (2 * h), grads[k][i]);
            }
    }
}

static void test_activation_grad(void)
{
    enum { N = 64 };
    Rng r;
    rng_seed(&r, 3);
    float x[N], y[N], dx[N], rr[N];
    fill(x, N, &r, 2);
    fill(rr, N, &r, 1);
    for (int act = ACT_GELU; act <= ACT_NONE; act++) {
        act_backward(dx, rr, x, N, act, 0);
        float h = 1e-3f;
        for (int i = 0; i < N; i++) {
            if (act == ACT_RELU && fabsf(x[i]) < 2 * h) continue; /* kink */
            float keep = x[i];
            x[i] = keep + h; act_forward(y, x, N, act); double lp = dotd(y, rr, N);
            x[i] = keep - h; act_forward(y, x, N, act); double lm = dotd(y, rr, N);
            x[i] = keep;
            CHECK(close_to((lp - lm) / (2 * h), dx[i], 5e-3, 1e-3), "act %d dx[%d]", act, i);
        }
    }
    /* GELU exact erf form at known points */
    float pts[3] = {-1.0f, 0.5f, 2.0f}, out[3];
    act_forward(out, pts, 3, ACT_GELU);
    CHECK(fabs(out[0] - (-0.15865525393145707)) < 1e-6, "gelu(-1)=%.9g", out[0]);
    CHECK(fabs(out[1] - 0.34573123063700656) < 1e-6, "gelu(0.5)=%.9g", out[1]);
    CHECK(fabs(out[2] - 1.9544997361036416) < 1e-6, "gelu(2)=%.9g", out[2]);
}

static void test_xent_grad(void)
{
    enum { N = 4, V = 11 };
    Rng r;
    rng_seed(&r, 4);
    float logits[N * V], work[N * V];
    int32_t targets[N] = {3, -1, 0, 10};
    fill(logits, N * V, &r, 3);
    memcpy(work, logits, sizeof work);
    int64_t correct = 0;
    float scale = 1.0f / 3.0f;
    double loss = xent_forward_backward(work, targets, N, V, scale, 1, &correct);
    /* reference loss in double */
    double ref = 0;
    for (int i = 0; i < N; i++) {
        if (targets[i] < 0) continue;
        double mx = -1e30, s = 0;
        for (int v = 0; v < V; v++) mx = fmax(mx, logits[i * V + v]);
        for (int v = 0; v < V; v++) s += exp(logits[i * V + v] - mx);
        ref += log(s) + mx - logits[i * V + targets[i]];
    }
    CHECK(fabs(loss - ref) < 1e-5 * fabs(ref), "loss %.9g vs %.9g", loss, ref);
    float h = 1e-2f;
    for (int i = 0; i < N * V; i++) {
        float keep = logits[i], tmp[N * V];
        logits[i] = keep + h; memcpy(tmp, logits, sizeof tmp);
        double lp = xent_forward_backward(tmp, targets, N, V, 1, 0, NULL) * scale;
        logits[i] = keep - h; memcpy(tmp, logits, sizeof tmp);
        double lm = xent_forward_backward(tmp, targets, N, V, 1, 0, NULL) * scale;
        logits[i] = keep;
        CHECK(close_to((lp - lm) / (2 * h), work[i], 5e-3, 1e-4), "dlogits[%d] %g vs %g", i, (lp - lm) / (2 * h), work[i]);
    }
    for (int v = 0; v < V; v++) CHECK(work[1 * V + v] == 0.0f, "ignored row has gradient");
}

/* GELU runs 16 lanes at a time (AVX-512) and the rest one by one: both must
   give the same bits for every input, specials included.  Each value sits
   at lane 3 of a 16-wide block and in the scalar tail of the same call. */
static void test_gelu_lanes(void)
{
    enum { N = 19, TAIL = 17 };
    Rng r;
    rng_seed(&r, 11);
    float specials[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-45f, 3.0f, -3.0f, 8.9f, -8.9f, 13.0f, -13.0f, 40.0f, -40.0f,
                        1e30f, -1e30f, INFINITY, -INFINITY, NAN};
    int n_special = (int)(sizeof specials / sizeof specials[0]), bad = 0;
    for (int k = 0; k < n_special + 20000; k++) {
        float v = k < n_special ? specials[k] : (float)(rng_normal(&r) * 6.0);
        float x[N], dy[N], y[N], dx[N], acc[N];
        for (int i = 0; i < N; i++) {
            x[i] = (float)rng_normal(&r);
            dy[i] = (float)rng_normal(&r);
            acc[i] = 0.25f;
        }
        x[3] = x[TAIL] = v;
        dy[3] = dy[TAIL] = 0.75f;
        act_forward(y, x, N, ACT_GELU);
        act_backward(dx, dy, x, N, ACT_GELU, 0);
        act_backward(acc, dy, x, N, ACT_GELU, 1);
        int same = (isnan(y[3]) ? isnan(y[TAIL]) : memcmp(&y[3], &y[TAIL], 4) == 0) &&
                   (isnan(dx[3]) ? isnan(dx[TAIL]) : memcmp(&dx[3], &dx[TAIL], 4) == 0) &&
                   (isnan(acc[3]) ? isnan(acc[TAIL]) : memcmp(&acc[3], &acc[TAIL], 4) == 0);
        if (!same && bad++ < 5)
            CHECK(0, "gelu(%.9g): lanes %.9g %.9g %.9g, scalar %.9g %.9g %.9g", v, y[3], dx[3], acc[3], y[TAIL],
                  dx[TAIL], acc[TAIL]);
    }
    CHECK(bad == 0, "%d inputs differ between the 16-lane and the scalar GELU", bad);
}

/* The loss over a row wide enough for the 16-lane loops (V = 53: three
   blocks and a tail of 5), with a bias: loss and gradient against double
   precision, and accuracy counting the first maximum only -- ties placed
   within the blocks, across them and in the tail. */
static void test_xent_lanes(void)
{
    enum { N = 5, V = 53 };
    Rng r;
    rng_seed(&r, 14);
    float logits[N * V], bias[V], work[N * V], dbias[V] = {0};
    fill(logits, N * V, &r, 3);
    fill(bias, V, &r, 1);
    /* (first, second) positions of the maximum of logits + bias, target */
    const int ties[N][3] = {{20, 40, 20}, {20, 40, 40}, {50, 52, 50}, {5, 49, 49}, {33, 34, 7}};
    int want_hits = 0;
    for (int i = 0; i < N; i++) {
        logits[i * V + ties[i][0]] = 10.0f - bias[ties[i][0]];
        logits[i * V + ties[i][1]] = 10.0f - bias[ties[i][1]];
        float a = logits[i * V + ties[i][0]] + bias[ties[i][0]], b = logits[i * V + ties[i][1]] + bias[ties[i][1]];
        want_hits += a == b ? ties[i][2] == ties[i][0] : ties[i][2] == (a > b ? ties[i][0] : ties[i][1]);
    }
    int32_t targets[N];
    for (int i = 0; i < N; i++) targets[i] = ties[i][2];
    memcpy(work, logits, sizeof work);
    int64_t hits = 0;
    float scale = 0.5f;
    double loss = xent_head(work, bias, dbias, targets, N, V, scale, 1, &hits);
    double ref = 0, worst = 0, worst_db = 0, ref_db[V] = {0};
    for (int i = 0; i < N; i++) {
        double z[V], mx = -1e30, s = 0;
        for (int v = 0; v < V; v++) mx = fmax(mx, z[v] = (double)logits[i * V + v] + bias[v]);
        for (int v = 0; v < V; v++) s += exp(z[v] - mx);
        ref += log(s) + mx - z[targets[i]];
        for (int v = 0; v < V; v++) {
            double g = scale * (exp(z[v] - mx) / s - (v == targets[i]));
            worst = fmax(worst, fabs(work[i * V + v] - g));
            ref_db[v] += g;
        }
    }
    for (int v = 0; v < V; v++) worst_db = fmax(worst_db, fabs(dbias[v] - ref_db[v]));
    CHECK(fabs(loss - ref) < 1e-5 * fabs(ref), "loss %.9g vs %.9g", loss, ref);
    CHECK(worst < 1e-6 && worst_db < 1e-6, "gradient off by %g, bias gradient by %g", worst, worst_db);
    CHECK(hits == want_hits, "%lld correct, want %d (the first maximum counts)", (long long)hits, want_hits);
}

/* xent_head (the head's bias added inside the loss, its gradient summed
   there) = xent_forward_backward on logits + bias, and dbias = the column
   sums of the gradient rows in row order, bit for bit. */
static void test_xent_head(void)
{
    enum { N = 5, V = 37 };
    Rng r;
    rng_seed(&r, 12);
    float logits[N * V], plus[N * V], bias[V], dbias[V], ref_db[V];
    int32_t targets[N] = {3, 36, 0, 17, 17};
    fill(logits, N * V, &r, 3);
    fill(bias, V, &r, 1);
    for (int v = 0; v < V; v++) dbias[v] = ref_db[v] = 0.5f;
    for (int i = 0; i < N * V; i++) plus[i] = logits[i] + bias[i % V];
    int64_t c1 = 0, c2 = 0;
    double l1 = xent_forward_backward(plus, targets, N, V, 0.25f, 1, &c1);
    double l2 = xent_head(logits, bias, dbias, targets, N, V, 0.25f, 1, &c2);
    for (int i = 0; i < N; i++)
        for (int v = 0; v < V; v++) ref_db[v] += plus[i * V + v];
    CHECK(l1 == l2 && c1 == c2, "loss %.9g vs %.9g, correct %lld vs %lld", l1, l2, (long long)c1, (long long)c2);
    CHECK(memcmp(plus, logits, sizeof plus) == 0, "dlogits differ");
    CHECK(memcmp(ref_db, dbias, sizeof dbias) == 0, "dbias differs from the column sums");
}

/* bias_act_forward / act_backward_bias (a layer's bias and activation in
   one pass over each row) = the separate passes, bit for bit, every act;
   and the training pair (bias_act_forward_slope keeping GELU's slope,
   act_backward_slope multiplying by it) = those two, bit for bit, on rows
   with 16-lane blocks and a tail, large arguments included. */
static void test_bias_act_fused(void)
{
    enum { N = 3, C = 21 };
    Rng r;
    rng_seed(&r, 13);
    for (int act = ACT_GELU; act <= ACT_NONE; act++) {
        float h[N * C], h2[N * C], h3[N * C], y[N * C], y2[N * C], y3[N * C], b[C], dh[N * C], dh2[N * C];
        float dh3[N * C], db[C], db2[C], db3[C];
        fill(h, N * C, &r, 2);
        h[4] = h[C - 1] = -9.5f;
        h[C + 7] = h[2 * C - 2] = 30.0f;
        fill(b, C, &r, 1);
        fill(dh, N * C, &r, 1);
        memcpy(dh2, dh, sizeof dh);
        memcpy(dh3, dh, sizeof dh);
        memcpy(h3, h, sizeof h);
        for (int c = 0; c < C; c++) db[c] = db2[c] = db3[c] = 0.125f;
        for (int i = 0; i < N * C; i++) h2[i] = h[i] + b[i % C];
        act_forward(y2, h2, N * C, act);
        bias_act_forward(act == ACT_NONE ? h : y, h, b, N, C, act);
        bias_act_forward_slope(act == ACT_NONE ? h3 : y3, h3, b, N, C, act);
        const float *y1 = act == ACT_NONE ? h : y, *y1s = act == ACT_NONE ? h3 : y3;
        CHECK(!memcmp(h, h2, sizeof h) && !memcmp(y1, y2, sizeof y), "act %d: forward differs", act);
        CHECK(!memcmp(y1s, y2, sizeof y), "act %d: the forward keeping the slope differs", act);
        act_backward(dh2, dh2, h2, N * C, act, 0);
        for (int i = 0; i < N; i++)
            for (int c = 0; c < C; c++) db2[c] += dh2[i * C + c];
        act_backward_bias(dh, h, db, N, C, act);
        CHECK(!memcmp(dh, dh2, sizeof dh) && !memcmp(db, db2, sizeof db), "act %d: backward differs", act);
        act_backward_slope(dh3, h3, db3, N, C, act);
        CHECK(!memcmp(dh3, dh2, sizeof dh) && !memcmp(db3, db2, sizeof db), "act %d: backward from the slope differs",
              act);
    }
}

static void test_vec_exp(void)
{
    double worst = 0;
    for (float x = -80.0f; x < 80.0f; x += 0.01337f) {
        float y;
        vec_exp(&y, &x, 1);
        double ref = exp((double)x);
        worst = fmax(worst, fabs(y - ref) / ref);
    }
    CHECK(worst < 3e-7, "vec_exp max relative error %g", worst);
}

/* ---- whole models ---- */

/* The batch of training mode (mlm: masks from a generator; mlm_loss=all:
   every position a target), replacing tm_batch's evaluation-mode batch. */
static void training_batch(const Model *m, Work *w, int B, uint64_t seed)
{
    int wl = m->task->window_len(&m->cfg);
    int32_t *win = malloc(sizeof(int32_t) * (size_t)B * wl);
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < B * wl; i++) win[i] = 2 + (int32_t)rng_below(&r, m->cfg.vocab - 2);
    m->task->prepare(&m->cfg, B, win, NULL, w->inputs, w->targets, 1, &r, NULL);
    free(win);
}

/* extra: one more key=value (or NULL); with mlm_loss=all the batch is a
   training batch, where that setting applies. */
static void check_model_task(const char *task, const char *arch, const char *norm, const char *act,
                             const char *pos, const char *tie, const char *dropout, const char *extra)
{
    int training = strcmp(dropout, "0") != 0;
    Model m;
    Config c;
    char a1[48], a2[48], a3[48], a4[48], a5[48], a6[48], a7[48];
    snprintf(a7, sizeof a7, "task=%s", task);
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "norm=%s", norm);
    snprintf(a3, sizeof a3, "act=%s", act);
    snprintf(a4, sizeof a4, "pos=%s", pos);
    snprintf(a5, sizeof a5, "tie=%s", tie);
    snprintf(a6, sizeof a6, "dropout=%s", dropout);
    if (tm_build(&m, &c, a1, a2, a3, a4, a5, a6, a7, "seed=5", extra, NULL)) { CHECK(0, "build"); return; }
    /* larger weights than the 0.02 init so every path carries gradient */
    Rng r;
    rng_seed(&r, 11);
    for (int i = 0; i < m.n_params; i++) {
        Param *p = &m.params[i];
        float *v = model_param(&m, i);
        if (p->init == INIT_ONE) for (size_t j = 0; j < p->numel; j++) v[j] = 1.0f + 0.3f * (float)rng_normal(&r);
        else fill(v, p->numel, &r, p->init == INIT_UNIFORM_INV_SQRT_N ? 0.4f : 0.3f);
    }
    Work w;
    char err[512];
    int B = 3;
    if (work_alloc(&w, &m, B, 1, err)) { CHECK(0, "%s", err); model_free(&m); return; }
    tm_batch(&m, &w, B, 99);
    if (m.cfg.mlm_loss == MLM_LOSS_ALL) {
        training_batch(&m, &w, B, 99);
        int masked = 0, targets = 0;
        for (int i = 0; i < B * m.cfg.n_ctx; i++) {
            masked += w.inputs[i] == TOKEN_MASK;
            targets += w.targets[i] >= 0 && (w.inputs[i] == TOKEN_MASK || w.targets[i] == w.inputs[i]);
        }
        CHECK(masked > 0 && targets == B * m.cfg.n_ctx, "%s mlm_loss=all: %d masked, %d of %d positions targets",
              arch, masked, targets, B * m.cfg.n_ctx);
    }
    tm_run(&m, &w, B, 1, training);
    float *grads = malloc(sizeof(float) * m.n_floats);
    work_dense_grads(&w, &m, grads);
    float h = 1e-2f;
    int bad = 0, checked = 0;
    for (int i = 0; i < m.n_params; i++) {
        const Param *p = &m.params[i];
        float *v = model_param(&m, i);
        /* every element of small tensors, a spread of the larger ones */
        size_t stride = p->numel > 40 ? p->numel / 37 : 1;
        for (size_t j = 0; j < p->numel; j += stride) {
            double ana = grads[p->offset + j], num = 0;
            int ok = 0;
            /* Strong curvature needs a smaller step than h, so a miss is
               retried at h/4, h/16 and h/64.  A step that straddles a ReLU kink
               gives a wrong central difference; the analytic gradient then
               equals the one-sided difference on the kink-free side, so ReLU
               models also accept a one-sided match (hyena's
               large outputs put kinks 1e-4 apart: post/relu, out_proj.w[28]
               was linear only within 1.5e-4 of the point, its slope there
               the analytic one).  h/64 for gla: its GroupNorm near a head
               output of 0 bends as sharply (its bidir pos_emb[38] met the
               tolerance only there). */
            double l0 = act[0] == 'r' ? tm_run(&m, &w, B, 0, training) : 0.0;
            for (float hh = h; hh > h / 100 && !ok; hh /= 4) {
                float keep = v[j];
                v[j] = keep + hh; double lp = tm_run(&m, &w, B, 0, training);
                v[j] = keep - hh; double lm = tm_run(&m, &w, B, 0, training);
                v[j] = keep;
                num = (lp - lm) / (2 * hh);
                ok = close_to(num, ana, 2e-2, 5e-4);
                if (act[0] == 'r' && !ok)
                    ok = close_to((lp - l0) / hh, ana, 2e-2, 5e-4) || close_to((l0 - lm) / hh, ana, 2e-2, 5e-4);
            }
            checked++;
            if (!ok && bad++ < 4)
                CHECK(0, "%s/%s norm=%s act=%s pos=%s tie=%s %s: %s[%zu] numeric %.6g analytic %.6g", arch, task,
                      norm, act, pos, tie, extra ? extra : "", p->name, j, num, ana);
        }
    }
    CHECK(bad == 0, "%s/%s norm=%s act=%s: %d of %d gradient entries off", arch, task, norm, act, bad, checked);
    free(grads);
    work_free(&w);
    model_free(&m);
}

/* A task whose loss reads some rows only (mlm's chosen positions) runs its
   last block's tail on those rows (StackCall.rows): its loss and every
   gradient equal the all-rows path's (the stack on every row, then
   task_head_loss's gather) to float32 rounding, for each bidirectional
   mixer and norm. */
static void test_tail_rows(void)
{
    const char *norms[] = {"pre", "post", "none"};
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *ops = mixer_at(i);
        if (!ops->has_bidir) continue;
        for (int k = 0; k < 3; k++) {
            Model m;
            Config c;
            char a1[48], a2[48], err[512];
            snprintf(a1, sizeof a1, "arch=%s", ops->name);
            snprintf(a2, sizeof a2, "norm=%s", norms[k]);
            if (tm_build(&m, &c, a1, a2, "task=mlm", "n_ctx=16", "seed=7", NULL)) { CHECK(0, "build"); continue; }
            Rng r;
            rng_seed(&r, 3);
            tm_randomize(&m, &r, 0.3f);
            Work w;
            int B = 4, N = B * m.cfg.n_ctx, M = 0;
            if (work_alloc(&w, &m, B, 1, err)) { CHECK(0, "%s", err); model_free(&m); continue; }
            training_batch(&m, &w, B, 21);
            for (int j = 0; j < N; j++) M += w.targets[j] >= 0;
            CHECK(M > 0 && M < N, "%s: %d of %d rows targets", ops->name, M, N);
            double fast = tm_run(&m, &w, B, 1, 1);
            float *g_fast = malloc(sizeof(float) * m.n_floats), *g_all = malloc(sizeof(float) * m.n_floats);
            work_dense_grads(&w, &m, g_fast);
            /* the all-rows path, by hand */
            TaskCall t;
            memset(&t, 0, sizeof t);
            t.m = &m;
            t.w = &w;
            t.B = B;
            t.training = 1;
            t.want_grad = 1;
            t.step_key = 12345;
            t.loss_scale = 1.0f / (float)M;
            work_zero_grads(&w, &m);
            StackCall sc = {&m, &w, B, 0, 1, 12345, -1, 0, 1, NULL, 0};
            embed_forward(&m, 0, w.stacks[0].blocks[0].x, w.inputs, B);
            stack_forward(&sc, 0, w.inputs);
            task_head_loss(&t, w.stacks[0].out, w.targets, w.dout);
            stack_backward(&sc, 0, w.inputs, w.dout, w.t1);
            embed_backward(&m, 0, w.grads, w.t1, w.inputs, B);
            work_dense_grads(&w, &m, g_all);
            double all = t.loss_sum / M, gmax = 0, off = 0;
            for (size_t j = 0; j < m.n_floats; j++) {
                gmax = fmax(gmax, fabs(g_all[j]));
                off = fmax(off, fabs(g_all[j] - g_fast[j]));
            }
            CHECK(close_to(fast, all, 1e-6, 0) && gmax > 0 && off <= 1e-5 * gmax,
                  "%s norm=%s: loss %.9g vs %.9g, gradients off by %g of %g", ops->name, norms[k], fast, all, off, gmax);
            free(g_fast);
            free(g_all);
            work_free(&w);
            model_free(&m);
        }
    }
}

/* The task a mixer's whole-model checks use: clm when it is causal, else mlm. */
static const char *home_task(const MixerOps *ops) { return ops->has_causal ? "clm" : "mlm"; }

static void check_model(const char *arch, const char *norm, const char *act, const char *pos, const char *tie,
                        const char *dropout)
{
    check_model_task(home_task(mixer_find(arch)), arch, norm, act, pos, tie, dropout, NULL);
}

static void test_model_grads(void)
{
    const char *norms[] = {"pre", "post", "none"}, *acts[] = {"gelu", "relu", "none"};
    for (int i = 0; i < mixer_count(); i++) {
        const char *arch = mixer_at(i)->name;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) check_model(arch, norms[a], acts[b], "learned", "false", "0");
        check_model(arch, "pre", "gelu", "sinusoidal", "true", "0");
        check_model(arch, "post", "gelu", "none", "true", "0");
        /* dropout masks are a function of (step key, element): fixed per step */
        check_model(arch, "pre", "gelu", "learned", "false", "0.25");
        check_model(arch, "post", "relu", "learned", "false", "0.25");
    }
    /* swa's window inside the context, through whole models */
    check_model_task("clm", "swa", "pre", "gelu", "learned", "false", "0", "window=2");
    check_model_task("mlm", "swa", "post", "relu", "sinusoidal", "true", "0", "window=2");
}

/* Every task's loss end to end, with every mixer the task accepts. */
static void test_task_grads(void)
{
    const char *tasks[] = {"clm", "mlm", "bidir", "autoencode", "complete"};
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < mixer_count(); i++) {
            const MixerOps *ops = mixer_at(i);
            Config c;
            char err[512];
            config_defaults(&c);
            config_set(&c, "arch", ops->name, err);
            config_set(&c, "task", tasks[k], err);
            config_set(&c, "vocab", "13", err);
            if (task_find(tasks[k])->check_arch(ops, &c, err)) continue; /* refused pair */
            check_model_task(tasks[k], ops->name, "pre", "gelu", "learned", "false", "0", NULL);
            check_model_task(tasks[k], ops->name, "post", "relu", "sinusoidal", "true", "0", NULL);
        }
}

/* mlm with mlm_loss=all (every position a target, SPEC section 3): the
   head's gradient now reaches every row, for every bidirectional mixer.
   Smooth activations only: with targets at every row, a ReLU kink inside a
   finite-difference step is common enough to fail the check without a bug
   (ReLU's own gradient is checked with the masked loss above). */
static void test_mlm_all_grads(void)
{
    int checked = 0;
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *ops = mixer_at(i);
        if (!ops->has_bidir) continue;
        check_model_task("mlm", ops->name, "pre", "gelu", "learned", "false", "0", "mlm_loss=all");
        check_model_task("mlm", ops->name, "post", "gelu", "sinusoidal", "true", "0", "mlm_loss=all");
        check_model_task("mlm", ops->name, "none", "none", "none", "false", "0", "mlm_loss=all");
        checked++;
    }
    CHECK(checked >= 5, "%d bidirectional mixers, expected at least 5 (attention, mixer, pairconnect, fft, linattn)",
          checked);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_linear_grad);
    RUN(test_linear_residual);
    RUN(test_rows_ops);
    RUN(test_layernorm_grad);
    RUN(test_activation_grad);
    RUN(test_xent_grad);
    RUN(test_gelu_lanes);
    RUN(test_xent_lanes);
    RUN(test_xent_head);
    RUN(test_bias_act_fused);
    RUN(test_vec_exp);
    RUN(test_model_grads);
    RUN(test_task_grads);
    RUN(test_mlm_all_grads);
    RUN(test_tail_rows);
    CHECK_EXIT();
}
