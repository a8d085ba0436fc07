/*
 * prune.c — successive halving across runs (lr=tune's and --prune asha's)
 * and --prune median (prune.h).
 */
#include "experiments/prune.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/status.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "experiments/extend.h"
#include "experiments/rungs.h"

/* ---- the shared rung ------------------------------------------------------ */

static int by_loss(const void *a, const void *b)
{
    const RungEntry *x = a, *y = b;
    double lx = isfinite(x->loss) ? x->loss : INFINITY, ly = isfinite(y->loss) ? y->loss : INFINITY;
    if (lx != ly) return lx < ly ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

void prune_rank(RungEntry *e, int n)
{
    assert(e || n == 0);
    if (n > 1) qsort(e, (size_t)n, sizeof *e, by_loss);
}

int prune_keep_sync(int n, double eta)
{
    assert(n >= 0 && eta > 1);
    return (int)ceil((double)n / eta - 1e-9);
}

int prune_keep_async(int n, double eta)
{
    assert(n >= 0 && eta > 1);
    return (int)floor((double)n / eta + 1e-9);
}

int prune_continue(Store *s, int64_t run_id, int tokens, int64_t budget, char *err)
{
    assert(s && run_id > 0 && budget > 0 && err);
    char text[64];
    snprintf(text, sizeof text, "%s=%lld", tokens ? "tokens" : "steps", (long long)budget);
    Extension x;
    return run_extend(s, run_id, text, &x, err);
}

/* ---- trials --------------------------------------------------------------- */

/* A trial of a bracket: its seeds' runs (indices into the runs). */
typedef struct {
    char bracket[512];
    int trial;
    int *runs, n, cap;
    int64_t full;           /* the full budget */
    int tokens;             /* in tokens (else steps) */
    int64_t step_tokens;    /* batch x n_ctx */
    int64_t full_steps;     /* the full budget in steps (median's grace) */
    int level;              /* asha: the rung its runs are at now; -1 none */
} Trial;

typedef struct {
    Store *s;
    const SweepPlan *plan;
    const AdaptiveRun *runs;
    int n_runs;
    Trial *trials;
    int n_trials;
    int *first, *count;     /* run i's rows (evaluations or rungs): [first[i], first[i] + count[i]) */
    int acted;
} Ctx;

/* first and count of every run (both sorted by run id) in items, whose
   struct starts with its run id. */
static int index_by_run(Ctx *x, const void *items, size_t size, int n, char *err)
{
    x->first = calloc((size_t)x->n_runs + 1, sizeof *x->first);
    x->count = calloc((size_t)x->n_runs + 1, sizeof *x->count);
    if (!x->first || !x->count) return err_set(err, "out of memory");
    for (int i = 0, k = 0; i < x->n_runs; i++) {
        int64_t id = x->runs[i].id;
        while (k < n && *(const int64_t *)((const char *)items + (size_t)k * size) < id) k++;
        x->first[i] = k;
        while (k < n && *(const int64_t *)((const char *)items + (size_t)k * size) == id) k++, x->count[i]++;
    }
    return 0;
}

/* " key=value" of every coordinate of coords but seed, trial and the drawn
   keys (space-separated in drawn), in its order; *trial its trial. */
static int bracket_of(const char *coords, const char *drawn, char *out, size_t cap, int *trial)
{
    char e[ERR_LEN];
    JsonValue *o = json_parse(coords, strlen(coords), e);
    if (!o || o->type != JSON_OBJECT) {
        json_free(o);
        return -1;
    }
    size_t len = 0;
    out[0] = 0;
    *trial = 0;
    for (int k = 0; k < o->count; k++) {
        const char *key = o->keys[k], *v = o->items[k].type == JSON_STRING ? o->items[k].string : "";
        if (!strcmp(key, "trial")) *trial = atoi(v);
        int skip = !strcmp(key, "seed") || !strcmp(key, "trial");
        for (const char *d = drawn; !skip && (d = strstr(d, key)) != NULL; d += strlen(key))
            skip = (d == drawn || d[-1] == ' ') && (d[strlen(key)] == ' ' || !d[strlen(key)]);
        if (!skip && len < cap) len += (size_t)snprintf(out + len, cap - len, " %s=%s", key, v);
    }
    json_free(o);
    return len < cap ? 0 : -1;
}

/* The full budget of the job at coords (the spec's jobs, parsed again):
   from the job whose coordinates are equal apart from seed, job `hint`
   first (the runs were queued in the jobs' order). */
static int full_budget(const Sweep *sw, int hint, const char *coords, Config *out)
{
    char want[512], have[512];
    int t, u;
    if (bracket_of(coords, "", want, sizeof want, &t)) return -1;
    for (int k = -1; k < sw->n_jobs; k++) {
        int j = k < 0 ? hint : k;
        if (j < 0 || j >= sw->n_jobs || bracket_of(sw->jobs[j].coords, "", have, sizeof have, &u) || u != t ||
            strcmp(have, want))
            continue;
        *out = sw->jobs[j].config;
        return 0;
    }
    return -1;
}

static void trials_free(Ctx *x)
{
    for (int i = 0; i < x->n_trials; i++) free(x->trials[i].runs);
    free(x->trials);
    x->trials = NULL;
    x->n_trials = 0;
}

/* The sweep's own runs (not lr=tune's) grouped into trials, in bracket
   then trial order. */
static int by_bracket(const void *a, const void *b)
{
    const Trial *x = a, *y = b;
    int c = strcmp(x->bracket, y->bracket);
    return c ? c : (x->trial > y->trial) - (x->trial < y->trial);
}

static int load_trials(Ctx *x, const char *spec, char *err)
{
    Sweep sw;
    char *argv[1] = {(char *)spec};
    Config base;
    config_defaults(&base);
    if (sweep_parse(1, argv, &base, &sw, err)) return -1;
    int rc = 0;
    x->trials = calloc((size_t)x->n_runs + 1, sizeof *x->trials);
    if (!x->trials) rc = err_set(err, "out of memory");
    for (int i = 0, own = 0; rc == 0 && i < x->n_runs; i++) {
        const AdaptiveRun *r = &x->runs[i];
        char bracket[512];
        int trial;
        Config full;
        if (r->is_search || bracket_of(r->coords, x->plan->search_keys, bracket, sizeof bracket, &trial) ||
            full_budget(&sw, own++, r->coords, &full))
            continue;
        /* a trial's seeds come one after another: the last trial first */
        Trial *t = NULL;
        for (int k = x->n_trials - 1; k >= 0 && !t; k--)
            if (x->trials[k].trial == trial && !strcmp(x->trials[k].bracket, bracket)) t = &x->trials[k];
        if (t && t->n == t->cap) {
            int *more = realloc(t->runs, sizeof *more * (size_t)(2 * t->cap));
            if (!more) rc = err_set(err, "out of memory");
            else t->runs = more, t->cap *= 2;
        }
        if (!t) {
            t = &x->trials[x->n_trials++];
            snprintf(t->bracket, sizeof t->bracket, "%s", bracket);
            t->trial = trial;
            t->full = prune_budget_of(&full, &t->tokens);
            t->step_tokens = (int64_t)full.batch * full.n_ctx;
            t->full_steps = config_total_steps(&full);
            t->cap = 4;
            t->runs = malloc(sizeof *t->runs * (size_t)t->cap);
            if (!t->runs) rc = err_set(err, "out of memory");
        }
        if (rc == 0) t->runs[t->n++] = i;
    }
    sweep_free(&sw);
    if (rc == 0) qsort(x->trials, (size_t)x->n_trials, sizeof *x->trials, by_bracket);
    return rc;
}

/* 1 when every run of t is final (done, failed, diverged, cancelled, pruned). */
static int resolved(const Ctx *x, const Trial *t)
{
    for (int i = 0; i < t->n; i++)
        if (!run_status_final(x->runs[t->runs[i]].status)) return 0;
    return 1;
}

/* How many of t's runs have status s. */
static int count_status(const Ctx *x, const Trial *t, RunStatus s)
{
    int n = 0;
    for (int i = 0; i < t->n; i++) n += x->runs[t->runs[i]].status == s;
    return n;
}

/* Every run of t pruned, why in runs.error. */
static int prune_trial(Ctx *x, const Trial *t, const char *why, char *err)
{
    for (int i = 0; i < t->n; i++)
        if (store_run_prune(x->s, x->runs[t->runs[i]].id, why, err)) return -1;
    return 0;
}

/* ---- asha ----------------------------------------------------------------- */

/* The rung t's runs are at (their budget), -1 when none. */
static int level_of(const Ctx *x, const Trial *t)
{
    Config c;
    char e[ERR_LEN];
    config_defaults(&c);
    JsonValue *o = json_parse(x->runs[t->runs[0]].config_json, strlen(x->runs[t->runs[0]].config_json), e);
    int bad = !o || config_from_json(&c, o, 1, e);
    json_free(o);
    if (bad) return -1;
    int tokens;
    int64_t b = prune_budget_of(&c, &tokens);
    for (int k = 0; k <= prune_top_rung(x->plan); k++)
        if (b == prune_rung_budget(x->plan, t->full, t->tokens, t->step_tokens, k)) return k;
    return -1;
}

/* Rungs finished since the last step, recorded before anything continues
   them (a done run's final valid loss; a failed, diverged or cancelled
   one's the worst). */
static int record_rungs(Ctx *x, char *err)
{
    for (int i = 0; i < x->n_trials; i++) {
        Trial *t = &x->trials[i];
        t->level = level_of(x, t);
        if (t->level < 0 || t->level >= prune_top_rung(x->plan) || !resolved(x, t)) continue;
        int64_t steps = prune_rung_budget(x->plan, t->full, t->tokens, t->step_tokens, t->level);
        if (t->tokens) steps = (steps + t->step_tokens - 1) / t->step_tokens;
        for (int k = 0; k < t->n; k++) {
            const AdaptiveRun *r = &x->runs[t->runs[k]];
            double loss = r->status == RUN_DONE || r->status == RUN_PRUNED ? r->valid_loss : INFINITY;
            if (store_rung_put(x->s, r->id, t->level, steps, isfinite(loss) ? loss : INFINITY, err)) return -1;
        }
    }
    return 0;
}

/* t's loss at rung k, the mean over its seeds; 0 when not every seed has it. */
static int rung_loss(const Ctx *x, const Trial *t, const RungRow *rows, int k, double *loss)
{
    double sum = 0;
    for (int i = 0; i < t->n; i++) {
        int found = 0, r = t->runs[i];
        for (int j = x->first[r]; j < x->first[r] + x->count[r] && !found; j++)
            if (rows[j].rung == k) found = 1, sum += rows[j].loss;
        if (!found) return 0;
    }
    *loss = sum / t->n;
    return 1;
}

enum { NO, YES, UNKNOWN };

/* Rung k of the n trials of a bracket (tr): arrive[i] says whether trial i
   reached it, next[i] gets whether it reaches rung k+1. */
static int asha_rung(Ctx *x, Trial *tr, int n, int k, const RungRow *rows, const int *arrive, int *next,
                     RungEntry *ranked, char *err)
{
    double eta = x->plan->prune_eta;
    int n_seen = 0, blocked = n;
    for (int i = 0; i < n; i++) next[i] = arrive[i] == NO ? NO : UNKNOWN;
    for (int i = 0; i < n; i++) {
        if (arrive[i] == NO) continue;
        double loss;
        if (arrive[i] == UNKNOWN || !rung_loss(x, &tr[i], rows, k, &loss)) {
            blocked = i;
            break;
        }
        /* ranked stays sorted: the new trial goes in at its place */
        RungEntry e = {i, loss};
        int at = n_seen;
        while (at > 0 && by_loss(&ranked[at - 1], &e) > 0) at--;
        memmove(&ranked[at + 1], &ranked[at], sizeof *ranked * (size_t)(n_seen - at));
        ranked[at] = e;
        n_seen++;
        for (int r = 0; r < prune_keep_async(n_seen, eta); r++)
            if (isfinite(ranked[r].loss)) next[ranked[r].order] = YES;
    }
    /* at most `potential` trials can reach rung k: one ranked below the
       best floor(potential/eta) never continues -- nor below the best one,
       which always goes on: once the whole rung is in, its best (finite)
       trial continues even when floor(n/eta) is 0 */
    int potential = n_seen;
    for (int i = blocked; i < n; i++) potential += arrive[i] != NO;
    int cap = prune_keep_async(potential, eta);
    if (cap < 1) cap = 1;
    if (blocked == n && n_seen > 0 && isfinite(ranked[0].loss)) next[ranked[0].order] = YES;
    for (int r = 0; r < n_seen; r++) {
        int i = ranked[r].order;
        if (next[i] == YES) {
            if (tr[i].level == k && count_status(x, &tr[i], RUN_DONE) == tr[i].n) {
                int64_t b = prune_rung_budget(x->plan, tr[i].full, tr[i].tokens, tr[i].step_tokens, k + 1);
                for (int j = 0; j < tr[i].n; j++)
                    if (prune_continue(x->s, x->runs[tr[i].runs[j]].id, tr[i].tokens, b, err)) return -1;
                x->acted = 1;
            }
            continue;
        }
        if (blocked < n && r < cap && isfinite(ranked[r].loss)) continue;
        next[i] = NO;
        char why[256];
        snprintf(why, sizeof why, "pruned by asha at rung %d (%lld %s): valid %.4f is not among the best 1/%g of its rung",
                 k, (long long)prune_rung_budget(x->plan, tr[i].full, tr[i].tokens, tr[i].step_tokens, k),
                 tr[i].tokens ? "tokens" : "steps", ranked[r].loss, eta);
        if (prune_trial(x, &tr[i], why, err)) return -1;
    }
    return 0;
}

static int asha(Ctx *x, const SweepPlanRow *row, char *err)
{
    if (record_rungs(x, err)) return -1;
    RungRow *rows = NULL;
    int n_rows = 0, top = prune_top_rung(x->plan), rc = 0;
    if (store_sweep_rungs(x->s, row->id, &rows, &n_rows, err)) return -1;
    if (index_by_run(x, rows, sizeof *rows, n_rows, err)) {
        free(rows);
        return -1;
    }
    int n = x->n_trials;
    int *arrive = malloc(sizeof *arrive * (size_t)(n + 1)), *next = malloc(sizeof *next * (size_t)(n + 1));
    RungEntry *ranked = malloc(sizeof *ranked * (size_t)(n + 1));
    if (!arrive || !next || !ranked) rc = err_set(err, "out of memory");
    for (int b = 0; rc == 0 && b < n;) {
        int e = b;   /* the bracket's trials: [b, e) */
        while (e < n && !strcmp(x->trials[e].bracket, x->trials[b].bracket)) e++;
        for (int i = 0; i < e - b; i++) arrive[i] = x->trials[b + i].level < 0 ? NO : YES;
        for (int k = 0; rc == 0 && k < top; k++) {
            rc = asha_rung(x, &x->trials[b], e - b, k, rows, arrive, next, ranked, err);
            memcpy(arrive, next, sizeof *arrive * (size_t)(e - b));
        }
        b = e;
    }
    free(arrive), free(next), free(ranked), free(rows);
    return rc;
}

/* ---- median --------------------------------------------------------------- */

/* t's value at step (the mean of its seeds' valid losses there); 0 when a
   seed has none.  exact: at that step; else at each seed's latest at or
   before it. */
static int value_at(const Ctx *x, const Trial *t, const ValidEval *ev, int64_t step, int exact, double *v)
{
    double sum = 0;
    for (int i = 0; i < t->n; i++) {
        int r = t->runs[i];
        int64_t at = -1;
        double loss = NAN;
        for (int j = x->first[r]; j < x->first[r] + x->count[r]; j++)
            if (ev[j].step <= step && ev[j].step > at) at = ev[j].step, loss = ev[j].loss;
        if (at < 0 || (exact && at != step)) return 0;
        sum += isfinite(loss) ? loss : INFINITY;
    }
    *v = sum / t->n;
    return 1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Trial t against the completed trials before it (done[0..n_done)): the
   first evaluation past the grace whose value is above their median prunes
   it (*pruned 1). */
static int median_judge(Ctx *x, const Trial *t, Trial *const *done, int n_done, const ValidEval *ev,
                        double *values, int *pruned, char *err)
{
    *pruned = 0;
    int64_t grace = (int64_t)ceil(x->plan->prune_grace * (double)t->full_steps);
    int r = t->runs[0];   /* the steps of its first seed's evaluations */
    for (int j = x->first[r]; j < x->first[r] + x->count[r]; j++) {
        if (ev[j].step < grace || ev[j].step >= t->full_steps) continue;
        double v;
        if (!value_at(x, t, ev, ev[j].step, 1, &v)) continue;
        int n = 0;
        for (int k = 0; k < n_done; k++) n += value_at(x, done[k], ev, ev[j].step, 0, &values[n]);
        if (n == 0) continue;
        qsort(values, (size_t)n, sizeof *values, by_value);
        double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        if (!(v > median)) continue;
        char why[256];
        snprintf(why, sizeof why, "pruned by median at step %lld: valid %.4f is above the median %.4f of %d earlier trials",
                 (long long)ev[j].step, v, median, n);
        *pruned = 1;
        return prune_trial(x, t, why, err);
    }
    return 0;
}

static int median(Ctx *x, const SweepPlanRow *row, char *err)
{
    ValidEval *ev = NULL;
    int n_ev = 0, rc = 0;
    if (store_sweep_valid_evals(x->s, row->id, &ev, &n_ev, err)) return -1;
    if (index_by_run(x, ev, sizeof *ev, n_ev, err)) {
        free(ev);
        return -1;
    }
    Trial **done = malloc(sizeof *done * (size_t)(x->n_trials + 1));
    double *values = malloc(sizeof *values * (size_t)(x->n_trials + 1));
    if (!done || !values) rc = err_set(err, "out of memory");
    for (int b = 0; rc == 0 && b < x->n_trials;) {
        int e = b, n_done = 0;
        while (e < x->n_trials && !strcmp(x->trials[e].bracket, x->trials[b].bracket)) e++;
        for (int i = b; rc == 0 && i < e; i++) {
            Trial *t = &x->trials[i];
            int pruned = count_status(x, t, RUN_PRUNED) > 0;
            if (!pruned && n_done >= x->plan->prune_startup)
                rc = median_judge(x, t, done, n_done, ev, values, &pruned, err);
            /* the trials after it wait until it has ended, completed or not */
            if (!resolved(x, t)) break;
            if (!pruned && count_status(x, t, RUN_DONE) == t->n) done[n_done++] = t;
        }
        b = e;
    }
    free(done), free(values), free(ev);
    return rc;
}

int prune_step(Store *s, const SweepPlanRow *row, const SweepPlan *plan, const AdaptiveRun *runs, int n_runs,
               int *acted, char *err)
{
    assert(s && row && plan && err);
    if (plan->prune == PRUNE_NONE) return 0;
    Ctx x = {s, plan, runs, n_runs, NULL, 0, NULL, NULL, 0};
    int rc = load_trials(&x, row->spec, err);
    if (rc == 0) rc = plan->prune == PRUNE_ASHA ? asha(&x, row, err) : median(&x, row, err);
    trials_free(&x);
    free(x.first), free(x.count);
    if (acted) *acted |= x.acted;
    return rc;
}
