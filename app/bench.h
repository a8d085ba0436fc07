/*
 * bench.h — what `mixbench bench`'s two files share: app/cmd_bench.c (the
 * training table, --inference, --bf16 and the command itself) and
 * app/bench_length.c (--n: throughput and memory against the sequence
 * length).
 */
#ifndef MIXBENCH_APP_BENCH_H
#define MIXBENCH_APP_BENCH_H

#include <stdint.h>

#include "engine/config.h"
#include "engine/dist.h"
#include "engine/memory.h"
#include "ui/draw/figure.h"

typedef struct {
    double tokens_per_s, gflops, flops_per_token;
    double comm_seconds, step_seconds;   /* per step: gradient exchange, whole step */
    double cpu_seconds;                  /* the process's CPU time over the timed steps, all threads */
    double product_share;                /* of the threads' time, inside matrix products */
    double product_gflops;               /* the products' own rate, all threads */
    int64_t params;
    int steps;
    double base_bytes, peak_bytes;       /* resident before the model; the process's peak during it */
    MemoryNeed need;                     /* engine/memory.h's estimate of the job */
} BenchResult;

/* The timed window of every model, seconds (--seconds; default 4). */
extern double bench_window;

/* Trains the validated config c on random tokens on `threads` threads
   (dist: data-parallel over its ranks, or NULL) for at least 3 steps and
   bench_window seconds after 2 warm-up steps; the figures into out. */
int bench_train_config(const Config *c, int threads, Dist *dist, BenchResult *out, char *err);

/* --n LIST: for each architecture with a causal mode (or arch) and each
   length of the comma-separated list, training tokens/s, GFLOP/s and peak
   memory, and batch-1 generation's milliseconds per token at that context
   (d 128, L 2, h 4, batch 1, V 1000).  A length that is not a whole number
   in 1..65536 (n_ctx's range) is refused in one line before anything runs;
   so is one whose estimate does not fit in the memory available, with
   arch; without, such lines are skipped (refused when none fits). */
int bench_lengths(const char *arch, const char *n_list, int threads, int json, char *err);

/* `mixbench plot bench FILE...`: the lines of those --n --json outputs
   drawn by ui/draw/figure_bench.h; -1 with err naming a file that is not
   one. */
int bench_lengths_figure(const char *const *paths, int n_paths, Figure *fig, char *err);

#endif
