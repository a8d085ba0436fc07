/*
 * sweep_form.c — the New sweep form's fields, the spec they compose and
 * its checks, and the form the store remembers (sweep_form.h).
 */
#include "ui/sweep_form.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/common.h"
#include "engine/text.h"
#include "experiments/sweep_check.h"
#include "ui/sweep_estimate.h"
#include "ui/sweep_studies.h"

const char *const TASKS[N_TASKS] = {"clm", "mlm", "bidir", "autoencode", "complete"};

int sweep_is_text_field(int f)
{
    return (f >= F_DATA && f <= F_PRIORITY) || f == F_SEARCH || f == F_HOURS;
}

int sweep_field_enabled(const SweepScreen *s, int f)
{
    if (f == F_UNTIL) return s->preset >= 0;
    if (f == F_HOURS) return s->preset >= 0 && s->until;
    if (s->preset < 0) return 1;
    char data[UI_FIELD_CAP];
    const Preset *p = sweep_preset(s);   /* NULL: a file that does not read */
    if (f == F_DATA) return p && preset_data(p, data, sizeof data) != 0;   /* corpora as an axis */
    return f != F_ARCH && f != F_TASK && f != F_AXES && f != F_SEARCH && f != F_BUDGET;
}

const char *sweep_data_override(const SweepScreen *s)
{
    const Preset *p = sweep_preset(s);
    if (!p) return NULL;
    char own[UI_FIELD_CAP];
    int kind = preset_data(p, own, sizeof own);
    const char *data = s->text[F_DATA].text;
    if (kind == 0 || !data[0] || (kind == 1 && !strcmp(own, data))) return NULL;
    return data;
}

void sweep_preset_changed(SweepScreen *s, int from)
{
    if (from == s->preset) return;
    if (from < 0) snprintf(s->grid_data, sizeof s->grid_data, "%s", s->text[F_DATA].text);
    char own[UI_FIELD_CAP];
    const Preset *p = sweep_preset(s);
    if (s->preset < 0) ui_field_set(&s->text[F_DATA], s->grid_data[0] ? s->grid_data : "builtin:stories");
    else if (p && preset_data(p, own, sizeof own) == 1) ui_field_set(&s->text[F_DATA], own);
    /* a study asks for --until-conclusive itself (docs/studies.md), as
       `mixbench sweep` reads it: the form starts there */
    if (s->preset >= 0) s->until = p && p->until_conclusive;
    if (p && p->until_conclusive) {
        char hours[32] = "";   /* "": no cap */
        if (p->max_hours > 0) snprintf(hours, sizeof hours, "%g", p->max_hours);
        ui_field_set(&s->text[F_HOURS], hours);
    }
}

/* ---- composing and checking the spec --------------------------------- */

static void append_word(StrBuf *sb, const char *text)
{
    if (!text[0]) return;
    if (sb->len) sb_append(sb, " ");
    sb_append(sb, text);
}

/* The spec of the form: the preset (a study file by its path, as
   `mixbench sweep PATH` takes it) and the extra keys, or the grid. */
static void compose(SweepScreen *s, StrBuf *sb)
{
    if (s->preset >= 0) {
        append_word(sb, sweep_choice_word(sweep_choice(s)));
    } else {
        int any = 0;
        for (int i = 0; i < s->n_mixers; i++) {
            if (!s->arch_on[i]) continue;
            sb_append(sb, any ? "," : sb->len ? " arch=" : "arch=");
            sb_append(sb, s->mixers[i]);
            any = 1;
        }
        sb_append(sb, sb->len ? " task=" : "task=");
        sb_append(sb, TASKS[s->task]);
        append_word(sb, s->text[F_AXES].text);
        /* the Search field's words make it a random search (trials=N
           search_seed=S prune=asha|median) */
        if (s->text[F_SEARCH].text[0]) append_word(sb, "search=random");
        append_word(sb, s->text[F_SEARCH].text);
        append_word(sb, s->text[F_BUDGET].text);
    }
    append_word(sb, s->text[F_EXTRA].text);
}

/* The base config every job starts from: the defaults and the dataset. */
static int base_config(const SweepScreen *s, Config *base, char *err)
{
    config_defaults(base);
    const char *data = s->text[F_DATA].text;
    if (!data[0]) return 0;
    if (config_set(base, "data", data, err)) return -1;
    return 0;
}

int sweep_parse_form(SweepScreen *s, Sweep *sw, char *err)
{
    memset(sw, 0, sizeof *sw);
    if (s->preset < 0) {
        int any = 0;
        for (int i = 0; i < s->n_mixers; i++) any |= s->arch_on[i];
        if (!any) return err_set(err, "pick at least one architecture (Space toggles one)");
    }
    int priority;
    if (text_to_int(s->text[F_PRIORITY].text, INT_MIN, INT_MAX, &priority))
        return err_set(err, "priority '%s' is not a whole number", s->text[F_PRIORITY].text);
    Config base;
    if (base_config(s, &base, err)) return -1;
    StrBuf sb;
    sb_init(&sb);
    compose(s, &sb);
    if (!sb_ok(&sb)) return err_set(err, "out of memory");
    char *argv[1] = {sb.data};
    int rc = sweep_parse_data(1, argv, &base, sweep_data_override(s), sw, err);
    sb_free(&sb);
    if (rc || !s->until || s->preset < 0) return rc;
    double hours = 0;   /* an empty cap: none (--until-conclusive alone) */
    if (s->text[F_HOURS].text[0] && (text_to_double(s->text[F_HOURS].text, &hours) || !(hours > 0))) {
        sweep_free(sw);
        return err_set(err, "cap '%s' is not a number of hours > 0 (empty: no cap)", s->text[F_HOURS].text);
    }
    if (sweep_until_conclusive(sw, hours, err)) {
        sweep_free(sw);
        return -1;
    }
    return 0;
}

static void forget_check(SweepScreen *s)
{
    sweep_check_free(&s->check);
    s->checked = 0;
    s->checked_key[0] = s->data_error[0] = 0;
}

/* Loads the sweep's data and sizes its jobs, once per spec and data. */
static void check_jobs(SweepScreen *s, const Sweep *sw)
{
    char key[sizeof s->checked_key];
    snprintf(key, sizeof key, "%s|%.500s", s->spec, s->text[F_DATA].text);
    if (s->editing || (s->checked_key[0] && !strcmp(key, s->checked_key))) return;
    forget_check(s);
    snprintf(s->checked_key, sizeof s->checked_key, "%s", key);
    if (sweep_check(sw, &s->check, s->data_error) == 0) s->checked = 1;
}

void sweep_recompute(SweepScreen *s)
{
    StrBuf sb;
    sb_init(&sb);
    compose(s, &sb);
    snprintf(s->spec, sizeof s->spec, "%s", sb_ok(&sb) ? sb.data : "");
    sb_free(&sb);
    s->error[0] = s->warning[0] = 0;
    s->n_jobs = 0;
    s->estimate_seconds = 0;
    s->estimate_basis[0] = s->estimate_prune[0] = s->estimate_tune[0] = 0;
    Sweep sw;
    if (sweep_parse_form(s, &sw, s->error) == 0) {
        s->n_jobs = sw.n_jobs;
        sweep_form_estimate(s, &sw);
        check_jobs(s, &sw);
        sweep_free(&sw);
    } else {
        forget_check(s);
    }
    /* a dataset path that is not there: the jobs would fail when they start */
    const char *data = sweep_field_enabled(s, F_DATA) ? s->text[F_DATA].text : "";
    struct stat st;
    if (!s->data_error[0] && data[0] && strncmp(data, "builtin:", 8) && !strchr(data, '$') && stat(data, &st))
        snprintf(s->warning, sizeof s->warning, "dataset %.200s: no such file or folder (its jobs would fail)",
                 data);
}

/* ---- the form the store remembers ------------------------------------ */

/* The form's fields as "key=value" lines (text fields are one line each):
   what the store remembers of it between launches. */
static const struct {
    const char *key;
    int field;
} FORM_TEXT[] = {{"data", F_DATA},   {"axes", F_AXES},         {"search", F_SEARCH}, {"budget", F_BUDGET},
                 {"extra", F_EXTRA}, {"priority", F_PRIORITY}, {"hours", F_HOURS}};
#define N_FORM_TEXT ((int)(sizeof FORM_TEXT / sizeof FORM_TEXT[0]))

static void form_text(const SweepScreen *s, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "preset=%s\ntask=%s\nuntil=%d\narchs=",
                                  s->preset >= 0 ? sweep_choice_word(sweep_choice(s)) : "", TASKS[s->task], s->until);
    for (int i = 0, first = 1; i < s->n_mixers && len < cap; i++)
        if (s->arch_on[i]) len += (size_t)snprintf(out + len, cap - len, "%s%s", first ? "" : ",", s->mixers[i]), first = 0;
    for (int k = 0; k < N_FORM_TEXT && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, "\n%s=%s", FORM_TEXT[k].key, s->text[FORM_TEXT[k].field].text);
}

void sweep_recall_form(SweepScreen *s, UiContext *ctx)
{
    char form[sizeof s->saved_form];
    if (!ui_setting_get(ctx, "sweep.form", form, sizeof form)) return;
    for (char *line = strtok(form, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        const char *key = line, *value = eq + 1;
        if (!strcmp(key, "preset") && study_is_file(value)) {
            s->preset = sweep_study_at_path(s, value);   /* a study file: read again */
        } else if (!strcmp(key, "preset")) {
            for (int i = 0; i < s->n_choices; i++)
                if (s->choices[i].builtin && !strcmp(s->choices[i].builtin->name, value)) s->preset = i;
        } else if (!strcmp(key, "task")) {
            for (int k = 0; k < N_TASKS; k++)
                if (!strcmp(TASKS[k], value)) s->task = k;
        } else if (!strcmp(key, "until")) {
            s->until = !strcmp(value, "1");
        } else if (!strcmp(key, "archs")) {
            for (int i = 0; i < s->n_mixers; i++) {
                const char *at = strstr(value, s->mixers[i]);
                size_t n = strlen(s->mixers[i]);
                s->arch_on[i] = at && (at == value || at[-1] == ',') && (at[n] == ',' || !at[n]);
            }
        } else {
            for (int k = 0; k < N_FORM_TEXT; k++)
                if (!strcmp(FORM_TEXT[k].key, key)) ui_field_set(&s->text[FORM_TEXT[k].field], value);
        }
    }
    form_text(s, s->saved_form, sizeof s->saved_form);
}

void sweep_remember_form(SweepScreen *s, UiContext *ctx)
{
    char form[sizeof s->saved_form];
    form_text(s, form, sizeof form);
    if (!strcmp(form, s->saved_form)) return;
    ui_setting_put(ctx, "sweep.form", form);
    snprintf(s->saved_form, sizeof s->saved_form, "%s", form);
}

