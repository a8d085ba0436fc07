/*
 * cli.h — what the subcommands share: argument parsing (`--key value`,
 * `--key=value`, `key=value`) and the one-line
 * error printer.
 */
#ifndef MIXBENCH_CLI_H
#define MIXBENCH_CLI_H

#include "engine/config.h"

/* Prints "mixbench: <msg>" on stderr; returns exit code 1. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `--loss best|last` of ls, export and report: *best 1 for the lowest
   valid evaluation (and its step), 0 for the last one (also when text is
   NULL: the default); a one-line error naming cmd otherwise. */
int cli_loss_choice(const char *cmd, const char *text, int *best);

/* An option the command takes besides config keys. */
typedef struct {
    const char *name;       /* without the leading dashes */
    int takes_value;
    const char **value;     /* where the value goes (or "1" for flags) */
    const char *alias;      /* a one-dash short form such as "n" for -n, or NULL */
} CliOpt;

/* Parses argv: options from opts (--name value, --name=value, -alias
   value; a flag takes no value), and every config key as --key value or
   key=value (into c when c is not NULL; with c NULL, key=value words are
   positional, as a sweep's grid is).  `--steps N` etc. are config keys.
   Positional arguments go to *positional (at most max_pos).  An option
   whose value is empty is refused.  This is the one argument parser of
   the command line. */
int cli_parse(int argc, char **argv, const CliOpt *opts, Config *c, const char **positional,
              int max_pos, int *n_pos, char *err);

#endif
