/*
 * report.h — the reproduction report (`mixbench report`, and the
 * workbench's screen of it): per preset, its points with our numbers (mean
 * +- se over seeds, seeds, tokens trained, training time) beside the
 * paper's figures and their settings, each claim's verdict with the
 * numbers behind it (our ratio between the compared architectures beside
 * the paper's), and the command that produced the runs.  Plain text, or
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

/* Appends the report of presets[0..n_presets) (n_presets 0: every preset
   with a sweep in the store, in the presets' order) to out, from the
   newest sweep of each.  An unknown preset name is an error; a preset
   never queued says so in the report. */
int report_build(Store *s, const char *const *presets, int n_presets, int markdown, StrBuf *out, char *err);

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
int report_build_with_figures(Store *s, const char *const *presets, int n_presets, int markdown,
                              ReportFigureFn figures, void *ctx, StrBuf *out, char *err);

#endif
