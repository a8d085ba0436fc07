/*
 * mpi_sweep.c — the sweep over MPI ranks of mpi_sweep.h: the message
 * protocol, the training ranks' remote JobSink, and rank 0's coordinator.
 *
 * The protocol (tags below).  A training rank sends ASK; rank 0 answers
 * JOB (run id, config JSON, and when the job resumes its checkpoint's base
 * name and size, the bytes following as FILE pieces) or END.  While the
 * job runs, each JobSink op is one message to rank 0 (tag OP_FIRST + op, a
 * packed payload; set_resume and ckpt_add follow theirs with the file's
 * FILE pieces), and rank 0 applies it to the store and answers REPLY: rc,
 * err, the op's outputs and rank 0's stop flag (so a stop on rank 0 reaches
 * every job at its next op).  When the job ends the rank sends JOB_END
 * (run id, status, rc, err) and asks again, or LEAVE when it was stopped.
 * Every request waits for its reply, so a rank has at most one message in
 * flight and its ops reach the store in the order the job made them.
 *
 * Payloads are packed native-endian (every rank runs the same binary,
 * checked at start): int64 and double as their 8 bytes, a string as its
 * length (-1 for NULL) then its bytes and the NUL.
 */
#include "experiments/mpi_sweep.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/store.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "engine/memory.h"
#include "engine/pool.h"
#include "experiments/adaptive.h"
#include "experiments/job.h"
#include "experiments/job_sink.h"
#include "experiments/scheduler.h"

enum {
    TAG_ASK = 100,      /* rank -> 0: a job, please (empty) */
    TAG_JOB,            /* 0 -> rank: run_id, config_json, resume base name (NULL: fresh), its size,
                           the store's id and file name (for the checkpoints' metadata) */
    TAG_END,            /* 0 -> rank: nothing left; end (empty) */
    TAG_JOB_END,        /* rank -> 0: run_id, status, rc, err; no reply */
    TAG_LEAVE,          /* rank -> 0: stopped by a signal, ends (empty); no reply */
    TAG_FILE,           /* a piece of a shipped file, either way */
    TAG_REPLY,          /* 0 -> rank: rc, err, nats, value, stop */
    TAG_OP_FIRST = 120, /* + Op: one JobSink op */
};

typedef enum {
    OP_UNIGRAM_GET, OP_UNIGRAM_PUT, OP_RUN_CREATE, OP_JOB_STARTED, OP_METRICS, OP_EVAL, OP_SET_RESUME,
    OP_CKPT_ADD, OP_CKPT_FORGET, OP_CONTROL, OP_HEARTBEAT, OP_SET_INFER, OP_FINISH, OP_SET_STATUS,
    OP_MEMORY_ADMIT,   /* the job's MemoryNeed and what its rank may use: 0 start, 1 wait, 2 stop (value) */
    OP_MEMORY_DONE,    /* the job's memory is allocated */
    OP_COUNT
} Op;

/* OP_MEMORY_ADMIT's answers (Reply.value). */
enum { ADMIT_START, ADMIT_WAIT, ADMIT_STOP };

#define FILE_PIECE ((size_t)64 << 20)   /* shipped files travel in pieces of at most 64 MiB */
#define CLAIM_SECONDS 0.5               /* an idle rank's claim is retried this often */
#define HELD_BEAT_SECONDS 60.0          /* rank 0 renews the lease of the jobs it holds back this often */

/* ---- packing ---- */

typedef struct {
    unsigned char *bytes;
    size_t len, cap;
    int oom;
} Pack;

static void pack_raw(Pack *p, const void *v, size_t n)
{
    if (p->oom) return;
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < p->len + n) cap *= 2;
        unsigned char *grown = realloc(p->bytes, cap);
        if (!grown) {
            p->oom = 1;
            return;
        }
        p->bytes = grown;
        p->cap = cap;
    }
    memcpy(p->bytes + p->len, v, n);
    p->len += n;
}

static void pack_i64(Pack *p, int64_t v) { pack_raw(p, &v, sizeof v); }
static void pack_f64(Pack *p, double v) { pack_raw(p, &v, sizeof v); }

static void pack_str(Pack *p, const char *s)
{
    int64_t n = s ? (int64_t)strlen(s) : -1;
    pack_i64(p, n);
    if (s) pack_raw(p, s, (size_t)n + 1);
}

typedef struct {
    const unsigned char *bytes;
    size_t len, at;
    int bad;                  /* read past the end, or a string without its NUL */
} Unpack;

static void unpack_raw(Unpack *u, void *v, size_t n)
{
    if (u->bad || u->len - u->at < n) {
        u->bad = 1;
        memset(v, 0, n);
        return;
    }
    memcpy(v, u->bytes + u->at, n);
    u->at += n;
}

static int64_t unpack_i64(Unpack *u)
{
    int64_t v;
    unpack_raw(u, &v, sizeof v);
    return v;
}

static double unpack_f64(Unpack *u)
{
    double v;
    unpack_raw(u, &v, sizeof v);
    return v;
}

/* A string inside the message (valid while it lives), or NULL. */
static const char *unpack_str(Unpack *u)
{
    int64_t n = unpack_i64(u);
    if (u->bad || n == -1) return NULL;
    if (n < 0 || (uint64_t)n >= u->len - u->at || u->bytes[u->at + (size_t)n] != 0) {
        u->bad = 1;
        return NULL;
    }
    const char *s = (const char *)u->bytes + u->at;
    u->at += (size_t)n + 1;
    return s;
}

static void pack_run_info(Pack *p, const RunInfo *i)
{
    pack_str(p, i->name), pack_str(p, i->arch), pack_str(p, i->task), pack_str(p, i->data);
    pack_str(p, i->tokenizer), pack_str(p, i->config_json);
    pack_i64(p, i->n_params), pack_i64(p, i->n_params_nonembedding), pack_i64(p, i->total_steps);
    pack_i64(p, i->seed), pack_i64(p, i->threads), pack_i64(p, i->d), pack_i64(p, i->layers);
    pack_i64(p, i->heads), pack_i64(p, i->n_ctx), pack_i64(p, i->vocab), pack_i64(p, i->resumed_step);
}

static RunInfo unpack_run_info(Unpack *u)
{
    RunInfo i;
    i.name = unpack_str(u), i.arch = unpack_str(u), i.task = unpack_str(u), i.data = unpack_str(u);
    i.tokenizer = unpack_str(u), i.config_json = unpack_str(u);
    i.n_params = unpack_i64(u), i.n_params_nonembedding = unpack_i64(u), i.total_steps = unpack_i64(u);
    i.seed = unpack_i64(u), i.threads = (int)unpack_i64(u), i.d = (int)unpack_i64(u);
    i.layers = (int)unpack_i64(u), i.heads = (int)unpack_i64(u), i.n_ctx = (int)unpack_i64(u);
    i.vocab = (int)unpack_i64(u), i.resumed_step = unpack_i64(u);
    return i;
}

static void pack_metric(Pack *p, const MetricRow *m)
{
    pack_i64(p, m->step), pack_i64(p, m->tokens), pack_f64(p, m->wall), pack_f64(p, m->train_loss);
    pack_f64(p, m->train_loss_smooth), pack_f64(p, m->lr), pack_f64(p, m->grad_norm);
    pack_f64(p, m->tokens_per_s);
}

static MetricRow unpack_metric(Unpack *u)
{
    MetricRow m;
    m.step = unpack_i64(u), m.tokens = unpack_i64(u), m.wall = unpack_f64(u), m.train_loss = unpack_f64(u);
    m.train_loss_smooth = unpack_f64(u), m.lr = unpack_f64(u), m.grad_norm = unpack_f64(u);
    m.tokens_per_s = unpack_f64(u);
    return m;
}

static void pack_eval(Pack *p, const EvalRow *e)
{
    pack_i64(p, e->step), pack_str(p, e->split), pack_f64(p, e->loss), pack_f64(p, e->accuracy);
    pack_f64(p, e->bits_per_byte), pack_i64(p, e->n_tokens), pack_f64(p, e->loss_all);
}

static EvalRow unpack_eval(Unpack *u)
{
    EvalRow e;
    e.step = unpack_i64(u), e.split = unpack_str(u), e.loss = unpack_f64(u), e.accuracy = unpack_f64(u);
    e.bits_per_byte = unpack_f64(u), e.n_tokens = unpack_i64(u), e.loss_all = unpack_f64(u);
    return e;
}

static void pack_run_end(Pack *p, const RunEnd *e)
{
    pack_str(p, e->status), pack_str(p, e->error), pack_i64(p, e->steps_done), pack_i64(p, e->tokens_seen);
    pack_f64(p, e->wall_seconds), pack_f64(p, e->tokens_per_s), pack_f64(p, e->peak_mem_mb);
}

static RunEnd unpack_run_end(Unpack *u)
{
    RunEnd e;
    e.status = unpack_str(u), e.error = unpack_str(u), e.steps_done = unpack_i64(u);
    e.tokens_seen = unpack_i64(u), e.wall_seconds = unpack_f64(u), e.tokens_per_s = unpack_f64(u);
    e.peak_mem_mb = unpack_f64(u);
    return e;
}

/* ---- messages ---- */

typedef struct {
    int src, tag;
    unsigned char *bytes;
    size_t len;
} Message;

/* Waits (sleeping: dist_wait) for a message from `from` with `tag` (-1:
   any); 1 with it in *m (free m->bytes), 0 when timeout_s passed, -1. */
static int message_wait(Dist *d, int from, int tag, double timeout_s, Message *m, char *err)
{
    size_t len;
    if (!dist_wait(d, from, tag, timeout_s, &m->src, &m->tag, &len)) return 0;
    m->bytes = malloc(len ? len : 1);
    if (!m->bytes) return err_set(err, "out of memory for a message of %zu bytes", len);
    if (dist_recv(d, m->src, m->tag, m->bytes, len, err)) {
        free(m->bytes);
        return -1;
    }
    m->len = len;
    return 1;
}

static int send_pack(Dist *d, int to, int tag, Pack *p, char *err)
{
    int rc = p->oom ? err_set(err, "out of memory") : dist_send(d, to, tag, p->bytes, p->len, err);
    free(p->bytes);
    *p = (Pack){0};
    return rc;
}

/* ---- shipped files ---- */

static int file_size(const char *path, int64_t *size, char *err)
{
    struct stat st;
    if (stat(path, &st)) return err_set(err, "%s: %s", path, strerror(errno));
    *size = (int64_t)st.st_size;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A name a sender may give a file in our folder: no folders, no dots. */
static int base_name_ok(const char *base)
{
    return base && base[0] && base[0] != '.' && !strchr(base, '/') && strlen(base) < NAME_MAX;
}

static int write_all(int fd, const unsigned char *bytes, size_t n)
{
    while (n > 0) {
        ssize_t put = write(fd, bytes, n);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return -1;
        bytes += put;
        n -= (size_t)put;
    }
    return 0;
}

/* Sends size bytes of path to rank `to` as FILE pieces.  When the file
   cannot be read to the end, an empty piece tells the receiver so, and
   this returns -1 with why. */
static int send_file(Dist *d, int to, const char *path, int64_t size, char *err)
{
    if (size == 0) return 0;
    size_t cap = size < (int64_t)FILE_PIECE ? (size_t)size : FILE_PIECE;
    unsigned char *piece = malloc(cap);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = !piece ? err_set(err, "out of memory") : fd < 0 ? err_set(err, "%s: %s", path, strerror(errno)) : 0;
    for (int64_t sent = 0; !rc && sent < size;) {
        size_t want = size - sent < (int64_t)cap ? (size_t)(size - sent) : cap;
        ssize_t got = read(fd, piece, want);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) rc = err_set(err, "%s: %s", path, got < 0 ? strerror(errno) : "shorter than announced");
        else if (dist_send(d, to, TAG_FILE, piece, (size_t)got, err)) return -1;   /* MPI itself failed */
        else sent += got;
    }
    char mpi_err[ERR_LEN];
    if (rc && dist_send(d, to, TAG_FILE, "", 0, mpi_err)) return -1;
    free(piece);
    if (fd >= 0) close(fd);
    return rc;
}

static void sync_folder(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

/* Receives a file of size bytes from rank `from` into dir/base, its path
   into path: a temp file, fsync, rename, fsync of the folder, so the name
   exists only for the whole file.  dir NULL: the pieces are received and
   dropped (a refused file: the conversation stays in step).  Returns -1 with
   err when the file could not be written or the sender could not read it;
   */
static int receive_file(Dist *d, int from, int64_t size, const char *dir, const char *base, char *path,
                        size_t cap, char *err)
{
    char tmp[PATH_MAX + NAME_MAX + 16];
    int fd = -1, rc = 0;
    if (dir) {
        snprintf(path, cap, "%s/%s", dir, base);
        snprintf(tmp, sizeof tmp, "%s/.%s.part-%d", dir, base, from);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) rc = err_set(err, "%s: %s", tmp, strerror(errno));
    }
    for (int64_t got = 0; got < size;) {
        Message m;
        char why[ERR_LEN];
        if (message_wait(d, from, TAG_FILE, -1, &m, why) < 0) {
            rc = err_set(err, "%s", why);
            break;
        }
        if (m.len == 0) {   /* the sender could not read its file */
            if (!rc) rc = err_set(err, "rank %d could not read %s to the end", from, base);
            free(m.bytes);
            break;
        }
        if (!rc && fd >= 0 && write_all(fd, m.bytes, m.len)) rc = err_set(err, "%s: %s", tmp, strerror(errno));
        got += (int64_t)m.len;
        free(m.bytes);
    }
    if (fd < 0) return rc;
    if (!rc && fsync(fd)) rc = err_set(err, "%s: %s", tmp, strerror(errno));
    close(fd);
    if (!rc && rename(tmp, path)) rc = err_set(err, "%s: %s", path, strerror(errno));
    if (rc) {
        unlink(tmp);
        return -1;
    }
    sync_folder(dir);
    return 0;
}

/* ---- a training rank: the remote sink ---- */

typedef struct {
    Dist *d;
    atomic_int *stop;
} Remote;

typedef struct {
    double nats;     /* unigram_get */
    int64_t value;   /* control: the JobControl (run_create: a run id, but rank 0 refuses it) */
} Reply;

/* One op: the request (and the file at ship_path) to rank 0, then its
   reply; rank 0's error comes back as this op's. */
static int remote_call(Remote *r, Op op, Pack *req, const char *ship_path, int64_t ship_size, Reply *out,
                       char *err)
{
    if (send_pack(r->d, 0, TAG_OP_FIRST + (int)op, req, err)) return -1;
    char ship_err[ERR_LEN] = "";
    int ship_failed = ship_path ? send_file(r->d, 0, ship_path, ship_size, ship_err) : 0;
    Message m;
    if (message_wait(r->d, 0, TAG_REPLY, -1, &m, err) < 0) return -1;
    Unpack u = {m.bytes, m.len, 0, 0};
    int64_t rc = unpack_i64(&u);
    const char *why = unpack_str(&u);
    Reply reply = {unpack_f64(&u), 0};
    reply.value = unpack_i64(&u);
    int64_t stop = unpack_i64(&u);
    int status = 0;
    if (u.bad) status = err_set(err, "a malformed reply from rank 0");
    else if (rc) status = err_set(err, "%s", why ? why : "rank 0 failed");
    else if (ship_failed) status = err_set(err, "%s", ship_err);
    if (!u.bad && stop && r->stop) atomic_store(r->stop, 1);
    if (out) *out = reply;
    free(m.bytes);
    return status;
}

static int rm_unigram_get(void *ctx, const char *data, const char *tok, int vocab, double *nats, char *err)
{
    Pack p = {0};
    pack_str(&p, data), pack_str(&p, tok), pack_i64(&p, vocab);
    Reply reply;
    int rc = remote_call(ctx, OP_UNIGRAM_GET, &p, NULL, 0, &reply, err);
    *nats = rc ? NAN : reply.nats;
    return rc;
}

static int rm_unigram_put(void *ctx, const char *data, const char *tok, int vocab, int64_t n, double nats, char *err)
{
    Pack p = {0};
    pack_str(&p, data), pack_str(&p, tok), pack_i64(&p, vocab), pack_i64(&p, n), pack_f64(&p, nats);
    return remote_call(ctx, OP_UNIGRAM_PUT, &p, NULL, 0, NULL, err);
}

static int rm_run_create(void *ctx, const RunInfo *info, int64_t *run_id, char *err)
{
    Pack p = {0};
    pack_run_info(&p, info);
    Reply reply;
    int rc = remote_call(ctx, OP_RUN_CREATE, &p, NULL, 0, &reply, err);
    *run_id = rc ? 0 : reply.value;
    return rc;
}

static int rm_job_started(void *ctx, int64_t run_id, const RunInfo *info, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id), pack_run_info(&p, info);
    return remote_call(ctx, OP_JOB_STARTED, &p, NULL, 0, NULL, err);
}

static int rm_metrics(void *ctx, int64_t run_id, const MetricRow *rows, int n, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id), pack_i64(&p, n);
    for (int i = 0; i < n; i++) pack_metric(&p, &rows[i]);
    return remote_call(ctx, OP_METRICS, &p, NULL, 0, NULL, err);
}

static int rm_eval(void *ctx, int64_t run_id, const EvalRow *row, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id), pack_eval(&p, row);
    return remote_call(ctx, OP_EVAL, &p, NULL, 0, NULL, err);
}

/* set_resume and ckpt_add: the checkpoint's bytes go with the op. */
static int rm_ship(void *ctx, Op op, int64_t run_id, int64_t step, const char *path, char *err)
{
    int64_t size = 0;
    if (file_size(path, &size, err)) return -1;
    Pack p = {0};
    pack_i64(&p, run_id), pack_i64(&p, step), pack_str(&p, base_name(path)), pack_i64(&p, size);
    return remote_call(ctx, op, &p, path, size, NULL, err);
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
    Pack p = {0};
    pack_i64(&p, run_id), pack_str(&p, base_name(path));
    if (remote_call(ctx, OP_CKPT_FORGET, &p, NULL, 0, NULL, err)) return -1;
    unlink(path);
    return 0;
}

static int rm_control(void *ctx, int64_t run_id, JobControl *control, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id);
    Reply reply;
    int rc = remote_call(ctx, OP_CONTROL, &p, NULL, 0, &reply, err);
    *control = rc ? JOB_CONTROL_NONE : (JobControl)reply.value;
    return rc;
}

static int rm_heartbeat(void *ctx, int64_t run_id, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id);
    return remote_call(ctx, OP_HEARTBEAT, &p, NULL, 0, NULL, err);
}

static int rm_set_infer(void *ctx, int64_t run_id, double samples_per_s, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id), pack_f64(&p, samples_per_s);
    return remote_call(ctx, OP_SET_INFER, &p, NULL, 0, NULL, err);
}

static int rm_finish(void *ctx, int64_t run_id, const RunEnd *end, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id), pack_run_end(&p, end);
    return remote_call(ctx, OP_FINISH, &p, NULL, 0, NULL, err);
}

static int rm_set_status(void *ctx, int64_t run_id, RunStatus status, char *err)
{
    Pack p = {0};
    pack_i64(&p, run_id), pack_i64(&p, status);
    return remote_call(ctx, OP_SET_STATUS, &p, NULL, 0, NULL, err);
}

static const JobSinkOps REMOTE_OPS = {rm_unigram_get, rm_unigram_put, rm_run_create, rm_job_started,
                                      rm_metrics,     rm_eval,        rm_set_resume, rm_ckpt_add,
                                      rm_ckpt_forget, rm_control,     rm_heartbeat,  rm_set_infer,
                                      rm_finish,      rm_set_status};

/* JobSpec.memory_admit on a training rank: rank 0, which knows what the
   other ranks of this host hold, decides (coordinator's admit). */
static int rm_memory_admit(void *ctx, const MemoryNeed *need, double held, char *err)
{
    const char *source;
    double available = memory_available(&source) + held;
    Pack p = {0};
    pack_f64(&p, need->params), pack_f64(&p, need->optimizer), pack_f64(&p, need->gradients);
    pack_f64(&p, need->activations), pack_f64(&p, need->data), pack_f64(&p, need->other);
    pack_f64(&p, need->total), pack_f64(&p, available), pack_str(&p, source);
    Reply reply;
    if (remote_call(ctx, OP_MEMORY_ADMIT, &p, NULL, 0, &reply, err)) return -1;
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
    Pack p = {0};
    char err[ERR_LEN];
    remote_call(ctx, OP_MEMORY_DONE, &p, NULL, 0, NULL, err);
}

/* ---- a training rank: the loop ---- */

/* Threads for a job that names none: --threads, else this machine's cores
   shared by the training ranks on it (rank 0, which trains nothing, not
   counted).  Collective: the ranks tell each other their host (hosts[r]:
   a hash of rank r's host name). */
static int rank_threads(Dist *d, const MpiSweepOptions *o, uint64_t *hosts, char *err)
{
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
    *run_id = unpack_i64(&u);
    const char *config_json = unpack_str(&u), *resume_base = unpack_str(&u);
    int64_t resume_size = unpack_i64(&u);
    const char *store_id = unpack_str(&u), *store_name = unpack_str(&u);
    *status = RUN_FAILED;
    if (u.bad || !config_json || !store_id || !store_name || (resume_base && !base_name_ok(resume_base)))
        return err_set(err, "a malformed job from rank 0");
    char resume[PATH_MAX + NAME_MAX + 2] = "";
    int bad = resume_base && receive_file(t->d, 0, resume_size, t->scratch, resume_base, resume, sizeof resume, err);
    JobSpec js;
    memset(&js, 0, sizeof js);
    config_defaults(&js.config);
    if (!bad) {
        JsonValue *cfg = json_parse(config_json, strlen(config_json), err);
        bad = !cfg || config_from_json(&js.config, cfg, 1, err);
        json_free(cfg);
    }
    if (bad) {
        RunEnd end = {run_status_name(RUN_FAILED), err, 0, 0, 0, 0, 0};
        char why[ERR_LEN];
        return t->sink.ops->finish(t->sink.ctx, *run_id, &end, why) ? err_set(err, "%s", why) : 0;
    }
    if (js.config.threads <= 0) js.config.threads = t->threads;
    js.sink = &t->sink;
    js.ckpt_dir = t->scratch;
    js.store_id = store_id;       /* the checkpoints shipped back must name rank 0's store */
    js.store_name = store_name;
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
        pack_i64(&p, run_id), pack_i64(&p, status), pack_i64(&p, rc), pack_str(&p, why);
        if (send_pack(d, 0, TAG_JOB_END, &p, err)) return -1;
        if (t->o->stop && atomic_load(t->o->stop)) return dist_send(d, 0, TAG_LEAVE, "", 0, err);
    }
}

static int train_jobs(Dist *d, const MpiSweepOptions *o, int threads, int *jobs_ended, char *err)
{
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

/* ---- rank 0: the coordinator ---- */

typedef enum {
    RANK_STARTING,   /* will ask (it just started, or just ended a job) */
    RANK_ASKING,     /* waits for a job */
    RANK_RUNNING,    /* runs run_id */
    RANK_GONE,       /* ended */
} RankState;

typedef struct {
    RankState state;
    int64_t run_id;
    char resume_path[1024];   /* the checkpoint its job resumed from, as the store names it */
    ClaimedJob *job;          /* the job it runs, as handed out (kept for when it must wait) */
    int host;                 /* the first rank on the same host */
    int admitted;             /* its job's memory is admitted (counts on its host) */
    double need, pending;     /* bytes the job needs; of those, not yet allocated */
    int refused_frees;        /* its host's frees when its job was told to wait */
} RankSlot;

/* A claimed job rank 0 holds back until it may fit: it did not fit beside
   the jobs of some host.  It stays claimed (running, owned by rank 0) and
   is handed out again, before any new claim, on a host where a job ended
   since it was refused there. */
typedef struct {
    ClaimedJob job;
    int *seen;                /* [size]: frees of host h when refused there, -1 never */
} HeldJob;

typedef struct {
    Dist *d;
    const MpiSweepOptions *o;
    Store *st;
    JobSink sink;
    char ckpt_dir[PATH_MAX + 32];
    char store_id[STORE_ID_LEN];   /* written into the jobs' checkpoints */
    RankSlot *slots;           /* [size]; slot 0 is rank 0's own, unused */
    int *frees;                /* [size], by host (its first rank): jobs ended there */
    HeldJob *held;             /* waiting for memory, oldest first */
    int n_held;
    double next_beat;          /* the held jobs' next heartbeat */
    ClaimedJob *job;
    int ended;
    double next_claim;
} Coordinator;

static int stopping(const Coordinator *c) { return c->o->stop && atomic_load(c->o->stop); }

static void note(Coordinator *c, const char *msg)
{
    if (c->o->note) c->o->note(c->o->ctx, msg);
}

/* The run an op names must be the job this rank holds. */
static int holds(const Coordinator *c, int rank, int64_t run_id, char *err)
{
    assert(rank > 0 && rank < dist_size(c->d));
    const RankSlot *s = &c->slots[rank];
    if (s->state == RANK_RUNNING && s->run_id == run_id) return 0;
    return err_set(err, "rank %d does not hold run %lld", rank, (long long)run_id);
}

/* set_resume / ckpt_add: the file arrives into the checkpoint folder, and
   only then does the store name it. */
static int apply_ship(Coordinator *c, Op op, int rank, Unpack *u, char *err)
{
    int64_t run_id = unpack_i64(u), step = unpack_i64(u);
    const char *base = unpack_str(u);
    int64_t size = unpack_i64(u);
    if (u->bad || size < 0) return err_set(err, "a malformed checkpoint message from rank %d", rank);
    char path[PATH_MAX + NAME_MAX + 2], refused[ERR_LEN] = "";
    if (!base_name_ok(base)) err_set(refused, "rank %d names a checkpoint '%s'", rank, base ? base : "");
    else holds(c, rank, run_id, refused);
    /* the pieces are received whatever happened, to stay in step */
    if (receive_file(c->d, rank, size, refused[0] ? NULL : c->ckpt_dir, base, path, sizeof path, err)) return -1;
    if (refused[0]) return err_set(err, "%s", refused);
    return op == OP_SET_RESUME ? c->sink.ops->set_resume(c->sink.ctx, run_id, step, path, err)
                               : c->sink.ops->ckpt_add(c->sink.ctx, run_id, step, path, err);
}

/* ckpt_forget: the job names the file by its base name; the checkpoint it
   resumed from may live elsewhere (a local worker wrote it). */
static int apply_forget(Coordinator *c, int rank, Unpack *u, char *err)
{
    int64_t run_id = unpack_i64(u);
    const char *base = unpack_str(u);
    if (u->bad || !base_name_ok(base)) return err_set(err, "a malformed checkpoint message from rank %d", rank);
    if (holds(c, rank, run_id, err)) return -1;
    char path[PATH_MAX + NAME_MAX + 2];
    const char *resumed = c->slots[rank].resume_path;
    if (resumed[0] && !strcmp(base_name(resumed), base)) snprintf(path, sizeof path, "%s", resumed);
    else snprintf(path, sizeof path, "%s/%s", c->ckpt_dir, base);
    return c->sink.ops->ckpt_forget(c->sink.ctx, run_id, path, err);
}

/* OP_MEMORY_ADMIT: the job of rank fits beside the jobs admitted on its
   host, or waits while they run, or (alone there) fails with the one line
   memory_check writes.  The rank's own view already counts what the other
   processes hold resident (cgroup, MemAvailable), not what they admitted
   and have yet to allocate; MIXBENCH_MEMORY_LIMIT is a cap on the sweep's
   jobs of a host together (as on a local worker's jobs), so the others'
   whole needs count against it.  ulimit -v is each process's own. */
static int admit(Coordinator *c, int rank, Unpack *u, Reply *reply, char *err)
{
    MemoryNeed need;
    need.params = unpack_f64(u), need.optimizer = unpack_f64(u), need.gradients = unpack_f64(u);
    need.activations = unpack_f64(u), need.data = unpack_f64(u), need.other = unpack_f64(u);
    need.total = unpack_f64(u);
    double available = unpack_f64(u);
    const char *source = unpack_str(u);
    if (u->bad || !source) return -1;
    RankSlot *me = &c->slots[rank];
    if (me->state != RANK_RUNNING || me->admitted) return err_set(err, "rank %d asks memory for no job", rank);
    if (stopping(c)) {
        reply->value = ADMIT_STOP;
        return 0;
    }
    int others = 0;
    int whole = !strcmp(source, "MIXBENCH_MEMORY_LIMIT");
    for (int r = 1; r < dist_size(c->d); r++) {
        const RankSlot *s = &c->slots[r];
        if (r == rank || s->host != me->host || !s->admitted) continue;
        others++;
        available -= whole ? s->need : s->pending;
    }
    if (need.total <= available) {
        me->admitted = 1;
        me->need = me->pending = need.total;
        reply->value = ADMIT_START;
        return 0;
    }
    if (!others) return memory_check(&need, available, source, err);
    me->refused_frees = c->frees[me->host];
    reply->value = ADMIT_WAIT;
    return 0;
}

/* One op of a rank's job, applied to the store; *reply gets its outputs. */
static int apply_op(Coordinator *c, Op op, int rank, Unpack *u, Reply *reply, char *err)
{
    const JobSinkOps *ops = c->sink.ops;
    void *ctx = c->sink.ctx;
    if (op == OP_SET_RESUME || op == OP_CKPT_ADD) return apply_ship(c, op, rank, u, err);
    if (op == OP_CKPT_FORGET) return apply_forget(c, rank, u, err);
    if (op == OP_MEMORY_ADMIT) return admit(c, rank, u, reply, err);
    if (op == OP_MEMORY_DONE) {
        c->slots[rank].pending = 0;
        return 0;
    }
    if (op == OP_UNIGRAM_GET || op == OP_UNIGRAM_PUT) {
        const char *data = unpack_str(u), *tok = unpack_str(u);
        int vocab = (int)unpack_i64(u);
        if (op == OP_UNIGRAM_GET) return u->bad ? -1 : ops->unigram_get(ctx, data, tok, vocab, &reply->nats, err);
        int64_t n = unpack_i64(u);
        double nats = unpack_f64(u);
        return u->bad ? -1 : ops->unigram_put(ctx, data, tok, vocab, n, nats, err);
    }
    if (op == OP_RUN_CREATE) return err_set(err, "rank %d: a sweep job creates no run", rank);
    int64_t run_id = unpack_i64(u);
    if (u->bad || holds(c, rank, run_id, err)) return -1;
    if (op == OP_JOB_STARTED) {
        RunInfo info = unpack_run_info(u);
        return u->bad ? -1 : ops->job_started(ctx, run_id, &info, err);
    }
    if (op == OP_METRICS) {
        int64_t n = unpack_i64(u);
        if (u->bad || n < 0 || n > (int64_t)(u->len / sizeof(double))) return -1;
        MetricRow *rows = malloc(sizeof *rows * (size_t)(n ? n : 1));
        if (!rows) return err_set(err, "out of memory");
        for (int64_t i = 0; i < n; i++) rows[i] = unpack_metric(u);
        int rc = u->bad ? -1 : ops->metrics(ctx, run_id, rows, (int)n, err);
        free(rows);
        return rc;
    }
    if (op == OP_EVAL) {
        EvalRow row = unpack_eval(u);
        return u->bad ? -1 : ops->eval(ctx, run_id, &row, err);
    }
    if (op == OP_CONTROL) {
        JobControl control = JOB_CONTROL_NONE;
        int rc = ops->control(ctx, run_id, &control, err);
        reply->value = control;
        return rc;
    }
    if (op == OP_HEARTBEAT) return ops->heartbeat(ctx, run_id, err);
    if (op == OP_SET_INFER) {
        double rate = unpack_f64(u);
        return u->bad ? -1 : ops->set_infer(ctx, run_id, rate, err);
    }
    if (op == OP_FINISH) {
        RunEnd end = unpack_run_end(u);
        return u->bad ? -1 : ops->finish(ctx, run_id, &end, err);
    }
    if (op == OP_SET_STATUS) {
        int64_t status = unpack_i64(u);
        if (u->bad || status < 0 || status >= RUN_STATUS_COUNT) return -1;
        return ops->set_status(ctx, run_id, (RunStatus)status, err);
    }
    return err_set(err, "rank %d sent unknown op %d", rank, (int)op);
}

static int serve_op(Coordinator *c, const Message *m, char *err)
{
    Unpack u = {m->bytes, m->len, 0, 0};
    Reply reply = {NAN, 0};
    char why[ERR_LEN] = "";
    int rc = apply_op(c, (Op)(m->tag - TAG_OP_FIRST), m->src, &u, &reply, why);
    if (rc && !why[0]) snprintf(why, sizeof why, "rank 0 could not read a message from rank %d", m->src);
    Pack p = {0};
    pack_i64(&p, rc ? -1 : 0), pack_str(&p, why), pack_f64(&p, reply.nats), pack_i64(&p, reply.value);
    pack_i64(&p, stopping(c));
    return send_pack(c->d, m->src, TAG_REPLY, &p, err);
}

/* A job that cannot be handed out ends here, failed. */
static void fail_job(Coordinator *c, int64_t run_id, int rank, const char *why)
{
    RunEnd end = {run_status_name(RUN_FAILED), why, 0, 0, 0, 0, 0};
    char err[ERR_LEN];
    if (c->sink.ops->finish(c->sink.ctx, run_id, &end, err)) note(c, err);
    c->ended++;
    if (c->o->job_ended) c->o->job_ended(c->o->ctx, run_id, RUN_FAILED, rank, why);
}

/* Hands the claimed job to rank (with its resume checkpoint's bytes). */
static int send_job(Coordinator *c, int rank, const ClaimedJob *job, char *err)
{
    assert(c->slots[rank].state == RANK_ASKING);
    const char *resume = job->resume_ckpt[0] ? job->resume_ckpt : NULL;
    int64_t size = 0;
    if (resume && file_size(resume, &size, err)) return -1;
    if (resume && !base_name_ok(base_name(resume))) return err_set(err, "%s: not a checkpoint file name", resume);
    Pack p = {0};
    pack_i64(&p, job->run_id), pack_str(&p, job->config_json), pack_str(&p, resume ? base_name(resume) : NULL);
    pack_i64(&p, size), pack_str(&p, c->store_id), pack_str(&p, store_file_name(c->st));
    char why[ERR_LEN];
    if (send_pack(c->d, rank, TAG_JOB, &p, err)) return -2;
    RankSlot *s = &c->slots[rank];
    s->state = RANK_RUNNING;
    s->run_id = job->run_id;
    if (s->job != job) *s->job = *job;
    snprintf(s->resume_path, sizeof s->resume_path, "%s", resume ? resume : "");
    /* a file that cannot be read to the end: the rank fails the job */
    if (resume && send_file(c->d, rank, resume, size, why)) note(c, why);
    return 0;
}

/* The held job to hand to asking rank r: the oldest refused on no host
   where no job ended since (or any, when no rank runs a job: alone it
   fits or fails).  -1 none. */
static int take_held(Coordinator *c, int r)
{
    if (c->slots[r].state != RANK_ASKING) return -1;
    int h = c->slots[r].host, busy = 0;
    for (int k = 1; k < dist_size(c->d); k++) busy += c->slots[k].state == RANK_RUNNING;
    for (int i = 0; i < c->n_held; i++)
        if (c->held[i].seen[h] < c->frees[h] || !busy) return i;
    return -1;
}

/* Keeps the job rank gave back (it waits for memory) claimed by rank 0. */
static void hold(Coordinator *c, int rank)
{
    RankSlot *s = &c->slots[rank];
    HeldJob *grown = realloc(c->held, sizeof *grown * (size_t)(c->n_held + 1));
    int *seen = malloc(sizeof *seen * (size_t)dist_size(c->d));
    if (!grown || !seen) {
        free(seen);
        if (grown) c->held = grown;
        fail_job(c, s->run_id, rank, "out of memory holding a job that waits for memory");
        return;
    }
    c->held = grown;
    for (int h = 0; h < dist_size(c->d); h++) seen[h] = -1;
    seen[s->host] = s->refused_frees;
    c->held[c->n_held++] = (HeldJob){*s->job, seen};
}

/* The held jobs: their leases renewed (they are claimed), or on a stop
   or at the end, back to the queue. */
static void held_jobs(Coordinator *c, int release)
{
    char err[ERR_LEN];
    int beat = now_seconds() >= c->next_beat;
    if (beat) c->next_beat = now_seconds() + HELD_BEAT_SECONDS;
    for (int i = 0; i < c->n_held; i++) {
        int64_t id = c->held[i].job.run_id;
        if (release && (c->sink.ops->set_status(c->sink.ctx, id, RUN_INTERRUPTED, err) ||
                        store_job_resume(c->st, id, err)))
            note(c, err);
        else if (!release && beat && c->sink.ops->heartbeat(c->sink.ctx, id, err))
            note(c, err);
        if (release) free(c->held[i].seen);
    }
    if (release) c->n_held = 0;
}

/* Claims jobs for the ranks that ask (the held jobs first); when none is
   left and no job runs, every rank ends. */
static int serve_asks(Coordinator *c, char *err)
{
    int n = dist_size(c->d), asking = 0;
    for (int r = 1; r < n; r++) asking += c->slots[r].state == RANK_ASKING;
    if (!asking || (!stopping(c) && now_seconds() < c->next_claim)) return 0;
    c->next_claim = now_seconds() + CLAIM_SECONDS;
    int empty = stopping(c);
    for (int r = 1; r < n && !stopping(c); r++) {
        int h = take_held(c, r);
        if (h < 0) continue;
        HeldJob held = c->held[h];
        memmove(&c->held[h], &c->held[h + 1], sizeof *c->held * (size_t)(--c->n_held - h));
        char why[ERR_LEN];
        int rc = send_job(c, r, &held.job, why);
        free(held.seen);
        if (rc == -2) return err_set(err, "%s", why);
        if (rc) fail_job(c, held.job.run_id, r, why);
    }
    for (int r = 1; r < n && !empty; r++) {
        while (c->slots[r].state == RANK_ASKING) {
            int found = 0;
            char why[ERR_LEN];
            if (store_job_claim(c->st, (int)getpid(), c->job, &found, why)) {
                note(c, why);
                return 0;   /* tried again in CLAIM_SECONDS */
            }
            if (!found) {
                /* an adaptive sweep may queue more (experiments/adaptive.h) */
                int acted = 0;
                if (!stopping(c) && adaptive_advance_all(c->st, &acted, why)) note(c, why);
                if (acted) continue;
                empty = 1;
                break;
            }
            int rc = send_job(c, r, c->job, why);
            if (rc == -2) return err_set(err, "%s", why);
            if (rc) fail_job(c, c->job->run_id, r, why);
        }
    }
    /* a running job may still be queued again (interrupted) or pause */
    int busy = 0;
    for (int r = 1; r < n; r++) busy += c->slots[r].state == RANK_RUNNING || c->slots[r].state == RANK_STARTING;
    if (!empty || c->n_held || (busy && !stopping(c))) return 0;
    for (int r = 1; r < n; r++)
        if (c->slots[r].state == RANK_ASKING) {
            if (dist_send(c->d, r, TAG_END, "", 0, err)) return -1;
            c->slots[r].state = RANK_GONE;
        }
    return 0;
}

/* A job ended on rank: an interrupted one goes back to the queue. */
static void job_end(Coordinator *c, const Message *m)
{
    Unpack u = {m->bytes, m->len, 0, 0};
    int64_t run_id = unpack_i64(&u), status = unpack_i64(&u), rc = unpack_i64(&u);
    const char *why = unpack_str(&u);
    RankSlot *s = &c->slots[m->src];
    s->state = RANK_STARTING;
    if (s->admitted) c->frees[s->host]++;   /* its memory is free: held jobs may fit there */
    s->admitted = 0;
    s->need = s->pending = 0;
    if (u.bad || status < 0 || status >= RUN_STATUS_COUNT || run_id != s->run_id) {
        note(c, "a malformed job end message");
        return;
    }
    if (status == RUN_QUEUED && !rc) {   /* did not fit beside the others: held */
        hold(c, m->src);
        return;
    }
    char err[ERR_LEN];
    if (rc) {
        /* the rank could not record the end itself */
        RunEnd end = {run_status_name(RUN_FAILED), why, 0, 0, 0, 0, 0};
        if (c->sink.ops->finish(c->sink.ctx, run_id, &end, err)) note(c, err);
        status = RUN_FAILED;
    } else if (status == RUN_INTERRUPTED && store_job_resume(c->st, run_id, err)) {
        note(c, err);
    }
    c->ended++;
    if (c->o->job_ended) c->o->job_ended(c->o->ctx, run_id, (RunStatus)status, m->src, why ? why : "");
    int acted = 0;
    if (adaptive_advance_all(c->st, &acted, err)) note(c, err);
}

static int coordinate(Coordinator *c, char *err)
{
    int n = dist_size(c->d);
    for (;;) {
        if (stopping(c)) held_jobs(c, 1);
        else if (c->n_held) held_jobs(c, 0);
        if (serve_asks(c, err)) return -1;
        int left = 0;
        for (int r = 1; r < n; r++) left += c->slots[r].state != RANK_GONE;
        if (!left) return 0;
        Message m;
        int got = message_wait(c->d, -1, -1, CLAIM_SECONDS, &m, err);
        if (got < 0) return -1;
        if (!got) continue;
        int rc = 0;
        if (m.tag == TAG_ASK) {
            c->slots[m.src].state = RANK_ASKING;
            c->next_claim = 0;
        } else if (m.tag == TAG_JOB_END) {
            job_end(c, &m);
            c->next_claim = 0;   /* an interrupted job may be queued again */
        } else if (m.tag == TAG_LEAVE) {
            c->slots[m.src].state = RANK_GONE;
        } else if (m.tag >= TAG_OP_FIRST && m.tag < TAG_OP_FIRST + OP_COUNT) {
            rc = serve_op(c, &m, err);
        } else {
            rc = err_set(err, "rank %d sent an unexpected message (tag %d)", m.src, m.tag);
        }
        free(m.bytes);
        if (rc) return -1;
    }
}

static int serve_queue(Dist *d, const MpiSweepOptions *o, const uint64_t *hosts, int *jobs_ended, char *err)
{
    int n = dist_size(d);
    Coordinator c = {.d = d, .o = o};
    store_ckpt_dir_for(o->db_path, c.ckpt_dir, sizeof c.ckpt_dir);
    c.slots = calloc((size_t)n, sizeof *c.slots);
    c.frees = calloc((size_t)n, sizeof *c.frees);
    c.job = malloc(sizeof *c.job);
    int rc = !c.slots || !c.frees || !c.job ? err_set(err, "out of memory") : 0;
    for (int r = 1; !rc && r < n; r++) {
        c.slots[r].job = malloc(sizeof *c.slots[r].job);
        if (!c.slots[r].job) rc = err_set(err, "out of memory");
        while (hosts[c.slots[r].host] != hosts[r]) c.slots[r].host++;
    }
    if (!rc) rc = store_open_existing(o->db_path, &c.st, err);
    if (!rc) {
        c.sink = job_sink_store(c.st);
        rc = store_identity(c.st, c.store_id, sizeof c.store_id, err) ||
             scheduler_recover(c.st, err);   /* as the local worker does */
    }
    if (!rc) rc = coordinate(&c, err);
    if (c.st) held_jobs(&c, 1);
    *jobs_ended = c.ended;
    store_close(c.st);
    for (int r = 1; c.slots && r < n; r++) free(c.slots[r].job);
    free(c.slots);
    free(c.frees);
    free(c.held);
    free(c.job);
    return rc;
}

/* ---- start-up ---- */

/* Rank 0 can write the store (it exists, opens, and takes the write lock)
   and its checkpoint folder; nothing is written to the store. */
static int rank0_ready(const MpiSweepOptions *o, char *err)
{
    Store *st;
    if (store_open_existing(o->db_path, &st, err)) return -1;
    int rc = store_begin(st, "check that the store can be written", err);
    if (!rc) rc = store_end(st, 0, "check that the store can be written", err);
    store_close(st);
    if (rc) return -1;
    char dir[PATH_MAX + 32], probe[PATH_MAX + 64];
    store_ckpt_dir_for(o->db_path, dir, sizeof dir);
    if (mkdir(dir, 0777) && errno != EEXIST) return err_set(err, "%s: %s", dir, strerror(errno));
    snprintf(probe, sizeof probe, "%s/.write-check-%d", dir, (int)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return err_set(err, "%s: checkpoints cannot be written there: %s", dir, strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

/* dist_agree's "rank 0: " is left out of rank 0's own reasons. */
static int agree(Dist *d, int failed, char *err)
{
    if (!dist_agree(d, failed, err)) return 0;
    if (!strncmp(err, "rank 0: ", 8)) memmove(err, err + 8, strlen(err + 8) + 1);
    return -1;
}

int mpi_sweep_check(Dist *d, const MpiSweepOptions *o, uint64_t args_hash, const char *arg_error, char *err)
{
    err[0] = 0;
    if (dist_same(d, dist_binary_hash(), "runs a different mixbench binary than rank 0", err) ||
        dist_same(d, args_hash, "was started with other options than rank 0", err))
        return -1;
    if (arg_error) snprintf(err, ERR_LEN, "%s", arg_error);
    if (agree(d, arg_error != NULL, err)) return -1;
    int failed = dist_rank(d) == 0 && rank0_ready(o, err);
    return agree(d, failed, err);
}

int mpi_sweep_run(Dist *d, const MpiSweepOptions *o, int *jobs_ended, char *err)
{
    *jobs_ended = 0;
    uint64_t *hosts = malloc(sizeof *hosts * (size_t)dist_size(d));
    if (!hosts) return err_set(err, "out of memory");
    int threads = rank_threads(d, o, hosts, err);
    int rc = threads < 0 ? -1
             : dist_rank(d) == 0 ? serve_queue(d, o, hosts, jobs_ended, err)
                                 : train_jobs(d, o, threads, jobs_ended, err);
    free(hosts);
    return rc;
}
