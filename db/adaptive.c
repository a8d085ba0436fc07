/*
 * adaptive.c — the store's side of adaptive sweeps (adaptive.h).
 */
#include "db/adaptive.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

int store_sweep_plan(Store *s, int64_t sweep_id, SweepPlanRow *out, int *found, char *err)
{
    assert(s && err);
    const char *what = "read a sweep's plan";
    sqlite3_stmt *st;
    memset(out, 0, sizeof *out);
    if (store_prepare_ints(s, "SELECT id, coalesce(preset, name), spec, coalesce(plan_json, ''), round,"
                              "       coalesce(concluded, '')"
                              "  FROM sweeps WHERE id = ?1", &sweep_id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found) {
        out->id = sqlite3_column_int64(st, 0);
        store_column_copy(out->name, sizeof out->name, st, 1);
        store_column_copy(out->spec, sizeof out->spec, st, 2);
        store_column_copy(out->plan_json, sizeof out->plan_json, st, 3);
        out->round = sqlite3_column_int(st, 4);
        store_column_copy(out->concluded, sizeof out->concluded, st, 5);
    }
    return store_finish(s, st, rc, what, err);
}

static void fill_id(void *item, sqlite3_stmt *st)
{
    *(int64_t *)item = sqlite3_column_int64(st, 0);
}

int store_adaptive_sweeps(Store *s, int64_t **ids, int *n, char *err)
{
    assert(s && err);
    const char *what = "read adaptive sweeps";
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT id FROM sweeps WHERE plan_json IS NOT NULL AND concluded IS NULL"
                          " AND deleted_at IS NULL ORDER BY id", &st,
                      what, err))
        return -1;
    return store_read_all(s, st, what, sizeof **ids, fill_id, (void **)ids, n, err);
}

void adaptive_runs_free(AdaptiveRun *runs, int n)
{
    for (int i = 0; runs && i < n; i++) free(runs[i].config_json);
    free(runs);
}

/* A run is ranked (lr=tune's search, the pruners) by the loss it trains
   on: a masked LM with mlm_loss=all by its loss over every position, not
   by the masked positions' alone (which it barely moves at first). */
#define RANKS_ALL "r.task = 'mlm' AND json_extract(r.config_json, '$.mlm_loss') = 'all'"

int store_adaptive_runs(Store *s, int64_t sweep_id, AdaptiveRun **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "read a sweep's runs";
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    if (store_prepare_ints(s,
                           "SELECT r.id, r.status, r.role IS NOT NULL,"
                           "       CASE WHEN r.role IS NULL THEN json_remove(r.coords_json, '$.seed')"
                           "            ELSE json_remove(r.coords_json, '$.seed', '$.lr') END,"
                           "       r.coords_json, r.config_json, json_extract(r.config_json, '$.lr'), r.seed,"
                           "       r.total_steps, x.tokens_seen,"
                           "       CASE WHEN " RANKS_ALL " THEN x.valid_loss_all ELSE x.valid_loss END,"
                           "       coalesce(x.wall_seconds, 0) * max(coalesce(r.threads, 1), 1),"
                           "       (" RANKS_ALL "), x.unigram_nats"
                           "  FROM runs r JOIN results x ON x.id = r.id WHERE r.sweep_id = ?1 ORDER BY r.id",
                           &sweep_id, 1, &st, what, err))
        return -1;
    int rc, cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (store_grow((void **)out, &cap, *n + 1, sizeof **out, err)) {
            (void)sqlite3_finalize(st);
            adaptive_runs_free(*out, *n);
            *out = NULL;
            *n = 0;
            return -1;
        }
        AdaptiveRun *r = &(*out)[(*n)++];
        r->id = sqlite3_column_int64(st, 0);
        r->status = store_column_status(st, 1);
        r->is_search = sqlite3_column_int(st, 2);
        store_column_copy(r->point, sizeof r->point, st, 3);
        store_column_copy(r->coords, sizeof r->coords, st, 4);
        const unsigned char *cfg = sqlite3_column_text(st, 5);
        r->config_json = strdup(cfg ? (const char *)cfg : "{}");
        r->lr = store_column_real(st, 6);
        r->seed = sqlite3_column_int64(st, 7);
        r->total_steps = sqlite3_column_int64(st, 8);
        r->tokens = store_column_real(st, 9);
        r->valid_loss = store_column_real(st, 10);
        r->cpu_seconds = store_column_real(st, 11);
        r->ranks_all = sqlite3_column_int(st, 12);
        r->unigram_nats = store_column_real(st, 13);
        if (!r->config_json) rc = SQLITE_NOMEM;
        if (rc == SQLITE_NOMEM) break;
    }
    if (store_finish(s, st, rc, what, err)) {
        adaptive_runs_free(*out, *n);
        *out = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

/* One text value of sql with text parameters. */
static int json_value(Store *s, const char *sql, const char *const *params, int n_params, char *out, int cap,
                      char *err)
{
    const char *what = "rewrite coordinates";
    sqlite3_stmt *st;
    if (store_prepare(s, sql, &st, what, err)) return -1;
    for (int i = 0; i < n_params; i++)
        if (store_bind_text(st, i + 1, params[i]) != SQLITE_OK) {
            store_fail(s, err, what);
            (void)sqlite3_finalize(st);
            return -1;
        }
    int rc = sqlite3_step(st);
    out[0] = 0;
    if (rc == SQLITE_ROW) store_column_copy(out, (size_t)cap, st, 0);
    return store_finish(s, st, rc, what, err);
}

int store_json_point(Store *s, const char *coords, char *out, int cap, char *err)
{
    assert(s && err);
    const char *p[1] = {coords};
    return json_value(s, "SELECT json_remove(json(?1), '$.seed')", p, 1, out, cap, err);
}

int store_json_with(Store *s, const char *point, const char *key, const char *value, char *out, int cap, char *err)
{
    assert(s && err);
    char path[80];
    snprintf(path, sizeof path, "$.%s", key);
    const char *p[3] = {point, path, value};
    return json_value(s, "SELECT json_set(json(?1), ?2, ?3)", p, 3, out, cap, err);
}

int store_search_progress(Store *s, int64_t sweep_id, int *finished, int *trials, char *err)
{
    assert(s && finished && trials && err);
    const char *what = "count a sweep's lr search";
    *finished = *trials = 0;
    sqlite3_stmt *st;
    if (store_prepare_ints(s,
                           "SELECT count(*), coalesce(sum(status NOT IN ('queued', 'running', 'paused')), 0)"
                           "  FROM runs WHERE sweep_id = ?1 AND role = 'lr-search' AND deleted_at IS NULL",
                           &sweep_id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *trials = sqlite3_column_int(st, 0);
        *finished = sqlite3_column_int(st, 1);
    }
    return store_finish(s, st, rc, what, err);
}

int store_run_set_role(Store *s, int64_t run_id, const char *role, char *err)
{
    assert(s && run_id > 0 && err);
    const char *what = "set a run's role";
    sqlite3_stmt *st;
    if (store_prepare(s, "UPDATE runs SET role = ?2 WHERE id = ?1", &st, what, err)) return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK || store_bind_text(st, 2, role) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

int store_run_prune(Store *s, int64_t run_id, const char *why, char *err)
{
    assert(s && run_id > 0 && why && err);
    const char *what = "prune a run";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "UPDATE runs SET error = ?2,"
                      " control = CASE WHEN status = 'running' AND control IS NULL THEN 'prune' ELSE control END,"
                      " finished_at = CASE WHEN status IN ('queued', 'paused', 'interrupted') THEN " STORE_NOW_SQL
                      "                    ELSE finished_at END,"
                      " owner_pid = CASE WHEN status = 'running' THEN owner_pid END,"
                      " status = CASE WHEN status IN ('queued', 'paused', 'interrupted', 'done') THEN 'pruned'"
                      "               ELSE status END"
                      " WHERE id = ?1 AND status IN ('queued', 'paused', 'interrupted', 'done', 'running')",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK || store_bind_text(st, 2, why) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

static void fill_eval(void *item, sqlite3_stmt *st)
{
    ValidEval *e = item;
    e->run_id = sqlite3_column_int64(st, 0);
    e->step = sqlite3_column_int64(st, 1);
    e->loss = store_column_real(st, 2);
}

int store_sweep_valid_evals(Store *s, int64_t sweep_id, ValidEval **out, int *n, char *err)
{
    assert(s && sweep_id > 0 && out && n && err);
    const char *what = "read a sweep's valid evaluations";
    sqlite3_stmt *st;
    if (store_prepare_ints(s,
                           "SELECT e.run_id, e.step, CASE WHEN " RANKS_ALL " THEN e.loss_all ELSE e.loss END"
                           "  FROM evals e JOIN runs r ON r.id = e.run_id"
                           " WHERE r.sweep_id = ?1 AND r.deleted_at IS NULL AND e.split = 'valid'"
                           " ORDER BY e.run_id, e.step",
                           &sweep_id, 1, &st, what, err))
        return -1;
    return store_read_all(s, st, what, sizeof **out, fill_eval, (void **)out, n, err);
}

int store_run_pruning_sweep(Store *s, int64_t run_id, int64_t *sweep_id, char *err)
{
    assert(s && run_id > 0 && sweep_id && err);
    const char *what = "read a run's pruning sweep";
    sqlite3_stmt *st;
    *sweep_id = 0;
    if (store_prepare_ints(s,
                           "SELECT w.id FROM runs r JOIN sweeps w ON w.id = r.sweep_id"
                           " WHERE r.id = ?1 AND w.concluded IS NULL AND w.deleted_at IS NULL"
                           "   AND json_extract(w.plan_json, '$.prune.kind') = 'median'",
                           &run_id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *sweep_id = sqlite3_column_int64(st, 0);
    return store_finish(s, st, rc, what, err);
}

int store_rung_put(Store *s, int64_t run_id, int rung, int64_t steps, double loss, char *err)
{
    assert(s && run_id > 0 && rung >= 0 && err);
    const char *what = "record a rung";
    sqlite3_stmt *st;
    int64_t ints[3] = {run_id, rung, steps};
    if (store_prepare_ints(s, "INSERT OR IGNORE INTO rungs (run_id, rung, steps, valid_loss) VALUES (?1, ?2, ?3, ?4)",
                           ints, 3, &st, what, err))
        return -1;
    int rc = isfinite(loss) ? store_bind_real(st, 4, loss) : sqlite3_bind_null(st, 4);
    if (rc != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

static void fill_rung(void *item, sqlite3_stmt *st)
{
    RungRow *r = item;
    r->run_id = sqlite3_column_int64(st, 0);
    r->rung = sqlite3_column_int(st, 1);
    r->loss = sqlite3_column_type(st, 2) == SQLITE_NULL ? INFINITY : sqlite3_column_double(st, 2);
}

int store_sweep_rungs(Store *s, int64_t sweep_id, RungRow **out, int *n, char *err)
{
    assert(s && sweep_id > 0 && out && n && err);
    const char *what = "read a sweep's rungs";
    sqlite3_stmt *st;
    if (store_prepare_ints(s,
                           "SELECT g.run_id, g.rung, g.valid_loss FROM rungs g JOIN runs r ON r.id = g.run_id"
                           " WHERE r.sweep_id = ?1 ORDER BY g.run_id, g.rung",
                           &sweep_id, 1, &st, what, err))
        return -1;
    return store_read_all(s, st, what, sizeof **out, fill_rung, (void **)out, n, err);
}

static void fill_tuned(void *item, sqlite3_stmt *st)
{
    TunedLr *t = item;
    store_column_copy(t->point, sizeof t->point, st, 0);
    store_column_copy(t->arch, sizeof t->arch, st, 1);
    t->lr = sqlite3_column_double(st, 2);
    t->trials = sqlite3_column_int(st, 3);
    t->best_valid_loss = store_column_real(st, 4);
    t->valid_loss_all = store_column_real(st, 5);
    t->unigram_nats = store_column_real(st, 6);
    t->not_learning = sqlite3_column_int(st, 7);
    t->ranks_all = sqlite3_column_int(st, 8);
}

int store_tuned_lrs(Store *s, int64_t sweep_id, TunedLr **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "read tuned learning rates";
    sqlite3_stmt *st;
    /* the winner: the point's trial (coords: the point and its lr) at the lr chosen */
    if (store_prepare_ints(s,
                           "SELECT t.point, t.arch, t.lr, t.trials, x.best_valid_loss, x.valid_loss_all,"
                           "       x.unigram_nats, coalesce(x.not_learning, 0), coalesce(" RANKS_ALL ", 0)"
                           "  FROM tuned_lrs t"
                           "  LEFT JOIN runs r ON r.sweep_id = t.sweep_id AND r.role = 'lr-search' AND r.arch = t.arch"
                           "       AND json_remove(r.coords_json, '$.lr') = json(t.point)"
                           "       AND abs(CAST(json_extract(r.config_json, '$.lr') AS REAL) - t.lr) <= 1e-9 * t.lr"
                           "  LEFT JOIN results x ON x.id = r.id"
                           " WHERE t.sweep_id = ?1 ORDER BY t.created_at",
                           &sweep_id, 1, &st, what, err))
        return -1;
    return store_read_all(s, st, what, sizeof **out, fill_tuned, (void **)out, n, err);
}

int store_tuned_lr_put(Store *s, int64_t sweep_id, const TunedLr *t, char *err)
{
    assert(s && sweep_id > 0 && err);
    const char *what = "record a tuned learning rate";
    sqlite3_stmt *st;
    if (store_prepare(s, "INSERT OR REPLACE INTO tuned_lrs (sweep_id, point, arch, lr, trials)"
                         " VALUES (?1, json(?2), ?3, ?4, ?5)", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK || store_bind_text(st, 2, t->point) != SQLITE_OK ||
        store_bind_text(st, 3, t->arch) != SQLITE_OK || sqlite3_bind_double(st, 4, t->lr) != SQLITE_OK ||
        sqlite3_bind_int(st, 5, t->trials) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_verdict_put(Store *s, int64_t sweep_id, const VerdictRow *v, char *err)
{
    assert(s && sweep_id > 0 && err);
    const char *what = "record a verdict";
    sqlite3_stmt *st;
    if (store_prepare(s, "INSERT OR REPLACE INTO verdicts (sweep_id, round, claim, verdict, numbers, tokens_per_run,"
                          " seeds, action, rules) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK || sqlite3_bind_int(st, 2, v->round) != SQLITE_OK ||
        store_bind_text(st, 3, v->claim) != SQLITE_OK || store_bind_text(st, 4, v->verdict) != SQLITE_OK ||
        store_bind_text(st, 5, v->numbers) != SQLITE_OK || sqlite3_bind_int64(st, 6, v->tokens_per_run) != SQLITE_OK ||
        sqlite3_bind_int(st, 7, v->seeds) != SQLITE_OK || store_bind_text(st, 8, v->action[0] ? v->action : NULL) ||
        sqlite3_bind_int(st, 9, VERDICT_RULES_TESTS) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

static void fill_verdict(void *item, sqlite3_stmt *st)
{
    VerdictRow *v = item;
    v->round = sqlite3_column_int(st, 0);
    store_column_copy(v->claim, sizeof v->claim, st, 1);
    store_column_copy(v->verdict, sizeof v->verdict, st, 2);
    store_column_copy(v->numbers, sizeof v->numbers, st, 3);
    v->tokens_per_run = sqlite3_column_int64(st, 4);
    v->seeds = sqlite3_column_int(st, 5);
    store_column_copy(v->action, sizeof v->action, st, 6);
    v->rules = sqlite3_column_int(st, 7);
}

int store_verdicts(Store *s, int64_t sweep_id, VerdictRow **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "read verdicts";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, "SELECT round, claim, verdict, coalesce(numbers, ''), coalesce(tokens_per_run, 0),"
                              " coalesce(seeds, 0), coalesce(action, ''), rules FROM verdicts WHERE sweep_id = ?1"
                              " ORDER BY round, claim", &sweep_id, 1, &st, what, err))
        return -1;
    return store_read_all(s, st, what, sizeof **out, fill_verdict, (void **)out, n, err);
}
