/*
 * organise.c — the organising keys of organise.h: the question before a
 * delete, the undo kept in the UiContext, and the text typed for a tag, a
 * note or a name, each applied through db/organise.h with its outcome on
 * the message line.  The store's limits are the only ones: a text over
 * its field's limit (db/organise.h STORE_*_MAX), also one longer than the
 * prompt holds, is refused in one line and nothing is stored; a paste is
 * taken in one go (ui_field_type).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/organise.h"

#include <assert.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "db/organise.h"
#include "db/results.h"
#include "engine/common.h"
#include "experiments/format.h"

/* "run 3" or "3 runs (3 4 5)" into out. */
static void name_runs(const int64_t *ids, int n, char *out, size_t cap)
{
    if (n == 1) {
        snprintf(out, cap, "run %lld", (long long)ids[0]);
        return;
    }
    int len = snprintf(out, cap, "%d runs (", n);
    for (int i = 0; i < n && len < (int)cap; i++)
        len += snprintf(out + len, cap - (size_t)len, "%s%lld", i ? " " : "", (long long)ids[i]);
    if (len < (int)cap) snprintf(out + len, cap - (size_t)len, ")");
}

/* The run's point for the question: its coordinates but arch and task (and
   seed, for a seed group's runs). */
static void point_of(const RunSummary *r, int group, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (const char *p = r->coords; *p && len < cap;) {
        size_t n = strcspn(p, " ");
        if (strncmp(p, "arch=", 5) && strncmp(p, "task=", 5) && (!group || strncmp(p, "seed=", 5)))
            len += (size_t)snprintf(out + len, cap - len, " %.*s", (int)n, p);
        p += n;
        while (*p == ' ') p++;
    }
}

/* D: asks, then moves the runs to the trash; those refused stay, said why. */
static int delete_runs(UiContext *ctx, const int64_t *ids, int n, const RunSummary *first)
{
    char who[160], question[800], valid[32];
    name_runs(ids, n, who, sizeof who);
    if (n == 1 && first->starred) {
        ui_say(ctx, "run %lld is starred, so protected: * unstars it", (long long)ids[0]);
        return 0;
    }
    if (n == 1 && (first->status == RUN_RUNNING || first->status == RUN_QUEUED)) {
        ui_say(ctx, "run %lld is %s: pause (p) or cancel (x) it first", (long long)ids[0],
               run_status_name(first->status));
        return 0;
    }
    char point[256];
    point_of(first, n > 1, point, sizeof point);
    snprintf(question, sizeof question, "delete %s: %s %s%s, valid %s%s%s? (to the trash, u undoes)", who,
             first->arch, first->task, point, fmt_real(first->valid_loss, 3, valid, sizeof valid),
             first->tags[0] ? ", tags " : "", first->tags);
    if (!ui_confirm(ctx, question)) {
        ui_say(ctx, "%s left as %s", who, n == 1 ? "it is" : "they are");
        return 0;
    }
    int gone = 0;
    char err[ERR_LEN], why[ERR_LEN] = "";
    for (int i = 0; i < n; i++) {
        if (store_run_trash(ctx->store, ids[i], err)) {
            snprintf(why, sizeof why, "%s", err);
            continue;
        }
        if (gone == 0) ctx->n_undo = 0;   /* this delete is the one u undoes */
        if (ctx->n_undo < UI_UNDO_MAX) ctx->undo[ctx->n_undo++] = ids[i];
        gone++;
    }
    if (gone == n) ui_say(ctx, "%s to the trash (u undoes; `mixbench purge` empties the trash)", who);
    else if (gone) ui_say(ctx, "%d of %d runs to the trash (u undoes); %s", gone, n, why);
    else ui_say(ctx, "%s", why);
    return gone > 0;
}

/* u: the runs of the last delete come back. */
static void undo_delete(UiContext *ctx)
{
    if (ctx->n_undo == 0) {
        ui_say(ctx, "nothing to undo: no run deleted since the workbench started");
        return;
    }
    char who[160], err[ERR_LEN];
    name_runs(ctx->undo, ctx->n_undo, who, sizeof who);
    int failed = 0;
    for (int i = 0; i < ctx->n_undo; i++) failed |= store_run_restore(ctx->store, ctx->undo[i], err) != 0;
    if (failed) ui_say(ctx, "undo: %s", err);
    else ui_say(ctx, "%s restored", who);
    ctx->n_undo = 0;
}

/* *: every run starred, or (when the first is) every run unstarred. */
static void toggle_star(UiContext *ctx, const int64_t *ids, int n, const RunSummary *first)
{
    char who[160], err[ERR_LEN];
    name_runs(ids, n, who, sizeof who);
    int star = !first->starred;
    for (int i = 0; i < n; i++)
        if (store_run_star(ctx->store, ids[i], star, err)) {
            ui_say(ctx, "%s", err);
            return;
        }
    ui_say(ctx, star ? "%s starred: protected from D" : "%s unstarred", who);
}

static void start_prompt(UiOrganise *o, UiOrgPrompt what, const int64_t *ids, int n, const char *text)
{
    o->prompt = what;
    o->n = MB_MIN(n, UI_UNDO_MAX);
    memcpy(o->ids, ids, (size_t)o->n * sizeof *ids);
    ui_field_set(&o->field, text);
}

/* n: the prompt filled with the first run's whole note (RunSummary holds
   its start only). */
static void start_note_prompt(UiOrganise *o, UiContext *ctx, const int64_t *ids, int n)
{
    char note[STORE_NOTE_MAX], err[ERR_LEN];
    if (store_run_note_read(ctx->store, ids[0], note, sizeof note, err)) {
        ui_say(ctx, "%s", err);
        return;
    }
    start_prompt(o, UI_ORG_NOTE, ids, n, note);
}

/* Enter on a tag prompt: each word tags, "-word" untags. */
static void apply_tags(UiOrganise *o, UiContext *ctx, char *err)
{
    char said[200] = "", *save = NULL, words[UI_FIELD_CAP];
    snprintf(words, sizeof words, "%s", o->field.text);
    int len = 0;
    for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        int add = w[0] != '-';
        for (int i = 0; i < o->n; i++)
            if (store_run_tag(ctx->store, o->ids[i], add ? w : w + 1, add, NULL, err)) {
                ui_say(ctx, "%s", err);
                return;
            }
        len += snprintf(said + len, sizeof said - (size_t)len, "%s%s %s", len ? ", " : "", add ? "tagged" : "untagged",
                        add ? w : w + 1);
        if (len >= (int)sizeof said) len = (int)sizeof said - 1;
    }
    char who[160];
    name_runs(o->ids, o->n, who, sizeof who);
    if (said[0]) ui_say(ctx, "%s %s", who, said);
    else ui_say(ctx, "no tag typed: %s left as %s", who, o->n == 1 ? "it is" : "they are");
}

/* N / M: the prompt for the name or the note of the run's sweep, filled
   with what it has. */
static void start_sweep_prompt(UiOrganise *o, UiContext *ctx, int ch, const RunSummary *first)
{
    if (!first->sweep_id) {
        ui_say(ctx, "run %lld is in no sweep", (long long)first->id);
        return;
    }
    SweepRow sw;
    int found;
    char err[ERR_LEN];
    if (results_sweep(ctx->store, first->sweep_id, &sw, &found, err) || !found) {
        ui_say(ctx, "%s", found ? err : "its sweep is not in the store (any more)");
        return;
    }
    start_prompt(o, ch == 'N' ? UI_ORG_SWEEP_NAME : UI_ORG_SWEEP_NOTE, &first->id, 1, ch == 'N' ? sw.name : sw.note);
    o->sweep_id = sw.id;
}

/* Enter on a sweep's prompt. */
static void apply_sweep(UiOrganise *o, UiContext *ctx)
{
    char err[ERR_LEN];
    int rename = o->prompt == UI_ORG_SWEEP_NAME;
    int rc = rename ? store_sweep_rename(ctx->store, o->sweep_id, o->field.text, err)
                    : store_sweep_note(ctx->store, o->sweep_id, o->field.text, err);
    if (rc) ui_say(ctx, "%s", err);
    else if (rename) ui_say(ctx, "sweep %lld renamed %s", (long long)o->sweep_id, o->field.text);
    else ui_say(ctx, "sweep %lld: note %s", (long long)o->sweep_id, o->field.text[0] ? "set" : "cleared");
}

/* Enter or Esc while typing; any other key edits the field. */
static void prompt_key(UiOrganise *o, UiContext *ctx, int ch)
{
    if (ch == 27) {
        o->prompt = UI_ORG_NONE;
        ui_say(ctx, "nothing changed");
        return;
    }
    if (ch != '\n' && ch != '\r' && ch != KEY_ENTER) {
        ui_field_type(&o->field, ch);
        return;
    }
    char err[ERR_LEN], who[160];
    name_runs(o->ids, o->n, who, sizeof who);
    int rc = 0;
    /* more typed than the prompt holds: refused whole, as the store would */
    static const StoreText KIND[] = {[UI_ORG_TAG] = STORE_TEXT_TAG, [UI_ORG_NOTE] = STORE_TEXT_NOTE,
                                     [UI_ORG_RENAME] = STORE_TEXT_NAME, [UI_ORG_SWEEP_NAME] = STORE_TEXT_SWEEP_NAME,
                                     [UI_ORG_SWEEP_NOTE] = STORE_TEXT_NOTE};
    if (o->field.dropped && store_text_fits(KIND[o->prompt], strlen(o->field.text) + o->field.dropped, err)) {
        ui_say(ctx, "%s", err);
        o->prompt = UI_ORG_NONE;
        return;
    }
    if (o->prompt == UI_ORG_SWEEP_NAME || o->prompt == UI_ORG_SWEEP_NOTE) apply_sweep(o, ctx);
    if (o->prompt == UI_ORG_TAG) apply_tags(o, ctx, err);
    for (int i = 0; o->prompt == UI_ORG_NOTE && i < o->n && !rc; i++)
        rc = store_run_note(ctx->store, o->ids[i], o->field.text, err);
    if (o->prompt == UI_ORG_RENAME) rc = store_run_rename(ctx->store, o->ids[0], o->field.text, err);
    if (rc) ui_say(ctx, "%s", err);
    else if (o->prompt == UI_ORG_NOTE) ui_say(ctx, "%s: note %s", who, o->field.text[0] ? "set" : "cleared");
    else if (o->prompt == UI_ORG_RENAME)
        ui_say(ctx, "run %lld %s%s", (long long)o->ids[0], o->field.text[0] ? "renamed " : "has no name now",
               o->field.text);
    o->prompt = UI_ORG_NONE;
}

int ui_organise_key(UiOrganise *o, UiContext *ctx, int ch, const int64_t *ids, int n, const RunSummary *first,
                    int *deleted)
{
    assert(o && ctx && deleted);
    *deleted = 0;
    if (o->prompt != UI_ORG_NONE) {
        prompt_key(o, ctx, ch);
        return 1;
    }
    if (ch != KEY_DC && (ch <= 0 || ch >= 128 || !strchr("DutnRNM*", ch))) return 0;
    if (ch == 'u') {
        undo_delete(ctx);
        return 1;
    }
    if (n < 1 || !first) return 1;   /* no run selected */
    if (store_read_only(ctx->store)) {
        ui_say(ctx, "the store is read-only: nothing can be changed");
        return 1;
    }
    if (ch == 'D' || ch == KEY_DC) *deleted = delete_runs(ctx, ids, n, first);
    else if (ch == '*') toggle_star(ctx, ids, n, first);
    else if (ch == 't') start_prompt(o, UI_ORG_TAG, ids, n, "");
    else if (ch == 'n') start_note_prompt(o, ctx, ids, n);
    else if (ch == 'N' || ch == 'M') start_sweep_prompt(o, ctx, ch, first);
    else if (n > 1) ui_say(ctx, "rename one run at a time (g lists every run)");
    else start_prompt(o, UI_ORG_RENAME, ids, n, first->name);
    return 1;
}

int ui_organise_typing(const UiOrganise *o)
{
    return o->prompt != UI_ORG_NONE;
}

void ui_organise_draw(const UiOrganise *o, UiContext *ctx, int y, int x, int width)
{
    if (o->prompt == UI_ORG_NONE || width < 12) return;
    char who[160], label[200];
    if (o->prompt == UI_ORG_SWEEP_NAME || o->prompt == UI_ORG_SWEEP_NOTE)
        snprintf(who, sizeof who, "sweep %lld", (long long)o->sweep_id);
    else name_runs(o->ids, o->n, who, sizeof who);
    int note = o->prompt == UI_ORG_NOTE || o->prompt == UI_ORG_SWEEP_NOTE;
    snprintf(label, sizeof label, "%s %s: ", o->prompt == UI_ORG_TAG ? "tag" : note ? "note of" : "rename", who);
    ui_text(y, x, width, 0, "%*s", width, "");
    int lw = MB_MIN((int)strlen(label), width / 2);
    ui_text(y, x, lw, A_BOLD, "%s", label);
    const char *hint = o->prompt == UI_ORG_TAG ? "  (-tag removes; Enter/Esc)" : "  (Enter/Esc)";
    int hw = (int)strlen(hint), fw = width - lw - hw;
    if (fw < 8) fw = width - lw, hw = 0;
    ui_field_draw(&o->field, 1, y, x + lw, fw);
    if (hw) ui_text(y, x + lw + fw, hw, ui_attr(ctx, UI_PAIR_DIM), "%s", hint);
}
