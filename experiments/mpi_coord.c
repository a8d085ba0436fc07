/*
 * mpi_coord.c — rank 0 of an MPI sweep, the coordinator (mpi_roles.h): the
 * only process that opens the store.  It recovers the jobs of dead
 * processes, claims queued jobs and hands each to an asking rank (with its
 * resume checkpoint's bytes), applies every op of a rank's job to the store
 * through its own JobSink (a shipped checkpoint written into the store's
 * folder before the store names it), admits a job's memory beside the
 * other jobs of its host (holding back a job that does not fit), and ends
 * the ranks when the queue is empty and no job runs.
 *
 * Not for: training (mpi_rank.c) or the messages' layout (mpi_wire.c).
 */
#include "experiments/mpi_roles.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/store.h"
#include "engine/common.h"
#include "engine/memory.h"
#include "experiments/adaptive.h"
#include "experiments/job_sink.h"
#include "experiments/mpi_wire.h"
#include "experiments/scheduler.h"

#define CLAIM_SECONDS 0.5               /* an idle rank's claim is retried this often */
#define HELD_BEAT_SECONDS 60.0          /* rank 0 renews the lease of the jobs it holds back this often */

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

/* set_resume / ckpt_add (run, step, base name, size): the file arrives
   into the checkpoint folder, and only then does the store name it. */
static int apply_ship(Coordinator *c, Op op, int rank, const OpArgs *a, char *err)
{
    int64_t run_id = a->i[0], step = a->i[1], size = a->i[2];
    const char *base = a->s[0];
    if (size < 0) return err_set(err, "a malformed checkpoint message from rank %d", rank);
    char path[PATH_MAX + NAME_MAX + 2], refused[ERR_LEN] = "";
    if (!base_name_ok(base)) err_set(refused, "rank %d names a checkpoint '%s'", rank, base ? base : "");
    else holds(c, rank, run_id, refused);
    /* the pieces are received whatever happened, to stay in step */
    if (receive_file(c->d, rank, size, refused[0] ? NULL : c->ckpt_dir, base, path, sizeof path, err)) return -1;
    if (refused[0]) return err_set(err, "%s", refused);
    return op == OP_SET_RESUME ? c->sink.ops->set_resume(c->sink.ctx, run_id, step, path, err)
                               : c->sink.ops->ckpt_add(c->sink.ctx, run_id, step, path, err);
}

/* ckpt_forget (run, base name): the checkpoint it resumed from may live
   elsewhere (a local worker wrote it). */
static int apply_forget(Coordinator *c, int rank, const OpArgs *a, char *err)
{
    const char *base = a->s[0];
    if (!base_name_ok(base)) return err_set(err, "a malformed checkpoint message from rank %d", rank);
    char path[PATH_MAX + NAME_MAX + 2];
    const char *resumed = c->slots[rank].resume_path;
    if (resumed[0] && !strcmp(base_name(resumed), base)) snprintf(path, sizeof path, "%s", resumed);
    else snprintf(path, sizeof path, "%s/%s", c->ckpt_dir, base);
    return c->sink.ops->ckpt_forget(c->sink.ctx, a->i[0], path, err);
}

/* OP_MEMORY_ADMIT (need, available, its source): the job of rank fits
   beside the jobs admitted on its host, or waits while they run, or (alone
   there) fails with the one line memory_check writes.  The rank's own view
   already counts what the other processes hold resident (cgroup,
   MemAvailable), not what they admitted and have yet to allocate;
   MIXBENCH_MEMORY_LIMIT is a cap on the sweep's jobs of a host together
   (as on a local worker's jobs), so the others' whole needs count against
   it.  ulimit -v is each process's own. */
static int admit(Coordinator *c, int rank, const OpArgs *a, WireReply *reply, char *err)
{
    double available = a->f[0];
    const char *source = a->s[0];
    if (!source) return -1;
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
    if (a->need.total <= available) {
        me->admitted = 1;
        me->need = me->pending = a->need.total;
        reply->value = ADMIT_START;
        return 0;
    }
    if (!others) return memory_check(&a->need, available, source, err);
    me->refused_frees = c->frees[me->host];
    reply->value = ADMIT_WAIT;
    return 0;
}

/* One op of a rank's job, its arguments unpacked, applied to the store;
   *reply gets its outputs. */
static int apply_op(Coordinator *c, Op op, int rank, const OpArgs *a, WireReply *reply, char *err)
{
    const JobSinkOps *ops = c->sink.ops;
    void *ctx = c->sink.ctx;
    int64_t run_id = a->i[0];
    if (op_info(op)->ships) return apply_ship(c, op, rank, a, err);
    if (op_info(op)->on_job && holds(c, rank, run_id, err)) return -1;
    switch (op) {
    case OP_UNIGRAM_GET: return ops->unigram_get(ctx, a->s[0], a->s[1], (int)a->i[0], &reply->nats, err);
    case OP_UNIGRAM_PUT: return ops->unigram_put(ctx, a->s[0], a->s[1], (int)a->i[0], a->i[1], a->f[0], err);
    case OP_RUN_CREATE: return err_set(err, "rank %d: a sweep job creates no run", rank);
    case OP_JOB_STARTED: return ops->job_started(ctx, run_id, &a->info, err);
    case OP_METRICS: return ops->metrics(ctx, run_id, a->rows, a->n_rows, err);
    case OP_EVAL: {
        int rc = ops->eval(ctx, run_id, &a->eval, err);
        /* its sweep may prune it on this evaluation (--prune median): the
           rank reads the request right after */
        char why[ERR_LEN];
        if (rc == 0 && a->eval.split && !strcmp(a->eval.split, "valid") &&
            adaptive_advance_run(c->st, run_id, NULL, why))
            note(c, why);
        return rc;
    }
    case OP_CKPT_FORGET: return apply_forget(c, rank, a, err);
    case OP_CONTROL: {
        JobControl control = JOB_CONTROL_NONE;
        int rc = ops->control(ctx, run_id, &control, err);
        reply->value = control;
        return rc;
    }
    case OP_HEARTBEAT: return ops->heartbeat(ctx, run_id, err);
    case OP_SET_INFER: return ops->set_infer(ctx, run_id, a->f[0], err);
    case OP_FINISH: return ops->finish(ctx, run_id, &a->end, err);
    case OP_SET_STATUS:
        if (a->i[1] < 0 || a->i[1] >= RUN_STATUS_COUNT) return -1;
        return ops->set_status(ctx, run_id, (RunStatus)a->i[1], err);
    case OP_MEMORY_ADMIT: return admit(c, rank, a, reply, err);
    case OP_MEMORY_DONE: c->slots[rank].pending = 0; return 0;
    default: return err_set(err, "rank %d sent unknown op %d", rank, (int)op);
    }
}

static int serve_op(Coordinator *c, const Message *m, char *err)
{
    Unpack u = {m->bytes, m->len, 0, 0};
    WireReply reply = {0, "", NAN, 0, stopping(c)};
    char why[ERR_LEN] = "";
    Op op = (Op)(m->tag - TAG_OP_FIRST);
    OpArgs a;
    int rc = op_unpack(&u, op, &a);
    if (rc == 0) rc = apply_op(c, op, m->src, &a, &reply, why);
    op_args_free(&a);
    if (rc && !why[0]) snprintf(why, sizeof why, "rank 0 could not read a message from rank %d", m->src);
    reply.rc = rc ? -1 : 0;
    reply.why = why;
    reply.stop = stopping(c);
    Pack p = {0};
    wire_pack(&p, &WIRE_REPLY, &reply);
    return send_pack(c->d, m->src, TAG_REPLY, &p, err);
}

/* A job that cannot be handed out ends here, failed. */
static void fail_job(Coordinator *c, int64_t run_id, int rank, const char *why)
{
    RunEnd end = {run_status_name(RUN_FAILED), why, 0, 0, 0, 0, 0, NAN, NAN};
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
    WireJob w = {job->run_id, job->config_json, resume ? base_name(resume) : NULL, size, c->store_id,
                 store_file_name(c->st)};
    Pack p = {0};
    wire_pack(&p, &WIRE_JOB, &w);
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
    WireJobEnd e;
    wire_unpack(&u, &WIRE_JOB_END, &e);
    int64_t run_id = e.run_id, status = e.status;
    const char *why = e.why;
    RankSlot *s = &c->slots[m->src];
    s->state = RANK_STARTING;
    if (s->admitted) c->frees[s->host]++;   /* its memory is free: held jobs may fit there */
    s->admitted = 0;
    s->need = s->pending = 0;
    if (u.bad || status < 0 || status >= RUN_STATUS_COUNT || run_id != s->run_id) {
        note(c, "a malformed job end message");
        return;
    }
    if (status == RUN_QUEUED && !e.rc) {   /* did not fit beside the others: held */
        hold(c, m->src);
        return;
    }
    char err[ERR_LEN];
    if (e.rc) {
        /* the rank could not record the end itself */
        RunEnd end = {run_status_name(RUN_FAILED), why, 0, 0, 0, 0, 0, NAN, NAN};
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

int mpi_serve_queue(Dist *d, const MpiSweepOptions *o, const uint64_t *hosts, int *jobs_ended, char *err)
{
    assert(d && err);
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
