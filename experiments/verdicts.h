/*
 * verdicts.h — a sweep's claims as its reader should see them now, the one
 * reading the report, the Grid and AE/Bidir screens and the figures share.
 *
 * claims_judge (experiments/claims.h) judges the runs finished so far.
 * While a round of --until-conclusive trains that may be one seed of a
 * point, or an extension half done, and would show a verdict the loop
 * never gave; so a claim the loop has judged reads as it last judged it
 * (verdict and numbers from its history, db/adaptive.h `verdicts`), and a
 * first round's claim, which has no history yet, keeps the partial reading
 * and is marked so.  Each claim also says how the loop reached its verdict
 * (the report's "how it was reached" column).
 */
#ifndef MIXBENCH_EXPERIMENTS_VERDICTS_H
#define MIXBENCH_EXPERIMENTS_VERDICTS_H

#include "db/store.h"
#include "experiments/claims.h"

enum { VERDICT_NOTE_LEN = 160 };

typedef struct {
    ClaimResult c;
    /* "" unless a round trains: "round 1 training: judged on the 6 of 9
       runs finished so far" for a partial verdict, else "round 3 training
       (13 of 30 runs finished)" (a claim read from the history, or not run
       yet) */
    char training[VERDICT_NOTE_LEN];
    int partial;            /* 1: a verdict on a training round's finished runs */
    /* how the loop reached it (its history): "decided in round 3 at 1.6M
       tokens per run, 5 seeds", or as the last round left it and what it
       would still need; then the training note; "" without either */
    char how[1000];
    /* re-judged: the verdict its history's last round gave under the rules
       before issue 39 (VERDICT_RULES_WELCH95), where today's tests give
       another ("holds", "within noise"); "" otherwise.  how then says when
       it was given and why today's differs (ClaimResult.rules_before and
       the undecided reason). */
    char was[32];
} ClaimNow;

/* The claims of preset on sweep_id, read as above (sweep_id <= 0: on the
   preset's newest sweep as claims_judge reads it, finished runs only).
   *out malloc'd (free() it), *n its length. */
int verdicts_now(Store *s, const char *preset, long long sweep_id, ClaimNow **out, int *n, char *err);

/* "holds" -> VERDICT_HOLDS and so on (verdict_name's inverse; a history's
   older words too: "within noise" -> VERDICT_UNDECIDED, "inconclusive" ->
   VERDICT_UNDECIDED_BUDGET); anything else VERDICT_NOT_RUN. */
Verdict verdict_of_name(const char *name);

#endif
