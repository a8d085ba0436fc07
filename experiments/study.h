/*
 * study.h — a study: the axes, budget, paper figures and claims of one
 * question, as a YAML file a researcher writes (docs/studies.md), read with
 * libyaml into the Preset that `mixbench sweep NAME` queues and the claim
 * rules that experiments/claims.c judges.  The seed papers' twelve presets
 * are such files (studies/NAME.yaml), compiled into the binary; a file given
 * to `mixbench sweep FILE.yaml`, or stored with an old sweep, joins them at
 * run time (study_register).
 *
 * A bad file is refused in one line naming the file, line and column:
 * YAML errors, unknown fields and keys ("did you mean"), a claim naming a
 * value its axes never produce, a margin outside (0, 1), a metric its task
 * lacks.
 *
 * Not for: expanding grids (sweep.c), judging claims (claims.c).
 */
#ifndef MIXBENCH_STUDY_H
#define MIXBENCH_STUDY_H

#include <stddef.h>

#include "db/store.h"
#include "experiments/points.h"
#include "experiments/sweep.h"

/* The kinds of claim the verdict machinery knows (claims.c,
   docs/statistics.md); each holds for every pair of points it compares. */
typedef enum {
    R_LOWER,            /* a below b in every pair */
    R_HIGHER,           /* a above b in every pair */
    R_MATCH,            /* |a/b - 1| <= param in every pair (TOST) */
    R_RATIO_AT_LEAST,   /* a/b >= the paper's ratio of the same two points */
    R_SLIGHTLY_HIGHER,  /* a above b, a/b <= 1 + param */
    R_FLAT,             /* the points of a, per value of pair_on: range <= param x mean */
    R_BELOW_UNIGRAM,    /* every point of a more than param nats below its data's unigram entropy;
                           with b (the baseline of the same sweep): a point that fails while b
                           does not learn either is undecided (budget: the budget, not a) */
    R_NEAR_UNIGRAM,     /* every point of a less than param nats below its data's unigram entropy */
    R_SAME_STANDING,    /* a - b has the same sign in every pair */
    R_THRESHOLD,        /* the points of a: metric at least / at most param (sign), at every
                           point (IUT) or at some point (Bonferroni): claims.c judge_threshold */
    R_MIN_D,            /* the smallest d at which a point of a clears param (sign), per series,
                           against b's (compare; closer: than b's is to `to`'s): claims.c
                           judge_min_d */
    R_OVERTAKES,        /* a above b from some value of the one pair_on key on (the smallest
                           such value measured: "overtakes by n = N") */
    R_KIND_COUNT
} RuleKind;

/* R_THRESHOLD's quantifier: the bound at every point of a, or at some point. */
typedef enum { QUANT_EVERY, QUANT_SOME } ClaimQuantifier;

/* R_MIN_D: how a's smallest solving d stands to b's, per pair (CLOSER: a's
   is nearer to's than b's is, in steps of the study's d values). */
typedef enum { MIN_D_LARGER, MIN_D_NO_SMALLER, MIN_D_SMALLER, MIN_D_NO_LARGER, MIN_D_CLOSER, MIN_D_COMPARE_COUNT }
    MinDCompare;

/* One claim of a study as a rule over its points. */
typedef struct {
    const char *preset;      /* the study whose sweeps judge it */
    const char *claim;       /* the claim's sentence, as the paper states it */
    RuleKind kind;
    PointMetric metric;
    const char *a, *b;       /* selectors "arch=mixer n_ctx=32|128" (b NULL for single-point rules) */
    const char *pair_on;     /* keys a pair agrees on, space-separated ("" : none) */
    double param;            /* the margin (a share), the nats of a threshold, or the ratio
                                a ratio_at_least claim states itself (0: the paper's) */
    const char *setting_a, *setting_b;  /* the paper's settings of a's and b's figures, for its ratio */
    const char *former;      /* the claim's words before issue 39, where they differ (NULL: the same) */
    /* R_THRESHOLD and R_MIN_D: param is the bound a point's metric must
       clear, at least (sign +1, `at_least:`) or at most (-1, `at_most:`) */
    int sign;
    ClaimQuantifier quantifier;  /* R_THRESHOLD (`for:`) */
    MinDCompare compare;         /* R_MIN_D (`compare:`) */
    const char *to;              /* R_MIN_D closer: the selector of the series both are measured
                                    against (`to:`); NULL otherwise */
} ClaimRule;

typedef struct Study Study;

/* "lower", "equivalent", ... (the file's words); NULL out of range. */
const char *study_kind_name(RuleKind k);
/* "larger", "no_smaller", ... (R_MIN_D's compare: words); NULL out of range. */
const char *study_compare_name(MinDCompare c);

/* Reads a study from text (len bytes) that came from `file` (for messages).
   check_jobs 1 also expands its grid with the sweep machinery and checks
   every claim and figure against the jobs (values the axes produce, the
   tasks' metrics); 0 skips that (the built-ins at start-up: a test checks
   them in full).  NULL and a one-line err on bad input. */
Study *study_parse(const char *text, size_t len, const char *file, int check_jobs, char *err);
void study_free(Study *s);
/* The text of the file at path (malloc'd; at most 1 MB, no NUL bytes). */
char *study_read_file(const char *path, char *err);
/* 1 when word names a study file rather than a study: it ends in .yaml or .yml. */
int study_is_file(const char *word);
/* Reads and parses (check_jobs 1) the file at path. */
Study *study_load(const char *path, char *err);

const Preset *study_preset(const Study *s);
int study_claim_count(const Study *s);
const ClaimRule *study_claim(const Study *s, int i);

/* The claim's reading in words: "test_loss of arch=mixer below arch=attention,
   per n_ctx, at every such pair" ... into out[cap]. */
void study_claim_words(const ClaimRule *r, char *out, size_t cap);

/* A commented skeleton study called name (malloc'd). */
char *study_skeleton(const char *name);

/* ---- the studies known to this process (experiments/presets.c) ---------- */

/* Adds the study in text (from file) to the known ones after parsing and
   checking it; one already known by that name: 0 when its text is the
   same (*out: that one), else refused naming both.  *out may be NULL. */
int study_register(const char *text, const char *file, const Preset **out, char *err);
/* The first built-in study that did not parse ("" when all did: a test
   checks it, since such a study is left out). */
const char *study_builtin_error(void);
/* Registers the study files stored with the sweeps of st (schema 10) that
   are not known yet, so that an old sweep is judged by the claims it was
   run with; one that no longer reads, or whose name a known study with
   other text holds, is left out. */
int studies_from_store(Store *st, char *err);
/* The study sweep queued_from (SweepRow.preset; NAME@paper: NAME) was
   queued from, into *out, after studies_from_store: a sweep of a study
   file is known by the text stored with it, even where the file was
   edited or deleted since.  *out NULL: none (a grid, a search, a stored
   study that no longer reads).  The Grid, the figures and the report read
   a sweep's claims and paper figures through it. */
int study_of_sweep(Store *st, const char *queued_from, const Preset **out, char *err);
/* study_register on the file at path. */
int study_register_file(const char *path, const Preset **out, char *err);
/* Every known study's claims, built-in studies first. */
int study_rule_count(void);
const ClaimRule *study_rule_at(int i);

/* The built-in studies' files (generated at build time from studies/: the
   Makefile's BUILTIN_STUDIES, in that order). */
typedef struct {
    const char *file;        /* "studies/recall.yaml" */
    const char *text;
} StudyText;
extern const StudyText BUILTIN_STUDY_TEXTS[];
extern const int BUILTIN_STUDY_COUNT;

#endif
