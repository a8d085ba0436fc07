/*
 * claims.h — the seed papers' claims (shared/papers/README.md: the settings'
 * relations and the table of claims without numbers) as rules in one table,
 * each judged from the store: holds, does not hold, within noise (the
 * difference is under Welch's t at 95% times its standard error over
 * seeds, stats.h noise_margin), not
 * run, or inconclusive (a compared point has a run that did not learn
 * enough to judge, points.h result_learned: near the unigram level two
 * models differ by noise about token frequencies, not by what the claim is
 * about; or the compared points trained on different numbers of tokens),
 * with the numbers behind the verdict.
 *
 * Not for: drawing verdicts (ui/, app/cmd_report.c) or storing runs (db/).
 */
#ifndef MIXBENCH_CLAIMS_H
#define MIXBENCH_CLAIMS_H

#include "db/store.h"
#include "experiments/points.h"

typedef enum { VERDICT_NOT_RUN, VERDICT_HOLDS, VERDICT_FAILS, VERDICT_WITHIN_NOISE, VERDICT_INCONCLUSIVE } Verdict;

/* "not run", "holds", "does not hold", "within noise", "inconclusive". */
const char *verdict_name(Verdict v);

enum { CLAIM_MAX_POINTS = 16, CLAIM_SELECTOR_LEN = 512 };

typedef struct {
    const char *preset;     /* the preset whose runs judge it */
    const char *claim;      /* the claim in words, as the paper makes it */
    Verdict verdict;
    char numbers[4096];     /* the numbers behind the verdict, one line:
                               "mixer 4.91 +- 0.02 (3 seeds) vs attention 5.30 +- 0.04 (3)" */
    long long sweep_id;     /* the sweep the numbers come from; 0 when not run */
    /* what would decide it (experiments/adaptive.h), each point as a
       selector of its coordinates ("arch=mixer n_ctx=32"): the points to
       train longer -- both points of a comparison in which one did not
       learn enough to judge (points.h result_learned), so that they stay
       at equal budgets, and the shorter point of a comparison at unequal
       budgets -- and the points of its comparisons within noise */
    int n_extend, n_noisy;
    char extend[CLAIM_MAX_POINTS][CLAIM_SELECTOR_LEN];
    char noisy[CLAIM_MAX_POINTS][CLAIM_SELECTOR_LEN];
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

/* Judges every claim of preset (NULL: of every preset) on the newest sweep
   of that preset in the store (sweep_id > 0: that sweep only).  *out is
   malloc'd (free() it), *n its length. */
int claims_judge(Store *s, const char *preset, long long sweep_id, ClaimResult **out, int *n,
                 char *err);

#endif
