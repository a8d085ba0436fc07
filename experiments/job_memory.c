/*
 * job_memory.c — what a run used of its own: its peak memory, and whether
 * it ran alone (job_memory.h).
 */
#include "experiments/job_memory.h"

#include <math.h>
#include <stdatomic.h>

#include "engine/memory.h"

/* The jobs running in this process now, and begun since it started. */
static atomic_int running;
static atomic_ulong begun;

void job_memory_begin(JobMemory *w)
{
    w->begun = atomic_fetch_add(&begun, 1) + 1;
    w->alone = atomic_fetch_add(&running, 1) == 0;
    w->base = w->alone ? memory_peak_reset() : -1;
}

int job_memory_alone(const JobMemory *w)
{
    /* alone at its start, and no job begun since */
    return w->alone && atomic_load(&begun) == w->begun;
}

double job_memory_end(JobMemory *w)
{
    int alone = job_memory_alone(w);
    double peak = alone ? memory_peak_bytes() : -1;
    atomic_fetch_sub(&running, 1);
    return alone && peak > 0 && w->base > 0 ? fmax(0, peak - w->base) / 1e6 : NAN;
}
