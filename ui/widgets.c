/*
 * widgets.c — helpers every screen shares: clipped text (ending in "…",
 * ASCII "~", where it was cut), plots of
 * ui/draw/plot.h drawn cell by cell with a colour per series, colour attributes
 * with a monochrome fallback (and the colour of a run status), a yes/no
 * question, the message line, pausing / resuming / cancelling a run's job,
 * the table of screens in tab order (ui/app.c's tab bar; a screen asks for
 * another with ui_show_screen), a one-line UTF-8 text field (its
 * editing keys and its drawing), and a list (cursor, scrolling, paging,
 * the selection kept by id, a `/` filter) that Runs, Queue, Generate and
 * the Grid report scroll with.
 *
 * Not for: a screen's own layout, or keys beyond a text field's and a
 * list's.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <assert.h>
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "db/settings.h"
#include "engine/common.h"
#include "engine/text.h"
#include "ui/draw/plot.h"
#include "ui/ui.h"

int ui_attr(UiContext *ctx, int pair)
{
    if (ctx->colors) return COLOR_PAIR(pair);
    switch (pair) {
    case UI_PAIR_SELECTED: return A_REVERSE;
    case UI_PAIR_TITLE: return A_BOLD;
    case UI_PAIR_BAD: return A_BOLD;
    case UI_PAIR_DIM: return A_DIM;
    default: return 0;
    }
}

void ui_text(int y, int x, int width, int attr, const char *fmt, ...)
{
    /* never past the terminal's last column: ncurses would wrap the rest
       onto the next line */
    int cols = getmaxx(stdscr);
    if (width > cols - x) width = cols - x;
    if (width <= 0 || x < 0) return;
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    attron(attr);
    int fits = text_prefix_bytes(buf, width);
    if (buf[fits + strspn(buf + fits, " ")]) {
        /* cut: the last column says so */
        static int utf8 = -1;
        if (utf8 < 0) utf8 = text_locale_utf8();
        mvaddnstr(y, x, buf, text_prefix_bytes(buf, width - 1));
        addstr(utf8 ? "…" : "~");
    } else {
        mvaddnstr(y, x, buf, fits);
    }
    attroff(attr);
}

/* Breaks text into lines of at most width columns at spaces (a longer word
   is cut); writes (start, length) of line i into starts/lens when i < cap,
   returns the count of lines. */
int ui_wrap_lines(const char *text, int width, int *starts, int *lens, int cap)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        const char *line = p, *last_space = NULL, *end = p;
        int cols = 0;
        while (*end && *end != '\n' && cols < width) {
            if (*end == ' ') last_space = end;
            end += text_utf8_len(end);
            cols++;
        }
        const char *next;
        if (!*end || *end == '\n' || *end == ' ') {   /* the line ends here: a full line's space goes */
            next = *end ? end + 1 : end;
        } else if (last_space && last_space > line) {
            end = last_space;
            next = last_space + 1;
        } else {
            next = end;
        }
        if (n < cap) {
            starts[n] = (int)(line - text);
            lens[n] = (int)(end - line);
        }
        n++;
        p = next;
    }
    return n;
}

int ui_wrap(int y, int x, int width, int max_rows, int attr, const char *text)
{
    if (width < 1 || max_rows < 1) return 0;
    int starts[64], lens[64];
    int n = MB_MIN(ui_wrap_lines(text, width, starts, lens, 64), MB_MIN(max_rows, 64));
    for (int i = 0; i < n; i++) ui_text(y + i, x, width, attr, "%.*s", lens[i], text + starts[i]);
    return n;
}

void ui_rule(UiContext *ctx, int y, int x, int width)
{
    char line[3 * 512 + 1];
    int n = MB_MIN(width, 512), len = 0;
    for (int i = 0; i < n; i++) len += snprintf(line + len, sizeof line - len, "%s", ctx->utf8 ? "─" : "-");
    ui_text(y, x, width, 0, "%s", line);
}


void ui_plot(UiContext *ctx, int y, int x, int height, int width, const PlotSeries *series, int n_series, int log_y)
{
    if (height < 4 || width < 12) return;
    PlotOptions opt = {width, height, log_y, !ctx->utf8, 0, !ctx->colors};
    PlotGrid g;
    char err[ERR_LEN];
    if (plot_render_grid(&opt, series, n_series, &g, err)) {
        ui_text(y, x, width, ui_attr(ctx, UI_PAIR_DIM), "%s", err);
        return;
    }
    for (int r = 0; r < g.rows; r++)
        for (int c = 0; c < g.cols; c++) {
            const PlotCell *cell = &g.cells[r * g.cols + c];
            if (!cell->text[0] || !strcmp(cell->text, " ")) continue;
            /* a reference line is dim whatever its series: it is not a run */
            int k = cell->series - 1;
            int attr = k < 0 ? 0
                     : k < n_series && series[k].mark == PLOT_HLINE ? ui_attr(ctx, UI_PAIR_DIM)
                                                                   : ui_attr(ctx, UI_PAIR_SERIES0 + k % 8);
            attron(attr);
            mvaddstr(y + r, x + c, cell->text);
            attroff(attr);
        }
    plot_grid_free(&g);
}

int ui_confirm(UiContext *ctx, const char *question)
{
    for (;;) {
        if (ctx->redraw) ctx->redraw(ctx);   /* the screen stays live while it asks */
        int rows, cols;
        getmaxyx(stdscr, rows, cols);
        move(rows - 2, 0);
        clrtoeol();
        /* a long question is cut, never its [y/N] */
        int w = MB_MIN(text_columns(question), cols - 7);
        ui_text(rows - 2, 0, w, ui_attr(ctx, UI_PAIR_WARN) | A_BOLD, "%s", question);
        ui_text(rows - 2, MB_MAX(w, 0), cols - MB_MAX(w, 0), ui_attr(ctx, UI_PAIR_WARN) | A_BOLD, " [y/N]");
        refresh();
        int ch = getch();   /* the loop's timeout: about ten redraws a second */
        if (ch != ERR && ch != KEY_RESIZE) return ch == 'y' || ch == 'Y';
    }
}

void ui_say(UiContext *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
    va_end(ap);
}

const char *ui_pm(const UiContext *ctx)
{
    return ctx->utf8 ? "±" : "+-";
}

void ui_copy_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

void ui_control_run(UiContext *ctx, int64_t run_id, const char *arch, RunStatus status, int action)
{
    char err[ERR_LEN];
    int rc;
    if (action == 'x') {
        char question[128];
        snprintf(question, sizeof question, "cancel run %lld (%s, %s)?", (long long)run_id, arch,
                 run_status_name(status));
        if (!ui_confirm(ctx, question)) {
            ui_say(ctx, "run %lld left as it is", (long long)run_id);
            return;
        }
        rc = store_job_request(ctx->store, run_id, "cancel", err);
    } else if (action == 'p') {
        rc = store_job_request(ctx->store, run_id, "pause", err);
    } else {
        rc = store_job_resume(ctx->store, run_id, err);
    }
    const char *done = action == 'x'   ? "cancelled"
                     : action == 'p' ? "paused (a running job checkpoints first)"
                                     : "queued to resume";
    char said[200];
    if (rc) ui_say(ctx, "%s", err);
    else if (action == 'x') {
        ui_cancel_said(ctx, run_id, done, said, sizeof said);
        ui_say(ctx, "run %lld: %s", (long long)run_id, said);
    } else ui_say(ctx, "run %lld: %s", (long long)run_id, done);
}

void ui_cancel_said(UiContext *ctx, int64_t run_id, const char *done, char *out, size_t cap)
{
    char err[ERR_LEN];
    int64_t sweep = 0;
    if (store_job_stopped_sweep(ctx->store, run_id, &sweep, err) == 0 && sweep)
        snprintf(out, cap, "%s; sweep %lld's rounds stop (:sweep --continue %lld goes on)", done, (long long)sweep,
                 (long long)sweep);
    else snprintf(out, cap, "%s", done);
}

int ui_setting_get(UiContext *ctx, const char *key, char *value, size_t cap)
{
    assert(ctx && key && value && cap > 0);
    int found = 0;
    char err[ERR_LEN];
    if (ctx->fresh || store_setting_get(ctx->store, key, value, cap, &found, err)) found = 0;
    if (!found) value[0] = 0;
    return found;
}

void ui_setting_put(UiContext *ctx, const char *key, const char *value)
{
    assert(ctx && key);
    char err[ERR_LEN];
    if (store_read_only(ctx->store)) return;
    if (store_setting_put(ctx->store, key, value, err)) ui_say(ctx, "%s", err);
}

void ui_config_of(const RunConfigEntry *entries, int n, Config *c) { runs_config_of(entries, n, c); }

int ui_status_pair(RunStatus status)
{
    if (status == RUN_RUNNING) return UI_PAIR_GOOD;
    if (run_status_error(status)) return UI_PAIR_BAD;
    if (status == RUN_QUEUED || status == RUN_PAUSED) return UI_PAIR_DIM;
    return 0;
}

/* ---- the screens ------------------------------------------------------ */

/* Every screen, in tab order. */
const UiScreen *const ui_screen_order[UI_MAX_SCREENS] = {
    &ui_screen_runs,   &ui_screen_run,   &ui_screen_compare, &ui_screen_grid,
    &ui_screen_masked, &ui_screen_queue, &ui_screen_sweep,   &ui_screen_generate,
};

void ui_show_screen(UiContext *ctx, const UiScreen *screen)
{
    for (int i = 0; i < UI_MAX_SCREENS; i++)
        if (ui_screen_order[i] == screen) ctx->switch_to = i;
}

/* ---- the text field --------------------------------------------------- */

/* The byte where the character before byte `at` of t starts (the same
   walk as drawing: engine/text.h). */
static int char_before(const char *t, int at)
{
    int b = 0, prev = 0;
    while (b < at) {
        prev = b;
        b += text_utf8_len(t + b);
    }
    return prev;
}

void ui_field_set(UiTextField *f, const char *text)
{
    snprintf(f->text, sizeof f->text, "%s", text);
    f->cursor = (int)strlen(f->text);
    f->dropped = 0;
}

int ui_field_key(UiTextField *f, int ch)
{
    char *t = f->text;
    int len = (int)strlen(t);
    switch (ch) {
    case KEY_LEFT:
        f->cursor = char_before(t, f->cursor);
        return UI_FIELD_MOVED;
    case KEY_RIGHT:
        if (f->cursor < len) f->cursor += text_utf8_len(t + f->cursor);
        return UI_FIELD_MOVED;
    case KEY_HOME:
    case 1:                          /* Ctrl-A */
        f->cursor = 0;
        return UI_FIELD_MOVED;
    case KEY_END:
    case 5:                          /* Ctrl-E */
        f->cursor = len;
        return UI_FIELD_MOVED;
    case 21:                         /* Ctrl-U: clear to the start */
        memmove(t, t + f->cursor, (size_t)(len - f->cursor + 1));
        f->cursor = 0;
        f->dropped = 0;
        return UI_FIELD_EDITED;
    case 11:                         /* Ctrl-K: clear to the end */
        t[f->cursor] = 0;
        return UI_FIELD_EDITED;
    case KEY_BACKSPACE:
    case 127:
    case 8: {
        if (f->cursor == 0) return UI_FIELD_MOVED;
        int from = char_before(t, f->cursor);
        memmove(t + from, t + f->cursor, (size_t)(len - f->cursor + 1));
        f->cursor = from;
        return UI_FIELD_EDITED;
    }
    case KEY_DC: {
        if (f->cursor >= len) return UI_FIELD_MOVED;
        int to = f->cursor + text_utf8_len(t + f->cursor);
        memmove(t + f->cursor, t + to, (size_t)(len - to + 1));
        return UI_FIELD_EDITED;
    }
    default:
        /* printable ASCII and the bytes of UTF-8 characters */
        if (ch < 32 || ch > 255) return UI_FIELD_IGNORED;
        if (len + 1 >= (int)sizeof f->text) {
            f->dropped++;
            return UI_FIELD_MOVED;
        }
        memmove(t + f->cursor + 1, t + f->cursor, (size_t)(len - f->cursor + 1));
        t[f->cursor++] = (char)ch;
        return UI_FIELD_EDITED;
    }
}

int ui_field_type(UiTextField *f, int ch)
{
    int did = ui_field_key(f, ch), edited = did == UI_FIELD_EDITED;
    if (did == UI_FIELD_IGNORED) return did;
    int delay = wgetdelay(stdscr);
    timeout(0);
    for (int next; (next = getch()) != ERR;) {
        int k = ui_field_key(f, next);
        if (k == UI_FIELD_IGNORED) {
            ungetch(next);
            break;
        }
        edited |= k == UI_FIELD_EDITED;
    }
    timeout(delay);
    return edited ? UI_FIELD_EDITED : did;
}

void ui_field_draw(const UiTextField *f, int editing, int y, int x, int width)
{
    if (width < 2) return;
    const char *t = f->text;
    assert(f->cursor >= 0 && f->cursor <= (int)strlen(t));
    /* while editing, scrolled so that the cursor is in the last column at most */
    int first = 0, col = 0;       /* col: the cursor's column from byte first */
    if (editing) {
        for (int b = 0; b < f->cursor; b += text_utf8_len(t + b)) col++;
        for (; col > width - 1; col--) first += text_utf8_len(t + first);
    }
    mvhline(y, x, ' ' | (chtype)A_UNDERLINE, width);
    ui_text(y, x, width, A_UNDERLINE | (editing ? (int)A_BOLD : 0), "%s", t + first);
    if (!editing) return;
    char under[5] = " ";
    if (t[f->cursor]) snprintf(under, sizeof under, "%.*s", text_utf8_len(t + f->cursor), t + f->cursor);
    ui_text(y, x + col, 1, A_REVERSE, "%s", under);
}

/* ---- a list ---------------------------------------------------------- */

static int row_lines(const UiList *l, int i)
{
    return l->of && l->of->lines ? MB_MAX(1, l->of->lines(l->rows, i)) : 1;
}

static int row_holds(const UiList *l, int i, int64_t id)
{
    return l->of->holds ? l->of->holds(l->rows, i, id) : l->of->id_of(l->rows, i) == id;
}

/* Scroll so that the cursor's row shows whole in height lines. */
static void keep_cursor_shown(UiList *l, int height)
{
    if (l->scroll > l->cursor) l->scroll = l->cursor;
    if (height <= 0) return;
    for (;;) {
        int lines = 0;
        for (int i = l->scroll; i <= l->cursor; i++) lines += row_lines(l, i);
        if (lines <= height || l->scroll >= l->cursor) break;
        l->scroll++;
    }
}

static void clamp_view(UiList *l)
{
    int last = l->n - (l->page > 0 ? l->page : 1);
    l->scroll = MB_MAX(0, MB_MIN(l->scroll, last));
}

void ui_list_set_rows(UiList *l, const void *rows, int n)
{
    assert(l && n >= 0);
    l->rows = rows;
    l->n = n;
    if (!l->of) {
        clamp_view(l);
        return;
    }
    for (int i = 0; i < n && l->selected_id; i++)
        if (row_holds(l, i, l->selected_id)) {
            l->cursor = i;
            break;
        }
    l->cursor = MB_MAX(0, MB_MIN(l->cursor, n - 1));
    l->selected_id = n ? l->of->id_of(rows, l->cursor) : 0;
    keep_cursor_shown(l, l->page);
    if (l->scroll < 0) l->scroll = 0;
}

void ui_list_move(UiList *l, int to)
{
    assert(l && l->of);
    l->cursor = MB_MAX(0, MB_MIN(to, l->n - 1));
    l->selected_id = l->n ? l->of->id_of(l->rows, l->cursor) : 0;
}

int ui_list_selected(const UiList *l)
{
    return l->of && l->n > 0 ? l->cursor : -1;
}

/* A key while the filter is typed: a text field's (engine of ui_field_key),
   the text copied to filter at each edit. */
static int filter_key(UiList *l, int ch)
{
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        l->filtering = 0;
        return UI_LIST_MOVED;
    }
    if (ch == 27) {
        l->filtering = 0;
        ui_field_set(&l->edit, "");
    } else if (ui_field_key(&l->edit, ch) != UI_FIELD_EDITED || strlen(l->edit.text) >= sizeof l->filter) {
        return UI_LIST_MOVED;   /* the cursor moved, or nothing changed */
    }
    snprintf(l->filter, sizeof l->filter, "%s", l->edit.text);
    l->cursor = l->scroll = 0;
    l->selected_id = 0;
    return UI_LIST_FILTERED;
}

int ui_list_key(UiList *l, int ch, int filterable)
{
    assert(l);
    if (filterable && l->filtering) return filter_key(l, ch);
    int page = l->page > 1 ? l->page - 1 : 1;
    int at = l->of ? l->cursor : l->scroll;
    switch (ch) {
    case KEY_UP: case 'k': at--; break;
    case KEY_DOWN: case 'j': at++; break;
    case KEY_PPAGE: at -= page; break;
    case KEY_NPAGE: at += page; break;
    case ' ':
        if (l->of) return UI_LIST_IGNORED;
        at += page;
        break;
    case KEY_HOME: at = 0; break;
    case KEY_END: at = l->n; break;
    case '/':
        if (!filterable) return UI_LIST_IGNORED;
        l->filtering = 1;
        ui_field_set(&l->edit, l->filter);   /* again: edits the text kept */
        return UI_LIST_MOVED;
    case 27:
        if (!filterable || !l->filter[0]) return UI_LIST_IGNORED;
        l->filter[0] = 0;
        l->cursor = l->scroll = 0;
        return UI_LIST_FILTERED;
    default: return UI_LIST_IGNORED;
    }
    if (l->of) {
        ui_list_move(l, at);
    } else {
        l->scroll = at;
        clamp_view(l);
    }
    return UI_LIST_MOVED;
}

void ui_list_fit(UiList *l, int y, int height)
{
    assert(l);
    l->top_y = y;
    if (!l->of) {
        l->page = MB_MAX(1, height);
        clamp_view(l);
        return;
    }
    keep_cursor_shown(l, height);
    int rows = 0, lines = 0;
    for (int i = l->scroll; i < l->n && lines + row_lines(l, i) <= height; i++) lines += row_lines(l, i), rows++;
    l->page = MB_MAX(1, l->of->lines ? rows : height);
}

int ui_list_at(const UiList *l, int y)
{
    if (!l->of || y < l->top_y) return -1;
    int line = l->top_y;
    for (int i = l->scroll; i < l->n && i < l->scroll + l->page; i++) {
        line += row_lines(l, i);
        if (y < line) return i;
    }
    return -1;
}
