/*
 * test_plot.c — the terminal plotting library (ui/draw/plot.c): braille dot bits
 * and code points, Bresenham lines, 1-2-5 and log ticks, tick labels, whole
 * figures in braille and ASCII (exact strings), colour escapes, reference
 * lines and shaded bands, sparklines; ASCII curves drawn with their own
 * glyph; the parallel coordinates figure (ui/draw/figure.h): its tick labels
 * never over another axis's line.
 *
 * Not for: the commands that print plots (tests/db/test_store_cli.sh runs
 * `ls` and `show`).
 */
#include "ui/draw/plot.h"
#include "engine/common.h"
#include "tests/check.h"
#include "ui/draw/figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Canvas row r as text, for exact comparisons. */
static const char *row_text(const PlotCanvas *c, int r, int ascii)
{
    static char text[256];
    if (plot_canvas_row_text(c, r, ascii, text, sizeof text) < 0)
        return "<too long>";
    return text;
}

static void test_braille_bits(void)
{
    static const unsigned char want[4][2] = {
        {0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80},
    };
    for (int dy = 0; dy < 4; dy++)
        for (int dx = 0; dx < 2; dx++)
            CHECK(plot_braille_bit(dx, dy) == want[dy][dx], "bit (%d,%d) = %#x", dx, dy,
                  plot_braille_bit(dx, dy));
    CHECK(plot_braille_bit(2, 0) == 0 && plot_braille_bit(0, 4) == 0, "outside a cell");

    char out[4];
    CHECK(plot_cell_utf8(0x01, out) == 3 && strcmp(out, "\xe2\xa0\x81") == 0, "U+2801");
    CHECK(plot_cell_utf8(0xFF, out) == 3 && strcmp(out, "⣿") == 0, "U+28FF: %s", out);
    CHECK(plot_cell_utf8(0x47, out) == 3 && strcmp(out, "⡇") == 0, "left column: %s", out);
    CHECK(plot_cell_utf8(0xB8, out) == 3 && strcmp(out, "⢸") == 0, "right column: %s", out);
    CHECK(plot_cell_utf8(0, out) == 1 && strcmp(out, " ") == 0, "empty cell is a space");
    CHECK(plot_cell_ascii(0) == ' ' && plot_cell_ascii(0x09) == '\'' &&
          plot_cell_ascii(0x84) == '.' && plot_cell_ascii(0x41) == ':', "ASCII cells");
}

static void test_canvas_points(void)
{
    char err[ERR_LEN] = "";
    PlotCanvas c;
    CHECK(plot_canvas_init(&c, 2, 1, err) == 0, "%s", err);
    plot_canvas_dot(&c, 0, 0, 0);
    plot_canvas_dot(&c, 1, 3, 0);
    plot_canvas_dot(&c, 2, 1, 1);
    plot_canvas_dot(&c, 3, 2, 1);
    plot_canvas_dot(&c, 4, 0, 1);  /* outside: ignored */
    plot_canvas_dot(&c, -1, 0, 1); /* outside: ignored */
    /* cell 0: (0,0)=0x01 + (1,3)=0x80 -> U+2881; cell 1: (0,1)=0x02 + (1,2)=0x20 -> U+2822 */
    CHECK(c.dots[0] == 0x81 && c.dots[1] == 0x22, "masks %#x %#x", c.dots[0], c.dots[1]);
    CHECK(strcmp(row_text(&c, 0, 0), "⢁⠢") == 0, "got %s", row_text(&c, 0, 0));
    CHECK(strcmp(row_text(&c, 0, 1), "::") == 0, "got %s", row_text(&c, 0, 1));
    CHECK(c.series[0] == 1 && c.series[1] == 2, "series %d %d", c.series[0], c.series[1]);
    plot_canvas_free(&c);

    CHECK(plot_canvas_init(&c, 3, 1, err) == 0, "%s", err);
    plot_canvas_marker(&c, 3, 1, 0, 'o');
    CHECK(strcmp(row_text(&c, 0, 0), " ⣿ ") == 0, "marker: %s", row_text(&c, 0, 0));
    CHECK(strcmp(row_text(&c, 0, 1), " o ") == 0, "marker: %s", row_text(&c, 0, 1));
    plot_canvas_free(&c);
    CHECK(plot_canvas_init(&c, 0, 3, err) == -1 && strstr(err, "empty"), "%s", err);
}

static void test_diagonal_line(void)
{
    char err[ERR_LEN] = "";
    PlotCanvas c;
    CHECK(plot_canvas_init(&c, 4, 2, err) == 0, "%s", err);
    plot_canvas_line(&c, 0, 0, 7, 7, 0);
    CHECK(strcmp(row_text(&c, 0, 0), "⠑⢄  ") == 0, "got '%s'", row_text(&c, 0, 0));
    CHECK(strcmp(row_text(&c, 1, 0), "  ⠑⢄") == 0, "got '%s'", row_text(&c, 1, 0));
    CHECK(strcmp(row_text(&c, 0, 1), "'.  ") == 0, "got '%s'", row_text(&c, 0, 1));

    /* Drawn backwards, the same dots. */
    PlotCanvas b;
    CHECK(plot_canvas_init(&b, 4, 2, err) == 0, "%s", err);
    plot_canvas_line(&b, 7, 7, 0, 0, 0);
    CHECK(memcmp(b.dots, c.dots, 8) == 0, "reversed line differs");
    plot_canvas_free(&b);

    /* Shallow line: one dot per column, 8 columns, 2 rows. */
    memset(c.dots, 0, 8);
    plot_canvas_line(&c, 0, 0, 7, 1, 0);
    int dots = 0;
    for (int i = 0; i < 8; i++)
        for (int bit = 0; bit < 8; bit++)
            dots += (c.dots[i] >> bit) & 1;
    CHECK(dots == 8, "shallow line has %d dots", dots);
    CHECK(strcmp(row_text(&c, 0, 0), "⠉⠉⠒⠒") == 0, "got '%s'", row_text(&c, 0, 0));
    plot_canvas_free(&c);
}

/* Ticks as "a,b,c" with each printed by %g. */
static const char *tick_list(const double *t, int n)
{
    static char text[512];
    text[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%g", i ? "," : "", t[i]);
    return text;
}

static void test_nice_ticks(void)
{
    double t[64], step = 0;
    int n = plot_nice_ticks(0, 1, 6, t, 64, &step);
    CHECK(strcmp(tick_list(t, n), "0,0.2,0.4,0.6,0.8,1") == 0 && step == 0.2, "got %s step %g",
          tick_list(t, n), step);
    CHECK(t[3] == 0.6, "0.6 exactly: %.17g", t[3]);
    n = plot_nice_ticks(2.3, 7.9, 6, t, 64, &step);
    CHECK(strcmp(tick_list(t, n), "3,4,5,6,7") == 0 && step == 1, "got %s", tick_list(t, n));
    n = plot_nice_ticks(2.3, 7.9, 3, t, 64, &step);
    CHECK(strcmp(tick_list(t, n), "4,6") == 0 && step == 2, "got %s", tick_list(t, n));
    n = plot_nice_ticks(-1, 1, 5, t, 64, &step);
    CHECK(strcmp(tick_list(t, n), "-1,-0.5,0,0.5,1") == 0, "got %s", tick_list(t, n));
    n = plot_nice_ticks(0, 12000, 5, t, 64, &step);
    CHECK(strcmp(tick_list(t, n), "0,5000,10000") == 0, "got %s", tick_list(t, n));
    n = plot_nice_ticks(0.0012, 0.0047, 5, t, 64, &step);
    CHECK(strcmp(tick_list(t, n), "0.002,0.003,0.004") == 0, "got %s", tick_list(t, n));
    CHECK(plot_nice_ticks(1, 0, 5, t, 64, &step) == 0, "reversed range");
    CHECK(plot_nice_ticks(0, NAN, 5, t, 64, &step) == 0, "NaN range");

    char label[16];
    plot_format_tick(0.6, 0.2, label, sizeof label);
    CHECK(strcmp(label, "0.6") == 0, "got %s", label);
    plot_format_tick(1e-17, 0.2, label, sizeof label);
    CHECK(strcmp(label, "0.0") == 0, "rounding noise at zero: %s", label);
    plot_format_tick(0.003, 0.001, label, sizeof label);
    CHECK(strcmp(label, "0.003") == 0, "got %s", label);
    plot_format_tick(2.5, 0.5, label, sizeof label);
    CHECK(strcmp(label, "2.5") == 0, "got %s", label);
    plot_format_tick(400, 100, label, sizeof label);
    CHECK(strcmp(label, "400") == 0, "got %s", label);
    plot_format_tick(20000, 5000, label, sizeof label);
    CHECK(strcmp(label, "20k") == 0, "got %s", label);
    plot_format_tick(3e6, 1e6, label, sizeof label);
    CHECK(strcmp(label, "3M") == 0, "got %s", label);
    plot_format_tick(0.01, 0, label, sizeof label);
    CHECK(strcmp(label, "0.01") == 0, "got %s", label);
    plot_format_tick(1000, 0, label, sizeof label);
    CHECK(strcmp(label, "1k") == 0, "got %s", label);
}

static void test_log_ticks(void)
{
    double t[64];
    int n = plot_log_ticks(1, 1000, 6, t, 64);
    CHECK(strcmp(tick_list(t, n), "1,10,100,1000") == 0, "got %s", tick_list(t, n));
    n = plot_log_ticks(0.5, 30, 6, t, 64);
    CHECK(strcmp(tick_list(t, n), "0.5,1,2,5,10,20") == 0, "got %s", tick_list(t, n));
    n = plot_log_ticks(1e-8, 1e8, 6, t, 64);
    CHECK(strcmp(tick_list(t, n), "1e-06,0.001,1,1000,1e+06") == 0, "got %s", tick_list(t, n));
    n = plot_log_ticks(1.5, 9, 6, t, 64);
    CHECK(strcmp(tick_list(t, n), "2,4,6,8") == 0, "got %s", tick_list(t, n));
    CHECK(plot_log_ticks(0, 10, 6, t, 64) == 0, "log ticks need lo > 0");
}

static char *render(const PlotOptions *opt, const PlotSeries *s, int n)
{
    char err[ERR_LEN] = "";
    char *out = NULL;
    if (plot_render(opt, s, n, &out, err) != 0) {
        printf("  render failed: %s\n", err);
        return strdup("<error>");
    }
    return out;
}

static void test_plot_linear(void)
{
    double x[2] = {0, 10}, y[2] = {0, 1};
    PlotSeries s = {x, y, 2, PLOT_LINE, 0, 0};
    PlotOptions opt = {20, 6, 0, 0, 0, 0};
    char *out = render(&opt, &s, 1);
    const char *want =
        "1.0┤             ⣀⠤⠒\n"
        "   │        ⣀⠤⠔⠊⠉\n"
        "0.5┤   ⣀⡠⠔⠒⠉\n"
        "0.0┤⠤⠒⠉\n"
        "   └┬───────┬──────┬\n"
        "    0       5     10\n";
    CHECK(strcmp(out, want) == 0, "got\n%s", out);
    free(out);

    opt.ascii = 1;
    out = render(&opt, &s, 1);
    const char *want_ascii =
        "1.0+             ***\n"
        "   |        *****\n"
        "0.5+   *****\n"
        "0.0+***\n"
        "   ++-------+------+\n"
        "    0       5     10\n";
    CHECK(strcmp(out, want_ascii) == 0, "got\n%s", out);
    for (const char *p = out; *p; p++)
        CHECK((unsigned char)*p < 0x80, "non-ASCII byte %#x", (unsigned char)*p);
    free(out);
}

static void test_plot_log(void)
{
    double x[4] = {0, 1, 2, 3}, y[4] = {1, 10, 100, 1000};
    PlotSeries s = {x, y, 4, PLOT_LINE, 0, 0};
    PlotOptions opt = {24, 8, 1, 0, 0, 0};
    char *out = render(&opt, &s, 1);
    /* Powers of ten on a log axis: a straight line, ticks 1, 10, 100, 1k. */
    const char *want =
        " 1k┤                 ⢀⡠⠔\n"
        "   │             ⢀⡠⠔⠊⠁\n"
        "100┤          ⣀⠤⠒⠁\n"
        " 10┤      ⢀⠤⠒⠉\n"
        "   │  ⢀⡠⠔⠊⠁\n"
        "  1┤⠔⠊⠁\n"
        "   └┬────────────┬──────\n"
        "    0            2\n";
    CHECK(strcmp(out, want) == 0, "got\n%s", out);
    free(out);

    /* Values <= 0 are left out on a log axis instead of failing. */
    double yz[4] = {0, 10, -5, 1000};
    PlotSeries z = {x, yz, 4, PLOT_LINE, 0, 0};
    out = render(&opt, &z, 1);
    CHECK(strstr(out, "1k┤") != NULL, "got\n%s", out);
    free(out);
}

static void test_plot_markers_and_color(void)
{
    double x[3] = {1, 2, 3}, y[3] = {2, 3, 2.5};
    PlotSeries s[2] = {{x, y, 3, PLOT_LINE, 0, 36}, {x, y, 3, PLOT_MARKERS, 'o', 33}};
    PlotOptions opt = {20, 6, 0, 1, 0, 0};
    char *out = render(&opt, s, 2);
    const char *want =
        "3.0+      **o***\n"
        "2.5+    ***    ****o\n"
        "   |  **\n"
        "2.0+o*\n"
        "   ++-------+------+\n"
        "    1       2      3\n";
    CHECK(strcmp(out, want) == 0, "got\n%s", out);
    free(out);

    opt.ascii = 0;
    opt.ansi_color = 1;
    out = render(&opt, s, 2);
    const char *first_line = "3.0┤      \033[36m⢀⡠\033[33m⣿\033[36m⠤⣀⡀\033[0m\n";
    CHECK(strncmp(out, first_line, strlen(first_line)) == 0, "got\n%s", out);
    free(out);

    /* no colours: braille lines, the markers as their glyph */
    opt.ansi_color = 0;
    opt.glyph_markers = 1;
    out = render(&opt, s, 2);
    first_line = "3.0┤      ⢀⡠o⠤⣀⡀\n";
    CHECK(strncmp(out, first_line, strlen(first_line)) == 0, "got\n%s", out);
    CHECK(strstr(out, "⣿") == NULL, "a block marker left in\n%s", out);
    free(out);
}

static void test_plot_edge_cases(void)
{
    char err[ERR_LEN] = "";
    PlotOptions opt = {30, 8, 0, 0, 0, 0};
    char *out = NULL;
    /* No data: an empty frame, not an error. */
    CHECK(plot_render(&opt, NULL, 0, &out, err) == 0, "%s", err);
    CHECK(out && strstr(out, "└") != NULL, "frame");
    free(out);
    /* One point, and NaN/inf points skipped. */
    double x[3] = {5, NAN, 7}, y[3] = {2.0, 1.0, INFINITY};
    PlotSeries s = {x, y, 3, PLOT_LINE, 0, 0};
    CHECK(plot_render(&opt, &s, 1, &out, err) == 0, "%s", err);
    CHECK(out && strstr(out, "2.0┤             ⠁\n") != NULL, "single dot: \n%s", out);
    free(out);
    PlotOptions tiny = {8, 3, 0, 0, 0, 0};
    CHECK(plot_render(&tiny, &s, 1, &out, err) == -1 && out == NULL && strstr(err, "12x4"),
          "%s", err);
    /* Every line has at most width columns. */
    PlotOptions wide = {72, 14, 0, 0, 0, 0};
    double lx[100], ly[100];
    for (int i = 0; i < 100; i++) {
        lx[i] = i * 137.0;
        ly[i] = 5.0 / (1 + i) + 2;
    }
    PlotSeries l = {lx, ly, 100, PLOT_LINE, 0, 0};
    CHECK(plot_render(&wide, &l, 1, &out, err) == 0, "%s", err);
    int lines = 0, cols = 0, max_cols = 0;
    for (const unsigned char *p = (const unsigned char *)out; out && *p; p++) {
        if (*p == '\n') {
            lines++;
            max_cols = MB_MAX(max_cols, cols);
            cols = 0;
        } else if ((*p & 0xC0) != 0x80) {
            cols++;
        }
    }
    CHECK(lines == 14 && max_cols <= 72, "%d lines, %d columns", lines, max_cols);
    free(out);
}

/* The first canvas column of a figure: right of the y axis. */
static int canvas_left(const PlotGrid *g)
{
    for (int c = 0; c < g->cols; c++)
        if (!strcmp(g->cells[c].text, "┤") || !strcmp(g->cells[c].text, "│")) return c + 1;
    return g->cols;
}

/* A reference line: dashed under the curve, in its own series, in the y
   range even above the data; a band: shaded between its edges, under the
   curve drawn after it. */
static void test_plot_reference_and_band(void)
{
    char err[ERR_LEN] = "";
    PlotOptions opt = {24, 8, 0, 0, 0, 0};
    double x[3] = {0, 5, 10}, y[3] = {4, 3, 2}, level[1] = {3};
    PlotSeries s[2] = {{NULL, level, 1, PLOT_HLINE, 0, 0}, {x, y, 3, PLOT_LINE, 0, 0}};
    PlotGrid g;
    CHECK(plot_render_grid(&opt, s, 2, &g, err) == 0, "%s", err);
    /* the level 3 is a tick ("3", step 1): its row is the rule (series 1)
       in every canvas cell but where the curve (series 2) passes */
    int left = canvas_left(&g), rule_row = -1, rule = 0, curve = 0, other_rows = 0;
    for (int r = 0; r < g.rows - 2; r++)
        if (!strcmp(g.cells[r * g.cols].text, "3")) rule_row = r;
    for (int r = 0; r < g.rows - 2; r++)
        for (int c = left; c < g.cols; c++) {
            const PlotCell *cell = &g.cells[r * g.cols + c];
            if (!strcmp(cell->text, "╌")) {
                if (r == rule_row && cell->series == 1) rule++;
                else other_rows++;
            } else if (r == rule_row && cell->series == 2) {
                curve++;
            }
        }
    CHECK(rule_row > 0 && rule >= g.cols - left - 6 && curve >= 1 && rule + curve == g.cols - left &&
              other_rows == 0, "row %d: rule %d curve %d of %d; elsewhere %d", rule_row, rule, curve,
          g.cols - left, other_rows);
    plot_grid_free(&g);
    opt.ascii = 1;
    char *out = NULL;
    CHECK(plot_render(&opt, s, 2, &out, err) == 0, "%s", err);
    const char *line = out ? strstr(out, "\n3+") : NULL;
    CHECK(line && !strncmp(line, "\n3+-------", 10), "ASCII rule:\n%s", out);
    free(out);

    /* a level above the data widens the y range to it */
    double high[1] = {10};
    s[0].y = high;
    CHECK(plot_render(&opt, s, 2, &out, err) == 0, "%s", err);
    CHECK(out && !strncmp(out, "10+---", 6), "the rule on the top row:\n%s", out);
    free(out);

    /* a band from 1 to 3 under a line at 2: shade above and below the line */
    opt.ascii = 0;
    double edges[6] = {1, 1, 1, 3, 3, 3}, mid[3] = {2, 2, 2};
    PlotSeries b[2] = {{x, edges, 3, PLOT_BAND, 0, 0}, {x, mid, 3, PLOT_LINE, 0, 0}};
    CHECK(plot_render_grid(&opt, b, 2, &g, err) == 0, "%s", err);
    left = canvas_left(&g);
    int width = g.cols - left, shade_rows = 0, line_rows = 0;
    for (int r = 0; r < g.rows - 2; r++) {
        int shaded = 0, lined = 0;
        for (int c = left; c < g.cols; c++) {
            const PlotCell *cell = &g.cells[r * g.cols + c];
            shaded += !strcmp(cell->text, "░") && cell->series == 1;
            lined += cell->series == 2;
        }
        /* rows are either all shade, or the line (no shade left in them) */
        CHECK((shaded == width && !lined) || (lined == width && !shaded), "row %d: %d shaded, %d line of %d", r,
              shaded, lined, width);
        shade_rows += shaded == width;
        line_rows += lined == width;
    }
    /* [1, 3] padded is [0.9, 3.1]: all 6 rows are inside the band */
    CHECK(shade_rows == 5 && line_rows == 1, "%d shaded rows, %d line rows", shade_rows, line_rows);
    plot_grid_free(&g);
    PlotCanvas c;
    CHECK(plot_canvas_init(&c, 3, 1, err) == 0, "%s", err);
    plot_canvas_fill(&c, 0, 0, 0, PLOT_FILL_SHADE);
    plot_canvas_fill(&c, 1, 0, 0, PLOT_FILL_RULE);
    plot_canvas_fill(&c, 5, 0, 0, PLOT_FILL_RULE); /* outside: ignored */
    CHECK(!strcmp(row_text(&c, 0, 1), "~- "), "ASCII fills: '%s'", row_text(&c, 0, 1));
    plot_canvas_dot(&c, 0, 0, 1);                  /* a dot hides the fill */
    CHECK(!strcmp(row_text(&c, 0, 0), "⠁╌ "), "UTF-8 fills: '%s'", row_text(&c, 0, 0));
    plot_canvas_free(&c);
}

static void test_sparkline(void)
{
    char out[128];
    double up[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(plot_sparkline(up, 8, 8, 0, out, sizeof out) == 24 && strcmp(out, "▁▂▃▄▅▆▇█") == 0,
          "got %s", out);
    CHECK(plot_sparkline(up, 8, 8, 1, out, sizeof out) == 8 && strcmp(out, "_.-:=+*#") == 0,
          "got %s", out);
    double flat[3] = {2, 2, 2};
    CHECK(plot_sparkline(flat, 3, 10, 0, out, sizeof out) == 9 && strcmp(out, "▄▄▄") == 0,
          "got %s", out);
    double many[16];
    for (int i = 0; i < 16; i++)
        many[i] = i + 1;
    /* Bucket means 2.5 6.5 10.5 14.5 -> levels 0, 2, 5, 7. */
    CHECK(plot_sparkline(many, 16, 4, 0, out, sizeof out) == 12 && strcmp(out, "▁▃▆█") == 0,
          "got %s", out);
    double gaps[4] = {4, NAN, 2, INFINITY};
    CHECK(plot_sparkline(gaps, 4, 4, 1, out, sizeof out) == 4 && strcmp(out, "# _ ") == 0,
          "got '%s'", out);
    char small[5];
    CHECK(plot_sparkline(up, 8, 8, 0, small, sizeof small) == -1, "cap too small");
    CHECK(plot_sparkline(up, 0, 8, 0, out, sizeof out) == 0 && out[0] == 0, "no values");
}

/* Two curves in ASCII: each drawn with its own glyph (a PLOT_LINE's
   marker), none with the '*' a valid marker may use; without one, '*'. */
static void test_ascii_line_glyphs(void)
{
    double x[2] = {0, 1}, up[2] = {0, 1}, down[2] = {1, 0};
    PlotSeries s[2] = {{x, up, 2, PLOT_LINE, '1', 0}, {x, down, 2, PLOT_LINE, '2', 0}};
    PlotOptions opt = {30, 10, 0, 1, 0, 0};
    char *out = NULL, err[ERR_LEN];
    CHECK(plot_render(&opt, s, 2, &out, err) == 0, "%s", err);
    CHECK(out && strchr(out, '1') && strchr(out, '2') && !strchr(out, '*'), "curves:\n%s", out ? out : "");
    free(out);
    s[1].marker = 0;
    CHECK(plot_render(&opt, s, 2, &out, err) == 0, "%s", err);
    CHECK(out && strchr(out, '*'), "a line without a glyph is '*':\n%s", out ? out : "");
    free(out);
}

/* Eight axes whose tick labels are wider than the gap between two axes:
   every label is cut ("…") before the axis on its left.  Read back from
   the SVG: the axes' vertical lines, the labels' left edges. */
static void test_parallel_labels_clear_axes(void)
{
    Figure f;
    figure_init(&f);
    FigParallel *par = figure_set_parallel(&f, 8, 2);
    CHECK(par != NULL, "figure_set_parallel");
    if (!par) return;
    for (int a = 0; a < 8; a++) {
        snprintf(par->axes[a].name, sizeof par->axes[a].name, "axis %d", a);
        par->axes[a].n_ticks = 2;
        for (int t = 0; t < 2; t++) {
            snprintf(par->axes[a].tick[t], FIG_LABEL_LEN, "value-%d-with-a-long-name-of-its-own", t);
            par->axes[a].tick_pos[t] = t;
        }
        for (int l = 0; l < 2; l++) par->pos[l * 8 + a] = l;
    }
    par->shade[0] = 1;
    par->shade[1] = 2;
    char path[64], err[ERR_LEN];
    snprintf(path, sizeof path, "/tmp/test_plot_par_%d.svg", (int)getpid());
    CHECK(figure_write(&f, path, err) == 0, "%s", err);
    figure_free(&f);
    FILE *in = fopen(path, "r");
    CHECK(in != NULL, "no %s", path);
    if (!in) return;
    double axes[16], left[64];
    int n_axes = 0, n_ticks = 0, cut = 0;
    char line[8192];
    while (fgets(line, sizeof line, in)) {
        const char *d = strstr(line, "stroke:rgb(13%,13%,13%)") && strstr(line, "stroke-width:1;") ? strstr(line, " d=\"M ") : NULL;
        double x0, y0, x1, y1;
        if (d && sscanf(d, " d=\"M %lf %lf L %lf %lf", &x0, &y0, &x1, &y1) == 4 && x0 == x1 && n_axes < 16)
            axes[n_axes++] = x0;
        const char *t = strstr(line, "<text class=\"ytick\" x=\"");
        if (t && n_ticks < 64) left[n_ticks++] = atof(t + strlen("<text class=\"ytick\" x=\""));
        cut += t && strstr(line, "…") != NULL;
    }
    fclose(in);
    remove(path);
    CHECK(n_axes == 8 && n_ticks == 16, "%d axis lines, %d tick labels", n_axes, n_ticks);
    for (int t = 0; t < n_ticks; t++) {
        double own = INFINITY;   /* the first axis right of the label */
        for (int a = 0; a < n_axes; a++)
            if (axes[a] > left[t]) own = fmin(own, axes[a]);
        for (int a = 0; a < n_axes; a++)
            CHECK(!(axes[a] > left[t] && axes[a] < own), "tick label %d (at %.1f) over the axis at %.1f", t, left[t],
                  axes[a]);
        CHECK(left[t] > 0, "tick label %d starts off the page (%.1f)", t, left[t]);
    }
    CHECK(cut == 16, "%d of 16 labels cut with an ellipsis", cut);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_braille_bits);
    RUN(test_canvas_points);
    RUN(test_diagonal_line);
    RUN(test_nice_ticks);
    RUN(test_log_ticks);
    RUN(test_plot_linear);
    RUN(test_plot_log);
    RUN(test_plot_markers_and_color);
    RUN(test_plot_edge_cases);
    RUN(test_plot_reference_and_band);
    RUN(test_sparkline);
    RUN(test_ascii_line_glyphs);
    RUN(test_parallel_labels_clear_axes);
    figure_cleanup();   /* cairo's and fontconfig's caches, as the commands that draw do (LeakSanitizer) */
    CHECK_EXIT();
}
