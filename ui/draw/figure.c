/*
 * figure.c — the figure description of figure.h: its lines, plots, series
 * and heatmap, owned and freed here, and the file formats.  The drawing
 * with cairo is ui/draw/figure_draw.c.
 */
#include "ui/draw/figure.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/common.h"

/* ---- the description ------------------------------------------------------ */

void figure_init(Figure *f)
{
    assert(f);
    memset(f, 0, sizeof *f);
}

static void lines_free(FigLine *lines, int n)
{
    for (int i = 0; i < n; i++) free(lines[i].text);
    free(lines);
}

void figure_free(Figure *f)
{
    if (!f) return;
    lines_free(f->notes, f->n_notes);
    lines_free(f->footer, f->n_footer);
    for (int p = 0; p < f->n_plots; p++) {
        for (int s = 0; s < f->plots[p].n_series; s++) free(f->plots[p].series[s].x), free(f->plots[p].series[s].y);
        free(f->plots[p].series);
    }
    free(f->plots);
    if (f->heatmap) {
        free(f->heatmap->row_labels);
        free(f->heatmap->col_labels);
        free(f->heatmap->cells);
        free(f->heatmap);
    }
    memset(f, 0, sizeof *f);
}

/* Room for `need` elements of `size` bytes in the array whose pointer is at
   slot (capacity *cap); -1 when out of memory. */
static int reserve(void *slot, int *cap, int need, size_t size)
{
    if (need <= *cap) return 0;
    void *old;
    memcpy(&old, slot, sizeof old);
    int grown = *cap ? *cap * 2 : 8;
    while (grown < need) grown *= 2;
    void *p = realloc(old, (size_t)grown * size);
    if (!p) return -1;
    memcpy(slot, &p, sizeof p);
    *cap = grown;
    return 0;
}

static int add_line(FigLine **lines, int *n, int *cap, FigTone tone, const char *fmt, va_list ap)
{
    char *text;
    if (vasprintf(&text, fmt, ap) < 0) return -1;
    if (reserve(lines, cap, *n + 1, sizeof **lines)) {
        free(text);
        return -1;
    }
    (*lines)[(*n)++] = (FigLine){text, tone};
    return 0;
}

int figure_note(Figure *f, FigTone tone, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = add_line(&f->notes, &f->n_notes, &f->cap_notes, tone, fmt, ap);
    va_end(ap);
    return rc;
}

int figure_footer(Figure *f, FigTone tone, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = add_line(&f->footer, &f->n_footer, &f->cap_footer, tone, fmt, ap);
    va_end(ap);
    return rc;
}

FigPlot *figure_add_plot(Figure *f, const char *title, const char *x_label, const char *y_label, int log_y)
{
    assert(f);
    if (reserve(&f->plots, &f->cap_plots, f->n_plots + 1, sizeof *f->plots)) return NULL;
    FigPlot *p = &f->plots[f->n_plots++];
    memset(p, 0, sizeof *p);
    snprintf(p->title, sizeof p->title, "%s", title ? title : "");
    snprintf(p->x_label, sizeof p->x_label, "%s", x_label ? x_label : "");
    snprintf(p->y_label, sizeof p->y_label, "%s", y_label ? y_label : "");
    p->log_y = log_y;
    return p;
}

FigSeries *fig_plot_series(FigPlot *p, FigMark mark, int color, const double *x, const double *y, int n)
{
    assert(p && y && n >= 0);
    if (reserve(&p->series, &p->cap_series, p->n_series + 1, sizeof *p->series)) return NULL;
    size_t ny = (size_t)(mark == FIG_BAND ? 2 * n : n);
    FigSeries s;
    memset(&s, 0, sizeof s);
    s.mark = mark;
    s.color = color;
    s.n = n;
    s.y = malloc((ny ? ny : 1) * sizeof *s.y);
    s.x = x ? malloc((size_t)(n ? n : 1) * sizeof *s.x) : NULL;
    if (!s.y || (x && !s.x)) {
        free(s.x);
        free(s.y);
        return NULL;
    }
    memcpy(s.y, y, ny * sizeof *s.y);
    if (x) memcpy(s.x, x, (size_t)n * sizeof *s.x);
    p->series[p->n_series] = s;
    return &p->series[p->n_series++];
}

FigHeatmap *figure_set_heatmap(Figure *f, int rows, int cols)
{
    assert(f && !f->heatmap && rows > 0 && cols > 0);
    FigHeatmap *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->rows = rows;
    h->cols = cols;
    h->row_labels = calloc((size_t)rows, sizeof *h->row_labels);
    h->col_labels = calloc((size_t)cols, sizeof *h->col_labels);
    h->cells = calloc((size_t)rows * (size_t)cols, sizeof *h->cells);
    if (!h->row_labels || !h->col_labels || !h->cells) {
        free(h->row_labels);
        free(h->col_labels);
        free(h->cells);
        free(h);
        return NULL;
    }
    for (int i = 0; i < rows * cols; i++) h->cells[i].shade = NAN;
    f->heatmap = h;
    return h;
}

int figure_format_of(const char *path, FigFormat *format, char *err)
{
    assert(path && format);
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    static const struct {
        const char *ext;
        FigFormat format;
    } EXTS[] = {{".svg", FIG_SVG}, {".pdf", FIG_PDF}, {".png", FIG_PNG}};
    for (size_t i = 0; dot && (!slash || dot > slash) && i < sizeof EXTS / sizeof EXTS[0]; i++)
        if (!strcasecmp(dot, EXTS[i].ext)) {
            *format = EXTS[i].format;
            return 0;
        }
    return err_set(err, "%s: unknown figure format (the file name must end in .svg, .pdf or .png)", path);
}
