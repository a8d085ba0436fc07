/*
 * cmd_generate.c — `mixbench generate --ckpt CKPT [--prompt TEXT] [-n N]
 * [--temperature T] [--top-k K] [--seed S]`: samples text from a causal
 * checkpoint with its stored tokenizer.  `--run RUN [--db FILE]` instead
 * takes the run's latest checkpoint from its store, checked to be its own
 * (app/run_ref.h; RUN an id or a unique name).
 *
 * Tokens are fed to a Generator (engine/generate.h): incremental while the
 * sequence fits in n_ctx, then a full pass over the last n_ctx tokens per
 * new token.  --stats prints the generation speed on stderr.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "app/run_ref.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/sample_text.h"
#include "engine/text.h"

static int print_piece(void *ctx, const char *piece, int64_t done)
{
    (void)ctx, (void)done;
    fputs(piece, stdout);
    fflush(stdout);
    return 0;
}

int cmd_generate(int argc, char **argv)
{
    const char *ckpt = NULL, *prompt = "", *count = "200", *temp = "0.8", *topk = "40", *seed = "1",
               *stats = NULL, *run = NULL, *db = "mixbench.db";
    CliOpt opts[] = {{"ckpt", 1, &ckpt, NULL},  {"prompt", 1, &prompt, NULL}, {"n", 1, &count, "n"},
                     {"temperature", 1, &temp, NULL}, {"top-k", 1, &topk, NULL}, {"seed", 1, &seed, NULL},
                     {"stats", 0, &stats, NULL}, {"run", 1, &run, NULL}, {"db", 1, &db, NULL},
                     {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("generate: %s", err);
    if (!ckpt == !run) return cli_fail("generate: give --ckpt CKPT or --run RUN (a run of --db), one of them");
    int64_t n_new;
    if (text_to_int64(count, &n_new) || n_new < 0) return cli_fail("generate: -n %s is not a token count", count);
    double temperature;
    if (text_to_double(temp, &temperature) || temperature < 0)
        return cli_fail("generate: --temperature %s is not a number >= 0", temp);
    int top_k;
    if (text_to_int(topk, 0, INT_MAX, &top_k)) return cli_fail("generate: --top-k %s is not a count", topk);
    int64_t seed_v;
    if (text_to_int64(seed, &seed_v)) return cli_fail("generate: --seed %s is not a number", seed);

    /* --run: the run's latest checkpoint, checked to be its own */
    RunRef ref;
    char shown[TEXT_SHOWN_CAP(ERR_LEN)];
    if (run && run_ref_open(db, run, &ref, NULL, err))
        return cli_fail("generate: %s", text_shown(err, shown, sizeof shown));
    if (run) ckpt = ref.ckpt;
    Config c;
    config_defaults(&c);
    Model m;
    Tokenizer *tok = NULL;
    if (checkpoint_load(ckpt, &c, &m, &tok, err)) return cli_fail("%s", err);
    if (!tok) {
        model_free(&m);
        return cli_fail("%s: the checkpoint stores no tokenizer", ckpt);
    }
    if (strcmp(c.task, "clm")) {
        model_free(&m);
        tokenizer_free(tok);
        return cli_fail("generate: %s was trained for task %s; generation needs a clm model", ckpt, c.task);
    }
    /* the text as it comes, then (--stats) the speed */
    SampleRequest req = {prompt, n_new, temperature, top_k, (uint64_t)seed_v};
    int incremental = 0;
    double t0 = now_seconds();
    int rc = sample_text(&m, tok, &req, print_piece, NULL, &incremental, err);
    if (rc) {
        model_free(&m);
        tokenizer_free(tok);
        return cli_fail("generate: %s", err);
    }
    fputc('\n', stdout);
    if (stats) {
        double dt = now_seconds() - t0;
        fprintf(stderr, "%lld tokens in %.3f s: %.1f tokens/s (%s)\n", (long long)n_new, dt, dt > 0 ? n_new / dt : 0.0,
                incremental ? "incremental" : "full window per token");
    }
    model_free(&m);
    tokenizer_free(tok);
    return 0;
}
