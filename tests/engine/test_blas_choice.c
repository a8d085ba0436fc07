/*
 * test_blas_choice.c — engine/blas_choice.h: a pre-AVX pick of OpenBLAS on
 * a CPU with AVX2 and FMA is replaced by the core its features allow; any
 * other pick is kept; the features of this CPU agree with /proc/cpuinfo.
 */
#include <stdio.h>
#include <string.h>

#include "engine/blas_choice.h"
#include "tests/check.h"

static int same(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static void test_upgrade(void)
{
    const unsigned AVX2 = CPU_AVX2_FMA, AVX512 = CPU_AVX2_FMA | CPU_AVX512,
                   BF16 = CPU_AVX2_FMA | CPU_AVX512 | CPU_AVX512_BF16;
    static const struct {
        const char *picked;
        unsigned features;
        const char *want;
    } CASES[] = {
        {"Prescott", 0, NULL},                  /* an old CPU: Prescott is right */
        {"Prescott", CPU_AVX2_FMA, "Haswell"},
        {"Prescott", AVX512, "SkylakeX"},
        {"Prescott", BF16, "Cooperlake"},
        {"Nehalem", AVX512, "SkylakeX"},
        {"Core2", AVX2, "Haswell"},
        {"Atom", BF16, "Cooperlake"},
        {"Sandybridge", BF16, NULL},            /* an AVX core: OpenBLAS's own reason (its checks of the OS) */
        {"Haswell", BF16, NULL},
        {"SkylakeX", BF16, NULL},
        {"Zen", AVX512, NULL},                  /* a core of its own: never second-guessed */
        {NULL, BF16, NULL},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const char *got = blas_core_upgrade(CASES[i].picked, CASES[i].features);
        CHECK(same(got, CASES[i].want), "%s with features %u: %s, want %s", CASES[i].picked ? CASES[i].picked : "NULL",
              CASES[i].features, got ? got : "keep", CASES[i].want ? CASES[i].want : "keep");
    }
}

/* "flag" among /proc/cpuinfo's first flags line (-1: no such file) */
static int cpuinfo_has(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return -1;
    static char line[1 << 14];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5)) {
            char *p = line;
            size_t n = strlen(flag);
            while ((p = strstr(p, flag)))
                if ((p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0')) {
                    found = 1;
                    break;
                } else {
                    p += n;
                }
            break;
        }
    fclose(f);
    return found;
}

static void test_features_of_this_cpu(void)
{
    unsigned f = blas_cpu_features();
    int avx2 = cpuinfo_has("avx2"), fma = cpuinfo_has("fma"), bf16 = cpuinfo_has("avx512_bf16");
    if (avx2 < 0) {
        printf("  skipped: no /proc/cpuinfo to compare with\n");
        return;
    }
    CHECK(!!(f & CPU_AVX2_FMA) == (avx2 && fma), "AVX2+FMA: features %u, cpuinfo avx2 %d fma %d", f, avx2, fma);
    if (f & CPU_AVX512_BF16) CHECK(bf16 == 1 && (f & CPU_AVX512), "BF16 without cpuinfo's avx512_bf16 (%u)", f);
    if (f & CPU_AVX512) CHECK(cpuinfo_has("avx512f") == 1, "AVX-512 without cpuinfo's avx512f (%u)", f);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_upgrade);
    RUN(test_features_of_this_cpu);
    CHECK_EXIT();
}
