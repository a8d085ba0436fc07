/*
 * recover.h — the recovery of jobs whose owner is gone (defined in
 * db/owners.c).  Its own header, needing no other of db/, because every
 * opening of a writable store recovers the runs of `mixbench run`
 * (db/store.c) while the queue's files (db/jobs.h, which includes this)
 * sit above the store: so store.c includes this, not jobs.h.
 *
 * Not for: claiming or the owners' identity (db/jobs.h,
 * db/jobs_internal.h).
 */
#ifndef MIXBENCH_RECOVER_H
#define MIXBENCH_RECOVER_H

/* (db/store.h declares the same; not included, so this stays below it) */
typedef struct Store Store;

/* Marks 'running' jobs whose owner is gone as 'interrupted' and queues
   them again, the error column saying so.  An owner of this host and boot
   is gone when its pid is (kill(pid, 0) fails with ESRCH), is a zombie, or
   names a process with another start time (a reused pid); an owner on
   another host (or boot) is gone when its lease ran out: no heartbeat for
   JOB_LEASE_SECONDS.  A job claimed before the owner columns existed is
   judged by its pid alone.  A job whose request was pending ends as asked
   instead (cancel -> 'cancelled', pause -> 'paused').  A run of `mixbench
   run` (never queued: queued_at NULL) whose process is gone becomes
   'interrupted' instead, to be resumed by hand (`run --resume`), not by
   workers; one from before owners were recorded is judged by its lease.
   *n receives how many. */
int store_jobs_recover(Store *s, int *n, char *err);
/* Only the runs of `mixbench run` whose process is gone, as above: every
   opening of a writable store does this (db/store.c), so `ls`, `show`, the
   workbench and the results view read a killed run as 'interrupted'.  A
   plain read when there is nothing to do. */
int store_jobs_recover_headless(Store *s, int *n, char *err);

#endif
