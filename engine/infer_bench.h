/*
 * infer_bench.h — inference speed of a built model: samples per second at
 * batch 1 on the calling thread (SPEC section 6; the PairConnect paper's
 * Table 3 measure).  One sample is a full forward pass of one n_ctx-token
 * window with every position a target, so every position goes through the
 * head and its softmax cross-entropy: clm and mlm through engine/infer.h
 * (the mixers' own forward, FFN and head from weights packed once), the
 * other tasks through their own wiring (both stacks for bidir, encoder and
 * decoder for autoencode, the zeroed half for complete).
 *
 * `mixbench bench --inference` and the end of every finished run share this
 * one measurement.  It runs on the thread that calls it, whatever thread
 * count the model trained with (OpenBLAS is pinned to one thread at
 * start-up), allocates its own work space (and packed weights) before
 * timing, and reads the model only.
 *
 * Not for: generation speed (engine/generate.h decodes incrementally) or
 * training throughput (the trainer's tokens/s).
 */
#ifndef MIXBENCH_INFER_BENCH_H
#define MIXBENCH_INFER_BENCH_H

#include "engine/model.h"

/* When to stop: once min_seconds have passed AND min_samples were timed, or
   once max_seconds have passed (0: no cap) with at least one sample timed.
   warmup untimed samples run first. */
typedef struct {
    int warmup;
    int min_samples;
    double min_seconds, max_seconds;
} InferBenchLimits;

typedef struct {
    double samples_per_s;
    int samples;           /* timed */
    double seconds;        /* their wall time */
} InferBenchResult;

/* Measures m (a validated, built model; its weights are not changed) on
   seeded random token ids.  Returns 0, or -1 with err (out of memory). */
int infer_bench(const Model *m, const InferBenchLimits *limits, InferBenchResult *out, char *err);

#endif
