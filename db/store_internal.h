/*
 * store_internal.h — what db/store.c and db/rows.c share with the other
 * files of db/: the connection of a Store and the statement helpers that
 * check every sqlite3_* return code and turn failures into one-line errors.
 *
 * Not for: callers outside db/, which see the store only through store.h,
 * jobs.h and SQL on the documented tables and views.
 */
#ifndef MIXBENCH_STORE_INTERNAL_H
#define MIXBENCH_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "db/status.h"
#include "db/store.h"

/* The UTC timestamp every *_at column holds, as an SQL expression. */
#define STORE_NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

sqlite3 *store_sqlite(Store *s);
/* The metrics INSERT, prepared once and kept with the connection (NULL
   until the first append; finalized by store_close). */
sqlite3_stmt **store_metric_statement(Store *s);
/* The folder holding the file path, into dir: "." for a bare name. */
void store_folder_of(const char *path, char *dir, size_t cap);

/* "store: WHAT: <SQLite's message>" into err; returns -1. */
int store_fail(Store *s, char *err, const char *what);
/* sqlite3_exec of sql (no rows); -1 with "store: WHAT: ..." on failure. */
int store_exec(Store *s, const char *sql, const char *what, char *err);
/* After a failure inside a transaction: rolls it back if it is still open,
   keeping the first error as the one reported. */
void store_rollback_after_error(Store *s);
int store_prepare(Store *s, const char *sql, sqlite3_stmt **st, const char *what, char *err);
/* Steps st to SQLITE_DONE and finalizes it (also on failure). */
int store_step_done(Store *s, sqlite3_stmt *st, const char *what, char *err);
/* Runs st (an UPDATE of run run_id) like store_step_done and fails with
   "store: run N: no such run" when it changed no row. */
int store_update_run(Store *s, sqlite3_stmt *st, int64_t run_id, const char *what, char *err);
/* One integer from a statement without parameters. */
int store_query_int(Store *s, const char *sql, int64_t *out, const char *what, char *err);
/* Binds a double, non-finite as NULL; binds text, NULL as SQL NULL. */
int store_bind_real(sqlite3_stmt *st, int i, double v);
int store_bind_text(sqlite3_stmt *st, int i, const char *text);

/* Inserts a runs row from info with the given first status ('running' sets
   started_at, 'queued' leaves it NULL).  No transaction of its own, so a
   caller may wrap it in one. */
int store_run_insert(Store *s, const RunInfo *info, const char *status, int64_t *run_id,
                     char *err);

/* ---- decoding rows (db/rows.c) ---- */

/* A count column that is NULL. */
#define STORE_NO_COUNT (-1)
/* Column col as text into dst (NULL: ""), truncated to cap bytes. */
void store_column_copy(char *dst, size_t cap, sqlite3_stmt *st, int col);
/* Column col as a double; NAN for NULL. */
double store_column_real(sqlite3_stmt *st, int col);
/* Column col as an integer; STORE_NO_COUNT for NULL. */
int64_t store_column_count(sqlite3_stmt *st, int col);
/* Column col as a run status (RUN_STATUS_COUNT for a name not known). */
RunStatus store_column_status(sqlite3_stmt *st, int col);
/* Prepares sql with ints bound to ?1..?n_ints. */
int store_prepare_ints(Store *s, const char *sql, const int64_t *ints, int n_ints, sqlite3_stmt **st,
                       const char *what, char *err);
/* Finalizes st after a loop of sqlite3_step that stopped with rc: 0 when it
   ran to the end or the caller stopped at a row, else -1 with err set. */
int store_finish(Store *s, sqlite3_stmt *st, int rc, const char *what, char *err);
/* Grows *items (elements of elem bytes, the new ones zeroed) to hold at
   least need; -1 with err set when memory runs out (*items unchanged). */
int store_grow(void **items, int *cap, int need, size_t elem, char *err);
/* Steps st to the end, decoding each row with fill into a growing array of
   items of `size` bytes (zeroed first): *out malloc'd (NULL when *n is 0),
   st finalized. */
int store_read_all(Store *s, sqlite3_stmt *st, const char *what, size_t size,
                   void (*fill)(void *item, sqlite3_stmt *st), void **out, int *n, char *err);

#endif
