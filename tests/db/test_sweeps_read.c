/*
 * test_sweeps_read.c — the typed reads of db/sweeps_read.h on a small
 * store written through the store API: the latest sweeps (all, or of some
 * presets), a sweep's axes, and its jobs with status as a RunStatus,
 * numbers as numbers, NULL as NAN, and coordinates in order (a JSON
 * number written "%g" and flagged, other JSON values left out).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/jobs.h"
#include "db/results.h"
#include "db/store_internal.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "tests/check.h"
#include "tests/test_util.h"

static int64_t new_sweep(Store *s, const char *name, const char *axes_json)
{
    int64_t id = 0;
    char err[ERR_LEN];
    if (store_sweep_create(s, name, name, axes_json, &id, err)) printf("  sweep: %s\n", err);
    return id;
}

static int64_t enqueue_task(Store *s, int64_t sweep, const char *arch, const char *task, const char *coords)
{
    RunInfo info = {0};
    info.arch = arch;
    info.task = task;
    info.data = "builtin:stories";
    info.tokenizer = "word";
    info.config_json = "{}";
    info.total_steps = 40;
    info.vocab = 100;
    info.d = 32;
    info.layers = 2;
    info.heads = 1;
    info.n_ctx = 16;
    int64_t id = 0;
    char err[ERR_LEN];
    if (store_job_enqueue(s, &info, sweep, coords, 0, &id, err)) printf("  enqueue: %s\n", err);
    return id;
}

static int64_t enqueue_arch(Store *s, int64_t sweep, const char *arch, const char *coords)
{
    return enqueue_task(s, sweep, arch, "clm", coords);
}

static void test_latest(void)
{
    Store *s = open_store("latest.db");
    int64_t a = new_sweep(s, "grid", NULL), b = new_sweep(s, "autoencoder", NULL);
    int64_t c = new_sweep(s, "bidirectional", NULL), d = new_sweep(s, "grid", NULL);
    char err[ERR_LEN] = "";
    SweepRow *rows = NULL;
    int n = -1;
    CHECK(sweeps_read_latest(s, NULL, 0, 10, &rows, &n, err) == 0, "%s", err);
    CHECK(n == 4 && rows[0].id == a && rows[3].id == d && !strcmp(rows[1].name, "autoencoder"), "all: %d", n);
    free(rows);
    CHECK(sweeps_read_latest(s, NULL, 0, 2, &rows, &n, err) == 0, "%s", err);
    CHECK(n == 2 && rows[0].id == c && rows[1].id == d, "the latest two, oldest first: %d", n);
    free(rows);
    const char *names[] = {"autoencoder", "bidirectional", "completion"};
    CHECK(sweeps_read_latest(s, names, 3, 64, &rows, &n, err) == 0, "%s", err);
    CHECK(n == 2 && rows[0].id == b && rows[1].id == c && !strcmp(rows[1].name, "bidirectional"), "named: %d", n);
    free(rows);
    CHECK(sweeps_read_latest(s, names + 2, 1, 64, &rows, &n, err) == 0 && n == 0 && rows == NULL, "none: %d", n);
    store_close(s);
}

/* the AE/Bidir screen's sweeps: its presets', and any other with a job of
   its tasks (a study of one's own); a deleted job does not count */
static void test_latest_tasks(void)
{
    Store *s = open_store("tasks.db");
    int64_t ae = new_sweep(s, "autoencoder", NULL), mine = new_sweep(s, "my-ae", NULL);
    int64_t plain = new_sweep(s, "grid", NULL), gone = new_sweep(s, "my-bidir", NULL);
    enqueue_task(s, mine, "mixer", "clm", "{}");
    enqueue_task(s, mine, "mixer", "autoencode", "{}");
    enqueue_task(s, plain, "mixer", "clm", "{}");
    int64_t deleted = enqueue_task(s, gone, "mixer", "bidir", "{}");
    char err[ERR_LEN] = "";
    char sql[128];   /* the trash refuses a queued job: put it there by hand */
    snprintf(sql, sizeof sql, "UPDATE runs SET deleted_at = '2026-11-29T00:00:00Z' WHERE id = %lld", (long long)deleted);
    CHECK(store_exec(s, sql, "trash", err) == 0, "%s", err);
    const char *names[] = {"autoencoder", "bidirectional", "completion"};
    const char *tasks[] = {"autoencode", "bidir", "complete"};
    SweepRow *rows = NULL;
    int n = -1;
    CHECK(sweeps_read_latest_tasks(s, names, 3, tasks, 3, 64, &rows, &n, err) == 0, "%s", err);
    CHECK(n == 2 && rows[0].id == ae && rows[1].id == mine && !strcmp(rows[1].preset, "my-ae"), "%d", n);
    free(rows);
    CHECK(sweeps_read_latest_tasks(s, NULL, 0, tasks, 3, 64, &rows, &n, err) == 0 && n == 1 && rows[0].id == mine,
          "tasks alone: %d", n);
    free(rows);
    CHECK(sweeps_read_latest_tasks(s, NULL, 0, NULL, 0, 64, &rows, &n, err) == 0 && n == 4, "every one: %d", n);
    free(rows);
    (void)plain;
    store_close(s);
}

static void test_axes(void)
{
    Store *s = open_store("axes.db");
    int64_t id = new_sweep(s, "grid", "[\"arch\", \"layers\", \"seed\"]"), bare = new_sweep(s, "grid", NULL);
    char err[ERR_LEN] = "";
    SweepAxes axes;
    CHECK(sweeps_read_axes(s, id, &axes, err) == 0, "%s", err);
    CHECK(axes.n == 3 && !strcmp(axes.key[0], "arch") && !strcmp(axes.key[1], "layers") && !strcmp(axes.key[2], "seed"),
          "%d axes", axes.n);
    CHECK(sweeps_read_axes(s, bare, &axes, err) == 0 && axes.n == 0, "[]: %d", axes.n);
    CHECK(sweeps_read_axes(s, 999, &axes, err) == 0 && axes.n == 0, "no such sweep: %d", axes.n);
    store_close(s);
}

static void test_jobs(void)
{
    Store *s = open_store("jobs.db");
    char err[ERR_LEN] = "";
    int64_t sweep = new_sweep(s, "grid", "[\"arch\", \"layers\"]");
    int64_t done = enqueue_arch(s, sweep, "mixer", "{\"arch\": \"mixer\", \"layers\": \"2\", \"seed\": \"1\"}");
    int64_t queued = enqueue_arch(s, sweep, "attention", NULL);
    int64_t odd = enqueue_arch(s, sweep, "attention", "{\"lr\": 0.001, \"flag\": true, \"big\": 1000000, \"arch\": \"a\"}");
    enqueue_arch(s, new_sweep(s, "grid", NULL), "mixer", NULL);   /* another sweep's job */
    /* the finished job: metrics, a valid and a test evaluation, its end */
    MetricRow m = {40, 2560, 1.5, 3.25, 3.5, 1e-3, 0.5, 1706.5};
    CHECK(store_metrics_append(s, done, &m, 1, err) == 0, "%s", err);
    EvalRow valid = {40, "valid", 3.75, 0.25, NAN, 1000, NAN}, test = {40, "test", 3.625, 0.375, NAN, 1000, NAN};
    CHECK(store_eval_add(s, done, &valid, err) == 0 && store_eval_add(s, done, &test, err) == 0, "%s", err);
    CHECK(store_run_set_infer(s, done, 812.5, err) == 0, "%s", err);
    RunEnd end = {"done", NULL, 40, 2560, 1.5, 1706.5, 10, NAN, NAN};
    CHECK(store_run_finish(s, done, &end, err) == 0, "%s", err);

    ResultRun *jobs = NULL;
    int n = -1;
    CHECK(results_sweep_runs(s, sweep, 0, &jobs, &n, err) == 0, "%s", err);
    CHECK(n == 3, "%d jobs", n);
    if (n == 3) {
        const ResultRun *j = &jobs[0];
        CHECK(j->run_id == done && j->state == RUN_DONE && !strcmp(j->arch, "mixer") && !strcmp(j->task, "clm"),
              "done job %lld status %d", (long long)j->run_id, (int)j->state);
        CHECK(j->steps_done == 40 && j->total_steps == 40 && j->tokens == 2560, "progress %lld/%lld",
              (long long)j->steps_done, (long long)j->total_steps);
        CHECK(j->d == 32 && j->layers == 2 && j->n_ctx == 16, "sizes");
        CHECK(j->train_loss == 3.5 && j->valid_loss == 3.75 && j->best_valid_loss == 3.75 && j->test_loss == 3.625,
              "losses %g %g %g", j->train_loss, j->valid_loss, j->test_loss);
        CHECK(j->test_accuracy == 0.375 && j->test_perplexity > 37.5 && j->test_perplexity < 37.6,
              "accuracy %g perplexity %g", j->test_accuracy, j->test_perplexity);
        CHECK(j->tokens_per_s == 1706.5 && j->infer_samples_per_s == 812.5, "speeds");
        CHECK(isnan(j->test_loss_all) && isnan(j->valid_loss_all), "loss_all NULL -> NAN");
        CHECK(j->n_coords == 3 && !strcmp(j->coords[0].key, "arch") && !strcmp(j->coords[1].value, "2") &&
                  !strcmp(j->coords[2].key, "seed"),
              "coords %d", j->n_coords);

        j = &jobs[1];
        CHECK(j->run_id == queued && j->state == RUN_QUEUED && j->steps_done == 0 && j->n_coords == 0,
              "queued job %d coords", j->n_coords);
        CHECK(isnan(j->train_loss) && isnan(j->test_loss) && isnan(j->best_valid_loss) && isnan(j->test_accuracy) &&
                  isnan(j->infer_samples_per_s),
              "NULL -> NAN");

        j = &jobs[2];
        /* numbers as SQLite writes them; a boolean is no coordinate */
        CHECK(j->run_id == odd && j->n_coords == 3, "odd job: %d coords", j->n_coords);
        if (j->n_coords == 3) {
            CHECK(!strcmp(j->coords[0].key, "lr") && !strcmp(j->coords[0].value, "0.001"), "%s", j->coords[0].value);
            CHECK(!strcmp(j->coords[1].key, "big") && !strcmp(j->coords[1].value, "1000000"), "%s", j->coords[1].value);
            CHECK(!strcmp(j->coords[2].value, "a"), "%s", j->coords[2].value);
        }
    }
    free(jobs);
    CHECK(results_sweep_runs(s, 999, 0, &jobs, &n, err) == 0 && n == 0 && jobs == NULL, "no such sweep: %d", n);
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("sweeps-read")) return 1;
    RUN(test_latest);
    RUN(test_latest_tasks);
    RUN(test_axes);
    RUN(test_jobs);
    tmp_dir_remove();
    CHECK_EXIT();
}
