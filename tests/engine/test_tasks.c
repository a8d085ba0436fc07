/*
 * test_tasks.c — what each task may and may not see, and that each task
 * trains: bidirectional mixers in mlm see both sides; complete cannot see
 * its targets; neither bidir stack sees the token it predicts; every task
 * with each of attention and the masked mixer lowers its loss clearly on a
 * small problem; pairs outside SPEC section 3 are refused with the rule;
 * mlm evaluation's loss and loss_all against a computation of their own
 * (the SPEC's masks, logits and cross-entropy by hand), and training with
 * mlm_loss=all lowering loss_all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/data/data.h"
#include "engine/murmur3.h"
#include "engine/ops.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

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

/* The valid evaluation before and after a short run on ds (extra: one more
   key=value or NULL). */
static void train_task(const char *task, const char *arch, const char *extra, const Dataset *ds,
                       EvalResult *first, EvalResult *last)
{
    Config c;
    char err[512], a1[40], a2[40];
    config_defaults(&c);
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "task=%s", task);
    const char *args[] = {a1, a2, "d=48", "layers=2", "heads=2", "n_ctx=16", "batch=16", "steps=300",
                          "lr=0.005", "warmup=10", "threads=0", extra, NULL};
    for (int i = 0; args[i]; i++) config_set_arg(&c, args[i], err);
    c.vocab = ds->vocab;
    Model m;
    Trainer *t;
    first->loss = last->loss = first->loss_all = last->loss_all = NAN;
    if (config_validate(&c, err) || model_build(&m, &c, err)) { CHECK(0, "%s", err); return; }
    if (trainer_create(&t, &m, ds, c.threads, 1, err)) { CHECK(0, "%s", err); model_free(&m); return; }
    CHECK(trainer_evaluate(t, SPLIT_VALID, first, err) == 0, "%s", err);
    TrainProgress p;
    while (!trainer_done(t))
        if (trainer_step(t, &p, err)) { CHECK(0, "%s", err); break; }
    CHECK(trainer_evaluate(t, SPLIT_VALID, last, err) == 0, "%s", err);
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
            EvalResult first, last;
            train_task(tasks[k], archs[a], NULL, &ds, &first, &last);
            printf("  %-10s %-9s valid loss %.3f -> %.3f\n", tasks[k], archs[a], first.loss, last.loss);
            CHECK(last.loss < first.loss - 1.0, "%s/%s: valid loss %.3f -> %.3f does not fall by a nat", tasks[k],
                  archs[a], first.loss, last.loss);
            CHECK((strcmp(tasks[k], "mlm") == 0) == (isfinite(last.loss_all) != 0), "%s/%s: loss_all %g (only mlm has one)",
                  tasks[k], archs[a], last.loss_all);
        }
    dataset_free(&ds);
}

/* Training with mlm_loss=all lowers loss_all (every position a target), and
   below what the masked loss reaches on it: a masked-loss model is never
   asked to reproduce the positions it can see. */
static void test_mlm_all_lowers_loss_all(void)
{
    Dataset ds;
    char err[512];
    DataOptions o = {0};
    if (dataset_load("builtin:stories:tokens=200000", &o, &ds, err)) { CHECK(0, "%s", err); return; }
    const char *archs[] = {"attention", "mixer"};
    for (int a = 0; a < 2; a++) {
        EvalResult first, all, masked_first, masked;
        train_task("mlm", archs[a], "mlm_loss=all", &ds, &first, &all);
        train_task("mlm", archs[a], "mlm_loss=masked", &ds, &masked_first, &masked);
        printf("  %-9s loss_all %.3f -> %.3f with mlm_loss=all (loss %.3f), -> %.3f with masked (loss %.3f)\n",
               archs[a], first.loss_all, all.loss_all, all.loss, masked.loss_all, masked.loss);
        CHECK(all.loss_all < first.loss_all - 2.0, "%s: mlm_loss=all takes loss_all from %.3f only to %.3f",
              archs[a], first.loss_all, all.loss_all);
        CHECK(all.loss_all < masked.loss_all - 0.5, "%s: loss_all %.3f trained on it, %.3f trained masked", archs[a],
              all.loss_all, masked.loss_all);
        /* the chosen positions are still learned */
        CHECK(all.loss < first.loss - 0.5, "%s: mlm_loss=all: loss %.3f -> %.3f", archs[a], first.loss, all.loss);
    }
    dataset_free(&ds);
}

/* loss and loss_all of an mlm evaluation against this test's own reading of
   SPEC section 3: the fixed masks from murmur3 directly, the model's final
   hidden states from the stack, then the head (x W^T + b) and the
   cross-entropy in double precision at every position. */
static void check_loss_all(const char *arch, int threads, int batch)
{
    Model m;
    Config c;
    char a1[40], a2[40], a3[40], err[512];
    snprintf(a1, sizeof a1, "arch=%s", arch);
    snprintf(a2, sizeof a2, "threads=%d", threads);
    snprintf(a3, sizeof a3, "batch=%d", batch);
    if (tm_build(&m, &c, a1, a2, a3, "task=mlm", "n_ctx=8", "hash_size=31", NULL)) { CHECK(0, "build %s", arch); return; }
    randomize(&m, 21);
    int n = c.n_ctx, V = c.vocab, d = c.d;
    Dataset ds;
    tm_random_dataset(&ds, V, (size_t)n * 37 + 5, 8);   /* 37 windows: a last batch that is not full */
    Trainer *t;
    EvalResult r;
    if (trainer_create(&t, &m, &ds, threads, 0, err) || trainer_evaluate(t, SPLIT_VALID, &r, err)) {
        CHECK(0, "%s: %s", arch, err);
        trainer_free(t);
        tm_free_dataset(&ds);
        model_free(&m);
        return;
    }
    Work w;
    work_alloc(&w, &m, 1, 0, err);
    const TokenStream *s = &ds.split[SPLIT_VALID];
    int64_t n_windows = (int64_t)(s->len / (size_t)n);
    double sum_chosen = 0.0, sum_all = 0.0;
    int64_t n_chosen = 0;
    const float *W = model_param(&m, m.head_w), *bias = model_param(&m, m.head_b);
    double *logits = malloc(sizeof(double) * V);
    for (int64_t win = 0; win < n_windows; win++) {
        const int32_t *orig = s->ids + win * n;
        int chosen[8] = {0}, any = 0;
        int masked = murmur3_u32((uint32_t)win, 0x6d6c6d) % 10 != 0;
        for (int p = 0; masked && p < n; p++)
            any |= chosen[p] = murmur3_u32_pair((uint32_t)win, (uint32_t)p, 0x6d6c6d) % 10000 < 1500;
        if (masked && !any) chosen[murmur3_u32((uint32_t)win, 0x6d6c6e) % (uint32_t)n] = 1;
        for (int p = 0; p < n; p++) w.inputs[p] = chosen[p] ? TOKEN_MASK : orig[p];
        StackCall sc = {&m, &w, 1, 0, 0, 0, -1, 0, 0, NULL, 0};
        embed_forward(&m, 0, w.stacks[0].blocks[0].x, w.inputs, 1);
        stack_forward(&sc, 0, w.inputs);
        for (int p = 0; p < n; p++) {
            const float *h = w.stacks[0].out + (size_t)p * d;
            double mx = -INFINITY, z = 0.0;
            for (int v = 0; v < V; v++) {
                double acc = bias[v];
                for (int k = 0; k < d; k++) acc += (double)h[k] * W[(size_t)v * d + k];
                logits[v] = acc;
                mx = fmax(mx, acc);
            }
            for (int v = 0; v < V; v++) z += exp(logits[v] - mx);
            double nll = log(z) + mx - logits[orig[p]];   /* the target is always the original token */
            sum_all += nll;
            if (chosen[p]) {
                sum_chosen += nll;
                n_chosen++;
            }
        }
    }
    double want_all = sum_all / (double)(n_windows * n), want = sum_chosen / (double)n_chosen;
    CHECK(r.n_windows == n_windows && r.n_targets == n_chosen, "%s: %lld windows / %lld targets, expected %lld / %lld",
          arch, (long long)r.n_windows, (long long)r.n_targets, (long long)n_windows, (long long)n_chosen);
    CHECK(fabs(r.loss_all - want_all) < 2e-6 * want_all, "%s threads=%d: loss_all %.9g, by hand %.9g", arch, threads,
          r.loss_all, want_all);
    CHECK(fabs(r.loss - want) < 2e-6 * want, "%s threads=%d: loss %.9g, by hand %.9g", arch, threads, r.loss, want);
    CHECK(fabs(r.loss_all - r.loss) > 1e-3, "%s: loss_all equals loss (%.6g): the unmasked positions are not scored",
          arch, r.loss);
    free(logits);
    work_free(&w);
    trainer_free(t);
    tm_free_dataset(&ds);
    model_free(&m);
}

static void test_loss_all_by_hand(void)
{
    int checked = 0;
    for (int a = 0; a < mixer_count(); a++) {
        const MixerOps *ops = mixer_at(a);
        if (!task_accepts("mlm", ops)) continue;
        check_loss_all(ops->name, 1, 5);
        check_loss_all(ops->name, 2, 16);
        checked++;
    }
    CHECK(checked == 6, "%d mlm mixers, expected 6 (attention, mixer, pairconnect, fft, linattn, swa)", checked);
    /* other tasks have no loss_all */
    Model m;
    Config c;
    char err[512];
    if (tm_build(&m, &c, "task=clm", NULL)) { CHECK(0, "build"); return; }
    Dataset ds;
    tm_random_dataset(&ds, c.vocab, 200, 9);
    Trainer *t;
    EvalResult r;
    CHECK(trainer_create(&t, &m, &ds, 1, 0, err) == 0 && trainer_evaluate(t, SPLIT_VALID, &r, err) == 0, "%s", err);
    CHECK(isnan(r.loss_all), "clm: loss_all %g, expected NAN", r.loss_all);
    trainer_free(t);
    tm_free_dataset(&ds);
    model_free(&m);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_mlm_sees_both_sides);
    RUN(test_complete_hides_targets);
    RUN(test_bidir_hides_own_token);
    RUN(test_refused_pairs);
    RUN(test_loss_all_by_hand);
    RUN(test_each_task_trains);
    RUN(test_mlm_all_lowers_loss_all);
    CHECK_EXIT();
}
