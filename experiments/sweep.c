/*
 * sweep.c — a sweep spec (preset name or grid) expanded into validated job
 * configs.  The grammar, items separated by whitespace:
 *
 *   key=v                      a fixed key (one value: not an axis)
 *   key=v1,v2,...              an axis
 *   (k1,k2)=(a1,a2),(b1,b2)    a zipped axis: one tuple per point
 *   repeats=R                  every point over seeds seed .. seed+R-1
 *   variant=NAME               config_apply_variant before the keys
 *   alpha=A                    the level the claims' verdicts are taken at
 *                              (0 < A < 0.5, default 0.05; kept in the plan)
 *   key=log:LO..HI, key=uniform:LO..HI, key=choice:a,b,c
 *                              a distribution, drawn per trial of a random
 *                              search (search=random trials=N search_seed=S;
 *                              experiments/search.h), which may name a
 *                              pruner (prune=asha|median, experiments/prune.h)
 *
 * Axes multiply in the order given (the first varies slowest; repeats
 * fastest; a random search's trials just above repeats: every point of the
 * grid axes gets every trial, whose drawn keys and number are coordinates,
 * "trial" counting from 1).  A job's config is base, then the variant, then every item in
 * spec order (a later fixed key overrides an earlier one, so a preset's
 * keys can be overridden after its name: `recall steps=100`; a fixed budget
 * key (steps, tokens, seconds) clears the budget keys set before it).  Whitespace
 * after '(' ',' '=' and before ')' ',' '=' is ignored, so
 * "(layers, heads)=(1, 1), (2, 4)" reads as one item.  `$MIXBENCH_DATA`
 * in a value becomes that environment variable (default ../shared/data).
 * Every job is validated as a whole config before anything is returned, so
 * a bad spec yields one error line and no jobs.
 *
 * Not for: running or storing jobs (experiments/scheduler.c, db/jobs.h); the
 * presets' table is experiments/presets.c.
 */
#include "experiments/sweep.h"


#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/io/json.h"
#include "engine/text.h"
#include "experiments/search.h"
#include "experiments/stats.h"

enum { MAX_ITEMS = 64, MAX_ZIP = 16, MAX_JOBS = 10000, MAX_REPEATS = 10000, MAX_DISTS = 16 };

#define DATA_VAR "$MIXBENCH_DATA"
#define DATA_DEFAULT "../shared/data"
#define PAPER_SUFFIX "@paper"

/* One item of the spec: n_keys keys (more than one when zipped) and
   n_tuples tuples of values; an axis when n_tuples > 1. */
typedef struct {
    int n_keys, n_tuples;
    char *keys[MAX_ZIP];
    char **values;          /* [n_tuples * n_keys], pointers into the text */
    char *source;           /* the item as written, for messages */
    Distribution *dist;     /* key=log:..|uniform:..|choice:..: drawn per trial (one key, one tuple) */
} Item;

/* An item that varies from job to job: a grid axis or a distribution. */
static int varies(const Item *it)
{
    return it->n_tuples > 1 || it->dist;
}

typedef struct {
    char *text;             /* mutable copy of the spec; items point into it */
    char *source_text;      /* a second copy, kept whole for messages */
    Item items[MAX_ITEMS];
    int n_items;
    const char *variant;    /* NULL or the variant's name */
    int repeats;
    SweepPlan plan;         /* lr=tune and its tune_* keys, the search and the pruner */
    Distribution dists[MAX_DISTS];
    int n_dists;
} Parsed;

/* 1 when an item of the spec sets key. */
static int names_key(const Parsed *p, const char *key)
{
    for (int i = 0; i < p->n_items; i++)
        for (int k = 0; k < p->items[i].n_keys; k++)
            if (!strcmp(p->items[i].keys[k], key)) return 1;
    return 0;
}

static void parsed_free(Parsed *p)
{
    for (int i = 0; i < p->n_items; i++) free(p->items[i].values);
    free(p->text);
    free(p->source_text);
    memset(p, 0, sizeof *p);
}

/* Levenshtein distance of two short strings (names of keys and presets). */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63) return 99;
    int row[64];
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The known key nearest to key (config keys, repeats, variant, the search
   words), or NULL when none is within edit distance 2. */
static const char *nearest_key(const char *key)
{
    const char *best = NULL;
    int best_d = 3;
    int n = config_key_count();
    for (int i = 0; i < n + 2 || search_word(i - n - 2); i++) {
        const char *name = i < n ? config_key_name(i) : i == n ? "repeats" : i == n + 1 ? "variant" : search_word(i - n - 2);
        int d = edit_distance(key, name);
        if (d < best_d) best_d = d, best = name;
    }
    return best;
}

static const char *nearest_preset(const char *name)
{
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; i < preset_count(); i++) {
        int d = edit_distance(name, preset_at(i)->name);
        if (d < best_d) best_d = d, best = preset_at(i)->name;
    }
    return best;
}

int sweep_edit_distance(const char *a, const char *b) { return edit_distance(a, b); }

const char *sweep_nearest_key(const char *key) { return nearest_key(key); }

int sweep_key_known(const char *key)
{
    const char *near = nearest_key(key);
    return near && !strcmp(near, key);
}

static int unknown_key(const char *key, char *err)
{
    const char *near = nearest_key(key);
    if (near) return err_set(err, "sweep: unknown key '%s' (did you mean '%s'?)", key, near);
    return err_set(err, "sweep: unknown key '%s' (not a config key: see engine/config.c)", key);
}

static int unknown_word(const char *word, char *err)
{
    const char *near = nearest_preset(word);
    if (near) return err_set(err, "sweep: unknown preset '%s' (did you mean '%s'?)", word, near);
    char names[512];
    size_t len = 0;
    names[0] = 0;
    for (int i = 0; i < preset_count() && len < sizeof names; i++)
        len += snprintf(names + len, sizeof names - len, "%s%s", i ? " " : "", preset_at(i)->name);
    return err_set(err, "sweep: '%s' is neither key=value nor a preset (presets: %s)", word, names);
}

/* Drops whitespace after '(' ',' '=' and before ')' ',' '=', and turns
   every other run of whitespace into one space; trims both ends. */
static void normalize(char *s)
{
    char *out = s;
    for (char *p = s; *p;) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            char *q = p;
            while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
            int glue = out == s || !*q || strchr("(,=", out[-1]) || strchr("),=", *q);
            if (!glue) *out++ = ' ';
            p = q;
        } else {
            *out++ = *p++;
        }
    }
    *out = 0;
}

char *sweep_expand_data_var(const char *s)
{
    const char *data = getenv("MIXBENCH_DATA");
    if (!data || !*data) data = DATA_DEFAULT;
    StrBuf sb;
    sb_init(&sb);
    size_t var_len = strlen(DATA_VAR);
    for (const char *p = s;;) {
        const char *hit = strstr(p, DATA_VAR);
        if (!hit) {
            sb_append(&sb, p);
            break;
        }
        sb_append_len(&sb, p, (size_t)(hit - p));
        sb_append(&sb, data);
        p = hit + var_len;
    }
    if (!sb_ok(&sb)) {
        sb_free(&sb);
        return NULL;
    }
    return sb.data;
}

/* Splits s at every top-level comma into at most cap pieces (NUL-terminating
   them in place); returns the count, or -1 when there are more than cap. */
static int split_commas(char *s, char **out, int cap)
{
    int n = 0;
    for (char *p = s;;) {
        if (n == cap) return -1;
        out[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) break;
        *comma = 0;
        p = comma + 1;
    }
    return n;
}

/* The keys of the grammar that are not config keys: consumed by the parser. */
static int special_key(const char *key)
{
    return !strcmp(key, "repeats") || !strcmp(key, "variant") || !strcmp(key, "tune_lr") ||
           !strcmp(key, "tune_points") || !strcmp(key, "tune_share") || !strcmp(key, "alpha") || search_is_word(key);
}

/* A key of the grammar: a config key, or (when allow_special) repeats,
   variant, a tune_* key or a search word. */
static int check_key(const char *key, int allow_special, const char *source, char *err)
{
    if (!*key) return err_set(err, "sweep: '%s' has an empty key", source);
    if (special_key(key)) {
        if (allow_special) return 0;
        return err_set(err, "sweep: %s cannot be zipped ('%s')", key, source);
    }
    if (!config_is_key(key)) return unknown_key(key, err);
    return 0;
}

/* Checks that value is of key's type and range, with config.c's message. */
static int check_value(const char *key, const char *value, char *err)
{
    Config scratch;
    config_defaults(&scratch);
    return config_set(&scratch, key, value, err);
}

/* lr=tune's keys: tune_lr=LO..HI, tune_points=N, tune_share=F. */
static int parse_tune_key(Parsed *p, const char *key, const char *value, char *err)
{
    SweepPlan *t = &p->plan;
    if (!strcmp(key, "tune_points")) {
        if (text_to_int(value, 2, 64, &t->tune_points))
            return err_set(err, "sweep: tune_points=%s must be a whole number in [2, 64]", value);
        return 0;
    }
    if (!strcmp(key, "tune_share")) {
        if (text_to_double(value, &t->tune_share) || !(t->tune_share > 0 && t->tune_share <= 1))
            return err_set(err, "sweep: tune_share=%s must be a number in (0, 1]", value);
        return 0;
    }
    /* tune_lr=LO..HI */
    const char *dots = strstr(value, "..");
    char lo[64];
    if (!dots || (size_t)(dots - value) >= sizeof lo)
        return err_set(err, "sweep: tune_lr=%s is not LO..HI (e.g. 3e-4..1e-2)", value);
    snprintf(lo, sizeof lo, "%.*s", (int)(dots - value), value);
    if (text_to_double(lo, &t->tune_lo) || text_to_double(dots + 2, &t->tune_hi) || !(t->tune_lo > 0) ||
        !(t->tune_hi > t->tune_lo) || t->tune_hi > 10)
        return err_set(err, "sweep: tune_lr=%s needs 0 < LO < HI <= 10", value);
    return 0;
}

/* key=v1,v2,... */
static int parse_plain(Parsed *p, Item *it, char *word, char *err)
{
    char *eq = strchr(word, '=');
    *eq = 0;
    char *key = word, *list = eq + 1;
    if (check_key(key, 1, it->source, err)) return -1;
    if (!*list) return err_set(err, "sweep: %s= has no value", key);
    if (search_is_distribution(list) && !special_key(key)) {
        /* drawn per trial: one key, one "tuple" (experiments/search.h) */
        if (p->n_dists == MAX_DISTS) return err_set(err, "sweep: more than %d distributions", MAX_DISTS);
        it->dist = &p->dists[p->n_dists++];
        it->n_keys = 1;
        it->keys[0] = key;
        it->n_tuples = 1;
        return search_parse_distribution(key, list, it->source, it->dist, err);
    }
    int cap = 1;
    for (const char *c = list; *c; c++) cap += *c == ',';
    it->values = calloc((size_t)cap, sizeof *it->values);
    if (!it->values) return err_set(err, "sweep: out of memory");
    int n = split_commas(list, it->values, cap);
    for (int i = 0; i < n; i++)
        if (!*it->values[i]) return err_set(err, "sweep: %s has an empty value (value %d)", it->source, i + 1);
    it->n_keys = 1;
    it->keys[0] = key;
    it->n_tuples = n;
    if (!strcmp(key, "lr") && n == 1 && !strcmp(list, "tune")) {
        p->plan.lr_tune = 1;   /* each point's lr is searched (experiments/adaptive.h) */
        it->n_keys = 0;
        return 0;
    }
    if (!strcmp(key, "tune_lr") || !strcmp(key, "tune_points") || !strcmp(key, "tune_share")) {
        if (n > 1) return err_set(err, "sweep: %s takes one value ('%s')", key, it->source);
        it->n_keys = 0;
        return parse_tune_key(p, key, list, err);
    }
    if (!strcmp(key, "alpha")) {
        /* the level of the claims' verdicts: (1 - 2 alpha) intervals need alpha < 0.5 */
        if (n > 1) return err_set(err, "sweep: %s takes one value ('%s')", key, it->source);
        it->n_keys = 0;
        if (text_to_double(list, &p->plan.alpha) || !(p->plan.alpha > 0 && p->plan.alpha < 0.5))
            return err_set(err, "sweep: alpha=%s must be a number in (0, 0.5), the level of the verdicts (0.05)", list);
        return 0;
    }
    if (search_is_word(key)) {
        if (n > 1) return err_set(err, "sweep: %s takes one value ('%s')", key, it->source);
        it->n_keys = 0;
        return search_set_word(&p->plan, key, list, err);
    }
    if (!strcmp(key, "repeats") || !strcmp(key, "variant")) {
        if (n > 1) return err_set(err, "sweep: %s takes one value ('%s')", key, it->source);
        if (!strcmp(key, "variant")) {
            if (p->variant) return err_set(err, "sweep: variant is given twice");
            Config scratch;
            config_defaults(&scratch);
            if (config_apply_variant(&scratch, list, err)) return -1;
            p->variant = list;
        } else {
            if (p->repeats) return err_set(err, "sweep: repeats is given twice");
            if (text_to_int(list, 1, MAX_REPEATS, &p->repeats))
                return err_set(err, "sweep: repeats=%s must be a whole number in [1, %d]", list, MAX_REPEATS);
        }
        it->n_keys = 0;        /* consumed: not applied as config keys */
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (check_value(key, it->values[i], err)) return -1;
    return 0;
}

/* (k1,k2,...)=(a1,a2,...),(b1,b2,...) */
static int parse_zip(Item *it, char *word, char *err)
{
    char *close = strstr(word, ")=");
    if (!close) return err_set(err, "sweep: '%s' is not (key,key,...)=(value,value,...),...", it->source);
    *close = 0;
    char *keys = word + 1, *rest = close + 2;
    if (strchr(keys, '(') || strchr(keys, ')'))
        return err_set(err, "sweep: '%s' is not (key,key,...)=(value,value,...),...", it->source);
    int nk = split_commas(keys, it->keys, MAX_ZIP);
    if (nk < 0) return err_set(err, "sweep: '%s' zips more than %d keys", it->source, MAX_ZIP);
    it->n_keys = nk;
    for (int k = 0; k < nk; k++) {
        if (check_key(it->keys[k], 0, it->source, err)) return -1;
        for (int j = 0; j < k; j++)
            if (!strcmp(it->keys[j], it->keys[k]))
                return err_set(err, "sweep: duplicate axis key '%s' in '%s'", it->keys[k], it->source);
    }
    if (!*rest) return err_set(err, "sweep: %s= has no value", it->source);
    int cap = 1;
    for (const char *c = rest; *c; c++) cap += *c == '(';
    it->values = calloc((size_t)cap * (size_t)nk, sizeof *it->values);
    if (!it->values) return err_set(err, "sweep: out of memory");
    int t = 0;
    for (char *q = rest;;) {
        if (*q != '(') return err_set(err, "sweep: in '%s' tuple %d does not start with '('", it->source, t + 1);
        char *end = strchr(q, ')');
        if (!end) return err_set(err, "sweep: in '%s' tuple %d has no ')'", it->source, t + 1);
        *end = 0;
        char *inner = q + 1;
        if (strchr(inner, '(')) return err_set(err, "sweep: in '%s' tuple %d has no ')'", it->source, t + 1);
        char *vals[MAX_ZIP + 1];
        int nv = split_commas(inner, vals, MAX_ZIP + 1);
        if (nv != nk) {
            /* re-join the tuple's values for the message */
            char shown[256];
            size_t len = 0;
            int count = nv < 0 ? MAX_ZIP + 1 : nv;
            for (int v = 0; v < count && len < sizeof shown; v++)
                len += snprintf(shown + len, sizeof shown - len, "%s%s", v ? "," : "", vals[v]);
            return err_set(err, "sweep: tuple %d (%s) of '%s' has %s%d value%s for %d keys", t + 1, shown,
                           it->source, nv < 0 ? "more than " : "", count - (nv < 0), count == 1 ? "" : "s", nk);
        }
        for (int v = 0; v < nk; v++) {
            if (!*vals[v])
                return err_set(err, "sweep: tuple %d of '%s' has an empty value for %s", t + 1, it->source,
                               it->keys[v]);
            if (search_is_distribution(vals[v]))
                return err_set(err, "sweep: a distribution cannot be zipped ('%s')", it->source);
            if (check_value(it->keys[v], vals[v], err)) return -1;
            it->values[t * nk + v] = vals[v];
        }
        t++;
        q = end + 1;
        if (!*q) break;
        if (*q != ',') return err_set(err, "sweep: in '%s' tuples must be separated by ','", it->source);
        q++;
        if (!*q) return err_set(err, "sweep: '%s' has an empty tuple at the end", it->source);
    }
    it->n_tuples = t;
    return 0;
}

/* The spec text (normalized, variable expanded) into items. */
static int parse_items(Parsed *p, const char *spec, char *err)
{
    p->text = strdup(spec);
    p->source_text = strdup(spec);
    if (!p->text || !p->source_text) return err_set(err, "sweep: out of memory");
    char *save = NULL, *save_src = NULL;
    char *word = strtok_r(p->text, " ", &save);
    char *src = strtok_r(p->source_text, " ", &save_src);
    for (; word; word = strtok_r(NULL, " ", &save), src = strtok_r(NULL, " ", &save_src)) {
        if (p->n_items == MAX_ITEMS) return err_set(err, "sweep: more than %d items", MAX_ITEMS);
        Item *it = &p->items[p->n_items++];
        it->source = src;
        if (word[0] == '(') {
            if (parse_zip(it, word, err)) return -1;
        } else if (strchr(word, '=')) {
            if (word[0] == '=') return err_set(err, "sweep: '%s' has an empty key", src);
            if (parse_plain(p, it, word, err)) return -1;
        } else {
            if (preset_find(word))
                return err_set(err, "sweep: preset '%s' must come first, alone or followed by keys", word);
            if (p->n_items == 1) return unknown_word(word, err);
            return err_set(err, "sweep: '%s' is not key=value", word);
        }
    }
    if (!p->repeats) p->repeats = 1;
    if (!p->plan.lr_tune && (p->plan.tune_points || p->plan.tune_share > 0 || p->plan.tune_lo > 0))
        return err_set(err, "sweep: tune_lr, tune_points and tune_share go with lr=tune");
    if (!p->plan.tune_points) p->plan.tune_points = 5;
    if (!(p->plan.tune_share > 0)) p->plan.tune_share = 0.125;
    if (!(p->plan.alpha > 0)) p->plan.alpha = STATS_ALPHA;
    if (!(p->plan.tune_lo > 0)) p->plan.tune_lo = 3e-4, p->plan.tune_hi = 1e-2;
    if (search_plan_finish(&p->plan, p->n_dists, err)) return -1;
    /* an axis key may appear once; a fixed key may be repeated (last wins) */
    for (int a = 0; a < p->n_items; a++)
        for (int ka = 0; ka < p->items[a].n_keys; ka++)
            for (int b = a + 1; b < p->n_items; b++)
                for (int kb = 0; kb < p->items[b].n_keys; kb++) {
                    if (strcmp(p->items[a].keys[ka], p->items[b].keys[kb])) continue;
                    if (varies(&p->items[a]) || varies(&p->items[b]))
                        return err_set(err,
                                       "sweep: duplicate axis key '%s' (an axis is given once, and a key after "
                                       "a preset's name cannot replace one of its axes)",
                                       p->items[a].keys[ka]);
                }
    if (p->repeats > 1)
        for (int a = 0; a < p->n_items; a++)
            for (int k = 0; k < p->items[a].n_keys; k++)
                if (varies(&p->items[a]) && !strcmp(p->items[a].keys[k], "seed"))
                    return err_set(err, "sweep: seed is an axis, so repeats cannot set it");
    return 0;
}

/* A fixed budget key replaces the budget set before it: `recall steps=100`
   clears the preset's tokens= instead of being outranked by it (the
   trainer prefers tokens, then seconds, then steps).  Budget axes are left
   alone: a grid over steps and tokens means both. */
static void clear_other_budgets(Config *c, const char *key)
{
    int steps = !strcmp(key, "steps"), tokens = !strcmp(key, "tokens"), seconds = !strcmp(key, "seconds");
    if (!steps && !tokens && !seconds) return;
    if (steps && c->steps == 0) return;
    if (tokens && c->tokens == 0) return;
    if (seconds && c->seconds == 0) return;
    if (!tokens) c->tokens = 0;
    if (!seconds) c->seconds = 0;
}

/* Appends a preset's spec, without its repeats=R item when the user gives
   repeats (`PRESET repeats=1` runs one seed: the user's count replaces the
   preset's, as a fixed key after a preset does). */
static void append_preset_spec(StrBuf *sb, const char *spec, int drop_repeats)
{
    const char *hit = drop_repeats ? strstr(spec, "repeats=") : NULL;
    while (hit && hit != spec && hit[-1] != ' ') hit = strstr(hit + 1, "repeats=");
    if (!hit) {
        sb_append(sb, spec);
        return;
    }
    sb_append_len(sb, spec, (size_t)(hit - spec));
    sb_append(sb, hit + strcspn(hit, " "));
}

/* 1 when spec has data among its axes (key=a,b or in a zipped key list). */
static int spec_has_data_axis(const char *spec)
{
    for (const char *p = spec; (p = strstr(p, "data")) != NULL; p += 4) {
        int starts = p == spec || strchr(" (,", p[-1]);
        if (!starts) continue;
        if (p[4] == ',' || p[4] == ')') return 1;                    /* (data,min_count)=... */
        if (p[4] == '=' && strcspn(p + 5, " ,") < strcspn(p + 5, " ")) return 1;   /* data=a,b */
    }
    return 0;
}

int preset_data(const Preset *p, char *out, size_t cap)
{
    assert(p && out && cap > 0);
    out[0] = 0;
    const char *w = p->spec;
    while ((w = strstr(w, "data")) != NULL && !(w == p->spec || strchr(" (,", w[-1]))) w += 4;
    if (!w) return -1;
    if (spec_has_data_axis(p->spec)) {
        snprintf(out, cap, "%.*s", (int)strcspn(w, " "), w);
        return 0;
    }
    if (w[4] != '=') return -1;
    char word[512];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(w + 5, " "), w + 5);
    char *expanded = sweep_expand_data_var(word);
    snprintf(out, cap, "%s", expanded ? expanded : word);
    free(expanded);
    return 1;
}

/* 1 when spec sets data (data=..., or data among a zipped item's keys). */
static int spec_names_data(const char *spec)
{
    for (const char *p = spec; (p = strstr(p, "data")) != NULL; p += 4)
        if ((p == spec || strchr(" (,", p[-1])) && p[4] && strchr("=,)", p[4])) return 1;
    return 0;
}

/* A grid run on the base config's dataset (`sweep ... --data D`, the New
   sweep form's Dataset) says so in its spec, "data=D" first, when the spec
   does not name its own: the stored spec then makes the same jobs again
   (lr=tune and the pruner parse it again to queue and extend). */
static void grid_data_first(StrBuf *sb, const Config *base)
{
    Config defaults;
    config_defaults(&defaults);
    if (!strcmp(base->data, defaults.data) || strpbrk(base->data, " ,\t") || spec_names_data(sb->data)) return;
    StrBuf full;
    sb_init(&full);
    sb_append(&full, "data=");
    sb_append(&full, base->data);
    sb_append(&full, " ");
    sb_append(&full, sb->data);
    sb_free(sb);
    *sb = full;
}

/* Joins argv, resolves a leading preset name (data: the caller's dataset,
   which replaces the preset's; NULL: none), normalizes and expands. */
static int build_spec(int argc, char **argv, const Config *base, const char *data, Sweep *out, char **spec,
                      char *err)
{
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < argc; i++) {
        if (i) sb_append(&sb, " ");
        sb_append(&sb, argv[i]);
    }
    if (!sb_ok(&sb)) return err_set(err, "sweep: out of memory");
    /* no words (argc 0) leaves sb on its shared read-only "": normalize
       must not write to it (found by tests/fuzz/fuzz_sweep.c) */
    if (sb.len > 0) normalize(sb.data);
    if (!sb.data[0]) {
        sb_free(&sb);
        return err_set(err, "sweep: empty spec (give key=v1,v2 ... or a preset name)");
    }
    snprintf(out->name, sizeof out->name, "grid");
    size_t first_len = strcspn(sb.data, " ");
    char first[1024];
    if (first_len < sizeof first && !memchr(sb.data, '=', first_len) && sb.data[0] != '(') {
        memcpy(first, sb.data, first_len);
        first[first_len] = 0;
        /* FILE.yaml: a study file, known from now on by its name (study.h) */
        size_t sfx = strlen(PAPER_SUFFIX);
        int file_at_paper = first_len > sfx && !strcmp(first + first_len - sfx, PAPER_SUFFIX);
        if (file_at_paper) first[first_len - sfx] = 0;
        if (preset_from_file(first, sizeof first, err)) {
            sb_free(&sb);
            return -1;
        }
        if (file_at_paper) snprintf(first + strlen(first), sizeof first - strlen(first), "%s", PAPER_SUFFIX);
        size_t name_len = strlen(first);
        /* NAME@paper: the preset at its paper's own size */
        size_t suffix = strlen(PAPER_SUFFIX);
        int at_paper = name_len > suffix && !strcmp(first + name_len - suffix, PAPER_SUFFIX);
        if (at_paper) first[name_len - suffix] = 0;
        const Preset *pr = preset_find(first);
        if (!pr) {
            sb_free(&sb);
            return unknown_word(first, err);
        }
        if (at_paper && !pr->paper_spec) {
            sb_free(&sb);
            return err_set(err, "sweep: %s has no paper setting (%s): queue it without @paper", pr->name, pr->source);
        }
        const char *preset_spec = at_paper ? pr->paper_spec : pr->spec;
        StrBuf full;
        sb_init(&full);
        append_preset_spec(&full, preset_spec, strstr(sb.data + first_len, " repeats=") != NULL);
        if (data) {
            /* the caller's data replaces the preset's own (a fixed key, like `PRESET data=D`) */
            if (spec_has_data_axis(preset_spec)) {
                sb_free(&sb);
                sb_free(&full);
                return err_set(err,
                               "sweep: %s runs on its paper's corpora (data is one of its axes), so --data cannot "
                               "replace them; set MIXBENCH_DATA to the folder that holds them",
                               pr->name);
            }
            sb_append(&full, " data=");
            sb_append(&full, data);
        }
        sb_append(&full, sb.data + first_len);
        sb_free(&sb);
        if (!sb_ok(&full)) return err_set(err, "sweep: out of memory");
        normalize(full.data);
        sb = full;
        snprintf(out->name, sizeof out->name, "%s%s", pr->name, at_paper ? PAPER_SUFFIX : "");
    } else {
        grid_data_first(&sb, base);
        if (!sb_ok(&sb)) return err_set(err, "sweep: out of memory");
    }
    *spec = sweep_expand_data_var(sb.data);
    sb_free(&sb);
    if (!*spec) return err_set(err, "sweep: out of memory");
    if (strlen(*spec) >= sizeof out->spec) {
        free(*spec);
        *spec = NULL;
        return err_set(err, "sweep: the spec is longer than %zu characters", sizeof out->spec - 1);
    }
    snprintf(out->spec, sizeof out->spec, "%s", *spec);
    return 0;
}

int sweep_parse(int argc, char **argv, const Config *base, Sweep *out, char *err)
{
    assert(base && out && err);
    return sweep_parse_data(argc, argv, base, NULL, out, err);
}

/* How many jobs: the product of the axes' lengths, times the trials of a
   random search, times repeats; more than MAX_JOBS is refused. */
static int count_jobs(const Parsed *p, long *n_jobs, char *err)
{
    double total = (double)p->repeats * (p->plan.random_search ? p->plan.trials : 1);
    for (int i = 0; i < p->n_items; i++)
        if (p->items[i].n_keys && p->items[i].n_tuples > 1) total *= p->items[i].n_tuples;
    if (total > MAX_JOBS) return err_set(err, "sweep: %.0f jobs is more than the limit of %d", total, MAX_JOBS);
    *n_jobs = (long)total;
    return 0;
}

/* The axes as a JSON array: the varying keys in spec order, then trial,
   then seed; the drawn keys into the plan's search_keys. */
static int axes_json(Parsed *p, Sweep *out, char *err)
{
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "[");
    int n_axis_keys = 0;
    size_t keys_len = 0;
    for (int i = 0; i < p->n_items; i++)
        for (int k = 0; varies(&p->items[i]) && k < p->items[i].n_keys; k++) {
            if (n_axis_keys++) sb_append(&sb, ", ");
            sb_json_string(&sb, p->items[i].keys[k]);
            if (p->items[i].dist && keys_len < sizeof p->plan.search_keys)
                keys_len += (size_t)snprintf(p->plan.search_keys + keys_len, sizeof p->plan.search_keys - keys_len,
                                             "%s%s", keys_len ? " " : "", p->items[i].keys[k]);
        }
    if (p->plan.random_search) sb_append(&sb, n_axis_keys++ ? ", \"trial\"" : "\"trial\"");
    if (p->repeats > 1) sb_append(&sb, n_axis_keys ? ", \"seed\"" : "\"seed\"");
    sb_append(&sb, "]");
    int rc = 0;
    if (!sb_ok(&sb) || sb.len >= sizeof out->axes || keys_len >= sizeof p->plan.search_keys)
        rc = err_set(err, "sweep: the list of axes is longer than %zu characters", sizeof out->axes - 1);
    else
        memcpy(out->axes, sb.data, sb.len + 1);
    sb_free(&sb);
    return rc;
}

/* ", "key": "value"" (the comma after the first) onto a job's coordinates. */
static void add_coord(StrBuf *sb, int *n_coords, const char *key, const char *value)
{
    if ((*n_coords)++) sb_append(sb, ", ");
    sb_json_string(sb, key);
    sb_append(sb, ": ");
    sb_json_string(sb, value);
}

/* Job j of n_jobs: its config from base, the variant and the items at its
   point (its axes' tuples, its trial's draws, its seed), its coordinates,
   and the whole config validated. */
static int build_job(const Parsed *p, const Config *base, long j, long n_jobs, SweepJob *job, char *err)
{
    Config *c = &job->config;
    *c = *base;
    if (p->variant && config_apply_variant(c, p->variant, err)) return -1;
    /* tuple index of every axis: mixed radix, the last axis fastest, then
       the trial, then the seed */
    int tuple[MAX_ITEMS];
    long point = j / p->repeats;
    int trial = p->plan.random_search ? (int)(point % p->plan.trials) : 0;
    if (p->plan.random_search) point /= p->plan.trials;
    for (int i = p->n_items - 1; i >= 0; i--) {
        int n = p->items[i].n_keys ? p->items[i].n_tuples : 1;
        tuple[i] = (int)(point % n);
        point /= n;
    }
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "{");
    int n_coords = 0, rc = 0;
    for (int i = 0; rc == 0 && i < p->n_items; i++) {
        const Item *it = &p->items[i];
        for (int k = 0; rc == 0 && k < it->n_keys; k++) {
            char drawn[256];
            if (it->dist) search_sample(it->dist, p->plan.search_seed, trial, drawn, sizeof drawn);
            const char *value = it->dist ? drawn : it->values[tuple[i] * it->n_keys + k];
            rc = config_set(c, it->keys[k], value, err);
            if (!varies(it)) clear_other_budgets(c, it->keys[k]);
            else add_coord(&sb, &n_coords, it->keys[k], value);
        }
    }
    if (p->plan.random_search) {
        char number[16];
        snprintf(number, sizeof number, "%d", trial + 1);
        add_coord(&sb, &n_coords, "trial", number);
    }
    if (p->repeats > 1) {
        c->seed += j % p->repeats;
        sb_printf(&sb, "%s\"seed\": \"%lld\"", n_coords ? ", " : "", (long long)c->seed);
    }
    sb_append(&sb, "}");
    if (rc == 0 && (!sb_ok(&sb) || sb.len >= sizeof job->coords))
        rc = err_set(err, "sweep: the coordinates of job %ld are longer than %zu characters", j + 1,
                     sizeof job->coords - 1);
    if (rc == 0) memcpy(job->coords, sb.data, sb.len + 1);
    sb_free(&sb);
    if (rc) return -1;
    /* a sweep shows validation curves while it trains: eval_every=auto
       (about 20 evaluations a run, experiments/estimate.h) unless the
       spec or the base keys name an eval_every */
    if (c->eval_every == 0 && !names_key(p, "eval_every")) c->eval_every = -1;
    /* the dataset fixes vocab later: validate with a placeholder */
    Config check = *c;
    if (check.vocab == 0) check.vocab = 1000;
    char why[ERR_LEN];
    if (config_validate(&check, why)) return err_set(err, "sweep: job %ld of %ld %s: %s", j + 1, n_jobs, job->coords, why);
    return 0;
}

/* What the plan needs of the jobs: lr=tune and --prune asha continue runs
   (decay=wsd); --prune median judges evaluations made while they train;
   both measure budgets in steps or tokens. */
static int plan_jobs(const Parsed *p, Sweep *out, char *err)
{
    int decay = names_key(p, "decay");
    if (p->plan.lr_tune && sweep_require_wsd(out, "lr=tune", decay, err)) return -1;
    if (p->plan.prune == PRUNE_ASHA && sweep_require_wsd(out, "--prune asha", decay, err)) return -1;
    for (int j = 0; p->plan.prune == PRUNE_MEDIAN && j < out->n_jobs; j++) {
        const Config *c = &out->jobs[j].config;
        if (c->seconds > 0 && c->tokens <= 0)
            return err_set(err, "sweep: --prune median compares trials at equal tokens: give budgets in steps or "
                                "tokens, not seconds");
        if (c->eval_every == 0)
            return err_set(err, "sweep: --prune median judges the evaluations a trial makes while it trains: "
                                "eval_every=0 leaves it only the last");
    }
    return 0;
}

int sweep_parse_data(int argc, char **argv, const Config *base, const char *data, Sweep *out, char *err)
{
    assert(base && out && err);
    memset(out, 0, sizeof *out);
    Parsed p;
    memset(&p, 0, sizeof p);
    char *spec = NULL;
    if (build_spec(argc, argv, base, data, out, &spec, err)) return -1;
    int rc = -1;
    long n_jobs = 0;
    if (parse_items(&p, spec, err) || count_jobs(&p, &n_jobs, err) || axes_json(&p, out, err)) goto done;
    out->jobs = calloc((size_t)n_jobs, sizeof *out->jobs);
    if (!out->jobs) {
        err_set(err, "sweep: out of memory for %ld jobs", n_jobs);
        goto done;
    }
    for (long j = 0; j < n_jobs; j++)
        if (build_job(&p, base, j, n_jobs, &out->jobs[j], err)) goto done;
    out->n_jobs = (int)n_jobs;
    out->plan = p.plan;
    /* a random search over a grid is named for what it is */
    if (out->plan.random_search && !strcmp(out->name, "grid")) snprintf(out->name, sizeof out->name, "search");
    out->names_decay = names_key(&p, "decay");
    if (plan_jobs(&p, out, err)) goto done;
    rc = 0;
done:
    parsed_free(&p);
    free(spec);
    if (rc) {
        free(out->jobs);
        out->jobs = NULL;
        out->n_jobs = 0;
    }
    return rc;
}

int sweep_until_conclusive(Sweep *sw, double max_hours, char *err)
{
    assert(sw && err);
    if (!preset_find(sw->name))
        return err_set(err, "sweep: --until-conclusive needs a preset: its claims decide when to stop (%s has none)",
                       sw->name);
    if (max_hours < 0 || max_hours > 1e6) return err_set(err, "sweep: the cap of %g hours is out of range", max_hours);
    if (sw->plan.random_search)
        return err_set(err, "sweep: --until-conclusive judges a preset's points; a random search's trials are not "
                            "its points");
    sw->plan.until_conclusive = 1;
    sw->plan.max_hours = max_hours;
    return sweep_require_wsd(sw, "--until-conclusive", sw->names_decay, err);
}

int sweep_require_wsd(Sweep *sw, const char *why, int decay_named, char *err)
{
    assert(sw && err);
    for (int j = 0; j < sw->n_jobs; j++) {
        Config *c = &sw->jobs[j].config;
        if (c->decay == DECAY_WSD) continue;
        if (decay_named)
            return err_set(err, "sweep: %s continues runs to larger budgets, which needs decay=wsd (the spec says "
                                "another decay)", why);
        c->decay = DECAY_WSD;
        if (c->seconds > 0 && c->tokens <= 0)
            return err_set(err, "sweep: %s needs budgets in steps or tokens (decay=wsd), not seconds", why);
    }
    return 0;
}

void sweep_free(Sweep *s)
{
    assert(s);
    free(s->jobs);
    s->jobs = NULL;
    s->n_jobs = 0;
}
