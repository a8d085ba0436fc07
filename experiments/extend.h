/*
 * extend.h — continuing a run to a larger budget (`mixbench extend RUN
 * tokens=N`, the Runs screen's `e`, and the rounds of --until-conclusive).
 *
 * Only decay=wsd runs can be extended: their learning rate, data order,
 * dropout and masks up to the cool-down do not depend on the budget (SPEC
 * section 5), and their job keeps the resumable checkpoint at the step the
 * cool-down starts (experiments/job.c).  The run continues from its latest
 * checkpoint at or before that step (checked to be its own), so it ends bit
 * for bit where a run trained with the larger budget from the start ends;
 * what it recorded after that step (metrics, evaluations, the later
 * checkpoints) is removed, since the continued run writes those steps anew.
 * The run is queued: a worker, the workbench or `mixbench run --resume RUN`
 * trains it.
 *
 * Not for: training (experiments/job.c).
 */
#ifndef MIXBENCH_EXTEND_H
#define MIXBENCH_EXTEND_H

#include <stdint.h>

#include "db/store.h"

typedef struct {
    int64_t old_steps, new_steps;  /* the budget before and after, in steps */
    int64_t from_step;             /* where it continues (0: from the start) */
    char ckpt[1024];               /* the checkpoint it continues from ("" none) */
} Extension;

/* Extends run_id to the budget `key=value` (key "tokens" or "steps"; a value
   that is not more steps than the run's is refused).  Nothing is changed
   when it fails; err says why in one line. */
int run_extend(Store *s, int64_t run_id, const char *budget, Extension *out, char *err);

#endif
