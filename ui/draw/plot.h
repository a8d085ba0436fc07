/*
 * plot.h — line plots and sparklines for terminals, rendered into text: a
 * braille canvas (U+2800 + one bit per dot, 2x4 dots a cell, so an 80x24
 * terminal still shows a readable loss curve), axes with 1-2-5 ticks on a
 * linear or log y scale, and an ASCII fallback for terminals without UTF-8.
 *
 * Not for: terminals themselves.  Nothing here writes to a screen or knows
 * ncurses: the CLI prints the strings, a ncurses widget draws the grid cell
 * by cell (each cell says which series drew it, for colour).  Pure functions
 * over caller-owned data; no global state.
 *
 * Coordinates: dot (x, y) has x in [0, 2*cols) from the left and y in
 * [0, 4*rows) from the top.  Braille dot bits inside a cell, (dx, dy):
 *   (0,0)=0x01 (0,1)=0x02 (0,2)=0x04 (0,3)=0x40
 *   (1,0)=0x08 (1,1)=0x10 (1,2)=0x20 (1,3)=0x80
 */
#ifndef MIXBENCH_PLOT_H
#define MIXBENCH_PLOT_H

#include <stddef.h>

/* ---- braille canvas ----------------------------------------------------- */

typedef struct {
    int cols, rows;          /* size in cells */
    unsigned char *dots;     /* [rows * cols] braille dot masks */
    unsigned char *series;   /* [rows * cols] 0 = empty, k + 1 = series k drew last */
    char *glyph;             /* [rows * cols] ASCII marker shown, 0 = none */
    unsigned char *fill;     /* [rows * cols] 0 = none, k + 1 = series k fills the cell */
    char *fill_kind;         /* [rows * cols] PLOT_FILL_RULE or PLOT_FILL_SHADE */
} PlotCanvas;

/* What fills a cell that no dot or marker took: a reference line's dash or
   a band's shade (shown under every curve). */
enum { PLOT_FILL_RULE = 'r', PLOT_FILL_SHADE = 's' };

int plot_canvas_init(PlotCanvas *c, int cols, int rows, char *err);
void plot_canvas_free(PlotCanvas *c);

/* The bit of dot (dx, dy) within a cell, dx in 0..1, dy in 0..3. */
unsigned char plot_braille_bit(int dx, int dy);

/* Dots outside the canvas are ignored, so callers may draw past the edges.
   A dot clears the cell's marker glyph: what is drawn last shows. */
void plot_canvas_dot(PlotCanvas *c, int x, int y, int series);
/* Bresenham line from (x0, y0) to (x1, y1), both ends included. */
void plot_canvas_line(PlotCanvas *c, int x0, int y0, int x1, int y1, int series);
/* A point marker: the whole cell of dot (x, y) (⣿) in braille, glyph in
   ASCII. */
void plot_canvas_marker(PlotCanvas *c, int x, int y, int series, char glyph);
/* Fills cell (col, row) with kind (PLOT_FILL_RULE, PLOT_FILL_SHADE) for
   series; it shows only while the cell has no dot and no marker.  Cells
   outside the canvas are ignored. */
void plot_canvas_fill(PlotCanvas *c, int col, int row, int series, char kind);
/* The text of a fill: "╌" / "-" for a rule, "░" / "~" for a shade. */
const char *plot_fill_text(char kind, int ascii);

/* A cell as text: braille writes 3 UTF-8 bytes (U+2800 + mask; an empty
   cell is a space) and returns the byte count; ASCII maps the dots to ' ',
   '\'' (top half), '.' (bottom half) or ':' (both). */
int plot_cell_utf8(unsigned char mask, char out[4]);
char plot_cell_ascii(unsigned char mask);

/* One canvas row as NUL-terminated text (braille, or ASCII with markers'
   glyphs); returns its length in bytes, -1 when cap is too small. */
int plot_canvas_row_text(const PlotCanvas *c, int row, int ascii, char *out, size_t cap);

/* ---- axes ---------------------------------------------------------------- */

/* Ticks at multiples of a 1-2-5 step inside [lo, hi]: the smallest such
   step giving at most max_ticks ticks.  Writes up to cap ticks, returns the
   count (0 for an empty or invalid range); *step gets the step. */
int plot_nice_ticks(double lo, double hi, int max_ticks, double *ticks, int cap, double *step);

/* Ticks for a log axis over the values [lo, hi] (both > 0): powers of ten
   when the range holds at least 3, else 1-2-5 multiples of them, else
   linear 1-2-5 ticks; never more than max_ticks. */
int plot_log_ticks(double lo, double hi, int max_ticks, double *ticks, int cap);

/* A tick label: as many decimals as step needs ("0.2", "2.5", "100"), "k"
   and "M" suffixes for steps of thousands ("20k"); step <= 0 formats the
   value alone in at most 3 significant digits (log axes: "0.01", "1k"). */
void plot_format_tick(double value, double step, char *out, size_t cap);

/* ---- figures ------------------------------------------------------------- */

typedef enum {
    PLOT_LINE,     /* consecutive points joined (in ASCII its marker glyph, '*' when 0) */
    PLOT_DOTS,     /* one dot per point (a noisy raw curve as a cloud) */
    PLOT_MARKERS,  /* a full cell (⣿) per point, the marker glyph in ASCII */
    PLOT_HLINE,    /* a horizontal reference line at y[0] across the whole
                      figure, dashed ("╌", ASCII "-"), under every curve; x
                      may be NULL; its level counts in the y range only */
    PLOT_BAND,     /* y holds 2n values, the lower edge y[0..n) and the upper
                      y[n..2n); the area between them over x is shaded
                      ("░", ASCII "~") under every curve */
    PLOT_DASHED    /* consecutive points joined by a dashed line: 4 dots on, 4
                      off along it (a fit past the data, not data) */
} PlotMark;

typedef struct {
    const double *x, *y;     /* n points; non-finite values are skipped */
    int n;
    PlotMark mark;
    char marker;             /* ASCII glyph of PLOT_MARKERS ('o' when 0) and of
                                PLOT_LINE ('*' when 0: give curves distinct ones) */
    int color;               /* ANSI SGR colour for coloured text (e.g. 36), 0 = none */
} PlotSeries;

typedef struct {
    int width, height;       /* the whole figure in cells, axis labels included */
    int log_y;               /* log10 y axis; values <= 0 are left out */
    int ascii;               /* no UTF-8: ASCII characters only */
    int ansi_color;          /* plot_render: colour series with ANSI escapes */
    int glyph_markers;       /* markers as their glyph in UTF-8 too (no colours to tell series apart) */
} PlotOptions;

typedef struct {
    char text[5];            /* one character, UTF-8, NUL-terminated */
    unsigned char series;    /* 0 = axis, label or blank; k + 1 = series k */
} PlotCell;

typedef struct {
    int cols, rows;
    PlotCell *cells;         /* [rows * cols] */
} PlotGrid;

/* Lays out the figure: y labels and axis on the left, the canvas, the x axis
   and its labels on the last two rows.  Series are drawn in order, so a
   later series shows on top of an earlier one.  The y range is the data's
   with 5% padding, the x range exactly the data's. */
int plot_render_grid(const PlotOptions *opt, const PlotSeries *series, int n_series,
                     PlotGrid *out, char *err);
void plot_grid_free(PlotGrid *g);

/* The grid as text, one line per row, each ending in '\n' (trailing blanks
   trimmed), malloc'd into *out.  colors[k] is an ANSI SGR code for series k
   (0 = none); colors may be NULL for plain text. */
int plot_grid_text(const PlotGrid *g, const int *colors, int n_colors, char **out, char *err);

/* plot_render_grid + plot_grid_text, coloured by the series' colors when
   opt->ansi_color is set. */
int plot_render(const PlotOptions *opt, const PlotSeries *series, int n_series, char **out,
                char *err);

/* ---- sparklines ---------------------------------------------------------- */

/* A one-line history of values in at most width characters (▁▂▃▄▅▆▇█, or
   "_.-:=+*#" in ASCII), each the mean of its share of the values, scaled
   from their min to max (all equal: mid height; no finite value: ' ').
   Writes NUL-terminated text into out and returns its length in bytes, or
   -1 when cap is too small (3 * width + 1 bytes always suffice). */
int plot_sparkline(const double *values, int n, int width, int ascii, char *out, size_t cap);

#endif
