/*
 * test_tasks.c — what each task may and may not see, and that each task
 * trains: bidirectional mixers in mlm see both sides; complete cannot see
 * its targets; neither bidir stack sees the token it predicts; every task
 * with each of attention and the masked mixer lowers its loss clearly on a
 * small problem; pairs outside SPEC section 3 are refused with the rule.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/data/data.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/model_util.h"

void openblas_set_num_threads(int num_threads);

static void randomize(Model *m, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    for (int p = 0; p < m->n_params; p++) {
        if (m->params[p].init == INIT_ONE) continue;
        float *v = model_param(m, p);
        for (size_t j = 0; j < m->params[p].numel; j++) v[j] = 0.3f * (float)rng_normal(&r);
    }
}

/* Logits of every position for one sequence of inputs (targets: all set). */
static void all_logits(Model *m, Work *w, const int32_t *tokens, float *out)
{
    int n = m->cfg.n_ctx, V = m->cfg.vocab;
    for (int t = 0; t < n; t++) {
        w->inputs[t] = tokens[t];
        w->targets[t] = 2;
    }
    tm_run(m, w, 1, 0, 0);
    /* every row has a target, so the head ran on all n rows in order */
    memcpy(out, w->logits, sizeof(float) * (size_t)n * V);
}

static double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static void test_mlm_sees_both_sides(void)
{
    for (int a = 0; a < mixer_count(); a++) {
        const MixerOps *ops = mixer_at(a);
        if (!ops->has_bidir) continue;
        char arg[40];
        snprintf(arg, sizeof arg, "arch=%s", ops->name);
        Model m;
        Config c;
        if (tm_build(&m, &c, arg, "task=mlm", "n_ctx=8", NULL)) { CHECK(0, "build %s", ops->name); continue; }
        randomize(&m, 3);
        Work w;
        char err[512];
        work_alloc(&w, &m, 1, 0, err);
        int n = c.n_ctx, V = c.vocab;
        int32_t tok[8] = {2, 3, 4, 5, 6, 7, 8, 9};
        float *ref = malloc(sizeof(float) * n * V), *got = malloc(sizeof(float) * n * V);
        all_logits(&m, &w, tok, ref);
        tok[n - 1] = 11; /* the last token moves the first position's logits */
        all_logits(&m, &w, tok, got);
        CHECK(max_diff(ref, got, V) > 1e-6, "%s/mlm: position 0 does not see position %d", ops->name, n - 1);
        tok[n - 1] = 9;
        tok[0] = 11; /* and the first token the last position's */
        all_logits(&m, &w, tok, got);
        CHECK(max_diff(ref + (size_t)(n - 1) * V, got + (size_t)(n - 1) * V, V) > 1e-6,
              "%s/mlm: position %d does not see position 0", ops->name, n - 1);
        free(ref);
        free(got);
        work_free(&w);
        model_free(&m);
    }
}

/* The mixers a task accepts, by its own rule. */
static int task_accepts(const char *task, const MixerOps *ops)
{
    Config c;
    char err[512];
    config_defaults(&c);
    return task_find(task)->check_arch(ops, &c, err) == 0;
}

static void test_complete_hides_targets(void)
{
    for (int a = 0; a < mixer_count(); a++)
        for (int layers = 1; layers <= 3; layers++) {
            const MixerOps *ops = mixer_at(a);
            if (!task_accepts("complete", ops)) continue;
            const char *arch = ops->name;
            char arg[40], lay[40];
            snprintf(arg, sizeof arg, "arch=%s", arch);
            snprintf(lay, sizeof lay, "layers=%d", layers);
            Model m;
            Config c;
            if (tm_build(&m, &c, arg, lay, "task=complete", "n_ctx=9", NULL)) { CHECK(0, "build"); continue; }
            randomize(&m, 4);
            Work w;
            char err[512];
            work_alloc(&w, &m, 1, 0, err);
            int n = c.n_ctx, V = c.vocab, prompt = (n + 1) / 2;
            int32_t tok[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10};
            float *ref = malloc(sizeof(float) * n * V), *got = malloc(sizeof(float) * n * V);
            all_logits(&m, &w, tok, ref);
            for (int t = prompt; t < n; t++) tok[t] = 12 - (t % 3);
            all_logits(&m, &w, tok, got);
            CHECK(max_diff(ref, got, (size_t)n * V) == 0.0, "%s/complete L=%d: tokens after the prompt change logits",
                  arch, layers);
            tok[prompt - 1] = 12; /* the prompt itself matters */
            all_logits(&m, &w, tok, got);
            CHECK(max_diff(ref, got, (size_t)n * V) > 0.0, "%s/complete: the prompt's last token is ignored", arch);
            free(ref);
            free(got);
            work_free(&w);
            model_free(&m);
        }
}

static void test_bidir_hides_own_token(void)
{
    for (int a = 0; a < mixer_count(); a++) {
        const MixerOps *ops = mixer_at(a);
        if (!task_accepts("bidir", ops)) continue;
        const char *arch = ops->name;
        char arg[40];
        snprintf(arg, sizeof arg, "arch=%s", arch);
        Model m;
        Config c;
        if (tm_build(&m, &c, arg, "task=bidir", "n_ctx=7", NULL)) { CHECK(0, "build"); continue; }
        randomize(&m, 5);
        Work w;
        char err[512];
        work_alloc(&w, &m, 1, 0, err);
        int n = c.n_ctx, V = c.vocab;
        float *ref = malloc(sizeof(float) * n * V), *got = malloc(sizeof(float) * n * V);
        for (int t = 0; t < n; t++) {
            int32_t tok[7] = {2, 3, 4, 5, 6, 7, 8};
            all_logits(&m, &w, tok, ref);
            tok[t] = 12;
            all_logits(&m, &w, tok, got);
            CHECK(max_diff(ref + (size_t)t * V, got + (size_t)t * V, V) == 0.0,
                  "%s/bidir: token %d changes its own logits", arch, t);
            double others = max_diff(ref, got, (size_t)n * V);
            CHECK(others > 0.0, "%s/bidir: token %d changes no logits at all", arch, t);
        }
        free(ref);
        free(got);
        work_free(&w);
        model_free(&m);
    }
}

static void test_refused_pairs(void)
{
    struct { const char *arch, *task, *why; } cases[] = {
        {"pairconnect", "autoencode", "no tokens to pair"},
        {"pairconnect", "complete", "read the targets"},
        {"dispatcher", "mlm", "bidirectional"},
        {"cumsum", "mlm", "bidirectional"},
        {"fft", "clm", "causal"},
        {"fft", "bidir", "causal"},
        {"fft", "complete", "causal"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Config c;
        char err[512] = "";
        config_defaults(&c);
        config_set(&c, "arch", cases[i].arch, err);
        config_set(&c, "task", cases[i].task, err);
        c.vocab = 50;
        if (!mixer_find(cases[i].arch)) continue; /* not registered in this build */
        CHECK(config_validate(&c, err) != 0, "%s/%s accepted", cases[i].arch, cases[i].task);
        CHECK(strstr(err, cases[i].why) != NULL, "%s/%s: message '%s' lacks '%s'", cases[i].arch, cases[i].task,
              err, cases[i].why);
    }
}

/* Loss of the first and the last few steps of a short run on builtin:stories. */
static void train_task(const char *task, const char *arch, const Dataset *ds, double *first, double *last)
{
    Config c;
    char err[512], a1[40], a2[40];
    config_defaults(&c);
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "task=%s", task);
    const char *args[] = {a1, a2, "d=48", "layers=2", "heads=2", "n_ctx=16", "batch=16", "steps=300",
                          "lr=0.005", "warmup=10", "threads=0", NULL};
    for (int i = 0; args[i]; i++) config_set_arg(&c, args[i], err);
    c.vocab = ds->vocab;
    Model m;
    Trainer *t;
    *first = *last = NAN;
    if (config_validate(&c, err) || model_build(&m, &c, err)) { CHECK(0, "%s", err); return; }
    if (trainer_create(&t, &m, ds, c.threads, 1, err)) { CHECK(0, "%s", err); model_free(&m); return; }
    EvalResult e0, e1;
    trainer_evaluate(t, SPLIT_VALID, &e0, err);
    TrainProgress p;
    while (!trainer_done(t))
        if (trainer_step(t, &p, err)) { CHECK(0, "%s", err); break; }
    trainer_evaluate(t, SPLIT_VALID, &e1, err);
    *first = e0.loss;
    *last = e1.loss;
    trainer_free(t);
    model_free(&m);
}

static void test_each_task_trains(void)
{
    Dataset ds;
    char err[512];
    DataOptions o = {0};
    if (dataset_load("builtin:stories:tokens=200000", &o, &ds, err)) { CHECK(0, "%s", err); return; }
    const char *tasks[] = {"clm", "mlm", "bidir", "autoencode", "complete"};
    const char *archs[] = {"attention", "mixer"};
    for (int k = 0; k < 5; k++)
        for (int a = 0; a < 2; a++) {
            double first, last;
            train_task(tasks[k], archs[a], &ds, &first, &last);
            printf("  %-10s %-9s valid loss %.3f -> %.3f\n", tasks[k], archs[a], first, last);
            CHECK(last < first - 1.0, "%s/%s: valid loss %.3f -> %.3f does not fall by a nat", tasks[k], archs[a],
                  first, last);
        }
    dataset_free(&ds);
}

int main(void)
{
    openblas_set_num_threads(1);
    RUN(test_mlm_sees_both_sides);
    RUN(test_complete_hides_targets);
    RUN(test_bidir_hides_own_token);
    RUN(test_refused_pairs);
    RUN(test_each_task_trains);
    CHECK_EXIT();
}
