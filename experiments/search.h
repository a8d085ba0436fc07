/*
 * search.h — random search in a sweep spec: distributions to draw a key's
 * value from, the words that turn a grid into a random search and name
 * its pruner, and the sweep's plan as sweeps.plan_json stores it.
 *
 *   key=log:LO..HI           log-uniform on [LO, HI] (LO > 0)
 *   key=uniform:LO..HI       uniform on [LO, HI]
 *   key=choice:a,b,c         one of the values, each as likely
 *   search=random trials=N search_seed=S       (`--search random --trials N --search-seed S`)
 *   prune=asha|median prune_eta=E prune_grace=F prune_startup=N   (`--prune asha|median`)
 *
 * A key that holds whole numbers in engine/config.c's table (d, layers,
 * batch, steps, ...) draws whole numbers, a real one (lr, dropout, ...)
 * reals written with 4 significant digits; choice takes any key.  Trial
 * t's value of a key depends only on the search seed, t and the key's
 * name: the same seed gives the same trials bit for bit, more trials keep
 * the ones before, and every point of the sweep's grid axes gets the same
 * trials (the grid is crossed with them: arch=mixer,attention with 8
 * trials is 16 jobs, each trial's values once per architecture).
 *
 * Not for: expanding a spec into jobs (sweep.c) or pruning (prune.h).
 */
#ifndef MIXBENCH_SEARCH_H
#define MIXBENCH_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "experiments/sweep_plan.h"

#define SEARCH_MAX_TRIALS 10000
#define SEARCH_MAX_CHOICES 64

typedef enum { DIST_LOG, DIST_UNIFORM, DIST_CHOICE } DistKind;

typedef struct {
    const char *key;
    DistKind kind;
    int whole;              /* the key holds whole numbers */
    double lo, hi;          /* log, uniform: the range, both ends included */
    int n_choices;
    char *choices[SEARCH_MAX_CHOICES];   /* choice: pointers into the spec's text */
} Distribution;

/* 1 when a key's value is written as a distribution (log:, uniform:,
   choice:). */
int search_is_distribution(const char *value);
/* Parses key=value's value (choices are split at their commas in place, so
   value must outlive d); source is the item as written, for messages.  One
   line when refused: not a number key for log or uniform, LO..HI missing,
   LO >= HI, log of a value <= 0, an end outside the key's range, an empty
   choice. */
int search_parse_distribution(const char *key, char *value, const char *source, Distribution *d, char *err);
/* Trial t's value (t from 0) of d, drawn with the search seed, as the text
   config_set reads, into out[cap]. */
void search_sample(const Distribution *d, int64_t search_seed, int trial, char *out, size_t cap);

/* The words of the search and the pruner: search, trials, search_seed,
   prune, prune_eta, prune_grace, prune_startup.  search_word(i) lists
   them (NULL past the last). */
int search_is_word(const char *key);
const char *search_word(int i);
/* Applies one of them to plan (one line when the value is bad). */
int search_set_word(SweepPlan *plan, const char *key, const char *value, char *err);
/* Once the spec is read: the defaults, and the refusals that need all of
   it (n_dists distributions: one without search=random, search=random
   without distributions or trials, the pruner's words without a pruner,
   a pruner without a random search or beside lr=tune). */
int search_plan_finish(SweepPlan *plan, int n_dists, char *err);

#endif
