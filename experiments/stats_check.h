/*
 * stats_check.h — `mixbench stats-check`: the error rates of the claims'
 * verdicts measured, not assumed.  The real judging code (claims.h
 * claims_judge_points) judges simulated seed groups of known truth, for
 * each claim kind (directional, equivalence, every point, flat, threshold):
 * (a) no difference, (b) a true difference exactly at the claim's margin,
 * (c) a true difference of 2 standard errors at 5 seeds; the rates of
 * "holds" and "does not hold" per cell at one look, the power where the
 * claim is true, the rate of a wrong decision of --until-conclusive's seed
 * rounds on the same groups (an undecided claim's points get the seeds
 * 80% power asks for, ClaimResult.seeds_needed, up to ADAPTIVE_MAX_SEEDS,
 * and it is judged again, each look at its level of alpha spent over
 * STATS_MAX_LOOKS looks, as a sweep's rounds are), and the worst rate of a
 * wrong decision over (a) and (b).
 *
 * Not for: the store (the loop's rounds are replayed on the simulated
 * groups, not queued), budget extensions (the simulated seeds do not train).
 */
#ifndef MIXBENCH_STATS_CHECK_H
#define MIXBENCH_STATS_CHECK_H

#include <stdint.h>

#include "engine/io/json.h"

/* Runs `trials` trials per cell from seed at level alpha, appends the
   table, a line with one look's worst rate and the loop's, and the last
   line "worst false-decision rate R at alpha A" (the worse of the two) to
   out, and sets *worst to R.  -1 (err) on bad arguments or no memory. */
int stats_check_run(int trials, uint64_t seed, double alpha, StrBuf *out, double *worst, char *err);

#endif
