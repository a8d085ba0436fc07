/*
 * ui.h — the interactive workbench: one ncurses screen at a time, each a
 * module ui/screen_NAME.c implementing UiScreen, over a shared UiContext
 * (the store, the in-process scheduler, what the user selected).  The main
 * loop (ui/app.c) owns input, redraws, resize, the '?' help and the footer;
 * screens read the store and the scheduler's progress, never train.
 */
#ifndef MIXBENCH_UI_H
#define MIXBENCH_UI_H

#include <stddef.h>
#include <stdint.h>

#include "db/status.h"
#include "db/runs_read.h"
#include "db/store.h"
#include "engine/config.h"
#include "experiments/scheduler.h"
#include "ui/draw/plot.h"

#define UI_MAX_COMPARE 8
#define UI_UNDO_MAX 256          /* runs the last delete put into the trash, for its undo */

/* Colour pairs (the monochrome fallback uses attributes instead). */
enum {
    UI_PAIR_TITLE = 1, UI_PAIR_SELECTED, UI_PAIR_GOOD, UI_PAIR_BAD, UI_PAIR_DIM, UI_PAIR_WARN,
    UI_PAIR_SERIES0,   /* UI_PAIR_SERIES0 + k for plot series k (8 colours) */
};

typedef struct UiContext {
    Store *store;              /* the UI thread's own connection */
    Scheduler *scheduler;      /* workers in this process (may be NULL) */
    const char *db_path;
    int utf8;                  /* braille and block characters allowed */
    int colors;                /* the terminal has colours */
    int64_t run_id;            /* the run opened with Enter (0: none) */
    int64_t compare[UI_MAX_COMPARE];   /* runs selected for Compare */
    int n_compare;
    int64_t sweep_id;          /* the sweep the Grid screen shows (0: latest) */
    int64_t undo[UI_UNDO_MAX]; /* the runs the last delete (Runs or Run, D) put into the trash */
    int n_undo;
    char message[256];         /* one-line status shown above the footer */
    int switch_to;             /* a screen asks the loop to show screen N (-1: none) */
    int quit;
    int fresh;                 /* start without what the store remembers (UiOptions.fresh) */
    int animating;             /* set by a screen's draw: draw again at the next tick */
    /* The main loop's: reloads (when due) and draws the whole terminal
       without refreshing it; ui_confirm keeps the screen live with it. */
    void (*redraw)(struct UiContext *ctx);
    void *app;
} UiContext;

typedef struct UiScreen {
    const char *name;          /* tab label, e.g. "Runs" */
    const char *footer;        /* the main keys, e.g. "Enter open  s sort  / filter" */
    const char *help;          /* every key of the screen, one per line */
    void *(*create)(UiContext *ctx);
    void (*destroy)(void *state);
    /* Reloads from the store / scheduler (called about twice a second and
       after every key); must be cheap for the UI to stay responsive. */
    void (*reload)(void *state, UiContext *ctx);
    /* Draws into rows [top, top + height) of the terminal, all columns. */
    void (*draw)(void *state, UiContext *ctx, int top, int height, int width);
    /* A key the screen may take; returns 1 when it did. */
    int (*key)(void *state, UiContext *ctx, int ch);
    /* 1 while the screen is reading text (a form field, a filter), so the
       loop passes every key to it, q and digits included. */
    int (*typing)(void *state);
    /* A click (double: 1 for a double click) at terminal row y, column x
       of the screen's area; returns 1 when it did something.  NULL: the
       screen takes none (the wheel reaches every screen as up/down). */
    int (*mouse)(void *state, UiContext *ctx, int y, int x, int double_click);
} UiScreen;

/* The screens (their tab order is ui_screen_order below). */
extern const UiScreen ui_screen_runs, ui_screen_run, ui_screen_compare, ui_screen_grid,
    ui_screen_masked, ui_screen_queue, ui_screen_sweep, ui_screen_generate;

/* The same screens as a table in tab order (ui/widgets.c); the tab bar
   numbers them 1, 2, ... */
#define UI_MAX_SCREENS 8
extern const UiScreen *const ui_screen_order[UI_MAX_SCREENS];

typedef struct {
    const char *db_path;
    int jobs;                  /* workers in this process (0: none, the workbench only watches) */
    int cores;
    int mouse;                 /* clicks and the wheel (0: --no-mouse, the terminal's own selection) */
    const char *const *commands;   /* the CLI commands the `:` line runs (NULL-terminated) */
    const char *exe;           /* this binary, which runs them */
    int fresh;                 /* --fresh / MIXBENCH_UI_FRESH: the screen, picks, sort, filter and
                                  form of the last launch are not restored (they are still saved) */
} UiOptions;

/* Runs the workbench until the user quits; returns the exit code. */
int ui_main(const UiOptions *o);

/* ---- drawing helpers shared by the screens (ui/widgets.c) ---- */

/* Text clipped to width columns (UTF-8 aware: engine/text.h) and to the
   terminal's last column, with attributes; text cut there (not blanks)
   ends in "…" (ASCII "~") in the last column. */
void ui_text(int y, int x, int width, int attr, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Breaks text into lines of at most width columns at spaces (a longer word
   is cut, '\n' ends a line); writes (start, length) of line i into
   starts/lens when i < cap, returns the count of lines. */
int ui_wrap_lines(const char *text, int width, int *starts, int *lens, int cap);
/* Draws text word-wrapped in [x, x + width) from row y, at most max_rows
   rows; returns the rows used. */
int ui_wrap(int y, int x, int width, int max_rows, int attr, const char *text);
/* A horizontal rule: box-drawing characters, or '-' without UTF-8. */
void ui_rule(UiContext *ctx, int y, int x, int width);
/* A plot (ui/draw/plot.h) of the series in the rectangle, series k in colour k. */
void ui_plot(UiContext *ctx, int y, int x, int height, int width, const PlotSeries *series, int n_series,
             int log_y);
/* The attribute of a colour pair, or a monochrome stand-in. */
int ui_attr(UiContext *ctx, int pair);
/* Asks a question on the message line; returns 1 for y/Y. */
int ui_confirm(UiContext *ctx, const char *question);
/* Sets the message line (ctx->message), formatted and clipped. */
void ui_say(UiContext *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Asks the main loop to show a screen (ctx->switch_to = its tab). */
void ui_show_screen(UiContext *ctx, const UiScreen *screen);
/* The colour pair of a run or job status: running good, failed/diverged
   bad, queued/paused dim, others 0 (no colour). */
int ui_status_pair(RunStatus status);
/* "±" in UTF-8, else "+-": mean and standard error over seeds. */
const char *ui_pm(const UiContext *ctx);
/* Copies a store value (NULL: "") into dst, truncated to cap bytes. */
void ui_copy_text(char *dst, size_t cap, const char *src);
/* What the workbench remembers of its store between launches (the
   settings table, db/settings.h: the screen, the picks, the Runs sort and
   filter, the New sweep form).  get: 1 and the value when the store has
   one (and the workbench was not started fresh), else 0 ("" in value); put: nothing on a read-only store, an error
   on the message line. */
int ui_setting_get(UiContext *ctx, const char *key, char *value, size_t cap);
/* What a cancel of run_id did, into out: done, and when it stopped its
   sweep's rounds (db/jobs.h store_job_stopped_sweep), that too. */
void ui_cancel_said(UiContext *ctx, int64_t run_id, const char *done, char *out, size_t cap);
void ui_setting_put(UiContext *ctx, const char *key, const char *value);

/* The config a run's stored keys describe (db/runs_read.h's entries over
   the defaults; a key that no longer parses keeps its default), for
   config_key_applies. */
void ui_config_of(const RunConfigEntry *entries, int n, Config *c);
/* Pauses ('p'), resumes ('r') or, once the user confirms, cancels ('x')
   the job of a run (db/jobs.h), and says the outcome on the message line. */
void ui_control_run(UiContext *ctx, int64_t run_id, const char *arch, RunStatus status, int action);

/* ---- a one-line text field (UTF-8; the cursor is a byte offset) ---- */

/* Holds more than any text the store keeps (db/organise.h: a note is at
   most STORE_NOTE_MAX - 1 bytes), so that the store, not the field,
   refuses an over-long one. */
#define UI_FIELD_CAP 1024
typedef struct {
    char text[UI_FIELD_CAP];
    int cursor;
    size_t dropped;         /* bytes typed into the full field, not kept: what was typed is strlen(text) + dropped */
} UiTextField;

/* What ui_field_key did with a key. */
enum { UI_FIELD_IGNORED = 0, UI_FIELD_MOVED, UI_FIELD_EDITED };

/* Replaces the text; the cursor goes to its end. */
void ui_field_set(UiTextField *f, const char *text);
/* The editing keys: left/right by character, Home/End (Ctrl-A/Ctrl-E),
   Backspace/Delete, Ctrl-U / Ctrl-K clear to the start / end, and printable
   bytes (ASCII and the bytes of UTF-8 characters) inserted at the cursor.
   Returns UI_FIELD_EDITED when the text changed (Ctrl-U / Ctrl-K always
   count), UI_FIELD_MOVED for an editing key that only moved the cursor or
   could do nothing (Backspace at the start, a byte into a full field),
   UI_FIELD_IGNORED for any other key (Enter, Esc, Tab, up/down, ... are the
   screen's).  A byte into a full field is counted in f->dropped (Ctrl-U
   and ui_field_set start the count again), so that the screen can refuse
   the text rather than keep its start. */
int ui_field_key(UiTextField *f, int ch);
/* ui_field_key of ch, then of every key already waiting that edits the
   field (a paste arrives as thousands of keys at once: they are taken in
   one go, not a redraw and a reload each); the first key the field
   ignores (Enter, Esc, ...) is left waiting for the screen (ungetch).
   Returns UI_FIELD_EDITED when any key edited the text, else what ch
   did. */
int ui_field_type(UiTextField *f, int ch);
/* Draws the field underlined in [x, x + width) of row y; while editing, in
   bold, scrolled so that the cursor shows, the cursor in reverse. */
void ui_field_draw(const UiTextField *f, int editing, int y, int x, int width);

/* ---- a list: cursor, scrolling, paging, the selection kept by id and a
   `/` filter (ui/widgets.c; htop's Panel is the model) ---- */

/* What a list asks of the screen's rows; i is a row's place in the list
   (after the screen's own filtering and sorting). */
typedef struct {
    int64_t (*id_of)(const void *rows, int i);
    /* whether row i stands for id (a seed group for each of its members);
       NULL: id_of(i) == id */
    int (*holds)(const void *rows, int i, int64_t id);
    /* screen lines row i takes (a job with its progress line: 2); NULL: 1 */
    int (*lines)(const void *rows, int i);
} UiListRows;

typedef struct {
    const UiListRows *of;    /* NULL: a text view (no selection; it scrolls line by line) */
    const void *rows;
    int n;                   /* rows (or lines) in the list */
    int cursor;              /* the selected row (0 when empty) */
    int scroll;              /* the first row shown */
    int page;                /* rows shown by the last ui_list_fit (0 before the first) */
    int top_y;               /* the terminal row of the first row shown (ui_list_fit) */
    int64_t selected_id;     /* the selection follows its row across reloads and re-sorts */
    char filter[256];        /* the `/` filter's text, "" for none */
    int filtering;           /* the filter is being typed */
    UiTextField edit;        /* the filter while typed: its text (copied to filter) and cursor */
} UiList;

/* What ui_list_key did with a key. */
enum { UI_LIST_IGNORED = 0, UI_LIST_MOVED, UI_LIST_FILTERED };

/* After the rows changed (n of them, at rows): the cursor goes to the row
   that holds selected_id, else stays where it was (clamped), and
   selected_id becomes its row's; the scroll keeps the cursor in the last
   page drawn.  A text view: only n and the scroll change. */
void ui_list_set_rows(UiList *l, const void *rows, int n);
/* Moves the cursor to row `to` (clamped) and selects that row. */
void ui_list_move(UiList *l, int to);
/* The selected row's place in the list, -1 when it is empty. */
int ui_list_selected(const UiList *l);
/* Up/down (j/k) a row, PgUp/PgDn a page, Home/End; a text view also
   scrolls a page with space.  filterable: '/' starts typing the filter
   (again: editing the text kept, the cursor at its end), whose keys (a
   text field's: characters, Backspace, left/right, Ctrl-U clears; Enter
   keeps it, Esc clears it) it takes until then, and Esc clears a kept
   filter.
   UI_LIST_FILTERED when the filter changed: the screen filters its rows
   again (the cursor went to the top) and calls ui_list_set_rows. */
int ui_list_key(UiList *l, int ch, int filterable);
/* At draw time, the list has height screen lines from terminal row y:
   scrolls so that the cursor's row shows whole (a text view: no further
   than its last page) and sets page. */
void ui_list_fit(UiList *l, int y, int height);
/* The row drawn at terminal row y (by the last fit), -1 for none. */
int ui_list_at(const UiList *l, int y);

#endif
