/*
 * cmd_run.c — `mixbench run`: trains one model headless, evaluates it on
 * valid (every eval_every steps and at the end) and test (at the end),
 * prints a progress line every log_every steps, and stores the run, its
 * metrics, evaluations and checkpoint in the SQLite store.
 *
 * A NaN loss stops the run as 'diverged' with its metrics kept; Ctrl-C stops
 * it as 'interrupted'; any other failure after the run row exists marks it
 * 'failed' with the message.
 */
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/commands.h"
#include "db/store.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/trainer.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static double peak_mem_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

static void fmt_duration(double s, char *buf, size_t cap)
{
    if (!isfinite(s) || s < 0) snprintf(buf, cap, "-");
    else if (s < 60) snprintf(buf, cap, "%.0fs", s);
    else if (s < 3600) snprintf(buf, cap, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, cap, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

static const char *split_name(int split)
{
    return split == SPLIT_TEST ? "test" : split == SPLIT_VALID ? "valid" : "train";
}

/* Evaluates a split, prints and stores it. */
static int eval_and_store(Trainer *tr, const Dataset *ds, Store *st, int64_t run_id, int64_t step,
                          int split, int quiet, char *err)
{
    EvalResult r;
    if (trainer_evaluate(tr, split, &r, err)) return -1;
    double bpb = ds->bytes_per_token_is_one ? r.loss / log(2.0) : NAN;
    if (!quiet) {
        printf("eval  %-5s step %lld  loss %.4f  ppl %.2f  acc %.4f", split_name(split), (long long)step, r.loss,
               exp(r.loss), r.accuracy);
        if (isfinite(bpb)) printf("  bpb %.4f", bpb);
        if (isfinite(ds->loss_floor)) printf("  (floor %.4f)", ds->loss_floor);
        printf("\n");
        fflush(stdout);
    }
    EvalRow row = {step, split_name(split), r.loss, r.accuracy, bpb, r.n_targets};
    return store_eval_add(st, run_id, &row, err);
}

/* The default checkpoint path: beside the store, ckpt/run<ID>.safetensors. */
static void default_ckpt_path(const char *db, int64_t run_id, char *out, size_t cap)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", db);
    const char *dir = dirname(copy);
    char folder[1100];
    snprintf(folder, sizeof folder, "%s/mixbench-ckpt", dir);
    mkdir(folder, 0777);
    snprintf(out, cap, "%s/run%lld.safetensors", folder, (long long)run_id);
}

int cmd_run(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *init = NULL, *save = NULL, *name = NULL, *quiet_flag = NULL;
    CliOpt opts[] = {{"db", 1, &db_path}, {"init", 1, &init},        {"save", 1, &save},
                     {"name", 1, &name},  {"quiet", 0, &quiet_flag}, {NULL, 0, NULL}};
    Config c;
    config_defaults(&c);
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, &c, NULL, 0, NULL, err)) return cli_fail("run: %s", err);
    int quiet = quiet_flag != NULL;

    Dataset ds;
    memset(&ds, 0, sizeof ds);
    if (cli_load_data(&c, NULL, &ds, err)) return cli_fail("%s", err);
    if (config_validate(&c, err)) {
        dataset_free(&ds);
        return cli_fail("%s", err);
    }
    Model m;
    if (model_build(&m, &c, err)) {
        dataset_free(&ds);
        return cli_fail("%s", err);
    }
    if (init && checkpoint_load_weights(init, &m, err)) {
        model_free(&m);
        dataset_free(&ds);
        return cli_fail("--init: %s", err);
    }
    Trainer *tr = NULL;
    if (trainer_create(&tr, &m, &ds, c.threads, 1, err)) {
        model_free(&m);
        dataset_free(&ds);
        return cli_fail("%s", err);
    }
    Store *st = NULL;
    if (store_open(db_path, &st, err)) {
        trainer_free(tr);
        model_free(&m);
        dataset_free(&ds);
        return cli_fail("%s", err);
    }

    int64_t nonemb, n_params = model_count_params(&m, &nonemb);
    StrBuf cfg_json;
    sb_init(&cfg_json);
    config_to_json(&c, &cfg_json);
    RunInfo info = {0};
    info.name = name;
    info.arch = c.arch;
    info.task = c.task;
    info.data = c.data;
    info.tokenizer = tokenizer_kind(ds.tokenizer) == TOKENIZER_WORD  ? "word"
                     : tokenizer_kind(ds.tokenizer) == TOKENIZER_CHAR ? "char"
                     : tokenizer_kind(ds.tokenizer) == TOKENIZER_BPE  ? "bpe"
                                                                      : "ids";
    info.config_json = cfg_json.data;
    info.n_params = n_params;
    info.n_params_nonembedding = nonemb;
    info.total_steps = trainer_total_steps(tr);
    info.seed = c.seed;
    info.threads = trainer_threads(tr);
    info.d = c.d;
    info.layers = c.layers;
    info.heads = c.heads;
    info.n_ctx = c.n_ctx;
    info.vocab = c.vocab;
    int64_t run_id = 0;
    int rc = store_run_create(st, &info, &run_id, err);
    sb_free(&cfg_json);
    if (rc) {
        store_close(st);
        trainer_free(tr);
        model_free(&m);
        dataset_free(&ds);
        return cli_fail("%s", err);
    }
    if (!quiet) {
        printf("run %lld: %s/%s on %s (%s, vocab %d): %lld parameters (%lld non-embedding), %d thread%s\n",
               (long long)run_id, c.arch, c.task, c.data, info.tokenizer, c.vocab, (long long)n_params,
               (long long)nonemb, info.threads, info.threads > 1 ? "s" : "");
        if (isfinite(ds.loss_floor)) printf("data entropy rate (loss floor): %.4f nats/token\n", ds.loss_floor);
        fflush(stdout);
    }

    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    const char *status = "done";
    char fail_msg[ERR_LEN] = "";
    int log_every = c.log_every;
    MetricRow *rows = calloc((size_t)log_every, sizeof(MetricRow));
    int n_rows = 0;
    TrainProgress p = {0};
    int64_t total = trainer_total_steps(tr);
    if (!rows) {
        status = "failed";
        snprintf(fail_msg, sizeof fail_msg, "out of memory");
    }
    while (rows && !trainer_done(tr)) {
        if (interrupted) {
            status = "interrupted";
            snprintf(fail_msg, sizeof fail_msg, "interrupted by signal at step %lld", (long long)p.step);
            break;
        }
        if (trainer_step(tr, &p, err)) {
            status = strstr(err, "NaN") ? "diverged" : "failed";
            snprintf(fail_msg, sizeof fail_msg, "%s", err);
            break;
        }
        rows[n_rows++] = (MetricRow){p.step, p.tokens, p.train_seconds, p.loss, p.loss_smooth,
                                     p.lr, p.grad_norm, p.tokens_per_s};
        int last = trainer_done(tr);
        if (n_rows == log_every || last) {
            if (store_metrics_append(st, run_id, rows, n_rows, err)) {
                status = "failed";
                snprintf(fail_msg, sizeof fail_msg, "%s", err);
                break;
            }
            n_rows = 0;
            if (!quiet) {
                double rate = p.train_seconds > 0 ? p.tokens / p.train_seconds : 0;
                char eta[32];
                fmt_duration(total > 0 ? (total - p.step) * (p.train_seconds / p.step)
                                       : c.seconds - p.train_seconds,
                             eta, sizeof eta);
                printf("step %lld", (long long)p.step);
                if (total > 0) printf("/%lld", (long long)total);
                printf("  loss %.4f (smooth %.4f)  lr %.2e  gnorm %.3f  %.0f tok/s  eta %s\n", p.loss,
                       p.loss_smooth, p.lr, p.grad_norm, rate, eta);
                fflush(stdout);
            }
        }
        if (c.eval_every > 0 && p.step % c.eval_every == 0 && !trainer_done(tr)) {
            if (eval_and_store(tr, &ds, st, run_id, p.step, SPLIT_VALID, quiet, err)) {
                status = "failed";
                snprintf(fail_msg, sizeof fail_msg, "%s", err);
                break;
            }
        }
    }
    if (n_rows > 0 && store_metrics_append(st, run_id, rows, n_rows, err) && !fail_msg[0]) {
        status = "failed";
        snprintf(fail_msg, sizeof fail_msg, "%s", err);
    }
    free(rows);

    if (!strcmp(status, "done")) {
        if (eval_and_store(tr, &ds, st, run_id, p.step, SPLIT_VALID, quiet, err) ||
            eval_and_store(tr, &ds, st, run_id, p.step, SPLIT_TEST, quiet, err)) {
            status = "failed";
            snprintf(fail_msg, sizeof fail_msg, "%s", err);
        }
    }
    /* a diverged model's weights are not worth keeping; every other end
       (done, interrupted) leaves a loadable checkpoint */
    if (strcmp(status, "diverged") && strcmp(status, "failed")) {
        char path[1200];
        if (save) snprintf(path, sizeof path, "%s", save);
        else default_ckpt_path(db_path, run_id, path, sizeof path);
        char step_text[32];
        snprintf(step_text, sizeof step_text, "%lld", (long long)p.step);
        CkptExtra extra[] = {{"step", step_text}, {"data", c.data}};
        if (checkpoint_save(path, &m, ds.tokenizer, extra, 2, err) ||
            store_checkpoint_add(st, run_id, p.step, path, err)) {
            status = "failed";
            snprintf(fail_msg, sizeof fail_msg, "%s", err);
        } else if (!quiet) {
            printf("checkpoint %s\n", path);
        }
    }
    RunEnd end = {status, fail_msg[0] ? fail_msg : NULL, p.step, p.tokens, p.train_seconds,
                  p.train_seconds > 0 ? p.tokens / p.train_seconds : 0, peak_mem_mb()};
    int store_rc = store_run_finish(st, run_id, &end, err);
    store_close(st);
    trainer_free(tr);
    model_free(&m);
    dataset_free(&ds);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (store_rc) return cli_fail("%s", err);
    if (strcmp(status, "done")) {
        cli_fail("run %lld %s: %s", (long long)run_id, status, fail_msg);
        return strcmp(status, "interrupted") ? 1 : 130;
    }
    if (!quiet) printf("run %lld done\n", (long long)run_id);
    return 0;
}
