/*
 * screen_sweep.c — the New sweep screen: a form that queues a sweep, either
 * one of the seeds' presets (experiments/presets.c) or a grid built from
 * fields: architectures (the registered mixers), task, dataset, axes,
 * budget and extra keys; the Search field's words (trials=N search_seed=S
 * prune=asha|median) make the grid a random search over the axes'
 * distributions (lr=log:1e-4..1e-2), on the row a preset's Conclusive
 * checkbox takes.  Every change re-parses the composed spec with
 * sweep_parse, so the form always shows the job count (or the parser's
 * error line) and an estimate of the training time; "Queue" hands the
 * sweep to sweep_enqueue, exactly as `mixbench sweep` does, and switches to
 * the Queue screen.  When no field is being edited, the sweep's data is
 * loaded (once per spec) to show each job's memory and to refuse data that
 * would fail every job (experiments/sweep_check.h).  On a store that
 * cannot be written (store_read_only) the form is not shown: the screen
 * says so, and no key edits or queues anything.
 *
 * Keys: up/down move between fields; Enter edits a text field, toggles or
 * cycles the others, opens the preset list, or queues; Space toggles an
 * architecture; left/right move within the architectures, cycle the task
 * and the preset.  While a text field is edited every key goes to it
 * (typing() is 1): Enter or Esc leave it, up/down leave it and move, Tab /
 * Shift-Tab go to the next / previous text field still editing.
 *
 * Not for: parsing or validating specs (experiments/sweep.c) or storing
 * jobs (experiments/sweep_queue.c, db/jobs.c).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <limits.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/queue_read.h"
#include "engine/common.h"
#include "engine/mixer.h"
#include "engine/text.h"
#include "experiments/adaptive.h"
#include "experiments/estimate.h"
#include "experiments/format.h"
#include "experiments/prune.h"
#include "engine/memory.h"
#include "experiments/sweep.h"
#include "experiments/sweep_check.h"
#include "experiments/sweep_queue.h"
#include "ui/ui.h"

/* Columns the Conclusive checkbox takes; the cap of CPU hours follows on
   its row (an 80x24 terminal shows the whole form and its estimate). */
#define UNTIL_WIDTH 35

enum {
    F_PRESET, F_ARCH, F_TASK, F_DATA, F_AXES, F_BUDGET, F_EXTRA, F_PRIORITY, F_SEARCH, F_UNTIL, F_HOURS, F_QUEUE,
    N_FIELDS
};
enum { MAX_MIXERS = 16, MAX_PRESETS = 64, LABEL_WIDTH = 11 };

/* How often the measured speeds are read again. */
#define SPEED_REFRESH_SECONDS 10.0
/* Sweeps with more jobs than this ask before queueing. */
#define CONFIRM_JOBS 100

static const char *const TASKS[] = {"clm", "mlm", "bidir", "autoencode", "complete"};
#define N_TASKS ((int)(sizeof TASKS / sizeof TASKS[0]))

static const char *const LABELS[N_FIELDS] = {"Preset", "Archs", "Task", "Dataset", "Axes", "Budget", "Extra keys",
                                              "Priority", "Search", "Conclusive", "Cap hours", ""};

typedef struct {
    int field;                   /* the focused field */
    int editing;                 /* a text field is being edited */
    int preset;                  /* -1: build a grid, else preset_at(preset) */
    int list_open, list_sel, list_scroll;  /* the preset list; list_sel -1 = grid */
    int n_presets;
    int preset_jobs[MAX_PRESETS];          /* job count of each preset, -1: does not parse */
    int n_mixers;
    const char *mixers[MAX_MIXERS];
    int arch_on[MAX_MIXERS];
    int arch_cursor;
    int task;
    int until;                   /* --until-conclusive (a preset's sweep) */
    UiTextField text[N_FIELDS];  /* used for F_DATA .. F_PRIORITY and F_HOURS */
    char grid_data[UI_FIELD_CAP];   /* the dataset typed for a grid, back when the preset is (none) */
    char saved_form[4 * UI_FIELD_CAP];   /* the form as the store last remembered it */
    /* derived from the fields on every change */
    char spec[2048];
    int n_jobs;                  /* 0 when the spec does not parse */
    char error[ERR_LEN];         /* why it does not parse */
    char warning[ERR_LEN];       /* e.g. a dataset path that does not exist */
    double estimate_seconds;
    char estimate_basis[512];    /* each architecture's tokens/s and where it comes from */
    char estimate_prune[160];    /* what --prune makes of it ("" without) */
    char estimate_tune[160];     /* what lr=tune's searches add ("" without) */
    /* what the jobs would find when they start (sweep_check): their data
       loads and their memory; checked again only when spec or data change,
       and not while a field is edited (loading data takes a moment) */
    SweepCheck check;
    int checked;                 /* check holds this spec's result */
    char checked_key[2600];      /* spec + data it was made for */
    char data_error[ERR_LEN];    /* the data cannot be loaded: why */
    SpeedBook book;              /* the store's measured training speeds (experiments/estimate.h) */
    double speeds_at;
} SweepScreen;

static int is_text_field(int f)
{
    return (f >= F_DATA && f <= F_PRIORITY) || f == F_SEARCH || f == F_HOURS;
}

/* Fields a preset fixes are skipped in preset mode; until-conclusive and
   its cap are a preset's only (its claims decide). */
static int field_enabled(const SweepScreen *s, int f)
{
    if (f == F_UNTIL) return s->preset >= 0;
    if (f == F_HOURS) return s->preset >= 0 && s->until;
    if (s->preset < 0) return 1;
    char data[UI_FIELD_CAP];
    if (f == F_DATA) return preset_data(preset_at(s->preset), data, sizeof data) != 0;   /* corpora as an axis */
    return f != F_ARCH && f != F_TASK && f != F_AXES && f != F_SEARCH && f != F_BUDGET;
}

/* The dataset that replaces a preset's own (`--data`): the Dataset field
   when it differs from the preset's; NULL for none (or a grid, whose
   dataset is the base config's). */
static const char *data_override(const SweepScreen *s)
{
    if (s->preset < 0) return NULL;
    char own[UI_FIELD_CAP];
    int kind = preset_data(preset_at(s->preset), own, sizeof own);
    const char *data = s->text[F_DATA].text;
    if (kind == 0 || !data[0] || (kind == 1 && !strcmp(own, data))) return NULL;
    return data;
}

/* A preset was chosen (or (none)): the Dataset field shows the preset's own
   corpus, and the grid's dataset comes back with (none). */
static void preset_changed(SweepScreen *s, int from)
{
    if (from == s->preset) return;
    if (from < 0) snprintf(s->grid_data, sizeof s->grid_data, "%s", s->text[F_DATA].text);
    char own[UI_FIELD_CAP];
    if (s->preset < 0) ui_field_set(&s->text[F_DATA], s->grid_data[0] ? s->grid_data : "builtin:stories");
    else if (preset_data(preset_at(s->preset), own, sizeof own) == 1) ui_field_set(&s->text[F_DATA], own);
}

/* ---- composing and checking the spec --------------------------------- */

static void load_speeds(SweepScreen *s, UiContext *ctx)
{
    char err[ERR_LEN];
    speed_book_free(&s->book);
    if (speed_book_load(ctx->store, &s->book, err)) speed_book_free(&s->book);
    s->speeds_at = now_seconds();
}

/* The sweep's time, one job after another, from the store's measured
   speeds where it has them (experiments/estimate.h says where each
   architecture's comes from). */
static void estimate(SweepScreen *s, const Sweep *sw)
{
    SweepEstimate e = sweep_estimate(sw, 1, &s->book);
    s->estimate_seconds = e.seconds;
    estimate_describe(&e, s->estimate_basis, sizeof s->estimate_basis);
    /* --prune: what it makes of the time, first on the Time line */
    s->estimate_prune[0] = 0;
    char full[32], when[32];
    double share = prune_asha_share(&sw->plan, sw->jobs[0].config.cooldown);
    fmt_duration(e.seconds, full, sizeof full);
    fmt_duration(e.seconds * share, when, sizeof when);
    if (sw->plan.prune == PRUNE_ASHA)
        snprintf(s->estimate_prune, sizeof s->estimate_prune, "~%s with asha (about %.0f%% of ~%s in full)", when,
                 100 * share, full);
    else if (sw->plan.prune == PRUNE_MEDIAN)
        snprintf(s->estimate_prune, sizeof s->estimate_prune, "at most ~%s (median pruning stops some trials)", full);
    /* lr=tune: its searches train before the seeds */
    s->estimate_tune[0] = 0;
    SearchEstimate se = adaptive_search_estimate(sw);
    if (se.points) {
        fmt_duration(e.seconds / sw->n_jobs * se.runs, when, sizeof when);
        fmt_duration(e.seconds / sw->n_jobs * se.worst, full, sizeof full);
        snprintf(s->estimate_tune, sizeof s->estimate_tune, "; lr=tune's search ~%s more, up to ~%s",
                 when, full);
    }
}

static void append_word(StrBuf *sb, const char *text)
{
    if (!text[0]) return;
    if (sb->len) sb_append(sb, " ");
    sb_append(sb, text);
}

/* The spec of the form: the preset and the extra keys, or the grid. */
static void compose(SweepScreen *s, StrBuf *sb)
{
    if (s->preset >= 0) {
        append_word(sb, preset_at(s->preset)->name);
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

/* Parses the form into sw (sweep_free it when 0 is returned). */
static int parse_form(SweepScreen *s, Sweep *sw, char *err)
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
    int rc = sweep_parse_data(1, argv, &base, data_override(s), sw, err);
    sb_free(&sb);
    if (rc || !s->until || s->preset < 0) return rc;
    double hours;
    if (text_to_double(s->text[F_HOURS].text, &hours) || !(hours > 0)) {
        sweep_free(sw);
        return err_set(err, "cap '%s' is not a number of hours > 0", s->text[F_HOURS].text);
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

/* Recomputes everything derived from the fields (after every change). */
static void recompute(SweepScreen *s)
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
    if (parse_form(s, &sw, s->error) == 0) {
        s->n_jobs = sw.n_jobs;
        estimate(s, &sw);
        check_jobs(s, &sw);
        sweep_free(&sw);
    } else {
        forget_check(s);
    }
    /* a dataset path that is not there: the jobs would fail when they start */
    const char *data = field_enabled(s, F_DATA) ? s->text[F_DATA].text : "";
    struct stat st;
    if (!s->data_error[0] && data[0] && strncmp(data, "builtin:", 8) && !strchr(data, '$') && stat(data, &st))
        snprintf(s->warning, sizeof s->warning, "dataset %.200s: no such file or folder (its jobs would fail)",
                 data);
}

/* ---- life cycle ------------------------------------------------------ */

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
                                  s->preset >= 0 ? preset_at(s->preset)->name : "", TASKS[s->task], s->until);
    for (int i = 0, first = 1; i < s->n_mixers && len < cap; i++)
        if (s->arch_on[i]) len += (size_t)snprintf(out + len, cap - len, "%s%s", first ? "" : ",", s->mixers[i]), first = 0;
    for (int k = 0; k < N_FORM_TEXT && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, "\n%s=%s", FORM_TEXT[k].key, s->text[FORM_TEXT[k].field].text);
}

/* The form of the last launch on this store; an unknown preset, task or
   architecture (another version's) is left at its default. */
static void recall_form(SweepScreen *s, UiContext *ctx)
{
    char form[sizeof s->saved_form];
    if (!ui_setting_get(ctx, "sweep.form", form, sizeof form)) return;
    for (char *line = strtok(form, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        const char *key = line, *value = eq + 1;
        if (!strcmp(key, "preset")) {
            for (int i = 0; i < s->n_presets; i++)
                if (!strcmp(preset_at(i)->name, value)) s->preset = i;
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

static void remember_form(SweepScreen *s, UiContext *ctx)
{
    char form[sizeof s->saved_form];
    form_text(s, form, sizeof form);
    if (!strcmp(form, s->saved_form)) return;
    ui_setting_put(ctx, "sweep.form", form);
    snprintf(s->saved_form, sizeof s->saved_form, "%s", form);
}

static void *sweep_create(UiContext *ctx)
{
    SweepScreen *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->preset = -1;
    s->list_sel = -1;
    s->n_mixers = mixer_count() < MAX_MIXERS ? mixer_count() : MAX_MIXERS;
    for (int i = 0; i < s->n_mixers; i++) {
        s->mixers[i] = mixer_at(i)->name;
        s->arch_on[i] = !strcmp(s->mixers[i], "attention");
    }
    s->n_presets = preset_count() < MAX_PRESETS ? preset_count() : MAX_PRESETS;
    for (int i = 0; i < s->n_presets; i++) {
        Config base;
        config_defaults(&base);
        char *argv[1] = {(char *)preset_at(i)->name};
        Sweep sw;
        char err[ERR_LEN];
        s->preset_jobs[i] = sweep_parse(1, argv, &base, &sw, err) ? -1 : sw.n_jobs;
        if (s->preset_jobs[i] >= 0) sweep_free(&sw);
    }
    ui_field_set(&s->text[F_DATA], "builtin:stories");
    ui_field_set(&s->text[F_AXES], "layers=1,2");
    ui_field_set(&s->text[F_BUDGET], "steps=300");
    ui_field_set(&s->text[F_EXTRA], "");
    ui_field_set(&s->text[F_PRIORITY], "0");
    ui_field_set(&s->text[F_HOURS], "4");
    recall_form(s, ctx);
    load_speeds(s, ctx);
    recompute(s);
    return s;
}

static void sweep_destroy(void *state)
{
    SweepScreen *s = state;
    if (s) {
        sweep_check_free(&s->check);
        speed_book_free(&s->book);
    }
    free(state);
}

static void sweep_reload(void *state, UiContext *ctx)
{
    SweepScreen *s = state;
    if (!s || now_seconds() - s->speeds_at < SPEED_REFRESH_SECONDS) return;
    load_speeds(s, ctx);
    recompute(s);
}

/* ---- drawing --------------------------------------------------------- */

static void draw_text_field(SweepScreen *s, UiContext *ctx, int f, int y, int x, int width)
{
    if (width < 4) return;
    int editing = s->editing && s->field == f;
    if (!editing && !field_enabled(s, f)) {
        ui_text(y, x, width, ui_attr(ctx, UI_PAIR_DIM) | A_UNDERLINE, "%s", "(from the preset)");
        return;
    }
    if (!editing && f == F_SEARCH && !s->text[f].text[0]) {
        ui_text(y, x, width, ui_attr(ctx, UI_PAIR_DIM) | A_UNDERLINE, "%s",
                "(a grid; random: trials=N search_seed=S prune=asha|median)");
        return;
    }
    ui_field_draw(&s->text[f], editing, y, x, width);
}

/* The architectures as [x] boxes, wrapped; returns the lines used. */
static int draw_archs(SweepScreen *s, UiContext *ctx, int y, int x, int width, int max_lines)
{
    int focused = s->field == F_ARCH && field_enabled(s, F_ARCH);
    int cx = x, line = 0;
    for (int i = 0; i < s->n_mixers; i++) {
        char item[48];
        snprintf(item, sizeof item, "[%c]%s", s->arch_on[i] ? 'x' : ' ', s->mixers[i]);
        int len = (int)strlen(item);
        if (cx > x && cx + len > x + width) {
            if (++line >= max_lines) break;
            cx = x;
        }
        int attr = !field_enabled(s, F_ARCH) ? ui_attr(ctx, UI_PAIR_DIM)
                 : focused && i == s->arch_cursor ? ui_attr(ctx, UI_PAIR_SELECTED)
                 : s->arch_on[i] ? (int)A_BOLD : 0;
        ui_text(y + line, cx, x + width - cx, attr, "%s", item);
        cx += len + 1;
    }
    return line + 1;
}

static void draw_preset_list(SweepScreen *s, UiContext *ctx, int top, int height, int width)
{
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    ui_text(top, 1, width - 1, title, "Pick a preset");
    ui_text(top, 15, width - 15, ui_attr(ctx, UI_PAIR_DIM), "up/down choose  Enter take  Esc back");
    int info_lines = height >= 12 ? 3 : 0;
    int list_top = top + 2, rows = height - 2 - info_lines;
    if (rows < 1) return;
    int n = s->n_presets + 1;                /* entry 0: build a grid */
    int sel = s->list_sel + 1;
    if (sel < s->list_scroll) s->list_scroll = sel;
    if (sel >= s->list_scroll + rows) s->list_scroll = sel - rows + 1;
    for (int e = s->list_scroll; e < n && e - s->list_scroll < rows; e++) {
        int y = list_top + e - s->list_scroll;
        int attr = e == sel ? ui_attr(ctx, UI_PAIR_SELECTED) : 0;
        if (e == sel) mvhline(y, 0, ' ' | (chtype)attr, width);
        if (e == 0) {
            ui_text(y, 1, width - 1, attr, "%-22s %s", "(none)", "build a grid from the form's fields");
            continue;
        }
        const Preset *p = preset_at(e - 1);
        char jobs[24];
        if (s->preset_jobs[e - 1] >= 0) snprintf(jobs, sizeof jobs, "%d job%s", s->preset_jobs[e - 1],
                                                 s->preset_jobs[e - 1] == 1 ? "" : "s");
        else snprintf(jobs, sizeof jobs, "does not parse");
        ui_text(y, 1, width - 1, attr, "%-22s %9s  %s", p->name, jobs, p->source);
    }
    if (info_lines && s->list_sel >= 0) {
        const Preset *p = preset_at(s->list_sel);
        int y = top + height - info_lines;
        ui_wrap(y, 1, width - 2, info_lines, ui_attr(ctx, UI_PAIR_DIM), p->what);
    }
}

/* "Memory": each job's need ("3: 55 MB"), the ones that do not fit in
   what this process may use in the warning colour with a '!', wrapped;
   returns the lines used. */
static int draw_memory(SweepScreen *s, UiContext *ctx, int y, int x, int width, int max_lines)
{
    ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Memory");
    int dim = ui_attr(ctx, UI_PAIR_DIM), bad = ui_attr(ctx, UI_PAIR_BAD) | A_BOLD;
    if (!s->checked) {
        ui_text(y, x, width, dim, "%s", s->data_error[0] ? "unknown: the data does not load"
                                      : "counted when the field is left");
        return 1;
    }
    char avail[32], largest[32], line[160];
    memory_fmt(s->check.available, avail, sizeof avail);
    memory_fmt(s->check.largest, largest, sizeof largest);
    if (s->check.n_unfit)
        snprintf(line, sizeof line, "%d of %d do not fit (!) in %s (%s)", s->check.n_unfit, s->check.n_jobs, avail,
                 s->check.source);
    else
        snprintf(line, sizeof line, "every job fits: largest %s of %s (%s)", largest, avail, s->check.source);
    int row = ui_wrap(y, x, width, max_lines < 2 ? max_lines : 2, s->check.n_unfit ? bad : 0, line);
    int cx = x, drawn = 0;   /* the list starts on the line after the summary */
    for (int j = 0; j < s->check.n_jobs && row < max_lines; j++) {
        char item[48], mem[32];
        memory_fmt(s->check.jobs[j].need, mem, sizeof mem);
        snprintf(item, sizeof item, "%d: %s%s", j + 1, mem, s->check.jobs[j].fits ? "" : "!");
        int len = (int)strlen(item);
        if (cx > x && cx + len > x + width) {
            if (++row >= max_lines) break;
            cx = x;
        }
        ui_text(y + row, cx, x + width - cx, s->check.jobs[j].fits ? dim : bad, "%s", item);
        cx += len + 2;
        drawn = 1;
    }
    return drawn ? row + 1 : row;
}

static void sweep_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    SweepScreen *s = state;
    if (!s) return;
    if (s->list_open) {
        draw_preset_list(s, ctx, top, height, width);
        return;
    }
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, dim = ui_attr(ctx, UI_PAIR_DIM);
    ui_text(top, 1, width - 1, title, "New sweep");
    if (store_read_only(ctx->store)) {
        ui_wrap(top + 2, 1, width - 2, height - 2, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD,
                "This store is read-only (a read-only mount or an immutable file): a sweep cannot be queued "
                "here.  Open a store that can be written to queue one.");
        return;
    }
    ui_text(top, 12, width - 12, dim, "%s",
            s->editing ? "editing: Enter/Esc done  Tab next field  up/down leave"
                       : "up/down field  Enter edit/choose  Space toggle  left/right cycle");
    int y = top + 2, bottom = top + height;
    int x = LABEL_WIDTH + 2, fw = width - x - 1;
    for (int f = 0; f < N_FIELDS && y < bottom; f++) {
        /* a grid's Search and a preset's Conclusive share a row */
        if (s->preset >= 0 ? f == F_SEARCH : f == F_UNTIL || f == F_HOURS) continue;
        int focused = s->field == f, enabled = field_enabled(s, f);
        int label_attr = focused ? ui_attr(ctx, UI_PAIR_SELECTED) | (int)A_BOLD : enabled ? (int)A_BOLD : dim;
        if (f != F_QUEUE && f != F_HOURS) ui_text(y, 1, LABEL_WIDTH, label_attr, "%-*s", LABEL_WIDTH, LABELS[f]);
        switch (f) {
        case F_PRESET:
            if (s->preset < 0) {
                ui_text(y, x, fw, 0, "(none: a grid from the fields below)");
            } else {
                const Preset *p = preset_at(s->preset);
                ui_text(y, x, fw, A_BOLD, "%s", p->name);
                ui_text(y, x + (int)strlen(p->name) + 2, fw - (int)strlen(p->name) - 2, dim, "%s", p->source);
            }
            y++;
            break;
        case F_ARCH:
            if (enabled) y += draw_archs(s, ctx, y, x, fw, bottom - y);
            else ui_text(y++, x, fw, dim, "(from the preset)");
            break;
        case F_TASK: {
            if (!enabled) {
                ui_text(y++, x, fw, dim, "(from the preset)");
                break;
            }
            int cx = x;
            for (int t = 0; t < N_TASKS; t++) {
                int on = t == s->task;
                int attr = !enabled ? dim : on && focused ? ui_attr(ctx, UI_PAIR_SELECTED) : on ? (int)A_BOLD : dim;
                ui_text(y, cx, x + fw - cx, attr, on ? "<%s>" : " %s ", TASKS[t]);
                cx += (int)strlen(TASKS[t]) + 3;
            }
            y++;
            break;
        }
        case F_UNTIL:   /* one row with F_HOURS, which ends it (a preset's only) */
            ui_text(y, x, fw, focused ? ui_attr(ctx, UI_PAIR_SELECTED) : (s->until ? (int)A_BOLD : 0),
                    "[%c] until every claim is decided", s->until ? 'x' : ' ');
            break;
        case F_HOURS: {
            int hx = x + UNTIL_WIDTH;   /* beside the checkbox */
            if (enabled) {
                ui_text(y, hx, fw - UNTIL_WIDTH, label_attr, "cap");
                draw_text_field(s, ctx, f, y, hx + 4, MB_MIN(fw - UNTIL_WIDTH - 4, 8));
                ui_text(y, hx + 13, fw - UNTIL_WIDTH - 13, dim, "CPU hours");
            }
            y++;
            break;
        }
        case F_QUEUE: {
            y++;
            int attr = focused ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : A_BOLD;
            if (s->n_jobs > 0) ui_text(y, 1, width - 1, attr, "[ Queue %d job%s ]", s->n_jobs, s->n_jobs == 1 ? "" : "s");
            else ui_text(y, 1, width - 1, focused ? attr : dim, "[ Queue ]");
            y++;
            break;
        }
        case F_DATA:
            if (enabled) {
                draw_text_field(s, ctx, f, y, x, fw);
            } else {
                char own[UI_FIELD_CAP];
                preset_data(preset_at(s->preset), own, sizeof own);
                ui_text(y, x, fw, dim, "(the preset's corpora: %s)", own);
            }
            y++;
            break;
        default:
            draw_text_field(s, ctx, f, y, x, fw);
            y++;
            break;
        }
    }
    if (y < bottom) {
        /* as the command line that queues the same sweep */
        char command[2700];
        const char *data = s->preset >= 0 ? data_override(s) : s->text[F_DATA].text[0] ? s->text[F_DATA].text : NULL;
        snprintf(command, sizeof command, "mixbench sweep %s%s%.512s%s%.32s", s->spec, data ? " --data " : "",
                 data ? data : "",
                 s->until && s->preset >= 0 ? " --until-conclusive --max-hours " : "",
                 s->until && s->preset >= 0 ? s->text[F_HOURS].text : "");
        ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Same as");
        y += ui_wrap(y, x, fw, bottom - y < 2 ? bottom - y : 2, dim, command);
    }
    if (y < bottom) {
        ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Jobs");
        if (s->n_jobs > 0) ui_text(y, x, fw, ui_attr(ctx, UI_PAIR_GOOD) | A_BOLD, "%d", s->n_jobs);
        else ui_text(y, x, fw, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, "none: the spec does not parse");
        y++;
    }
    if (y < bottom && s->n_jobs > 0) {
        char when[32];
        fmt_duration(s->estimate_seconds, when, sizeof when);
        char line[512];
        int len = snprintf(line, sizeof line, "%s%s, one job after another%s (an estimate; tokens/s: %s)",
                           s->estimate_prune[0] ? "" : "~", s->estimate_prune[0] ? s->estimate_prune : when,
                           s->estimate_tune, s->estimate_basis);
        if (s->until && s->preset >= 0 && len < (int)sizeof line)
            snprintf(line + len, sizeof line - (size_t)len, "; until conclusive: at most %s CPU hours in all (the cap)",
                     s->text[F_HOURS].text);
        ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Time");
        y += ui_wrap(y, x, fw, bottom - y < 2 ? bottom - y : 2, 0, line);
    }
    if (y < bottom && s->n_jobs > 0) y += draw_memory(s, ctx, y, x, fw, bottom - y);
    if (y < bottom && s->data_error[0])
        y += ui_wrap(y, 1, width - 2, bottom - y, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, s->data_error);
    if (y < bottom && s->error[0]) y += ui_wrap(y, 1, width - 2, bottom - y, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, s->error);
    if (y < bottom && s->warning[0]) ui_wrap(y, 1, width - 2, bottom - y, ui_attr(ctx, UI_PAIR_WARN), s->warning);
}

/* ---- keys ------------------------------------------------------------ */

static void move_field(SweepScreen *s, int step)
{
    int f = s->field;
    for (int k = 0; k < N_FIELDS; k++) {
        f = (f + step + N_FIELDS) % N_FIELDS;
        if (field_enabled(s, f)) break;
    }
    s->field = f;
}

/* The next / previous enabled text field (Tab while editing). */
static void move_text_field(SweepScreen *s, int step)
{
    int f = s->field;
    for (int k = 0; k < N_FIELDS; k++) {
        f = (f + step + N_FIELDS) % N_FIELDS;
        if (is_text_field(f) && field_enabled(s, f)) break;
    }
    s->field = f;
    s->text[f].cursor = (int)strlen(s->text[f].text);
}

static void queue_sweep(SweepScreen *s, UiContext *ctx)
{
    char err[ERR_LEN];
    Sweep sw;
    if (parse_form(s, &sw, err)) {
        ui_say(ctx, "not queued: %s", err);
        return;
    }
    /* data that would not load fails every job at once: refuse it now */
    SweepCheck check;
    if (sweep_check(&sw, &check, err)) {
        sweep_free(&sw);
        snprintf(s->data_error, sizeof s->data_error, "%s", err);
        ui_say(ctx, "not queued: %s", err);
        return;
    }
    sweep_check_free(&check);
    if (sw.n_jobs > CONFIRM_JOBS) {
        char question[128];
        snprintf(question, sizeof question, "Queue %d jobs?", sw.n_jobs);
        if (!ui_confirm(ctx, question)) {
            sweep_free(&sw);
            ui_say(ctx, "not queued");
            return;
        }
    }
    int priority = 0;   /* parse_form checked it */
    text_to_int(s->text[F_PRIORITY].text, INT_MIN, INT_MAX, &priority);
    int64_t sweep_id = 0;
    int rc = sweep_enqueue(ctx->store, &sw, priority, &sweep_id, err);
    /* lr=tune: the points' first rungs (experiments/adaptive.h) */
    if (rc == 0) rc = adaptive_advance(ctx->store, sweep_id, NULL, err);
    if (rc) ui_say(ctx, "%s", err);
    else ui_say(ctx, "queued sweep %lld (%s): %d job%s", (long long)sweep_id, sw.name, sw.n_jobs,
                sw.n_jobs == 1 ? "" : "s");
    sweep_free(&sw);
    if (rc) return;
    /* back to the top, so that an Enter on returning does not queue it twice */
    s->field = F_PRESET;
    ui_show_screen(ctx, &ui_screen_queue);
}

/* A key while a text field is edited; every key is taken. */
static void edit_key(SweepScreen *s, int ch)
{
    switch (ch) {
    case '\n':
    case '\r':
    case KEY_ENTER:
    case 27:                         /* Esc */
        s->editing = 0;
        break;                       /* the data is checked once the field is left */
    case KEY_UP:
    case KEY_DOWN:
        s->editing = 0;
        move_field(s, ch == KEY_UP ? -1 : 1);
        break;
    case '\t':
    case KEY_BTAB:
        move_text_field(s, ch == '\t' ? 1 : -1);
        return;
    default:
        if (ui_field_key(&s->text[s->field], ch) != UI_FIELD_EDITED) return;
        break;
    }
    recompute(s);
}

static int list_key(SweepScreen *s, int ch)
{
    switch (ch) {
    case KEY_UP:
    case 'k':
        if (s->list_sel > -1) s->list_sel--;
        return 1;
    case KEY_DOWN:
    case 'j':
        if (s->list_sel + 1 < s->n_presets) s->list_sel++;
        return 1;
    case KEY_HOME:
    case 'g':
        s->list_sel = -1;
        return 1;
    case KEY_END:
    case 'G':
        s->list_sel = s->n_presets - 1;
        return 1;
    case '\n':
    case '\r':
    case KEY_ENTER:
        int from = s->preset;
        s->preset = s->list_sel;
        s->list_open = 0;
        preset_changed(s, from);
        recompute(s);
        return 1;
    case 27:
    case KEY_LEFT:
    case 'h':
        s->list_open = 0;
        return 1;
    default:
        return 0;
    }
}

static int form_key(void *state, UiContext *ctx, int ch);

/* A key, then the form as the store should remember it. */
static int sweep_key(void *state, UiContext *ctx, int ch)
{
    int took = form_key(state, ctx, ch);
    if (state && !((SweepScreen *)state)->editing) remember_form(state, ctx);
    return took;
}

static int form_key(void *state, UiContext *ctx, int ch)
{
    SweepScreen *s = state;
    if (!s || store_read_only(ctx->store)) return 0;   /* nothing to edit or queue */
    if (s->editing) {
        edit_key(s, ch);
        return 1;
    }
    if (s->list_open) return list_key(s, ch);
    int enter = ch == '\n' || ch == '\r' || ch == KEY_ENTER;
    int left = ch == KEY_LEFT || ch == 'h', right = ch == KEY_RIGHT || ch == 'l';
    switch (ch) {
    case KEY_UP:
    case 'k':
        move_field(s, -1);
        return 1;
    case KEY_DOWN:
    case 'j':
        move_field(s, 1);
        return 1;
    default:
        break;
    }
    switch (s->field) {
    case F_PRESET:
        if (enter) {
            s->list_open = 1;
            s->list_sel = s->preset;
        } else if (left || right) {
            int n = s->n_presets + 1, from = s->preset;
            s->preset = (s->preset + 1 + (right ? 1 : n - 1)) % n - 1;
            preset_changed(s, from);
            recompute(s);
        } else {
            return 0;
        }
        return 1;
    case F_ARCH:
        if (left && s->arch_cursor > 0) s->arch_cursor--;
        else if (right && s->arch_cursor + 1 < s->n_mixers) s->arch_cursor++;
        else if (enter || ch == ' ') {
            s->arch_on[s->arch_cursor] = !s->arch_on[s->arch_cursor];
            recompute(s);
        } else if (!left && !right) return 0;
        return 1;
    case F_TASK:
        if (enter || ch == ' ' || right) s->task = (s->task + 1) % N_TASKS;
        else if (left) s->task = (s->task + N_TASKS - 1) % N_TASKS;
        else return 0;
        recompute(s);
        return 1;
    case F_UNTIL:
        if (!enter && ch != ' ') return 0;
        s->until = !s->until;
        recompute(s);
        return 1;
    case F_QUEUE:
        if (!enter) return 0;
        queue_sweep(s, ctx);
        return 1;
    default:
        if (!enter) return 0;
        s->editing = 1;
        s->text[s->field].cursor = (int)strlen(s->text[s->field].text);
        return 1;
    }
}

static int sweep_typing(void *state)
{
    const SweepScreen *s = state;
    return s && s->editing;
}

const UiScreen ui_screen_sweep = {
    "New sweep",
    "up/down field  Enter edit/choose/queue",
    "up/down, j/k      move between fields\n"
    "Enter             edit a text field; open the preset list; toggle an\n"
    "                  architecture; next task; on [ Queue ]: queue the sweep\n"
    "Conclusive        (a preset) Enter/Space: run rounds until every claim is\n"
    "                  decided, at most 'cap' CPU hours (--until-conclusive --max-hours)\n"
    "Space             toggle the architecture under the cursor; next task\n"
    "left/right, h/l   architecture cursor; previous/next task or preset\n"
    "While editing:    Enter or Esc leave the field, up/down leave and move,\n"
    "                  Tab / Shift-Tab next / previous text field, left/right,\n"
    "                  Home/End, Backspace/Delete, Ctrl-U / Ctrl-K clear\n"
    "Preset list:      up/down, Enter take, Esc back; '(none)' builds a grid\n"
    "Axes: a grid `layers=1,2 heads=2,4` or zipped `(layers,heads)=(1,1),(2,4)`;\n"
    "Budget: steps=N, tokens=N or seconds=S; Extra keys: any key=value (with a\n"
    "preset they override its keys).  The job count and the error line follow\n"
    "every keystroke; the time is an estimate from finished runs' tokens/s.\n"
    "Memory: what each job needs, '!' when more than this process may use;\n"
    "counted (the data loaded once) when a field is left.  Data that does not\n"
    "load is named in red and the sweep is not queued.\n",
    sweep_create,
    sweep_destroy,
    sweep_reload,
    sweep_draw,
    sweep_key,
    sweep_typing,
    NULL,
};
