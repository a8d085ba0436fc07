/*
 * cmd_output.h — what a `:` command said (ui/cmdline.h runs it): every line
 * of its stdout and stderr as they came, kept until the next command, and
 * the panel that shows them.  The panel opens from the message line over
 * the screen's lower part (as high as the output, at most the screen's
 * area), scrolls (j/k, arrows, PgUp/PgDn, space, Home/End, the wheel) and
 * closes with Esc or q; stderr's lines are in the warning colour.
 *
 * Not for: running the command or deciding when the panel opens
 * (cmdline.c).
 */
#ifndef MIXBENCH_CMD_OUTPUT_H
#define MIXBENCH_CMD_OUTPUT_H

#include <stddef.h>

#include "ui/pager.h"
#include "ui/ui.h"

#define CMD_OUTPUT_CAP (16 << 20)   /* output bytes kept; past them a line says how many were not */

typedef struct {
    int shown;                   /* the panel is drawn and takes every key */
    int ran;                     /* a command ran (there is something to show) */
    int error_attr;              /* stderr's lines are drawn with it */
    char title[UI_FIELD_CAP + 64];   /* ":rm 2 3  failed (exit 1)" */
    UiPager pager;               /* the lines */
    int n_lines;
    size_t kept, dropped;        /* bytes kept and not kept (past CMD_OUTPUT_CAP) */
    char last[512], last_error[512];   /* the last line, the last of stderr's */
    int (*keep)(const char *line, size_t len, void *arg);   /* NULL, or the lines read that are kept */
    void *keep_arg;
} CmdOutput;

/* Forgets the last command's output: a new one, `line`, starts (every
   line kept until keep is set). */
void cmd_output_start(CmdOutput *o, UiContext *ctx, const char *line);
/* Reads the child's stdout and stderr (out_fd, err_fd) line by line until
   both end or the deadline (now_seconds()); 0, or -1 when the deadline
   passed. */
int cmd_output_read(CmdOutput *o, int out_fd, int err_fd, double deadline);
/* Adds a line of the workbench's own (a note on the output). */
void cmd_output_note(CmdOutput *o, int is_error, const char *line);
/* The command ended: how ("failed (exit 1)", "" when it went well) goes
   into the title. */
void cmd_output_end(CmdOutput *o, const char *how);
/* A key while the panel is shown: scrolling, Esc/q close; takes every key. */
void cmd_output_key(CmdOutput *o, int ch);
/* The panel from the bottom row above the footer up (the footer row says
   its keys), when shown. */
void cmd_output_draw(CmdOutput *o, UiContext *ctx, int rows, int width);
void cmd_output_free(CmdOutput *o);

#endif
