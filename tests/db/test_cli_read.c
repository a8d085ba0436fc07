/*
 * test_cli_read.c — the reads of `ls`, `show`, `queue` and `export`
 * (db/cli_read.h) on a small store: numbers come back as numbers, SQL NULL
 * as NAN / CLI_NO_COUNT / "", the status as RunStatus, the filters and
 * orders as documented, and the cells of a view with SQLite's own types.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "db/cli_read.h"
#include "db/runs_read.h"
#include "tests/test_util.h"

static Store *store;
static int64_t run_a, run_b, run_c;

static int64_t make_run(const char *name, const char *arch)
{
    char err[ERR_LEN] = "";
    RunInfo info = {.name = name, .arch = arch, .task = "clm", .data = "builtin:markov", .tokenizer = "word",
                    .config_json = "{\"arch\":\"x\",\"d\":64,\"lr\":0.001,\"tie\":true,\"none\":null}",
                    .n_params = 1234567, .n_params_nonembedding = 1000, .total_steps = 20, .seed = 1,
                    .threads = 1, .d = 64, .layers = 2, .heads = 4, .n_ctx = 32, .vocab = 500};
    int64_t id = 0;
    if (store_run_create(store, &info, &id, err)) printf("  create: %s\n", err);
    return id;
}

/* Run a: done with metrics, three splits at step 20 and a checkpoint; run b:
   the same name, diverged, no evaluation; run c: queued. */
static void fill_store(void)
{
    char err[ERR_LEN] = "";
    run_a = make_run("base", "attention");
    MetricRow m[2] = {{10, 2560, 1.0, 3.0, 3.5, 1e-3, 1.0, 2560.0}, {20, 5120, 2.0, 2.5, 3.0, 1e-3, 1.0, 2560.0}};
    EvalRow test = {20, "test", 2.75, 0.5, NAN, 4096, NAN};
    EvalRow valid = {20, "valid", 2.7, 0.52, NAN, 4096, NAN};
    EvalRow train = {20, "train", 2.6, 0.55, NAN, 4096, NAN};
    RunEnd end = {"done", NULL, 20, 5120, 2.0, 2560.0, 12.5, NAN, NAN};
    if (store_metrics_append(store, run_a, m, 2, err) || store_eval_add(store, run_a, &test, err) ||
        store_eval_add(store, run_a, &valid, err) || store_eval_add(store, run_a, &train, err) ||
        store_checkpoint_add(store, run_a, 20, "runs/a.safetensors", err) ||
        store_run_finish(store, run_a, &end, err))
        printf("  fill a: %s\n", err);
    run_b = make_run("base", "mixer");
    RunEnd div = {"diverged", "loss became NaN", 1, 256, 0.1, 2560.0, 10.0, NAN, NAN};
    if (store_metrics_append(store, run_b, m, 1, err) || store_run_finish(store, run_b, &div, err))
        printf("  fill b: %s\n", err);
    run_c = make_run(NULL, "attention");
    if (store_run_set_status(store, run_c, "queued", err)) printf("  fill c: %s\n", err);
}

static void test_runs_list(void)
{
    char err[ERR_LEN] = "";
    CliRunRow *rows = NULL;
    int n = 0;
    CHECK(cli_runs(store, RUN_STATUS_COUNT, NULL, &rows, &n, err) == 0, "%s", err);
    CHECK(n == 3, "%d runs", n);
    if (n == 3) {
        CHECK(rows[0].id == run_a && rows[0].status == RUN_DONE && !strcmp(rows[0].name, "base"), "first row");
        CHECK(rows[0].steps_done == 20 && rows[0].total_steps == 20, "steps %lld", (long long)rows[0].steps_done);
        CHECK(rows[0].train_loss == 3.0 && rows[0].valid_loss == 2.7 && rows[0].test_loss == 2.75, "losses");
        CHECK(rows[0].tokens_per_s == 2560.0 && strlen(rows[0].created_at) >= 16, "rate and time");
        CHECK(rows[1].status == RUN_DIVERGED && isnan(rows[1].test_loss), "diverged, no test loss");
        CHECK(rows[2].status == RUN_QUEUED && rows[2].name[0] == 0 && isnan(rows[2].train_loss), "queued");
    }
    free(rows);
    CHECK(cli_runs(store, RUN_DIVERGED, NULL, &rows, &n, err) == 0 && n == 1 && rows[0].id == run_b, "status filter");
    free(rows);
    CHECK(cli_runs(store, RUN_STATUS_COUNT, "attention", &rows, &n, err) == 0 && n == 2, "arch filter: %d", n);
    free(rows);
    CHECK(cli_runs(store, RUN_PAUSED, NULL, &rows, &n, err) == 0 && n == 0 && rows == NULL, "nothing paused");

    char *json = NULL;
    CHECK(cli_runs_json(store, RUN_DONE, NULL, &json, err) == 0 && json, "%s", err);
    CHECK(json && json[0] == '[' && strstr(json, "\"status\":\"done\"") && strstr(json, "\"test_loss\":2.75") &&
              !strstr(json, "diverged"),
          "json: %s", json ? json : "(null)");
    free(json);
}

static void test_run_detail(void)
{
    char err[ERR_LEN] = "";
    CliRunDetail d;
    int found = 0;
    CHECK(cli_run_detail(store, run_a, &d, &found, err) == 0 && found, "%s", err);
    CHECK(d.status == RUN_DONE && !strcmp(d.arch, "attention") && !strcmp(d.tokenizer, "word"), "text");
    CHECK(d.n_params == 1234567 && d.n_params_nonembedding == 1000 && d.tokens_seen == 5120, "counts");
    CHECK(d.peak_mem_mb == 12.5 && d.wall_seconds == 2.0 && isnan(d.infer_samples_per_s), "reals");
    CHECK(d.error[0] == 0 && d.started_at[0] && d.finished_at[0], "times");
    CHECK(cli_run_detail(store, run_b, &d, &found, err) == 0 && !strcmp(d.error, "loss became NaN"), "error");
    CHECK(cli_run_detail(store, run_c, &d, &found, err) == 0 && d.status == RUN_QUEUED && isnan(d.wall_seconds) &&
              d.finished_at[0] == 0,
          "queued run");
    CHECK(cli_run_detail(store, 999, &d, &found, err) == 0 && !found, "no run 999");

    int64_t id = -1;
    CHECK(cli_run_by_name(store, "base", &id, err) == 0 && id == run_b, "newest of the name: %lld", (long long)id);
    CHECK(cli_run_by_name(store, "nosuch", &id, err) == 0 && id == 0, "unknown name");

    char *json = NULL;
    CHECK(cli_run_json(store, run_a, &json, err) == 0 && json && strstr(json, "\"config\":{\"arch\"") &&
              strstr(json, "\"checkpoints\":[{\"step\":20"),
          "json: %s", json ? json : "(null)");
    free(json);
    CHECK(cli_run_json(store, 999, &json, err) == 0 && json == NULL, "no json for no run");
}

static void test_config_evals_checkpoints(void)
{
    char err[ERR_LEN] = "";
    RunConfigEntry *items = NULL;
    int n = 0;
    CHECK(runs_read_config(store, run_a, &items, &n, err) == 0 && n == 5, "%d items %s", n, err);
    if (n == 5) {
        CHECK(!strcmp(items[0].key, "arch") && !strcmp(items[0].value, "x"), "stored order");
        CHECK(!strcmp(items[2].value, "0.001") && !strcmp(items[3].value, "true") && !strcmp(items[4].value, "null"),
              "values: %s %s %s", items[2].value, items[3].value, items[4].value);
    }
    free(items);

    RunEval *evals = NULL;
    CHECK(runs_read_evals(store, run_a, 0, 0, &evals, &n, err) == 0 && n == 3, "%d evals %s", n, err);
    if (n == 3) {
        CHECK(!strcmp(evals[0].split, "train") && !strcmp(evals[1].split, "valid") && !strcmp(evals[2].split, "test"),
              "train, valid, test");
        CHECK(evals[2].loss == 2.75 && evals[2].n_tokens == 4096 && isnan(evals[2].bits_per_byte), "numbers");
        CHECK(fabs(evals[2].perplexity - exp(2.75)) < 1e-9, "perplexity %g", evals[2].perplexity);
    }
    free(evals);
    CHECK(runs_read_evals(store, run_c, 0, 0, &evals, &n, err) == 0 && n == 0, "none for a queued run");

    RunCheckpoint *ck = NULL;
    CHECK(runs_read_checkpoints(store, run_a, 0, 0, &ck, &n, err) == 0 && n == 1 && ck[0].step == 20 &&
              !strcmp(ck[0].path, "runs/a.safetensors"),
          "checkpoint");
    free(ck);
}

/* The column named name, or -1. */
static int column(DbRows *r, const char *name)
{
    for (int i = 0; i < db_rows_count(r); i++)
        if (!strcmp(db_rows_name(r, i), name)) return i;
    return -1;
}

static void test_export_and_queue(void)
{
    char err[ERR_LEN] = "";
    const char *keys[] = {"d", "tie", "lr"};
    DbRows *r = NULL;
    const DbValue *row = NULL;
    CHECK(cli_export_open(store, 0, NULL, keys, 3, &r, err) == 0 && r, "%s", err);
    if (!r) return;
    int id = column(r, "id"), loss = column(r, "test_loss"), arch = column(r, "arch"), d = column(r, "cfg_d"),
        tie = column(r, "cfg_tie"), coords = column(r, "coords");
    CHECK(id >= 0 && loss >= 0 && arch >= 0 && d >= 0 && tie >= 0 && coords >= 0, "columns");
    int rows = 0;
    while (db_rows_next(r, &row, err) == 0 && row) {
        if (rows++ == 0 && id >= 0 && loss >= 0 && arch >= 0 && d >= 0) {
            CHECK(row[id].type == DB_INT && row[id].i == run_a && !strcmp(row[id].text, "1"), "id");
            CHECK(row[loss].type == DB_REAL && row[loss].d == 2.75 && !strcmp(row[loss].text, "2.75"), "loss");
            CHECK(row[arch].type == DB_TEXT && !strcmp(row[arch].text, "attention"), "arch");
            CHECK(row[d].type == DB_INT && row[d].i == 64, "cfg_d from json_extract: type %d", row[d].type);
        } else if (rows == 2 && loss >= 0) {
            CHECK(row[loss].type == DB_NULL && row[loss].text == NULL, "NULL test loss");
        }
    }
    CHECK(rows == 3, "%d rows", rows);
    db_rows_close(r);

    const char *bad[] = {"d') --"};
    CHECK(cli_export_open(store, 0, NULL, bad, 1, &r, err) != 0 && strstr(err, "not a config key"), "%s", err);
    /* a sweep that is not there is an error, not an empty answer */
    r = NULL;
    CHECK(cli_export_open(store, 0, "nosweep", keys, 3, &r, err) != 0 && strstr(err, "no sweep nosweep") && !r,
          "no such sweep: %s", err);

    CHECK(cli_export_open(store, 1, NULL, NULL, 0, &r, err) == 0, "%s", err);
    rows = 0;
    int tl = column(r, "train_loss");
    while (db_rows_next(r, &row, err) == 0 && row)
        if (rows++ == 0) CHECK(tl >= 0 && row[tl].type == DB_REAL && row[tl].d == 3.0, "curve loss");
    CHECK(rows == 3, "%d curve rows", rows);
    db_rows_close(r);

    CHECK(cli_queue_open(store, &r, err) == 0, "%s", err);
    rows = 0;
    int st = column(r, "status"), rid = column(r, "id");
    while (db_rows_next(r, &row, err) == 0 && row) {
        rows++;
        CHECK(st >= 0 && rid >= 0 && !strcmp(row[st].text, "queued") && row[rid].i == run_c, "the queued run");
    }
    CHECK(rows == 1, "%d queued", rows);
    db_rows_close(r);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("cli-read")) return 1;
    char err[ERR_LEN] = "";
    if (store_open(db_path("cli.db"), &store, err)) {
        printf("FAIL store_open: %s\n", err);
        return 1;
    }
    fill_store();
    RUN(test_runs_list);
    RUN(test_run_detail);
    RUN(test_config_evals_checkpoints);
    RUN(test_export_and_queue);
    store_close(store);
    tmp_dir_remove();
    CHECK_EXIT();
}
