/*
 * rows.c — decoding result rows, shared by the typed reads of db/
 * (store_internal.h): a column as text, as a double (NAN for NULL), as a
 * count (STORE_NO_COUNT for NULL), as a RunStatus; statements with integer
 * parameters; reading every row into a growing array.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

void store_column_copy(char *dst, size_t cap, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

double store_column_real(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

int64_t store_column_count(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? STORE_NO_COUNT : sqlite3_column_int64(st, col);
}

RunStatus store_column_status(sqlite3_stmt *st, int col)
{
    return run_status_parse((const char *)sqlite3_column_text(st, col));
}

int store_prepare_ints(Store *s, const char *sql, const int64_t *ints, int n_ints, sqlite3_stmt **st,
                       const char *what, char *err)
{
    assert(s && err);
    if (store_prepare(s, sql, st, what, err)) return -1;
    for (int i = 0; i < n_ints; i++)
        if (sqlite3_bind_int64(*st, i + 1, ints[i]) != SQLITE_OK) {
            store_fail(s, err, what);
            sqlite3_finalize(*st);
            *st = NULL;
            return -1;
        }
    return 0;
}

int store_finish(Store *s, sqlite3_stmt *st, int rc, const char *what, char *err)
{
    assert(s && err);
    int failed = rc != SQLITE_DONE && rc != SQLITE_ROW;
    if (failed) store_fail(s, err, what);
    sqlite3_finalize(st);
    return failed ? -1 : 0;
}

int store_grow(void **items, int *cap, int need, size_t elem, char *err)
{
    assert(err);
    if (need <= *cap) return 0;
    int new_cap = *cap ? *cap * 2 : 16;
    while (new_cap < need) new_cap *= 2;
    void *p = realloc(*items, (size_t)new_cap * elem);
    if (!p) return err_set(err, "store: out of memory reading rows");
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(new_cap - *cap) * elem);
    *items = p;
    *cap = new_cap;
    return 0;
}

int store_read_all(Store *s, sqlite3_stmt *st, const char *what, size_t size,
                   void (*fill)(void *item, sqlite3_stmt *st), void **out, int *n, char *err)
{
    char *items = NULL;
    int count = 0, cap = 0, rc;
    *out = NULL;
    *n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int new_cap = cap ? 2 * cap : 16;
            char *p = realloc(items, (size_t)new_cap * size);
            if (!p) {
                free(items);
                sqlite3_finalize(st);
                return err_set(err, "store: %s: out of memory", what);
            }
            items = p;
            cap = new_cap;
        }
        memset(items + (size_t)count * size, 0, size);
        fill(items + (size_t)count * size, st);
        count++;
    }
    if (store_finish(s, st, rc, what, err)) {
        free(items);
        return -1;
    }
    *out = items;
    *n = count;
    return 0;
}
