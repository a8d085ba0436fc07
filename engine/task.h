/*
 * task.h — the training tasks of SPEC section 3.  A task says which stacks
 * the model has, how long a window is, how a window becomes inputs and
 * targets (prepare runs on the main thread, so seeded masks are drawn in a
 * fixed order), and how one thread's slice of the batch runs forward and
 * backward through the model.
 */
#ifndef MIXBENCH_TASK_H
#define MIXBENCH_TASK_H

#include <stdint.h>

#include "engine/config.h"
#include "engine/mixer.h"
#include "engine/model.h"
#include "engine/rng.h"

typedef struct {
    char prefix[8];
    int causal;
} StackSpec;

/* One thread's share of a batch. */
typedef struct {
    const Model *m;
    Work *w;             /* its inputs/targets hold this slice's B rows */
    int B, sample0;
    int training, want_grad;
    int score_all;       /* evaluation of a task with loss_all (mlm): also
                            score every position (SPEC section 3) */
    uint64_t step_key;
    float loss_scale;    /* 1 / target count of the whole batch */
    /* results */
    double loss_sum;
    int64_t n_targets, correct;
    double loss_all_sum; /* score_all: nats over every position */
    int64_t n_all;       /* score_all: positions scored */
} TaskCall;

typedef struct TaskOps {
    const char *name;
    const char *summary;
    /* Refuses an architecture/task pair outside SPEC section 3, saying why. */
    int (*check_arch)(const MixerOps *mixer, const Config *c, char *err);
    /* The model's stacks for this task and mixer. */
    int (*stacks)(const Config *c, const MixerOps *mixer, StackSpec *out);
    /* Tokens per window: n + 1 (next-token tasks) or n. */
    int (*window_len)(const Config *c);
    /* windows [B, window_len] -> inputs [B, n], targets [B, n] (-1 = no
       target).  scored [B, window_len] marks the tokens that count as
       targets (NULL: all do; diagnostic corpora).  training: masks from rng;
       evaluation: window_index[b] gives each window's index in its split
       for fixed masking rules. */
    void (*prepare)(const Config *c, int B, const int32_t *windows, const uint8_t *scored,
                    int32_t *inputs, int32_t *targets, int training, Rng *rng,
                    const int64_t *window_index);
    /* Forward (and backward when want_grad) of one slice. */
    void (*run)(TaskCall *t);
    /* 1: evaluation also reports loss_all, every position a target (mlm);
       run then honours TaskCall.score_all */
    int has_loss_all;
} TaskOps;

/* Head and cross-entropy over the rows [B*n, d] whose target is >= 0
   (t->loss_sum, n_targets, correct accumulate).  With t->want_grad, drows
   [B*n, d] receives every row's gradient (0 where there is no target) and
   the head's parameter gradients accumulate. */
void task_head_loss(TaskCall *t, const float *rows, const int32_t *targets, float *drows);

/* Evaluation with every position scored (no gradient): the head runs once
   on all B*n rows; the rows whose target is >= 0 give loss_sum, n_targets
   and correct as task_head_loss does, and every row scored against
   all_targets (>= 0 everywhere) gives loss_all_sum and n_all. */
void task_head_loss_all(TaskCall *t, const float *rows, const int32_t *targets, const int32_t *all_targets);

/* The shared path of single-stack tasks: embed, stack (zeroing positions
   >= zero_from before block zero_block, -1 for never), head, loss, and the
   backward pass when t->want_grad.  With t->score_all the head scores
   every row against w->targets_all (which the task filled). */
void task_single_stack_run(TaskCall *t, int zero_block, int zero_from);

const TaskOps *task_find(const char *name);
void task_names(char *buf, int cap);

#endif
