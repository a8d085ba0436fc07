/*
 * test_ckpt_owner.c — checkpoints that belong to their store and runs that
 * own their process (db/ckpt_owner.c, db/ckpt_gc.c, db/jobs.c; schema
 * version 6): store ids and folders, a file recorded only when it names
 * this store, run and step, the checks before a file is loaded (another
 * store's, another run's, another step's, a replaced or truncated file, a
 * file from before owners), the upgrade of a version 5 store whose rows
 * keep their old paths, gc (exactly the orphans; --dry-run nothing; keep
 * last, best, none; never another store's file), runs of `mixbench run`
 * whose process died reading as interrupted (a dead pid here, an expired
 * lease on another host) and a live one refused by name, and
 * eval_every=auto.
 *
 * Not for: training or the command line (tests/cli/test_ckpt_cli.sh).
 */
#include "db/ckpt_gc.h"
#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/migrations.h"
#include "db/store.h"
#include "engine/common.h"
#include "experiments/estimate.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int64_t new_run(Store *s, const char *arch, const char *status)
{
    RunInfo info = {.arch = arch, .task = "clm", .data = "builtin:markov", .tokenizer = "word",
                    .config_json = "{}", .d = 64, .layers = 2, .heads = 4, .n_ctx = 32, .vocab = 500};
    int64_t id = 0;
    char err[ERR_LEN] = "";
    CHECK(store_run_create(s, &info, &id, err) == 0, "%s", err);
    if (status) CHECK(store_run_set_status(s, id, status, err) == 0, "%s", err);
    return id;
}

static void test_identity_and_folder(void)
{
    Store *a = open_store("a.db"), *b = open_store("b.db");
    if (!a || !b) return;
    char ida[STORE_ID_LEN], idb[STORE_ID_LEN], err[ERR_LEN] = "";
    CHECK(store_identity(a, ida, sizeof ida, err) == 0 && strlen(ida) == 16, "%s %s", ida, err);
    CHECK(store_identity(b, idb, sizeof idb, err) == 0 && strcmp(ida, idb), "two stores, one id: %s", idb);
    store_close(a);
    a = open_store("a.db");
    char again[STORE_ID_LEN];
    CHECK(a && store_identity(a, again, sizeof again, err) == 0 && !strcmp(again, ida), "id changed on reopen");
    char dir[4200], want[4200];
    store_ckpt_dir_for(db_path("a.db"), dir, sizeof dir);
    snprintf(want, sizeof want, "%s/a.ckpt", tmp_dir);
    CHECK(!strcmp(dir, want), "%s", dir);
    store_ckpt_dir_for(db_path("runs.sqlite"), dir, sizeof dir);
    CHECK(strstr(dir, "/runs.sqlite.ckpt") != NULL, "%s", dir);
    CHECK(!strcmp(store_file_name(a), "a.db"), "%s", store_file_name(a));
    store_close(a);
    store_close(b);
}

/* A file is recorded only when its metadata names this store, the run and
   the step; its size and the store's record then guard it. */
static void test_record_and_verify(void)
{
    Store *a = open_store("rv_a.db"), *b = open_store("rv_b.db");
    if (!a || !b) return;
    char err[ERR_LEN] = "";
    int64_t ra = new_run(a, "attention", "interrupted"), ra2 = new_run(a, "attention", "interrupted");
    int64_t rb = new_run(b, "attention", "interrupted");
    CHECK(ra == rb, "both stores' first run is run %lld / %lld", (long long)ra, (long long)rb);
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s", fake_checkpoint(a, ra, 10, db_path("rv_a-10.safetensors")));
    snprintf(pb, sizeof pb, "%s", fake_checkpoint(b, rb, 10, db_path("rv_b-10.safetensors")));

    /* recording: ours is; another store's, run's or step's is not */
    CHECK(store_checkpoint_record(a, ra, 10, pa, 1, err) == 0, "%s", err);
    CHECK(store_checkpoint_record(a, ra, 10, pb, 1, err) != 0 && strstr(err, "belongs to store") &&
              strstr(err, "rv_b.db") && strstr(err, "this is store") && strstr(err, "rv_a.db"),
          "foreign: %s", err);
    CHECK(store_checkpoint_record(a, ra2, 10, pa, 0, err) != 0 && strstr(err, "run 1 step 10"), "other run: %s", err);
    CHECK(store_checkpoint_record(a, ra, 20, pa, 0, err) != 0, "other step recorded");
    CHECK(query_num(a, "SELECT count(*) FROM checkpoints") == 1, "a refused file left a row");
    struct stat st;
    CHECK(stat(pa, &st) == 0 && value_of(a, "SELECT bytes FROM checkpoints WHERE run_id = %lld", ra).text[0] &&
              query_num(a, "SELECT bytes FROM checkpoints") == (double)st.st_size,
          "size not recorded");

    /* verifying: the recorded file passes */
    CHECK(store_checkpoint_verify(a, ra, pa, err) == 0, "%s", err);
    char path[1024];
    int64_t step = 0;
    CHECK(store_run_checkpoint(a, ra, path, sizeof path, &step, err) == 0 && step == 10 && !strcmp(path, pa), "%s",
          err);
    /* the other store's file copied over it (same size): refused, naming both */
    FILE *in = fopen(pb, "rb"), *out = fopen(pa, "wb");
    char buf[4096];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    if (in) fclose(in);
    if (out) fclose(out);
    CHECK(store_checkpoint_verify(a, ra, pa, err) != 0 && strstr(err, "belongs to store") && strstr(err, "rv_b.db") &&
              strstr(err, "(rv_a.db) run 1 step 10"),
          "swapped: %s", err);
    CHECK(store_run_checkpoint(a, ra, path, sizeof path, &step, err) != 0, "swapped file passed");
    /* a truncated file: its size says so */
    fake_checkpoint(a, ra, 10, pa);
    CHECK(truncate(pa, 20) == 0, "truncate");
    CHECK(store_checkpoint_verify(a, ra, pa, err) != 0 && strstr(err, "replaced or damaged"), "truncated: %s", err);
    /* a file the run never recorded, and a run without checkpoints */
    CHECK(store_checkpoint_verify(a, ra, pb, err) != 0 && strstr(err, "not one of run"), "%s", err);
    CHECK(store_run_checkpoint(a, ra2, path, sizeof path, &step, err) != 0 && strstr(err, "no checkpoint"), "%s", err);
    CHECK(store_run_checkpoint(a, 99, path, sizeof path, &step, err) != 0 && strstr(err, "no run 99"), "%s", err);
    store_close(a);
    store_close(b);
}

/* A version 5 store: its rows keep their old paths (mixbench-ckpt/,
   shared by the stores of a folder), and their files, which name no store,
   are checked by the model keys of the run row. */
static void test_upgrade_v5(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", db_path("v5.db"));   /* db_path's buffer is reused */
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK, "open");
    char *msg = NULL;
    for (int v = 0; v < 5; v++) {
        CHECK(sqlite3_exec(db, STORE_MIGRATIONS[v], NULL, NULL, &msg) == SQLITE_OK, "v%d: %s", v + 1, msg);
        sqlite3_free(msg);
        msg = NULL;
    }
    mkdir(db_path("mixbench-ckpt"), 0777);
    char old[600], fill[2048];
    snprintf(old, sizeof old, "%s", db_path("mixbench-ckpt/run1.safetensors"));
    snprintf(fill, sizeof fill,
             "INSERT INTO runs (status, arch, task, d, layers, heads, n_ctx, vocab)"
             " VALUES ('done', 'attention', 'clm', 64, 2, 4, 32, 500);"
             "INSERT INTO checkpoints (run_id, step, path) VALUES (1, 20, '%s');"
             "PRAGMA user_version = 5;",
             old);
    CHECK(sqlite3_exec(db, fill, NULL, NULL, &msg) == SQLITE_OK, "fill: %s", msg);
    sqlite3_free(msg);
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");
    /* a file as mixbench wrote them before: the model keys, no owner */
    char err[ERR_LEN] = "";
    StMeta legacy[] = {{"format", "mixbench"}, {"arch", "attention"}, {"task", "clm"}, {"d", "64"},
                       {"layers", "2"},        {"heads", "4"},        {"n_ctx", "32"}, {"vocab", "500"}};
    CHECK(st_write(old, legacy, 8, NULL, 0, err) == 0, "%s", err);

    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s) return;
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest() && version >= 6, "%d",
          version);
    char id[STORE_ID_LEN];
    CHECK(store_identity(s, id, sizeof id, err) == 0 && strlen(id) == 16, "an upgraded store has no id: %s", err);
    CHECK(!strcmp(value_of(s, "SELECT path FROM checkpoints WHERE run_id = %lld", 1).text, old), "the row moved");
    CHECK(store_checkpoint_verify(s, 1, old, err) == 0, "the old file: %s", err);
    /* the neighbour store's run 1 (a mixer) wrote over it: refused by arch */
    StMeta mixer[] = {{"format", "mixbench"}, {"arch", "mixer"}, {"task", "clm"}, {"d", "64"},
                      {"layers", "2"},        {"heads", "4"},    {"n_ctx", "32"}, {"vocab", "500"}};
    CHECK(st_write(old, mixer, 8, NULL, 0, err) == 0, "%s", err);
    CHECK(store_checkpoint_verify(s, 1, old, err) != 0 && strstr(err, "arch=mixer") && strstr(err, "another run"),
          "%s", err);
    /* new checkpoints go to v5.ckpt/ */
    char dir[4200];
    store_ckpt_dir_for(path, dir, sizeof dir);
    CHECK(strstr(dir, "/v5.ckpt") != NULL, "%s", dir);
    store_close(s);
}

static int64_t file_size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Back-dates a file past gc's one-minute guard. */
static void make_old(const char *path)
{
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "touch -d '2 hours ago' '%.4500s'", path);
    CHECK(system(cmd) == 0, "%s", cmd);
}

static void test_gc(void)
{
    Store *s = open_store("gc.db"), *other = open_store("gc_other.db");
    if (!s || !other) return;
    char err[ERR_LEN] = "", dir[4200];
    store_ckpt_dir_for(db_path("gc.db"), dir, sizeof dir);
    mkdir(dir, 0777);
    int64_t done = new_run(s, "attention", NULL), live = new_run(s, "attention", NULL);
    char p[6][4400];
    snprintf(p[0], sizeof p[0], "%s/run%lld-step10.safetensors", dir, (long long)done);
    snprintf(p[1], sizeof p[1], "%s/run%lld-step20.safetensors", dir, (long long)done);
    snprintf(p[2], sizeof p[2], "%s/run%lld.safetensors", dir, (long long)done);
    snprintf(p[3], sizeof p[3], "%s/orphan.safetensors", dir);
    snprintf(p[4], sizeof p[4], "%s/foreign.safetensors", dir);
    snprintf(p[5], sizeof p[5], "%s/run%lld-step5.safetensors", dir, (long long)live);
    int64_t steps[3] = {10, 20, 30};
    for (int i = 0; i < 3; i++) {
        fake_checkpoint(s, done, steps[i], p[i]);
        CHECK(store_checkpoint_record(s, done, steps[i], p[i], 0, err) == 0, "%s", err);
    }
    /* valid loss best at step 20 */
    for (int i = 0; i < 3; i++) {
        EvalRow e = {steps[i], "valid", i == 1 ? 2.0 : 3.0, 0.5, NAN, 100, NAN};
        CHECK(store_eval_add(s, done, &e, err) == 0, "%s", err);
    }
    RunEnd end = {"done", NULL, 30, 300, 1, 1, NAN, NAN, NAN};
    CHECK(store_run_finish(s, done, &end, err) == 0, "%s", err);
    fake_checkpoint(s, 0, 0, p[3]);
    fake_checkpoint(other, 1, 5, p[4]);
    fake_checkpoint(s, live, 5, p[5]);   /* a running run's file, not recorded yet */
    for (int i = 0; i < 6; i++) make_old(p[i]);

    GcPlan plan;
    CHECK(store_gc_plan(s, GC_KEEP_ALL, &plan, err) == 0, "%s", err);
    CHECK(plan.n == 1 && !strcmp(plan.items[0].path, p[3]) && plan.items[0].run_id == 0 &&
              plan.bytes == file_size_of(p[3]) && plan.kept_foreign == 1,
          "orphans: %d, foreign %d", plan.n, plan.kept_foreign);
    gc_plan_free(&plan);   /* a dry run: planned, not applied */
    CHECK(file_size_of(p[3]) > 0, "a dry run removed a file");

    CHECK(store_gc_plan(s, GC_KEEP_BEST, &plan, err) == 0 && plan.n == 3, "best: %d %s", plan.n, err);
    for (int i = 0; i < plan.n; i++) CHECK(strcmp(plan.items[i].path, p[1]), "best removed the best");
    gc_plan_free(&plan);
    CHECK(store_gc_plan(s, GC_KEEP_NONE, &plan, err) == 0 && plan.n == 4, "none: %d %s", plan.n, err);
    gc_plan_free(&plan);

    CHECK(store_gc_plan(s, GC_KEEP_LAST, &plan, err) == 0 && plan.n == 3, "last: %d %s", plan.n, err);
    CHECK(store_gc_apply(s, &plan, err) == 0, "%s", err);
    gc_plan_free(&plan);
    CHECK(file_size_of(p[0]) < 0 && file_size_of(p[1]) < 0 && file_size_of(p[3]) < 0, "not removed");
    CHECK(file_size_of(p[2]) > 0 && file_size_of(p[4]) > 0 && file_size_of(p[5]) > 0, "removed what stays");
    CHECK(query_num(s, "SELECT count(*) FROM checkpoints") == 1 &&
              query_num(s, "SELECT step FROM checkpoints") == 30,
          "rows");
    CHECK(store_checkpoint_verify(s, done, p[2], err) == 0, "the kept file: %s", err);

    StoreUsage u;
    CHECK(store_usage(s, &u, err) == 0 && u.store_bytes > 0 && u.ckpt_files == 3 &&
              u.ckpt_bytes == file_size_of(p[2]) + file_size_of(p[4]) + file_size_of(p[5]),
          "usage %lld in %d files", (long long)u.ckpt_bytes, u.ckpt_files);
    GcKeep k;
    CHECK(gc_keep_parse("best", &k) == 0 && k == GC_KEEP_BEST && gc_keep_parse("most", &k) != 0, "parse");
    store_close(s);
    store_close(other);
}

/* A run of `mixbench run` owns its process; when that is gone the run
   reads as interrupted at the next opening of the store (not queued for
   workers), and run --resume may claim it; while it lives, it is refused
   naming its host and pid. */
static void test_headless_owner(void)
{
    Store *s = open_store("headless.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t mine = new_run(s, "attention", NULL), dead = new_run(s, "attention", NULL),
            away = new_run(s, "attention", NULL), leased = new_run(s, "attention", NULL);
    char me[32];
    snprintf(me, sizeof me, "%d", (int)getpid());
    CHECK(!strcmp(value_of(s, "SELECT owner_pid FROM runs WHERE id = %lld", mine).text, me), "no owner recorded");
    CHECK(!value_of(s, "SELECT owner_host FROM runs WHERE id = %lld", mine).is_null, "no host");
    char sql[600];
    snprintf(sql, sizeof sql,
             "UPDATE runs SET owner_pid = %d WHERE id = %lld;"
             "UPDATE runs SET owner_host = 'elsewhere', lease_until = '2000-01-01T00:00:00Z' WHERE id = %lld;"
             "UPDATE runs SET owner_host = 'elsewhere', lease_until = '2999-01-01T00:00:00Z' WHERE id = %lld;",
             dead_pid(), (long long)dead, (long long)away, (long long)leased);
    CHECK(exec_sql(s, sql) == 0, "owners");
    char ckpt[600];
    snprintf(ckpt, sizeof ckpt, "%s", fake_checkpoint(s, dead, 7, db_path("headless-7.safetensors")));
    CHECK(store_job_set_resume(s, dead, 7, ckpt, err) == 0, "%s", err);
    store_close(s);
    s = open_store("headless.db");   /* every opening recovers them */
    if (!s) return;
    CHECK(!strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", dead).text, "interrupted"), "dead: %s",
          value_of(s, "SELECT status FROM runs WHERE id = %lld", dead).text);
    CHECK(strstr(value_of(s, "SELECT error FROM runs WHERE id = %lld", dead).text, "run --resume"), "%s",
          value_of(s, "SELECT error FROM runs WHERE id = %lld", dead).text);
    CHECK(!strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", away).text, "interrupted"),
          "an expired lease elsewhere");
    CHECK(!strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", leased).text, "running"), "a live lease");
    CHECK(!strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", mine).text, "running"), "a live pid");
    CHECK(value_of(s, "SELECT queued_at FROM runs WHERE id = %lld", dead).is_null, "queued for workers");
    int found = 0;
    ClaimedJob job;
    CHECK(store_job_claim(s, (int)getpid(), &job, &found, err) == 0 && !found, "a worker took a headless run");
    CHECK(store_job_claim_run(s, dead, (int)getpid(), &job, err) == 0 && !strcmp(job.resume_ckpt, ckpt), "%s", err);
    CHECK(store_job_claim_run(s, mine, (int)getpid(), &job, err) != 0 && strstr(err, "is running on") &&
              strstr(err, me),
          "live: %s", err);
    CHECK(store_job_claim_run(s, leased, (int)getpid(), &job, err) != 0 && strstr(err, "elsewhere"), "leased: %s",
          err);
    store_close(s);
}

/* A queued job whose checkpoint is not its own is not started: it goes to
   'interrupted' saying why, and the next job is claimed. */
static void test_claim_refuses_foreign(void)
{
    Store *s = open_store("claimf.db"), *b = open_store("claimf_b.db");
    if (!s || !b) return;
    char err[ERR_LEN] = "";
    RunInfo info = {.arch = "attention", .task = "clm", .data = "builtin:markov", .config_json = "{}"};
    int64_t first = 0, second = 0;
    CHECK(store_job_enqueue(s, &info, 0, NULL, 1, &first, err) == 0 &&
              store_job_enqueue(s, &info, 0, NULL, 0, &second, err) == 0,
          "%s", err);
    char path[600];
    snprintf(path, sizeof path, "%s", db_path("claimf.safetensors"));
    fake_checkpoint(s, first, 3, path);
    CHECK(store_job_set_resume(s, first, 3, path, err) == 0, "%s", err);
    int64_t bid = new_run(b, "attention", NULL);
    fake_checkpoint(b, bid, 3, path);   /* the other store's run wrote over it */
    ClaimedJob job;
    int found = 0;
    CHECK(store_job_claim(s, (int)getpid(), &job, &found, err) == 0 && found && job.run_id == second, "%s", err);
    CHECK(!strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", first).text, "interrupted") &&
              strstr(value_of(s, "SELECT error FROM runs WHERE id = %lld", first).text, "belongs to store"),
          "%s", value_of(s, "SELECT error FROM runs WHERE id = %lld", first).text);
    /* a checkpoint that is gone (a store moved without them): the job
       trains again from the start */
    int64_t third = 0;
    CHECK(store_job_enqueue(s, &info, 0, NULL, 0, &third, err) == 0, "%s", err);
    char gone[600];
    snprintf(gone, sizeof gone, "%s", db_path("claimf-gone.safetensors"));
    fake_checkpoint(s, third, 5, gone);
    CHECK(store_job_set_resume(s, third, 5, gone, err) == 0, "%s", err);
    unlink(gone);
    CHECK(store_job_claim(s, (int)getpid(), &job, &found, err) == 0 && found && job.run_id == third &&
              job.resume_ckpt[0] == 0, "%s (resume '%s')", err, job.resume_ckpt);
    CHECK(value_of(s, "SELECT resume_ckpt FROM runs WHERE id = %lld", third).is_null &&
              strstr(value_of(s, "SELECT error FROM runs WHERE id = %lld", third).text, "restarted from the start"),
          "%s", value_of(s, "SELECT error FROM runs WHERE id = %lld", third).text);
    store_close(s);
    store_close(b);
}

static void test_eval_every_auto(void)
{
    /* 20 evaluations when they are cheap */
    CHECK(estimate_eval_every(1000, 512, 0) == 50, "%d", estimate_eval_every(1000, 512, 0));
    CHECK(estimate_eval_every(1000, 512, 4096) == 50, "%d", estimate_eval_every(1000, 512, 4096));
    /* 1000 steps x 512 tokens, 32768 an evaluation: 0.3 x 512000 / 32768 = 4.7 -> 4 */
    CHECK(estimate_eval_every(1000, 512, 32768) == 250, "%d", estimate_eval_every(1000, 512, 32768));
    /* too dear for even one, or no steps known */
    CHECK(estimate_eval_every(100, 512, 32768) == 0, "%d", estimate_eval_every(100, 512, 32768));
    CHECK(estimate_eval_every(0, 512, 0) == 0, "seconds budget");
    Config c;
    config_defaults(&c);
    char err[ERR_LEN], text[32];
    CHECK(config_set(&c, "eval_every", "auto", err) == 0 && c.eval_every == -1, "%s", err);
    CHECK(config_get(&c, "eval_every", text, sizeof text) == 0 && !strcmp(text, "auto"), "%s", text);
    CHECK(config_set(&c, "eval_every", "often", err) != 0, "junk accepted");
    CHECK(config_set(&c, "ckpt_minutes", "0.5", err) == 0 && c.ckpt_minutes == 0.5, "%s", err);
    CHECK(config_set(&c, "ckpt_minutes", "-1", err) != 0, "negative ckpt_minutes accepted");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("ckpt-owner")) return 1;
    RUN(test_identity_and_folder);
    RUN(test_record_and_verify);
    RUN(test_upgrade_v5);
    RUN(test_gc);
    RUN(test_headless_owner);
    RUN(test_claim_refuses_foreign);
    RUN(test_eval_every_auto);
    tmp_dir_remove();
    CHECK_EXIT();
}
