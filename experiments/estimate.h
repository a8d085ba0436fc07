/*
 * estimate.h — how long a sweep will take on this machine, before anything
 * is queued (`mixbench sweep --dry-run`, the queue output, @paper
 * variants): each job's FLOPs (the bench's FLOP rule, README "Bench FLOP
 * rule", counted from the config without building the model) for its
 * training tokens and for evaluating valid and test (forward only: a third
 * of a training token), over a per-thread rate, with `parallel` jobs at a
 * time.
 *
 * Not for: measuring anything (bench) or scheduling (experiments/scheduler.c).
 */
#ifndef MIXBENCH_ESTIMATE_H
#define MIXBENCH_ESTIMATE_H

#include "engine/config.h"
#include "experiments/sweep.h"

/* The per-thread rate when MIXBENCH_GFLOPS is not set: one-thread runs on
   the development machine, shared with other work, reached 37-52 GFLOP/s
   by this rule at n=64 (attention clm d=256 L=2 on PTB: 2071 tokens/s at
   25.2 MFLOP a token; d=128 L=4 autoencode on TinyStories: 1706 tokens/s
   at 22 MFLOP) and less at n=512 (attention 13, mixer 23). */
#define ESTIMATE_DEFAULT_GFLOPS 40.0

/* Training FLOPs per token of a config (vocab 0 counts as 10000: the
   dataset fixes it later). */
double estimate_train_flops_per_token(const Config *c);
/* Tokens of the valid and test splits of c's data, from file sizes (word
   ~5.3 bytes a token, bpe ~3.5, char 1); 0 for built-in corpora;
   each split capped at eval_tokens when that is set. */
double estimate_eval_tokens(const Config *c);

/* eval_every=auto: about EVAL_AUTO_COUNT valid evaluations a run (so a
   sweep shows a validation curve while it trains), fewer when they would
   cost more than EVAL_AUTO_SHARE of its training (an evaluation token
   costs a third of a training token): with S steps of `tokens_per_step`
   training tokens and `eval_tokens` tokens an evaluation, every
   S / min(20, 0.3 S tokens_per_step / eval_tokens) steps; 0 (only the
   final evaluation) when not even one fits, or S is not known (a
   `seconds` budget). */
#define EVAL_AUTO_COUNT 20
#define EVAL_AUTO_SHARE 0.1
int estimate_eval_every(int64_t total_steps, double tokens_per_step, double eval_tokens);

typedef struct {
    double seconds;          /* wall time with `parallel` jobs at a time */
    double train_flops;      /* all jobs */
    double eval_flops;
    double gflops;           /* the per-thread rate used */
    int rate_from_env;       /* 1: MIXBENCH_GFLOPS */
} SweepEstimate;

/* Jobs with a `seconds` budget count as that long; jobs run `threads`
   threads each (0: one, the worker's share on 2 cores at --jobs 2). */
SweepEstimate sweep_estimate(const Sweep *sw, int parallel);


#endif
