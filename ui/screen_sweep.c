/*
 * screen_sweep.c — the New sweep screen: a form that queues a sweep, either
 * a study (docs/studies.md: one of the built-in studies, the seeds'
 * presets; a study file of ./studies; or a study file whose path is typed
 * in the preset list; ui/sweep_studies.h) or a grid built from fields:
 * architectures (the registered mixers), task, dataset, axes, budget and
 * extra keys; the Search field's words (trials=N search_seed=S
 * prune=asha|median) make the grid a random search over the axes'
 * distributions (lr=log:1e-4..1e-2), on the row a preset's Conclusive
 * checkbox takes.  Every change re-parses the composed spec with
 * sweep_parse, so the form always shows the job count (or the parser's
 * error line) and an estimate of the training time; "Queue" hands the
 * sweep to sweep_enqueue, exactly as `mixbench sweep` does (a study file
 * named by its path, as `mixbench sweep FILE.yaml key=value` names it: a
 * file that does not read shows its one-line error, file:line:column, and
 * is not queued), and switches to the Queue screen.  When no field is
 * being edited, the sweep's data is loaded (once per spec) to show each
 * job's memory and to refuse data that would fail every job
 * (experiments/sweep_check.h).  On a store that
 * cannot be written (store_read_only) the form is not shown: the screen
 * says so, and no key edits or queues anything.
 *
 * Keys: up/down move between fields; Enter edits a text field, toggles or
 * cycles the others, opens the preset list, or queues; Space toggles an
 * architecture; left/right move within the architectures, cycle the task
 * and the preset.  While a text field is edited every key goes to it
 * (typing() is 1): Enter or Esc leave it, up/down leave it and move, Tab /
 * Shift-Tab go to the next / previous text field still editing.  In the
 * preset list, Enter on '(a study file)' types a path (every key goes to
 * it: typing() is 1) until Enter reads it or Esc.
 *
 * Here: the screen's life cycle and keys; its fields, their spec and the
 * form the store remembers are ui/sweep_form.c, the estimate
 * ui/sweep_estimate.c, the drawing ui/sweep_draw.c (ui/sweep_state.h).
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

#include "engine/common.h"
#include "engine/mixer.h"
#include "engine/text.h"
#include "experiments/adaptive.h"
#include "experiments/sweep_queue.h"
#include "ui/sweep_draw.h"
#include "ui/sweep_estimate.h"
#include "ui/sweep_form.h"
#include "ui/sweep_studies.h"

/* Sweeps with more jobs than this ask before queueing. */
#define CONFIRM_JOBS 100

/* ---- life cycle ------------------------------------------------------ */

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
    sweep_studies_load(s);
    ui_field_set(&s->text[F_DATA], "builtin:stories");
    ui_field_set(&s->text[F_AXES], "layers=1,2");
    ui_field_set(&s->text[F_BUDGET], "steps=300");
    ui_field_set(&s->text[F_EXTRA], "");
    ui_field_set(&s->text[F_PRIORITY], "0");
    ui_field_set(&s->text[F_HOURS], "4");
    sweep_recall_form(s, ctx);
    sweep_load_speeds(s, ctx);
    sweep_recompute(s);
    return s;
}

static void sweep_destroy(void *state)
{
    SweepScreen *s = state;
    if (s) {
        sweep_check_free(&s->check);
        speed_book_free(&s->book);
        sweep_studies_free(s);
    }
    free(state);
}

static void sweep_reload(void *state, UiContext *ctx)
{
    SweepScreen *s = state;
    if (!s || now_seconds() - s->speeds_at < SPEED_REFRESH_SECONDS) return;
    sweep_load_speeds(s, ctx);
    sweep_recompute(s);
}

static void sweep_draw(void *state, UiContext *ctx, int top, int height, int width)
{
    if (state) sweep_form_draw(state, ctx, top, height, width);
}

/* ---- keys ------------------------------------------------------------ */

static void move_field(SweepScreen *s, int step)
{
    int f = s->field;
    for (int k = 0; k < N_FIELDS; k++) {
        f = (f + step + N_FIELDS) % N_FIELDS;
        if (sweep_field_enabled(s, f)) break;
    }
    s->field = f;
}

/* The next / previous enabled text field (Tab while editing). */
static void move_text_field(SweepScreen *s, int step)
{
    int f = s->field;
    for (int k = 0; k < N_FIELDS; k++) {
        f = (f + step + N_FIELDS) % N_FIELDS;
        if (sweep_is_text_field(f) && sweep_field_enabled(s, f)) break;
    }
    s->field = f;
    s->text[f].cursor = (int)strlen(s->text[f].text);
}

static void queue_sweep(SweepScreen *s, UiContext *ctx)
{
    char err[ERR_LEN];
    Sweep sw;
    if (sweep_parse_form(s, &sw, err)) {
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
    int priority = 0;   /* sweep_parse_form checked it */
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
        if (ui_field_type(&s->text[s->field], ch) != UI_FIELD_EDITED) return;
        break;
    }
    sweep_recompute(s);
}

/* The study of list entry e (LIST_*) taken, the list closed. */
static void take_entry(SweepScreen *s, int e)
{
    int from = s->preset;
    s->preset = e >= LIST_FIRST_STUDY ? e - LIST_FIRST_STUDY : -1;
    s->list_open = 0;
    sweep_preset_changed(s, from);
    sweep_recompute(s);
}

/* A key while a study file's path is typed in the list: Enter reads the
   file and takes it (a file that does not read shows its error on the
   form and is not queued), Esc goes back to the list. */
static void path_key(SweepScreen *s, int ch)
{
    if (ch == 27) {
        s->path_editing = 0;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        s->path_editing = 0;
        if (!s->path.text[0]) return;
        int i = sweep_study_at_path(s, s->path.text);
        if (i >= 0) take_entry(s, LIST_FIRST_STUDY + i);   /* -1: the list is full */
    } else {
        ui_field_type(&s->path, ch);
    }
}

static int list_key(SweepScreen *s, int ch)
{
    int last = LIST_FIRST_STUDY + s->n_choices - 1;
    switch (ch) {
    case KEY_UP:
    case 'k':
        if (s->list_sel > LIST_GRID) s->list_sel--;
        return 1;
    case KEY_DOWN:
    case 'j':
        if (s->list_sel < last) s->list_sel++;
        return 1;
    case KEY_HOME:
    case 'g':
        s->list_sel = LIST_GRID;
        return 1;
    case KEY_END:
    case 'G':
        s->list_sel = last;
        return 1;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (s->list_sel == LIST_PATH) {
            s->path_editing = 1;
            s->path.cursor = (int)strlen(s->path.text);
        } else {
            take_entry(s, s->list_sel);
        }
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
    if (state && !((SweepScreen *)state)->editing) sweep_remember_form(state, ctx);
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
    if (s->list_open && s->path_editing) {
        path_key(s, ch);
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
            sweep_studies_load(s);   /* ./studies as it is now */
            s->list_open = 1;
            s->list_sel = s->preset >= 0 ? LIST_FIRST_STUDY + s->preset : LIST_GRID;
        } else if (left || right) {
            int n = s->n_choices + 1, from = s->preset;
            s->preset = (s->preset + 1 + (right ? 1 : n - 1)) % n - 1;
            sweep_preset_changed(s, from);
            sweep_recompute(s);
        } else {
            return 0;
        }
        return 1;
    case F_ARCH:
        if (left && s->arch_cursor > 0) s->arch_cursor--;
        else if (right && s->arch_cursor + 1 < s->n_mixers) s->arch_cursor++;
        else if (enter || ch == ' ') {
            s->arch_on[s->arch_cursor] = !s->arch_on[s->arch_cursor];
            sweep_recompute(s);
        } else if (!left && !right) return 0;
        return 1;
    case F_TASK:
        if (enter || ch == ' ' || right) s->task = (s->task + 1) % N_TASKS;
        else if (left) s->task = (s->task + N_TASKS - 1) % N_TASKS;
        else return 0;
        sweep_recompute(s);
        return 1;
    case F_UNTIL:
        if (!enter && ch != ' ') return 0;
        s->until = !s->until;
        sweep_recompute(s);
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
    return s && (s->editing || (s->list_open && s->path_editing));
}

const UiScreen ui_screen_sweep = {
    "New sweep",
    "up/down field  Enter edit/choose/queue",
    "up/down, j/k      move between fields\n"
    "Enter             edit a text field; open the preset list; toggle an\n"
    "                  architecture; next task; on [ Queue ]: queue the sweep\n"
    "Conclusive        (a preset) Enter/Space: run rounds until every claim is\n"
    "                  decided, at most 'cap' CPU hours (--until-conclusive --max-hours;\n"
    "                  an empty cap: none); ticked when the study asks for it\n"
    "Space             toggle the architecture under the cursor; next task\n"
    "left/right, h/l   architecture cursor; previous/next task or preset\n"
    "While editing:    Enter or Esc leave the field, up/down leave and move,\n"
    "                  Tab / Shift-Tab next / previous text field, left/right,\n"
    "                  Home/End, Backspace/Delete, Ctrl-U / Ctrl-K clear\n"
    "Preset list:      up/down, Enter take, Esc back; '(none)' builds a grid;\n"
    "                  the built-in studies, then the files of ./studies;\n"
    "                  '(a study file)': Enter, type its path, Enter reads it\n"
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
