/*
 * test_util.h — the helpers the C tests share (tests/check.h is the harness
 * itself: CHECK, RUN).  One header, in sections:
 *   numbers   random fills, dot products, largest values and differences
 *   models    a small model from key=value strings, a task's forward (and
 *             backward) on fixed inputs, in-memory datasets, one block's
 *             mixer alone
 *   files     a whole file read into memory
 *   stores    the test binary's temp folder and file names in it, stores
 *             opened there, an old store at a schema version (upgrade
 *             tests), one-value queries and statements, queued jobs,
 *             a pid that is surely dead, stand-in checkpoints
 *
 * Not for: a helper only one test file uses (it stays in that file).
 */
#ifndef MIXBENCH_TEST_UTIL_H
#define MIXBENCH_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/migrations.h"
#include "db/store.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/io/safetensors.h"
#include "engine/mixer.h"
#include "engine/model.h"
#include "engine/rng.h"
#include "engine/sparse.h"
#include "engine/task.h"
#include "engine/trainer.h"
#include "tests/check.h"

/* ---- numbers ------------------------------------------------------------ */

/* x[i] drawn from N(0, scale^2). */
static inline void fill(float *x, size_t n, Rng *r, float scale)
{
    for (size_t i = 0; i < n; i++) x[i] = scale * (float)rng_normal(r);
}

/* sum a[i] b[i] in double precision. */
static inline double dotd(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

/* max |x[i]| */
static inline double max_abs(const float *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* max |a[i] - b[i]|, the difference taken in double precision. */
static inline double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* ---- checkpoints -------------------------------------------------------- */

/* Writes f's tensors and metadata to path without the metadata entry key,
   as a mixbench from before that key existed wrote it; 0 or -1 (err). */
static inline int st_write_without(const StFile *f, const char *key, const char *path, char *err)
{
    StMeta *meta = calloc((size_t)f->n_meta + 1, sizeof(StMeta));
    StTensorRef *refs = calloc((size_t)f->n_tensors + 1, sizeof(StTensorRef));
    int nm = 0, rc = -1;
    if (meta && refs) {
        for (int k = 0; k < f->n_meta; k++)
            if (strcmp(f->meta_keys[k], key)) meta[nm++] = (StMeta){f->meta_keys[k], f->meta_values[k]};
        for (int k = 0; k < f->n_tensors; k++) {
            refs[k].name = f->tensors[k].name;
            refs[k].ndim = f->tensors[k].ndim;
            memcpy(refs[k].shape, f->tensors[k].shape, sizeof refs[k].shape);
            refs[k].data = f->tensors[k].data;
        }
        rc = st_write(path, meta, nm, refs, f->n_tensors, err);
    } else {
        snprintf(err, ERR_LEN, "out of memory");
    }
    free(meta);
    free(refs);
    return rc;
}

/* ---- models ------------------------------------------------------------- */

/* The defaults with a NULL-terminated list of "key=value" settings on top;
   -1 (the error printed) when one is refused. */
static inline int tm_config(Config *c, const char *const *args)
{
    char err[ERR_LEN];
    config_defaults(c);
    for (int i = 0; args[i]; i++)
        if (config_set_arg(c, args[i], err)) {
            printf("  %s\n", err);
            return -1;
        }
    return 0;
}

/* Builds a model from a NULL-terminated list of "key=value" settings on top
   of a tiny default (V 13, d 8, h 2, n 6, L 2). */
static inline int tm_build(Model *m, Config *c, ...)
{
    char err[512];
    config_defaults(c);
    const char *base[] = {"vocab=13", "d=8", "heads=2", "n_ctx=6", "layers=2", "batch=3", NULL};
    for (int i = 0; base[i]; i++) config_set_arg(c, base[i], err);
    va_list ap;
    va_start(ap, c);
    const char *arg;
    while ((arg = va_arg(ap, const char *))) {
        if (config_set_arg(c, arg, err)) {
            printf("  config: %s\n", err);
            va_end(ap);
            return -1;
        }
    }
    va_end(ap);
    if (config_validate(c, err) || model_build(m, c, err)) {
        printf("  build: %s\n", err);
        return -1;
    }
    return 0;
}

/* Random tokens (ids >= 2) and clm-style targets for B windows. */
static inline void tm_batch(const Model *m, Work *w, int B, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    int V = m->cfg.vocab;
    int32_t *win = malloc(sizeof(int32_t) * (size_t)B * (m->task->window_len(&m->cfg)));
    for (int i = 0; i < B * m->task->window_len(&m->cfg); i++) win[i] = 2 + (int32_t)rng_below(&r, V - 2);
    Rng r2;
    rng_seed(&r2, seed + 1);
    int64_t *idx = malloc(sizeof(int64_t) * B);
    for (int b = 0; b < B; b++) idx[b] = b;
    m->task->prepare(&m->cfg, B, win, NULL, w->inputs, w->targets, 0, &r2, idx);
    free(win);
    free(idx);
}

/* Forward (+ backward when want_grad) over the batch already in w; returns
   the mean loss. */
static inline double tm_run(const Model *m, Work *w, int B, int want_grad, int training)
{
    int64_t count = 0;
    for (int i = 0; i < B * m->cfg.n_ctx; i++) count += w->targets[i] >= 0;
    TaskCall t;
    memset(&t, 0, sizeof t);
    t.m = m;
    t.w = w;
    t.B = B;
    t.training = training;
    t.want_grad = want_grad;
    t.step_key = 12345;
    t.loss_scale = 1.0f / (float)count;
    if (want_grad) work_zero_grads(w, m);
    m->task->run(&t);
    return t.loss_sum / (double)count;
}

/* A dataset of random ids (2..vocab-1) held in memory, every split len long. */
static inline void tm_random_dataset(Dataset *ds, int vocab, size_t len, uint64_t seed)
{
    memset(ds, 0, sizeof *ds);
    Rng r;
    rng_seed(&r, seed);
    for (int s = 0; s < SPLIT_COUNT; s++) {
        ds->split[s].ids = malloc(sizeof(int32_t) * len);
        ds->split[s].len = len;
        for (size_t i = 0; i < len; i++) ds->split[s].ids[i] = 2 + (int32_t)rng_below(&r, vocab - 2);
    }
    ds->vocab = vocab;
    ds->loss_floor = NAN;
}

static inline void tm_free_dataset(Dataset *ds)
{
    for (int s = 0; s < SPLIT_COUNT; s++) free(ds->split[s].ids);
}

/* Every parameter but the ones initialised to 1 (norm gains) drawn from
   N(0, scale^2), so that no layer is trivial. */
static inline void tm_randomize(Model *m, Rng *r, float scale)
{
    for (int p = 0; p < m->n_params; p++)
        if (m->params[p].init != INIT_ONE)
            for (size_t j = 0; j < m->params[p].numel; j++) model_param(m, p)[j] = scale * (float)rng_normal(r);
}

/* Trains c (its vocab taken from ds) for its budget on its own thread
   count: losses[] receives every step's loss and *final_train the last one
   (either may be NULL).  Returns the final valid loss, or NAN on error
   (printed). */
static inline double tm_train(const Config *c, const Dataset *ds, double *losses, double *final_train)
{
    Model m;
    char err[ERR_LEN];
    Config cc = *c;
    cc.vocab = ds->vocab;
    if (config_validate(&cc, err) || model_build(&m, &cc, err)) {
        printf("  %s\n", err);
        return NAN;
    }
    Trainer *t;
    if (trainer_create(&t, &m, ds, cc.threads, 1, err)) {
        printf("  %s\n", err);
        model_free(&m);
        return NAN;
    }
    TrainProgress p = {0};
    while (!trainer_done(t)) {
        if (trainer_step(t, &p, err)) {
            printf("  %s\n", err);
            p.loss = NAN;
            break;
        }
        if (losses) losses[p.step - 1] = p.loss;
    }
    if (final_train) *final_train = p.loss;
    EvalResult r;
    double v = trainer_evaluate(t, SPLIT_VALID, &r, err) ? NAN : r.loss;
    trainer_free(t);
    model_free(&m);
    return v;
}

/* One block's mixer, alone: its model, work space and MixArgs. */
typedef struct {
    Model m;
    Config c;
    Work w;
    const float *wp[MIX_MAX_PARAMS];
    float *dwp[MIX_MAX_PARAMS];
    MixArgs a;
} MixerRig;

/* Points r->a at the first block's mixer of r->m (built) and r->w
   (allocated for B windows): its weights, their gradients (a table's go to
   the work's row accumulators), its state, saved values and scratch, for
   B windows of n tokens, causal or not. */
static inline void rig_wire(MixerRig *r, int B, int n, int causal)
{
    const BlockParams *bp = &r->m.stacks[0].blocks[0];
    MixArgs *a = &r->a;
    for (int k = 0; k < bp->n_mix; k++) {
        const Param *p = &r->m.params[bp->mix0 + k];
        r->wp[k] = model_param(&r->m, bp->mix0 + k);
        r->dwp[k] = p->sparse_rows ? NULL : r->w.grads + p->offset;
        a->row_grads[k] = p->sparse_rows ? &r->w.row_grads[p->sparse_index] : NULL;
    }
    a->cfg = &r->m.cfg;
    a->B = B;
    a->n = n;
    a->d = r->c.d;
    a->heads = r->c.heads;
    a->causal = causal;
    a->w = r->wp;
    a->dw = r->dwp;
    a->saved = r->w.stacks[0].blocks[0].mix_saved;
    a->scratch = r->w.mix_scratch;
    a->state = bp->mix_state;
    a->tokens = r->w.inputs;
}

/* After tm_build into r->m and r->c: the work space for B windows, the
   first block's mixer weights drawn N(0, 0.5) from seed, gradients zeroed
   and r->a wired (rig_wire).  -1 (printed, the model freed) when the work
   space cannot be had. */
static inline int rig_alloc_random(MixerRig *r, int B, int n, int causal, uint64_t seed)
{
    char err[ERR_LEN];
    if (work_alloc(&r->w, &r->m, B, 1, err)) {
        printf("  work: %s\n", err);
        model_free(&r->m);
        return -1;
    }
    const BlockParams *bp = &r->m.stacks[0].blocks[0];
    Rng rng;
    rng_seed(&rng, seed);
    for (int k = 0; k < bp->n_mix; k++)
        fill(model_param(&r->m, bp->mix0 + k), r->m.params[bp->mix0 + k].numel, &rng, 0.5f);
    work_zero_grads(&r->w, &r->m);
    rig_wire(r, B, n, causal);
    return 0;
}

static inline void rig_close(MixerRig *r)
{
    work_free(&r->w);
    model_free(&r->m);
}

/* ---- files -------------------------------------------------------------- */

/* The whole file, NUL-terminated (free it), its length in *len; NULL when
   it cannot be opened. */
static inline void *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n > 0 ? (size_t)n + 1 : 1);
    size_t got = fread(buf, 1, n > 0 ? (size_t)n : 0, f);
    fclose(f);
    buf[got] = '\0';
    if (len) *len = got;
    return buf;
}

/* ---- stores ------------------------------------------------------------- */

/* The test binary's temp folder (tmp_dir_make), removed by tmp_dir_remove. */
static char tmp_dir[256] __attribute__((unused));

/* Makes tmp_dir, /tmp/mixbench-test-NAME-XXXXXX; prints a FAIL line and
   returns -1 when it cannot. */
static inline int tmp_dir_make(const char *name)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/mixbench-test-%s-XXXXXX", name);
    if (!mkdtemp(tmp_dir)) {
        printf("FAIL mkdtemp %s\n", tmp_dir);
        return -1;
    }
    return 0;
}

/* Removes tmp_dir and everything in it. */
static inline void tmp_dir_remove(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0) printf("  could not remove %s\n", tmp_dir);
}

/* A file name in the test's temp folder (one static buffer: copy it before
   the next call). */
static inline const char *db_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

/* The store db_path(name), created when new; a failed CHECK and NULL when it
   cannot be opened. */
static inline Store *open_store(const char *name)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path(name), &s, err) == 0, "%s", err);
    return s;
}

/* An old store at path for an upgrade test: the first `version`
   migrations applied by hand (as a binary of that version left it), then
   fill (SQL run in the same connection; NULL: none) and user_version set;
   failed CHECKs say which step went wrong. */
static inline void store_file_at_version(const char *path, int version, const char *fill)
{
    sqlite3 *db = NULL;
    char *msg = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK, "open %s", path);
    for (int v = 0; v < version; v++) {
        CHECK(sqlite3_exec(db, STORE_MIGRATIONS[v], NULL, NULL, &msg) == SQLITE_OK, "v%d: %s", v + 1, msg);
        sqlite3_free(msg);
        msg = NULL;
    }
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d;", version);
    CHECK(!fill || sqlite3_exec(db, fill, NULL, NULL, &msg) == SQLITE_OK, "fill: %s", msg);
    sqlite3_free(msg);
    msg = NULL;
    CHECK(sqlite3_exec(db, pragma, NULL, NULL, &msg) == SQLITE_OK, "%s", msg);
    sqlite3_free(msg);
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");
}

/* store_query callback: the first column of the first row. */
typedef struct {
    char text[512];
    int rows;
    int is_null;
} FirstValue;

static inline int first_value(void *ctx, int ncols, char **values, char **names)
{
    (void)names;
    FirstValue *fv = ctx;
    if (fv->rows++ == 0 && ncols > 0) {
        fv->is_null = values[0] == NULL;
        snprintf(fv->text, sizeof fv->text, "%s", values[0] ? values[0] : "");
    }
    return 0;
}

static inline FirstValue query1(Store *s, const char *sql)
{
    FirstValue fv = {{0}, 0, 0};
    char err[ERR_LEN] = "";
    if (store_query(s, sql, first_value, &fv, err) != 0) {
        printf("  query failed: %s: %s\n", sql, err);
        snprintf(fv.text, sizeof fv.text, "<error>");
    }
    return fv;
}

static inline double query_num(Store *s, const char *sql)
{
    FirstValue fv = query1(s, sql);
    return fv.rows && !fv.is_null ? strtod(fv.text, NULL) : NAN;
}

/* query1 of SQL with a %lld where `a` goes (a run id, usually). */
static inline FirstValue value_of(Store *s, const char *format, long long a)
{
    char sql[1024];
    snprintf(sql, sizeof sql, format, a);
    return query1(s, sql);
}

/* Runs SQL whose rows (if any) are not wanted; 0 on success, else the error
   printed and -1. */
static inline int exec_sql(Store *s, const char *sql)
{
    char err[ERR_LEN] = "";
    FirstValue fv = {{0}, 0, 0};
    int rc = store_query(s, sql, first_value, &fv, err);
    if (rc) printf("  %s: %s\n", sql, err);
    return rc;
}

/* A job's RunInfo: arch on builtin:markov, 100 steps, seed 1, one thread. */
static inline RunInfo job_info(const char *arch, const char *task)
{
    RunInfo info = {
        .arch = arch, .task = task, .data = "builtin:markov", .tokenizer = "word",
        .config_json = "{\"arch\":\"attention\",\"d\":\"64\"}",
        .total_steps = 100, .seed = 1, .threads = 1,
        .d = 64, .layers = 2, .heads = 4, .n_ctx = 32, .vocab = 500,
    };
    return info;
}

/* Queues job_info("attention", "clm") into sweep (0: none) at coords and
   priority; its run id. */
static inline int64_t enqueue(Store *s, int64_t sweep, const char *coords, int priority)
{
    char err[ERR_LEN] = "";
    RunInfo info = job_info("attention", "clm");
    int64_t id = 0;
    CHECK(store_job_enqueue(s, &info, sweep, coords, priority, &id, err) == 0, "%s", err);
    return id;
}

/* A pid that is surely gone: a child that exited and was reaped. */
static inline int dead_pid(void)
{
    pid_t child = fork();
    if (child == 0) _exit(0);
    int status;
    CHECK(child > 0 && waitpid(child, &status, 0) == child, "fork/wait");
    return (int)child;
}

/* A stand-in checkpoint at path: a safetensors file without tensors whose
   metadata names store s, run_id and step as a job's checkpoint does
   (db/ckpt_owner.h), so that the store's checks of whose a file is pass
   without training a model.  Returns path. */
static inline const char *fake_checkpoint(Store *s, int64_t run_id, int64_t step, const char *path)
{
    char id[STORE_ID_LEN], run[32], at[32], err[ERR_LEN];
    if (store_identity(s, id, sizeof id, err)) printf("  fake_checkpoint: %s\n", err);
    snprintf(run, sizeof run, "%lld", (long long)run_id);
    snprintf(at, sizeof at, "%lld", (long long)step);
    StMeta meta[] = {{"format", "mixbench"},
                     {CKPT_META_STORE_ID, id},
                     {CKPT_META_STORE_NAME, store_file_name(s)},
                     {CKPT_META_RUN_ID, run},
                     {CKPT_META_STEP, at}};
    if (st_write(path, meta, 5, NULL, 0, err)) printf("  fake_checkpoint: %s\n", err);
    return path;
}

#endif
