/*
 * app.c — the workbench's main loop: terminal set-up (UTF-8 or ASCII,
 * colours or monochrome), the tab bar, the current screen, the message
 * line and footer, the '?' help overlay (a pager: it scrolls), the `:`
 * line and its output panel, resize, and quitting (running jobs
 * checkpoint and go back to the queue, to resume on the next launch or
 * under `mixbench worker`).  Input is read with a short timeout so the
 * screen refreshes from the store and the workers' progress while nothing
 * is pressed; the workers train in their own threads and are never waited
 * on, except at quit.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <assert.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ckpt_gc.h"
#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "engine/common.h"
#include "experiments/format.h"
#include "experiments/study.h"
#include "engine/text.h"
#include "ui/cmdline.h"
#include "ui/pager.h"
#include "ui/ui.h"

#define REFRESH_SECONDS 0.5
#define USAGE_SECONDS 5.0   /* the store's and its checkpoints' sizes (a folder scan) */

static const char *GLOBAL_HELP =
    "Tab / Shift-Tab   next / previous screen (from Runs, Run opens the run\n"
    "                  under the cursor, as Enter does)\n"
    "1..8              go to a screen (the number in its tab; 2 from Runs:\n"
    "                  the run under the cursor)\n"
    "arrows, hjkl      move\n"
    "Enter             open\n"
    "/                 filter (Runs)\n"
    ":                 a command line: the CLI's commands on this store\n"
    "                  (:sweep recall, :pause 3, :ls, :show 3, :help, :q);\n"
    "                  Tab completes command, preset and key names; the\n"
    "                  output opens in a panel (j/k, PgUp/PgDn scroll, Esc\n"
    "                  closes) when it is more than the message line shows\n"
    "O                 the last : command's whole output again\n"
    "mouse             click: select, a tab: its screen; double click: open;\n"
    "                  wheel: scroll (mixbench --no-mouse leaves the mouse\n"
    "                  to the terminal)\n"
    "?                 this help (j/k, PgUp/PgDn, Home/End scroll it)\n"
    "q                 quit (running jobs checkpoint and resume next time)\n";

/* Colours when the terminal has them, unless NO_COLOR is set and not empty
   (no-color.org): then the monochrome look (attributes, shade ramps,
   markers) the screens have for terminals without colour. */
static void setup_colors(UiContext *ctx)
{
    const char *no_color = getenv("NO_COLOR");
    ctx->colors = has_colors() && !(no_color && no_color[0]);
    if (!ctx->colors) return;
    start_color();
    use_default_colors();
    init_pair(UI_PAIR_TITLE, COLOR_CYAN, -1);
    init_pair(UI_PAIR_SELECTED, COLOR_BLACK, COLOR_CYAN);
    init_pair(UI_PAIR_GOOD, COLOR_GREEN, -1);
    init_pair(UI_PAIR_BAD, COLOR_RED, -1);
    init_pair(UI_PAIR_DIM, COLOR_BLUE, -1);
    init_pair(UI_PAIR_WARN, COLOR_YELLOW, -1);
    static const short series[8] = {COLOR_CYAN, COLOR_YELLOW, COLOR_GREEN, COLOR_MAGENTA,
                                    COLOR_RED, COLOR_BLUE, COLOR_WHITE, COLOR_GREEN};
    for (int k = 0; k < 8; k++) init_pair((short)(UI_PAIR_SERIES0 + k), series[k], -1);
}

/* The tab bar: "mixbench  1 Runs  2 Run ..." when it fits, else without
   the title and with one space between tabs (80 columns), else with the
   names cut to what fits, so every tab keeps its number and a name. */
static void draw_tabs(const UiScreen *const *SCREENS, int N_SCREENS, int current, int width, UiContext *ctx,
                      int *tab_x0, int *tab_x1)
{
    move(0, 0);
    clrtoeol();
    int full = 9, compact = 0;
    for (int i = 0; i < N_SCREENS; i++) {
        int len = (int)strlen(SCREENS[i]->name);
        full += len + 4 + (i + 1 >= 10);
        compact += len + 3;
    }
    int title = full <= width;
    int pad = title ? 1 : 0;
    /* the longest name that fits when every tab is "N name " */
    int max_name = 64;
    if (!title && compact > width && N_SCREENS > 0) max_name = MB_MAX(1, width / N_SCREENS - 3);
    int x = 0;
    if (title) {
        attron(ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD);
        mvaddnstr(0, x, "mixbench", width - x);
        attroff(ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD);
        x += 9;
    }
    for (int i = 0; i < N_SCREENS && x < width; i++) {
        char label[48];
        snprintf(label, sizeof label, "%s%d %.*s%s", pad ? " " : "", i + 1, max_name, SCREENS[i]->name, pad ? " " : "");
        int attr = i == current ? ui_attr(ctx, UI_PAIR_SELECTED) | A_BOLD : 0;
        attron(attr);
        mvaddnstr(0, x, label, width - x);
        attroff(attr);
        tab_x0[i] = x;   /* where a click picks it */
        x += (int)strlen(label) + (pad ? 0 : 1);
        tab_x1[i] = x;
    }
}

/* The message line, with the store's size and its checkpoints' at its
   right end (dim, when the message leaves room), and the footer. */
static void draw_footer(const UiScreen *s, int rows, int width, UiContext *ctx, const char *usage)
{
    move(rows - 2, 0);
    clrtoeol();
    int used = 0;
    if (ctx->message[0]) {
        ui_text(rows - 2, 0, width, ui_attr(ctx, UI_PAIR_WARN), "%s", ctx->message);
        used = text_columns(ctx->message) + 2;
    }
    int n_usage = usage[0] ? text_columns(usage) + 1 : 0;
    if (n_usage && used + n_usage <= width)
        ui_text(rows - 2, width - n_usage, n_usage, ui_attr(ctx, UI_PAIR_DIM), "%s", usage);
    move(rows - 1, 0);
    clrtoeol();
    ui_text(rows - 1, 0, width, A_REVERSE, " %s%s  Tab screens  ? help  q quit ",
            store_read_only(ctx->store) ? "READ-ONLY  " : "", s->footer);
}

/* "runs.db 1.2 MB, checkpoints 9.2 MB" into out ("" when unknown). */
static void read_usage(UiContext *ctx, char *out, size_t cap)
{
    StoreUsage u;
    char err[ERR_LEN], store[24], ckpt[24];
    out[0] = 0;
    if (store_usage(ctx->store, &u, err)) return;
    snprintf(out, cap, "%s %s, checkpoints %s", store_file_name(ctx->store), fmt_bytes(u.store_bytes, store, sizeof store),
             fmt_bytes(u.ckpt_bytes, ckpt, sizeof ckpt));
}

/* Adds the lines of text to the help pager, each one's wrapped
   continuation indented to its description (after the key column). */
static void help_add(UiPager *p, const char *text)
{
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        ui_pager_add(p, 0, line[0] == ' ' ? 0 : ui_pager_indent(line, (size_t)len), line, (size_t)len);
        line = nl ? nl + 1 : NULL;
    }
}

/* The help of screen s, then "Everywhere" and the loop's keys. */
static void help_build(UiPager *p, const UiScreen *s, UiContext *ctx)
{
    ui_pager_clear(p);
    help_add(p, s->help);
    ui_pager_add(p, 0, 0, "", 0);
    ui_pager_add(p, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, 0, "Everywhere", 10);
    help_add(p, GLOBAL_HELP);
}

static void draw_help(UiPager *help, const UiScreen *s, int rows, int width, UiContext *ctx)
{
    erase();
    ui_text(1, 2, width - 4, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, "Keys: %s screen", s->name);
    ui_pager_draw(help, 2, 4, rows - 3, width - 6);
    char where[64];
    ui_pager_where(help, where, sizeof where);
    ui_text(rows - 1, 0, width, A_REVERSE, " j/k PgUp/PgDn Home/End scroll (%s)  other keys: back ", where);
}

/* The loop's state: the screens in tab order, theirs, and what shows. */
typedef struct {
    const UiOptions *opts;
    const UiScreen *screens[UI_MAX_SCREENS];
    void *states[UI_MAX_SCREENS];
    int tab_x0[UI_MAX_SCREENS], tab_x1[UI_MAX_SCREENS];   /* each tab's columns in the tab bar */
    UiCmdLine cmd;             /* the `:` line */
    UiPager help_text;         /* the '?' help while it shows */
    int saved_screen;          /* what the store remembers: the screen, the picks */
    char saved_picks[UI_MAX_COMPARE * 24];
    int n, current, help;
    double last_reload, message_since;
    double usage_at;           /* when usage was read (every USAGE_SECONDS) */
    char usage[160];
    char shown_message[sizeof ((UiContext *)0)->message];
} App;

/* Reloads the current screen when its refresh is due (or when forced) and
   expires the message line; returns 1 when the screen may have changed. */
static int app_tick(App *a, UiContext *ctx, int force)
{
    int changed = 0;
    double now = now_seconds();
    if (force || now - a->last_reload >= REFRESH_SECONDS) {
        a->screens[a->current]->reload(a->states[a->current], ctx);
        a->last_reload = now;
        changed = 1;
    }
    if (now - a->usage_at >= USAGE_SECONDS) {
        /* a `mixbench run` killed meanwhile reads as interrupted */
        int recovered;
        char ignored[ERR_LEN];
        if (!store_read_only(ctx->store)) (void)store_jobs_recover_headless(ctx->store, &recovered, ignored);
        read_usage(ctx, a->usage, sizeof a->usage);
        a->usage_at = now;
        changed = 1;
    }
    /* a message stays 5 seconds after it last changed */
    if (strcmp(a->shown_message, ctx->message)) {
        snprintf(a->shown_message, sizeof a->shown_message, "%s", ctx->message);
        a->message_since = now;
        changed = 1;
    } else if (ctx->message[0] && now - a->message_since > 5.0) {
        ctx->message[0] = a->shown_message[0] = 0;
        changed = 1;
    }
    return changed;
}

/* Draws the whole terminal (not refreshed): the tab bar, the screen, the
   message line and the footer, or the help overlay. */
static void app_draw(App *a, UiContext *ctx)
{
    const UiScreen *s = a->screens[a->current];
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    ctx->animating = 0;
    if (a->help) {
        draw_help(&a->help_text, s, rows, cols, ctx);
        return;
    }
    erase();
    for (int i = 0; i < a->n; i++) a->tab_x0[i] = a->tab_x1[i] = -1;
    draw_tabs(a->screens, a->n, a->current, cols, ctx, a->tab_x0, a->tab_x1);
    if (rows > 4) s->draw(a->states[a->current], ctx, 1, rows - 3, cols);
    draw_footer(s, rows, cols, ctx, a->usage);
    cmd_output_draw(&a->cmd.output, ctx, rows, cols);
    cmdline_draw(&a->cmd, ctx, rows, cols);
    curs_set(0);
}

/* ui_confirm's way to keep the screen live while it waits for an answer. */
static void app_redraw(UiContext *ctx)
{
    App *a = ctx->app;
    app_tick(a, ctx, 0);
    app_draw(a, ctx);
}

/* ncurses set up: raw keys, Home/End in every form terminals send, quick
   Esc, no cursor, a 100 ms key timeout (the tick), colours, the mouse. */
static void terminal_start(UiContext *ctx, int mouse)
{
    ctx->utf8 = text_locale_utf8();
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    /* Home and End in every form terminals send, whatever TERM claims
       (tmux and screen send ESC [1~ / ESC [4~, xterm ESC OH / ESC [H) */
    static const char *const HOME_KEYS[] = {"\033[1~", "\033[7~", "\033[H", "\033OH"};
    static const char *const END_KEYS[] = {"\033[4~", "\033[8~", "\033[F", "\033OF"};
    for (int i = 0; i < 4; i++) {
        if (key_defined(HOME_KEYS[i]) == 0) define_key(HOME_KEYS[i], KEY_HOME);
        if (key_defined(END_KEYS[i]) == 0) define_key(END_KEYS[i], KEY_END);
    }
    set_escdelay(25);   /* Esc leaves a field at once, not after ncurses' 1 s */
    curs_set(0);
    timeout(100);
    setup_colors(ctx);
    if (mouse) {
        mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
        mouseinterval(200);
    }
}

static void app_key(App *app, UiContext *ctx, int ch);

/* Goes to screen `to`.  From Runs to Run it is Runs' Enter: the run under
   the Runs cursor opens (a seed group's row: its first member), not the
   one opened last or the newest. */
static void show_screen(App *app, UiContext *ctx, int to)
{
    if (app->screens[app->current] == &ui_screen_runs && app->screens[to] == &ui_screen_run) {
        app->screens[app->current]->key(app->states[app->current], ctx, '\n');
        if (ctx->switch_to >= 0) return;   /* the loop shows it */
    }
    app->current = to;
}

/* The picks as "3 5 7". */
static void picks_text(const UiContext *ctx, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int k = 0; k < ctx->n_compare && len < cap; k++)
        len += (size_t)snprintf(out + len, cap - len, "%s%lld", k ? " " : "", (long long)ctx->compare[k]);
}

/* The store remembers the screen and the picks when they change. */
static void remember(App *app, UiContext *ctx)
{
    if (app->current != app->saved_screen) {
        ui_setting_put(ctx, "ui.screen", app->screens[app->current]->name);
        app->saved_screen = app->current;
    }
    char picks[sizeof app->saved_picks];
    picks_text(ctx, picks, sizeof picks);
    if (strcmp(picks, app->saved_picks)) {
        ui_setting_put(ctx, "ui.picks", picks);
        snprintf(app->saved_picks, sizeof app->saved_picks, "%s", picks);
    }
}

/* The screen and the picks of the last launch on this store. */
static void recall(App *app, UiContext *ctx)
{
    char value[sizeof app->saved_picks];
    if (ui_setting_get(ctx, "ui.screen", value, sizeof value))
        for (int i = 0; i < app->n; i++)
            if (!strcmp(app->screens[i]->name, value)) app->current = i;
    app->saved_screen = app->current;
    ui_setting_get(ctx, "ui.picks", value, sizeof value);
    char *p = value, *end;
    for (long long id; ctx->n_compare < UI_MAX_COMPARE && (id = strtoll(p, &end, 10)) > 0 && end != p; p = end)
        ctx->compare[ctx->n_compare++] = id;
    picks_text(ctx, app->saved_picks, sizeof app->saved_picks);
}

/* A mouse event: the wheel scrolls (up/down to the screen, three rows a
   notch), a click on the tab bar switches screens, one in the screen's
   area goes to the screen (a double click opens). */
static void app_mouse(App *app, UiContext *ctx)
{
    MEVENT ev;
    if (getmouse(&ev) != OK) return;
    if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
        for (int k = 0; k < 3; k++) app_key(app, ctx, ev.bstate & BUTTON4_PRESSED ? KEY_UP : KEY_DOWN);
        return;
    }
    int dbl = (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0;
    if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) && !dbl) return;
    if (app->help) {
        app->help = 0;
        return;
    }
    if (app->cmd.output.shown) return;   /* the panel takes keys and the wheel only */
    if (ev.y == 0) {
        for (int i = 0; i < app->n; i++)
            if (ev.x >= app->tab_x0[i] && ev.x < app->tab_x1[i]) show_screen(app, ctx, i);
        app_tick(app, ctx, 1);
        return;
    }
    const UiScreen *s = app->screens[app->current];
    if (s->mouse && s->mouse(app->states[app->current], ctx, ev.y, ev.x, dbl)) {
        if (ctx->switch_to >= 0 && ctx->switch_to < app->n) {
            app->current = ctx->switch_to;
            ctx->switch_to = -1;
        }
        app_tick(app, ctx, 1);
    }
}

/* One key: the `:` line's while it is open; else the screen's first, then
   the loop's own (q, ?, :, Tab, digits) unless the screen is reading
   text; a screen's ui_show_screen last. */
static void app_key(App *app, UiContext *ctx, int ch)
{
    if (ch == KEY_FIND) ch = KEY_HOME;     /* ESC [1~ under xterm's terminfo */
    if (ch == KEY_SELECT) ch = KEY_END;    /* ESC [4~ */
    if (ch == KEY_RESIZE) return;
    if (ch == KEY_MOUSE) {
        app_mouse(app, ctx);
        remember(app, ctx);
        return;
    }
    if (app->cmd.open) {
        cmdline_key(&app->cmd, ctx, app->opts, ch);
        app_tick(app, ctx, 1);
        return;
    }
    if (app->cmd.output.shown && ch != ':') {
        cmd_output_key(&app->cmd.output, ch);
        return;
    }
    app->cmd.output.shown = 0;   /* ':' from the panel: a new command */
    if (app->help) {
        /* space leaves it, as any key did before it scrolled */
        if (ch == ' ' || !ui_pager_key(&app->help_text, ch)) app->help = 0;
        return;
    }
    const UiScreen *s = app->screens[app->current];
    int typing = s->typing && s->typing(app->states[app->current]);
    int handled = s->key(app->states[app->current], ctx, ch);
    if (!handled && !typing) {
        if (ch == 'q') ctx->quit = 1;
        else if (ch == '?') {
            app->help = 1;
            help_build(&app->help_text, s, ctx);
        } else if (ch == 'O') {
            if (app->cmd.output.ran) app->cmd.output.shown = 1;
            else ui_say(ctx, "O shows a : command's output: none ran yet");
        } else if (ch == ':') {
            app->cmd.open = 1;
            app->cmd.hint[0] = 0;
            ui_field_set(&app->cmd.field, "");
        }
        else if (ch == '\t') show_screen(app, ctx, (app->current + 1) % app->n);
        else if (ch == KEY_BTAB) show_screen(app, ctx, (app->current + app->n - 1) % app->n);
        else if (ch >= '1' && ch < '1' + app->n) show_screen(app, ctx, ch - '1');
    }
    if (ctx->switch_to >= 0 && ctx->switch_to < app->n) {
        app->current = ctx->switch_to;
        ctx->switch_to = -1;
    }
    app_tick(app, ctx, 1);
    remember(app, ctx);
}

/* Until the user quits.  The terminal is drawn again only when something
   may have changed: a key, a resize, a reload (about twice a second), the
   message line, or a screen that asked for it (ctx.animating, e.g. text
   being sampled). */
static void app_loop(App *app, UiContext *ctx)
{
    int dirty = 1;
    /* MIXBENCH_UI_TIMING=FILE: one line per key, "SCREEN KEY MS", the
       milliseconds from the key to the terminal drawn again (tests/
       test_big_store.sh checks them against 100 ms) */
    const char *timing_path = getenv("MIXBENCH_UI_TIMING");
    FILE *timing = timing_path && *timing_path ? fopen(timing_path, "a") : NULL;
    double key_at = now_seconds();   /* the first draw is logged as key 0 */
    int key_ch = 0;
    while (!ctx->quit) {
        dirty |= app_tick(app, ctx, 0) | ctx->animating;
        if (dirty) {
            app_draw(app, ctx);
            refresh();
            dirty = 0;
        }
        if (timing && key_at > 0) {
            fprintf(timing, "%s %d %.1f\n", app->screens[app->current]->name, key_ch,
                    (now_seconds() - key_at) * 1000.0);
            fflush(timing);
            key_at = 0;
        }
        int ch = getch();
        if (ch == ERR) continue;
        dirty = 1;
        key_at = now_seconds();
        key_ch = ch;
        app_key(app, ctx, ch);
    }
    if (timing) fclose(timing);
}

int ui_main(const UiOptions *o)
{
    assert(o && o->db_path);
    const char *db_path = o->db_path;
    int jobs = o->jobs, cores = o->cores;
    char err[ERR_LEN];
    UiContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.db_path = db_path;
    ctx.switch_to = -1;
    ctx.fresh = o->fresh;
    if (store_open(db_path, &ctx.store, err)) {
        fprintf(stderr, "mixbench: %s\n", err);
        return 1;
    }
    /* a store that cannot be written (read-only mount, immutable file) is
       shown, not worked on: no workers, and a notice instead of a failure */
    if (store_read_only(ctx.store)) {
        jobs = 0;
        snprintf(ctx.message, sizeof ctx.message,
                 "%s is read-only: shown as it is, nothing can be queued or run", db_path);
    }
    /* the studies stored with the store's sweeps first, so that a sweep of
       a study file edited or deleted since keeps the claims it was queued
       with, whatever file the New sweep form reads later (study.h) */
    if (studies_from_store(ctx.store, err))
        snprintf(ctx.message, sizeof ctx.message, "the studies stored with the sweeps: %.180s", err);
    SchedulerOptions so = {db_path, jobs, cores, 0, 1, NULL};   /* nothing printed: the screen is ours */
    if (jobs > 0 && scheduler_start(&ctx.scheduler, &so, err)) {   /* 0: watch only */
        store_close(ctx.store);
        fprintf(stderr, "mixbench: %s\n", err);
        return 1;
    }
    terminal_start(&ctx, o->mouse);

    /* the screens in tab order (ui_screen_order, ui/widgets.c) */
    App app;
    memset(&app, 0, sizeof app);
    app.opts = o;
    for (int i = 0; i < UI_MAX_SCREENS; i++)
        app.screens[app.n++] = ui_screen_order[i];
    for (int i = 0; i < app.n; i++) app.states[i] = app.screens[i]->create(&ctx);
    ctx.app = &app;
    ctx.redraw = app_redraw;
    recall(&app, &ctx);
    app_loop(&app, &ctx);

    /* quitting: running jobs checkpoint and return to the queue */
    ctx.redraw = NULL;
    erase();
    mvaddstr(0, 0, "mixbench: checkpointing running jobs...");
    refresh();
    if (ctx.scheduler) {
        scheduler_request_stop(ctx.scheduler);
        scheduler_wait(ctx.scheduler);
        scheduler_free(ctx.scheduler);
    }
    for (int i = 0; i < app.n; i++) app.screens[i]->destroy(app.states[i]);
    cmd_output_free(&app.cmd.output);
    ui_pager_free(&app.help_text);
    endwin();
    store_close(ctx.store);
    return 0;
}
