/*
 * store.c — the SQLite store declared in db/store.h: opening (pragmas and
 * forward migrations), writing runs, metrics, evaluations and checkpoints,
 * and the read helpers that `ls`, `show` and the UI use.
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

#include "db/jobs.h"
#include "db/migrations.h"
#include "db/store_internal.h"
#include "engine/common.h"

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

sqlite3 *store_sqlite(Store *s)
{
    return s->db;
}

int store_fail(Store *s, char *err, const char *what)
{
    return err_set(err, "store: %s: %s", what, sqlite3_errmsg(s->db));
}

int store_exec(Store *s, const char *sql, const char *what, char *err)
{
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
    *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return store_fail(s, err, what);
    return 0;
}

/* Steps st to completion and finalizes it. */
int store_step_done(Store *s, sqlite3_stmt *st, const char *what, char *err)
{
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
static void folder_of(const char *path, char *dir, size_t cap)
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

static int set_pragmas(Store *s, char *err)
{
    if (sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS) != SQLITE_OK)
        return store_fail(s, err, "busy timeout");

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

/* Applies the missing migrations, one transaction each.  The version is read
   again under the write lock because another process (a sweep starting jobs
   on a new file) may have migrated it between our first look and our lock. */
static int migrate(Store *s, char *err)
{
    int64_t version;
    if (store_query_int(s, "PRAGMA user_version", &version, "read schema version", err))
        return -1;
    if (version > STORE_MIGRATION_COUNT)
        return newer_error(s, version, err);
    while (version < STORE_MIGRATION_COUNT) {
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
            if (store_exec(s, STORE_MIGRATIONS[version], what, err) ||
                store_exec(s, set_version, what, err))
                goto failed;
            version++;
        }
        if (store_exec(s, "COMMIT", "commit migration", err))
            goto failed;
    }
    return 0;

failed:
    store_rollback_after_error(s);
    return -1;
}

/* ---- read-only stores ---------------------------------------------------- */

/* 1 when the file, or the folder that must hold its -wal and -shm files,
   cannot be written (a read-only mount, an immutable file). */
static int not_writable(const char *path)
{
    if (access(path, W_OK) != 0)
        return 1;
    char dir[4096];
    folder_of(path, dir, sizeof dir);
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
            store_exec(s, "PRAGMA cache_size = -32768", "cache size", err))
            return -1;
        s->read_only = 1;
        return 0;
    }
    return err_set(err, "%s: cannot open the read-only store: %s", s->path,
                   s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

int store_read_only(const Store *s)
{
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
    return open_store(path, 1, out, err);
}

int store_in_transaction(Store *s)
{
    return !sqlite3_get_autocommit(s->db);
}

const char *store_file(const Store *s)
{
    return s->path;
}

int store_open_existing(const char *path, Store **out, char *err)
{
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
    int64_t v;
    if (store_query_int(s, "PRAGMA user_version", &v, "read schema version", err))
        return -1;
    *version = (int)v;
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

int store_run_insert(Store *s, const RunInfo *info, const char *status, int64_t *run_id,
                     char *err)
{
    if (!info || !info->arch || !info->task)
        return err_set(err, "store: a run needs an arch and a task");
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO runs (name, status, started_at, arch, task, data, tokenizer,"
                      " d, layers, heads, n_ctx, vocab, seed, threads, total_steps,"
                      " n_params, n_params_nonembedding, config_json)"
                      " VALUES (?1, ?17, CASE WHEN ?17 = 'running' THEN " STORE_NOW_SQL " END,"
                      " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                      &st, "create run", err))
        return -1;
    if (store_bind_text(st, 1, info->name) != SQLITE_OK ||
        store_bind_text(st, 2, info->arch) != SQLITE_OK ||
        store_bind_text(st, 3, info->task) != SQLITE_OK ||
        store_bind_text(st, 4, info->data) != SQLITE_OK ||
        store_bind_text(st, 5, info->tokenizer) != SQLITE_OK ||
        sqlite3_bind_int(st, 6, info->d) != SQLITE_OK ||
        sqlite3_bind_int(st, 7, info->layers) != SQLITE_OK ||
        sqlite3_bind_int(st, 8, info->heads) != SQLITE_OK ||
        sqlite3_bind_int(st, 9, info->n_ctx) != SQLITE_OK ||
        sqlite3_bind_int(st, 10, info->vocab) != SQLITE_OK ||
        sqlite3_bind_int64(st, 11, info->seed) != SQLITE_OK ||
        sqlite3_bind_int(st, 12, info->threads) != SQLITE_OK ||
        sqlite3_bind_int64(st, 13, info->total_steps) != SQLITE_OK ||
        sqlite3_bind_int64(st, 14, info->n_params) != SQLITE_OK ||
        sqlite3_bind_int64(st, 15, info->n_params_nonembedding) != SQLITE_OK ||
        store_bind_text(st, 16, info->config_json ? info->config_json : "{}") != SQLITE_OK ||
        store_bind_text(st, 17, status) != SQLITE_OK) {
        store_fail(s, err, "create run");
        (void)sqlite3_finalize(st);
        return -1;
    }
    if (store_step_done(s, st, "create run", err))
        return -1;
    if (run_id)
        *run_id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

int store_run_create(Store *s, const RunInfo *info, int64_t *run_id, char *err)
{
    /* owned by this process from its first row, so that a kill leaves a run
       that reads as interrupted (db/jobs.h store_jobs_recover_headless) */
    const char *what = "create a run";
    int own = sqlite3_get_autocommit(s->db);   /* else it joins the caller's transaction */
    if (own && store_begin(s, what, err))
        return -1;
    int rc = store_run_insert(s, info, "running", run_id, err);
    if (rc == 0)
        rc = store_run_own(s, *run_id, (int)getpid(), err);
    return own ? store_end(s, rc, what, err) : rc;
}

/* What a metrics batch leaves free on the store's file system: enough for
   the few pages that record the run's end (its status and error, the last
   evaluations) and a checkpoint's row, so a disk that fills while metrics
   are written still lets the run fail with its reason stored. */
#define STORE_RESERVE_BYTES (256 * 1024)
#define METRIC_ROW_BYTES 200   /* a row in the WAL and the table, generously */

/* Refuses a batch of n rows that would leave less than the reserve free. */
static int check_room(Store *s, int n, const char *what, char *err)
{
    if (strcmp(s->path, ":memory:") == 0)
        return 0;
    char dir[4096];
    folder_of(s->path, dir, sizeof dir);
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return 0;   /* not knowable: SQLite reports a full disk itself */
    double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize;
    double need = (double)n * METRIC_ROW_BYTES + STORE_RESERVE_BYTES;
    if (free_bytes < need)
        return err_set(err, "store: %s: No space left on device (%.0f kB free in %s, the store "
                            "keeps %d kB to record the run's end)", what, free_bytes / 1024, dir,
                       STORE_RESERVE_BYTES / 1024);
    return 0;
}

int store_metrics_append(Store *s, int64_t run_id, const MetricRow *rows, int n, char *err)
{
    if (n < 0 || (n > 0 && !rows))
        return err_set(err, "store: append metrics: bad row count %d", n);
    if (n == 0)
        return 0;
    char what[80];
    snprintf(what, sizeof what, "append metrics for run %lld", (long long)run_id);

    if (!s->insert_metric &&
        store_prepare(s,
                      "INSERT OR REPLACE INTO metrics (run_id, step, tokens, wall, train_loss,"
                      " train_loss_smooth, lr, grad_norm, tokens_per_s)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                      &s->insert_metric, what, err))
        return -1;
    if (check_room(s, n, what, err) || store_exec(s, "BEGIN IMMEDIATE", what, err))
        return -1;

    sqlite3_stmt *st = s->insert_metric;
    const MetricRow *last = &rows[0];
    for (int i = 0; i < n; i++) {
        const MetricRow *r = &rows[i];
        if (r->step > last->step)
            last = r;
        if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
            sqlite3_bind_int64(st, 2, r->step) != SQLITE_OK ||
            sqlite3_bind_int64(st, 3, r->tokens) != SQLITE_OK ||
            store_bind_real(st, 4, r->wall) != SQLITE_OK ||
            store_bind_real(st, 5, r->train_loss) != SQLITE_OK ||
            store_bind_real(st, 6, r->train_loss_smooth) != SQLITE_OK ||
            store_bind_real(st, 7, r->lr) != SQLITE_OK ||
            store_bind_real(st, 8, r->grad_norm) != SQLITE_OK ||
            store_bind_real(st, 9, r->tokens_per_s) != SQLITE_OK) {
            store_fail(s, err, what);
            goto failed;
        }
        if (sqlite3_step(st) != SQLITE_DONE) {
            store_fail(s, err, what);
            goto failed;
        }
        if (sqlite3_reset(st) != SQLITE_OK) {
            store_fail(s, err, what);
            goto failed;
        }
    }

    /* Live progress for readers; max() keeps it monotonic when a resumed run
       rewrites earlier steps. */
    sqlite3_stmt *up;
    if (store_prepare(s,
                      "UPDATE runs SET steps_done = max(steps_done, ?2),"
                      " tokens_seen = max(tokens_seen, ?3),"
                      " wall_seconds = max(coalesce(wall_seconds, 0), coalesce(?4, 0))"
                      " WHERE id = ?1",
                      &up, what, err))
        goto failed;
    if (sqlite3_bind_int64(up, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(up, 2, last->step) != SQLITE_OK ||
        sqlite3_bind_int64(up, 3, last->tokens) != SQLITE_OK ||
        store_bind_real(up, 4, last->wall) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(up);
        goto failed;
    }
    if (store_step_done(s, up, what, err))
        goto failed;
    if (store_exec(s, "COMMIT", what, err))
        goto failed;
    return 0;

failed:
    /* The statement reports the failure again on reset; it is reported. */
    (void)sqlite3_reset(st);
    store_rollback_after_error(s);
    return -1;
}

int store_eval_add(Store *s, int64_t run_id, const EvalRow *row, char *err)
{
    if (!row || !row->split ||
        (strcmp(row->split, "train") && strcmp(row->split, "valid") && strcmp(row->split, "test")))
        return err_set(err, "store: an evaluation split is train, valid or test, not %s",
                       row && row->split ? row->split : "(none)");
    char what[80];
    snprintf(what, sizeof what, "add %s evaluation for run %lld", row->split, (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO evals (run_id, step, split, loss, perplexity, accuracy,"
                      " bits_per_byte, n_tokens, loss_all) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
                      " ON CONFLICT (run_id, step, split) DO UPDATE SET loss = excluded.loss,"
                      " perplexity = excluded.perplexity, accuracy = excluded.accuracy,"
                      " bits_per_byte = excluded.bits_per_byte, n_tokens = excluded.n_tokens,"
                      " loss_all = excluded.loss_all,"
                      " created_at = excluded.created_at",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, row->step) != SQLITE_OK ||
        store_bind_text(st, 3, row->split) != SQLITE_OK ||
        store_bind_real(st, 4, row->loss) != SQLITE_OK ||
        store_bind_real(st, 5, exp(row->loss)) != SQLITE_OK ||
        store_bind_real(st, 6, row->accuracy) != SQLITE_OK ||
        store_bind_real(st, 7, row->bits_per_byte) != SQLITE_OK ||
        sqlite3_bind_int64(st, 8, row->n_tokens) != SQLITE_OK ||
        store_bind_real(st, 9, row->loss_all) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_checkpoint_add(Store *s, int64_t run_id, int64_t step, const char *path, char *err)
{
    if (!path || !*path)
        return err_set(err, "store: a checkpoint needs a path");
    char what[80];
    snprintf(what, sizeof what, "add checkpoint for run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO checkpoints (run_id, step, path) VALUES (?1, ?2, ?3)"
                      " ON CONFLICT (run_id, path) DO UPDATE SET step = excluded.step,"
                      " created_at = excluded.created_at",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, step) != SQLITE_OK ||
        store_bind_text(st, 3, path) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

/* Runs an UPDATE of one run and checks that the run was there. */
int store_update_run(Store *s, sqlite3_stmt *st, int64_t run_id, const char *what, char *err)
{
    if (store_step_done(s, st, what, err))
        return -1;
    if (sqlite3_changes(s->db) != 1)
        return err_set(err, "store: run %lld: no such run", (long long)run_id);
    return 0;
}

int store_run_finish(Store *s, int64_t run_id, const RunEnd *end, char *err)
{
    RunStatus k = run_status_parse(end ? end->status : NULL);
    if (!run_status_final(k) && k != RUN_INTERRUPTED)
        return err_set(err, "store: a run ends as done, failed, diverged, cancelled or "
                            "interrupted, not %s", end && end->status ? end->status : "(none)");
    char what[80];
    snprintf(what, sizeof what, "finish run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "UPDATE runs SET status = ?2, error = ?3, steps_done = ?4, tokens_seen = ?5,"
                      " wall_seconds = coalesce(?6, wall_seconds),"
                      " tokens_per_s = coalesce(?7, tokens_per_s),"
                      " peak_mem_mb = coalesce(?8, peak_mem_mb),"
                      " control = NULL, owner_pid = NULL,"  /* no worker, nothing to obey */
                      " finished_at = " STORE_NOW_SQL " WHERE id = ?1",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        store_bind_text(st, 2, end->status) != SQLITE_OK ||
        store_bind_text(st, 3, end->error) != SQLITE_OK ||
        sqlite3_bind_int64(st, 4, end->steps_done) != SQLITE_OK ||
        sqlite3_bind_int64(st, 5, end->tokens_seen) != SQLITE_OK ||
        store_bind_real(st, 6, end->wall_seconds) != SQLITE_OK ||
        store_bind_real(st, 7, end->tokens_per_s) != SQLITE_OK ||
        store_bind_real(st, 8, end->peak_mem_mb) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

int store_run_set_status(Store *s, int64_t run_id, const char *status, char *err)
{
    if (run_status_parse(status) == RUN_STATUS_COUNT)
        return err_set(err, "store: unknown run status %s", status ? status : "(none)");
    char what[80];
    snprintf(what, sizeof what, "set status of run %lld", (long long)run_id);
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "UPDATE runs SET status = ?2,"
                      " started_at = CASE WHEN ?2 = 'running'"
                      "                   THEN coalesce(started_at, " STORE_NOW_SQL ")"
                      "                   ELSE started_at END,"
                      " finished_at = CASE WHEN ?2 IN ('done', 'failed', 'diverged',"
                      "                                'cancelled', 'interrupted')"
                      "                    THEN " STORE_NOW_SQL " ELSE NULL END,"
                      /* a job leaving 'running' has no worker and no request left */
                      " control = CASE WHEN ?2 = 'running' THEN control END,"
                      " owner_pid = CASE WHEN ?2 = 'running' THEN owner_pid END"
                      " WHERE id = ?1",
                      &st, what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        store_bind_text(st, 2, status) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_update_run(s, st, run_id, what, err);
}

/* ---- reading ------------------------------------------------------------ */

int store_run_exists(Store *s, int64_t run_id, int *exists, char *err)
{
    char sql[80];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld", (long long)run_id);
    int64_t count;
    if (store_query_int(s, sql, &count, "look up run", err))
        return -1;
    *exists = count > 0;
    return 0;
}

/* Steps one prepared statement, handing each row to fn.  *stopped is set when
   fn asked to stop. */
static int deliver_rows(Store *s, sqlite3_stmt *st, StoreRowFn fn, void *ctx, int *stopped,
                        char *err)
{
    int ncols = sqlite3_column_count(st);
    char **values = NULL, **names = NULL;
    if (ncols > 0) {
        values = calloc((size_t)ncols, sizeof *values);
        names = calloc((size_t)ncols, sizeof *names);
        if (!values || !names) {
            free(values);
            free(names);
            return err_set(err, "store: query: out of memory");
        }
    }
    int status = 0;
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            status = store_fail(s, err, "query");
            break;
        }
        for (int i = 0; i < ncols; i++) {
            values[i] = (char *)sqlite3_column_text(st, i);
            names[i] = (char *)sqlite3_column_name(st, i);
            if ((!values[i] && sqlite3_column_type(st, i) != SQLITE_NULL) || !names[i]) {
                status = err_set(err, "store: query: out of memory");
                break;
            }
        }
        if (status)
            break;
        if (fn && fn(ctx, ncols, values, names)) {
            *stopped = 1;
            break;
        }
    }
    free(values);
    free(names);
    return status;
}

int store_query_params(Store *s, const char *sql, const char *const *params, int n_params,
                       StoreRowFn fn, void *ctx, char *err)
{
    if (!sql)
        return err_set(err, "store: query: no SQL given");
    const char *tail = sql;
    while (*tail) {
        sqlite3_stmt *st = NULL;
        const char *next = NULL;
        if (sqlite3_prepare_v2(s->db, tail, -1, &st, &next) != SQLITE_OK)
            return store_fail(s, err, "query");
        tail = next;
        if (!st) /* only whitespace or a comment was left */
            continue;
        int wanted = sqlite3_bind_parameter_count(st);
        for (int i = 0; i < wanted && i < n_params; i++) {
            if (store_bind_text(st, i + 1, params[i]) != SQLITE_OK) {
                store_fail(s, err, "query");
                (void)sqlite3_finalize(st);
                return -1;
            }
        }
        int stopped = 0;
        if (deliver_rows(s, st, fn, ctx, &stopped, err)) {
            (void)sqlite3_finalize(st); /* repeats the error just reported */
            return -1;
        }
        if (sqlite3_finalize(st) != SQLITE_OK)
            return store_fail(s, err, "query");
        if (stopped)
            break;
    }
    return 0;
}

int store_query(Store *s, const char *sql, StoreRowFn fn, void *ctx, char *err)
{
    return store_query_params(s, sql, NULL, 0, fn, ctx, err);
}

/* The SQL of each StoreSeries: ?1 is the run, rows are (step, value). */
static const char *const SERIES_SQL[] = {
    [STORE_SERIES_TRAIN_LOSS] = "SELECT step, train_loss FROM metrics WHERE run_id = ?1"
                                " AND train_loss IS NOT NULL ORDER BY step",
    [STORE_SERIES_TRAIN_LOSS_SMOOTH] = "SELECT step, train_loss_smooth FROM metrics"
                                       " WHERE run_id = ?1 AND train_loss_smooth IS NOT NULL"
                                       " ORDER BY step",
    [STORE_SERIES_LR] = "SELECT step, lr FROM metrics WHERE run_id = ?1"
                        " AND lr IS NOT NULL ORDER BY step",
    [STORE_SERIES_GRAD_NORM] = "SELECT step, grad_norm FROM metrics WHERE run_id = ?1"
                               " AND grad_norm IS NOT NULL ORDER BY step",
    [STORE_SERIES_TOKENS_PER_S] = "SELECT step, tokens_per_s FROM metrics WHERE run_id = ?1"
                                  " AND tokens_per_s IS NOT NULL ORDER BY step",
    [STORE_SERIES_VALID_LOSS] = "SELECT step, loss FROM evals WHERE run_id = ?1"
                                " AND split = 'valid' AND loss IS NOT NULL ORDER BY step",
    [STORE_SERIES_VALID_ACCURACY] = "SELECT step, accuracy FROM evals WHERE run_id = ?1"
                                    " AND split = 'valid' AND accuracy IS NOT NULL ORDER BY step",
    [STORE_SERIES_TEST_LOSS] = "SELECT step, loss FROM evals WHERE run_id = ?1"
                               " AND split = 'test' AND loss IS NOT NULL ORDER BY step",
};

/* The metrics column of each StoreSeries read from metrics (NULL: evals). */
static const char *const SERIES_COLUMN[] = {
    [STORE_SERIES_TRAIN_LOSS] = "train_loss",
    [STORE_SERIES_TRAIN_LOSS_SMOOTH] = "train_loss_smooth",
    [STORE_SERIES_LR] = "lr",
    [STORE_SERIES_GRAD_NORM] = "grad_norm",
    [STORE_SERIES_TOKENS_PER_S] = "tokens_per_s",
    [STORE_SERIES_VALID_LOSS] = NULL,
    [STORE_SERIES_VALID_ACCURACY] = NULL,
    [STORE_SERIES_TEST_LOSS] = NULL,
};

/* At most ?2 points of a metrics column, evenly spaced over the run's
   steps: the first row at or past each of ?2 steps from the first to the
   last, each found by a seek on the primary key (run_id, step), so a run of
   a million steps costs ?2 seeks, not a million rows.  A run with fewer
   steps than that gives every row.  %s is the column.  (min and max in two
   subqueries: together in one they would scan the run's rows.) */
#define SAMPLED_SERIES_SQL                                                                       \
    "WITH RECURSIVE b(lo, hi) AS (SELECT (SELECT min(step) FROM metrics WHERE run_id = ?1),"    \
    "                                    (SELECT max(step) FROM metrics WHERE run_id = ?1)),"    \
    " k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?2)"                          \
    " SELECT m.step, m.%s FROM k, b JOIN metrics m ON m.run_id = ?1 AND m.step ="                 \
    "   (SELECT min(step) FROM metrics WHERE run_id = ?1 AND %s IS NOT NULL"                      \
    "     AND step >= b.lo + (b.hi - b.lo) * k.i / max(?2 - 1, 1))"                                \
    " GROUP BY m.step ORDER BY m.step"

int store_run_series_sampled(Store *s, int64_t run_id, StoreSeries what, int max_points,
                             double **steps, double **values, int *n, char *err)
{
    *steps = *values = NULL;
    *n = 0;
    if ((int)what < 0 || (size_t)what >= sizeof SERIES_SQL / sizeof SERIES_SQL[0])
        return err_set(err, "store: unknown series %d", (int)what);
    sqlite3_stmt *st;
    if (max_points > 0 && SERIES_COLUMN[what]) {
        char sql[1024];
        const char *col = SERIES_COLUMN[what];
        snprintf(sql, sizeof sql, SAMPLED_SERIES_SQL, col, col);
        if (store_prepare(s, sql, &st, "read series", err))
            return -1;
        if (sqlite3_bind_int(st, 2, max_points < 2 ? 2 : max_points) != SQLITE_OK) {
            store_fail(s, err, "read series");
            (void)sqlite3_finalize(st);
            return -1;
        }
    } else if (store_prepare(s, SERIES_SQL[what], &st, "read series", err)) {
        return -1;
    }
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK) {
        store_fail(s, err, "read series");
        (void)sqlite3_finalize(st);
        return -1;
    }
    double *xs = NULL, *ys = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown = cap ? 2 * cap : 256;
            double *nx = realloc(xs, (size_t)grown * sizeof *nx);
            if (nx)
                xs = nx;
            double *ny = nx ? realloc(ys, (size_t)grown * sizeof *ny) : NULL;
            if (ny)
                ys = ny;
            if (!nx || !ny) {
                err_set(err, "store: read series: out of memory");
                goto failed;
            }
            cap = grown;
        }
        xs[count] = sqlite3_column_double(st, 0);
        ys[count] = sqlite3_column_double(st, 1);
        count++;
    }
    if (rc != SQLITE_DONE) {
        store_fail(s, err, "read series");
        goto failed;
    }
    if (sqlite3_finalize(st) != SQLITE_OK) {
        store_fail(s, err, "read series");
        free(xs);
        free(ys);
        return -1;
    }
    *steps = xs;
    *values = ys;
    *n = count;
    return 0;

failed:
    (void)sqlite3_finalize(st); /* repeats the error just reported */
    free(xs);
    free(ys);
    return -1;
}

int store_run_series(Store *s, int64_t run_id, StoreSeries what, double **steps,
                     double **values, int *n, char *err)
{
    return store_run_series_sampled(s, run_id, what, 0, steps, values, n, err);
}

int store_run_curve(Store *s, int64_t run_id, double **steps, double **loss, int *n, char *err)
{
    return store_run_series_sampled(s, run_id, STORE_SERIES_TRAIN_LOSS_SMOOTH, STORE_CURVE_POINTS,
                                    steps, loss, n, err);
}
