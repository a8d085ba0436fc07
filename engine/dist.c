/*
 * dist.c — dist.h over Open MPI, loaded at run time.
 *
 * The MPI functions are looked up with dlsym in libmpi.so.40 (Open MPI 3, 4
 * and 5), opened RTLD_GLOBAL because Open MPI's own plugins resolve their
 * symbols against it.  mpi.h gives the types only: its handles
 * (MPI_COMM_WORLD, MPI_BYTE) are addresses of libmpi globals, taken here
 * with dlsym too, so the binary has no link-time reference to libmpi.
 * Every transfer is in MPI_BYTE pieces of at most 1 GiB (MPI counts are
 * int); gradient sums go as MPI_FLOAT with MPI_SUM, in place.
 *
 * How gradients are summed is the launch's MIXBENCH_ALLREDUCE (read in
 * dist_init, the same on every rank or refused): overlap (the default,
 * MPI_Iallreduce per bucket while backward runs on), mpi (a blocking
 * MPI_Allreduce per bucket after backward) or ring (our own ring over
 * MPI_Sendrecv, whose bits do not depend on Open MPI's choice of
 * algorithm: docs/scale.md).
 */
#include "engine/dist.h"

#include <assert.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "engine/common.h"
#include "engine/ops.h"
#include "engine/pool.h"

#define PIECE ((size_t)1 << 30)

typedef struct {
    int (*init_thread)(int *, char ***, int, int *);
    int (*finalize)(void);
    int (*abort)(MPI_Comm, int);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
    int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    int (*recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    int (*sendrecv)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm,
                    MPI_Status *);
    int (*iprobe)(int, int, MPI_Comm, int *, MPI_Status *);
    int (*get_count)(const MPI_Status *, MPI_Datatype, int *);
    int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
    int (*allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
    int (*allgatherv)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype, MPI_Comm);
    int (*allreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    int (*iallreduce)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *);
    int (*testall)(int, MPI_Request *, int *, MPI_Status *);
    int (*waitall)(int, MPI_Request *, MPI_Status *);
    int (*comm_dup)(MPI_Comm, MPI_Comm *);
} MpiFns;

struct Dist {
    void *lib;
    MpiFns f;
    MPI_Comm world;
    MPI_Comm sums_world;    /* world's copy for DistSums: sums in flight never
                               meet the trainer's other collectives */
    MPI_Datatype byte, flt;
    MPI_Op sum;
    DistSum sum_mode;       /* MIXBENCH_ALLREDUCE */
    int rank, size;
    int *counts, *displs;   /* [size] for allgatherv */
    double *gathered;       /* [64 * size] for dist_sum_doubles */
};

int dist_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

int dist_rank(const Dist *d) { return d ? d->rank : 0; }
int dist_size(const Dist *d) { return d ? d->size : 1; }

static int load(Dist *d, char *err)
{
    const char *names[] = {"libmpi.so.40", "libmpi.so"};
    for (size_t i = 0; i < 2 && !d->lib; i++) d->lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!d->lib)
        return err_set(err, "launched by mpirun/srun but Open MPI's libmpi.so.40 cannot be loaded (%s): "
                            "install openmpi-bin (make deps)", dlerror());
    const DlSym syms[] = {
        {"MPI_Init_thread", (void **)&d->f.init_thread}, {"MPI_Finalize", (void **)&d->f.finalize},
        {"MPI_Abort", (void **)&d->f.abort},             {"MPI_Comm_rank", (void **)&d->f.comm_rank},
        {"MPI_Comm_size", (void **)&d->f.comm_size},     {"MPI_Send", (void **)&d->f.send},
        {"MPI_Recv", (void **)&d->f.recv},               {"MPI_Sendrecv", (void **)&d->f.sendrecv},
        {"MPI_Iprobe", (void **)&d->f.iprobe},           {"MPI_Get_count", (void **)&d->f.get_count},
        {"MPI_Bcast", (void **)&d->f.bcast},             {"MPI_Allgather", (void **)&d->f.allgather},
        {"MPI_Allgatherv", (void **)&d->f.allgatherv},   {"MPI_Allreduce", (void **)&d->f.allreduce},
        {"MPI_Iallreduce", (void **)&d->f.iallreduce},   {"MPI_Testall", (void **)&d->f.testall},
        {"MPI_Waitall", (void **)&d->f.waitall},         {"MPI_Comm_dup", (void **)&d->f.comm_dup},
    };
    const char *missing = dl_bind(d->lib, syms, sizeof syms / sizeof syms[0]);
    if (missing) return err_set(err, "libmpi has no %s: not an MPI library", missing);
    d->world = (MPI_Comm)dlsym(d->lib, "ompi_mpi_comm_world");
    d->byte = (MPI_Datatype)dlsym(d->lib, "ompi_mpi_byte");
    d->flt = (MPI_Datatype)dlsym(d->lib, "ompi_mpi_float");
    d->sum = (MPI_Op)dlsym(d->lib, "ompi_mpi_op_sum");
    if (!d->world || !d->byte || !d->flt || !d->sum)
        return err_set(err, "libmpi is not Open MPI's (no ompi_mpi_comm_world)");
    return 0;
}

static const char *const SUM_NAMES[] = {"overlap", "mpi", "ring"};

/* MIXBENCH_ALLREDUCE: unset or empty is overlap. */
static int parse_sum_mode(DistSum *mode, char *err)
{
    const char *v = getenv("MIXBENCH_ALLREDUCE");
    *mode = DIST_SUM_OVERLAP;
    if (!v || !*v) return 0;
    for (int k = 0; k < 3; k++)
        if (!strcmp(v, SUM_NAMES[k])) {
            *mode = (DistSum)k;
            return 0;
        }
    return err_set(err, "MIXBENCH_ALLREDUCE=%s: expected overlap, mpi or ring", v);
}

int dist_init(Dist **out, char *err)
{
    *out = NULL;
    if (!dist_launched()) return 0;
    DistSum mode;
    if (parse_sum_mode(&mode, err)) return -1;
    Dist *d = calloc(1, sizeof *d);
    if (!d) return err_set(err, "out of memory");
    d->sum_mode = mode;
    if (load(d, err)) {
        if (d->lib) dlclose(d->lib);
        free(d);
        return -1;
    }
    /* Open MPI 4.1's non-blocking all-reduce picks a binomial tree (reduce
       to rank 0, then broadcast: 2 log2(N) x the bytes through rank 0's
       link) whenever the sum is in place; Rabenseifner's reduce-scatter +
       all-gather moves 2 (N-1)/N x, as a ring does.  A value the user set
       (mpirun --mca, the environment) stays. */
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", 0);
    int provided = 0;
    if (d->f.init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        free(d);
        return err_set(err, "MPI_Init_thread failed");
    }
    d->f.comm_rank(d->world, &d->rank);
    d->f.comm_size(d->world, &d->size);
    if (d->f.comm_dup(d->world, &d->sums_world) != MPI_SUCCESS) {
        free(d);
        return err_set(err, "MPI_Comm_dup failed");
    }
    d->counts = calloc((size_t)d->size, sizeof(int));
    d->displs = calloc((size_t)d->size, sizeof(int));
    d->gathered = calloc((size_t)d->size * 64, sizeof(double));
    if (!d->counts || !d->displs || !d->gathered) {
        dist_finalize(d);
        return err_set(err, "out of memory");
    }
    if (dist_same(d, (uint64_t)mode, "has another MIXBENCH_ALLREDUCE than rank 0", err)) {
        dist_finalize(d);
        return -1;
    }
    *out = d;
    return 0;
}

DistSum dist_sum_mode(const Dist *d) { return d ? d->sum_mode : DIST_SUM_OVERLAP; }
const char *dist_sum_name(DistSum mode) { return SUM_NAMES[mode]; }

void dist_finalize(Dist *d)
{
    if (!d) return;
    d->f.finalize();
    free(d->counts);
    free(d->displs);
    free(d->gathered);
    free(d);   /* libmpi stays loaded: its atexit handlers may still run */
}

void dist_abort(Dist *d, int code)
{
    if (d) d->f.abort(d->world, code);
    exit(code);
}

static int mpi_failed(int rc, const char *what, char *err)
{
    if (rc == MPI_SUCCESS) return 0;
    return err_set(err, "MPI: %s failed (code %d)", what, rc);
}

/* ---- collectives ---- */

size_t dist_sum_scratch(const Dist *d, size_t n)
{
    int N = dist_size(d);
    return n / (size_t)N + 1;
}

/* Chunk c of the ring: [*lo, *hi) of n floats. */
static void chunk(size_t n, int c, int N, long *lo, long *hi)
{
    pool_share((long)n, c, N, lo, hi);
}

static int exchange(Dist *d, const float *send, long send_n, float *recv, long recv_n, char *err)
{
    int next = (d->rank + 1) % d->size, prev = (d->rank + d->size - 1) % d->size;
    size_t sb = sizeof(float) * (size_t)send_n, rb = sizeof(float) * (size_t)recv_n;
    if (sb > PIECE * 2 || rb > PIECE * 2) return err_set(err, "MPI: a gradient chunk over 2 GiB");
    return mpi_failed(d->f.sendrecv(send, (int)sb, d->byte, next, 7, recv, (int)rb, d->byte, prev, 7, d->world,
                                    MPI_STATUS_IGNORE),
                      "MPI_Sendrecv", err);
}

int dist_sum_floats(Dist *d, float *x, size_t n, float *scratch, char *err)
{
    if (!d || d->size == 1) return 0;
    int N = d->size, r = d->rank;
    long slo, shi, rlo, rhi;
    /* reduce-scatter: after N-1 steps rank r holds chunk (r+1) mod N summed */
    for (int s = 0; s < N - 1; s++) {
        int send_c = ((r - s) % N + N) % N, recv_c = ((r - s - 1) % N + N) % N;
        chunk(n, send_c, N, &slo, &shi);
        chunk(n, recv_c, N, &rlo, &rhi);
        if (exchange(d, x + slo, shi - slo, scratch, rhi - rlo, err)) return -1;
        vec_acc(x + rlo, scratch, (size_t)(rhi - rlo));
    }
    /* all-gather: the summed chunks travel round the ring, copied as they are */
    for (int s = 0; s < N - 1; s++) {
        int send_c = ((r + 1 - s) % N + N) % N, recv_c = ((r - s) % N + N) % N;
        chunk(n, send_c, N, &slo, &shi);
        chunk(n, recv_c, N, &rlo, &rhi);
        if (exchange(d, x + slo, shi - slo, x + rlo, rhi - rlo, err)) return -1;
    }
    return 0;
}

/* One MPI_FLOAT count: gradient buckets are far below 2^31 floats. */
static int float_count(size_t n, char *err)
{
    if (n > (size_t)PIECE * 2 - 1) return err_set(err, "MPI: a gradient bucket of over 2^31 floats");
    return 0;
}

int dist_allreduce_floats(Dist *d, float *x, size_t n, char *err)
{
    if (!d || d->size == 1 || n == 0) return 0;
    if (float_count(n, err)) return -1;
    return mpi_failed(d->f.allreduce(MPI_IN_PLACE, x, (int)n, d->flt, d->sum, d->world), "MPI_Allreduce", err);
}

struct DistSums {
    Dist *d;
    MPI_Request *requests;   /* [cap] */
    int count, cap;
};

int dist_sums_create(DistSums **out, Dist *d, int cap, char *err)
{
    assert(d && cap > 0);
    *out = NULL;
    DistSums *s = calloc(1, sizeof *s);
    if (s) s->requests = calloc((size_t)cap, sizeof(MPI_Request));
    if (!s || !s->requests) {
        free(s);
        return err_set(err, "out of memory");
    }
    s->d = d;
    s->cap = cap;
    *out = s;
    return 0;
}

void dist_sums_free(DistSums *s)
{
    if (!s) return;
    free(s->requests);
    free(s);
}

int dist_sums_start(DistSums *s, float *x, size_t n, char *err)
{
    assert(s && s->count < s->cap);
    if (float_count(n, err)) return -1;
    Dist *d = s->d;
    return mpi_failed(d->f.iallreduce(MPI_IN_PLACE, x, (int)n, d->flt, d->sum, d->sums_world,
                                      &s->requests[s->count++]),
                      "MPI_Iallreduce", err);
}

int dist_sums_progress(DistSums *s, char *err)
{
    assert(s);
    if (s->count == 0) return 0;
    int all_done = 0;
    if (mpi_failed(s->d->f.testall(s->count, s->requests, &all_done, MPI_STATUSES_IGNORE), "MPI_Testall", err))
        return -1;
    if (all_done) s->count = 0;   /* MPI_Testall freed them */
    return 0;
}

int dist_sums_wait(DistSums *s, char *err)
{
    assert(s);
    int n = s->count;
    s->count = 0;
    if (n == 0) return 0;
    return mpi_failed(s->d->f.waitall(n, s->requests, MPI_STATUSES_IGNORE), "MPI_Waitall", err);
}

int dist_sum_doubles(Dist *d, double *x, int n, char *err)
{
    if (!d || d->size == 1) return 0;
    if (n > 64) return err_set(err, "dist_sum_doubles: %d values (at most 64)", n);
    double *all = d->gathered;   /* allocated once: a training step allocates nothing */
    if (dist_allgather(d, x, sizeof(double) * (size_t)n, all, err)) return -1;
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int k = 0; k < d->size; k++) sum += all[(size_t)k * n + i];
        x[i] = sum;
    }
    return 0;
}

int dist_bcast(Dist *d, void *buf, size_t bytes, char *err)
{
    if (!d || d->size == 1) return 0;
    for (size_t off = 0; off < bytes; off += PIECE) {
        size_t len = bytes - off < PIECE ? bytes - off : PIECE;
        if (mpi_failed(d->f.bcast((char *)buf + off, (int)len, d->byte, 0, d->world), "MPI_Bcast", err)) return -1;
    }
    return 0;
}

int dist_allgather(Dist *d, const void *mine, size_t bytes, void *all, char *err)
{
    if (!d || d->size == 1) {
        memmove(all, mine, bytes);
        return 0;
    }
    if (bytes > PIECE) return err_set(err, "MPI: an all-gather of over 1 GiB per rank");
    return mpi_failed(d->f.allgather(mine, (int)bytes, d->byte, all, (int)bytes, d->byte, d->world),
                      "MPI_Allgather", err);
}

int dist_allgatherv(Dist *d, const void *mine, size_t bytes, void *all, size_t *bytes_of, char *err)
{
    if (!d || d->size == 1) {
        memmove(all, mine, bytes);
        bytes_of[0] = bytes;
        return 0;
    }
    int64_t mine_n = (int64_t)bytes;
    int64_t lens[d->size];
    if (dist_allgather(d, &mine_n, sizeof mine_n, lens, err)) return -1;
    int64_t total = 0;
    for (int k = 0; k < d->size; k++) {
        bytes_of[k] = (size_t)lens[k];
        d->counts[k] = (int)lens[k];
        d->displs[k] = (int)total;
        total += lens[k];
    }
    if (total > (int64_t)PIECE) return err_set(err, "MPI: an all-gather of over 1 GiB");
    return mpi_failed(d->f.allgatherv(mine, (int)bytes, d->byte, all, d->counts, d->displs, d->byte, d->world),
                      "MPI_Allgatherv", err);
}

int dist_agree(Dist *d, int failed, char *err)
{
    if (!d || d->size == 1) return failed ? -1 : 0;
    int flags[d->size];
    char e[ERR_LEN];
    if (dist_allgather(d, &failed, sizeof failed, flags, e)) {
        snprintf(err, ERR_LEN, "%s", e);
        return -1;
    }
    int first = -1;
    for (int k = 0; k < d->size && first < 0; k++)
        if (flags[k]) first = k;
    if (first < 0) return 0;
    if (first == 0) {
        if (d->rank == 0 && strncmp(err, "rank 0: ", 8)) {
            snprintf(e, sizeof e, "rank 0: %.480s", err);
            snprintf(err, ERR_LEN, "%s", e);
        }
        return -1;
    }
    /* the lowest failing rank tells rank 0 why */
    if (d->rank == first) {
        char why[ERR_LEN];
        snprintf(why, sizeof why, "%s", err);
        d->f.send(why, ERR_LEN, d->byte, 0, 8, d->world);
    } else if (d->rank == 0) {
        char why[ERR_LEN];
        d->f.recv(why, ERR_LEN, d->byte, first, 8, d->world, MPI_STATUS_IGNORE);
        why[ERR_LEN - 1] = 0;
        snprintf(e, sizeof e, "rank %d: %.480s", first, why);
        snprintf(err, ERR_LEN, "%s", e);
    }
    return -1;
}

int dist_same(Dist *d, uint64_t value, const char *differs, char *err)
{
    if (!d || d->size == 1) return 0;
    uint64_t all[d->size];
    if (dist_allgather(d, &value, sizeof value, all, err)) return -1;
    for (int k = 1; k < d->size; k++)
        if (all[k] != all[0]) return err_set(err, "rank %d %s", k, differs);
    return 0;
}

/* ---- point to point ---- */

int dist_send(Dist *d, int to, int tag, const void *buf, size_t bytes, char *err)
{
    if (bytes > PIECE * 2) return err_set(err, "MPI: a message of over 2 GiB");
    return mpi_failed(d->f.send(buf, (int)bytes, d->byte, to, tag, d->world), "MPI_Send", err);
}

int dist_wait(Dist *d, int from, int tag, double timeout_s, int *src, int *tag_out, size_t *bytes)
{
    double start = now_seconds();
    long sleep_ns = 20000;   /* 20 us, doubling to 5 ms while nothing comes */
    for (;;) {
        int flag = 0;
        MPI_Status st;
        /* twice: Open MPI's MPI_Iprobe often reports a message only on the
           call after the one whose progress engine took it in */
        for (int k = 0; k < 2 && !flag; k++)
            d->f.iprobe(from < 0 ? MPI_ANY_SOURCE : from, tag < 0 ? MPI_ANY_TAG : tag, d->world, &flag, &st);
        if (flag) {
            int count = 0;
            d->f.get_count(&st, d->byte, &count);
            *src = st.MPI_SOURCE;
            *tag_out = st.MPI_TAG;
            *bytes = (size_t)count;
            return 1;
        }
        if (timeout_s >= 0 && now_seconds() - start >= timeout_s) return 0;
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 5000000) sleep_ns *= 2;
    }
}

int dist_recv(Dist *d, int from, int tag, void *buf, size_t bytes, char *err)
{
    if (bytes > PIECE * 2) return err_set(err, "MPI: a message of over 2 GiB");
    return mpi_failed(d->f.recv(buf, (int)bytes, d->byte, from, tag, d->world, MPI_STATUS_IGNORE), "MPI_Recv", err);
}

/* ---- hashes ---- */

uint64_t dist_hash_bytes(uint64_t h, const void *p, size_t n)
{
    if (h == 0) h = 0xcbf29ce484222325ULL;
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

uint64_t dist_binary_hash(void)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    uint64_t h = 0;
    char buf[1 << 16];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0) h = dist_hash_bytes(h, buf, (size_t)got);
    close(fd);
    return h;
}
