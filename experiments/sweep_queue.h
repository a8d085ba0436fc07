/*
 * sweep_queue.h — queues a parsed sweep in the store: the sweep row, the
 * preset's paper figures, and one queued job per point.  Shared by
 * `mixbench sweep` and the workbench's New sweep form and demo.
 */
#ifndef MIXBENCH_SWEEP_QUEUE_H
#define MIXBENCH_SWEEP_QUEUE_H

#include <stdint.h>

#include "db/store.h"
#include "experiments/sweep.h"

/* One transaction: the sweep is queued whole, or nothing is (err says why).
   A sweep with a plan (lr=tune, --until-conclusive) records it; with
   lr=tune no job is queued here: adaptive_advance (experiments/adaptive.h)
   queues each point's search, then its seeds; with --prune asha each job
   is queued at its first rung's budget (experiments/prune.h).  A study
   file's sweep stores the file's text; one whose name an earlier sweep of
   the store was queued from with other text is refused (its name is how
   its sweeps find their claims: docs/studies.md). */
int sweep_enqueue(Store *st, const Sweep *sw, int priority, int64_t *sweep_id, char *err);

/* The demo a first launch offers: a few architectures on builtin:stories,
   small enough that curves appear within a minute. */
#define DEMO_SWEEP_SPEC                                                                          \
    "arch=attention,mixer,dispatcher,cumsum data=builtin:stories d=64 layers=2 heads=4 n_ctx=32 " \
    "batch=16 steps=1500 eval_every=250 ckpt_every=250 lr=0.002 warmup=50"

#endif
