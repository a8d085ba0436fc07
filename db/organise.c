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

/* ---- what a user types ------------------------------------------------- */

static const struct {
    int max;
    const char *noun;
} TEXTS[] = {
    [STORE_TEXT_NAME] = {STORE_NAME_MAX, "a run's name"},
    [STORE_TEXT_SWEEP_NAME] = {STORE_SWEEP_NAME_MAX, "a sweep's name"},
    [STORE_TEXT_TAG] = {STORE_TAG_MAX, "a tag"},
    [STORE_TEXT_NOTE] = {STORE_NOTE_MAX, "a note"},
};

int store_text_limit(StoreText kind)
{
    return TEXTS[kind].max - 1;
}

int store_text_fits(StoreText kind, size_t bytes, char *err)
{
    if (bytes <= (size_t)store_text_limit(kind)) return 0;
    return err_set(err, "%s is at most %d bytes (this one has %zu): nothing stored", TEXTS[kind].noun,
                   store_text_limit(kind), bytes);
}

/* 1 when text is all digits: an id. */
static int is_id(const char *text)
{
    return *text && text[strspn(text, "0123456789")] == 0;
}

int store_text_check(StoreText kind, const char *text, char *err)
{
    assert(text && err);
    size_t len = strlen(text);
    if (store_text_fits(kind, len, err)) return -1;
    for (size_t at = 0; at < len;) {
        unsigned char c = (unsigned char)text[at];
        if (c < 32 || c == 127)
            return err_set(err, "%s cannot hold control characters (byte %zu is 0x%02x)", TEXTS[kind].noun, at + 1, c);
        size_t k = text_utf8_seq(text + at, len - at);
        if (!k) return err_set(err, "%s must be UTF-8 (byte %zu is not)", TEXTS[kind].noun, at + 1);
        at += k;
    }
    int64_t number;
    int name = kind == STORE_TEXT_NAME || kind == STORE_TEXT_SWEEP_NAME;
    if (name && (is_id(text) || text_to_int64(text, &number) == 0))
        return err_set(err, "name %s: a name cannot be a number (that is an id)", text);
    if (name && !strncmp(text, "sweep:", 6))
        return err_set(err, "name %s: a name cannot start with sweep: (that names a sweep)", text);
    return 0;
}

/* ---- finding runs and sweeps -------------------------------------------- */

#define FOUND_CAP 8 /* ids an ambiguous name lists */

/* The rows of `table` with id (text all digits) or name text, in or out
   of the trash: *n of them, the first FOUND_CAP in ids. */
static int find_in(Store *s, const char *table, const char *text, int in_trash, int64_t *ids, int *n, char *err)
{
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE %s AND (deleted_at IS NOT NULL) = ?2 ORDER BY id", table,
             is_id(text) ? "id = CAST(?1 AS INTEGER)" : "name = ?1");
    const char *what = "look up";
    sqlite3_stmt *st;
    *n = 0;
    if (store_prepare(s, sql, &st, what, err)) return -1;
    if (store_bind_text(st, 1, text) != SQLITE_OK || sqlite3_bind_int(st, 2, in_trash != 0) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n < FOUND_CAP) ids[*n] = sqlite3_column_int64(st, 0);
        (*n)++;
    }
    return store_finish(s, st, rc, what, err);
}

/* "1, 2 and 5" (", ..." past FOUND_CAP) into out. */
static void list_ids(const int64_t *ids, int n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < n && i < FOUND_CAP && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%lld", i == 0 ? "" : i == n - 1 ? " and " : ", ",
                                (long long)ids[i]);
    if (n > FOUND_CAP && len < cap) snprintf(out + len, cap - len, ", ...");
}

static int lookup(Store *s, const char *table, const char *noun, const char *text, int in_trash, int64_t *id,
                  char *err)
{
    assert(s && text && id && err);
    int64_t ids[FOUND_CAP];
    int n = 0;
    *id = 0;
    if (find_in(s, table, text, in_trash, ids, &n, err)) return -1;
    const char *sweep = strcmp(noun, "run") ? "sweep:" : "";
    if (n > 1) {
        char list[160];
        list_ids(ids, n, list, sizeof list);
        return err_set(err, "%s name %s is ambiguous: %ss %s have it (name one by its id, e.g. %s%lld)", noun, text,
                       noun, list, sweep, (long long)ids[0]);
    }
    if (n == 1) {
        *id = ids[0];
        return 0;
    }
    if (find_in(s, table, text, !in_trash, ids, &n, err)) return -1;
    if (n && !in_trash)
        return err_set(err, "%s %s is in the trash (`mixbench restore %s%s` takes it back)", noun, text, sweep, text);
    if (n) return err_set(err, "%s %s is not in the trash", noun, text);
    return err_set(err, "no %s %s in %s (see `mixbench %s`)", noun, text, store_file_name(s),
                   in_trash ? "ls --trash" : *sweep ? "queue" : "ls");
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

/* The line for a sweep an update of `what` left alone: in the trash,
   absent, or nothing to do. */
static int sweep_unchanged(Store *s, int64_t sweep_id, const char *what, char *err)
{
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)sweep_id);
    int64_t found;
    return store_sweep_lookup(s, id, 0, &found, err) ? -1 : err_set(err, "sweep %s: nothing to %s", id, what);
}

/* ---- names, notes, stars ------------------------------------------------ */

/* The line for a name another row of `table` (not `id`) has; 0 when no
   other has it. */
static int name_taken(Store *s, const char *table, int64_t id, const char *name, char *err)
{
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT id, deleted_at IS NOT NULL FROM %s WHERE name = ?2 AND id <> ?1 ORDER BY id LIMIT 1", table);
    const char *what = "read a name";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, sql, &id, 1, &st, what, err)) return -1;
    if (store_bind_text(st, 2, name) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    int64_t other = 0;
    int trashed = 0, rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        other = sqlite3_column_int64(st, 0);
        trashed = sqlite3_column_int(st, 1);
    }
    if (store_finish(s, st, rc, what, err)) return -1;
    if (!other) return 0;
    const char *noun = strcmp(table, "runs") ? "sweep" : "run";
    return err_set(err, "name %s is %s %lld's%s: a name means one %s", name, noun, (long long)other,
                   trashed ? ", in the trash until `mixbench purge`" : "", noun);
}

int store_name_free(Store *s, StoreText kind, const char *name, char *err)
{
    assert(s && name && err && (kind == STORE_TEXT_NAME || kind == STORE_TEXT_SWEEP_NAME));
    if (store_text_check(kind, name, err)) return -1;
    return name_taken(s, kind == STORE_TEXT_NAME ? "runs" : "sweeps", 0, name, err);
}

/* An update of a name: the text checked, no other row with it (in the
   same statement, so that no writer slips one in between), or why not. */
static int rename_row(Store *s, const char *table, int64_t id, const char *name, StoreText kind, char *err)
{
    if (name && *name && store_text_check(kind, name, err)) return -1;
    char sql[200];
    snprintf(sql, sizeof sql,
             "UPDATE %s SET name = ?2 WHERE id = ?1 AND deleted_at IS NULL"
             " AND (?2 IS NULL OR NOT EXISTS (SELECT 1 FROM %s WHERE name = ?2 AND id <> ?1))",
             table, table);
    int changed = 0;
    if (update_one(s, sql, id, or_null(name), &changed, "rename", err)) return -1;
    if (changed) return 0;
    if (name && *name && name_taken(s, table, id, name, err)) return -1;
    return kind == STORE_TEXT_NAME ? explain(s, id, "rename", err) : sweep_unchanged(s, id, "rename", err);
}

int store_run_rename(Store *s, int64_t run_id, const char *name, char *err)
{
    assert(s && run_id > 0 && err);
    return rename_row(s, "runs", run_id, name, STORE_TEXT_NAME, err);
}

int store_run_note(Store *s, int64_t run_id, const char *note, char *err)
{
    assert(s && run_id > 0 && err);
    if (note && store_text_check(STORE_TEXT_NOTE, note, err)) return -1;
    return update_run(s, run_id, "UPDATE runs SET note = ?2 WHERE id = ?1 AND deleted_at IS NULL", or_null(note),
                      "note", err);
}

int store_run_note_read(Store *s, int64_t run_id, char *out, size_t cap, char *err)
{
    assert(s && out && cap && err);
    out[0] = 0;
    const char *what = "read a note";
    sqlite3_stmt *st;
    if (store_prepare_ints(s, "SELECT note FROM runs WHERE id = ?1", &run_id, 1, &st, what, err)) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) store_column_copy(out, cap, st, 0);
    return store_finish(s, st, rc, what, err);
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
    return changed ? 0 : sweep_unchanged(s, sweep_id, what, err);
}

int store_sweep_rename(Store *s, int64_t sweep_id, const char *name, char *err)
{
    assert(s && sweep_id > 0 && err);
    if (!name || !*name) return err_set(err, "a sweep's name cannot be empty");
    return rename_row(s, "sweeps", sweep_id, name, STORE_TEXT_SWEEP_NAME, err);
}

int store_sweep_note(Store *s, int64_t sweep_id, const char *note, char *err)
{
    assert(s && sweep_id > 0 && err);
    if (note && store_text_check(STORE_TEXT_NOTE, note, err)) return -1;
    return update_sweep(s, sweep_id, "UPDATE sweeps SET note = ?2 WHERE id = ?1 AND deleted_at IS NULL",
                        or_null(note), "note", err);
}

/* ---- tags --------------------------------------------------------------- */

int store_tag_check(const char *tag, char *err)
{
    assert(err);
    if (!tag || !*tag) return err_set(err, "a tag cannot be empty");
    if (store_text_check(STORE_TEXT_TAG, tag, err)) return -1;
    if (tag[0] == '!' || tag[0] == '-') return err_set(err, "tag %s: a tag cannot start with '%c'", tag, tag[0]);
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++)
        if (*p <= ' ' || *p == 127 || strchr(",\"'#=<>", *p))
            return err_set(err, "tag %s: one word, without spaces or any of , \" ' # = < >", tag);
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
    if (rc == 0 && !changed) rc = sweep_unchanged(s, sweep_id, "delete", err);
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
