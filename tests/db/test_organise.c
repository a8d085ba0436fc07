/*
 * test_organise.c — keeping a store tidy (db/organise.c, db/settings.c,
 * the purge of db/ckpt_gc.c; schema version 7): a version 6 store
 * upgraded in place (its sweeps' preset from their names, the new
 * columns and tables), tags, notes, stars and names of runs and sweeps (a
 * renamed preset sweep still found by its preset), the trash (what it
 * refuses, which views and reads leave it out, jobs that cannot be
 * resumed, controlled or extended there, restore), a sweep trashed and
 * restored with its runs, purge (rows and the store's own checkpoint
 * files go, others' stay), and the settings table.
 *
 * Not for: the command line (tests/cli/test_organise_cli.sh) or choosing runs
 * by a filter (tests/experiments/test_run_filter.c).
 */
#include "db/ckpt_gc.h"
#include "db/jobs.h"
#include "db/migrations.h"
#include "db/organise.h"
#include "db/queue_read.h"
#include "db/results.h"
#include "db/runs_read.h"
#include "db/settings.h"
#include "db/store.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* A run of no sweep with a status ("done" gets a metric and evaluations). */
static int64_t new_run(Store *s, const char *arch, const char *status)
{
    RunInfo info = {.arch = arch, .task = "clm", .data = "builtin:markov", .tokenizer = "word",
                    .config_json = "{\"layers\": \"2\"}", .d = 64, .layers = 2, .heads = 4, .n_ctx = 32,
                    .vocab = 500};
    int64_t id = 0;
    char err[ERR_LEN] = "";
    CHECK(store_run_create(s, &info, &id, err) == 0, "%s", err);
    MetricRow m = {1, 32, 0.1, 5.0, 5.0, 1e-3, 1.0, 100.0};
    CHECK(store_metrics_append(s, id, &m, 1, err) == 0, "%s", err);
    EvalRow e = {1, "valid", 4.5, 0.2, NAN, 10, NAN};
    CHECK(store_eval_add(s, id, &e, err) == 0, "%s", err);
    CHECK(store_run_set_status(s, id, status, err) == 0, "%s", err);
    return id;
}

/* A job of a sweep, queued, then set to status. */
static int64_t new_job(Store *s, int64_t sweep, const char *coords, const char *status)
{
    RunInfo info = {.arch = "attention", .task = "clm", .data = "builtin:markov", .tokenizer = "word",
                    .config_json = "{}", .d = 64, .layers = 2, .heads = 4, .n_ctx = 32, .vocab = 500};
    int64_t id = 0;
    char err[ERR_LEN] = "";
    CHECK(store_job_enqueue(s, &info, sweep, coords, 0, &id, err) == 0, "%s", err);
    if (strcmp(status, "queued")) CHECK(store_run_set_status(s, id, status, err) == 0, "%s", err);
    return id;
}

static double count(Store *s, const char *sql)
{
    return query_num(s, sql);
}

static void test_upgrade_v6(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", db_path("v6.db"));
    store_file_at_version(path, 6,
                          "INSERT INTO sweeps (name, spec) VALUES ('completion', 'completion'), ('grid', 'layers=1,2');"
                          "INSERT INTO runs (status, arch, task, sweep_id, name)"
                          " VALUES ('done', 'attention', 'clm', 1, 'a'), ('done', 'mixer', 'clm', 2, NULL);");
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s) return;
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest() && store_schema_latest() >= 8, "%d", version);
    CHECK(!strcmp(query1(s, "SELECT group_concat(preset, ' ') FROM sweeps").text, "completion grid"), "%s",
          query1(s, "SELECT group_concat(preset, ' ') FROM sweeps").text);
    CHECK(!strcmp(query1(s, "SELECT group_concat(id || ':' || tags || ':' || starred || ':' || (note IS NULL), ' ')"
                            " FROM results").text,
                  "1::0:1 2::0:1"),
          "%s", query1(s, "SELECT group_concat(id || ':' || tags || ':' || starred, ' ') FROM results").text);
    CHECK(count(s, "SELECT count(*) FROM sqlite_schema WHERE name IN ('run_tags', 'settings', 'results_all', 'trash')")
              == 4, "new objects missing");
    CHECK(count(s, "SELECT count(*) FROM sweep_results") == 2 && count(s, "SELECT count(*) FROM trash") == 0, "views");
    SweepRow sw;
    int found = 0;
    CHECK(results_newest_sweep(s, "completion", &sw, &found, err) == 0 && found && sw.id == 1, "%s", err);
    store_close(s);
}

static void test_tags_notes_names(void)
{
    Store *s = open_store("tags.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t a = new_run(s, "attention", "done"), b = new_run(s, "mixer", "done");
    int changed = -1;
    CHECK(store_run_tag(s, a, "good", 1, &changed, err) == 0 && changed == 1, "%s", err);
    CHECK(store_run_tag(s, a, "GOOD", 1, &changed, err) == 0 && changed == 0, "case: %s", err);
    CHECK(store_run_tag(s, a, "base-line", 1, &changed, err) == 0 && changed == 1, "%s", err);
    CHECK(!strcmp(query1(s, "SELECT tags FROM results WHERE id = 1").text, "base-line good"), "%s",
          query1(s, "SELECT tags FROM results WHERE id = 1").text);
    CHECK(count(s, "SELECT count(*) FROM results WHERE ' ' || tags || ' ' LIKE '% good %'") == 1, "filterable");
    CHECK(store_run_tag(s, a, "Good", 0, &changed, err) == 0 && changed == 1, "untag: %s", err);
    CHECK(store_run_tag(s, a, "good", 0, &changed, err) == 0 && changed == 0, "untag again: %s", err);
    const char *bad[] = {"", "two words", "a,b", "#x", "!x", "-x", "k=v", "x\"", "abcdefghijabcdefghijabcdefghijabc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(store_run_tag(s, b, bad[i], 1, NULL, err) != 0 && err[0], "tag '%s' accepted", bad[i]);
    CHECK(store_tag_check("résumé", err) == 0 && store_tag_check("a:b", err) == 0, "%s", err);
    CHECK(store_run_tag(s, 99, "x", 1, NULL, err) != 0 && strstr(err, "no run 99"), "%s", err);

    CHECK(store_run_note(s, a, "lr too high?", err) == 0, "%s", err);
    CHECK(!strcmp(query1(s, "SELECT note FROM results WHERE id = 1").text, "lr too high?"), "note");
    CHECK(store_run_note(s, a, "", err) == 0 && query1(s, "SELECT note FROM runs WHERE id = 1").is_null, "cleared");
    CHECK(store_run_rename(s, b, "mixer-best", err) == 0, "%s", err);
    int64_t id = 0;
    CHECK(store_run_lookup(s, "mixer-best", 0, &id, err) == 0 && id == b, "by name: %s", err);
    CHECK(store_run_lookup(s, "1", 0, &id, err) == 0 && id == a, "by id: %s", err);
    CHECK(store_run_lookup(s, "nope", 0, &id, err) != 0 && strstr(err, "no run nope"), "%s", err);
    CHECK(store_run_star(s, b, 1, err) == 0 && count(s, "SELECT starred FROM results WHERE id = 2") == 1, "%s", err);

    /* a preset sweep renamed: its label changes, its preset finds it */
    int64_t sweep = 0;
    CHECK(store_sweep_create(s, "completion", "completion", "[\"arch\"]", &sweep, err) == 0, "%s", err);
    new_job(s, sweep, "{\"arch\": \"attention\"}", "done");
    CHECK(store_sweep_rename(s, sweep, "completion, long", err) == 0, "%s", err);
    CHECK(store_sweep_rename(s, sweep, "", err) != 0, "an empty sweep name");
    CHECK(store_sweep_note(s, sweep, "the 2M-token run", err) == 0, "%s", err);
    SweepRow row;
    int found = 0;
    CHECK(results_newest_sweep(s, "completion", &row, &found, err) == 0 && found && row.id == sweep &&
              !strcmp(row.name, "completion, long") && !strcmp(row.preset, "completion"),
          "%s %s %s", err, row.name, row.preset);
    const char *presets[] = {"completion"};
    SweepRow *rows = NULL;
    int n = 0;
    CHECK(sweeps_read_latest(s, presets, 1, 10, &rows, &n, err) == 0 && n == 1 && !strcmp(rows[0].preset, "completion"),
          "%d %s", n, err);
    free(rows);
    CHECK(!strcmp(query1(s, "SELECT sweep || '|' || preset FROM sweep_results").text, "completion, long|completion"),
          "%s", query1(s, "SELECT sweep || '|' || preset FROM sweep_results").text);
    CHECK(store_sweep_lookup(s, "completion, long", 0, &id, err) == 0 && id == sweep, "%s", err);
    CHECK(store_sweep_rename(s, 42, "x", err) != 0 && strstr(err, "no sweep 42"), "%s", err);
    store_close(s);
}

/* A name means one run (one sweep): a name another has is refused naming
   it (a trashed one's too), a number is refused, and a name two runs of
   an older store share is refused as ambiguous at lookup. */
static void test_one_name(void)
{
    Store *s = open_store("names.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t a = new_run(s, "attention", "done"), b = new_run(s, "mixer", "done"), c = new_run(s, "conv", "done");
    CHECK(store_run_rename(s, a, "attn-base", err) == 0, "%s", err);
    CHECK(store_run_rename(s, b, "attn-base", err) != 0 && strstr(err, "name attn-base is run 1's"), "%s", err);
    CHECK(query1(s, "SELECT name FROM runs WHERE id = 2").is_null, "run 2 renamed all the same");
    CHECK(store_run_rename(s, a, "attn-base", err) == 0, "its own name again: %s", err);
    CHECK(store_run_rename(s, c, "5", err) != 0 && strstr(err, "cannot be a number"), "%s", err);
    CHECK(store_run_rename(s, c, "+5", err) != 0 && strstr(err, "cannot be a number"), "%s", err);
    CHECK(store_run_rename(s, c, "sweep:1", err) != 0 && strstr(err, "sweep:"), "%s", err);
    CHECK(query1(s, "SELECT name FROM runs WHERE id = 3").is_null, "run 3 renamed all the same");
    int64_t id = 0;
    CHECK(store_run_lookup(s, "attn-base", 0, &id, err) == 0 && id == a, "%s", err);

    /* a trashed run's name stays its own until purge */
    CHECK(store_run_rename(s, c, "old", err) == 0 && store_run_trash(s, c, err) == 0, "%s", err);
    CHECK(store_run_rename(s, b, "old", err) != 0 && strstr(err, "run 3's, in the trash"), "%s", err);

    /* an older store with a name twice */
    CHECK(exec_sql(s, "UPDATE runs SET name = 'twice' WHERE id IN (1, 2)") == 0, "sql");
    CHECK(store_run_lookup(s, "twice", 0, &id, err) != 0 && strstr(err, "ambiguous") && strstr(err, "runs 1 and 2"),
          "%s", err);
    CHECK(store_run_lookup(s, "1", 0, &id, err) == 0 && id == a, "by id: %s", err);

    /* sweeps */
    int64_t s1 = 0, s2 = 0;
    CHECK(store_sweep_create(s, "grid", "x=1", "[]", &s1, err) == 0 &&
              store_sweep_create(s, "grid", "x=2", "[]", &s2, err) == 0,
          "%s", err);
    CHECK(store_sweep_lookup(s, "grid", 0, &id, err) != 0 && strstr(err, "sweeps 1 and 2") && strstr(err, "sweep:1"),
          "%s", err);
    CHECK(store_sweep_rename(s, s1, "wide", err) == 0, "%s", err);
    CHECK(store_sweep_rename(s, s2, "wide", err) != 0 && strstr(err, "name wide is sweep 1's"), "%s", err);
    CHECK(store_sweep_rename(s, s2, "12", err) != 0 && strstr(err, "number"), "%s", err);
    CHECK(store_sweep_lookup(s, "grid", 0, &id, err) == 0 && id == s2, "%s", err);
    store_close(s);
}

/* One limit per field, refused whole (nothing stored), and no control
   characters. */
static void test_limits(void)
{
    Store *s = open_store("limits.db");
    if (!s) return;
    char err[ERR_LEN] = "", text[STORE_NOTE_MAX + 2];
    int64_t a = new_run(s, "attention", "done");
    int64_t sweep = 0;
    CHECK(store_sweep_create(s, "grid", "x=1", "[]", &sweep, err) == 0, "%s", err);
    memset(text, 'n', sizeof text);
    text[STORE_NOTE_MAX - 1] = 0;
    CHECK(store_run_note(s, a, text, err) == 0, "999 bytes: %s", err);
    char back[STORE_NOTE_MAX];
    CHECK(store_run_note_read(s, a, back, sizeof back, err) == 0 && !strcmp(back, text), "read back whole");
    text[STORE_NOTE_MAX - 1] = 'n';
    text[STORE_NOTE_MAX] = 0;
    CHECK(store_run_note(s, a, text, err) != 0 && strstr(err, "a note is at most 999 bytes (this one has 1000)"),
          "%s", err);
    CHECK(store_sweep_note(s, sweep, text, err) != 0 && strstr(err, "at most 999"), "%s", err);
    CHECK(count(s, "SELECT length(note) FROM runs WHERE id = 1") == 999, "the old note kept");
    text[STORE_NAME_MAX] = 0;
    CHECK(store_run_rename(s, a, text, err) != 0 && strstr(err, "a run's name is at most 63 bytes"), "%s", err);
    CHECK(store_sweep_rename(s, sweep, text, err) != 0 && strstr(err, "a sweep's name is at most 63"), "%s", err);
    CHECK(query1(s, "SELECT name FROM runs WHERE id = 1").is_null, "no name stored");
    text[STORE_NAME_MAX - 1] = 0;
    CHECK(store_run_rename(s, a, text, err) == 0, "63 bytes: %s", err);
    CHECK(store_run_rename(s, a, "\033[31mred", err) != 0 && strstr(err, "control characters"), "%s", err);
    CHECK(store_run_rename(s, a, "two\nlines", err) != 0 && strstr(err, "byte 4 is 0x0a"), "%s", err);
    CHECK(store_run_note(s, a, "\033]0;title\a", err) != 0 && strstr(err, "control"), "%s", err);
    CHECK(store_run_note(s, a, "bad \xff", err) != 0 && strstr(err, "UTF-8"), "%s", err);
    CHECK(store_sweep_note(s, sweep, "a\tb", err) != 0 && strstr(err, "control"), "%s", err);
    CHECK(store_run_tag(s, a, "a\033b", 1, NULL, err) != 0 && strstr(err, "control"), "%s", err);
    CHECK(store_text_limit(STORE_TEXT_TAG) == STORE_TAG_MAX - 1 && store_text_fits(STORE_TEXT_TAG, 31, err) == 0 &&
              store_text_fits(STORE_TEXT_TAG, 32, err) != 0,
          "tag limit");
    CHECK(count(s, "SELECT length(note) FROM runs WHERE id = 1") == 999, "nothing stored");
    store_close(s);
}

static void test_trash_runs(void)
{
    Store *s = open_store("trash.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t done = new_run(s, "attention", "done"), starred = new_run(s, "mixer", "done");
    int64_t running = new_run(s, "cumsum", "running"), queued = new_job(s, 0, NULL, "queued");
    int64_t paused = new_job(s, 0, NULL, "paused"), stopped = new_run(s, "conv", "interrupted");
    CHECK(store_run_star(s, starred, 1, err) == 0, "%s", err);
    CHECK(store_run_trash(s, starred, err) != 0 && strstr(err, "starred") && strstr(err, "unstar 2"), "%s", err);
    CHECK(store_run_trash(s, running, err) != 0 && strstr(err, "is running: pause or cancel"), "%s", err);
    CHECK(store_run_trash(s, queued, err) != 0 && strstr(err, "is queued"), "%s", err);
    CHECK(store_run_trash(s, 77, err) != 0 && strstr(err, "no run 77"), "%s", err);
    CHECK(store_run_trash(s, done, err) == 0, "%s", err);
    CHECK(store_run_trash(s, done, err) != 0 && strstr(err, "in the trash"), "twice: %s", err);
    CHECK(store_run_trash(s, paused, err) == 0 && store_run_trash(s, stopped, err) == 0, "%s", err);

    /* out of every view and read but results_all and trash */
    CHECK(count(s, "SELECT count(*) FROM results") == 3 && count(s, "SELECT count(*) FROM results_all") == 6,
          "results %g", count(s, "SELECT count(*) FROM results"));
    CHECK(count(s, "SELECT count(*) FROM curves WHERE run_id = 1") == 0 &&
              count(s, "SELECT count(*) FROM curves WHERE run_id = 2") == 1,
          "curves");
    CHECK(count(s, "SELECT count(*) FROM queue WHERE id = 5") == 0, "queue");
    CHECK(!strcmp(query1(s, "SELECT group_concat(kind || id, ' ') FROM (SELECT * FROM trash ORDER BY id)").text,
                  "run1 run5 run6"),
          "%s", query1(s, "SELECT group_concat(kind || id, ' ') FROM trash").text);
    RunSummary *runs = NULL;
    int n = 0;
    CHECK(runs_read_all(s, &runs, &n, err) == 0 && n == 3, "%d %s", n, err);
    free(runs);
    int64_t latest = 0, *ids = NULL, count_paused = -1;
    CHECK(store_run_rename(s, starred, "keep", err) == 0 && runs_read_latest_id(s, &latest, err) == 0 && latest == 4,
          "latest %lld", (long long)latest);
    CHECK(queue_read_ids(s, RUN_INTERRUPTED, &ids, &n, err) == 0 && n == 0, "interrupted in the trash resumed");
    free(ids);
    CHECK(queue_read_count(s, RUN_PAUSED, &count_paused, err) == 0 && count_paused == 0, "%lld",
          (long long)count_paused);
    TrashItem *items = NULL;
    CHECK(store_trash_list(s, &items, &n, err) == 0 && n == 3 && !items[0].is_sweep, "%d %s", n, err);
    free(items);

    /* nothing trains, changes or is looked up there */
    CHECK(store_job_resume(s, stopped, err) != 0 && strstr(err, "in the trash") && strstr(err, "restore 6"), "%s", err);
    CHECK(store_job_request(s, paused, "cancel", err) != 0 && strstr(err, "in the trash"), "%s", err);
    ClaimedJob job;
    CHECK(store_job_claim_run(s, stopped, (int)getpid(), &job, err) != 0 && strstr(err, "in the trash"), "%s", err);
    CHECK(store_run_note(s, done, "x", err) != 0 && strstr(err, "in the trash"), "%s", err);
    CHECK(store_run_tag(s, done, "x", 1, NULL, err) != 0 && strstr(err, "in the trash"), "%s", err);
    int64_t id = 0;
    CHECK(store_run_lookup(s, "1", 0, &id, err) != 0 && strstr(err, "in the trash"), "%s", err);
    CHECK(store_run_lookup(s, "1", 1, &id, err) == 0 && id == done, "%s", err);
    CHECK(store_run_lookup(s, "2", 1, &id, err) != 0 && strstr(err, "not in the trash"), "%s", err);
    int trashed = 0;
    CHECK(store_run_trashed(s, done, &trashed, err) == 0 && trashed, "trashed");

    CHECK(store_run_restore(s, done, err) == 0 && count(s, "SELECT count(*) FROM results") == 4, "%s", err);
    CHECK(store_run_restore(s, done, err) != 0 && strstr(err, "not in the trash"), "%s", err);
    CHECK(store_run_restore(s, 99, err) != 0 && strstr(err, "no run 99"), "%s", err);
    CHECK(store_job_resume(s, stopped, err) != 0, "still in the trash");
    CHECK(store_run_restore(s, stopped, err) == 0 && store_job_resume(s, stopped, err) == 0, "%s", err);
    store_close(s);
}

static void test_trash_sweep(void)
{
    Store *s = open_store("sweeps.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t sweep = 0, other = 0;
    CHECK(store_sweep_create(s, "grid", "layers=1,2,3", "[\"layers\"]", &sweep, err) == 0, "%s", err);
    CHECK(store_sweep_create(s, "grid", "layers=4", "[\"layers\"]", &other, err) == 0, "%s", err);
    int64_t a = new_job(s, sweep, "{\"layers\": \"1\"}", "done"), b = new_job(s, sweep, "{\"layers\": \"2\"}", "done");
    int64_t c = new_job(s, sweep, "{\"layers\": \"3\"}", "running");
    new_job(s, other, "{\"layers\": \"4\"}", "done");
    int n_runs = -1;
    CHECK(store_sweep_trash(s, sweep, &n_runs, err) != 0 && strstr(err, "sweep 1 stays") && strstr(err, "run 3"),
          "%s", err);
    CHECK(store_run_set_status(s, c, "cancelled", err) == 0, "%s", err);
    CHECK(store_run_trash(s, a, err) == 0, "%s", err);   /* trashed before, on its own */
    usleep(5000);   /* another stamp than the sweep's (milliseconds) */
    CHECK(store_sweep_trash(s, sweep, &n_runs, err) == 0 && n_runs == 2, "%d %s", n_runs, err);
    CHECK(count(s, "SELECT count(*) FROM sweep_results") == 1 && count(s, "SELECT count(*) FROM results") == 1,
          "sweep_results %g", count(s, "SELECT count(*) FROM sweep_results"));
    SweepRow *rows = NULL;
    int n = 0;
    CHECK(sweeps_read_latest(s, NULL, 0, 10, &rows, &n, err) == 0 && n == 1 && rows[0].id == other, "%d", n);
    free(rows);
    int64_t id;
    CHECK(store_sweep_lookup(s, "1", 0, &id, err) != 0 && strstr(err, "restore sweep:1"), "%s", err);
    CHECK(count(s, "SELECT count(*) FROM trash WHERE kind = 'sweep'") == 1, "trash view");
    CHECK(store_sweep_restore(s, sweep, &n_runs, err) == 0 && n_runs == 2, "%d %s", n_runs, err);
    CHECK(count(s, "SELECT count(*) FROM results") == 3, "run 1 went to the trash on its own and stays there");
    CHECK(store_sweep_restore(s, sweep, &n_runs, err) != 0 && strstr(err, "not in the trash"), "%s", err);
    /* restoring a run of a sweep in the trash brings the sweep back */
    CHECK(store_sweep_trash(s, sweep, &n_runs, err) == 0 && store_run_restore(s, b, err) == 0, "%s", err);
    CHECK(count(s, "SELECT count(*) FROM sweeps WHERE deleted_at IS NULL") == 2, "sweep back with its run");
    store_close(s);
}

/* A file of size bytes at path. */
static void write_file(const char *path, int bytes)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "%s", path);
    for (int i = 0; f && i < bytes; i++) fputc('x', f);
    if (f) fclose(f);
}

static void test_purge(void)
{
    Store *s = open_store("purge.db");
    if (!s) return;
    char err[ERR_LEN] = "", dir[4200], mine[4400], kept[4400], outside[600];
    store_ckpt_dir_for(db_path("purge.db"), dir, sizeof dir);
    mkdir(dir, 0777);
    int64_t gone = new_run(s, "attention", "done"), stays = new_run(s, "mixer", "done");
    snprintf(mine, sizeof mine, "%s/run%lld.safetensors", dir, (long long)gone);
    snprintf(kept, sizeof kept, "%s/run%lld.safetensors", dir, (long long)stays);
    snprintf(outside, sizeof outside, "%s", db_path("elsewhere.safetensors"));
    fake_checkpoint(s, gone, 1, mine);
    fake_checkpoint(s, stays, 1, kept);
    write_file(outside, 10);   /* names no store, outside the folder: kept */
    CHECK(store_checkpoint_add(s, gone, 1, mine, err) == 0 && store_checkpoint_add(s, stays, 1, kept, err) == 0 &&
              store_checkpoint_add(s, gone, 0, outside, err) == 0,
          "%s", err);
    CHECK(store_run_tag(s, gone, "bad", 1, NULL, err) == 0 && store_run_trash(s, gone, err) == 0, "%s", err);
    int64_t sweep = 0;
    CHECK(store_sweep_create(s, "grid", "layers=1", "[]", &sweep, err) == 0, "%s", err);
    new_job(s, sweep, "{}", "done");
    CHECK(store_sweep_trash(s, sweep, NULL, err) == 0, "%s", err);
    PurgePlan plan;
    CHECK(store_purge_plan(s, &plan, err) == 0, "%s", err);
    CHECK(plan.n_runs == 2 && plan.n_sweeps == 1 && plan.files.n == 1 && !strcmp(plan.files.items[0].path, mine) &&
              plan.files.kept_outside == 1,
          "runs %d sweeps %d files %d outside %d", plan.n_runs, plan.n_sweeps, plan.files.n, plan.files.kept_outside);
    CHECK(access(mine, F_OK) == 0, "a plan removes nothing");
    CHECK(store_purge_apply(s, &plan, err) == 0, "%s", err);
    purge_plan_free(&plan);
    CHECK(access(mine, F_OK) != 0 && access(kept, F_OK) == 0 && access(outside, F_OK) == 0, "files");
    CHECK(count(s, "SELECT count(*) FROM runs") == 1 && count(s, "SELECT count(*) FROM sweeps") == 0 &&
              count(s, "SELECT count(*) FROM metrics WHERE run_id = 1") == 0 &&
              count(s, "SELECT count(*) FROM run_tags") == 0 && count(s, "SELECT count(*) FROM checkpoints") == 1,
          "rows");
    CHECK(store_purge_plan(s, &plan, err) == 0 && plan.n_runs == 0 && plan.files.n == 0, "empty: %s", err);
    CHECK(store_purge_apply(s, &plan, err) == 0, "an empty purge: %s", err);
    purge_plan_free(&plan);
    store_close(s);
}

static void test_settings(void)
{
    Store *s = open_store("settings.db");
    if (!s) return;
    char err[ERR_LEN] = "", value[16];
    int found = -1;
    CHECK(store_setting_get(s, "runs.sort", value, sizeof value, &found, err) == 0 && !found && !value[0], "%s", err);
    CHECK(store_setting_put(s, "runs.sort", "valid desc", err) == 0, "%s", err);
    CHECK(store_setting_put(s, "runs.filter", "layers>2 #good", err) == 0, "%s", err);
    CHECK(store_setting_put(s, "runs.sort", "id asc", err) == 0, "replace: %s", err);
    CHECK(store_setting_get(s, "runs.sort", value, sizeof value, &found, err) == 0 && found && !strcmp(value, "id asc"),
          "%s %s", value, err);
    CHECK(store_setting_get(s, "runs.filter", value, 8, &found, err) == 0 && !strcmp(value, "layers>"), "cut %s",
          value);
    CHECK(store_setting_put(s, "runs.sort", NULL, err) == 0 &&
              store_setting_get(s, "runs.sort", value, sizeof value, &found, err) == 0 && !found,
          "deleted: %s", err);
    CHECK(store_setting_put(s, "", "x", err) != 0 && strstr(err, "key"), "empty key");
    store_close(s);
    s = open_store("settings.db");
    CHECK(s && store_setting_get(s, "runs.filter", value, sizeof value, &found, err) == 0 && found, "kept: %s", err);
    if (s) store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("organise")) return 1;
    RUN(test_upgrade_v6);
    RUN(test_tags_notes_names);
    RUN(test_one_name);
    RUN(test_limits);
    RUN(test_trash_runs);
    RUN(test_trash_sweep);
    RUN(test_purge);
    RUN(test_settings);
    tmp_dir_remove();
    CHECK_EXIT();
}
