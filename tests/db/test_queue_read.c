/*
 * test_queue_read.c — the typed reads of db/queue_read.h: the queue view's
 * rows (order, positions, status and control as enums, coordinates as
 * words, a cap), counting and listing runs by status, the mean speed of
 * each architecture over its finished runs, and the clm runs with a
 * checkpoint (the newest one named) that the Generate screen offers.
 *
 * Not for: the rules of the queue (tests/db/test_jobs.c).
 */
#include "db/ckpt_owner.h"
#include "db/jobs.h"
#include "db/queue_read.h"
#include "db/store.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run of `mixbench run` that ended with status, tokens_per_s. */
static int64_t finished_run(Store *s, const char *arch, const char *task, const char *status, double tps)
{
    char err[ERR_LEN] = "";
    RunInfo info = job_info(arch, task);
    int64_t id = 0;
    CHECK(store_run_create(s, &info, &id, err) == 0, "%s", err);
    RunEnd end = {status, NULL, 10, 1000, 1.0, tps, NAN, NAN, NAN};
    CHECK(store_run_finish(s, id, &end, err) == 0, "%s", err);
    return id;
}

static void queue_rows(void)
{
    Store *s = open_store("queue.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t sweep = 0;
    CHECK(store_sweep_create(s, "grid", "arch=attention layers=1,2", "[\"arch\",\"layers\"]", &sweep, err) == 0,
          "%s", err);
    int64_t low = enqueue(s, sweep, "{\"arch\":\"attention\",\"layers\":\"1\"}", 0);
    int64_t high = enqueue(s, sweep, "{\"arch\":\"attention\",\"layers\":\"2\"}", 5);
    int64_t running = enqueue(s, 0, NULL, 9);
    int64_t paused = enqueue(s, 0, NULL, 0);
    ClaimedJob job;
    int found = 0;
    CHECK(store_job_claim(s, (int)getpid(), &job, &found, err) == 0 && found && job.run_id == running, "%s", err);
    CHECK(store_job_request(s, running, "pause", err) == 0, "%s", err);
    CHECK(store_job_request(s, paused, "pause", err) == 0, "%s", err);
    CHECK(store_job_set_resume(s, running, 40, "/tmp/run-step40.safetensors", err) == 0, "%s", err);

    QueueJob rows[8];
    int n = -1;
    CHECK(queue_read_jobs(s, rows, 8, &n, err) == 0, "%s", err);
    CHECK(n == 4, "%d rows", n);
    if (n == 4) {
        /* running first, then the queued ones by priority, then paused */
        CHECK(rows[0].id == running && rows[0].status == RUN_RUNNING && rows[0].position == 0 &&
                  rows[0].control == JOB_CONTROL_PAUSE && rows[0].priority == 9 && rows[0].resume_step == 40,
              "running row: %lld %s pos %d control %s prio %d resume %lld", (long long)rows[0].id,
              run_status_name(rows[0].status), rows[0].position, job_control_name(rows[0].control),
              rows[0].priority, (long long)rows[0].resume_step);
        CHECK(rows[1].id == high && rows[1].status == RUN_QUEUED && rows[1].position == 1, "second: %lld pos %d",
              (long long)rows[1].id, rows[1].position);
        CHECK(rows[2].id == low && rows[2].position == 2, "third: %lld pos %d", (long long)rows[2].id,
              rows[2].position);
        CHECK(rows[3].id == paused && rows[3].status == RUN_PAUSED && rows[3].control == JOB_CONTROL_NONE,
              "last: %lld %s", (long long)rows[3].id, run_status_name(rows[3].status));
        CHECK(!strcmp(rows[1].sweep, "grid") && !strcmp(rows[1].coords, "arch=attention layers=2") &&
                  !strcmp(rows[1].point, "layers=2"),
              "sweep '%s' coords '%s' point '%s'", rows[1].sweep, rows[1].coords, rows[1].point);
        CHECK(!rows[0].sweep[0] && !rows[0].coords[0] && !rows[0].point[0], "a job outside a sweep: '%s' '%s'",
              rows[0].sweep, rows[0].coords);
        CHECK(!strcmp(rows[1].arch, "attention") && !strcmp(rows[1].task, "clm") && rows[1].total_steps == 100 &&
                  rows[1].steps_done == 0 && !rows[1].error[0],
              "%s %s %lld/%lld '%s'", rows[1].arch, rows[1].task, (long long)rows[1].steps_done,
              (long long)rows[1].total_steps, rows[1].error);
    }
    /* at most cap rows */
    CHECK(queue_read_jobs(s, rows, 2, &n, err) == 0 && n == 2 && rows[1].id == high, "cap 2: %d %s", n, err);
    CHECK(queue_read_jobs(s, rows, 0, &n, err) == 0 && n == 0, "cap 0: %d %s", n, err);
    store_close(s);
}

static void by_status(void)
{
    Store *s = open_store("status.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t a = enqueue(s, 0, NULL, 0), b = enqueue(s, 0, NULL, 0), c = enqueue(s, 0, NULL, 0);
    CHECK(store_run_set_status(s, c, "interrupted", err) == 0, "%s", err);
    CHECK(store_run_set_status(s, a, "interrupted", err) == 0, "%s", err);
    int64_t count = -1;
    CHECK(queue_read_count(s, RUN_QUEUED, &count, err) == 0 && count == 1, "queued %lld %s", (long long)count, err);
    CHECK(queue_read_count(s, RUN_DONE, &count, err) == 0 && count == 0, "done %lld %s", (long long)count, err);
    int64_t *ids = NULL;
    int n = -1;
    CHECK(queue_read_ids(s, RUN_INTERRUPTED, &ids, &n, err) == 0 && n == 2 && ids[0] == a && ids[1] == c,
          "interrupted: %d %s", n, err);
    free(ids);
    CHECK(queue_read_ids(s, RUN_DONE, &ids, &n, err) == 0 && n == 0 && ids == NULL, "done: %d %s", n, err);
    (void)b;
    store_close(s);
}

static void run_speeds(void)
{
    Store *s = open_store("speeds.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t mixer = finished_run(s, "mixer", "clm", "done", 100);
    int64_t att = finished_run(s, "attention", "clm", "done", 1000);
    finished_run(s, "attention", "clm", "failed", 90000);   /* not finished: left out */
    finished_run(s, "cumsum", "clm", "done", 0);            /* measured nothing: left out */
    RunSpeed *sp = NULL;
    int n = -1;
    CHECK(queue_read_run_speeds(s, &sp, &n, err) == 0 && n == 2, "%d %s", n, err);
    if (n == 2) {
        CHECK(sp[0].id == mixer && fabs(sp[0].tokens_per_s - 100) < 1e-9 && sp[0].config_json[0] == '{', "%lld %g %s",
              (long long)sp[0].id, sp[0].tokens_per_s, sp[0].config_json);
        CHECK(sp[1].id == att && fabs(sp[1].tokens_per_s - 1000) < 1e-9, "%lld %g", (long long)sp[1].id,
              sp[1].tokens_per_s);
    }
    queue_speeds_free(sp, n);
    store_close(s);
}

static void ckpt_runs(void)
{
    Store *s = open_store("ckpt.db");
    if (!s) return;
    char err[ERR_LEN] = "";
    int64_t clm = finished_run(s, "attention", "clm", "done", 100);
    int64_t mlm = finished_run(s, "attention", "mlm", "done", 100);
    int64_t bare = finished_run(s, "attention", "clm", "done", 100);     /* no checkpoint */
    int64_t failed = finished_run(s, "attention", "clm", "failed", 100); /* not offered */
    int64_t paused = enqueue(s, 0, NULL, 0);
    CHECK(store_checkpoint_add(s, clm, 10, "/tmp/a-step10.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, clm, 20, "/tmp/a.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, mlm, 20, "/tmp/m.safetensors", err) == 0, "%s", err);
    CHECK(store_checkpoint_add(s, failed, 5, "/tmp/f.safetensors", err) == 0, "%s", err);
    CHECK(store_job_set_resume(s, paused, 7, "/tmp/p-step7.safetensors", err) == 0, "%s", err);
    CHECK(store_job_request(s, paused, "pause", err) == 0, "%s", err);

    CkptRun runs[8];
    int n = -1;
    CHECK(queue_read_clm_runs(s, runs, 8, &n, err) == 0 && n == 2, "%d %s", n, err);
    if (n == 2) {
        /* newest first */
        CHECK(runs[0].id == paused && runs[0].status == RUN_PAUSED && runs[0].ckpt_step == 7, "%lld %s %lld",
              (long long)runs[0].id, run_status_name(runs[0].status), (long long)runs[0].ckpt_step);
        CHECK(runs[1].id == clm && runs[1].status == RUN_DONE && runs[1].ckpt_step == 20 &&
                  !strcmp(runs[1].ckpt, "/tmp/a.safetensors") && runs[1].d == 64 && runs[1].layers == 2 &&
                  runs[1].n_ctx == 32 && !strcmp(runs[1].arch, "attention"),
              "%lld step %lld '%s' d=%d", (long long)runs[1].id, (long long)runs[1].ckpt_step, runs[1].ckpt,
              runs[1].d);
    }
    CHECK(queue_read_clm_runs(s, runs, 1, &n, err) == 0 && n == 1 && runs[0].id == paused, "cap 1: %d", n);

    CkptRun r;
    int found = -1;
    CHECK(queue_read_ckpt_run(s, mlm, &r, &found, err) == 0 && found == 1 && !strcmp(r.task, "mlm") &&
              r.ckpt_step == 20,
          "mlm: %d %s %s", found, r.task, err);
    CHECK(queue_read_ckpt_run(s, bare, &r, &found, err) == 0 && found == 1 && !r.ckpt[0] && r.ckpt_step == 0,
          "without a checkpoint: '%s'", r.ckpt);
    CHECK(queue_read_ckpt_run(s, 4242, &r, &found, err) == 0 && found == 0, "unknown run: %d %s", found, err);
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("queue-read")) return 1;
    RUN(queue_rows);
    RUN(by_status);
    RUN(run_speeds);
    RUN(ckpt_runs);
    tmp_dir_remove();
    CHECK_EXIT();
}
