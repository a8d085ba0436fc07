/*
 * optim.h — AdamW exactly as PyTorch computes it (SPEC section 5), the
 * learning-rate schedule and global-norm clipping.  Dense params: one loop
 * over the flat parameter array w[0, n_dense_floats), split by float ranges
 * between threads.  sparse_rows params (pair tables, engine/sparse.h): their
 * step gradient is a RowGrad of the rows touched, and the update visits
 *
 *   table_optim = adamw   every live row: a row enters the live list the
 *                         first step it is touched and stays (its moments
 *                         keep decaying and it keeps moving, exactly as dense
 *                         AdamW moves it).  A row never touched has m = v = 0
 *                         and g = 0, which dense AdamW leaves bit for bit
 *                         unchanged (no weight decay on tables), so skipping
 *                         it gives the dense result exactly.
 *   table_optim = lazy    only the rows touched this step, with PyTorch
 *                         SparseAdam's arithmetic (m += (1-b1)(g-m),
 *                         v += (1-b2)(g^2-v), p -= lr sqrt(bc2)/bc1 *
 *                         m/(sqrt(v)+eps)), bias corrections from the global
 *                         step count.  A different optimizer, named as such.
 *
 * Either way the rows split between threads, and each row's arithmetic does
 * not depend on the split.
 */
#ifndef MIXBENCH_OPTIM_H
#define MIXBENCH_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/config.h"
#include "engine/model.h"
#include "engine/sparse.h"

typedef struct {
    int32_t *rows;       /* [K] rows with moments that may be non-zero, in order of first touch */
    uint8_t *is_live;    /* [K] */
    int64_t count;
} LiveRows;

typedef struct {
    float *m, *v;        /* first and second moments, [n_floats] each */
    int64_t t;           /* steps taken */
    int lazy;            /* table_optim = lazy */
    LiveRows *live;      /* [n_sparse] (table_optim = adamw) */
    int n_live;
} AdamW;

/* Fails for a sparse_rows param in the weight-decay group (decay would move
   untouched rows: the sparse path would not be AdamW). */
int adamw_init(AdamW *o, const Model *model, char *err);
void adamw_free(AdamW *o);

/* Learning rate at step s (from 0) of total_steps: linear warmup to lr over
   `warmup` steps, then constant, or linear / cosine decay reaching 0 at the
   last step, or wsd: lr until wsd_cooldown_start, then linearly to 0 at the
   last step.  When progress >= 0 (a wall-clock budget) it replaces
   (s - W) / (total - 1 - W) as the fraction of the decay done (wsd takes no
   such budget: config_validate refuses it). */
double schedule_lr(const Config *c, int64_t s, int64_t total_steps, double progress);
/* decay = wsd (SPEC section 5): the first step of the cool-down, S - C with
   C = max(1, floor(cooldown * S)), or the warm-up's end W when S - C < W
   (the cool-down never starts before the warm-up has ended: it is then the
   S - W steps after it).  Every step before it takes the same lr whatever
   the budget, and it never decreases as S grows, so a run's checkpoint at
   any step up to it can be continued with a larger budget. */
int64_t wsd_cooldown_start(const Config *c, int64_t total_steps);

/* Sum of squares of grads[begin, end) in double. */
double grad_sumsq(const float *grads, size_t begin, size_t end);

/* One AdamW update of the floats [begin, end) of the model (the trainer
   passes shares of [0, n_dense_floats); grads is indexed like model->w):
   grads are first multiplied by clip_coef (1 = no clipping); t is the step
   count from 1. */
void adamw_update(const Model *model, AdamW *o, const float *grads, float clip_coef,
                  double lr, double weight_decay, int64_t t, size_t begin, size_t end);

/* Sparse param s with this step's merged gradient g: adamw_sparse_begin
   (once, before the update) adds g's rows to the live list;
   adamw_sparse_rows is how many rows the update visits; adamw_sparse_update
   updates rows [begin, end) of them (threads take disjoint ranges). */
void adamw_sparse_begin(AdamW *o, int s, const RowGrad *g);
int64_t adamw_sparse_rows(const AdamW *o, int s, const RowGrad *g);
void adamw_sparse_update(const Model *model, AdamW *o, int s, const RowGrad *g, float clip_coef,
                         double lr, int64_t t, int64_t begin, int64_t end);

/* After m and v were restored from a checkpoint: rebuilds the live lists
   (table_optim = adamw) as the rows whose moments have any bit set, in row
   order.  That gives the same updates as the list of the saved run: a live
   row whose moments are all +0 gets g = 0 and is left bit for bit unchanged
   by AdamW, and each row's update does not depend on its place in the list. */
void adamw_restore_live(AdamW *o, const Model *model);

#endif
