/*
 * test_mixer_contract.c — what every registered mixer must pass, found in
 * the registry (engine/mixers/registry.c) with no list here: for each mixer,
 * each mode it has (causal, bidirectional) and each of its check variants
 * (MixerOps.check_variants) besides its defaults, the checks of
 * tests/engine/mixer_checks.h: gradient (finite differences of the mixer
 * alone), causality (the mixer alone and a whole model, float32 and bf16),
 * threads (two at once = one), checkpoint round trip, and learning (the
 * loss falls on one batch).  A new mixer gets them by its registry line
 * (docs/adding-a-mixer.md).
 *
 * test_broken_mixers: the checks catch what they are for.  Copies of cumsum
 * broken on purpose (tests/engine/broken_mixers.h) fail the check that
 * should catch them and pass the others it names, while cumsum itself
 * passes them all.
 */
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "engine/common.h"
#include "engine/mixer.h"
#include "tests/check.h"
#include "tests/engine/broken_mixers.h"
#include "tests/engine/mixer_checks.h"
#include "tests/test_util.h"

typedef int (*MixCheck)(const MixCase *mc, char *why, size_t cap);

/* Runs check on every registered mixer, in every mode it has, at its
   defaults and at each of its check variants; one failed CHECK per case
   that fails. */
static void every_mixer(const char *what, MixCheck check)
{
    int cases = 0;
    for (int i = 0; i < mixer_count(); i++) {
        const MixerOps *ops = mixer_at(i);
        for (int causal = 1; causal >= 0; causal--) {
            if (!(causal ? ops->has_causal : ops->has_bidir)) continue;
            for (int v = -1; v < 0 || (ops->check_variants && ops->check_variants[v]); v++) {
                MixCase mc = {ops, causal, v < 0 ? "" : ops->check_variants[v]};
                char why[512] = "", name[160];
                mc_name(&mc, name, sizeof name);
                double t0 = now_seconds();
                int fail = check(&mc, why, sizeof why);
                CHECK(!fail, "%s: %s: %s", what, name, why);
                printf("  %-50s %-4s %5.2f s%s%s\n", name, fail ? "FAIL" : "ok", now_seconds() - t0,
                       fail || !why[0] ? "" : "  ", fail ? "" : why);
                cases++;
            }
        }
    }
    CHECK(cases >= mixer_count(), "%d cases for %d mixers", cases, mixer_count());
}

static void test_gradients(void) { every_mixer("gradient", check_gradient); }
static void test_causality(void) { every_mixer("causality", check_causality); }
static void test_threads(void) { every_mixer("threads", check_threads); }

static int checkpoint_in_tmp(const MixCase *mc, char *why, size_t cap)
{
    return check_checkpoint(mc, tmp_dir, why, cap);
}

static void test_checkpoints(void)
{
    if (tmp_dir_make("mixer-contract")) {
        CHECK(0, "no temp folder");
        return;
    }
    every_mixer("checkpoint", checkpoint_in_tmp);
    tmp_dir_remove();
}

static int learns(const MixCase *mc, char *why, size_t cap)
{
    double first = 0, last = 0;
    int fail = check_learns(mc, &first, &last, why, cap);
    if (!fail) snprintf(why, cap, "loss %.3f -> %.3f", first, last);
    return fail;
}

static void test_learning(void) { every_mixer("learning", learns); }

/* check on mc: want_fail 1, it must fail (its reason printed); 0, pass. */
static void expect(const char *check_name, MixCheck check, const MixCase *mc, const char *copy, int want_fail)
{
    char why[512] = "";
    int fail = check(mc, why, sizeof why);
    if (fail && want_fail) printf("  %s caught %s: %s\n", check_name, copy, why);
    CHECK(fail == want_fail, "the %s check %s %s%s%s", check_name, fail ? "failed" : "passed", copy,
          fail ? ": " : "", why);
}

static void test_broken_mixers(void)
{
    MixCase real = {mixer_find("cumsum"), 1, ""}, dropped = {broken_dropped_term(), 1, ""},
            leak = {broken_leak(), 1, ""}, mixed = {broken_batch_mix(), 1, ""};
    expect("gradient", check_gradient, &real, "cumsum", 0);
    expect("causality", check_causality, &real, "cumsum", 0);
    expect("threads", check_threads, &real, "cumsum", 0);
    expect("gradient", check_gradient, &dropped, "cumsum with a term dropped from dx", 1);
    expect("causality", check_causality, &dropped, "cumsum with a term dropped from dx", 0);
    expect("causality", check_causality, &leak, "cumsum reading x[t+1]", 1);
    expect("gradient", check_gradient, &leak, "cumsum reading x[t+1]", 0);
    expect("threads", check_threads, &mixed, "cumsum mixing the batch", 1);
    expect("gradient", check_gradient, &mixed, "cumsum mixing the batch", 0);
    expect("causality", check_causality, &mixed, "cumsum mixing the batch", 0);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_gradients);
    RUN(test_causality);
    RUN(test_threads);
    RUN(test_checkpoints);
    RUN(test_learning);
    RUN(test_broken_mixers);
    CHECK_EXIT();
}
