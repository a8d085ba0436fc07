/*
 * test_runs_read.c — the typed reads of db/runs_read.h on a small store
 * built here: numbers come back as numbers (SQL NULL as NAN), the status as
 * a RunStatus, the config as key/value text in its order, evaluations and
 * checkpoints newest first, curve points past a step, seed groups (inside
 * and outside a sweep) and Compare's finished runs of the latest sweep.
 */
#include "db/runs_read.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <stdlib.h>
#include <string.h>

/* A run of the given config; steps metric rows, the smoothed loss NULL at
   step 2; done when finish is set. */
static int64_t add_run(Store *s, const char *config, int64_t seed, int steps, int finish)
{
    char err[ERR_LEN] = "";
    RunInfo info = {
        .name = "r", .arch = "attention", .task = "clm", .data = "builtin:stories", .tokenizer = "word",
        .config_json = config, .n_params = 123456, .n_params_nonembedding = 100000,
        .total_steps = 10, .seed = seed, .threads = 2, .d = 16, .layers = 1, .heads = 2, .n_ctx = 8, .vocab = 50,
    };
    int64_t run = 0;
    CHECK(store_run_create(s, &info, &run, err) == 0, "%s", err);
    MetricRow rows[10];
    for (int i = 0; i < steps && i < 10; i++)
        rows[i] = (MetricRow){
            .step = i + 1, .tokens = 32 * (i + 1), .wall = 0.5 * (i + 1), .train_loss = 4.0 - 0.1 * i,
            .train_loss_smooth = i == 1 ? NAN : 4.5 - 0.1 * i, .lr = 1e-3, .grad_norm = 1, .tokens_per_s = 64,
        };
    if (steps > 0) CHECK(store_metrics_append(s, run, rows, steps, err) == 0, "%s", err);
    if (finish) {
        EvalRow v5 = {5, "valid", 3.5, 0.25, NAN, 100, NAN};
        EvalRow v10 = {10, "valid", 3.25, 0.5, NAN, 100, NAN};
        EvalRow t10 = {10, "test", 3.0, 0.75, NAN, 100, 2.5};
        CHECK(store_eval_add(s, run, &v5, err) == 0 && store_eval_add(s, run, &v10, err) == 0 &&
                  store_eval_add(s, run, &t10, err) == 0, "%s", err);
        CHECK(store_checkpoint_add(s, run, 5, "runs/x/step5.safetensors", err) == 0 &&
                  store_checkpoint_add(s, run, 10, "runs/x/last.safetensors", err) == 0, "%s", err);
        RunEnd end = {"done", NULL, steps, 32 * steps, 5.0, 64.0, 1.0, NAN, NAN};
        CHECK(store_run_finish(s, run, &end, err) == 0, "%s", err);
    }
    return run;
}

#define CONFIG(LR, SEED, THREADS)                                                                  \
    "{\"arch\":\"attention\",\"d\":16,\"lr\":" LR ",\"seed\":" SEED ",\"threads\":" THREADS        \
    ",\"data\":\"builtin:stories\",\"tie\":true,\"extra\":[1,2],\"none\":null}"

/* Runs 1-2: one seed group outside a sweep (seed, threads and bookkeeping
   keys differ), 3: a
   different lr, 4: running without metrics, 5-7: a sweep (5 and 6 seeds of
   one point, 7 another point; 5 and 7 done). */
static Store *build(const char *name)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path(name), &s, err) == 0, "%s", err);
    if (!s) return NULL;
    add_run(s, CONFIG("0.001", "1", "2"), 1, 10, 1);
    add_run(s, CONFIG("0.001", "2", "4"), 2, 10, 1);
    add_run(s, CONFIG("0.002", "1", "2"), 1, 10, 1);
    add_run(s, CONFIG("0.003", "1", "2"), 1, 0, 0);
    for (int i = 0; i < 3; i++) add_run(s, CONFIG("0.001", "1", "1"), 1, 10, i != 1);
    CHECK(store_query(s,
                      "INSERT INTO sweeps (name, spec) VALUES ('grid', 'lr=1,2');"
                      "UPDATE runs SET sweep_id = 1, coords_json = '{\"lr\":\"1\",\"seed\":\"1\"}' WHERE id = 5;"
                      "UPDATE runs SET sweep_id = 1, coords_json = '{\"lr\":\"1\",\"seed\":\"2\"}' WHERE id = 6;"
                      "UPDATE runs SET sweep_id = 1, coords_json = '{\"lr\":\"2\",\"seed\":\"1\"}' WHERE id = 7;"
                      "UPDATE runs SET status = 'queued' WHERE id = 6;"
                      /* bookkeeping keys (config_key_bookkeeping) do not separate runs */
                      "UPDATE runs SET config_json = json_set(config_json, '$.eval_every', 50, '$.log_every', 7,"
                      " '$.ckpt_minutes', 3) WHERE id = 2;"
                      "INSERT INTO datasets (data, tokenizer, vocab, train_tokens, unigram_nats, unigram_bits)"
                      " VALUES ('builtin:stories', 'word', 50, 1000, 3.3, 4.76);",
                      NULL, NULL, err) == 0,
          "%s", err);
    return s;
}

static void test_summary(void)
{
    char err[ERR_LEN] = "";
    Store *s = build("summary.db");
    if (!s) return;
    RunSummary *runs = NULL;
    int n = 0;
    CHECK(runs_read_all(s, &runs, &n, err) == 0, "%s", err);
    CHECK(n == 7, "%d runs", n);
    if (n == 7) {
        const RunSummary *a = &runs[0], *q = &runs[3];
        CHECK(a->id == 1 && !strcmp(a->arch, "attention") && !strcmp(a->data, "builtin:stories"), "run 1");
        CHECK(a->status == RUN_DONE && q->status == RUN_RUNNING && runs[5].status == RUN_QUEUED, "statuses");
        CHECK(a->steps_done == 10 && a->total_steps == 10 && a->tokens_seen == 320, "counts");
        CHECK(a->n_params == 123456 && a->n_params_nonembedding == 100000 && a->threads == 2, "params");
        CHECK(fabs(a->train_loss - 3.6) < 1e-12 && a->best_valid_loss == 3.25 && a->valid_loss == 3.25, "losses");
        CHECK(a->test_loss == 3.0 && a->test_accuracy == 0.75 && a->test_loss_all == 2.5, "test");
        CHECK(isnan(a->valid_loss_all), "no valid loss_all: %g", a->valid_loss_all);
        CHECK(a->tokens_per_s == 64 && a->run_tokens_per_s == 64 && a->wall_seconds == 5, "speed");
        CHECK(a->unigram_nats == 3.3 && fabs(a->unigram_gap - 0.05) < 1e-12 && a->not_learning, "unigram");
        /* a run with nothing measured: NAN, not 0 */
        CHECK(isnan(q->train_loss) && isnan(q->valid_loss) && isnan(q->test_loss) && isnan(q->best_valid_loss) &&
                  isnan(q->run_tokens_per_s) && isnan(q->tokens_per_s) && !q->not_learning,
              "missing numbers %g %g %g", q->train_loss, q->valid_loss, q->tokens_per_s);
        CHECK(a->sweep_id == 0 && a->sweep[0] == 0 && a->coords[0] == 0, "no sweep");
        CHECK(runs[4].sweep_id == 1 && !strcmp(runs[4].sweep, "grid") && !strcmp(runs[4].coords, "lr=1 seed=1"),
              "sweep %lld %s %s", (long long)runs[4].sweep_id, runs[4].sweep, runs[4].coords);
        /* seed groups: seed and threads left out of a config, seed of coords */
        CHECK(runs[0].seed_group == runs[1].seed_group, "1 and 2 differ only in seed");
        CHECK(runs[0].seed_group != runs[2].seed_group, "1 and 3 differ in lr");
        CHECK(runs[4].seed_group == runs[5].seed_group && runs[4].seed_group != runs[6].seed_group, "sweep");
        CHECK(runs[4].seed_group != runs[0].seed_group, "a sweep's run and a lone run");
        CHECK(runs[1].seed == 2, "seed %lld", (long long)runs[1].seed);
    }
    free(runs);

    RunSummary one;
    int found = 0;
    CHECK(runs_read_one(s, 3, &one, &found, err) == 0 && found && one.id == 3 && one.valid_loss == 3.25, "%s", err);
    CHECK(runs_read_one(s, 99, &one, &found, err) == 0 && !found, "run 99 found");
    int64_t latest = 0;
    CHECK(runs_read_latest_id(s, &latest, err) == 0 && latest == 7, "latest %lld", (long long)latest);
    store_close(s);

    CHECK(store_open(db_path("empty.db"), &s, err) == 0, "%s", err);
    CHECK(runs_read_all(s, &runs, &n, err) == 0 && n == 0 && runs == NULL, "empty store");
    CHECK(runs_read_latest_id(s, &latest, err) == 0 && latest == 0, "latest %lld", (long long)latest);
    store_close(s);
}

static void test_tables(void)
{
    char err[ERR_LEN] = "";
    Store *s = build("tables.db");
    if (!s) return;
    RunConfigEntry *cfg = NULL;
    int n = 0;
    CHECK(runs_read_config(s, 1, &cfg, &n, err) == 0, "%s", err);
    /* strings, numbers and booleans in order, flagged scalar; the array and the null are not */
    const char *want[][2] = {{"arch", "attention"}, {"d", "16"}, {"lr", "0.001"}, {"seed", "1"},
                             {"threads", "2"},     {"data", "builtin:stories"}, {"tie", "true"}};
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!cfg[i].scalar) continue;
        CHECK(k < 7 && !strcmp(cfg[i].key, want[k][0]) && !strcmp(cfg[i].value, want[k][1]), "%d: %s=%s", k,
              cfg[i].key, cfg[i].value);
        k++;
    }
    CHECK(k == 7 && n == 9, "%d scalar entries of %d", k, n);
    for (int i = 0; i < n; i++)
        if (!strcmp(cfg[i].key, "lr")) CHECK(cfg[i].number == 0.001, "lr as a number: %g", cfg[i].number);
        else if (!strcmp(cfg[i].key, "arch")) CHECK(isnan(cfg[i].number), "a string is no number");
    free(cfg);

    RunEval *ev = NULL;
    CHECK(runs_read_evals(s, 1, 1, 0, &ev, &n, err) == 0 && n == 3, "%d evals %s", n, err);
    if (n == 3) {
        CHECK(ev[0].step == 10 && !strcmp(ev[0].split, "test") && ev[0].loss == 3.0 && ev[0].loss_all == 2.5, "test");
        CHECK(ev[1].step == 10 && !strcmp(ev[1].split, "valid") && isnan(ev[1].loss_all), "valid 10");
        CHECK(ev[2].step == 5 && ev[2].accuracy == 0.25 && fabs(ev[2].perplexity - exp(3.5)) < 1e-9, "valid 5 %g",
              ev[2].perplexity);
    }
    free(ev);
    CHECK(runs_read_evals(s, 1, 1, 1, &ev, &n, err) == 0 && n == 1 && ev[0].step == 10, "limit");
    free(ev);
    CHECK(runs_read_evals(s, 1, 0, 0, &ev, &n, err) == 0 && n == 3 && ev[0].step == 5 && ev[2].step == 10,
          "oldest first");
    free(ev);
    CHECK(runs_read_evals(s, 4, 1, 0, &ev, &n, err) == 0 && n == 0 && ev == NULL, "run 4 evals");

    RunCheckpoint *ck = NULL;
    CHECK(runs_read_checkpoints(s, 1, 1, 0, &ck, &n, err) == 0 && n == 2, "%d checkpoints", n);
    if (n == 2) CHECK(ck[0].step == 10 && !strcmp(ck[0].path, "runs/x/last.safetensors") && ck[1].step == 5, "order");
    free(ck);
    store_close(s);
}

static void test_groups(void)
{
    char err[ERR_LEN] = "";
    Store *s = build("groups.db");
    if (!s) return;
    int64_t ids[8];
    int n = 0;
    CHECK(runs_read_seed_group(s, 2, ids, 8, &n, err) == 0 && n == 2 && ids[0] == 1 && ids[1] == 2, "group of 2");
    CHECK(runs_read_seed_group(s, 3, ids, 8, &n, err) == 0 && n == 1 && ids[0] == 3, "group of 3");
    CHECK(runs_read_seed_group(s, 5, ids, 8, &n, err) == 0 && n == 2 && ids[0] == 5 && ids[1] == 6, "group of 5");
    CHECK(runs_read_seed_group(s, 7, ids, 8, &n, err) == 0 && n == 1 && ids[0] == 7, "group of 7");
    CHECK(runs_read_seed_group(s, 1, ids, 1, &n, err) == 0 && n == 1, "cap");
    CHECK(runs_read_seed_group(s, 1, ids, 0, &n, err) == -1, "no room");

    int64_t sweep = -1;
    char name[64];
    CHECK(runs_read_last_finished(s, ids, 8, &n, &sweep, name, err) == 0, "%s", err);
    CHECK(n == 2 && ids[0] == 7 && ids[1] == 5 && sweep == 1 && !strcmp(name, "grid"), "%d: %lld %s", n,
          (long long)sweep, name);
    CHECK(exec_sql(s, "UPDATE runs SET status = 'failed' WHERE sweep_id = 1") == 0, "failed");
    CHECK(runs_read_last_finished(s, ids, 2, &n, &sweep, name, err) == 0, "%s", err);
    CHECK(n == 2 && ids[0] == 3 && ids[1] == 2 && sweep == 0 && name[0] == 0, "no sweep: %d %lld", n, (long long)ids[0]);
    store_close(s);
}

static void test_curves(void)
{
    char err[ERR_LEN] = "";
    Store *s = build("curves.db");
    if (!s) return;
    RunCurvePoint *p = NULL;
    int n = 0;
    CHECK(runs_read_curve(s, 1, RUN_CURVE_TRAIN_RAW, 0, 0, &p, &n, err) == 0 && n == 10, "%d raw", n);
    if (n == 10) CHECK(p[0].step == 1 && p[0].tokens == 32 && p[0].wall == 0.5 && p[0].value == 4.0, "raw 1");
    free(p);
    CHECK(runs_read_curve(s, 1, RUN_CURVE_TRAIN_SMOOTH, 0, 3, &p, &n, err) == 0 && n == 3, "%d smooth", n);
    if (n == 3) CHECK(p[0].value == 4.5 && isnan(p[1].value) && p[1].step == 2 && p[1].tokens == 64, "NULL is NAN");
    free(p);
    CHECK(runs_read_curve(s, 1, RUN_CURVE_TRAIN_SMOOTH, 8, 0, &p, &n, err) == 0 && n == 2 && p[0].step == 9, "after");
    free(p);
    CHECK(runs_read_curve(s, 1, RUN_CURVE_VALID, 0, 0, &p, &n, err) == 0 && n == 2, "%d valid", n);
    if (n == 2)
        CHECK(p[0].step == 5 && p[0].tokens == 160 && p[0].wall == 2.5 && p[0].value == 3.5 && p[1].value == 3.25,
              "valid points");
    free(p);
    CHECK(runs_read_curve(s, 4, RUN_CURVE_TRAIN_RAW, 0, 0, &p, &n, err) == 0 && n == 0 && p == NULL, "no metrics");
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("runs-read")) return 1;
    RUN(test_summary);
    RUN(test_tables);
    RUN(test_groups);
    RUN(test_curves);
    tmp_dir_remove();
    CHECK_EXIT();
}
