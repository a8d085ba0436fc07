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
 * --resume RUN continues an interrupted or paused run from its last
 * checkpoint, its config from the store (training keys given on the command
 * line replace the stored ones; a model key may not change).
 *
 * Under mpirun / srun (engine/dist.h) the run is data-parallel over the
 * ranks: every rank parses the same command line, and before anything is
 * read or written every rank must run the same binary with the same
 * options (hashes compared on rank 0); rank 0 alone opens the store, writes
 * the checkpoints and prints.  Any refusal is one line from rank 0, and
 * every rank exits non-zero.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/commands.h"
#include "app/job_print.h"
#include "db/jobs.h"
#include "db/organise.h"
#include "db/status.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/dist.h"
#include "engine/io/json.h"
#include "engine/text.h"
#include "experiments/job.h"

static atomic_int stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

typedef struct {
    const char *db_path, *init, *save, *name, *quiet, *resume;
    int64_t resume_id;
    ClaimedJob claimed;   /* --resume: the run's stored config and checkpoint */
} RunArgs;

/* --init: the model keys come from the checkpoint and the rest from the
   command line, parsed again on top of them; a model key that now differs
   from the checkpoint's was given, and contradicts it.  --resume: the same,
   on top of the stored config. */
static int parse_args(int argc, char **argv, RunArgs *a, Config *c, char *err)
{
    CliOpt opts[] = {{"db", 1, &a->db_path, NULL},   {"init", 1, &a->init, NULL},
                     {"save", 1, &a->save, NULL},    {"name", 1, &a->name, NULL},
                     {"quiet", 0, &a->quiet, NULL},  {"resume", 1, &a->resume, NULL},
                     {NULL, 0, NULL, NULL}};
    config_defaults(c);
    char e[ERR_LEN];
    if (cli_parse(argc, argv, opts, c, NULL, 0, NULL, e)) return err_set(err, "run: %s", e);
    if (a->resume && a->init) return err_set(err, "run: --resume and --init exclude each other");
    if (!a->init) return 0;
    /* --init names a checkpoint; the weight init is the key init= */
    if ((!strcmp(a->init, "gpt2") || !strcmp(a->init, "fan_in")) && access(a->init, F_OK))
        return err_set(err, "run: --init takes a checkpoint to start from; for the weight init write init=%s",
                       a->init);
    Config stored;
    config_defaults(&stored);
    Tokenizer *tok = NULL;
    if (checkpoint_read_config(a->init, &stored, &tok, err)) return -1;
    const char *tok_kind = tok ? tokenizer_kind_name(tokenizer_kind(tok)) : NULL;
    *c = stored;
    int rc = cli_parse(argc, argv, opts, c, NULL, 0, NULL, e);
    if (rc) err_set(err, "run: %s", e);
    else if (checkpoint_config_agrees(&stored, c, e)) rc = err_set(err, "--init %s: %s", a->init, e);
    /* the data is encoded with the checkpoint's tokenizer (experiments/job.c) */
    else if (tok_kind && c->tokenizer[0] && strcmp(c->tokenizer, tok_kind))
        rc = err_set(err, "--init %s: tokenizer=%s contradicts the checkpoint's tokenizer=%s", a->init,
                     c->tokenizer, tok_kind);
    tokenizer_free(tok);
    return rc;
}

/* --resume: rank 0 claims the run in the store and every rank gets its
   stored config (the command line's keys on top). */
static int resume_config(Dist *d, int argc, char **argv, RunArgs *a, Config *c, char *err)
{
    int rc = 0;
    if (dist_rank(d) == 0) {
        Store *st;
        rc = store_open_existing(a->db_path, &st, err);
        if (!rc) {
            /* RUN: an id or the name one run has (db/organise.h) */
            rc = store_run_lookup(st, a->resume, 0, &a->resume_id, err);
            if (rc) {
                char e[ERR_LEN];
                snprintf(e, sizeof e, "run: --resume: %s", err);
                snprintf(err, ERR_LEN, "%s", e);
            }
            if (!rc) rc = store_job_claim_run(st, a->resume_id, (int)getpid(), &a->claimed, err);
            store_close(st);
        }
    }
    if (d && dist_agree(d, rc != 0, err)) return -1;
    if (rc) return -1;
    if (dist_bcast(d, &a->resume_id, sizeof a->resume_id, err)) return -1;
    if (dist_bcast(d, a->claimed.config_json, sizeof a->claimed.config_json, err)) return -1;
    Config stored;
    config_defaults(&stored);
    JsonValue *obj = json_parse(a->claimed.config_json, strlen(a->claimed.config_json), err);
    rc = !obj || config_from_json(&stored, obj, 1, err);
    json_free(obj);
    if (rc) return -1;
    *c = stored;
    CliOpt opts[] = {{"db", 1, &a->db_path, NULL},   {"init", 1, &a->init, NULL},
                     {"save", 1, &a->save, NULL},    {"name", 1, &a->name, NULL},
                     {"quiet", 0, &a->quiet, NULL},  {"resume", 1, &a->resume, NULL},
                     {NULL, 0, NULL, NULL}};
    char e[ERR_LEN];
    if (cli_parse(argc, argv, opts, c, NULL, 0, NULL, e)) return err_set(err, "run: %s", e);
    if (checkpoint_config_agrees(&stored, c, e)) return err_set(err, "--resume %lld: %s", (long long)a->resume_id, e);
    return 0;
}

/* Every rank runs the same binary with the same options. */
static int same_everywhere(Dist *d, const RunArgs *a, const Config *c, char *err)
{
    if (dist_same(d, dist_binary_hash(), "runs a different mixbench binary than rank 0", err)) return -1;
    StrBuf sb;
    sb_init(&sb);
    config_to_json(c, &sb);
    uint64_t h = dist_hash_bytes(0, sb.data ? sb.data : "", sb.data ? strlen(sb.data) : 0);
    sb_free(&sb);
    const char *opts[] = {a->db_path, a->init, a->save, a->name, a->quiet, a->resume};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        h = dist_hash_bytes(h, opts[i] ? opts[i] : "\1", opts[i] ? strlen(opts[i]) + 1 : 1);
    return dist_same(d, h, "was started with a different config or options than rank 0", err);
}

/* A refusal: one line from rank 0; every rank exits 1. */
static int refuse(Dist *d, const char *err)
{
    if (dist_rank(d) == 0) cli_fail("%s", err);
    return 1;
}

/* --name: a name no run of the store has yet (db/organise.h: a name means
   one run), checked by rank 0 before anything trains.  A store that does
   not exist yet has no names. */
static int name_free(Dist *d, const RunArgs *a, char *err)
{
    int rc = 0;
    if (dist_rank(d) == 0) {
        Store *st;
        if (access(a->db_path, F_OK) != 0) rc = store_text_check(STORE_TEXT_NAME, a->name, err);
        else if (!(rc = store_open_existing(a->db_path, &st, err))) {
            rc = store_name_free(st, STORE_TEXT_NAME, a->name, err);
            store_close(st);
        }
        if (rc) {
            char e[ERR_LEN];
            snprintf(e, sizeof e, "run: --name: %s", err);
            snprintf(err, ERR_LEN, "%s", e);
        }
    }
    return d ? dist_agree(d, rc != 0, err) : rc;
}

static int run(Dist *d, int argc, char **argv)
{
    RunArgs a = {.db_path = "mixbench.db"};
    Config c;
    char err[ERR_LEN] = "";
    int rc = parse_args(argc, argv, &a, &c, err);
    if (d && dist_agree(d, rc != 0, err)) return refuse(d, err);
    if (rc) return refuse(d, err);
    if (d && same_everywhere(d, &a, &c, err)) return refuse(d, err);
    if (a.resume && resume_config(d, argc, argv, &a, &c, err)) return refuse(d, err);
    if (a.name && !a.resume && name_free(d, &a, err)) return refuse(d, err);
    int rank = dist_rank(d);
    JobSink null_sink = job_sink_null();
    JobSpec js;
    memset(&js, 0, sizeof js);
    js.db_path = a.db_path;
    js.config = c;
    js.name = a.name;
    js.init_ckpt = a.init;
    js.save_path = a.save;
    js.observer = a.quiet != NULL || rank > 0 ? NULL : &job_printer;
    js.check_control = 1;
    js.stop = &stop_requested;
    js.dist = d;
    js.sink = rank > 0 ? &null_sink : NULL;
    if (a.resume) {
        js.run_id = a.resume_id;
        js.resume_ckpt = a.claimed.resume_ckpt[0] ? a.claimed.resume_ckpt : NULL;
        js.resumed = 1;
    }
    /* mpirun forwards SIGUSR1 to every rank and keeps them alive (it kills
       them soon after forwarding SIGINT / SIGTERM) */
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGUSR1, on_signal);
    RunStatus ended = RUN_FAILED;
    rc = job_run(&js, &ended, err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    if (rc) return refuse(d, err);
    if (rank > 0) return ended == RUN_DONE ? 0 : ended == RUN_INTERRUPTED ? 130 : 1;
    if (ended != RUN_DONE) {
        /* a failed or diverged run says why; paused, cancelled, interrupted need not */
        int why = run_status_error(ended);
        cli_fail("run %lld %s%s%s", (long long)js.run_id, run_status_name(ended), why ? ": " : "", why ? err : "");
        return ended == RUN_INTERRUPTED ? 130 : 1;
    }
    if (js.observer) printf("run %lld done\n", (long long)js.run_id);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    Dist *d = NULL;
    char err[ERR_LEN];
    if (dist_init(&d, err)) return cli_fail("run: %s", err);
    int rc = run(d, argc, argv);
    dist_finalize(d);
    return rc;
}
