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

/* An option the command takes besides config keys. */
typedef struct {
    const char *name;       /* without the leading dashes */
    int takes_value;
    const char **value;     /* where the value goes (or "1" for flags) */
} CliOpt;

/* Parses argv: options from opts, and every config key as --key value or
   key=value (into c when c is not NULL).  `--steps N` etc. are config keys.
   Positional arguments go to *positional (at most max_pos). */
int cli_parse(int argc, char **argv, const CliOpt *opts, Config *c, const char **positional,
              int max_pos, int *n_pos, char *err);

#endif
