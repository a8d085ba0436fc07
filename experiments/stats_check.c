/*
 * stats_check.c — stats_check_run of stats_check.h: per claim kind, seed
 * groups drawn from normal distributions (GSL's Mersenne Twister from the
 * given seed, sd SIGMA around MU) whose true means make the claim false
 * at its boundary (a, b) or true (c), judged by claims_judge_points, and
 * the rates of each verdict counted.
 */
#include "experiments/stats_check.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "engine/common.h"
#include "experiments/adaptive.h"
#include "experiments/claims.h"

#define MU 4.0          /* the loss every simulated point sits near */
#define SIGMA 0.05      /* the spread of one seed */
#define SEEDS_AB 3      /* seeds a point in cells (a) and (b), the presets' own */
#define SEEDS_C 5       /* and in (c) */
#define MAX_SIM_POINTS 24

typedef enum { TRUTH_NONE, TRUTH_MARGIN, TRUTH_POWER, TRUTH_COUNT } Truth;

/* A simulated point: its selector words, its true mean and its unigram
   entropy (NAN: none). */
typedef struct {
    char coords[128];
    double mean, unigram;
} SimPoint;

typedef struct {
    const char *kind, *preset, *fragment;
    PointMetric metric;
    /* the points of one trial under truth t with n seeds each (true means
       only); returns how many */
    int (*make)(Truth t, int n, SimPoint *out);
    /* the wrong verdict under (a) and (b) (VERDICT_NOT_RUN: no such cell);
       under (c) the claim is true and "holds" is the right one */
    Verdict wrong[2];
    const char *truth_text[TRUTH_COUNT];
} SimKind;

/* 2 standard errors of a difference of two means of n seeds */
static double two_se(int n)
{
    return 2 * SIGMA * sqrt(2.0 / n);
}

static int make_directional(Truth t, int n, SimPoint *p)
{
    /* "the mixer below attention": the mixer lower by d */
    double d = t == TRUTH_NONE ? 0 : t == TRUTH_MARGIN ? 0.01 * MU : two_se(n);
    p[0] = (SimPoint){"arch=mixer d=128", MU - d, NAN};
    p[1] = (SimPoint){"arch=attention d=128", MU, NAN};
    return 2;
}

static int make_equivalence(Truth t, int n, SimPoint *p)
{
    double ratio = t == TRUTH_NONE ? 1 : t == TRUTH_MARGIN ? 1.05 : 1 + two_se(n) / MU;
    p[0] = (SimPoint){"arch=mixer", MU * ratio, NAN};
    p[1] = (SimPoint){"arch=attention", MU, NAN};
    return 2;
}

static int make_every_point(Truth t, int n, SimPoint *p)
{
    /* 12 pairs: 2 corpora x 6 (L, h); at the margin only the first pair */
    static const int LH[6][2] = {{1, 1}, {1, 2}, {2, 2}, {2, 4}, {4, 4}, {6, 4}};
    int k = 0;
    for (int c = 0; c < 2; c++)
        for (int j = 0; j < 6; j++) {
            double ratio = t == TRUTH_POWER ? 1 + two_se(n) / MU : t == TRUTH_MARGIN && k == 0 ? 1.05 : 1;
            for (int a = 0; a < 2; a++) {
                snprintf(p[k].coords, sizeof p[k].coords, "data=%s layers=%d heads=%d arch=%s", c ? "wikitext-2" : "ptb",
                         LH[j][0], LH[j][1], a ? "attention" : "pairconnect");
                p[k].mean = a ? MU : MU * ratio;
                p[k].unigram = NAN;
                k++;
            }
        }
    return k;
}

static int make_flat(Truth t, int n, SimPoint *p)
{
    /* 5 values of K, means evenly spread over a range: 0, the 7% margin, 2 se */
    static const char *const K[5] = {"100", "500", "1000", "5000", "10000"};
    double range = t == TRUTH_NONE ? 0 : t == TRUTH_MARGIN ? 0.07 * MU : two_se(n);
    for (int k = 0; k < 5; k++) {
        snprintf(p[k].coords, sizeof p[k].coords, "data=ptb arch=pairconnect hash_size=%s", K[k]);
        p[k].mean = MU + range * (k / 4.0 - 0.5);
        p[k].unigram = NAN;
    }
    return 5;
}

static int make_threshold(Truth t, int n, SimPoint *p)
{
    /* "more than 0.1 nat below the unigram entropy": at 0.1 exactly, or 2 se more */
    double unigram = MU + 0.1 + (t == TRUTH_POWER ? 2 * SIGMA / sqrt((double)n) : 0);
    p[0] = (SimPoint){"arch=mixer act=none", MU, unigram};
    return 1;
}

/* An MQAR data value of the recall and zoology studies. */
#define MQAR(pairs) "builtin:mqar:pairs=" #pairs ":vocab=256:examples=100000"
/* Far from a bound: decided at any level the claims use, 20 sigma away. */
#define FAR (20 * SIGMA)

static int make_bound_every(Truth t, int n, SimPoint *p)
{
    /* recall's "attention solves MQAR at every (n, pairs) for d >= 64": six
       points against 0.99; (a) one at the bound and five far above, (b)
       all six at it, (c) all six 2 se above */
    static const char *const DATA[3] = {MQAR(4), MQAR(8), MQAR(16)};
    int k = 0;
    for (int c = 0; c < 3; c++)
        for (int d = 64; d <= 128; d *= 2, k++) {
            snprintf(p[k].coords, sizeof p[k].coords, "n_ctx=%d data=%s d=%d arch=attention", 64 << c, DATA[c], d);
            p[k].mean = t == TRUTH_POWER ? 0.99 + 2 * SIGMA / sqrt((double)n) : t == TRUTH_NONE && k ? 0.99 + FAR : 0.99;
            p[k].unigram = NAN;
        }
    return k;
}

static int make_min_d(Truth t, int n, SimPoint *p)
{
    /* zoology's "at 16 pairs hyena needs a larger d than attention" (0.99
       at d = 32, 64, 128; the other points far from it): (a) false at its
       boundary, hyena's d=64 at the bound (both smallest at 64); (b) true
       at its boundary, attention's d=64 at the bound (attention 64, hyena
       128); (c) attention's d=64 2 se above, hyena's 2 se below */
    double se2 = 2 * SIGMA / sqrt((double)n);
    double hyena64 = t == TRUTH_NONE ? 0.99 : t == TRUTH_MARGIN ? 0.99 - FAR : 0.99 - se2;
    double attention64 = t == TRUTH_NONE ? 0.99 + FAR : t == TRUTH_MARGIN ? 0.99 : 0.99 + se2;
    const double mean[2][3] = {{0.99 - FAR, hyena64, 0.99 + FAR}, {0.99 - FAR, attention64, 0.99 + FAR}};
    int k = 0;
    for (int a = 0; a < 2; a++)
        for (int j = 0; j < 3; j++, k++) {
            snprintf(p[k].coords, sizeof p[k].coords, "n_ctx=64 data=%s d=%d arch=%s", MQAR(16), 32 << j,
                     a ? "attention" : "hyena");
            p[k].mean = mean[a][j];
            p[k].unigram = NAN;
        }
    return k;
}

static const SimKind KINDS[] = {
    {"directional", "autoencoder", "at equal d and L", PM_TEST_LOSS, make_directional,
     {VERDICT_HOLDS, VERDICT_FAILS},
     {"(a) no difference", "(b) lower by the 1% margin", "(c) lower by 2 se"}},
    {"equivalence", "completion", "about equally well", PM_TEST_LOSS, make_equivalence,
     {VERDICT_FAILS, VERDICT_HOLDS},
     {"(a) no difference", "(b) ratio at the 5% margin", "(c) ratio 1 + 2 se"}},
    {"every point", "pairconnect-grid", "matches the Transformer", PM_TEST_LOSS_ALL, make_every_point,
     {VERDICT_FAILS, VERDICT_HOLDS},
     {"(a) 12 pairs equal", "(b) 1 of 12 at the 5% margin", "(c) 12 pairs at 1 + 2 se"}},
    {"flat", "pairconnect-hash", "nearly flat in K", PM_TEST_LOSS_ALL, make_flat,
     {VERDICT_FAILS, VERDICT_HOLDS},
     {"(a) 5 K equal", "(b) range at the 7% margin", "(c) range 2 se"}},
    {"threshold", "linear-mixer", "fully linear mixer trains", PM_TEST_LOSS, make_threshold,
     {VERDICT_HOLDS, VERDICT_NOT_RUN},
     {"(a) at the 0.1 nat threshold", NULL, "(c) 2 se beyond it"}},
    {"bound every", "recall", "attention solves MQAR", PM_ANSWER_ACCURACY, make_bound_every,
     {VERDICT_HOLDS, VERDICT_FAILS},
     {"(a) 1 of 6 at 0.99, 5 above", "(b) 6 at 0.99", "(c) 6 at 0.99 + 2 se"}},
    {"smallest d", "zoology", "hyena needs a larger d", PM_ANSWER_ACCURACY, make_min_d,
     {VERDICT_HOLDS, VERDICT_FAILS},
     {"(a) hyena's d=64 at 0.99", "(b) attention's d=64 at 0.99", "(c) both d=64 2 se off"}},
};
#define N_KINDS ((int)(sizeof KINDS / sizeof KINDS[0]))

/* "k=v k=v" into p's coordinates, arch as a run's; the first n of the
   seeds' values x. */
static void point_fill(Point *p, const SimPoint *s, PointMetric m, const double *x, int n)
{
    memset(p, 0, sizeof *p);
    char words[sizeof s->coords];
    snprintf(words, sizeof words, "%s", s->coords);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && p->n_coords < RESULT_MAX_COORDS;
         w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (!eq) continue;
        *eq = 0;
        CoordPair *c = &p->coords[p->n_coords++];
        snprintf(c->key, sizeof c->key, "%s", w);
        snprintf(c->value, sizeof c->value, "%s", eq + 1);
        if (!strcmp(w, "arch")) snprintf(p->arch, sizeof p->arch, "%s", eq + 1);
    }
    for (int k = 0; k < PM_COUNT; k++) p->stat[k] = seed_stats(NULL, 0);
    p->stat[m] = seed_stats(x, n);
    if (isfinite(s->unigram)) p->stat[PM_UNIGRAM] = seed_stats(&s->unigram, 1);
    p->n_runs = p->n_done = n;
}

/* Seeds a point has at most: the loop's cap, or (c)'s 5. */
#define MAX_SIM_SEEDS (ADAPTIVE_MAX_SEEDS > SEEDS_C ? ADAPTIVE_MAX_SEEDS : SEEDS_C)

/* One trial's verdict on the first n seeds of each point's values x, at
   look `look` of at most `looks` (0: one look at alpha). */
static Verdict judge_seeds(int rule, const SimKind *kd, const SimPoint *sim, int np, double (*x)[MAX_SIM_SEEDS], int n,
                           double alpha, int look, int looks, Point *pts, ClaimResult *res)
{
    for (int j = 0; j < np; j++) point_fill(&pts[j], &sim[j], kd->metric, x[j], n);
    claims_judge_points(rule, pts, np, alpha, look, looks, res);
    return res->verdict;
}

/* The loop of --until-conclusive on one trial's groups: round 1 on the
   first n seeds, then while undecided the seeds its power asks for
   (ClaimResult.seeds_needed, capped at ADAPTIVE_MAX_SEEDS), each look at
   its spent level, at most STATS_MAX_LOOKS looks. */
static Verdict loop_seeds(int rule, const SimKind *kd, const SimPoint *sim, int np, double (*x)[MAX_SIM_SEEDS], int n,
                          double alpha, Point *pts, ClaimResult *res)
{
    Verdict v = judge_seeds(rule, kd, sim, np, x, n, alpha, 1, STATS_MAX_LOOKS, pts, res);
    for (int look = 2; v == VERDICT_UNDECIDED && look <= STATS_MAX_LOOKS && n < ADAPTIVE_MAX_SEEDS; look++) {
        int want = res->seeds_needed < ADAPTIVE_MAX_SEEDS ? res->seeds_needed : ADAPTIVE_MAX_SEEDS;
        n = want > n ? want : n + 1;
        v = judge_seeds(rule, kd, sim, np, x, n, alpha, look, STATS_MAX_LOOKS, pts, res);
    }
    return v;
}

int stats_check_run(int trials, uint64_t seed, double alpha, StrBuf *out, double *worst, char *err)
{
    assert(out && worst && err);
    if (trials < 1) return err_set(err, "stats-check: --trials must be at least 1");
    if (!(alpha > 0 && alpha < 0.5)) return err_set(err, "stats-check: alpha %g is not in (0, 0.5)", alpha);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    Point *pts = calloc(MAX_SIM_POINTS, sizeof *pts);
    ClaimResult *res = malloc(sizeof *res);
    if (!rng || !pts || !res) {
        if (rng) gsl_rng_free(rng);
        free(pts);
        free(res);
        return err_set(err, "stats-check: out of memory");
    }
    *worst = 0;
    double loop_worst = 0, *worst_loop = &loop_worst;
    sb_printf(out, "%-12s %-30s %5s %7s %14s %6s %11s\n", "kind", "truth", "seeds", "holds", "does not hold", "power",
              "loop wrong");
    for (int k = 0; k < N_KINDS; k++) {
        const SimKind *kd = &KINDS[k];
        int rule = claim_find(kd->preset, kd->fragment);
        assert(rule >= 0);
        for (int t = 0; t < TRUTH_COUNT; t++) {
            if (!kd->truth_text[t]) continue;
            /* each cell its own stream: a cell's rates do not depend on the others' */
            gsl_rng_set(rng, (unsigned long)(seed * 1000003u + (uint64_t)(k * TRUTH_COUNT + t) + 1));
            int n = t == TRUTH_POWER ? SEEDS_C : SEEDS_AB;
            long holds = 0, fails = 0, loop_wrong = 0;
            for (int i = 0; i < trials; i++) {
                SimPoint sim[MAX_SIM_POINTS];
                double x[MAX_SIM_POINTS][MAX_SIM_SEEDS];
                int np = kd->make((Truth)t, n, sim);
                for (int j = 0; j < np; j++)
                    for (int k = 0; k < MAX_SIM_SEEDS; k++) x[j][k] = sim[j].mean + gsl_ran_gaussian_ziggurat(rng, SIGMA);
                Verdict v = judge_seeds(rule, kd, sim, np, x, n, alpha, 0, 0, pts, res);
                holds += v == VERDICT_HOLDS;
                fails += v == VERDICT_FAILS;
                /* the loop of --until-conclusive on the same groups */
                if (t != TRUTH_POWER) loop_wrong += loop_seeds(rule, kd, sim, np, x, n, alpha, pts, res) == kd->wrong[t];
            }
            double h = (double)holds / trials, f = (double)fails / trials;
            char power[16] = "-", loop[16] = "-";
            if (t == TRUTH_POWER) snprintf(power, sizeof power, "%.3f", h);
            else {
                double wrong = kd->wrong[t] == VERDICT_HOLDS ? h : f;
                if (wrong > *worst) *worst = wrong;
                if ((double)loop_wrong / trials > *worst_loop) *worst_loop = (double)loop_wrong / trials;
                snprintf(loop, sizeof loop, "%.3f", (double)loop_wrong / trials);
            }
            sb_printf(out, "%-12s %-30s %5d %7.3f %14.3f %6s %11s\n", kd->kind, kd->truth_text[t], n, h, f, power, loop);
        }
    }
    /* the last line: the worse of one look and the loop's looks */
    sb_printf(out, "one look: worst false-decision rate %.4f; the --until-conclusive loop (%d seeds, then as many as "
                   "80%% power asks, up to %d; alpha spent over at most %d looks): %.4f\n",
              *worst, SEEDS_AB, ADAPTIVE_MAX_SEEDS, STATS_MAX_LOOKS, loop_worst);
    if (loop_worst > *worst) *worst = loop_worst;
    sb_printf(out, "worst false-decision rate %.4f at alpha %g\n", *worst, alpha);
    gsl_rng_free(rng);
    free(pts);
    free(res);
    return sb_ok(out) ? 0 : err_set(err, "stats-check: out of memory");
}
