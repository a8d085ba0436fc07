/*
 * job_print.h — what `mixbench run` and `mixbench worker` print of their
 * jobs: the JobObserver (experiments/job.h) that writes a job's start,
 * progress lines, evaluations and notes on stdout, problems on stderr, and
 * a worker's "run N done" lines.
 */
#ifndef MIXBENCH_JOB_PRINT_H
#define MIXBENCH_JOB_PRINT_H

#include "experiments/job.h"

/* Everything on stdout (problems on stderr). */
extern const JobObserver job_printer;

#endif
