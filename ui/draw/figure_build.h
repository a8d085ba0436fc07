/*
 * figure_build.h — the workbench's figures made from the store, as
 * figure.h describes them: the Run figure (a run's loss curves: the raw
 * and smoothed train loss, the valid evaluations, its data's unigram
 * level), the Compare figure (several runs, a seed group drawn as its mean
 * with a band of +- standard error, a legend of the config keys in which
 * they differ and a note of those they share), the Grid figure (a sweep's
 * metric as a heatmap over two of its axes: each cell's mean +- standard
 * error, the paper's figure under it, the claims' verdicts below) and the
 * AE/Bidir figure (a panel per architecture, a band per point; its note
 * says what the runs are: their budget and sizes from their configs) and
 * the recall figure (answer accuracy against d, a panel per MQAR cell).
 * `mixbench plot`, the screens' P key and `mixbench report --md` draw them.
 *
 * Not for: drawing (figure.h) or the terminal screens' own layouts.  Every
 * function reads the store only; on failure the figure is left empty (and
 * freeable) and err says why in one line.
 */
#ifndef MIXBENCH_FIGURE_BUILD_H
#define MIXBENCH_FIGURE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "db/results.h"
#include "db/store.h"
#include "ui/draw/figure.h"
#include "ui/draw/run_curve.h"

/* Run run_id's curves against steps, tokens or training time. */
int figure_run(Store *s, int64_t run_id, CurveAxis x, int log_y, Figure *f, char *err);

/* How Compare treats seeds. */
typedef enum {
    COMPARE_RUNS,     /* each run its own curve */
    COMPARE_POOL,     /* the runs given that are seeds of one point (one seed
                         group) are drawn as one mean with its +- se band */
    COMPARE_GROUPS    /* each run stands for its whole seed group in the store */
} CompareSeeds;

enum { FIGURE_MAX_CURVES = 8 };   /* runs or groups a Compare figure draws (a colour each) */

/* How the curve figures (Compare, AE/Bidir) draw, or'd together (0: a
   linear y, no fits; 1 is a log y, as the log_y they took before).
   FIGURE_FITS: each curve's valid evaluations (a seed group's: every
   member's, the finished members' once some finished) fitted, L = E + A
   t^-a against training tokens (ui/draw/curve_fits.h), and the fit drawn
   thin and dashed from its last evaluation to 10x it (FIT_HORIZON), an x
   where two fits cross there; the x axis is then training tokens, log
   scaled (x given is ignored), so that the 10x past the budget and the
   curves before it both read; a note names the curves with too few
   evaluations to fit (fewer than 4). */
enum { FIGURE_LOG_Y = 1, FIGURE_FITS = 2 };

int figure_compare(Store *s, const int64_t *ids, int n, CompareSeeds seeds, CurveAxis x, int flags, Figure *f,
                   char *err);

/* What the Grid figure shows of a sweep. */
typedef struct {
    int64_t sweep_id;
    int metric;               /* a PointMetric; -1: the one the preset's paper reports
                                 (experiments/points.h preset_paper_metric), test loss
                                 outside a preset */
    const char *rows, *cols;  /* axis keys; NULL: the Grid screen's (experiments/pivot.h
                                 pivot_default_axes: down the first axis that varies on
                                 its own, across the next, not its zipped partner) */
    const char *at;           /* "key=value ...": those axes fixed at those values, the
                                 others averaged ("key=all", "": averaged); NULL: the Grid
                                 screen's view (pivot_default_fixed: each free axis at
                                 its first value); seeds always averaged, an axis zipped
                                 with a shown one follows it */
} GridView;

int figure_grid(Store *s, const GridView *v, Figure *f, char *err);
/* figure_grid as the report draws it: rows and columns not named put arch
   across (the papers' comparison), else the first axis that may go, and
   down the next. */
int figure_grid_report(Store *s, const GridView *v, Figure *f, char *err);

/* What the parallel coordinates figure shows of a sweep
   (experiments/parallel.h). */
typedef struct {
    int64_t sweep_id;
    int metric;               /* a PointMetric; -1: as GridView's */
    int groups;               /* 1: a line per seed group (its mean), 0: per run */
    const char *ranges;       /* brushes, "KEY=LO..HI ..." (parallel_parse_ranges); NULL: none */
} ParallelView;

/* The sweep's axes that vary and the metric as vertical axes, a line per
   finished run or seed group coloured by the metric, the lines outside the
   brushes faint. */
int figure_parallel(Store *s, const ParallelView *v, Figure *f, char *err);

/* A config value as a legend or note shows it: a real-valued key's number
   in 4 significant digits (emb_std 11.313708498984761: "11.31"), any other
   as stored ("" as "-"). */
void figure_config_value(const char *key, const char *value, char *out, size_t cap);

/* The unit of a PointMetric, for axis and scale labels ("nats per token"). */
const char *figure_metric_unit(int m);

/* A sweep's points (runs equal apart from seed) as mean curves with +- se
   bands, a panel per architecture (masked mixer, attention, the others):
   the smoothed train loss, or the valid loss, against steps (with
   FIGURE_FITS: training tokens, and a cross where two points' fits cross
   shown in the panel of each). */
int figure_ae(Store *s, int64_t sweep_id, int valid_curves, int flags, Figure *f, char *err);

/* 1 for the presets the AE/Bidir screen and figure are for (autoencoder,
   bidirectional, completion). */
int figure_ae_preset(const char *preset);

/* The recall figure of a sweep (Zoology's Figure 2 layout,
   ui/draw/figure_recall.c): answer accuracy against d, a panel per MQAR
   cell (n, pairs), a line per architecture (mean +- se over seeds), the
   0.99 bar dashed, the claims' verdicts under it.  A sweep without MQAR
   points at two widths or more leaves f without plots (and returns 0). */
int figure_recall(Store *s, int64_t sweep_id, Figure *f, char *err);

/* The claims of the sweep's study (experiments/claims.h) judged on it, a
   footer line each in the verdict's colour; none for a sweep that is not a
   study's.  A study file's sweep is judged by the text stored with it
   (experiments/study.h study_of_sweep). */
int figure_add_verdicts(Figure *f, Store *s, const char *sweep_name, int64_t sweep_id, char *err);

/* The preset of a sweep name ("pairconnect-grid@paper": "pairconnect-grid"). */
void figure_sweep_preset(const char *sweep_name, char *out, size_t cap);

/* The sweep (an error naming it when it is not in the store) and its
   preset (figure_sweep_preset of what it was queued from: a renamed
   preset sweep keeps its paper); the studies stored with the store's
   sweeps are known from then on (studies_from_store), so a sweep of a
   study file since deleted has its claims and figures. */
int figure_load_sweep(Store *s, int64_t sweep_id, SweepRow *sw, char preset[64], char *err);

/* Where a screen writes its figure: "DIR/STEM-NAME.svg" beside the store
   at db_path (mixbench.db, run 12: mixbench-run12.svg). */
void figure_path_beside(const char *db_path, const char *name, char *out, size_t cap);

#endif
