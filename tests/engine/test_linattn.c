/*
 * test_linattn.c — the linattn mixer's own checks (docs/mixers.md) beyond
 * those every mixer gets from the registry (test_mixer_contract, which runs
 * both feature maps and two chunks through its checks as linattn's
 * check_variants ask, test_grad, test_incremental, test_generate,
 * test_tasks, test_alloc, test_resume, the crosscheck): its keys refused in
 * one line each.
 */
#include <stdio.h>
#include <string.h>

#include "engine/config.h"
#include "tests/check.h"
#include "tests/test_util.h"

/* Each bad value is refused by config_set or config_validate with one line
   naming the key. */
static void test_refusals(void)
{
    const char *bad[][2] = {{"feature_dim", "0"}, {"feature_dim", "65"}, {"feature_dim", "2.5"},
                            {"feature_map", "relu"}, {"feature_map", ""}};
    for (int i = 0; i < 5; i++) {
        Config c;
        char err[512] = "";
        config_defaults(&c);
        config_set(&c, "arch", "linattn", err);
        int rc = config_set(&c, bad[i][0], bad[i][1], err);
        CHECK(rc != 0, "%s=%s accepted", bad[i][0], bad[i][1]);
        CHECK(strstr(err, bad[i][0]) && !strchr(err, '\n'), "%s=%s: message '%s'", bad[i][0], bad[i][1], err);
    }
    /* the state per head bounded: feature_dim 64 at d/heads 65536 */
    Config c;
    char err[512] = "";
    config_defaults(&c);
    const char *args[] = {"arch=linattn", "vocab=13", "d=65536", "heads=1", "feature_dim=64", NULL};
    for (int i = 0; args[i]; i++) config_set_arg(&c, args[i], err);
    CHECK(config_validate(&c, err) != 0 && strstr(err, "feature_dim") && !strchr(err, '\n'), "big state: '%s'", err);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_refusals);
    CHECK_EXIT();
}
