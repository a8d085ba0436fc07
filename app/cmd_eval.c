/*
 * cmd_eval.c — `mixbench eval --ckpt CKPT --data D [--split S] [--json]`:
 * loss, perplexity and accuracy of a checkpoint over every window of a
 * split, with the checkpoint's own tokenizer.  `--run RUN [--db FILE]`
 * instead: the run's latest checkpoint from its store, checked to be its
 * own (app/run_ref.h; RUN an id or a unique name), on the run's data and
 * eval_tokens unless --data is given.  For mlm also loss_all (every
 * position a target, SPEC section 3); other tasks have none, and --json then
 * leaves the "loss_all" key out (as "bits_per_byte" outside char data).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "app/run_ref.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/text.h"
#include "engine/trainer.h"

int cmd_eval(int argc, char **argv)
{
    const char *ckpt = NULL, *data = NULL, *split_name = "test", *json = NULL, *task = NULL,
               *tokenizer = NULL, *threads = NULL, *batch = NULL, *run = NULL, *db = "mixbench.db";
    CliOpt opts[] = {{"ckpt", 1, &ckpt, NULL},      {"data", 1, &data, NULL},       {"split", 1, &split_name, NULL},
                     {"json", 0, &json, NULL},      {"task", 1, &task, NULL},       {"tokenizer", 1, &tokenizer, NULL},
                     {"threads", 1, &threads, NULL}, {"batch", 1, &batch, NULL},    {"run", 1, &run, NULL},
                     {"db", 1, &db, NULL},          {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("eval: %s", err);
    if (!ckpt == !run) return cli_fail("eval: give --ckpt CKPT or --run RUN (a run of --db), one of them");
    int split = !strcmp(split_name, "test") ? SPLIT_TEST : !strcmp(split_name, "valid") ? SPLIT_VALID
              : !strcmp(split_name, "train") ? SPLIT_TRAIN : -1;
    if (split < 0) return cli_fail("eval: --split must be test, valid or train, not '%s'", split_name);
    Config c;
    config_defaults(&c);
    /* --run: the run's latest checkpoint, checked to be its own, on the data
       (and eval_tokens) it trained with unless --data says otherwise */
    RunRef ref;
    char shown[TEXT_SHOWN_CAP(ERR_LEN)];
    if (run && run_ref_open(db, run, &ref, &c, err)) return cli_fail("eval: %s", text_shown(err, shown, sizeof shown));
    if (run) ckpt = ref.ckpt;
    if (run && !data) data = c.data;
    Model m;
    Tokenizer *tok = NULL;
    if (checkpoint_load(ckpt, &c, &m, &tok, err)) return cli_fail("%s", err);
    if ((task && config_set(&c, "task", task, err)) || (threads && config_set(&c, "threads", threads, err)) ||
        (batch && config_set(&c, "batch", batch, err)) || (data && config_set(&c, "data", data, err)) ||
        (tokenizer && config_set(&c, "tokenizer", tokenizer, err))) {
        model_free(&m);
        tokenizer_free(tok);
        return cli_fail("eval: %s", err);
    }
    if (!data) {
        model_free(&m);
        tokenizer_free(tok);
        return cli_fail("eval: --data D is required");
    }
    if (task && strcmp(task, m.cfg.task)) {
        /* evaluate the same weights under another task: rebuild the wiring */
        if (config_validate(&c, err)) {
            model_free(&m);
            tokenizer_free(tok);
            return cli_fail("%s", err);
        }
        model_free(&m);
        if (model_build(&m, &c, err) || checkpoint_load_weights(ckpt, &m, err)) {
            tokenizer_free(tok);
            return cli_fail("%s", err);
        }
    }
    m.cfg.batch = c.batch;
    m.cfg.threads = c.threads;
    Dataset ds;
    memset(&ds, 0, sizeof ds);
    int rc = dataset_load_config(&c, tok, &ds, err);
    tokenizer_free(tok);
    if (rc) {
        model_free(&m);
        return cli_fail("%s", err);
    }
    Trainer *tr = NULL;
    EvalResult r;
    if (trainer_create(&tr, &m, &ds, c.threads, 0, err) || trainer_evaluate(tr, split, &r, err)) {
        trainer_free(tr);
        model_free(&m);
        dataset_free(&ds);
        return cli_fail("%s", err);
    }
    double bpb = ds.bytes_per_token_is_one ? r.loss / log(2.0) : NAN;
    if (json) {
        printf("{\"split\": \"%s\", \"loss\": %.9g, \"perplexity\": %.9g, \"accuracy\": %.9g, "
               "\"targets\": %lld, \"windows\": %lld",
               split_name, r.loss, exp(r.loss), r.accuracy, (long long)r.n_targets, (long long)r.n_windows);
        if (isfinite(bpb)) printf(", \"bits_per_byte\": %.9g", bpb);
        if (isfinite(r.loss_all)) printf(", \"loss_all\": %.9g", r.loss_all);
        printf("}\n");
    } else {
        printf("%s: loss %.6f  perplexity %.4f  accuracy %.4f", split_name, r.loss, exp(r.loss), r.accuracy);
        if (isfinite(r.loss_all)) printf("  loss_all %.6f", r.loss_all);
        if (isfinite(bpb)) printf("  bits/byte %.4f", bpb);
        printf("  (%lld targets in %lld windows)\n", (long long)r.n_targets, (long long)r.n_windows);
    }
    trainer_free(tr);
    model_free(&m);
    dataset_free(&ds);
    return 0;
}
