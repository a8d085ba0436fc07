/*
 * report.h — the reproduction report (`mixbench report`, and the
 * workbench's screen of it): per preset, its points with our numbers (mean
 * +- se over seeds, seeds, tokens trained, training time) beside the
 * paper's figures and their settings, each claim's verdict with the
 * numbers behind it (our ratio between the compared architectures beside
 * the paper's), and the command that produced the runs; a long-context
 * study's section adds its throughput and memory table and what was not
 * measured (experiments/report_lengths.h).  Plain text, or
 * Markdown tables with the preset's figures linked (drawn by the caller:
 * the figures live above this layer).
 *
 * Not for: argument parsing or printing (app/cmd_report.c), SQL (db/),
 * drawing figures (ui/draw/figure.h).
 */
#ifndef MIXBENCH_REPORT_H
#define MIXBENCH_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "db/store.h"
#include "engine/io/json.h"

/* How a report is written (flags): Markdown instead of text; the valid
   loss as each run's lowest evaluation and its step (`--loss best`), not
   its last one. */
enum { REPORT_MARKDOWN = 1, REPORT_LOSS_BEST = 2 };

/* Appends the report of presets[0..n_presets) (n_presets 0: every preset
   with a sweep in the store, in the presets' order) to out, from the
   newest sweep of each, written as flags say (REPORT_*).  Each preset's
   section ends with which knob matters (experiments/importance.h) for
   the metric its paper reports.  An unknown preset name is an error; a
   preset never queued says so in the report. */
int report_build(Store *s, const char *const *presets, int n_presets, int flags, StrBuf *out, char *err);

/* A figure of a preset's section: the file (as the Markdown links it,
   relative to the Markdown file) and what it shows. */
enum { REPORT_MAX_FIGURES = 4 };
typedef struct {
    char path[512];
    char caption[256];
} ReportFigure;

/* Draws the figures of preset's section from the runs of sweep_id (called
   for a preset with finished runs only): up to REPORT_MAX_FIGURES into
   out, their count into *n; -1 with err when one cannot be written. */
typedef int (*ReportFigureFn)(void *ctx, const char *preset, int64_t sweep_id, ReportFigure *out, int *n,
                              char *err);

/* report_build with each Markdown section's figures from figures(ctx)
   (NULL: none), linked under the section's heading. */
int report_build_with_figures(Store *s, const char *const *presets, int n_presets, int flags,
                              ReportFigureFn figures, void *ctx, StrBuf *out, char *err);

/* Appends the report of one sweep (`mixbench report 3`, `report sweep:3`,
   the Grid's R), whatever it was queued from: a preset's sweep as its
   preset's section on that sweep (claims and all); any other sweep headed
   by its name and kind, then how it was made, its table of points (mean
   +- se per seed group), and which knob matters for the test loss; a
   random search (search=random) its trials sorted by that metric, the
   best first, and which knob matters over its drawn axes binned into
   ranges.  report_build with no presets on a store where none was queued
   reports every sweep so.  -1 with err when there is no such sweep. */
int report_sweep(Store *s, int64_t sweep_id, int flags, ReportFigureFn figures, void *ctx, StrBuf *out, char *err);

#endif
