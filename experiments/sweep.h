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
 * Not for: running jobs (experiments/scheduler.c) or storing them (db/jobs.h).
 */
#ifndef MIXBENCH_SWEEP_H
#define MIXBENCH_SWEEP_H

#include "engine/config.h"
#include "experiments/sweep_plan.h"

typedef struct {
    Config config;          /* defaults + preset/base keys + this point */
    char coords[512];       /* JSON object of this point's axis values, e.g.
                               {"layers": "2", "heads": "4", "arch": "pairconnect"} */
} SweepJob;

typedef struct {
    char name[64];          /* the preset's name, "grid", or "search" (a random search) */
    char label[64];         /* what to call it (`sweep --name`); "": name */
    char spec[2048];        /* the full spec as given / expanded from a preset */
    char axes[512];         /* JSON array of the axis keys, in order */
    SweepJob *jobs;
    int n_jobs;
    SweepPlan plan;
    int names_decay;        /* the spec sets decay (sweep_require_wsd) */
} Sweep;

/* Parses a preset name or a grid (argv words joined by spaces).  base holds
   keys applied to every job first.  A preset's own keys override base;
   `NAME@paper` names the preset at its paper's own size (Preset.paper_spec;
   the sweep is called "NAME@paper"). */
int sweep_parse(int argc, char **argv, const Config *base, Sweep *out, char *err);
/* As sweep_parse, with the user's dataset (--data; NULL: none): for a
   preset it replaces the preset's own data, as `PRESET data=D` would; a
   preset whose data is an axis (its paper's corpora) refuses it in one
   line.  For a grid, data is simply a base key. */
int sweep_parse_data(int argc, char **argv, const Config *base, const char *data, Sweep *out, char *err);
void sweep_free(Sweep *s);
/* lr=tune and --until-conclusive continue runs to larger budgets (rungs,
   extensions), which only decay=wsd allows: every job gets decay=wsd;
   when the spec named another decay (decay_named), refused naming why. */
int sweep_require_wsd(Sweep *sw, const char *why, int decay_named, char *err);
/* --until-conclusive with a cap of max_hours CPU hours (0: none): only a
   preset's sweep (its claims decide when to stop); every job gets
   decay=wsd (sweep_require_wsd).  One line when refused. */
int sweep_until_conclusive(Sweep *sw, double max_hours, char *err);

/* Levenshtein distance of two short strings (99 past 63 characters). */
int sweep_edit_distance(const char *a, const char *b);
/* 1 when key may stand in a spec (a config key, repeats, variant, a search
   word); the known key nearest an unknown one (NULL: none within 2 edits). */
int sweep_key_known(const char *key);
const char *sweep_nearest_key(const char *key);

/* A figure a seed paper reports for one point of a preset (one row of
   shared/papers/figures.csv). */
typedef struct {
    const char *coords;     /* JSON object of the preset point it belongs to: the
                               coords of its jobs without seed; "$MIXBENCH_DATA"
                               in a value is expanded as in a spec */
    const char *metric;     /* "train_loss", "test_loss", "test_perplexity", "samples_per_s" */
    double value;
    const char *note;       /* the table or section it comes from */
    const char *setting;    /* the paper's setting, "S1".."S7" (paper_setting_text) */
} PaperFigure;

/* A paper's own setting (shared/papers/README.md): its name, its text, and
   the model sizes code compares with ours (0: not stated). */
typedef struct {
    const char *name;       /* "S1".."S7" */
    const char *text;       /* "PairConnect Tables 1-2: masked LM on PTB and WikiText-2, ..." */
    int d, layers, heads, n_ctx;
} PaperSetting;

/* The setting called name; NULL for an unknown name. */
const PaperSetting *paper_setting(const char *name);
/* Its text; NULL for an unknown name. */
const char *paper_setting_text(const char *setting);

/* s with every $MIXBENCH_DATA replaced by that variable (default
   ../shared/data), malloc'd; NULL when out of memory. */
char *sweep_expand_data_var(const char *s);

typedef struct {
    const char *name;       /* "pairconnect-grid", ... */
    const char *source;     /* "PairConnect Table 1" */
    const char *what;       /* one line */
    const char *spec;       /* the grid, sized for a 2-core machine */
    const PaperFigure *paper;
    int n_paper;
    const char *paper_spec; /* the grid at the paper's own size (`NAME@paper`); NULL: none */
    /* the study file it is read from (experiments/study.h, docs/studies.md) */
    const char *study_text; /* the file's text, stored with each sweep of it */
    const char *file;       /* "studies/NAME.yaml" for a built-in study, else the path read */
    int builtin;            /* 1: compiled into the binary */
    int until_conclusive;   /* the study asks for --until-conclusive ... */
    double max_hours;       /* ... with this cap in CPU hours (0: none) */
} Preset;

int preset_count(void);
const Preset *preset_at(int i);
const Preset *preset_find(const char *name);
/* word a study file (FILE.yaml, study.h study_is_file): registers it and
   replaces word (cap bytes) by the study's name, which preset_find knows
   from then on; any other word is left as is.  0, or -1 and err. */
int preset_from_file(char *word, size_t cap, char *err);
/* The dataset a preset trains on, $MIXBENCH_DATA expanded, into out[cap]:
   1 when it names one (`--data` may replace it), 0 when data is one of its
   axes (out: the spec's data words, for showing), -1 when it names none
   (the caller's dataset is used). */
int preset_data(const Preset *p, char *out, size_t cap);

#endif
