/*
 * main.c — the mixbench binary: dispatches subcommands.  OpenBLAS is pinned
 * to one thread here, once, because the engine owns its threads: each job
 * splits its batch over its own pool, and each sgemm runs on the thread
 * that calls it.
 */
#include <stdio.h>
#include <string.h>

#include "app/commands.h"

#include <cblas.h>

static void usage(FILE *f)
{
    fputs("usage: mixbench [--db FILE] [--jobs N] [--threads T]   the interactive workbench\n"
          "       mixbench <command> [options]\n"
          "  run       train a model headless: --arch A --task T --data D [key=value ...] | --resume RUN\n"
          "  eval      evaluate a checkpoint: --ckpt CKPT --data D | --run RUN [--split test|valid|train] [--json]\n"
          "  generate  sample text: --ckpt CKPT | --run RUN [--prompt TEXT] [-n N] [--temperature T] [--top-k K]\n"
          "  bench     training throughput vs sgemm: [--arch A] [--config S|P|M] [--task clm|mlm] [--threads T] [--seconds W] [--json]\n"
          "            [--bf16: each model in float32 and in precision=bf16, side by side]\n"
          "  ls        list runs in the store [--db FILE]\n"
          "  show RUN  one run's config, evaluations and loss curve [--db FILE]\n"
          "  sweep     queue a preset or a grid: PRESET[@paper]|key=v1,v2 ... [--data D] [--dry-run] [--priority P]\n"
          "  worker    run queued jobs until the queue is empty [--jobs N] [--threads T]\n"
          "  (run, worker and bench also run over MPI ranks under mpirun or srun: docs/scale.md)\n"
          "  queue     list queued, running and paused jobs\n"
          "  pause | cancel | resume RUN...   control jobs\n"
          "  export    results or curves: [--sweep S] --csv|--json [--curves]\n"
          "  report    the presets beside their papers, with verdicts: [PRESET ...] [--db FILE] [--md FILE]\n"
          "  extend    continue a done or stopped decay=wsd run to a larger budget: RUN tokens=N|steps=N\n"
          "  gc        remove checkpoints no run names: [--dry-run] [--keep last|best|none] [--db FILE]\n"
          "Every model and training key of the SPEC is accepted as key=value or --key value.\n",
          f);
}

/* One line a command: a new command is one file app/cmd_NAME.c, one
   declaration in commands.h and one line here (and in usage above). */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} COMMANDS[] = {
    {"run", cmd_run},       {"eval", cmd_eval},     {"generate", cmd_generate}, {"bench", cmd_bench},
    {"ls", cmd_ls},         {"show", cmd_show},     {"sweep", cmd_sweep},       {"worker", cmd_worker},
    {"queue", cmd_queue},   {"pause", cmd_pause},   {"cancel", cmd_cancel},     {"resume", cmd_resume},
    {"export", cmd_export}, {"report", cmd_report}, {"gc", cmd_gc},
    {"extend", cmd_extend},
};

int main(int argc, char **argv)
{
    openblas_set_num_threads(1);
    if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")))
        return cmd_workbench(argc - 1, argv + 1);
    const char *cmd = argv[1];
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(cmd, COMMANDS[i].name)) return COMMANDS[i].run(argc - 2, argv + 2);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "mixbench: unknown command '%s' (mixbench help lists them)\n", cmd);
    return 2;
}
