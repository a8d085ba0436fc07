/*
 * ckpt_gc.c — planning and applying `mixbench gc`, and the store's disk
 * usage (ckpt_gc.h).
 */
#include "db/ckpt_gc.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/ckpt_owner.h"
#include "db/store_internal.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/io/safetensors.h"
#include "engine/text.h"

#define GC_MIN_AGE_SECONDS 60   /* a job records a file just after writing it */

int gc_keep_parse(const char *text, GcKeep *keep)
{
    static const char *const NAMES[] = {"all", "last", "best", "none"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(text, NAMES[i])) {
            *keep = (GcKeep)i;
            return 0;
        }
    return -1;
}

void gc_plan_free(GcPlan *plan)
{
    free(plan->items);
    memset(plan, 0, sizeof *plan);
}

static int add_item(GcPlan *plan, int *cap, const char *path, int64_t run_id, int64_t step, int64_t bytes, char *err)
{
    if (store_grow((void **)&plan->items, cap, plan->n + 1, sizeof *plan->items, err)) return -1;
    GcItem *it = &plan->items[plan->n++];
    snprintf(it->path, sizeof it->path, "%s", path);
    it->run_id = run_id;
    it->step = step;
    it->bytes = bytes;
    plan->bytes += bytes;
    return 0;
}

/* ---- what the store names ---- */

typedef struct {
    char **paths;            /* sorted */
    int n, cap;
} Names;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(Names *nm)
{
    for (int i = 0; i < nm->n; i++) free(nm->paths[i]);
    free(nm->paths);
    memset(nm, 0, sizeof *nm);
}

static int named(const Names *nm, const char *path)
{
    return nm->n && bsearch(&path, nm->paths, (size_t)nm->n, sizeof *nm->paths, cmp_str) != NULL;
}

/* Every path a run of the store names: checkpoints rows and resume points. */
static int read_names(Store *s, Names *nm, char *err)
{
    memset(nm, 0, sizeof *nm);
    const char *what = "read checkpoint paths";
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT path FROM checkpoints UNION SELECT resume_ckpt FROM runs WHERE resume_ckpt IS NOT NULL",
                      &st, what, err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *copy = strdup((const char *)sqlite3_column_text(st, 0));
        if (!copy || store_grow((void **)&nm->paths, &nm->cap, nm->n + 1, sizeof *nm->paths, err)) {
            free(copy);
            (void)sqlite3_finalize(st);
            names_free(nm);
            return err_set(err, "store: %s: out of memory", what);
        }
        nm->paths[nm->n++] = copy;
    }
    if (store_finish(s, st, rc, what, err)) {
        names_free(nm);
        return -1;
    }
    if (nm->n) qsort(nm->paths, (size_t)nm->n, sizeof *nm->paths, cmp_str);   /* paths NULL when none */
    return 0;
}

/* ---- files of the folder ---- */

/* The store id a checkpoint's metadata names into id ("" when none, or the
   file does not parse). */
static void file_store_id(const char *path, char *id, size_t cap)
{
    StFile f;
    char err[ERR_LEN];
    id[0] = 0;
    if (st_read_meta(path, &f, err)) return;
    const char *v = st_meta(&f, CKPT_META_STORE_ID);
    snprintf(id, cap, "%s", v ? v : "");
    st_free(&f);
}

static int run_is_running(Store *s, int64_t run_id)
{
    char sql[96];
    int64_t n = 0;
    char err[ERR_LEN];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id = %lld AND status = 'running'", (long long)run_id);
    return store_query_int(s, sql, &n, "read a run's status", err) == 0 && n > 0;
}

/* Whether a file of the folder may be in use: written in the last minute,
   a temp file of a live process ("X.tmp.<pid>.<tid>"), or a file of a run
   that trains ("run<ID>..."). */
static int in_use(Store *s, const char *name, const struct stat *st)
{
    if (time(NULL) - st->st_mtime < GC_MIN_AGE_SECONDS) return 1;
    const char *tmp = strstr(name, ".tmp.");
    if (tmp) {
        long long pid = strtoll(tmp + 5, NULL, 10);
        return pid > 0 && pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    }
    long long run_id;
    return sscanf(name, "run%lld", &run_id) == 1 && run_is_running(s, run_id);
}

/* Calls fn for each regular file of the store's folder. */
static int each_file(Store *s, int (*fn)(void *ctx, const char *path, const char *name, const struct stat *st),
                     void *ctx, char *err)
{
    char dir[PATH_MAX + 32];
    store_ckpt_dir_for(store_file(s), dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : err_set(err, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char path[PATH_MAX + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        rc = fn(ctx, path, e->d_name, &st);
    }
    closedir(d);
    return rc;
}

typedef struct {
    Store *s;
    GcPlan *plan;
    int cap;
    const Names *names;
    const char *id;
    char *err;
} Scan;

static int scan_orphan(void *ctx, const char *path, const char *name, const struct stat *st)
{
    Scan *sc = ctx;
    if (named(sc->names, path) || in_use(sc->s, name, st)) return 0;
    if (!strstr(name, ".tmp.")) {
        char id[STORE_ID_LEN];
        file_store_id(path, id, sizeof id);
        if (id[0] && strcmp(id, sc->id)) {
            sc->plan->kept_foreign++;
            return 0;
        }
    }
    return add_item(sc->plan, &sc->cap, path, 0, 0, (int64_t)st->st_size, sc->err);
}

/* ---- older checkpoints of finished runs ---- */

/* 1 when path lies in the store's folder or its metadata names this store:
   a file gc may delete. */
static int ours(Store *s, const char *path, const char *id)
{
    char dir[PATH_MAX + 32];
    store_ckpt_dir_for(store_file(s), dir, sizeof dir);
    size_t n = strlen(dir);
    if (!strncmp(path, dir, n) && path[n] == '/') return 1;
    char file_id[STORE_ID_LEN];
    file_store_id(path, file_id, sizeof file_id);
    return file_id[0] && !strcmp(file_id, id);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The checkpoints of finished runs (of only[0..n_only) when only is not
   NULL, sorted) that the keep policy lets go: per run, every row but its
   keeper (the latest, or the one at the lowest valid loss; none for
   GC_KEEP_NONE). */
static int plan_older(Store *s, GcKeep keep, const int64_t *only, int n_only, Scan *sc, char *err)
{
    const char *what = "read the checkpoints of finished runs";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT c.run_id, c.step, c.path,"
                      "       (SELECT max(step) FROM checkpoints WHERE run_id = c.run_id),"
                      "       (SELECT k.step FROM checkpoints k JOIN evals e ON e.run_id = k.run_id"
                      "          AND e.step = k.step AND e.split = 'valid' WHERE k.run_id = c.run_id"
                      "          ORDER BY e.loss, k.step DESC LIMIT 1),"
                      "       json_extract(r.config_json, '$.decay') = 'wsd'"
                      "  FROM checkpoints c JOIN runs r ON r.id = c.run_id"
                      " WHERE r.status IN ('done', 'failed', 'diverged', 'cancelled', 'pruned')"
                      " ORDER BY c.run_id, c.step",
                      &st, what, err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t run_id = sqlite3_column_int64(st, 0), step = sqlite3_column_int64(st, 1);
        if (only && !(n_only && bsearch(&run_id, only, (size_t)n_only, sizeof *only, cmp_id))) continue;
        char path[1024];
        store_column_copy(path, sizeof path, st, 2);
        int64_t last = sqlite3_column_int64(st, 3);
        int64_t best = sqlite3_column_type(st, 4) == SQLITE_NULL ? last : sqlite3_column_int64(st, 4);
        int64_t keeper = keep == GC_KEEP_LAST ? last : keep == GC_KEEP_BEST ? best : -1;
        if (step == keeper) continue;
        /* a wsd run's resumable checkpoint is where `extend` continues from */
        if (keep != GC_KEEP_NONE && sqlite3_column_int(st, 5) && checkpoint_is_resumable(path)) continue;
        if (!ours(s, path, sc->id)) {
            sc->plan->kept_outside++;
            continue;
        }
        struct stat fs;
        int64_t bytes = stat(path, &fs) == 0 ? (int64_t)fs.st_size : 0;
        if (add_item(sc->plan, &sc->cap, path, run_id, step, bytes, err)) {
            (void)sqlite3_finalize(st);
            return -1;
        }
    }
    return store_finish(s, st, rc, what, err);
}

int store_gc_plan(Store *s, GcKeep keep, GcPlan *plan, char *err)
{
    return store_gc_plan_runs(s, keep, NULL, 0, plan, err);
}

int store_gc_plan_runs(Store *s, GcKeep keep, int64_t *only, int n_only, GcPlan *plan, char *err)
{
    assert(s && err);
    if (only && n_only > 1) qsort(only, (size_t)n_only, sizeof *only, cmp_id);
    memset(plan, 0, sizeof *plan);
    char id[STORE_ID_LEN];
    Names names;
    if (store_identity(s, id, sizeof id, err) || read_names(s, &names, err)) return -1;
    Scan sc = {s, plan, 0, &names, id, err};
    int rc = each_file(s, scan_orphan, &sc, err);
    if (rc == 0 && keep != GC_KEEP_ALL) rc = plan_older(s, keep, only, n_only, &sc, err);
    names_free(&names);
    if (rc) gc_plan_free(plan);
    return rc;
}

int store_gc_apply(Store *s, const GcPlan *plan, char *err)
{
    assert(s && err);
    const char *what = "remove checkpoints";
    if (store_begin(s, what, err)) return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < plan->n; i++) {
        const GcItem *it = &plan->items[i];
        if (!it->run_id) continue;
        const char *sqls[] = {"DELETE FROM checkpoints WHERE run_id = ?1 AND path = ?2",
                              "UPDATE runs SET resume_ckpt = NULL, resume_step = NULL WHERE id = ?1 AND resume_ckpt = ?2"};
        for (int k = 0; rc == 0 && k < 2; k++) {
            sqlite3_stmt *st;
            rc = store_prepare(s, sqls[k], &st, what, err);
            if (rc == 0 && (sqlite3_bind_int64(st, 1, it->run_id) != SQLITE_OK ||
                            store_bind_text(st, 2, it->path) != SQLITE_OK)) {
                rc = store_fail(s, err, what);
                (void)sqlite3_finalize(st);
            } else if (rc == 0) {
                rc = store_step_done(s, st, what, err);
            }
        }
    }
    if (store_end(s, rc, what, err)) return -1;
    for (int i = 0; i < plan->n; i++) unlink(plan->items[i].path);
    return 0;
}

/* ---- purge ---- */

void purge_plan_free(PurgePlan *plan)
{
    gc_plan_free(&plan->files);
    memset(plan, 0, sizeof *plan);
}

/* The files of the trash's runs into plan->files. */
static int plan_trash_files(Store *s, PurgePlan *plan, const char *id, char *err)
{
    const char *what = "read the trash's checkpoints";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT c.run_id, c.step, c.path FROM checkpoints c JOIN runs r ON r.id = c.run_id"
                      " WHERE r.deleted_at IS NOT NULL"
                      " UNION SELECT id, resume_step, resume_ckpt FROM runs"
                      " WHERE deleted_at IS NOT NULL AND resume_ckpt IS NOT NULL ORDER BY 1, 3",
                      &st, what, err))
        return -1;
    int rc, cap = 0;
    char last[1024] = "";
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char path[1024];
        store_column_copy(path, sizeof path, st, 2);
        if (!strcmp(path, last)) continue;   /* a row and the resume point name one file */
        snprintf(last, sizeof last, "%s", path);
        if (!ours(s, path, id)) {
            plan->files.kept_outside++;
            continue;
        }
        struct stat fs;
        if (stat(path, &fs) != 0) continue;  /* gone already */
        if (add_item(&plan->files, &cap, path, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                     (int64_t)fs.st_size, err)) {
            (void)sqlite3_finalize(st);
            return -1;
        }
    }
    return store_finish(s, st, rc, what, err);
}

int store_purge_plan(Store *s, PurgePlan *plan, char *err)
{
    assert(s && plan && err);
    memset(plan, 0, sizeof *plan);
    char id[STORE_ID_LEN];
    int64_t runs = 0, sweeps = 0;
    if (store_identity(s, id, sizeof id, err) ||
        store_query_int(s, "SELECT count(*) FROM runs WHERE deleted_at IS NOT NULL", &runs, "count the trash", err) ||
        store_query_int(s, "SELECT count(*) FROM sweeps WHERE deleted_at IS NOT NULL", &sweeps, "count the trash",
                        err))
        return -1;
    plan->n_runs = (int)runs;
    plan->n_sweeps = (int)sweeps;
    sqlite3_stmt *st;
    if (store_prepare(s,
                      "SELECT max(d) FROM (SELECT max(deleted_at) AS d FROM runs UNION ALL"
                      " SELECT max(deleted_at) FROM sweeps)",
                      &st, "read the trash", err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) store_column_copy(plan->upto, sizeof plan->upto, st, 0);
    if (store_finish(s, st, rc, "read the trash", err)) return -1;
    if (plan_trash_files(s, plan, id, err)) {
        purge_plan_free(plan);
        return -1;
    }
    return 0;
}

int store_purge_apply(Store *s, const PurgePlan *plan, char *err)
{
    assert(s && plan && err);
    const char *what = "purge the trash";
    if (!plan->upto[0]) return 0;   /* the trash was empty */
    if (store_begin(s, what, err)) return -1;
    int rc = 0;
    const char *sqls[] = {"DELETE FROM runs WHERE deleted_at IS NOT NULL AND deleted_at <= ?1",
                          "DELETE FROM sweeps WHERE deleted_at IS NOT NULL AND deleted_at <= ?1"};
    for (int k = 0; rc == 0 && k < 2; k++) {
        sqlite3_stmt *st;
        rc = store_prepare(s, sqls[k], &st, what, err);
        if (rc == 0 && store_bind_text(st, 1, plan->upto) != SQLITE_OK) {
            rc = store_fail(s, err, what);
            (void)sqlite3_finalize(st);
        } else if (rc == 0) {
            rc = store_step_done(s, st, what, err);
        }
    }
    if (store_end(s, rc, what, err)) return -1;
    for (int i = 0; i < plan->files.n; i++) unlink(plan->files.items[i].path);
    return 0;
}

/* ---- usage ---- */

static int count_file(void *ctx, const char *path, const char *name, const struct stat *st)
{
    (void)path, (void)name;
    StoreUsage *u = ctx;
    u->ckpt_bytes += (int64_t)st->st_size;
    u->ckpt_files++;
    return 0;
}

static int64_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

int store_usage(Store *s, StoreUsage *u, char *err)
{
    assert(s && err);
    memset(u, 0, sizeof *u);
    char wal[PATH_MAX + 8], dir[PATH_MAX + 32];
    snprintf(wal, sizeof wal, "%s-wal", store_file(s));
    u->store_bytes = size_of(store_file(s)) + size_of(wal);
    if (each_file(s, count_file, u, err)) return -1;
    /* the named files outside the folder (stores before version 6, --save) */
    Names names;
    if (read_names(s, &names, err)) return -1;
    store_ckpt_dir_for(store_file(s), dir, sizeof dir);
    size_t n = strlen(dir);
    for (int i = 0; i < names.n; i++) {
        if (!strncmp(names.paths[i], dir, n) && names.paths[i][n] == '/') continue;
        int64_t b = size_of(names.paths[i]);
        u->ckpt_bytes += b;
        u->ckpt_files += b > 0;
    }
    names_free(&names);
    return 0;
}
