/*
 * cmdline.h — the workbench's `:` command line (as in vi or k9s): the CLI's
 * commands typed in place (`:sweep recall`, `:pause 3`, `:ls`, `:show 3`,
 * `:help [COMMAND]`, `:q`), Tab completing command names and, for `sweep`,
 * preset and config key names, for `help` command names.  A command runs
 * as a child process of this binary on the workbench's store; its whole
 * output is kept (ui/cmd_output.h): the message line shows its last line
 * (stderr's last when it failed) and how many there are, and the output
 * panel shows every line, by itself when there is more than that line.
 *
 * Not for: the commands themselves (app/); which ones may run here is
 * the caller's list (UiOptions.commands).
 */
#ifndef MIXBENCH_CMDLINE_H
#define MIXBENCH_CMDLINE_H

#include "ui/cmd_output.h"
#include "ui/ui.h"

typedef struct {
    int open;                    /* the line is shown and takes every key */
    UiTextField field;
    char hint[256];              /* the candidates of an ambiguous Tab */
    CmdOutput output;            /* the last command's output, and its panel */
} UiCmdLine;

/* A key while the line is open: editing, Tab, Enter runs it, Esc closes. */
void cmdline_key(UiCmdLine *c, UiContext *ctx, const UiOptions *o, int ch);
/* The line (and its hint above it) at the bottom rows of the terminal. */
void cmdline_draw(const UiCmdLine *c, UiContext *ctx, int rows, int width);

/* Splits text into words (spaces separate, "..." and '...' quote) into
   words[cap] of out (a copy of text); returns the count, -1 for an
   unclosed quote. */
int cmdline_split(const char *text, char *out, size_t out_cap, char **words, int cap);
/* Tab on text: the completion of its last word among the command names
   and help (first word), for `sweep` the presets and config keys
   ("layers="), for `help` the command names;
   the text grows by the candidates' common prefix, hint[cap] lists them
   when there are several.  Returns how many candidates there were. */
int cmdline_complete(char *text, size_t text_cap, const char *const *commands, char *hint, size_t hint_cap);

#endif
