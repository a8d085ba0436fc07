/*
 * store.c — the SQLite store declared in db/store.h: opening (pragmas,
 * forward migrations, read-only files), closing, transactions and the
 * statement helpers db/ shares (store_internal.h).  Its writes are
 * store_write.c, its reads store_read.c.
 *
 * Not for: the schema itself (db/migrations.c holds it, with the views), the
 * job queue (db/jobs.c, on the helpers shared through db/store_internal.h),
 * or formatting anything for people (app/ and ui/ do that).
 *
 * Concurrency: the file is in WAL mode, so the sqlite3 CLI and other
 * processes read while a run writes.  Every write that spans statements
 * starts with BEGIN IMMEDIATE, which takes the write lock up front (waiting
 * up to the busy timeout) instead of upgrading a read transaction later, the
 * one case where SQLite returns SQLITE_BUSY without waiting.
 */
#include "db/store.h"

#include <assert.h>
#include <time.h>

#include "db/migrations.h"
#include "db/recover.h"
#include "db/store_internal.h"
#include "engine/common.h"
#include "engine/data/data.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 5000

struct Store {
    sqlite3 *db;
    char *path;
    int read_only;               /* opened with SQLITE_OPEN_READONLY (store_read_only) */
    sqlite3_stmt *insert_metric; /* prepared once, reused by every append */
};

/* ---- small helpers (shared with db/ through store_internal.h) ---------- */

sqlite3_stmt **store_metric_statement(Store *s)
{
    assert(s);
    return &s->insert_metric;
}

sqlite3 *store_sqlite(Store *s)
{
    assert(s);
    return s->db;
}

int store_fail(Store *s, char *err, const char *what)
{
    assert(s && err);
    return err_set(err, "store: %s: %s", what, sqlite3_errmsg(s->db));
}

int store_exec(Store *s, const char *sql, const char *what, char *err)
{
    assert(s && err);
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(err, "store: %s: %s", what, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Called after a failure inside a transaction: the first error is the one the
   user needs, so a failing ROLLBACK (the transaction may already be gone)
   does not replace it. */
void store_rollback_after_error(Store *s)
{
    assert(s);
    if (!sqlite3_get_autocommit(s->db))
        (void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_begin(Store *s, const char *what, char *err)
{
    assert(sqlite3_get_autocommit(s->db));   /* transactions do not nest */
    return store_exec(s, "BEGIN IMMEDIATE", what, err);
}

int store_end(Store *s, int status, const char *what, char *err)
{
    assert(status != 0 || !sqlite3_get_autocommit(s->db));   /* a successful writer still holds its BEGIN */
    if (status == 0 && store_exec(s, "COMMIT", what, err) == 0)
        return 0;
    store_rollback_after_error(s);
    return -1;
}

int store_prepare(Store *s, const char *sql, sqlite3_stmt **st, const char *what, char *err)
{
    assert(s && err);
    *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;
}

/* Steps st to completion and finalizes it. */
int store_step_done(Store *s, sqlite3_stmt *st, const char *what, char *err)
{
    assert(s && err);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st); /* repeats the error just reported */
        return -1;
    }
    if (sqlite3_finalize(st) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;
}

int store_bind_real(sqlite3_stmt *st, int i, double v)
{
    /* NAN means "not measured", and an infinite loss (a diverged step) is no
       number either: both become SQL NULL, which the views skip and JSON
       can hold (SQLite would write Inf, which is not JSON). */
    return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *text)
{
    return text ? sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Runs a statement returning one integer (a pragma, a count). */
int store_query_int(Store *s, const char *sql, int64_t *out, const char *what, char *err)
{
    assert(s && err);
    sqlite3_stmt *st;
    if (store_prepare(s, sql, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            err_set(err, "store: %s: no result", what);
        else
            store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    *out = sqlite3_column_int64(st, 0);
    if (sqlite3_finalize(st) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;
}

/* The folder holding the file path, into dir: "." for a bare name. */
void store_folder_of(const char *path, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
}

/* ---- opening ---------------------------------------------------------- */

/* scores_answers(data): 1 for a corpus that scores only its answers
   (engine/data/data.h data_scores_answers), whose accuracy the reads call
   answer accuracy; the one rule, in SQL too. */
static void sql_scores_answers(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *data = sqlite3_value_text(argv[0]);
    sqlite3_result_int(ctx, data_scores_answers((const char *)data));
}

static int add_functions(Store *s, char *err)
{
    if (sqlite3_create_function_v2(s->db, "scores_answers", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                   sql_scores_answers, NULL, NULL, NULL) != SQLITE_OK)
        return store_fail(s, err, "add SQL functions");
    return 0;
}

static int set_pragmas(Store *s, char *err)
{
    if (sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS) != SQLITE_OK)
        return store_fail(s, err, "busy timeout");
    if (add_functions(s, err))
        return -1;

    /* The first statement that reads the file: name the file when it is not
       a database at all. */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK)
        return err_set(err, "%s: %s", s->path, sqlite3_errmsg(s->db));
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        err_set(err, "%s: %s", s->path, sqlite3_errmsg(s->db));
        (void)sqlite3_finalize(st);
        return -1;
    }
    const char *mode = (const char *)sqlite3_column_text(st, 0);
    int wal = mode && strcmp(mode, "wal") == 0;
    int memory = mode && strcmp(mode, "memory") == 0 && strcmp(s->path, ":memory:") == 0;
    char mode_copy[32];
    snprintf(mode_copy, sizeof mode_copy, "%s", mode ? mode : "unknown");
    if (sqlite3_finalize(st) != SQLITE_OK)
        return err_set(err, "%s: %s", s->path, sqlite3_errmsg(s->db));
    if (!wal && !memory)
        return err_set(err, "%s: cannot switch to WAL mode (journal mode is %s; is the file "
                            "on a network file system?)", s->path, mode_copy);

    /* 32 MB of page cache (SQLite's default is 2 MB): the Runs screen and
       `ls` of a store of a thousand runs read a few thousand pages, the last
       metrics and evaluations of each, every time; taken only as used */
    if (store_exec(s, "PRAGMA foreign_keys = ON", "foreign keys", err) ||
        store_exec(s, "PRAGMA synchronous = NORMAL", "synchronous", err) ||
        store_exec(s, "PRAGMA cache_size = -32768", "cache size", err))
        return -1;
    int64_t fk = 0;
    if (store_query_int(s, "PRAGMA foreign_keys", &fk, "foreign keys", err))
        return -1;
    if (fk != 1)
        return err_set(err, "store: this SQLite has no foreign key support");
    return 0;
}

static int newer_error(Store *s, int64_t version, char *err)
{
    return err_set(err, "%s: store schema version %lld is newer than this mixbench knows "
                        "(%d); use a newer mixbench", s->path, (long long)version,
                   STORE_MIGRATION_COUNT);
}

/* The rows whose foreign key does not hold (PRAGMA foreign_key_check).  A
   migration (run with foreign keys off) may not add any; rows a store
   already had (say, deleted from the sqlite3 shell, whose foreign keys are
   off) do not stop its upgrade. */
static int broken_keys(Store *s, int64_t *broken, const char *what, char *err)
{
    return store_query_int(s, "SELECT count(*) FROM pragma_foreign_key_check", broken, what, err);
}

/* Applies the missing migrations, one transaction each.  The version is read
   again under the write lock because another process (a sweep starting jobs
   on a new file) may have migrated it between our first look and our lock. */
static int migrate_all(Store *s, char *err)
{
    int64_t version = 0;
    for (;;) {
        if (store_exec(s, "BEGIN IMMEDIATE", "begin migration", err))
            return -1;
        if (store_query_int(s, "PRAGMA user_version", &version, "read schema version", err))
            goto failed;
        if (version > STORE_MIGRATION_COUNT) {
            newer_error(s, version, err);
            goto failed;
        }
        if (version == 0) {
            int64_t tables;
            if (store_query_int(s, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
                                &tables, "read schema", err))
                goto failed;
            if (tables > 0) {
                err_set(err, "%s: not a mixbench store (it has tables but no schema version)",
                        s->path);
                goto failed;
            }
        }
        if (version < STORE_MIGRATION_COUNT) {
            char what[96], set_version[64];
            snprintf(what, sizeof what, "migration to schema version %lld", (long long)version + 1);
            snprintf(set_version, sizeof set_version, "PRAGMA user_version = %lld",
                     (long long)version + 1);
            int64_t before = 0, after = 0;
            if (broken_keys(s, &before, what, err) || store_exec(s, STORE_MIGRATIONS[version], what, err) ||
                broken_keys(s, &after, what, err))
                goto failed;
            if (after > before) {
                err_set(err, "store: %s: %lld rows would break a foreign key", what, (long long)(after - before));
                goto failed;
            }
            if (store_exec(s, set_version, what, err))
                goto failed;
            version++;
        }
        if (store_exec(s, "COMMIT", "commit migration", err))
            goto failed;
        if (version >= STORE_MIGRATION_COUNT)
            return 0;
    }

failed:
    store_rollback_after_error(s);
    return -1;
}

/* migrate_all with foreign keys off (SQLite's procedure for rebuilding a
   table: version 8 rebuilds runs, whose drop would otherwise cascade to its
   metrics); each migration checks before it commits that it broke none, and they are on
   again after. */
static int migrate(Store *s, char *err)
{
    int64_t version;
    if (store_query_int(s, "PRAGMA user_version", &version, "read schema version", err))
        return -1;
    if (version > STORE_MIGRATION_COUNT)
        return newer_error(s, version, err);
    if (version == STORE_MIGRATION_COUNT)
        return 0;
    /* no effect inside a transaction: set between them */
    if (store_exec(s, "PRAGMA foreign_keys = OFF", "foreign keys off for a migration", err))
        return -1;
    int rc = migrate_all(s, err);
    char on_err[ERR_LEN];
    if (store_exec(s, "PRAGMA foreign_keys = ON", "foreign keys", rc ? on_err : err) && rc == 0)
        rc = -1;
    return rc;
}

/* ---- read-only stores ---------------------------------------------------- */

/* 1 when the file, or the folder that must hold its -wal and -shm files,
   cannot be written (a read-only mount, an immutable file). */
static int not_writable(const char *path)
{
    if (access(path, W_OK) != 0)
        return 1;
    char dir[4096];
    store_folder_of(path, dir, sizeof dir);
    return access(dir, W_OK) != 0;   /* the -wal and -shm files go there */
}

/* "file:PATH?immutable=1" with PATH's URI-special characters escaped. */
static int immutable_uri(const char *path, char *out, size_t cap)
{
    size_t n = 0;
    n += (size_t)snprintf(out, cap, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < cap; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20)
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", *p);
        else
            out[n++] = (char)*p;
    }
    if (n + 16 >= cap)
        return -1;
    snprintf(out + n, cap - n, "?immutable=1");
    return 0;
}

/* Opens an existing store that cannot be written: a WAL database opened
   read-only needs its -shm file (or a folder to make one in); when neither
   is there (a read-only mount), the file is opened as immutable, which
   reads the database file alone (the commits of a -wal file left there by
   a writer that did not close are not seen).  No pragma that writes, no
   migration: a store older than this binary is refused. */
static int open_read_only(Store *s, char *err)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        char uri[4200];
        const char *name = s->path;
        int flags = SQLITE_OPEN_READONLY;
        if (attempt == 1) {
            if (immutable_uri(s->path, uri, sizeof uri))
                break;
            name = uri;
            flags |= SQLITE_OPEN_URI;
        }
        (void)sqlite3_close_v2(s->db);
        s->db = NULL;
        if (sqlite3_open_v2(name, &s->db, flags, NULL) != SQLITE_OK)
            continue;
        (void)sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
        int64_t version;
        char probe[ERR_LEN];
        if (store_query_int(s, "PRAGMA user_version", &version, "read schema version", probe))
            continue;
        if (version > STORE_MIGRATION_COUNT)
            return newer_error(s, version, err);
        if (version < STORE_MIGRATION_COUNT)
            return err_set(err, "%s: read-only store at schema version %lld, this mixbench needs "
                                "%d; open it once where it can be written to upgrade it",
                           s->path, (long long)version, STORE_MIGRATION_COUNT);
        if (store_exec(s, "PRAGMA foreign_keys = ON", "foreign keys", err) ||
            store_exec(s, "PRAGMA cache_size = -32768", "cache size", err) || add_functions(s, err))
            return -1;
        s->read_only = 1;
        return 0;
    }
    return err_set(err, "%s: cannot open the read-only store: %s", s->path,
                   s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

int store_read_only(const Store *s)
{
    assert(s);
    return s && s->read_only;
}

static int open_store(const char *path, int create, Store **out, char *err)
{
    *out = NULL;
    if (!path || !*path)
        return err_set(err, "store: no file name given");
    int exists = 0;
    if (strcmp(path, ":memory:") != 0) {
        struct stat st;
        if (stat(path, &st) == 0) {
            exists = 1;
        } else if (!create) {
            if (errno == ENOENT)
                return err_set(err, "%s: no such store (run `mixbench run` first)", path);
            return err_set(err, "%s: %s", path, strerror(errno));
        }
    }

    Store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return err_set(err, "store: out of memory");
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        if (exists && not_writable(path)) {
            if (open_read_only(s, err)) {
                store_close(s);
                return -1;
            }
            *out = s;
            return 0;
        }
        if (s->db)
            err_set(err, "%s: cannot open store: %s", path, sqlite3_errmsg(s->db));
        else
            err_set(err, "%s: cannot open store: out of memory", path);
        store_close(s);
        return -1;
    }
    /* Several processes opening a brand-new file at once can meet a lock
       that SQLite reports without calling the busy handler (the switch to
       WAL, WAL recovery): such a lock is retried for the busy timeout. */
    int rc;
    for (int waited_ms = 0;; waited_ms += 20) {
        rc = set_pragmas(s, err) || migrate(s, err);
        int code = sqlite3_errcode(s->db) & 0xff;
        if (!rc || (code != SQLITE_BUSY && code != SQLITE_LOCKED) || waited_ms >= BUSY_TIMEOUT_MS) break;
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    /* An existing file that cannot be written (SQLite may have opened it
       read-only without saying so, or failed on its -shm file) is opened
       read-only on purpose; readers see it, writers get one clear line. */
    if (exists && (rc || sqlite3_db_readonly(s->db, "main") == 1) && not_writable(path)) {
        char ro_err[ERR_LEN];
        if (open_read_only(s, ro_err) == 0) {
            *out = s;
            return 0;
        }
        snprintf(err, ERR_LEN, "%s", ro_err);
        rc = -1;
    }
    if (rc) {
        store_close(s);
        return -1;
    }
    /* a run of `mixbench run` whose process was killed reads as interrupted
       from here on, in every reader (best effort: a store another process
       keeps busy is left for the next opening) */
    int recovered;
    char ignored[ERR_LEN];
    (void)store_jobs_recover_headless(s, &recovered, ignored);
    *out = s;
    return 0;
}

int store_open(const char *path, Store **out, char *err)
{
    assert(err);
    return open_store(path, 1, out, err);
}

int store_in_transaction(Store *s)
{
    assert(s);
    return !sqlite3_get_autocommit(s->db);
}

const char *store_file(const Store *s)
{
    assert(s);
    return s->path;
}

int store_open_existing(const char *path, Store **out, char *err)
{
    assert(err);
    return open_store(path, 0, out, err);
}

void store_close(Store *s)
{
    if (!s)
        return;
    /* Both calls return the statement's or handle's last error, which was
       already reported where it happened; close_v2 frees the handle even if
       a statement were still open. */
    (void)sqlite3_finalize(s->insert_metric);
    (void)sqlite3_close_v2(s->db);
    free(s->path);
    free(s);
}

int store_schema_latest(void)
{
    return STORE_MIGRATION_COUNT;
}

int store_schema_version(Store *s, int *version, char *err)
{
    assert(s && err);
    int64_t v;
    if (store_query_int(s, "PRAGMA user_version", &v, "read schema version", err))
        return -1;
    *version = (int)v;
    return 0;
}

