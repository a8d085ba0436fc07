/*
 * cmd_workbench.c — `mixbench [--db FILE] [--jobs N] [--threads T]`: the
 * interactive workbench (ui/), with the engine's workers in the same
 * process; --no-mouse leaves clicks to the terminal (its own selection);
 * --fresh (or MIXBENCH_UI_FRESH set) opens without the screen, picks,
 * sort, filter and New sweep form the store remembers of the last launch.  --jobs 0 watches only: no workers here, for a store that
 * other processes train into (`mixbench worker`, or rank 0 of an mpirun
 * sweep, whose jobs the workbench must not take).
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/commands.h"
#include "engine/common.h"
#include "engine/pool.h"
#include "engine/text.h"
#include "ui/ui.h"

int cmd_workbench(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *jobs_s = NULL, *threads_s = NULL, *no_mouse = NULL, *fresh = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL},
                     {"jobs", 1, &jobs_s, NULL},
                     {"threads", 1, &threads_s, NULL},
                     {"no-mouse", 0, &no_mouse, NULL},
                     {"fresh", 0, &fresh, NULL},
                     {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("%s", err);
    int cores = pool_cores();
    if (threads_s && text_to_int(threads_s, 1, INT_MAX, &cores))
        return cli_fail("--threads %s is not a positive count", threads_s);
    int jobs = cores;
    if (jobs_s && text_to_int(jobs_s, 0, 64, &jobs)) return cli_fail("--jobs %s is not 0..64", jobs_s);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return cli_fail("the workbench needs a terminal (the headless commands are listed by `mixbench help`)");
    /* the `:` line runs the commands that end quickly, with this binary */
    const char *names[64];
    int n = 0;
    for (int i = 0; i < command_count() && n < 63; i++)
        if (command_at(i)->in_workbench) names[n++] = command_at(i)->name;
    names[n] = NULL;
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = 0;
    const char *fresh_env = getenv("MIXBENCH_UI_FRESH");
    UiOptions o = {db_path, jobs, cores, !no_mouse, names, len > 0 ? exe : NULL, fresh || (fresh_env && fresh_env[0])};
    return ui_main(&o);
}
