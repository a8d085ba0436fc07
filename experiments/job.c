/*
 * job.c — the job runner of job.h.
 *
 * Crash safety: a periodic checkpoint is written to a new file (temp file,
 * fsync, rename), and only then does the store learn about it (the run's
 * resume point and checkpoint row, one transaction); the previous periodic
 * file is deleted after that.  Killed at any instant, the store names a
 * checkpoint that exists and loads, and resuming from it redoes the later
 * steps to the same numbers (their metric rows are rewritten with the same
 * values).
 *
 * Records go through a JobSink (job_sink.h): the store, or for ranks > 0 of
 * an MPI launch nothing (data-parallel) or messages to rank 0 (a sweep).
 *
 * Data-parallel (JobSpec.dist): every rank runs this same loop.  Whatever
 * only rank 0 knows (a store write failed, a pause or cancel request, a
 * stop signal) is broadcast at the top of each step (follow_rank0), and the
 * collective work (a step, an evaluation) is done by every rank or none, so
 * the ranks never wait on each other for a step one of them skips.
 */
#include "experiments/job.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/data/data.h"
#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/status.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/infer_bench.h"
#include "engine/memory.h"
#include "engine/dist.h"
#include "engine/gemm.h"
#include "engine/optim.h"
#include "engine/task.h"
#include "engine/trainer.h"
#include "experiments/estimate.h"
#include "experiments/format.h"
#include "experiments/job_memory.h"

#define METRIC_BUFFER 4096
#define FLUSH_SECONDS 1.0     /* metrics reach the store at least this often */
#define CONTROL_SECONDS 0.2   /* pause / cancel requests are read this often */

void job_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    int rc = pthread_mutex_init(m, &attr);
    assert(rc == 0);
    (void)rc;
    pthread_mutexattr_destroy(&attr);
}

/* An error-checking mutex refuses a second lock by its owner and an unlock
   by any other thread: misuse fails here. */
void job_mutex_lock(pthread_mutex_t *m)
{
    int rc = pthread_mutex_lock(m);
    assert(rc == 0);
    (void)rc;
}

void job_mutex_unlock(pthread_mutex_t *m)
{
    int rc = pthread_mutex_unlock(m);
    assert(rc == 0);
    (void)rc;
}

void job_monitor_init(JobMonitor *m)
{
    memset(m, 0, sizeof *m);
    job_mutex_init(&m->lock);
}

void job_monitor_destroy(JobMonitor *m)
{
    pthread_mutex_destroy(&m->lock);
}

int job_monitor_read(JobMonitor *m, JobProgress *out)
{
    job_mutex_lock(&m->lock);
    int active = m->active;
    *out = m->p;
    job_mutex_unlock(&m->lock);
    return active;
}

static void publish(JobSpec *js, const JobProgress *p, int active)
{
    if (!js->monitor) return;
    job_mutex_lock(&js->monitor->lock);
    js->monitor->p = *p;
    js->monitor->active = active;
    job_mutex_unlock(&js->monitor->lock);
}

static double peak_mem_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

static const char *split_name(int split)
{
    return split == SPLIT_TEST ? "test" : split == SPLIT_VALID ? "valid" : "train";
}

static const char *tokenizer_name(const Dataset *ds)
{
    return ds->tokenizer ? tokenizer_kind_name(tokenizer_kind(ds->tokenizer)) : "ids";
}

/* Everything one running job holds. */
typedef struct {
    JobSpec *js;
    JobSink sink;
    int writer;                /* 1: this process writes checkpoints (rank 0) */
    Config c;
    Dataset ds;
    Model m;
    int have_model;
    Trainer *tr;
    MetricRow *rows;
    int n_rows;
    double last_flush, last_control;
    char ckpt_dir[PATH_MAX + 32];
    char last_periodic[PATH_MAX + 128];
    int64_t last_periodic_step;
    /* decay=wsd: the step its cool-down starts at; the resumable checkpoint
       there is kept, so that `mixbench extend` can continue the run to a
       larger budget from it (experiments/extend.h).  -1 otherwise. */
    int64_t extend_step;
    /* whose the checkpoints are (db/ckpt_owner.h): written into each */
    char store_id[STORE_ID_LEN], store_name[256];
    double ckpt_train_seconds;  /* training wall time at the last checkpoint (ckpt_minutes) */
    int ckpt_clock_started;     /* ckpt_train_seconds set (at the first step, else) */
    double unigram_nats;       /* the training split's unigram entropy */
    JobProgress prog;
    int stopped_waiting;       /* a stop came while waiting for memory */
    int waits_for_memory;      /* memory_admit said JOB_MEMORY_WAIT */
    /* the steps since the last metrics row (metrics_every): their train
       losses summed, how many, the largest gradient norm, the last step's
       progress */
    double loss_sum, gnorm_max;
    int loss_n;
    TrainProgress last_p;
    MemoryNeed need;           /* what job_memory_bytes said it needs */
    JobMemory mem;             /* its own peak memory (runs.peak_run_mb) */
    int mem_ended;             /* job_memory_end called */
    double train_cpu;          /* the process's CPU seconds over the steps this process trained */
    int64_t start_step;        /* the step it started at (> 0: resumed) */
    /* the loop's state: how it ends (status, why), its last step */
    RunStatus status;
    char msg[ERR_LEN];
    int ending;                /* set: the job ends at the top of the next step */
    TrainProgress p;
    double best_valid;
    int evals_without_gain;
} Job;

/* The process's CPU time so far, every thread, seconds. */
static double process_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The training CPU seconds of a run that trained every step here with the
   process to itself (job_memory.h), else NAN (a resumed run's earlier
   steps ran in another process; another job's threads would count). */
static double own_train_cpu(const Job *j)
{
    return !j->mem_ended && job_memory_alone(&j->mem) && j->start_step == 0 && j->train_cpu > 0 ? j->train_cpu : NAN;
}

/* The job's own peak in MB, or NAN (job_memory.h); ends the watch once. */
static double own_peak_mb(Job *j)
{
    if (j->mem_ended) return NAN;
    j->mem_ended = 1;
    return job_memory_end(&j->mem);
}

/* The metrics row of the steps since the previous one (a row is made
   every metrics_every steps, at the last step, at each checkpoint and where
   the job stops): the last step's step, tokens, wall time, smoothed loss,
   learning rate and tokens/s; the mean train loss of those steps (so none
   is left out of the curve, and a curve of rows every N steps is the
   every-step curve averaged in windows of N, not a noisy sample of it);
   the largest gradient norm among them (a spike is what one looks for
   there).  With metrics_every 1 the row is the step's own. */
static void close_metrics_row(Job *j)
{
    if (j->loss_n == 0) return;
    assert(j->n_rows < METRIC_BUFFER);   /* flushed when it filled */
    const TrainProgress *p = &j->last_p;
    double loss = j->loss_sum / j->loss_n;   /* exact for one step: x / 1 == x */
    j->rows[j->n_rows++] = (MetricRow){p->step, p->tokens, p->train_seconds, loss, p->loss_smooth,
                                       p->lr, j->gnorm_max, p->tokens_per_s};
    j->loss_sum = 0;
    j->loss_n = 0;
}

/* One training step's progress joins the open metrics row; the row closes
   at every metrics_every-th step and at the last. */
static void add_metrics_step(Job *j, const TrainProgress *p, int last)
{
    j->loss_sum += p->loss;
    j->gnorm_max = j->loss_n == 0 || p->grad_norm > j->gnorm_max ? p->grad_norm : j->gnorm_max;
    j->loss_n++;
    j->last_p = *p;
    if (p->step % j->c.metrics_every == 0 || last) close_metrics_row(j);
}

static int flush_metrics(Job *j, char *err)
{
    if (j->n_rows == 0) return 0;
    int rc = j->sink.ops->metrics(j->sink.ctx, j->prog.run_id, j->rows, j->n_rows, err);
    j->n_rows = 0;
    j->last_flush = now_seconds();
    return rc;
}

/* A line for people (the observer's note). */
static void note(const Job *j, const char *text)
{
    const JobObserver *o = j->js->observer;
    if (o && o->note) o->note(o->ctx, text);
}

/* Reports and records an evaluation trainer_evaluate made. */
static int eval_record(Job *j, int split, const EvalResult *res, char *err)
{
    const EvalResult r = *res;
    double bpb = j->ds.bytes_per_token_is_one ? r.loss / log(2.0) : NAN;
    const JobObserver *o = j->js->observer;
    if (o && o->eval)
        o->eval(o->ctx, split_name(split), j->prog.step, &r, bpb,
                isfinite(j->ds.loss_floor) && j->ds.loss_floor > 0 ? j->ds.loss_floor : NAN, j->c.eval_tokens > 0);
    EvalRow row = {j->prog.step, split_name(split), r.loss, r.accuracy, bpb, r.n_targets, r.loss_all};
    return j->sink.ops->eval(j->sink.ctx, j->prog.run_id, &row, err);
}

/* The metadata a checkpoint of this job carries beside the model keys: the
   step, the data and whose it is (db/ckpt_owner.h), into extra[5] (the
   texts in step_text and run_text); returns how many. */
typedef struct {
    char step[32], run[32];
} CkptTexts;

static int ckpt_extras(const Job *j, CkptExtra extra[5], CkptTexts *t)
{
    snprintf(t->step, sizeof t->step, "%lld", (long long)j->prog.step);
    snprintf(t->run, sizeof t->run, "%lld", (long long)j->prog.run_id);
    extra[0] = (CkptExtra){CKPT_META_STEP, t->step};
    extra[1] = (CkptExtra){"data", j->c.data};
    extra[2] = (CkptExtra){CKPT_META_STORE_ID, j->store_id};
    extra[3] = (CkptExtra){CKPT_META_STORE_NAME, j->store_name};
    extra[4] = (CkptExtra){CKPT_META_RUN_ID, t->run};
    return 5;
}

static int save_checkpoint(Job *j, const char *path, char *err)
{
    CkptExtra extra[5];
    CkptTexts texts;
    int n = ckpt_extras(j, extra, &texts);
    return trainer_save(j->tr, path, j->ds.tokenizer, extra, n, err);
}

/* The previous periodic checkpoint (not `keep`) leaves the store, then the
   disk: a crash in between leaves an unlisted file, never a listed one
   that is gone. */
static void forget_checkpoint(Job *j, const char *keep)
{
    if (!j->last_periodic[0] || !strcmp(j->last_periodic, keep)) return;
    if (j->last_periodic_step == j->extend_step) return;   /* the extension point stays */
    char err[ERR_LEN];
    j->sink.ops->ckpt_forget(j->sink.ctx, j->prog.run_id, j->last_periodic, err);
}

/* A resumable checkpoint the store knows about; the previous one goes. */
static int periodic_checkpoint(Job *j, char *err)
{
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/run%lld-step%lld.safetensors", j->ckpt_dir, (long long)j->prog.run_id,
             (long long)j->prog.step);
    close_metrics_row(j);   /* a resumed job starts its next row here too */
    if (flush_metrics(j, err) || save_checkpoint(j, path, err) ||
        j->sink.ops->set_resume(j->sink.ctx, j->prog.run_id, j->prog.step, path, err))
        return -1;
    forget_checkpoint(j, path);
    snprintf(j->last_periodic, sizeof j->last_periodic, "%s", path);
    j->last_periodic_step = j->prog.step;
    j->ckpt_train_seconds = j->last_p.train_seconds;
    j->ckpt_clock_started = 1;
    return 0;
}

/* A periodic checkpoint is due at a wsd run's extension point, every
   ckpt_every steps, and once
   ckpt_minutes of training wall time passed since the last one (or since
   this process's first step): a kill loses at most that much work. */
static int checkpoint_due(Job *j, const TrainProgress *p)
{
    const Config *c = &j->c;
    if (p->step == j->extend_step) return 1;
    if (c->ckpt_every > 0 && p->step % c->ckpt_every == 0) return 1;
    if (c->ckpt_minutes <= 0) return 0;
    if (!j->ckpt_clock_started) {
        j->ckpt_clock_started = 1;
        j->ckpt_train_seconds = p->train_seconds;
    }
    return p->train_seconds - j->ckpt_train_seconds >= c->ckpt_minutes * 60.0;
}

/* A new run's row, or what a claimed job's row learns when it starts. */
static int record_start(Job *j, char *err)
{
    JobSpec *js = j->js;
    int64_t nonemb, n_params = model_count_params(&j->m, &nonemb);
    StrBuf cfg;
    sb_init(&cfg);
    config_to_json(&j->c, &cfg);
    RunInfo info = {0};
    info.name = js->name;
    info.arch = j->c.arch;
    info.task = j->c.task;
    info.data = j->c.data;
    info.tokenizer = tokenizer_name(&j->ds);
    info.config_json = cfg.data;
    info.n_params = n_params;
    info.n_params_nonembedding = nonemb;
    info.total_steps = trainer_total_steps(j->tr);
    info.seed = j->c.seed;
    info.threads = trainer_threads(j->tr);
    info.d = j->c.d;
    info.layers = j->c.layers;
    info.heads = j->c.heads;
    info.n_ctx = j->c.n_ctx;
    info.vocab = j->c.vocab;
    info.resumed_step = trainer_step_count(j->tr);
    int rc;
    if (js->run_id == 0) {
        rc = j->sink.ops->run_create(j->sink.ctx, &info, &j->prog.run_id, err);
    } else {
        rc = j->sink.ops->job_started(j->sink.ctx, js->run_id, &info, err);
        j->prog.run_id = js->run_id;
    }
    sb_free(&cfg);
    return rc;
}

/* The unigram entropy of the training split (engine/data/unigram.c), from
   the store when a run on the same data, tokenizer and vocab computed it,
   else computed here and stored once for every later run. */
static int record_unigram(Job *j, char *err)
{
    const char *tokenizer = tokenizer_name(&j->ds);
    if (j->sink.ops->unigram_get(j->sink.ctx, j->c.data, tokenizer, j->c.vocab, &j->unigram_nats, err)) return -1;
    if (isfinite(j->unigram_nats)) return 0;
    const TokenStream *train = &j->ds.split[SPLIT_TRAIN];
    if (token_stream_unigram_entropy(train, j->c.vocab, &j->unigram_nats, NULL, err)) return -1;
    if (!isfinite(j->unigram_nats)) return 0; /* nothing to count: nothing to store */
    return j->sink.ops->unigram_put(j->sink.ctx, j->c.data, tokenizer, j->c.vocab, (int64_t)train->len,
                                    j->unigram_nats, err);
}

/* Batch-1, one-thread inference samples/s of the finished model (SPEC
   section 6), measured as `bench --inference` does, on this thread whatever
   the job's thread count: at least 5 samples and 0.5 s, at most 3 s. */
static int record_inference(Job *j, char *err)
{
    InferBenchLimits limits = {.warmup = 1, .min_samples = 5, .min_seconds = 0.5, .max_seconds = 3.0};
    InferBenchResult r;
    if (infer_bench(&j->m, &limits, &r, err)) return -1;
    char line[160];
    snprintf(line, sizeof line, "inference %.1f samples/s (batch 1, 1 thread, %d samples in %.2f s)", r.samples_per_s,
             r.samples, r.seconds);
    note(j, line);
    return j->sink.ops->set_infer(j->sink.ctx, j->prog.run_id, r.samples_per_s, err);
}

static void job_free(Job *j)
{
    trainer_free(j->tr);
    if (j->have_model) model_free(&j->m);
    dataset_free(&j->ds);
    free(j->rows);
}

/* Builds everything; on failure nothing is stored for a new run. */
static int job_setup(Job *j, char *err)
{
    JobSpec *js = j->js;
    j->c = js->config;
    /* --init: the data is encoded with the checkpoint's own tokenizer, so
       that its ids mean what the weights learned */
    Tokenizer *init_tok = NULL;
    if (js->init_ckpt) {
        Config ignored;
        config_defaults(&ignored);
        if (checkpoint_read_config(js->init_ckpt, &ignored, &init_tok, err)) return -1;
    }
    int rc = dataset_load_config(&j->c, init_tok, &j->ds, err);
    tokenizer_free(init_tok);
    if (rc || config_validate(&j->c, err)) return -1;
    /* precision=auto becomes the precision this machine runs (bf16 where
       it can), before anything is sized or recorded: the run's stored
       config and checkpoints say which one ran */
    j->c.precision = gemm_precision_resolve(j->c.precision, NULL);
    /* the memory it needs, against what the process may use, before the
       model, optimizer and activations are allocated (engine/memory.h) */
    const MemoryNeed *need = &j->need;
    double held = dataset_bytes(&j->ds);
    int ckpt_copies = js->resume_ckpt && js->resume_ckpt[0] ? 3 : js->init_ckpt ? 1 : 0;
    if (job_memory_bytes_rank(&j->c, j->c.threads, dist_rank(js->dist), dist_size(js->dist), held, ckpt_copies,
                              &j->need, err))
        return -1;
    if (js->memory_admit) {
        rc = js->memory_admit(js->memory_ctx, need, held, err);
        if (rc == JOB_MEMORY_STOPPED) j->stopped_waiting = 1;
        if (rc == JOB_MEMORY_WAIT) j->waits_for_memory = 1;
        if (rc) return -1;
    } else {
        const char *source;
        double available = memory_available(&source) + held;
        if (memory_check(need, available, source, err)) return -1;
    }
    rc = model_build(&j->m, &j->c, err) ? -1 : 0;
    j->have_model = rc == 0;
    if (!rc && js->init_ckpt && checkpoint_load_weights(js->init_ckpt, &j->m, err)) rc = -1;
    if (!rc && trainer_create_dist(&j->tr, &j->m, &j->ds, j->c.threads, 1, js->dist, err)) rc = -1;
    j->extend_step = -1;
    if (!rc && j->c.decay == DECAY_WSD) {
        int64_t total = trainer_total_steps(j->tr), d = wsd_cooldown_start(&j->c, total);
        if (d > 0 && d < total) j->extend_step = d;
    }
    if (!rc && j->c.eval_every == -1) {
        /* eval_every=auto, now that the budget's steps and the valid
           split are known; the run's stored config says the number */
        int64_t windows = trainer_eval_windows(&j->c, task_window_count(&j->m, &j->ds.split[SPLIT_VALID]));
        j->c.eval_every = estimate_eval_every(trainer_total_steps(j->tr), (double)j->c.batch * j->c.n_ctx,
                                              (double)windows * j->c.n_ctx);
    }
    if (js->memory_done) js->memory_done(js->memory_ctx, need->total);
    if (rc) return -1;
    j->rows = calloc(METRIC_BUFFER, sizeof(MetricRow));
    if (!j->rows) return err_set(err, "out of memory");
    return 0;
}

/* Once the records have a place: whose the checkpoints will be, where they
   go (the store's own folder, db/ckpt_owner.h, unless the caller named one),
   and the training state of a resumed run (over ranks rank 0 alone reads
   the checkpoint; trainer_sync shares it).  Whoever handed out the job
   checked that checkpoint first (store_job_claim, store_job_claim_run). */
static int job_place(Job *j, char *err)
{
    JobSpec *js = j->js;
    if (!j->writer) return 0;
    if (js->store_id) {
        snprintf(j->store_id, sizeof j->store_id, "%s", js->store_id);
        snprintf(j->store_name, sizeof j->store_name, "%s", js->store_name ? js->store_name : "");
    } else if (js->store) {
        if (store_identity(js->store, j->store_id, sizeof j->store_id, err)) return -1;
        snprintf(j->store_name, sizeof j->store_name, "%s", store_file_name(js->store));
    }
    if (js->ckpt_dir) snprintf(j->ckpt_dir, sizeof j->ckpt_dir, "%s", js->ckpt_dir);
    else store_ckpt_dir_for(js->db_path ? js->db_path : store_file(js->store), j->ckpt_dir, sizeof j->ckpt_dir);
    mkdir(j->ckpt_dir, 0777);
    if (!js->resume_ckpt || !js->resume_ckpt[0]) return 0;
    snprintf(j->last_periodic, sizeof j->last_periodic, "%s", js->resume_ckpt);
    if (trainer_resume(j->tr, js->resume_ckpt, err)) return -1;
    j->last_periodic_step = trainer_step_count(j->tr);
    return 0;
}

/* An error ends the job: its status is failed, and why is kept in msg. */
static RunStatus failed(char *msg, const char *err)
{
    snprintf(msg, ERR_LEN, "%s", err);
    return RUN_FAILED;
}

/* Over ranks: rank 0's decision (ending, status, why) becomes every
   rank's.  Nothing alone. */
static int follow_rank0(Job *j, int *ending, RunStatus *status, char *msg, char *err)
{
    Dist *d = j->js->dist;
    if (!d) return 0;
    int decision[2] = {*ending, (int)*status};
    if (dist_bcast(d, decision, sizeof decision, err)) return -1;
    *ending = decision[0];
    *status = (RunStatus)decision[1];
    return *ending ? dist_bcast(d, msg, ERR_LEN, err) : 0;
}

/* Opens the store when the job records there itself (no sink given): only
   once the job has started, so bad input creates no store. */
static int open_sink(Job *j, int *own_store, char *err)
{
    JobSpec *js = j->js;
    if (j->sink.ops) return 0;   /* given: job_run set it */
    if (store_open(js->db_path, &js->store, err)) return -1;
    *own_store = 1;
    j->sink = job_sink_store(js->store);
    return 0;
}

/* Everything before the first step: the data, model and trainer (every
   rank), then the records (rank 0's sink); over ranks, each stage is agreed
   on before the next, so a failure on any rank ends every rank, and
   nothing is recorded unless every rank has its data and model.  rank 0's
   weights and state go to every rank at the end. */
static int job_start(Job *j, int *own_store, char *err)
{
    Dist *d = j->js->dist;
    int rc = job_setup(j, err);
    if (d) {
        /* precision=auto resolved on each rank's own CPU: ranks that differ
           would sum bf16 and float32 gradients, so they refuse */
        int rank0 = j->c.precision;
        if (dist_bcast(d, &rank0, sizeof rank0, err)) return -1;
        if (!rc && rank0 != j->c.precision && rank0 != PRECISION_AUTO)
            rc = err_set(err, "precision=auto is bf16 on rank 0 and f32 here (or the other way): name the precision");
    }
    if (d && dist_agree(d, rc != 0, err)) return -1;
    if (rc) return -1;
    rc = open_sink(j, own_store, err) || job_place(j, err) || record_unigram(j, err) || record_start(j, err);
    if (d && dist_agree(d, rc != 0, err)) return -1;
    if (rc) return -1;
    return trainer_sync(j->tr, err);
}

/* A job that could not start: a job of the queue ends failed saying why;
   one resumed by hand goes back to interrupted (resumable once the cause
   is fixed), as does one stopped while it waited for memory; one told to
   wait for memory is given back untouched.  Returns job_run's value. */
static int job_refused(Job *j, const char *why, RunStatus *status_out)
{
    JobSpec *js = j->js;
    int stored = js->run_id != 0 && j->sink.ops;
    char e[ERR_LEN];
    *status_out = RUN_FAILED;
    if (j->waits_for_memory) {
        *status_out = RUN_QUEUED;   /* given back as it came: the caller keeps it */
        return 0;
    }
    if (stored && (js->resumed || j->stopped_waiting)) {
        j->sink.ops->set_status(j->sink.ctx, js->run_id, RUN_INTERRUPTED, e);
        if (j->stopped_waiting) *status_out = RUN_INTERRUPTED;   /* back to the queue */
        return j->stopped_waiting ? 0 : -1;
    }
    if (stored) {
        RunEnd end = {run_status_name(RUN_FAILED), why, 0, 0, 0, 0, peak_mem_mb(), own_peak_mb(j), NAN};
        j->sink.ops->finish(j->sink.ctx, js->run_id, &end, e);
        return 0;
    }
    return -1;
}

/* What the job is, for the observer (once it has started). */
static void job_announce(Job *j)
{
    const JobObserver *o = j->js->observer;
    if (!o || !o->started) return;
    JobStartInfo s = {0};
    char mem[256];
    memory_need_describe(&j->need, mem, sizeof mem);
    s.run_id = j->prog.run_id;
    s.arch = j->c.arch, s.task = j->c.task, s.data = j->c.data, s.tokenizer = tokenizer_name(&j->ds);
    s.vocab = j->c.vocab, s.ranks = dist_size(j->js->dist), s.threads = j->prog.threads, s.resumed = j->prog.step > 0;
    s.n_params = model_count_params(&j->m, &s.n_params_nonembedding);
    s.memory = mem;
    s.loss_floor = isfinite(j->ds.loss_floor) && j->ds.loss_floor > 0 ? j->ds.loss_floor : NAN;
    s.unigram_nats = j->unigram_nats;
    s.unigram_scored = j->ds.split[SPLIT_TRAIN].scored != NULL;
    o->started(o->ctx, &s);
}

/* Ends the loop at the next step with status (the first reason is kept). */
static void end_with(Job *j, RunStatus status, const char *why)
{
    if (!j->ending) {
        j->status = status;
        if (why) snprintf(j->msg, sizeof j->msg, "%s", why);
    }
    j->ending = 1;
}

/* One training step: the metrics row, the published progress, the
   periodic flush.  0 to go on; -1 when the step failed (status set). */
static int step_train(Job *j, char *err)
{
    double cpu0 = process_cpu_seconds();
    int rc = trainer_step(j->tr, &j->p, err);
    j->train_cpu += process_cpu_seconds() - cpu0;
    if (rc) {
        /* classed by the trainer's code, never by the message's words; over
           ranks every rank sees the same loss and so the same end */
        j->status = run_status_of_failure(rc == TRAINER_DIVERGED ? FAIL_DIVERGED : FAIL_ERROR);
        snprintf(j->msg, sizeof j->msg, "%s", err);
        return -1;
    }
    const TrainProgress *p = &j->p;
    int last = trainer_done(j->tr);
    add_metrics_step(j, p, last);
    j->prog.step = p->step;
    j->prog.tokens = p->tokens;
    j->prog.loss = p->loss;
    j->prog.loss_smooth = p->loss_smooth;
    j->prog.lr = p->lr;
    j->prog.tokens_per_s = p->train_seconds > 0 ? p->tokens / p->train_seconds : 0;
    j->prog.eta_seconds = j->prog.total_steps > 0 ? (j->prog.total_steps - p->step) * (p->train_seconds / p->step)
                                                  : j->c.seconds - p->train_seconds;
    publish(j->js, &j->prog, 1);
    if ((j->n_rows == METRIC_BUFFER || now_seconds() - j->last_flush >= FLUSH_SECONDS || last) && flush_metrics(j, err))
        end_with(j, RUN_FAILED, err);
    return 0;
}

/* A pending request ends the job (pause, cancel, prune); returns 1 then. */
static int obey_control(Job *j, char *err)
{
    JobControl control;
    if (j->sink.ops->control(j->sink.ctx, j->prog.run_id, &control, err) || control == JOB_CONTROL_NONE) return 0;
    end_with(j, control == JOB_CONTROL_PAUSE    ? RUN_PAUSED
                : control == JOB_CONTROL_PRUNE ? RUN_PRUNED
                                               : RUN_CANCELLED, NULL);
    return 1;
}

/* A pause, cancel or prune request, read every CONTROL_SECONDS; else a
   heartbeat. */
static void step_control(Job *j, int last, char *err)
{
    double now = now_seconds();
    if (j->ending || !(now - j->last_control >= CONTROL_SECONDS || last)) return;
    j->last_control = now;
    if (!j->js->check_control) return;
    if (!obey_control(j, err)) j->sink.ops->heartbeat(j->sink.ctx, j->prog.run_id, err);
}

/* The valid evaluation every eval_every steps (collective: over ranks it
   runs on every rank even when rank 0 alone already knows the job ends),
   and the early stops: stop_accuracy's (solved) and patience's. */
static void step_evaluate(Job *j, int last, char *err)
{
    const Config *c = &j->c;
    if (c->eval_every <= 0 || j->p.step % c->eval_every != 0 || last || (j->ending && !j->js->dist)) return;
    EvalResult r;
    if (trainer_evaluate(j->tr, SPLIT_VALID, &r, err)) {
        end_with(j, RUN_FAILED, err);
        return;
    }
    if (j->ending) return;
    if (flush_metrics(j, err) || eval_record(j, SPLIT_VALID, &r, err)) {
        end_with(j, RUN_FAILED, err);
        return;
    }
    j->prog.valid_loss = r.loss;
    /* its sweep may prune it on this evaluation (--prune median): asked now,
       it ends here, after its last evaluation; a failed decision is the
       sweep's, not this run's (the next evaluation asks again) */
    if (j->js->evaluated && j->writer) {
        char why[ERR_LEN];
        j->js->evaluated(j->js->evaluated_ctx, j->prog.run_id, why);
    }
    if (j->js->check_control && obey_control(j, err)) return;
    if (c->stop_accuracy > 0 && r.accuracy >= c->stop_accuracy) {
        char why[ERR_LEN];
        snprintf(why, sizeof why, "solved at step %lld: valid accuracy %.4f reached stop_accuracy=%g",
                 (long long)j->p.step, r.accuracy, c->stop_accuracy);
        note(j, why);
        end_with(j, RUN_DONE, why);
        return;
    }
    if (r.loss < j->best_valid) {
        j->best_valid = r.loss;
        j->evals_without_gain = 0;
    } else if (c->patience > 0 && ++j->evals_without_gain >= c->patience) {
        char why[ERR_LEN];
        snprintf(why, sizeof why, "early stop at step %lld: valid loss did not improve for %d evaluations",
                 (long long)j->p.step, c->patience);
        note(j, why);
        end_with(j, RUN_DONE, why);
    }
}

/* One step of the loop; 1 when the loop is over. */
static int job_step(Job *j, char *err)
{
    JobSpec *js = j->js;
    if (!j->ending && js->stop && atomic_load(js->stop)) end_with(j, RUN_INTERRUPTED, NULL);
    if (follow_rank0(j, &j->ending, &j->status, j->msg, err)) {
        j->status = failed(j->msg, err);
        return 1;
    }
    if (j->ending || trainer_done(j->tr)) return 1;
    if (step_train(j, err)) return 1;
    int last = trainer_done(j->tr);
    step_control(j, last, err);
    const JobObserver *o = js->observer;
    if (!j->ending && o && o->step && (j->p.step % j->c.log_every == 0 || last))
        o->step(o->ctx, &j->p, j->prog.total_steps, j->prog.eta_seconds);
    step_evaluate(j, last, err);
    if (!j->ending && !last && j->writer && checkpoint_due(j, &j->p) && periodic_checkpoint(j, err))
        end_with(j, RUN_FAILED, err);
    return 0;
}

/* A finished run's model-only checkpoint (SPEC section 7: nothing is left
   to resume, and the file is a third of the size), or the resumable one of
   a stop; a failure or divergence leaves none. */
static void finish_checkpoint(Job *j, char *err)
{
    if (run_status_error(j->status) || !j->writer) return;
    if (j->status != RUN_DONE) {
        if (j->prog.step > 0 && periodic_checkpoint(j, err)) j->status = failed(j->msg, err);
        return;
    }
    char path[PATH_MAX + 128];
    if (j->js->save_path) snprintf(path, sizeof path, "%s", j->js->save_path);
    else snprintf(path, sizeof path, "%s/run%lld.safetensors", j->ckpt_dir, (long long)j->prog.run_id);
    CkptExtra extra[5];
    CkptTexts texts;
    int n_extra = ckpt_extras(j, extra, &texts);
    if (checkpoint_save(path, &j->m, j->ds.tokenizer, extra, n_extra, err) ||
        j->sink.ops->ckpt_add(j->sink.ctx, j->prog.run_id, j->prog.step, path, err)) {
        j->status = failed(j->msg, err);
        return;
    }
    forget_checkpoint(j, path);
    char line[PATH_MAX + 160];
    snprintf(line, sizeof line, "checkpoint %s", path);
    note(j, line);
}

/* After the loop: the last metrics, the final valid and test evaluations
   and the inference speed of a finished run, its checkpoint, its end. */
static int job_finish(Job *j, RunStatus *status_out, char *err)
{
    close_metrics_row(j);   /* the step it stopped at */
    if (flush_metrics(j, err) && !j->msg[0]) j->status = failed(j->msg, err);
    int end_known = 1;
    if (follow_rank0(j, &end_known, &j->status, j->msg, err)) j->status = failed(j->msg, err);
    if (j->status == RUN_DONE) {
        /* the evaluations are collective; what follows is rank 0's alone */
        EvalResult valid, test;
        if (trainer_evaluate(j->tr, SPLIT_VALID, &valid, err) || trainer_evaluate(j->tr, SPLIT_TEST, &test, err) ||
            eval_record(j, SPLIT_VALID, &valid, err) || eval_record(j, SPLIT_TEST, &test, err) ||
            (j->writer && record_inference(j, err)))
            j->status = failed(j->msg, err);
    }
    finish_checkpoint(j, err);
    const TrainProgress *p = &j->p;
    /* an interrupted run goes on from its checkpoint later: the CPU seconds
       of its first part are not the run's, and a stored value would outlive
       the resume (the store keeps one where the end brings none); its own
       peak is the run's, the same model at every step */
    double cpu = j->status == RUN_INTERRUPTED ? NAN : own_train_cpu(j);   /* before own_peak_mb ends the watch */
    RunEnd end = {run_status_name(j->status), j->msg[0] ? j->msg : NULL, p->step, p->tokens, p->train_seconds,
                  p->train_seconds > 0 ? p->tokens / p->train_seconds : 0, peak_mem_mb(), own_peak_mb(j), cpu};
    /* a paused run has not ended: it only changes state */
    int rc = j->status == RUN_PAUSED ? j->sink.ops->set_status(j->sink.ctx, j->prog.run_id, j->status, err)
                                     : j->sink.ops->finish(j->sink.ctx, j->prog.run_id, &end, err);
    *status_out = j->status;
    if (j->msg[0] && rc == 0) snprintf(err, ERR_LEN, "%s", j->msg);
    return rc;
}

int job_run(JobSpec *js, RunStatus *status_out, char *err)
{
    assert(js->store || js->db_path || js->sink);
    Job j;
    memset(&j, 0, sizeof j);
    j.js = js;
    j.writer = dist_rank(js->dist) == 0;
    snprintf(j.prog.arch, sizeof j.prog.arch, "%s", js->config.arch);
    snprintf(j.prog.task, sizeof j.prog.task, "%s", js->config.task);
    j.prog.status = RUN_QUEUED;   /* not training yet */
    j.prog.run_id = js->run_id;
    publish(js, &j.prog, 1);
    int own_store = 0, rc;
    if (js->sink) j.sink = *js->sink;
    else if (js->store) j.sink = job_sink_store(js->store);
    char setup_err[ERR_LEN] = "";
    job_memory_begin(&j.mem);
    if (job_start(&j, &own_store, setup_err)) {
        snprintf(err, ERR_LEN, "%s", setup_err);
        rc = job_refused(&j, setup_err, status_out);
    } else {
        j.prog.threads = trainer_threads(j.tr);
        j.prog.total_steps = trainer_total_steps(j.tr);
        j.prog.step = j.p.step = j.start_step = trainer_step_count(j.tr);
        j.prog.valid_loss = NAN;
        j.prog.status = RUN_RUNNING;
        j.status = RUN_DONE;
        j.best_valid = INFINITY;
        j.last_flush = now_seconds();
        job_announce(&j);
        while (!job_step(&j, err)) {}
        rc = job_finish(&j, status_out, err);
        j.prog.status = *status_out;
        js->run_id = j.prog.run_id;
    }
    publish(js, &j.prog, 0);
    own_peak_mb(&j);   /* a job that did not reach its end still leaves the count */
    job_free(&j);
    if (own_store) {
        store_close(js->store);
        js->store = NULL;
    }
    return rc;
}
