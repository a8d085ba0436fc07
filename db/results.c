/*
 * results.c — the typed reads of results.h.  Coordinates come apart in SQL
 * (json_each), one row per (job, axis), so no JSON is parsed here; a job or
 * figure without coordinates still yields one row (LEFT JOIN).
 */
#include "db/results.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

/* Appends the (key, value) of columns kcol, kcol+1 when the key is not NULL. */
static void add_coord(CoordPair *pairs, int *n, sqlite3_stmt *st, int kcol)
{
    if (sqlite3_column_type(st, kcol) == SQLITE_NULL || *n >= RESULT_MAX_COORDS) return;
    store_column_copy(pairs[*n].key, sizeof pairs[*n].key, st, kcol);
    store_column_copy(pairs[*n].value, sizeof pairs[*n].value, st, kcol + 1);
    (*n)++;
}

static int read_sweep(Store *s, const char *sql, const char *text_param, int64_t id_param, SweepRow *out,
                      int *found, char *err)
{
    const char *what = "read sweep";
    sqlite3_stmt *st;
    *found = 0;
    if (store_prepare(s, sql, &st, what, err)) return -1;
    int bind = text_param ? store_bind_text(st, 1, text_param) : sqlite3_bind_int64(st, 1, id_param);
    if (bind != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->id = sqlite3_column_int64(st, 0);
        store_column_copy(out->name, sizeof out->name, st, 1);
        store_column_copy(out->spec, sizeof out->spec, st, 2);
        store_column_copy(out->axes_json, sizeof out->axes_json, st, 3);
        store_column_copy(out->created_at, sizeof out->created_at, st, 4);
        store_column_copy(out->preset, sizeof out->preset, st, 5);
        store_column_copy(out->note, sizeof out->note, st, 6);
        *found = 1;
    } else if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

int results_newest_sweep(Store *s, const char *preset, SweepRow *out, int *found, char *err)
{
    assert(s && err);
    return read_sweep(s,
                      "SELECT id, name, spec, axes_json, created_at, coalesce(preset, name), note FROM sweeps"
                      " WHERE coalesce(preset, name) = ?1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1",
                      preset, 0, out, found, err);
}

int results_sweep(Store *s, int64_t sweep_id, SweepRow *out, int *found, char *err)
{
    assert(s && err);
    return read_sweep(s,
                      "SELECT id, name, spec, axes_json, created_at, coalesce(preset, name), note FROM sweeps"
                      " WHERE id = ?1",
                      NULL, sweep_id, out, found, err);
}

int results_sweep_runs(Store *s, int64_t sweep_id, int finished_only, ResultRun **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "read sweep results";
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT x.run_id, x.status, x.arch, x.task, x.data, x.test_loss, x.test_loss_all,"
                      "       x.train_loss, x.test_perplexity, x.test_accuracy, x.infer_samples_per_s,"
                      "       x.tokens_seen, x.wall_seconds, x.seed, x.unigram_nats, x.not_learning,"
                      "       j.key, j.value, x.best_valid_loss, x.valid_loss_all,"
                      "       CAST(json_extract(r.config_json, '$.lr') AS REAL), x.steps_done, x.total_steps,"
                      "       x.valid_loss, x.tokens_per_s, coalesce(r.d, 0), coalesce(r.layers, 0),"
                      "       coalesce(r.n_ctx, 0),"
                      "       (SELECT e.step FROM evals e WHERE e.run_id = x.run_id AND e.split = 'valid'"
                      "         ORDER BY e.loss, e.step LIMIT 1),"
                      "       r.peak_run_mb, r.train_cpu_seconds"
                      "  FROM sweep_results x JOIN runs r ON r.id = x.run_id"
                      "  LEFT JOIN json_each(x.coords) j ON j.type IN ('text', 'integer', 'real')"
                      " WHERE x.sweep_id = ?1 AND (?2 = 0 OR x.status = 'done')"
                      " ORDER BY x.run_id, j.id",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, sweep_id) != SQLITE_OK || sqlite3_bind_int(st, 2, finished_only) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    ResultRun *runs = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (count == 0 || runs[count - 1].run_id != id) {
            if (store_grow((void **)&runs, &cap, count + 1, sizeof *runs, err)) {
                sqlite3_finalize(st);
                free(runs);
                return -1;
            }
            ResultRun *r = &runs[count++];
            r->run_id = id;
            store_column_copy(r->status, sizeof r->status, st, 1);
            store_column_copy(r->arch, sizeof r->arch, st, 2);
            store_column_copy(r->task, sizeof r->task, st, 3);
            store_column_copy(r->data, sizeof r->data, st, 4);
            r->test_loss = store_column_real(st, 5);
            r->test_loss_all = store_column_real(st, 6);
            r->train_loss = store_column_real(st, 7);
            r->test_perplexity = store_column_real(st, 8);
            r->test_accuracy = store_column_real(st, 9);
            r->infer_samples_per_s = store_column_real(st, 10);
            r->tokens = store_column_real(st, 11);
            r->wall = store_column_real(st, 12);
            r->seed = store_column_real(st, 13);
            r->unigram_nats = store_column_real(st, 14);
            r->not_learning = sqlite3_column_int(st, 15);
            r->best_valid_loss = store_column_real(st, 18);
            r->valid_loss_all = store_column_real(st, 19);
            r->lr = store_column_real(st, 20);
            r->state = run_status_parse(r->status);
            r->steps_done = sqlite3_column_int64(st, 21);
            r->total_steps = sqlite3_column_int64(st, 22);
            r->valid_loss = store_column_real(st, 23);
            r->tokens_per_s = store_column_real(st, 24);
            r->d = sqlite3_column_int64(st, 25);
            r->layers = sqlite3_column_int64(st, 26);
            r->n_ctx = sqlite3_column_int64(st, 27);
            r->best_valid_step = store_column_real(st, 28);
            r->peak_run_mb = store_column_real(st, 29);
            r->train_cpu_seconds = store_column_real(st, 30);
        }
        add_coord(runs[count - 1].coords, &runs[count - 1].n_coords, st, 16);
    }
    if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        free(runs);
        return -1;
    }
    sqlite3_finalize(st);
    *out = runs;
    *n = count;
    return 0;
}

int results_paper_figures(Store *s, const char *preset, FigureRow **out, int *n, char *err)
{
    assert(s && err);
    const char *what = "read paper figures";
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT p.coords_json, p.metric, p.setting, p.value, p.note, p.setting_text, j.key, j.value"
                      "  FROM paper_figures p LEFT JOIN json_each(p.coords_json) j"
                      " WHERE p.preset = ?1"
                      " ORDER BY p.setting, p.coords_json, p.metric, j.id",
                      &st, what, err))
        return -1;
    if (store_bind_text(st, 1, preset) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    FigureRow *rows = NULL;
    int count = 0, cap = 0, rc;
    char last_key[1024 + 64] = "";
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* a figure is one (coords, metric, setting): its rows are adjacent */
        char key[sizeof last_key];
        snprintf(key, sizeof key, "%s|%s|%s", (const char *)sqlite3_column_text(st, 0),
                 (const char *)sqlite3_column_text(st, 1), (const char *)sqlite3_column_text(st, 2));
        if (count == 0 || strcmp(key, last_key)) {
            if (store_grow((void **)&rows, &cap, count + 1, sizeof *rows, err)) {
                sqlite3_finalize(st);
                free(rows);
                return -1;
            }
            FigureRow *f = &rows[count++];
            store_column_copy(f->metric, sizeof f->metric, st, 1);
            store_column_copy(f->setting, sizeof f->setting, st, 2);
            f->value = store_column_real(st, 3);
            store_column_copy(f->note, sizeof f->note, st, 4);
            store_column_copy(f->setting_text, sizeof f->setting_text, st, 5);
            memcpy(last_key, key, sizeof key);
        }
        add_coord(rows[count - 1].coords, &rows[count - 1].n_coords, st, 6);
    }
    if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        free(rows);
        return -1;
    }
    sqlite3_finalize(st);
    *out = rows;
    *n = count;
    return 0;
}

const char *coord_value(const CoordPair *pairs, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(pairs[i].key, key)) return pairs[i].value;
    return NULL;
}
