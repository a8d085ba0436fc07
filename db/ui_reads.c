/*
 * ui_reads.c — the workbench's reads declared in db/ui_reads.h: SQL over
 * the runs table and the results view (schema version 3) for the Runs,
 * Run, Compare and Grid screens.
 *
 * Not for: the numbers themselves (the results view computes the unigram
 * gap and the not-learning flag) or drawing.
 */
#include "db/ui_reads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/common.h"

/* A run's seed group as text, for runs aliased A (see ui_reads.h). */
#define SEED_GROUP(A)                                                                          \
    "CASE WHEN " A ".sweep_id IS NOT NULL"                                                     \
    " THEN 'sweep ' || " A ".sweep_id || ' ' || json_remove(coalesce(" A ".coords_json, '{}'), '$.seed')" \
    " ELSE 'config ' || json_remove(coalesce(" A ".config_json, '{}'), '$.seed', '$.threads') END"

int store_ui_runs(Store *s, StoreRowFn fn, void *ctx, char *err)
{
    static const char SQL[] =
        "SELECT r.id, r.name, r.arch, r.task, r.data, r.status, r.steps_done, r.total_steps,"
        "       x.train_loss, x.tokens_per_s, x.valid_loss, s.name, r.sweep_id,"
        "       coalesce((SELECT group_concat(j.key || '=' || j.value, ' ') FROM json_each(r.coords_json) j), ''),"
        "       coalesce(r.error, ''), " SEED_GROUP("r") ", r.seed,"
        "       x.not_learning, x.unigram_nats, x.unigram_gap, x.test_loss"
        "  FROM runs r"
        "  JOIN results x ON x.id = r.id"
        "  LEFT JOIN sweeps s ON s.id = r.sweep_id"
        " ORDER BY r.id";
    return store_query(s, SQL, fn, ctx, err);
}

static double real_or_nan(const char *v) { return v ? strtod(v, NULL) : NAN; }

static int read_facts(void *state, int ncols, char **v, char **names)
{
    (void)names;
    UiRunFacts *f = state;
    if (ncols < 6) return 0;
    f->unigram_nats = real_or_nan(v[0]);
    f->unigram_gap = real_or_nan(v[1]);
    f->not_learning = v[2] && atoi(v[2]) != 0;
    f->best_valid_loss = real_or_nan(v[3]);
    f->valid_loss_all = real_or_nan(v[4]);
    f->test_loss_all = real_or_nan(v[5]);
    return 1;
}

int store_ui_run_facts(Store *s, int64_t run_id, UiRunFacts *out, char *err)
{
    *out = (UiRunFacts){NAN, NAN, 0, NAN, NAN, NAN};
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)run_id);
    const char *params[1] = {id};
    return store_query_params(s,
                              "SELECT unigram_nats, unigram_gap, not_learning, best_valid_loss,"
                              "       valid_loss_all, test_loss_all FROM results WHERE id = ?1",
                              params, 1, read_facts, out, err);
}

int store_ui_evals(Store *s, int64_t run_id, int limit, StoreRowFn fn, void *ctx, char *err)
{
    char id[24], sql[256];
    snprintf(id, sizeof id, "%lld", (long long)run_id);
    snprintf(sql, sizeof sql,
             "SELECT step, split, loss, perplexity, accuracy, loss_all FROM evals"
             " WHERE run_id = ?1 ORDER BY step DESC, split LIMIT %d",
             limit);
    const char *params[1] = {id};
    return store_query_params(s, sql, params, 1, fn, ctx, err);
}

int store_ui_sweep_runs(Store *s, int64_t sweep_id, StoreRowFn fn, void *ctx, char *err)
{
    static const char SQL[] =
        "SELECT r.id, x.status, x.steps_done, x.total_steps, r.coords_json, r.d, r.layers, r.n_ctx,"
        "       x.tokens_seen, r.seed, x.not_learning,"
        "       x.test_loss, x.valid_loss, x.test_perplexity, x.test_accuracy, x.train_loss,"
        "       x.tokens_per_s, x.test_loss_all, x.valid_loss_all, x.infer_samples_per_s"
        "  FROM runs r JOIN results x ON x.id = r.id WHERE r.sweep_id = ?1 ORDER BY r.id";
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)sweep_id);
    const char *params[1] = {id};
    return store_query_params(s, SQL, params, 1, fn, ctx, err);
}

int store_ui_paper_figures(Store *s, const char *preset, StoreRowFn fn, void *ctx, char *err)
{
    const char *params[1] = {preset};
    return store_query_params(s,
                              "SELECT coords_json, metric, value, setting, coalesce(setting_text, ''),"
                              "       coalesce(note, '')"
                              "  FROM paper_figures WHERE preset = ?1 ORDER BY setting, metric, coords_json",
                              params, 1, fn, ctx, err);
}

typedef struct {
    int64_t *ids;
    int cap, n;
} IdList;

static int read_id(void *state, int ncols, char **v, char **names)
{
    (void)names;
    IdList *l = state;
    if (ncols < 1 || !v[0]) return 0;
    if (l->n < l->cap) l->ids[l->n++] = atoll(v[0]);
    return l->n == l->cap;
}

int store_ui_seed_group(Store *s, int64_t run_id, int64_t *ids, int cap, int *n, char *err)
{
    static const char SQL[] =
        "SELECT g.id FROM runs r JOIN runs g ON (g.sweep_id IS r.sweep_id)"
        "   AND (" SEED_GROUP("g") ") = (" SEED_GROUP("r") ")"
        " WHERE r.id = ?1 ORDER BY g.id";
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)run_id);
    const char *params[1] = {id};
    IdList l = {ids, cap, 0};
    *n = 0;
    if (cap < 1) return err_set(err, "store: seed group of run %lld: no room for ids", (long long)run_id);
    int rc = store_query_params(s, SQL, params, 1, read_id, &l, err);
    *n = l.n;
    return rc;
}
