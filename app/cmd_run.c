/*
 * cmd_run.c — `mixbench run`: trains one model in the foreground (see
 * experiments/job.c for what a job does), printing a progress line every log_every
 * steps.  Ctrl-C checkpoints the run and ends it as 'interrupted'; a
 * `mixbench pause RUN` or `cancel RUN` from another shell is obeyed too.
 *
 * --init CKPT fine-tunes: every model key (the KEY_MODEL group of
 * engine/config.c's table, so new keys follow) comes from the checkpoint,
 * the training and data keys from the command line; a model key given that
 * contradicts the checkpoint is refused before anything is stored.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "db/status.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "experiments/job.h"

static atomic_int stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int cmd_run(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *init = NULL, *save = NULL, *name = NULL, *quiet = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"init", 1, &init, NULL},   {"save", 1, &save, NULL},
                     {"name", 1, &name, NULL},  {"quiet", 0, &quiet, NULL}, {NULL, 0, NULL, NULL}};
    Config c;
    config_defaults(&c);
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, &c, NULL, 0, NULL, err)) return cli_fail("run: %s", err);
    if (init) {
        /* fine-tuning: the model keys come from the checkpoint and the rest
           from the command line, parsed again on top of them; a model key
           that now differs from the checkpoint's was given, and contradicts it */
        Config stored;
        config_defaults(&stored);
        Tokenizer *tok = NULL;
        if (checkpoint_read_config(init, &stored, &tok, err)) return cli_fail("%s", err);
        const char *tok_kind = tok ? tokenizer_kind_name(tokenizer_kind(tok)) : NULL;
        tokenizer_free(tok);
        c = stored;
        if (cli_parse(argc, argv, opts, &c, NULL, 0, NULL, err)) return cli_fail("run: %s", err);
        if (checkpoint_config_agrees(&stored, &c, err)) return cli_fail("--init %s: %s", init, err);
        /* the data is encoded with the checkpoint's tokenizer (experiments/job.c) */
        if (tok_kind && c.tokenizer[0] && strcmp(c.tokenizer, tok_kind))
            return cli_fail("--init %s: tokenizer=%s contradicts the checkpoint's tokenizer=%s", init, c.tokenizer,
                            tok_kind);
    }
    JobSpec js;
    memset(&js, 0, sizeof js);
    js.db_path = db_path;
    js.config = c;
    js.name = name;
    js.init_ckpt = init;
    js.save_path = save;
    js.quiet = quiet != NULL;
    js.check_control = 1;
    js.stop = &stop_requested;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    RunStatus ended = RUN_FAILED;
    int rc = job_run(&js, &ended, err);
    const char *status = run_status_name(ended);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (rc) return cli_fail("%s", err);
    RunStatus end = run_status_parse(status);
    if (end != RUN_DONE) {
        /* a failed or diverged run says why; paused, cancelled, interrupted need not */
        int why = run_status_error(end);
        cli_fail("run %lld %s%s%s", (long long)js.run_id, run_status_name(end), why ? ": " : "", why ? err : "");
        return end == RUN_INTERRUPTED ? 130 : 1;
    }
    if (!js.quiet) printf("run %lld done\n", (long long)js.run_id);
    return 0;
}
