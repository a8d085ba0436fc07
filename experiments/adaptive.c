/*
 * adaptive.c — the controller of adaptive sweeps (adaptive.h): lr=tune's
 * successive halving per point, and --until-conclusive's rounds.
 */
#include "experiments/adaptive.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/adaptive.h"
#include "db/jobs.h"
#include "db/results.h"
#include "engine/common.h"
#include "engine/config.h"
#include "engine/io/json.h"
#include "engine/optim.h"
#include "experiments/claims.h"
#include "experiments/points.h"
#include "experiments/prune.h"
#include "experiments/sweep.h"

/* How sweeps.concluded starts when the cap stopped the rounds (the one
   conclusion adaptive_continue reopens). */
#define CAP_STOP "cap: "

/* Everything one step of a sweep's plan reads. */
typedef struct {
    Store *s;
    SweepPlanRow row;
    SweepPlan plan;
    AdaptiveRun *runs;
    int n_runs;
    int acted;
} Step;

/* The next rung of a search, in runs of the point's budget: twice b, but
   the budget itself (1) from below it (next_rung). */
static double next_share(double b)
{
    return b < 1 - 1e-9 ? fmin(2 * b, 1) : 2 * b;
}

/* What the search trains when its first `flat` rungs are on the unigram
   plateau (every trial continues), as search_step, in runs of the point's
   budget: as planned (its trials learn, so the halving ends at the point's
   budget, and the winner is inside the grid) or at worst (no trial learns
   before the plain schedule's last rung, and the winner lies at the grid's
   edge: ADAPTIVE_TUNE_EDGE_STEPS more trials there). */
static double search_runs(int points, double share, double cooldown, int flat, int worst)
{
    double total = points * share, budget = share, last = share;
    for (int m = points; m > 2; m = (m + 1) / 2) last *= 2;   /* the plain schedule's last rung */
    for (int k = 0; k < flat && budget < 1 - 1e-9; k++, budget = next_share(budget))
        total += points * (next_share(budget) - (1 - cooldown) * budget);
    /* the better half (ceil) continues while more than one would, as
       planned up to the point's budget (its trials learned there) */
    for (int n = points, keep;
         budget < last * (1 - 1e-9) && (worst || budget < 1 - 1e-9) && (keep = (n + 1) / 2) > 1;
         n = keep, budget = next_share(budget))
        total += keep * (next_share(budget) - (1 - cooldown) * budget);
    if (worst && points >= 3) total += ADAPTIVE_TUNE_EDGE_STEPS * budget;   /* from the start to the last rung */
    return total;
}

double adaptive_search_runs(int points, double share, double cooldown)
{
    return search_runs(points, share, cooldown, 0, 0);
}

double adaptive_search_runs_worst(int points, double share, double cooldown)
{
    double most = 0;   /* the plateau's rungs stop at the point's budget: at most 30 doublings */
    for (int flat = 0; flat <= 30; flat++) most = fmax(most, search_runs(points, share, cooldown, flat, 1));
    return most;
}

SearchEstimate adaptive_search_estimate(const Sweep *sw)
{
    SearchEstimate e = {0, 0, 0, 1, 0};
    if (!sw->plan.lr_tune) return e;
    for (int j = 0; j < sw->n_jobs; j++) {
        const Config *c = &sw->jobs[j].config;
        if (c->seed != sw->jobs[0].config.seed) continue;
        double share = adaptive_first_share(&sw->plan, c);
        e.runs += adaptive_search_runs(sw->plan.tune_points, share, c->cooldown);
        e.worst += adaptive_search_runs_worst(sw->plan.tune_points, share, c->cooldown);
        e.share_lo = fmin(e.share_lo, share), e.share_hi = fmax(e.share_hi, share);
        e.points++;
    }
    return e;
}

double adaptive_first_share(const SweepPlan *pl, const Config *c)
{
    double budget = (double)config_total_steps(c);
    if (!(budget > 0)) return pl->tune_share;
    double least = fmin(budget, fmax(ADAPTIVE_TUNE_MIN_STEPS, ADAPTIVE_TUNE_MIN_WARMUPS * (double)c->warmup));
    return fmin(1.0, fmax(pl->tune_share, least / budget));
}

double adaptive_grid_lr(double lo, double hi, int k, int n)
{
    return n < 2 ? lo : lo * pow(hi / lo, (double)k / (n - 1));
}

static int pending(RunStatus st)
{
    return st == RUN_QUEUED || st == RUN_RUNNING || st == RUN_PAUSED;
}

/* A config from a run's stored JSON. */
static int config_of(const char *json, Config *c, char *err)
{
    config_defaults(c);
    JsonValue *o = json_parse(json, strlen(json), err);
    int rc = !o || config_from_json(c, o, 1, err);
    json_free(o);
    return rc ? -1 : 0;
}

/* Queues c as a job of the sweep at coords (role: NULL or "lr-search"). */
static int queue(Step *st, const Config *c, const char *coords, const char *role, char *err)
{
    StrBuf cfg;
    sb_init(&cfg);
    config_to_json(c, &cfg);
    RunInfo info = {0};
    info.arch = c->arch, info.task = c->task, info.data = c->data, info.tokenizer = c->tokenizer;
    info.config_json = cfg.data;
    info.seed = c->seed, info.threads = c->threads;
    info.d = c->d, info.layers = c->layers, info.heads = c->heads, info.n_ctx = c->n_ctx, info.vocab = c->vocab;
    int64_t id = 0;
    int rc = sb_ok(&cfg) ? store_job_enqueue(st->s, &info, st->row.id, coords, 0, &id, err) : err_set(err, "out of memory");
    sb_free(&cfg);
    if (rc == 0 && role) rc = store_run_set_role(st->s, id, role, err);
    st->acted = 1;
    return rc;
}

/* The runs of the sweep, each with its budget in steps from its config
   (runs.total_steps is 0 until a job starts). */
static int load_runs(Step *st, char *err)
{
    adaptive_runs_free(st->runs, st->n_runs);
    st->runs = NULL;
    if (store_adaptive_runs(st->s, st->row.id, &st->runs, &st->n_runs, err)) return -1;
    for (int i = 0; i < st->n_runs; i++) {
        Config c;
        if (config_of(st->runs[i].config_json, &c, err)) return -1;
        st->runs[i].total_steps = config_total_steps(&c);
    }
    return 0;
}

/* ---- lr=tune -------------------------------------------------------------- */

/* Run r continued to twice its budget (its trials and its extensions keep
   the budget's kind). */
static int extend_run(Step *st, const AdaptiveRun *r, char *err)
{
    Config c;
    if (config_of(r->config_json, &c, err)) return -1;
    int tokens = c.tokens > 0;
    if (prune_continue(st->s, r->id, tokens, 2 * (tokens ? c.tokens : config_total_steps(&c)), err)) return -1;
    st->acted = 1;
    return 0;
}

/* Continues trial r of point's search to its next rung: twice its budget,
   but not past the point's own (first's) while short of it: the last rung
   below the budget goes on to the budget itself, where the seeds are
   judged. */
static int next_rung(Step *st, const SweepJob *first, const AdaptiveRun *r, char *err)
{
    int64_t full = config_total_steps(&first->config);
    if (r->total_steps >= full || 2 * r->total_steps <= full) return extend_run(st, r, err);
    int tokens = first->config.tokens > 0;
    if (prune_continue(st->s, r->id, tokens, tokens ? first->config.tokens : full, err)) return -1;
    st->acted = 1;
    return 0;
}

/* Trial k of the first rung of job's point: its config at the k-th lr of
   the log grid, adaptive_first_share of its budget. */
static Config trial_config(const SweepPlan *pl, const SweepJob *job, int k)
{
    double share = adaptive_first_share(pl, &job->config);
    Config c = job->config;
    c.lr = adaptive_grid_lr(pl->tune_lo, pl->tune_hi, k, pl->tune_points);
    int64_t per_step = (int64_t)c.batch * c.n_ctx;
    if (c.tokens > 0) c.tokens = (int64_t)fmax((double)per_step, round(share * (double)c.tokens));
    else c.steps = (int64_t)fmax(2, round(share * (double)c.steps));
    c.decay = DECAY_WSD;
    c.eval_every = 0;   /* the rung ranks the final valid loss */
    return c;
}

/* Queues c as a trial of point's search, its lr among its coordinates. */
static int queue_trial(Step *st, const char *point, const Config *c, char *err)
{
    char lr[32], coords[600];
    snprintf(lr, sizeof lr, "%.3g", c->lr);
    return store_json_with(st->s, point, "lr", lr, coords, sizeof coords, err) ||
                   queue(st, c, coords, "lr-search", err)
               ? -1
               : 0;
}

/* The first rung of point p: tune_points trials (trial_config). */
static int queue_trials(Step *st, const SweepJob *job, const char *point, char *err)
{
    const SweepPlan *pl = &st->plan;
    for (int k = 0; k < pl->tune_points; k++) {
        Config c = trial_config(pl, job, k);
        if (queue_trial(st, point, &c, err)) return -1;
    }
    return 0;
}

/* 1 when valid losses show a run learned enough to judge a claim on
   (points.h result_learned: 0.3 nat below the unigram entropy; loss_all
   under 2 p H); with no entropy stored, the store's flag. */
static int loss_learned(double best_valid, double valid_all, int ranks_all, double unigram, int not_learning)
{
    ResultRun r;
    memset(&r, 0, sizeof r);
    r.best_valid_loss = best_valid, r.train_loss = NAN;
    r.valid_loss_all = valid_all, r.test_loss_all = NAN;
    r.unigram_nats = unigram, r.not_learning = not_learning;
    return result_learned(&r, ranks_all ? PM_TEST_LOSS_ALL : PM_TEST_LOSS);
}

/* The ratio of lr=tune's log grid (NAN with fewer than 3 rates: no edge
   to search past). */
static double grid_ratio(const SweepPlan *pl)
{
    return pl->tune_points < 3 ? NAN : pow(pl->tune_hi / pl->tune_lo, 1.0 / (pl->tune_points - 1));
}

/* How many grid steps lr lies past the end of the plan's grid it is beyond
   (0 inside it); *side +1 above, -1 below. */
static int steps_past(const SweepPlan *pl, double lr, int *side)
{
    double ratio = grid_ratio(pl);
    *side = lr > pl->tune_hi * (1 + 1e-6) ? 1 : lr < pl->tune_lo * (1 - 1e-6) ? -1 : 0;
    if (!*side || !isfinite(ratio)) return 0;
    return (int)lround(fabs(log(lr / (*side > 0 ? pl->tune_hi : pl->tune_lo))) / log(ratio));
}

/* When the rung's winner w has the highest (lowest) lr of every trial of
   its point and fewer than ADAPTIVE_TUNE_EDGE_STEPS grid steps past that
   end of the grid were tried, queues a trial one grid step beyond it,
   trained from the start to this rung's budget (where an extended trial
   ends equal to one trained so), prunes the rung's other trials, and sets
   *grown: the next step ranks the two. */
static int beyond_edge(Step *st, const char *point, const AdaptiveRun *w, int64_t budget, int *grown, char *err)
{
    const SweepPlan *pl = &st->plan;
    *grown = 0;
    double ratio = grid_ratio(pl);
    if (!isfinite(ratio)) return 0;
    int above = 1, below = 1, past_hi = 0, past_lo = 0;
    for (int i = 0; i < st->n_runs; i++) {
        const AdaptiveRun *r = &st->runs[i];
        if (!r->is_search || strcmp(r->point, point) || r == w) continue;
        above &= r->lr < w->lr;
        below &= r->lr > w->lr;
        int side, k = steps_past(pl, r->lr, &side);
        if (side > 0 && k > past_hi) past_hi = k;
        if (side < 0 && k > past_lo) past_lo = k;
    }
    int side, k = steps_past(pl, w->lr, &side);
    if (side > 0 && k > past_hi) past_hi = k;
    if (side < 0 && k > past_lo) past_lo = k;
    int dir = above ? 1 : below ? -1 : 0;
    if (!dir || (dir > 0 ? past_hi : past_lo) >= ADAPTIVE_TUNE_EDGE_STEPS) return 0;
    Config c;
    if (config_of(w->config_json, &c, err)) return -1;
    c.lr = dir > 0 ? w->lr * ratio : w->lr / ratio;
    if (c.tokens > 0) c.tokens = (int64_t)c.batch * c.n_ctx * budget;
    else c.steps = budget;
    if (queue_trial(st, point, &c, err)) return -1;
    for (int i = 0; i < st->n_runs; i++) {
        const AdaptiveRun *r = &st->runs[i];
        if (!r->is_search || strcmp(r->point, point) || r == w || r->total_steps != budget ||
            r->status == RUN_PRUNED)
            continue;
        char why[200];
        snprintf(why, sizeof why, "pruned by lr=tune's search at %lld steps: valid %.4f, behind %.3g, which goes on "
                 "to a rate past the grid's edge", (long long)r->total_steps, r->valid_loss, w->lr);
        if (store_run_prune(st->s, r->id, why, err)) return -1;
    }
    *grown = 1;
    st->acted = 1;
    return 0;
}

/* One step of point's search (prune.h's synchronous successive halving,
   eta 2): 0 with *lr set once it has a winner, 0 with *lr NAN while its
   trials train (or were just queued or extended).  The trials that do not
   continue are pruned.  A rung where no trial has left the unigram plateau
   ranks noise: its trials all continue to the next rung instead, and a
   rung past the plain schedule's last picks its winner at once.  The rung
   below the point's budget whose doubling would pass it continues to the
   budget itself (next_rung), and there a rung with a learned trial picks
   its winner: the seeds are judged at that budget.  A winner at the edge
   of what was searched first meets the rate one grid step beyond
   (beyond_edge). */
static int search_step(Step *st, const SweepJob *first, const char *point, double *lr, int *trials, char *err)
{
    *lr = NAN;
    AdaptiveRun *at[64];
    int n = 0, any = 0;
    int64_t budget = 0;
    for (int i = 0; i < st->n_runs; i++) {
        const AdaptiveRun *r = &st->runs[i];
        if (!r->is_search || strcmp(r->point, point)) continue;
        any++;
        if (r->total_steps > budget) budget = r->total_steps;
    }
    *trials = any;
    if (!any) return queue_trials(st, first, point, err);
    for (int i = 0; i < st->n_runs && n < 64; i++) {
        AdaptiveRun *r = &st->runs[i];
        /* the rung's trials; those pruned at it lost to a winner that
           searched past the grid's edge (below) */
        if (!r->is_search || strcmp(r->point, point) || r->total_steps != budget || r->status == RUN_PRUNED)
            continue;
        if (!run_status_final(r->status)) return 0;   /* the rung still trains */
        at[n++] = r;
    }
    for (int i = 1; i < n; i++)   /* in lr order, so that ties go to the lower lr */
        for (int j = i; j > 0 && at[j]->lr < at[j - 1]->lr; j--) {
            AdaptiveRun *t = at[j];
            at[j] = at[j - 1];
            at[j - 1] = t;
        }
    int learned = 0, done = 0;
    for (int k = 0; k < n; k++) {
        const AdaptiveRun *r = at[k];
        learned += r->status == RUN_DONE && isfinite(r->valid_loss) &&
                   loss_learned(r->ranks_all ? NAN : r->valid_loss, r->ranks_all ? r->valid_loss : NAN, r->ranks_all,
                                r->unigram_nats, 0);
        done += at[k]->status == RUN_DONE;
    }
    int64_t full = config_total_steps(&first->config);
    if (!learned && done && budget < full) {
        for (int k = 0; k < n; k++)
            if (at[k]->status == RUN_DONE && next_rung(st, first, at[k], err)) return -1;
        return 0;
    }
    RungEntry e[64];
    for (int k = 0; k < n; k++) e[k] = (RungEntry){k, at[k]->valid_loss};
    prune_rank(e, n);
    int keep = prune_keep_sync(n, 2);
    Config last = trial_config(&st->plan, first, 0);   /* the plain schedule's last rung */
    for (int m = st->plan.tune_points; m > 2; m = (m + 1) / 2) {
        if (last.tokens > 0) last.tokens *= 2;
        else last.steps *= 2;
    }
    /* the halving stops at the plain schedule's last rung, and at the
       point's own budget once a trial has learned there: the seeds are
       judged at that budget, not at a longer horizon */
    if (budget >= config_total_steps(&last) || (learned && budget >= full)) keep = 1;
    if (keep <= 1) {
        /* a winner at the edge of what was searched: the next rate beyond
           it, trained to this rung, before it is chosen */
        int grown = 0;
        if (beyond_edge(st, point, at[e[0].order], budget, &grown, err)) return -1;
        if (grown) return 0;
        *lr = at[e[0].order]->lr;   /* the winner stays done */
    }
    for (int k = keep <= 1; k < n; k++) {
        const AdaptiveRun *r = at[e[k].order];
        char why[160];
        snprintf(why, sizeof why, "pruned by lr=tune's search at %lld steps: valid %.4f, not in the better half",
                 (long long)r->total_steps, r->valid_loss);
        if (k < keep ? next_rung(st, first, r, err) : store_run_prune(st->s, r->id, why, err)) return -1;
    }
    return 0;
}

/* The point's own jobs, with the learning rate its search chose. */
static int queue_point(Step *st, const Sweep *sw, const char *point, double lr, char *err)
{
    for (int j = 0; j < sw->n_jobs; j++) {
        char p[512];
        if (store_json_point(st->s, sw->jobs[j].coords, p, sizeof p, err)) return -1;
        if (strcmp(p, point)) continue;
        Config c = sw->jobs[j].config;
        c.lr = lr;
        if (queue(st, &c, sw->jobs[j].coords, NULL, err)) return -1;
    }
    return 0;
}

/* lr=tune over every point of the sweep; *waiting 1 while a search goes on. */
static int tune(Step *st, int *waiting, char *err)
{
    *waiting = 0;
    Sweep sw;
    char *argv[1] = {st->row.spec};
    Config base;
    config_defaults(&base);
    if (sweep_parse(1, argv, &base, &sw, err)) return -1;
    TunedLr *tuned = NULL;
    int n_tuned = 0, rc = store_tuned_lrs(st->s, st->row.id, &tuned, &n_tuned, err);
    char done[64][512];
    int n_done = 0;
    for (int j = 0; rc == 0 && j < sw.n_jobs; j++) {
        char point[512];
        if ((rc = store_json_point(st->s, sw.jobs[j].coords, point, sizeof point, err))) break;
        int seen = 0;
        for (int k = 0; k < n_done && !seen; k++) seen = !strcmp(done[k], point);
        for (int k = 0; k < n_tuned && !seen; k++) seen = !strcmp(tuned[k].point, point);
        if (seen) continue;
        if (n_done < 64) snprintf(done[n_done++], sizeof done[0], "%s", point);
        double lr;
        int trials;
        if ((rc = search_step(st, &sw.jobs[j], point, &lr, &trials, err))) break;
        if (!isfinite(lr)) {
            *waiting = 1;
            continue;
        }
        TunedLr t = {"", "", lr, trials, NAN, NAN, NAN, 0, 0};
        snprintf(t.point, sizeof t.point, "%s", point);
        snprintf(t.arch, sizeof t.arch, "%s", sw.jobs[j].config.arch);
        rc = store_tuned_lr_put(st->s, st->row.id, &t, err) || queue_point(st, &sw, point, lr, err);
    }
    free(tuned);
    sweep_free(&sw);
    return rc;
}

/* ---- --until-conclusive --------------------------------------------------- */

/* Run r's coordinates as pairs, for coords_select. */
static int run_pairs(const AdaptiveRun *r, CoordPair *pairs, int *n)
{
    char e[ERR_LEN];
    *n = 0;
    JsonValue *o = json_parse(r->coords, strlen(r->coords), e);
    if (!o) return -1;
    for (int k = 0; k < o->count && *n < RESULT_MAX_COORDS; k++) {
        if (o->items[k].type != JSON_STRING) continue;
        snprintf(pairs[*n].key, sizeof pairs[*n].key, "%s", o->keys[k]);
        snprintf(pairs[*n].value, sizeof pairs[*n].value, "%s", o->items[k].string);
        (*n)++;
    }
    json_free(o);
    return 0;
}

/* 1 when run r is one of the sweep's own finished runs at the point sel names. */
static int at_point(const AdaptiveRun *r, const char *sel)
{
    CoordPair pairs[RESULT_MAX_COORDS];
    int n;
    return !r->is_search && r->status == RUN_DONE && run_pairs(r, pairs, &n) == 0 && coords_select(pairs, n, sel);
}

/* The points a round acts on (selectors), each once; for seeds, the
   finished seeds each should have (the most any claim asks). */
typedef struct {
    char sel[2 * CLAIM_MAX_POINTS][CLAIM_SELECTOR_LEN];
    int seeds[2 * CLAIM_MAX_POINTS];
    int n;
} PointSet;

static void set_add_seeds(PointSet *ps, const char *sel, int seeds)
{
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->sel[i], sel)) {
            if (seeds > ps->seeds[i]) ps->seeds[i] = seeds;
            return;
        }
    if (ps->n < 2 * CLAIM_MAX_POINTS) {
        ps->seeds[ps->n] = seeds;
        snprintf(ps->sel[ps->n++], CLAIM_SELECTOR_LEN, "%s", sel);
    }
}

static void set_add(PointSet *ps, const char *sel)
{
    set_add_seeds(ps, sel, 0);
}

static int set_has(const PointSet *ps, const char *sel)
{
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->sel[i], sel)) return 1;
    return 0;
}

/* CPU seconds the round's actions would take: an extended run trains from
   its cool-down's start D to 2S (its time so far x (2S - D) / S); a new
   seed as long as the point's runs took on average (twice that when the
   point is extended too), as many as it lacks of its seeds. */
static double round_cost(const Step *st, const PointSet *extend, const PointSet *seeds)
{
    double cost = 0;
    for (int p = 0; p < extend->n; p++)
        for (int i = 0; i < st->n_runs; i++) {
            const AdaptiveRun *r = &st->runs[i];
            Config c;
            char e[ERR_LEN];
            if (!at_point(r, extend->sel[p]) || config_of(r->config_json, &c, e)) continue;
            int64_t S = config_total_steps(&c);
            double D = (double)wsd_cooldown_start(&c, S);
            cost += S > 0 ? r->cpu_seconds * (2.0 * (double)S - D) / (double)S : r->cpu_seconds;
        }
    for (int p = 0; p < seeds->n; p++) {
        int k = 0;
        double sum = 0;
        for (int i = 0; i < st->n_runs; i++)
            if (at_point(&st->runs[i], seeds->sel[p])) k++, sum += st->runs[i].cpu_seconds;
        if (k && seeds->seeds[p] > k)
            cost += (seeds->seeds[p] - k) * (sum / k) * (set_has(extend, seeds->sel[p]) ? 2 : 1);
    }
    return cost;
}

/* New seeds at the point sel names up to `seeds` finished ones, each a
   copy of one of its runs (its stored config, the budget of an extension
   included) with the next unused seeds. */
static int add_seeds(Step *st, const char *sel, int seeds, char *err)
{
    const AdaptiveRun *model = NULL;
    int64_t max_seed = 0;
    int have = 0;
    for (int i = 0; i < st->n_runs; i++) {
        const AdaptiveRun *r = &st->runs[i];
        if (!at_point(r, sel)) continue;
        if (!model) model = r;
        if (r->seed > max_seed) max_seed = r->seed;
        have++;
    }
    if (!model) return 0;
    for (int k = 1; k <= seeds - have; k++) {
        Config c;
        char seed[32], coords[600];
        if (config_of(model->config_json, &c, err)) return -1;
        c.seed = max_seed + k;
        snprintf(seed, sizeof seed, "%lld", (long long)c.seed);
        if (store_json_with(st->s, model->coords, "seed", seed, coords, sizeof coords, err) ||
            queue(st, &c, coords, NULL, err))
            return -1;
    }
    return 0;
}

/* Finished seeds of the sweep at the point sel names. */
static int point_seeds(const Step *st, const char *sel)
{
    int k = 0;
    for (int i = 0; i < st->n_runs; i++) k += at_point(&st->runs[i], sel);
    return k;
}

/* The seeds a side claim c asks for: those 80% power needs at the spread
   measured (claims.h seeds_needed), at most ADAPTIVE_MAX_SEEDS. */
static int seeds_wanted(const ClaimResult *c)
{
    return c->seeds_needed < ADAPTIVE_MAX_SEEDS ? c->seeds_needed : ADAPTIVE_MAX_SEEDS;
}

/* One seed fewer at each point of ps that would still get one (the round's
   seeds cut to fit the cap on CPU hours); 0 when none can lose one. */
static int trim_seeds(const Step *st, PointSet *ps)
{
    int trimmed = 0;
    for (int p = 0; p < ps->n; p++)
        if (ps->seeds[p] > point_seeds(st, ps->sel[p]) + 1) ps->seeds[p]--, trimmed = 1;
    return trimmed;
}

/* The most seeds the round gives a point of own (0: none). */
static int seeds_given(const PointSet *seeds, const PointSet *own)
{
    int most = 0;
    for (int p = 0; p < seeds->n; p++)
        if (set_has(own, seeds->sel[p]) && seeds->seeds[p] > most) most = seeds->seeds[p];
    return most;
}

/* The points of claim c that more seeds would help: its noisy points with
   fewer than it asks for (seeds_wanted). */
static void noisy_points(const Step *st, const ClaimResult *c, PointSet *ps)
{
    if (c->verdict != VERDICT_UNDECIDED) return;
    for (int k = 0; k < c->n_noisy; k++)
        if (point_seeds(st, c->noisy[k]) < seeds_wanted(c)) set_add_seeds(ps, c->noisy[k], seeds_wanted(c));
}

/* "arch=mixer d=128; arch=attention d=128" of a set (at most cap bytes). */
static void set_text(const PointSet *ps, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < ps->n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "; " : "", ps->sel[i][0] ? ps->sel[i] : "the sweep");
}

/* One round: judge, record, and act (or conclude). */
static int conclude_round(Step *st, char *err)
{
    for (int i = 0; i < st->n_runs; i++)
        if (pending(st->runs[i].status)) return 0;   /* the round still trains */
    ClaimResult *res = NULL;
    int n = 0;
    if (claims_judge(st->s, st->row.name, st->row.id, &res, &n, err)) return -1;
    if (n == 0) {
        free(res);
        st->acted = 1;
        return store_sweep_set_round(st->s, st->row.id, st->row.round, "no claims of this sweep's preset to judge", err);
    }
    PointSet extend = {.n = 0}, seeds = {.n = 0};
    int undecided = 0;
    for (int i = 0; i < n; i++) {
        const ClaimResult *c = &res[i];
        if (c->verdict == VERDICT_UNDECIDED_BUDGET)
            for (int k = 0; k < c->n_extend; k++) set_add(&extend, c->extend[k]);
        noisy_points(st, c, &seeds);
        undecided += c->verdict != VERDICT_HOLDS && c->verdict != VERDICT_FAILS;
    }
    double spent = 0;
    for (int i = 0; i < st->n_runs; i++) spent += st->runs[i].cpu_seconds;
    double cost = round_cost(st, &extend, &seeds), cap = st->plan.max_hours * 3600;
    /* alpha is spent over at most STATS_MAX_LOOKS rounds: the last one acts no more */
    int looks_spent = st->row.round >= STATS_MAX_LOOKS;
    /* seeds capped by the budget: fewer a point, one more at least, until the round fits */
    while (!looks_spent && seeds.n && cap > 0 && spent + cost > cap && trim_seeds(st, &seeds))
        cost = round_cost(st, &extend, &seeds);
    int act = extend.n + seeds.n > 0 && !looks_spent, over = act && cap > 0 && spent + cost > cap;
    char why[512] = "";
    if (looks_spent && undecided)
        snprintf(why, sizeof why, "alpha spent: round %d of at most %d looks", st->row.round, STATS_MAX_LOOKS);
    else if (over)
        snprintf(why, sizeof why, CAP_STOP "%.2f of %.2f CPU hours spent; the next round needs about %.2f more",
                 spent / 3600, cap / 3600, cost / 3600);
    else if (!act)
        snprintf(why, sizeof why, undecided ? "%d claim%s that more budget or seeds cannot decide" : "every claim decided",
                 undecided, undecided == 1 ? "" : "s");
    int rc = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        const ClaimResult *c = &res[i];
        VerdictRow v = {.round = st->row.round, .tokens_per_run = (int64_t)c->max_tokens, .seeds = c->min_seeds};
        snprintf(v.claim, sizeof v.claim, "%s", c->claim);
        snprintf(v.verdict, sizeof v.verdict, "%s", verdict_name(c->verdict));
        snprintf(v.numbers, sizeof v.numbers, "%s", c->numbers);
        PointSet own = {.n = 0};
        if (c->verdict == VERDICT_UNDECIDED_BUDGET)
            for (int k = 0; k < c->n_extend; k++) set_add(&own, c->extend[k]);
        noisy_points(st, c, &own);
        char points[400], what[64] = "extend x2";
        set_text(&own, points, sizeof points);
        int given = seeds_given(&seeds, &own);
        if (c->verdict == VERDICT_UNDECIDED && !over && !looks_spent && given && given < seeds_wanted(c))
            snprintf(what, sizeof what, "seeds to %d a side (%d wanted; the CPU-hour cap allows these)", given,
                     seeds_wanted(c));
        else if (c->verdict == VERDICT_UNDECIDED)
            snprintf(what, sizeof what, "seeds to %d a side%s", seeds_wanted(c),
                     c->seeds_needed > ADAPTIVE_MAX_SEEDS ? " (the cap; 80% power needs more)" : "");
        if (c->verdict == VERDICT_HOLDS || c->verdict == VERDICT_FAILS) snprintf(v.action, sizeof v.action, "decided");
        else if (!own.n) snprintf(v.action, sizeof v.action, "nothing more decides it");
        else if (looks_spent || over) snprintf(v.action, sizeof v.action, "%s; would %s: %s", why, what, points);
        else snprintf(v.action, sizeof v.action, "%s: %s", what, points);
        rc = store_verdict_put(st->s, st->row.id, &v, err);
    }
    free(res);
    if (rc) return -1;
    st->acted = 1;
    if (!act || over) return store_sweep_set_round(st->s, st->row.id, st->row.round, why, err);
    for (int i = 0; i < st->n_runs; i++)
        for (int p = 0; p < extend.n; p++)
            if (at_point(&st->runs[i], extend.sel[p]) && extend_run(st, &st->runs[i], err)) return -1;
    /* the new seeds copy a run as it is now: extended ones with their new budget */
    if (extend.n && load_runs(st, err)) return -1;
    for (int p = 0; p < seeds.n; p++)
        if (add_seeds(st, seeds.sel[p], seeds.seeds[p], err)) return -1;
    return store_sweep_set_round(st->s, st->row.id, st->row.round + 1, NULL, err);
}

/* ---- the step ------------------------------------------------------------ */

static int step_body(Step *st, char *err)
{
    if (load_runs(st, err)) return -1;
    if (st->plan.prune) return prune_step(st->s, &st->row, &st->plan, st->runs, st->n_runs, &st->acted, err);
    int waiting = 0;
    if (st->plan.lr_tune && tune(st, &waiting, err)) return -1;
    if (waiting || !st->plan.until_conclusive) return 0;
    if (st->acted) return 0;   /* the jobs just queued train first */
    return conclude_round(st, err);
}

int adaptive_advance(Store *s, int64_t sweep_id, int *acted, char *err)
{
    assert(s && sweep_id > 0 && err);
    Step st;
    memset(&st, 0, sizeof st);
    st.s = s;
    int found = 0;
    const char *what = "advance an adaptive sweep";
    if (store_begin(s, what, err)) return -1;
    int rc = store_sweep_plan(s, sweep_id, &st.row, &found, err);
    if (rc == 0 && found && st.row.plan_json[0] && !st.row.concluded[0]) {
        rc = sweep_plan_parse(st.row.plan_json, &st.plan, err);
        if (rc == 0) rc = step_body(&st, err);
    }
    adaptive_runs_free(st.runs, st.n_runs);
    if (store_end(s, rc, what, err)) return -1;
    if (acted) *acted |= st.acted;
    return 0;
}

int adaptive_continue(Store *s, int64_t sweep_id, double max_hours, double *old_cap, char *err)
{
    assert(s && sweep_id > 0 && old_cap && err);
    SweepPlanRow row;
    SweepPlan plan;
    int found = 0;
    const char *what = "continue a sweep";
    if (store_begin(s, what, err)) return -1;
    int rc = store_sweep_plan(s, sweep_id, &row, &found, err);
    if (rc == 0 && !found) rc = err_set(err, "sweep: no sweep %lld in this store", (long long)sweep_id);
    if (rc == 0 && row.plan_json[0]) rc = sweep_plan_parse(row.plan_json, &plan, err);
    if (rc == 0 && (!row.plan_json[0] || !plan.until_conclusive))
        rc = err_set(err, "sweep: sweep %lld was not queued with --until-conclusive: it has no rounds to continue",
                     (long long)sweep_id);
    int capped = rc == 0 && !strncmp(row.concluded, CAP_STOP, strlen(CAP_STOP));
    if (rc == 0 && max_hours <= 0 && !row.concluded[0])
        rc = err_set(err, "sweep: sweep %lld is still going: there is nothing to continue", (long long)sweep_id);
    if (rc == 0 && max_hours <= 0 && capped)
        rc = err_set(err, "sweep: sweep %lld stopped at its cap of %g CPU hours: continue it with a larger "
                          "--max-hours", (long long)sweep_id, plan.max_hours);
    if (rc == 0 && max_hours > 0 && plan.max_hours <= 0)
        rc = err_set(err, "sweep: sweep %lld has no cap: there is nothing to raise", (long long)sweep_id);
    if (rc == 0 && max_hours > 0 && max_hours <= plan.max_hours)
        rc = err_set(err, "sweep: --max-hours %g does not raise sweep %lld's cap of %g CPU hours", max_hours,
                     (long long)sweep_id, plan.max_hours);
    if (rc == 0) {
        *old_cap = plan.max_hours;
        if (max_hours > 0) {
            plan.max_hours = max_hours;
            StrBuf json;
            sb_init(&json);
            sweep_plan_json(&plan, &json);
            rc = sb_ok(&json) ? store_sweep_set_plan(s, sweep_id, json.data, err) : err_set(err, "out of memory");
            sb_free(&json);
        }
        /* the round it stopped in is judged again (by today's claims), and acts */
        if (rc == 0 && row.concluded[0]) rc = store_sweep_set_round(s, sweep_id, row.round, NULL, err);
    }
    if (store_end(s, rc, what, err)) return -1;
    return 0;
}

int adaptive_advance_run(Store *s, int64_t run_id, int *acted, char *err)
{
    assert(s && run_id > 0 && err);
    int64_t sweep_id = 0;
    if (store_run_pruning_sweep(s, run_id, &sweep_id, err)) return -1;
    return sweep_id ? adaptive_advance(s, sweep_id, acted, err) : 0;
}

int adaptive_advance_all(Store *s, int *acted, char *err)
{
    assert(s && err);
    int64_t *ids = NULL;
    int n = 0;
    if (acted) *acted = 0;
    if (store_adaptive_sweeps(s, &ids, &n, err)) return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < n; i++) rc = adaptive_advance(s, ids[i], acted, err);
    free(ids);
    return rc;
}

/* 1 when t's winning trial had learned enough to judge a claim on the
   loss it trains on (points.h result_learned; unknown: 1, nothing to say). */
static int winner_learned(const TunedLr *t)
{
    if (!isfinite(t->best_valid_loss) && !isfinite(t->valid_loss_all)) return 1;
    return loss_learned(t->best_valid_loss, t->valid_loss_all, t->ranks_all, t->unigram_nats, t->not_learning);
}

/* 1 when t's winner lies at the edge of what its search tried: an end of
   the plan's grid with no trial past it (a search from before
   ADAPTIVE_TUNE_EDGE_STEPS, or one that could not go on), or as many grid
   steps past it as the search goes. */
static int at_edge(const SweepPlan *pl, const TunedLr *t)
{
    int side, k = steps_past(pl, t->lr, &side);
    if (side) return k >= ADAPTIVE_TUNE_EDGE_STEPS;
    int end = fabs(t->lr / pl->tune_lo - 1) < 1e-6 || fabs(t->lr / pl->tune_hi - 1) < 1e-6;
    return end && t->trials <= pl->tune_points;
}

/* Appends to out (at *len) the architectures whose search chose an end of
   a grid of 3 or more rates, where a better one may lie beyond: "; at the
   grid's edge (0.0003 to 0.01): fft (0.01)".  Nothing when the sweep's plan
   cannot be read. */
static void edge_note(Store *s, int64_t sweep_id, const TunedLr *t, int n, char *out, int cap, int *len)
{
    SweepPlanRow row;
    SweepPlan pl;
    int found = 0, named = 0;
    char e[ERR_LEN];
    if (!n || store_sweep_plan(s, sweep_id, &row, &found, e) || !found || !row.plan_json[0] ||
        sweep_plan_parse(row.plan_json, &pl, e) || !pl.lr_tune || pl.tune_points < 3)
        return;
    for (int i = 0; i < n && *len < cap; i++) {
        if (!at_edge(&pl, &t[i])) continue;
        int first = 1, points = 0, edge = 0;   /* each architecture once, with how many of its points */
        for (int j = 0; j < n; j++) {
            if (strcmp(t[j].arch, t[i].arch)) continue;
            first &= !(j < i && at_edge(&pl, &t[j]));
            points++;
            edge += at_edge(&pl, &t[j]);
        }
        if (!first) continue;
        *len += snprintf(out + *len, (size_t)(cap - *len), "%s%s (%.2g", named++ ? ", " : "; at the grid's edge, a better "
                         "rate may lie beyond it: ", t[i].arch, t[i].lr);
        if (edge < points && *len < cap) *len += snprintf(out + *len, (size_t)(cap - *len), ", %d of %d points", edge, points);
        if (*len < cap) *len += snprintf(out + *len, (size_t)(cap - *len), ")");
    }
    if (*len > cap - 1) *len = cap - 1;
}

int adaptive_tuned_summary(Store *s, int64_t sweep_id, char *out, int cap, char *err)
{
    assert(s && err);
    TunedLr *t = NULL;
    int n = 0;
    out[0] = 0;
    if (store_tuned_lrs(s, sweep_id, &t, &n, err)) return -1;
    int len = 0;
    for (int i = 0; i < n && len < cap; i++) {
        int first = 1;
        double lo = t[i].lr, hi = t[i].lr;
        for (int j = 0; j < n; j++) {
            if (strcmp(t[j].arch, t[i].arch)) continue;
            if (j < i) first = 0;
            lo = fmin(lo, t[j].lr);
            hi = fmax(hi, t[j].lr);
        }
        if (!first) continue;
        if (lo == hi) len += snprintf(out + len, (size_t)(cap - len), "%s%s %.2g", len ? ", " : "lr tuned per architecture: ",
                                      t[i].arch, lo);
        else len += snprintf(out + len, (size_t)(cap - len), "%s%s %.2g to %.2g", len ? ", " : "lr tuned per architecture: ",
                             t[i].arch, lo, hi);
    }
    /* a search whose winner had not learned ranked its trials on the
       unigram plateau: which lr leaves it first was not yet seen */
    int plateau = 0;
    for (int i = 0; i < n && len < cap; i++) {
        if (winner_learned(&t[i])) continue;
        int named = 0, points = 0, flat = 0;   /* each architecture once, with how many of its points */
        for (int j = 0; j < n; j++) {
            if (strcmp(t[j].arch, t[i].arch)) continue;
            named |= j < i && !winner_learned(&t[j]);
            points++;
            flat += !winner_learned(&t[j]);
        }
        if (named) continue;
        len += snprintf(out + len, (size_t)(cap - len), "%s%s", plateau++ ? ", " : "; chosen on the unigram plateau "
                        "(no trial had learned yet): ", t[i].arch);
        if (flat < points && len < cap) len += snprintf(out + len, (size_t)(cap - len), " (%d of %d points)", flat, points);
    }
    edge_note(s, sweep_id, t, n, out, cap, &len);
    free(t);
    /* a search still going: how far (its points' rates are not all chosen) */
    int trials = 0, finished = 0;
    if (store_search_progress(s, sweep_id, &finished, &trials, err)) return -1;
    if (finished < trials && len < cap)
        snprintf(out + len, (size_t)(cap - len), "%slr=tune searching: %d of %d trials finished", len ? "; " : "",
                 finished, trials);
    return 0;
}
