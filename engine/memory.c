/*
 * memory.c — the memory a job needs and the memory the process may use
 * (memory.h).  The need mirrors what trainer_create_dist, adamw_init,
 * work_alloc and rowgrad_init allocate, term by term, from the parameter
 * table (model_plan) and the arena layout (work_arena_bytes), so it follows
 * those files when they change; nothing of the model's size is allocated.
 */
#include "engine/memory.h"

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/common.h"
#include "engine/gemm.h"
#include "engine/infer.h"
#include "engine/model.h"
#include "engine/pool.h"
#include "engine/sparse.h"
#include "engine/task.h"

/* Rows of job.c's metric buffer (METRIC_BUFFER) x a MetricRow's bytes. */
#define METRIC_BUFFER_BYTES (4096.0 * 64.0)

static double round64(double bytes) { return ceil(bytes / 64.0) * 64.0; }

/* One RowGrad of param p holding cap rows (rowgrad_init). */
static double rowgrad_bytes(const Param *p, int64_t cap)
{
    double width = (double)(p->numel / (size_t)p->shape[0]);
    return 4.0 * (double)p->shape[0] + 4.0 * (double)(cap ? cap : 1) + round64(4.0 * (double)(cap + 1) * width);
}

int job_memory_bytes(const Config *c, int threads, double data_bytes, int ckpt_copies, MemoryNeed *need,
                     char *err)
{
    return job_memory_bytes_rank(c, threads, 0, 1, data_bytes, ckpt_copies, need, err);
}

/* precision=bf16: a thread's bf16 copies of the largest product's operands
   (engine/gemm.c grows them to the largest it meets; here an upper bound:
   every row through the head, the widest hidden layer) and oneDNN's
   scratchpad (a few MB at most at these sizes). */
static double bf16_operand_bytes(const Config *c, int per_thread)
{
    double rows = (double)per_thread * c->n_ctx, dff = (double)c->ffn_mult * c->d;
    double wide = c->vocab;
    if (dff > wide) wide = dff;
    if ((double)c->heads * c->d > wide) wide = (double)c->heads * c->d;
    double b = (double)c->vocab * c->d;
    if (rows * wide > b) b = rows * wide;
    return 2.0 * (rows * wide + b) + 4e6;
}

int job_memory_bytes_rank(const Config *c, int threads, int rank, int ranks, double data_bytes, int ckpt_copies,
                          MemoryNeed *need, char *err)
{
    memset(need, 0, sizeof *need);
    Config sized = *c;
    if (sized.vocab <= 0) sized.vocab = 10000;
    Model m;
    if (model_plan(&m, &sized, err)) return -1;
    int B = sized.batch > 0 ? sized.batch : 1;
    if (ranks < 1 || ranks > B) ranks = 1;   /* trainer_create_dist refuses more ranks than windows */
    if (rank < 0 || rank >= ranks) rank = 0;
    long rb0, rb1;
    pool_share(B, rank, ranks, &rb0, &rb1);
    int B_rank = (int)(rb1 - rb0);   /* this rank's share of every batch */
    if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    if (threads > B_rank) threads = B_rank;
    int per_thread = (B_rank + threads - 1) / threads;
    double floats = (double)m.n_floats;

    need->params = 4.0 * floats;
    if (m.pos == POS_SINUSOIDAL) need->params += 4.0 * sized.n_ctx * sized.d;
    need->optimizer = 2.0 * 4.0 * floats;
    double grads_arena = (double)work_arena_bytes(&m, per_thread, 1);
    double acts_arena = (double)work_arena_bytes(&m, per_thread, 0);
    /* + infer_bench at the end of a run: its window and the packed copies */
    need->activations = threads * acts_arena + (double)work_arena_bytes(&m, 1, 0) + infer_bytes(&m, sized.n_ctx);
    need->gradients = threads * (grads_arena - acts_arena);
    /* auto may still become bf16: counted as bf16 (at most tens of MB over) */
    if (sized.precision != PRECISION_F32) need->activations += threads * bf16_operand_bytes(&sized, per_thread);
    double exchange = 0;   /* alloc_dist's sparse-row exchange, one rank's rows */
    for (int i = 0; i < m.n_params; i++) {
        const Param *p = &m.params[i];
        if (!p->sparse_rows) continue;
        need->gradients += threads * rowgrad_bytes(p, sparse_row_cap(p, per_thread));
        need->gradients += rowgrad_bytes(p, sparse_row_cap(p, B));   /* the merged rows */
        if (sized.table_optim != TABLE_LAZY) need->optimizer += 5.0 * (double)p->shape[0];   /* live rows */
        double width = (double)(p->numel / (size_t)p->shape[0]);
        exchange += 8.0 + (double)sparse_row_cap(p, B) * (4.0 + 4.0 * width);
    }
    /* over ranks: Open MPI's temporary copy of each gradient bucket in
       flight (with overlap every one can be: the dense gradient once; the
       ring needs 1/ranks of it) and the sparse rows sent and received */
    if (ranks > 1) need->gradients += 4.0 * (double)m.n_dense_floats + exchange * (1 + ranks);
    need->data = data_bytes;
    int wl = m.task->window_len(&sized);
    need->other = (double)B * wl * 5.0 + 8.0 * B * sized.n_ctx + 8.0 * B + METRIC_BUFFER_BYTES +
                  ckpt_copies * 4.0 * floats;
    need->total = need->params + need->optimizer + need->gradients + need->activations + need->data + need->other;
    model_free(&m);
    return 0;
}

double dataset_bytes(const Dataset *ds)
{
    double bytes = 0;
    for (int s = 0; s < SPLIT_COUNT; s++) {
        bytes += 4.0 * (double)ds->split[s].len;
        if (ds->split[s].scored) bytes += (double)ds->split[s].len;
    }
    return bytes + 48.0 * ds->vocab;   /* the tokenizer's strings and maps, roughly */
}

/* ---- what the process may use ---- */

/* The number at the start of text when it is a finite count (>= 0), or -1:
   "max", "", garbage, "-5", "nan" and "inf" are not. */
static double parse_count(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return end != text && isfinite(v) && v >= 0 ? v : -1;
}

/* The count at the start of a file, or -1 (also for "max" and a missing file). */
static double read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char text[64] = "";
    int ok = fgets(text, sizeof text, f) != NULL;
    fclose(f);
    return ok ? parse_count(text) : -1;
}

double memory_proc_bytes(const char *path, const char *field)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    double v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') {
            v = parse_count(line + n + 1);
            if (v > 0) v *= 1024.0;
            break;
        }
    fclose(f);
    return v;
}

double memory_peak_reset(void)
{
    malloc_trim(0);
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
    return memory_proc_bytes("/proc/self/status", "VmRSS");
}

double memory_peak_bytes(void) { return memory_proc_bytes("/proc/self/status", "VmHWM"); }

/* A field of root/proc/meminfo in bytes, or -1. */
static double meminfo(const char *root, const char *field)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/proc/meminfo", root);
    return memory_proc_bytes(path, field);
}

/* A field of a cgroup's memory.stat ("inactive_file ..."), or 0 (also
   when it is missing or garbled). */
static double stat_field(const char *path, const char *field)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    double v = 0;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ' ') {
            v = MB_MAX(0.0, parse_count(line + n + 1));
            break;
        }
    fclose(f);
    return v;
}

/* Room under a cgroup's limit, the tightest over dir and its parents up to
   root; -1 when no limit is set.  The usage counts the page cache; its
   inactive part is given back under pressure, so it counts as room (the
   working set, as container runtimes reckon it). */
static double cgroup_room(const char *root, const char *rel, const char *max_file, const char *cur_file,
                          const char *inactive_field)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", rel);
    double best = -1;
    for (;;) {
        char path[1400];
        snprintf(path, sizeof path, "%s%s/%s", root, dir, max_file);
        double max = read_number(path);
        snprintf(path, sizeof path, "%s%s/%s", root, dir, cur_file);
        double cur = read_number(path);
        snprintf(path, sizeof path, "%s%s/memory.stat", root, dir);
        if (cur > 0) cur -= MB_MIN(cur, stat_field(path, inactive_field));
        /* cgroup v1 writes "no limit" as a huge number */
        if (max >= 0 && max < 1e18 && cur >= 0) {
            double room = max > cur ? max - cur : 0;
            if (best < 0 || room < best) best = room;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || dir[0] == 0) break;
        *slash = 0;
    }
    return best;
}

/* This process's cgroup path for controller ("" = v2 unified) from
   root/proc/self/cgroup, or "" (the root cgroup, also when the file is
   missing or has no such line). */
static void cgroup_path(const char *root, const char *controller, char *out, size_t cap)
{
    out[0] = 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/proc/self/cgroup", root);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1200];
    while (fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b) continue;
        *b = 0;
        int match = controller[0] ? strstr(a + 1, controller) != NULL : (a[1] == 0 && !strncmp(line, "0", 1));
        if (!match) continue;
        b[1 + strcspn(b + 1, "\n")] = 0;
        snprintf(out, cap, "%s", strcmp(b + 1, "/") ? b + 1 : "");
        break;
    }
    fclose(f);
}

double memory_cgroup_room(const char *root)
{
    char rel[1024], dir[1100];
    /* cgroup v2, then the v1 memory controller */
    cgroup_path(root, "", rel, sizeof rel);
    snprintf(dir, sizeof dir, "%s/sys/fs/cgroup", root);
    double room = cgroup_room(dir, rel, "memory.max", "memory.current", "inactive_file");
    if (room >= 0) return room;
    cgroup_path(root, "memory", rel, sizeof rel);
    snprintf(dir, sizeof dir, "%s/sys/fs/cgroup/memory", root);
    return cgroup_room(dir, rel, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file");
}

/* Pages of root/proc/self/statm's field (0: the address space, 1: resident) in bytes, or 0. */
static double statm_bytes(const char *root, int field)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/proc/self/statm", root);
    FILE *f = fopen(path, "r");
    unsigned long pages[2] = {0, 0};
    int n = f ? fscanf(f, "%lu %lu", &pages[0], &pages[1]) : 0;
    if (f) fclose(f);
    return n > field ? (double)pages[field] * (double)sysconf(_SC_PAGESIZE) : 0;
}

double memory_available(const char **source) { return memory_available_in("", source); }

double memory_available_in(const char *root, const char **source)
{
    double best = INFINITY;
    const char *why = "no limit";
    double room = memory_cgroup_room(root);
    if (room >= 0 && room < best) {
        best = room;
        why = "cgroup limit";
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        double used = statm_bytes(root, 0);
        double left = (double)rl.rlim_cur > used ? (double)rl.rlim_cur - used : 0;
        if (left < best) {
            best = left;
            why = "ulimit -v";
        }
    }
    /* a cap the user sets below the machine's (and the tests' way to make
       a small limit): resident memory counts against it */
    const char *cap_text = getenv("MIXBENCH_MEMORY_LIMIT");
    double cap = cap_text ? strtod(cap_text, NULL) : 0;
    if (cap > 0) {
        double resident = statm_bytes(root, 1);
        double left = cap > resident ? cap - resident : 0;
        if (left < best) {
            best = left;
            why = "MIXBENCH_MEMORY_LIMIT";
        }
    }
    double avail = meminfo(root, "MemAvailable");
    if (avail >= 0 && avail < best) {
        best = avail;
        why = "MemAvailable";
    }
    if (source) *source = why;
    return best;
}

/* ---- words ---- */

void memory_fmt(double bytes, char *buf, size_t cap)
{
    if (!isfinite(bytes)) snprintf(buf, cap, "unlimited");
    else if (bytes >= 1e9) snprintf(buf, cap, "%.1f GB", bytes / 1e9);
    else if (bytes >= 1e6) snprintf(buf, cap, "%.0f MB", bytes / 1e6);
    else snprintf(buf, cap, "%.0f kB", bytes / 1e3);
}

void memory_need_describe(const MemoryNeed *need, char *buf, size_t cap)
{
    const char *names[] = {"parameters", "optimizer", "gradients", "activations", "data", "other"};
    double parts[] = {need->params, need->optimizer, need->gradients, need->activations, need->data, need->other};
    char total[32];
    memory_fmt(need->total, total, sizeof total);
    size_t len = (size_t)snprintf(buf, cap, "%s", total);
    int shown = 0;
    for (int i = 0; i < 6 && len < cap; i++) {
        if (parts[i] < 0.005 * need->total) continue;   /* under half a percent */
        char v[32];
        memory_fmt(parts[i], v, sizeof v);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s %s", shown++ ? ", " : " (", names[i], v);
    }
    if (shown && len < cap) snprintf(buf + len, cap - len, ")");
}

int memory_check(const MemoryNeed *need, double available, const char *source, char *err)
{
    if (!(need->total > available)) return 0;
    char what[256], there[32];
    memory_need_describe(need, what, sizeof what);
    memory_fmt(available, there, sizeof there);
    return err_set(err, "needs %s but %s is available (%s)", what, there, source);
}
