/*
 * mpi_wire.c — the messages of an MPI sweep (mpi_wire.h): packing, the
 * records' field tables, the op table and its marshaller, waiting for and
 * sending messages, and shipping files in pieces.
 */
#include "experiments/mpi_wire.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/common.h"

/* ---- packing ---- */

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

/* A string inside the message (valid while it lives), or NULL: exactly
   its length of bytes without a NUL, then the NUL. */
static const char *unpack_str(Unpack *u)
{
    int64_t n = unpack_i64(u);
    if (u->bad || n == -1) return NULL;
    if (n < 0 || (uint64_t)n >= u->len - u->at || u->bytes[u->at + (size_t)n] != 0 ||
        memchr(u->bytes + u->at, 0, (size_t)n)) {
        u->bad = 1;
        return NULL;
    }
    const char *s = (const char *)u->bytes + u->at;
    u->at += (size_t)n + 1;
    return s;
}

/* ---- records ---- */

#define F(kind, type, member) {FIELD_##kind, offsetof(type, member)}
#define RECORD(fields) {fields, (int)(sizeof fields / sizeof fields[0])}

static const Field RUN_INFO_FIELDS[] = {
    F(STR, RunInfo, name),     F(STR, RunInfo, arch),        F(STR, RunInfo, task),
    F(STR, RunInfo, data),     F(STR, RunInfo, tokenizer),   F(STR, RunInfo, config_json),
    F(I64, RunInfo, n_params), F(I64, RunInfo, n_params_nonembedding), F(I64, RunInfo, total_steps),
    F(I64, RunInfo, seed),     F(INT, RunInfo, threads),     F(INT, RunInfo, d),
    F(INT, RunInfo, layers),   F(INT, RunInfo, heads),       F(INT, RunInfo, n_ctx),
    F(INT, RunInfo, vocab),    F(I64, RunInfo, resumed_step),
};
static const Field METRIC_FIELDS[] = {
    F(I64, MetricRow, step), F(I64, MetricRow, tokens),    F(F64, MetricRow, wall),
    F(F64, MetricRow, train_loss), F(F64, MetricRow, train_loss_smooth), F(F64, MetricRow, lr),
    F(F64, MetricRow, grad_norm), F(F64, MetricRow, tokens_per_s),
};
static const Field EVAL_FIELDS[] = {
    F(I64, EvalRow, step), F(STR, EvalRow, split), F(F64, EvalRow, loss), F(F64, EvalRow, accuracy),
    F(F64, EvalRow, bits_per_byte), F(I64, EvalRow, n_tokens), F(F64, EvalRow, loss_all),
};
static const Field RUN_END_FIELDS[] = {
    F(STR, RunEnd, status), F(STR, RunEnd, error), F(I64, RunEnd, steps_done), F(I64, RunEnd, tokens_seen),
    F(F64, RunEnd, wall_seconds), F(F64, RunEnd, tokens_per_s), F(F64, RunEnd, peak_mem_mb),
    F(F64, RunEnd, peak_run_mb), F(F64, RunEnd, train_cpu_seconds),
};
static const Field NEED_FIELDS[] = {
    F(F64, MemoryNeed, params), F(F64, MemoryNeed, optimizer), F(F64, MemoryNeed, gradients),
    F(F64, MemoryNeed, activations), F(F64, MemoryNeed, data), F(F64, MemoryNeed, other),
    F(F64, MemoryNeed, total),
};
static const Field JOB_FIELDS[] = {
    F(I64, WireJob, run_id), F(STR, WireJob, config_json), F(STR, WireJob, resume_base),
    F(I64, WireJob, resume_size), F(STR, WireJob, store_id), F(STR, WireJob, store_name),
};
static const Field JOB_END_FIELDS[] = {
    F(I64, WireJobEnd, run_id), F(I64, WireJobEnd, status), F(I64, WireJobEnd, rc), F(STR, WireJobEnd, why),
};
static const Field REPLY_FIELDS[] = {
    F(I64, WireReply, rc), F(STR, WireReply, why), F(F64, WireReply, nats), F(I64, WireReply, value),
    F(I64, WireReply, stop),
};

static const WireRecord RUN_INFO = RECORD(RUN_INFO_FIELDS), METRIC = RECORD(METRIC_FIELDS),
                        EVAL = RECORD(EVAL_FIELDS), RUN_END = RECORD(RUN_END_FIELDS), NEED = RECORD(NEED_FIELDS);
const WireRecord WIRE_JOB = RECORD(JOB_FIELDS), WIRE_JOB_END = RECORD(JOB_END_FIELDS),
                 WIRE_REPLY = RECORD(REPLY_FIELDS);

void wire_pack(Pack *p, const WireRecord *r, const void *record)
{
    const char *base = record;
    for (int k = 0; k < r->n; k++) {
        const void *at = base + r->fields[k].at;
        switch (r->fields[k].kind) {
        case FIELD_I64: pack_i64(p, *(const int64_t *)at); break;
        case FIELD_INT: pack_i64(p, *(const int *)at); break;
        case FIELD_F64: pack_f64(p, *(const double *)at); break;
        case FIELD_STR: pack_str(p, *(const char *const *)at); break;
        }
    }
}

void wire_unpack(Unpack *u, const WireRecord *r, void *record)
{
    char *base = record;
    for (int k = 0; k < r->n; k++) {
        void *at = base + r->fields[k].at;
        switch (r->fields[k].kind) {
        case FIELD_I64: *(int64_t *)at = unpack_i64(u); break;
        case FIELD_INT: {
            int64_t v = unpack_i64(u);
            if (v < INT_MIN || v > INT_MAX) u->bad = 1;
            *(int *)at = u->bad ? 0 : (int)v;
            break;
        }
        case FIELD_F64: *(double *)at = unpack_f64(u); break;
        case FIELD_STR: *(const char **)at = unpack_str(u); break;
        }
    }
}

/* ---- ops ---- */

static const OpInfo OPS[OP_COUNT] = {
    /*                 name            args   on_job ships */
    [OP_UNIGRAM_GET] = {"unigram_get", "ssi", 0, 0},     /* data, tokenizer, vocab -> nats */
    [OP_UNIGRAM_PUT] = {"unigram_put", "ssiif", 0, 0},   /* data, tokenizer, vocab, tokens, nats */
    [OP_RUN_CREATE] = {"run_create", "R", 0, 0},         /* refused: a sweep job creates no run */
    [OP_JOB_STARTED] = {"job_started", "iR", 1, 0},
    [OP_METRICS] = {"metrics", "iM", 1, 0},
    [OP_EVAL] = {"eval", "iE", 1, 0},
    [OP_SET_RESUME] = {"set_resume", "iisi", 1, 1},      /* run, step, base name, size */
    [OP_CKPT_ADD] = {"ckpt_add", "iisi", 1, 1},
    [OP_CKPT_FORGET] = {"ckpt_forget", "is", 1, 0},      /* run, base name */
    [OP_CONTROL] = {"control", "i", 1, 0},               /* -> the JobControl */
    [OP_HEARTBEAT] = {"heartbeat", "i", 1, 0},
    [OP_SET_INFER] = {"set_infer", "if", 1, 0},
    [OP_FINISH] = {"finish", "iN", 1, 0},
    [OP_SET_STATUS] = {"set_status", "ii", 1, 0},
    [OP_MEMORY_ADMIT] = {"memory_admit", "Wfs", 0, 0},   /* need, available, its source -> ADMIT_* */
    [OP_MEMORY_DONE] = {"memory_done", "", 0, 0},
};

const OpInfo *op_info(int op)
{
    return op >= 0 && op < OP_COUNT ? &OPS[op] : NULL;
}

void op_pack(Pack *p, Op op, const OpArgs *a)
{
    assert(op_info(op));
    int ni = 0, nf = 0, ns = 0;
    for (const char *c = OPS[op].args; *c; c++) {
        switch (*c) {
        case 'i': pack_i64(p, a->i[ni++]); break;
        case 'f': pack_f64(p, a->f[nf++]); break;
        case 's': pack_str(p, a->s[ns++]); break;
        case 'R': wire_pack(p, &RUN_INFO, &a->info); break;
        case 'M':
            pack_i64(p, a->n_rows);
            for (int r = 0; r < a->n_rows; r++) wire_pack(p, &METRIC, &a->rows[r]);
            break;
        case 'E': wire_pack(p, &EVAL, &a->eval); break;
        case 'N': wire_pack(p, &RUN_END, &a->end); break;
        case 'W': wire_pack(p, &NEED, &a->need); break;
        default: assert(!"an op format letter"); break;
        }
    }
}

int op_unpack(Unpack *u, Op op, OpArgs *a)
{
    memset(a, 0, sizeof *a);
    if (!op_info(op)) return -1;
    int ni = 0, nf = 0, ns = 0;
    for (const char *c = OPS[op].args; *c && !u->bad; c++) {
        switch (*c) {
        case 'i': a->i[ni++] = unpack_i64(u); break;
        case 'f': a->f[nf++] = unpack_f64(u); break;
        case 's': a->s[ns++] = unpack_str(u); break;
        case 'R': wire_unpack(u, &RUN_INFO, &a->info); break;
        case 'M': {
            /* every row is at least its 8 numbers: a count beyond what
               the payload holds is refused before anything is allocated */
            int64_t n = unpack_i64(u);
            if (u->bad || n < 0 || n > (int64_t)((u->len - u->at) / (8 * sizeof(double)))) {
                u->bad = 1;
                break;
            }
            a->owned_rows = malloc(sizeof *a->owned_rows * (size_t)(n ? n : 1));
            if (!a->owned_rows) {
                u->bad = 1;
                break;
            }
            for (int64_t r = 0; r < n; r++) wire_unpack(u, &METRIC, &a->owned_rows[r]);
            a->rows = a->owned_rows;
            a->n_rows = (int)n;
            break;
        }
        case 'E': wire_unpack(u, &EVAL, &a->eval); break;
        case 'N': wire_unpack(u, &RUN_END, &a->end); break;
        case 'W': wire_unpack(u, &NEED, &a->need); break;
        default: u->bad = 1; break;
        }
    }
    if (u->bad) op_args_free(a);
    return u->bad ? -1 : 0;
}

void op_args_free(OpArgs *a)
{
    free(a->owned_rows);
    a->owned_rows = NULL;
    a->rows = NULL;
    a->n_rows = 0;
}

/* ---- messages ---- */

int message_wait(Dist *d, int from, int tag, double timeout_s, Message *m, char *err)
{
    assert(d && err);
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

int send_pack(Dist *d, int to, int tag, Pack *p, char *err)
{
    assert(d && err);
    int rc = p->oom ? err_set(err, "out of memory") : dist_send(d, to, tag, p->bytes, p->len, err);
    free(p->bytes);
    *p = (Pack){0};
    return rc;
}

/* ---- shipped files ---- */

int file_size(const char *path, int64_t *size, char *err)
{
    assert(err);
    struct stat st;
    if (stat(path, &st)) return err_set(err, "%s: %s", path, strerror(errno));
    *size = (int64_t)st.st_size;
    return 0;
}

const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int base_name_ok(const char *base)
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

int send_file(Dist *d, int to, const char *path, int64_t size, char *err)
{
    assert(d && err);
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

int receive_file(Dist *d, int from, int64_t size, const char *dir, const char *base, char *path,
                        size_t cap, char *err)
{
    assert(d && err);
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
