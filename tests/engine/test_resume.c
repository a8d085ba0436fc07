/*
 * test_resume.c — resumable checkpoints (trainer_save / trainer_resume):
 * training N steps straight gives bit for bit the same losses and final
 * weights as training k steps, saving, freeing everything, building a new
 * model and trainer from the same config and data, resuming and training the
 * remaining N-k steps.  Covered: attention clm, mixer mlm (masks from the
 * trainer's generator), pairconnect clm with table_optim adamw (live rows
 * rebuilt) and lazy, dispatcher with level_dropout and dropout, order random
 * and sequential, one and two threads, linear and cosine schedules (the lr
 * depends on the total step count).  Extension (decay = wsd, SPEC section
 * 5): a run built with a smaller budget, saved at or before its cool-down
 * and resumed by a trainer with the larger budget ends bit for bit where a
 * run of the larger budget from the start ends (clm and mlm, order random
 * and sequential, dropout and level_dropout, one and two threads, budgets
 * in steps and in tokens); saved after the cool-down started, it does not.
 * Also: truncated and damaged files, a
 * plain model checkpoint and a file of another config are refused with one
 * line, leaving the trainer as it was; model readers load resume files.
 * Prints (does not assert) the save time of a config-S model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/model.h"
#include "engine/optim.h"
#include "engine/rng.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

static char dir[64];

static void path_in_dir(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

#define MAX_STEPS 24

/* A model and its trainer, built from key=value settings. */
typedef struct {
    Model m;
    Trainer *t;
    int built;
    double lr[MAX_STEPS];    /* lr[step-1]: the learning rate of each step taken */
} Job;

static int job_open(Job *j, const char *const *args, const char *extra, const Dataset *ds)
{
    char err[ERR_LEN];
    Config c;
    config_defaults(&c);
    memset(j, 0, sizeof *j);
    for (int i = 0; args[i]; i++)
        if (config_set_arg(&c, args[i], err)) {
            printf("  %s\n", err);
            return -1;
        }
    if (extra && config_set_arg(&c, extra, err)) {
        printf("  %s\n", err);
        return -1;
    }
    c.vocab = ds->vocab;
    if (config_validate(&c, err) || model_build(&j->m, &c, err)) {
        printf("  %s\n", err);
        return -1;
    }
    j->built = 1;
    if (trainer_create(&j->t, &j->m, ds, c.threads, 1, err)) {
        printf("  %s\n", err);
        model_free(&j->m);
        j->built = 0;
        return -1;
    }
    return 0;
}

static void job_close(Job *j)
{
    trainer_free(j->t);
    if (j->built) model_free(&j->m);
    memset(j, 0, sizeof *j);
}

/* Takes steps until the trainer has done `until`; losses[step-1] gets each. */
static int job_train(Job *j, int64_t until, double *losses, TrainProgress *p)
{
    char err[ERR_LEN];
    while (trainer_step_count(j->t) < until) {
        if (trainer_step(j->t, p, err)) {
            printf("  %s\n", err);
            return -1;
        }
        losses[p->step - 1] = p->loss;
        j->lr[p->step - 1] = p->lr;
    }
    return 0;
}

static float *copy_weights(const Model *m)
{
    float *w = malloc(sizeof(float) * m->n_floats);
    memcpy(w, m->w, sizeof(float) * m->n_floats);
    return w;
}

/* Straight run of N steps vs k steps + save + fresh build + resume + N-k. */
static void check_resume(const char *name, const char *const *args, int N, int k, const Dataset *ds)
{
    char steps[32], path[256], err[ERR_LEN];
    snprintf(steps, sizeof steps, "steps=%d", N);
    path_in_dir(path, sizeof path, "resume.safetensors");
    double straight[MAX_STEPS], resumed[MAX_STEPS];
    TrainProgress ps = {0}, pr = {0};
    Job a, b;
    if (job_open(&a, args, steps, ds)) { CHECK(0, "%s: setup", name); return; }
    CHECK(job_train(&a, N, straight, &ps) == 0, "%s: straight run", name);
    float *final = copy_weights(&a.m);
    job_close(&a);

    if (job_open(&b, args, steps, ds)) { CHECK(0, "%s: setup", name); free(final); return; }
    CHECK(job_train(&b, k, resumed, &pr) == 0, "%s: first part", name);
    CHECK(trainer_save(b.t, path, NULL, NULL, 0, err) == 0, "%s: save: %s", name, err);
    job_close(&b);

    if (job_open(&b, args, steps, ds)) { CHECK(0, "%s: setup", name); free(final); return; }
    CHECK(trainer_resume(b.t, path, err) == 0, "%s: resume: %s", name, err);
    CHECK(trainer_step_count(b.t) == k, "%s: resumed at step %lld, not %d", name,
          (long long)trainer_step_count(b.t), k);
    CHECK(job_train(&b, N, resumed, &pr) == 0, "%s: second part", name);
    CHECK(trainer_done(b.t), "%s: resumed run not done after %d steps", name, N);
    int same_losses = memcmp(straight, resumed, sizeof(double) * (size_t)N) == 0;
    CHECK(same_losses, "%s: losses differ after resuming at step %d", name, k);
    if (!same_losses)
        for (int s = k; s < N; s++)
            if (straight[s] != resumed[s]) {
                printf("  step %d: %.17g vs %.17g\n", s + 1, straight[s], resumed[s]);
                break;
            }
    CHECK(memcmp(final, b.m.w, sizeof(float) * b.m.n_floats) == 0, "%s: final weights differ", name);
    CHECK(ps.tokens == pr.tokens && ps.loss_smooth == pr.loss_smooth && ps.lr == pr.lr && ps.step == pr.step,
          "%s: progress differs: tokens %lld/%lld smooth %.17g/%.17g lr %.17g/%.17g", name, (long long)ps.tokens,
          (long long)pr.tokens, ps.loss_smooth, pr.loss_smooth, ps.lr, pr.lr);
    job_close(&b);
    free(final);
    unlink(path);
}

/* The model sizes of the continuation checks (small: 12 steps each). */
#define SMALL "d=16", "layers=2", "heads=2", "n_ctx=8", "batch=4", "lr=0.01", "warmup=3"

static void test_continuation_attention(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 11);
    const char *random_t1[] = {"arch=attention", SMALL, "decay=cosine", "dropout=0.1", "threads=1", NULL};
    const char *sequential_t2[] = {"arch=attention", SMALL, "decay=linear", "order=sequential", "threads=2", NULL};
    check_resume("attention clm random threads=1 cosine", random_t1, 12, 5, &ds);
    check_resume("attention clm sequential threads=2 linear", sequential_t2, 12, 7, &ds);
    check_resume("attention clm resumed after one step", random_t1, 6, 1, &ds);
    tm_free_dataset(&ds);
}

static void test_continuation_mixer_mlm(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 12);
    const char *t2[] = {"arch=mixer", "task=mlm", SMALL, "decay=cosine", "threads=2", NULL};
    const char *t1[] = {"arch=mixer", "task=mlm", SMALL, "decay=cosine", "order=sequential", "threads=1", NULL};
    check_resume("mixer mlm random threads=2", t2, 12, 5, &ds);
    check_resume("mixer mlm sequential threads=1", t1, 12, 6, &ds);
    tm_free_dataset(&ds);
}

static void test_continuation_pairconnect(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 13);
    /* K = 1000 rows: after the first steps many live rows are not touched
       again, so a lost live list would leave them behind */
    const char *adamw_t2[] = {"arch=pairconnect", SMALL, "hash_size=1000", "table_optim=adamw", "decay=cosine",
                              "threads=2", NULL};
    const char *adamw_t1[] = {"arch=pairconnect", SMALL, "hash_size=1000", "table_optim=adamw",
                              "order=sequential", "threads=1", NULL};
    const char *lazy_t1[] = {"arch=pairconnect", SMALL, "hash_size=1000", "table_optim=lazy", "decay=cosine",
                             "threads=1", NULL};
    const char *lazy_t2[] = {"arch=pairconnect", SMALL, "hash_size=1000", "table_optim=lazy",
                             "order=sequential", "threads=2", NULL};
    check_resume("pairconnect clm adamw threads=2", adamw_t2, 12, 4, &ds);
    check_resume("pairconnect clm adamw sequential threads=1", adamw_t1, 12, 6, &ds);
    check_resume("pairconnect clm lazy threads=1", lazy_t1, 12, 4, &ds);
    check_resume("pairconnect clm lazy sequential threads=2", lazy_t2, 12, 6, &ds);
    tm_free_dataset(&ds);
}

/* linattn (docs/mixers.md): both feature maps, its keys read back from the
   checkpoint (feature_dim=3 is not the default), threads 2 and 1 */
static void test_continuation_linattn(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 15);
    const char *taylor[] = {"arch=linattn", SMALL, "feature_dim=3", "order=sequential", "threads=2", NULL};
    const char *elu1[] = {"arch=linattn", SMALL, "feature_map=elu1", "task=mlm", "threads=1", NULL};
    check_resume("linattn taylor feature_dim=3 clm threads=2", taylor, 12, 5, &ds);
    check_resume("linattn elu1 mlm threads=1", elu1, 12, 7, &ds);
    tm_free_dataset(&ds);
}

/* gla (docs/mixers.md): both gates, gate_rank read back from the
   checkpoint (3 is not the default), threads 2 and 1 */
static void test_continuation_gla(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 16);
    const char *data[] = {"arch=gla", SMALL, "gate_rank=3", "order=sequential", "threads=2", NULL};
    const char *fixed[] = {"arch=gla", SMALL, "gate=fixed", "threads=1", NULL};
    check_resume("gla data gate_rank=3 clm threads=2", data, 12, 5, &ds);
    check_resume("gla fixed clm threads=1", fixed, 12, 7, &ds);
    tm_free_dataset(&ds);
}

static void test_continuation_dispatcher(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 14);
    const char *t2[] = {"arch=dispatcher", SMALL, "level_dropout=0.2", "dropout=0.1", "order=sequential",
                        "decay=cosine", "threads=2", NULL};
    const char *t1[] = {"arch=dispatcher", SMALL, "level_dropout=0.2", "dropout=0.1", "decay=cosine",
                        "threads=1", NULL};
    check_resume("dispatcher clm level_dropout sequential threads=2", t2, 12, 5, &ds);
    check_resume("dispatcher clm level_dropout random threads=1", t1, 12, 8, &ds);
    tm_free_dataset(&ds);
}

/* Index of the first of n doubles where a and b differ, or -1. */
static int first_difference(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i])) return i;
    return -1;
}

/* A run with budget2 from the start against: a run built with budget1,
   trained to step k, saved, and continued to the end by a new trainer with
   budget2 (what `extend` does).  k at most budget1's cool-down start: the
   first k steps take the same lr and loss as the straight run's, and the
   continuation ends with its losses, lrs and weights bit for bit.  k after
   it (expect_same 0): the final weights differ. */
static void check_extend(const char *name, const char *const *args, const char *budget1, const char *budget2,
                         int k, int expect_same, const Dataset *ds)
{
    char path[256], err[ERR_LEN];
    path_in_dir(path, sizeof path, "extend.safetensors");
    double straight[MAX_STEPS], extended[MAX_STEPS], straight_lr[MAX_STEPS];
    TrainProgress ps = {0}, pe = {0};
    Job a, b;
    if (job_open(&a, args, budget2, ds)) { CHECK(0, "%s: setup", name); return; }
    int N = (int)trainer_total_steps(a.t);
    CHECK(N > k && N <= MAX_STEPS, "%s: %d steps", name, N);
    CHECK(job_train(&a, N, straight, &ps) == 0, "%s: straight run", name);
    memcpy(straight_lr, a.lr, sizeof straight_lr);
    float *final = copy_weights(&a.m);
    job_close(&a);

    if (job_open(&b, args, budget1, ds)) { CHECK(0, "%s: setup", name); free(final); return; }
    int64_t S1 = trainer_total_steps(b.t), D1 = wsd_cooldown_start(&b.m.cfg, S1);
    CHECK(S1 < N && (k <= D1) == expect_same, "%s: budget1 has %lld steps, cool-down from %lld, k %d", name,
          (long long)S1, (long long)D1, k);
    CHECK(job_train(&b, k, extended, &pe) == 0, "%s: first part", name);
    if (expect_same) {
        int at = first_difference(straight_lr, b.lr, k);
        CHECK(at < 0, "%s: step %d took lr %.17g with %lld steps, %.17g with %d", name, at + 1, b.lr[at],
              (long long)S1, straight_lr[at], N);
        CHECK(first_difference(straight, extended, k) < 0, "%s: the first %d losses differ", name, k);
    }
    CHECK(trainer_save(b.t, path, NULL, NULL, 0, err) == 0, "%s: save: %s", name, err);
    job_close(&b);

    if (job_open(&b, args, budget2, ds)) { CHECK(0, "%s: setup", name); free(final); return; }
    CHECK(trainer_resume(b.t, path, err) == 0, "%s: resume: %s", name, err);
    CHECK(job_train(&b, N, extended, &pe) == 0, "%s: second part", name);
    CHECK(trainer_done(b.t), "%s: extended run not done after %d steps", name, N);
    int same_weights = memcmp(final, b.m.w, sizeof(float) * b.m.n_floats) == 0;
    if (expect_same) {
        int at = first_difference(straight + k, extended + k, N - k);
        CHECK(at < 0, "%s: step %d: loss %.17g extended, %.17g straight", name, k + at + 1, extended[k + at],
              straight[k + at]);
        CHECK(first_difference(straight_lr + k, b.lr + k, N - k) < 0, "%s: the extended lrs differ", name);
        CHECK(same_weights, "%s: final weights differ", name);
        CHECK(ps.loss == pe.loss && ps.loss_smooth == pe.loss_smooth && ps.tokens == pe.tokens,
              "%s: final loss %.17g/%.17g smooth %.17g/%.17g", name, ps.loss, pe.loss, ps.loss_smooth,
              pe.loss_smooth);
    } else {
        CHECK(!same_weights, "%s: saved inside the cool-down, yet the same final weights", name);
    }
    job_close(&b);
    free(final);
    unlink(path);
}

static void test_extend_wsd(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 15);
    const char *clm_random_t1[] = {"arch=attention", SMALL, "decay=wsd", "cooldown=0.5", "dropout=0.1",
                                   "threads=1", NULL};
    const char *clm_sequential_t2[] = {"arch=attention", SMALL, "decay=wsd", "order=sequential", "threads=2", NULL};
    const char *mlm_random_t2[] = {"arch=mixer", "task=mlm", SMALL, "decay=wsd", "cooldown=0.3", "threads=2", NULL};
    const char *mlm_sequential_t1[] = {"arch=attention", "task=mlm", SMALL, "decay=wsd", "order=sequential",
                                       "dropout=0.1", "threads=1", NULL};
    const char *level_dropout_t2[] = {"arch=dispatcher", SMALL, "decay=wsd", "level_dropout=0.2", "threads=2", NULL};
    /* steps=10, cooldown 0.5: cool-down from step 5; 0.3: from 7; 0.2: from 8 */
    check_extend("clm random threads=1 dropout", clm_random_t1, "steps=10", "steps=20", 5, 1, &ds);
    check_extend("clm sequential threads=2", clm_sequential_t2, "steps=10", "steps=24", 8, 1, &ds);
    check_extend("clm sequential threads=2, saved early", clm_sequential_t2, "steps=10", "steps=17", 3, 1, &ds);
    check_extend("mlm random threads=2", mlm_random_t2, "steps=10", "steps=20", 7, 1, &ds);
    check_extend("mlm sequential threads=1 dropout", mlm_sequential_t1, "steps=10", "steps=16", 8, 1, &ds);
    check_extend("dispatcher level_dropout threads=2", level_dropout_t2, "steps=10", "steps=21", 8, 1, &ds);
    /* tokens budgets (batch 4 x n 8 = 32 a step): 10 and 20 steps */
    check_extend("mlm random threads=2, tokens", mlm_random_t2, "tokens=300", "tokens=640", 7, 1, &ds);
    /* saved one step into the 10-step run's cool-down: not the same run */
    check_extend("clm random threads=1, saved in the cool-down", clm_random_t1, "steps=10", "steps=20", 6, 0, &ds);
    check_extend("mlm random threads=2, saved in the cool-down", mlm_random_t2, "steps=10", "steps=20", 8, 0, &ds);
    tm_free_dataset(&ds);
}

static int one_line(const char *s) { return s[0] && !strchr(s, '\n'); }

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* Writes `path` with n bytes of `src` (the first n), byte `at` xor `flip`. */
static int write_damaged(const char *src, const char *path, long n, long at, int flip)
{
    FILE *in = fopen(src, "rb");
    if (!in) return -1;
    char *buf = malloc((size_t)n);
    size_t got = fread(buf, 1, (size_t)n, in);
    fclose(in);
    if (at >= 0 && at < n) buf[at] ^= (char)flip;
    FILE *out = fopen(path, "wb");
    int rc = out && got == (size_t)n && fwrite(buf, 1, (size_t)n, out) == (size_t)n ? 0 : -1;
    if (out) fclose(out);
    free(buf);
    return rc;
}

/* Refused files: each gives one line naming the problem and leaves the
   trainer exactly as it was (the later good resume continues bit for bit). */
static void test_refused_files(void)
{
    Dataset ds, other_ds;
    tm_random_dataset(&ds, 40, 3000, 21);
    tm_random_dataset(&other_ds, 40, 2000, 21);
    const char *args[] = {"arch=attention", SMALL, "decay=cosine", "threads=1", "steps=10", NULL};
    char good[256], bad[256], plain[256], err[ERR_LEN];
    path_in_dir(good, sizeof good, "good.safetensors");
    path_in_dir(bad, sizeof bad, "bad.safetensors");
    path_in_dir(plain, sizeof plain, "plain.safetensors");
    double straight[MAX_STEPS], resumed[MAX_STEPS];
    TrainProgress p = {0};
    Job a;
    if (job_open(&a, args, NULL, &ds)) { CHECK(0, "setup"); return; }
    job_train(&a, 10, straight, &p);
    float *final = copy_weights(&a.m);
    job_close(&a);
    if (job_open(&a, args, NULL, &ds)) { CHECK(0, "setup"); return; }
    job_train(&a, 4, resumed, &p);
    CHECK(trainer_save(a.t, good, NULL, NULL, 0, err) == 0, "%s", err);
    CHECK(checkpoint_save(plain, &a.m, NULL, NULL, 0, err) == 0, "%s", err);
    job_close(&a);
    long size = file_size(good);
    CHECK(size > 1000, "resume file of %ld bytes", size);

    Job b;
    if (job_open(&b, args, NULL, &ds)) { CHECK(0, "setup"); return; }
    float *before = copy_weights(&b.m);
    struct {
        const char *what, *expect;
        long n, at;
    } cases[] = {
        {"truncated to half", "outside", size / 2, -1},
        {"truncated by 4 bytes", "outside", size - 4, -1},
        {"a flipped bit in the last moment", "checksum", size, size - 3},
        {"a flipped bit in the first weight", "checksum", size, -2},
        {"a damaged header", "", size, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long at = cases[i].at;
        if (at == -2) {   /* first byte of the data: after the 8-byte length and the header */
            FILE *f = fopen(good, "rb");
            unsigned char len[8] = {0};
            CHECK(f && fread(len, 1, 8, f) == 8, "read header length");
            if (f) fclose(f);
            long header = 0;
            for (int k = 7; k >= 0; k--) header = header * 256 + len[k];
            at = 8 + header + 1;
        }
        CHECK(write_damaged(good, bad, cases[i].n, at, 0x10) == 0, "write %s", cases[i].what);
        err[0] = 0;
        CHECK(trainer_resume(b.t, bad, err) == -1, "%s: accepted", cases[i].what);
        CHECK(one_line(err) && strstr(err, cases[i].expect), "%s: error '%s'", cases[i].what, err);
        printf("  %s: %s\n", cases[i].what, err);
    }
    err[0] = 0;
    CHECK(trainer_resume(b.t, plain, err) == -1 && one_line(err) && strstr(err, "train_state"),
          "plain model checkpoint: '%s'", err);
    printf("  plain model checkpoint: %s\n", err);
    /* a train_state that is not what trainer_save writes */
    const char *states[][2] = {{"{\"version\":\"1\"}", "step"},
                               {"{\"version\":\"2\"}", "version 2"},
                               {"[1,2]", "not a JSON object"},
                               {"{\"version\":\"1\",\"step\":\"-3\"}", "step"}};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        CkptExtra extra = {"train_state", states[i][0]};
        CHECK(checkpoint_save(bad, &b.m, NULL, &extra, 1, err) == 0, "%s", err);
        err[0] = 0;
        CHECK(trainer_resume(b.t, bad, err) == -1 && one_line(err) && strstr(err, states[i][1]),
              "train_state %s: '%s'", states[i][0], err);
    }
    CHECK(trainer_step_count(b.t) == 0, "a refused resume moved the step count to %lld",
          (long long)trainer_step_count(b.t));
    CHECK(memcmp(before, b.m.w, sizeof(float) * b.m.n_floats) == 0, "a refused resume changed the weights");
    /* the trainer is intact: the good file still continues bit for bit */
    CHECK(trainer_resume(b.t, good, err) == 0, "%s", err);
    job_train(&b, 10, resumed, &p);
    CHECK(memcmp(straight, resumed, sizeof(double) * 10) == 0, "losses differ after refused resumes");
    CHECK(memcmp(final, b.m.w, sizeof(float) * b.m.n_floats) == 0, "weights differ after refused resumes");
    job_close(&b);

    /* another config or other data: refused, naming the first mismatch */
    struct {
        const char *key, *expect;
        const Dataset *data;
    } others[] = {{"d=24", "d=16", &ds},
                  {"heads=4", "heads=2", &ds},
                  {"task=bidir", "task=clm", &ds},
                  {"arch=mixer", "arch=attention", &ds},
                  {"dropout=0.2", "dropout=0", &ds},
                  {"steps=10", "train split of 3000 tokens", &other_ds}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        Job o;
        if (job_open(&o, args, others[i].key, others[i].data)) { CHECK(0, "setup %s", others[i].key); continue; }
        err[0] = 0;
        CHECK(trainer_resume(o.t, good, err) == -1 && one_line(err) && strstr(err, others[i].expect),
              "%s: '%s'", others[i].key, err);
        printf("  %s: %s\n", others[i].key, err);
        job_close(&o);
    }
    free(before);
    free(final);
    unlink(good);
    unlink(bad);
    unlink(plain);
    tm_free_dataset(&ds);
    tm_free_dataset(&other_ds);
}

/* Model readers load resume files (they skip optim.* and train_state);
   the stored tokenizer comes back for `generate`; a trainer for evaluation
   only refuses to save or resume. */
static void test_model_readers(void)
{
    Dataset ds;
    char err[ERR_LEN], path[256];
    DataOptions o = {0};
    if (dataset_load("builtin:stories", &o, &ds, err)) { CHECK(0, "%s", err); return; }
    path_in_dir(path, sizeof path, "readers.safetensors");
    const char *args[] = {"arch=pairconnect", SMALL, "hash_size=300", "threads=1", "steps=5", NULL};
    Job a;
    if (job_open(&a, args, NULL, &ds)) { CHECK(0, "setup"); dataset_free(&ds); return; }
    double losses[MAX_STEPS];
    TrainProgress p;
    job_train(&a, 3, losses, &p);
    CkptExtra extra[] = {{"step", "3"}, {"data", "builtin:stories"}};
    CHECK(trainer_save(a.t, path, ds.tokenizer, extra, 2, err) == 0, "%s", err);

    Config c;
    config_defaults(&c);
    Model m;
    Tokenizer *tok = NULL;
    int loaded = checkpoint_load(path, &c, &m, &tok, err) == 0;
    CHECK(loaded, "checkpoint_load: %s", err);
    if (loaded) {
        CHECK(m.n_floats == a.m.n_floats && memcmp(m.w, a.m.w, sizeof(float) * m.n_floats) == 0,
              "checkpoint_load: weights differ");
        CHECK(tok != NULL, "checkpoint_load: no tokenizer");
        CHECK(c.vocab == ds.vocab && c.hash_size == 300 && !strcmp(c.arch, "pairconnect"), "config not read back");
        memset(m.w, 0, sizeof(float) * m.n_floats);
        CHECK(checkpoint_load_weights(path, &m, err) == 0, "checkpoint_load_weights: %s", err);
        CHECK(memcmp(m.w, a.m.w, sizeof(float) * m.n_floats) == 0, "checkpoint_load_weights: weights differ");
        model_free(&m);
    }
    tokenizer_free(tok);

    Trainer *eval_only;
    CHECK(trainer_create(&eval_only, &a.m, &ds, 1, 0, err) == 0, "%s", err);
    CHECK(trainer_save(eval_only, path, NULL, NULL, 0, err) == -1 && one_line(err), "eval-only save: '%s'", err);
    CHECK(trainer_resume(eval_only, path, err) == -1 && one_line(err), "eval-only resume: '%s'", err);
    trainer_free(eval_only);
    job_close(&a);
    unlink(path);
    dataset_free(&ds);
}

/* Config S (d 256, L 4, h 4, n 64, V 10000): how long a save takes at
   every ckpt_every steps, and a resume. */
static void test_save_time(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 10000, 20000, 31);
    const char *args[] = {"arch=attention", "d=256", "layers=4", "heads=4", "n_ctx=64", "batch=2", "threads=1",
                          "steps=10", NULL};
    char path[256], err[ERR_LEN];
    path_in_dir(path, sizeof path, "config-s.safetensors");
    Job a;
    if (job_open(&a, args, NULL, &ds)) { CHECK(0, "setup"); tm_free_dataset(&ds); return; }
    double losses[MAX_STEPS];
    TrainProgress p;
    job_train(&a, 1, losses, &p);
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = now_seconds();
        CHECK(trainer_save(a.t, path, NULL, NULL, 0, err) == 0, "%s", err);
        double dt = now_seconds() - t0;
        if (dt < best) best = dt;
    }
    double t0 = now_seconds();
    CHECK(trainer_resume(a.t, path, err) == 0, "%s", err);
    double resume = now_seconds() - t0;
    int64_t n_params = model_count_params(&a.m, NULL);
    printf("  config S (%lld params): trainer_save %.3f s (best of 3), file %.1f MB, trainer_resume %.3f s\n",
           (long long)n_params, best, file_size(path) / 1e6, resume);
    job_close(&a);
    unlink(path);
    tm_free_dataset(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    snprintf(dir, sizeof dir, "/tmp/mixbench-resume-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("FAIL mkdtemp\n");
        return 1;
    }
    RUN(test_continuation_attention);
    RUN(test_continuation_mixer_mlm);
    RUN(test_continuation_pairconnect);
    RUN(test_continuation_dispatcher);
    RUN(test_continuation_linattn);
    RUN(test_continuation_gla);
    RUN(test_extend_wsd);
    RUN(test_refused_files);
    RUN(test_model_readers);
    RUN(test_save_time);
    rmdir(dir);
    CHECK_EXIT();
}
