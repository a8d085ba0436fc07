/*
 * figure_parallel.c — the parallel coordinates figure (figure_build.h): a
 * sweep's runs laid out by experiments/parallel.h, an axis per axis of the
 * sweep that varies with its values as ticks, the metric's axis last with
 * 1-2-5 ticks, a line per finished run or seed group coloured worse to
 * better, the lines outside the brushes faint.
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
#include "ui/draw/plot.h"

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
            snprintf(ax->tick[i], FIG_LABEL_LEN, "%s", p->values[a][i]);
            ax->tick_pos[i] = parallel_value_pos(p, a, i);
            ax->n_ticks = i + 1;
        }
    } else if (isfinite(par->lo)) {
        double ticks[16], step = 0;
        int n = par->hi > par->lo ? plot_nice_ticks(par->lo, par->hi, 6, ticks, 16, &step) : 0;
        if (n == 0) ticks[n++] = par->lo;
        for (int t = 0; t < n; t++) {
            plot_format_tick(ticks[t], step, ax->tick[t], FIG_LABEL_LEN);
            ax->tick_pos[t] = parallel_metric_pos(par, ticks[t]);
        }
        ax->n_ticks = n;
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
    PointMetric m = v->metric >= 0 && v->metric < PM_COUNT ? (PointMetric)v->metric : preset_paper_metric(preset);
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
