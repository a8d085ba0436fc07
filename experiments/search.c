/*
 * search.c — distributions, the search and pruner words of a sweep spec,
 * and sweeps.plan_json (search.h, sweep.h).
 *
 * A draw is splitmix64 of the search seed, the key's name (FNV-1a) and the
 * trial: no state carried from one draw to the next, so a trial's values
 * do not depend on how many trials there are or on which keys come before.
 */
#include "experiments/search.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/io/json.h"
#include "engine/text.h"
#include "experiments/rungs.h"
#include "experiments/stats.h"

static const struct {
    const char *prefix;
    DistKind kind;
} PREFIXES[] = {{"log:", DIST_LOG}, {"uniform:", DIST_UNIFORM}, {"choice:", DIST_CHOICE}};

int search_is_distribution(const char *value)
{
    for (size_t i = 0; value && i < sizeof PREFIXES / sizeof PREFIXES[0]; i++)
        if (!strncmp(value, PREFIXES[i].prefix, strlen(PREFIXES[i].prefix))) return 1;
    return 0;
}

/* key=text checked as a config value (config.c's message). */
static int check_value(const char *key, const char *text, char *err)
{
    Config scratch;
    config_defaults(&scratch);
    return config_set(&scratch, key, text, err);
}

/* choice:a,b,c */
static int parse_choice(Distribution *d, char *list, const char *source, char *err)
{
    if (!*list) return err_set(err, "sweep: %s has no values to choose from", source);
    for (char *p = list;;) {
        if (d->n_choices == SEARCH_MAX_CHOICES)
            return err_set(err, "sweep: %s has more than %d values", source, SEARCH_MAX_CHOICES);
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        if (!*p) return err_set(err, "sweep: %s has an empty value (value %d)", source, d->n_choices + 1);
        if (check_value(d->key, p, err)) return -1;
        d->choices[d->n_choices++] = p;
        if (!comma) return 0;
        p = comma + 1;
    }
}

/* log:LO..HI or uniform:LO..HI */
static int parse_range(Distribution *d, char *range, const char *source, char *err)
{
    ConfigNumber number = config_key_number(d->key);
    if (number == CONFIG_NOT_NUMBER)
        return err_set(err, "sweep: %s: %s is not a number (choice:a,b,... takes any key)", source, d->key);
    char *dots = strstr(range, "..");
    if (!dots) return err_set(err, "sweep: %s is not %s:LO..HI", source, d->kind == DIST_LOG ? "log" : "uniform");
    *dots = 0;
    const char *lo = range, *hi = dots + 2;
    d->whole = number == CONFIG_WHOLE;
    if (d->whole) {
        int64_t a, b;
        if (text_to_int64(lo, &a) || text_to_int64(hi, &b))
            return err_set(err, "sweep: %s: %s takes whole numbers", source, d->key);
        d->lo = (double)a, d->hi = (double)b;
    } else if (text_to_double(lo, &d->lo) || text_to_double(hi, &d->hi) || !isfinite(d->lo) || !isfinite(d->hi)) {
        return err_set(err, "sweep: %s: LO and HI must be numbers", source);
    }
    if (d->kind == DIST_LOG && !(d->lo > 0))
        return err_set(err, "sweep: %s: log needs LO > 0 (the log of %s has no value)", source, lo);
    if (!(d->lo < d->hi)) return err_set(err, "sweep: %s needs LO < HI", source);
    if (check_value(d->key, lo, err) || check_value(d->key, hi, err)) return -1;
    return 0;
}

int search_parse_distribution(const char *key, char *value, const char *source, Distribution *d, char *err)
{
    assert(key && value && source && d && err);
    memset(d, 0, sizeof *d);
    d->key = key;
    for (size_t i = 0; i < sizeof PREFIXES / sizeof PREFIXES[0]; i++) {
        size_t len = strlen(PREFIXES[i].prefix);
        if (strncmp(value, PREFIXES[i].prefix, len)) continue;
        d->kind = PREFIXES[i].kind;
        return d->kind == DIST_CHOICE ? parse_choice(d, value + len, source, err)
                                      : parse_range(d, value + len, source, err);
    }
    return err_set(err, "sweep: %s is not a distribution (log:LO..HI, uniform:LO..HI, choice:a,b,...)", source);
}

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A number in [0, 1) for (seed, key, trial). */
static double draw(int64_t seed, const char *key, int trial)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a of the key */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
    uint64_t z = splitmix64(splitmix64(splitmix64((uint64_t)seed) ^ h) ^ (uint64_t)trial);
    return (double)(z >> 11) * 0x1.0p-53;
}

void search_sample(const Distribution *d, int64_t search_seed, int trial, char *out, size_t cap)
{
    assert(d && out && cap > 0 && trial >= 0);
    double u = draw(search_seed, d->key, trial);
    if (d->kind == DIST_CHOICE) {
        int i = (int)(u * d->n_choices);
        snprintf(out, cap, "%s", d->choices[i < d->n_choices ? i : d->n_choices - 1]);
        return;
    }
    double v;
    if (d->whole) {
        /* whole numbers: each of lo..hi as likely (uniform), or as likely as
           the width of [log k, log k+1) (log) */
        v = d->kind == DIST_LOG ? floor(exp(log(d->lo) + u * (log(d->hi + 1) - log(d->lo))))
                                : d->lo + floor(u * (d->hi - d->lo + 1));
        snprintf(out, cap, "%lld", (long long)fmin(fmax(v, d->lo), d->hi));
        return;
    }
    v = d->kind == DIST_LOG ? exp(log(d->lo) + u * (log(d->hi) - log(d->lo))) : d->lo + u * (d->hi - d->lo);
    snprintf(out, cap, "%.4g", fmin(fmax(v, d->lo), d->hi));
}

/* ---- the search and pruner words ------------------------------------------ */

static const char *const WORDS[] = {"search", "trials", "search_seed", "prune", "prune_eta", "prune_grace",
                                    "prune_startup"};
#define N_WORDS ((int)(sizeof WORDS / sizeof WORDS[0]))

int search_is_word(const char *key)
{
    for (int i = 0; key && i < N_WORDS; i++)
        if (!strcmp(key, WORDS[i])) return 1;
    return 0;
}

const char *search_word(int i)
{
    return i >= 0 && i < N_WORDS ? WORDS[i] : NULL;
}

int search_set_word(SweepPlan *plan, const char *key, const char *value, char *err)
{
    assert(plan && key && value && err);
    if (!strcmp(key, "search")) {
        if (strcmp(value, "random") && strcmp(value, "grid"))
            return err_set(err, "sweep: search=%s: the search is random or grid", value);
        plan->random_search = !strcmp(value, "random");
        return 0;
    }
    if (!strcmp(key, "trials")) {
        if (text_to_int(value, 1, SEARCH_MAX_TRIALS, &plan->trials))
            return err_set(err, "sweep: trials=%s must be a whole number in [1, %d]", value, SEARCH_MAX_TRIALS);
        return 0;
    }
    if (!strcmp(key, "search_seed")) {
        if (text_to_int64(value, &plan->search_seed) || plan->search_seed < 0)
            return err_set(err, "sweep: search_seed=%s must be a whole number >= 0", value);
        return 0;
    }
    if (!strcmp(key, "prune")) {
        if (strcmp(value, "asha") && strcmp(value, "median") && strcmp(value, "none"))
            return err_set(err, "sweep: prune=%s: the pruner is asha, median or none", value);
        plan->prune = !strcmp(value, "asha") ? PRUNE_ASHA : !strcmp(value, "median") ? PRUNE_MEDIAN : PRUNE_NONE;
        return 0;
    }
    if (!strcmp(key, "prune_startup")) {
        if (text_to_int(value, 1, SEARCH_MAX_TRIALS, &plan->prune_startup))
            return err_set(err, "sweep: prune_startup=%s must be a whole number in [1, %d]", value, SEARCH_MAX_TRIALS);
        return 0;
    }
    double *x = !strcmp(key, "prune_eta") ? &plan->prune_eta : &plan->prune_grace;
    if (!strcmp(key, "prune_eta") && (text_to_double(value, x) || !(*x >= 1.5 && *x <= 100)))
        return err_set(err, "sweep: prune_eta=%s must be a number in [1.5, 100]", value);
    if (!strcmp(key, "prune_grace") && (text_to_double(value, x) || !(*x > 0 && *x <= 1)))
        return err_set(err, "sweep: prune_grace=%s must be a share of the budget in (0, 1]", value);
    return 0;
}

int search_plan_finish(SweepPlan *plan, int n_dists, char *err)
{
    assert(plan && err);
    if (n_dists && !plan->random_search)
        return err_set(err, "sweep: a distribution (log:, uniform:, choice:) is drawn by a random search: give "
                            "--search random --trials N");
    if (plan->random_search && !n_dists)
        return err_set(err, "sweep: --search random draws keys from distributions (lr=log:1e-4..1e-2, "
                            "dropout=uniform:0..0.3, d=choice:64,128): the spec has none");
    if (plan->random_search && !plan->trials) return err_set(err, "sweep: --search random needs --trials N");
    if (!plan->random_search && (plan->trials || plan->search_seed))
        return err_set(err, "sweep: --trials and --search-seed go with --search random");
    if (plan->prune && !plan->random_search)
        return err_set(err, "sweep: --prune stops the trials of a random search (--search random): a grid's "
                            "points are what it compares");
    if (plan->prune && plan->lr_tune)
        return err_set(err, "sweep: lr=tune searches the lr itself; with --prune, draw it instead "
                            "(lr=log:1e-4..1e-2)");
    if ((plan->prune_eta > 0 && plan->prune != PRUNE_ASHA) || (plan->prune_startup && plan->prune != PRUNE_MEDIAN) ||
        (plan->prune_grace > 0 && !plan->prune))
        return err_set(err, "sweep: prune_eta goes with --prune asha, prune_startup with --prune median, "
                            "prune_grace with either");
    if (!(plan->prune_eta > 0)) plan->prune_eta = 3;
    if (!(plan->prune_grace > 0)) plan->prune_grace = 0.1;
    if (!plan->prune_startup) plan->prune_startup = 3;
    if (plan->prune == PRUNE_ASHA && !prune_top_rung(plan))
        return err_set(err, "sweep: prune_grace=%g with prune_eta=%g leaves asha one rung (the first is at 1/eta^K of "
                            "the budget, K >= 1, and not below the grace): lower prune_grace", plan->prune_grace,
                       plan->prune_eta);
    return 0;
}

/* ---- sweeps.plan_json ----------------------------------------------------- */

static const char *const PRUNE_NAMES[] = {"none", "asha", "median"};

void sweep_plan_json(const SweepPlan *p, StrBuf *sb)
{
    assert(p);
    sb_printf(sb, "{\"until_conclusive\": %s, \"max_hours\": %.9g, \"alpha\": %.9g",
              p->until_conclusive ? "true" : "false", p->max_hours, p->alpha);
    if (p->lr_tune)
        sb_printf(sb, ", \"lr_tune\": {\"lo\": %.9g, \"hi\": %.9g, \"points\": %d, \"share\": %.9g}", p->tune_lo,
                  p->tune_hi, p->tune_points, p->tune_share);
    if (p->random_search) {
        sb_printf(sb, ", \"search\": {\"trials\": %d, \"seed\": %lld, \"keys\": ", p->trials, (long long)p->search_seed);
        sb_json_string(sb, p->search_keys);
        sb_append(sb, "}");
    }
    if (p->prune)
        sb_printf(sb, ", \"prune\": {\"kind\": \"%s\", \"eta\": %.9g, \"grace\": %.9g, \"startup\": %d}",
                  PRUNE_NAMES[p->prune], p->prune_eta, p->prune_grace, p->prune_startup);
    sb_append(sb, "}");
}

static double number_in(const JsonValue *o, const char *key, double otherwise)
{
    const JsonValue *v = o ? json_get(o, key) : NULL;
    return v && v->type == JSON_NUMBER ? v->number : otherwise;
}

/* The search and prune objects of a plan. */
static void search_from_json(const JsonValue *o, SweepPlan *p)
{
    const JsonValue *s = json_get(o, "search"), *pr = json_get(o, "prune");
    if (s && s->type == JSON_OBJECT) {
        const JsonValue *keys = json_get(s, "keys");
        p->random_search = 1;
        p->trials = (int)number_in(s, "trials", 1);
        p->search_seed = (int64_t)number_in(s, "seed", 0);
        if (keys && keys->type == JSON_STRING) snprintf(p->search_keys, sizeof p->search_keys, "%s", keys->string);
    }
    const JsonValue *kind = pr && pr->type == JSON_OBJECT ? json_get(pr, "kind") : NULL;
    if (kind && kind->type == JSON_STRING) {
        p->prune = !strcmp(kind->string, "asha") ? PRUNE_ASHA : !strcmp(kind->string, "median") ? PRUNE_MEDIAN
                                                                                                 : PRUNE_NONE;
        p->prune_eta = number_in(pr, "eta", 3);
        p->prune_grace = number_in(pr, "grace", 0.1);
        p->prune_startup = (int)number_in(pr, "startup", 3);
    }
}

int sweep_plan_parse(const char *json, SweepPlan *p, char *err)
{
    assert(p && err);
    memset(p, 0, sizeof *p);
    JsonValue *o = json_parse(json, strlen(json), err);
    if (!o || o->type != JSON_OBJECT) {
        json_free(o);
        return err_set(err, "sweep plan: not a JSON object");
    }
    const JsonValue *v = json_get(o, "until_conclusive"), *t = json_get(o, "lr_tune");
    p->until_conclusive = v && v->type == JSON_BOOL && v->number != 0;
    p->max_hours = number_in(o, "max_hours", 0);
    p->alpha = number_in(o, "alpha", STATS_ALPHA);   /* plans stored before alpha: the default */
    if (t && t->type == JSON_OBJECT) {
        p->lr_tune = 1;
        p->tune_lo = number_in(t, "lo", 3e-4);
        p->tune_hi = number_in(t, "hi", 1e-2);
        p->tune_points = (int)number_in(t, "points", 5);
        p->tune_share = number_in(t, "share", 0.125);
    }
    search_from_json(o, p);
    json_free(o);
    if (p->lr_tune && (p->tune_points < 2 || !(p->tune_lo > 0) || !(p->tune_hi > p->tune_lo) || !(p->tune_share > 0)))
        return err_set(err, "sweep plan: lr_tune out of range");
    if (!(p->alpha > 0 && p->alpha < 0.5)) return err_set(err, "sweep plan: alpha out of range");
    if (p->prune && (p->trials < 1 || !(p->prune_eta >= 1.5) || !(p->prune_grace > 0) || p->prune_startup < 1))
        return err_set(err, "sweep plan: prune out of range");
    return 0;
}
