/*
 * check.h — the tiny test harness every tests/test_*.c uses.
 *
 * A test is a `static void name(void)` that calls CHECK; RUN(name) prints
 * "PASS name" or "FAIL name" (tests/run.sh counts those lines).  A test
 * binary exits non-zero when any check failed.  RUN_IF(cond, why, name)
 * runs it only when cond holds, else prints "SKIP name: why" (for tests
 * that need something outside the repository, such as the real corpora).
 *
 * One check alone: main starts with CHECK_ARGS(argc, argv); then
 * `build/tests/db/test_jobs test_resume` runs only RUN(test_resume) (names
 * are globs, several may be given), as does MIXBENCH_CHECK=test_resume in
 * the environment (what `tests/run.sh test_jobs:test_resume` sets) when
 * the command line names none.  A name that matches no check is a FAIL.
 * Shared helpers are in tests/test_util.h.
 */
#ifndef MIXBENCH_CHECK_H
#define MIXBENCH_CHECK_H

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_failures_;
/* the checks asked for (CHECK_ARGS) */
static int check_argc_;
static char **check_argv_;
static const char *check_env_;
static unsigned check_globs_hit_;   /* bit i: the i-th glob matched a check */

/* main's first line: the checks asked for are argv's, else $MIXBENCH_CHECK's */
#define CHECK_ARGS(argc, argv) \
    (check_argc_ = (argc), check_argv_ = (argv), check_env_ = getenv("MIXBENCH_CHECK"))

/* The i-th glob asked for (the command line's, else $MIXBENCH_CHECK's
   space-separated words) into buf; 0 past the last. */
static inline int check_glob_(int i, char *buf, size_t size)
{
    if (check_argc_ > 1) {
        if (i + 1 >= check_argc_) return 0;
        snprintf(buf, size, "%s", check_argv_[i + 1]);
        return 1;
    }
    const char *p = check_env_ ? check_env_ : "";
    for (int k = 0;; k++) {
        while (*p == ' ') p++;
        if (!*p) return 0;
        size_t n = strcspn(p, " ");
        if (k == i) {
            snprintf(buf, size, "%.*s", (int)n, p);
            return 1;
        }
        p += n;
    }
}

/* 1 when no check was asked for or name matches one of those asked for. */
static inline int check_selected_(const char *name)
{
    char g[256];
    int any = 0, hit = 0;
    for (int i = 0; check_glob_(i, g, sizeof g); i++) {
        any = 1;
        if (fnmatch(g, name, 0) == 0) {
            hit = 1;
            if (i < 32) check_globs_hit_ |= 1u << i;
        }
    }
    return !any || hit;
}

/* main's end: a FAIL line for each glob asked for that matched no check;
   the number of those. */
static inline int check_unmatched_(void)
{
    char g[256];
    int n = 0;
    for (int i = 0; i < 32 && check_glob_(i, g, sizeof g); i++)
        if (!(check_globs_hit_ & (1u << i))) {
            printf("FAIL no check here is named %s\n", g);
            n++;
        }
    return n;
}

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
        if (!check_selected_(#fn)) break;                                  \
        int before_ = check_failures_;                                     \
        fflush(stdout);                                                    \
        fn();                                                              \
        printf("%s %s\n", check_failures_ == before_ ? "PASS" : "FAIL", #fn); \
        fflush(stdout);                                                    \
    } while (0)

#define RUN_IF(cond, why, fn)                                              \
    do {                                                                   \
        if (!check_selected_(#fn)) break;                                  \
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

/* main's last line: 1 when a check failed or a name asked for matched none. */
#define CHECK_EXIT() return check_unmatched_() || check_failures_ ? 1 : 0

#endif
