/*
 * commands.h — the subcommands of the mixbench binary.  Each takes the
 * arguments after its own name and returns the process exit code; each
 * prints its errors as one line on stderr.  `--help` never reaches them:
 * main.c answers it from the table below.
 */
#ifndef MIXBENCH_COMMANDS_H
#define MIXBENCH_COMMANDS_H

#include <stdio.h>

int cmd_workbench(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stats_check(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_extend(int argc, char **argv);
int cmd_rename(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_untag(int argc, char **argv);
int cmd_note(int argc, char **argv);
int cmd_star(int argc, char **argv);
int cmd_unstar(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_purge(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* The table of commands (app/commands.c): a new command is one file
   app/cmd_NAME.c, its declaration above and one entry there. */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;     /* its line in `mixbench help` */
    const char *usage;       /* "mixbench NAME ..." (lines) */
    const char *text;        /* what it does, then its options, one a line */
    const char *example;
    int in_workbench;        /* 1: the workbench's `:` line runs it (it ends quickly) */
} Command;

int command_count(void);
const Command *command_at(int i);
/* NULL for an unknown name. */
const Command *command_find(const char *name);
/* "usage: ...", the text, "example: ..." */
void command_help(const Command *c, FILE *f);
/* `mixbench help`: the workbench's line and every command's summary. */
void commands_usage(FILE *f);

/* The workbench (mixbench with no command, or options only): its usage
   line and its options, one a line; and what `mixbench help` says after
   the commands.  The man page is made of these and the table. */
extern const char WORKBENCH_USAGE[];
extern const char WORKBENCH_TEXT[];
extern const char COMMANDS_NOTES[];

/* "1.0.0 (git a327a5c)": VERSION, and `git describe` of the checkout it
   was built from when there was one (app/version.c; the Makefile passes
   it). */
const char *mixbench_version(void);
/* `mixbench help --man`: the manual page mixbench(1) in troff, from the
   table and the texts above (app/man.c; `make` writes build/mixbench.1). */
void commands_man(FILE *f);
/* `mixbench complete commands|presets|keys|options CMD`: the words of the
   bash completion (app/complete.c; not in the table: no one types it). */
int cmd_complete(int argc, char **argv);

#endif
