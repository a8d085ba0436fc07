/*
 * status.h — a run's status and a failed run's class as enums, with the
 * one table of their names (the text of runs.status in the store, and what
 * every screen and command prints).
 */
#ifndef MIXBENCH_STATUS_H
#define MIXBENCH_STATUS_H

typedef enum {
    RUN_QUEUED,       /* waiting for a worker */
    RUN_RUNNING,      /* a worker trains it now */
    RUN_PAUSED,       /* stopped by the user after a checkpoint; resumable */
    RUN_INTERRUPTED,  /* stopped by a quit or a dead worker; back in the queue on recovery */
    RUN_DONE,         /* finished its budget (or stopped early: stop_accuracy, patience) */
    RUN_FAILED,       /* an error ended it (runs.error says which) */
    RUN_DIVERGED,     /* the loss or a gradient became NaN / infinite */
    RUN_CANCELLED,    /* ended by the user */
    RUN_PRUNED,       /* stopped by its sweep's pruner (experiments/prune.h): kept and
                         shown, but in no point, claim or verdict; runs.error says why */
    RUN_STATUS_COUNT
} RunStatus;

/* "queued", "running", ...: the store's text for s. */
const char *run_status_name(RunStatus s);
/* The status named by text; RUN_STATUS_COUNT when text names none (or is NULL). */
RunStatus run_status_parse(const char *text);
/* done, failed, diverged, cancelled, pruned: nothing more will happen to the
   run (unless someone extends it). */
int run_status_final(RunStatus s);
/* failed or diverged: the run ended with an error. */
int run_status_error(RunStatus s);

/* Why a job could not go on: the run's final status follows from it. */
typedef enum {
    FAIL_NONE,        /* no failure */
    FAIL_ERROR,       /* bad input, a full disk, a store error: status failed */
    FAIL_DIVERGED,    /* a non-finite loss or gradient: status diverged */
} FailClass;

/* RUN_FAILED, RUN_DIVERGED, or RUN_DONE for FAIL_NONE. */
RunStatus run_status_of_failure(FailClass f);

#endif
