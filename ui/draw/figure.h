/*
 * figure.h — a figure for papers and reports, described as data and drawn
 * by cairo into SVG, PDF or PNG (the file's extension chooses; one drawing
 * code for the three): a title; note lines under it (what ran, the config
 * the runs share and where they differ); then either plots side by side
 * (axes with units and 1-2-5 ticks that enclose the data, a linear or log
 * y and x, lines, markers, shaded bands, dashed reference levels, fitted
 * curves drawn thin in a dash of their own and crosses where fits meet, one legend
 * under them; series of different colours differ by dash pattern and
 * marker shape too) or a heatmap (each cell's value and a second line such as
 * the paper's figure, shaded worse to better, the best cell outlined, a
 * colour scale) or parallel coordinates (an axis per knob, a line per run,
 * coloured worse to better, tick labels cut with "…" before the axis on
 * their left); and lines under everything (the claims' verdicts, in
 * their colours).  Long lines are word-wrapped; a wide heatmap widens the
 * page.
 *
 * SVG: cairo draws text as glyph outlines, so that a figure's numbers can
 * still be searched, selected and read by scripts the SVG also carries
 * every piece of text as an invisible <text> element at its place, in one
 * group (id "figure-text"), each with a class saying what it is: title,
 * note, panel, xtick, ytick, xlabel, ylabel, legend, row, col, cell,
 * detail, scale, footer (parallel coordinates: axis, ytick).
 *
 * Not for: reading the store (ui/draw/figure_build.h makes figures from
 * it) or terminals (ui/draw/plot.h).  No global state of our own; cairo's
 * font caches are process-wide (figure_cleanup frees them).
 */
#ifndef MIXBENCH_FIGURE_H
#define MIXBENCH_FIGURE_H

#include <stddef.h>

typedef enum {
    FIG_LINE,      /* consecutive points joined; a non-finite y breaks the line */
    FIG_MARKERS,   /* a filled circle per point */
    FIG_BAND,      /* y holds 2n values, the lower edge y[0..n) and the upper y[n..2n), shaded */
    FIG_LEVEL,     /* a dashed horizontal line at y[0] across the plot (x unused) */
    FIG_FIT,       /* a fitted curve where there is no data: joined as a line, thin,
                      in one dash pattern no data line has (every colour the same);
                      n 0 with a label: only the legend's sample (in gray) */
    FIG_CROSS      /* an x at each point (where two fits cross), drawn over everything */
} FigMark;

/* The palette: series colour k is FIG_PALETTE[k % 12]; FIG_GRAY for levels. */
enum { FIG_GRAY = -1, FIG_COLORS = 12 };

typedef enum { FIG_TONE_PLAIN, FIG_TONE_DIM, FIG_TONE_GOOD, FIG_TONE_BAD, FIG_TONE_WARN } FigTone;

typedef struct {
    FigMark mark;
    int color;               /* palette index, FIG_GRAY; a line's dash pattern and a
                                marker's shape go with it (solid and circles for 0) */
    int faint;               /* thin and light: a raw curve under its smoothed one */
    char label[256];         /* the legend's text; "" keeps the series out of it */
    double *x, *y;           /* owned copies: n points (2n y values for a band) */
    int n;
} FigSeries;

typedef struct {
    char title[96];          /* over the plot; "" none */
    char x_label[64], y_label[64];   /* with units: "training tokens", "loss (nats per token)" */
    int log_y;
    int log_x;               /* log10 x: points at x <= 0 are left out */
    FigSeries *series;
    int n_series, cap_series;
} FigPlot;

typedef struct {
    char value[64];          /* "5.123 ± 0.010"; "" none */
    char detail[64];         /* a second, smaller line: "paper 1.49", "running 45%" */
    double shade;            /* the value the cell is shaded by; NAN: not shaded */
    int best;
} FigCell;

enum { FIG_LABEL_LEN = 48 };

typedef struct {
    char row_axis[64], col_axis[64];
    char scale_label[96];    /* under the colour scale: "test loss (nats per token)" */
    int higher_better;
    int rows, cols;
    char (*row_labels)[FIG_LABEL_LEN], (*col_labels)[FIG_LABEL_LEN];
    FigCell *cells;          /* [rows * cols], row-major */
} FigHeatmap;

/* Parallel coordinates: vertical axes side by side, each named on top with
   its tick labels beside it; a polyline per line through its places (0
   bottom .. 1 top), coloured worse to better by its shade, or faint gray
   when brushed out; a brushed span shaded on its axis; a colour scale. */
enum { FIG_PAR_MAX_AXES = 16, FIG_PAR_MAX_TICKS = 64 };

typedef struct {
    char name[64];
    int n_ticks;
    char tick[FIG_PAR_MAX_TICKS][FIG_LABEL_LEN];
    double tick_pos[FIG_PAR_MAX_TICKS];   /* 0 bottom .. 1 top */
    double brush_lo, brush_hi;            /* the span kept (0..1); NAN: the whole axis */
} FigParAxis;

typedef struct {
    int n_axes;
    FigParAxis axes[FIG_PAR_MAX_AXES];
    int n_lines;
    double *pos;             /* [n_lines * n_axes]; NAN: the line skips that axis */
    double *shade;           /* [n_lines]: the value it is coloured by */
    unsigned char *kept;     /* [n_lines]: 0 drawn faint gray (brushed out) */
    char scale_label[96];
    int higher_better;
} FigParallel;

typedef struct {
    char *text;              /* owned */
    FigTone tone;
} FigLine;

typedef struct {
    char title[256];
    FigLine *notes;          /* under the title */
    int n_notes, cap_notes;
    FigPlot *plots;          /* side by side */
    int n_plots, cap_plots;
    FigHeatmap *heatmap;     /* NULL: none */
    FigParallel *parallel;   /* NULL: none */
    FigLine *footer;         /* under everything */
    int n_footer, cap_footer;
} Figure;

void figure_init(Figure *f);
void figure_free(Figure *f);

/* A line of text under the title / at the bottom; -1 when out of memory. */
int figure_note(Figure *f, FigTone tone, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int figure_footer(Figure *f, FigTone tone, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A new plot right of the others (NULL when out of memory). */
FigPlot *figure_add_plot(Figure *f, const char *title, const char *x_label, const char *y_label, int log_y);
/* A series of n points copied from x and y (a band: 2n y values; a level:
   y[0], x may be NULL); NULL when out of memory.  Its label starts empty. */
FigSeries *fig_plot_series(FigPlot *p, FigMark mark, int color, const double *x, const double *y, int n);

/* The heatmap of rows x cols empty cells (shade NAN); NULL when out of memory. */
FigHeatmap *figure_set_heatmap(Figure *f, int rows, int cols);

/* Parallel coordinates of n_axes (<= FIG_PAR_MAX_AXES) empty axes and
   n_lines lines (every line kept, places NAN); NULL when out of memory. */
FigParallel *figure_set_parallel(Figure *f, int n_axes, int n_lines);

typedef enum { FIG_SVG, FIG_PDF, FIG_PNG } FigFormat;

/* The format a path's extension names (.svg, .pdf, .png, any case); -1
   with a message naming the path otherwise. */
int figure_format_of(const char *path, FigFormat *format, char *err);

/* The page width in points (1/72 inch); a wide heatmap makes it wider.  A
   PNG has FIGURE_PNG_SCALE pixels a point. */
#define FIGURE_WIDTH 720.0
#define FIGURE_PNG_SCALE 2

/* Draws f into path, in the format of its extension.  A path that cannot
   be written is an error before anything is drawn; a failed drawing
   leaves no file. */
int figure_write(const Figure *f, const char *path, char *err);

/* Frees cairo's font caches: for leak checkers, before a process that drew
   figures exits (no figure may be being drawn). */
void figure_cleanup(void);

#endif
