/*
 * test_answer_accuracy.c — the answer accuracy of a run on data that scores
 * only answers (builtin:mqar): a tiny store made by two real jobs (MQAR and
 * builtin:markov), whose MQAR run's answer accuracy, as `ls` (text and
 * JSON), `export` and the metric table (points.h PM_ANSWER_ACCURACY) read
 * it, equals
 * a hand count: its final checkpoint run window by window through the
 * inference path (engine/infer.h, not the trainer's evaluation), the
 * answers (scored tokens) of the test split counted right when their
 * argmax is the value.  The markov run has none; data_scores_answers names
 * exactly the three diagnostics.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cli_read.h"
#include "db/store.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/infer.h"
#include "experiments/job.h"
#include "experiments/points.h"
#include "tests/check.h"
#include "tests/test_util.h"

#define MQAR "builtin:mqar:pairs=2,vocab=16,examples=256,eval_examples=25"

/* Runs one job of args into db (its final checkpoint at save, if given). */
static int run_job(const char *db, const char *const *args, const char *save)
{
    JobSpec js;
    memset(&js, 0, sizeof js);
    js.db_path = db;
    js.save_path = save;
    if (tm_config(&js.config, args)) return -1;
    RunStatus status;
    char err[ERR_LEN] = "";
    if (job_run(&js, &status, err) || status != RUN_DONE) {
        printf("  job: %s\n", err);
        return -1;
    }
    return 0;
}

/* The hand count: the test split's answers right / all, by argmax of the
   checkpoint's logits; *close: answers whose top two logits are within
   1e-4, where another summation order may pick the other. */
static int hand_count(const char *ckpt, int64_t *right, int64_t *all, int64_t *close)
{
    Config c;
    Model m;
    Tokenizer *tok = NULL;
    Dataset ds;
    Infer *inf = NULL;
    char err[ERR_LEN] = "";
    config_defaults(&c);
    if (checkpoint_load(ckpt, &c, &m, &tok, err)) return printf("  load: %s\n", err), -1;
    snprintf(c.data, sizeof c.data, "%s", MQAR);
    int rc = dataset_load_config(&c, tok, &ds, err);
    if (!rc) rc = infer_create(&inf, &m, c.n_ctx, err);
    if (rc) printf("  %s\n", err);
    const TokenStream *s = &ds.split[SPLIT_TEST];
    int n = c.n_ctx, V = c.vocab;
    float *logits = rc ? NULL : malloc(sizeof(float) * (size_t)n * V);
    *right = *all = *close = 0;
    for (size_t w = 0; logits && s->scored && (w + 1) * n + 1 <= s->len; w++) {
        infer_window(inf, s->ids + w * n, 0, n, logits);
        for (int t = 0; t < n; t++) {
            if (!s->scored[w * n + t + 1]) continue;
            const float *row = logits + (size_t)t * V;
            int best = 0;
            for (int v = 1; v < V; v++) best = row[v] > row[best] ? v : best;
            float second = -INFINITY;
            for (int v = 0; v < V; v++) if (v != best && row[v] > second) second = row[v];
            *close += row[best] - second < 1e-4f;
            *right += best == s->ids[w * n + t + 1];
            (*all)++;
        }
    }
    rc = rc || !logits || !s->scored;
    free(logits);
    infer_free(inf);
    dataset_free(&ds);
    tokenizer_free(tok);
    model_free(&m);
    return rc ? -1 : 0;
}

static void test_answer_accuracy_hand_count(void)
{
    if (tmp_dir_make("answer_accuracy")) return;
    char db[300], ckpt[300];
    snprintf(db, sizeof db, "%s/tiny.db", tmp_dir);
    snprintf(ckpt, sizeof ckpt, "%s/mqar.safetensors", tmp_dir);
    /* enough steps that some answers are right and some wrong */
    const char *mqar[] = {"arch=attention", "data=" MQAR, "n_ctx=8", "d=16", "heads=2", "layers=1", "batch=16",
                          "steps=60", "lr=0.01", "warmup=5", "threads=1", "init=fan_in", "emb_std=1", NULL};
    const char *markov[] = {"arch=attention", "data=builtin:markov", "n_ctx=8", "d=8", "heads=1", "layers=1",
                            "batch=2", "steps=2", "threads=1", NULL};
    CHECK(run_job(db, mqar, ckpt) == 0 && run_job(db, markov, NULL) == 0, "the two jobs");
    int64_t right = 0, all = 0, close = 0;
    CHECK(hand_count(ckpt, &right, &all, &close) == 0, "hand count");
    CHECK(all == 25 * 2, "%lld answers, want 25 examples x 2 queries", (long long)all);
    double hand = all ? (double)right / (double)all : NAN;
    printf("  hand count: %lld of %lld answers right (%lld within 1e-4 of a tie)\n", (long long)right,
           (long long)all, (long long)close);

    Store *s = NULL;
    char err[ERR_LEN] = "";
    CHECK(store_open(db, &s, err) == 0, "open: %s", err);
    CliRunRow *rows = NULL;
    int n = 0;
    CHECK(s && cli_runs(s, RUN_STATUS_COUNT, NULL, &rows, &n, err) == 0 && n == 2, "ls rows: %d %s", n, err);
    if (n == 2) {
        /* equal to the count, up to the answers a summation order may flip */
        CHECK(fabs(rows[0].answer_accuracy - hand) * all <= close + 1e-9, "ls: answer accuracy %.6f, hand %.6f",
              rows[0].answer_accuracy, hand);
        CHECK(isnan(rows[1].answer_accuracy), "markov: answer accuracy %g", rows[1].answer_accuracy);
        ResultRun r;
        memset(&r, 0, sizeof r);
        snprintf(r.data, sizeof r.data, "%s", rows[0].data);
        r.test_accuracy = rows[0].answer_accuracy;
        CHECK(result_metric(&r, PM_ANSWER_ACCURACY) == rows[0].answer_accuracy, "metric table");
        snprintf(r.data, sizeof r.data, "%s", rows[1].data);
        CHECK(isnan(result_metric(&r, PM_ANSWER_ACCURACY)), "metric table: markov");
        CHECK(headline_metric(NULL, &r, 1) == PM_TEST_LOSS, "markov's headline");
        snprintf(r.data, sizeof r.data, "%s", rows[0].data);
        CHECK(headline_metric(NULL, &r, 1) == PM_ANSWER_ACCURACY, "mqar's headline");
    }
    char *json = NULL;
    CHECK(s && cli_runs_json(s, RUN_STATUS_COUNT, NULL, &json, err) == 0 && json, "ls --json: %s", err);
    CHECK(json && strstr(json, "\"answer_accuracy\":null") && strstr(json, "\"answer_accuracy\":0."),
          "ls --json: %.300s", json ? json : "");
    free(json);
    /* export: the answer_accuracy column, empty for the markov run */
    DbRows *ex = NULL;
    const char *keys[] = {"arch"};
    CHECK(s && cli_export_open(s, 0, NULL, keys, 1, &ex, err) == 0, "export: %s", err);
    int col = -1, n_ex = 0;
    for (int c = 0; ex && c < db_rows_count(ex); c++)
        if (!strcmp(db_rows_name(ex, c), "answer_accuracy")) col = c;
    const DbValue *row;
    while (ex && col >= 0 && db_rows_next(ex, &row, err) == 0 && row) {
        if (n_ex == 0 && n == 2)
            CHECK(row[col].type == DB_REAL && row[col].d == rows[0].answer_accuracy, "export: %s", row[col].text);
        if (n_ex == 1) CHECK(row[col].type == DB_NULL, "export: markov's answer_accuracy %s", row[col].text);
        n_ex++;
    }
    CHECK(col >= 0 && n_ex == 2, "export: column %d, %d rows", col, n_ex);
    db_rows_close(ex);
    free(rows);
    store_close(s);
    tmp_dir_remove();
}

static void test_scores_answers(void)
{
    static const struct {
        const char *spec;
        int want;
    } cases[] = {{"builtin:mqar", 1},           {"builtin:mqar:pairs=4", 1},   {"builtin:copy:length=8", 1},
                 {"builtin:selective-copy", 1}, {"builtin:stories", 0},        {"builtin:markov", 0},
                 {"builtin:mqarx", 0},          {"../shared/data/ptb", 0},     {"mqar", 0},
                 {"", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(data_scores_answers(cases[i].spec) == cases[i].want, "%s", cases[i].spec);
    CHECK(!data_scores_answers(NULL), "NULL");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_scores_answers);
    RUN(test_answer_accuracy_hand_count);
    CHECK_EXIT();
}
