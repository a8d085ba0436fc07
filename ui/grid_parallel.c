/*
 * grid_parallel.c — the Grid screen's parallel coordinates view
 * (grid_parallel.h): layout, braille lines coloured by the metric, the
 * brushing keys.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/grid_parallel.h"

#include <assert.h>
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "ui/draw/heatmap.h"
#include "ui/figure_key.h"

/* Line colours: the canvas's series 0 dim (brushed out), then worse to better. */
enum { LINE_OUT, LINE_BAD, LINE_WARN, LINE_GOOD };

/* Brushes of another sweep or metric do not apply: cleared. */
static void follow(GridParallel *gp, int64_t sweep_id, PointMetric m)
{
    if (gp->sweep_id != sweep_id) {
        memset(gp->brush, 0, sizeof gp->brush);
        gp->axis = 0;
        gp->sweep_id = sweep_id;
    }
    if (gp->metric != m) gp->brush[PAR_METRIC].on = 0;
    gp->metric = m;
}

/* The range of brush b on the view's axis x, as text ("1e-3..1e-2"). */
static void range_text(const Pivot *p, const Parallel *par, int x, const ParBrush *b, char *out, size_t cap)
{
    int a = par->axis[x];
    if (!b->on) {
        snprintf(out, cap, "all");
    } else if (a == PAR_METRIC) {
        char lo[32], hi[32];
        heat_format(fmax(b->lo, par->lo), 4, lo, sizeof lo);
        heat_format(fmin(b->hi, par->hi), 4, hi, sizeof hi);
        snprintf(out, cap, "%s..%s", lo, hi);
    } else {
        snprintf(out, cap, "%s..%s", p->values[a][(int)b->lo], p->values[a][(int)b->hi]);
    }
}

static int line_series(const Parallel *par, int l)
{
    if (!par->kept[l]) return LINE_OUT;
    double g = heat_goodness(par->value[l], par->lo, par->hi, point_metric_info(par->metric)->higher_better);
    return g >= 2.0 / 3 ? LINE_GOOD : g >= 1.0 / 3 ? LINE_WARN : LINE_BAD;
}

/* The canvas: axes at columns col[x], lines drawn dim first, then from
   worse to better (the better on top). */
static void draw_lines(UiContext *ctx, const Parallel *par, const int *col, PlotCanvas *cv)
{
    int k = par->n_axes, dots_y = 4 * cv->rows - 1;
    for (int pass = LINE_OUT; pass <= LINE_GOOD; pass++) {
        if (pass == LINE_OUT && !ctx->colors) continue;   /* no colour to tell them apart: left out */
        for (int l = 0; l < par->n_lines; l++) {
            if (line_series(par, l) != pass) continue;
            int px = -1, py = 0;
            for (int x = 0; x < k; x++) {
                double v = par->pos[l * k + x];
                if (!isfinite(v)) continue;
                int dx = 2 * col[x], dy = (int)lround((1 - v) * dots_y);
                if (px >= 0) plot_canvas_line(cv, px, py, dx, dy, pass);
                else plot_canvas_dot(cv, dx, dy, pass);
                px = dx, py = dy;
            }
        }
    }
}

static int series_attr(UiContext *ctx, int series)
{
    static const int PAIR[] = {UI_PAIR_DIM, UI_PAIR_BAD, UI_PAIR_WARN, UI_PAIR_GOOD};
    return ui_attr(ctx, PAIR[series]);
}

void grid_parallel_draw(GridParallel *gp, UiContext *ctx, int64_t sweep_id, const Pivot *p, PointMetric m, int top,
                        int height, int width)
{
    assert(gp && ctx && p);
    follow(gp, sweep_id, m);
    int dim = ui_attr(ctx, UI_PAIR_DIM), head = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    Parallel par;
    char err[ERR_LEN];
    if (parallel_build(p, m, gp->groups, gp->brush, &par, err)) {
        ui_text(top, 0, width, ui_attr(ctx, UI_PAIR_BAD), "%s", err);
        return;
    }
    int k = par.n_axes, rows = height - 4, label_w = 9;
    gp->axis = MB_MIN(gp->axis, k - 1);
    if (par.n_lines == 0 || rows < 3 || width < 20) {
        ui_text(top, 0, width, dim, "parallel coordinates: %s (v: heatmap)",
                par.n_lines ? "the terminal is too small" : "no finished run with this metric yet");
        parallel_free(&par);
        return;
    }
    /* axis x at column col[x]: evenly from 0 to the width less the last axis's labels */
    int col[PAR_MAX_AXES], span = width - label_w - 1;
    for (int x = 0; x < k; x++) col[x] = k > 1 ? x * span / (k - 1) : span / 2;
    for (int x = 0; x < k; x++) {   /* names over the axes, the picked one highlighted */
        int w = x + 1 < k ? col[x + 1] - col[x] - 1 : width - col[x];
        int attr = x == gp->axis ? ui_attr(ctx, UI_PAIR_SELECTED) | (int)A_BOLD : head;
        ui_text(top, col[x], MB_MAX(w, 1), attr, "%s", par.name[x]);
    }
    PlotCanvas cv;
    if (plot_canvas_init(&cv, width, rows, err)) {
        parallel_free(&par);
        return;
    }
    draw_lines(ctx, &par, col, &cv);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < width; c++) {
            int i = r * width + c;
            if (!cv.dots[i]) continue;
            char text[4];
            if (ctx->utf8) text[plot_cell_utf8(cv.dots[i], text)] = 0;
            else text[0] = plot_cell_ascii(cv.dots[i]), text[1] = 0;
            int attr = series_attr(ctx, cv.series[i] ? cv.series[i] - 1 : 0);
            attron(attr);
            mvaddstr(top + 1 + r, c, text);
            attroff(attr);
        }
    plot_canvas_free(&cv);
    /* the axes over the lines, the range kept marked, and their labels */
    for (int x = 0; x < k; x++) {
        int a = par.axis[x];
        const ParBrush *b = &gp->brush[a];
        double lo, hi;
        parallel_brush_span(p, &par, a, b, &lo, &hi);
        for (int r = 0; r < rows; r++) {
            double v = 1 - (double)r / (rows - 1);
            int in = b->on && v >= lo - 0.5 / rows && v <= hi + 0.5 / rows;
            int attr = in ? ui_attr(ctx, UI_PAIR_SELECTED) | (int)A_BOLD : x == gp->axis ? (int)A_BOLD : dim;
            ui_text(top + 1 + r, col[x], 1, attr, "%s", in ? (ctx->utf8 ? "┃" : "#") : (ctx->utf8 ? "│" : "|"));
        }
        int w = x + 1 < k ? col[x + 1] - col[x] - 1 : width - col[x] - 1;
        if (a != PAR_METRIC) {
            for (int i = 0; i < p->n_values[a]; i++)
                ui_text(top + 1 + (int)lround((1 - parallel_value_pos(p, a, i)) * (rows - 1)), col[x] + 1, w, 0, "%s",
                        p->values[a][i]);
        } else {
            char lo[32], hi[32];
            heat_format(par.lo, 4, lo, sizeof lo);
            heat_format(par.hi, 4, hi, sizeof hi);
            ui_text(top + 1, col[x] + 1, w, 0, "%s", hi);
            ui_text(top + rows, col[x] + 1, w, 0, "%s", lo);
        }
    }
    int y = top + 1 + rows;
    char range[160];
    range_text(p, &par, gp->axis, &gp->brush[par.axis[gp->axis]], range, sizeof range);
    ui_text(y++, 0, width, 0, "axis %s: %s   %d of %d %s kept", par.name[gp->axis], range, par.n_kept, par.n_lines,
            gp->groups ? "seed groups" : "runs");
    ui_text(y++, 0, width, dim, "%s/%s axis  %s/%s top  PgUp/PgDn bottom  x clear  X all  g %s  v heatmap",
            ctx->utf8 ? "←" : "<", ctx->utf8 ? "→" : ">", ctx->utf8 ? "↑" : "up", ctx->utf8 ? "↓" : "down",
            gp->groups ? "runs" : "seed groups");
    if (ctx->colors)
        ui_text(y, 0, width, dim, "colour: %s, red worse, yellow middle, green better; dim: outside a range",
                point_metric_info(m)->label);
    parallel_free(&par);
}

/* Moves an edge of the picked axis's range by one step (a value, or a
   tenth of the metric's range): top edge or bottom, up (+1) or down. */
static void move_edge(GridParallel *gp, const Pivot *p, const Parallel *par, int top_edge, int dir)
{
    int a = par->axis[gp->axis];
    ParBrush *b = &gp->brush[a];
    double lo = a == PAR_METRIC ? par->lo : 0, hi = a == PAR_METRIC ? par->hi : p->n_values[a] - 1;
    double step = a == PAR_METRIC ? (hi - lo) / 10 : 1;
    if (!b->on) *b = a == PAR_METRIC ? (ParBrush){1, -INFINITY, INFINITY} : (ParBrush){1, lo, hi};
    if (!isfinite(step) || step <= 0) return;
    double *edge = top_edge ? &b->hi : &b->lo;
    *edge = fmin(hi, fmax(lo, *edge)) + dir * step;
    /* the edges stay in the axis and apart; at its end a metric's edge is
       open, so that rounding never drops the extreme line */
    if (top_edge) *edge = fmin(hi, fmax(*edge, fmax(lo, b->lo)));
    else *edge = fmax(lo, fmin(*edge, fmin(hi, b->hi)));
    if (a == PAR_METRIC && top_edge && *edge >= hi - step / 2) *edge = INFINITY;
    if (a == PAR_METRIC && !top_edge && *edge <= lo + step / 2) *edge = -INFINITY;
}

int grid_parallel_key(GridParallel *gp, UiContext *ctx, int64_t sweep_id, const Pivot *p, PointMetric m, int ch)
{
    assert(gp && ctx && p);
    follow(gp, sweep_id, m);
    if (ch == 'g') {
        gp->groups = !gp->groups;
        ui_say(ctx, "parallel coordinates: a line per %s", gp->groups ? "seed group (its mean)" : "run");
        return 1;
    }
    Parallel par;
    char err[ERR_LEN];
    if (parallel_build(p, m, gp->groups, gp->brush, &par, err)) {
        ui_say(ctx, "%s", err);
        return 1;
    }
    int took = 1, k = par.n_axes;
    switch (ch) {
    case KEY_LEFT: case 'h': gp->axis = (gp->axis + k - 1) % k; break;
    case KEY_RIGHT: case 'l': gp->axis = (gp->axis + 1) % k; break;
    case KEY_UP: case 'k': move_edge(gp, p, &par, 1, +1); break;
    case KEY_DOWN: case 'j': move_edge(gp, p, &par, 1, -1); break;
    case KEY_PPAGE: move_edge(gp, p, &par, 0, +1); break;
    case KEY_NPAGE: move_edge(gp, p, &par, 0, -1); break;
    case 'x': gp->brush[par.axis[MB_MIN(gp->axis, k - 1)]].on = 0; break;
    case 'X': memset(gp->brush, 0, sizeof gp->brush); break;
    default: took = 0;
    }
    parallel_free(&par);
    return took;
}

void grid_parallel_figure(GridParallel *gp, UiContext *ctx, int64_t sweep_id, const Pivot *p, PointMetric m)
{
    assert(gp && ctx && p);
    follow(gp, sweep_id, m);
    Figure fig;
    figure_init(&fig);
    char err[ERR_LEN] = "no sweep shown", name[48], ranges[2048];
    parallel_format_ranges(p, m, gp->brush, ranges, sizeof ranges);
    ParallelView v = {sweep_id, (int)m, gp->groups, ranges};
    snprintf(name, sizeof name, "parallel-sweep%lld", (long long)sweep_id);
    ui_figure_save(ctx, &fig, sweep_id ? figure_parallel(ctx->store, &v, &fig, err) : -1, err, name);
}
