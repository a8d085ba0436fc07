/*
 * test_wsd.c — the warmup-stable-decay schedule (decay = wsd, SPEC section
 * 5) as schedule_lr computes it: the values at warm-up, plateau and
 * cool-down and the edge cases (a one-step cool-down, cooldown = 1, a
 * cool-down that would start inside the warm-up, a warm-up longer than the
 * run); that the lr is the same function of the step for any two budgets up
 * to the earlier budget's cool-down, and that the cool-down's start never
 * moves back as the budget grows; and the keys' validation (cooldown in
 * (0, 1], no seconds budget).  Not for: training with it (test_resume.c's
 * test_extend_wsd continues a run to a larger budget bit for bit).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/optim.h"
#include "tests/check.h"

/* A wsd config with lr 1 from "key=value" settings (NULL-terminated). */
static Config wsd_config(const char *const *settings)
{
    Config c;
    char err[ERR_LEN];
    config_defaults(&c);
    config_set(&c, "decay", "wsd", err);
    config_set(&c, "lr", "1", err);
    for (int i = 0; settings[i]; i++) CHECK(config_set_arg(&c, settings[i], err) == 0, "%s", err);
    return c;
}

/* schedule_lr at every step of S against want[0..S), exactly. */
static void expect_lrs(const char *what, const Config *c, int64_t S, const double *want)
{
    for (int64_t s = 0; s < S; s++) {
        double got = schedule_lr(c, s, S, -1.0);
        CHECK(got == want[s], "%s: step %lld of %lld: lr %.17g, want %.17g", what, (long long)s, (long long)S, got,
              want[s]);
    }
}

static void test_wsd_values(void)
{
    /* S 10, W 2, cooldown 0.3: C = 3, the last 3 steps 2/3, 1/3, 0 */
    Config c = wsd_config((const char *const[]){"warmup=2", "cooldown=0.3", NULL});
    double plateau[] = {0.5, 1, 1, 1, 1, 1, 1, 2.0 / 3.0, 1.0 / 3.0, 0};
    expect_lrs("warm-up, plateau, cool-down", &c, 10, plateau);
    CHECK(wsd_cooldown_start(&c, 10) == 7, "cool-down of 10 steps starts at %lld",
          (long long)wsd_cooldown_start(&c, 10));
    /* the default cooldown 0.2 of 6 steps is floor(1.2) = 1 step */
    c = wsd_config((const char *const[]){"warmup=2", NULL});
    CHECK(c.cooldown == 0.2, "default cooldown %g", c.cooldown);
    double one_step[] = {0.5, 1, 1, 1, 1, 0};
    expect_lrs("default cooldown, one step", &c, 6, one_step);
    /* 0.2 of 3 steps is floor(0.6) = 0: at least one step */
    c = wsd_config((const char *const[]){"warmup=0", NULL});
    double short_run[] = {1, 1, 0};
    expect_lrs("cool-down of at least one step", &c, 3, short_run);
    /* cooldown 1 and no warm-up: linear from step 0, lr (S-1-s)/S */
    c = wsd_config((const char *const[]){"warmup=0", "cooldown=1", NULL});
    double all_cooldown[] = {0.75, 0.5, 0.25, 0};
    expect_lrs("cooldown=1", &c, 4, all_cooldown);
    /* one step in all: the warm-up's or the cool-down's */
    double single[] = {0};
    expect_lrs("a one-step run", &c, 1, single);
}

/* S - C < W: the cool-down would start inside the warm-up.  It starts when
   the warm-up ends and takes the S - W steps left, lr (S-1-s)/(S-W), still 0
   at the last step; with W >= S every step is a warm-up step. */
static void test_wsd_cooldown_after_warmup(void)
{
    Config c = wsd_config((const char *const[]){"warmup=4", "cooldown=0.5", NULL});
    double shortened[] = {0.25, 0.5, 0.75, 1, 0.5, 0};
    expect_lrs("S 6, W 4, C 3", &c, 6, shortened);
    CHECK(wsd_cooldown_start(&c, 6) == 4, "starts at %lld, not at the warm-up's end 4",
          (long long)wsd_cooldown_start(&c, 6));
    c = wsd_config((const char *const[]){"warmup=5", "cooldown=0.5", NULL});
    double last_only[] = {0.2, 0.4, 0.6, 0.8, 1, 0};
    expect_lrs("S 6, W 5: the last step alone", &c, 6, last_only);
    c = wsd_config((const char *const[]){"warmup=8", NULL});
    double warmup_only[] = {0.125, 0.25, 0.375, 0.5, 0.625};
    expect_lrs("S 5, W 8: warm-up only", &c, 5, warmup_only);
}

/* For budgets S1 < S2 every step before S1's cool-down takes the same lr,
   bit for bit, and the cool-down's start never decreases as S grows (nor
   comes before the warm-up's end): a checkpoint taken before it can be
   continued with any larger budget. */
static void test_wsd_budget_independent(void)
{
    const char *cooldowns[] = {"cooldown=0.2", "cooldown=0.5", "cooldown=0.1", "cooldown=1", "cooldown=0.37"};
    const char *warmups[] = {"warmup=0", "warmup=3", "warmup=20"};
    for (int i = 0; i < 5; i++)
        for (int w = 0; w < 3; w++) {
            Config c = wsd_config((const char *const[]){cooldowns[i], warmups[w], "lr=0.003", NULL});
            int64_t previous = 0;
            for (int64_t S1 = 1; S1 <= 120; S1++) {
                int64_t D1 = wsd_cooldown_start(&c, S1);
                CHECK(D1 >= previous && D1 >= c.warmup && D1 <= (S1 - 1 > c.warmup ? S1 - 1 : c.warmup),
                      "%s %s: S %lld starts its cool-down at %lld (S - 1 starts it at %lld)", cooldowns[i], warmups[w],
                      (long long)S1, (long long)D1, (long long)previous);
                previous = D1;
                for (int64_t S2 = S1 + 1; S2 <= 120; S2 += 7)
                    for (int64_t s = 0; s < D1 && s < S1; s++)
                        if (schedule_lr(&c, s, S1, -1.0) != schedule_lr(&c, s, S2, -1.0)) {
                            CHECK(0, "%s %s: step %lld: lr %.17g with %lld steps, %.17g with %lld", cooldowns[i],
                                  warmups[w], (long long)s, schedule_lr(&c, s, S1, -1.0), (long long)S1,
                                  schedule_lr(&c, s, S2, -1.0), (long long)S2);
                            return;
                        }
            }
        }
}

/* cooldown is a fraction in (0, 1]; wsd needs a budget in steps or tokens
   (a seconds budget fixes no last step), refused in one line at validation. */
static void test_wsd_keys(void)
{
    char err[ERR_LEN];
    Config c;
    config_defaults(&c);
    c.vocab = 50;
    CHECK(config_set(&c, "cooldown", "1.5", err) == -1 && strstr(err, "cooldown"), "cooldown=1.5: '%s'", err);
    CHECK(config_set(&c, "cooldown", "-0.1", err) == -1, "cooldown=-0.1 accepted");
    CHECK(config_set(&c, "cooldown", "0", err) == 0 && config_validate(&c, err) == -1 && strstr(err, "(0, 1]"),
          "cooldown=0: '%s'", err);
    CHECK(config_set(&c, "cooldown", "1", err) == 0 && config_validate(&c, err) == 0, "cooldown=1: %s", err);
    CHECK(config_set(&c, "decay", "wsd", err) == 0 && config_set(&c, "seconds", "60", err) == 0, "%s", err);
    err[0] = 0;
    CHECK(config_validate(&c, err) == -1 && strstr(err, "wsd") && strstr(err, "seconds") && !strchr(err, '\n'),
          "wsd with seconds: '%s'", err);
    printf("  %s\n", err);
    CHECK(config_set(&c, "tokens", "100000", err) == 0 && config_validate(&c, err) == 0,
          "wsd with tokens (which win over seconds): %s", err);
    CHECK(config_set(&c, "decay", "cosine", err) == 0 && config_set(&c, "tokens", "0", err) == 0 &&
              config_validate(&c, err) == 0,
          "cosine with seconds: %s", err);
    char value[32];
    config_set(&c, "decay", "wsd", err);
    config_get(&c, "decay", value, sizeof value);
    CHECK(!strcmp(value, "wsd"), "decay reads back as %s", value);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_wsd_values);
    RUN(test_wsd_cooldown_after_warmup);
    RUN(test_wsd_budget_independent);
    RUN(test_wsd_keys);
    CHECK_EXIT();
}
