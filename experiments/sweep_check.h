/*
 * sweep_check.h — what a sweep's jobs would find when they start, checked
 * before anything is queued: each distinct dataset of the sweep is loaded
 * once with the engine's own loader (dataset_load_config) and freed, so a
 * missing path, a folder without recognisable splits, a file with too few
 * lines, ids out of range or a train split shorter than a job's window
 * refuses the sweep in one line; and each job's memory (engine/memory.h)
 * against what this process may use.  Shared by `mixbench sweep` and the
 * workbench's New sweep form.
 *
 * Not for: parsing specs (sweep.c) or queueing (sweep_queue.c).
 */
#ifndef MIXBENCH_SWEEP_CHECK_H
#define MIXBENCH_SWEEP_CHECK_H

#include "experiments/sweep.h"

typedef struct {
    double need;            /* bytes (job_memory_bytes), 0 when unknown */
    int fits;               /* need <= SweepCheck.available */
    int vocab;              /* from its data */
} SweepJobCheck;

typedef struct {
    SweepJobCheck *jobs;    /* [n_jobs] */
    int n_jobs;
    double available;       /* memory_available() when checked */
    const char *source;     /* which limit that is */
    int n_unfit;            /* jobs that need more than available */
    double largest;         /* the largest need */
} SweepCheck;

/* Loads every distinct dataset of sw once and checks each job against it;
   fills out (sweep_check_free it) and returns 0, or -1 with err naming the
   problem (and the job it concerns).  A job with threads=0 is sized for
   every core (what a job running alone gets). */
int sweep_check(const Sweep *sw, SweepCheck *out, char *err);
void sweep_check_free(SweepCheck *c);

#endif
