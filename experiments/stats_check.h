/*
 * stats_check.h — `mixbench stats-check`: the error rates of the claims'
 * verdicts measured, not assumed.  The real judging code (claims.h
 * claims_judge_points) judges simulated seed groups of known truth, for
 * each claim kind (directional, equivalence, every point, flat, threshold):
 * (a) no difference, (b) a true difference exactly at the claim's margin,
 * (c) a true difference of 2 standard errors at 5 seeds; the rates of
 * "holds" and "does not hold" per cell, the power where the claim is true,
 * and the worst rate of a wrong decision over (a) and (b).
 *
 * Not for: the rounds of --until-conclusive (one look per trial: the
 * alpha spending over rounds is not implemented yet), the store.
 */
#ifndef MIXBENCH_STATS_CHECK_H
#define MIXBENCH_STATS_CHECK_H

#include <stdint.h>

#include "engine/io/json.h"

/* Runs `trials` trials per cell from seed at level alpha, appends the
   table and its last line "worst false-decision rate R at alpha A" to out,
   and sets *worst to R.  -1 (err) on bad arguments or no memory. */
int stats_check_run(int trials, uint64_t seed, double alpha, StrBuf *out, double *worst, char *err);

#endif
