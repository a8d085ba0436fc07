/*
 * datasets.c — per-dataset facts and per-run end-of-run measures that the
 * claims of the seed papers are judged by (schema version 3): the unigram
 * entropy of a dataset's training split, computed once by the first run on
 * it, and a run's batch-1 inference speed.
 *
 * Not for: computing either (engine/ does the math); this file only stores
 * and reads them.
 */
#include "db/store.h"
#include "db/store_internal.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "engine/common.h"

int store_dataset_unigram_get(Store *s, const char *data, const char *tokenizer, int vocab,
                              double *nats, char *err)
{
    assert(s && err);
    *nats = NAN;
    sqlite3_stmt *st;
    const char *what = "read a dataset's unigram entropy";
    if (store_prepare(s,
                      "SELECT unigram_nats FROM datasets WHERE data = ?1 AND tokenizer = ?2"
                      " AND vocab = ?3",
                      &st, what, err))
        return -1;
    if (store_bind_text(st, 1, data ? data : "") != SQLITE_OK ||
        store_bind_text(st, 2, tokenizer ? tokenizer : "") != SQLITE_OK ||
        sqlite3_bind_int(st, 3, vocab) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        *nats = sqlite3_column_double(st, 0);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    (void)sqlite3_finalize(st);
    return 0;
}

int store_dataset_unigram_put(Store *s, const char *data, const char *tokenizer, int vocab,
                              int64_t train_tokens, double nats, char *err)
{
    assert(s && err);
    sqlite3_stmt *st;
    const char *what = "store a dataset's unigram entropy";
    if (store_prepare(s,
                      "INSERT OR REPLACE INTO datasets (data, tokenizer, vocab, train_tokens,"
                      " unigram_nats, unigram_bits) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                      &st, what, err))
        return -1;
    if (store_bind_text(st, 1, data ? data : "") != SQLITE_OK ||
        store_bind_text(st, 2, tokenizer ? tokenizer : "") != SQLITE_OK ||
        sqlite3_bind_int(st, 3, vocab) != SQLITE_OK ||
        sqlite3_bind_int64(st, 4, train_tokens) != SQLITE_OK ||
        store_bind_real(st, 5, nats) != SQLITE_OK ||
        store_bind_real(st, 6, nats / log(2.0)) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_run_set_infer(Store *s, int64_t run_id, double samples_per_s, char *err)
{
    assert(s && run_id > 0 && err);
    char what[80];
    snprintf(what, sizeof what, "store the inference speed of run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s, "UPDATE runs SET infer_samples_per_s = ?2 WHERE id = ?1", &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK || store_bind_real(st, 2, samples_per_s) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}
