/*
 * check.h — the tiny test harness every tests/test_*.c uses.
 *
 * A test is a `static void name(void)` that calls CHECK; RUN(name) prints
 * "PASS name" or "FAIL name" (tests/run.sh counts those lines).  A test
 * binary exits non-zero when any check failed.
 */
#ifndef MIXBENCH_CHECK_H
#define MIXBENCH_CHECK_H

#include <math.h>
#include <stdio.h>

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

#define CHECK_EXIT() return check_failures_ ? 1 : 0

#endif
