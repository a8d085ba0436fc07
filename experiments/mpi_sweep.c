/*
 * mpi_sweep.c — the start of an MPI sweep (mpi_sweep.h): the collective
 * checks before anything is written, then each rank to its role, rank 0
 * to the coordinator (mpi_coord.c) and the others to training
 * (mpi_rank.c); the messages between them are mpi_wire.h's.
 */
#include "experiments/mpi_sweep.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/ckpt_owner.h"
#include "db/store.h"
#include "engine/common.h"
#include "experiments/mpi_roles.h"

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
    assert(d && err);
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
    assert(d && err);
    *jobs_ended = 0;
    uint64_t *hosts = malloc(sizeof *hosts * (size_t)dist_size(d));
    if (!hosts) return err_set(err, "out of memory");
    int threads = mpi_rank_threads(d, o, hosts, err);
    int rc = threads < 0 ? -1
             : dist_rank(d) == 0 ? mpi_serve_queue(d, o, hosts, jobs_ended, err)
                                 : mpi_train_jobs(d, o, threads, jobs_ended, err);
    free(hosts);
    return rc;
}
