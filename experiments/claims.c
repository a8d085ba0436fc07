/*
 * claims.c — the seed papers' claims as one table of rules (claims.h), and
 * the judging of each from a sweep's finished runs grouped over seeds
 * (points.h).
 *
 * A rule compares points picked by selectors ("arch=mixer d=128"), paired
 * on the keys in `pair_on` ("data layers heads": one comparison per
 * (corpus, L, h)).  For a difference, with means a, b and standard errors
 * over seeds se_a, se_b: se = sqrt(se_a^2 + se_b^2), and |a - b| < t se is
 * "within noise", t the 95% quantile of Student's t at the Welch degrees of
 * freedom (stats.h noise_margin: 2.78 to 4.30 with 3 seeds a side; 2 se, the normal
 * approximation, would call a difference of 2.1 se with 3 seeds a finding
 * that a t-test at 5% does not); one seed has se 0: then the direction
 * decides.  A
 * comparison of losses where either point has a run that did not learn
 * enough to judge (points.h result_learned: its best valid loss not 0.3 nat
 * below the unigram entropy; for loss_all, its valid loss_all not below 2 p
 * H, shared/papers/README.md) is "inconclusive": the budget did not reach
 * what the claim is about (the samples/s rules, which do not depend on
 * training, and the rules about the unigram level itself are exempt).  So
 * is one whose points trained on unequal numbers of tokens (more than
 * TOKENS_EQUAL apart): a model that had more data is not compared with one
 * that had less.  Several comparisons combine as:
 * any "does not hold" -> does not hold; else any "inconclusive" ->
 * inconclusive; else any "within noise" -> within noise; else holds.  A
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

#include "db/results.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "experiments/points.h"
#include "experiments/sweep.h"

/* Budgets this close are equal: a budget in tokens rounds up to whole
   steps of batch x n_ctx, which differ between shapes. */
#define TOKENS_EQUAL 0.05

typedef enum {
    R_LOWER,            /* a below b in every pair */
    R_HIGHER,           /* a above b in every pair */
    R_MATCH,            /* a within noise of b, or |a/b - 1| <= param, in every pair */
    R_RATIO_AT_LEAST,   /* a/b >= the paper's ratio of the same two points */
    R_SLIGHTLY_HIGHER,  /* a above b, a/b <= 1 + param */
    R_FLAT,             /* the points of a, per value of pair_on: range within noise or <= param x mean */
    R_BELOW_UNIGRAM,    /* every point of a more than param nats below its data's unigram entropy;
                           with b (the baseline of the same sweep): a point that fails while b
                           does not learn either is inconclusive (the budget, not a) */
    R_NEAR_UNIGRAM,     /* every point of a less than param nats below its data's unigram entropy */
    R_SAME_STANDING,    /* a - b has the same sign in every pair */
} RuleKind;

typedef struct {
    const char *preset;
    const char *claim;
    RuleKind kind;
    PointMetric metric;
    const char *a, *b;       /* selectors (b unused by single-point rules) */
    const char *pair_on;     /* keys a pair agrees on */
    double param;
    const char *setting_a, *setting_b;  /* the paper's settings of a's and b's figures, for its ratio */
} ClaimRule;

/* One rule per claim of shared/papers/README.md (the settings' relations
   and the claims without numbers).  PairConnect presets compare the
   all-positions loss, the paper's convention (SPEC section 3). */
static const ClaimRule RULES[] = {
    {"pairconnect-grid", "PairConnect matches the Transformer at every (L, h): test loss_all within noise", R_MATCH,
     PM_TEST_LOSS_ALL, "arch=pairconnect", "arch=attention", "data layers heads", 0, "S1", "S1"},
    {"pairconnect-grid", "both improve with L and h: test loss_all at (L=6, h=4) below (L=1, h=1), per architecture and corpus",
     R_LOWER, PM_TEST_LOSS_ALL, "layers=6 heads=4", "layers=1 heads=1", "data arch", 0, "S1", "S1"},
    {"pairconnect-hash", "test loss_all nearly flat in K from 100 to 10000 (range within noise or at most 7% of the mean, "
     "the paper's own WikiText-2 spread)",
     R_FLAT, PM_TEST_LOSS_ALL, "arch=pairconnect", NULL, "data", 0.07, NULL, NULL},
    {"pairconnect-speed", "PairConnect at K=1000 infers at least the paper's ratio (K=1000 over the Transformer) times "
     "attention's samples/s, measured in the same sweep",
     R_RATIO_AT_LEAST, PM_SAMPLES_PER_S, "arch=pairconnect hash_size=1000", "arch=attention", "", 0, "S2", "S2"},
    {"pairconnect-speed", "speed falls as K grows: K=100 faster than K=10000 (samples/s)", R_HIGHER, PM_SAMPLES_PER_S,
     "arch=pairconnect hash_size=100", "arch=pairconnect hash_size=10000", "", 0, "S2", "S2"},
    {"autoencoder", "the mixer autoencoder's test loss is below attention's at equal d and L (S3, S4)", R_LOWER,
     PM_TEST_LOSS, "arch=mixer d=128", "arch=attention d=128", "", 0, "S3", "S3"},
    {"autoencoder", "lower still at equal memory: the mixer at attention's memory (d=160) below the mixer at d=128 (S5 vs S4)",
     R_LOWER, PM_TEST_LOSS, "arch=mixer d=160", "arch=mixer d=128", "", 0, "S5", "S4"},
    {"mixer-vs-transformer", "the Transformer is the better causal model at n=512 (S6)", R_LOWER, PM_TEST_LOSS,
     "arch=attention n_ctx=512", "arch=mixer n_ctx=512", "", 0, "S6", "S6"},
    {"mixer-vs-transformer", "the mixer is the better causal model at n=32 and n=128", R_LOWER, PM_TEST_LOSS,
     "arch=mixer n_ctx=32|128", "arch=attention", "n_ctx", 0, NULL, NULL},
    {"bidirectional", "mixer vs Transformer standing is the same for bidirectional as for causal prediction "
     "(mixer minus attention test loss has one sign at task=bidir and task=clm)",
     R_SAME_STANDING, PM_TEST_LOSS, "arch=mixer", "arch=attention", "task", 0, NULL, NULL},
    {"completion", "mixer and Transformer complete about equally well (test loss within noise or within 5%)", R_MATCH,
     PM_TEST_LOSS, "arch=mixer", "arch=attention", "", 0.05, NULL, NULL},
    {"completion", "both train poorly: each ends less than 1 nat below its data's unigram entropy", R_NEAR_UNIGRAM,
     PM_TEST_LOSS, "", NULL, "", 1.0, NULL, NULL},
    {"linear-mixer", "the fully linear mixer trains: test loss more than 0.1 nat below the unigram entropy",
     R_BELOW_UNIGRAM, PM_TEST_LOSS, "arch=mixer act=none", NULL, "", 0.1, NULL, NULL},
    {"linear-mixer", "the linear mixer is only slightly worse than the nonlinear mixer (higher test loss, by at most 10%)",
     R_SLIGHTLY_HIGHER, PM_TEST_LOSS, "arch=mixer act=none", "arch=mixer act=gelu", "", 0.10, NULL, NULL},
    {"fft-mlm", "the FFT model trains as a masked language model: test loss more than 0.1 nat below the unigram entropy",
     R_BELOW_UNIGRAM, PM_TEST_LOSS, "arch=fft", "arch=attention", "", 0.1, NULL, NULL},
    {"prefix-models", "the convolution model is worse than attention in test perplexity (the paper: about 11%, S7)",
     R_HIGHER, PM_TEST_PERPLEXITY, "arch=conv", "arch=attention", "", 0, "S7", "S7"},
    {"dispatcher-vs-msa", "the Dispatcher's test perplexity is close to masked self-attention's (within noise or within 10%)",
     R_MATCH, PM_TEST_PERPLEXITY, "arch=dispatcher", "arch=attention", "", 0.10, NULL, NULL},
};

#define N_RULES ((int)(sizeof RULES / sizeof RULES[0]))

const char *verdict_name(Verdict v)
{
    switch (v) {
    case VERDICT_HOLDS: return "holds";
    case VERDICT_FAILS: return "does not hold";
    case VERDICT_WITHIN_NOISE: return "within noise";
    case VERDICT_INCONCLUSIVE: return "inconclusive";
    case VERDICT_NOT_RUN: break;
    }
    return "not run";
}

int claim_count(void) { return N_RULES; }

const char *claim_preset(int i) { return i >= 0 && i < N_RULES ? RULES[i].preset : NULL; }

PointMetric claim_metric(int i) { return i >= 0 && i < N_RULES ? RULES[i].metric : PM_TEST_LOSS; }

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
    return m == PM_SAMPLES_PER_S || m == PM_TEST_PERPLEXITY ? "%.1f" : "%.3f";
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

/* Claim: a below b (sign -1) or above it (sign +1). */
static Verdict directed(const SeedStats *a, const SeedStats *b, int sign)
{
    double d = a->mean - b->mean;
    if (fabs(d) < noise_margin(a, b)) return VERDICT_WITHIN_NOISE;
    return d * sign > 0 ? VERDICT_HOLDS : VERDICT_FAILS;
}

static int within_noise(const SeedStats *a, const SeedStats *b)
{
    return fabs(a->mean - b->mean) < noise_margin(a, b);
}

static Verdict combine(Verdict so_far, Verdict next)
{
    if (so_far == VERDICT_NOT_RUN) return next;
    if (so_far == VERDICT_FAILS || next == VERDICT_FAILS) return VERDICT_FAILS;
    if (so_far == VERDICT_INCONCLUSIVE || next == VERDICT_INCONCLUSIVE) return VERDICT_INCONCLUSIVE;
    if (so_far == VERDICT_WITHIN_NOISE || next == VERDICT_WITHIN_NOISE) return VERDICT_WITHIN_NOISE;
    return VERDICT_HOLDS;
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

static Verdict judge_pairs(const ClaimRule *r, const Point *pts, int np, Line *l, ClaimResult *c)
{
    Verdict v = VERDICT_NOT_RUN;
    int sign_seen = 0;
    for (int i = 0; i < np; i++) {
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
        Verdict pv;
        switch (r->kind) {
        case R_LOWER: pv = directed(sa, sb, -1); break;
        case R_HIGHER: pv = directed(sa, sb, +1); break;
        case R_MATCH:
            pv = within_noise(sa, sb) || fabs(ratio - 1) <= r->param ? VERDICT_HOLDS : VERDICT_FAILS;
            break;
        case R_SLIGHTLY_HIGHER:
            pv = directed(sa, sb, +1);
            if (pv == VERDICT_HOLDS && ratio > 1 + r->param) pv = VERDICT_FAILS;
            break;
        case R_RATIO_AT_LEAST: {
            double want = paper_value(r->preset, r->a, r->metric, r->setting_a) /
                          paper_value(r->preset, r->b, r->metric, r->setting_b);
            /* se of a ratio of independent means (first order) */
            double se = fabs(ratio) * sqrt(pow(sa->se / sa->mean, 2) + pow(sb->se / sb->mean, 2));
            if (!isfinite(want)) pv = VERDICT_NOT_RUN;
            /* the ratio's margin: the Welch t of its two means, times its se */
            else if (fabs(ratio - want) < (se > 0 ? noise_margin(sa, sb) / sqrt(sa->se * sa->se + sb->se * sb->se) * se
                                                  : 0))
                pv = VERDICT_WITHIN_NOISE;
            else pv = ratio >= want ? VERDICT_HOLDS : VERDICT_FAILS;
            line_add(l, ", ratio %.3f +- %.3f, wanted >= %.3f", ratio, se, want);
            break;
        }
        case R_SAME_STANDING: {
            /* the sign of a - b, 0 within noise; all must agree */
            int sign = within_noise(sa, sb) ? 0 : sa->mean > sb->mean ? 1 : -1;
            if (sign == 0) pv = VERDICT_WITHIN_NOISE;
            else if (sign_seen && sign != sign_seen) pv = VERDICT_FAILS;
            else pv = VERDICT_HOLDS;
            if (sign) sign_seen = sign;
            break;
        }
        default: pv = VERDICT_NOT_RUN; break;
        }
        note_seeds(c, a);
        note_seeds(c, b);
        int trained = r->metric != PM_SAMPLES_PER_S;   /* samples/s does not depend on training */
        int ua = trained && unlearned(a, r->metric);
        int ub = trained && unlearned(b, r->metric);
        double ta = point_tokens(a), tb = point_tokens(b);
        if (trained && (shorter(ta, tb) || shorter(tb, ta))) {
            /* one model had more data: the shorter one trains on first */
            pv = VERDICT_INCONCLUSIVE;
            line_add(l, " [unequal budgets: ");
            tokens_add(l, ta);
            line_add(l, " vs ");
            tokens_add(l, tb);
            line_add(l, " tokens per run]");
            note_point(c, 0, shorter(ta, tb) ? a : b);
        } else if (ua || ub) {
            /* both train on, so that they are compared at equal budgets again */
            pv = VERDICT_INCONCLUSIVE;
            line_add(l, " [not learned: %s]", ua && ub ? "both points" : ua ? a->arch : b->arch);
            note_point(c, 0, a);
            note_point(c, 0, b);
        } else if (pv == VERDICT_WITHIN_NOISE) {
            note_point(c, 1, a);
            note_point(c, 1, b);
        }
        if (r->kind != R_RATIO_AT_LEAST) {
            line_add(l, ", ratio %.3f", ratio);
            /* the paper's figures at the same two points, where it reports both */
            char sel_a[1024], sel_b[1024];
            point_selector(a, sel_a, sizeof sel_a);
            point_selector(b, sel_b, sizeof sel_b);
            double pa = paper_value(r->preset, sel_a, r->metric, r->setting_a);
            double pb = paper_value(r->preset, sel_b, r->metric, r->setting_b);
            if (isfinite(pa) && isfinite(pb)) line_add(l, "; paper %.4g vs %.4g, ratio %.3f", pa, pb, pa / pb);
        }
        v = combine(v, pv);
    }
    return v;
}

static Verdict judge_flat(const ClaimRule *r, const Point *pts, int np, Line *l, ClaimResult *c)
{
    Verdict v = VERDICT_NOT_RUN;
    char *done = calloc((size_t)np, 1);
    if (!done) return VERDICT_NOT_RUN;
    for (int i = 0; i < np; i++) {
        if (done[i] || !usable(&pts[i], r->metric) || !point_select(&pts[i], r->a)) continue;
        /* the group of points agreeing with point i on pair_on */
        const Point *lo = &pts[i], *hi = &pts[i];
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
            k++;
            if (q->stat[r->metric].mean < lo->stat[r->metric].mean) lo = q;
            if (q->stat[r->metric].mean > hi->stat[r->metric].mean) hi = q;
        }
        if (k < 2) continue;
        double mean = sum / k, range = hi->stat[r->metric].mean - lo->stat[r->metric].mean;
        label_pair(l, r, &pts[i]);
        line_add(l, "%d points, ", k);
        stat_add(l, &lo->stat[r->metric], r->metric);
        line_add(l, " to ");
        stat_add(l, &hi->stat[r->metric], r->metric);
        line_add(l, ", range %.1f%% of the mean", 100 * range / mean);
        masked_add(l, r, lo, hi);
        int flat = within_noise(lo->stat + r->metric, hi->stat + r->metric) || range <= r->param * fabs(mean);
        if (n_short) {
            line_add(l, " [unequal budgets: %d of the points below ", n_short);
            tokens_add(l, most);
            line_add(l, " tokens per run]");
        } else if (not_learning) {
            line_add(l, " [not learned: %d of the points]", not_learning);
        }
        /* the group trains on at equal budgets: the shorter points, or all */
        for (int j = i; j < np && (n_short || not_learning); j++) {
            const Point *q = &pts[j];
            if (usable(q, r->metric) && point_select(q, r->a) &&
                coords_agree(pts[i].coords, pts[i].n_coords, q->coords, q->n_coords, r->pair_on) &&
                (!n_short || shorter(point_tokens(q), most)))
                note_point(c, 0, q);
        }
        v = combine(v, n_short || not_learning ? VERDICT_INCONCLUSIVE : flat ? VERDICT_HOLDS : VERDICT_FAILS);
    }
    free(done);
    return v;
}

/* R_BELOW_UNIGRAM / R_NEAR_UNIGRAM speak of every point the selector
   picks: one without a finished run leaves the claim undecided (not run),
   unless another point already fails it. */
static Verdict judge_unigram(const ClaimRule *r, const Point *pts, int np, Line *l, ClaimResult *c)
{
    Verdict v = VERDICT_NOT_RUN;
    int waiting = 0;
    for (int i = 0; i < np; i++) {
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
        Verdict pv;
        if (fabs(gap - r->param) < noise_margin(s, NULL)) pv = VERDICT_WITHIN_NOISE;
        else if (r->kind == R_BELOW_UNIGRAM) pv = gap > r->param ? VERDICT_HOLDS : VERDICT_FAILS;
        else pv = gap < r->param ? VERDICT_HOLDS : VERDICT_FAILS;
        note_seeds(c, a);
        const Point *base = r->b ? partner(r, pts, np, a) : NULL;
        if (pv != VERDICT_HOLDS && base && unlearned(base, r->metric)) {
            pv = VERDICT_INCONCLUSIVE;
            line_add(l, " [%s does not learn either: the budget is too small to tell]", base->arch);
            note_point(c, 0, base);
            note_point(c, 0, a);
        } else if (pv == VERDICT_WITHIN_NOISE) {
            note_point(c, 1, a);
        }
        v = combine(v, pv);
    }
    return waiting && v != VERDICT_FAILS ? VERDICT_NOT_RUN : v;
}

static void judge_rule(const ClaimRule *r, const Point *pts, int np, ClaimResult *out)
{
    Line l = {out->numbers, 0, (int)sizeof out->numbers};
    out->numbers[0] = 0;
    switch (r->kind) {
    case R_FLAT: out->verdict = judge_flat(r, pts, np, &l, out); break;
    case R_BELOW_UNIGRAM:
    case R_NEAR_UNIGRAM: out->verdict = judge_unigram(r, pts, np, &l, out); break;
    default: out->verdict = judge_pairs(r, pts, np, &l, out); break;
    }
    if (out->verdict != VERDICT_NOT_RUN) copying_add(&l, r, pts, np);
    if (out->verdict == VERDICT_NOT_RUN && !out->numbers[0])
        snprintf(out->numbers, sizeof out->numbers, "no finished runs with %s at the points it compares",
                 point_metric_name(r->metric));
}

int claims_judge(Store *s, const char *preset, long long sweep_id, ClaimResult **out, int *n, char *err)
{
    assert(s && err);
    *out = NULL;
    *n = 0;
    ClaimResult *res = calloc(N_RULES, sizeof *res);
    if (!res) return err_set(err, "claims: out of memory");
    int count = 0;
    for (int i = 0; i < N_RULES; i++) {
        const ClaimRule *r = &RULES[i];
        if (preset && strcmp(preset, r->preset)) continue;
        ClaimResult *c = &res[count++];
        c->preset = r->preset;
        c->claim = r->claim;
        c->verdict = VERDICT_NOT_RUN;
        c->gated = r->kind != R_BELOW_UNIGRAM && r->kind != R_NEAR_UNIGRAM && r->metric != PM_SAMPLES_PER_S;
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
        judge_rule(r, pts, np, c);
        free(pts);
        free(runs);
    }
    *out = res;
    *n = count;
    return 0;
}
