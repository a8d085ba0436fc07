/*
 * recall_table.c — a recall sweep as Zoology's Figure 2 (recall_table.h).
 */
#include "experiments/recall_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/results.h"
#include "experiments/claims.h"
#include "experiments/recall_label.h"

/* 1 when every MQAR point of pts with the same cell (its n_ctx and data)
   has the same value of key: a coordinate of the cell, as a budget zipped
   with it ("(n_ctx, data, steps)"), not of a series. */
static int of_the_cell(const Point *pts, int np, const char *key)
{
    for (int i = 0; i < np; i++)
        for (int j = 0; j < i; j++) {
            const CoordPair *a = pts[i].coords, *b = pts[j].coords;
            int na = pts[i].n_coords, nb = pts[j].n_coords;
            const char *da = coord_value(a, na, "data"), *db = coord_value(b, nb, "data");
            const char *ca = coord_value(a, na, "n_ctx"), *cb = coord_value(b, nb, "n_ctx");
            const char *va = coord_value(a, na, key), *vb = coord_value(b, nb, key);
            int same_cell = da && db && !strcmp(da, db) && (!ca || !cb ? ca == cb : !strcmp(ca, cb));
            if (same_cell && (!va || !vb ? va != vb : strcmp(va, vb) != 0)) return 0;
        }
    return 1;
}

/* "arch task d n_ctx data" and the other keys of pts that are of the cell
   (space-separated, into out): what a series label leaves out. */
static void not_series_keys(const Point *pts, int np, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "arch task d n_ctx data"), seen_len = 0;
    char seen[512] = "";   /* the keys asked about: each once */
    for (int i = 0; i < np; i++)
        for (int k = 0; k < pts[i].n_coords && len < cap; k++) {
            const char *key = pts[i].coords[k].key;
            if (recall_word_in(out, key) || recall_word_in(seen, key) || seen_len >= sizeof seen) continue;
            seen_len += (size_t)snprintf(seen + seen_len, sizeof seen - seen_len, " %s", key);
            if (of_the_cell(pts, np, key)) len += (size_t)snprintf(out + len, cap - len, " %s", key);
        }
}

/* "attention", "linattn feature_map=taylor": p's arch and its coordinates
   other than those in skip. */
static void series_label(const Point *p, const char *skip, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", p->arch);
    for (int k = 0; k < p->n_coords && len < cap; k++) {
        const char *key = p->coords[k].key;
        if (recall_word_in(skip, key)) continue;
        len += (size_t)snprintf(out + len, cap - len, " %s=%s", key, p->coords[k].value);
    }
}

/* The index of word in list[0..*n), added when absent (-1 when full). */
static int index_of(char (*list)[RECALL_LABEL], int *n, int max, const char *word)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(list[i], word)) return i;
    if (*n == max) return -1;
    snprintf(list[*n], RECALL_LABEL, "%s", word);
    return (*n)++;
}

void recall_view(const Point *pts, int np, double alpha, RecallView *v)
{
    memset(v, 0, sizeof *v);
    /* the cells and widths first, each in order */
    for (int i = 0; i < np; i++) {
        char cell[32];
        int n, pairs, k = 0;
        const char *d = coord_value(pts[i].coords, pts[i].n_coords, "d");
        if (!d || !recall_cell_of(&pts[i], cell, sizeof cell, &n, &pairs)) continue;
        while (k < v->n_cells && (v->cell_n[k] < n || (v->cell_n[k] == n && v->cell_pairs[k] < pairs))) k++;
        if (!(k < v->n_cells && v->cell_n[k] == n && v->cell_pairs[k] == pairs) && v->n_cells < RECALL_MAX_CELLS) {
            memmove(&v->cell[k + 1], &v->cell[k], (size_t)(v->n_cells - k) * sizeof v->cell[0]);
            memmove(&v->cell_n[k + 1], &v->cell_n[k], (size_t)(v->n_cells - k) * sizeof v->cell_n[0]);
            memmove(&v->cell_pairs[k + 1], &v->cell_pairs[k], (size_t)(v->n_cells - k) * sizeof v->cell_pairs[0]);
            snprintf(v->cell[k], sizeof v->cell[k], "%s", cell);
            v->cell_n[k] = n, v->cell_pairs[k] = pairs;
            v->n_cells++;
        }
        int w = atoi(d);
        k = 0;
        while (k < v->n_d && v->d[k] < w) k++;
        if (!(k < v->n_d && v->d[k] == w) && v->n_d < RECALL_MAX_D) {
            memmove(&v->d[k + 1], &v->d[k], (size_t)(v->n_d - k) * sizeof v->d[0]);
            v->d[k] = w;
            v->n_d++;
        }
    }
    char skip[512];
    not_series_keys(pts, np, skip, sizeof skip);
    for (int i = 0; i < np; i++) {
        char cell[32], label[RECALL_LABEL];
        int n, pairs, c = 0, k = 0;
        const char *d = coord_value(pts[i].coords, pts[i].n_coords, "d");
        if (!d || !recall_cell_of(&pts[i], cell, sizeof cell, &n, &pairs)) continue;
        while (c < v->n_cells && (v->cell_n[c] != n || v->cell_pairs[c] != pairs)) c++;
        while (k < v->n_d && v->d[k] != atoi(d)) k++;
        series_label(&pts[i], skip, label, sizeof label);
        int s = index_of(v->series, &v->n_series, RECALL_MAX_SERIES, label);
        if (s < 0 || c == v->n_cells || k == v->n_d) continue;
        v->at[s][c][k] = &pts[i];
        v->solved[s][c][k] = claim_point_clears(&pts[i].stat[PM_ANSWER_ACCURACY], RECALL_SOLVED, +1, alpha);
    }
}

/* The cells past `after` whose point at (s, k) is undecided (finished:
   1) or has no finished run (finished: 0), ", "-separated into out. */
static size_t open_cells(const RecallView *v, int s, int k, int after, int finished, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int c = after + 1; c < v->n_cells && len < cap; c++) {
        const Point *p = v->at[s][c][k];
        if (!p || (p->stat[PM_ANSWER_ACCURACY].n > 0) != finished || (finished && v->solved[s][c][k] != 0)) continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", v->cell[c]);
    }
    return len;
}

void recall_largest(const RecallView *v, int s, int k, char *out, size_t cap)
{
    int largest = -1, finished = 0;
    for (int c = 0; c < v->n_cells; c++) {
        const Point *p = v->at[s][c][k];
        if (!p || p->stat[PM_ANSWER_ACCURACY].n == 0) continue;
        finished = 1;
        if (v->solved[s][c][k] > 0) largest = c;
    }
    if (!finished) {
        snprintf(out, cap, "-");
        return;
    }
    /* the larger cells that could still change it: undecided, or not trained yet */
    char undecided[160], unfinished[160];
    size_t nu = open_cells(v, s, k, largest, 1, undecided, sizeof undecided);
    size_t nf = open_cells(v, s, k, largest, 0, unfinished, sizeof unfinished);
    snprintf(out, cap, "%s%s%s%s%s%s%s", largest >= 0 ? v->cell[largest] : "none", nu || nf ? " (" : "", undecided,
             nu ? " undecided" : "", nu && nf ? "; " : "", unfinished, nf ? " no finished run)" : nu ? ")" : "");
}
