/*
 * recall_label.h — MQAR points in words, for the claims that name them
 * (claims.c) and the recall table and figure (recall_table.h): which cell
 * "(n, pairs)" a point is, and its label.  Apart from recall_table so that
 * claims.c, which recall_table reads, does not include it back.
 */
#ifndef MIXBENCH_RECALL_LABEL_H
#define MIXBENCH_RECALL_LABEL_H

#include <stddef.h>

#include "experiments/points.h"

/* 1 when data is a well-formed MQAR spec (builtin:mqar...), with *pairs
   its pairs option (builtin:mqar's default when it names none: the engine's
   data_mqar_pairs, one reading of the spec). */
int recall_mqar_pairs(const char *data, int *pairs);

/* p's coordinates named in keys (space-separated) as "key=value" words,
   where n_ctx and data of an MQAR point read "(n, pairs)" (data alone:
   "16 pairs"): "(256, 16) d=64"; "" for no keys. */
void recall_point_label(const Point *p, const char *keys, char *out, size_t cap);

/* "(256, 16)" into out: the cell of an MQAR point (its n_ctx coordinate,
   when an axis; else "16 pairs"), with *n (0 without n_ctx) and *pairs; 0
   when p is not on MQAR data. */
int recall_cell_of(const Point *p, char *out, size_t cap, int *n, int *pairs);

/* 1 when word is one of the space-separated words of list. */
int recall_word_in(const char *list, const char *word);

#endif
