/*
 * test_search.c — a random search's distributions and words
 * (experiments/search.c) and how a spec with them expands (sweep.c):
 *   - a draw depends on the search seed, the key and the trial alone: the
 *     same seed gives the same values, another seed others;
 *   - log: stays in [LO, HI] and is log-uniform (half the draws below the
 *     geometric mean), uniform: of a whole key gives each of LO..HI, choice:
 *     each value;
 *   - a spec crossed with a grid axis and repeats: trials x points x seeds
 *     jobs, every point the same trials, a trial's seeds one seed group;
 *   - sweeps.plan_json keeps the search and the pruner;
 *   - the refusals, one line each.
 *
 * Not for: the pruner (test_prune.c) or the command line (test_search.sh).
 */
#include "engine/common.h"
#include "experiments/search.h"
#include "experiments/sweep.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <math.h>
#include <string.h>

static void parse(const char *key, const char *value, Distribution *d, char *text, size_t cap)
{
    char err[ERR_LEN] = "";
    snprintf(text, cap, "%s", value);
    CHECK(search_parse_distribution(key, text, value, d, err) == 0, "%s=%s: %s", key, value, err);
}

static void test_draws(void)
{
    Distribution d;
    char text[64], a[32], b[32];
    parse("lr", "log:1e-4..1e-2", &d, text, sizeof text);
    int below = 0, n = 2000, same = 1, other = 0;
    for (int t = 0; t < n; t++) {
        search_sample(&d, 7, t, a, sizeof a);
        search_sample(&d, 7, t, b, sizeof b);
        same &= !strcmp(a, b);
        search_sample(&d, 8, t, b, sizeof b);
        other += strcmp(a, b) != 0;
        double v = atof(a);
        CHECK(v >= 1e-4 && v <= 1e-2, "trial %d: %g outside [1e-4, 1e-2]", t, v);
        below += v < 1e-3;
    }
    CHECK(same, "the same seed drew another value");
    CHECK(other > n * 9 / 10, "another seed drew the same values (%d of %d differ)", other, n);
    CHECK(below > n * 0.45 && below < n * 0.55, "log-uniform: %d of %d below the geometric mean 1e-3", below, n);
    parse("warmup", "uniform:1..3", &d, text, sizeof text);
    int seen[5] = {0};
    for (int t = 0; t < 300; t++) {
        search_sample(&d, 1, t, a, sizeof a);
        int v = atoi(a);
        CHECK(v >= 1 && v <= 3 && strspn(a, "0123456789") == strlen(a), "whole draw '%s'", a);
        if (v >= 0 && v < 5) seen[v]++;
    }
    CHECK(seen[1] && seen[2] && seen[3], "uniform:1..3 drew %d %d %d", seen[1], seen[2], seen[3]);
    parse("act", "choice:relu,gelu,none", &d, text, sizeof text);
    int relu = 0, gelu = 0, none = 0;
    for (int t = 0; t < 300; t++) {
        search_sample(&d, 1, t, a, sizeof a);
        relu += !strcmp(a, "relu"), gelu += !strcmp(a, "gelu"), none += !strcmp(a, "none");
    }
    CHECK(relu && gelu && none && relu + gelu + none == 300, "choice drew %d %d %d", relu, gelu, none);
}

static void test_refused(void)
{
    const char *bad[][3] = {
        {"lr", "log:0..1", "log needs LO > 0"},          {"lr", "uniform:2..1", "needs LO < HI"},
        {"lr", "log:1e-4", "is not log:LO..HI"},         {"act", "uniform:1..2", "act is not a number"},
        {"act", "choice:relu,,gelu", "has an empty value"}, {"layers", "uniform:1.5..3", "takes whole numbers"},
        {"dropout", "uniform:0..2", "dropout"},          {"act", "choice:relu,blue", "act"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Distribution d;
        char text[64], err[ERR_LEN] = "";
        snprintf(text, sizeof text, "%s", bad[i][1]);
        CHECK(search_parse_distribution(bad[i][0], text, bad[i][1], &d, err) != 0 && strstr(err, bad[i][2]) &&
                  !strchr(err, '\n'),
              "%s=%s: '%s'", bad[i][0], bad[i][1], err);
    }
}

static void test_expand(void)
{
    char spec[] = "arch=mixer,attention data=builtin:markov steps=90 lr=log:1e-4..1e-2 search=random trials=3 "
                  "search_seed=4 repeats=2";
    char *argv[1] = {spec}, err[ERR_LEN] = "";
    Config base;
    config_defaults(&base);
    Sweep sw;
    CHECK(sweep_parse(1, argv, &base, &sw, err) == 0, "%s", err);
    if (err[0]) return;
    CHECK(sw.n_jobs == 12, "2 archs x 3 trials x 2 seeds: %d jobs", sw.n_jobs);
    CHECK(!strcmp(sw.axes, "[\"arch\", \"lr\", \"trial\", \"seed\"]"), "axes %s", sw.axes);
    for (int j = 0; j < 6; j++) {
        /* attention's jobs repeat mixer's trials; a trial's two seeds share its lr */
        CHECK(sw.jobs[j].config.lr == sw.jobs[j + 6].config.lr, "job %d: the points' trials differ", j);
        CHECK(sw.jobs[j].config.seed == 1 + j % 2, "job %d seed %lld", j, (long long)sw.jobs[j].config.seed);
        if (j % 2) CHECK(sw.jobs[j].config.lr == sw.jobs[j - 1].config.lr, "a trial's seeds draw apart");
    }
    CHECK(strstr(sw.jobs[3].coords, "\"trial\": \"2\", \"seed\": \"2\""), "coords %s", sw.jobs[3].coords);
    CHECK(sw.plan.random_search && sw.plan.trials == 3 && sw.plan.search_seed == 4 && !strcmp(sw.plan.search_keys, "lr"),
          "plan");
    sw.plan.prune = PRUNE_MEDIAN, sw.plan.prune_grace = 0.2, sw.plan.prune_startup = 4;
    StrBuf sb;
    sb_init(&sb);
    sweep_plan_json(&sw.plan, &sb);
    SweepPlan back;
    CHECK(sweep_plan_parse(sb.data, &back, err) == 0, "%s: %s", sb.data, err);
    CHECK(back.random_search && back.trials == 3 && back.search_seed == 4 && !strcmp(back.search_keys, "lr") &&
              back.prune == PRUNE_MEDIAN && back.prune_grace == 0.2 && back.prune_startup == 4,
          "plan_json %s", sb.data);
    sb_free(&sb);
    sweep_free(&sw);
    /* more trials keep the first ones */
    char more[] = "arch=mixer data=builtin:markov steps=90 lr=log:1e-4..1e-2 search=random trials=5 search_seed=4";
    char fewer[] = "arch=mixer data=builtin:markov steps=90 lr=log:1e-4..1e-2 search=random trials=3 search_seed=4";
    Sweep a, b;
    char *am[1] = {more}, *bf[1] = {fewer};
    CHECK(sweep_parse(1, am, &base, &a, err) == 0 && sweep_parse(1, bf, &base, &b, err) == 0, "%s", err);
    for (int j = 0; j < 3 && !err[0]; j++) CHECK(a.jobs[j].config.lr == b.jobs[j].config.lr, "trial %d changed", j + 1);
    sweep_free(&a);
    sweep_free(&b);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_draws);
    RUN(test_refused);
    RUN(test_expand);
    CHECK_EXIT();
}
