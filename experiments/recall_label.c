/*
 * recall_label.c — MQAR points in words: their cell "(n, pairs)" and a
 * point's label (recall_label.h).
 */
#include "experiments/recall_label.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "engine/data/data.h"

int recall_mqar_pairs(const char *data, int *pairs)
{
    *pairs = data_mqar_pairs(data);
    return *pairs > 0;
}

/* "(256, 16)": the cell of an MQAR point (its n_ctx coordinate, when an
   axis); 0 when p is not on MQAR data. */
int recall_cell_of(const Point *p, char *out, size_t cap, int *n, int *pairs)
{
    const char *data = coord_value(p->coords, p->n_coords, "data");
    const char *n_ctx = coord_value(p->coords, p->n_coords, "n_ctx");
    if (!recall_mqar_pairs(data, pairs)) return 0;
    *n = n_ctx ? atoi(n_ctx) : 0;
    if (n_ctx) snprintf(out, cap, "(%d, %d)", *n, *pairs);
    else snprintf(out, cap, "%d pairs", *pairs);
    return 1;
}

/* 1 when word is one of the space-separated words of list. */
int recall_word_in(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

void recall_point_label(const Point *p, const char *keys, char *out, size_t cap)
{
    char cell[32];
    int n, pairs, mqar = recall_cell_of(p, cell, sizeof cell, &n, &pairs);
    size_t len = 0;
    out[0] = 0;
    if (mqar && (recall_word_in(keys, "data") || recall_word_in(keys, "n_ctx")))
        len += (size_t)snprintf(out, cap, "%s", cell);
    for (int k = 0; k < p->n_coords && len < cap; k++) {
        const char *key = p->coords[k].key;
        if (!recall_word_in(keys, key) || (mqar && (!strcmp(key, "data") || !strcmp(key, "n_ctx")))) continue;
        char word[300];   /* "d=64"; a corpus by its base name */
        coords_label(p->coords, p->n_coords, key, word, sizeof word);
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "", word);
    }
}

