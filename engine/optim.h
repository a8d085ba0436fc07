/*
 * optim.h — AdamW exactly as PyTorch computes it (SPEC section 5), the
 * learning-rate schedule and global-norm clipping.  The optimizer is one
 * loop over the flat parameter array, split by float ranges between threads.
 */
#ifndef MIXBENCH_OPTIM_H
#define MIXBENCH_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"
#include "engine/model.h"

typedef struct {
    float *m, *v;        /* first and second moments, [n_floats] each */
    int64_t t;           /* steps taken */
} AdamW;

int adamw_init(AdamW *o, const Model *model, char *err);
void adamw_free(AdamW *o);

/* Learning rate at step s (from 0) of total_steps: linear warmup to lr over
   `warmup` steps, then constant, or linear / cosine decay reaching 0 at the
   last step.  When progress >= 0 (a wall-clock budget) it replaces
   (s - W) / (total - 1 - W) as the fraction of the decay done. */
double schedule_lr(const Config *c, int64_t s, int64_t total_steps, double progress);

/* Sum of squares of grads[begin, end) in double. */
double grad_sumsq(const float *grads, size_t begin, size_t end);

/* One AdamW update of the floats [begin, end) of the model: grads are first
   multiplied by clip_coef (1 = no clipping); t is the step count from 1. */
void adamw_update(const Model *model, AdamW *o, const float *grads, float clip_coef,
                  double lr, double weight_decay, int64_t t, size_t begin, size_t end);

#endif
