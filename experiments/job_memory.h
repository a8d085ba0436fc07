/*
 * job_memory.h — what a run used of its own (schema 11): its peak memory
 * (runs.peak_run_mb), the process's resident high-water mark from the
 * job's start (VmHWM reset, engine/memory.h memory_peak_reset) less the
 * resident set just before it, and, in experiments/job.c, its training CPU
 * seconds (runs.train_cpu_seconds: the process's CPU time over its training
 * steps), both measured only where the job had its process to itself.
 *
 * The kernel keeps one high-water mark per process, and a worker runs its
 * jobs as threads of one process (experiments/scheduler.c), so the peak of
 * a job that ran beside another is theirs together: such a job gets no
 * figure (NAN), nor does one that another job started beside while it
 * ran.  Which jobs run in this process is counted here, process-wide, as
 * the high-water mark itself is (two C11 atomics; the only state).
 * What the process keeps from job to job counts for the job that first
 * made it resident: OpenBLAS's work buffers above all, so a small job
 * after others reads low by up to a few tens of MB (attention at n = 512:
 * 58, 23 and 6 MB over the long-context study's three seeds, docs/speed.md)
 * while figures in the hundreds of MB and more are not moved.
 * runs.peak_mem_mb stays the process's ru_maxrss when the run ended, which
 * Linux reads from the same high-water mark: since the reset of a job that
 * began alone (this job's, or the last such before it), the process's own
 * resident set included.
 *
 * Not for: the memory a job will need (engine/memory.h job_memory_bytes)
 * or admission (experiments/scheduler.c).
 */
#ifndef MIXBENCH_JOB_MEMORY_H
#define MIXBENCH_JOB_MEMORY_H

typedef struct {
    double base;            /* resident bytes when the job began (alone), else -1 */
    unsigned long begun;    /* jobs begun in this process up to and with this one */
    int alone;              /* no other job ran in the process when it began */
} JobMemory;

/* The job begins (before it allocates anything): counted, and alone in
   its process the peak is reset. */
void job_memory_begin(JobMemory *w);
/* 1 while no other job has run in the process since job_memory_begin. */
int job_memory_alone(const JobMemory *w);
/* The job ends: its peak in MB (decimal, as runs.peak_mem_mb), NAN when
   another job shared the process at any time since job_memory_begin or
   /proc could not tell; uncounted. */
double job_memory_end(JobMemory *w);

#endif
