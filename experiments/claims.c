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
   side for STATS_POWER at the next look's level, from the statistic of the
   decision it is nearer (its smaller p-value) at the spread measured; a
   test with no spread yet needs a second seed a side, the presets' 3.  The
   most over the tests goes to c->seeds_needed and the reason. */
static void need_seeds(const PointTest *t, int n, double alpha, ClaimResult *c)
{
    double next = c->looks ? alpha_at_look(c->sweep_alpha, c->look + 1, c->looks) : alpha;
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
    double tokens = p->stat[PM_TOKENS].max;
    if (isfinite(tokens) && tokens > c->max_tokens) c->max_tokens = tokens;
}

/* Training tokens per run of p: its shortest finished run. */
static double point_tokens(const Point *p)
{
    return p->stat[PM_TOKENS].min;
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
    return r->kind != R_BELOW_UNIGRAM && r->kind != R_NEAR_UNIGRAM && point_metric_info(r->metric)->learned;
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
