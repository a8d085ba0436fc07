/*
 * tests/fuzz/fuzz_builtin.c — fuzzes the built-in corpus specs
 * (engine/data/dataset.c load_builtin and engine/data/builtin_options.c):
 * the input is what follows "builtin:" in a --data spec, NAME[:key=value,...].
 *
 * Every input goes through builtin_parse_options against a table shaped
 * like the built-ins' (integer and real options, one with the full 2^53
 * seed range): an accepted list sets only values inside their ranges
 * (integers integral); a refused one says why.  Inputs whose numbers are
 * all small (no value of more than three digits, no exponent, hex, inf or
 * nan) also go through dataset_load, which generates the corpus, with
 * the corpus size options appended (tokens=200,eval_tokens=100 or
 * examples=20,eval_examples=10: the last value of a key wins) so that each
 * execution stays fast: an accepted spec gives three splits whose ids lie
 * inside the vocabulary; a refused one leaves the dataset empty with a
 * reason.  The large values are the parser's to check.
 */
#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/data/data_internal.h"
#include "tests/fuzz/fuzz.h"

#include <ctype.h>
#include <math.h>

/* 1 when every value (the text after an '=' up to ',') is at most three
   digits with an optional fraction: cheap to generate. */
static int values_small(const char *opts)
{
    for (const char *p = strchr(opts, '='); p; p = strchr(p, '=')) {
        p++;
        int digits = 0;
        for (; *p && *p != ','; p++) {
            if (*p == '.') digits = -1000;   /* the fraction does not count */
            else if (isdigit((unsigned char)*p)) digits++;
            else if (*p != '-' && *p != '+') return 0;
            if (digits > 3) return 0;
        }
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 512) return 0;
    char *text = fuzz_cstring(data, size);
    char err[ERR_LEN];

    BuiltinOption o[] = {
        {"length", 1, 1 << 20, 1, 8, 0},
        {"smooth", 1e-9, 0.999999, 0, 0.01, 0},
        {"tokens", 16, 2e9, 1, 500000, 0},
        {"seed", 0, 9007199254740991.0, 1, 1, 0},
    };
    int n = (int)(sizeof o / sizeof o[0]);
    const char *colon = strchr(text, ':');
    err[0] = '\0';
    if (builtin_parse_options("fuzz", colon ? colon + 1 : text, o, n, err) == 0) {
        for (int i = 0; i < n; i++) {
            FUZZ_CHECK(o[i].value >= o[i].min && o[i].value <= o[i].max);
            FUZZ_CHECK(!o[i].is_integer || o[i].value == floor(o[i].value));
        }
    } else {
        FUZZ_CHECK(err[0] != '\0');
    }

    if (values_small(colon ? colon + 1 : "")) {
        size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
        int by_tokens = (name_len == 7 && memcmp(text, "stories", 7) == 0) ||
                        (name_len == 6 && memcmp(text, "markov", 6) == 0);
        const char *sizes = by_tokens ? "tokens=200,eval_tokens=100" : "examples=20,eval_examples=10";
        size_t len = strlen("builtin:") + strlen(text) + strlen(sizes) + 3;
        char *spec = malloc(len);
        FUZZ_CHECK(spec != NULL);
        snprintf(spec, len, "builtin:%s%s%s", text,
                 !colon ? ":" : colon[1] ? "," : "", sizes);
        DataOptions opt;
        memset(&opt, 0, sizeof opt);
        opt.n_ctx = 8;
        opt.seed = 1;
        Dataset ds;
        err[0] = '\0';
        if (dataset_load(spec, &opt, &ds, err) == 0) {
            FUZZ_CHECK(ds.tokenizer != NULL && ds.vocab > 0);
            for (int s = 0; s < SPLIT_COUNT; s++)
                for (size_t i = 0; i < ds.split[s].len; i++)
                    FUZZ_CHECK(ds.split[s].ids[i] >= 0 && ds.split[s].ids[i] < ds.vocab);
            dataset_free(&ds);
        } else {
            FUZZ_CHECK(ds.tokenizer == NULL && err[0] != '\0');
        }
        free(spec);
    }
    free(text);
    return 0;
}
