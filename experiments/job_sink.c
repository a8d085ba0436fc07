/*
 * job_sink.c — the store sink and the null sink of job_sink.h.  The store
 * sink is a thin forwarder to db/; the null sink succeeds at everything.
 */
#include "experiments/job_sink.h"

#include <math.h>
#include <unistd.h>

#include "db/ckpt_owner.h"
#include "db/status.h"

/* ---- the store ---- */

static int st_unigram_get(void *ctx, const char *data, const char *tok, int vocab, double *nats, char *err)
{
    return store_dataset_unigram_get(ctx, data, tok, vocab, nats, err);
}

static int st_unigram_put(void *ctx, const char *data, const char *tok, int vocab, int64_t n, double nats, char *err)
{
    return store_dataset_unigram_put(ctx, data, tok, vocab, n, nats, err);
}

static int st_run_create(void *ctx, const RunInfo *info, int64_t *run_id, char *err)
{
    return store_run_create(ctx, info, run_id, err);
}

static int st_job_started(void *ctx, int64_t run_id, const RunInfo *info, char *err)
{
    return store_job_started(ctx, run_id, info, err);
}

static int st_metrics(void *ctx, int64_t run_id, const MetricRow *rows, int n, char *err)
{
    return store_metrics_append(ctx, run_id, rows, n, err);
}

static int st_eval(void *ctx, int64_t run_id, const EvalRow *row, char *err)
{
    return store_eval_add(ctx, run_id, row, err);
}

/* A checkpoint is recorded only when its metadata names this store, the
   run and the step (db/ckpt_owner.h): a file shipped back by an MPI rank
   too. */
static int st_set_resume(void *ctx, int64_t run_id, int64_t step, const char *path, char *err)
{
    return store_checkpoint_record(ctx, run_id, step, path, 1, err);
}

static int st_ckpt_add(void *ctx, int64_t run_id, int64_t step, const char *path, char *err)
{
    return store_checkpoint_record(ctx, run_id, step, path, 0, err);
}

/* The store forgets the file, then the disk: a crash in between leaves an
   unlisted file, never a listed one that is gone. */
static int st_ckpt_forget(void *ctx, int64_t run_id, const char *path, char *err)
{
    if (store_checkpoint_forget(ctx, run_id, path, err)) return -1;
    unlink(path);
    return 0;
}

static int st_control(void *ctx, int64_t run_id, JobControl *control, char *err)
{
    return store_job_control(ctx, run_id, control, err);
}

static int st_heartbeat(void *ctx, int64_t run_id, char *err)
{
    return store_job_heartbeat(ctx, run_id, err);
}

static int st_set_infer(void *ctx, int64_t run_id, double samples_per_s, char *err)
{
    return store_run_set_infer(ctx, run_id, samples_per_s, err);
}

static int st_finish(void *ctx, int64_t run_id, const RunEnd *end, char *err)
{
    return store_run_finish(ctx, run_id, end, err);
}

static int st_set_status(void *ctx, int64_t run_id, RunStatus status, char *err)
{
    return store_run_set_status(ctx, run_id, run_status_name(status), err);
}

static const JobSinkOps STORE_OPS = {st_unigram_get, st_unigram_put, st_run_create, st_job_started,
                                     st_metrics,     st_eval,        st_set_resume, st_ckpt_add,
                                     st_ckpt_forget, st_control,     st_heartbeat,  st_set_infer,
                                     st_finish,      st_set_status};

JobSink job_sink_store(Store *s) { return (JobSink){&STORE_OPS, s}; }

/* ---- nothing ---- */

static int nl_unigram_get(void *ctx, const char *data, const char *tok, int vocab, double *nats, char *err)
{
    (void)ctx, (void)data, (void)tok, (void)vocab, (void)err;
    *nats = NAN;
    return 0;
}

static int nl_unigram_put(void *ctx, const char *data, const char *tok, int vocab, int64_t n, double nats, char *err)
{
    (void)ctx, (void)data, (void)tok, (void)vocab, (void)n, (void)nats, (void)err;
    return 0;
}

static int nl_run_create(void *ctx, const RunInfo *info, int64_t *run_id, char *err)
{
    (void)ctx, (void)info, (void)err;
    *run_id = 0;
    return 0;
}

static int nl_run_info(void *ctx, int64_t run_id, const RunInfo *info, char *err)
{
    (void)ctx, (void)run_id, (void)info, (void)err;
    return 0;
}

static int nl_metrics(void *ctx, int64_t run_id, const MetricRow *rows, int n, char *err)
{
    (void)ctx, (void)run_id, (void)rows, (void)n, (void)err;
    return 0;
}

static int nl_eval(void *ctx, int64_t run_id, const EvalRow *row, char *err)
{
    (void)ctx, (void)run_id, (void)row, (void)err;
    return 0;
}

static int nl_ckpt(void *ctx, int64_t run_id, int64_t step, const char *path, char *err)
{
    (void)ctx, (void)run_id, (void)step, (void)path, (void)err;
    return 0;
}

static int nl_ckpt_forget(void *ctx, int64_t run_id, const char *path, char *err)
{
    (void)ctx, (void)run_id, (void)path, (void)err;
    return 0;
}

static int nl_control(void *ctx, int64_t run_id, JobControl *control, char *err)
{
    (void)ctx, (void)run_id, (void)err;
    *control = JOB_CONTROL_NONE;
    return 0;
}

static int nl_heartbeat(void *ctx, int64_t run_id, char *err)
{
    (void)ctx, (void)run_id, (void)err;
    return 0;
}

static int nl_set_infer(void *ctx, int64_t run_id, double samples_per_s, char *err)
{
    (void)ctx, (void)run_id, (void)samples_per_s, (void)err;
    return 0;
}

static int nl_finish(void *ctx, int64_t run_id, const RunEnd *end, char *err)
{
    (void)ctx, (void)run_id, (void)end, (void)err;
    return 0;
}

static int nl_set_status(void *ctx, int64_t run_id, RunStatus status, char *err)
{
    (void)ctx, (void)run_id, (void)status, (void)err;
    return 0;
}

static const JobSinkOps NULL_OPS = {nl_unigram_get, nl_unigram_put, nl_run_create, nl_run_info,
                                    nl_metrics,     nl_eval,        nl_ckpt,       nl_ckpt,
                                    nl_ckpt_forget, nl_control,     nl_heartbeat,  nl_set_infer,
                                    nl_finish,      nl_set_status};

JobSink job_sink_null(void) { return (JobSink){&NULL_OPS, NULL}; }
