/*
 * cmdline.c — the `:` command line of cmdline.h: word splitting, Tab
 * completion, and running a command as a child of this binary (its stdout
 * and stderr through two pipes into cmd_output.h, at most COMMAND_SECONDS)
 * on the workbench's store.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/cmdline.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <ncurses.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/text.h"
#include "experiments/sweep.h"

#define COMMAND_SECONDS 60.0     /* a command still running then is stopped */
#define MAX_WORDS 64

int cmdline_split(const char *text, char *out, size_t out_cap, char **words, int cap)
{
    assert(text && out && words);
    size_t o = 0;
    int n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (n == cap || o + 1 >= out_cap) return -1;
        words[n++] = out + o;
        while (*p && *p != ' ') {
            if (*p == '"' || *p == '\'') {
                char q = *p++;
                while (*p && *p != q && o + 1 < out_cap) out[o++] = *p++;
                if (*p != q) return -1;   /* unclosed */
                p++;
            } else if (o + 1 < out_cap) {
                out[o++] = *p++;
            } else {
                return -1;
            }
        }
        out[o++] = 0;
    }
    return n;
}

/* The candidates for the word being typed (its first `len` bytes). */
typedef struct {
    const char *word;
    size_t len;
    const char *found[128];
    char suffix[128][2];         /* "=" after a config key */
    int n;
} Candidates;

static void offer(Candidates *c, const char *name, const char *suffix)
{
    if (strncmp(name, c->word, c->len) || c->n == 128) return;
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->found[i], name)) return;
    c->found[c->n] = name;
    snprintf(c->suffix[c->n], sizeof c->suffix[c->n], "%s", suffix);
    c->n++;
}

int cmdline_complete(char *text, size_t text_cap, const char *const *commands, char *hint, size_t hint_cap)
{
    assert(text && commands && hint);
    hint[0] = 0;
    size_t len = strlen(text);
    const char *last = strrchr(text, ' ');
    last = last ? last + 1 : text;
    int first_word = last == text;
    Candidates c = {last, strlen(last), {0}, {{0}}, 0};
    if (first_word) {
        for (int i = 0; commands[i]; i++) offer(&c, commands[i], " ");
        offer(&c, "help", " ");
        offer(&c, "quit", "");
    } else if (!strncmp(text, "help ", 5) && !strchr(text + 5, ' ')) {
        for (int i = 0; commands[i]; i++) offer(&c, commands[i], "");
    } else if (!strncmp(text, "sweep ", 6)) {
        /* the built-in studies: a stored one (study.h) is no name `mixbench sweep` knows */
        for (int i = 0; i < preset_count(); i++)
            if (preset_at(i)->builtin) offer(&c, preset_at(i)->name, " ");
        for (int k = 0; k < config_key_count(); k++) offer(&c, config_key_name(k), "=");
    }
    if (c.n == 0) return 0;
    /* the candidates' common prefix (and, alone, its suffix) */
    size_t common = strlen(c.found[0]);
    for (int i = 1; i < c.n; i++) {
        size_t k = 0;
        while (k < common && c.found[i][k] == c.found[0][k]) k++;
        common = k;
    }
    size_t at = (size_t)(last - text);
    if (at + common + 2 < text_cap) {
        memcpy(text + at, c.found[0], common);
        text[at + common] = 0;
        if (c.n == 1) strcat(text, c.suffix[0]);
    }
    (void)len;
    size_t h = 0;
    for (int i = 0; c.n > 1 && i < c.n && h + 1 < hint_cap; i++)
        h += (size_t)snprintf(hint + h, hint_cap - h, "%s%s", i ? "  " : "", c.found[i]);
    return c.n;
}

/* `:help` alone: the lines of `mixbench help` naming a command here. */
static int names_command_here(const char *line, size_t len, void *arg)
{
    const char *const *commands = arg;
    if (len < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') return 0;
    size_t n = 2;
    while (n < len && line[n] != ' ') n++;
    for (int i = 0; commands && commands[i]; i++)
        if (strlen(commands[i]) == n - 2 && !strncmp(commands[i], line + 2, n - 2)) return 1;
    return 0;
}

/* The line shown of the output: stderr's last when the command failed,
   else the last, "mixbench: " taken off. */
static const char *shown_line(const CmdOutput *out, int failed)
{
    const char *line = failed && out->last_error[0] ? out->last_error : out->last;
    return !strncmp(line, "mixbench: ", 10) ? line + 10 : line;
}

/* Says how the command went on the message line (its last line, and how
   many there are to see with O); the panel opens by itself when there is
   more than that line says there. */
static void say_outcome(UiCmdLine *c, UiContext *ctx, const char *name, int late, int status)
{
    CmdOutput *out = &c->output;
    int failed = late || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    char how[64] = "";
    if (late) snprintf(how, sizeof how, "stopped after %.0f s", COMMAND_SECONDS);
    else if (WIFEXITED(status) && WEXITSTATUS(status)) snprintf(how, sizeof how, "failed (exit %d)", WEXITSTATUS(status));
    else if (!WIFEXITED(status)) snprintf(how, sizeof how, "failed (signal %d)", WTERMSIG(status));
    if (late) cmd_output_note(out, 1, "stopped: a long command belongs in a shell");
    cmd_output_end(out, how);
    const char *line = shown_line(out, failed);
    char lines[48];
    snprintf(lines, sizeof lines, "O: %d line%s", out->n_lines, out->n_lines == 1 ? "" : "s");
    if (late) ui_say(ctx, ":%s stopped after %.0f s (%s): a long command belongs in a shell", name, COMMAND_SECONDS, lines);
    else if (!failed) ui_say(ctx, ":%s (%s): %s", name, lines, line[0] ? line : "done");
    else ui_say(ctx, ":%s failed (%s): %s", name, lines, line[0] ? line : "(no message)");
    /* more than the message line shows: a second line, or one cut at the edge */
    out->shown = out->n_lines > 1 || text_columns(ctx->message) > COLS;
}

/* Runs `exe words...` (with `--db DB` unless it names one, or for help)
   and says how it went. */
static void run_command(UiCmdLine *c, UiContext *ctx, const UiOptions *o, char **words, int n)
{
    const char *argv[MAX_WORDS + 4];
    int k = 0, has_db = !strcmp(words[0], "help");
    argv[k++] = o->exe;
    for (int i = 0; i < n; i++) {
        has_db |= !strcmp(words[i], "--db") || !strncmp(words[i], "--db=", 5);
        argv[k++] = words[i];
    }
    if (!has_db) argv[k++] = "--db", argv[k++] = ctx->db_path;
    argv[k] = NULL;
    int out_fds[2], err_fds[2];
    if (pipe(out_fds)) {
        ui_say(ctx, ":%s: %s", words[0], strerror(errno));
        return;
    }
    if (pipe(err_fds)) {
        ui_say(ctx, ":%s: %s", words[0], strerror(errno));
        close(out_fds[0]), close(out_fds[1]);
        return;
    }
    ui_say(ctx, ":%s: running...", words[0]);
    if (ctx->redraw) {
        ctx->redraw(ctx);
        refresh();
    }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, STDIN_FILENO);
        dup2(out_fds[1], STDOUT_FILENO);
        dup2(err_fds[1], STDERR_FILENO);
        close(out_fds[0]), close(err_fds[0]);
        execv(o->exe, (char *const *)argv);
        _exit(127);
    }
    close(out_fds[1]), close(err_fds[1]);
    if (pid < 0) {
        close(out_fds[0]), close(err_fds[0]);
        ui_say(ctx, ":%s: %s", words[0], strerror(errno));
        return;
    }
    cmd_output_start(&c->output, ctx, c->field.text);
    if (!strcmp(words[0], "help") && n == 1) {
        cmd_output_note(&c->output, 0, "The : line runs these on this store (help COMMAND: its options):");
        c->output.keep = names_command_here;
        c->output.keep_arg = (void *)o->commands;
    }
    int late = cmd_output_read(&c->output, out_fds[0], err_fds[0], now_seconds() + COMMAND_SECONDS);
    c->output.keep = NULL;
    if (!strcmp(words[0], "help") && n == 1) {
        cmd_output_note(&c->output, 0, "  help      this list; help COMMAND: a command's options and an example");
        cmd_output_note(&c->output, 0, "  q, quit   quit the workbench");
    }
    close(out_fds[0]), close(err_fds[0]);
    if (late) kill(pid, SIGTERM);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    say_outcome(c, ctx, words[0], late, status);
}

static void run_line(UiCmdLine *c, UiContext *ctx, const UiOptions *o)
{
    char buf[UI_FIELD_CAP];
    char *words[MAX_WORDS];
    if (c->field.dropped) {   /* a paste past the field: refused whole, never its start run */
        ui_say(ctx, ": a command line is at most %d bytes (this one has %zu): nothing run", UI_FIELD_CAP - 1,
               strlen(c->field.text) + c->field.dropped);
        return;
    }
    int n = cmdline_split(c->field.text, buf, sizeof buf, words, MAX_WORDS);
    if (n < 0) {
        ui_say(ctx, ": an unclosed quote, or more than %d words", MAX_WORDS);
        return;
    }
    if (n == 0) return;
    if (!strcmp(words[0], "q") || !strcmp(words[0], "quit")) {
        ctx->quit = 1;
        return;
    }
    int known = !strcmp(words[0], "help");
    for (int i = 0; o->commands && o->commands[i]; i++) known |= !strcmp(o->commands[i], words[0]);
    if (!known) {
        ui_say(ctx, ":%s is not a command here (:help lists them)", words[0]);
        return;
    }
    if (!o->exe) {
        ui_say(ctx, ":%s: this binary's path is not known", words[0]);
        return;
    }
    run_command(c, ctx, o, words, n);
}

void cmdline_key(UiCmdLine *c, UiContext *ctx, const UiOptions *o, int ch)
{
    assert(c && ctx && o);
    if (ch == 27) {
        c->open = 0;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        c->open = 0;
        c->hint[0] = 0;
        run_line(c, ctx, o);
    } else if (ch == '\t') {
        if (o->commands) cmdline_complete(c->field.text, sizeof c->field.text, o->commands, c->hint, sizeof c->hint);
        c->field.cursor = (int)strlen(c->field.text);
    } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && !c->field.text[0]) {
        c->open = 0;   /* backspace on an empty line leaves it, as in vi */
    } else {
        ui_field_type(&c->field, ch);
        c->hint[0] = 0;
    }
}

void cmdline_draw(const UiCmdLine *c, UiContext *ctx, int rows, int width)
{
    if (!c->open || rows < 2) return;
    if (c->hint[0]) {
        move(rows - 2, 0);
        clrtoeol();
        ui_text(rows - 2, 0, width, ui_attr(ctx, UI_PAIR_DIM), "%s", c->hint);
    }
    move(rows - 1, 0);
    clrtoeol();
    ui_text(rows - 1, 0, 1, A_BOLD, ":");
    ui_field_draw(&c->field, 1, rows - 1, 1, width - 2);
}
