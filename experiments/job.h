/*
 * job.h — one training job from its config to stored results, shared by
 * `mixbench run` (in the foreground) and the scheduler's workers: load the
 * data, build the model, resume from a checkpoint if there is one, train
 * with metrics batched into the store, evaluate, checkpoint resumably every
 * ckpt_every steps and at the end, stop early (stop_accuracy, patience), and obey pause /
 * cancel requests and the stop flag.
 *
 * Progress is published in a JobMonitor that any thread can read at any
 * time (a short mutex section per step), so a UI never waits on training.
 * The stop flag is a C11 atomic: another thread, or a signal handler, sets
 * it while the job trains.
 */
#ifndef MIXBENCH_JOB_H
#define MIXBENCH_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "db/status.h"
#include "db/store.h"
#include "engine/config.h"
#include "engine/dist.h"
#include "engine/memory.h"
#include "engine/trainer.h"
#include "experiments/job_sink.h"

typedef struct {
    int64_t run_id;
    char arch[32], task[32];
    RunStatus status;          /* RUN_QUEUED while the job loads its data and
                                  builds its model, RUN_RUNNING while it
                                  trains, then its end */
    int threads;
    int64_t step, total_steps, tokens;
    double loss, loss_smooth, valid_loss, lr, tokens_per_s, eta_seconds;
} JobProgress;

typedef struct {
    pthread_mutex_t lock;      /* error-checking: a lock taken twice or
                                  released by another thread fails an assert */
    JobProgress p;             /* under lock */
    int active;                /* under lock */
} JobMonitor;

/* Error-checking mutexes for the runner's shared state (the monitor, the
   scheduler's counts): a lock taken twice by its owner, or released by
   another thread, fails an assert instead of going unnoticed. */
void job_mutex_init(pthread_mutex_t *m);
void job_mutex_lock(pthread_mutex_t *m);
void job_mutex_unlock(pthread_mutex_t *m);

void job_monitor_init(JobMonitor *m);
void job_monitor_destroy(JobMonitor *m);
/* A consistent copy of the progress; returns 0 when no job is active. */
int job_monitor_read(JobMonitor *m, JobProgress *out);

/* What a job reports as it goes, for whoever shows it: app/job_print.c
   prints it (`run`, `worker`); the workbench installs none (it reads the
   JobMonitor and the store).  experiments/ itself prints nothing.  Every
   callback may be NULL. */
typedef struct {
    int64_t run_id;
    const char *arch, *task, *data, *tokenizer;
    int vocab, ranks, threads, resumed;
    int64_t n_params, n_params_nonembedding;
    const char *memory;        /* "173 MB (parameters 17 MB, ...)" */
    double loss_floor;         /* the data's entropy rate when known (> 0), else NAN */
    double unigram_nats;       /* NAN when not known */
    int unigram_scored;        /* per scored target (the diagnostics), not per token */
} JobStartInfo;

typedef struct {
    void (*started)(void *ctx, const JobStartInfo *s);
    /* every log_every steps and at the last */
    void (*step)(void *ctx, const TrainProgress *p, int64_t total_steps, double eta_seconds);
    /* an evaluation: bits per byte (NAN outside char data), the data's loss
       floor (NAN none), capped: eval_tokens scored only the first windows */
    void (*eval)(void *ctx, const char *split, int64_t step, const EvalResult *r, double bpb, double floor,
                 int capped);
    void (*note)(void *ctx, const char *text);    /* a line for people: a checkpoint, an early stop */
    void (*warn)(void *ctx, const char *text);    /* a problem that does not stop the caller */
    void (*ended)(void *ctx, int64_t run_id, RunStatus status);   /* a worker's job ended */
    void *ctx;
} JobObserver;

typedef struct {
    Store *store;              /* this thread's connection, or NULL: job_run
                                  opens db_path once the job has started
                                  (so bad input creates no store) */
    const char *db_path;       /* for the default checkpoint folder */
    JobSink *sink;             /* where records go; NULL: the store above
                                  (job_sink.h).  With a sink, no store is
                                  opened. */
    const char *ckpt_dir;      /* checkpoint folder; NULL: the store's own,
                                  NAME.ckpt/ beside NAME.db (db/ckpt_owner.h) */
    const char *store_id;      /* whose the checkpoints are (their metadata);
                                  NULL: the id of the store the job records
                                  into.  An MPI training rank gets rank 0's. */
    const char *store_name;    /* that store's file name, for messages */
    Dist *dist;                /* data-parallel over the launch's ranks
                                  (NULL: this process alone).  Every rank
                                  calls job_run with the same config; rank 0
                                  records (its sink or store) and writes the
                                  checkpoints, the others pass
                                  job_sink_null() and quiet, and follow rank
                                  0's decisions (stop, pause, cancel, fail)
                                  at every step. */
    Config config;
    int64_t run_id;            /* an existing (queued, claimed) run, or 0: create one */
    const char *name;          /* label of a new run */
    const char *resume_ckpt;   /* resumable checkpoint, or NULL (with dist:
                                  read on rank 0 only, then broadcast) */
    int resumed;               /* run_id was resumed by hand (`run --resume`):
                                  if it cannot start, it goes back to
                                  'interrupted' (still resumable), not
                                  'failed' */
    const char *init_ckpt;     /* --init weights, or NULL */
    const char *save_path;     /* final checkpoint, or NULL for the default */
    const JobObserver *observer;   /* who is told of the job's progress; NULL: nobody */
    int check_control;         /* poll the store for pause / cancel / prune */
    /* Called after each valid evaluation is recorded (NULL: never): the
       scheduler lets the run's sweep decide on it there (--prune median,
       experiments/prune.h); with check_control the request is read right
       after, so a pruned run ends at the evaluation that decided it. */
    int (*evaluated)(void *ctx, int64_t run_id, char *err);
    void *evaluated_ctx;
    atomic_int *stop;          /* non-zero: checkpoint and end as 'interrupted'
                                  (may be NULL) */
    JobMonitor *monitor;       /* may be NULL */
    /* Memory admission (the local worker, experiments/scheduler.c), or NULL:
       the job alone is refused when it needs more than the process may use.
       admit(ctx, need, held) returns 0 once need->total bytes fit beside the other
       jobs (held: the job's data, already allocated), -1 with err when it
       never can; JOB_MEMORY_STOPPED when a stop came first (the job goes back
       to the queue); JOB_MEMORY_WAIT when it does not fit now and the caller
       will hand it out again later (the MPI sweep): job_run then records
       nothing, returns 0 with *status RUN_QUEUED.  done(ctx, need) once the
       job's memory is allocated. */
    int (*memory_admit)(void *ctx, const MemoryNeed *need, double held, char *err);
    void (*memory_done)(void *ctx, double need);
    void *memory_ctx;
} JobSpec;

#define JOB_MEMORY_STOPPED 2
#define JOB_MEMORY_WAIT 3

/* Runs the job.  Returns 0 once the run row holds its final state (written
   into *status: done, paused, cancelled, pruned, interrupted, diverged or failed;
   queued when memory_admit said JOB_MEMORY_WAIT;
   for the last two err says why); -1 when the job could not start (bad
   input: err says why, *status is failed; with run_id 0 nothing was
   stored). */
int job_run(JobSpec *spec, RunStatus *status, char *err);

#endif
