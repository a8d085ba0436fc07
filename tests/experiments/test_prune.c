/*
 * test_prune.c — the pruner across runs (experiments/prune.c) on a
 * synthetic problem, with no training: a random search over lr whose
 * trials "train" here, their valid loss a known function of lr and step
 * (best at lr 10^-2.5), on 1, 2 or 3 simulated workers that finish their
 * jobs in a scrambled order, the controller (adaptive_advance) asked after
 * every evaluation and every job as a worker asks it:
 *   - asha keeps the known good trials (the 3 nearest the best lr reach
 *     the full budget, done; every other is pruned, none left done at a
 *     part of it) and spends less than half the tokens of the same trials
 *     trained in full, even counting a continuation as training from the
 *     start (no checkpoints here);
 *   - asha lets the best of a rung go on even when floor(n/eta) is 0;
 *   - asha and median decide the same (status, why, budget of every run)
 *     whatever the number of workers and the order they finish in;
 *   - median prunes only after its startup trials, keeps the best one, and
 *     says at which step and against which median;
 *   - the rung arithmetic: budgets, the first rung, the expected share.
 *
 * Not for: pruning with real training (tests/experiments/test_search.sh).
 */
#include "db/adaptive.h"
#include "db/jobs.h"
#include "db/store.h"
#include "engine/common.h"
#include "experiments/adaptive.h"
#include "experiments/prune.h"
#include "experiments/sweep.h"
#include "experiments/sweep_queue.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <math.h>
#include <string.h>

#define STEP_TOKENS 64   /* batch 4 x n_ctx 16 */
#define EVERY 30         /* steps between evaluations */
#define SPEC "arch=mixer data=builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 steps=270 " \
             "lr=log:1e-4..1e-1 search=random search_seed=5 "

/* Runs nearest the best lr first (the ratio either way, no log in SQL). */
#define NEAREST "max(json_extract(config_json, '$.lr') / 0.0031622777, 0.0031622777 / json_extract(config_json, '$.lr'))"

/* The synthetic problem: best at lr 10^-2.5, better with steps.  With
   `crossing`, a larger lr learns faster at first, so the curves cross and
   who is ahead depends on the step (as with real runs): the decisions then
   depend on which trials each one is compared with. */
static int crossing;

static double synthetic(double lr, int64_t step)
{
    double off = log10(lr) + 2.5;
    return 2 + off * off + 4 * (crossing ? sqrt(1e-2 / lr) : 1) / sqrt((double)step);
}

static Store *queued(const char *name, const char *spec, int64_t *sweep_id)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path(name), &s, err) == 0, "%s", err);
    if (!s) return NULL;
    Sweep sw;
    char *argv[1] = {(char *)spec};
    Config base;
    config_defaults(&base);
    CHECK(sweep_parse(1, argv, &base, &sw, err) == 0, "%s", err);
    CHECK(sweep_enqueue(s, &sw, 0, sweep_id, err) == 0, "%s", err);
    sweep_free(&sw);
    return s;
}

/* A job a simulated worker holds. */
typedef struct {
    int64_t run, step, total;
    double lr;
} Flight;

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Claims the next queued job into f; 0 when there is none. */
static int claim(Store *s, Flight *f)
{
    static ClaimedJob job;
    char err[ERR_LEN] = "";
    int found = 0;
    CHECK(store_job_claim(s, (int)getpid(), &job, &found, err) == 0, "%s", err);
    if (!found) return 0;
    Config c;
    config_defaults(&c);
    JsonValue *o = json_parse(job.config_json, strlen(job.config_json), err);
    CHECK(o && config_from_json(&c, o, 1, err) == 0, "%s", err);
    json_free(o);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT coalesce(resume_step, 0) FROM runs WHERE id = %lld", (long long)job.run_id);
    *f = (Flight){job.run_id, (int64_t)query_num(s, sql), config_total_steps(&c), c.lr};
    return 1;
}

static void finish(Store *s, const Flight *f, const char *status)
{
    char err[ERR_LEN] = "";
    double v = synthetic(f->lr, f->step);
    if (!strcmp(status, "done")) {
        EvalRow test = {f->step, "test", v, 0.3, NAN, 1000, NAN};
        CHECK(store_eval_add(s, f->run, &test, err) == 0, "%s", err);
    }
    RunEnd end = {status, NULL, f->step, f->step * STEP_TOKENS, 10.0, 5000, NAN, NAN, NAN};
    CHECK(store_run_finish(s, f->run, &end, err) == 0, "%s", err);
    int acted = 0;
    CHECK(adaptive_advance_all(s, &acted, err) == 0, "%s", err);
}

/* Trains every job of the store on `workers` simulated workers; the next
   evaluation is made by a worker picked from `order`.  Returns the tokens
   trained. */
static double simulate(Store *s, int workers, uint64_t order)
{
    Flight f[4];
    int n = 0;
    double tokens = 0;
    char err[ERR_LEN] = "";
    for (uint64_t tick = 0; tick < 100000; tick++) {
        while (n < workers && claim(s, &f[n])) n++;
        if (n == 0) {
            int acted = 0;
            CHECK(adaptive_advance_all(s, &acted, err) == 0, "%s", err);
            if (!acted) break;
            continue;
        }
        int i = (int)(mix(order + tick) % (uint64_t)n);
        Flight *g = &f[i];
        int64_t next = (g->step / EVERY + 1) * EVERY;
        if (next > g->total) next = g->total;
        tokens += (double)(next - g->step) * STEP_TOKENS;
        g->step = next;
        EvalRow valid = {g->step, "valid", synthetic(g->lr, g->step), 0.3, NAN, 1000, NAN};
        CHECK(store_eval_add(s, g->run, &valid, err) == 0, "%s", err);
        const char *end = g->step >= g->total ? "done" : NULL;
        if (!end) {
            JobControl control = JOB_CONTROL_NONE;
            CHECK(adaptive_advance_run(s, g->run, NULL, err) == 0, "%s", err);
            CHECK(store_job_control(s, g->run, &control, err) == 0, "%s", err);
            if (control == JOB_CONTROL_PRUNE) end = "pruned";
        }
        if (end) {
            finish(s, g, end);
            f[i] = f[--n];
        }
    }
    return tokens;
}

/* Every run's decision: status, why and budget, in id order. */
static void decisions(Store *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s",
             query1(s, "SELECT group_concat(id || ' ' || status || ' ' || total_steps || ' ' || coalesce(error, ''),"
                       " char(10)) FROM (SELECT * FROM runs ORDER BY id)").text);
}

static void test_asha_keeps_the_good_trials(void)
{
    int64_t sw = 0;
    Store *s = queued("asha1.db", SPEC "trials=27 prune=asha", &sw);
    if (!s) return;
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE CAST(json_extract(config_json, '$.steps') AS INTEGER) = 30")
              == 27, "the trials start at the first rung (270/9 steps)");
    double tokens = simulate(s, 1, 1), grid = 27.0 * 270 * STEP_TOKENS;
    printf("asha: %.0f tokens, %.1f%% of the 27 trials' full training (%.0f)\n", tokens, 100 * tokens / grid, grid);
    CHECK(tokens < grid / 2, "asha spent %.0f tokens, not under half of %.0f", tokens, grid);
    /* the known good trials: the 3 whose lr is nearest 10^-2.5 */
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'done' AND total_steps = 270 AND id IN"
                       " (SELECT id FROM runs ORDER BY " NEAREST " LIMIT 3)") == 3,
          "the good trials do not all reach the full budget: %s",
          query1(s, "SELECT group_concat(id || ':' || status || ':' || total_steps) FROM (SELECT * FROM runs ORDER BY "
                    NEAREST ")").text);
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'done' AND total_steps < 270") == 0,
          "a trial left done at a part of its budget");
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'pruned' AND error LIKE 'pruned by asha at rung %'") +
                  query_num(s, "SELECT count(*) FROM runs WHERE status = 'done'") == 27,
          "statuses %s", query1(s, "SELECT group_concat(status) FROM runs").text);
    CHECK(query_num(s, "SELECT count(*) FROM rungs WHERE rung = 0") == 27, "rung 0 recorded for every trial");
    CHECK(query_num(s, "SELECT count(*) FROM sweep_results WHERE status = 'done'") ==
              query_num(s, "SELECT count(*) FROM runs WHERE status = 'done'"), "the done trials are the results");
    store_close(s);
}

/* 6 trials: rung 0 keeps floor(6/3) = 2, and of those 2 at rung 1 (where
   floor(2/3) is 0) the better one still goes on to the full budget. */
static void test_asha_best_of_a_rung_goes_on(void)
{
    int64_t sw = 0;
    Store *s = queued("asha6.db", SPEC "trials=6 prune=asha", &sw);
    if (!s) return;
    simulate(s, 2, 3);
    CHECK(query_num(s, "SELECT count(*) FROM rungs WHERE rung = 1") == 2, "2 trials reach rung 1: %g",
          query_num(s, "SELECT count(*) FROM rungs WHERE rung = 1"));
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'done' AND total_steps = 270") == 1,
          "not one trial reached the full budget: %s",
          query1(s, "SELECT group_concat(id || ':' || status || ':' || total_steps) FROM runs").text);
    CHECK(query_num(s, "SELECT run_id FROM rungs WHERE rung = 1 ORDER BY valid_loss, run_id LIMIT 1") ==
              query_num(s, "SELECT id FROM runs WHERE status = 'done'"), "the one done is not rung 1's best");
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'pruned'") == 5, "5 pruned");
    store_close(s);
}

/* The same decisions with 1, 2 and 3 workers finishing in other orders. */
static void same_whatever_the_workers(const char *spec, const char *name)
{
    static char first[16384], other[16384];
    int64_t sw = 0;
    crossing = 1;
    for (int w = 1; w <= 3; w++) {
        char file[64];
        snprintf(file, sizeof file, "%s%d.db", name, w);
        Store *s = queued(file, spec, &sw);
        if (!s) return;
        simulate(s, w, (uint64_t)w * 7919);
        decisions(s, w == 1 ? first : other, sizeof first);
        CHECK(w == 1 || !strcmp(first, other), "%s with %d workers decided otherwise:\n%s\n--- with 1:\n%s", name, w,
              other, first);
        CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'pruned'") > 0, "%s pruned nothing", name);
        store_close(s);
    }
    crossing = 0;
}

static void test_asha_same_decisions(void)
{
    same_whatever_the_workers(SPEC "trials=12 repeats=2 prune=asha", "ashaw");
}

static void test_median(void)
{
    same_whatever_the_workers(SPEC "trials=16 prune=median", "medianw");
    Store *s = NULL;
    char err[ERR_LEN] = "";
    CHECK(store_open(db_path("medianw1.db"), &s, err) == 0, "%s", err);
    if (!s) return;
    /* the first 3 trials are the startup: never pruned */
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE id <= 3 AND status = 'done'") == 3, "startup pruned");
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'pruned' AND error NOT LIKE"
                       " 'pruned by median at step % is above the median % of % earlier trials'") == 0,
          "why %s", query1(s, "SELECT error FROM runs WHERE status = 'pruned'").text);
    /* the best trial completes */
    CHECK(!strcmp(query1(s, "SELECT status FROM runs ORDER BY " NEAREST " LIMIT 1").text, "done"),
          "the best trial pruned");
    /* a pruned trial stopped before its budget, at the step its why names */
    CHECK(query_num(s, "SELECT count(*) FROM runs WHERE status = 'pruned' AND (steps_done >= 270 OR steps_done <"
                       " 27)") == 0, "pruned outside (grace, budget)");
    store_close(s);
}

static void test_rung_numbers(void)
{
    SweepPlan p = {0};
    p.prune = PRUNE_ASHA, p.prune_eta = 3, p.prune_grace = 0.1;
    CHECK(prune_top_rung(&p) == 2, "1/9 >= 0.1 > 1/27: rungs 0, 1, 2");
    CHECK(prune_rung_budget(&p, 270, 0, 64, 0) == 30 && prune_rung_budget(&p, 270, 0, 64, 1) == 90 &&
              prune_rung_budget(&p, 270, 0, 64, 2) == 270, "270 steps: 30, 90, 270");
    CHECK(prune_rung_budget(&p, 1000, 1, 512, 0) == 512, "a rung is at least a step's tokens");
    Config c;
    config_defaults(&c);
    c.steps = 270;
    prune_first_rung(&p, &c);
    CHECK(c.steps == 30, "first rung %lld", (long long)c.steps);
    /* 1 x 1/9 + 1/3 x (1/3 - 0.8/9) + 1/9 x (1 - 0.8/3) */
    double want = 1.0 / 9 + (1.0 / 3) * (1.0 / 3 - 0.8 / 9) + (1.0 / 9) * (1 - 0.8 / 3);
    CHECK(fabs(prune_asha_share(&p, 0.2) - want) < 1e-12, "share %g, want %g", prune_asha_share(&p, 0.2), want);
    /* 6 trials: rung 2 gets 6/9 of a trial, counted as the one that goes on */
    p.trials = 6;
    want = 1.0 / 9 + (1.0 / 3) * (1.0 / 3 - 0.8 / 9) + (1.0 / 6) * (1 - 0.8 / 3);
    CHECK(fabs(prune_asha_share(&p, 0.2) - want) < 1e-12, "6 trials: share %g, want %g", prune_asha_share(&p, 0.2),
          want);
    p.prune_grace = 0.5;
    CHECK(prune_top_rung(&p) == 0, "a grace above 1/eta leaves one rung");
    RungEntry e[4] = {{0, 3.0}, {1, NAN}, {2, 1.0}, {3, 1.0}};
    prune_rank(e, 4);
    CHECK(e[0].order == 2 && e[1].order == 3 && e[2].order == 0 && e[3].order == 1, "rank by loss, then order, NaN last");
    CHECK(prune_keep_sync(5, 2) == 3 && prune_keep_sync(2, 2) == 1 && prune_keep_async(5, 3) == 1 &&
              prune_keep_async(2, 3) == 0, "keep counts");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("prune")) return 1;
    RUN(test_rung_numbers);
    RUN(test_asha_keeps_the_good_trials);
    RUN(test_asha_best_of_a_rung_goes_on);
    RUN(test_asha_same_decisions);
    RUN(test_median);
    tmp_dir_remove();
    CHECK_EXIT();
}
