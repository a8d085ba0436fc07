/*
 * test_store.c — the SQLite store (db/store.c): creating and migrating a
 * file, round trips of runs, metrics, evaluations and checkpoints, the
 * results and curves views, reopening, foreign keys, refusing a store newer
 * than the binary, and WAL mode.
 *
 * Not for: concurrent readers and writers in separate processes
 * (tests/db/test_store_cli.sh does that with the sqlite3 CLI).
 */
#include "db/store.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static RunInfo sample_info(void)
{
    RunInfo info = {
        .name = "baseline",
        .arch = "attention", .task = "clm", .data = "markov", .tokenizer = "word",
        .config_json = "{\"arch\":\"attention\",\"d\":64,\"lr\":0.001}",
        .n_params = 123456, .n_params_nonembedding = 100000,
        .total_steps = 100, .seed = 7, .threads = 2,
        .d = 64, .layers = 2, .heads = 4, .n_ctx = 32, .vocab = 500,
    };
    return info;
}

/* A run with 100 metric rows, valid evals at 50 and 100, a test eval at
   100, and a finish. */
static int64_t fill_run(Store *s)
{
    char err[ERR_LEN] = "";
    RunInfo info = sample_info();
    int64_t run = 0;
    CHECK(store_run_create(s, &info, &run, err) == 0, "%s", err);
    MetricRow rows[100];
    for (int i = 0; i < 100; i++) {
        rows[i] = (MetricRow){
            .step = i + 1, .tokens = (i + 1) * 256, .wall = 0.1 * (i + 1),
            .train_loss = 6.0 - 0.03 * i, .train_loss_smooth = 6.5 - 0.03 * i,
            .lr = 1e-3, .grad_norm = 1.5, .tokens_per_s = 2560.0,
        };
    }
    CHECK(store_metrics_append(s, run, rows, 50, err) == 0, "%s", err);
    CHECK(store_metrics_append(s, run, rows + 50, 50, err) == 0, "%s", err);
    EvalRow v50 = {50, "valid", 4.5, 0.25, NAN, 1000, NAN};
    EvalRow v100 = {100, "valid", 4.75, 0.30, NAN, 1000, NAN};
    EvalRow t100 = {100, "test", 4.0, 0.35, 1.25, 2000, NAN};
    CHECK(store_eval_add(s, run, &v50, err) == 0, "%s", err);
    CHECK(store_eval_add(s, run, &v100, err) == 0, "%s", err);
    CHECK(store_eval_add(s, run, &t100, err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, run, 50, "runs/1/last.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, run, 100, "runs/1/last.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, run, 50, "runs/1/best.safetensors", err) == 0, "%s", err);
    RunEnd end = {"done", NULL, 100, 25600, 10.0, 2560.0, 42.5, NAN, NAN};
    CHECK(store_run_finish(s, run, &end, err) == 0, "%s", err);
    return run;
}

static void test_create_migrate(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("create.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    int version = -1;
    CHECK(store_schema_version(s, &version, err) == 0, "%s", err);
    CHECK(version == store_schema_latest() && version >= 1, "version %d", version);
    const char *objects[] = {"runs", "metrics", "evals", "checkpoints", "results", "curves"};
    for (int i = 0; i < 6; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE name = '%s'",
                 objects[i]);
        CHECK(query_num(s, sql) == 1, "%s missing", objects[i]);
    }
    CHECK(strcmp(query1(s, "PRAGMA foreign_keys").text, "1") == 0, "foreign keys off");
    CHECK(strcmp(query1(s, "PRAGMA synchronous").text, "1") == 0, "synchronous not NORMAL");
    store_close(s);
}

static void test_wal_mode(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("wal.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    CHECK(strcmp(query1(s, "PRAGMA journal_mode").text, "wal") == 0, "journal mode %s",
          query1(s, "PRAGMA journal_mode").text);
    store_close(s);
    /* WAL is a property of the file: a plain connection sees it too. */
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(db_path("wal.db"), &db) == SQLITE_OK, "open");
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK, "prepare");
    CHECK(sqlite3_step(st) == SQLITE_ROW, "step");
    CHECK(strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0, "not wal");
    CHECK(sqlite3_finalize(st) == SQLITE_OK, "finalize");
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");
}

static void test_run_round_trip(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("run.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    RunInfo info = sample_info();
    int64_t a = 0, b = 0;
    CHECK(store_run_create(s, &info, &a, err) == 0, "%s", err);
    info.name = NULL;
    info.arch = "pairconnect";
    CHECK(store_run_create(s, &info, &b, err) == 0, "%s", err);
    CHECK(a >= 1 && b == a + 1, "ids %lld %lld", (long long)a, (long long)b);

    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT name || '|' || status || '|' || arch || '|' || task || '|' || data || '|'"
             " || tokenizer || '|' || d || '|' || layers || '|' || heads || '|' || n_ctx || '|'"
             " || vocab || '|' || seed || '|' || threads || '|' || total_steps FROM runs"
             " WHERE id = %lld", (long long)a);
    CHECK(strcmp(query1(s, sql).text,
                 "baseline|running|attention|clm|markov|word|64|2|4|32|500|7|2|100") == 0,
          "got %s", query1(s, sql).text);
    snprintf(sql, sizeof sql, "SELECT n_params || ',' || n_params_nonembedding ||"
             " ',' || json_extract(config_json, '$.lr') FROM runs WHERE id = %lld", (long long)a);
    CHECK(strcmp(query1(s, sql).text, "123456,100000,0.001") == 0, "got %s", query1(s, sql).text);
    snprintf(sql, sizeof sql, "SELECT created_at FROM runs WHERE id = %lld", (long long)a);
    FirstValue created = query1(s, sql);
    /* ISO-8601 UTC: 2024-01-02T03:04:05.678Z */
    CHECK(strlen(created.text) == 24 && created.text[10] == 'T' && created.text[23] == 'Z',
          "created_at %s", created.text);
    snprintf(sql, sizeof sql, "SELECT started_at = created_at FROM runs WHERE id = %lld",
             (long long)a);
    CHECK(query_num(s, sql) == 1, "started_at");
    snprintf(sql, sizeof sql, "SELECT name IS NULL FROM runs WHERE id = %lld", (long long)b);
    CHECK(query_num(s, sql) == 1, "NULL name");

    int exists = -1;
    CHECK(store_run_exists(s, a, &exists, err) == 0 && exists == 1, "exists %d", exists);
    CHECK(store_run_exists(s, 999, &exists, err) == 0 && exists == 0, "exists %d", exists);

    RunEnd end = {"diverged", "loss is NaN at step 17", 17, 4352, 1.5, 2901.0, NAN, NAN, NAN};
    CHECK(store_run_finish(s, b, &end, err) == 0, "%s", err);
    snprintf(sql, sizeof sql, "SELECT status || '|' || error || '|' || steps_done || '|' ||"
             " tokens_seen || '|' || tokens_per_s || '|' || (peak_mem_mb IS NULL) || '|' ||"
             " (finished_at IS NOT NULL) FROM runs WHERE id = %lld", (long long)b);
    CHECK(strcmp(query1(s, sql).text, "diverged|loss is NaN at step 17|17|4352|2901.0|1|1") == 0,
          "got %s", query1(s, sql).text);

    RunEnd bad = {"running", NULL, 0, 0, 0, 0, 0, NAN, NAN};
    CHECK(store_run_finish(s, a, &bad, err) == -1 && strstr(err, "not running"), "%s", err);
    RunEnd ok = {"done", NULL, 0, 0, 0, 0, 0, NAN, NAN};
    CHECK(store_run_finish(s, 999, &ok, err) == -1 && strstr(err, "no such run"), "%s", err);
    CHECK(store_run_set_status(s, a, "paused", err) == 0, "%s", err);
    snprintf(sql, sizeof sql, "SELECT status FROM runs WHERE id = %lld", (long long)a);
    CHECK(strcmp(query1(s, sql).text, "paused") == 0, "got %s", query1(s, sql).text);
    CHECK(store_run_set_status(s, a, "sleeping", err) == -1 && strstr(err, "sleeping"), "%s", err);
    info.arch = NULL;
    CHECK(store_run_create(s, &info, &b, err) == -1 && strstr(err, "arch"), "%s", err);
    info.arch = "attention";
    info.config_json = "{not json";
    CHECK(store_run_create(s, &info, &b, err) == -1, "invalid config_json accepted");
    store_close(s);
}

static void test_metrics_evals_checkpoints(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("metrics.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    int64_t run = fill_run(s);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM metrics WHERE run_id = %lld", (long long)run);
    CHECK(query_num(s, sql) == 100, "metric rows");
    snprintf(sql, sizeof sql, "SELECT step || '|' || tokens || '|' || wall || '|' || train_loss"
             " || '|' || train_loss_smooth || '|' || lr || '|' || grad_norm || '|' ||"
             " tokens_per_s FROM metrics WHERE run_id = %lld AND step = 11", (long long)run);
    CHECK(strcmp(query1(s, sql).text, "11|2816|1.1|5.7|6.2|0.001|1.5|2560.0") == 0, "got %s",
          query1(s, sql).text);

    /* A resumed run rewrites steps: the row is replaced, progress stays. */
    MetricRow again = {.step = 11, .tokens = 2816, .wall = 20.0, .train_loss = 1.0,
                       .train_loss_smooth = 1.0, .lr = NAN, .grad_norm = INFINITY,
                       .tokens_per_s = NAN};
    CHECK(store_metrics_append(s, run, &again, 1, err) == 0, "%s", err);
    snprintf(sql, sizeof sql, "SELECT train_loss || '|' || (lr IS NULL) || '|' ||"
             " (grad_norm IS NULL) FROM metrics WHERE run_id = %lld AND step = 11",
             (long long)run);
    CHECK(strcmp(query1(s, sql).text, "1.0|1|1") == 0, "got %s", query1(s, sql).text);
    snprintf(sql, sizeof sql, "SELECT steps_done FROM runs WHERE id = %lld", (long long)run);
    CHECK(query_num(s, sql) == 100, "steps_done %g", query_num(s, sql));

    snprintf(sql, sizeof sql, "SELECT split || '|' || loss || '|' || n_tokens || '|' ||"
             " (bits_per_byte IS NULL) FROM evals WHERE run_id = %lld AND step = 50",
             (long long)run);
    CHECK(strcmp(query1(s, sql).text, "valid|4.5|1000|1") == 0, "got %s", query1(s, sql).text);
    snprintf(sql, sizeof sql, "SELECT perplexity FROM evals WHERE run_id = %lld AND"
             " split = 'test'", (long long)run);
    CHECK(fabs(query_num(s, sql) - exp(4.0)) < 1e-9, "perplexity %g", query_num(s, sql));
    EvalRow bad = {1, "dev", 1.0, 0.0, NAN, 1, NAN};
    CHECK(store_eval_add(s, run, &bad, err) == -1 && strstr(err, "dev"), "%s", err);

    snprintf(sql, sizeof sql, "SELECT group_concat(step || ':' || path, ',') FROM"
             " (SELECT * FROM checkpoints WHERE run_id = %lld ORDER BY path)", (long long)run);
    CHECK(strcmp(query1(s, sql).text, "50:runs/1/best.safetensors,100:runs/1/last.safetensors")
          == 0, "got %s", query1(s, sql).text);

    double *steps = NULL, *loss = NULL;
    int n = 0;
    CHECK(store_run_curve(s, run, &steps, &loss, &n, err) == 0, "%s", err);
    CHECK(n == 100 && steps && loss, "n %d", n);
    if (n == 100) {
        CHECK(steps[0] == 1 && steps[99] == 100, "steps %g %g", steps[0], steps[99]);
        CHECK(fabs(loss[0] - 6.5) < 1e-12 && fabs(loss[99] - (6.5 - 2.97)) < 1e-12,
              "loss %g %g", loss[0], loss[99]);
    }
    free(steps);
    free(loss);
    CHECK(store_run_series(s, run, STORE_SERIES_VALID_LOSS, &steps, &loss, &n, err) == 0, "%s",
          err);
    CHECK(n == 2 && steps[0] == 50 && loss[1] == 4.75, "valid series n %d", n);
    free(steps);
    free(loss);
    CHECK(store_run_series(s, run, STORE_SERIES_LR, &steps, &loss, &n, err) == 0, "%s", err);
    CHECK(n == 99, "lr rows without NULL: %d", n);
    free(steps);
    free(loss);
    CHECK(store_run_series(s, 12345, STORE_SERIES_TRAIN_LOSS, &steps, &loss, &n, err) == 0 &&
          n == 0 && !steps && !loss, "unknown run gives an empty series");
    store_close(s);
}

static void test_views(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("views.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    int64_t run = fill_run(s);
    char sql[600];
    snprintf(sql, sizeof sql,
             "SELECT status || '|' || arch || '|' || d || '|' || n_params || '|' || steps_done"
             " || '|' || tokens_seen || '|' || printf('%%.2f', train_loss) || '|' ||"
             " printf('%%.2f', train_loss_raw) || '|' || best_valid_loss || '|' || valid_loss"
             " || '|' || valid_accuracy || '|' || test_loss || '|' || test_accuracy || '|' ||"
             " test_bits_per_byte || '|' || tokens_per_s || '|' || wall_seconds || '|' ||"
             " peak_mem_mb FROM results WHERE id = %lld", (long long)run);
    CHECK(strcmp(query1(s, sql).text, "done|attention|64|123456|100|25600|3.53|3.03|4.5|4.75|"
                 "0.3|4.0|0.35|1.25|2560.0|10.0|42.5") == 0, "got %s", query1(s, sql).text);
    snprintf(sql, sizeof sql, "SELECT test_perplexity FROM results WHERE id = %lld",
             (long long)run);
    CHECK(fabs(query_num(s, sql) - exp(4.0)) < 1e-9, "test_perplexity %g", query_num(s, sql));

    /* A run with no metrics or evals still has its row, with NULLs. */
    RunInfo info = sample_info();
    int64_t empty = 0;
    CHECK(store_run_create(s, &info, &empty, err) == 0, "%s", err);
    snprintf(sql, sizeof sql, "SELECT (train_loss IS NULL) + (valid_loss IS NULL) +"
             " (test_loss IS NULL) + (tokens_per_s IS NULL) FROM results WHERE id = %lld",
             (long long)empty);
    CHECK(query_num(s, sql) == 4, "empty run row");
    CHECK(query_num(s, "SELECT count(*) FROM results") == 2, "one row per run");

    snprintf(sql, sizeof sql, "SELECT count(*) || '|' || count(valid_loss) || '|' ||"
             " group_concat(CASE WHEN valid_loss IS NOT NULL THEN step || '=' || valid_loss END)"
             " FROM curves WHERE run_id = %lld", (long long)run);
    CHECK(strcmp(query1(s, sql).text, "100|2|50=4.5,100=4.75") == 0, "got %s",
          query1(s, sql).text);
    snprintf(sql, sizeof sql, "SELECT tokens || '|' || train_loss_smooth FROM curves"
             " WHERE run_id = %lld AND step = 1", (long long)run);
    CHECK(strcmp(query1(s, sql).text, "256|6.5") == 0, "got %s", query1(s, sql).text);
    store_close(s);
}

static void test_reopen(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    const char *path = db_path("reopen.db");
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s)
        return;
    int64_t run = fill_run(s);
    store_close(s);
    s = NULL;
    CHECK(store_open_existing(path, &s, err) == 0, "%s", err);
    if (!s)
        return;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM metrics WHERE run_id = %lld", (long long)run);
    CHECK(query_num(s, sql) == 100, "metrics after reopen");
    snprintf(sql, sizeof sql, "SELECT valid_loss FROM results WHERE id = %lld", (long long)run);
    CHECK(query_num(s, sql) == 4.75, "results after reopen");
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest(),
          "version %d", version);
    /* A second open of the same file at the same time works (two jobs). */
    Store *t = NULL;
    CHECK(store_open(path, &t, err) == 0, "%s", err);
    int64_t other = 0;
    RunInfo info = sample_info();
    CHECK(t && store_run_create(t, &info, &other, err) == 0, "%s", err);
    CHECK(query_num(s, "SELECT count(*) FROM runs") == 2, "second connection's run visible");
    store_close(t);
    store_close(s);
}

static void test_foreign_keys(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("fk.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    MetricRow row = {.step = 1, .tokens = 10, .wall = 0.1, .train_loss = 5,
                     .train_loss_smooth = 5, .lr = 1e-3, .grad_norm = 1, .tokens_per_s = 100};
    CHECK(store_metrics_append(s, 42, &row, 1, err) == -1 && strstr(err, "FOREIGN KEY"), "%s",
          err);
    CHECK(strstr(err, "run 42") != NULL, "%s", err);
    EvalRow ev = {1, "valid", 5.0, 0.1, NAN, 10, NAN};
    CHECK(store_eval_add(s, 42, &ev, err) == -1, "eval for a missing run accepted");
    CHECK(store_checkpoint_add(s, 42, 1, "x.safetensors", err) == -1,
          "checkpoint for a missing run accepted");
    CHECK(query_num(s, "SELECT count(*) FROM metrics") == 0, "failed append left rows");

    /* A failed append rolls back: the store still takes the next write. */
    int64_t run = fill_run(s);
    CHECK(query_num(s, "SELECT count(*) FROM metrics") == 100, "append after failure");
    char sql[96];
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", (long long)run);
    CHECK(exec_sql(s, sql) == 0, "delete");
    CHECK(query_num(s, "SELECT count(*) FROM metrics") == 0, "metrics not cascaded");
    CHECK(query_num(s, "SELECT count(*) FROM evals") == 0, "evals not cascaded");
    CHECK(query_num(s, "SELECT count(*) FROM checkpoints") == 0, "checkpoints not cascaded");
    store_close(s);
}

static void test_newer_refused(void)
{
    char err[ERR_LEN] = "";
    const char *path = db_path("newer.db");
    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    store_close(s);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK, "open");
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", store_schema_latest() + 5);
    CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "set user_version");
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");
    s = NULL;
    CHECK(store_open(path, &s, err) == -1 && s == NULL, "newer store opened");
    CHECK(strstr(err, "newer") && strstr(err, path), "message: %s", err);
    CHECK(strchr(err, '\n') == NULL, "one line: %s", err);
}

static void test_open_errors(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    const char *missing = db_path("missing.db");
    CHECK(store_open_existing(missing, &s, err) == -1 && s == NULL, "missing store opened");
    char want[600];
    snprintf(want, sizeof want, "%s: no such store (run `mixbench run` first)", missing);
    CHECK(strcmp(err, want) == 0, "message: %s", err);
    CHECK(access(missing, F_OK) != 0, "store_open_existing created the file");

    const char *junk = db_path("junk.db");
    FILE *f = fopen(junk, "w");
    CHECK(f != NULL, "create junk");
    if (f) {
        for (int i = 0; i < 200; i++)
            fputs("this is not a database at all. ", f);
        fclose(f);
    }
    CHECK(store_open(junk, &s, err) == -1 && strstr(err, junk), "junk opened: %s", err);

    /* Another program's SQLite file is not taken over. */
    const char *foreign = db_path("foreign.db");
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(foreign, &db) == SQLITE_OK, "open");
    CHECK(sqlite3_exec(db, "CREATE TABLE notes (x)", NULL, NULL, NULL) == SQLITE_OK, "create");
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");
    CHECK(store_open(foreign, &s, err) == -1 && strstr(err, "not a mixbench store"), "%s", err);
}

static int count_rows(void *ctx, int ncols, char **values, char **names)
{
    (void)ncols;
    (void)values;
    (void)names;
    return ++*(int *)ctx >= 2; /* stop after two rows */
}

static void test_query_params(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("params.db"), &s, err) == 0, "%s", err);
    if (!s)
        return;
    fill_run(s);
    fill_run(s);
    RunInfo info = sample_info();
    info.arch = "mixer";
    int64_t id;
    CHECK(store_run_create(s, &info, &id, err) == 0, "%s", err);
    const char *params[] = {"attention", NULL};
    FirstValue fv = {{0}, 0, 0};
    CHECK(store_query_params(s, "SELECT count(*) FROM runs WHERE arch = ?1 AND"
                             " (?2 IS NULL OR status = ?2)", params, 2, first_value, &fv, err)
          == 0, "%s", err);
    CHECK(strcmp(fv.text, "2") == 0, "got %s", fv.text);
    int rows = 0;
    CHECK(store_query(s, "SELECT id FROM runs", count_rows, &rows, err) == 0 && rows == 2,
          "stop after %d rows", rows);
    CHECK(store_query(s, "SELECT x FROM nowhere", NULL, NULL, err) == -1 &&
          strstr(err, "nowhere"), "%s", err);
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("store")) return 1;
    RUN(test_create_migrate);
    RUN(test_wal_mode);
    RUN(test_run_round_trip);
    RUN(test_metrics_evals_checkpoints);
    RUN(test_views);
    RUN(test_reopen);
    RUN(test_foreign_keys);
    RUN(test_newer_refused);
    RUN(test_open_errors);
    RUN(test_query_params);
    tmp_dir_remove();
    CHECK_EXIT();
}
