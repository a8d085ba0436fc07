/*
 * study.c — reading a study file (study.h, docs/studies.md) with libyaml's
 * document API into a Preset (its grid as a sweep spec, its paper figures)
 * and its claim rules, with one-line errors that name the file, line and
 * column of the node at fault.
 *
 * The spec is written in a fixed order: data=CORPUS, the keys, the axes,
 * lr=tune, the budget, repeats=SEEDS; sweep.c expands it as any grid.
 *
 * Not for: the list of known studies (presets.c), judging (claims.c).
 */
#include "experiments/study.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/io/json.h"

struct Study {
    Preset p;
    ClaimRule *claims;
    int n_claims;
    PaperFigure *figs;
    char **strs;            /* every string the study owns */
    int n_strs, cap_strs;
};

static const char *const KIND_NAMES[R_KIND_COUNT] = {
    "lower", "higher", "equivalent", "ratio_at_least", "slightly_higher",
    "flat", "below_unigram", "near_unigram", "same_standing", "threshold", "min_d", "overtakes",
};

const char *study_kind_name(RuleKind k) { return k >= 0 && k < R_KIND_COUNT ? KIND_NAMES[k] : NULL; }

static const char *const COMPARE_NAMES[MIN_D_COMPARE_COUNT + 1] = {"larger", "no_smaller", "smaller", "no_larger",
                                                                   "closer", NULL};

const char *study_compare_name(MinDCompare c)
{
    return c >= 0 && c < MIN_D_COMPARE_COUNT ? COMPARE_NAMES[c] : NULL;
}

static const char *const TOP_FIELDS[] = {"name", "source", "description", "corpus", "keys", "axes", "lr",
                                         "budget", "seeds", "until_conclusive", "paper", "claims",
                                         "at_paper_size", NULL};
static const char *const BODY_FIELDS[] = {"corpus", "keys", "axes", "lr", "budget", "seeds", NULL};
static const char *const FIGURE_FIELDS[] = {"point", "metric", "value", "source", "setting", NULL};
static const char *const CLAIM_FIELDS[] = {"claim", "kind", "metric", "a", "b", "pair_on", "margin",
                                           "nats", "settings", "former", "at_least", "at_most", "for",
                                           "compare", "to", "ratio", NULL};

typedef struct {
    yaml_document_t *doc;
    const char *file;
    char *err;
    Study *s;
    /* with check_jobs: the grid's jobs, each as coordinates plus arch and task */
    int check;
    Sweep sw;
    int have_sw;
    CoordPair (*jobs)[RESULT_MAX_COORDS + 2];
    int *n_coords;
    char axes[RESULT_MAX_COORDS][64];
    int n_axes;
} Ctx;

/* ---- small helpers ------------------------------------------------------- */

static int fail_at(Ctx *x, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(Ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n) return err_set(x->err, "%s:%zu:%zu: %s", x->file, n->start_mark.line + 1, n->start_mark.column + 1, msg);
    return err_set(x->err, "%s: %s", x->file, msg);
}

static char *own(Study *s, const char *text)
{
    if (!text) return NULL;
    if (s->n_strs == s->cap_strs) {
        int cap = s->cap_strs ? 2 * s->cap_strs : 64;
        char **m = realloc(s->strs, (size_t)cap * sizeof *m);
        if (!m) return NULL;
        s->strs = m;
        s->cap_strs = cap;
    }
    char *d = strdup(text);
    if (d) s->strs[s->n_strs++] = d;
    return d;
}

static yaml_node_t *node(Ctx *x, int i) { return yaml_document_get_node(x->doc, i); }

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The nearest of names (NULL-terminated) to word within 2 edits, or NULL. */
static const char *nearest(const char *word, const char *const *names)
{
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; names[i]; i++) {
        int d = sweep_edit_distance(word, names[i]);
        if (d < best_d) best_d = d, best = names[i];
    }
    return best;
}

static int unknown_field(Ctx *x, const yaml_node_t *k, const char *where, const char *const *fields)
{
    const char *near = nearest(scalar(k), fields);
    if (near) return fail_at(x, k, "unknown field '%s' %s (did you mean '%s'?)", scalar(k), where, near);
    char list[512];
    size_t len = 0;
    list[0] = 0;
    for (int i = 0; fields[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", fields[i]);
    return fail_at(x, k, "unknown field '%s' %s (fields: %s)", scalar(k), where, list);
}

/* The mapping n's values by field name into vals[] (index as fields[]);
   unknown fields, repeated fields and non-string keys are refused. */
static int fields_of(Ctx *x, yaml_node_t *n, const char *where, const char *const *fields, yaml_node_t **vals,
                     yaml_node_t **keys)
{
    if (!n || n->type != YAML_MAPPING_NODE) return fail_at(x, n, "%s must be a mapping of fields", where);
    for (int i = 0; fields[i]; i++) vals[i] = keys[i] = NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(x, p->key), *v = node(x, p->value);
        if (!scalar(k)) return fail_at(x, k, "a field name must be a word (%s)", where);
        int f = -1;
        for (int i = 0; fields[i]; i++)
            if (!strcmp(fields[i], scalar(k))) f = i;
        if (f < 0) return unknown_field(x, k, where, fields);
        if (vals[f]) return fail_at(x, k, "field '%s' given twice %s", scalar(k), where);
        vals[f] = v;
        keys[f] = k;
    }
    return 0;
}

/* A scalar that can stand as one value in a spec: no blank, comma,
   parenthesis or '|'. */
static int spec_value(Ctx *x, const yaml_node_t *n, const char *what, const char **out)
{
    const char *v = scalar(n);
    if (!v) return fail_at(x, n, "%s must be a single value", what);
    if (!*v) return fail_at(x, n, "%s is empty", what);
    for (const char *p = v; *p; p++)
        if (isspace((unsigned char)*p) || strchr(",()|", *p))
            return fail_at(x, n, "%s '%s' holds '%c', which a value cannot (a list of values is an axis)", what, v,
                           *p);
    *out = v;
    return 0;
}

static int known_key(Ctx *x, const yaml_node_t *k, const char *name)
{
    if (sweep_key_known(name)) return 0;
    /* lr=tune's keys and the sweep's alpha are spec words, not config keys */
    static const char *const words[] = {"tune_lr", "tune_points", "tune_share", "alpha"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(name, words[i])) return 0;
    const char *near = sweep_nearest_key(name);
    if (near) return fail_at(x, k, "unknown key '%s' (did you mean '%s'?)", name, near);
    return fail_at(x, k, "unknown key '%s' (not a config key: mixbench help run)", name);
}

static int number_of(Ctx *x, const yaml_node_t *n, const char *what, double *out)
{
    const char *v = scalar(n);
    char *end;
    if (!v || !*v) return fail_at(x, n, "%s must be a number", what);
    *out = strtod(v, &end);
    if (*end || !isfinite(*out)) return fail_at(x, n, "%s '%s' is not a number", what, v);
    return 0;
}

/* ---- the grid: corpus, keys, axes, lr, budget, seeds ------------------------ */

static int body_keys(Ctx *x, yaml_node_t *n, const char *field, StrBuf *sb)
{
    if (n->type != YAML_MAPPING_NODE) return fail_at(x, n, "%s must be a mapping of key: value", field);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(x, p->key), *v = node(x, p->value);
        const char *val = "";
        if (!scalar(k)) return fail_at(x, k, "a key in %s must be a word", field);
        if (known_key(x, k, scalar(k))) return -1;
        if (!strcmp(scalar(k), "repeats")) return fail_at(x, k, "repeats: give the study's seeds as 'seeds: N'");
        char what[96];
        snprintf(what, sizeof what, "%s: %.60s", field, scalar(k));
        if (v->type == YAML_SEQUENCE_NODE)
            return fail_at(x, v, "%s is a list: a list of values is an axis (under axes)", what);
        if (spec_value(x, v, what, &val)) return -1;
        sb_printf(sb, "%s=%s ", what + strlen(field) + 2, val);
    }
    return 0;
}

/* "(a, b)" -> keys[]; 0 when name is not a zipped key list. */
static int zip_keys(const char *name, char keys[][64], int cap, int *n)
{
    size_t len = strlen(name);
    *n = 0;
    if (len < 3 || name[0] != '(' || name[len - 1] != ')') return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)(len - 2), name + 1);
    char *save = NULL;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*w)) w++;
        char *e = w + strlen(w);
        while (e > w && isspace((unsigned char)e[-1])) *--e = 0;
        if (*n < cap) snprintf(keys[(*n)++], 64, "%s", w);
    }
    return 1;
}

static int body_axes(Ctx *x, yaml_node_t *n, StrBuf *sb)
{
    if (n->type != YAML_MAPPING_NODE) return fail_at(x, n, "axes must be a mapping of key: [values]");
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(x, p->key), *v = node(x, p->value);
        const char *name = scalar(k);
        if (!name) return fail_at(x, k, "an axis must be named by a key or '(key, key)'");
        char keys[8][64];
        int nk;
        if (zip_keys(name, keys, 8, &nk)) {
            /* zipped: a list of tuples, one value per key */
            if (nk < 2) return fail_at(x, k, "'%s' zips fewer than two keys", name);
            for (int i = 0; i < nk; i++)
                if (known_key(x, k, keys[i])) return -1;
            if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.start == v->data.sequence.items.top)
                return fail_at(x, v, "axis '%s' needs a list of tuples [[v1, v2], ...]", name);
            sb_append(sb, "(");
            for (int i = 0; i < nk; i++) sb_printf(sb, "%s%s", i ? "," : "", keys[i]);
            sb_append(sb, ")=");
            for (yaml_node_item_t *t = v->data.sequence.items.start; t < v->data.sequence.items.top; t++) {
                yaml_node_t *tup = node(x, *t);
                int len = tup->type == YAML_SEQUENCE_NODE
                              ? (int)(tup->data.sequence.items.top - tup->data.sequence.items.start)
                              : -1;
                if (len != nk)
                    return fail_at(x, tup, "a tuple of axis '%s' needs %d values, [v1, v2%s]", name, nk,
                                   nk > 2 ? ", ..." : "");
                sb_append(sb, t == v->data.sequence.items.start ? "(" : ",(");
                for (int i = 0; i < nk; i++) {
                    const char *val;
                    if (spec_value(x, node(x, tup->data.sequence.items.start[i]), keys[i], &val)) return -1;
                    sb_printf(sb, "%s%s", i ? "," : "", val);
                }
                sb_append(sb, ")");
            }
            sb_append(sb, " ");
            continue;
        }
        if (known_key(x, k, name)) return -1;
        if (v->type == YAML_SCALAR_NODE) {
            /* a distribution, drawn by a random search (search.h) */
            const char *val;
            if (spec_value(x, v, name, &val)) return -1;
            if (strncmp(val, "log:", 4) && strncmp(val, "uniform:", 8) && strncmp(val, "choice:", 7))
                return fail_at(x, v, "axis '%s' is one value: give a list [v1, v2] or a distribution "
                                     "(log:LO..HI, uniform:LO..HI, choice:A/B)", name);
            sb_printf(sb, "%s=%s ", name, val);
            continue;
        }
        if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.start == v->data.sequence.items.top)
            return fail_at(x, v, "axis '%s' needs a list of values", name);
        sb_printf(sb, "%s=", name);
        for (yaml_node_item_t *t = v->data.sequence.items.start; t < v->data.sequence.items.top; t++) {
            const char *val;
            if (spec_value(x, node(x, *t), name, &val)) return -1;
            sb_printf(sb, "%s%s", t == v->data.sequence.items.start ? "" : ",", val);
        }
        sb_append(sb, " ");
    }
    return 0;
}

/* fields: BODY_FIELDS' nodes (top level or at_paper_size) -> the spec. */
static int body_spec(Ctx *x, yaml_node_t **f, char **spec)
{
    StrBuf sb;
    sb_init(&sb);
    const char *val;
    int rc = 0;
    if (f[0]) {
        rc = spec_value(x, f[0], "corpus", &val);
        if (!rc) sb_printf(&sb, "data=%s ", val);
    }
    if (!rc && f[1]) rc = body_keys(x, f[1], "keys", &sb);
    if (!rc && f[2]) rc = body_axes(x, f[2], &sb);
    if (!rc && f[3]) {
        if (!scalar(f[3]) || strcmp(scalar(f[3]), "tune"))
            rc = fail_at(x, f[3], "lr: only 'tune' here (a learning-rate search; a fixed lr goes under keys)");
        else
            sb_append(&sb, "lr=tune ");
    }
    if (!rc && f[4]) rc = body_keys(x, f[4], "budget", &sb);
    if (!rc && f[5]) {
        double seeds = 0;
        rc = number_of(x, f[5], "seeds", &seeds);
        if (!rc && (seeds < 1 || seeds > 1000 || seeds != floor(seeds)))
            rc = fail_at(x, f[5], "seeds %s is not a whole number from 1 to 1000", scalar(f[5]));
        if (!rc) sb_printf(&sb, "repeats=%d ", (int)seeds);
    }
    if (!rc && sb.len == 0) rc = fail_at(x, NULL, "the study sets no keys and no axes");
    if (!rc && !sb_ok(&sb)) rc = err_set(x->err, "%s: out of memory", x->file);
    if (!rc) {
        sb.data[sb.len - 1] = 0; /* the last blank */
        *spec = own(x->s, sb.data);
        if (!*spec) rc = err_set(x->err, "%s: out of memory", x->file);
    }
    sb_free(&sb);
    return rc;
}

/* ---- the jobs, for checking claims and figures --------------------------------- */

static int expand_jobs(Ctx *x, const char *spec, yaml_node_t *at)
{
    Config base;
    config_defaults(&base);
    char *argv[1] = {(char *)spec}, err[ERR_LEN];
    if (sweep_parse(1, argv, &base, &x->sw, err)) return fail_at(x, at, "the grid does not expand: %s", err);
    x->have_sw = 1;
    x->jobs = calloc((size_t)x->sw.n_jobs, sizeof *x->jobs);
    x->n_coords = calloc((size_t)x->sw.n_jobs, sizeof *x->n_coords);
    if (!x->jobs || !x->n_coords) return err_set(x->err, "%s: out of memory", x->file);
    for (int j = 0; j < x->sw.n_jobs; j++) {
        JsonValue *o = json_parse(x->sw.jobs[j].coords, strlen(x->sw.jobs[j].coords), err);
        if (!o) return err_set(x->err, "%s: %s", x->file, err);
        int n = 0;
        CoordPair *c = x->jobs[j];
        for (int k = 0; k < o->count && n < RESULT_MAX_COORDS; k++) {
            if (o->items[k].type != JSON_STRING || !strcmp(o->keys[k], "seed")) continue;
            snprintf(c[n].key, sizeof c[n].key, "%s", o->keys[k]);
            snprintf(c[n].value, sizeof c[n].value, "%s", o->items[k].string);
            n++;
        }
        json_free(o);
        /* arch and task select a point when they are not axes (points.h point_select) */
        if (!coord_value(c, n, "arch")) snprintf(c[n].key, sizeof c[n].key, "arch"), snprintf(c[n].value, sizeof c[n].value, "%s", x->sw.jobs[j].config.arch), n++;
        if (!coord_value(c, n, "task")) snprintf(c[n].key, sizeof c[n].key, "task"), snprintf(c[n].value, sizeof c[n].value, "%s", x->sw.jobs[j].config.task), n++;
        x->n_coords[j] = n;
    }
    JsonValue *axes = json_parse(x->sw.axes, strlen(x->sw.axes), err);
    if (!axes) return err_set(x->err, "%s: %s", x->file, err);
    for (int k = 0; k < axes->count && x->n_axes < RESULT_MAX_COORDS; k++)
        if (axes->items[k].type == JSON_STRING && strcmp(axes->items[k].string, "seed"))
            snprintf(x->axes[x->n_axes++], 64, "%s", axes->items[k].string);
    json_free(axes);
    return 0;
}

static int is_axis(Ctx *x, const char *key)
{
    for (int i = 0; i < x->n_axes; i++)
        if (!strcmp(x->axes[i], key)) return 1;
    return !strcmp(key, "arch") || !strcmp(key, "task");
}

static int axes_list(Ctx *x, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < x->n_axes && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "", x->axes[i]);
    if (!x->n_axes) snprintf(out, cap, "none");
    return 0;
}

static int any_job(Ctx *x, const char *selector)
{
    for (int j = 0; j < x->sw.n_jobs; j++)
        if (coords_select(x->jobs[j], x->n_coords[j], selector)) return 1;
    return 0;
}

/* The values key takes over the jobs, "v1, v2, ...", and the one nearest to want. */
static void values_of(Ctx *x, const char *key, const char *want, char *out, size_t cap, const char **near)
{
    size_t len = 0;
    int best = 3;
    out[0] = 0;
    *near = NULL;
    for (int j = 0; j < x->sw.n_jobs; j++) {
        const char *v = coord_value(x->jobs[j], x->n_coords[j], key);
        if (!v) continue;
        int seen = 0;
        for (int i = 0; i < j && !seen; i++) {
            const char *w = coord_value(x->jobs[i], x->n_coords[i], key);
            seen = w && !strcmp(w, v);
        }
        if (seen) continue;
        if (len < cap) len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", v);
        int d = sweep_edit_distance(want, v);
        if (d < best) best = d, *near = v;
    }
}

/* A selector mapping {key: value | [alternatives]} -> "k=v k=v1|v2"; with
   the jobs at hand every key must be an axis (or arch, task) and every
   value one the axes produce. */
static int selector_of(Ctx *x, yaml_node_t *n, const char *what, const char **out)
{
    if (n->type != YAML_MAPPING_NODE) return fail_at(x, n, "%s must be a mapping {key: value, ...}", what);
    StrBuf sb;
    sb_init(&sb);
    int rc = 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; !rc && p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(x, p->key), *v = node(x, p->value);
        const char *key = scalar(k);
        if (!key) {
            rc = fail_at(x, k, "%s: a key must be a word", what);
            break;
        }
        if ((rc = known_key(x, k, key))) break;
        char list[512];
        if (x->check && !is_axis(x, key)) {
            axes_list(x, list, sizeof list);
            rc = fail_at(x, k, "%s names '%s', which is not an axis of the study (axes: %s; and arch, task)", what,
                         key, list);
            break;
        }
        sb_printf(&sb, "%s%s=", sb.len ? " " : "", key);
        yaml_node_item_t *first = NULL, *last = NULL;
        yaml_node_item_t one = p->value;
        if (v->type == YAML_SEQUENCE_NODE) first = v->data.sequence.items.start, last = v->data.sequence.items.top;
        else first = &one, last = &one + 1;
        if (first == last) rc = fail_at(x, v, "%s: %s has no value", what, key);
        for (yaml_node_item_t *t = first; !rc && t < last; t++) {
            const char *val;
            yaml_node_t *vn = node(x, *t);
            if ((rc = spec_value(x, vn, key, &val))) break;
            sb_printf(&sb, "%s%s", t == first ? "" : "|", val);
            if (x->check) {
                char one_sel[256];
                snprintf(one_sel, sizeof one_sel, "%s=%s", key, val);
                if (!any_job(x, one_sel)) {
                    const char *near;
                    values_of(x, key, val, list, sizeof list, &near);
                    if (near) rc = fail_at(x, vn, "%s: %s=%s is a value the axes never produce (did you mean '%s'?)",
                                           what, key, val, near);
                    else rc = fail_at(x, vn, "%s: %s=%s is a value the axes never produce (%s: %s)", what, key, val,
                                      key, list);
                }
            }
        }
    }
    if (!rc && !sb_ok(&sb)) rc = err_set(x->err, "%s: out of memory", x->file);
    if (!rc && x->check && sb.len && !any_job(x, sb.data))
        rc = fail_at(x, n, "%s: no point of the study has all of %s", what, sb.data);
    if (!rc && !(*out = own(x->s, sb.data))) rc = err_set(x->err, "%s: out of memory", x->file);
    sb_free(&sb);
    return rc;
}

/* A metric every task of the selected jobs has: the loss over every
   position only a masked LM measures. */
static int metric_check(Ctx *x, yaml_node_t *n, PointMetric m, const char *what)
{
    if (!x->check || (m != PM_TEST_LOSS_ALL && m != PM_VALID_LOSS_ALL)) return 0;
    for (int j = 0; j < x->sw.n_jobs; j++)
        if (strcmp(x->sw.jobs[j].config.task, "mlm"))
            return fail_at(x, n, "%s: task %s has no metric %s (a masked LM's loss over every position)", what,
                           x->sw.jobs[j].config.task, point_metric_name(m));
    return 0;
}

static int metric_of(Ctx *x, yaml_node_t *n, const char *what, PointMetric *out)
{
    const char *name = scalar(n);
    if (!name) return fail_at(x, n, "%s: metric must be a word", what);
    int m = point_metric_find(name);
    if (m < 0) {
        const char *names[PM_COUNT + 1];
        for (int i = 0; i < PM_COUNT; i++) names[i] = point_metric_name((PointMetric)i);
        names[PM_COUNT] = NULL;
        const char *near = nearest(name, names);
        if (near) return fail_at(x, n, "%s: unknown metric '%s' (did you mean '%s'?)", what, name, near);
        return fail_at(x, n, "%s: unknown metric '%s' (test_loss, test_perplexity, test_loss_all, samples_per_s, ...)",
                       what, name);
    }
    *out = (PointMetric)m;
    return metric_check(x, n, *out, what);
}

static int setting_of(Ctx *x, yaml_node_t *n, const char *what, const char **out)
{
    const char *v = scalar(n);
    if (!v || !paper_setting(v))
        return fail_at(x, n, "%s: '%s' is not a paper setting (S1..S7, shared/papers/README.md)", what, v ? v : "");
    *out = own(x->s, v);
    return *out ? 0 : err_set(x->err, "%s: out of memory", x->file);
}

/* ---- paper figures and claims ---------------------------------------------- */

static int parse_figures(Ctx *x, yaml_node_t *n)
{
    if (n->type != YAML_SEQUENCE_NODE) return fail_at(x, n, "paper must be a list of figures");
    int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    x->s->figs = calloc((size_t)count + 1, sizeof *x->s->figs);
    if (!x->s->figs) return err_set(x->err, "%s: out of memory", x->file);
    for (int i = 0; i < count; i++) {
        yaml_node_t *v[8], *k[8];
        char what[64];
        snprintf(what, sizeof what, "paper figure %d", i + 1);
        if (fields_of(x, node(x, n->data.sequence.items.start[i]), what, FIGURE_FIELDS, v, k)) return -1;
        yaml_node_t *at = node(x, n->data.sequence.items.start[i]);
        if (!v[0] || !v[1] || !v[2]) return fail_at(x, at, "%s needs point, metric and value", what);
        PaperFigure *f = &x->s->figs[i];
        if (v[0]->type != YAML_MAPPING_NODE) return fail_at(x, v[0], "%s: point must be a mapping {key: value}", what);
        /* the point as its jobs' coords without seed, in the file's order */
        StrBuf sb;
        sb_init(&sb);
        sb_append(&sb, "{");
        const char *sel;
        if (selector_of(x, v[0], what, &sel)) {
            sb_free(&sb);
            return -1;
        }
        for (yaml_node_pair_t *p = v[0]->data.mapping.pairs.start; p < v[0]->data.mapping.pairs.top; p++) {
            if (p != v[0]->data.mapping.pairs.start) sb_append(&sb, ", ");
            sb_json_string(&sb, scalar(node(x, p->key)));
            sb_append(&sb, ": ");
            const char *val = scalar(node(x, p->value));
            if (!val) {
                sb_free(&sb);
                return fail_at(x, node(x, p->value), "%s: a point names one value per key", what);
            }
            sb_json_string(&sb, val);
        }
        sb_append(&sb, "}");
        f->coords = sb_ok(&sb) ? own(x->s, sb.data) : NULL;
        sb_free(&sb);
        PointMetric m;
        const char *mname = scalar(v[1]);
        /* train_loss is a figure's metric, not a point metric of claims */
        if (!mname || (strcmp(mname, "train_loss") && metric_of(x, v[1], what, &m))) {
            if (!mname) return fail_at(x, v[1], "%s: metric must be a word", what);
            return -1;
        }
        f->metric = own(x->s, mname);
        if (number_of(x, v[2], "value", &f->value)) return -1;
        f->note = own(x->s, v[3] && scalar(v[3]) ? scalar(v[3]) : "");
        f->setting = "";
        if (v[4] && setting_of(x, v[4], what, &f->setting)) return -1;
        if (!f->coords || !f->metric || !f->note) return err_set(x->err, "%s: out of memory", x->file);
    }
    x->s->p.paper = x->s->figs;
    x->s->p.n_paper = count;
    return 0;
}

static int kind_of(Ctx *x, yaml_node_t *n, const char *what, RuleKind *out)
{
    const char *w = scalar(n);
    for (int k = 0; w && k < R_KIND_COUNT; k++)
        if (!strcmp(w, KIND_NAMES[k])) {
            *out = (RuleKind)k;
            return 0;
        }
    const char *names[R_KIND_COUNT + 1];
    for (int k = 0; k < R_KIND_COUNT; k++) names[k] = KIND_NAMES[k];
    names[R_KIND_COUNT] = NULL;
    const char *near = w ? nearest(w, names) : NULL;
    if (near) return fail_at(x, n, "%s: unknown kind '%s' (did you mean '%s'?)", what, w, near);
    return fail_at(x, n, "%s: unknown kind '%s' (lower, higher, equivalent, ratio_at_least, slightly_higher, flat, "
                         "below_unigram, near_unigram, same_standing, threshold, min_d, overtakes)", what, w ? w : "");
}

/* A claim's fields, in CLAIM_FIELDS' order. */
enum { F_CLAIM, F_KIND, F_METRIC, F_A, F_B, F_PAIR, F_MARGIN, F_NATS, F_SETTINGS, F_FORMER, F_AT_LEAST, F_AT_MOST,
       F_FOR, F_COMPARE, F_TO, F_RATIO, F_COUNT };

/* One of names (NULL-terminated) for the scalar n: its index, or a refusal
   naming the nearest ("did you mean") or them all. */
static int word_of(Ctx *x, yaml_node_t *n, const char *what, const char *field, const char *const *names, int *out)
{
    const char *w = scalar(n);
    for (int i = 0; w && names[i]; i++)
        if (!strcmp(w, names[i])) return *out = i, 0;
    const char *near = w ? nearest(w, names) : NULL;
    if (near) return fail_at(x, n, "%s: unknown %s '%s' (did you mean '%s'?)", what, field, w, near);
    char list[256];
    size_t len = 0;
    list[0] = 0;
    for (int i = 0; names[i] && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    return fail_at(x, n, "%s: unknown %s '%s' (%s)", what, field, w ? w : "", list);
}

/* The fields of 'threshold' and 'min_d' claims: the bound a point must
   clear (at_least or at_most: one of them, a share in (0, 1) for an
   accuracy, else above 0); a threshold's quantifier (for: every | some);
   a min_d's compare and, with compare: closer, to.  Refused on any other
   kind, and where they do not belong. */
static int parse_bound(Ctx *x, yaml_node_t *at, yaml_node_t **v, yaml_node_t **k, const char *what, ClaimRule *r)
{
    static const char *const QUANTIFIERS[] = {"every", "some", NULL};
    const char *kn = KIND_NAMES[r->kind];
    int threshold = r->kind == R_THRESHOLD, min_d = r->kind == R_MIN_D;
    for (int f = F_AT_LEAST; f <= F_TO; f++) {
        int belongs = f == F_AT_LEAST || f == F_AT_MOST ? threshold || min_d : f == F_FOR ? threshold : min_d;
        if (v[f] && !belongs) return fail_at(x, k[f], "%s: a '%s' claim takes no %s", what, kn, CLAIM_FIELDS[f]);
    }
    if (!threshold && !min_d) return 0;
    if (!v[F_AT_LEAST] && !v[F_AT_MOST])
        return fail_at(x, at, "%s: a '%s' claim needs 'at_least:' or 'at_most:' (the bound a point must clear)", what,
                       kn);
    if (v[F_AT_LEAST] && v[F_AT_MOST]) return fail_at(x, k[F_AT_MOST], "%s: give at_least or at_most, not both", what);
    int f = v[F_AT_LEAST] ? F_AT_LEAST : F_AT_MOST;
    r->sign = f == F_AT_LEAST ? +1 : -1;
    if (number_of(x, v[f], CLAIM_FIELDS[f], &r->param)) return -1;
    int share = r->metric == PM_ANSWER_ACCURACY || r->metric == PM_TEST_ACCURACY;
    if (share && !(r->param > 0 && r->param < 1))
        return fail_at(x, v[f], "%s: %s %s is outside (0, 1) (%s is a share: 0.99 is 99%%)", what, CLAIM_FIELDS[f],
                       scalar(v[f]), point_metric_name(r->metric));
    if (!share && !(r->param > 0)) return fail_at(x, v[f], "%s: %s %s must be above 0", what, CLAIM_FIELDS[f], scalar(v[f]));
    if (threshold) {
        int q;
        if (!v[F_FOR]) return fail_at(x, at, "%s: a 'threshold' claim needs 'for: every' or 'for: some'", what);
        if (word_of(x, v[F_FOR], what, "quantifier", QUANTIFIERS, &q)) return -1;
        r->quantifier = (ClaimQuantifier)q;
        if (v[F_PAIR]) return fail_at(x, k[F_PAIR], "%s: a 'threshold' claim takes no pair_on (it speaks of each point of a)",
                                      what);
        return 0;
    }
    int c;
    if (!v[F_COMPARE])
        return fail_at(x, at, "%s: a 'min_d' claim needs 'compare:' (larger, no_smaller, smaller, no_larger, closer)", what);
    if (word_of(x, v[F_COMPARE], what, "compare", COMPARE_NAMES, &c)) return -1;
    r->compare = (MinDCompare)c;
    if (r->compare == MIN_D_CLOSER && !v[F_TO])
        return fail_at(x, k[F_COMPARE], "%s: compare: closer needs 'to:' (the series both are measured against)", what);
    if (r->compare != MIN_D_CLOSER && v[F_TO])
        return fail_at(x, k[F_TO], "%s: 'to' goes with compare: closer", what);
    if (v[F_TO] && selector_of(x, v[F_TO], "to", &r->to)) return -1;
    if (x->check && !is_axis(x, "d")) {
        char list[512];
        axes_list(x, list, sizeof list);
        return fail_at(x, v[F_KIND], "%s: a 'min_d' claim needs d as an axis (axes: %s)", what, list);
    }
    return 0;
}

/* ratio_at_least's wanted ratio: the claim's own (`ratio: 0.75`, into
   r->param) or the paper's of the same points (`settings`), one of the two. */
static int ratio_of(Ctx *x, yaml_node_t *at, yaml_node_t *v, yaml_node_t *key, yaml_node_t *settings, const char *what,
                    ClaimRule *r)
{
    if (r->kind != R_RATIO_AT_LEAST)
        return v ? fail_at(x, key, "%s: only a 'ratio_at_least' claim takes a ratio", what) : 0;
    if (!v && !settings)
        return fail_at(x, at, "%s: a 'ratio_at_least' claim needs 'ratio:' (the ratio it states) or settings (the "
                              "paper's ratio)", what);
    if (v && settings)
        return fail_at(x, key, "%s: give 'ratio:' or settings, not both (one wanted ratio)", what);
    if (!v) return 0;
    if (number_of(x, v, "ratio", &r->param)) return -1;
    if (!(r->param > 0 && r->param < 1e6)) return fail_at(x, v, "%s: ratio %s must be above 0", what, scalar(v));
    return 0;
}

/* An 'overtakes' claim orders its pairs by the one key of pair_on (n_ctx). */
static int overtakes_keys(Ctx *x, yaml_node_t *at, yaml_node_t *pair, const char *what, const ClaimRule *r)
{
    if (r->kind != R_OVERTAKES) return 0;
    if (!pair || !*r->pair_on || strchr(r->pair_on, ' '))
        return fail_at(x, pair ? pair : at, "%s: an 'overtakes' claim needs pair_on: one key whose values order its "
                                            "pairs (e.g. [n_ctx])", what);
    return 0;
}

static int parse_claim(Ctx *x, yaml_node_t *at, int i, ClaimRule *r)
{
    yaml_node_t *v[F_COUNT + 1], *k[F_COUNT + 1];
    char what[64];
    snprintf(what, sizeof what, "claim %d", i + 1);
    if (fields_of(x, at, what, CLAIM_FIELDS, v, k)) return -1;
    if (!v[F_CLAIM] || !scalar(v[F_CLAIM]) || !*scalar(v[F_CLAIM]))
        return fail_at(x, at, "%s needs 'claim:', its sentence as the paper states it", what);
    if (!v[F_KIND]) return fail_at(x, at, "%s needs 'kind:'", what);
    if (!v[F_METRIC]) return fail_at(x, at, "%s needs 'metric:'", what);
    r->preset = x->s->p.name;
    r->claim = own(x->s, scalar(v[F_CLAIM]));
    if (kind_of(x, v[F_KIND], what, &r->kind) || metric_of(x, v[F_METRIC], what, &r->metric)) return -1;
    int two = r->kind != R_FLAT && r->kind != R_BELOW_UNIGRAM && r->kind != R_NEAR_UNIGRAM && r->kind != R_THRESHOLD;
    int margin = r->kind == R_MATCH || r->kind == R_SLIGHTLY_HIGHER || r->kind == R_FLAT;
    int nats = r->kind == R_BELOW_UNIGRAM || r->kind == R_NEAR_UNIGRAM;
    const char *kn = KIND_NAMES[r->kind];
    r->a = "";
    if (v[F_A] && selector_of(x, v[F_A], "a", &r->a)) return -1;
    if (v[F_B] && selector_of(x, v[F_B], "b", &r->b)) return -1;
    if (two && !v[F_B]) return fail_at(x, at, "%s: a '%s' claim compares a with b: give b", what, kn);
    if ((r->kind == R_FLAT || r->kind == R_THRESHOLD) && v[F_B])
        return fail_at(x, k[F_B], "%s: a '%s' claim has no b", what, kn);
    StrBuf sb;
    sb_init(&sb);
    if (v[F_PAIR]) {
        yaml_node_t *pn = v[F_PAIR];
        yaml_node_item_t one = 0, *first = &one, *last = &one + 1;
        if (pn->type == YAML_SEQUENCE_NODE) first = pn->data.sequence.items.start, last = pn->data.sequence.items.top;
        for (yaml_node_item_t *t = first; t < last; t++) {
            yaml_node_t *kn_ = pn->type == YAML_SEQUENCE_NODE ? node(x, *t) : pn;
            const char *key = scalar(kn_);
            int bad = !key ? fail_at(x, kn_, "%s: pair_on is a list of keys", what) : known_key(x, kn_, key);
            if (!bad && x->check && !is_axis(x, key)) {
                char list[512];
                axes_list(x, list, sizeof list);
                bad = fail_at(x, kn_, "%s: pair_on names '%s', which is not an axis (axes: %s)", what, key, list);
            }
            if (bad) {
                sb_free(&sb);
                return -1;
            }
            sb_printf(&sb, "%s%s", sb.len ? " " : "", key);
        }
    }
    r->pair_on = own(x->s, sb_ok(&sb) ? sb.data : "");
    sb_free(&sb);
    if (margin && !v[F_MARGIN]) return fail_at(x, at, "%s: a '%s' claim needs 'margin:' (a share, e.g. 0.05)", what, kn);
    if (!margin && v[F_MARGIN]) return fail_at(x, k[F_MARGIN], "%s: a '%s' claim takes no margin", what, kn);
    if (nats && !v[F_NATS]) return fail_at(x, at, "%s: a '%s' claim needs 'nats:' (its bound)", what, kn);
    if (!nats && v[F_NATS]) return fail_at(x, k[F_NATS], "%s: a '%s' claim takes no nats", what, kn);
    if (margin) {
        if (number_of(x, v[F_MARGIN], "margin", &r->param)) return -1;
        if (!(r->param > 0 && r->param < 1))
            return fail_at(x, v[F_MARGIN], "%s: margin %s is outside (0, 1) (a share of the mean: 0.05 is 5%%)", what,
                           scalar(v[F_MARGIN]));
    }
    if (nats) {
        if (number_of(x, v[F_NATS], "nats", &r->param)) return -1;
        if (!(r->param > 0 && r->param < 100)) return fail_at(x, v[F_NATS], "%s: nats must be above 0", what);
    }
    if (v[F_SETTINGS]) {
        yaml_node_t *sn = v[F_SETTINGS];
        if (sn->type != YAML_SEQUENCE_NODE || sn->data.sequence.items.top - sn->data.sequence.items.start != 2)
            return fail_at(x, sn, "%s: settings is [a's setting, b's setting], e.g. [S1, S1]", what);
        if (setting_of(x, node(x, sn->data.sequence.items.start[0]), what, &r->setting_a) ||
            setting_of(x, node(x, sn->data.sequence.items.start[1]), what, &r->setting_b))
            return -1;
    }
    if (ratio_of(x, at, v[F_RATIO], k[F_RATIO], v[F_SETTINGS], what, r) || overtakes_keys(x, at, v[F_PAIR], what, r))
        return -1;
    if (parse_bound(x, at, v, k, what, r)) return -1;
    if (v[F_FORMER]) {
        if (!scalar(v[F_FORMER])) return fail_at(x, v[F_FORMER], "%s: former is a sentence", what);
        r->former = own(x->s, scalar(v[F_FORMER]));
    }
    if (!r->claim || !r->pair_on) return err_set(x->err, "%s: out of memory", x->file);
    return 0;
}

static int parse_claims(Ctx *x, yaml_node_t *n)
{
    if (n->type != YAML_SEQUENCE_NODE) return fail_at(x, n, "claims must be a list");
    int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    x->s->claims = calloc((size_t)count + 1, sizeof *x->s->claims);
    if (!x->s->claims) return err_set(x->err, "%s: out of memory", x->file);
    for (int i = 0; i < count; i++) {
        if (parse_claim(x, node(x, n->data.sequence.items.start[i]), i, &x->s->claims[i])) return -1;
        x->s->n_claims++;
    }
    return 0;
}

/* ---- the study -------------------------------------------------------------- */

static int name_ok(const char *v)
{
    size_t len = strlen(v);
    if (!len || len > 48 || !isalnum((unsigned char)v[0])) return 0;
    for (const char *p = v; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) return 0;
    return strcmp(v, "grid") && strcmp(v, "search") && !(len > 5 && !strcmp(v + len - 5, ".yaml")) &&
           !(len > 4 && !strcmp(v + len - 4, ".yml"));
}

static int parse_doc(Ctx *x, yaml_node_t *root, int check_jobs)
{
    enum { T_NAME, T_SOURCE, T_DESC, T_CORPUS, T_KEYS, T_AXES, T_LR, T_BUDGET, T_SEEDS, T_UNTIL, T_PAPER, T_CLAIMS,
           T_AT_PAPER, T_COUNT };
    yaml_node_t *v[T_COUNT + 1], *k[T_COUNT + 1];
    if (!root) return fail_at(x, NULL, "the file is empty (docs/studies.md: `mixbench study new NAME` writes one)");
    if (fields_of(x, root, "in a study", TOP_FIELDS, v, k)) return -1;
    Study *s = x->s;
    if (!v[T_NAME]) return fail_at(x, root, "a study needs 'name:'");
    if (!scalar(v[T_NAME]) || !name_ok(scalar(v[T_NAME])))
        return fail_at(x, v[T_NAME], "name '%s' must be one word of letters, digits, '-', '_' or '.' (at most 48)",
                       scalar(v[T_NAME]) ? scalar(v[T_NAME]) : "");
    s->p.name = own(s, scalar(v[T_NAME]));
    s->p.source = own(s, v[T_SOURCE] && scalar(v[T_SOURCE]) ? scalar(v[T_SOURCE]) : "your study");
    s->p.what = own(s, v[T_DESC] && scalar(v[T_DESC]) ? scalar(v[T_DESC]) : "");
    for (int f = T_SOURCE; f <= T_DESC; f++)
        if (v[f] && !scalar(v[f])) return fail_at(x, v[f], "%s must be text", TOP_FIELDS[f]);
    yaml_node_t *body[6];
    for (int i = 0; i < 6; i++) body[i] = v[T_CORPUS + i];
    char *spec;
    if (body_spec(x, body, &spec)) return -1;
    s->p.spec = spec;
    if (v[T_AT_PAPER]) {
        yaml_node_t *pv[7], *pk[7];
        char *pspec;
        if (fields_of(x, v[T_AT_PAPER], "in at_paper_size", BODY_FIELDS, pv, pk) || body_spec(x, pv, &pspec))
            return -1;
        s->p.paper_spec = pspec;
    }
    if (v[T_UNTIL]) {
        yaml_node_t *u = v[T_UNTIL];
        const char *w = scalar(u);
        if (w && (!strcmp(w, "true") || !strcmp(w, "yes"))) s->p.until_conclusive = 1;
        else if (w && (!strcmp(w, "false") || !strcmp(w, "no"))) s->p.until_conclusive = 0;
        else if (u->type == YAML_MAPPING_NODE) {
            static const char *const UNTIL_FIELDS[] = {"max_hours", NULL};
            yaml_node_t *uv[2], *uk[2];
            if (fields_of(x, u, "in until_conclusive", UNTIL_FIELDS, uv, uk)) return -1;
            s->p.until_conclusive = 1;
            if (uv[0] && number_of(x, uv[0], "max_hours", &s->p.max_hours)) return -1;
            if (uv[0] && !(s->p.max_hours > 0 && s->p.max_hours <= 1e6))
                return fail_at(x, uv[0], "max_hours %s is not a number of hours above 0", scalar(uv[0]));
        } else
            return fail_at(x, u, "until_conclusive is true, false or {max_hours: H}");
    }
    x->check = check_jobs;
    if (check_jobs && expand_jobs(x, s->p.spec, v[T_AXES] ? v[T_AXES] : root)) return -1;
    if (v[T_PAPER] && parse_figures(x, v[T_PAPER])) return -1;
    if (v[T_CLAIMS] && parse_claims(x, v[T_CLAIMS])) return -1;
    if (s->p.until_conclusive && !s->n_claims)
        return fail_at(x, k[T_UNTIL], "until_conclusive stops when every claim is decided: the study has no claims");
    return 0;
}

Study *study_parse(const char *text, size_t len, const char *file, int check_jobs, char *err)
{
    Study *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "%s: out of memory", file);
        return NULL;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        free(s);
        err_set(err, "%s: out of memory", file);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = err_set(err, "%s:%zu:%zu: YAML: %s%s%s", file, parser.problem_mark.line + 1,
                     parser.problem_mark.column + 1, parser.problem ? parser.problem : "unreadable",
                     parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        study_free(s);
        return NULL;
    }
    Ctx x = {.doc = &doc, .file = file, .err = err, .s = s};
    rc = parse_doc(&x, yaml_document_get_root_node(&doc), check_jobs);
    if (!rc) {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) rc = err_set(err, "%s: YAML: %s after the study", file,
                                                            parser.problem ? parser.problem : "unreadable text");
        else {
            if (yaml_document_get_root_node(&next))
                rc = fail_at(&x, yaml_document_get_root_node(&next), "a second document: one study per file");
            yaml_document_delete(&next);
        }
    }
    if (!rc) {
        s->p.study_text = own(s, text);
        s->p.file = own(s, file);
        if (!s->p.study_text || !s->p.file) rc = err_set(err, "%s: out of memory", file);
    }
    if (x.have_sw) sweep_free(&x.sw);
    free(x.jobs);
    free(x.n_coords);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc) {
        study_free(s);
        return NULL;
    }
    return s;
}

void study_free(Study *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_strs; i++) free(s->strs[i]);
    free(s->strs);
    free(s->claims);
    free(s->figs);
    free(s);
}

char *study_read_file(const char *path, char *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: cannot read it", path);
        return NULL;
    }
    StrBuf sb;
    sb_init(&sb);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_printf(&sb, "%.*s", (int)n, buf);
    int bad = ferror(f);
    fclose(f);
    if (bad || !sb_ok(&sb) || sb.len > (1 << 20) || memchr(sb.data, 0, sb.len)) {
        sb_free(&sb);
        err_set(err, "%s: not a study file (unreadable, binary or over 1 MB)", path);
        return NULL;
    }
    return sb.data;
}

Study *study_load(const char *path, char *err)
{
    char *text = study_read_file(path, err);
    if (!text) return NULL;
    Study *s = study_parse(text, strlen(text), path, 1, err);
    free(text);
    return s;
}

int study_is_file(const char *word)
{
    size_t len = strlen(word);
    return (len > 5 && !strcmp(word + len - 5, ".yaml")) || (len > 4 && !strcmp(word + len - 4, ".yml"));
}

const Preset *study_preset(const Study *s) { return &s->p; }
int study_claim_count(const Study *s) { return s->n_claims; }
const ClaimRule *study_claim(const Study *s, int i) { return i >= 0 && i < s->n_claims ? &s->claims[i] : NULL; }

/* ---- in words ------------------------------------------------------------------ */

static const char *side(const char *sel) { return sel && *sel ? sel : "every point"; }

void study_claim_words(const ClaimRule *r, char *out, size_t cap)
{
    const char *m = point_metric_name(r->metric);
    char per[160] = "";
    if (r->pair_on && *r->pair_on) snprintf(per, sizeof per, ", pairs agreeing on %s", r->pair_on);
    switch (r->kind) {
    case R_LOWER:
    case R_HIGHER:
        snprintf(out, cap, "%s of [%s] %s [%s]%s, in every pair (one-sided test; a difference within 1%% of b fails it)",
                 m, side(r->a), r->kind == R_LOWER ? "below" : "above", side(r->b), per);
        break;
    case R_MATCH:
        snprintf(out, cap, "%s of [%s] within %g%% of [%s]%s, in every pair (the ratio's interval inside 1 -+ %g: "
                           "two one-sided tests)", m, side(r->a), 100 * r->param, side(r->b), per, r->param);
        break;
    case R_RATIO_AT_LEAST:
        if (r->param > 0)
            snprintf(out, cap, "%s of [%s] over [%s]%s, at least %g in every pair (one-sided test on the ratio)", m,
                     side(r->a), side(r->b), per, r->param);
        else
            snprintf(out, cap, "%s of [%s] over [%s]%s at least the paper's ratio of the same points (%s, %s)", m,
                     side(r->a), side(r->b), per, r->setting_a ? r->setting_a : "-", r->setting_b ? r->setting_b : "-");
        break;
    case R_SLIGHTLY_HIGHER:
        snprintf(out, cap, "%s of [%s] above [%s] by at most %g%%%s, in every pair", m, side(r->a), side(r->b),
                 100 * r->param, per);
        break;
    case R_FLAT:
        snprintf(out, cap, "%s over the points of [%s]%s: their range at most %g%% of the mean", m, side(r->a),
                 *r->pair_on ? (snprintf(per, sizeof per, ", per %s", r->pair_on), per) : "", 100 * r->param);
        break;
    case R_BELOW_UNIGRAM:
    case R_NEAR_UNIGRAM:
        snprintf(out, cap, "%s of every point of [%s] %s %g nat below its data's unigram entropy%s%s%s", m, side(r->a),
                 r->kind == R_BELOW_UNIGRAM ? "more than" : "less than", r->param,
                 r->b ? " (baseline [" : "", r->b ? r->b : "", r->b ? "]: undecided (budget) when it fails to learn too)" : "");
        break;
    case R_SAME_STANDING:
        snprintf(out, cap, "%s of [%s] minus [%s] has one sign%s (each pair's difference significant)", m, side(r->a),
                 side(r->b), per);
        break;
    case R_THRESHOLD:
        snprintf(out, cap, "%s of %s point of [%s] at %s %g (each point's one-sided t test; %s)", m,
                 r->quantifier == QUANT_SOME ? "some" : "every", side(r->a), r->sign > 0 ? "least" : "most", r->param,
                 r->quantifier == QUANT_SOME ? "some point at alpha / its points: Bonferroni"
                                             : "every point at alpha: intersection-union");
        break;
    case R_MIN_D: {
        static const char *const REL[MIN_D_COMPARE_COUNT] = {"larger than", "at least", "smaller than", "at most",
                                                             "nearer to"};
        char rel[600];
        if (r->compare == MIN_D_CLOSER) snprintf(rel, sizeof rel, "nearer to [%s]'s than", side(r->to));
        else snprintf(rel, sizeof rel, "%s", REL[r->compare < MIN_D_COMPARE_COUNT ? r->compare : 0]);
        snprintf(out, cap, "the smallest d at which %s is at %s %g, per series of [%s] (its points apart from d; "
                           "b's and to's left out), %s [%s]'s%s (each point's one-sided t test at alpha / the "
                           "claim's points: Bonferroni)",
                 m, r->sign > 0 ? "least" : "most", r->param, side(r->a), rel, side(r->b), per);
        break;
    }
    case R_OVERTAKES:
        snprintf(out, cap, "%s of [%s] above [%s] from some %s on: the smallest %s measured from which it is above "
                           "at every longer one (one-sided tests from the longest down, each at alpha)", m, side(r->a),
                 side(r->b), r->pair_on, r->pair_on);
        break;
    case R_KIND_COUNT: snprintf(out, cap, "?"); break;
    }
}

char *study_skeleton(const char *name)
{
    static const char FMT[] =
        "# %s: a study for mixbench (docs/studies.md).  Check it with\n"
        "#   mixbench study check %s.yaml\n"
        "# and queue it with `mixbench sweep %s.yaml [key=value ...]`.\n"
        "name: %s\n"
        "source: my question                # where the question comes from\n"
        "description: \"clm on TinyStories, mixer vs attention at two lengths\"\n"
        "corpus: builtin:stories            # the data key (a path, builtin:NAME, $MIXBENCH_DATA/...)\n"
        "keys:                              # fixed config keys, every job\n"
        "  task: clm\n"
        "  d: 64\n"
        "  layers: 2\n"
        "axes:                              # a list is an axis; axes multiply\n"
        "  n_ctx: [32, 64]\n"
        "  arch: [mixer, attention]\n"
        "  # \"(arch, heads)\": [[mixer, 1], [attention, 4]]   zipped: one point per tuple\n"
        "  # dropout: uniform:0..0.3                          a distribution (a random search)\n"
        "# lr: tune                         # search the learning rate per point first\n"
        "budget:\n"
        "  steps: 100                       # or tokens: N\n"
        "seeds: 3                           # repeats: seeds 1..3 of every point\n"
        "# until_conclusive: {max_hours: 2} # more seeds and tokens until every claim is decided\n"
        "# paper:                           # the paper's own figures, shown beside ours\n"
        "#   - {point: {arch: mixer, n_ctx: 64}, metric: test_loss, value: 1.7, source: Table 1, setting: S6}\n"
        "claims:\n"
        "  - claim: \"the mixer is the better causal model at n=32 and n=64\"\n"
        "    kind: lower                    # lower higher equivalent ratio_at_least slightly_higher flat\n"
        "                                   # below_unigram near_unigram same_standing threshold min_d\n"
        "    metric: test_loss\n"
        "    a: {arch: mixer}\n"
        "    b: {arch: attention}\n"
        "    pair_on: [n_ctx]               # one comparison per n_ctx\n"
        "  - claim: \"mixer and attention within 5%%\"\n"
        "    kind: equivalent\n"
        "    metric: test_loss\n"
        "    a: {arch: mixer}\n"
        "    b: {arch: attention}\n"
        "    pair_on: [n_ctx]\n"
        "    margin: 0.05                   # a share, in (0, 1)\n";
    size_t cap = sizeof FMT + 4 * strlen(name) + 1;
    char *out = malloc(cap);
    if (out) snprintf(out, cap, FMT, name, name, name, name);
    return out;
}
