/*
 * estimate.h — how long a sweep will take on this machine, before anything
 * is queued (`mixbench sweep --dry-run`, the queue output, @paper
 * variants): each job's FLOPs (the bench's FLOP rule, docs/spec-choices.md, "Bench FLOP
 * rule", counted from the config without building the model) for its
 * training tokens and for evaluating valid and test (forward only: a third
 * of a training token), over a per-thread rate, with `parallel` jobs at a
 * time; with a store's measured speeds, a job's tokens/s is measured
 * (runs of its shape) or scaled (similar runs, nearest in FLOPs a token)
 * before the built-in model's is assumed, and the estimate names the runs.
 *
 * Not for: measuring anything (bench) or scheduling (experiments/scheduler.c).
 */
#ifndef MIXBENCH_ESTIMATE_H
#define MIXBENCH_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "db/store.h"
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

/* Training speeds measured in a store, for estimates: each finished run
   with its tokens/s and what it was measured on. */
typedef struct {
    int64_t id;              /* the run */
    Config config;
    double tokens_per_s;
    double flops_per_token;  /* estimate_train_flops_per_token(&config) */
} MeasuredSpeed;

typedef struct {
    MeasuredSpeed *runs;
    int n;
} SpeedBook;

int speed_book_load(Store *s, SpeedBook *b, char *err);
void speed_book_free(SpeedBook *b);

/* Where a job's training speed comes from (docs/experiments.md
   "Estimates"):
     SPEED_MEASURED  the store's runs of its shape: the same arch, task, d,
                     layers, heads, n_ctx, batch, threads and precision
                     (their mean tokens/s);
     SPEED_SCALED    else its similar runs: the same arch, task, threads and
                     precision, of the shape nearest in training FLOPs a
                     token and within ESTIMATE_SIMILAR_FLOPS of the job's
                     either way (their tokens/s x their FLOPs a token / the
                     job's);
     SPEED_ASSUMED   else the built-in model: MIXBENCH_GFLOPS a thread, else
                     ESTIMATE_DEFAULT_GFLOPS, over the job's FLOPs a token. */
typedef enum { SPEED_MEASURED, SPEED_SCALED, SPEED_ASSUMED } SpeedBasis;

#define ESTIMATE_SIMILAR_FLOPS 8.0
#define ESTIMATE_MAX_SOURCES 4   /* run ids kept to name */

typedef struct {
    SpeedBasis basis;
    int n_runs;                  /* the runs it comes from */
    int64_t ids[ESTIMATE_MAX_SOURCES];   /* the first of them, by id */
    char shape[96];              /* SPEED_SCALED: theirs, "d=32 layers=1 heads=2 n_ctx=64 batch=8" */
} SpeedSource;

/* The tokens/s of a job of c (book NULL: the built-in model's at gflops a
   thread); *src says where it comes from. */
double estimate_tokens_per_s(const SpeedBook *book, const Config *c, double gflops, SpeedSource *src);

#define ESTIMATE_MAX_ARCHS 8

typedef struct {
    double seconds;          /* wall time with `parallel` jobs at a time */
    double train_flops;      /* all jobs */
    double eval_flops;
    double gflops;           /* the assumed per-thread rate */
    int rate_from_env;       /* 1: MIXBENCH_GFLOPS */
    /* per architecture: its jobs' mean tokens/s and the source of their
       estimates (the least measured one: assumed over scaled over measured) */
    int n_archs;
    struct {
        char arch[32];
        double tokens_per_s;
        SpeedSource src;
    } arch[ESTIMATE_MAX_ARCHS];
} SweepEstimate;

/* Jobs with a `seconds` budget count as that long; jobs run `threads`
   threads each (0: one, the worker's share on 2 cores at --jobs 2).
   book: the store's measured speeds (NULL: the FLOP model alone). */
SweepEstimate sweep_estimate(const Sweep *sw, int parallel, const SpeedBook *book);
/* Each architecture's tokens/s and its source into out[cap]: "mixer
   65.2k tok/s measured by runs 4, 5 (this shape), attention 9.1k tok/s
   from run 7 (d=64 layers=2 heads=2 n_ctx=64 batch=8, scaled by FLOPs a
   token), cumsum 5.0k tok/s the built-in model's (40 GFLOP/s a thread; no
   similar run in the store)". */
void estimate_describe(const SweepEstimate *e, char *out, size_t cap);

#endif
