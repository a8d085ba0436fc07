/*
 * test_generate.c — incremental generation gives the logits of a full
 * forward pass, for every causal mixer, with every norm option, before and
 * after the window slides past n_ctx.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/generate.h"
#include "tests/check.h"
#include "tests/model_util.h"

#include <cblas.h>

static void compare(const char *arch, const char *norm)
{
    char a1[40], a2[40];
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "norm=%s", norm);
    Model m;
    Config c;
    if (tm_build(&m, &c, a1, a2, "n_ctx=9", "layers=2", NULL)) { CHECK(0, "build %s", arch); return; }
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
    CHECK(worst <= 1e-5 * fmax(scale, 1.0), "%s norm=%s: incremental logits differ by %g (scale %g)", arch, norm,
          worst, scale);
    generator_free(inc);
    generator_free(full);
    model_free(&m);
}

static void test_incremental_matches_full(void)
{
    const char *norms[] = {"pre", "post", "none"};
    for (int i = 0; i < mixer_count(); i++) {
        if (!mixer_at(i)->has_causal) continue;
        for (int k = 0; k < 3; k++) compare(mixer_at(i)->name, norms[k]);
    }
}

int main(void)
{
    openblas_set_num_threads(1);
    RUN(test_incremental_matches_full);
    CHECK_EXIT();
}
