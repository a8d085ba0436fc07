/*
 * jobs_internal.h — what the three files of the job queue share: the read
 * and update of one job's row (db/jobs.c), a process's identity and the
 * recovery of a job whose owner left (db/owners.c), used by claiming
 * (db/jobs.c) and by sweeps' writes (db/sweeps_write.c).
 *
 * Not for: callers outside db/, which see the queue through db/jobs.h.
 */
#ifndef MIXBENCH_JOBS_INTERNAL_H
#define MIXBENCH_JOBS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "db/jobs.h"
#include "db/store_internal.h"

/* Who a process is, beyond its pid: the host, the boot and pid namespace
   (a pid names one process only within them), and the process's start
   time.  Empty text / -1 where the system does not say (no /proc). */
typedef struct {
    char host[256];
    char boot[160];     /* "<boot_id> pid:[<namespace inode>]" */
    int64_t start;      /* clock ticks after boot, /proc/PID/stat field 22 */
} JobOwner;


#define LEASE_TEXT_(n) #n
#define LEASE_TEXT(n) LEASE_TEXT_(n)
/* The end of a lease that starts now, as SQL. */
#define LEASE_UNTIL_SQL                                                                           \
    "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+" LEASE_TEXT(JOB_LEASE_SECONDS) " seconds')"

/* Reads the status and control request of run_id; meant to run inside the
   caller's IMMEDIATE transaction.  An unknown run is an error. */
int job_read(Store *s, int64_t run_id, RunStatus *status, JobControl *control, const char *what, char *err);
/* Runs one UPDATE of run run_id: ?1 is run_id, ?2 text and ?3 number where
   the statement has them.  An unknown run is an error. */
int job_update(Store *s, const char *sql, int64_t run_id, const char *text, int64_t number, const char *what,
               char *err);
/* Copies text (length n) into dst[cap] or fails naming run_id's column. */
int job_copy_column(char *dst, size_t cap, const unsigned char *text, int n, int64_t run_id, const char *column,
                    char *err);

/* The identity of process pid of this host (db/owners.c). */
void job_owner(int64_t pid, JobOwner *o);
/* store_job_claim_run of a 'running' run (in its transaction): a run whose
   owner is gone is recovered first, and then resumable (*was becomes its
   new status); one that may still be running is refused naming its owner
   (db/owners.c). */
int job_owner_left(Store *s, int64_t run_id, RunStatus *was, char *err);

#endif
