/*
 * sweep_draw.c — drawing the New sweep form (sweep_draw.h): a row per
 * field, then the command that queues the same sweep, the job count, the
 * Time line (ui/sweep_estimate.c), the memory and what is wrong; or the
 * preset list: (none), a study file's path typed, the built-in studies and
 * the files of ./studies (ui/sweep_studies.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/sweep_draw.h"

#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"
#include "engine/memory.h"
#include "ui/sweep_estimate.h"
#include "ui/sweep_form.h"
#include "ui/sweep_studies.h"

static const char *const LABELS[N_FIELDS] = {"Preset", "Archs", "Task", "Dataset", "Axes", "Budget", "Extra keys",
                                              "Priority", "Search", "Conclusive", "Cap hours", ""};

static void draw_text_field(SweepScreen *s, UiContext *ctx, int f, int y, int x, int width)
{
    if (width < 4) return;
    int editing = s->editing && s->field == f;
    if (!editing && !sweep_field_enabled(s, f)) {
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
    int focused = s->field == F_ARCH && sweep_field_enabled(s, F_ARCH);
    int cx = x, line = 0;
    for (int i = 0; i < s->n_mixers; i++) {
        char item[48];
        snprintf(item, sizeof item, "[%c]%s", s->arch_on[i] ? 'x' : ' ', s->mixers[i]);
        int len = (int)strlen(item);
        if (cx > x && cx + len > x + width) {
            if (++line >= max_lines) break;
            cx = x;
        }
        int attr = !sweep_field_enabled(s, F_ARCH) ? ui_attr(ctx, UI_PAIR_DIM)
                 : focused && i == s->arch_cursor ? ui_attr(ctx, UI_PAIR_SELECTED)
                 : s->arch_on[i] ? (int)A_BOLD : 0;
        ui_text(y + line, cx, x + width - cx, attr, "%s", item);
        cx += len + 1;
    }
    return line + 1;
}

/* List entry e's row at y (LIST_*: (none), the path typed, a study). */
static void draw_entry(SweepScreen *s, UiContext *ctx, int e, int y, int width, int attr)
{
    if (e == LIST_GRID) {
        ui_text(y, 1, width - 1, attr, "%-22s %s", "(none)", "build a grid from the form's fields");
        return;
    }
    if (e == LIST_PATH) {
        ui_text(y, 1, width - 1, attr, "%-22s ", "(a study file)");
        if (s->path_editing) ui_field_draw(&s->path, 1, y, 24, width - 25);
        else ui_text(y, 24, width - 24, attr, "%s", "Enter: type its path (FILE.yaml)");
        return;
    }
    const SweepChoice *c = &s->choices[e - LIST_FIRST_STUDY];
    const Preset *p = c->builtin ? c->builtin : c->study ? study_preset(c->study) : NULL;
    char jobs[24];
    if (c->jobs >= 0) snprintf(jobs, sizeof jobs, "%d job%s", c->jobs, c->jobs == 1 ? "" : "s");
    else snprintf(jobs, sizeof jobs, "-");
    const char *slash = strrchr(c->path, '/');
    if (c->builtin) ui_text(y, 1, width - 1, attr, "%-22s %9s  %s", p->name, jobs, p->source);
    else if (p) ui_text(y, 1, width - 1, attr, "%-22s %9s  %s: %s", p->name, jobs, c->path, p->source);
    else ui_text(y, 1, width - 1, e == s->list_sel ? attr : ui_attr(ctx, UI_PAIR_BAD), "%-22s %9s  %s: does not read",
                 slash ? slash + 1 : c->path, jobs, c->path);
}

/* Under the list: what the entry chosen runs (a study's description), or
   why a file does not read. */
static void draw_entry_info(SweepScreen *s, UiContext *ctx, int y, int width, int lines)
{
    int dim = ui_attr(ctx, UI_PAIR_DIM);
    if (s->list_sel == LIST_PATH) {
        ui_wrap(y, 1, width - 2, lines, dim, s->path_editing
                    ? "a study file's path (docs/studies.md): Enter reads it, Esc back"
                    : "a study file anywhere: its path, as `mixbench sweep FILE.yaml` takes it");
        return;
    }
    if (s->list_sel < LIST_FIRST_STUDY) return;
    const SweepChoice *c = &s->choices[s->list_sel - LIST_FIRST_STUDY];
    const Preset *p = c->builtin ? c->builtin : c->study ? study_preset(c->study) : NULL;
    if (p) ui_wrap(y, 1, width - 2, lines, dim, p->what);
    else ui_wrap(y, 1, width - 2, lines, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD, c->error);
}

void sweep_draw_preset_list(SweepScreen *s, UiContext *ctx, int top, int height, int width)
{
    int title = ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD;
    ui_text(top, 1, width - 1, title, "Pick a preset or a study file");
    ui_text(top, 31, width - 31, ui_attr(ctx, UI_PAIR_DIM), "%s",
            s->path_editing ? "Enter read it  Esc back" : "up/down choose  Enter take  Esc back");
    int info_lines = height >= 12 ? 3 : 0;
    int list_top = top + 2, rows = height - 2 - info_lines;
    if (rows < 1) return;
    int n = LIST_FIRST_STUDY + s->n_choices, sel = s->list_sel;
    if (sel < s->list_scroll) s->list_scroll = sel;
    if (sel >= s->list_scroll + rows) s->list_scroll = sel - rows + 1;
    for (int e = s->list_scroll; e < n && e - s->list_scroll < rows; e++) {
        int y = list_top + e - s->list_scroll;
        int attr = e == sel ? ui_attr(ctx, UI_PAIR_SELECTED) : 0;
        if (e == sel) mvhline(y, 0, ' ' | (chtype)attr, width);
        draw_entry(s, ctx, e, y, width, attr);
    }
    if (info_lines) draw_entry_info(s, ctx, top + height - info_lines, width, info_lines);
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

/* Where the fields are drawn: from column x, fw wide, rows up to bottom. */
typedef struct {
    UiContext *ctx;
    int x, fw, width, bottom;
    int dim;
} Place;

/* The study chosen: its name and source (a file's path after them), its
   description on the next row; a file that does not read, its path (the
   error is under the form).  Returns the rows used. */
static int draw_preset_row(const SweepScreen *s, const Place *p, int y)
{
    if (s->preset < 0) {
        ui_text(y, p->x, p->fw, 0, "(none: a grid from the fields below)");
        return 1;
    }
    const SweepChoice *c = sweep_choice(s);
    const Preset *preset = sweep_preset(s);
    if (!preset) {
        ui_text(y, p->x, p->fw, ui_attr(p->ctx, UI_PAIR_BAD) | A_BOLD, "%s: does not read", c->path);
        return 1;
    }
    int len = (int)strlen(preset->name);
    ui_text(y, p->x, p->fw, A_BOLD, "%s", preset->name);
    if (c->builtin) ui_text(y, p->x + len + 2, p->fw - len - 2, p->dim, "%s", preset->source);
    else ui_text(y, p->x + len + 2, p->fw - len - 2, p->dim, "%s (%s)", preset->source, c->path);
    if (!preset->what[0] || y + 1 >= p->bottom) return 1;
    ui_text(y + 1, p->x, p->fw, p->dim, "%s", preset->what);
    return 2;
}

static void draw_tasks(const SweepScreen *s, const Place *p, int y, int focused)
{
    int cx = p->x;
    for (int t = 0; t < N_TASKS; t++) {
        int on = t == s->task;
        int attr = on && focused ? ui_attr(p->ctx, UI_PAIR_SELECTED) : on ? (int)A_BOLD : p->dim;
        ui_text(y, cx, p->x + p->fw - cx, attr, on ? "<%s>" : " %s ", TASKS[t]);
        cx += (int)strlen(TASKS[t]) + 3;
    }
}

/* The cap of CPU hours, beside the Conclusive checkbox (a preset's only). */
static void draw_hours(SweepScreen *s, const Place *p, int y, int label_attr)
{
    int hx = p->x + UNTIL_WIDTH, fw = p->fw - UNTIL_WIDTH;
    ui_text(y, hx, fw, label_attr, "cap");
    draw_text_field(s, p->ctx, F_HOURS, y, hx + 4, MB_MIN(fw - 4, 8));
    ui_text(y, hx + 13, fw - 13, p->dim, "CPU hours");
}

/* [ Queue N jobs ], after a blank row; returns the rows used. */
static int draw_queue(const SweepScreen *s, const Place *p, int y, int focused)
{
    int attr = focused ? ui_attr(p->ctx, UI_PAIR_SELECTED) | A_BOLD : A_BOLD;
    if (s->n_jobs > 0)
        ui_text(y + 1, 1, p->width - 1, attr, "[ Queue %d job%s ]", s->n_jobs, s->n_jobs == 1 ? "" : "s");
    else ui_text(y + 1, 1, p->width - 1, focused ? attr : p->dim, "[ Queue ]");
    return 2;
}

static void draw_data(SweepScreen *s, const Place *p, int y, int enabled)
{
    if (enabled) {
        draw_text_field(s, p->ctx, F_DATA, y, p->x, p->fw);
        return;
    }
    char own[UI_FIELD_CAP] = "";
    const Preset *preset = sweep_preset(s);
    if (preset) preset_data(preset, own, sizeof own);
    ui_text(y, p->x, p->fw, p->dim, preset ? "(the preset's corpora: %s)" : "(from the study file)", own);
}

/* Field f's row (its label and value) at y; returns the rows used. */
static int draw_field(SweepScreen *s, const Place *p, int f, int y)
{
    int focused = s->field == f, enabled = sweep_field_enabled(s, f);
    int label_attr = focused ? ui_attr(p->ctx, UI_PAIR_SELECTED) | (int)A_BOLD : enabled ? (int)A_BOLD : p->dim;
    if (f != F_QUEUE && f != F_HOURS) ui_text(y, 1, LABEL_WIDTH, label_attr, "%-*s", LABEL_WIDTH, LABELS[f]);
    if (!enabled && (f == F_ARCH || f == F_TASK)) {
        ui_text(y, p->x, p->fw, p->dim, "(from the preset)");
        return 1;
    }
    switch (f) {
    case F_PRESET: return draw_preset_row(s, p, y);
    case F_ARCH: return draw_archs(s, p->ctx, y, p->x, p->fw, p->bottom - y);
    case F_TASK: draw_tasks(s, p, y, focused); return 1;
    case F_UNTIL:   /* one row with F_HOURS, which ends it (a preset's only) */
        ui_text(y, p->x, p->fw, focused ? ui_attr(p->ctx, UI_PAIR_SELECTED) : (s->until ? (int)A_BOLD : 0),
                "[%c] until every claim is decided", s->until ? 'x' : ' ');
        return 0;
    case F_HOURS:
        if (enabled) draw_hours(s, p, y, label_attr);
        return 1;
    case F_QUEUE: return draw_queue(s, p, y, focused);
    case F_DATA: draw_data(s, p, y, enabled); return 1;
    default: draw_text_field(s, p->ctx, f, y, p->x, p->fw); return 1;
    }
}

/* The title line; 0 when the store is read-only (said instead of the form). */
static int draw_title(const SweepScreen *s, UiContext *ctx, int top, int height, int width)
{
    ui_text(top, 1, width - 1, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "New sweep");
    if (store_read_only(ctx->store)) {
        ui_wrap(top + 2, 1, width - 2, height - 2, ui_attr(ctx, UI_PAIR_BAD) | A_BOLD,
                "This store is read-only (a read-only mount or an immutable file): a sweep cannot be queued "
                "here.  Open a store that can be written to queue one.");
        return 0;
    }
    ui_text(top, 12, width - 12, ui_attr(ctx, UI_PAIR_DIM), "%s",
            s->editing ? "editing: Enter/Esc done  Tab next field  up/down leave"
                       : "up/down field  Enter edit/choose  Space toggle  left/right cycle");
    return 1;
}

/* "Same as" (the command line that queues the same sweep) and "Jobs";
   returns the rows used. */
static int draw_command(const SweepScreen *s, const Place *p, int y)
{
    int y0 = y;
    if (y < p->bottom) {
        char command[2700];
        const char *data = s->preset >= 0 ? sweep_data_override(s)
                         : s->text[F_DATA].text[0] ? s->text[F_DATA].text : NULL;
        int until = s->until && s->preset >= 0, cap = until && s->text[F_HOURS].text[0];   /* "": no cap */
        snprintf(command, sizeof command, "mixbench sweep %s%s%.512s%s%s%.32s", s->spec, data ? " --data " : "",
                 data ? data : "", until ? " --until-conclusive" : "", cap ? " --max-hours " : "",
                 cap ? s->text[F_HOURS].text : "");
        ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Same as");
        y += ui_wrap(y, p->x, p->fw, p->bottom - y < 2 ? p->bottom - y : 2, p->dim, command);
    }
    if (y < p->bottom) {
        ui_text(y, 1, LABEL_WIDTH, A_BOLD, "Jobs");
        if (s->n_jobs > 0) ui_text(y, p->x, p->fw, ui_attr(p->ctx, UI_PAIR_GOOD) | A_BOLD, "%d", s->n_jobs);
        else ui_text(y, p->x, p->fw, ui_attr(p->ctx, UI_PAIR_BAD) | A_BOLD, "none: the spec does not parse");
        y++;
    }
    return y - y0;
}

/* Under the fields: the command, the job count, the time, the memory and
   what is wrong. */
static void draw_summary(SweepScreen *s, const Place *p, int y)
{
    int bottom = p->bottom, bad = ui_attr(p->ctx, UI_PAIR_BAD) | A_BOLD;
    y += draw_command(s, p, y);
    if (y < bottom && s->n_jobs > 0) y += sweep_draw_time(s, y, p->x, p->fw, bottom - y);
    if (y < bottom && s->n_jobs > 0) y += draw_memory(s, p->ctx, y, p->x, p->fw, bottom - y);
    if (y < bottom && s->data_error[0]) y += ui_wrap(y, 1, p->width - 2, bottom - y, bad, s->data_error);
    if (y < bottom && s->error[0]) y += ui_wrap(y, 1, p->width - 2, bottom - y, bad, s->error);
    if (y < bottom && s->warning[0]) ui_wrap(y, 1, p->width - 2, bottom - y, ui_attr(p->ctx, UI_PAIR_WARN), s->warning);
}

void sweep_form_draw(SweepScreen *s, UiContext *ctx, int top, int height, int width)
{
    if (s->list_open) {
        sweep_draw_preset_list(s, ctx, top, height, width);
        return;
    }
    if (!draw_title(s, ctx, top, height, width)) return;
    Place p = {ctx, LABEL_WIDTH + 2, width - LABEL_WIDTH - 3, width, top + height, ui_attr(ctx, UI_PAIR_DIM)};
    int y = top + 2;
    for (int f = 0; f < N_FIELDS && y < p.bottom; f++) {
        /* a grid's Search and a preset's Conclusive share a row */
        if (s->preset >= 0 ? f == F_SEARCH : f == F_UNTIL || f == F_HOURS) continue;
        y += draw_field(s, &p, f, y);
    }
    draw_summary(s, &p, y);
}
