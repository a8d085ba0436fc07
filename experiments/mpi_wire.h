/*
 * mpi_wire.h — the messages of an MPI sweep (experiments/mpi_sweep.h):
 * their tags, the JobSink operations as one table, payloads packed from
 * field tables, and checkpoint files shipped in pieces.
 *
 * The protocol.  A training rank sends ASK; rank 0 answers JOB (WireJob;
 * when the job resumes, its checkpoint's bytes follow as FILE pieces) or
 * END.  While the job runs, each JobSink op is one message to rank 0 (tag
 * TAG_OP_FIRST + op, the op's arguments packed as its table row says;
 * set_resume and ckpt_add follow theirs with the file's FILE pieces), and
 * rank 0 applies it to the store and answers REPLY (WireReply: rc, err,
 * the op's outputs and rank 0's stop flag, so a stop on rank 0 reaches
 * every job at its next op).  When the job ends the rank sends JOB_END
 * (WireJobEnd) and asks again, or LEAVE when it was stopped.  Every request
 * waits for its reply, so a rank has at most one message in flight and its
 * ops reach the store in the order the job made them.
 *
 * Payloads are packed native-endian (every rank runs the same binary,
 * checked at start): int64 and double as their 8 bytes, an int as an int64,
 * a string as its length (-1 for NULL) then its bytes and the NUL.  Each
 * record (RunInfo, MetricRow, EvalRow, RunEnd, MemoryNeed, the messages'
 * own) is packed and unpacked by one walk over its field table, and each
 * op's arguments by one walk over its format, so the two sides cannot
 * disagree.
 *
 * Not for: what the ranks do with the messages (mpi_rank.c, the training
 * ranks; mpi_coord.c, rank 0).
 */
#ifndef MIXBENCH_MPI_WIRE_H
#define MIXBENCH_MPI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "db/store.h"
#include "engine/dist.h"
#include "engine/memory.h"

enum {
    TAG_ASK = 100,      /* rank -> 0: a job, please (empty) */
    TAG_JOB,            /* 0 -> rank: WireJob */
    TAG_END,            /* 0 -> rank: nothing left; end (empty) */
    TAG_JOB_END,        /* rank -> 0: WireJobEnd; no reply */
    TAG_LEAVE,          /* rank -> 0: stopped by a signal, ends (empty); no reply */
    TAG_FILE,           /* a piece of a shipped file, either way */
    TAG_REPLY,          /* 0 -> rank: WireReply */
    TAG_OP_FIRST = 120, /* + Op: one JobSink op */
};

/* The JobSink ops (job_sink.h), and two of the job's memory admission. */
typedef enum {
    OP_UNIGRAM_GET, OP_UNIGRAM_PUT, OP_RUN_CREATE, OP_JOB_STARTED, OP_METRICS, OP_EVAL, OP_SET_RESUME,
    OP_CKPT_ADD, OP_CKPT_FORGET, OP_CONTROL, OP_HEARTBEAT, OP_SET_INFER, OP_FINISH, OP_SET_STATUS,
    OP_MEMORY_ADMIT,   /* the job's MemoryNeed and what its rank may use */
    OP_MEMORY_DONE,    /* the job's memory is allocated */
    OP_COUNT
} Op;

/* OP_MEMORY_ADMIT's answers (WireReply.value). */
enum { ADMIT_START, ADMIT_WAIT, ADMIT_STOP };

#define FILE_PIECE ((size_t)64 << 20)   /* shipped files travel in pieces of at most 64 MiB */

/* ---- packing ---- */

typedef struct {
    unsigned char *bytes;
    size_t len, cap;
    int oom;
} Pack;

typedef struct {
    const unsigned char *bytes;
    size_t len, at;
    int bad;                  /* read past the end, or a string without its NUL */
} Unpack;

/* A record's fields, for packing: kind and offset of each. */
typedef enum { FIELD_I64, FIELD_INT, FIELD_F64, FIELD_STR } FieldKind;
typedef struct {
    FieldKind kind;
    size_t at;
} Field;
typedef struct {
    const Field *fields;
    int n;
} WireRecord;

void wire_pack(Pack *p, const WireRecord *r, const void *record);
/* Strings point into the message (valid while it lives).  Sets u->bad on
   a short or malformed payload. */
void wire_unpack(Unpack *u, const WireRecord *r, void *record);

/* 0 -> rank: a job.  resume_base NULL: it starts fresh. */
typedef struct {
    int64_t run_id;
    const char *config_json;
    const char *resume_base;   /* the resume checkpoint's base name; its bytes follow */
    int64_t resume_size;
    const char *store_id, *store_name;   /* for the checkpoints' metadata */
} WireJob;

/* rank -> 0: a job ended (status RUN_QUEUED: given back, it waits for
   memory); rc non-zero: the rank could not record the end, why says why. */
typedef struct {
    int64_t run_id, status, rc;
    const char *why;
} WireJobEnd;

/* 0 -> rank: an op's answer. */
typedef struct {
    int64_t rc;
    const char *why;
    double nats;        /* unigram_get */
    int64_t value;      /* control: the JobControl; memory_admit: ADMIT_* */
    int64_t stop;       /* rank 0 was told to stop */
} WireReply;

extern const WireRecord WIRE_JOB, WIRE_JOB_END, WIRE_REPLY;

/* ---- ops ---- */

/* One op's arguments on either side.  Which fields an op uses, in order,
   is its format (OpInfo.args): 'i' the next of i[], 'f' of f[], 's' of
   s[], 'R' info, 'M' rows (a count, then the rows), 'E' eval, 'N' end,
   'W' need. */
typedef struct {
    int64_t i[3];
    double f[2];
    const char *s[2];
    RunInfo info;
    const MetricRow *rows;
    int n_rows;
    EvalRow eval;
    RunEnd end;
    MemoryNeed need;
    MetricRow *owned_rows;   /* unpacked rows (op_args_free) */
} OpArgs;

typedef struct {
    const char *name;
    const char *args;   /* the payload's format, above */
    int on_job;         /* i[0] is the run id of the rank's job: rank 0 checks the rank holds it */
    int ships;          /* a file's bytes follow as FILE pieces (its size the last 'i') */
} OpInfo;

/* NULL for a number that is no op. */
const OpInfo *op_info(int op);
void op_pack(Pack *p, Op op, const OpArgs *a);
/* -1 when the payload does not hold the op's arguments. */
int op_unpack(Unpack *u, Op op, OpArgs *a);
void op_args_free(OpArgs *a);

/* ---- messages ---- */

typedef struct {
    int src, tag;
    unsigned char *bytes;
    size_t len;
} Message;

/* Waits (sleeping: dist_wait) for a message from `from` with `tag` (-1:
   any); 1 with it in *m (free m->bytes), 0 when timeout_s passed, -1. */
int message_wait(Dist *d, int from, int tag, double timeout_s, Message *m, char *err);
/* Sends p's bytes and empties p (also on failure). */
int send_pack(Dist *d, int to, int tag, Pack *p, char *err);

/* ---- shipped files ---- */

int file_size(const char *path, int64_t *size, char *err);
const char *base_name(const char *path);
/* A name a sender may give a file in our folder: no folders, no dots. */
int base_name_ok(const char *base);
/* Sends size bytes of path to rank `to` as FILE pieces.  When the file
   cannot be read to the end, an empty piece tells the receiver so, and
   this returns -1 with why. */
int send_file(Dist *d, int to, const char *path, int64_t size, char *err);
/* Receives a file of size bytes from rank `from` into dir/base, its path
   into path: a temp file, fsync, rename, fsync of the folder, so the name
   exists only for the whole file.  dir NULL: the pieces are received and
   dropped (a refused file: the conversation stays in step).  -1 with err
   when the file could not be written or the sender could not read it. */
int receive_file(Dist *d, int from, int64_t size, const char *dir, const char *base, char *path, size_t cap,
                 char *err);

#endif
