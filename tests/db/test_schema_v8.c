/*
 * test_schema_v8.c — schema version 8 (db/migrations_v8.c): a version 7
 * store with runs, metrics, evaluations, tags, a sweep and a purged run's
 * id upgraded in place: every row kept with its id (the runs table is
 * built again, and its drop must not cascade to the metrics), foreign keys
 * on and holding (a row the store already had that breaks one does not
 * stop the upgrade), the views reading the new table, the id counter carried
 * over (a purged id is not given again); the status 'pruned' and the
 * request 'prune' accepted, the rungs table deleted with its run.
 *
 * Not for: deciding what to prune (tests/experiments/test_prune.c).
 */
#include "db/adaptive.h"
#include "db/migrations.h"
#include "db/store.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <sqlite3.h>
#include <string.h>

static void test_upgrade_v7(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", db_path("v7.db"));
    store_file_at_version(path, 7,
                          "PRAGMA foreign_keys = ON;"
                          "INSERT INTO sweeps (name, spec) VALUES ('grid', 'layers=1,2');"
                          "INSERT INTO runs (status, arch, task, sweep_id, name, coords_json, note, starred)"
                          " VALUES ('done', 'attention', 'clm', 1, 'a', '{\"layers\":\"1\"}', 'kept', 1),"
                          "        ('queued', 'mixer', 'clm', 1, NULL, '{\"layers\":\"2\"}', NULL, 0),"
                          "        ('done', 'cumsum', 'clm', NULL, 'gone', '{}', NULL, 0);"
                          "DELETE FROM runs WHERE id = 3;"   /* purged: its id is not given again */
                          "INSERT INTO metrics (run_id, step, tokens, train_loss)"
                          " VALUES (1, 1, 32, 5.0), (1, 2, 64, 4.0);"
                          "INSERT INTO evals (run_id, step, split, loss)"
                          " VALUES (1, 2, 'valid', 4.5), (1, 2, 'test', 4.6);"
                          "INSERT INTO run_tags (run_id, tag) VALUES (1, 'baseline');"
                          "PRAGMA foreign_keys = OFF;"   /* as the sqlite3 shell leaves a deleted run's rows */
                          "INSERT INTO metrics (run_id, step, tokens, train_loss) VALUES (99, 1, 32, 5.0);");
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s) return;
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest() && store_schema_latest() >= 8, "%d", version);
    CHECK(!strcmp(query1(s, "SELECT group_concat(id || ':' || status || ':' || coalesce(name, '-') || ':' ||"
                            " coalesce(note, '-') || ':' || starred, ' ') FROM runs").text,
                  "1:done:a:kept:1 2:queued:-:-:0"),
          "runs %s", query1(s, "SELECT group_concat(id || ':' || status, ' ') FROM runs").text);
    CHECK(query_num(s, "SELECT count(*) FROM metrics") == 3 && query_num(s, "SELECT count(*) FROM evals") == 2 &&
              query_num(s, "SELECT count(*) FROM run_tags") == 1,
          "the rows that name runs went with the old table");
    CHECK(!strcmp(query1(s, "PRAGMA foreign_keys").text, "1"), "foreign keys off after the upgrade");
    CHECK(query_num(s, "SELECT count(*) FROM pragma_foreign_key_check") == 1,
          "a foreign key broken (the store's own orphan row does not stop its upgrade)");
    CHECK(query_num(s, "SELECT count(*) FROM sweep_results") == 2 && query_num(s, "SELECT valid_loss FROM results"
                                                                               " WHERE id = 1") == 4.5,
          "the views do not read the new table");
    CHECK(query_num(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'runs'"
                       " AND name LIKE 'runs_%'") == 5, "the runs indexes");
    /* the id counter: a purged run's id 3 is not given again */
    RunInfo info = {.arch = "mixer", .task = "clm", .data = "builtin:markov", .config_json = "{}"};
    int64_t id = 0;
    CHECK(store_run_create(s, &info, &id, err) == 0 && id == 4, "new id %lld: %s", (long long)id, err);
    /* the new status and request */
    CHECK(store_run_prune(s, 2, "pruned by test", err) == 0, "%s", err);
    CHECK(!strcmp(query1(s, "SELECT status || ':' || error FROM runs WHERE id = 2").text, "pruned:pruned by test"),
          "%s", query1(s, "SELECT status || ':' || error FROM runs WHERE id = 2").text);
    CHECK(exec_sql(s, "UPDATE runs SET status = 'running', control = 'prune' WHERE id = 4") == 0, "control prune");
    CHECK(exec_sql(s, "UPDATE runs SET status = 'lost' WHERE id = 4") != 0, "an unknown status accepted");
    CHECK(store_rung_put(s, 1, 0, 10, 4.5, err) == 0 && store_rung_put(s, 1, 0, 10, 9.9, err) == 0, "%s", err);
    CHECK(query_num(s, "SELECT valid_loss FROM rungs WHERE run_id = 1") == 4.5, "a recorded rung overwritten");
    CHECK(exec_sql(s, "DELETE FROM runs WHERE id = 1") == 0 && query_num(s, "SELECT count(*) FROM rungs") == 0 &&
              query_num(s, "SELECT count(*) FROM metrics WHERE run_id = 1") == 0,
          "rungs and metrics not deleted with their run");
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("schema_v8")) return 1;
    RUN(test_upgrade_v7);
    tmp_dir_remove();
    CHECK_EXIT();
}
