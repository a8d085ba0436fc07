/*
 * report_lengths.h — the report's throughput and memory table of a
 * long-context study (studies/long-context.yaml): a sweep over arch and
 * n_ctx whose claims compare training throughput (tokens_per_s or
 * tokens_per_cpu_s).  One row per architecture, per length its training
 * tokens per second of the wall clock and per CPU-second of its own
 * (runs.train_cpu_seconds), each mean +- standard error over seeds (the
 * seed count), and its own peak memory (runs.peak_run_mb, mean over
 * seeds); then every (architecture, length) of the grid those
 * make that has no finished run, and why: not in the sweep (with
 * engine/memory.h's estimate of what it would need, from a run of the
 * same architecture at that length), failed (the run's error), or still
 * to run.
 *
 * Not for: the claims (claims.c), the figure (ui/draw/figure_bench.h draws
 * it from the same points, app/cmd_report.c links it).
 */
#ifndef MIXBENCH_REPORT_LENGTHS_H
#define MIXBENCH_REPORT_LENGTHS_H

#include "db/results.h"
#include "db/store.h"
#include "engine/io/json.h"
#include "experiments/points.h"

/* 1 when the sweep of preset with points pts[0..np) gets the table: the
   points carry arch and n_ctx, n_ctx takes two values or more, and a claim
   of preset compares tokens_per_s or tokens_per_cpu_s. */
int lengths_sweep(const char *preset, const Point *pts, int np);

/* Appends the table (Markdown or text) for the sweep whose every run is
   runs[0..n_runs) (finished or not) and whose finished runs make pts. */
int lengths_section(Store *s, const ResultRun *runs, int n_runs, const Point *pts, int np, int markdown, StrBuf *out,
                    char *err);

#endif
