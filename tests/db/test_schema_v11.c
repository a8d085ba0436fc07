/*
 * test_schema_v11.c — schema version 11 (db/migrations_v11.c): a version 10
 * store with a finished run of a sweep upgraded in place: the run kept with
 * its numbers, peak_run_mb NULL for it (measured since), the views results,
 * results_all and sweep_results made again with the columns and reading
 * what they read before; a run finished after the upgrade stores its own
 * peak and training CPU seconds (RunEnd.peak_run_mb, train_cpu_seconds),
 * NAN as NULL, and db/results.h reads them as points.h's peak_mb and
 * tokens_per_cpu_s.
 *
 * Not for: measuring the peak (experiments/job_memory.h: a run's own
 * memory is tested by tests/experiments/test_memory.sh's worker runs).
 */
#include "db/results.h"
#include "db/store.h"
#include "engine/common.h"
#include "experiments/points.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <math.h>
#include <string.h>

static void test_upgrade_v10(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s", db_path("v10.db"));
    store_file_at_version(path, 10,
                          "INSERT INTO sweeps (name, spec, preset) VALUES ('long-context', 'n_ctx=512', 'long-context');"
                          "INSERT INTO runs (status, arch, task, sweep_id, coords_json, tokens_per_s, peak_mem_mb)"
                          " VALUES ('done', 'cumsum', 'clm', 1, '{\"n_ctx\":\"512\"}', 9000.5, 321.0);"
                          "INSERT INTO evals (run_id, step, split, loss) VALUES (1, 2, 'test', 6.5);");
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(path, &s, err) == 0, "%s", err);
    if (!s) return;
    int version = 0;
    CHECK(store_schema_version(s, &version, err) == 0 && version == store_schema_latest() && version >= 11, "%d",
          version);
    CHECK(!strcmp(query1(s, "SELECT tokens_per_s || ':' || peak_mem_mb || ':' || (peak_run_mb IS NULL) || ':' ||"
                            " (train_cpu_seconds IS NULL) || ':' || test_loss FROM sweep_results WHERE run_id = 1").text,
                  "9000.5:321.0:1:1:6.5"),
          "the old run through the new view: %s",
          query1(s, "SELECT tokens_per_s || ':' || peak_mem_mb || ':' || (peak_run_mb IS NULL) || ':' ||"
                    " test_loss FROM sweep_results WHERE run_id = 1").text);
    CHECK(query_num(s, "SELECT count(*) FROM results_all") == 1 && query_num(s, "SELECT count(*) FROM results") == 1,
          "results and results_all");
    /* a run ended since: its own peak stored, NAN as NULL */
    RunInfo info = {.arch = "attention", .task = "clm", .data = "builtin:stories", .config_json = "{}"};
    int64_t a = 0, b = 0;
    CHECK(store_job_enqueue(s, &info, 1, "{\"n_ctx\": \"2048\"}", 0, &a, err) == 0, "%s", err);
    CHECK(store_job_enqueue(s, &info, 1, "{\"n_ctx\": \"8192\"}", 0, &b, err) == 0, "%s", err);
    RunEnd end = {"done", NULL, 2, 4096, 2.0, 2048, 500, 80.25, 0.5};
    CHECK(store_run_finish(s, a, &end, err) == 0, "%s", err);
    end.peak_run_mb = end.train_cpu_seconds = NAN;
    CHECK(store_run_finish(s, b, &end, err) == 0, "%s", err);
    CHECK(!strcmp(value_of(s, "SELECT peak_run_mb FROM results WHERE id = %lld", a).text, "80.25") &&
              !strcmp(value_of(s, "SELECT train_cpu_seconds FROM results_all WHERE id = %lld", a).text, "0.5") &&
              !strcmp(value_of(s, "SELECT (peak_run_mb IS NULL) + (train_cpu_seconds IS NULL) FROM sweep_results"
                                  " WHERE run_id = %lld", b).text, "2"),
          "stored peaks");
    ResultRun *runs = NULL;
    int n = 0;
    CHECK(results_sweep_runs(s, 1, 1, &runs, &n, err) == 0 && n == 3, "%d runs: %s", n, err);
    for (int i = 0; i < n; i++) {
        double want = runs[i].run_id == a ? 80.25 : NAN, got = result_metric(&runs[i], PM_PEAK_MB);
        double want_cpu = runs[i].run_id == a ? 8192 : NAN, cpu = result_metric(&runs[i], PM_TOKENS_PER_CPU_S);
        CHECK(isnan(want) ? isnan(got) : got == want, "run %lld: peak_mb %g", (long long)runs[i].run_id, got);
        CHECK(isnan(want_cpu) ? isnan(cpu) : cpu == want_cpu, "run %lld: tokens_per_cpu_s %g",
              (long long)runs[i].run_id, cpu);
    }
    CHECK(!strcmp(point_metric_name(PM_PEAK_MB), "peak_mb") && point_metric_find("peak_mb") == PM_PEAK_MB,
          "the metric's name");
    free(runs);
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("schema_v11")) return 1;
    RUN(test_upgrade_v10);
    tmp_dir_remove();
    CHECK_EXIT();
}
