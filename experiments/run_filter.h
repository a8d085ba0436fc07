/*
 * run_filter.h — the one expression that chooses runs: the Runs screen's
 * `/` filter, `ls --where`, `export --where` and the bulk forms of rm,
 * restore, tag, untag, star, unstar and note.
 *
 * An expression is terms separated by spaces, all of which must hold:
 *
 *   word           the word is in the run's arch, task, status, data,
 *                  sweep name, name, tags or note (no case)
 *   key=value      key is a field below, a sweep axis or any config key;
 *   key!=value     numbers compare as numbers (lr=3e-4 holds for 0.0003),
 *   key>value      other values as text without case; a run that has no
 *   key<value      such value fails the term (!= included)
 *   key>=value, key<=value
 *   tag:NAME, #NAME  the run has the tag (tag=NAME too; tag!=NAME: has not)
 *   !term          the term does not hold
 *
 * Double quotes keep spaces in a term: note="lr too high", "two words".
 * Fields: id, name, arch, task, data, status, sweep (its id when the value
 * is a number, else its name), seed, note, star (1 or 0), train, valid,
 * best (the best valid loss), test, speed (tokens/s), done (steps done);
 * the results view's names (train_loss, valid_loss, best_valid_loss,
 * test_loss, tokens_per_s, steps_done) work too.  A key that is none of
 * these and no config key is refused when parsed, naming it.
 *
 * Not for: SQL (the filter runs over RunSummary rows, db/runs_read.h, so
 * the screen and the command line match the same way).
 */
#ifndef MIXBENCH_RUN_FILTER_H
#define MIXBENCH_RUN_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "db/runs_read.h"
#include "db/store.h"

#define RUN_FILTER_MAX_TERMS 32

typedef enum { RUN_TERM_TEXT, RUN_TERM_TAG, RUN_TERM_COMPARE } RunTermKind;
typedef enum { RUN_OP_EQ, RUN_OP_NE, RUN_OP_LT, RUN_OP_GT, RUN_OP_LE, RUN_OP_GE } RunFilterOp;

typedef struct {
    RunTermKind kind;
    int negate;              /* !term */
    char key[64];            /* RUN_TERM_COMPARE */
    RunFilterOp op;
    char value[256];         /* the word, the tag, or the value compared with */
} RunFilterTerm;

typedef struct {
    int n;                   /* 0: every run matches */
    RunFilterTerm terms[RUN_FILTER_MAX_TERMS];
} RunFilter;

/* Parses text (NULL or "" gives the empty filter); -1 with a line saying
   what is wrong ("filter: 'layres' is not a field or config key"). */
int run_filter_parse(const char *text, RunFilter *f, char *err);
/* 1 when every term holds for r. */
int run_filter_match(const RunFilter *f, const RunSummary *r);
/* The value of key for r as text into out[cap] (a field, then a sweep
   coordinate, then a config key); 0 when r has none (out ""). */
int run_filter_value(const RunSummary *r, const char *key, char *out, size_t cap);
/* Only r's sweep coordinate key ("" and 0 when r has none). */
int run_filter_coord(const RunSummary *r, const char *key, char *out, size_t cap);

/* The ids of the runs that text matches, by id: the runs not in the trash,
   or (in_trash 1) those in it.  *ids malloc'd (NULL when *n is 0). */
int run_filter_select(Store *s, const char *text, int in_trash, int64_t **ids, int *n, char *err);
/* The same ids as a JSON array ("[3,5]", malloc'd), for SQL's json_each. */
int run_filter_select_json(Store *s, const char *text, int in_trash, char **json, int *n, char *err);

#endif
