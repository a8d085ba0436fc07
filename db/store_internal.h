/*
 * store_internal.h — what db/store.c shares with the other files of db/
 * (db/jobs.c): the connection of a Store and the statement helpers that
 * check every sqlite3_* return code and turn failures into one-line errors.
 *
 * Not for: callers outside db/, which see the store only through store.h,
 * jobs.h and SQL on the documented tables and views.
 */
#ifndef MIXBENCH_STORE_INTERNAL_H
#define MIXBENCH_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "db/store.h"

/* The UTC timestamp every *_at column holds, as an SQL expression. */
#define STORE_NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

sqlite3 *store_sqlite(Store *s);

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

#endif
