/*
 * mpi_rank.c — a training rank of an MPI sweep (mpi_roles.h): its JobSink
 * is remote (each op one message to rank 0, mpi_wire.h, whose reply is the
 * op's result), its checkpoints are written into a private scratch folder
 * and shipped to rank 0, and its loop asks for a job, runs it with
 * job_run and reports its end.
 *
 * Not for: the store (rank 0 alone opens it: mpi_coord.c).
 */
#include "experiments/mpi_roles.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/common.h"
#include "engine/io/json.h"
#include "engine/memory.h"
#include "engine/pool.h"
#include "experiments/job.h"
#include "experiments/job_sink.h"
#include "experiments/mpi_wire.h"

/* ---- the remote sink ---- */

typedef struct {
    Dist *d;
    atomic_int *stop;
} Remote;

/* One op: its arguments (and the file at ship_path) to rank 0, then its
   reply; rank 0's error comes back as this op's. */
static int remote_call(Remote *r, Op op, const OpArgs *args, const char *ship_path, int64_t ship_size,
                       WireReply *out, char *err)
{
    Pack p = {0};
    op_pack(&p, op, args);
    if (send_pack(r->d, 0, TAG_OP_FIRST + (int)op, &p, err)) return -1;
    char ship_err[ERR_LEN] = "";
    int ship_failed = ship_path ? send_file(r->d, 0, ship_path, ship_size, ship_err) : 0;
    Message m;
    if (message_wait(r->d, 0, TAG_REPLY, -1, &m, err) < 0) return -1;
    Unpack u = {m.bytes, m.len, 0, 0};
    WireReply reply;
    wire_unpack(&u, &WIRE_REPLY, &reply);
    int status = 0;
    if (u.bad) status = err_set(err, "a malformed reply from rank 0");
    else if (reply.rc) status = err_set(err, "%s", reply.why ? reply.why : "rank 0 failed");
    else if (ship_failed) status = err_set(err, "%s", ship_err);
    if (!u.bad && reply.stop && r->stop) atomic_store(r->stop, 1);
    if (out) *out = (WireReply){reply.rc, NULL, u.bad ? NAN : reply.nats, u.bad ? 0 : reply.value, 0};
    free(m.bytes);
    return status;
}

static int rm_unigram_get(void *ctx, const char *data, const char *tok, int vocab, double *nats, char *err)
{
    OpArgs a = {.s = {data, tok}, .i = {vocab}};
    WireReply reply;
    int rc = remote_call(ctx, OP_UNIGRAM_GET, &a, NULL, 0, &reply, err);
    *nats = rc ? NAN : reply.nats;
    return rc;
}

static int rm_unigram_put(void *ctx, const char *data, const char *tok, int vocab, int64_t n, double nats, char *err)
{
    OpArgs a = {.s = {data, tok}, .i = {vocab, n}, .f = {nats}};
    return remote_call(ctx, OP_UNIGRAM_PUT, &a, NULL, 0, NULL, err);
}

static int rm_run_create(void *ctx, const RunInfo *info, int64_t *run_id, char *err)
{
    OpArgs a = {.info = *info};
    WireReply reply;
    int rc = remote_call(ctx, OP_RUN_CREATE, &a, NULL, 0, &reply, err);
    *run_id = rc ? 0 : reply.value;
    return rc;
}

static int rm_job_started(void *ctx, int64_t run_id, const RunInfo *info, char *err)
{
    OpArgs a = {.i = {run_id}, .info = *info};
    return remote_call(ctx, OP_JOB_STARTED, &a, NULL, 0, NULL, err);
}

static int rm_metrics(void *ctx, int64_t run_id, const MetricRow *rows, int n, char *err)
{
    OpArgs a = {.i = {run_id}, .rows = rows, .n_rows = n};
    return remote_call(ctx, OP_METRICS, &a, NULL, 0, NULL, err);
}

static int rm_eval(void *ctx, int64_t run_id, const EvalRow *row, char *err)
{
    OpArgs a = {.i = {run_id}, .eval = *row};
    return remote_call(ctx, OP_EVAL, &a, NULL, 0, NULL, err);
}

/* set_resume and ckpt_add: the checkpoint's bytes go with the op. */
static int rm_ship(void *ctx, Op op, int64_t run_id, int64_t step, const char *path, char *err)
{
    int64_t size = 0;
    if (file_size(path, &size, err)) return -1;
    OpArgs a = {.i = {run_id, step, size}, .s = {base_name(path)}};
    return remote_call(ctx, op, &a, path, size, NULL, err);
}

static int rm_set_resume(void *ctx, int64_t run_id, int64_t step, const char *path, char *err)
{
    return rm_ship(ctx, OP_SET_RESUME, run_id, step, path, err);
}

static int rm_ckpt_add(void *ctx, int64_t run_id, int64_t step, const char *path, char *err)
{
    return rm_ship(ctx, OP_CKPT_ADD, run_id, step, path, err);
}

/* Rank 0 forgets its copy and deletes it; then the local file goes. */
static int rm_ckpt_forget(void *ctx, int64_t run_id, const char *path, char *err)
{
    OpArgs a = {.i = {run_id}, .s = {base_name(path)}};
    if (remote_call(ctx, OP_CKPT_FORGET, &a, NULL, 0, NULL, err)) return -1;
    unlink(path);
    return 0;
}

static int rm_control(void *ctx, int64_t run_id, JobControl *control, char *err)
{
    OpArgs a = {.i = {run_id}};
    WireReply reply;
    int rc = remote_call(ctx, OP_CONTROL, &a, NULL, 0, &reply, err);
    *control = rc ? JOB_CONTROL_NONE : (JobControl)reply.value;
    return rc;
}

static int rm_heartbeat(void *ctx, int64_t run_id, char *err)
{
    OpArgs a = {.i = {run_id}};
    return remote_call(ctx, OP_HEARTBEAT, &a, NULL, 0, NULL, err);
}

static int rm_set_infer(void *ctx, int64_t run_id, double samples_per_s, char *err)
{
    OpArgs a = {.i = {run_id}, .f = {samples_per_s}};
    return remote_call(ctx, OP_SET_INFER, &a, NULL, 0, NULL, err);
}

static int rm_finish(void *ctx, int64_t run_id, const RunEnd *end, char *err)
{
    OpArgs a = {.i = {run_id}, .end = *end};
    return remote_call(ctx, OP_FINISH, &a, NULL, 0, NULL, err);
}

static int rm_set_status(void *ctx, int64_t run_id, RunStatus status, char *err)
{
    OpArgs a = {.i = {run_id, status}};
    return remote_call(ctx, OP_SET_STATUS, &a, NULL, 0, NULL, err);
}

static const JobSinkOps REMOTE_OPS = {rm_unigram_get, rm_unigram_put, rm_run_create, rm_job_started,
                                      rm_metrics,     rm_eval,        rm_set_resume, rm_ckpt_add,
                                      rm_ckpt_forget, rm_control,     rm_heartbeat,  rm_set_infer,
                                      rm_finish,      rm_set_status};

/* JobSpec.memory_admit on a training rank: rank 0, which knows what the
   other ranks of this host hold, decides (mpi_coord.c's admit). */
static int rm_memory_admit(void *ctx, const MemoryNeed *need, double held, char *err)
{
    const char *source;
    OpArgs a = {.need = *need};
    a.f[0] = memory_available(&source) + held;
    a.s[0] = source;
    WireReply reply;
    if (remote_call(ctx, OP_MEMORY_ADMIT, &a, NULL, 0, &reply, err)) return -1;
    if (reply.value == ADMIT_STOP) {
        err_set(err, "stopped while waiting for memory");
        return JOB_MEMORY_STOPPED;
    }
    if (reply.value == ADMIT_WAIT) return err_set(err, "waits for memory"), JOB_MEMORY_WAIT;
    return 0;
}

static void rm_memory_done(void *ctx, double need)
{
    (void)need;
    OpArgs a = {0};
    char err[ERR_LEN];
    remote_call(ctx, OP_MEMORY_DONE, &a, NULL, 0, NULL, err);
}

/* ---- the loop ---- */

int mpi_rank_threads(Dist *d, const MpiSweepOptions *o, uint64_t *hosts, char *err)
{
    assert(d && err);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t mine = dist_hash_bytes(0, host, strlen(host));
    int n = dist_size(d);
    int rc = dist_allgather(d, &mine, sizeof mine, hosts, err);
    int training_here = 0;
    for (int r = 1; !rc && r < n; r++) training_here += hosts[r] == mine;
    if (rc) return -1;
    if (o->threads > 0) return o->threads;
    int share = pool_cores() / (training_here > 0 ? training_here : 1);
    return share < 1 ? 1 : share;
}

/* Deletes the files in dir (the checkpoints of a job that ended). */
static void empty_folder(const char *dir)
{
    DIR *dh = opendir(dir);
    if (!dh) return;
    struct dirent *e;
    char path[PATH_MAX + NAME_MAX + 2];
    while ((e = readdir(dh)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(dh);
}

typedef struct {
    Dist *d;
    const MpiSweepOptions *o;
    int threads;               /* for jobs that name none */
    char scratch[PATH_MAX];    /* this rank's checkpoints while a job runs */
    JobSink sink;
} TrainingRank;

/* Runs the job of a JOB message (its resume checkpoint's pieces follow
   it).  A job that cannot start is ended as failed through the sink. */
static int run_job(TrainingRank *t, const Message *m, int64_t *run_id, RunStatus *status, char *err)
{
    Unpack u = {m->bytes, m->len, 0, 0};
    WireJob job;
    wire_unpack(&u, &WIRE_JOB, &job);
    *run_id = job.run_id;
    *status = RUN_FAILED;
    if (u.bad || !job.config_json || !job.store_id || !job.store_name ||
        (job.resume_base && !base_name_ok(job.resume_base)))
        return err_set(err, "a malformed job from rank 0");
    const char *config_json = job.config_json;
    char resume[PATH_MAX + NAME_MAX + 2] = "";
    int bad = job.resume_base &&
              receive_file(t->d, 0, job.resume_size, t->scratch, job.resume_base, resume, sizeof resume, err);
    JobSpec js;
    memset(&js, 0, sizeof js);
    config_defaults(&js.config);
    if (!bad) {
        JsonValue *cfg = json_parse(config_json, strlen(config_json), err);
        bad = !cfg || config_from_json(&js.config, cfg, 1, err);
        json_free(cfg);
    }
    if (bad) {
        RunEnd end = {run_status_name(RUN_FAILED), err, 0, 0, 0, 0, 0, NAN, NAN};
        char why[ERR_LEN];
        return t->sink.ops->finish(t->sink.ctx, *run_id, &end, why) ? err_set(err, "%s", why) : 0;
    }
    if (js.config.threads <= 0) js.config.threads = t->threads;
    js.sink = &t->sink;
    js.ckpt_dir = t->scratch;
    js.store_id = job.store_id;       /* the checkpoints shipped back must name rank 0's store */
    js.store_name = job.store_name;
    js.run_id = *run_id;
    js.resume_ckpt = resume[0] ? resume : NULL;
    js.observer = t->o->observer;
    js.check_control = 1;
    js.stop = t->o->stop;
    js.memory_admit = rm_memory_admit;
    js.memory_done = rm_memory_done;
    js.memory_ctx = t->sink.ctx;
    return job_run(&js, status, err);
}

static int training_loop(TrainingRank *t, int *jobs_ended, char *err)
{
    Dist *d = t->d;
    for (;;) {
        if (dist_send(d, 0, TAG_ASK, "", 0, err)) return -1;
        Message m;
        if (message_wait(d, 0, -1, -1, &m, err) < 0) return -1;
        if (m.tag == TAG_END) {
            free(m.bytes);
            return 0;
        }
        if (m.tag != TAG_JOB) {
            free(m.bytes);
            return err_set(err, "rank 0 sent tag %d where a job was due", m.tag);
        }
        int64_t run_id = 0;
        RunStatus status;
        char why[ERR_LEN] = "";
        int rc = run_job(t, &m, &run_id, &status, why);
        free(m.bytes);
        empty_folder(t->scratch);
        if (status != RUN_QUEUED) (*jobs_ended)++;   /* queued: given back to wait for memory */
        Pack p = {0};
        WireJobEnd end = {run_id, status, rc, why};
        wire_pack(&p, &WIRE_JOB_END, &end);
        if (send_pack(d, 0, TAG_JOB_END, &p, err)) return -1;
        if (t->o->stop && atomic_load(t->o->stop)) return dist_send(d, 0, TAG_LEAVE, "", 0, err);
    }
}

int mpi_train_jobs(Dist *d, const MpiSweepOptions *o, int threads, int *jobs_ended, char *err)
{
    assert(d && err);
    Remote remote = {d, o->stop};
    TrainingRank t = {d, o, threads, "", {&REMOTE_OPS, &remote}};
    const char *tmp = getenv("TMPDIR");
    snprintf(t.scratch, sizeof t.scratch, "%s/mixbench-rank%d-%d", tmp && tmp[0] ? tmp : "/tmp", dist_rank(d),
             (int)getpid());
    if (mkdir(t.scratch, 0700) && errno != EEXIST) return err_set(err, "%s: %s", t.scratch, strerror(errno));
    int rc = training_loop(&t, jobs_ended, err);
    empty_folder(t.scratch);
    rmdir(t.scratch);
    return rc;
}

