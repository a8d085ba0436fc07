/*
 * cmd_stats_check.c — `mixbench stats-check [--trials N] [--seed S]
 * [--alpha A]`: the error rates of the claims' verdicts on simulated seed
 * groups of known truth (experiments/stats_check.h), as a table ending
 * "worst false-decision rate R at alpha A".  Only argument parsing and
 * printing live here.
 */
#include <stdint.h>
#include <stdio.h>

#include "app/cli.h"
#include "app/commands.h"
#include "engine/common.h"
#include "engine/text.h"
#include "experiments/stats.h"
#include "experiments/stats_check.h"

int cmd_stats_check(int argc, char **argv)
{
    const char *trials_text = NULL, *seed_text = NULL, *alpha_text = NULL;
    CliOpt opts[] = {{"trials", 1, &trials_text, NULL},
                     {"seed", 1, &seed_text, NULL},
                     {"alpha", 1, &alpha_text, NULL},
                     {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("stats-check: %s", err);
    int trials = 10000;
    int64_t seed = 0;
    double alpha = STATS_ALPHA;
    if (trials_text && text_to_int(trials_text, 1, 10000000, &trials))
        return cli_fail("stats-check: --trials %s must be a whole number in [1, 10000000]", trials_text);
    if (seed_text && (text_to_int64(seed_text, &seed) || seed < 0))
        return cli_fail("stats-check: --seed %s must be a whole number >= 0", seed_text);
    if (alpha_text && (text_to_double(alpha_text, &alpha) || !(alpha > 0 && alpha < 0.5)))
        return cli_fail("stats-check: --alpha %s must be a number in (0, 0.5)", alpha_text);
    StrBuf out;
    sb_init(&out);
    double worst;
    int rc = stats_check_run(trials, (uint64_t)seed, alpha, &out, &worst, err);
    if (!rc) fputs(out.data, stdout);
    sb_free(&out);
    return rc ? cli_fail("%s", err) : 0;
}
