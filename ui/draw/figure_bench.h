/*
 * figure_bench.h — the figure of `mixbench bench --n` (app/bench_length.c):
 * training tokens/s, peak memory and batch-1 generation's ms per token
 * against the sequence length, log-log, a line per architecture, and where
 * each one's training tokens/s crosses attention's marked on it (the
 * crossing interpolated linearly in log n and log tokens/s between the two
 * lengths around it) and written under the figure.
 *
 * The same drawing serves the report's figure of a long-context study,
 * its points read from the store (figure_bench_sweep).
 *
 * Not for: running the bench or reading its JSON (app/bench_length.c).
 */
#ifndef MIXBENCH_FIGURE_BENCH_H
#define MIXBENCH_FIGURE_BENCH_H

#include <stdint.h>

#include "db/store.h"
#include "ui/draw/figure.h"

/* One line of the bench: an architecture at one length. */
typedef struct {
    char arch[32];
    int n;
    double tokens_per_s, peak_bytes, generate_ms;   /* NAN: not measured (left out of its panel) */
} BenchPoint;

/* The figure of pts[0..count) (any order); -1 with err when out of memory
   or there is nothing to draw. */
int figure_bench(const BenchPoint *pts, int count, Figure *f, char *err);

/* The same figure of a long-context sweep (experiments/report_lengths.h)
   from the store: per point (arch, n_ctx) its mean training tokens per
   CPU-second (tokens/s of the wall clock where a point lacks it) and own
   peak memory (runs.peak_run_mb) over its finished seeds; no
   generation panel (a run does not measure it).  f is initialised here.
   -1 with err when the sweep has no finished run with tokens/s. */
int figure_bench_sweep(Store *s, int64_t sweep_id, Figure *f, char *err);

/* Where arch's training tokens/s first overtakes attention's between two
   lengths both were measured at: 1 with *n_cross and *tok_cross (the
   crossing, interpolated) and *lo, *hi the lengths around it; 0 when it
   stays below at every common length, 2 when it is above at the first one
   already, -1 when the two share no length. */
int bench_crossover(const BenchPoint *pts, int count, const char *arch, double *n_cross, double *tok_cross, int *lo,
                    int *hi);

#endif
