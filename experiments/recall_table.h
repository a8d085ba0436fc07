/*
 * recall_table.h — a recall sweep seen as Zoology's Figure 2 (Arora et al.
 * 2023): its points on multi-query associative recall (builtin:mqar) laid
 * out as series (an architecture, with any other coordinate but d and the
 * cell) x cells ((n, pairs), n_ctx then pairs ascending) x model widths d,
 * and which cells each series solves at each d: answer accuracy at least
 * RECALL_SOLVED, decided point by point by the threshold claims' one-sided
 * t test (claims.h claim_point_clears) at a level the caller gives.  The
 * report's table "the largest (n, pairs) solved" and the recall figure
 * (ui/draw/figure_build.h figure_recall) read it.
 *
 * Not for: judging claims (claims.h: a threshold or min_d claim is the
 * judged form of the same question) or drawing.
 */
#ifndef MIXBENCH_RECALL_TABLE_H
#define MIXBENCH_RECALL_TABLE_H

#include <stddef.h>

#include "experiments/points.h"
#include "experiments/recall_label.h"

/* Zoology's bar: a model solves an MQAR cell at answer accuracy 0.99. */
#define RECALL_SOLVED 0.99

enum { RECALL_MAX_SERIES = 16, RECALL_MAX_CELLS = 8, RECALL_MAX_D = 8, RECALL_LABEL = 96 };

typedef struct {
    int n_series, n_cells, n_d;
    char series[RECALL_MAX_SERIES][RECALL_LABEL];   /* "attention", "linattn feature_map=taylor" */
    char cell[RECALL_MAX_CELLS][32];                /* "(256, 16)" */
    int cell_n[RECALL_MAX_CELLS], cell_pairs[RECALL_MAX_CELLS];
    int d[RECALL_MAX_D];                            /* ascending */
    const Point *at[RECALL_MAX_SERIES][RECALL_MAX_CELLS][RECALL_MAX_D];   /* NULL: no such point */
    int solved[RECALL_MAX_SERIES][RECALL_MAX_CELLS][RECALL_MAX_D];       /* +1 solved, -1 decided not,
                                                                             0 undecided or unfinished */
} RecallView;

/* The MQAR points of pts[0..np) (those with a d coordinate) into v, each
   decided at level alpha; v->n_cells 0 when there are none.  Points past
   the limits above are left out. */
void recall_view(const Point *pts, int np, double alpha, RecallView *v);

/* The largest cell series s solves at d index k: "(128, 8)", "none", "-"
   (no finished point), followed by " ((256, 16) undecided)" when a larger
   cell is neither solved nor decided unsolved, and by the larger cells
   with no finished run yet: " ((128, 8) undecided; (256, 16) no finished
   run)", "(64, 4) ((64, 8) no finished run)". */
void recall_largest(const RecallView *v, int s, int k, char *out, size_t cap);

#endif
