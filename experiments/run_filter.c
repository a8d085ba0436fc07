/*
 * run_filter.c — parsing and matching the run filter of run_filter.h.  A
 * value is looked up in the run's own fields first, then its sweep
 * coordinates ("k=v k=v"), then its stored config (parsed only for a key
 * that is neither, and only when a term asks for one).
 */
#include "experiments/run_filter.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/io/json.h"
#include "engine/text.h"

/* ---- the fields ---------------------------------------------------------- */

typedef enum {
    F_ID, F_NAME, F_ARCH, F_TASK, F_DATA, F_STATUS, F_SWEEP, F_SEED, F_NOTE, F_STAR, F_TRAIN, F_VALID, F_BEST, F_TEST,
    F_SPEED, F_DONE, F_TAG, N_FIELDS
} Field;

/* Each field's names: the short one first, then the results view's. */
static const char *const FIELD_NAMES[N_FIELDS][2] = {
    [F_ID] = {"id", NULL},           [F_NAME] = {"name", NULL},
    [F_ARCH] = {"arch", NULL},       [F_TASK] = {"task", NULL},
    [F_DATA] = {"data", NULL},       [F_STATUS] = {"status", NULL},
    [F_SWEEP] = {"sweep", NULL},     [F_SEED] = {"seed", NULL},
    [F_NOTE] = {"note", NULL},       [F_STAR] = {"star", "starred"},
    [F_TRAIN] = {"train", "train_loss"},       [F_VALID] = {"valid", "valid_loss"},
    [F_BEST] = {"best", "best_valid_loss"},    [F_TEST] = {"test", "test_loss"},
    [F_SPEED] = {"speed", "tokens_per_s"},     [F_DONE] = {"done", "steps_done"},
    [F_TAG] = {"tag", "tags"},
};

static int field_of(const char *key)
{
    for (int f = 0; f < N_FIELDS; f++)
        for (int k = 0; k < 2; k++)
            if (FIELD_NAMES[f][k] && !strcmp(FIELD_NAMES[f][k], key)) return f;
    return -1;
}

static int put_number(double v, char *out, size_t cap)
{
    if (!isfinite(v)) return 0;
    snprintf(out, cap, "%.9g", v);
    return 1;
}

static int put_text(const char *v, char *out, size_t cap)
{
    snprintf(out, cap, "%s", v);
    return v[0] != 0;
}

/* A field's value; 0 when the run has none. */
static int field_value(const RunSummary *r, Field f, char *out, size_t cap)
{
    switch (f) {
    case F_ID: return put_number((double)r->id, out, cap);
    case F_NAME: return put_text(r->name, out, cap);
    case F_ARCH: return put_text(r->arch, out, cap);
    case F_TASK: return put_text(r->task, out, cap);
    case F_DATA: return put_text(r->data, out, cap);
    case F_STATUS: return put_text(run_status_name(r->status), out, cap);
    case F_SWEEP: return put_text(r->sweep, out, cap);
    case F_SEED: return put_number((double)r->seed, out, cap);
    case F_NOTE: return put_text(r->note, out, cap);
    case F_STAR: return put_number(r->starred ? 1 : 0, out, cap);
    case F_TRAIN: return put_number(r->train_loss, out, cap);
    case F_VALID: return put_number(r->valid_loss, out, cap);
    case F_BEST: return put_number(r->best_valid_loss, out, cap);
    case F_TEST: return put_number(r->test_loss, out, cap);
    case F_SPEED: return put_number(r->tokens_per_s, out, cap);
    case F_DONE: return put_number((double)r->steps_done, out, cap);
    case F_TAG: return put_text(r->tags, out, cap);
    default: return 0;
    }
}

/* key's value among "k=v k=v" words. */
static int coord_value_of(const char *coords, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    for (const char *p = coords; *p;) {
        size_t len = strcspn(p, " ");
        if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
            snprintf(out, cap, "%.*s", (int)(len - klen - 1), p + klen + 1);
            return 1;
        }
        p += len;
        while (*p == ' ') p++;
    }
    return 0;
}

/* key's value in the stored config (a string, number or boolean). */
static int config_value_of(const char *config_json, const char *key, char *out, size_t cap)
{
    char err[ERR_LEN];
    JsonValue *root = json_parse(config_json, strlen(config_json), err);
    const JsonValue *v = root ? json_get(root, key) : NULL;
    int found = 1;
    if (v && v->type == JSON_STRING) snprintf(out, cap, "%s", v->string);
    else if (v && v->type == JSON_NUMBER) snprintf(out, cap, "%.9g", v->number);
    else if (v && v->type == JSON_BOOL) snprintf(out, cap, "%s", v->number ? "true" : "false");
    else found = 0;
    json_free(root);
    return found;
}

int run_filter_coord(const RunSummary *r, const char *key, char *out, size_t cap)
{
    assert(r && key && out && cap > 0);
    out[0] = 0;
    return coord_value_of(r->coords, key, out, cap);
}

int run_filter_value(const RunSummary *r, const char *key, char *out, size_t cap)
{
    assert(r && key && out && cap > 0);
    out[0] = 0;
    int f = field_of(key);
    if (f >= 0) return field_value(r, (Field)f, out, cap);
    if (coord_value_of(r->coords, key, out, cap)) return 1;
    out[0] = 0;
    return config_value_of(r->config_json, key, out, cap);
}

/* ---- parsing ------------------------------------------------------------- */

/* The next term of text at *p into word[cap], double quotes removed; 0 at
   the end, -1 for a quote left open. */
static int next_word(const char **p, char *word, size_t cap, char *err)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return 0;
    size_t len = 0;
    int quoted = 0;
    for (; *s && (quoted || (*s != ' ' && *s != '\t')); s++) {
        if (*s == '"') {
            quoted = !quoted;
            continue;
        }
        if (len + 1 < cap) word[len++] = *s;
    }
    word[len] = 0;
    *p = s;
    if (quoted) return err_set(err, "filter: a quote is left open");
    return 1;
}

/* The comparison in word: the operator's place and kind, or -1 for none. */
static int find_op(const char *word, RunFilterOp *op, int *op_len)
{
    for (int i = 0; word[i]; i++) {
        char c = word[i], next = word[i + 1];
        if (c == '!' && next == '=') *op = RUN_OP_NE, *op_len = 2;
        else if (c == '>' && next == '=') *op = RUN_OP_GE, *op_len = 2;
        else if (c == '<' && next == '=') *op = RUN_OP_LE, *op_len = 2;
        else if (c == '=') *op = RUN_OP_EQ, *op_len = 1;
        else if (c == '>') *op = RUN_OP_GT, *op_len = 1;
        else if (c == '<') *op = RUN_OP_LT, *op_len = 1;
        else continue;
        return i;
    }
    return -1;
}

static int parse_term(const char *word, RunFilterTerm *t, char *err)
{
    memset(t, 0, sizeof *t);
    const char *w = word;
    if (*w == '!' && w[1] != '=') t->negate = 1, w++;
    if (*w == '#' || !strncasecmp(w, "tag:", 4)) {
        t->kind = RUN_TERM_TAG;
        snprintf(t->value, sizeof t->value, "%s", w + (*w == '#' ? 1 : 4));
        return t->value[0] ? 0 : err_set(err, "filter: '%s' names no tag", word);
    }
    RunFilterOp op;
    int op_len, at = find_op(w, &op, &op_len);
    if (at < 0) {
        t->kind = RUN_TERM_TEXT;
        snprintf(t->value, sizeof t->value, "%s", w);
        return t->value[0] ? 0 : err_set(err, "filter: '%s' is empty", word);
    }
    if (at == 0) return err_set(err, "filter: '%s' has no key before '%.*s'", word, op_len, w);
    if ((size_t)at >= sizeof t->key) return err_set(err, "filter: '%.40s...': the key is too long", word);
    snprintf(t->key, sizeof t->key, "%.*s", at, w);
    for (char *k = t->key; *k; k++) *k = (char)tolower((unsigned char)*k);
    snprintf(t->value, sizeof t->value, "%s", w + at + op_len);
    if (!t->value[0]) return err_set(err, "filter: '%s' has no value after '%.*s'", word, op_len, w + at);
    int field = field_of(t->key);
    if (field < 0 && !config_is_key(t->key))
        return err_set(err, "filter: '%s' is not a field (id, name, arch, task, data, status, sweep, seed, note, "
                            "star, train, valid, best, test, speed, done, tag) or a config key", t->key);
    t->op = op;
    t->kind = field == F_TAG ? RUN_TERM_TAG : RUN_TERM_COMPARE;
    if (t->kind == RUN_TERM_TAG) {
        if (op != RUN_OP_EQ && op != RUN_OP_NE) return err_set(err, "filter: '%s': a tag is = or !=", word);
        if (op == RUN_OP_NE) t->negate = !t->negate;
    }
    return 0;
}

int run_filter_parse(const char *text, RunFilter *f, char *err)
{
    assert(f && err);
    memset(f, 0, sizeof *f);
    const char *p = text ? text : "";
    char word[sizeof f->terms[0].value];
    int rc;
    while ((rc = next_word(&p, word, sizeof word, err)) > 0) {
        if (f->n == RUN_FILTER_MAX_TERMS) return err_set(err, "filter: more than %d terms", RUN_FILTER_MAX_TERMS);
        if (parse_term(word, &f->terms[f->n], err)) return -1;
        f->n++;
    }
    return rc;
}

/* ---- matching ------------------------------------------------------------ */

static int contains_ci(const char *hay, const char *needle)
{
    size_t len = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, len)) return 1;
    return 0;
}

/* tag is one of the space-separated tags, without case. */
static int has_tag(const char *tags, const char *tag)
{
    size_t len = strlen(tag);
    for (const char *p = tags; *p;) {
        size_t n = strcspn(p, " ");
        if (n == len && !strncasecmp(p, tag, len)) return 1;
        p += n;
        while (*p == ' ') p++;
    }
    return 0;
}

/* "yes", "true" are 1 and "no", "false" 0 for star; anything else as is. */
static const char *star_value(const char *v)
{
    if (!strcasecmp(v, "yes") || !strcasecmp(v, "true")) return "1";
    if (!strcasecmp(v, "no") || !strcasecmp(v, "false")) return "0";
    return v;
}

static int compare_holds(const RunFilterTerm *t, const RunSummary *r)
{
    char have[512];
    const char *want = t->value;
    double a, b;
    int field = field_of(t->key);
    if (field == F_SWEEP && text_to_double(want, &b) == 0) {
        if (!r->sweep_id) return 0;
        snprintf(have, sizeof have, "%lld", (long long)r->sweep_id);
    } else if (!run_filter_value(r, t->key, have, sizeof have)) {
        return 0;
    }
    if (field == F_STAR) want = star_value(want);
    int c;
    if (text_to_double(have, &a) == 0 && text_to_double(want, &b) == 0) c = a < b ? -1 : a > b;
    else c = strcasecmp(have, want);
    switch (t->op) {
    case RUN_OP_EQ: return c == 0;
    case RUN_OP_NE: return c != 0;
    case RUN_OP_LT: return c < 0;
    case RUN_OP_GT: return c > 0;
    case RUN_OP_LE: return c <= 0;
    case RUN_OP_GE: return c >= 0;
    }
    return 0;
}

static int term_holds(const RunFilterTerm *t, const RunSummary *r)
{
    if (t->kind == RUN_TERM_TAG) return has_tag(r->tags, t->value);
    if (t->kind == RUN_TERM_COMPARE) return compare_holds(t, r);
    const char *fields[] = {r->arch, r->task, run_status_name(r->status), r->data, r->sweep, r->name, r->tags, r->note};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (contains_ci(fields[i], t->value)) return 1;
    return 0;
}

int run_filter_match(const RunFilter *f, const RunSummary *r)
{
    assert(f && r);
    for (int i = 0; i < f->n; i++)
        if (term_holds(&f->terms[i], r) == f->terms[i].negate) return 0;
    return 1;
}

int run_filter_select(Store *s, const char *text, int in_trash, int64_t **ids, int *n, char *err)
{
    assert(s && ids && n && err);
    *ids = NULL;
    *n = 0;
    RunFilter f;
    if (run_filter_parse(text, &f, err)) return -1;
    RunSummary *runs = NULL;
    int n_runs = 0;
    if ((in_trash ? runs_read_trash : runs_read_all)(s, &runs, &n_runs, err)) return -1;
    *ids = malloc((size_t)(n_runs ? n_runs : 1) * sizeof **ids);
    if (!*ids) {
        free(runs);
        return err_set(err, "filter: out of memory");
    }
    for (int i = 0; i < n_runs; i++)
        if (run_filter_match(&f, &runs[i])) (*ids)[(*n)++] = runs[i].id;
    free(runs);
    if (*n == 0) {
        free(*ids);
        *ids = NULL;
    }
    return 0;
}

int run_filter_select_json(Store *s, const char *text, int in_trash, char **json, int *n, char *err)
{
    assert(s && json && n && err);
    *json = NULL;
    int64_t *ids;
    if (run_filter_select(s, text, in_trash, &ids, n, err)) return -1;
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, "[");
    for (int i = 0; i < *n; i++) sb_printf(&sb, "%s%lld", i ? "," : "", (long long)ids[i]);
    sb_append(&sb, "]");
    free(ids);
    if (!sb_ok(&sb)) {
        sb_free(&sb);
        return err_set(err, "filter: out of memory");
    }
    *json = sb.data;
    return 0;
}
