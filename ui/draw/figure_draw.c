/*
 * figure_draw.c — figure_write of figure.h: a figure laid out and drawn
 * with cairo.  One function lays out and draws a figure (render); it runs
 * twice, first only measuring (on a scratch surface, to learn the page's
 * size, which SVG and PDF surfaces need up front), then drawing on the
 * surface of the file's format.  Axes reuse the terminal plots' ticks
 * (ui/draw/plot.h), extended to the enclosing ticks so that the tick labels
 * span the data; heatmap shading uses the Grid screen's goodness
 * (ui/draw/heatmap.h).  The only file that includes cairo.
 */
#include "ui/draw/figure.h"

#include <assert.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/io/json.h"
#include "ui/draw/heatmap.h"
#include "ui/draw/plot.h"

/* ---- drawing: colours, text ---------------------------------------------- */

typedef struct {
    double r, g, b;
} Rgb;

/* Tableau's ten colours less gray and olive, which read poorly on white;
   then four darker ones for a figure of more series (every architecture
   with a causal mode: docs/speed.md "Long context"). */
static const Rgb PALETTE[FIG_COLORS] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173}, {0.839, 0.153, 0.157},
    {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.090, 0.745, 0.812},
    {0.125, 0.125, 0.125}, {0.550, 0.550, 0.000}, {0.100, 0.180, 0.470}, {0.000, 0.450, 0.400},
};
static const Rgb INK = {0.13, 0.13, 0.13}, DIM = {0.40, 0.40, 0.40}, GRAY = {0.50, 0.50, 0.50},
                 RULE = {0.88, 0.88, 0.88};

static Rgb series_rgb(int color) { return color < 0 ? GRAY : PALETTE[color % FIG_COLORS]; }

/* Series of different colours differ by more than colour (print, colour
   blindness): a line's dash pattern and a marker's shape go with its
   colour.  Solid for colour 0 (a lone run); the gray levels keep their own
   dashes. */
static const struct {
    double dash[6];
    int n;
} DASHES[FIG_COLORS] = {
    {{0}, 0},          {{7, 3}, 2},          {{2, 2.5}, 2},    {{9, 3, 2, 3}, 4},
    {{4, 4}, 2},       {{12, 3, 2, 3, 2, 3}, 6}, {{1.5, 4}, 2}, {{14, 4}, 2},
    {{3, 2, 3, 6}, 4}, {{10, 2}, 2},         {{6, 2, 1.5, 2, 1.5, 2}, 6}, {{1, 2}, 2},
};

/* A fit (FIG_FIT): thinner than any data line, and a dash-dot no colour's
   pattern has, so that a fit reads as "not data" whatever its colour. */
static const double FIT_DASH[4] = {5, 2, 1.2, 2};
#define FIT_WIDTH 1.1

static void set_series_dash(cairo_t *cr, int color)
{
    if (color < 0) return;
    cairo_set_dash(cr, DASHES[color % FIG_COLORS].dash, DASHES[color % FIG_COLORS].n, 0);
}

/* A marker's shape by its colour: circle, square, triangle, diamond, the
   next four the same shapes hollow, the four after filled again (their
   colours and dashes tell them from the first four). */
static void draw_marker(cairo_t *cr, int color, double x, double y)
{
    int k = color < 0 ? 0 : color % FIG_COLORS, shape = k % 4;
    double r = 2.9;
    cairo_new_path(cr);
    if (shape == 0) cairo_arc(cr, x, y, r * 0.95, 0, 2 * M_PI);
    else if (shape == 1) cairo_rectangle(cr, x - r * 0.85, y - r * 0.85, 1.7 * r, 1.7 * r);
    else if (shape == 2) {
        cairo_move_to(cr, x, y - r * 1.15);
        cairo_line_to(cr, x + r * 1.05, y + r * 0.8);
        cairo_line_to(cr, x - r * 1.05, y + r * 0.8);
        cairo_close_path(cr);
    } else {
        cairo_move_to(cr, x, y - r * 1.2);
        cairo_line_to(cr, x + r * 1.0, y);
        cairo_line_to(cr, x, y + r * 1.2);
        cairo_line_to(cr, x - r * 1.0, y);
        cairo_close_path(cr);
    }
    if (k < 4 || k >= 8) {
        cairo_fill(cr);
    } else {
        cairo_set_line_width(cr, 1.2);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_stroke(cr);
    }
}

static Rgb tone_rgb(FigTone tone)
{
    static const Rgb TONES[] = {
        [FIG_TONE_PLAIN] = {0.13, 0.13, 0.13}, [FIG_TONE_DIM] = {0.40, 0.40, 0.40},
        [FIG_TONE_GOOD] = {0.10, 0.50, 0.16},  [FIG_TONE_BAD] = {0.75, 0.12, 0.10},
        [FIG_TONE_WARN] = {0.66, 0.42, 0.00},
    };
    return tone >= FIG_TONE_PLAIN && tone <= FIG_TONE_WARN ? TONES[tone] : INK;
}

#define MARGIN 20.0
#define TITLE_SIZE 15.0
#define NOTE_SIZE 9.5
#define PANEL_SIZE 11.0
#define LABEL_SIZE 10.0
#define TICK_SIZE 9.0
#define LEGEND_SIZE 9.0
#define CELL_SIZE 10.5
#define DETAIL_SIZE 8.0
#define PLOT_HEIGHT 290.0
#define PLOT_GAP 18.0
#define LEADING 1.35
#define MAX_POINTS 4000          /* a longer series is drawn every k-th point */

typedef struct {
    cairo_t *cr;
    int draw;                    /* 0: measure only */
    StrBuf *layer;               /* SVG: the invisible text elements; NULL otherwise */
} Pen;

enum { ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT };

static void set_rgb(cairo_t *cr, Rgb c, double alpha) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha); }

static double text_width(Pen *pen, double size, int bold, const char *text)
{
    cairo_select_font_face(pen->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(pen->cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(pen->cr, text, &e);
    return e.x_advance;
}

static void xml_text(StrBuf *sb, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&': sb_append(sb, "&amp;"); break;
        case '<': sb_append(sb, "&lt;"); break;
        case '>': sb_append(sb, "&gt;"); break;
        case '"': sb_append(sb, "&quot;"); break;
        default:
            if ((unsigned char)*p >= 0x20 || *p == '\t') sb_append_len(sb, p, 1);
        }
    }
}

/* Text with its baseline at y, x its left edge, centre or right edge
   (align), turned a quarter counter-clockwise about (x, y) when rotated. */
static void text_at(Pen *pen, double x, double y, double size, int bold, int align, Rgb c, const char *cls,
                    const char *text, int rotated)
{
    if (!pen->draw || !text[0]) return;
    double w = text_width(pen, size, bold, text);
    double shift = align == ALIGN_LEFT ? 0 : align == ALIGN_CENTER ? w / 2 : w;
    cairo_t *cr = pen->cr;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (rotated) cairo_rotate(cr, -M_PI / 2);
    set_rgb(cr, c, 1);
    cairo_move_to(cr, -shift, 0);
    cairo_show_text(cr, text);
    cairo_restore(cr);
    if (!pen->layer) return;
    if (rotated)
        sb_printf(pen->layer, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\" transform=\"rotate(-90 %.2f %.2f)\"", cls,
                  x - shift, y, x, y);
    else
        sb_printf(pen->layer, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\"", cls, x - shift, y);
    sb_printf(pen->layer, " font-size=\"%.1f\"%s>", size, bold ? " font-weight=\"bold\"" : "");
    xml_text(pen->layer, text);
    sb_append(pen->layer, "</text>\n");
}

/* The bytes of text[0..len) that fit in width, cut at a character. */
static size_t fit_bytes(Pen *pen, double size, int bold, const char *text, size_t len, double width)
{
    char buf[4096];
    while (len > 1) {
        size_t n = MB_MIN(len, sizeof buf - 1);
        memcpy(buf, text, n);
        buf[n] = 0;
        if (text_width(pen, size, bold, buf) <= width) break;
        do len--;
        while (len > 1 && ((unsigned char)text[len] & 0xC0) == 0x80);
    }
    return len;
}

/* text into out (cap bytes) as it fits in width: whole, or cut at a
   character and ended with "…" so that a reader knows it was cut. */
static void fit_text(Pen *pen, double size, int bold, const char *text, double width, char *out, size_t cap)
{
    size_t len = strlen(text);
    if (fit_bytes(pen, size, bold, text, len, width) >= len) {
        snprintf(out, cap, "%s", text);
        return;
    }
    double dots = text_width(pen, size, bold, "…");
    size_t cut = MB_MIN(fit_bytes(pen, size, bold, text, len, fmax(width - dots, 0)), cap > 4 ? cap - 4 : 0);
    snprintf(out, cap, "%.*s…", (int)cut, text);
}

/* Word-wrapped text in [x, x + width) from top, lines LEADING x size apart
   ('\n' ends a line; a word longer than a line is cut); returns the
   height used. */
static double wrap_text(Pen *pen, double x, double top, double width, double size, int bold, Rgb c, const char *cls,
                        const char *text)
{
    double lead = size * LEADING;
    int lines = 0;
    char line[4096];
    const char *p = text;
    while (*p) {
        size_t take = 0;   /* bytes of p on this line */
        for (const char *q = p;;) {
            const char *end = q + strcspn(q, " \n");
            size_t len = MB_MIN((size_t)(end - p), sizeof line - 1);
            memcpy(line, p, len);
            line[len] = 0;
            if (take && text_width(pen, size, bold, line) > width) break;
            take = len;
            if (*end != ' ') break;
            q = end + 1;
        }
        if (take == 0) take = 1;
        take = fit_bytes(pen, size, bold, p, take, width);
        memcpy(line, p, take);
        line[take] = 0;
        text_at(pen, x, top + lines * lead + size, size, bold, ALIGN_LEFT, c, cls, line, 0);
        lines++;
        p += take;
        while (*p == ' ') p++;
        if (*p == '\n') p++;
    }
    return lines * lead;
}

/* ---- drawing: axes --------------------------------------------------------- */

enum { MAX_AXIS_TICKS = 16 };

typedef struct {
    double lo, hi;               /* the axis' ends: enclosing ticks */
    int log;
    double ticks[MAX_AXIS_TICKS], step;   /* step 0: a log axis' decades */
    int n;
} Axis;

/* Ticks at 1-2-5 multiples over [lo, hi], the axis extended to the ticks
   enclosing the data; a log axis over a decade or more ticks at powers of
   ten (plot_log_ticks) between the enclosing ones. */
static void axis_fit(Axis *a, double lo, double hi, int log, int max_ticks)
{
    memset(a, 0, sizeof *a);
    a->log = log;
    if (!(hi > lo)) {
        double pad = lo != 0 ? fabs(lo) * 0.05 : 0.5;
        lo -= pad;
        hi += pad;
        if (log && lo <= 0) lo = hi / 2;
    }
    double scratch[64], step = 0;
    if (plot_nice_ticks(lo, hi, max_ticks, scratch, 64, &step) < 1 || !(step > 0)) step = (hi - lo) / 4;
    double k0 = floor(lo / step + 1e-9), k1 = ceil(hi / step - 1e-9);
    if (!log || (k0 * step > 0 && hi / lo < 10)) {
        a->lo = k0 * step;
        a->hi = k1 * step;
        a->step = step;
        for (double k = k0; k <= k1 && a->n < MAX_AXIS_TICKS; k++) a->ticks[a->n++] = k == 0 ? 0 : k * step;
        return;
    }
    a->lo = pow(10, floor(log10(lo)));
    a->hi = pow(10, ceil(log10(hi)));
    a->n = plot_log_ticks(a->lo, a->hi, max_ticks, a->ticks, MAX_AXIS_TICKS);
}

/* Where value v falls on the axis, 0 at lo and 1 at hi. */
static double axis_pos(const Axis *a, double v)
{
    if (a->log) return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    return (v - a->lo) / (a->hi - a->lo);
}

/* The data's range on both axes; 0 when no point can be drawn. */
static int data_range(const FigPlot *p, double *x_lo, double *x_hi, double *y_lo, double *y_hi)
{
    *x_lo = *y_lo = INFINITY;
    *x_hi = *y_hi = -INFINITY;
    int any = 0;
    for (int s = 0; s < p->n_series; s++) {
        const FigSeries *fs = &p->series[s];
        int ny = fs->mark == FIG_BAND ? 2 * fs->n : fs->mark == FIG_LEVEL ? MB_MIN(fs->n, 1) : fs->n;
        for (int i = 0; i < ny; i++) {
            double y = fs->y[i], x = fs->x ? fs->x[i % MB_MAX(fs->n, 1)] : 0;
            if (!isfinite(y) || (p->log_y && y <= 0)) continue;
            if (p->log_x && fs->mark != FIG_LEVEL && fs->x && !(x > 0)) continue;
            *y_lo = fmin(*y_lo, y);
            *y_hi = fmax(*y_hi, y);
            if (fs->mark == FIG_LEVEL || !fs->x || !isfinite(x)) continue;
            *x_lo = fmin(*x_lo, x);
            *x_hi = fmax(*x_hi, x);
            any = 1;
        }
    }
    return any;
}

typedef struct {
    double x, y, w, h;           /* the data area */
    Axis ax, ay;
} Area;

static double to_x(const Area *a, double v) { return a->x + axis_pos(&a->ax, v) * a->w; }
static double to_y(const Area *a, double v) { return a->y + a->h - axis_pos(&a->ay, v) * a->h; }
/* A point the axes can place: finite, and positive on a log axis. */
static int point_ok(const Area *a, double xv, double yv)
{
    return isfinite(xv) && isfinite(yv) && (!a->ax.log || xv > 0) && (!a->ay.log || yv > 0);
}

static void draw_line(cairo_t *cr, const Area *a, const FigSeries *s)
{
    int stride = s->n > MAX_POINTS ? (s->n + MAX_POINTS - 1) / MAX_POINTS : 1, down = 0;
    cairo_new_path(cr);
    for (int i = 0; i < s->n; i += stride) {
        if (!point_ok(a, s->x[i], s->y[i])) {
            down = 0;
            continue;
        }
        if (down) cairo_line_to(cr, to_x(a, s->x[i]), to_y(a, s->y[i]));
        else cairo_move_to(cr, to_x(a, s->x[i]), to_y(a, s->y[i]));
        down = 1;
    }
    int fit = s->mark == FIG_FIT;
    set_rgb(cr, series_rgb(s->color), s->faint ? 0.35 : 1);
    cairo_set_line_width(cr, fit ? FIT_WIDTH : s->faint ? 0.8 : 1.7);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    if (fit) cairo_set_dash(cr, FIT_DASH, 4, 0);
    else if (!s->faint) set_series_dash(cr, s->color);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* The band between its edges, one closed shape per stretch of drawable points. */
static void draw_band(cairo_t *cr, const Area *a, const FigSeries *s)
{
    int n = s->n, stride = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
    cairo_new_path(cr);
    for (int i = 0; i < n;) {
        if (!point_ok(a, s->x[i], s->y[i]) || !point_ok(a, s->x[i], s->y[n + i])) {
            i++;
            continue;
        }
        int j = i;
        while (j + 1 < n && point_ok(a, s->x[j + 1], s->y[j + 1]) && point_ok(a, s->x[j + 1], s->y[n + j + 1]))
            j++;
        cairo_move_to(cr, to_x(a, s->x[i]), to_y(a, s->y[i]));
        for (int k = i; k <= j; k += stride) cairo_line_to(cr, to_x(a, s->x[k]), to_y(a, s->y[k]));
        cairo_line_to(cr, to_x(a, s->x[j]), to_y(a, s->y[j]));
        for (int k = j; k >= i; k -= stride) cairo_line_to(cr, to_x(a, s->x[k]), to_y(a, s->y[n + k]));
        cairo_line_to(cr, to_x(a, s->x[i]), to_y(a, s->y[n + i]));
        cairo_close_path(cr);
        i = j + 1;
    }
    set_rgb(cr, series_rgb(s->color), 0.22);
    cairo_fill(cr);
}

/* An x of half-width r at (x, y), in ink over a white halo so that it
   shows on the lines it marks. */
static void draw_cross(cairo_t *cr, double x, double y, double r)
{
    for (int pass = 0; pass < 2; pass++) {
        cairo_new_path(cr);
        cairo_move_to(cr, x - r, y - r);
        cairo_line_to(cr, x + r, y + r);
        cairo_move_to(cr, x - r, y + r);
        cairo_line_to(cr, x + r, y - r);
        set_rgb(cr, pass ? INK : (Rgb){1, 1, 1}, 1);
        cairo_set_line_width(cr, pass ? 1.5 : 3.5);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_stroke(cr);
    }
}

static void draw_series(cairo_t *cr, const Area *a, const FigSeries *s)
{
    switch (s->mark) {
    case FIG_LINE: case FIG_FIT: draw_line(cr, a, s); break;
    case FIG_CROSS:
        for (int i = 0; i < s->n; i++)
            if (point_ok(a, s->x[i], s->y[i])) draw_cross(cr, to_x(a, s->x[i]), to_y(a, s->y[i]), 4);
        break;
    case FIG_BAND: draw_band(cr, a, s); break;
    case FIG_LEVEL:
        if (s->n < 1 || !point_ok(a, a->ax.hi, s->y[0])) break;   /* a level has no x */
        cairo_new_path(cr);
        cairo_move_to(cr, a->x, to_y(a, s->y[0]));
        cairo_line_to(cr, a->x + a->w, to_y(a, s->y[0]));
        set_rgb(cr, series_rgb(s->color), 1);
        cairo_set_line_width(cr, 1.0);
        cairo_set_dash(cr, (const double[]){5, 3}, 2, 0);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        break;
    case FIG_MARKERS:
        set_rgb(cr, series_rgb(s->color), 1);
        for (int i = 0; i < s->n; i++)
            if (point_ok(a, s->x[i], s->y[i])) draw_marker(cr, s->color, to_x(a, s->x[i]), to_y(a, s->y[i]));
        break;
    }
}

/* Tick labels, grid lines and the frame of the data area. */
static void draw_axes(Pen *pen, const Area *a, const FigPlot *p)
{
    cairo_t *cr = pen->cr;
    char label[32];
    cairo_set_line_width(cr, 0.5);
    set_rgb(cr, RULE, 1);
    for (int i = 0; i < a->ay.n; i++) {
        cairo_move_to(cr, a->x, to_y(a, a->ay.ticks[i]));
        cairo_line_to(cr, a->x + a->w, to_y(a, a->ay.ticks[i]));
    }
    for (int i = 0; i < a->ax.n; i++) {
        cairo_move_to(cr, to_x(a, a->ax.ticks[i]), a->y);
        cairo_line_to(cr, to_x(a, a->ax.ticks[i]), a->y + a->h);
    }
    cairo_stroke(cr);
    cairo_set_line_width(cr, 0.8);
    set_rgb(cr, INK, 1);
    cairo_rectangle(cr, a->x, a->y, a->w, a->h);
    cairo_stroke(cr);
    for (int i = 0; i < a->ay.n; i++) {
        plot_format_tick(a->ay.ticks[i], a->ay.step, label, sizeof label);
        text_at(pen, a->x - 5, to_y(a, a->ay.ticks[i]) + TICK_SIZE * 0.35, TICK_SIZE, 0, ALIGN_RIGHT, INK, "ytick",
                label, 0);
    }
    for (int i = 0; i < a->ax.n; i++) {
        plot_format_tick(a->ax.ticks[i], a->ax.step, label, sizeof label);
        text_at(pen, to_x(a, a->ax.ticks[i]), a->y + a->h + TICK_SIZE + 4, TICK_SIZE, 0, ALIGN_CENTER, INK, "xtick",
                label, 0);
    }
    text_at(pen, a->x + a->w / 2, a->y + a->h + 2 * TICK_SIZE + LABEL_SIZE + 2, LABEL_SIZE, 0, ALIGN_CENTER, INK,
            "xlabel", p->x_label, 0);
}

/* One plot in the box (x, top, w, h): its title, axes and series, bands
   and levels under the lines and markers. */
static void draw_plot(Pen *pen, const FigPlot *p, double x, double top, double w, double h)
{
    double title_h = p->title[0] ? PANEL_SIZE * LEADING + 2 : 0;
    text_at(pen, x + w / 2, top + PANEL_SIZE, PANEL_SIZE, 1, ALIGN_CENTER, INK, "panel", p->title, 0);
    double x_lo, x_hi, y_lo, y_hi;
    Area a;
    memset(&a, 0, sizeof a);
    if (!data_range(p, &x_lo, &x_hi, &y_lo, &y_hi)) {
        text_at(pen, x + w / 2, top + h / 2, LABEL_SIZE, 0, ALIGN_CENTER, DIM, "note", "no points stored yet", 0);
        return;
    }
    axis_fit(&a.ax, x_lo, x_hi, p->log_x, w > 400 ? 8 : 5);
    axis_fit(&a.ay, y_lo, y_hi, p->log_y, 6);
    double tick_w = 0;
    char label[32];
    for (int i = 0; i < a.ay.n; i++) {
        plot_format_tick(a.ay.ticks[i], a.ay.step, label, sizeof label);
        tick_w = fmax(tick_w, text_width(pen, TICK_SIZE, 0, label));
    }
    double left = LABEL_SIZE * LEADING + tick_w + 8;
    a.x = x + left;
    a.y = top + title_h + 4;
    a.w = w - left - 8;
    a.h = h - title_h - 4 - (2 * TICK_SIZE + LABEL_SIZE + 8);
    if (!pen->draw) return;
    text_at(pen, x + LABEL_SIZE, a.y + a.h / 2, LABEL_SIZE, 0, ALIGN_CENTER, INK, "ylabel", p->y_label, 1);
    draw_axes(pen, &a, p);
    cairo_t *cr = pen->cr;
    cairo_save(cr);
    cairo_rectangle(cr, a.x, a.y, a.w, a.h);
    cairo_clip(cr);
    static const FigMark ORDER[] = {FIG_BAND, FIG_LEVEL, FIG_LINE, FIG_FIT};
    for (int o = 0; o < 4; o++)
        for (int s = 0; s < p->n_series; s++)
            if (p->series[s].mark == ORDER[o]) draw_series(cr, &a, &p->series[s]);
    cairo_restore(cr);
    /* markers whole, also on the frame (the axes enclose every point);
       the crosses where fits meet over everything */
    for (int o = 0; o < 2; o++)
        for (int s = 0; s < p->n_series; s++)
            if (p->series[s].mark == (o ? FIG_CROSS : FIG_MARKERS)) draw_series(cr, &a, &p->series[s]);
}

/* ---- drawing: the legend --------------------------------------------------- */

/* The legend's sample of series s of plot p: a line in its dash pattern
   (over a shaded block when an unlabelled band of its colour goes with it,
   its marker on it when unlabelled markers of its colour do), a marker, a
   block, or a dash. */
static void draw_sample(Pen *pen, const FigPlot *p, const FigSeries *s, double x, double mid)
{
    cairo_t *cr = pen->cr;
    Rgb c = series_rgb(s->color);
    int banded = 0, marked = 0;
    for (int k = 0; k < p->n_series; k++) {
        const FigSeries *o = &p->series[k];
        banded |= o->mark == FIG_BAND && o->color == s->color && !o->label[0];
        marked |= o->mark == FIG_MARKERS && o->color == s->color && !o->label[0] && o->n > 0;
    }
    if (s->mark == FIG_BAND || banded) {
        set_rgb(cr, c, 0.22);
        cairo_rectangle(cr, x, mid - 4.5, 18, 9);
        cairo_fill(cr);
    }
    if (s->mark == FIG_LINE) {
        set_rgb(cr, c, s->faint ? 0.35 : 1);
        cairo_set_line_width(cr, s->faint ? 1.0 : 2.0);
        if (!s->faint) set_series_dash(cr, s->color);
        cairo_move_to(cr, x, mid);
        cairo_line_to(cr, x + 18, mid);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (marked && !s->faint) draw_marker(cr, s->color, x + 9, mid);
    } else if (s->mark == FIG_MARKERS) {
        set_rgb(cr, c, 1);
        draw_marker(cr, s->color, x + 9, mid);
    } else if (s->mark == FIG_FIT) {
        set_rgb(cr, c, 1);
        cairo_set_line_width(cr, FIT_WIDTH + 0.2);
        cairo_set_dash(cr, FIT_DASH, 4, 0);
        cairo_move_to(cr, x, mid);
        cairo_line_to(cr, x + 18, mid);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    } else if (s->mark == FIG_CROSS) {
        draw_cross(cr, x + 9, mid, 3.5);
    } else if (s->mark == FIG_LEVEL) {
        set_rgb(cr, c, 1);
        cairo_set_line_width(cr, 1.0);
        cairo_set_dash(cr, (const double[]){5, 3}, 2, 0);
        cairo_move_to(cr, x, mid);
        cairo_line_to(cr, x + 18, mid);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
}

/* Every labelled series once (by label and colour), flowing left to right
   in [x, x + width); returns the height used. */
static double draw_legend(Pen *pen, const Figure *f, double x, double top, double width)
{
    double lead = LEGEND_SIZE * 1.7, cx = x, cy = top;
    int any = 0;
    for (int pi = 0; pi < f->n_plots; pi++)
        for (int si = 0; si < f->plots[pi].n_series; si++) {
            const FigSeries *s = &f->plots[pi].series[si];
            if (!s->label[0]) continue;
            int seen = 0;
            for (int pj = 0; pj <= pi && !seen; pj++)
                for (int sj = 0; sj < (pj == pi ? si : f->plots[pj].n_series) && !seen; sj++)
                    seen = f->plots[pj].series[sj].color == s->color && !strcmp(f->plots[pj].series[sj].label, s->label);
            if (seen) continue;
            char text[sizeof s->label];
            fit_text(pen, LEGEND_SIZE, 0, s->label, width - 24, text, sizeof text);
            double w = 24 + text_width(pen, LEGEND_SIZE, 0, text);
            if (any && cx + w > x + width) cx = x, cy += lead;
            if (pen->draw) draw_sample(pen, &f->plots[pi], s, cx, cy + lead / 2);
            text_at(pen, cx + 24, cy + lead / 2 + LEGEND_SIZE * 0.35, LEGEND_SIZE, 0, ALIGN_LEFT, INK, "legend", text, 0);
            cx += w + 16;
            any = 1;
        }
    return any ? cy - top + lead : 0;
}

/* ---- drawing: the heatmap ------------------------------------------------- */

/* goodness in [0, 1] along three colour stops, linearly between them */
static Rgb ramp3(const Rgb stops[3], double goodness)
{
    double t = fmin(fmax(goodness, 0), 1) * 2;
    int i = t >= 1 ? 1 : 0;
    double u = t - i;
    return (Rgb){stops[i].r + (stops[i + 1].r - stops[i].r) * u, stops[i].g + (stops[i + 1].g - stops[i].g) * u,
                 stops[i].b + (stops[i + 1].b - stops[i].b) * u};
}

/* Worst (red) through yellow to best (green), light enough for black text. */
static Rgb heat_rgb(double goodness)
{
    static const Rgb STOPS[3] = {{0.96, 0.60, 0.55}, {0.99, 0.91, 0.60}, {0.60, 0.83, 0.58}};
    return ramp3(STOPS, goodness);
}

typedef struct {
    double label_w, col_w[256], cell_h, width;
    double lo, hi;               /* the shaded values' range */
    int shaded;                  /* cells with a finite shade */
} HeatLayout;

/* "rows \\ columns": the axes over the row labels. */
static void corner_text(const FigHeatmap *h, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s", h->row_axis, h->row_axis[0] && h->col_axis[0] ? " \\ " : "", h->col_axis);
}

static void heat_layout(Pen *pen, const FigHeatmap *h, HeatLayout *l)
{
    memset(l, 0, sizeof *l);
    char corner[160];
    corner_text(h, corner, sizeof corner);
    l->label_w = text_width(pen, LABEL_SIZE, 1, corner);
    int details = 0;
    for (int r = 0; r < h->rows; r++) l->label_w = fmax(l->label_w, text_width(pen, LABEL_SIZE, 1, h->row_labels[r]));
    l->label_w += 14;
    l->width = l->label_w;
    for (int c = 0; c < h->cols && c < 256; c++) {
        double w = text_width(pen, LABEL_SIZE, 1, h->col_labels[c]);
        for (int r = 0; r < h->rows; r++) {
            const FigCell *cell = &h->cells[r * h->cols + c];
            w = fmax(w, text_width(pen, CELL_SIZE, 1, cell->value));
            w = fmax(w, text_width(pen, DETAIL_SIZE, 0, cell->detail));
            details |= cell->detail[0] != 0;
        }
        l->col_w[c] = fmax(w + 16, 56);
        l->width += l->col_w[c];
    }
    l->cell_h = CELL_SIZE * LEADING + (details ? DETAIL_SIZE * LEADING : 0) + 10;
    double *shades = malloc((size_t)h->rows * (size_t)h->cols * sizeof *shades);
    if (!shades) return;
    for (int i = 0; i < h->rows * h->cols; i++) shades[i] = h->cells[i].shade;
    l->shaded = heat_range(shades, h->rows * h->cols, &l->lo, &l->hi);
    free(shades);
}

/* Lines: worst (red) through orange to best (green), dark enough on white. */
static Rgb line_rgb(double goodness)
{
    static const Rgb STOPS[3] = {{0.84, 0.15, 0.16}, {0.93, 0.57, 0.08}, {0.17, 0.60, 0.17}};
    return ramp3(STOPS, goodness);
}

/* The colour scale of values lo..hi in ramp's colours, worst to best with
   their values, label under it. */
static double draw_scale(Pen *pen, double lo_v, double hi_v, int higher_better, const char *label,
                         Rgb (*ramp_rgb)(double), double x, double top)
{
    double w = 220, bar = 10;
    char lo[32], hi[32], worst[48], best[48];
    heat_format(lo_v, 4, lo, sizeof lo);
    heat_format(hi_v, 4, hi, sizeof hi);
    snprintf(worst, sizeof worst, "worst %s", higher_better ? lo : hi);
    snprintf(best, sizeof best, "best %s", higher_better ? hi : lo);
    double lw = text_width(pen, TICK_SIZE, 0, worst);
    if (pen->draw) {
        cairo_pattern_t *ramp = cairo_pattern_create_linear(x + lw + 6, 0, x + lw + 6 + w, 0);
        for (int k = 0; k <= 4; k++) {
            Rgb c = ramp_rgb(k / 4.0);
            cairo_pattern_add_color_stop_rgb(ramp, k / 4.0, c.r, c.g, c.b);
        }
        cairo_rectangle(pen->cr, x + lw + 6, top, w, bar);
        cairo_set_source(pen->cr, ramp);
        cairo_fill(pen->cr);
        cairo_pattern_destroy(ramp);
    }
    double base = top + bar - 1;
    text_at(pen, x, base, TICK_SIZE, 0, ALIGN_LEFT, INK, "scale", worst, 0);
    text_at(pen, x + lw + 12 + w, base, TICK_SIZE, 0, ALIGN_LEFT, INK, "scale", best, 0);
    text_at(pen, x + lw + 6 + w / 2, top + bar + TICK_SIZE + 4, TICK_SIZE, 0, ALIGN_CENTER, DIM, "scale", label, 0);
    return bar + TICK_SIZE * LEADING + 6;
}

static void draw_cell(Pen *pen, const FigHeatmap *h, const HeatLayout *l, int r, int c, double x, double y)
{
    const FigCell *cell = &h->cells[r * h->cols + c];
    cairo_t *cr = pen->cr;
    double w = l->col_w[c];
    if (pen->draw) {
        Rgb fill = isfinite(cell->shade) ? heat_rgb(heat_goodness(cell->shade, l->lo, l->hi, h->higher_better))
                                         : (Rgb){1, 1, 1};
        set_rgb(cr, fill, 1);
        cairo_rectangle(cr, x, y, w, l->cell_h);
        cairo_fill(cr);
        set_rgb(cr, (Rgb){1, 1, 1}, 1);
        cairo_set_line_width(cr, 1.5);
        cairo_rectangle(cr, x, y, w, l->cell_h);
        cairo_stroke(cr);
        if (cell->best) {
            set_rgb(cr, INK, 1);
            cairo_set_line_width(cr, 2.2);
            cairo_rectangle(cr, x + 2, y + 2, w - 4, l->cell_h - 4);
            cairo_stroke(cr);
        }
    }
    double lines = CELL_SIZE * LEADING + (cell->detail[0] ? DETAIL_SIZE * LEADING : 0);
    double base = y + (l->cell_h - lines) / 2 + CELL_SIZE;
    text_at(pen, x + w / 2, base, CELL_SIZE, cell->best, ALIGN_CENTER, INK, "cell", cell->value, 0);
    text_at(pen, x + w / 2, base + DETAIL_SIZE * LEADING + 1, DETAIL_SIZE, 0, ALIGN_CENTER, DIM, "detail",
            cell->detail, 0);
}

/* The table: the corner ("rows \ columns"), column labels, each row's label
   and cells; then the colour scale.  Returns the height used. */
static double draw_heatmap(Pen *pen, const FigHeatmap *h, double x, double top)
{
    HeatLayout l;
    heat_layout(pen, h, &l);
    char corner[160];
    corner_text(h, corner, sizeof corner);
    double head = LABEL_SIZE * LEADING + 4, y = top;
    text_at(pen, x, y + LABEL_SIZE, LABEL_SIZE, 1, ALIGN_LEFT, DIM, "corner", corner, 0);
    double cx = x + l.label_w;
    for (int c = 0; c < h->cols && c < 256; c++) {
        text_at(pen, cx + l.col_w[c] / 2, y + LABEL_SIZE, LABEL_SIZE, 1, ALIGN_CENTER, INK, "col", h->col_labels[c], 0);
        cx += l.col_w[c];
    }
    y += head;
    for (int r = 0; r < h->rows; r++) {
        text_at(pen, x, y + l.cell_h / 2 + LABEL_SIZE * 0.35, LABEL_SIZE, 1, ALIGN_LEFT, INK, "row", h->row_labels[r], 0);
        cx = x + l.label_w;
        for (int c = 0; c < h->cols && c < 256; c++) {
            draw_cell(pen, h, &l, r, c, cx, y);
            cx += l.col_w[c];
        }
        y += l.cell_h;
    }
    y += 10;
    if (l.shaded) y += draw_scale(pen, l.lo, l.hi, h->higher_better, h->scale_label, heat_rgb, x + l.label_w, y);
    return y - top;
}

/* ---- drawing: parallel coordinates ------------------------------------------ */

#define PAR_HEIGHT 300.0

/* The axes evenly across width, a polyline per line (the brushed-out ones
   first, faint; the kept ones from worst to best, so the best lie on top),
   the brushes as bands on their axes, then the scale.  Returns the height. */
static double draw_parallel(Pen *pen, const FigParallel *par, double x, double top, double width)
{
    int k = par->n_axes;
    /* room for the last axis's name, centred on it */
    double name_w = text_width(pen, LABEL_SIZE, 1, par->axes[k - 1].name) / 2 + 4;
    double head = LABEL_SIZE * LEADING + 6, y0 = top + head, h = PAR_HEIGHT, left = x + 70;
    double right = x + width - fmax(30, name_w);
    double step = k > 1 ? (right - left) / (k - 1) : 0, lo = NAN, hi = NAN;
    for (int a = 0; a < k; a++) {
        /* tick labels left of their axis, cut to the room after the axis
           on their left (so none is drawn over it), names to their share */
        double ax = left + a * step, room = a ? step - 12 : left - x - 7;
        char text[FIG_LABEL_LEN + 8];
        fit_text(pen, LABEL_SIZE, 1, par->axes[a].name, k > 1 ? fmax(step - 6, 20) : width, text, sizeof text);
        text_at(pen, ax, top + LABEL_SIZE, LABEL_SIZE, 1, ALIGN_CENTER, INK, "axis", text, 0);
        for (int t = 0; t < par->axes[a].n_ticks; t++) {
            fit_text(pen, TICK_SIZE, 0, par->axes[a].tick[t], room, text, sizeof text);
            text_at(pen, ax - 5, y0 + h * (1 - par->axes[a].tick_pos[t]) + TICK_SIZE * 0.35, TICK_SIZE, 0, ALIGN_RIGHT,
                    INK, "ytick", text, 0);
        }
    }
    heat_range(par->shade, par->n_lines, &lo, &hi);
    cairo_t *cr = pen->cr;
    int *order = malloc((size_t)(par->n_lines ? par->n_lines : 1) * sizeof *order);
    if (pen->draw && order) {
        for (int a = 0; a < k; a++) {
            double ax = left + a * step, b0 = par->axes[a].brush_lo, b1 = par->axes[a].brush_hi;
            if (isfinite(b0) && isfinite(b1)) {
                set_rgb(cr, PALETTE[0], 0.18);
                cairo_rectangle(cr, ax - 5, y0 + h * (1 - b1) - 3, 10, h * (b1 - b0) + 6);
                cairo_fill(cr);
            }
            set_rgb(cr, INK, 1);
            cairo_set_line_width(cr, 1);
            cairo_move_to(cr, ax, y0);
            cairo_line_to(cr, ax, y0 + h);
            cairo_stroke(cr);
        }
        int n = 0;   /* brushed out, then kept from worst to best */
        for (int i = 0; i < par->n_lines; i++)
            if (!par->kept[i]) order[n++] = i;
        int out = n;
        for (int i = 0; i < par->n_lines; i++)
            if (par->kept[i]) order[n++] = i;
        for (int i = out + 1; i < n; i++)
            for (int j = i; j > out && heat_goodness(par->shade[order[j]], lo, hi, par->higher_better) <
                                           heat_goodness(par->shade[order[j - 1]], lo, hi, par->higher_better); j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        for (int o = 0; o < n; o++) {
            int i = order[o], started = 0;
            set_rgb(cr, par->kept[i] ? line_rgb(heat_goodness(par->shade[i], lo, hi, par->higher_better)) : GRAY,
                    par->kept[i] ? 0.9 : 0.3);
            cairo_set_line_width(cr, par->kept[i] ? 1.6 : 0.8);
            for (int a = 0; a < k; a++) {
                double v = par->pos[i * k + a];
                if (!isfinite(v)) continue;
                if (started++) cairo_line_to(cr, left + a * step, y0 + h * (1 - v));
                else cairo_move_to(cr, left + a * step, y0 + h * (1 - v));
            }
            cairo_stroke(cr);
        }
    }
    free(order);
    double y = y0 + h + 16;
    if (isfinite(lo)) y += draw_scale(pen, lo, hi, par->higher_better, par->scale_label, line_rgb, left, y);
    return y - top;
}

/* ---- the page --------------------------------------------------------------- */

static double draw_lines(Pen *pen, const FigLine *lines, int n, double top, double width, const char *cls)
{
    double y = top;
    for (int i = 0; i < n; i++)
        y += wrap_text(pen, MARGIN, y, width - 2 * MARGIN, NOTE_SIZE, 0, tone_rgb(lines[i].tone), cls, lines[i].text);
    return y - top;
}

/* Lays out (pen->draw 0) or draws the whole figure on a page `width` wide;
   returns the page's height. */
static double render(Pen *pen, const Figure *f, double width)
{
    if (pen->draw) {
        cairo_set_source_rgb(pen->cr, 1, 1, 1);
        cairo_paint(pen->cr);
    }
    double y = MARGIN, inner = width - 2 * MARGIN;
    y += wrap_text(pen, MARGIN, y, inner, TITLE_SIZE, 1, INK, "title", f->title);
    y += 4 + draw_lines(pen, f->notes, f->n_notes, y + 4, width, "note");
    if (f->n_plots > 0) {
        y += 10;
        double w = (inner - PLOT_GAP * (f->n_plots - 1)) / f->n_plots;
        for (int p = 0; p < f->n_plots; p++) draw_plot(pen, &f->plots[p], MARGIN + p * (w + PLOT_GAP), y, w, PLOT_HEIGHT);
        y += PLOT_HEIGHT + 4;
        y += draw_legend(pen, f, MARGIN, y, inner);
    }
    if (f->heatmap) y += 12 + draw_heatmap(pen, f->heatmap, MARGIN, y + 12);
    if (f->parallel) y += 12 + draw_parallel(pen, f->parallel, MARGIN, y + 12, inner);
    if (f->n_footer) y += 10 + draw_lines(pen, f->footer, f->n_footer, y + 10, width, "footer");
    return ceil(y + MARGIN);
}

/* The page width: FIGURE_WIDTH, or wider for a heatmap that needs it. */
static double page_width(Pen *pen, const Figure *f)
{
    if (!f->heatmap) return FIGURE_WIDTH;
    HeatLayout l;
    heat_layout(pen, f->heatmap, &l);
    return fmax(FIGURE_WIDTH, ceil(l.width + 2 * MARGIN));
}

static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static cairo_status_t to_buffer(void *closure, const unsigned char *data, unsigned int length)
{
    sb_append_len(closure, (const char *)data, length);
    return sb_ok(closure) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_NO_MEMORY;
}

/* Draws on surface and finishes it; the cairo status of the whole. */
static cairo_status_t draw_on(cairo_surface_t *surface, const Figure *f, double width, double scale, StrBuf *layer)
{
    cairo_t *cr = cairo_create(surface);
    cairo_scale(cr, scale, scale);
    Pen pen = {cr, 1, layer};
    render(&pen, f, width);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
    return status;
}

/* The SVG: cairo's document with the text layer before its closing tag. */
static cairo_status_t write_svg(FILE *out, const Figure *f, double width, double height)
{
    StrBuf doc, layer;
    sb_init(&doc);
    sb_init(&layer);
    cairo_surface_t *surface = cairo_svg_surface_create_for_stream(to_buffer, &doc, width, height);
    cairo_status_t status = draw_on(surface, f, width, 1, &layer);
    cairo_surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    const char *end = NULL;
    for (const char *p = doc.data ? strstr(doc.data, "</svg>") : NULL; p; p = strstr(p + 1, "</svg>")) end = p;
    if (status == CAIRO_STATUS_SUCCESS && (!end || !sb_ok(&layer))) status = CAIRO_STATUS_NO_MEMORY;
    if (status == CAIRO_STATUS_SUCCESS) {
        size_t head = (size_t)(end - doc.data);
        static const char OPEN[] = "<g id=\"figure-text\" fill=\"#000\" fill-opacity=\"0\" font-family=\"sans-serif\">\n";
        int bad = fwrite(doc.data, 1, head, out) != head;
        bad |= fputs(OPEN, out) < 0 || fwrite(layer.data, 1, layer.len, out) != layer.len || fputs("</g>\n", out) < 0;
        bad |= fputs(end, out) < 0;
        if (bad) status = CAIRO_STATUS_WRITE_ERROR;
    }
    sb_free(&doc);
    sb_free(&layer);
    return status;
}

static cairo_status_t write_pdf(FILE *out, const Figure *f, double width, double height)
{
    cairo_surface_t *surface = cairo_pdf_surface_create_for_stream(to_file, out, width, height);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, f->title);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "mixbench");
    cairo_status_t status = draw_on(surface, f, width, 1, NULL);
    cairo_surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    return status;
}

static cairo_status_t write_png(FILE *out, const Figure *f, double width, double height)
{
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(width * FIGURE_PNG_SCALE),
                                                          (int)(height * FIGURE_PNG_SCALE));
    cairo_status_t status = draw_on(surface, f, width, FIGURE_PNG_SCALE, NULL);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png_stream(surface, to_file, out);
    cairo_surface_destroy(surface);
    return status;
}

int figure_write(const Figure *f, const char *path, char *err)
{
    assert(f && path && err);
    FigFormat format;
    if (figure_format_of(path, &format, err)) return -1;
    FILE *out = fopen(path, "wb");
    if (!out) return err_set(err, "cannot write %s: %s", path, strerror(errno));
    /* the layout first, on a scratch surface: the page's size */
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8);
    cairo_t *cr = cairo_create(scratch);
    Pen measure = {cr, 0, NULL};
    double width = page_width(&measure, f), height = render(&measure, f, width);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_destroy(scratch);
    if (status == CAIRO_STATUS_SUCCESS) {
        if (format == FIG_SVG) status = write_svg(out, f, width, height);
        else if (format == FIG_PDF) status = write_pdf(out, f, width, height);
        else status = write_png(out, f, width, height);
    }
    int closed = fclose(out);
    if (status != CAIRO_STATUS_SUCCESS || closed != 0) {
        remove(path);
        return err_set(err, "writing %s failed: %s", path,
                       status != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(status) : strerror(errno));
    }
    return 0;
}

void figure_cleanup(void)
{
    cairo_debug_reset_static_data();
    FcFini();   /* fontconfig's own caches, which cairo's text loaded */
}
