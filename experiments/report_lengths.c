/*
 * report_lengths.c — a long-context study's throughput and memory table
 * (report_lengths.h).
 */
#include "experiments/report_lengths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "db/runs_read.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/memory.h"
#include "engine/pool.h"
#include "experiments/claims.h"

enum { MAX_ARCHS = 32, MAX_LENGTHS = 16 };

/* The architectures and lengths of the points, in the order the archs
   first appear and the lengths ascending. */
typedef struct {
    char arch[MAX_ARCHS][32];
    int n_arch;
    int n[MAX_LENGTHS];
    int n_len;
} Grid;

static int point_n(const Point *p)
{
    const char *v = coord_value(p->coords, p->n_coords, "n_ctx");
    return v ? atoi(v) : 0;
}

static int run_n(const ResultRun *r)
{
    const char *v = coord_value(r->coords, r->n_coords, "n_ctx");
    return v ? atoi(v) : 0;
}

static void grid_add(Grid *g, const char *arch, int n)
{
    int a = 0;
    while (a < g->n_arch && strcmp(g->arch[a], arch)) a++;
    if (a == g->n_arch && g->n_arch < MAX_ARCHS) snprintf(g->arch[g->n_arch++], 32, "%s", arch);
    int k = 0;
    while (k < g->n_len && g->n[k] < n) k++;
    if ((k < g->n_len && g->n[k] == n) || g->n_len == MAX_LENGTHS || n <= 0) return;
    memmove(&g->n[k + 1], &g->n[k], sizeof g->n[0] * (size_t)(g->n_len - k));
    g->n[k] = n;
    g->n_len++;
}

int lengths_sweep(const char *preset, const Point *pts, int np)
{
    int claim = 0;
    for (int i = 0; preset && i < claim_count(); i++)
        claim |= !strcmp(claim_preset(i), preset) &&
                 (claim_metric(i) == PM_TOKENS_PER_S || claim_metric(i) == PM_TOKENS_PER_CPU_S);
    if (!claim || np == 0 || !coord_value(pts[0].coords, pts[0].n_coords, "arch")) return 0;
    Grid g = {.n_arch = 0};
    for (int i = 0; i < np; i++) grid_add(&g, pts[i].arch, point_n(&pts[i]));
    return g.n_len >= 2;
}

/* The point of arch at length n, or NULL. */
static const Point *point_at(const Point *pts, int np, const char *arch, int n)
{
    for (int i = 0; i < np; i++)
        if (!strcmp(pts[i].arch, arch) && point_n(&pts[i]) == n) return &pts[i];
    return NULL;
}

/* "needs about 139.3 GB (...) by engine/memory.h's estimate": arch at
   length n, from the stored config of a run of arch (another length)
   with n_ctx set to n; data aside (its streams are not loaded here). */
static int estimate_at(Store *s, const ResultRun *runs, int n_runs, const char *arch, int n, char *out, size_t cap,
                       char *err)
{
    out[0] = 0;
    const ResultRun *r = NULL;
    for (int i = 0; i < n_runs && !r; i++)
        if (!strcmp(runs[i].arch, arch)) r = &runs[i];
    if (!r) return 0;
    RunForExtend *row = malloc(sizeof *row);
    if (!row) return err_set(err, "report: out of memory");
    int rc = store_run_for_extend(s, r->run_id, row, err);
    char jerr[ERR_LEN], why[ERR_LEN];
    JsonValue *obj = rc ? NULL : json_parse(row->config_json, strlen(row->config_json), jerr);
    free(row);
    if (rc) return -1;
    Config c;
    config_defaults(&c);
    MemoryNeed need;
    if (obj && !config_from_json(&c, obj, 1, why)) {
        c.n_ctx = n;
        if (!job_memory_bytes(&c, c.threads > 0 ? c.threads : pool_cores(), 0, 0, &need, why)) {
            char text[256];
            memory_need_describe(&need, text, sizeof text);
            snprintf(out, cap, "needs %s by engine/memory.h's estimate (data aside)", text);
        }
    }
    json_free(obj);
    return 0;
}

/* Why arch at length n has no finished run, into why. */
static int missing_why(Store *s, const ResultRun *runs, int n_runs, const char *arch, int n, char *why, size_t cap,
                       char *err)
{
    int pending = 0, failed = 0;
    int64_t failed_id = 0;
    for (int i = 0; i < n_runs; i++) {
        if (strcmp(runs[i].arch, arch) || run_n(&runs[i]) != n) continue;
        if (run_status_final(runs[i].state)) failed++, failed_id = failed_id ? failed_id : runs[i].run_id;
        else pending++;
    }
    if (failed) {
        RunSummary *sum = malloc(sizeof *sum);
        int found = 0;
        if (!sum) return err_set(err, "report: out of memory");
        if (runs_read_one(s, failed_id, sum, &found, err)) {
            free(sum);
            return -1;
        }
        const char *status = found ? run_status_name(sum->status) : "gone";
        snprintf(why, cap, "%d run%s ended without finishing (run %lld: %s%s%s)", failed, failed == 1 ? "" : "s",
                 (long long)failed_id, status, found && sum->error[0] ? ", " : "", found ? sum->error : "");
        free(sum);
        return 0;
    }
    if (pending) {
        snprintf(why, cap, "%d run%s still to finish", pending, pending == 1 ? "" : "s");
        return 0;
    }
    char est[400];
    if (estimate_at(s, runs, n_runs, arch, n, est, sizeof est, err)) return -1;
    snprintf(why, cap, "not in the sweep%s%s", est[0] ? ": " : "", est);
    return 0;
}

/* "3012 +- 41 (3)", "3012 (1)", "-" */
static void fmt_rate(char *out, size_t cap, const SeedStats *st)
{
    if (st->n == 0) snprintf(out, cap, "-");
    else if (st->n == 1) snprintf(out, cap, "%.0f (1)", st->mean);
    else snprintf(out, cap, "%.0f +- %.0f (%d)", st->mean, st->se, st->n);
}

int lengths_section(Store *s, const ResultRun *runs, int n_runs, const Point *pts, int np, int markdown, StrBuf *out,
                    char *err)
{
    Grid g = {.n_arch = 0};
    for (int i = 0; i < np; i++) grid_add(&g, pts[i].arch, point_n(&pts[i]));
    for (int i = 0; i < n_runs; i++) grid_add(&g, runs[i].arch, run_n(&runs[i]));
    int unmeasured = 0;
    for (int i = 0; i < np; i++)
        unmeasured += pts[i].stat[PM_TOKENS_PER_S].n > pts[i].stat[PM_PEAK_MB].n ||
                      pts[i].stat[PM_TOKENS_PER_S].n > pts[i].stat[PM_TOKENS_PER_CPU_S].n;
    if (markdown) {
        sb_append(out, "\nThroughput and memory against n: training tokens per second of the wall clock and per "
                       "CPU-second of the run's own (what a core of its own trains; runs.train_cpu_seconds), each mean "
                       "+- standard error over seeds (their count), and each run's own peak memory (MB, mean over "
                       "seeds; runs.peak_run_mb).\n\n| arch |");
        for (int k = 0; k < g.n_len; k++) sb_printf(out, " tokens/s n=%d | per CPU-s | MB |", g.n[k]);
        sb_append(out, "\n|---|");
        for (int k = 0; k < g.n_len; k++) sb_append(out, "---|---|---|");
        sb_append(out, "\n");
    } else {
        sb_append(out, "\n  Throughput and memory against n (training tokens/s, tokens per CPU-second, mean +- se "
                       "(seeds); own peak MB):\n");
        sb_printf(out, "    %-12s", "arch");
        for (int k = 0; k < g.n_len; k++) {
            char head[32];
            snprintf(head, sizeof head, "tokens/s n=%d", g.n[k]);
            sb_printf(out, " %20s %20s %8s", head, "per CPU-s", "MB");
        }
        sb_append(out, "\n");
    }
    for (int a = 0; a < g.n_arch; a++) {
        if (markdown) sb_printf(out, "| %s |", g.arch[a]);
        else sb_printf(out, "    %-12s", g.arch[a]);
        for (int k = 0; k < g.n_len; k++) {
            const Point *p = point_at(pts, np, g.arch[a], g.n[k]);
            char rate[64] = "-", cpu[64] = "-", mb[32] = "-";
            if (p) fmt_rate(rate, sizeof rate, &p->stat[PM_TOKENS_PER_S]);
            if (p) fmt_rate(cpu, sizeof cpu, &p->stat[PM_TOKENS_PER_CPU_S]);
            if (p && p->stat[PM_PEAK_MB].n) snprintf(mb, sizeof mb, "%.0f", p->stat[PM_PEAK_MB].mean);
            if (markdown) sb_printf(out, " %s | %s | %s |", rate, cpu, mb);
            else sb_printf(out, " %20s %20s %8s", rate, cpu, mb);
        }
        sb_append(out, "\n");
    }
    if (unmeasured)
        sb_printf(out, "%s%d point%s with runs that have no figures of their own (CPU seconds, peak): they shared "
                       "their process with another job (`mixbench worker --jobs 1` runs each alone) or resumed from a "
                       "checkpoint; per CPU-s and MB are over the runs that have them, - where none has.\n",
                  markdown ? "\n" : "    ", unmeasured, unmeasured == 1 ? "" : "s");
    int said = 0;
    for (int a = 0; a < g.n_arch; a++)
        for (int k = 0; k < g.n_len; k++) {
            const Point *p = point_at(pts, np, g.arch[a], g.n[k]);
            if (p && p->stat[PM_TOKENS_PER_S].n) continue;
            char why[700];
            if (missing_why(s, runs, n_runs, g.arch[a], g.n[k], why, sizeof why, err)) return -1;
            if (!said++) sb_append(out, markdown ? "\nNot measured:\n\n" : "    not measured:\n");
            sb_printf(out, "%s%s at n = %d: %s\n", markdown ? "- " : "      ", g.arch[a], g.n[k], why);
        }
    return 0;
}
