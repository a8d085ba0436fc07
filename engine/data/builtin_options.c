/*
 * builtin_options.c — parses the "key=value,key=value" tail of a
 * builtin:NAME:... spec (':' separates options too, so that a sweep, whose
 * values split at commas, can name several: builtin:mqar:pairs=4:vocab=256)
 * against a table of numeric options with ranges,
 * so every built-in reports unknown keys and bad values the same way; and
 * lays out the example streams the diagnostic corpora share.
 *
 * Not for: the options' meaning (each builtin_*.c documents its own).
 */
#include "engine/common.h"
#include "engine/text.h"
#include "engine/data/data_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void list_names(const BuiltinOption *o, int n, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used < cap; i++) {
        int w = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", o[i].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

int builtin_parse_options(const char *corpus, const char *opts, BuiltinOption *o,
                          int n_options, char *err)
{
    for (int i = 0; i < n_options; i++) o[i].given = 0;
    const char *p = opts ? opts : "";
    while (*p) {
        const char *end = strpbrk(p, ",:");
        size_t item_len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', item_len);
        size_t key_len = eq ? (size_t)(eq - p) : item_len;
        int found = -1;
        for (int i = 0; i < n_options; i++)
            if (strlen(o[i].name) == key_len && memcmp(o[i].name, p, key_len) == 0) found = i;
        if (found < 0) {
            char known[256];
            list_names(o, n_options, known, sizeof known);
            return err_set(err, "builtin:%s: unknown option '%.*s' (known: %s)", corpus,
                           (int)MB_MIN(key_len, (size_t)64), p, known);
        }
        BuiltinOption *opt = &o[found];
        char value[64];
        size_t value_len = eq ? item_len - key_len - 1 : 0;
        if (!eq || value_len == 0 || value_len >= sizeof value)
            return err_set(err, "builtin:%s: option '%s' needs a value (%s=NUMBER)", corpus,
                           opt->name, opt->name);
        memcpy(value, eq + 1, value_len);
        value[value_len] = '\0';
        double v = 0;
        int bad = text_to_double(value, &v) || v < opt->min || v > opt->max ||
                  (opt->is_integer && v != floor(v));
        if (bad) {
            if (opt->is_integer)
                return err_set(err, "builtin:%s: bad value '%s' for %s (expected an integer from %.0f to %.0f)",
                               corpus, value, opt->name, opt->min, opt->max);
            return err_set(err, "builtin:%s: bad value '%s' for %s (expected a number from %g to %g)",
                           corpus, value, opt->name, opt->min, opt->max);
        }
        opt->value = v;
        opt->given = 1;
        p = end ? end + 1 : p + item_len;
    }
    return 0;
}

int builtin_examples(const char *corpus, const size_t examples[SPLIT_COUNT], int example_len,
                     uint64_t seed, BuiltinExampleFn write, void *state, BuiltinCorpus *out,
                     char *err)
{
    size_t n = (size_t)example_len;
    for (int split = 0; split < SPLIT_COUNT; split++) {
        size_t len = examples[split] * n + 1;
        out->ids[split] = calloc(len, sizeof *out->ids[split]);   /* PAD = 0 */
        out->scored[split] = calloc(len, 1);
        if (!out->ids[split] || !out->scored[split]) {
            builtin_free(out);
            return err_set(err, "builtin:%s: out of memory for %zu tokens", corpus, len);
        }
        out->ids_len[split] = len;
        DataRng rng;
        data_rng_seed(&rng, seed, (uint64_t)split + 1);
        for (size_t e = 0; e < examples[split]; e++)
            write(state, split, &rng, out->ids[split] + e * n, out->scored[split] + e * n);
    }
    out->example_len = example_len;
    return 0;
}

void builtin_free(BuiltinCorpus *c)
{
    for (int s = 0; s < SPLIT_COUNT; s++) {
        free(c->text[s]);
        free(c->ids[s]);
        free(c->scored[s]);
    }
    memset(c, 0, sizeof *c);
}
