/*
 * figure_parallel.c — the parallel coordinates figure (figure_build.h): a
 * sweep's runs laid out by experiments/parallel.h, an axis per axis of the
 * sweep that varies with its values as ticks, the metric's axis last with
 * its ends labelled (the lowest and highest value) and 1-2-5 ticks between,
 * a line per finished run or seed group coloured worse to better, the lines
 * outside the brushes faint.
 */
#include "ui/draw/figure_build.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "db/results.h"
#include "engine/common.h"
#include "experiments/parallel.h"
#include "experiments/points.h"
#include "ui/draw/heatmap.h"
#include "ui/draw/plot.h"

/* value as a tick label: whole, or cut at a character and ended with "…". */
static void fit_label(const char *value, char out[FIG_LABEL_LEN])
{
    size_t len = strlen(value);
    if (len < FIG_LABEL_LEN) {
        memcpy(out, value, len + 1);
        return;
    }
    size_t cut = FIG_LABEL_LEN - 4;
    while (cut > 0 && ((unsigned char)value[cut] & 0xC0) == 0x80) cut--;
    snprintf(out, FIG_LABEL_LEN, "%.*s…", (int)cut, value);
}

/* Axis x of the figure: its name, ticks and brushed span. */
static void fill_axis(FigParAxis *ax, const Pivot *p, const Parallel *par, int x, const ParBrush *brush)
{
    int a = par->axis[x];
    const PointMetricInfo *info = point_metric_info(par->metric);
    if (a == PAR_METRIC)
        snprintf(ax->name, sizeof ax->name, "%s (%s)", info->label, info->higher_better ? "higher better" : "lower better");
    else
        snprintf(ax->name, sizeof ax->name, "%s", par->name[x]);
    if (a != PAR_METRIC) {
        for (int i = 0; i < p->n_values[a] && i < FIG_PAR_MAX_TICKS; i++) {
            fit_label(p->values[a][i], ax->tick[i]);
            ax->tick_pos[i] = parallel_value_pos(p, a, i);
            ax->n_ticks = i + 1;
        }
    } else if (isfinite(par->lo)) {
        /* its ends labelled with the lowest and highest values, the 1-2-5
           ticks between them that keep clear of those labels */
        double ticks[16], step = 0;
        int n = par->hi > par->lo ? plot_nice_ticks(par->lo, par->hi, 6, ticks, 16, &step) : 0;
        heat_format(par->lo, 4, ax->tick[0], FIG_LABEL_LEN);
        ax->tick_pos[0] = parallel_metric_pos(par, par->lo);
        ax->n_ticks = 1;
        for (int t = 0; t < n && par->hi > par->lo; t++) {
            double at = parallel_metric_pos(par, ticks[t]);
            if (at < 0.08 || at > 0.92) continue;
            plot_format_tick(ticks[t], step, ax->tick[ax->n_ticks], FIG_LABEL_LEN);
            ax->tick_pos[ax->n_ticks++] = at;
        }
        if (par->hi > par->lo) {
            heat_format(par->hi, 4, ax->tick[ax->n_ticks], FIG_LABEL_LEN);
            ax->tick_pos[ax->n_ticks++] = parallel_metric_pos(par, par->hi);
        }
    }
    if (brush[a].on) parallel_brush_span(p, par, a, &brush[a], &ax->brush_lo, &ax->brush_hi);
}

int figure_parallel(Store *s, const ParallelView *v, Figure *f, char *err)
{
    assert(s && v && f && err);
    figure_init(f);
    SweepRow sw;
    Pivot p;
    char preset[64];
    if (figure_load_sweep(s, v->sweep_id, &sw, preset, err) || pivot_load(s, v->sweep_id, &p, err)) return -1;
    PointMetric m = v->metric >= 0 && v->metric < PM_COUNT ? (PointMetric)v->metric : headline_metric(preset, p.runs, p.n_runs);
    ParBrush brush[PAR_MAX_AXES];
    Parallel par;
    int rc = parallel_parse_ranges(&p, m, v->ranges, brush, err);
    if (!rc) rc = parallel_build(&p, m, v->groups, brush, &par, err);
    if (rc) {
        pivot_free(&p);
        return -1;
    }
    if (par.n_lines == 0) rc = err_set(err, "sweep %lld has no finished run with a %s", (long long)v->sweep_id,
                                       point_metric_info(m)->label);
    FigParallel *fp = rc ? NULL : figure_set_parallel(f, MB_MIN(par.n_axes, FIG_PAR_MAX_AXES), par.n_lines);
    if (!rc && !fp) rc = err_set(err, "figure: out of memory");
    for (int x = 0; !rc && x < fp->n_axes; x++) fill_axis(&fp->axes[x], &p, &par, x, brush);
    for (int l = 0; !rc && l < par.n_lines; l++) {
        for (int x = 0; x < fp->n_axes; x++) fp->pos[l * fp->n_axes + x] = par.pos[l * par.n_axes + x];
        fp->shade[l] = par.value[l];
        fp->kept[l] = par.kept[l];
    }
    if (!rc) {
        const PointMetricInfo *info = point_metric_info(m);
        snprintf(fp->scale_label, sizeof fp->scale_label, "%s (%s)", info->label, figure_metric_unit(m));
        fp->higher_better = info->higher_better;
        snprintf(f->title, sizeof f->title, "Parallel coordinates: sweep %lld %s, %s", (long long)v->sweep_id, sw.name,
                 info->label);
        char ranges[1024];
        parallel_format_ranges(&p, m, brush, ranges, sizeof ranges);
        if (figure_note(f, FIG_TONE_PLAIN, "a line per %s (%d); coloured by %s, worse to better",
                        v->groups ? "seed group, at its finished runs' mean" : "finished run", par.n_lines,
                        info->label) ||
            (ranges[0] && figure_note(f, FIG_TONE_PLAIN, "brushed: %s: %d of %d lines kept, the others faint", ranges,
                                      par.n_kept, par.n_lines)) ||
            figure_note(f, FIG_TONE_DIM, "made by mixbench sweep %s", sw.spec))
            rc = err_set(err, "figure: out of memory");
    }
    parallel_free(&par);
    pivot_free(&p);
    if (rc) figure_free(f);
    return rc;
}
