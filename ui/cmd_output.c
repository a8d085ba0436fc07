/*
 * cmd_output.c — the `:` command's output of cmd_output.h: its two pipes
 * read with poll into whole lines (a line is added when its '\n' comes, so
 * stdout's and stderr's lines never mix within a line), kept in a pager,
 * drawn as a panel over the screen's lower part.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/cmd_output.h"

#include <assert.h>
#include <errno.h>
#include <ncurses.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/common.h"

void cmd_output_start(CmdOutput *o, UiContext *ctx, const char *line)
{
    assert(o && ctx && line);
    ui_pager_clear(&o->pager);
    o->shown = 0;
    o->ran = 1;
    o->error_attr = ui_attr(ctx, UI_PAIR_WARN);
    snprintf(o->title, sizeof o->title, ":%s", line);
    o->n_lines = 0;
    o->kept = o->dropped = 0;
    o->last[0] = o->last_error[0] = 0;
    o->keep = NULL;
    o->keep_arg = NULL;
}

/* One whole line (without its '\n') from stdout or stderr. */
static void add_line(CmdOutput *o, int is_error, const char *line, size_t len)
{
    if (o->keep && !o->keep(line, len, o->keep_arg)) return;
    if (o->kept + len + 1 > CMD_OUTPUT_CAP ||
        ui_pager_add(&o->pager, is_error ? o->error_attr : 0, ui_pager_indent(line, len), line, len)) {
        o->dropped += len + 1;
        return;
    }
    o->kept += len + 1;
    o->n_lines++;
    size_t n = len;
    while (n && line[n - 1] == ' ') n--;
    if (!n) return;
    snprintf(o->last, sizeof o->last, "%.*s", (int)n, line);
    if (is_error) snprintf(o->last_error, sizeof o->last_error, "%.*s", (int)n, line);
}

void cmd_output_note(CmdOutput *o, int is_error, const char *line)
{
    assert(o && line);
    int (*keep)(const char *, size_t, void *) = o->keep;
    o->keep = NULL;   /* the workbench's own lines are always kept */
    add_line(o, is_error, line, strlen(line));
    o->keep = keep;
}

/* The bytes of one pipe not yet ended by a '\n'. */
typedef struct {
    char *buf;
    size_t len, cap;
    int fd, is_error;
} Partial;

/* Appends got bytes to the pipe's partial line and adds each line they
   complete; -1 when out of memory. */
static int take(CmdOutput *o, Partial *p, const char *got, size_t n)
{
    if (p->len + n > p->cap) {
        size_t want = MB_MAX(p->len + n, p->cap ? 2 * p->cap : 4096);
        char *grown = realloc(p->buf, want);
        if (!grown) return -1;
        p->buf = grown, p->cap = want;
    }
    memcpy(p->buf + p->len, got, n);
    p->len += n;
    size_t from = 0;
    for (char *nl; (nl = memchr(p->buf + from, '\n', p->len - from)); from = (size_t)(nl - p->buf) + 1)
        add_line(o, p->is_error, p->buf + from, (size_t)(nl - p->buf) - from);
    memmove(p->buf, p->buf + from, p->len - from);
    p->len -= from;
    return 0;
}

int cmd_output_read(CmdOutput *o, int out_fd, int err_fd, double deadline)
{
    assert(o);
    Partial parts[2] = {{NULL, 0, 0, out_fd, 0}, {NULL, 0, 0, err_fd, 1}};
    int late = 0;
    for (int open = 2; open > 0;) {
        int left = (int)((deadline - now_seconds()) * 1000);
        if (left <= 0) {
            late = -1;
            break;
        }
        struct pollfd pf[2] = {{parts[0].fd, POLLIN, 0}, {parts[1].fd, POLLIN, 0}};
        int r = poll(pf, 2, left);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        for (int k = 0; k < 2; k++) {
            if (parts[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char piece[4096];
            ssize_t got = read(parts[k].fd, piece, sizeof piece);
            if (got < 0 && errno == EINTR) continue;
            if (got > 0 && !take(o, &parts[k], piece, (size_t)got)) continue;
            parts[k].fd = -1;   /* ended (or out of memory: the rest is not read) */
            open--;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (parts[k].len) add_line(o, parts[k].is_error, parts[k].buf, parts[k].len);   /* no '\n' at its end */
        free(parts[k].buf);
    }
    return late;
}

void cmd_output_end(CmdOutput *o, const char *how)
{
    assert(o && how);
    if (o->dropped) {
        char note[96];
        snprintf(note, sizeof note, "(%zu more bytes of output not kept)", o->dropped);
        cmd_output_note(o, 1, note);
    }
    if (how[0]) {
        size_t n = strlen(o->title);
        snprintf(o->title + n, sizeof o->title - n, "  %s", how);
    }
}

void cmd_output_key(CmdOutput *o, int ch)
{
    assert(o);
    if (ch == 27 || ch == 'q') o->shown = 0;
    else ui_pager_key(&o->pager, ch);
}

void cmd_output_draw(CmdOutput *o, UiContext *ctx, int rows, int width)
{
    if (!o->shown || rows < 4 || width < 8) return;
    int height = MB_MAX(1, MB_MIN(MB_MAX(1, ui_pager_rows(&o->pager, width - 2)), rows - 3));
    int top = rows - 2 - height;   /* the title's row; the lines below it down to the message line */
    for (int y = top; y < rows; y++) {
        move(y, 0);
        clrtoeol();
    }
    ui_rule(ctx, top, 0, width);
    ui_text(top, 1, width - 2, ui_attr(ctx, UI_PAIR_TITLE) | A_BOLD, " %s ", o->title);
    if (o->pager.n_lines) ui_pager_draw(&o->pager, top + 1, 1, height, width - 2);
    else ui_text(top + 1, 1, width - 2, ui_attr(ctx, UI_PAIR_DIM), "(no output)");
    char where[64];
    ui_pager_where(&o->pager, where, sizeof where);
    ui_text(rows - 1, 0, width, A_REVERSE, " Esc/q close  j/k PgUp/PgDn Home/End scroll  %s ", where);
}

void cmd_output_free(CmdOutput *o)
{
    if (o) ui_pager_free(&o->pager);
}
