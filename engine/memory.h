/*
 * memory.h — how much memory a training job needs, computed before anything
 * is allocated, and how much this process may still use.
 *
 * The need is counted from the same tables the allocations use: the
 * parameter table (model_plan), the per-thread work arena (work_arena_bytes),
 * the sparse-row accumulators of engine/sparse.h (slot map [K] + cap rows
 * per thread, and the merged ones), AdamW's two moments (and its live-row
 * lists for pair tables), the dataset's token streams and the trainer's
 * batch buffers.  What the process may use is the smallest of the cgroup v2
 * limit (memory.max - memory.current, this cgroup and its parents),
 * RLIMIT_AS minus the address space in use (ulimit -v), MemAvailable, and
 * MIXBENCH_MEMORY_LIMIT (bytes) minus the resident memory when it is set.
 *
 * Not for: deciding what to do about it (experiments/job.c refuses a job,
 * experiments/scheduler.c waits for room).
 */
#ifndef MIXBENCH_MEMORY_H
#define MIXBENCH_MEMORY_H

#include <stddef.h>

#include "engine/config.h"
#include "engine/data/data.h"

typedef struct {
    double params;        /* weights (and the sinusoid table) */
    double optimizer;     /* AdamW m and v, live-row lists */
    double gradients;     /* per thread: dense buffer + sparse-row accumulators; the merged rows */
    double activations;   /* per thread work arenas (+ bf16 operand copies with precision=bf16,
                             + the batch-1 inference bench at the end) */
    double data;          /* token streams of the three splits */
    double other;         /* trainer buffers, metric rows, a checkpoint read whole on resume */
    double total;
} MemoryNeed;

/* Bytes a training job of c needs (c->vocab > 0: the dataset's; 0 counts as
   10000), with `threads` threads (<= 0: one per core, as the trainer does),
   holding data_bytes of data (dataset_bytes), reading a checkpoint of
   ckpt_copies x the parameters whole at setup (0 none, 1 --init, 3 resume:
   weights and both moments).  Nothing big is allocated. */
int job_memory_bytes(const Config *c, int threads, double data_bytes, int ckpt_copies, MemoryNeed *need,
                     char *err);
/* The same for rank `rank` of a data-parallel run over `ranks` ranks
   (trainer_create_dist): its work arenas hold its share of the batch
   (pool_share), plus the gradient exchange's buffers; the parameters,
   optimizer, merged rows, batch buffers and data are whole on every rank.
   ranks 1: job_memory_bytes. */
int job_memory_bytes_rank(const Config *c, int threads, int rank, int ranks, double data_bytes, int ckpt_copies,
                          MemoryNeed *need, char *err);

/* Bytes a loaded dataset holds (its token streams, masks, an estimate of
   the tokenizer). */
double dataset_bytes(const Dataset *ds);

/* What this process may still allocate: the smallest of the limits that
   apply, *source naming it ("cgroup limit", "ulimit -v", "MemAvailable",
   "MIXBENCH_MEMORY_LIMIT");
   INFINITY with "no limit" when none can be read. */
double memory_available(const char **source);
/* The same, reading the files under root ("" for the real ones):
   root/proc/self/cgroup, root/sys/fs/cgroup/..., root/proc/meminfo and
   root/proc/self/statm (tests/engine/test_memory.c gives fake ones).  RLIMIT_AS
   and MIXBENCH_MEMORY_LIMIT are the process's own. */
double memory_available_in(const char *root, const char **source);
/* Room under this process's cgroup memory limit as root's files tell it:
   cgroup v2 (the "0::/path" line of proc/self/cgroup; memory.max less
   memory.current and the inactive page cache, the tightest of the cgroup
   and its parents), else the v1 memory controller (memory.limit_in_bytes,
   whose huge "no limit" value is no limit); -1 when no limit is set or
   the files are missing or garbled. */
double memory_cgroup_room(const char *root);

/* A "Field:  N kB" line of a /proc file (/proc/meminfo, /proc/self/status)
   in bytes, or -1. */
double memory_proc_bytes(const char *path, const char *field);

/* The process's peak resident set from now on: glibc's free lists given
   back to the system (malloc_trim), then VmHWM reset to the resident set
   (`5` written to /proc/self/clear_refs).  Returns the resident bytes now
   (VmRSS; -1 when /proc cannot tell).  Process-wide: what other threads
   allocate meanwhile counts too (experiments/job_memory.h says when a
   job's peak is its own). */
double memory_peak_reset(void);
/* The process's peak resident bytes since the last memory_peak_reset
   (VmHWM; -1 when /proc cannot tell). */
double memory_peak_bytes(void);

/* "9.8 GB", "310 MB", "12 kB" (decimal units). */
void memory_fmt(double bytes, char *buf, size_t cap);
/* "9.8 GB (parameters 3.1 GB, optimizer 6.2 GB, ...)": the total and the
   parts that are not negligible. */
void memory_need_describe(const MemoryNeed *need, char *buf, size_t cap);
/* The one-line refusal when need->total > available: "needs X (...) but Y
   is available (source)"; writes it to err and returns -1, else 0. */
int memory_check(const MemoryNeed *need, double available, const char *source, char *err);

#endif
