/*
 * report.h — the reproduction report (`mixbench report`, and the
 * workbench's screen of it): per preset, its points with our numbers (mean
 * +- se over seeds, seeds, tokens trained, training time) beside the
 * paper's figures and their settings, each claim's verdict with the
 * numbers behind it (our ratio between the compared architectures beside
 * the paper's), and the command that produced the runs.  Plain text, or
 * Markdown tables.
 *
 * Not for: argument parsing or printing (app/cmd_report.c), SQL (db/).
 */
#ifndef MIXBENCH_REPORT_H
#define MIXBENCH_REPORT_H

#include "db/store.h"
#include "engine/io/json.h"

/* Appends the report of presets[0..n_presets) (n_presets 0: every preset
   with a sweep in the store, in the presets' order) to out, from the
   newest sweep of each.  An unknown preset name is an error; a preset
   never queued says so in the report. */
int report_build(Store *s, const char *const *presets, int n_presets, int markdown, StrBuf *out, char *err);

#endif
