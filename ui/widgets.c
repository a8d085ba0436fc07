/*
 * widgets.c — drawing helpers every screen shares: clipped text, plots of
 * ui/plot.h drawn cell by cell with a colour per series, colour attributes
 * with a monochrome fallback, and a yes/no question.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "ui/plot.h"
#include "ui/ui.h"

int ui_attr(UiContext *ctx, int pair)
{
    if (ctx->colors) return COLOR_PAIR(pair);
    switch (pair) {
    case UI_PAIR_SELECTED: return A_REVERSE;
    case UI_PAIR_TITLE: return A_BOLD;
    case UI_PAIR_BAD: return A_BOLD;
    case UI_PAIR_DIM: return A_DIM;
    default: return 0;
    }
}

/* Bytes of the first `width` columns of UTF-8 text (one column a character). */
static int clip_utf8(const char *s, int width)
{
    int bytes = 0, cols = 0;
    while (s[bytes] && cols < width) {
        unsigned char c = (unsigned char)s[bytes];
        int len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        for (int k = 1; k < len; k++)
            if (!s[bytes + k]) return bytes;
        bytes += len;
        cols++;
    }
    return bytes;
}

void ui_text(int y, int x, int width, int attr, const char *fmt, ...)
{
    if (width <= 0) return;
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    attron(attr);
    mvaddnstr(y, x, buf, clip_utf8(buf, width));
    attroff(attr);
}

void ui_plot(UiContext *ctx, int y, int x, int height, int width, const PlotSeries *series, int n_series, int log_y)
{
    if (height < 4 || width < 12) return;
    PlotOptions opt = {width, height, log_y, !ctx->utf8, 0};
    PlotGrid g;
    char err[ERR_LEN];
    if (plot_render_grid(&opt, series, n_series, &g, err)) {
        ui_text(y, x, width, ui_attr(ctx, UI_PAIR_DIM), "%s", err);
        return;
    }
    for (int r = 0; r < g.rows; r++)
        for (int c = 0; c < g.cols; c++) {
            const PlotCell *cell = &g.cells[r * g.cols + c];
            if (!cell->text[0] || !strcmp(cell->text, " ")) continue;
            int attr = cell->series ? ui_attr(ctx, UI_PAIR_SERIES0 + (cell->series - 1) % 8) : 0;
            attron(attr);
            mvaddstr(y + r, x + c, cell->text);
            attroff(attr);
        }
    plot_grid_free(&g);
}

int ui_confirm(UiContext *ctx, const char *question)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    move(rows - 2, 0);
    clrtoeol();
    ui_text(rows - 2, 0, cols, ui_attr(ctx, UI_PAIR_WARN) | A_BOLD, "%s [y/N]", question);
    refresh();
    timeout(-1);
    int ch = getch();
    timeout(100);
    return ch == 'y' || ch == 'Y';
}
