/*
 * cmd_queue.c — the experiment engine's commands:
 *   mixbench sweep PRESET|GRID... [--data D] [--dry-run] [--priority P] [--name NAME]   queue (or list) a sweep's jobs
 *                  [--search random --trials N [--search-seed S]] [--prune asha|median]
 *   mixbench worker [--jobs N] [--threads T]     run queued jobs headless until the queue is empty
 *                                                (under mpirun: over the launch's ranks, mpi_sweep.h)
 *   mixbench queue                               queued, running and paused jobs
 *   mixbench pause|cancel|resume RUN...          control jobs
 *   mixbench export [--sweep S] [--where EXPR] --csv|--json [--curves]   results (or curves) as CSV / JSON
 * All take --db FILE (default mixbench.db).  queue and export read through
 * db/cli_read.h; export --json writes each cell with the type SQLite gives it.
 */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/commands.h"
#include "app/job_print.h"
#include "db/cli_read.h"
#include "db/jobs.h"
#include "db/organise.h"
#include "db/queue_read.h"
#include "db/status.h"
#include "engine/common.h"
#include "engine/dist.h"
#include "engine/io/json.h"
#include "engine/memory.h"
#include "engine/pool.h"
#include "engine/text.h"
#include "experiments/estimate.h"
#include "experiments/format.h"
#include "experiments/adaptive.h"
#include "experiments/mpi_sweep.h"
#include "experiments/prune.h"
#include "experiments/run_filter.h"
#include "experiments/scheduler.h"
#include "experiments/sweep.h"
#include "experiments/sweep_check.h"
#include "experiments/sweep_queue.h"

enum { MAX_GRID_WORDS = 512 };

/* What an adaptive sweep adds to the estimate: lr=tune's searches, and
   --until-conclusive's cap (its worst case); and what early stops take
   from it. */
static void print_plan(const Sweep *sw, const SweepEstimate *est)
{
    if (sw->plan.lr_tune) {
        /* its first rung is at least ADAPTIVE_TUNE_MIN_STEPS steps */
        SearchEstimate se = adaptive_search_estimate(sw);
        char when[32], most[32], from[48];
        fmt_duration(est->seconds / sw->n_jobs * se.runs, when, sizeof when);
        fmt_duration(est->seconds / sw->n_jobs * se.worst, most, sizeof most);
        if (se.share_hi - se.share_lo < 1e-9) snprintf(from, sizeof from, "%.3g", se.share_lo);
        else snprintf(from, sizeof from, "%.3g to %.3g", se.share_lo, se.share_hi);
        printf("lr=tune: each point first searches %d learning rates from %.2g to %.2g (successive halving from "
               "%s of its budget, at least %d steps): about %.2f runs' training a point, ~%s more; while no rate "
               "has left the unigram plateau all go on, and a winner at the grid's edge meets %d rates beyond it, "
               "up to %.2f runs' a point, ~%s\n",
               sw->plan.tune_points, sw->plan.tune_lo, sw->plan.tune_hi, from, ADAPTIVE_TUNE_MIN_STEPS,
               se.points ? se.runs / se.points : 0, when, ADAPTIVE_TUNE_EDGE_STEPS,
               se.points ? se.worst / se.points : 0, most);
    }
    const SweepPlan *p = &sw->plan;
    if (p->random_search)
        printf("random search: %d trials of %s drawn with search seed %lld (the same seed draws the same trials), "
               "each with its seeds\n", p->trials, p->search_keys, (long long)p->search_seed);
    if (p->prune == PRUNE_ASHA) {
        int top = prune_top_rung(p);
        double share = prune_asha_share(p, sw->jobs[0].config.cooldown);
        char when[32];
        fmt_duration(est->seconds * share, when, sizeof when);
        printf("--prune asha: rungs at");
        for (int k = 0; k <= top; k++) printf("%s %.3g", k ? "," : "", pow(p->prune_eta, k - top));
        printf(" of each budget (prune_eta %g, prune_grace %g); a trial goes on while among the best 1/%g of its "
               "rung (its best always): about %.0f%% of the trials' full training, ~%s\n",
               p->prune_eta, p->prune_grace, p->prune_eta, 100 * share, when);
    }
    if (p->prune == PRUNE_MEDIAN)
        printf("--prune median: a trial above the median of the earlier trials' valid loss at the same step (past "
               "%g of its budget, once %d have completed) stops there: at most the time above\n",
               p->prune_grace, p->prune_startup);
    if (sw->plan.until_conclusive) {
        if (sw->plan.max_hours > 0)
            printf("until conclusive: rounds of extensions and seeds until every claim is decided; at most %.1f CPU "
                   "hours in all (the cap: its worst case, %.1f hours on 2 cores)\n",
                   sw->plan.max_hours, sw->plan.max_hours / 2);
        else
            printf("until conclusive: rounds of extensions and seeds until every claim is decided, with no cap "
                   "(--max-hours H sets one)\n");
    }
    int early = 0;
    for (int i = 0; i < sw->n_jobs; i++) early += sw->jobs[i].config.stop_accuracy > 0 || sw->jobs[i].config.patience > 0;
    if (early)
        printf("early stops: %d of %d jobs end once solved or no longer improving (stop_accuracy, patience): the "
               "estimate is of their full budgets, at most the time above\n",
               early, sw->n_jobs);
}

/* The training speeds measured in the store at db_path, when it exists
   (an estimate without them is the FLOP model's). */
static void speeds_of_store(const char *db_path, SpeedBook *book)
{
    struct stat st;
    Store *s;
    char err[ERR_LEN];
    if (stat(db_path, &st) || store_open_existing(db_path, &s, err)) return;
    if (speed_book_load(s, book, err)) speed_book_free(book);
    store_close(s);
}

/* `mixbench sweep` alone: the presets, each with its jobs and their time
   here (the store's measured speeds where it has them). */
static int list_presets(const char *db_path)
{
    SpeedBook book = {0};
    speeds_of_store(db_path, &book);
    printf("%-22s %5s %9s  %s\n", "preset", "jobs", "time", "what (the paper's setting: PRESET@paper)");
    for (int i = 0; i < preset_count(); i++) {
        const Preset *p = preset_at(i);
        char *argv[1] = {(char *)p->name}, err[ERR_LEN], when[32] = "-";
        Config base;
        config_defaults(&base);
        Sweep sw;
        int jobs = -1;
        if (sweep_parse(1, argv, &base, &sw, err) == 0) {
            jobs = sw.n_jobs;
            fmt_duration(sweep_estimate(&sw, 2, &book).seconds, when, sizeof when);
            sweep_free(&sw);
        }
        /* its line without its own "; N jobs, ~T": the columns say those, measured here */
        const char *cut = strstr(p->what, " jobs, ~");
        while (cut && cut > p->what && cut[-1] != ';') cut--;
        int len = cut && cut > p->what ? (int)(cut - p->what - 1) : (int)strlen(p->what);
        printf("%-22s %5d %9s  %s: %.*s%s\n", p->name, jobs, when, p->source, len, p->what,
               p->paper_spec ? " (@paper)" : "");
    }
    speed_book_free(&book);
    printf("time: 2 jobs at a time on this machine (estimated).  Queue one: mixbench sweep PRESET; "
           "a grid: mixbench sweep key=v1,v2 ...\n");
    return 0;
}

/* `mixbench sweep --continue ID [--max-hours H]`: an --until-conclusive
   sweep judged again and going on, under a larger cap when H is given
   (experiments/adaptive.h adaptive_continue). */
static int continue_sweep(const char *id_s, const char *hours_s, int n_grid, const char *db_path)
{
    int64_t id;
    double hours = 0;
    char err[ERR_LEN];
    if (n_grid) return cli_fail("sweep: --continue takes a sweep's id and --max-hours, not a grid");
    if (text_to_int64(id_s, &id) || id < 1) return cli_fail("sweep: --continue %s is not a sweep id", id_s);
    if (hours_s && (text_to_double(hours_s, &hours) || !(hours > 0) || hours > 1e6))
        return cli_fail("sweep: --max-hours %s is not a number of hours > 0", hours_s);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    double old_cap = 0;
    int rc = adaptive_continue(st, id, hours, &old_cap, err);
    /* the round it stopped in acts now (extensions, seeds) */
    if (rc == 0) rc = adaptive_advance(st, id, NULL, err);
    store_close(st);
    if (rc) return cli_fail("%s", err);
    if (hours > 0)
        printf("sweep %lld: cap raised from %g to %g CPU hours; run its jobs with `mixbench worker`\n", (long long)id,
               old_cap, hours);
    else
        printf("sweep %lld: judged again under its cap of %g CPU hours; run its jobs with `mixbench worker`\n",
               (long long)id, old_cap);
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *priority_s = "0", *data = NULL, *tokenizer = NULL, *dry = NULL,
               *until = NULL, *hours_s = NULL, *name = NULL, *search = NULL, *trials = NULL, *search_seed = NULL,
               *prune = NULL, *cont = NULL;
    const CliOpt opts[] = {{"db", 1, &db_path, NULL},     {"priority", 1, &priority_s, NULL},
                           {"data", 1, &data, NULL},      {"tokenizer", 1, &tokenizer, NULL},
                           {"dry-run", 0, &dry, NULL},    {"until-conclusive", 0, &until, NULL},
                           {"max-hours", 1, &hours_s, NULL}, {"name", 1, &name, NULL},
                           {"search", 1, &search, NULL},  {"trials", 1, &trials, NULL},
                           {"search-seed", 1, &search_seed, NULL}, {"prune", 1, &prune, NULL},
                           {"continue", 1, &cont, NULL},  {NULL, 0, NULL, NULL}};
    /* every word but the options is the grid (or a preset name) */
    const char *grid[MAX_GRID_WORDS + 1];
    int n_grid = 0;
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, grid, MAX_GRID_WORDS + 1, &n_grid, err)) return cli_fail("sweep: %s", err);
    if (cont) return continue_sweep(cont, hours_s, n_grid, db_path);
    if (n_grid == 0 && !(search || trials || search_seed || prune)) return list_presets(db_path);
    /* the search's options are words of the spec (search=random trials=N
       search_seed=S prune=P), so the stored spec makes the same trials */
    char words[4][96];
    const char *const keys[4] = {"search", "trials", "search_seed", "prune"}, *values[4] = {search, trials,
                                                                                          search_seed, prune};
    for (int i = 0; i < 4; i++) {
        if (!values[i]) continue;
        if (n_grid >= MAX_GRID_WORDS) break;
        snprintf(words[i], sizeof words[i], "%s=%.80s", keys[i], values[i]);
        grid[n_grid++] = words[i];
    }
    if (n_grid > MAX_GRID_WORDS) return cli_fail("sweep: more than %d grid words", MAX_GRID_WORDS);
    Config base;
    config_defaults(&base);
    if ((tokenizer && config_set(&base, "tokenizer", tokenizer, err)) || (data && config_set(&base, "data", data, err)))
        return cli_fail("sweep: %s", err);
    int priority;
    if (text_to_int(priority_s, INT_MIN, INT_MAX, &priority))
        return cli_fail("sweep: --priority %s is not a whole number", priority_s);
    double max_hours = 0;
    if (hours_s && !until) return cli_fail("sweep: --max-hours caps --until-conclusive; give both");
    if (hours_s && (text_to_double(hours_s, &max_hours) || !(max_hours > 0) || max_hours > 1e6))
        return cli_fail("sweep: --max-hours %s is not a number of hours > 0", hours_s);
    char shown[256];
    if (name && store_text_check(STORE_TEXT_SWEEP_NAME, name, err))
        return cli_fail("sweep: --name %s: %s", text_shown(name, shown, sizeof shown), err);
    Sweep sw;
    if (sweep_parse_data(n_grid, (char **)grid, &base, data, &sw, err)) return cli_fail("%s", err);
    if (name) snprintf(sw.label, sizeof sw.label, "%s", name);
    /* a study file may ask for --until-conclusive itself (docs/studies.md),
       and its cap holds unless --max-hours gives another */
    const Preset *study = preset_find(sw.name);
    if (study && study->until_conclusive) {
        if (!until) until = "study";
        if (!hours_s) max_hours = study->max_hours;
    }
    if (until && sweep_until_conclusive(&sw, max_hours, err)) {
        sweep_free(&sw);
        return cli_fail("%s", err);
    }
    /* what the jobs would find when they start: their data loads, and
       their memory (experiments/sweep_check.h) */
    SweepCheck check;
    if (sweep_check(&sw, &check, err)) {
        sweep_free(&sw);
        return cli_fail("sweep: %s; nothing queued", err);
    }
    printf("sweep %s%s%s: %d job%s\n", sw.label[0] ? sw.label : sw.name, sw.label[0] ? " of " : "",
           sw.label[0] ? sw.name : "", sw.n_jobs, sw.n_jobs == 1 ? "" : "s");
    for (int i = 0; i < sw.n_jobs; i++) {
        const Config *c = &sw.jobs[i].config;
        char mem[32];
        memory_fmt(check.jobs[i].need, mem, sizeof mem);
        printf("  %3d  %-11s %-10s %s  %s  memory %s%s\n", i + 1, c->arch, c->task, sw.jobs[i].coords, c->data, mem,
               check.jobs[i].fits ? "" : "  DOES NOT FIT");
    }
    char largest[32], avail[32];
    memory_fmt(check.largest, largest, sizeof largest);
    memory_fmt(check.available, avail, sizeof avail);
    if (check.n_unfit)
        printf("memory: %d of %d jobs do not fit: the largest needs %s but %s is available here (%s); a worker "
               "here fails them\n", check.n_unfit, sw.n_jobs, largest, avail, check.source);
    else
        printf("memory: the largest job needs %s, %s is available here (%s)\n", largest, avail, check.source);
    sweep_check_free(&check);
    SpeedBook book = {0};
    speeds_of_store(db_path, &book);
    SweepEstimate est = sweep_estimate(&sw, 2, &book);
    speed_book_free(&book);
    char when[32];
    fmt_duration(est.seconds, when, sizeof when);
    char basis[1024];
    estimate_describe(&est, basis, sizeof basis);
    int assumed = 0;
    for (int a = 0; a < est.n_archs; a++) assumed |= est.arch[a].src.basis == SPEED_ASSUMED;
    printf("estimated time: ~%s with 2 jobs at a time (%.3g PFLOP training + %.3g evaluation; tokens/s: %s%s)\n",
           when, est.train_flops / 1e15, est.eval_flops / 1e15, basis,
           assumed && !est.rate_from_env ? "; set MIXBENCH_GFLOPS to this machine's rate" : "");
    print_plan(&sw, &est);
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
    int rc = name ? store_name_free(st, STORE_TEXT_SWEEP_NAME, name, err) : 0;
    if (rc == 0) rc = sweep_enqueue(st, &sw, priority, &sweep_id, err);
    /* lr=tune: the points' first rungs */
    if (rc == 0) rc = adaptive_advance(st, sweep_id, NULL, err);
    store_close(st);
    sweep_free(&sw);
    if (rc) return cli_fail("sweep: %s; nothing queued", err);
    printf("queued as sweep %lld; run them with `mixbench worker` (or in the workbench)\n", (long long)sweep_id);
    return 0;
}

/* Set by the signal handler, read by the main thread: lock-free atomics. */
static atomic_int worker_stop;
static _Atomic(Scheduler *) active_scheduler;

static void on_worker_signal(int sig)
{
    (void)sig;
    atomic_store(&worker_stop, 1);
    Scheduler *s = atomic_load(&active_scheduler);
    if (s) scheduler_request_stop(s);
}

/* rank 0 of `mpirun ... worker` prints what the local worker prints */
static void rank_job_ended(void *ctx, int64_t run_id, RunStatus status, int rank, const char *err)
{
    (void)ctx;
    printf("run %lld %s\n", (long long)run_id, run_status_name(status));
    fflush(stdout);
    if (run_status_error(status) && err[0])
        fprintf(stderr, "mixbench: run %lld (rank %d): %s\n", (long long)run_id, rank, err);
}

static void rank_note(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "mixbench: worker: %s\n", msg);
}

/* `mpirun -np N mixbench worker`: rank 0 serves the queue, the other ranks
   train (experiments/mpi_sweep.h).  Every rank parses the same arguments;
   only rank 0 prints, and a refusal on any rank ends every rank. */
static int worker_over_ranks(Dist *d, int argc, char **argv)
{
    const char *db_path = "mixbench.db", *jobs_s = NULL, *threads_s = NULL, *verbose = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"jobs", 1, &jobs_s, NULL}, {"threads", 1, &threads_s, NULL},
                     {"verbose", 0, &verbose, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN], arg_err[ERR_LEN];
    int threads = 0, bad = cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, arg_err);
    if (!bad && jobs_s)
        bad = err_set(arg_err, "--jobs makes no sense under mpirun: each rank but rank 0 runs one job (mpirun -np N "
                               "gives N-1 at once)");
    if (!bad && threads_s && text_to_int(threads_s, 1, INT_MAX, &threads))
        bad = err_set(arg_err, "--threads %s is not a positive count", threads_s);
    uint64_t args_hash = 0;
    for (int i = 0; i < argc; i++) args_hash = dist_hash_bytes(args_hash, argv[i], strlen(argv[i]) + 1);
    int rank = dist_rank(d);
    MpiSweepOptions o = {db_path, threads, verbose ? &job_printer : NULL, &worker_stop, rank_job_ended, rank_note, NULL};
    if (mpi_sweep_check(d, &o, args_hash, bad ? arg_err : NULL, err)) return rank == 0 ? cli_fail("worker: %s", err) : 1;
    if (rank == 0) {
        printf("worker over %d MPI ranks: rank 0 serves the queue of %s, %d rank%s\n", dist_size(d), db_path,
               dist_size(d) - 1, dist_size(d) > 2 ? "s train" : " trains");
        fflush(stdout);
    }
    /* mpirun kills its ranks soon after forwarding SIGINT or SIGTERM, maybe
       before the checkpoints are shipped; it forwards SIGUSR1 and leaves
       them running: `kill -USR1 <mpirun pid>` stops the sweep cleanly */
    signal(SIGINT, on_worker_signal);
    signal(SIGTERM, on_worker_signal);
    signal(SIGUSR1, on_worker_signal);
    int ended = 0, rc = mpi_sweep_run(d, &o, &ended, err);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    if (rc) {
        fprintf(stderr, "mixbench: worker (rank %d): %s\n", rank, err);
        return 1;
    }
    int stopped = atomic_load(&worker_stop);
    if (rank == 0)
        printf("worker: %d job%s ended%s\n", ended, ended == 1 ? "" : "s",
               stopped ? " (stopped: running jobs checkpointed and queued again)" : "; the queue is empty");
    return stopped ? 130 : 0;
}

int cmd_worker(int argc, char **argv)
{
    char err[ERR_LEN];
    Dist *d = NULL;
    if (dist_init(&d, err)) return cli_fail("worker: %s", err);
    if (dist_size(d) > 1) {
        int rc = worker_over_ranks(d, argc, argv);
        dist_finalize(d);
        return rc;
    }
    dist_finalize(d);   /* mpirun -np 1: the local worker */
    const char *db_path = "mixbench.db", *jobs_s = NULL, *threads_s = NULL, *verbose = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"jobs", 1, &jobs_s, NULL}, {"threads", 1, &threads_s, NULL},
                     {"verbose", 0, &verbose, NULL}, {NULL, 0, NULL, NULL}};
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("worker: %s", err);
    int cores = pool_cores();
    if (threads_s && text_to_int(threads_s, 1, INT_MAX, &cores))
        return cli_fail("worker: --threads %s is not a positive count", threads_s);
    int jobs = cores;
    if (jobs_s && text_to_int(jobs_s, 1, 64, &jobs)) return cli_fail("worker: --jobs %s is not 1..64", jobs_s);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    store_close(st);
    SchedulerOptions o = {db_path, jobs, cores, 1, verbose == NULL && jobs > 1, &job_printer};
    Scheduler *s;
    if (scheduler_start(&s, &o, err)) return cli_fail("worker: %s", err);
    atomic_store(&active_scheduler, s);
    signal(SIGINT, on_worker_signal);
    signal(SIGTERM, on_worker_signal);
    int finished = scheduler_wait(s);
    atomic_store(&active_scheduler, NULL);
    scheduler_free(s);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    printf("worker: %d job%s ended%s\n", finished, finished == 1 ? "" : "s",
           atomic_load(&worker_stop) ? " (stopped: running jobs checkpointed and queued again)" : "; the queue is empty");
    return atomic_load(&worker_stop) ? 130 : 0;
}

/* `mixbench queue --tsv`: the queue view as it is, tab-separated, a header
   line first, NULL as nothing. */
static int queue_tsv(Store *st, char *err)
{
    DbRows *rows;
    int rc = cli_queue_open(st, &rows, err), n_rows = 0;
    const DbValue *row;
    while (!rc && !(rc = db_rows_next(rows, &row, err)) && row) {
        int n = db_rows_count(rows);
        for (int i = 0; n_rows == 0 && i < n; i++) printf("%s%s", i ? "\t" : "", db_rows_name(rows, i));
        if (n_rows++ == 0) printf("\n");
        char shown[1024];   /* a name or note of an older store may hold a tab or an escape */
        for (int i = 0; i < n; i++)
            printf("%s%s", i ? "\t" : "", row[i].text ? text_shown(row[i].text, shown, sizeof shown) : "");
        printf("\n");
    }
    if (rows) db_rows_close(rows);
    return rc;
}

/* `mixbench queue`: a table like `ls`, in the order workers take the jobs. */
static int queue_table(Store *st, char *err)
{
    int64_t counts[3] = {0};
    const RunStatus statuses[3] = {RUN_RUNNING, RUN_QUEUED, RUN_PAUSED};
    for (int k = 0; k < 3; k++)
        if (queue_read_count(st, statuses[k], &counts[k], err)) return -1;
    int cap = (int)(counts[0] + counts[1] + counts[2]) + 1, n = 0;
    QueueJob *jobs = calloc((size_t)cap, sizeof *jobs);
    if (!jobs) return err_set(err, "queue: out of memory");
    if (queue_read_jobs(st, jobs, cap, &n, err)) {
        free(jobs);
        return -1;
    }
    if (n == 0) printf("the queue is empty\n");
    else printf("%4s %6s  %-8s %4s  %-11s %-9s %-16s %13s  %s\n", "POS", "ID", "STATUS", "PRI", "ARCH", "TASK",
                "SWEEP", "STEP", "POINT");
    for (int i = 0; i < n; i++) {
        const QueueJob *j = &jobs[i];
        char pos[16] = "", step[48], done[24], total[24];
        if (j->position) snprintf(pos, sizeof pos, "%d", j->position);
        fmt_count(j->steps_done, done, sizeof done);
        fmt_count(j->total_steps, total, sizeof total);
        if (j->total_steps > 0) snprintf(step, sizeof step, "%s/%s", done, total);   /* known once it starts */
        else snprintf(step, sizeof step, "%s", done);
        const char *status = job_shown_status(j->status, j->control);
        char sweep[64];
        text_shown(j->sweep[0] ? j->sweep : "-", sweep, sizeof sweep);
        printf("%4s %6lld  %-8s %4d  %-11.11s %-9.9s %-16.16s %13s  %s\n", pos, (long long)j->id, status, j->priority,
               j->arch, j->task, sweep, step, j->point[0] ? j->point : "-");
    }
    free(jobs);
    return 0;
}

int cmd_queue(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *tsv = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"tsv", 0, &tsv, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("queue: %s", err);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    int rc = tsv ? queue_tsv(st, err) : queue_table(st, err);
    store_close(st);
    return rc ? cli_fail("%s", err) : 0;
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
    if (n_ids == 0) return cli_fail("%s: name at least one run (an id or its name)", what);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    /* every RUN is looked up before anything is asked of one (the rule of
       db/organise.h store_run_lookup, as rm and tag) */
    int64_t run_ids[256];
    for (int i = 0; i < n_ids; i++)
        if (store_run_lookup(st, ids[i], 0, &run_ids[i], err)) {
            store_close(st);
            char shown[ERR_LEN];
            return cli_fail("%s: %s; nothing done", what, text_shown(err, shown, sizeof shown));
        }
    int failures = 0;
    for (int i = 0; i < n_ids; i++) {
        int64_t id = run_ids[i];
        int rc;
        if (!strcmp(what, "resume")) rc = store_job_resume(st, id, err);
        else rc = store_job_request(st, id, what, err);
        if (rc) {
            cli_fail("%s: %s", what, err);
            failures++;
        } else {
            printf("run %lld: %s requested\n", (long long)id, what);
            int64_t sweep = 0;
            if (!strcmp(what, "cancel") && store_job_stopped_sweep(st, id, &sweep, err) == 0 && sweep)
                printf("sweep %lld: its rounds stop here, or the next would queue this job's like again "
                       "(`mixbench sweep --continue %lld` goes on)\n", (long long)sweep, (long long)sweep);
        }
    }
    store_close(st);
    return failures ? 1 : 0;
}

int cmd_pause(int argc, char **argv) { return control_command("pause", argc, argv); }
int cmd_cancel(int argc, char **argv) { return control_command("cancel", argc, argv); }
int cmd_resume(int argc, char **argv) { return control_command("resume", argc, argv); }

/* One CSV field, quoted when needed; nothing for NULL. */
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

/* A cell as JSON with SQLite's type: a number, a string or null.  A real
   gets the fewest digits (15 to 17) that read back as the same double. */
static void json_value(StrBuf *sb, const DbValue *v)
{
    if (v->type == DB_INT) {
        sb_printf(sb, "%lld", (long long)v->i);
    } else if (v->type == DB_REAL && isfinite(v->d)) {
        char digits[32];
        double back = NAN;
        for (int precision = 15; precision <= 17; precision++) {
            snprintf(digits, sizeof digits, "%.*g", precision, v->d);
            if (text_to_double(digits, &back) == 0 && back == v->d) break;
        }
        sb_append(sb, digits);
    } else if (v->type == DB_TEXT) {
        sb_json_string(sb, v->text);
    } else {
        sb_append(sb, "null");
    }
}

static void export_json_row(DbRows *rows, const DbValue *row, int first)
{
    StrBuf sb;
    sb_init(&sb);
    sb_append(&sb, first ? "\n  {" : ",\n  {");
    for (int i = 0; i < db_rows_count(rows); i++) {
        if (i) sb_append(&sb, ", ");
        sb_json_string(&sb, db_rows_name(rows, i));
        sb_append(&sb, ": ");
        json_value(&sb, &row[i]);
    }
    sb_append(&sb, "}");
    fputs(sb.data, stdout);
    sb_free(&sb);
}

static void export_csv_row(DbRows *rows, const DbValue *row, int first)
{
    int n = db_rows_count(rows);
    for (int i = 0; first && i < n; i++) {
        if (i) putchar(',');
        csv_field(db_rows_name(rows, i));
    }
    if (first) putchar('\n');
    for (int i = 0; i < n; i++) {
        if (i) putchar(',');
        csv_field(row[i].text);
    }
    putchar('\n');
}

int cmd_export(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *sweep = NULL, *csv = NULL, *json = NULL, *curves = NULL, *where = NULL;
    const char *loss = NULL;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"sweep", 1, &sweep, NULL},    {"csv", 0, &csv, NULL},
                     {"json", 0, &json, NULL},  {"curves", 0, &curves, NULL}, {"where", 1, &where, NULL},
                     {"loss", 1, &loss, NULL},  {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    int loss_best;
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("export: %s", err);
    if (!csv == !json) return cli_fail("export: choose one of --csv and --json");
    if (cli_loss_choice("export", loss, &loss_best)) return 1;
    if (loss_best && curves)
        return cli_fail("export: --loss is for the results, not --curves (every evaluation is there)");
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    /* the results get every config key as a column */
    int n_keys = config_key_count();
    const char **keys = malloc(sizeof *keys * (size_t)n_keys);
    for (int i = 0; keys && i < n_keys; i++) keys[i] = config_key_name(i);
    /* --where: the runs the Runs screen's filter keeps (experiments/run_filter.h) */
    char *ids = NULL;
    int n_ids = 0, rc = where ? run_filter_select_json(st, where, 0, &ids, &n_ids, err) : 0, n_rows = 0;
    DbRows *rows = NULL;
    if (!rc)
        rc = keys ? cli_export_open_of(st, curves != NULL, sweep, ids, keys, n_keys, loss_best, &rows, err)
                  : err_set(err, "out of memory");
    free(keys);
    free(ids);
    const DbValue *row;
    if (!rc && json) printf("[");
    while (!rc && !(rc = db_rows_next(rows, &row, err)) && row) {
        if (json) export_json_row(rows, row, n_rows == 0);
        else export_csv_row(rows, row, n_rows == 0);
        n_rows++;
    }
    if (rows && json) printf("%s]\n", n_rows ? "\n" : "");
    if (rows) db_rows_close(rows);
    store_close(st);
    return rc ? cli_fail("export: %s", err) : 0;
}
