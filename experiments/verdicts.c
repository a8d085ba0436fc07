/*
 * verdicts.c — a sweep's claims as its reader should see them now
 * (experiments/verdicts.h).
 */
#include "experiments/verdicts.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/adaptive.h"
#include "db/results.h"
#include "engine/common.h"
#include "experiments/budget_fit.h"
#include "experiments/format.h"
#include "experiments/stats.h"
#include "experiments/sweep.h"

Verdict verdict_of_name(const char *name)
{
    static const Verdict all[] = {VERDICT_HOLDS, VERDICT_FAILS, VERDICT_UNDECIDED, VERDICT_UNDECIDED_BUDGET};
    for (int i = 0; i < (int)(sizeof all / sizeof all[0]); i++)
        if (!strcmp(name, verdict_name(all[i]))) return all[i];
    /* the words of a history stored before verdicts were tests at alpha */
    if (!strcmp(name, "within noise")) return VERDICT_UNDECIDED;
    if (!strcmp(name, "inconclusive")) return VERDICT_UNDECIDED_BUDGET;
    return VERDICT_NOT_RUN;
}

/* The round an --until-conclusive sweep's loop is training: *round 0 when
   it is not such a sweep, has stopped, or has no job left to train;
   *done, *all its finished runs and those plus the ones still to train. */
static int training_round(Store *s, long long sweep_id, int *round, int *done, int *all, char *err)
{
    SweepPlanRow row;
    SweepPlan plan;
    int found = 0;
    *round = *done = *all = 0;
    if (store_sweep_plan(s, sweep_id, &row, &found, err)) return -1;
    if (!found || !row.plan_json[0] || row.concluded[0]) return 0;
    if (sweep_plan_parse(row.plan_json, &plan, err)) return -1;
    if (!plan.until_conclusive) return 0;
    ResultRun *runs = NULL;
    int n = 0, pending = 0;
    if (results_sweep_runs(s, sweep_id, 0, &runs, &n, err)) return -1;
    for (int i = 0; i < n; i++) {
        RunStatus st = runs[i].state;
        pending += st == RUN_QUEUED || st == RUN_RUNNING || st == RUN_PAUSED;
        *done += st == RUN_DONE;
    }
    free(runs);
    *all = *done + pending;
    if (pending) *round = row.round;
    return 0;
}

/* Whether a decided verdict (last) held at the loop's previous budget: the
   latest round before it at fewer tokens per run (prev, NULL: none).
   "stable over the last doubling (80k to 160k tokens)", "changed with
   budget: undecided (budget) at 80k, holds at 160k", "one budget only". */
static void over_budgets(const VerdictRow *prev, const VerdictRow *last, char *out, size_t cap)
{
    if (!prev) {
        snprintf(out, cap, "one budget only");
        return;
    }
    char then[32], now[32];
    fmt_short((double)prev->tokens_per_run, then, sizeof then);
    fmt_short((double)last->tokens_per_run, now, sizeof now);
    /* a history's older words read as today's (verdict_of_name) */
    Verdict v_then = verdict_of_name(prev->verdict), v_now = verdict_of_name(last->verdict);
    if (v_then != v_now)
        snprintf(out, cap, "changed with budget: %s at %s, %s at %s", verdict_name(v_then), then, verdict_name(v_now),
                 now);
    else if (last->tokens_per_run == 2 * prev->tokens_per_run)
        snprintf(out, cap, "stable over the last doubling (%s to %s tokens)", then, now);
    else
        snprintf(out, cap, "stable from %s to %s tokens", then, now);
}

/* Whether history row v speaks of claim c: its words, or those it had
   before issue 39 (a history stored then). */
static int row_of(const VerdictRow *v, const ClaimResult *c)
{
    return !strcmp(v->claim, c->claim) || (c->former && !strcmp(v->claim, c->former));
}

/* A claim whose history's last round was judged by the rules before issue
   39 and gave another verdict than today's tests on the same runs: was =
   that verdict's words; out = "re-judged: holds in round 2 (400k tokens per
   run, 3 seeds) under the rules before issue 39; before, ...; now, ...".
   Returns 1 when so. */
static int rejudged(const VerdictRow *last, const ClaimResult *c, char *was, size_t was_cap, char *out, size_t cap)
{
    if (last->rules != VERDICT_RULES_WELCH95 || !strcmp(last->verdict, verdict_name(c->verdict))) return 0;
    char tokens[32];
    fmt_short((double)last->tokens_per_run, tokens, sizeof tokens);
    snprintf(was, was_cap, "%s", last->verdict);
    /* "inconclusive" (the loop at its cap) is today's undecided (budget) */
    const char *why = !strcmp(last->verdict, "inconclusive") && c->verdict == VERDICT_UNDECIDED_BUDGET
                          ? "the same reading: \"inconclusive\" was its word then"
                          : c->rules_before;
    snprintf(out, cap, "re-judged: %s in round %d (%s tokens per run, %d seed%s) under the rules before issue 39; %s",
             last->verdict, last->round, tokens, last->seeds, last->seeds == 1 ? "" : "s", why);
    return 1;
}

/* How claim c's verdict was reached over the rounds of --until-conclusive
   (db/adaptive.h verdicts): "decided in round 3 at 1.6M tokens per run, 5
   seeds; stable over the last doubling (800k to 1.6M tokens)"; at the cap,
   what it would still need; "" without a history.  A verdict today's tests
   changed (rejudged(), only when no round trains) says so, and was gets
   the old one: instead, when the last round was judged by the old rules;
   after it, when later rounds judged by today's rules gave today's. */
static void how_reached(const VerdictRow *h, int n, const ClaimResult *c, int training, char *was, size_t was_cap,
                        char *out, size_t cap)
{
    const VerdictRow *last = NULL, *since = NULL, *old_last = NULL;
    for (int i = 0; i < n; i++) {
        if (!row_of(&h[i], c)) continue;
        if (!last || strcmp(h[i].verdict, last->verdict)) since = &h[i];   /* rows come by round */
        last = &h[i];
        if (h[i].rules == VERDICT_RULES_WELCH95) old_last = &h[i];
    }
    const VerdictRow *prev = NULL;   /* the latest round at a smaller budget than the last */
    for (int i = 0; last && i < n; i++)
        if (row_of(&h[i], c) && h[i].tokens_per_run < last->tokens_per_run) prev = &h[i];
    out[0] = was[0] = 0;
    if (!last) return;
    if (!training && old_last == last && rejudged(last, c, was, was_cap, out, cap)) return;
    /* decided: since the round that first gave the verdict; else as the
       last round left it (its budget, not the first undecided one's) */
    int decided = !strcmp(last->verdict, "holds") || !strcmp(last->verdict, "does not hold");
    char tokens[32];
    fmt_short((double)(decided ? since : last)->tokens_per_run, tokens, sizeof tokens);
    if (decided) {
        char budgets[200];
        over_budgets(prev, last, budgets, sizeof budgets);
        snprintf(out, cap, "decided in round %d at %s tokens per run, %d seed%s; %s", since->round, tokens,
                 since->seeds, since->seeds == 1 ? "" : "s", budgets);
    }
    else
        snprintf(out, cap, "%s after round %d (%s tokens per run, %d seed%s): %s", last->verdict, last->round, tokens,
                 last->seeds, last->seeds == 1 ? "" : "s", last->action);
    char note[600];
    size_t len = strlen(out);
    if (!training && old_last && old_last != last && rejudged(old_last, c, was, was_cap, note, sizeof note))
        snprintf(out + len, cap - len, "; %s", note);
}

/* The budget fits of c's pairs (budget_fit.h) after its numbers; a claim
   whose fitted curves cross within 10x its budget is undecided (budget),
   budget-bound. */
static int budget_check(Store *s, ClaimResult *c, char *err)
{
    char fits[1024];
    int bound = 0;
    double cross = 0;
    if (budget_fit_claim(s, c->sweep_id, c, fits, sizeof fits, &bound, &cross, err)) return -1;
    if (fits[0]) {
        size_t len = strlen(c->numbers);
        snprintf(c->numbers + len, sizeof c->numbers - len, "; %s", fits);
    }
    /* an undecided (budget) claim keeps its first reason ("not learned") */
    if (bound && c->verdict != VERDICT_NOT_RUN && c->verdict != VERDICT_UNDECIDED_BUDGET) {
        char where[32];
        fmt_short(cross, where, sizeof where);
        c->verdict = VERDICT_UNDECIDED_BUDGET;
        snprintf(c->reason, sizeof c->reason, "budget-bound: the fitted curves cross near %s tokens, within 10x the budget",
                 where);
    }
    return 0;
}

int verdicts_now(Store *s, const char *preset, long long sweep_id, ClaimNow **out, int *n, char *err)
{
    assert(s && preset && err);
    *out = NULL;
    *n = 0;
    int round = 0, done = 0, all = 0;
    if (sweep_id > 0 && training_round(s, sweep_id, &round, &done, &all, err)) return -1;
    ClaimResult *res = NULL;
    int count = 0;
    if (claims_judge(s, preset, sweep_id, &res, &count, err)) return -1;
    VerdictRow *h = NULL;
    int n_h = 0;
    if (sweep_id > 0 && store_verdicts(s, sweep_id, &h, &n_h, err)) {
        free(res);
        return -1;
    }
    ClaimNow *now = count ? calloc((size_t)count, sizeof *now) : NULL;
    if (count && !now) {
        free(res);
        free(h);
        return err_set(err, "claims: out of memory");
    }
    for (int i = 0; i < count; i++) {
        ClaimNow *c = &now[i];
        c->c = res[i];
        if (n_h) how_reached(h, n_h, &c->c, round != 0, c->was, sizeof c->was, c->how, sizeof c->how);
        if (c->c.gated && c->c.sweep_id > 0 && budget_check(s, &c->c, err)) {
            free(res);
            free(h);
            free(now);
            return -1;
        }
        if (!round) continue;
        const VerdictRow *last = NULL;
        for (int k = 0; k < n_h; k++)
            if (row_of(&h[k], &c->c)) last = &h[k];   /* rows come by round */
        c->partial = !last && c->c.verdict != VERDICT_NOT_RUN;
        if (last) {
            Verdict then = verdict_of_name(last->verdict);
            if (then != c->c.verdict) c->c.reason[0] = 0;   /* the reason was today's, not the history's */
            c->c.verdict = then;
            snprintf(c->c.numbers, sizeof c->c.numbers, "%s", last->numbers);
            /* the verdict is the round's it was judged in: that look's level */
            if (c->c.looks && last->round < c->c.look) {
                c->c.look = last->round;
                c->c.alpha = alpha_at_look(c->c.sweep_alpha, last->round, c->c.looks);
            }
        }
        if (c->partial)
            snprintf(c->training, sizeof c->training, "round %d training: judged on the %d of %d runs finished so far",
                     round, done, all);
        else
            snprintf(c->training, sizeof c->training, "round %d training (%d of %d runs finished)", round, done, all);
        size_t len = strlen(c->how);
        snprintf(c->how + len, sizeof c->how - len, "%s%s", len ? "; " : "", c->training);
    }
    free(res);
    free(h);
    *out = now;
    *n = count;
    return 0;
}
