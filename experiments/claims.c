/*
 * claims.c — the seed papers' claims as one table of rules (claims.h), and
 * the judging of each from a sweep's finished runs grouped over seeds
 * (points.h).
 *
 * A rule compares points picked by selectors ("arch=mixer d=128"), paired
 * on the keys in `pair_on` ("data layers heads": one comparison per
 * (corpus, L, h)).  Each comparison is tested at the sweep's alpha by the
 * test of its rule's kind (stats.h; the table is docs/statistics.md):
 * directional rules by Welch's t on the difference, one-sided, with a
 * "no practical difference" margin (PRACTICAL_MARGIN) that fails them;
 * equivalence (R_MATCH) by TOST on the ratio against the rule's margin;
 * R_FLAT by an interval for the range of its points' means; thresholds by
 * the mean's one-sided bound.  Each prints its (1 - 2 alpha) interval in
 * brackets.  The comparisons of one claim combine as: holds when every one
 * holds (intersection-union), does not hold when one fails after Holm's
 * adjustment over them, else undecided with the first one's reason.  One
 * seed a side has no spread: undecided, more seeds decide it.  A
 * comparison of losses where either point has a run that did not learn
 * enough to judge (points.h result_learned: its best valid loss not 0.3 nat
 * below the unigram entropy; for loss_all, its valid loss_all not below 2 p
 * H, shared/papers/README.md) is "undecided (budget)": the budget did not
 * reach what the claim is about (the samples/s rules, which do not depend
 * on training, and the rules about the unigram level itself are exempt).
 * So is one whose points trained on unequal numbers of tokens (more than
 * TOKENS_EQUAL apart): a model that had more data is not compared with one
 * that had less.  A failing comparison fails the claim whatever the
 * others; else one undecided for budget makes it undecided (budget).  A
 * claim whose points were not run (or did not finish: only status 'done'
 * counts) is "not run".
 *
 * Thresholds the papers do not state (how flat is "nearly flat", how close
 * is "close") are chosen here and written in the claim's text, so the
 * verdict says what it tested.  The paper's own ratio, where both points
 * have a figure in presets.c, is printed beside ours.
 *
 * Not for: reading the store (db/results.h), printing (report.c, ui/).
 */
#include "experiments/claims.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/adaptive.h"
#include "db/results.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "experiments/points.h"
#include "experiments/recall_label.h"
#include "experiments/stats.h"
#include "experiments/study.h"
#include "experiments/sweep.h"

/* Budgets this close are equal: a budget in tokens rounds up to whole
   steps of batch x n_ctx, which differ between shapes. */
#define TOKENS_EQUAL 0.05

/* How the rules before issue 39 (one Welch test at 95% per look) judged a
   claim of kind k, against today's tests (docs/statistics.md): the why of a
   verdict the new rules changed. */
static const char *rules_before(RuleKind k)
{
    switch (k) {
    case R_LOWER:
    case R_HIGHER:
        return "before, a difference beyond noise (two-sided Welch at 95%) decided the direction; now a one-sided "
               "test at the look's level must clear a 1% margin";
    case R_MATCH:
        return "before, a ratio inside the margin or a difference within noise held; now the ratio's whole "
               "interval must lie inside the margin (two one-sided tests)";
    case R_RATIO_AT_LEAST:
        return "before, the measured ratio against the paper's decided; now the ratio's interval must lie on one side "
               "of it";
    case R_SLIGHTLY_HIGHER:
        return "before, a difference within noise read \"within noise\"; now the ratio's interval must lie above 1 "
               "and under 1 + the margin to hold, or outside them to fail";
    case R_FLAT:
        return "before, the measured range against the margin (or a range within noise) decided; now the range's "
               "interval (Bonferroni over the pairs) must lie wholly under or over the margin";
    case R_BELOW_UNIGRAM:
    case R_NEAR_UNIGRAM:
        return "before, the mean gap to the unigram entropy against the bound decided; now the gap's interval must "
               "clear the bound";
    case R_KIND_COUNT: break;
    case R_THRESHOLD:
    case R_MIN_D:
        return "before, no claim of this kind was judged (it came with issues 41 and 42): its verdicts are today's "
               "tests' alone";
    case R_OVERTAKES:
        return "before, no claim of this kind was judged (it came with issue 43): its verdicts are today's tests' "
               "alone";
    case R_SAME_STANDING:
        return "before, a pair within noise read \"within noise\"; now each pair's difference must be significant "
               "at the look's level (Holm)";
    }
    return "";
}

/* A directional claim's "no practical difference": a difference whose
   (1 - 2 alpha) interval lies within this share of b's mean does not make
   one model better (under the smallest gap the papers report, S7's 4% in
   loss; docs/statistics.md). */
#define PRACTICAL_MARGIN 0.01


const char *verdict_name(Verdict v)
{
    switch (v) {
    case VERDICT_HOLDS: return "holds";
    case VERDICT_FAILS: return "does not hold";
    case VERDICT_UNDECIDED: return "undecided";
    case VERDICT_UNDECIDED_BUDGET: return "undecided (budget)";
    case VERDICT_NOT_RUN: break;
    }
    return "not run";
}

int claim_count(void) { return study_rule_count(); }

const char *claim_preset(int i) { return i >= 0 && i < study_rule_count() ? study_rule_at(i)->preset : NULL; }

PointMetric claim_metric(int i) { return i >= 0 && i < study_rule_count() ? study_rule_at(i)->metric : PM_TEST_LOSS; }

/* ---- the numbers line ---------------------------------------------------- */

typedef struct {
    char *text;
    int len, cap;
} Line;

static void line_add(Line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line_add(Line *l, const char *fmt, ...)
{
    if (l->len >= l->cap - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->text + l->len, (size_t)(l->cap - l->len), fmt, ap);
    va_end(ap);
    if (w > 0) l->len = l->len + w < l->cap - 1 ? l->len + w : l->cap - 1;
}

static const char *number_format(PointMetric m)
{
    int rate = m == PM_SAMPLES_PER_S || m == PM_TOKENS_PER_S || m == PM_TOKENS_PER_CPU_S;
    return rate || m == PM_TEST_PERPLEXITY ? "%.1f" : "%.3f";
}

/* "4.912 +- 0.020 (3)"; one seed, which has no spread: "4.912 (1)" */
static void stat_add(Line *l, const SeedStats *st, PointMetric m)
{
    char fmt[32];
    if (st->n == 1) {
        snprintf(fmt, sizeof fmt, "%s (1)", number_format(m));
        line_add(l, fmt, st->mean);
        return;
    }
    snprintf(fmt, sizeof fmt, "%s +- %s (%%d)", number_format(m), number_format(m));
    line_add(l, fmt, st->mean, st->se, st->n);
}

/* ---- verdicts ------------------------------------------------------------ */

/* One point's (or pair's, or group's) test: the one-sided p-values of the
   claim holding there and of its failing there (Holm-adjusted over the
   claim's points before it decides), or why it cannot be tested. */
typedef struct {
    double p_hold, p_fail;
    int untestable;         /* one seed a side: no spread to test against */
    int budget;             /* not learned, or unequal budgets: training decides, not seeds */
    double df;              /* the degrees of freedom of its p-values (0: unknown) */
    int settled;            /* R_OVERTAKES: undecided, and more seeds would not change it */
    char why[200];          /* an undecided point's reason */
} PointTest;

/* " [lo, hi]": the (1 - 2 alpha) interval, whose ends are the one-sided bounds. */
static void interval_add(Line *l, const Contrast *c, double alpha, const char *fmt)
{
    char f[64];
    snprintf(f, sizeof f, " [%s, %s]", fmt, fmt);
    line_add(l, f, contrast_lower(c, alpha), contrast_upper(c, alpha));
}

/* The claim's points decided together: "holds" where every point holds at
   alpha (intersection-union: no correction); "does not hold" where some
   point fails after Holm's adjustment over the points; else undecided, for
   budget when a point awaits training.  The first undecided point's reason
   goes to c->reason. */
static Verdict decide_points(const PointTest *t, int n, double alpha, ClaimResult *c)
{
    if (n == 0) return VERDICT_NOT_RUN;
    double p[CLAIM_MAX_TESTS] = {0}, adj[CLAIM_MAX_TESTS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!t[i].untestable && !t[i].budget) p[k++] = t[i].p_fail;
    holm_adjust(p, k, adj);
    int fails = 0, budget = 0, undecided = 0;
    const char *why_budget = NULL, *why = NULL;
    for (int i = 0, j = 0; i < n; i++) {
        if (t[i].budget) {
            if (!budget++) why_budget = t[i].why;
            continue;
        }
        if (t[i].untestable) {
            if (!undecided++) why = t[i].why;
            continue;
        }
        double p_fail = adj[j++];
        if (p_fail < alpha) fails++;
        else if (!(t[i].p_hold < alpha) && !undecided++) why = t[i].why;
    }
    if (fails) return VERDICT_FAILS;
    if (budget || undecided) snprintf(c->reason, sizeof c->reason, "%s", budget ? why_budget : why);
    if (budget) return VERDICT_UNDECIDED_BUDGET;
    return undecided ? VERDICT_UNDECIDED : VERDICT_HOLDS;
}

/* A point no test decided, not for budget: more seeds narrow its interval
   (the points --until-conclusive gives seeds, claims.h noisy). */
static int undecided_here(const PointTest *t, double alpha)
{
    return !t->budget && (t->untestable || (!(t->p_hold < alpha) && !(t->p_fail < alpha)));
}

/* An undecided claim's seeds by power: for each undecided test, the seeds a
   side for STATS_POWER at the next look's level (times share: a test taken
   at a Bonferroni share of the level), from the statistic of the decision
   it is nearer (its smaller p-value) at the spread measured; a test with no
   spread yet needs a second seed a side, the presets' 3.  The most over the
   tests goes to c->seeds_needed and the reason. */
static void need_seeds_at(const PointTest *t, int n, double alpha, double share, ClaimResult *c)
{
    double next = share * (c->looks ? alpha_at_look(c->sweep_alpha, c->look + 1, c->looks) : alpha / share);
    for (int i = 0; i < n; i++) {
        if (!undecided_here(&t[i], alpha)) continue;
        int need = 3;
        if (!t[i].untestable) {
            double df = t[i].df > 0 ? t[i].df : 2.0 * (c->min_seeds - 1);
            double stat = t_quantile(1 - fmin(t[i].p_hold, t[i].p_fail), df);
            need = seeds_for_power(stat, df, c->min_seeds, next, STATS_POWER, CLAIM_MAX_SEEDS);
        }
        if (need > c->seeds_needed) c->seeds_needed = need;
    }
    size_t len = strlen(c->reason);
    if (c->seeds_needed > CLAIM_MAX_SEEDS)
        snprintf(c->reason + len, sizeof c->reason - len, "; more than %d seeds a side at this spread", CLAIM_MAX_SEEDS);
    else if (c->seeds_needed)
        snprintf(c->reason + len, sizeof c->reason - len, "; about %d seeds a side at this spread", c->seeds_needed);
}

static void need_seeds(const PointTest *t, int n, double alpha, ClaimResult *c) { need_seeds_at(t, n, alpha, 1, c); }

/* Directional: a below b (sign -1) or above it (sign +1).  Holds when the
   one-sided bound of a - b excludes 0 in the claimed direction; fails when
   it is significant the other way or its (1 - 2 alpha) interval lies
   within PRACTICAL_MARGIN of b's mean (TOST). */
static void test_directed(const SeedStats *a, const SeedStats *b, int sign, double alpha, PointTest *t, Line *l)
{
    Contrast d = contrast_diff(a, b);
    double delta = PRACTICAL_MARGIN * fabs(b->mean);
    line_add(l, ", difference %.3f", d.est);
    if (!contrast_testable(&d)) return;
    interval_add(l, &d, alpha, "%.3f");
    t->df = d.df;
    t->p_hold = sign < 0 ? contrast_p_below(&d, 0) : contrast_p_above(&d, 0);
    double other = sign < 0 ? contrast_p_above(&d, 0) : contrast_p_below(&d, 0);
    double same = fmax(contrast_p_above(&d, -delta), contrast_p_below(&d, delta));
    t->p_fail = fmin(other, same);
    snprintf(t->why, sizeof t->why, "the difference's interval [%.3g, %.3g] holds 0", contrast_lower(&d, alpha),
             contrast_upper(&d, alpha));
}

/* Equivalence: TOST on the ratio a/b against 1 -+ margin. */
static void test_match(const SeedStats *a, const SeedStats *b, double margin, double alpha, PointTest *t, Line *l)
{
    Contrast r = contrast_ratio(a, b);
    if (!contrast_testable(&r)) return;
    interval_add(l, &r, alpha, "%.3f");
    t->df = r.df;
    t->p_hold = fmax(contrast_p_above(&r, 1 - margin), contrast_p_below(&r, 1 + margin));
    t->p_fail = fmin(contrast_p_above(&r, 1 + margin), contrast_p_below(&r, 1 - margin));
    snprintf(t->why, sizeof t->why, "the interval [%.3f, %.3f] straddles the %g%% margin", contrast_lower(&r, alpha),
             contrast_upper(&r, alpha), 100 * margin);
}

/* a above b, and the ratio a/b at most 1 + margin: both must hold. */
static void test_slightly_higher(const SeedStats *a, const SeedStats *b, double margin, double alpha, PointTest *t,
                                 Line *l)
{
    Contrast d = contrast_diff(a, b), r = contrast_ratio(a, b);
    if (!contrast_testable(&r)) return;
    interval_add(l, &r, alpha, "%.3f");
    t->df = d.df;
    t->p_hold = fmax(contrast_p_above(&d, 0), contrast_p_below(&r, 1 + margin));
    t->p_fail = fmin(contrast_p_below(&d, 0), contrast_p_above(&r, 1 + margin));
    snprintf(t->why, sizeof t->why, "the interval [%.3f, %.3f] is not both above 1 and under %g", contrast_lower(&r, alpha),
             contrast_upper(&r, alpha), 1 + margin);
}

/* A threshold on a contrast: the claim is c above x (sign +1) or below it. */
static void test_threshold(const Contrast *c, double x, int sign, PointTest *t)
{
    t->df = c->df;
    t->p_hold = sign > 0 ? contrast_p_above(c, x) : contrast_p_below(c, x);
    t->p_fail = sign > 0 ? contrast_p_below(c, x) : contrast_p_above(c, x);
}

/* The figure of preset at the point selected by selector, for metric and
   setting, from presets.c; NAN when there is none. */
static double paper_value(const char *preset, const char *selector, PointMetric metric, const char *setting)
{
    const Preset *p = preset_find(preset);
    if (!p || !setting) return NAN;
    for (int i = 0; i < p->n_paper; i++) {
        const PaperFigure *f = &p->paper[i];
        /* the PairConnect papers' losses are all-positions ones (S1) */
        const char *name = metric == PM_TEST_LOSS_ALL ? "test_loss" : point_metric_name(metric);
        if (strcmp(f->metric, name) || strcmp(f->setting, setting)) continue;
        char jerr[ERR_LEN];
        JsonValue *obj = json_parse(f->coords, strlen(f->coords), jerr);
        if (!obj) continue;
        CoordPair pairs[RESULT_MAX_COORDS];
        int n = 0;
        for (int k = 0; k < obj->count && n < RESULT_MAX_COORDS; k++) {
            if (obj->items[k].type != JSON_STRING) continue;
            snprintf(pairs[n].key, sizeof pairs[n].key, "%s", obj->keys[k]);
            snprintf(pairs[n].value, sizeof pairs[n].value, "%s", obj->items[k].string);
            n++;
        }
        json_free(obj);
        if (coords_select(pairs, n, selector)) return f->value;
    }
    return NAN;
}

/* "k=v k=v": a selector naming exactly p's coordinates. */
static void point_selector(const Point *p, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int k = 0; k < p->n_coords && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s=%s", k ? " " : "", p->coords[k].key, p->coords[k].value);
}

/* Runs of p that did not learn enough for a claim on m. */
static int unlearned(const Point *p, PointMetric m)
{
    return m == PM_TEST_LOSS_ALL ? p->n_unlearned_all : p->n_unlearned;
}

/* Notes point p in list (to extend or noisy) of c, once. */
static void note_point(ClaimResult *c, int noisy, const Point *p)
{
    char sel[CLAIM_SELECTOR_LEN];
    point_selector(p, sel, sizeof sel);
    char (*list)[CLAIM_SELECTOR_LEN] = noisy ? c->noisy : c->extend;
    int *n = noisy ? &c->n_noisy : &c->n_extend;
    for (int i = 0; i < *n; i++)
        if (!strcmp(list[i], sel)) return;
    if (*n < CLAIM_MAX_POINTS) snprintf(list[(*n)++], CLAIM_SELECTOR_LEN, "%s", sel);
}

/* A point it compared: the fewest seeds so far. */
static void note_seeds(ClaimResult *c, const Point *p)
{
    if (c->min_seeds == 0 || p->n_done < c->min_seeds) c->min_seeds = p->n_done;
    double tokens = p->budget_max;
    if (isfinite(tokens) && tokens > c->max_tokens) c->max_tokens = tokens;
}

/* Training tokens per run of p: the smallest budget of its finished runs
   (a run stopped once solved counts its planned one: result_budget_tokens). */
static double point_tokens(const Point *p)
{
    return p->budget_min;
}

/* A budget of t tokens per run is smaller than one of `than`: by more than
   the rounding of a budget to whole steps of different shapes. */
static int shorter(double t, double than)
{
    return isfinite(t) && isfinite(than) && t < (1 - TOKENS_EQUAL) * than;
}

/* "483k" */
static void tokens_add(Line *l, double t)
{
    if (t >= 1e6) line_add(l, "%.3gM", t / 1e6);
    else line_add(l, "%.0fk", t / 1e3);
}

/* A point with a finished value of m. */
static int usable(const Point *p, PointMetric m)
{
    return p->stat[m].n > 0;
}

/* The point the rule's selector b picks that agrees with a on pair_on. */
static const Point *partner(const ClaimRule *r, const Point *pts, int np, const Point *a)
{
    for (int j = 0; j < np; j++) {
        const Point *q = &pts[j];
        if (q == a || !usable(q, r->metric) || !point_select(q, r->b)) continue;
        if (coords_agree(a->coords, a->n_coords, q->coords, q->n_coords, r->pair_on)) return q;
    }
    return NULL;
}

/* Beside a loss_all comparison, the masked positions' loss of the same
   points (shared/papers/README.md S1: the caveat, not the gate). */
static void masked_add(Line *l, const ClaimRule *r, const Point *a, const Point *b)
{
    if (r->metric != PM_TEST_LOSS_ALL) return;
    double ma = a->stat[PM_TEST_LOSS].mean, mb = b->stat[PM_TEST_LOSS].mean;
    if (isfinite(ma) && isfinite(mb)) line_add(l, " (masked positions %.3f %s %.3f)", ma, r->kind == R_FLAT ? "to" : "vs", mb);
}

/* After a loss_all claim: what copying alone scores on each corpus it
   compared (p x H, the visible words copied and the unigram distribution
   at the masked ones), so that the reader sees how much of the loss is
   copying -- the paper's own figures lie near it (S1). */
static void copying_add(Line *l, const ClaimRule *r, const Point *pts, int np)
{
    if (r->metric != PM_TEST_LOSS_ALL) return;
    char seen[8][64];
    int n = 0;
    for (int i = 0; i < np; i++) {
        const Point *p = &pts[i];
        double h = p->stat[PM_UNIGRAM].mean;
        if (!usable(p, r->metric) || !point_select(p, r->a) || !isfinite(h)) continue;
        char data[64];
        coords_label(p->coords, p->n_coords, "data", data, sizeof data);
        int k = 0;
        while (k < n && strcmp(seen[k], data)) k++;
        if (k < n || n == 8) continue;
        snprintf(seen[n++], sizeof seen[0], "%s", data);
        line_add(l, "%s%.2f%s%s", n == 1 ? "; copying the visible words alone scores p x H = " : ", ",
                 LEARNED_MASKED_SHARE * h, data[0] ? " on " : "", data);
    }
    if (n) line_add(l, ": loss_all is mostly copying (so are the paper's figures), the masked positions' loss is beside it");
}

static void label_pair(Line *l, const ClaimRule *r, const Point *a)
{
    char label[128];
    coords_label(a->coords, a->n_coords, r->pair_on, label, sizeof label);
    line_add(l, "%s%s%s", l->len ? "; " : "", label, label[0] ? ": " : "");
}

/* R_SAME_STANDING: the sign of a - b is the same at every pair.  Holds when
   every pair's one-sided test of one sign holds (intersection-union);
   fails when some pair is significantly above and another significantly
   below, two-sided p-values Holm-adjusted over the pairs. */
static Verdict decide_standing(const Contrast *d, const PointTest *t, int n, double alpha, ClaimResult *c)
{
    double p[CLAIM_MAX_TESTS], adj[CLAIM_MAX_TESTS], up = 0, down = 0;
    int k = 0, budget = -1, untestable = -1;
    for (int i = 0; i < n; i++) {
        if (t[i].budget && budget < 0) budget = i;
        if (t[i].untestable && untestable < 0) untestable = i;
        if (t[i].budget || t[i].untestable) continue;
        p[k++] = fmin(1, 2 * fmin(contrast_p_above(&d[i], 0), contrast_p_below(&d[i], 0)));
        up = fmax(up, contrast_p_above(&d[i], 0));
        down = fmax(down, contrast_p_below(&d[i], 0));
    }
    holm_adjust(p, k, adj);
    int above = 0, below = 0;
    for (int i = 0, j = 0; i < n; i++) {
        if (t[i].budget || t[i].untestable) continue;
        if (adj[j++] < alpha) d[i].est > 0 ? above++ : below++;
    }
    if (n == 0) return VERDICT_NOT_RUN;
    if (above && below) return VERDICT_FAILS;
    if (budget >= 0 || untestable >= 0 || !(fmin(up, down) < alpha)) {
        snprintf(c->reason, sizeof c->reason, "%s",
                 budget >= 0 ? t[budget].why : untestable >= 0 ? t[untestable].why
                                                                : "a pair's difference is not significant either way");
        return budget >= 0 ? VERDICT_UNDECIDED_BUDGET : VERDICT_UNDECIDED;
    }
    return VERDICT_HOLDS;
}

static Verdict judge_pairs(const ClaimRule *r, const Point *pts, int np, double alpha, Line *l, ClaimResult *c)
{
    PointTest t[CLAIM_MAX_TESTS];
    Contrast diffs[CLAIM_MAX_TESTS];
    const Point *ends[CLAIM_MAX_TESTS][2];
    int n = 0, not_run = 0;
    for (int i = 0; i < np && n < CLAIM_MAX_TESTS; i++) {
        const Point *a = &pts[i];
        if (!usable(a, r->metric) || !point_select(a, r->a)) continue;
        const Point *b = partner(r, pts, np, a);
        if (!b) continue;
        const SeedStats *sa = &a->stat[r->metric], *sb = &b->stat[r->metric];
        label_pair(l, r, a);
        stat_add(l, sa, r->metric);
        line_add(l, " vs ");
        stat_add(l, sb, r->metric);
        masked_add(l, r, a, b);
        double ratio = sa->mean / sb->mean;
        PointTest *pt = &t[n];
        memset(pt, 0, sizeof *pt);
        diffs[n] = contrast_diff(sa, sb);
        pt->untestable = !contrast_testable(&diffs[n]);
        snprintf(pt->why, sizeof pt->why, "one seed a side: no spread to test against");
        if (r->kind != R_RATIO_AT_LEAST) line_add(l, ", ratio %.3f", ratio);
        switch (r->kind) {
        case R_LOWER: test_directed(sa, sb, -1, alpha, pt, l); break;
        case R_HIGHER: test_directed(sa, sb, +1, alpha, pt, l); break;
        case R_MATCH: test_match(sa, sb, r->param, alpha, pt, l); break;
        case R_SLIGHTLY_HIGHER: test_slightly_higher(sa, sb, r->param, alpha, pt, l); break;
        case R_RATIO_AT_LEAST: {
            /* the ratio the claim states, else the paper's of the same points */
            double want = r->param > 0 ? r->param
                                       : paper_value(r->preset, r->a, r->metric, r->setting_a) /
                                             paper_value(r->preset, r->b, r->metric, r->setting_b);
            Contrast rc = contrast_ratio(sa, sb);
            line_add(l, ", ratio %.3f", ratio);
            if (!isfinite(want)) {
                not_run = 1;
                break;
            }
            if (contrast_testable(&rc)) {
                interval_add(l, &rc, alpha, "%.3f");
                test_threshold(&rc, want, +1, pt);
                snprintf(pt->why, sizeof pt->why, "the interval [%.3f, %.3f] holds the wanted %.3f",
                         contrast_lower(&rc, alpha), contrast_upper(&rc, alpha), want);
            }
            line_add(l, ", wanted >= %.3f", want);
            break;
        }
        case R_SAME_STANDING:
            line_add(l, ", difference %.3f", diffs[n].est);
            if (!pt->untestable) interval_add(l, &diffs[n], alpha / 2, "%.3f");
            pt->p_hold = fmin(contrast_p_above(&diffs[n], 0), contrast_p_below(&diffs[n], 0));
            pt->p_fail = 1;
            snprintf(pt->why, sizeof pt->why, pt->untestable ? "one seed a side: no spread to test against"
                                                               : "a pair's difference is not significant either way");
            break;
        default: not_run = 1; break;
        }
        note_seeds(c, a);
        note_seeds(c, b);
        int trained = point_metric_info(r->metric)->learned;   /* speed does not depend on training */
        int ua = trained && unlearned(a, r->metric);
        int ub = trained && unlearned(b, r->metric);
        double ta = point_tokens(a), tb = point_tokens(b);
        if (trained && (shorter(ta, tb) || shorter(tb, ta))) {
            /* one model had more data: the shorter one trains on first */
            pt->budget = 1;
            snprintf(pt->why, sizeof pt->why, "unequal budgets");
            line_add(l, " [unequal budgets: ");
            tokens_add(l, ta);
            line_add(l, " vs ");
            tokens_add(l, tb);
            line_add(l, " tokens per run]");
            note_point(c, 0, shorter(ta, tb) ? a : b);
        } else if (ua || ub) {
            /* both train on, so that they are compared at equal budgets again */
            pt->budget = 1;
            snprintf(pt->why, sizeof pt->why, "not learned: %s", ua && ub ? "both points" : ua ? a->arch : b->arch);
            line_add(l, " [%s]", pt->why);
            note_point(c, 0, a);
            note_point(c, 0, b);
        }
        ends[n][0] = a;
        ends[n][1] = b;
        if (c->n_pairs < CLAIM_MAX_POINTS) {
            point_selector(a, c->pair[c->n_pairs][0], CLAIM_SELECTOR_LEN);
            point_selector(b, c->pair[c->n_pairs][1], CLAIM_SELECTOR_LEN);
            c->n_pairs++;
        }
        if (r->kind != R_RATIO_AT_LEAST) {
            /* the paper's figures at the same two points, where it reports both */
            char sel_a[1024], sel_b[1024];
            point_selector(a, sel_a, sizeof sel_a);
            point_selector(b, sel_b, sizeof sel_b);
            double pa = paper_value(r->preset, sel_a, r->metric, r->setting_a);
            double pb = paper_value(r->preset, sel_b, r->metric, r->setting_b);
            if (isfinite(pa) && isfinite(pb)) line_add(l, "; paper %.4g vs %.4g, ratio %.3f", pa, pb, pa / pb);
        }
        n++;
    }
    if (not_run) return VERDICT_NOT_RUN;
    Verdict v = r->kind == R_SAME_STANDING ? decide_standing(diffs, t, n, alpha, c) : decide_points(t, n, alpha, c);
    for (int i = 0; v == VERDICT_UNDECIDED && i < n; i++)
        if (undecided_here(&t[i], alpha)) {
            /* more seeds decide it */
            note_point(c, 1, ends[i][0]);
            note_point(c, 1, ends[i][1]);
        }
    if (v == VERDICT_UNDECIDED) need_seeds(t, n, alpha, c);
    return v;
}

/* R_FLAT on one group of k points (m their metric): the range of their
   true means is at most margin x the mean when every ordered pair's
   difference is below it (intersection-union: each pair at alpha); it is
   above when some pair's difference is above it, Bonferroni over the k (k -
   1) ordered pairs.  The interval printed for the range is the one these
   two decide with: [the largest Bonferroni lower bound (at least 0), the
   largest upper bound], as shares of the mean. */
static void test_range(const Point *const *q, int k, PointMetric m, double mean, double margin, double alpha,
                       PointTest *t, Line *l)
{
    double lo = 0, hi = -INFINITY, x = margin * fabs(mean);
    int pairs = k * (k - 1);
    t->p_hold = 0;
    t->p_fail = 1;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            if (i == j) continue;
            Contrast d = contrast_diff(&q[i]->stat[m], &q[j]->stat[m]);
            if (!contrast_testable(&d)) {
                t->untestable = 1;
                snprintf(t->why, sizeof t->why, "one seed a point: no spread to test against");
                return;
            }
            t->df = t->df > 0 ? fmin(t->df, d.df) : d.df;
            lo = fmax(lo, contrast_lower(&d, alpha / pairs));
            hi = fmax(hi, contrast_upper(&d, alpha));
            t->p_hold = fmax(t->p_hold, contrast_p_below(&d, x));
            t->p_fail = fmin(t->p_fail, fmin(1, pairs * contrast_p_above(&d, x)));
        }
    line_add(l, ", interval [%.1f%%, %.1f%%]", 100 * lo / fabs(mean), 100 * hi / fabs(mean));
    snprintf(t->why, sizeof t->why, "the range's interval [%.1f%%, %.1f%%] straddles the %g%% margin",
             100 * lo / fabs(mean), 100 * hi / fabs(mean), 100 * margin);
}

static Verdict judge_flat(const ClaimRule *r, const Point *pts, int np, double alpha, Line *l, ClaimResult *c)
{
    PointTest t[CLAIM_MAX_TESTS];
    const Point *noisy[CLAIM_MAX_TESTS][CLAIM_MAX_POINTS];
    int n_group[CLAIM_MAX_TESTS], n = 0;
    char *done = calloc((size_t)np, 1);
    if (!done) return VERDICT_NOT_RUN;
    for (int i = 0; i < np && n < CLAIM_MAX_TESTS; i++) {
        if (done[i] || !usable(&pts[i], r->metric) || !point_select(&pts[i], r->a)) continue;
        /* the group of points agreeing with point i on pair_on */
        const Point *lo = &pts[i], *hi = &pts[i], *group[CLAIM_MAX_POINTS];
        double sum = 0, most = 0;
        int k = 0, not_learning = 0, n_short = 0;
        for (int j = i; j < np; j++) {
            const Point *q = &pts[j];
            if (!done[j] && usable(q, r->metric) && point_select(q, r->a) &&
                coords_agree(pts[i].coords, pts[i].n_coords, q->coords, q->n_coords, r->pair_on) &&
                point_tokens(q) > most)
                most = point_tokens(q);
        }
        for (int j = i; j < np; j++) {
            const Point *q = &pts[j];
            if (done[j] || !usable(q, r->metric) || !point_select(q, r->a) ||
                !coords_agree(pts[i].coords, pts[i].n_coords, q->coords, q->n_coords, r->pair_on))
                continue;
            done[j] = 1;
            note_seeds(c, q);
            not_learning += unlearned(q, r->metric) > 0;
            n_short += shorter(point_tokens(q), most);
            sum += q->stat[r->metric].mean;
            if (k < CLAIM_MAX_POINTS) group[k++] = q;
            if (q->stat[r->metric].mean < lo->stat[r->metric].mean) lo = q;
            if (q->stat[r->metric].mean > hi->stat[r->metric].mean) hi = q;
        }
        if (k < 2) continue;
        double mean = sum / k, range = hi->stat[r->metric].mean - lo->stat[r->metric].mean;
        PointTest *pt = &t[n];
        memset(pt, 0, sizeof *pt);
        label_pair(l, r, &pts[i]);
        line_add(l, "%d points, ", k);
        stat_add(l, &lo->stat[r->metric], r->metric);
        line_add(l, " to ");
        stat_add(l, &hi->stat[r->metric], r->metric);
        line_add(l, ", range %.1f%% of the mean", 100 * range / mean);
        test_range(group, k, r->metric, mean, r->param, alpha, pt, l);
        masked_add(l, r, lo, hi);
        if (n_short) {
            line_add(l, " [unequal budgets: %d of the points below ", n_short);
            tokens_add(l, most);
            line_add(l, " tokens per run]");
            snprintf(pt->why, sizeof pt->why, "unequal budgets");
        } else if (not_learning) {
            line_add(l, " [not learned: %d of the points]", not_learning);
            snprintf(pt->why, sizeof pt->why, "not learned: %d of the points", not_learning);
        }
        pt->budget = n_short || not_learning;
        /* the group trains on at equal budgets: the shorter points, or all */
        for (int j = 0; j < k && pt->budget; j++)
            if (!n_short || shorter(point_tokens(group[j]), most)) note_point(c, 0, group[j]);
        memcpy(noisy[n], group, (size_t)k * sizeof group[0]);
        n_group[n++] = k;
    }
    free(done);
    Verdict v = decide_points(t, n, alpha, c);
    for (int i = 0; v == VERDICT_UNDECIDED && i < n; i++)
        if (undecided_here(&t[i], alpha))
            for (int j = 0; j < n_group[i]; j++) note_point(c, 1, noisy[i][j]);
    if (v == VERDICT_UNDECIDED) need_seeds(t, n, alpha, c);
    return v;
}

/* R_BELOW_UNIGRAM / R_NEAR_UNIGRAM speak of every point the selector
   picks: one without a finished run leaves the claim undecided (not run),
   unless another point already fails it. */
static Verdict judge_unigram(const ClaimRule *r, const Point *pts, int np, double alpha, Line *l, ClaimResult *c)
{
    PointTest t[CLAIM_MAX_TESTS];
    const Point *tested[CLAIM_MAX_TESTS];
    int n = 0, waiting = 0;
    for (int i = 0; i < np && n < CLAIM_MAX_TESTS; i++) {
        const Point *a = &pts[i];
        if (!point_select(a, r->a)) continue;
        if (!usable(a, r->metric)) {
            if (a->n_pending) line_add(l, "%s%s: no finished run yet (%d pending)", l->len ? "; " : "", a->arch, a->n_pending);
            else line_add(l, "%s%s: no finished run (%d stopped)", l->len ? "; " : "", a->arch, a->n_runs);
            waiting = 1;
            continue;
        }
        const SeedStats *s = &a->stat[r->metric];
        double unigram = a->stat[PM_UNIGRAM].mean;
        line_add(l, "%s%s ", l->len ? "; " : "", a->arch);
        stat_add(l, s, r->metric);
        if (!isfinite(unigram)) {
            line_add(l, " (unigram entropy not in the store)");
            continue;
        }
        double gap = unigram - s->mean;      /* how far below the unigram level */
        line_add(l, " vs unigram %.3f (%.3f %s)", unigram, fabs(gap), gap >= 0 ? "below" : "above");
        PointTest *pt = &t[n];
        memset(pt, 0, sizeof *pt);
        /* the mean against the threshold unigram - param: below it (R_BELOW_UNIGRAM) or above */
        Contrast m = contrast_diff(s, NULL);
        pt->untestable = !contrast_testable(&m);
        if (pt->untestable) snprintf(pt->why, sizeof pt->why, "one seed: no spread to test against");
        else {
            test_threshold(&m, unigram - r->param, r->kind == R_BELOW_UNIGRAM ? -1 : +1, pt);
            double lo = unigram - contrast_upper(&m, alpha), hi = unigram - contrast_lower(&m, alpha);
            line_add(l, ", gap [%.3f, %.3f]", lo, hi);
            snprintf(pt->why, sizeof pt->why, "the gap's interval [%.3f, %.3f] straddles %g nat", lo, hi, r->param);
        }
        note_seeds(c, a);
        const Point *base = r->b ? partner(r, pts, np, a) : NULL;
        if (!(pt->p_hold < alpha) && base && unlearned(base, r->metric)) {
            pt->budget = 1;
            snprintf(pt->why, sizeof pt->why, "not learned: %s does not learn either", base->arch);
            line_add(l, " [%s does not learn either: the budget is too small to tell]", base->arch);
            note_point(c, 0, base);
            note_point(c, 0, a);
        }
        tested[n++] = a;
    }
    Verdict v = decide_points(t, n, alpha, c);
    for (int i = 0; v == VERDICT_UNDECIDED && i < n; i++)
        if (undecided_here(&t[i], alpha))
            note_point(c, 1, tested[i]);
    if (v == VERDICT_UNDECIDED) need_seeds(t, n, alpha, c);
    return waiting && v != VERDICT_FAILS ? VERDICT_NOT_RUN : v;
}

/* ---- thresholds and the smallest solving d (issues 41 and 42) ------------ */

/* A point's mean against a bound: the claim is that it is at least (sign
   +1) or at most (-1) the bound; the one-sided one-sample t test on its
   seeds (n - 1 degrees of freedom) gives the p-value of it holding and of
   the opposite. */
static void test_bound(const SeedStats *s, double bound, int sign, PointTest *t)
{
    memset(t, 0, sizeof *t);
    Contrast m = contrast_diff(s, NULL);
    t->untestable = !contrast_testable(&m);
    if (t->untestable) snprintf(t->why, sizeof t->why, "one seed: no spread to test against");
    else test_threshold(&m, bound, sign, t);
}

int claim_point_clears(const SeedStats *s, double bound, int sign, double alpha)
{
    if (s->n < 1) return 0;
    PointTest t;
    test_bound(s, bound, sign, &t);
    return t.untestable ? 0 : t.p_hold < alpha ? +1 : t.p_fail < alpha ? -1 : 0;
}

/* The keys whose values differ among the points sel picks, space-separated
   (a point's label in a claim over many). */
static void varying_keys(const Point *pts, int np, const char *sel, char *out, size_t cap)
{
    const Point *first = NULL;
    char keys[RESULT_MAX_COORDS][64];
    int n = 0;
    for (int i = 0; i < np; i++) {
        if (!point_select(&pts[i], sel)) continue;
        if (!first) first = &pts[i];
        for (int k = 0; k < pts[i].n_coords; k++) {
            const char *key = pts[i].coords[k].key, *v = coord_value(first->coords, first->n_coords, key);
            int seen = 0;
            for (int j = 0; j < n; j++) seen |= !strcmp(keys[j], key);
            if (!seen && (!v || strcmp(v, pts[i].coords[k].value)) && n < RESULT_MAX_COORDS)
                snprintf(keys[n++], sizeof keys[0], "%s", key);
        }
    }
    size_t len = 0;
    out[0] = 0;
    for (int j = 0; j < n && len < cap; j++) len += (size_t)snprintf(out + len, cap - len, "%s%s", j ? " " : "", keys[j]);
}

/* "for some point": holds when one point's test holds at alpha / k, k the
   points the claim speaks of (Bonferroni, which is Holm's first step: a
   union-intersection test of "none clears it"); does not hold when every
   point's opposite test holds at alpha (intersection-union: each at alpha). */
static Verdict decide_some(const PointTest *t, int n, int k, double alpha, ClaimResult *c)
{
    if (n == 0) return VERDICT_NOT_RUN;
    int fails = 0;
    const char *why = NULL;
    for (int i = 0; i < n; i++) {
        if (!t[i].untestable && t[i].p_hold < alpha / k) return VERDICT_HOLDS;
        if (!t[i].untestable && t[i].p_fail < alpha) fails++;
        else if (!why) why = t[i].why;
    }
    if (fails == k) return VERDICT_FAILS;
    snprintf(c->reason, sizeof c->reason, "%s", why ? why : "a point has no finished run yet");
    return VERDICT_UNDECIDED;
}

/* R_THRESHOLD: the metric of each point of a against the bound.  "for
   every": holds when every point's one-sided test holds at alpha
   (intersection-union), does not hold when one fails after Holm's
   adjustment over the points (decide_points); "for some": decide_some.  A
   point without a finished run leaves it not run, unless the others
   decide it. */
static Verdict judge_threshold(const ClaimRule *r, const Point *pts, int np, double alpha, Line *l, ClaimResult *c)
{
    PointTest t[CLAIM_MAX_TESTS];
    const Point *tested[CLAIM_MAX_TESTS];
    char keys[256];
    int n = 0, waiting = 0, some = r->quantifier == QUANT_SOME;
    varying_keys(pts, np, r->a, keys, sizeof keys);
    for (int i = 0; i < np; i++)
        if (point_select(&pts[i], r->a) && !usable(&pts[i], r->metric)) waiting++;
    int k = 0;   /* the points it speaks of, finished or not: some's Bonferroni */
    for (int i = 0; i < np; i++) k += point_select(&pts[i], r->a);
    double hold_level = some ? alpha / (k ? k : 1) : alpha;
    for (int i = 0; i < np && n < CLAIM_MAX_TESTS; i++) {
        const Point *p = &pts[i];
        if (!point_select(p, r->a)) continue;
        char label[512];
        recall_point_label(p, keys, label, sizeof label);
        line_add(l, "%s%s%s", l->len ? "; " : "", label[0] ? label : p->arch, ": ");
        if (!usable(p, r->metric)) {
            line_add(l, p->n_pending ? "no finished run yet (%d pending)" : "no finished run (%d stopped)",
                     p->n_pending ? p->n_pending : p->n_runs);
            continue;
        }
        const SeedStats *s = &p->stat[r->metric];
        stat_add(l, s, r->metric);
        PointTest *pt = &t[n];
        test_bound(s, r->param, r->sign, pt);
        if (!pt->untestable) {
            Contrast m = contrast_diff(s, NULL);
            double lo = contrast_lower(&m, hold_level), hi = contrast_upper(&m, hold_level);
            interval_add(l, &m, hold_level, number_format(r->metric));
            snprintf(pt->why, sizeof pt->why, "the interval [%.4g, %.4g] of %.100s holds %g", lo, hi,
                     label[0] ? label : p->arch, r->param);
        }
        note_seeds(c, p);
        tested[n++] = p;
    }
    if (k)
        line_add(l, " (wanted %s %g%s)", r->sign > 0 ? ">=" : "<=", r->param,
                 some ? ", at some point: Bonferroni over the points" : " at every point");
    Verdict v = some ? decide_some(t, n, k, alpha, c) : decide_points(t, n, alpha, c);
    PointTest open[CLAIM_MAX_TESTS];
    int n_open = 0;
    for (int i = 0; v == VERDICT_UNDECIDED && i < n; i++) {
        int undecided = some ? (t[i].untestable || (!(t[i].p_hold < hold_level) && !(t[i].p_fail < alpha)))
                             : undecided_here(&t[i], alpha);
        if (!undecided) continue;
        note_point(c, 1, tested[i]);   /* more seeds decide it */
        open[n_open++] = t[i];
    }
    if (v == VERDICT_UNDECIDED) need_seeds_at(open, n_open, hold_level, hold_level / alpha, c);
    if (waiting && v != VERDICT_FAILS && !(some && v == VERDICT_HOLDS)) return VERDICT_NOT_RUN;
    return v;
}

/* R_MIN_D: the d values of the sweep's points, in order, are its grid (at
   most MIN_D_MAX_D); a series is the points of one side that agree on
   every coordinate but d.  Each point of the series the claim compares is
   tested against the bound at alpha / N, N the points of those series
   (Bonferroni), so that with probability 1 - alpha every such decision is
   right at once; a series' smallest clearing d then lies in [lo, hi]: lo
   the first grid index not decided below the bound, hi the first decided
   to clear it (MIN_D_OPEN: it may clear none).  Index m (the grid's size)
   is "none": the bound is cleared at no d of the grid, so the smallest
   clearing d is somewhere past it.  A comparison holds when its relation
   holds for every value in the intervals, does not hold when it holds for
   none, and is undecided otherwise. */
enum { MIN_D_MAX_D = 8, MIN_D_MAX_SERIES = 48, MIN_D_OPEN = 1 << 20 };

typedef struct {
    const Point *at[MIN_D_MAX_D];   /* the point at each grid d; NULL: none */
    int dec[MIN_D_MAX_D];           /* +1 clears the bound, -1 decided not to, 0 undecided or unfinished */
    PointTest t[MIN_D_MAX_D];
    int lo, hi;
    int used;                       /* compared by some pair */
} DSeries;

typedef struct {
    int m;                          /* the grid's size */
    int d[MIN_D_MAX_D];
    int n;
    DSeries s[MIN_D_MAX_SERIES];
    int side[MIN_D_MAX_SERIES];     /* 0 a, 1 b, 2 to */
} DGrid;

static int point_d(const Point *p)
{
    const char *v = coord_value(p->coords, p->n_coords, "d");
    return v ? atoi(v) : -1;
}

/* The same series: the same arch and task, and every coordinate but d equal. */
static int same_series(const Point *p, const Point *q)
{
    if (strcmp(p->arch, q->arch) || strcmp(p->task, q->task) || p->n_coords != q->n_coords) return 0;
    for (int k = 0; k < p->n_coords; k++) {
        if (!strcmp(p->coords[k].key, "d")) continue;
        const char *v = coord_value(q->coords, q->n_coords, p->coords[k].key);
        if (!v || strcmp(v, p->coords[k].value)) return 0;
    }
    return 1;
}

static void grid_of(const Point *pts, int np, DGrid *g)
{
    memset(g, 0, sizeof *g);
    for (int i = 0; i < np; i++) {
        int d = point_d(&pts[i]), k = 0;
        if (d < 0) continue;
        while (k < g->m && g->d[k] < d) k++;
        if ((k < g->m && g->d[k] == d) || g->m == MIN_D_MAX_D) continue;
        memmove(&g->d[k + 1], &g->d[k], (size_t)(g->m - k) * sizeof g->d[0]);
        g->d[k] = d;
        g->m++;
    }
}

static const Point *series_point(const DSeries *s, int m)
{
    for (int k = 0; k < m; k++)
        if (s->at[k]) return s->at[k];
    return NULL;
}

/* The points of side (0 a: those a picks that neither b nor to picks, so
   that a series is never compared with itself; 1 b; 2 to) into series of
   g. */
static void series_of(const ClaimRule *r, const Point *pts, int np, int side, DGrid *g)
{
    const char *sel = side == 0 ? r->a : side == 1 ? r->b : r->to;
    for (int i = 0; i < np; i++) {
        const Point *p = &pts[i];
        int d = point_d(p), k = 0;
        if (d < 0 || !point_select(p, sel)) continue;
        if (side == 0 && (point_select(p, r->b) || (r->to && point_select(p, r->to)))) continue;
        while (k < g->m && g->d[k] != d) k++;
        if (k == g->m) continue;
        int s = 0;
        while (s < g->n && !(g->side[s] == side && same_series(series_point(&g->s[s], g->m), p))) s++;
        if (s == g->n) {
            if (g->n == MIN_D_MAX_SERIES) continue;
            g->side[g->n++] = side;
        }
        g->s[s].at[k] = p;
    }
}

/* The series of side agreeing with point p on pair_on; -1 when none. */
static int series_partner(const ClaimRule *r, const DGrid *g, int side, const Point *p)
{
    for (int s = 0; s < g->n; s++) {
        const Point *q = series_point(&g->s[s], g->m);
        if (g->side[s] == side && q != p && coords_agree(p->coords, p->n_coords, q->coords, q->n_coords, r->pair_on))
            return s;
    }
    return -1;
}

/* Each point of s tested against the bound at level, and s's interval. */
static void series_decide(const ClaimRule *r, DSeries *s, int m, double level)
{
    s->lo = s->hi = -1;
    for (int k = 0; k < m; k++) {
        const Point *p = s->at[k];
        s->dec[k] = 0;
        if (p && usable(p, r->metric)) {
            test_bound(&p->stat[r->metric], r->param, r->sign, &s->t[k]);
            if (!s->t[k].untestable) s->dec[k] = s->t[k].p_hold < level ? +1 : s->t[k].p_fail < level ? -1 : 0;
        } else {
            memset(&s->t[k], 0, sizeof s->t[k]);
            s->t[k].untestable = 1;
        }
        if (s->lo < 0 && s->dec[k] != -1) s->lo = k;
        if (s->hi < 0 && s->dec[k] == +1) s->hi = k;
    }
    if (s->lo < 0) s->lo = m;
    if (s->hi < 0) s->hi = MIN_D_OPEN;
}

static int min_d_relation(MinDCompare c, int a, int b, int y)
{
    switch (c) {
    case MIN_D_LARGER: return a > b;
    case MIN_D_NO_SMALLER: return a >= b;
    case MIN_D_SMALLER: return a < b;
    case MIN_D_NO_LARGER: return a <= b;
    case MIN_D_CLOSER: return abs(a - y) < abs(b - y);
    case MIN_D_COMPARE_COUNT: break;
    }
    return 0;
}

/* +1 when the relation holds for every value of the intervals (an open
   end, "none of the grid", stands for every index past it: enough of them
   to take each order), -1 when for none, 0 otherwise. */
static int relation_over(MinDCompare c, const DSeries *a, const DSeries *b, const DSeries *to, int m)
{
    int cap = 2 * m + 4, yes = 0, no = 0;
    int y_lo = to ? to->lo : 0, y_hi = to ? MB_MIN(to->hi, cap) : 0;
    for (int xa = a->lo; xa <= MB_MIN(a->hi, cap); xa++)
        for (int xb = b->lo; xb <= MB_MIN(b->hi, cap); xb++)
            for (int y = y_lo; y <= y_hi; y++) min_d_relation(c, xa, xb, y) ? yes++ : no++;
    return no == 0 ? +1 : yes == 0 ? -1 : 0;
}

/* "smallest d 64", "smallest d in [32, 64]", "smallest d in [64, none]",
   "smallest d: none of 32..128" */
static void interval_words(const DGrid *g, const DSeries *s, char *out, size_t cap)
{
    if (s->lo >= g->m) snprintf(out, cap, "smallest d: none of %d..%d", g->d[0], g->d[g->m - 1]);
    else if (s->hi == s->lo) snprintf(out, cap, "smallest d %d", g->d[s->lo]);
    else if (s->hi >= g->m) snprintf(out, cap, "smallest d in [%d, none]", g->d[s->lo]);
    else snprintf(out, cap, "smallest d in [%d, %d]", g->d[s->lo], g->d[s->hi]);
}

/* "hyena: d=32 0.412 +- 0.020 (3) no, 64 0.951 +- 0.010 (3) ?, 128 1.000 +- 0.000 (3) yes: smallest d 128" */
static void series_add(Line *l, const ClaimRule *r, const DGrid *g, const DSeries *s)
{
    const Point *p = series_point(s, g->m);
    line_add(l, "%s: ", p->arch);
    for (int k = 0; k < g->m; k++) {
        line_add(l, "%s%d ", k ? ", " : "d=", g->d[k]);
        if (!s->at[k]) line_add(l, "-");
        else if (!usable(s->at[k], r->metric)) line_add(l, "(no finished run)");
        else {
            stat_add(l, &s->at[k]->stat[r->metric], r->metric);
            line_add(l, " %s", s->dec[k] > 0 ? "yes" : s->dec[k] < 0 ? "no" : "?");
        }
    }
    char words[96];
    interval_words(g, s, words, sizeof words);
    line_add(l, ": %s", words);
}

/* One comparison of R_MIN_D: a's series against b's (and to's): +1 holds,
   -1 does not hold, 0 undecided; *budget when it awaits training (the
   reference clears the bound at no d, or unequal budgets), with why. */
static int min_d_pair(const ClaimRule *r, const DGrid *g, const DSeries *a, const DSeries *b, const DSeries *to,
                      int *budget, char *why, size_t cap, ClaimResult *c)
{
    const DSeries *ref = to ? to : b, *all[3] = {a, b, to};
    int rel = relation_over(r->compare, a, b, to, g->m);
    double most = 0;
    *budget = 0;
    for (int i = 0; i < 3 && all[i]; i++)
        for (int k = 0; k < g->m; k++)
            if (all[i]->at[k] && usable(all[i]->at[k], r->metric)) most = fmax(most, point_tokens(all[i]->at[k]));
    for (int i = 0; i < 3 && all[i]; i++)
        for (int k = 0; k < g->m; k++)
            if (all[i]->at[k] && usable(all[i]->at[k], r->metric) && shorter(point_tokens(all[i]->at[k]), most)) {
                if (!*budget) snprintf(why, cap, "unequal budgets");
                *budget = 1;
                note_point(c, 0, all[i]->at[k]);
            }
    if (!*budget && rel >= 0 && ref->lo >= g->m) {
        /* the reference solves nothing: the budget is too small to tell */
        snprintf(why, cap, "not learned: %s clears %g at no d", series_point(ref, g->m)->arch, r->param);
        *budget = 1;
        for (int i = 0; i < 3 && all[i]; i++)
            for (int k = 0; k < g->m; k++)
                if (all[i]->at[k]) note_point(c, 0, all[i]->at[k]);
    }
    if (rel < 0) *budget = 0;
    if (rel || *budget) return rel;
    for (int i = 0; i < 3 && all[i]; i++)
        if (all[i]->lo != all[i]->hi) {
            char words[96];
            interval_words(g, all[i], words, sizeof words);
            snprintf(why, cap, "%s's %s", series_point(all[i], g->m)->arch, words);
            break;
        }
    return 0;
}

static Verdict judge_min_d(const ClaimRule *r, const Point *pts, int np, double alpha, Line *l, ClaimResult *c)
{
    DGrid *g = calloc(1, sizeof *g);
    if (!g) return VERDICT_NOT_RUN;
    grid_of(pts, np, g);
    for (int side = 0; side < (r->to ? 3 : 2); side++) series_of(r, pts, np, side, g);
    /* the comparisons: each series of a with the series of b (and to) on its pair_on */
    int pair[MIN_D_MAX_SERIES][3], n = 0, points = 0, waiting = 0;
    for (int s = 0; s < g->n; s++) {
        if (g->side[s] != 0) continue;
        const Point *p = series_point(&g->s[s], g->m);
        int b = series_partner(r, g, 1, p), t = r->to ? series_partner(r, g, 2, p) : -1;
        if (b < 0 || (r->to && t < 0)) continue;
        pair[n][0] = s, pair[n][1] = b, pair[n][2] = t;
        g->s[s].used = g->s[b].used = 1;
        if (t >= 0) g->s[t].used = 1;
        n++;
    }
    for (int s = 0; s < g->n; s++)
        for (int k = 0; g->s[s].used && k < g->m; k++)
            if (g->s[s].at[k]) {
                points++;
                waiting |= !usable(g->s[s].at[k], r->metric);
                if (usable(g->s[s].at[k], r->metric)) note_seeds(c, g->s[s].at[k]);
            }
    /* Bonferroni over the points compared: every interval right at once */
    double level = alpha / (points ? points : 1);
    for (int s = 0; s < g->n; s++)
        if (g->s[s].used) series_decide(r, &g->s[s], g->m, level);
    int fails = 0, budget = 0, undecided = 0;
    char why_budget[200] = "", why[200] = "";
    PointTest open[CLAIM_MAX_TESTS];
    int n_open = 0;
    for (int i = 0; i < n; i++) {
        const DSeries *a = &g->s[pair[i][0]], *b = &g->s[pair[i][1]], *to = pair[i][2] >= 0 ? &g->s[pair[i][2]] : NULL;
        char label[128], here[200] = "";
        int is_budget;
        recall_point_label(series_point(a, g->m), r->pair_on, label, sizeof label);
        line_add(l, "%s%s%s", l->len ? "; " : "", label, label[0] ? ": " : "");
        series_add(l, r, g, a);
        line_add(l, " vs ");
        series_add(l, r, g, b);
        if (to) {
            line_add(l, ", to ");
            series_add(l, r, g, to);
        }
        int rel = min_d_pair(r, g, a, b, to, &is_budget, here, sizeof here, c);
        line_add(l, " [%s]", rel > 0 ? "holds" : rel < 0 ? "does not hold" : is_budget ? here : "undecided");
        if (rel < 0) fails++;
        else if (is_budget && !budget++) snprintf(why_budget, sizeof why_budget, "%s", here);
        else if (!rel && !is_budget && !undecided++) snprintf(why, sizeof why, "%s at %s", here, label);
        if (rel || is_budget) continue;
        /* the points below the first that clears it, undecided: more seeds narrow it */
        const DSeries *all[3] = {a, b, to};
        for (int j = 0; j < 3 && all[j]; j++)
            for (int k = 0; k < MB_MIN(all[j]->hi, g->m); k++)
                if (all[j]->at[k] && !all[j]->dec[k] && usable(all[j]->at[k], r->metric)) {
                    note_point(c, 1, all[j]->at[k]);
                    if (n_open < CLAIM_MAX_TESTS) open[n_open++] = all[j]->t[k];
                }
    }
    if (n)
        line_add(l, " (%s %g: each point's one-sided test at alpha / %d, Bonferroni over the points compared)",
                 r->sign > 0 ? ">=" : "<=", r->param, points);
    free(g);
    Verdict v = n == 0 ? VERDICT_NOT_RUN : fails ? VERDICT_FAILS : budget ? VERDICT_UNDECIDED_BUDGET
                       : undecided ? VERDICT_UNDECIDED : VERDICT_HOLDS;
    if (v == VERDICT_UNDECIDED_BUDGET) snprintf(c->reason, sizeof c->reason, "%s", why_budget);
    if (v == VERDICT_UNDECIDED) {
        snprintf(c->reason, sizeof c->reason, "%s", why);
        need_seeds_at(open, n_open, level, level / alpha, c);
    }
    if (waiting && (v == VERDICT_UNDECIDED || v == VERDICT_UNDECIDED_BUDGET)) return VERDICT_NOT_RUN;
    return v;
}

/* ---- R_OVERTAKES: where a overtakes b along one key ---------------------- */

/* 1 when q is on p's line along key: the same architecture and task, and
   every coordinate but key the same. */
static int same_line(const Point *p, const Point *q, const char *key)
{
    if (strcmp(p->arch, q->arch) || strcmp(p->task, q->task) || p->n_coords != q->n_coords) return 0;
    for (int k = 0; k < p->n_coords; k++) {
        if (!strcmp(p->coords[k].key, key)) continue;
        const char *v = coord_value(q->coords, q->n_coords, p->coords[k].key);
        if (!v || strcmp(v, p->coords[k].value)) return 0;
    }
    return 1;
}

/* The value of key at p as a number (NAN when it is not one). */
static double key_number(const Point *p, const char *key)
{
    const char *v = coord_value(p->coords, p->n_coords, key);
    char *end;
    double x = v ? strtod(v, &end) : NAN;
    return v && end != v && !*end ? x : NAN;
}

/* One line of a (its points along the key, shortest first): a over its
   partner of b at each value, tested from the longest down in a fixed
   sequence (each at alpha: the family-wise error stays alpha), the first
   value not above ending it.  The smallest value reached is where a has
   overtaken b: above there and at every longer value.  Into t the line's
   test: held, or why not (below b at the longest: it does not overtake
   within these values, which more seeds do not change; else the longest
   pair's interval holds 1, which more seeds narrow). */
static void overtakes_line(const ClaimRule *r, const Point *const *line, int k, const Point *const *other,
                           double alpha, PointTest *t, Line *l, ClaimResult *c)
{
    const char *key = r->pair_on;
    double p_above[CLAIM_MAX_POINTS], p_below[CLAIM_MAX_POINTS], df = 0;
    int testable[CLAIM_MAX_POINTS], not_learned = 0;
    char text[2048];
    Line body = {text, 0, (int)sizeof text};
    text[0] = 0;
    for (int i = 0; i < k; i++) {
        const SeedStats *sa = &line[i]->stat[r->metric], *sb = &other[i]->stat[r->metric];
        Contrast rc = contrast_ratio(sa, sb);
        testable[i] = contrast_testable(&rc);
        p_above[i] = testable[i] ? contrast_p_above(&rc, 1) : 1;
        p_below[i] = testable[i] ? contrast_p_below(&rc, 1) : 1;
        df = rc.df;
        line_add(&body, "%s%s=%s ", i ? ", " : "", key, coord_value(line[i]->coords, line[i]->n_coords, key));
        stat_add(&body, sa, r->metric);
        line_add(&body, " vs ");
        stat_add(&body, sb, r->metric);
        line_add(&body, ", ratio %.3f", sa->mean / sb->mean);
        if (testable[i]) interval_add(&body, &rc, alpha, "%.3f");
        note_seeds(c, line[i]);
        note_seeds(c, other[i]);
        if (point_metric_info(r->metric)->learned)
            not_learned += unlearned(line[i], r->metric) > 0 || unlearned(other[i], r->metric) > 0;
        if (c->n_pairs < CLAIM_MAX_POINTS) {
            point_selector(line[i], c->pair[c->n_pairs][0], CLAIM_SELECTOR_LEN);
            point_selector(other[i], c->pair[c->n_pairs][1], CLAIM_SELECTOR_LEN);
            c->n_pairs++;
        }
    }
    int from = k;   /* the first value of the run of values above it, to the longest */
    while (from > 0 && p_above[from - 1] < alpha) from--;
    const char *longest = coord_value(line[k - 1]->coords, line[k - 1]->n_coords, key);
    memset(t, 0, sizeof *t);
    t->p_hold = t->p_fail = 1;   /* not overtaking within the values measured refutes nothing */
    t->df = df;
    line_add(l, "%s%s: ", l->len ? "; " : "", line[0]->arch);
    if (from < k) {
        line_add(l, "overtakes by %s = %s", key, coord_value(line[from]->coords, line[from]->n_coords, key));
        t->p_hold = p_above[from];
    } else if (not_learned) {
        line_add(l, "not learned");
        t->budget = 1;
        snprintf(t->why, sizeof t->why, "not learned: %s or the points it is compared with", line[0]->arch);
        for (int i = 0; i < k; i++) note_point(c, 0, line[i]), note_point(c, 0, other[i]);
    } else if (!testable[k - 1]) {
        line_add(l, "one seed a side at %s = %s", key, longest);
        t->untestable = 1;
        snprintf(t->why, sizeof t->why, "one seed a side at %s = %s: no spread to test against", key, longest);
        note_point(c, 1, line[k - 1]), note_point(c, 1, other[k - 1]);
    } else if (p_below[k - 1] < alpha) {
        line_add(l, "below up to %s = %s", key, longest);
        t->settled = 1;
        snprintf(t->why, sizeof t->why, "%s stays below up to %s = %s, the longest measured: more seeds do not "
                 "change that", line[0]->arch, key, longest);
    } else {
        line_add(l, "within noise at %s = %s", key, longest);
        t->p_hold = p_above[k - 1];
        t->p_fail = p_below[k - 1];   /* both above alpha: what the seeds by power start from */
        snprintf(t->why, sizeof t->why, "%s: the ratio's interval at %s = %s holds 1", line[0]->arch, key, longest);
        note_point(c, 1, line[k - 1]), note_point(c, 1, other[k - 1]);
    }
    line_add(l, " (%s)", text);
}

/* R_OVERTAKES: a's points (those b does not select) fall into lines, one
   per architecture and value of the other coordinates, each ordered by
   the number its pair_on key holds; each line is judged by overtakes_line
   against the partners b has at the same values (a value without one is
   left out).  Holds when every line overtakes (intersection-union); never
   fails (a crossing past the longest value measured is not excluded):
   undecided otherwise, for budget where a line's points did not learn. */
static Verdict judge_overtakes(const ClaimRule *r, const Point *pts, int np, double alpha, Line *l, ClaimResult *c)
{
    PointTest t[CLAIM_MAX_TESTS];
    int n = 0;
    char *done = calloc((size_t)np + 1, 1);
    if (!done) return VERDICT_NOT_RUN;
    for (int i = 0; i < np && n < CLAIM_MAX_TESTS; i++) {
        if (done[i] || !usable(&pts[i], r->metric) || !point_select(&pts[i], r->a) || point_select(&pts[i], r->b))
            continue;
        const Point *line[CLAIM_MAX_POINTS], *other[CLAIM_MAX_POINTS];
        double at[CLAIM_MAX_POINTS];
        int k = 0;
        for (int j = i; j < np; j++) {
            const Point *q = &pts[j];
            if (done[j] || !usable(q, r->metric) || !point_select(q, r->a) || point_select(q, r->b) ||
                !same_line(&pts[i], q, r->pair_on))
                continue;
            done[j] = 1;
            const Point *b = partner(r, pts, np, q);
            double x = key_number(q, r->pair_on);
            if (!b || !isfinite(x) || k == CLAIM_MAX_POINTS) continue;
            int m = k++;   /* insertion by the key's value */
            while (m > 0 && at[m - 1] > x) line[m] = line[m - 1], other[m] = other[m - 1], at[m] = at[m - 1], m--;
            line[m] = q, other[m] = b, at[m] = x;
        }
        if (k) overtakes_line(r, line, k, other, alpha, &t[n++], l, c);
    }
    free(done);
    if (n == 0) return VERDICT_NOT_RUN;
    int held = 0, budget = -1, open = -1;
    for (int i = 0; i < n; i++) {
        if (t[i].budget && budget < 0) budget = i;
        else if (!t[i].budget && !(t[i].p_hold < alpha) && open < 0) open = i;
        held += !t[i].budget && t[i].p_hold < alpha;
    }
    if (held == n) return VERDICT_HOLDS;
    snprintf(c->reason, sizeof c->reason, "%s", t[budget >= 0 ? budget : open].why);
    if (budget >= 0) return VERDICT_UNDECIDED_BUDGET;
    /* seeds by power for the lines more seeds may decide, not for one settled below */
    PointTest noisy[CLAIM_MAX_TESTS];
    int n_noisy = 0;
    for (int i = 0; i < n; i++)
        if (!t[i].settled && !(t[i].p_hold < alpha)) noisy[n_noisy++] = t[i];
    if (n_noisy) need_seeds(noisy, n_noisy, alpha, c);
    return VERDICT_UNDECIDED;
}

static void judge_rule(const ClaimRule *r, const Point *pts, int np, double alpha, ClaimResult *out)
{
    Line l = {out->numbers, 0, (int)sizeof out->numbers};
    out->numbers[0] = 0;
    out->alpha = alpha;
    switch (r->kind) {
    case R_FLAT: out->verdict = judge_flat(r, pts, np, alpha, &l, out); break;
    case R_OVERTAKES: out->verdict = judge_overtakes(r, pts, np, alpha, &l, out); break;
    case R_BELOW_UNIGRAM:
    case R_NEAR_UNIGRAM: out->verdict = judge_unigram(r, pts, np, alpha, &l, out); break;
    case R_THRESHOLD: out->verdict = judge_threshold(r, pts, np, alpha, &l, out); break;
    case R_MIN_D: out->verdict = judge_min_d(r, pts, np, alpha, &l, out); break;
    default: out->verdict = judge_pairs(r, pts, np, alpha, &l, out); break;
    }
    if (out->verdict != VERDICT_NOT_RUN) copying_add(&l, r, pts, np);
    /* what would decide a claim its budget leaves undecided */
    size_t len = strlen(out->reason);
    if (out->verdict == VERDICT_UNDECIDED_BUDGET && !strncmp(out->reason, "not learned", 11))
        snprintf(out->reason + len, sizeof out->reason - len, "; a budget where both learn");
    else if (out->verdict == VERDICT_UNDECIDED_BUDGET && !strncmp(out->reason, "unequal budgets", 15))
        snprintf(out->reason + len, sizeof out->reason - len, "; the shorter trained as long");
    if (out->verdict == VERDICT_NOT_RUN && !out->numbers[0])
        snprintf(out->numbers, sizeof out->numbers, "no finished runs with %s at the points it compares",
                 point_metric_name(r->metric));
}

/* A comparison, decided only where every point it compares learned; not a
   claim about the unigram level itself or about speed. */
static int rule_gated(const ClaimRule *r)
{
    return r->kind != R_BELOW_UNIGRAM && r->kind != R_NEAR_UNIGRAM && r->kind != R_THRESHOLD && r->kind != R_MIN_D &&
           point_metric_info(r->metric)->learned;
}

/* Sets c's look (0: one look) and returns the level it is judged at. */
static double look_level(ClaimResult *c, double alpha, int look, int looks)
{
    c->sweep_alpha = alpha;
    c->look = looks > 0 ? (look < 1 ? 1 : look) : 0;
    c->looks = looks > 0 ? looks : 0;
    return looks > 0 ? alpha_at_look(alpha, c->look, looks) : alpha;
}

int claims_judge_points(int i, const Point *pts, int np, double alpha, int look, int looks, ClaimResult *out)
{
    if (i < 0 || i >= study_rule_count()) return -1;
    memset(out, 0, sizeof *out);
    out->preset = study_rule_at(i)->preset;
    out->claim = study_rule_at(i)->claim;
    out->former = study_rule_at(i)->former;
    out->rules_before = rules_before(study_rule_at(i)->kind);
    out->gated = rule_gated(study_rule_at(i));
    judge_rule(study_rule_at(i), pts, np, look_level(out, alpha, look, looks), out);
    return 0;
}

int claim_find(const char *preset, const char *fragment)
{
    for (int i = 0; i < study_rule_count(); i++)
        if (!strcmp(study_rule_at(i)->preset, preset) && strstr(study_rule_at(i)->claim, fragment)) return i;
    return -1;
}

/* The level sweep_id's verdicts are taken at: its plan's alpha, and with
   --until-conclusive its round as the look (*looks 0: one look). */
static int sweep_alpha(Store *s, long long sweep_id, double *alpha, int *look, int *looks, char *err)
{
    SweepPlanRow row;
    SweepPlan plan;
    int found = 0;
    *alpha = STATS_ALPHA;
    *look = *looks = 0;
    if (store_sweep_plan(s, sweep_id, &row, &found, err)) return -1;
    if (!found || !row.plan_json[0]) return 0;
    if (sweep_plan_parse(row.plan_json, &plan, err)) return -1;
    *alpha = plan.alpha;
    if (plan.until_conclusive) *look = row.round, *looks = STATS_MAX_LOOKS;
    return 0;
}

int claims_judge(Store *s, const char *preset, long long sweep_id, ClaimResult **out, int *n, char *err)
{
    assert(s && err);
    *out = NULL;
    *n = 0;
    if (studies_from_store(s, err)) return -1;
    int n_rules = study_rule_count();   /* a study registered meanwhile is not judged here */
    ClaimResult *res = calloc(n_rules ? (size_t)n_rules : 1, sizeof *res);
    if (!res) return err_set(err, "claims: out of memory");
    int count = 0;
    for (int i = 0; i < n_rules; i++) {
        const ClaimRule *r = study_rule_at(i);
        if (preset && strcmp(preset, r->preset)) continue;
        ClaimResult *c = &res[count++];
        c->preset = r->preset;
        c->claim = r->claim;
        c->former = r->former;
        c->rules_before = rules_before(r->kind);
        c->verdict = VERDICT_NOT_RUN;
        c->gated = rule_gated(r);
        SweepRow sw;
        int found = 0;
        int rc = sweep_id > 0 ? results_sweep(s, sweep_id, &sw, &found, err)
                              : results_newest_sweep(s, r->preset, &sw, &found, err);
        if (rc) {
            free(res);
            return -1;
        }
        if (!found || strcmp(sw.preset, r->preset)) {
            snprintf(c->numbers, sizeof c->numbers, "no sweep of %s in the store", r->preset);
            continue;
        }
        c->sweep_id = sw.id;
        ResultRun *runs;
        int n_runs;
        /* every run: a point without a finished one is still seen (waiting) */
        if (results_sweep_runs(s, sw.id, 0, &runs, &n_runs, err)) {
            free(res);
            return -1;
        }
        Point *pts;
        int np;
        if (points_group(runs, n_runs, &pts, &np, NULL)) {
            free(runs);
            free(res);
            return err_set(err, "claims: out of memory");
        }
        double alpha;
        int look, looks;
        if (sweep_alpha(s, sw.id, &alpha, &look, &looks, err)) {
            free(pts);
            free(runs);
            free(res);
            return -1;
        }
        judge_rule(r, pts, np, look_level(c, alpha, look, looks), c);
        free(pts);
        free(runs);
    }
    *out = res;
    *n = count;
    return 0;
}
