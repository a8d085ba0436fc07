/*
 * main.c — the mixbench binary: dispatches subcommands (the table of
 * app/commands.c) and answers `--help` from it, `--version` (or -V),
 * `help --man` (the man page, app/man.c) and `complete` (the bash
 * completion's words, app/complete.c).  OpenBLAS is pinned
 * to one thread here, once, because the engine owns its threads: each job
 * splits its batch over its own pool, and each sgemm runs on the thread
 * that calls it.  Before that, a fallback of OpenBLAS's kernel choice is
 * mended: on a CPU OpenBLAS did not know it runs generic SSE3 kernels, and
 * mixbench runs itself again with OPENBLAS_CORETYPE naming the core the
 * CPU's features allow (engine/blas_choice.h), never over a user's own
 * OPENBLAS_CORETYPE.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/commands.h"
#include "engine/blas_choice.h"

#include <cblas.h>

/* Runs mixbench again with the core OpenBLAS should have picked, when it
   fell back (returns only when it did not, or the exec failed). */
static void mend_blas_core(char **argv)
{
    const char *set = getenv("OPENBLAS_CORETYPE");
    if (set && *set) return;   /* the user's choice, or this is the second run */
    const char *picked = openblas_get_corename();
    const char *better = blas_core_upgrade(picked, blas_cpu_features());
    if (!better) return;
    if (setenv("MIXBENCH_BLAS_FALLBACK", picked, 1) || setenv("OPENBLAS_CORETYPE", better, 1)) return;
    execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE");   /* no exec: the generic kernels it is */
    unsetenv("MIXBENCH_BLAS_FALLBACK");
}

/* -h or --help among a command's arguments. */
static int asks_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    mend_blas_core(argv);
    openblas_set_num_threads(1);
    if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
        printf("mixbench %s\n", mixbench_version());
        return 0;
    }
    if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")))
        return cmd_workbench(argc - 1, argv + 1);
    const char *name = argv[1];
    const Command *c = command_find(name);
    if (c && asks_help(argc - 2, argv + 2)) {
        command_help(c, stdout);
        return 0;
    }
    if (c) return c->run(argc - 2, argv + 2);
    if (!strcmp(name, "complete")) return cmd_complete(argc - 2, argv + 2);
    if (!strcmp(name, "help") && argc == 3 && !strcmp(argv[2], "--man")) {
        commands_man(stdout);
        return 0;
    }
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const Command *about = argc > 2 ? command_find(argv[2]) : NULL;
        if (argc > 2 && !about) {
            fprintf(stderr, "mixbench: help: unknown command '%s' (mixbench help lists them)\n", argv[2]);
            return 2;
        }
        if (about) command_help(about, stdout);
        else commands_usage(stdout);
        return 0;
    }
    fprintf(stderr, "mixbench: unknown command '%s' (mixbench help lists them)\n", name);
    return 2;
}
