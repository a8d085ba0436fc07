/*
 * trainer.h — one training job: a model, its dataset, its own worker
 * threads, optimizer state and data position.  trainer_step takes one
 * optimizer step (data-parallel over the job's threads, gradients summed in
 * a fixed order, so the same seed and thread count give the same numbers
 * bit for bit); trainer_evaluate runs every window of a split (or, with
 * eval_tokens = N, its first max(1, N / n_ctx) windows in order).
 *
 * Not for: storing results (app/ writes them to db/) or scheduling jobs.
 */
#ifndef MIXBENCH_TRAINER_H
#define MIXBENCH_TRAINER_H

#include <stdint.h>

#include "engine/checkpoint.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/dist.h"
#include "engine/model.h"

typedef struct {
    int64_t step;            /* optimizer steps done */
    int64_t tokens;          /* input tokens seen */
    double loss;             /* this step's mean loss */
    double loss_smooth;      /* bias-corrected EMA (0.95) of the loss */
    double lr;               /* learning rate used by this step */
    double grad_norm;        /* global norm before clipping */
    double tokens_per_s;     /* this step's input tokens / its wall time */
    double train_seconds;    /* wall time spent in steps so far */
    double comm_seconds;     /* this step's gradient exchange over MPI ranks
                                (0 in one process) */
    double product_seconds;  /* this step's time inside matrix products
                                (engine/gemm.h), summed over the threads */
    double product_flops;    /* and their FLOPs */
} TrainProgress;

typedef struct {
    double loss;             /* mean nats over every target token */
    double accuracy;         /* top-1 */
    int64_t n_targets, n_windows;
    double loss_all;         /* mlm: mean nats over every position of the
                                split's windows, same masked inputs as loss
                                (SPEC section 3); NAN for other tasks */
} EvalResult;

typedef struct Trainer Trainer;

/* threads <= 0: all cores.  training = 0 builds an evaluator only (no
   gradients, no optimizer state). */
int trainer_create(Trainer **out, Model *m, const Dataset *ds, int threads, int training, char *err);
/* One data-parallel trainer of several, one per MPI rank of dist (NULL:
   trainer_create): each rank computes its contiguous share of every batch
   (threads split it further; at most its share) and gradients and losses
   are summed over ranks, so every rank takes the same step.  More ranks
   than the batch has windows is refused. */
int trainer_create_dist(Trainer **out, Model *m, const Dataset *ds, int threads, int training, Dist *dist,
                        char *err);
/* Collective: rank 0's weights, moments and training state to every rank
   (after rank 0 alone resumed from a checkpoint).  Nothing alone. */
int trainer_sync(Trainer *t, char *err);
void trainer_free(Trainer *t);

/* Planned number of steps (the seconds budget plans none: returns 0). */
int64_t trainer_total_steps(const Trainer *t);
/* 1 when the budget is used up. */
int trainer_done(const Trainer *t);
/* One optimizer step: 0, or -1 on an error (err says why), or
   TRAINER_DIVERGED for a non-finite loss or gradient, with "loss is NaN at
   step N" in err (the parameters are left as before the step). */
#define TRAINER_DIVERGED (-2)
int trainer_step(Trainer *t, TrainProgress *p, char *err);
int trainer_evaluate(Trainer *t, int split, EvalResult *r, char *err);
int trainer_threads(const Trainer *t);
/* Steps done so far. */
int64_t trainer_step_count(const Trainer *t);

/* A resumable checkpoint: everything needed to continue bit-identically
   (weights, AdamW moments and step count, the data generator, the step and
   token counters, the smoothed loss), written atomically as one safetensors
   file: the model tensors of SPEC section 7, plus optim.m.<name> and
   optim.v.<name> tensors and a "train_state" metadata entry.  Readers of
   model checkpoints ignore the extra entries. */
int trainer_save(const Trainer *t, const char *path, const Tokenizer *tok, const CkptExtra *extra,
                 int n_extra, char *err);
/* Restores a trainer (created for the same config and data) from
   trainer_save's file; the next step is the one the saved run would have
   taken next, with the same numbers.  The file must hold a train_state
   (a plain model checkpoint is refused), the same model keys (the first
   mismatch is named) and a train split of the same length; the weights and
   moments are checksummed.  Everything is checked before anything changes:
   on failure the trainer and model are as before the call, still usable. */
int trainer_resume(Trainer *t, const char *path, char *err);
/* Windows trainer_evaluate runs out of a split's n_windows: all of them
   unless eval_tokens caps them (the first max(1, eval_tokens / n_ctx)). */
int64_t trainer_eval_windows(const Config *c, int64_t n_windows);
/* Number of evaluation windows in a split for the model's task. */
int64_t task_window_count(const Model *m, const TokenStream *s);

#endif
