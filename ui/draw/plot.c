/*
 * plot.c — the terminal plotting library declared in ui/draw/plot.h: a braille
 * canvas with Bresenham lines, 1-2-5 and log axis ticks, figure layout with
 * labelled axes, text output with an ASCII fallback, and sparklines.
 *
 * Not for: deciding what to plot (app/ and the UI screens pick the series)
 * or talking to a terminal.  Every function works on what it is given and
 * keeps no state between calls.
 */
#include "ui/draw/plot.h"

#include "engine/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TICKS 64

/* ---- canvas --------------------------------------------------------------- */

int plot_canvas_init(PlotCanvas *c, int cols, int rows, char *err)
{
    memset(c, 0, sizeof *c);
    if (cols < 1 || rows < 1)
        return err_set(err, "plot: canvas size %dx%d is empty", cols, rows);
    size_t cells = (size_t)cols * (size_t)rows;
    c->dots = calloc(cells, 1);
    c->series = calloc(cells, 1);
    c->glyph = calloc(cells, 1);
    c->fill = calloc(cells, 1);
    c->fill_kind = calloc(cells, 1);
    if (!c->dots || !c->series || !c->glyph || !c->fill || !c->fill_kind) {
        plot_canvas_free(c);
        return err_set(err, "plot: out of memory");
    }
    c->cols = cols;
    c->rows = rows;
    return 0;
}

void plot_canvas_free(PlotCanvas *c)
{
    free(c->dots);
    free(c->series);
    free(c->glyph);
    free(c->fill);
    free(c->fill_kind);
    memset(c, 0, sizeof *c);
}

unsigned char plot_braille_bit(int dx, int dy)
{
    /* Unicode numbers the dots 1-2-3 down the left column, 4-5-6 down the
       right, then 7 and 8 for the bottom row (added later, hence the jump). */
    static const unsigned char bits[4][2] = {
        {0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80},
    };
    if (dx < 0 || dx > 1 || dy < 0 || dy > 3)
        return 0;
    return bits[dy][dx];
}

void plot_canvas_dot(PlotCanvas *c, int x, int y, int series)
{
    if (x < 0 || y < 0 || x >= 2 * c->cols || y >= 4 * c->rows)
        return;
    size_t cell = (size_t)(y / 4) * (size_t)c->cols + (size_t)(x / 2);
    c->dots[cell] |= plot_braille_bit(x % 2, y % 4);
    c->series[cell] = (unsigned char)(series < 0 ? 0 : series > 254 ? 255 : series + 1);
    c->glyph[cell] = 0; /* what is drawn later shows on top, in ASCII too */
}

/* A dashed line's dots on, then off, along it: a gap of a whole braille
   cell or more shows whatever the slope. */
enum { DASH_ON = 4, DASH_OFF = 4 };

/* Bresenham from (x0, y0) to (x1, y1), both ends included; with phase, a
   dash pattern continued from *phase (the dots drawn along it so far). */
static void canvas_line(PlotCanvas *c, int x0, int y0, int x1, int y1, int series, int *phase)
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int e = dx + dy;
    for (;;) {
        if (!phase || (*phase)++ % (DASH_ON + DASH_OFF) < DASH_ON) plot_canvas_dot(c, x0, y0, series);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * e;
        if (e2 >= dy) {
            e += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            e += dx;
            y0 += sy;
        }
    }
}

void plot_canvas_line(PlotCanvas *c, int x0, int y0, int x1, int y1, int series)
{
    canvas_line(c, x0, y0, x1, y1, series, NULL);
}

void plot_canvas_marker(PlotCanvas *c, int x, int y, int series, char glyph)
{
    /* The whole cell: a full block (⣿) stands out from the thin curves. */
    if (x < 0 || y < 0 || x >= 2 * c->cols || y >= 4 * c->rows)
        return;
    int bx = x - (x & 1), by = y - (y & 3);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 2; i++)
            plot_canvas_dot(c, bx + i, by + j, series);
    c->glyph[(size_t)(y / 4) * (size_t)c->cols + (size_t)(x / 2)] = glyph ? glyph : 'o';
}

void plot_canvas_fill(PlotCanvas *c, int col, int row, int series, char kind)
{
    if (col < 0 || row < 0 || col >= c->cols || row >= c->rows)
        return;
    size_t cell = (size_t)row * (size_t)c->cols + (size_t)col;
    c->fill[cell] = (unsigned char)(series < 0 ? 0 : series > 254 ? 255 : series + 1);
    c->fill_kind[cell] = kind;
}

const char *plot_fill_text(char kind, int ascii)
{
    if (kind == PLOT_FILL_RULE)
        return ascii ? "-" : "╌";
    return ascii ? "~" : "░";
}

int plot_cell_utf8(unsigned char mask, char out[4])
{
    if (!mask) {
        out[0] = ' ';
        out[1] = 0;
        return 1;
    }
    /* U+2800 + mask in UTF-8: E2, A0 | mask >> 6, 80 | mask & 3F. */
    out[0] = (char)0xE2;
    out[1] = (char)(0xA0 | (mask >> 6));
    out[2] = (char)(0x80 | (mask & 0x3F));
    out[3] = 0;
    return 3;
}

char plot_cell_ascii(unsigned char mask)
{
    const unsigned char top = 0x01 | 0x08 | 0x02 | 0x10, bottom = 0x04 | 0x20 | 0x40 | 0x80;
    int t = (mask & top) != 0, b = (mask & bottom) != 0;
    return t && b ? ':' : t ? '\'' : b ? '.' : ' ';
}

/* The text of a canvas cell (at most 4 bytes and a NUL into text): a
   marker's glyph (ASCII, or glyph_markers), the braille / ASCII dots, else a
   fill (a rule or a shade); *series gets who drew it (0: nobody). */
static void canvas_cell_text(const PlotCanvas *c, size_t cell, int ascii, int glyph_markers, char text[5],
                             int *series)
{
    *series = c->dots[cell] ? c->series[cell] : 0;
    if ((ascii || glyph_markers) && c->glyph[cell]) {
        text[0] = c->glyph[cell];
        text[1] = 0;
    } else if (!c->dots[cell] && c->fill[cell]) {
        snprintf(text, 5, "%s", plot_fill_text(c->fill_kind[cell], ascii));
        *series = c->fill[cell];
    } else if (ascii) {
        text[0] = plot_cell_ascii(c->dots[cell]);
        text[1] = 0;
    } else {
        plot_cell_utf8(c->dots[cell], text);
    }
}

int plot_canvas_row_text(const PlotCanvas *c, int row, int ascii, char *out, size_t cap)
{
    if (cap < 1 || row < 0 || row >= c->rows)
        return -1;
    size_t len = 0;
    for (int col = 0; col < c->cols; col++) {
        size_t cell = (size_t)row * (size_t)c->cols + (size_t)col;
        char text[5];
        int who;
        canvas_cell_text(c, cell, ascii, 0, text, &who);
        size_t n = strlen(text);
        if (len + n + 1 > cap)
            return -1;
        memcpy(out + len, text, n);
        len += n;
    }
    out[len] = 0;
    return (int)len;
}

/* ---- ticks ---------------------------------------------------------------- */

/* m * 10^k computed so that decimal values come out as the nearest double
   (0.6, not 0.6000000000000001). */
static double decimal(double m, int k)
{
    return k >= 0 ? m * pow(10.0, k) : m / pow(10.0, -k);
}

int plot_nice_ticks(double lo, double hi, int max_ticks, double *ticks, int cap, double *step)
{
    if (step)
        *step = 0;
    if (!isfinite(lo) || !isfinite(hi) || hi < lo || max_ticks < 1 || cap < 1)
        return 0;
    if (hi == lo) {
        ticks[0] = lo;
        return 1;
    }
    static const int mult[3] = {1, 2, 5};
    int k = (int)floor(log10((hi - lo) / max_ticks)) - 1;
    for (int tries = 0; tries < 60; tries++, k++) {
        for (int m = 0; m < 3; m++) {
            double s = decimal(mult[m], k);
            double first = ceil(lo / s - 1e-9), last = floor(hi / s + 1e-9);
            double count = last - first + 1;
            if (count > max_ticks)
                continue;
            int n = 0;
            for (double i = first; i <= last && n < cap; i++) {
                double t = decimal(i * mult[m], k);
                ticks[n++] = t == 0 ? 0 : t; /* no -0 */
            }
            if (step)
                *step = s;
            return n;
        }
    }
    return 0;
}

/* Values m * 10^k inside [lo, hi] for m in mults, ascending. */
static int log_multiples(double lo, double hi, const int *mults, int n_mults, double *out, int cap)
{
    int n = 0;
    int k0 = (int)floor(log10(lo)) - 1, k1 = (int)ceil(log10(hi)) + 1;
    for (int k = k0; k <= k1; k++)
        for (int m = 0; m < n_mults; m++) {
            double v = decimal(mults[m], k);
            if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9) && n < cap)
                out[n++] = v;
        }
    return n;
}

int plot_log_ticks(double lo, double hi, int max_ticks, double *ticks, int cap)
{
    if (!(lo > 0) || !isfinite(hi) || hi < lo || max_ticks < 1 || cap < 1)
        return 0;
    static const int one[1] = {1}, one_two_five[3] = {1, 2, 5};
    double powers[MAX_TICKS * 4], fine[MAX_TICKS * 4];
    int n_pow = log_multiples(lo, hi, one, 1, powers, MAX_TICKS * 4);
    const double *pick = NULL;
    int n = 0;
    if (n_pow > max_ticks) {
        /* Many decades: every stride-th power, on exponents divisible by it. */
        for (int stride = 2; stride <= n_pow; stride++) {
            n = 0;
            for (int i = 0; i < n_pow; i++) {
                int e = (int)lround(log10(powers[i]));
                if (e % stride == 0)
                    fine[n++] = powers[i];
            }
            if (n <= max_ticks)
                break;
        }
        pick = fine;
    } else if (n_pow >= 3) {
        pick = powers;
        n = n_pow;
    } else {
        int n125 = log_multiples(lo, hi, one_two_five, 3, fine, MAX_TICKS * 4);
        if (n125 >= 3 && n125 <= max_ticks) {
            pick = fine;
            n = n125;
        } else {
            int n_lin = plot_nice_ticks(lo, hi, max_ticks, ticks, cap, NULL);
            if (n_lin >= 2)
                return n_lin;
            pick = n125 <= max_ticks && n125 > n_pow ? fine : powers;
            n = pick == fine ? n125 : n_pow;
        }
    }
    n = MB_MIN(n, cap);
    memcpy(ticks, pick, (size_t)n * sizeof *ticks);
    return n;
}

void plot_format_tick(double value, double step, char *out, size_t cap)
{
    if (step > 0 && fabs(value) < step * 1e-6)
        value = 0;
    if (step <= 0 || step >= 1e3) {
        /* Compact forms: a bare 0, not "0k". */
        if (value == 0)
            snprintf(out, cap, "0");
        else if (step >= 1e6)
            snprintf(out, cap, "%.0fM", value / 1e6);
        else if (step >= 1e3)
            snprintf(out, cap, "%.0fk", value / 1e3);
        else if (fabs(value) >= 1e6)
            snprintf(out, cap, "%.3gM", value / 1e6);
        else if (fabs(value) >= 1e3)
            snprintf(out, cap, "%.3gk", value / 1e3);
        else
            snprintf(out, cap, "%.3g", value);
    } else {
        int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        snprintf(out, cap, "%.*f", MB_MIN(decimals, 6), value);
    }
}

/* ---- figure layout ---------------------------------------------------------- */

static int point_ok(const PlotOptions *opt, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!opt->log_y || y > 0);
}

/* The y value as drawn: log10 on a log axis. */
static double y_axis_value(const PlotOptions *opt, double y)
{
    return opt->log_y ? log10(y) : y;
}

static void set_cell(PlotGrid *g, int row, int col, const char *text, int series)
{
    if (row < 0 || col < 0 || row >= g->rows || col >= g->cols)
        return;
    PlotCell *cell = &g->cells[(size_t)row * (size_t)g->cols + (size_t)col];
    snprintf(cell->text, sizeof cell->text, "%s", text);
    cell->series = (unsigned char)series;
}

static void set_label(PlotGrid *g, int row, int col, const char *label)
{
    for (int i = 0; label[i]; i++) {
        char ch[2] = {label[i], 0};
        set_cell(g, row, col + i, ch, 0);
    }
}

/* Ticks and their labels for one axis. */
typedef struct {
    int n;
    double at[MAX_TICKS];      /* positions on the axis (log10 on a log axis) */
    char label[MAX_TICKS][16];
} Ticks;

static void y_ticks(const PlotOptions *opt, double lo, double hi, int max_ticks, Ticks *t)
{
    double values[MAX_TICKS], step = 0;
    if (opt->log_y) {
        t->n = plot_log_ticks(pow(10.0, lo), pow(10.0, hi), max_ticks, values, MAX_TICKS);
    } else {
        t->n = plot_nice_ticks(lo, hi, max_ticks, values, MAX_TICKS, &step);
    }
    for (int i = 0; i < t->n; i++) {
        t->at[i] = y_axis_value(opt, values[i]);
        plot_format_tick(values[i], opt->log_y ? 0 : step, t->label[i], sizeof t->label[i]);
    }
}

static int x_dot(double x, double lo, double hi, int dots)
{
    return (int)lround((x - lo) / (hi - lo) * (dots - 1));
}

static int y_dot(double y, double lo, double hi, int dots)
{
    return (int)lround((hi - y) / (hi - lo) * (dots - 1));
}

/* X ticks at least 7 cells apart whose labels fit side by side, two blanks
   between them; the densest such set.  start[i] is where label i begins in
   the figure. */
static void x_ticks(double lo, double hi, int cols, int left, int width, Ticks *t, int *start)
{
    for (int max_ticks = MB_MAX(2, cols / 2); max_ticks >= 1; max_ticks--) {
        double values[MAX_TICKS], step;
        t->n = plot_nice_ticks(lo, hi, MB_MIN(max_ticks, MAX_TICKS), values, MAX_TICKS, &step);
        int fits = 1, prev_end = -2, prev_col = -7;
        for (int i = 0; i < t->n && fits; i++) {
            t->at[i] = values[i];
            plot_format_tick(values[i], step, t->label[i], sizeof t->label[i]);
            int len = (int)strlen(t->label[i]);
            int col = x_dot(values[i], lo, hi, 2 * cols) / 2;
            int s = MB_MAX(0, MB_MIN(left + col - len / 2, width - len));
            fits = s >= prev_end + 2 && col - prev_col >= 7;
            prev_end = s + len;
            prev_col = col;
            start[i] = s;
        }
        if (fits)
            return;
    }
    t->n = 0;
}

/* Data ranges over all valid points: x exact, y padded by 5%. */
static void data_ranges(const PlotOptions *opt, const PlotSeries *series, int n_series,
                        double *x_lo, double *x_hi, double *y_lo, double *y_hi)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int k = 0; k < n_series; k++) {
        const PlotSeries *s = &series[k];
        if (s->mark == PLOT_HLINE) { /* a level: the y range only */
            if (s->n > 0 && point_ok(opt, 0, s->y[0])) {
                ymin = MB_MIN(ymin, y_axis_value(opt, s->y[0]));
                ymax = MB_MAX(ymax, y_axis_value(opt, s->y[0]));
            }
            continue;
        }
        for (int i = 0; i < s->n; i++) {
            for (int edge = 0; edge < (s->mark == PLOT_BAND ? 2 : 1); edge++) {
                double x = s->x[i], y = s->y[edge * s->n + i];
                if (!point_ok(opt, x, y))
                    continue;
                y = y_axis_value(opt, y);
                xmin = MB_MIN(xmin, x);
                xmax = MB_MAX(xmax, x);
                ymin = MB_MIN(ymin, y);
                ymax = MB_MAX(ymax, y);
            }
        }
    }
    if (ymin <= ymax && xmin > xmax) { /* only levels: a unit x range */
        xmin = 0;
        xmax = 1;
    }
    if (xmin > xmax) { /* no data: an empty unit frame */
        xmin = ymin = 0;
        xmax = ymax = 1;
    }
    if (xmin == xmax) {
        double d = MB_MAX(0.5, fabs(xmin) * 0.05);
        xmin -= d;
        xmax += d;
    }
    if (ymin == ymax) {
        double d = opt->log_y ? 0.1 : ymin != 0 ? fabs(ymin) * 0.1 : 1;
        ymin -= d;
        ymax += d;
    } else {
        double pad = 0.05 * (ymax - ymin);
        ymin -= pad;
        ymax += pad;
    }
    *x_lo = xmin;
    *x_hi = xmax;
    *y_lo = ymin;
    *y_hi = ymax;
}

/* A band's cells: every dot column between two points, from the upper
   edge y[n + i] to the lower y[i] (both interpolated), each cell they cross shaded. */
static void draw_band(const PlotOptions *opt, const PlotSeries *s, int k, PlotCanvas *c,
                      double x_lo, double x_hi, double y_lo, double y_hi)
{
    int have_prev = 0, px = 0;
    double plo = 0, phi = 0;
    for (int i = 0; i < s->n; i++) {
        if (!point_ok(opt, s->x[i], s->y[i]) || !point_ok(opt, s->x[i], s->y[s->n + i])) {
            have_prev = 0;
            continue;
        }
        int x = x_dot(s->x[i], x_lo, x_hi, 2 * c->cols);
        double lo = y_axis_value(opt, s->y[i]), hi = y_axis_value(opt, s->y[s->n + i]);
        int from = have_prev ? MB_MIN(px, x) : x, to = have_prev ? MB_MAX(px, x) : x;
        for (int xd = from; xd <= to; xd++) {
            double t = to > from ? (double)(xd - px) / (x - px) : 1;
            double a = have_prev ? plo + t * (lo - plo) : lo, b = have_prev ? phi + t * (hi - phi) : hi;
            int top = y_dot(MB_MAX(a, b), y_lo, y_hi, 4 * c->rows) / 4;
            int bottom = y_dot(MB_MIN(a, b), y_lo, y_hi, 4 * c->rows) / 4;
            for (int row = top; row <= bottom; row++)
                plot_canvas_fill(c, xd / 2, row, k, PLOT_FILL_SHADE);
        }
        have_prev = 1;
        px = x;
        plo = lo;
        phi = hi;
    }
}

static void draw_series(const PlotOptions *opt, const PlotSeries *s, int k, PlotCanvas *c,
                        double x_lo, double x_hi, double y_lo, double y_hi)
{
    if (s->mark == PLOT_HLINE) {
        if (s->n < 1 || !point_ok(opt, 0, s->y[0]))
            return;
        int row = y_dot(y_axis_value(opt, s->y[0]), y_lo, y_hi, 4 * c->rows) / 4;
        for (int col = 0; col < c->cols; col++)
            plot_canvas_fill(c, col, row, k, PLOT_FILL_RULE);
        return;
    }
    if (s->mark == PLOT_BAND) {
        draw_band(opt, s, k, c, x_lo, x_hi, y_lo, y_hi);
        return;
    }
    int have_prev = 0, px = 0, py = 0, phase = 0;
    for (int i = 0; i < s->n; i++) {
        if (!point_ok(opt, s->x[i], s->y[i])) {
            have_prev = 0; /* a gap in the data breaks the line */
            continue;
        }
        int x = x_dot(s->x[i], x_lo, x_hi, 2 * c->cols);
        int y = y_dot(y_axis_value(opt, s->y[i]), y_lo, y_hi, 4 * c->rows);
        if (s->mark == PLOT_MARKERS)
            plot_canvas_marker(c, x, y, k, s->marker);
        else if (s->mark == PLOT_LINE && have_prev)
            plot_canvas_line(c, px, py, x, y, k);
        else if (s->mark == PLOT_DASHED) {
            if (have_prev) /* the end it shares with the last segment keeps its place in the dash */
                phase--;
            canvas_line(c, have_prev ? px : x, have_prev ? py : y, x, y, k, &phase);
        }
        else
            plot_canvas_dot(c, x, y, k);
        have_prev = 1;
        px = x;
        py = y;
    }
}

int plot_render_grid(const PlotOptions *opt, const PlotSeries *series, int n_series,
                     PlotGrid *out, char *err)
{
    memset(out, 0, sizeof *out);
    if (!opt || opt->width < 12 || opt->height < 4)
        return err_set(err, "plot: a figure needs at least 12x4 cells");
    if (n_series < 0 || (n_series > 0 && !series))
        return err_set(err, "plot: bad series count %d", n_series);
    for (int k = 0; k < n_series; k++) {
        const PlotSeries *s = &series[k];
        int needs_x = s->mark != PLOT_HLINE;
        if (s->n < 0 || (s->n > 0 && ((needs_x && !s->x) || !s->y)))
            return err_set(err, "plot: series %d has no data arrays", k);
    }

    double x_lo, x_hi, y_lo, y_hi;
    data_ranges(opt, series, n_series, &x_lo, &x_hi, &y_lo, &y_hi);

    int rows = opt->height - 2; /* the x axis and its labels take two rows */
    Ticks yt;
    y_ticks(opt, y_lo, y_hi, MB_MIN(MAX_TICKS, MB_MAX(2, rows / 2 + 1)), &yt);
    int label_w = 1;
    for (int i = 0; i < yt.n; i++)
        label_w = MB_MAX(label_w, (int)strlen(yt.label[i]));
    int cols = opt->width - label_w - 1;
    if (cols < 4)
        return err_set(err, "plot: %d columns leave no room for the curve", opt->width);

    PlotCanvas canvas;
    if (plot_canvas_init(&canvas, cols, rows, err))
        return -1;
    for (int k = 0; k < n_series; k++)
        draw_series(opt, &series[k], k, &canvas, x_lo, x_hi, y_lo, y_hi);

    out->cols = opt->width;
    out->rows = opt->height;
    out->cells = calloc((size_t)out->cols * (size_t)out->rows, sizeof *out->cells);
    if (!out->cells) {
        plot_canvas_free(&canvas);
        return err_set(err, "plot: out of memory");
    }
    for (int r = 0; r < out->rows; r++)
        for (int c = 0; c < out->cols; c++)
            set_cell(out, r, c, " ", 0);

    const int ascii = opt->ascii;
    int tick_row[MAX_TICKS], last_row = -1;
    for (int i = 0; i < yt.n; i++) {
        int row = y_dot(yt.at[i], y_lo, y_hi, 4 * rows) / 4;
        tick_row[i] = row;
        if (row == last_row || row < 0 || row >= rows)
            continue; /* two ticks in one row: keep the first label */
        last_row = row;
        int len = (int)strlen(yt.label[i]);
        set_label(out, row, label_w - len, yt.label[i]);
    }
    for (int r = 0; r < rows; r++) {
        int is_tick = 0;
        for (int i = 0; i < yt.n; i++)
            is_tick |= tick_row[i] == r;
        set_cell(out, r, label_w, is_tick ? (ascii ? "+" : "┤") : (ascii ? "|" : "│"), 0);
        for (int c = 0; c < cols; c++) {
            char text[5];
            int who;
            size_t cell = (size_t)r * (size_t)cols + (size_t)c;
            canvas_cell_text(&canvas, cell, ascii, opt->glyph_markers, text, &who);
            /* ASCII: a line (its glyph, '*' by default) apart from a cloud of dots ('.', ':') */
            if (ascii && who > 0 && who <= n_series && series[who - 1].mark == PLOT_LINE && canvas.dots[cell] &&
                !canvas.glyph[cell])
                snprintf(text, sizeof text, "%c", series[who - 1].marker ? series[who - 1].marker : '*');
            set_cell(out, r, label_w + 1 + c, text, who);
        }
    }

    Ticks xt;
    int x_start[MAX_TICKS];
    x_ticks(x_lo, x_hi, cols, label_w + 1, opt->width, &xt, x_start);
    set_cell(out, rows, label_w, ascii ? "+" : "└", 0);
    for (int c = 0; c < cols; c++)
        set_cell(out, rows, label_w + 1 + c, ascii ? "-" : "─", 0);
    for (int i = 0; i < xt.n; i++) {
        set_cell(out, rows, label_w + 1 + x_dot(xt.at[i], x_lo, x_hi, 2 * cols) / 2,
                 ascii ? "+" : "┬", 0);
        set_label(out, rows + 1, x_start[i], xt.label[i]);
    }
    plot_canvas_free(&canvas);
    return 0;
}

void plot_grid_free(PlotGrid *g)
{
    free(g->cells);
    memset(g, 0, sizeof *g);
}

int plot_grid_text(const PlotGrid *g, const int *colors, int n_colors, char **out, char *err)
{
    *out = NULL;
    /* Per cell at most 4 bytes of text and a colour escape of 8. */
    size_t cap = (size_t)g->rows * ((size_t)g->cols * 12 + 8) + 1;
    char *text = malloc(cap), *p = text;
    if (!text)
        return err_set(err, "plot: out of memory");
    for (int r = 0; r < g->rows; r++) {
        const PlotCell *row = &g->cells[(size_t)r * (size_t)g->cols];
        int end = g->cols;
        while (end > 0 && strcmp(row[end - 1].text, " ") == 0)
            end--;
        int color = 0;
        for (int c = 0; c < end; c++) {
            int k = row[c].series - 1;
            int want = colors && k >= 0 && k < n_colors ? colors[k] : 0;
            if (want != color) {
                p += want ? sprintf(p, "\033[%dm", want) : sprintf(p, "\033[0m");
                color = want;
            }
            size_t len = strlen(row[c].text);
            memcpy(p, row[c].text, len);
            p += len;
        }
        if (color)
            p += sprintf(p, "\033[0m");
        *p++ = '\n';
    }
    *p = 0;
    *out = text;
    return 0;
}

int plot_render(const PlotOptions *opt, const PlotSeries *series, int n_series, char **out,
                char *err)
{
    *out = NULL;
    PlotGrid grid;
    if (plot_render_grid(opt, series, n_series, &grid, err))
        return -1;
    int colors[256] = {0};
    int n_colors = MB_MIN(n_series, 256);
    for (int k = 0; k < n_colors; k++)
        colors[k] = series[k].color;
    int rc = plot_grid_text(&grid, opt->ansi_color ? colors : NULL, n_colors, out, err);
    plot_grid_free(&grid);
    return rc;
}

/* ---- sparklines ------------------------------------------------------------ */

/* The mean of the finite values in bucket b of len over values[0..n), or NAN. */
static double bucket_mean(const double *values, int n, int len, int b)
{
    int from = (int)((long long)b * n / len), to = (int)((long long)(b + 1) * n / len);
    double sum = 0;
    int count = 0;
    for (int i = from; i < to; i++)
        if (isfinite(values[i])) {
            sum += values[i];
            count++;
        }
    return count ? sum / count : NAN;
}

int plot_sparkline(const double *values, int n, int width, int ascii, char *out, size_t cap)
{
    static const char *const bars[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char ramp[9] = "_.-:=+*#";
    if (cap < 1)
        return -1;
    out[0] = 0;
    if (n <= 0 || width <= 0 || !values)
        return 0;
    int len = MB_MIN(n, width);
    if ((size_t)len * (ascii ? 1 : 3) + 1 > cap)
        return -1;

    /* Two passes over the buckets (range, then levels) instead of a buffer:
       a sparkline is short and this keeps the function allocation-free. */
    double lo = INFINITY, hi = -INFINITY;
    for (int b = 0; b < len; b++) {
        double m = bucket_mean(values, n, len, b);
        if (!isnan(m)) {
            lo = MB_MIN(lo, m);
            hi = MB_MAX(hi, m);
        }
    }
    char *p = out;
    for (int b = 0; b < len; b++) {
        double m = bucket_mean(values, n, len, b);
        if (isnan(m)) {
            *p++ = ' ';
            continue;
        }
        int level = hi > lo ? (int)lround((m - lo) / (hi - lo) * 7) : 3;
        if (ascii) {
            *p++ = ramp[level];
        } else {
            memcpy(p, bars[level], 3);
            p += 3;
        }
    }
    *p = 0;
    return (int)(p - out);
}
