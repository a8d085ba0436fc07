/*
 * test_jobs.c — the job queue and sweeps of the store (db/jobs.c, schema
 * version 2): upgrading a version 1 file in place, claim order, two worker
 * processes claiming at once, pause/cancel requests, resume, recovery of
 * jobs whose worker died (a pid gone, a zombie, a reused pid, an expired
 * lease of another host; schema version 4 and a version 3 store's running
 * jobs), the queue and sweep_results views, paper figures,
 * the errors for finished jobs and unknown runs, and a worker's other
 * writes (a claimed job's start, a forgotten checkpoint).
 *
 * Not for: the version 1 tables and views (tests/db/test_store.c) or running
 * jobs (the scheduler's tests).
 */
#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/migrations.h"
#include "db/store.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t claim(Store *s, int pid)
{
    char err[ERR_LEN] = "";
    ClaimedJob job;
    int found = -1;
    CHECK(store_job_claim(s, pid, &job, &found, err) == 0, "%s", err);
    return found == 1 ? job.run_id : 0;
}

/* ---- tests -------------------------------------------------------------- */

/* A file made by the version 1 script alone, with a finished run and a
   queued one, opens with the new code at version 2 with everything kept. */
static void test_upgrade_v1(void)
{
    const char *path = db_path("v1.db");
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK, "open");
    char *msg = NULL;
    const char *fill =
        "INSERT INTO runs (name, status, arch, task, config_json, steps_done)"
        " VALUES ('old', 'done', 'mixer', 'clm', '{\"d\":\"32\"}', 20);"
        "INSERT INTO runs (name, status, arch, task) VALUES ('waiting', 'queued', 'fft', 'mlm');"
        "INSERT INTO runs (name, status, arch, task) VALUES ('gone', 'done', 'fft', 'mlm');"
        "DELETE FROM runs WHERE name = 'gone';"
        "INSERT INTO metrics (run_id, step, tokens, train_loss, train_loss_smooth)"
        " VALUES (1, 10, 640, 3.5, 3.75), (1, 20, 1280, 3.0, 3.25);"
        "INSERT INTO evals (run_id, step, split, loss) VALUES (1, 20, 'test', 2.5);"
        "INSERT INTO checkpoints (run_id, step, path) VALUES (1, 20, 'old.safetensors');"
        "PRAGMA user_version = 1;";
    CHECK(sqlite3_exec(db, STORE_MIGRATIONS[0], NULL, NULL, &msg) == SQLITE_OK, "v1: %s", msg);
    sqlite3_free(msg);
    msg = NULL;
    CHECK(sqlite3_exec(db, fill, NULL, NULL, &msg) == SQLITE_OK, "fill: %s", msg);
    sqlite3_free(msg);
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");

    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s)
        return;
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest() &&
          store_schema_latest() >= 4, "version %d", version);
    CHECK(strcmp(value_of(s, "SELECT name || '|' || status || '|' || arch || '|' || steps_done"
                             " || '|' || json_extract(config_json, '$.d') FROM runs"
                             " WHERE id = %lld", 1).text, "old|done|mixer|20|32") == 0,
          "run 1 changed");
    CHECK(query_num(s, "SELECT count(*) FROM metrics WHERE run_id = 1") == 2, "metrics lost");
    CHECK(strcmp(query1(s, "SELECT train_loss || '|' || test_loss FROM results WHERE id = 1")
                 .text, "3.25|2.5") == 0, "results %s",
          query1(s, "SELECT train_loss || '|' || test_loss FROM results WHERE id = 1").text);
    CHECK(query_num(s, "SELECT count(*) FROM curves WHERE run_id = 1") == 2, "curves");
    CHECK(strcmp(query1(s, "SELECT coords_json || '|' || priority || '|' || (sweep_id IS NULL)"
                           " || (control IS NULL) || (owner_pid IS NULL) FROM runs WHERE id = 1")
                 .text, "{}|0|111") == 0, "new column defaults");
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE owner_host IS NULL AND owner_boot IS NULL"
                       " AND owner_start IS NULL AND lease_until IS NULL") == 2,
          "owner columns (version 4) not NULL");
    CHECK(query_num(s, "SELECT count(*) FROM sqlite_schema WHERE name IN ('sweeps',"
                       " 'paper_figures', 'queue', 'sweep_results', 'runs_claim', 'runs_sweep')")
          == 6, "new objects missing");
    CHECK(query_num(s, "SELECT instr(sql, 'the sweep that queued this job') > 0 FROM"
                       " sqlite_schema WHERE name = 'runs'") == 1, "column comments not kept");
    CHECK(strcmp(query1(s, "PRAGMA integrity_check").text, "ok") == 0, "integrity");
    CHECK(query1(s, "PRAGMA foreign_key_check").rows == 0, "foreign keys");
    /* The v1 queued run is a job now, and ids are never reused. */
    CHECK(strcmp(query1(s, "SELECT group_concat(id) FROM queue").text, "2") == 0, "queue %s",
          query1(s, "SELECT group_concat(id) FROM queue").text);
    int64_t next = enqueue(s, 0, NULL, 0);
    CHECK(next == 4, "new id %lld", (long long)next);
    CHECK(claim(s, getpid()) == 2, "the old queued run is claimed first");
    store_close(s);

    /* Opening again changes nothing. */
    s = NULL;
    CHECK(store_open_existing(path, &s, err) == 0, "%s", err);
    CHECK(s && query_num(s, "SELECT count(*) FROM runs") == 3, "reopen");
    store_close(s);
}

static void test_claim_order(void)
{
    Store *s = open_store("order.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int64_t a = enqueue(s, 0, NULL, 0);
    int64_t b = enqueue(s, 0, NULL, 5);
    int64_t c = enqueue(s, 0, NULL, 0);
    int64_t d = enqueue(s, 0, NULL, 5);
    int64_t e = enqueue(s, 0, NULL, -1);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || (started_at IS NULL) || '|' ||"
                             " (queued_at IS NOT NULL) FROM runs WHERE id = %lld", a).text,
                 "queued|1|1") == 0, "queued row");
    CHECK(strcmp(query1(s, "SELECT group_concat(id || ':' || position) FROM queue").text,
                 "2:1,4:2,1:3,3:4,5:5") == 0, "queue order %s",
          query1(s, "SELECT group_concat(id || ':' || position) FROM queue").text);
    /* Raising the priority of the oldest of the lowest moves it up. */
    CHECK(store_job_set_priority(s, e, 9, err) == 0, "%s", err);

    int me = (int)getpid();
    ClaimedJob job;
    int found = 0;
    CHECK(store_job_claim(s, me, &job, &found, err) == 0 && found == 1, "%s", err);
    CHECK(job.run_id == e, "first claim %lld", (long long)job.run_id);
    CHECK(strcmp(job.config_json, "{\"arch\":\"attention\",\"d\":\"64\"}") == 0, "config %s",
          job.config_json);
    CHECK(job.resume_ckpt[0] == '\0', "resume_ckpt %s", job.resume_ckpt);
    int64_t order[4] = {claim(s, me), claim(s, me), claim(s, me), claim(s, me)};
    CHECK(order[0] == b && order[1] == d && order[2] == a && order[3] == c,
          "order %lld %lld %lld %lld", (long long)order[0], (long long)order[1],
          (long long)order[2], (long long)order[3]);
    CHECK(store_job_claim(s, me, &job, &found, err) == 0 && found == 0, "empty queue: %s", err);

    char want[64];
    snprintf(want, sizeof want, "running|%d|1|1|1", me);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || owner_pid || '|' ||"
                             " (started_at IS NOT NULL) || '|' || (heartbeat_at IS NOT NULL)"
                             " || '|' || (control IS NULL) FROM runs WHERE id = %lld", b).text,
                 want) == 0, "claimed row %s", value_of(s, "SELECT status || '|' || owner_pid"
                                                         " FROM runs WHERE id = %lld", b).text);
    CHECK(store_job_heartbeat(s, b, err) == 0, "%s", err);
    CHECK(store_job_claim(s, 0, &job, &found, err) == -1 && strstr(err, "process id"), "%s", err);
    store_close(s);
}

/* Child of test_concurrent_claims: waits until `start` is closed, then
   claims until the queue is empty, writing one id a line to out_path, with a
   pause after each claim as a worker starting a job would make.  After its
   first claim it writes a byte to `mine` and waits for the other worker's
   byte on `theirs`, so both take part whatever the scheduler does (a lone
   worker could otherwise empty the queue before the other starts).  Exits 0
   on success. */
static void claim_all(const char *db, const char *out_path, int start, int mine, int theirs)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    FILE *out = fopen(out_path, "w");
    if (!out || store_open(db, &s, err)) {
        fprintf(stderr, "child: %s\n", err);
        _exit(1);
    }
    char byte;
    if (read(start, &byte, 1) != 0) /* 0: every writer closed its end */
        _exit(1);
    struct timespec pause = {0, 200000};
    for (;;) {
        ClaimedJob job;
        int found = 0;
        if (store_job_claim(s, (int)getpid(), &job, &found, err)) {
            fprintf(stderr, "child: %s\n", err);
            _exit(1);
        }
        if (!found)
            break;
        fprintf(out, "%lld\n", (long long)job.run_id);
        if (mine >= 0) { /* the rendezvous after the first claim */
            if (write(mine, "c", 1) != 1 || read(theirs, &byte, 1) != 1)
                _exit(1);
            close(mine);
            close(theirs);
            mine = theirs = -1;
        }
        nanosleep(&pause, NULL);
    }
    store_close(s);
    _exit(fclose(out) == 0 ? 0 : 1);
}

static void test_concurrent_claims(void)
{
    enum { N_JOBS = 200, N_WORKERS = 2 };
    const char *path = db_path("concurrent.db");
    Store *s = open_store("concurrent.db");
    if (!s)
        return;
    for (int i = 0; i < N_JOBS; i++)
        enqueue(s, 0, NULL, i % 3);
    store_close(s); /* no connection crosses the fork */

    char db[512], outs[N_WORKERS][512];
    snprintf(db, sizeof db, "%s", path);
    pid_t workers[N_WORKERS];
    int start[2], ready[N_WORKERS][2];
    CHECK(pipe(start) == 0 && pipe(ready[0]) == 0 && pipe(ready[1]) == 0, "pipe");
    for (int w = 0; w < N_WORKERS; w++) {
        snprintf(outs[w], sizeof outs[w], "%s/claims%d.txt", tmp_dir, w);
        fflush(stdout);
        workers[w] = fork();
        if (workers[w] == 0) {
            close(start[1]);
            close(ready[w][0]);
            close(ready[1 - w][1]);
            claim_all(db, outs[w], start[0], ready[w][1], ready[1 - w][0]);
        }
        CHECK(workers[w] > 0, "fork");
    }
    for (int w = 0; w < N_WORKERS; w++) {
        close(ready[w][0]);
        close(ready[w][1]);
    }
    close(start[0]);
    close(start[1]); /* both workers start claiming now */
    for (int w = 0; w < N_WORKERS; w++) {
        int status = -1;
        CHECK(workers[w] > 0 && waitpid(workers[w], &status, 0) == workers[w] &&
              WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d failed", w);
    }

    int claimed_by[N_JOBS + 1] = {0}, per_worker[N_WORKERS] = {0}, duplicates = 0, strays = 0;
    for (int w = 0; w < N_WORKERS; w++) {
        FILE *f = fopen(outs[w], "r");
        CHECK(f != NULL, "read %s", outs[w]);
        long long id;
        while (f && fscanf(f, "%lld", &id) == 1) {
            if (id < 1 || id > N_JOBS) {
                strays++;
                continue;
            }
            if (claimed_by[id])
                duplicates++;
            claimed_by[id] = w + 1;
            per_worker[w]++;
        }
        if (f)
            fclose(f);
    }
    int unclaimed = 0;
    for (int id = 1; id <= N_JOBS; id++)
        unclaimed += claimed_by[id] == 0;
    CHECK(duplicates == 0 && strays == 0 && unclaimed == 0,
          "%d claimed twice, %d strays, %d unclaimed", duplicates, strays, unclaimed);
    /* Both took part, or the test proved nothing about concurrency. */
    CHECK(per_worker[0] > 0 && per_worker[1] > 0, "claims per worker: %d %d", per_worker[0],
          per_worker[1]);

    /* The store agrees with what each worker saw. */
    s = NULL;
    char err[ERR_LEN] = "";
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s)
        return;
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'running'") == N_JOBS,
          "all running");
    int mismatched = 0;
    for (int id = 1; id <= N_JOBS; id++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT owner_pid FROM runs WHERE id = %d", id);
        int w = claimed_by[id] - 1;
        if (w < 0 || query_num(s, sql) != (double)workers[w])
            mismatched++;
    }
    CHECK(mismatched == 0, "%d jobs owned by another pid than their claimer", mismatched);
    store_close(s);
}

static void test_requests(void)
{
    Store *s = open_store("requests.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    JobControl control = JOB_CONTROL_CANCEL;
    int me = (int)getpid();
    int64_t queued_pause = enqueue(s, 0, NULL, 0);
    int64_t queued_cancel = enqueue(s, 0, NULL, 0);
    const char *status_sql = "SELECT status || '|' || coalesce(control, '-') || '|' ||"
                             " (finished_at IS NOT NULL) FROM runs WHERE id = %lld";

    /* Queued: at once. */
    CHECK(store_job_request(s, queued_pause, "pause", err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, status_sql, queued_pause).text, "paused|-|0") == 0, "got %s",
          value_of(s, status_sql, queued_pause).text);
    CHECK(store_job_request(s, queued_pause, "pause", err) == 0, "pause twice: %s", err);
    CHECK(store_job_request(s, queued_cancel, "cancel", err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, status_sql, queued_cancel).text, "cancelled|-|1") == 0, "got %s",
          value_of(s, status_sql, queued_cancel).text);
    CHECK(claim(s, me) == 0, "a paused or cancelled job was claimed");

    /* Running: the worker is told. */
    int64_t running = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, me) == running, "claim");
    CHECK(store_job_control(s, running, &control, err) == 0 && control == JOB_CONTROL_NONE,
          "control '%s' %s", job_control_name(control), err);
    CHECK(store_job_request(s, running, "pause", err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, status_sql, running).text, "running|pause|0") == 0, "got %s",
          value_of(s, status_sql, running).text);
    CHECK(store_job_control(s, running, &control, err) == 0 && control == JOB_CONTROL_PAUSE,
          "control '%s' %s", job_control_name(control), err);
    CHECK(store_job_request(s, running, "cancel", err) == 0, "%s", err);
    CHECK(store_job_request(s, running, "pause", err) == 0, "%s", err);
    CHECK(store_job_control(s, running, &control, err) == 0 && control == JOB_CONTROL_CANCEL,
          "a pause replaced a cancel: '%s'", job_control_name(control));

    /* The worker obeys: finishing clears the request and the owner. */
    RunEnd end = {"cancelled", "cancelled by request", 3, 300, 1.0, 300.0, NAN, NAN, NAN};
    CHECK(store_run_finish(s, running, &end, err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || (control IS NULL) || (owner_pid IS NULL)"
                             " FROM runs WHERE id = %lld", running).text, "cancelled|11") == 0,
          "finish left %s", value_of(s, "SELECT coalesce(control, '-') || owner_pid FROM runs"
                                       " WHERE id = %lld", running).text);
    /* ... and so does pausing through store_run_set_status. */
    int64_t paused_by_worker = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, me) == paused_by_worker, "claim");
    CHECK(store_job_request(s, paused_by_worker, "pause", err) == 0, "%s", err);
    CHECK(store_run_set_status(s, paused_by_worker, "paused", err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || (control IS NULL) || (owner_pid IS NULL)"
                             " FROM runs WHERE id = %lld", paused_by_worker).text,
                 "paused|11") == 0, "set_status left the request");
    CHECK(store_job_request(s, paused_by_worker, "cancel", err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, status_sql, paused_by_worker).text, "cancelled|-|1") == 0,
          "paused then cancelled: %s", value_of(s, status_sql, paused_by_worker).text);

    /* Finished jobs and bad requests. */
    char want[96];
    snprintf(want, sizeof want, "run %lld is cancelled; nothing to pause", (long long)running);
    CHECK(store_job_request(s, running, "pause", err) == -1 && strcmp(err, want) == 0, "%s", err);
    RunInfo info = job_info("mixer", "clm");
    int64_t done = 0;
    CHECK(store_run_create(s, &info, &done, err) == 0, "%s", err);
    RunEnd ok = {"done", NULL, 100, 100, 1.0, 100.0, NAN, NAN, NAN};
    CHECK(store_run_finish(s, done, &ok, err) == 0, "%s", err);
    snprintf(want, sizeof want, "run %lld is done; nothing to cancel", (long long)done);
    CHECK(store_job_request(s, done, "cancel", err) == -1 && strcmp(err, want) == 0, "%s", err);
    CHECK(store_job_request(s, queued_pause, "stop", err) == -1 && strstr(err, "stop"), "%s",
          err);
    CHECK(strchr(err, '\n') == NULL, "one line");
    store_close(s);
}

static void test_resume(void)
{
    Store *s = open_store("resume.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int me = (int)getpid();
    int64_t job = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, me) == job, "claim");
    FirstValue started = value_of(s, "SELECT started_at FROM runs WHERE id = %lld", job);

    /* The worker checkpoints and pauses. */
    char ckpt[512];
    snprintf(ckpt, sizeof ckpt, "%s", db_path("job1.safetensors"));
    char want_row[600];
    snprintf(want_row, sizeof want_row, "%s|40", ckpt);
    CHECK(store_job_set_resume(s, job, 40, ckpt, err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT resume_ckpt || '|' || resume_step FROM runs"
                             " WHERE id = %lld", job).text, want_row) == 0,
          "resume point");
    snprintf(want_row, sizeof want_row, "40:%s", ckpt);
    CHECK(strcmp(value_of(s, "SELECT group_concat(step || ':' || path) FROM checkpoints"
                             " WHERE run_id = %lld", job).text, want_row) == 0,
          "checkpoint row");
    CHECK(store_job_set_resume(s, job, 80, fake_checkpoint(s, job, 80, ckpt), err) == 0, "%s", err);
    CHECK(store_run_set_status(s, job, "paused", err) == 0, "%s", err);
    CHECK(claim(s, me) == 0, "paused job claimed");

    CHECK(store_job_resume(s, job, err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || (control IS NULL) || '|' ||"
                             " (queued_at IS NOT NULL) FROM runs WHERE id = %lld", job).text,
                 "queued|1|1") == 0, "resumed row");
    CHECK(store_job_resume(s, job, err) == 0, "resume of a queued job: %s", err);
    ClaimedJob claimed;
    int found = 0;
    CHECK(store_job_claim(s, me, &claimed, &found, err) == 0 && found && claimed.run_id == job,
          "%s", err);
    CHECK(strcmp(claimed.resume_ckpt, ckpt) == 0, "resume_ckpt %s", claimed.resume_ckpt);
    CHECK(strcmp(value_of(s, "SELECT started_at FROM runs WHERE id = %lld", job).text,
                 started.text) == 0, "started_at moved on the second claim");

    /* Running: nothing to resume, unless a pause is pending (withdrawn). */
    char want[96];
    snprintf(want, sizeof want, "run %lld is running; nothing to resume", (long long)job);
    CHECK(store_job_resume(s, job, err) == -1 && strcmp(err, want) == 0, "%s", err);
    CHECK(store_job_request(s, job, "pause", err) == 0, "%s", err);
    CHECK(store_job_resume(s, job, err) == 0, "%s", err);
    CHECK(value_of(s, "SELECT control FROM runs WHERE id = %lld", job).is_null,
          "pause not withdrawn");

    /* Interrupted (Ctrl-C of the worker) resumes; failed does not. */
    RunEnd stop = {"interrupted", "stopped by SIGINT", 90, 900, 9.0, 100.0, NAN, NAN, NAN};
    CHECK(store_run_finish(s, job, &stop, err) == 0, "%s", err);
    CHECK(store_job_resume(s, job, err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || (finished_at IS NULL) FROM runs"
                             " WHERE id = %lld", job).text, "queued|1") == 0, "interrupted");
    CHECK(claim(s, me) == job, "claim again");
    RunEnd failed = {"failed", "out of memory", 95, 950, 9.5, 100.0, NAN, NAN, NAN};
    CHECK(store_run_finish(s, job, &failed, err) == 0, "%s", err);
    snprintf(want, sizeof want, "run %lld is failed; only a paused or interrupted job can be"
             " resumed", (long long)job);
    CHECK(store_job_resume(s, job, err) == -1 && strcmp(err, want) == 0, "%s", err);
    store_close(s);
}

/* A worker that died but is not reaped yet (a zombie, as mpirun's ranks
   are for a moment after one is killed) holds no job: recovery takes it. */
static void test_recover_zombie(void)
{
    Store *s = open_store("zombie.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    usleep(200000);   /* exited, not reaped: state Z */
    int64_t job = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, (int)child) == job, "claim");
    int n = -1;
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 1, "recovered %d %s", n, err);
    CHECK(strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", job).text, "queued") == 0,
          "a zombie's job: %s", value_of(s, "SELECT status FROM runs WHERE id = %lld", job).text);
    waitpid(child, NULL, 0);
    store_close(s);
}

/* Field 22 of /proc/PID/stat (the process start time), read here apart
   from db/jobs.c; -1 when unreadable. */
static long long stat_start(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    long long start = -1;
    /* fields 3..21 skipped, then 22 */
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d"
                            " %*d %*d %lld", &start) != 1)
        return -1;
    return start;
}

/* A claim records who owns the job beyond its pid: host, boot, start time,
   and a lease JOB_LEASE_SECONDS long that each heartbeat renews. */
static void test_claim_records_owner(void)
{
    Store *s = open_store("owner.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int me = (int)getpid();
    int64_t job = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, me) == job, "claim");
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    CHECK(strcmp(value_of(s, "SELECT owner_host FROM runs WHERE id = %lld", job).text, host) == 0,
          "owner_host %s, host %s", value_of(s, "SELECT owner_host FROM runs WHERE id = %lld", job).text,
          host);
    char boot_id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot_id, sizeof boot_id, f))
            boot_id[0] = 0;
        fclose(f);
    }
    boot_id[strcspn(boot_id, "\n")] = 0;
    CHECK(boot_id[0] && strstr(value_of(s, "SELECT owner_boot FROM runs WHERE id = %lld", job).text,
                               boot_id), "owner_boot %s",
          value_of(s, "SELECT owner_boot FROM runs WHERE id = %lld", job).text);
    long long start = stat_start(me);
    char want[32];
    snprintf(want, sizeof want, "%lld", start);
    CHECK(start > 0 && strcmp(value_of(s, "SELECT owner_start FROM runs WHERE id = %lld", job).text,
                              want) == 0, "owner_start %s, /proc says %lld",
          value_of(s, "SELECT owner_start FROM runs WHERE id = %lld", job).text, start);
    /* the lease runs JOB_LEASE_SECONDS from now (give or take the test's time) */
    double left = query_num(s, "SELECT (julianday(lease_until) - julianday('now')) * 86400 FROM runs");
    CHECK(left > JOB_LEASE_SECONDS - 30 && left <= JOB_LEASE_SECONDS + 1, "lease %.1f s", left);
    CHECK(query_num(s, "SELECT count(*) FROM runs r JOIN queue q ON q.id = r.id") == 1, "queue view");
    /* a heartbeat renews it */
    CHECK(exec_sql(s, "UPDATE runs SET lease_until = '2000-01-01T00:00:00.000Z'") == 0,
          "age the lease");
    CHECK(store_job_heartbeat(s, job, err) == 0, "%s", err);
    left = query_num(s, "SELECT (julianday(lease_until) - julianday('now')) * 86400 FROM runs");
    CHECK(left > JOB_LEASE_SECONDS - 30, "lease after heartbeat %.1f s", left);
    store_close(s);
}

/* A job owned by a live pid that names another process now (its recorded
   start time differs: the owner died and the pid was reused) is recovered;
   the same pid with its true start time is left alone. */
static void test_recover_reused_pid(void)
{
    Store *s = open_store("reused.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int me = (int)getpid();
    int64_t reused = enqueue(s, 0, NULL, 1);
    int64_t mine = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, me) == reused && claim(s, me) == mine, "claims");
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE runs SET owner_start = owner_start - 1 WHERE id = %lld",
             (long long)reused);
    CHECK(exec_sql(s, sql) == 0, "older start");
    int n = -1;
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 1, "recovered %d %s", n, err);
    FirstValue why = value_of(s, "SELECT status || ': ' || error FROM runs WHERE id = %lld", reused);
    char pid_text[64];
    snprintf(pid_text, sizeof pid_text, "worker process %d was gone", me);
    CHECK(strncmp(why.text, "queued: interrupted: ", 21) == 0 && strstr(why.text, pid_text) &&
          strstr(why.text, "another process"), "reused pid: %s", why.text);
    CHECK(strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", mine).text, "running") == 0,
          "the live owner's job was touched");
    /* A live pid whose start time was not recorded (a claim without /proc)
       is its owner, as before version 4. */
    CHECK(exec_sql(s, "UPDATE runs SET owner_start = NULL") == 0, "no start");
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 0, "recovered %d %s", n, err);
    store_close(s);
}

/* A job owned on another host (or another boot of this one, whose pids
   mean nothing now) is recovered once its lease has expired, whatever its
   pid names here, and left alone while the lease runs. */
static void test_recover_expired_lease(void)
{
    Store *s = open_store("lease.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int me = (int)getpid(), gone = dead_pid();
    int64_t expired = enqueue(s, 0, NULL, 5);
    int64_t leased = enqueue(s, 0, NULL, 4);
    int64_t leased_dead_pid = enqueue(s, 0, NULL, 3);
    int64_t other_boot = enqueue(s, 0, NULL, 2);
    int64_t other_boot_expired = enqueue(s, 0, NULL, 1);
    CHECK(claim(s, me) == expired && claim(s, me) == leased && claim(s, gone) == leased_dead_pid &&
          claim(s, me) == other_boot && claim(s, me) == other_boot_expired, "claims");
    char sql[512];
    snprintf(sql, sizeof sql,
             "UPDATE runs SET owner_host = 'elsewhere.example', lease_until ="
             " strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now', '-1 seconds') WHERE id = %lld;"
             "UPDATE runs SET owner_host = 'elsewhere.example' WHERE id IN (%lld, %lld);"
             "UPDATE runs SET owner_boot = 'another-boot pid:[1]' WHERE id IN (%lld, %lld);"
             "UPDATE runs SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = %lld;",
             (long long)expired, (long long)leased, (long long)leased_dead_pid,
             (long long)other_boot, (long long)other_boot_expired, (long long)other_boot_expired);
    CHECK(exec_sql(s, sql) == 0, "other hosts");
    int n = -1;
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 2, "recovered %d %s", n, err);
    FirstValue why = value_of(s, "SELECT status || ': ' || error FROM runs WHERE id = %lld", expired);
    CHECK(strncmp(why.text, "queued: interrupted: ", 21) == 0 && strstr(why.text, "elsewhere.example") &&
          strstr(why.text, "lease") && strstr(why.text, "queued again to resume from the start"),
          "expired lease: %s", why.text);
    CHECK(strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", other_boot_expired).text,
                 "queued") == 0, "another boot, lease expired: %s",
          value_of(s, "SELECT status FROM runs WHERE id = %lld", other_boot_expired).text);
    const char *status_sql = "SELECT status FROM runs WHERE id = %lld";
    CHECK(strcmp(value_of(s, status_sql, leased).text, "running") == 0, "a leased job was taken");
    CHECK(strcmp(value_of(s, status_sql, leased_dead_pid).text, "running") == 0,
          "a pid of another host was judged here");
    CHECK(strcmp(value_of(s, status_sql, other_boot).text, "running") == 0,
          "a leased job of another boot was taken");
    /* The lease runs out: the next recovery takes it. */
    snprintf(sql, sizeof sql, "UPDATE runs SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = %lld",
             (long long)leased);
    CHECK(exec_sql(s, sql) == 0, "expire");
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 1, "recovered %d %s", n, err);
    CHECK(strcmp(value_of(s, status_sql, leased).text, "queued") == 0, "expired later");
    /* A heartbeat keeps a job of another host alive. */
    CHECK(store_job_heartbeat(s, leased_dead_pid, err) == 0, "%s", err);
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 0, "recovered %d %s", n, err);
    store_close(s);
}

/* A version 3 store with running jobs claimed by the old code (owner_pid
   only) opens at version 4, and recovery judges those by their pid alone. */
static void test_upgrade_v3_running(void)
{
    const char *path = db_path("v3.db");
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK, "open");
    char *msg = NULL;
    for (int v = 0; v < 3; v++) {
        CHECK(sqlite3_exec(db, STORE_MIGRATIONS[v], NULL, NULL, &msg) == SQLITE_OK, "v%d: %s",
              v + 1, msg);
        sqlite3_free(msg);
        msg = NULL;
    }
    char fill[512];
    snprintf(fill, sizeof fill,
             "INSERT INTO runs (name, status, arch, task, owner_pid, queued_at) VALUES"
             " ('dead', 'running', 'mixer', 'clm', %d, '2026-01-01T00:00:00Z'),"
             " ('alive', 'running', 'mixer', 'clm', %d, '2026-01-01T00:00:00Z');"
             "PRAGMA user_version = 3;", dead_pid(), (int)getpid());
    CHECK(sqlite3_exec(db, fill, NULL, NULL, &msg) == SQLITE_OK, "fill: %s", msg);
    sqlite3_free(msg);
    CHECK(sqlite3_close(db) == SQLITE_OK, "close");

    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s)
        return;
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest(), "version %d", version);
    CHECK(query_num(s, "SELECT instr(sql, 'renewed by every heartbeat') > 0 FROM sqlite_schema"
                       " WHERE name = 'runs'") == 1, "column comments not kept");
    CHECK(strcmp(query1(s, "PRAGMA integrity_check").text, "ok") == 0, "integrity");
    int n = -1;
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 1, "recovered %d %s", n, err);
    CHECK(strcmp(query1(s, "SELECT group_concat(name || ':' || status) FROM"
                           " (SELECT name, status FROM runs ORDER BY id)").text,
                 "dead:queued,alive:running") == 0, "%s",
          query1(s, "SELECT group_concat(name || ':' || status) FROM runs").text);
    store_close(s);
}

/* `run --resume RUN` claims that run: interrupted or paused with a
   checkpoint, never one that is done or running. */
static void test_claim_run(void)
{
    Store *s = open_store("claim_run.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int me = (int)getpid();
    int64_t a = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, me) == a, "claim");
    ClaimedJob job;
    CHECK(store_job_claim_run(s, a, me, &job, err) != 0 && strstr(err, "is running"), "running: %s", err);
    const char *ckpt = fake_checkpoint(s, a, 40, db_path("claim_run-40.safetensors"));
    CHECK(store_job_set_resume(s, a, 40, ckpt, err) == 0, "%s", err);
    CHECK(store_run_set_status(s, a, "interrupted", err) == 0, "%s", err);
    CHECK(store_job_claim_run(s, a, me, &job, err) == 0 && job.run_id == a &&
          strcmp(job.resume_ckpt, ckpt) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", a).text, "running") == 0, "claimed");
    CHECK(store_job_claim_run(s, 999, me, &job, err) != 0 && strstr(err, "no run 999"), "%s", err);
    store_close(s);
}

static void test_recover(void)
{
    Store *s = open_store("recover.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int gone = dead_pid(), me = (int)getpid();
    int64_t orphan = enqueue(s, 0, NULL, 3);
    int64_t alive = enqueue(s, 0, NULL, 2);
    int64_t orphan_ckpt = enqueue(s, 0, NULL, 1);
    int64_t orphan_cancel = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, gone) == orphan && claim(s, me) == alive && claim(s, gone) == orphan_ckpt &&
          claim(s, gone) == orphan_cancel, "claims");
    char ckpt[512];
    snprintf(ckpt, sizeof ckpt, "%s", fake_checkpoint(s, orphan_ckpt, 40, db_path("recover-40.safetensors")));
    CHECK(store_job_set_resume(s, orphan_ckpt, 40, ckpt, err) == 0, "%s", err);
    CHECK(store_job_request(s, orphan_cancel, "cancel", err) == 0, "%s", err);
    /* A run of `mixbench run` whose process lives (this one) is left alone. */
    RunInfo info = job_info("mixer", "clm");
    int64_t lone = 0;
    CHECK(store_run_create(s, &info, &lone, err) == 0, "%s", err);

    int n = -1;
    CHECK(store_jobs_recover(s, &n, err) == 0, "%s", err);
    CHECK(n == 3, "recovered %d", n);
    const char *row_sql = "SELECT status || '|' || (owner_pid IS NULL) || (control IS NULL)"
                          " FROM runs WHERE id = %lld";
    CHECK(strcmp(value_of(s, row_sql, orphan).text, "queued|11") == 0, "orphan %s",
          value_of(s, row_sql, orphan).text);
    FirstValue why = value_of(s, "SELECT error FROM runs WHERE id = %lld", orphan);
    char pid_text[32];
    snprintf(pid_text, sizeof pid_text, "process %d", gone);
    CHECK(strstr(why.text, "interrupted") && strstr(why.text, pid_text) &&
          strstr(why.text, "queued again to resume from the start"), "error %s", why.text);
    why = value_of(s, "SELECT error FROM runs WHERE id = %lld", orphan_ckpt);
    CHECK(strstr(why.text, "resume from step 40"), "error %s", why.text);
    CHECK(strcmp(value_of(s, row_sql, orphan_cancel).text, "cancelled|11") == 0,
          "a pending cancel is obeyed: %s", value_of(s, row_sql, orphan_cancel).text);
    char want[64];
    snprintf(want, sizeof want, "running|%d", me);
    CHECK(strcmp(value_of(s, "SELECT status || '|' || owner_pid FROM runs WHERE id = %lld",
                           alive).text, want) == 0, "a live owner's job was touched");
    CHECK(strcmp(value_of(s, "SELECT status FROM runs WHERE id = %lld", lone).text,
                 "running") == 0, "a run without owner was touched");

    /* Recovered jobs are claimed again, from their checkpoint. */
    ClaimedJob job;
    int found = 0;
    CHECK(store_job_claim(s, me, &job, &found, err) == 0 && found && job.run_id == orphan, "%s",
          err);
    CHECK(store_job_claim(s, me, &job, &found, err) == 0 && found && job.run_id == orphan_ckpt &&
          strcmp(job.resume_ckpt, ckpt) == 0, "%s", err);
    CHECK(store_jobs_recover(s, &n, err) == 0 && n == 0, "second recovery %d %s", n, err);
    store_close(s);
}

static void test_sweep_results(void)
{
    Store *s = open_store("sweep.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int64_t sweep = 0, other = 0;
    CHECK(store_sweep_create(s, "grid", "layers=1,2 arch=attention,mixer",
                             "[\"layers\", \"arch\"]", &sweep, err) == 0, "%s", err);
    CHECK(store_sweep_create(s, "grid", "layers=4", NULL, &other, err) == 0, "%s", err);
    CHECK(strcmp(query1(s, "SELECT group_concat(axes_json, ' ') FROM sweeps").text,
                 "[\"layers\", \"arch\"] []") == 0, "axes");
    const char *coords[4] = {
        "{\"layers\": \"1\", \"arch\": \"attention\"}", "{\"layers\": \"1\", \"arch\": \"mixer\"}",
        "{\"layers\": \"2\", \"arch\": \"attention\"}", "{\"layers\": \"2\", \"arch\": \"mixer\"}",
    };
    int64_t jobs[4];
    for (int i = 0; i < 4; i++) {
        RunInfo info = job_info(i % 2 ? "mixer" : "attention", "clm");
        info.layers = i < 2 ? 1 : 2;
        CHECK(store_job_enqueue(s, &info, sweep, coords[i], 0, &jobs[i], err) == 0, "%s", err);
    }
    enqueue(s, other, "{\"layers\": \"4\"}", 0);
    int64_t lone = enqueue(s, 0, NULL, 0);
    RunInfo bad = job_info("mixer", "clm");
    int64_t id;
    CHECK(store_job_enqueue(s, &bad, 999, NULL, 0, &id, err) == -1 &&
          strcmp(err, "store: queue job: no sweep 999") == 0, "%s", err);
    CHECK(store_job_enqueue(s, &bad, sweep, "{layers", 0, &id, err) == -1, "bad JSON accepted");
    CHECK(store_job_enqueue(s, &bad, sweep, "[1, 2]", 0, &id, err) == -1, "array coords accepted");
    CHECK(query_num(s, "SELECT count(*) FROM runs") == 6, "a refused job left a row");

    /* Two jobs finish with numbers. */
    int me = (int)getpid();
    for (int i = 0; i < 2; i++) {
        CHECK(claim(s, me) == jobs[i], "claim %d", i);
        MetricRow row = {.step = 10, .tokens = 1000, .wall = 1.0, .train_loss = 3.0 - i,
                         .train_loss_smooth = 3.5 - i, .lr = 1e-3, .grad_norm = 1.0,
                         .tokens_per_s = 1000.0};
        CHECK(store_metrics_append(s, jobs[i], &row, 1, err) == 0, "%s", err);
        EvalRow test = {10, "test", 2.5 - i, 0.5, NAN, 100, NAN};
        CHECK(store_eval_add(s, jobs[i], &test, err) == 0, "%s", err);
        RunEnd end = {"done", NULL, 10, 1000, 1.0, 1000.0, NAN, NAN, NAN};
        CHECK(store_run_finish(s, jobs[i], &end, err) == 0, "%s", err);
    }

    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sweep_results WHERE sweep_id = %lld",
             (long long)sweep);
    CHECK(query_num(s, sql) == 4, "rows %g", query_num(s, sql));
    snprintf(sql, sizeof sql,
             "SELECT group_concat(run_id || ':' || json_extract(coords, '$.layers') || ':' ||"
             " json_extract(coords, '$.arch') || ':' || status || ':' ||"
             " coalesce(test_loss, '-') || ':' || sweep, ',') FROM (SELECT * FROM sweep_results"
             " WHERE sweep_id = %lld ORDER BY run_id)", (long long)sweep);
    char want[512];
    snprintf(want, sizeof want, "%lld:1:attention:done:2.5:grid,%lld:1:mixer:done:1.5:grid,"
             "%lld:2:attention:queued:-:grid,%lld:2:mixer:queued:-:grid",
             (long long)jobs[0], (long long)jobs[1], (long long)jobs[2], (long long)jobs[3]);
    CHECK(strcmp(query1(s, sql).text, want) == 0, "got %s", query1(s, sql).text);
    /* The numbers are those of results, row for row. */
    CHECK(query_num(s, "SELECT count(*) FROM sweep_results x JOIN results r ON r.id = x.run_id"
                       " WHERE r.train_loss IS x.train_loss AND r.test_loss IS x.test_loss AND"
                       " r.tokens_per_s IS x.tokens_per_s AND r.status = x.status") == 5,
          "sweep_results differs from results");
    CHECK(value_of(s, "SELECT count(*) FROM sweep_results WHERE run_id = %lld", lone).text[0]
          == '0', "a job of no sweep is in sweep_results");
    /* Coordinates are stored minified, axis values read as the job's keys. */
    CHECK(strcmp(value_of(s, "SELECT coords_json FROM runs WHERE id = %lld", jobs[0]).text,
                 "{\"layers\":\"1\",\"arch\":\"attention\"}") == 0, "coords %s",
          value_of(s, "SELECT coords_json FROM runs WHERE id = %lld", jobs[0]).text);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sweep_results s JOIN runs r ON r.id ="
             " s.run_id WHERE s.sweep_id = %lld AND"
             " CAST(json_extract(s.coords, '$.layers') AS INTEGER) = r.layers", (long long)sweep);
    CHECK(query_num(s, sql) == 4, "coords disagree with the runs");

    /* docs/store.md's queries run (tests/cli/test_docs_sql.sh runs them as written). */
    snprintf(sql, sizeof sql, "SELECT group_concat(arch || '=' || best, ',') FROM (SELECT arch,"
             " min(test_loss) AS best FROM sweep_results WHERE sweep_id = %lld AND status ="
             " 'done' GROUP BY arch ORDER BY arch)", (long long)sweep);
    CHECK(strcmp(query1(s, sql).text, "attention=2.5,mixer=1.5") == 0, "best per arch %s",
          query1(s, sql).text);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT json_extract(s.coords, '$.layers') AS layers,"
             " s.run_id, min(c.step) AS step, c.train_loss_smooth FROM sweep_results s"
             " JOIN curves c ON c.run_id = s.run_id WHERE s.sweep_id = %lld AND c.tokens >= 500"
             " GROUP BY s.run_id ORDER BY CAST(layers AS INTEGER))", (long long)sweep);
    CHECK(query_num(s, sql) == 2, "loss after N tokens %g", query_num(s, sql));
    CHECK(query_num(s, "SELECT count(*) FROM queue WHERE status = 'queued'") == 4, "queued");
    CHECK(strcmp(query1(s, "SELECT sweep || ':' || json_extract(coords, '$.layers') FROM queue"
                           " WHERE position = 1").text, "grid:2") == 0, "queue head %s",
          query1(s, "SELECT sweep || ':' || coords FROM queue WHERE position = 1").text);

    /* Deleting a sweep keeps its runs, without a sweep. */
    snprintf(sql, sizeof sql, "DELETE FROM sweeps WHERE id = %lld", (long long)sweep);
    CHECK(store_query(s, sql, NULL, NULL, err) == 0, "%s", err);
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE sweep_id IS NULL") == 5,
          "ON DELETE SET NULL");
    store_close(s);
}

static void test_paper_figures(void)
{
    Store *s = open_store("paper.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    CHECK(store_paper_figure_add(s, "pairconnect-grid", "{\"layers\": \"2\", \"heads\": \"4\"}",
                                 "test_perplexity", 145.5, "Table 1", NULL, NULL, err) == 0, "%s", err);
    CHECK(store_paper_figure_add(s, "pairconnect-grid", "{\"layers\":\"2\",\"heads\":\"4\"}",
                                 "test_perplexity", 141.25, "Table 1, corrected", NULL, NULL, err) == 0,
          "%s", err);
    CHECK(store_paper_figure_add(s, "pairconnect-grid", "{\"layers\": \"2\", \"heads\": \"4\"}",
                                 "samples_per_s", NAN, NULL, NULL, NULL, err) == 0, "%s", err);
    CHECK(store_paper_figure_add(s, "fnet", NULL, "test_loss", 3.0, "Figure 2", NULL, NULL, err) == 0, "%s",
          err);
    CHECK(query_num(s, "SELECT count(*) FROM paper_figures") == 3, "rows %g",
          query_num(s, "SELECT count(*) FROM paper_figures"));
    CHECK(strcmp(query1(s, "SELECT value || '|' || note || '|' || json_extract(coords_json,"
                           " '$.heads') FROM paper_figures WHERE metric = 'test_perplexity'").text,
                 "141.25|Table 1, corrected|4") == 0, "got %s",
          query1(s, "SELECT value || '|' || note FROM paper_figures").text);
    CHECK(query_num(s, "SELECT value IS NULL FROM paper_figures WHERE metric = 'samples_per_s'")
          == 1, "NaN stored as a number");
    CHECK(strcmp(query1(s, "SELECT coords_json FROM paper_figures WHERE preset = 'fnet'").text,
                 "{}") == 0, "NULL coords");
    CHECK(store_paper_figure_add(s, "fnet", "{}", NULL, 1.0, NULL, NULL, NULL, err) == -1 &&
          strstr(err, "metric"), "%s", err);
    CHECK(store_paper_figure_add(s, "fnet", "{oops", "test_loss", 1.0, NULL, NULL, NULL, err) == -1,
          "bad JSON accepted");
    store_close(s);
}

static void test_unknown_runs(void)
{
    Store *s = open_store("unknown.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    JobControl control;
    const char *want = "store: run 4242: no such run";
    CHECK(store_job_control(s, 4242, &control, err) == -1 &&
          strcmp(err, want) == 0, "control: %s", err);
    CHECK(store_job_request(s, 4242, "pause", err) == -1 && strcmp(err, want) == 0, "request: %s",
          err);
    CHECK(store_job_resume(s, 4242, err) == -1 && strcmp(err, want) == 0, "resume: %s", err);
    CHECK(store_job_set_resume(s, 4242, 1, "x.safetensors", err) == -1 && strcmp(err, want) == 0,
          "set_resume: %s", err);
    CHECK(query_num(s, "SELECT count(*) FROM checkpoints") == 0, "checkpoint row left behind");
    CHECK(store_job_set_priority(s, 4242, 1, err) == -1 && strcmp(err, want) == 0, "priority: %s",
          err);
    CHECK(store_job_heartbeat(s, 4242, err) == -1 && strcmp(err, want) == 0, "heartbeat: %s",
          err);
    CHECK(store_job_set_resume(s, 1, 1, "", err) == -1 && strstr(err, "path"), "%s", err);

    /* A finished job keeps its priority; every failed call left the store
       usable (no transaction left open). */
    int64_t job = enqueue(s, 0, NULL, 0);
    CHECK(claim(s, (int)getpid()) == job, "claim");
    RunEnd end = {"done", NULL, 1, 1, 0.1, 10.0, NAN, NAN, NAN};
    CHECK(store_run_finish(s, job, &end, err) == 0, "%s", err);
    char expect[96];
    snprintf(expect, sizeof expect, "run %lld is done; its priority no longer matters",
             (long long)job);
    CHECK(store_job_set_priority(s, job, 3, err) == -1 && strcmp(err, expect) == 0, "%s", err);
    CHECK(enqueue(s, 0, NULL, 0) == job + 1, "store not usable after errors");
    store_close(s);
}

/* What a worker writes besides claiming: the start of a claimed job and a
   forgotten periodic checkpoint; and the names of control requests. */
static void test_worker_writes(void)
{
    Store *s = open_store("worker_writes.db");
    if (!s)
        return;
    char err[ERR_LEN] = "";
    int64_t job = enqueue(s, 0, NULL, 0);
    RunInfo info = job_info("ignored", "clm");
    info.n_params = 1234;
    info.n_params_nonembedding = 567;
    info.total_steps = 300;
    info.threads = 2;
    info.vocab = 652;
    info.tokenizer = "char";
    info.config_json = "{\"steps\":300}";
    CHECK(store_job_started(s, job, &info, err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT n_params || '|' || n_params_nonembedding || '|' || total_steps || '|' ||"
                             " threads || '|' || vocab || '|' || tokenizer || '|' || config_json || '|' || arch"
                             " FROM runs WHERE id = %lld", job).text,
                 "1234|567|300|2|652|char|{\"steps\":300}|attention") == 0,
          "got %s", value_of(s, "SELECT n_params || '|' || tokenizer || '|' || arch FROM runs WHERE id = %lld",
                              job).text);
    CHECK(store_job_started(s, 4242, &info, err) == -1 && strcmp(err, "store: run 4242: no such run") == 0,
          "%s", err);

    CHECK(store_checkpoint_add(s, job, 10, "/tmp/w-step10.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, job, 20, "/tmp/w-step20.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_forget(s, job, "/tmp/w-step10.safetensors", err) == 0, "%s", err);
    CHECK(strcmp(value_of(s, "SELECT group_concat(step) FROM checkpoints WHERE run_id = %lld", job).text,
                 "20") == 0,
          "left: %s", value_of(s, "SELECT group_concat(step) FROM checkpoints WHERE run_id = %lld", job).text);
    CHECK(store_checkpoint_forget(s, job, "/tmp/not-listed.safetensors", err) == 0, "an unlisted file: %s", err);

    CHECK(job_control_parse("pause") == JOB_CONTROL_PAUSE && job_control_parse("cancel") == JOB_CONTROL_CANCEL &&
              job_control_parse(NULL) == JOB_CONTROL_NONE && job_control_parse("") == JOB_CONTROL_NONE &&
              job_control_parse("stop") == JOB_CONTROL_NONE,
          "parse");
    CHECK(!strcmp(job_control_name(JOB_CONTROL_PAUSE), "pause") &&
              !strcmp(job_control_name(JOB_CONTROL_CANCEL), "cancel") && !strcmp(job_control_name(JOB_CONTROL_NONE), ""),
          "names");
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("jobs")) return 1;
    RUN(test_upgrade_v1);
    RUN(test_claim_order);
    RUN(test_concurrent_claims);
    RUN(test_requests);
    RUN(test_resume);
    RUN(test_recover);
    RUN(test_recover_zombie);
    RUN(test_claim_records_owner);
    RUN(test_recover_reused_pid);
    RUN(test_recover_expired_lease);
    RUN(test_upgrade_v3_running);
    RUN(test_claim_run);
    RUN(test_sweep_results);
    RUN(test_paper_figures);
    RUN(test_unknown_runs);
    RUN(test_worker_writes);
    tmp_dir_remove();
    CHECK_EXIT();
}
