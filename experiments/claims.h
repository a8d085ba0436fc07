/*
 * claims.h — the seed papers' claims (shared/papers/README.md: the settings'
 * relations and the table of claims without numbers) as rules in one table,
 * each judged from the store at its sweep's level alpha by the test that
 * fits the claim's kind (docs/statistics.md: directional, equivalence by
 * TOST, every point by intersection-union and Holm, flat, threshold, a
 * bound at every or some point, the smallest d that clears a bound):
 * holds, does not hold, not run, undecided (the interval is too wide to
 * decide: more seeds decide it; its reason says which interval), or
 * undecided (budget) (a compared point has a run that did not learn enough
 * to judge, points.h result_learned: near the unigram level two models
 * differ by noise about token frequencies, not by what the claim is about;
 * or the compared points trained on different numbers of tokens), with the
 * numbers and intervals behind the verdict.
 *
 * Not for: drawing verdicts (ui/, app/cmd_report.c) or storing runs (db/).
 */
#ifndef MIXBENCH_CLAIMS_H
#define MIXBENCH_CLAIMS_H

#include "db/store.h"
#include "experiments/points.h"

typedef enum { VERDICT_NOT_RUN, VERDICT_HOLDS, VERDICT_FAILS, VERDICT_UNDECIDED, VERDICT_UNDECIDED_BUDGET } Verdict;

/* "not run", "holds", "does not hold", "undecided", "undecided (budget)". */
const char *verdict_name(Verdict v);

/* CLAIM_MAX_TESTS: the comparisons (pairs, groups, points) one claim tests */
enum { CLAIM_MAX_POINTS = 16, CLAIM_SELECTOR_LEN = 512, CLAIM_MAX_TESTS = 64 };

/* The most seeds --until-conclusive gives a point (experiments/adaptive.h). */
#define CLAIM_MAX_SEEDS 12

typedef struct {
    const char *preset;     /* the preset whose runs judge it */
    const char *claim;      /* the claim in words, as the paper makes it */
    const char *former;     /* its words before issue 39 where they differ (a history
                               stored then names it so), else NULL */
    const char *rules_before; /* how the rules before issue 39 judged a claim of its
                               kind, against today's (one clause each): a re-judged
                               verdict's why */
    Verdict verdict;
    char numbers[4096];     /* the numbers behind the verdict, one line, each test's
                               (1 - 2 alpha) interval in brackets: "4.910 +- 0.020 (3)
                               vs 5.300 +- 0.040 (3), ratio 0.926, difference -0.390
                               [-0.520, -0.260]" */
    char reason[200];       /* an undecided verdict's reason: "the interval [0.970, 1.120]
                               straddles the 10% margin", "not learned: attention" */
    double alpha;           /* the level it was judged at: its sweep's alpha, or with
                               --until-conclusive the level of the round's look
                               (stats.h alpha_at_look) */
    double sweep_alpha;     /* the sweep's alpha (sweep key alpha) */
    int look, looks;        /* --until-conclusive: the round judged, of at most
                               STATS_MAX_LOOKS; 0, 0 for a sweep of one look */
    int seeds_needed;       /* undecided by its interval: the seeds a side its undecided
                               tests need for 80% power at the spread measured
                               (CLAIM_MAX_SEEDS + 1: more than the cap); 0 otherwise */
    long long sweep_id;     /* the sweep the numbers come from; 0 when not run */
    /* what would decide it (experiments/adaptive.h), each point as a
       selector of its coordinates ("arch=mixer n_ctx=32"): the points to
       train longer -- both points of a comparison in which one did not
       learn enough to judge (points.h result_learned), so that they stay
       at equal budgets, and the shorter point of a comparison at unequal
       budgets -- and, when it is undecided, the points of its comparisons
       that no test decided (more seeds narrow their intervals) */
    int n_extend, n_noisy;
    char extend[CLAIM_MAX_POINTS][CLAIM_SELECTOR_LEN];
    char noisy[CLAIM_MAX_POINTS][CLAIM_SELECTOR_LEN];
    /* the pairs of points it compared (a, b), as selectors: what the
       budget fits of experiments/budget_fit.h extrapolate */
    int n_pairs;
    char pair[CLAIM_MAX_POINTS][2][CLAIM_SELECTOR_LEN];
    int min_seeds;          /* the fewest seeds of a point it compared (0: none) */
    double max_tokens;      /* the most training tokens of a run it compared */
    int gated;              /* 1: a comparison, decided only where every point it
                               compares learned; 0: a claim about the unigram
                               level itself or about speed, which no gate fits */
} ClaimResult;

/* Number of claims in the table, and the preset of claim i. */
int claim_count(void);
const char *claim_preset(int i);
/* The metric claim i compares (test_loss_all for the PairConnect presets). */
PointMetric claim_metric(int i);

/* Judges claim i on points made in memory (no store: stats_check.h's
   simulated seed groups) at level alpha, as claims_judge judges it from a
   sweep's runs: at alpha (the sweep's), or at look `look` of at most
   `looks` (stats.h alpha_at_look; looks 0: one look at alpha); -1 for an i
   out of range. */
int claims_judge_points(int i, const Point *pts, int np, double alpha, int look, int looks, ClaimResult *out);
/* The index of the first claim of preset whose text contains fragment; -1 if none. */
int claim_find(const char *preset, const char *fragment);

/* Judges every claim of preset (NULL: of every preset) on the newest sweep
   of that preset in the store (sweep_id > 0: that sweep only).  *out is
   malloc'd (free() it), *n its length. */
int claims_judge(Store *s, const char *preset, long long sweep_id, ClaimResult **out, int *n,
                 char *err);

/* How a point's seed group s stands to a bound: +1 when its mean is at
   least (sign +1) or at most (-1) bound by the one-sided one-sample t test
   at level alpha (n - 1 degrees of freedom), -1 when the opposite test
   holds, 0 when neither does or s has one seed (no spread) or none: the
   test of each point of a threshold or min_d claim (docs/statistics.md). */
int claim_point_clears(const SeedStats *s, double bound, int sign, double alpha);

#endif
