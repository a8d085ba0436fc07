/*
 * budget_fit.h — does a claim's verdict survive more compute?  Each pair of
 * points a claim compared (ClaimResult.pair) has its valid loss fitted
 * against training tokens (experiments/curve_fit.h: every finished seed's
 * evaluations together), and the fits say the gap they predict at 10x the
 * budget and where, within 100x, the curves cross: "fit at 1.6M tokens
 * (10x): mixer - attention 0.052 +- 0.020; attention overtakes the mixer
 * near 1.1M tokens (fit)".  A pair whose fits cross within 10x the budget
 * makes the claim budget-bound (docs/statistics.md, "Does it survive more
 * compute?").
 *
 * Not for: the fit itself (curve_fit.h) or drawing the fits (ui/).
 */
#ifndef MIXBENCH_BUDGET_FIT_H
#define MIXBENCH_BUDGET_FIT_H

#include <stddef.h>

#include "db/store.h"
#include "experiments/claims.h"
#include "experiments/curve_fit.h"

/* The finished runs of sweep_id at the point selected by selector, their
   valid evaluations fitted as one seed group; *ok 0 (and no error) when
   there are too few evaluations to fit or the fit fails. */
int budget_fit_point(Store *s, long long sweep_id, const char *selector, CurveFit *out, int *ok, char *err);

/* The fits of c's pairs on sweep_id: their lines ("" when no pair could be
   fitted) into out, and *bound 1 when some pair's fits cross within 10x
   the budget (*cross the first such crossing, in tokens). */
int budget_fit_claim(Store *s, long long sweep_id, const ClaimResult *c, char *out, size_t cap, int *bound,
                     double *cross, char *err);

#endif
