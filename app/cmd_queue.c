/*
 * cmd_queue.c — the experiment engine's commands:
 *   mixbench sweep PRESET|GRID... [--data D] [--dry-run] [--priority P]   queue (or list) a sweep's jobs
 *   mixbench worker [--jobs N] [--threads T]     run queued jobs headless until the queue is empty
 *   mixbench queue                               queued, running and paused jobs
 *   mixbench pause|cancel|resume RUN...          control jobs
 *   mixbench export [--sweep S] --csv|--json [--curves]   results (or curves) as CSV / JSON
 * All take --db FILE (default mixbench.db).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "experiments/scheduler.h"
#include "experiments/sweep_queue.h"
#include "db/jobs.h"
#include "engine/common.h"
#include "engine/pool.h"
#include "experiments/estimate.h"
#include "experiments/sweep.h"

int cmd_sweep(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *priority_s = "0", *data = NULL;
    int dry = 0;
    /* options first; every other word is the grid (or a preset name) */
    char *grid[512];
    int n_grid = 0;
    Config base;
    config_defaults(&base);
    char err[ERR_LEN];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--dry-run")) {
            dry = 1;
        } else if (!strcmp(a, "--db") || !strcmp(a, "--priority") || !strcmp(a, "--data") ||
                   !strcmp(a, "--tokenizer")) {
            if (i + 1 >= argc) return cli_fail("sweep: option %s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--db")) db_path = v;
            else if (!strcmp(a, "--priority")) priority_s = v;
            else if (config_set(&base, a + 2, v, err)) return cli_fail("sweep: %s", err);
            if (!strcmp(a, "--data")) data = v;
        } else if (!strncmp(a, "--", 2)) {
            return cli_fail("sweep: unknown option %s", a);
        } else if (n_grid < 512) {
            grid[n_grid++] = argv[i];
        } else {
            return cli_fail("sweep: more than 512 grid words");
        }
    }
    if (n_grid == 0) return cli_fail("sweep: name a preset or give a grid (e.g. layers=1,2 arch=mixer,attention)");
    char *end;
    long priority = strtol(priority_s, &end, 10);
    if (*end) return cli_fail("sweep: --priority %s is not a whole number", priority_s);
    Sweep sw;
    if (sweep_parse_data(n_grid, grid, &base, data, &sw, err)) return cli_fail("%s", err);
    printf("sweep %s: %d job%s\n", sw.name, sw.n_jobs, sw.n_jobs == 1 ? "" : "s");
    for (int i = 0; i < sw.n_jobs; i++) {
        const Config *c = &sw.jobs[i].config;
        printf("  %3d  %-11s %-10s %s  %s\n", i + 1, c->arch, c->task, sw.jobs[i].coords, c->data);
    }
    SweepEstimate est = sweep_estimate(&sw, 2);
    char when[32];
    format_duration(est.seconds, when, sizeof when);
    printf("estimated time: ~%s with 2 jobs at a time (%.3g PFLOP training + %.3g evaluation at %.0f GFLOP/s a "
           "thread%s)\n",
           when, est.train_flops / 1e15, est.eval_flops / 1e15, est.gflops,
           est.rate_from_env ? ", MIXBENCH_GFLOPS" : "; set MIXBENCH_GFLOPS to this machine's rate");
    if (dry) {
        sweep_free(&sw);
        return 0;
    }
    Store *st;
    if (store_open(db_path, &st, err)) {
        sweep_free(&sw);
        return cli_fail("%s", err);
    }
    int64_t sweep_id;
    int rc = sweep_enqueue(st, &sw, (int)priority, &sweep_id, err);
    store_close(st);
    sweep_free(&sw);
    if (rc) return cli_fail("%s", err);
    printf("queued as sweep %lld; run them with `mixbench worker` (or in the workbench)\n", (long long)sweep_id);
    return 0;
}

static volatile int worker_stop;
static Scheduler *active_scheduler;

static void on_worker_signal(int sig)
{
    (void)sig;
    worker_stop = 1;
    if (active_scheduler) scheduler_request_stop(active_scheduler);
}

int cmd_worker(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *jobs_s = NULL, *threads_s = NULL, *verbose = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"jobs", 1, &jobs_s, NULL}, {"threads", 1, &threads_s, NULL},
                     {"verbose", 0, &verbose, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("worker: %s", err);
    int cores = pool_cores();
    char *end;
    if (threads_s) {
        cores = (int)strtol(threads_s, &end, 10);
        if (*end || cores < 1) return cli_fail("worker: --threads %s is not a positive count", threads_s);
    }
    int jobs = cores;
    if (jobs_s) {
        jobs = (int)strtol(jobs_s, &end, 10);
        if (*end || jobs < 1 || jobs > 64) return cli_fail("worker: --jobs %s is not 1..64", jobs_s);
    }
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    store_close(st);
    SchedulerOptions o = {db_path, jobs, cores, 1, verbose == NULL && jobs > 1, 0};
    Scheduler *s;
    if (scheduler_start(&s, &o, err)) return cli_fail("worker: %s", err);
    active_scheduler = s;
    signal(SIGINT, on_worker_signal);
    signal(SIGTERM, on_worker_signal);
    int finished = scheduler_wait(s);
    active_scheduler = NULL;
    scheduler_free(s);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    printf("worker: %d job%s ended%s\n", finished, finished == 1 ? "" : "s",
           worker_stop ? " (stopped: running jobs checkpointed and queued again)" : "; the queue is empty");
    return worker_stop ? 130 : 0;
}

/* Prints rows as aligned text. */
static int print_row(void *ctx, int ncols, char **values, char **names)
{
    int *header = ctx;
    if (!*header) {
        for (int i = 0; i < ncols; i++) printf("%s%s", i ? "\t" : "", names[i]);
        printf("\n");
        *header = 1;
    }
    for (int i = 0; i < ncols; i++) printf("%s%s", i ? "\t" : "", values[i] ? values[i] : "");
    printf("\n");
    return 0;
}

int cmd_queue(int argc, char **argv)
{
    const char *db_path = "mixbench.db";
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("queue: %s", err);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    int header = 0;
    int rc = store_query(st, "SELECT * FROM queue", print_row, &header, err);
    store_close(st);
    if (rc) return cli_fail("%s", err);
    if (!header) printf("the queue is empty\n");
    return 0;
}

/* pause / cancel / resume RUN... */
static int control_command(const char *what, int argc, char **argv)
{
    const char *db_path = "mixbench.db";
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {NULL, 0, NULL, NULL}};
    const char *ids[256];
    int n_ids = 0;
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, ids, 256, &n_ids, err)) return cli_fail("%s: %s", what, err);
    if (n_ids == 0) return cli_fail("%s: name at least one run id", what);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    int failures = 0;
    for (int i = 0; i < n_ids; i++) {
        char *end;
        long long id = strtoll(ids[i], &end, 10);
        int rc;
        if (*end || id <= 0) rc = err_set(err, "'%s' is not a run id", ids[i]);
        else if (!strcmp(what, "resume")) rc = store_job_resume(st, id, err);
        else rc = store_job_request(st, id, what, err);
        if (rc) {
            cli_fail("%s: %s", what, err);
            failures++;
        } else {
            printf("run %lld: %s requested\n", id, what);
        }
    }
    store_close(st);
    return failures ? 1 : 0;
}

int cmd_pause(int argc, char **argv) { return control_command("pause", argc, argv); }
int cmd_cancel(int argc, char **argv) { return control_command("cancel", argc, argv); }
int cmd_resume(int argc, char **argv) { return control_command("resume", argc, argv); }

typedef struct {
    int json, header, first;
} ExportCtx;

/* One CSV field, quoted when needed. */
static void csv_field(const char *v)
{
    if (!v) return;
    if (!strpbrk(v, ",\"\n")) {
        fputs(v, stdout);
        return;
    }
    putchar('"');
    for (; *v; v++) {
        if (*v == '"') putchar('"');
        putchar(*v);
    }
    putchar('"');
}

static int export_row(void *p, int ncols, char **values, char **names)
{
    ExportCtx *x = p;
    if (x->json) {
        StrBuf sb;
        sb_init(&sb);
        sb_append(&sb, x->first ? "\n  {" : ",\n  {");
        for (int i = 0; i < ncols; i++) {
            if (i) sb_append(&sb, ", ");
            sb_json_string(&sb, names[i]);
            sb_append(&sb, ": ");
            if (!values[i]) sb_append(&sb, "null");
            else sb_json_string(&sb, values[i]);
        }
        sb_append(&sb, "}");
        fputs(sb.data, stdout);
        sb_free(&sb);
        x->first = 0;
        return 0;
    }
    if (!x->header) {
        for (int i = 0; i < ncols; i++) {
            if (i) putchar(',');
            csv_field(names[i]);
        }
        putchar('\n');
        x->header = 1;
    }
    for (int i = 0; i < ncols; i++) {
        if (i) putchar(',');
        csv_field(values[i]);
    }
    putchar('\n');
    return 0;
}

int cmd_export(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *sweep = NULL, *csv = NULL, *json = NULL, *curves = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"sweep", 1, &sweep, NULL},    {"csv", 0, &csv, NULL},
                     {"json", 0, &json, NULL},  {"curves", 0, &curves, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("export: %s", err);
    if (!csv == !json) return cli_fail("export: choose one of --csv and --json");
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    /* results: one row per run, with every config key flattened into a column */
    StrBuf sql;
    sb_init(&sql);
    if (curves) {
        sb_append(&sql, "SELECT c.* FROM curves c JOIN runs r ON r.id = c.run_id");
    } else {
        sb_append(&sql, "SELECT res.*");
        for (int i = 0; i < config_key_count(); i++)
            sb_printf(&sql, ", json_extract(r.config_json, '$.%s') AS \"cfg_%s\"", config_key_name(i),
                      config_key_name(i));
        sb_append(&sql, ", r.coords_json AS coords FROM results res JOIN runs r ON r.id = res.id");
    }
    const char *params[1] = {sweep};
    if (sweep)
        sb_append(&sql, " WHERE r.sweep_id = (SELECT id FROM sweeps WHERE id = ?1 OR name = ?1 ORDER BY id DESC LIMIT 1)");
    sb_append(&sql, curves ? " ORDER BY c.run_id, c.step" : " ORDER BY res.id");
    ExportCtx x = {json != NULL, 0, 1};
    if (json) printf("[");
    int rc = store_query_params(st, sql.data, params, sweep ? 1 : 0, export_row, &x, err);
    if (json) printf("%s]\n", x.first ? "" : "\n");
    sb_free(&sql);
    store_close(st);
    return rc ? cli_fail("export: %s", err) : 0;
}
