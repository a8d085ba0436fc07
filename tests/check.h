/*
 * check.h — the tiny test harness every tests/test_*.c uses.
 *
 * A test is a `static void name(void)` that calls CHECK; RUN(name) prints
 * "PASS name" or "FAIL name" (tests/run.sh counts those lines).  A test
 * binary exits non-zero when any check failed.  RUN_IF(cond, why, name)
 * runs it only when cond holds, else prints "SKIP name: why" (for tests
 * that need something outside the repository, such as the real corpora).
 */
#ifndef MIXBENCH_CHECK_H
#define MIXBENCH_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int check_failures_;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("  check failed at %s:%d: %s: ", __FILE__, __LINE__,    \
                   #cond);                                                 \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
            check_failures_++;                                             \
        }                                                                  \
    } while (0)

#define RUN(fn)                                                            \
    do {                                                                   \
        int before_ = check_failures_;                                     \
        fflush(stdout);                                                    \
        fn();                                                              \
        printf("%s %s\n", check_failures_ == before_ ? "PASS" : "FAIL", #fn); \
        fflush(stdout);                                                    \
    } while (0)

#define RUN_IF(cond, why, fn)                                              \
    do {                                                                   \
        if (cond) RUN(fn);                                                 \
        else { printf("SKIP %s: %s\n", #fn, why); fflush(stdout); }       \
    } while (0)

/* The shared corpora (PTB, WikiText-2, tiny shakespeare, TinyStories):
   $MIXBENCH_DATA, else ../shared/data beside the clone. */
static inline const char *corpora_dir(void)
{
    const char *d = getenv("MIXBENCH_DATA");
    return d && d[0] ? d : "../shared/data";
}

/* 1 when the corpora the tests read are there. */
static inline int corpora_present(void)
{
    const char *need[] = {"ptb", "wikitext-2", "tinyshakespeare/input.txt"};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", corpora_dir(), need[i]);
        if (access(path, R_OK) != 0) return 0;
    }
    return 1;
}

#define NO_CORPORA "the shared corpora are not at $MIXBENCH_DATA or ../shared/data"

#define CHECK_EXIT() return check_failures_ ? 1 : 0

#endif
