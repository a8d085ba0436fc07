/*
 * parallel.c — a sweep's runs as parallel coordinates, and the brushes
 * that filter them (parallel.h).
 */
#include "experiments/parallel.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/text.h"

double parallel_value_pos(const Pivot *p, int a, double i)
{
    assert(p && a >= 0 && a < p->n_axes);
    return p->n_values[a] > 1 ? i / (p->n_values[a] - 1) : 0.5;
}

double parallel_metric_pos(const Parallel *par, double v)
{
    assert(par);
    if (!isfinite(v) || !isfinite(par->lo)) return NAN;
    return par->hi > par->lo ? (v - par->lo) / (par->hi - par->lo) : 0.5;
}

void parallel_brush_span(const Pivot *p, const Parallel *par, int a, const ParBrush *b, double *lo, double *hi)
{
    assert(p && par && b && lo && hi);
    *lo = 0, *hi = 1;
    if (!b->on) return;
    if (a == PAR_METRIC) {
        *lo = fmax(0, parallel_metric_pos(par, fmax(b->lo, par->lo)));
        *hi = fmin(1, parallel_metric_pos(par, fmin(b->hi, par->hi)));
    } else {
        *lo = parallel_value_pos(p, a, b->lo);
        *hi = parallel_value_pos(p, a, b->hi);
    }
}

/* 1 when run i is at group g's point: the same value on every axis but seed. */
static int same_point(const Pivot *p, int i, int j)
{
    for (int a = 0; a < p->n_axes; a++)
        if (strcmp(p->axis[a], "seed") && p->coord[i][a] != p->coord[j][a]) return 0;
    return 1;
}

static int brushed_out(const ParBrush *b, double x) { return b && b->on && !(x >= b->lo && x <= b->hi); }

int parallel_build(const Pivot *p, PointMetric m, int groups, const ParBrush *brush, Parallel *out, char *err)
{
    assert(p && out && err);
    memset(out, 0, sizeof *out);
    out->metric = m;
    out->groups = groups;
    out->lo = out->hi = NAN;
    for (int a = 0; a < p->n_axes; a++)
        if (strcmp(p->axis[a], "seed") && p->n_values[a] > 1) {
            out->axis[out->n_axes] = a;
            snprintf(out->name[out->n_axes++], sizeof out->name[0], "%s", p->axis[a]);
        }
    out->axis[out->n_axes] = PAR_METRIC;
    snprintf(out->name[out->n_axes++], sizeof out->name[0], "%s", point_metric_info(m)->label);
    int n = p->n_runs ? p->n_runs : 1, k = out->n_axes;
    int *line_of = malloc((size_t)n * sizeof *line_of), *first = malloc((size_t)n * sizeof *first);
    out->pos = malloc((size_t)n * (size_t)k * sizeof *out->pos);
    out->value = calloc((size_t)n, sizeof *out->value);
    out->n_runs = calloc((size_t)n, sizeof *out->n_runs);
    out->kept = calloc((size_t)n, 1);
    if (!line_of || !first || !out->pos || !out->value || !out->n_runs || !out->kept) {
        free(line_of), free(first);
        parallel_free(out);
        return err_set(err, "parallel coordinates: out of memory");
    }
    /* the lines: each finished run with a value, or its seed group's */
    for (int i = 0; i < p->n_runs; i++) {
        double v = result_metric(&p->runs[i], m);
        line_of[i] = -1;
        if (p->runs[i].state != RUN_DONE || !isfinite(v)) continue;
        int l = 0;
        while (groups && l < out->n_lines && !same_point(p, i, first[l])) l++;
        if (!groups || l == out->n_lines) first[l = out->n_lines++] = i;
        line_of[i] = l;
        out->value[l] += v;
        out->n_runs[l]++;
    }
    for (int l = 0; l < out->n_lines; l++) {
        out->value[l] /= out->n_runs[l];
        if (!(out->value[l] >= out->lo)) out->lo = isnan(out->lo) ? out->value[l] : MB_MIN(out->lo, out->value[l]);
        if (!(out->value[l] <= out->hi)) out->hi = isnan(out->hi) ? out->value[l] : MB_MAX(out->hi, out->value[l]);
    }
    for (int l = 0; l < out->n_lines; l++) {
        int keep = !brushed_out(brush ? &brush[PAR_METRIC] : NULL, out->value[l]);
        for (int x = 0; x < k; x++) {
            int a = out->axis[x], c = a == PAR_METRIC ? 0 : p->coord[first[l]][a];
            out->pos[l * k + x] = a == PAR_METRIC ? parallel_metric_pos(out, out->value[l])
                                  : c < 0        ? NAN
                                                 : parallel_value_pos(p, a, c);
            if (a != PAR_METRIC && brush) keep &= c >= 0 && !brushed_out(&brush[a], c);
        }
        out->kept[l] = (unsigned char)keep;
        out->n_kept += keep;
    }
    free(line_of), free(first);
    return 0;
}

void parallel_free(Parallel *par)
{
    assert(par);
    free(par->pos);
    free(par->value);
    free(par->n_runs);
    free(par->kept);
    par->pos = par->value = NULL;
    par->n_runs = NULL;
    par->kept = NULL;
    par->n_lines = par->n_kept = 0;
}

/* The value index of bound text on axis a: the value it names, or for a
   number on a numeric axis the first value at or above it (upper: the
   last at or below it); -1 when none. */
static int bound_index(const Pivot *p, int a, const char *text, int upper)
{
    double want, v;
    int numeric = text_to_double(text, &want) == 0, found = -1;
    for (int i = 0; i < p->n_values[a]; i++) {
        if (!strcmp(p->values[a][i], text)) return i;
        if (numeric && text_to_double(p->values[a][i], &v) == 0 && (upper ? v <= want : v >= want))
            if (found < 0 || upper) found = i;
    }
    return found;
}

/* One word KEY=LO..HI into brush[]. */
static int parse_range(const Pivot *p, PointMetric m, char *word, ParBrush *brush, char *err)
{
    char *eq = strchr(word, '='), *dots = eq ? strstr(eq + 1, "..") : NULL;
    if (!dots) return err_set(err, "'%s': a range is KEY=LO..HI (either end may be left out)", word);
    *eq = 0;
    *dots = 0;
    const char *lo = eq + 1, *hi = dots + 2;
    int a = pivot_axis(p, word);
    if (a < 0 && strcmp(word, point_metric_name(m)))
        return err_set(err, "'%s' is neither an axis of the sweep nor the metric %s", word, point_metric_name(m));
    ParBrush *b = &brush[a < 0 ? PAR_METRIC : a];
    b->on = 1;
    if (a < 0) {
        b->lo = -INFINITY, b->hi = INFINITY;
        if ((*lo && text_to_double(lo, &b->lo)) || (*hi && text_to_double(hi, &b->hi)))
            return err_set(err, "%s=%s..%s: the metric's range takes numbers", word, lo, hi);
    } else {
        int l = *lo ? bound_index(p, a, lo, 0) : 0, h = *hi ? bound_index(p, a, hi, 1) : p->n_values[a] - 1;
        if (l < 0 || h < 0) return err_set(err, "axis %s has no value '%s'", word, l < 0 ? lo : hi);
        b->lo = l, b->hi = h;
    }
    if (b->lo > b->hi) return err_set(err, "%s=%s..%s keeps nothing", word, lo, hi);
    return 0;
}

int parallel_parse_ranges(const Pivot *p, PointMetric m, const char *text, ParBrush *brush, char *err)
{
    assert(p && brush && err);
    memset(brush, 0, PAR_MAX_AXES * sizeof *brush);
    for (const char *w = text ? text : ""; *w;) {
        w += strspn(w, " ");
        size_t len = strcspn(w, " ");
        if (!len) break;
        char word[512];
        snprintf(word, sizeof word, "%.*s", (int)len, w);
        w += len;
        if (parse_range(p, m, word, brush, err)) return -1;
    }
    return 0;
}

void parallel_format_ranges(const Pivot *p, PointMetric m, const ParBrush *brush, char *out, size_t cap)
{
    assert(p && brush && out);
    size_t len = 0;
    out[0] = 0;
    for (int a = 0; a < p->n_axes && len < cap; a++)
        if (brush[a].on)
            len += (size_t)snprintf(out + len, cap - len, "%s%s=%s..%s", len ? " " : "", p->axis[a],
                                    p->values[a][(int)brush[a].lo], p->values[a][(int)brush[a].hi]);
    const ParBrush *b = &brush[PAR_METRIC];
    if (!b->on || len >= cap) return;
    char lo[32] = "", hi[32] = "";
    if (isfinite(b->lo)) snprintf(lo, sizeof lo, "%.10g", b->lo);
    if (isfinite(b->hi)) snprintf(hi, sizeof hi, "%.10g", b->hi);
    snprintf(out + len, cap - len, "%s%s=%s..%s", len ? " " : "", point_metric_name(m), lo, hi);
}
