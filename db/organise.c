/*
 * organise.c — names, notes, stars, tags and the trash of organise.h: one
 * UPDATE each whose WHERE holds the rule (not in the trash, not starred,
 * not queued or running), so that a worker's claim in between cannot slip
 * past it; when it changed nothing, the run's row says why.
 *
 * Not for: purging (db/ckpt_gc.c removes rows and files together).
 */
#include "db/organise.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/ckpt_owner.h"
#include "db/store_internal.h"
#include "engine/common.h"
#include "engine/text.h"

/* What a run's row says when an update left it alone. */
typedef struct {
    int exists, trashed, starred;
    char status[16];
} RunFacts;

static int run_facts(Store *s, int64_t run_id, RunFacts *f, char *err)
{
    memset(f, 0, sizeof *f);
    const char *what = "read a run";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, "SELECT deleted_at IS NOT NULL, starred, status FROM runs WHERE id = ?1", &run_id, 1,
                           &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        f->exists = 1;
        f->trashed = sqlite3_column_int(st, 0);
        f->starred = sqlite3_column_int(st, 1);
        store_column_copy(f->status, sizeof f->status, st, 2);
    }
    return store_finish(s, st, rc, what, err);
}

/* The one line for a run an update of `verb` left alone. */
static int explain(Store *s, int64_t run_id, const char *verb, char *err)
{
    RunFacts f;
    if (run_facts(s, run_id, &f, err)) return -1;
    long long id = (long long)run_id;
    if (!f.exists) return err_set(err, "no run %lld in %s (see `mixbench ls`)", id, store_file_name(s));
    if (f.trashed) return store_err_trashed(run_id, err);
    if (f.starred) return err_set(err, "run %lld is starred, so protected: `mixbench unstar %lld` first", id, id);
    if (!strcmp(f.status, "queued") || !strcmp(f.status, "running"))
        return err_set(err, "run %lld is %s: pause or cancel it first (`mixbench cancel %lld`)", id, f.status, id);
    return err_set(err, "run %lld: nothing to %s", id, verb);
}

/* sql (?1 the id, ?2 text or NULL), then: changed one row, or why not. */
static int update_one(Store *s, const char *sql, int64_t id, const char *text, int *changed, const char *what,
                      char *err)
{
    sqlite3_stmt *st;
    if (store_prepare_ints(s, sql, &id, 1, &st, what, err)) return -1;
    if (sqlite3_bind_parameter_count(st) >= 2 && store_bind_text(st, 2, text) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    if (store_step_done(s, st, what, err)) return -1;
    *changed = sqlite3_changes(store_sqlite(s));
    return 0;
}

/* An update of a run not in the trash: refused with the reason when it
   changed nothing. */
static int update_run(Store *s, int64_t run_id, const char *sql, const char *text, const char *what, char *err)
{
    int changed = 0;
    if (update_one(s, sql, run_id, text, &changed, what, err)) return -1;
    return changed ? 0 : explain(s, run_id, what, err);
}

/* "" stands for no value (NULL). */
static const char *or_null(const char *text)
{
    return text && *text ? text : NULL;
}

/* ---- finding runs and sweeps -------------------------------------------- */

/* The id of the newest row of `table` with id or name text, in or out of
   the trash: *id 0 when none. */
static int find_in(Store *s, const char *table, const char *text, int in_trash, int64_t *id, char *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT id FROM %s WHERE (?1 <> '' AND ?1 NOT GLOB '*[^0-9]*' AND id = CAST(?1 AS INTEGER) OR name = ?1)"
             " AND (deleted_at IS NOT NULL) = ?2 ORDER BY id = CAST(?1 AS INTEGER) DESC, id DESC LIMIT 1",
             table);
    const char *what = "look up";
    sqlite3_stmt *st;
    *id = 0;
    if (store_prepare(s, sql, &st, what, err)) return -1;
    if (store_bind_text(st, 1, text) != SQLITE_OK || sqlite3_bind_int(st, 2, in_trash != 0) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    return store_finish(s, st, rc, what, err);
}

static int lookup(Store *s, const char *table, const char *noun, const char *text, int in_trash, int64_t *id,
                  char *err)
{
    assert(s && text && id && err);
    if (find_in(s, table, text, in_trash, id, err)) return -1;
    if (*id) return 0;
    int64_t other = 0;
    if (find_in(s, table, text, !in_trash, &other, err)) return -1;
    if (other && !in_trash)
        return err_set(err, "%s %s is in the trash (`mixbench restore %s%s` takes it back)", noun, text,
                       strcmp(noun, "run") ? "sweep:" : "", text);
    if (other) return err_set(err, "%s %s is not in the trash", noun, text);
    return err_set(err, "no %s %s in %s (see `mixbench %s`)", noun, text, store_file_name(s),
                   in_trash ? "ls --trash" : strcmp(noun, "run") ? "queue" : "ls");
}

int store_run_lookup(Store *s, const char *text, int in_trash, int64_t *run_id, char *err)
{
    return lookup(s, "runs", "run", text, in_trash, run_id, err);
}

int store_sweep_lookup(Store *s, const char *text, int in_trash, int64_t *sweep_id, char *err)
{
    return lookup(s, "sweeps", "sweep", text, in_trash, sweep_id, err);
}

int store_err_trashed(int64_t run_id, char *err)
{
    return err_set(err, "run %lld is in the trash (`mixbench restore %lld` takes it back)", (long long)run_id,
                   (long long)run_id);
}

int store_run_trashed(Store *s, int64_t run_id, int *trashed, char *err)
{
    assert(s && trashed && err);
    RunFacts f;
    *trashed = 0;
    if (run_facts(s, run_id, &f, err)) return -1;
    *trashed = f.trashed;
    return 0;
}

/* ---- names, notes, stars ------------------------------------------------ */

int store_run_rename(Store *s, int64_t run_id, const char *name, char *err)
{
    assert(s && run_id > 0 && err);
    return update_run(s, run_id, "UPDATE runs SET name = ?2 WHERE id = ?1 AND deleted_at IS NULL", or_null(name),
                      "rename", err);
}

int store_run_note(Store *s, int64_t run_id, const char *note, char *err)
{
    assert(s && run_id > 0 && err);
    if (note && strlen(note) >= STORE_NOTE_MAX) return err_set(err, "a note is at most %d bytes", STORE_NOTE_MAX - 1);
    return update_run(s, run_id, "UPDATE runs SET note = ?2 WHERE id = ?1 AND deleted_at IS NULL", or_null(note),
                      "note", err);
}

int store_run_star(Store *s, int64_t run_id, int starred, char *err)
{
    assert(s && run_id > 0 && err);
    return update_run(s, run_id, "UPDATE runs SET starred = CAST(?2 AS INTEGER) WHERE id = ?1 AND deleted_at IS NULL",
                      starred ? "1" : "0", "star", err);
}

/* An update of a sweep not in the trash. */
static int update_sweep(Store *s, int64_t sweep_id, const char *sql, const char *text, const char *what, char *err)
{
    int changed = 0;
    if (update_one(s, sql, sweep_id, text, &changed, what, err)) return -1;
    if (changed) return 0;
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)sweep_id);
    int64_t found;
    return store_sweep_lookup(s, id, 0, &found, err) ? -1 : err_set(err, "sweep %s: nothing to %s", id, what);
}

int store_sweep_rename(Store *s, int64_t sweep_id, const char *name, char *err)
{
    assert(s && sweep_id > 0 && err);
    if (!name || !*name) return err_set(err, "a sweep's name cannot be empty");
    return update_sweep(s, sweep_id, "UPDATE sweeps SET name = ?2 WHERE id = ?1 AND deleted_at IS NULL", name,
                        "rename", err);
}

int store_sweep_note(Store *s, int64_t sweep_id, const char *note, char *err)
{
    assert(s && sweep_id > 0 && err);
    if (note && strlen(note) >= STORE_NOTE_MAX) return err_set(err, "a note is at most %d bytes", STORE_NOTE_MAX - 1);
    return update_sweep(s, sweep_id, "UPDATE sweeps SET note = ?2 WHERE id = ?1 AND deleted_at IS NULL",
                        or_null(note), "note", err);
}

/* ---- tags --------------------------------------------------------------- */

int store_tag_check(const char *tag, char *err)
{
    assert(err);
    if (!tag || !*tag) return err_set(err, "a tag cannot be empty");
    if (strlen(tag) >= STORE_TAG_MAX) return err_set(err, "tag %.40s...: at most %d bytes", tag, STORE_TAG_MAX - 1);
    if (tag[0] == '!' || tag[0] == '-') return err_set(err, "tag %s: a tag cannot start with '%c'", tag, tag[0]);
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++)
        if (*p <= ' ' || *p == 127 || strchr(",\"'#=<>", *p))
            return err_set(err, "tag %s: one word, without spaces or any of , \" ' # = < >", tag);
    for (size_t at = 0, len = strlen(tag); at < len;) {
        size_t k = text_utf8_seq(tag + at, len - at);
        if (!k) return err_set(err, "tag %s: not UTF-8", tag);
        at += k;
    }
    return 0;
}

int store_run_tag(Store *s, int64_t run_id, const char *tag, int add, int *changed, char *err)
{
    assert(s && run_id > 0 && err);
    if (changed) *changed = 0;
    if (store_tag_check(tag, err)) return -1;
    const char *what = add ? "tag" : "untag";
    RunFacts f;
    if (run_facts(s, run_id, &f, err)) return -1;
    if (!f.exists || f.trashed) return explain(s, run_id, what, err);
    int n = 0;
    if (update_one(s,
                   add ? "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)"
                       : "DELETE FROM run_tags WHERE run_id = ?1 AND tag = ?2",
                   run_id, tag, &n, what, err))
        return -1;
    if (changed) *changed = n > 0;
    return 0;
}

/* ---- the trash ---------------------------------------------------------- */

int store_run_trash(Store *s, int64_t run_id, char *err)
{
    assert(s && run_id > 0 && err);
    return update_run(s, run_id,
                      "UPDATE runs SET deleted_at = " STORE_NOW_SQL " WHERE id = ?1 AND deleted_at IS NULL"
                      " AND starred = 0 AND status NOT IN ('queued', 'running')",
                      NULL, "delete", err);
}

int store_run_restore(Store *s, int64_t run_id, char *err)
{
    assert(s && run_id > 0 && err);
    const char *what = "restore";
    if (store_begin(s, what, err)) return -1;
    int changed = 0;
    int rc = update_one(s, "UPDATE runs SET deleted_at = NULL WHERE id = ?1 AND deleted_at IS NOT NULL", run_id,
                        NULL, &changed, what, err);
    if (rc == 0 && !changed) {
        RunFacts f;
        rc = run_facts(s, run_id, &f, err) ? -1
           : f.exists ? err_set(err, "run %lld is not in the trash", (long long)run_id)
                      : err_set(err, "no run %lld in %s", (long long)run_id, store_file_name(s));
    }
    if (rc == 0)
        rc = update_one(s,
                        "UPDATE sweeps SET deleted_at = NULL WHERE id = (SELECT sweep_id FROM runs WHERE id = ?1)"
                        " AND deleted_at IS NOT NULL",
                        run_id, NULL, &changed, what, err);
    return store_end(s, rc, what, err);
}

/* The first run of the sweep that may not go to the trash, as the line. */
static int sweep_blocker(Store *s, int64_t sweep_id, char *err)
{
    const char *what = "read a sweep's runs";
    sqlite3_stmt *st;
    if (store_prepare_ints(s,
                           "SELECT id FROM runs WHERE sweep_id = ?1 AND deleted_at IS NULL"
                           " AND (starred OR status IN ('queued', 'running')) ORDER BY id LIMIT 1",
                           &sweep_id, 1, &st, what, err))
        return -1;
    int64_t blocker = 0;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) blocker = sqlite3_column_int64(st, 0);
    if (store_finish(s, st, rc, what, err)) return -1;
    if (!blocker) return 0;
    explain(s, blocker, "delete", err);
    char line[ERR_LEN];
    snprintf(line, sizeof line, "sweep %lld stays: %s", (long long)sweep_id, err);
    return err_set(err, "%s", line);
}

int store_sweep_trash(Store *s, int64_t sweep_id, int *n_runs, char *err)
{
    assert(s && sweep_id > 0 && err);
    const char *what = "delete sweep";
    if (n_runs) *n_runs = 0;
    if (store_begin(s, what, err)) return -1;
    int changed = 0, rc = sweep_blocker(s, sweep_id, err);
    if (rc == 0)
        rc = update_one(s, "UPDATE sweeps SET deleted_at = " STORE_NOW_SQL " WHERE id = ?1 AND deleted_at IS NULL",
                        sweep_id, NULL, &changed, what, err);
    if (rc == 0 && !changed) {
        char id[24];
        int64_t found;
        snprintf(id, sizeof id, "%lld", (long long)sweep_id);
        rc = store_sweep_lookup(s, id, 0, &found, err) ? -1 : err_set(err, "sweep %s: nothing to delete", id);
    }
    if (rc == 0)
        rc = update_one(s,
                        "UPDATE runs SET deleted_at = (SELECT deleted_at FROM sweeps WHERE id = ?1)"
                        " WHERE sweep_id = ?1 AND deleted_at IS NULL",
                        sweep_id, NULL, &changed, what, err);
    if (rc == 0 && n_runs) *n_runs = changed;
    return store_end(s, rc, what, err);
}

int store_sweep_restore(Store *s, int64_t sweep_id, int *n_runs, char *err)
{
    assert(s && sweep_id > 0 && err);
    const char *what = "restore sweep";
    if (n_runs) *n_runs = 0;
    if (store_begin(s, what, err)) return -1;
    int runs = 0, changed = 0;
    int rc = update_one(s,
                        "UPDATE runs SET deleted_at = NULL WHERE sweep_id = ?1"
                        " AND deleted_at = (SELECT deleted_at FROM sweeps WHERE id = ?1)",
                        sweep_id, NULL, &runs, what, err);
    if (rc == 0)
        rc = update_one(s, "UPDATE sweeps SET deleted_at = NULL WHERE id = ?1 AND deleted_at IS NOT NULL", sweep_id,
                        NULL, &changed, what, err);
    if (rc == 0 && !changed) {
        char id[24];
        int64_t found;
        snprintf(id, sizeof id, "%lld", (long long)sweep_id);
        rc = store_sweep_lookup(s, id, 1, &found, err) ? -1 : err_set(err, "sweep %s: nothing to restore", id);
    }
    if (rc == 0 && n_runs) *n_runs = runs;
    return store_end(s, rc, what, err);
}

static void fill_trash(void *item, sqlite3_stmt *st)
{
    TrashItem *t = item;
    t->is_sweep = !strcmp((const char *)sqlite3_column_text(st, 0), "sweep");
    t->id = sqlite3_column_int64(st, 1);
    store_column_copy(t->name, sizeof t->name, st, 2);
    store_column_copy(t->what, sizeof t->what, st, 3);
    store_column_copy(t->status, sizeof t->status, st, 4);
    t->sweep_id = sqlite3_column_int64(st, 5);
    store_column_copy(t->deleted_at, sizeof t->deleted_at, st, 6);
}

int store_trash_list(Store *s, TrashItem **out, int *n, char *err)
{
    assert(s && out && n && err);
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT kind, id, name, what, status, sweep_id, deleted_at FROM trash", &st, "read the trash",
                      err))
        return -1;
    return store_read_all(s, st, "read the trash", sizeof **out, fill_trash, (void **)out, n, err);
}
