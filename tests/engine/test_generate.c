/*
 * test_generate.c — incremental generation gives the logits of a full
 * forward pass, for every causal mixer, with every norm option, before and
 * after the window slides past n_ctx (and swa with its key window inside
 * n_ctx); the batch-1 inference forward
 * (engine/infer.c: packed FFN and head) gives the training forward's
 * logits and loss for every mixer, task and norm, to float32 rounding;
 * a prompt fed (generator_feed) gives the logits of the prompt pushed token
 * by token, bit for bit, both ways and past n_ctx.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/generate.h"
#include "engine/infer.h"
#include "engine/ops.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

/* extra: one more key=value, or NULL */
static void compare(const char *arch, const char *norm, const char *extra)
{
    char a1[40], a2[40];
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "norm=%s", norm);
    Model m;
    Config c;
    if (tm_build(&m, &c, a1, a2, "n_ctx=9", "layers=2", extra, NULL)) { CHECK(0, "build %s", arch); return; }
    Rng r;
    rng_seed(&r, 8);
    for (int p = 0; p < m.n_params; p++)
        if (m.params[p].init != INIT_ONE)
            for (size_t j = 0; j < m.params[p].numel; j++) model_param(&m, p)[j] = 0.3f * (float)rng_normal(&r);
    Generator *inc = NULL, *full = NULL;
    char err[512];
    if (generator_create(&inc, &m, 1, err) || generator_create(&full, &m, 0, err)) {
        CHECK(0, "%s", err);
        model_free(&m);
        return;
    }
    CHECK(generator_is_incremental(inc) == (m.mixer->forward_step != NULL), "%s: incremental flag", arch);
    double worst = 0, scale = 0;
    int V = c.vocab;
    for (int k = 0; k < 20; k++) { /* 20 > n_ctx: the window slides too */
        int32_t tok = 2 + (int32_t)rng_below(&r, V - 2);
        const float *a = generator_push(inc, tok);
        float copy[64];
        for (int v = 0; v < V; v++) copy[v] = a[v];
        const float *b = generator_push(full, tok);
        for (int v = 0; v < V; v++) {
            worst = fmax(worst, fabs(copy[v] - b[v]));
            scale = fmax(scale, fabs(b[v]));
        }
    }
    CHECK(worst <= 1e-5 * fmax(scale, 1.0), "%s norm=%s %s: incremental logits differ by %g (scale %g)", arch, norm,
          extra ? extra : "", worst, scale);
    generator_free(inc);
    generator_free(full);
    model_free(&m);
}

static void test_incremental_matches_full(void)
{
    const char *norms[] = {"pre", "post", "none"};
    for (int i = 0; i < mixer_count(); i++) {
        if (!mixer_at(i)->has_causal) continue;
        for (int k = 0; k < 3; k++) compare(mixer_at(i)->name, norms[k], NULL);
    }
    /* swa's key/value ring of 3 slots, wrapped twice by n_ctx 9 */
    compare("swa", "pre", "window=3");
}

/* A prompt of len tokens fed, its last one pushed, against every token
   pushed: the same logits, bit for bit (the same work on the same tokens). */
static void compare_feed(const char *arch, int incremental, int len)
{
    char a1[40];
    snprintf(a1, sizeof a1, "arch=%s", arch);
    Model m;
    Config c;
    if (tm_build(&m, &c, a1, "n_ctx=9", "layers=2", NULL)) { CHECK(0, "build %s", arch); return; }
    Generator *fed = NULL, *pushed = NULL;
    char err[512];
    if (generator_create(&fed, &m, incremental, err) || generator_create(&pushed, &m, incremental, err)) {
        CHECK(0, "%s", err);
        model_free(&m);
        return;
    }
    const float *a = NULL, *b = NULL;
    for (int t = 0; t < len; t++) {
        int32_t tok = 2 + (int32_t)((t * 7) % (c.vocab - 2));
        if (t + 1 < len) generator_feed(fed, tok);
        else a = generator_push(fed, tok);
        b = generator_push(pushed, tok);
    }
    CHECK(memcmp(a, b, sizeof(float) * (size_t)c.vocab) == 0, "%s incremental=%d, %d tokens: fed logits differ",
          arch, incremental, len);
    /* and on from there, one more token each */
    a = generator_push(fed, 5);
    b = generator_push(pushed, 5);
    CHECK(memcmp(a, b, sizeof(float) * (size_t)c.vocab) == 0, "%s incremental=%d: the token after the prompt", arch,
          incremental);
    generator_free(fed);
    generator_free(pushed);
    model_free(&m);
}

static void test_feed_matches_push(void)
{
    for (int i = 0; i < mixer_count(); i++) {
        if (!mixer_at(i)->has_causal) continue;
        for (int inc = 0; inc < 2; inc++) {
            compare_feed(mixer_at(i)->name, inc, 5);
            compare_feed(mixer_at(i)->name, inc, 15); /* past n_ctx 9 */
        }
    }
}

/* infer_window on one window against the task's own forward (B = 1, every
   position a target): logits of every row and the summed loss. */
static void compare_window(const char *arch, const char *task, const char *norm, const char *act)
{
    char a1[40], a2[40], a3[40], a4[40];
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "task=%s", task);
    snprintf(a3, sizeof a3, "norm=%s", norm);
    snprintf(a4, sizeof a4, "act=%s", act);
    Model m;
    Config c;
    /* V 70 and d_ff 64: more than one 32-column panel and a partial one */
    if (tm_build(&m, &c, a1, a2, a3, a4, "vocab=70", "d=16", "n_ctx=9", "layers=2", "hash_size=37", NULL)) {
        CHECK(0, "build %s %s", arch, task);
        return;
    }
    Rng r;
    rng_seed(&r, 11);
    for (int p = 0; p < m.n_params; p++)
        if (m.params[p].init != INIT_ONE)
            for (size_t j = 0; j < m.params[p].numel; j++) model_param(&m, p)[j] = 0.3f * (float)rng_normal(&r);
    char err[512];
    Work w;
    Infer *inf = NULL;
    if (work_alloc(&w, &m, 1, 0, err) || infer_create(&inf, &m, c.n_ctx, err)) {
        CHECK(0, "%s", err);
        model_free(&m);
        return;
    }
    int n = c.n_ctx, V = c.vocab;
    for (int t = 0; t < n; t++) {
        w.inputs[t] = 2 + (int32_t)rng_below(&r, V - 2);
        w.targets[t] = 2 + (int32_t)rng_below(&r, V - 2);
    }
    float *logits = malloc(sizeof(float) * (size_t)n * V);
    infer_window(inf, w.inputs, 0, n, logits);
    /* the training path: the task's forward, logits kept (no gradient) */
    TaskCall call = {.m = &m, .w = &w, .B = 1, .loss_scale = 1.0f};
    m.task->run(&call);
    /* the head ran on every row in place: w.logits holds them unchanged */
    double worst = 0, scale = 0;
    for (size_t i = 0; i < (size_t)n * V; i++) {
        worst = fmax(worst, fabs((double)logits[i] - w.logits[i]));
        scale = fmax(scale, fabs(w.logits[i]));
    }
    CHECK(worst <= 1e-5 * fmax(scale, 1.0), "%s %s norm=%s act=%s: inference logits differ by %g (scale %g)", arch,
          task, norm, act, worst, scale);
    double loss = infer_xent(logits, w.targets, n, V);
    CHECK(fabs(loss - call.loss_sum) <= 1e-5 * fmax(fabs(call.loss_sum), 1.0), "%s %s: loss %.9g vs %.9g", arch,
          task, loss, call.loss_sum);
    free(logits);
    infer_free(inf);
    work_free(&w);
    model_free(&m);
}

static void test_infer_window_matches_training_forward(void)
{
    const char *norms[] = {"pre", "post", "none"}, *acts[] = {"gelu", "relu", "gelu"};
    for (int i = 0; i < mixer_count(); i++)
        for (int k = 0; k < 3; k++) {
            const MixerOps *mx = mixer_at(i);
            if (mx->has_causal) compare_window(mx->name, "clm", norms[k], acts[k]);
            if (mx->has_bidir) compare_window(mx->name, "mlm", norms[k], acts[k]);
        }
}

/* One row, several rows: each output of a packed layer is the same sum in
   the same order, so a row alone equals that row inside a window. */
static void test_packed_rows_agree(void)
{
    int n_in = 19, n_out = 77, N = 13;
    Rng r;
    rng_seed(&r, 5);
    float w[77 * 19], b[77], x[13 * 19], y[13 * 77], y1[77], ref[77];
    for (int i = 0; i < n_out * n_in; i++) w[i] = (float)rng_normal(&r);
    for (int i = 0; i < n_out; i++) b[i] = (float)rng_normal(&r);
    for (int i = 0; i < N * n_in; i++) x[i] = (float)rng_normal(&r);
    PackedLinear pl;
    char err[512];
    if (packed_linear_make(&pl, w, n_in, n_out, err)) { CHECK(0, "%s", err); return; }
    packed_linear_forward(&pl, y, x, b, N);
    double worst = 0;
    for (int row = 0; row < N; row++) {
        packed_linear_forward(&pl, y1, x + row * n_in, b, 1);
        CHECK(memcmp(y1, y + row * n_out, sizeof y1) == 0, "row %d alone differs from the window's", row);
        for (int o = 0; o < n_out; o++) {
            double s = b[o];
            for (int k = 0; k < n_in; k++) s += (double)x[row * n_in + k] * w[o * n_in + k];
            ref[o] = (float)s;
            worst = fmax(worst, fabs(ref[o] - y1[o]));
        }
    }
    CHECK(worst < 1e-4, "packed layer vs double sum: %g", worst);
    packed_linear_free(&pl);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_incremental_matches_full);
    RUN(test_infer_window_matches_training_forward);
    RUN(test_packed_rows_agree);
    RUN(test_feed_matches_push);
    CHECK_EXIT();
}
