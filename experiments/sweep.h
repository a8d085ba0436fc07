/*
 * sweep.h — sweeps and the seeds' presets.  A sweep is a named set of jobs
 * from a grid over any config key of the SPEC (budget keys included):
 *
 *   layers=1,2,4,6 heads=1,2,4 arch=pairconnect,attention steps=2000
 *   (layers,heads)=(1,1),(1,2),(2,2),(2,4),(4,4),(6,4) arch=pairconnect,attention
 *   repeats=3                      (seeds seed, seed+1, seed+2 for every point)
 *
 * Axes multiply (grid); a parenthesised key list zips its values.  The grid
 * may come as one string or as several arguments.  Every job's full config
 * is validated (key names, value types, arch/task pairs) before anything is
 * queued, so a bad spec queues nothing.  Presets (SPEC section 8) are named
 * sweep specs, each with the paper's reported figures to show beside ours.
 *
 * Not for: running jobs (app/scheduler.c) or storing them (db/jobs.h).
 */
#ifndef MIXBENCH_SWEEP_H
#define MIXBENCH_SWEEP_H

#include "engine/config.h"

typedef struct {
    Config config;          /* defaults + preset/base keys + this point */
    char coords[512];       /* JSON object of this point's axis values, e.g.
                               {"layers": "2", "heads": "4", "arch": "pairconnect"} */
} SweepJob;

typedef struct {
    char name[64];          /* the preset's name, or "grid" */
    char spec[2048];        /* the full spec as given / expanded from a preset */
    char axes[512];         /* JSON array of the axis keys, in order */
    SweepJob *jobs;
    int n_jobs;
} Sweep;

/* Parses a preset name or a grid (argv words joined by spaces).  base holds
   keys applied to every job first (e.g. data=... from --data). */
int sweep_parse(int argc, char **argv, const Config *base, Sweep *out, char *err);
void sweep_free(Sweep *s);

/* A figure a seed paper reports for one point of a preset. */
typedef struct {
    const char *coords;     /* JSON object of axis values it belongs to */
    const char *metric;     /* e.g. "test_loss", "test_perplexity", "samples_per_s" */
    double value;
    const char *note;       /* table/figure it comes from */
} PaperFigure;

typedef struct {
    const char *name;       /* "pairconnect-grid", ... */
    const char *source;     /* "PairConnect Table 1" */
    const char *what;       /* one line */
    const char *spec;       /* the grid, sized for a 2-core machine */
    const PaperFigure *paper;
    int n_paper;
} Preset;

int preset_count(void);
const Preset *preset_at(int i);
const Preset *preset_find(const char *name);

#endif
