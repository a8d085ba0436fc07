/*
 * ckpt_owner.c — whose a checkpoint is (ckpt_owner.h): the store's id and
 * checkpoint folder, recording a file only when its metadata names this
 * store, and checking a recorded file before anything loads it.  Only the
 * safetensors header is read (st_read_meta), never the weights.
 */
#include "db/ckpt_owner.h"

#include <assert.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/store_internal.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/io/safetensors.h"
#include "engine/text.h"

int store_identity(Store *s, char *id, size_t cap, char *err)
{
    assert(s && err);
    const char *what = "read the store's id";
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT value FROM store_info WHERE key = 'store_id'", &st, what, err)) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) store_column_copy(id, cap, st, 0);
    if (store_finish(s, st, rc, what, err)) return -1;
    if (rc != SQLITE_ROW || !id[0]) return err_set(err, "store: %s has no store id", store_file(s));
    return 0;
}

const char *store_file_name(const Store *s)
{
    assert(s);
    const char *path = store_file(s), *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

void store_ckpt_dir_for(const char *db_path, char *out, size_t cap)
{
    char copy[PATH_MAX], dir[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", db_path);
    const char *parent = dirname(copy);
    if (!realpath(parent, dir)) snprintf(dir, sizeof dir, "%s", parent);
    const char *slash = strrchr(db_path, '/');
    const char *name = slash ? slash + 1 : db_path;
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".db")) n -= 3;
    snprintf(out, cap, "%s/%.*s.ckpt", dir, (int)n, name);
}

/* What a checkpoint's metadata says of its owner ("" where it says
   nothing: a file written before checkpoints named their store). */
typedef struct {
    char store_id[STORE_ID_LEN], store_name[256], run_id[32], step[32], config_hash[CKPT_HASH_LEN];
} FileOwner;

static void meta_copy(const StFile *f, const char *key, char *out, size_t cap)
{
    const char *v = st_meta(f, key);
    snprintf(out, cap, "%s", v ? v : "");
}

static int read_owner(const char *path, StFile *f, FileOwner *o, char *err)
{
    if (st_read_meta(path, f, err)) return -1;
    meta_copy(f, CKPT_META_STORE_ID, o->store_id, sizeof o->store_id);
    meta_copy(f, CKPT_META_STORE_NAME, o->store_name, sizeof o->store_name);
    meta_copy(f, CKPT_META_RUN_ID, o->run_id, sizeof o->run_id);
    meta_copy(f, CKPT_META_STEP, o->step, sizeof o->step);
    meta_copy(f, CKPT_META_CONFIG_HASH, o->config_hash, sizeof o->config_hash);
    return 0;
}

/* 0 when o names store `id`, run_id and step. */
static int owner_is(const FileOwner *o, const char *id, int64_t run_id, int64_t step)
{
    int64_t r, k;
    return !strcmp(o->store_id, id) && !text_to_int64(o->run_id, &r) && r == run_id &&
           !text_to_int64(o->step, &k) && k == step;
}

/* "checkpoint P belongs to store X (a.db) run 1 step 10, this is store Y
   (b.db) run 2 step 20". */
static int not_ours(Store *s, const char *path, const FileOwner *o, const char *id, int64_t run_id, int64_t step,
                    char *err)
{
    if (!o->store_id[0])
        return err_set(err, "checkpoint %s names no store (written before checkpoints named theirs), this is "
                            "store %s (%s) run %lld step %lld", path, id, store_file_name(s), (long long)run_id,
                       (long long)step);
    return err_set(err, "checkpoint %s belongs to store %s (%s) run %s step %s, this is store %s (%s) run %lld step "
                        "%lld", path, o->store_id, o->store_name[0] ? o->store_name : "?", o->run_id[0] ? o->run_id : "?",
                   o->step[0] ? o->step : "?", id, store_file_name(s), (long long)run_id, (long long)step);
}

static int file_bytes(const char *path, int64_t *bytes, char *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        err_set(err, "checkpoint %s: %s", path, strerror(errno));
        return errno == ENOENT ? STORE_CKPT_MISSING : -1;
    }
    *bytes = (int64_t)st.st_size;
    return 0;
}

/* The size and config hash of a recorded file join its row. */
static int set_facts(Store *s, int64_t run_id, const char *path, int64_t bytes, const char *hash, char *err)
{
    const char *what = "record a checkpoint's size";
    sqlite3_stmt *st;
    if (store_prepare(s, "UPDATE checkpoints SET bytes = ?3, config_hash = ?4 WHERE run_id = ?1 AND path = ?2", &st,
                      what, err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK || store_bind_text(st, 2, path) != SQLITE_OK ||
        sqlite3_bind_int64(st, 3, bytes) != SQLITE_OK || store_bind_text(st, 4, hash[0] ? hash : NULL) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

int store_checkpoint_record(Store *s, int64_t run_id, int64_t step, const char *path, int resumable, char *err)
{
    assert(s && run_id > 0 && err);
    char id[STORE_ID_LEN];
    StFile f;
    FileOwner o;
    int64_t bytes = 0;
    if (store_identity(s, id, sizeof id, err) || file_bytes(path, &bytes, err)) return -1;
    if (read_owner(path, &f, &o, err)) return -1;
    st_free(&f);
    if (!owner_is(&o, id, run_id, step)) return not_ours(s, path, &o, id, run_id, step, err);
    const char *what = "record a checkpoint";
    if (store_begin(s, what, err)) return -1;
    int rc = resumable ? store_job_set_resume(s, run_id, step, path, err) : store_checkpoint_add(s, run_id, step, path, err);
    if (rc == 0) rc = set_facts(s, run_id, path, bytes, o.config_hash, err);
    return store_end(s, rc, what, err);
}

/* A checkpoints row: its step, the size and hash recorded (-1 / "" for rows
   from before version 6). */
typedef struct {
    int64_t step, bytes;
    char config_hash[CKPT_HASH_LEN];
} CkptRow;

static int read_row(Store *s, int64_t run_id, const char *path, CkptRow *r, int *found, char *err)
{
    const char *what = "read a checkpoint's row";
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT step, bytes, config_hash FROM checkpoints WHERE run_id = ?1 AND path = ?2", &st, what,
                      err))
        return -1;
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK || store_bind_text(st, 2, path) != SQLITE_OK) {
        store_fail(s, err, what);
        (void)sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found) {
        r->step = sqlite3_column_int64(st, 0);
        r->bytes = store_column_count(st, 1);
        store_column_copy(r->config_hash, sizeof r->config_hash, st, 2);
    }
    return store_finish(s, st, rc, what, err);
}

/* The model keys a run row holds; a checkpoint from before version 6 must
   agree with them (its metadata holds every model key). */
static const char *const RUN_MODEL_KEYS[] = {"arch", "task", "d", "layers", "heads", "n_ctx", "vocab"};
#define N_RUN_MODEL_KEYS ((int)(sizeof RUN_MODEL_KEYS / sizeof RUN_MODEL_KEYS[0]))

static int same_model_as_run(Store *s, int64_t run_id, const char *path, const StFile *f, char *err)
{
    const char *what = "read a run's model";
    int64_t id = run_id;
    sqlite3_stmt *st;
    if (store_prepare_ints(s, "SELECT arch, task, d, layers, heads, n_ctx, vocab FROM runs WHERE id = ?1", &id, 1, &st,
                           what, err))
        return -1;
    int rc = sqlite3_step(st);
    char run_value[N_RUN_MODEL_KEYS][64];
    for (int k = 0; rc == SQLITE_ROW && k < N_RUN_MODEL_KEYS; k++)
        store_column_copy(run_value[k], sizeof run_value[k], st, k);
    int found = rc == SQLITE_ROW;
    if (store_finish(s, st, rc, what, err)) return -1;
    if (!found) return err_set(err, "no run %lld in %s", (long long)run_id, store_file_name(s));
    for (int k = 0; k < N_RUN_MODEL_KEYS; k++) {
        const char *file_value = st_meta(f, RUN_MODEL_KEYS[k]);
        if (!run_value[k][0] || (file_value && !strcmp(file_value, run_value[k]))) continue;
        return err_set(err, "checkpoint %s has %s=%s but run %lld of %s has %s=%s: it is another run's", path,
                       RUN_MODEL_KEYS[k], file_value ? file_value : "(none)", (long long)run_id, store_file_name(s),
                       RUN_MODEL_KEYS[k], run_value[k]);
    }
    return 0;
}

int store_checkpoint_verify(Store *s, int64_t run_id, const char *path, char *err)
{
    assert(s && run_id > 0 && err);
    CkptRow row;
    int found;
    if (read_row(s, run_id, path, &row, &found, err)) return -1;
    if (!found)
        return err_set(err, "checkpoint %s is not one of run %lld's in %s", path, (long long)run_id, store_file_name(s));
    int64_t bytes = 0;
    int missing = file_bytes(path, &bytes, err);
    if (missing) return missing;
    char id[STORE_ID_LEN];
    StFile f;
    FileOwner o;
    if (store_identity(s, id, sizeof id, err)) return -1;
    /* a file too damaged to read its header: its size says more */
    if (read_owner(path, &f, &o, err)) {
        if (row.bytes >= 0 && bytes != row.bytes) goto resized;
        return -1;
    }
    int rc = 0;
    /* whose it is first (the most useful answer), then its size */
    if (o.store_id[0] && !owner_is(&o, id, run_id, row.step)) {
        rc = not_ours(s, path, &o, id, run_id, row.step, err);
    } else if (row.bytes >= 0 && bytes != row.bytes) {
        st_free(&f);
        goto resized;
    } else if (o.store_id[0] || row.bytes >= 0) {
        /* a file that names its owner, or a row that knows the file's */
        if (!owner_is(&o, id, run_id, row.step)) rc = not_ours(s, path, &o, id, run_id, row.step, err);
        else if (row.config_hash[0] && strcmp(row.config_hash, o.config_hash))
            rc = err_set(err, "checkpoint %s holds a model of config hash %s, but run %lld's checkpoint had %s: the "
                              "file was replaced", path, o.config_hash, (long long)run_id, row.config_hash);
    } else {
        rc = same_model_as_run(s, run_id, path, &f, err);
    }
    st_free(&f);
    return rc;
resized:
    return err_set(err, "checkpoint %s is %lld bytes, but run %lld's was %lld when %s recorded it: the file was "
                        "replaced or damaged", path, (long long)bytes, (long long)run_id, (long long)row.bytes,
                   store_file_name(s));
}

int store_run_checkpoint(Store *s, int64_t run_id, char *path, size_t cap, int64_t *step, char *err)
{
    assert(s && run_id > 0 && err);
    const char *what = "read a run's latest checkpoint";
    int64_t id = run_id;
    sqlite3_stmt *st;
    if (store_prepare_ints(s,
                           "SELECT r.status, c.path, c.step FROM runs r LEFT JOIN checkpoints c ON c.run_id = r.id"
                           " WHERE r.id = ?1 AND r.deleted_at IS NULL"
                           " ORDER BY c.step DESC, c.created_at DESC LIMIT 1",
                           &id, 1, &st, what, err))
        return -1;
    int rc = sqlite3_step(st);
    char status[32] = "";
    path[0] = 0;
    if (rc == SQLITE_ROW) {
        store_column_copy(status, sizeof status, st, 0);
        store_column_copy(path, cap, st, 1);
        *step = sqlite3_column_int64(st, 2);
    }
    if (store_finish(s, st, rc, what, err)) return -1;
    if (!status[0]) return err_set(err, "no run %lld in %s", (long long)run_id, store_file_name(s));
    if (!path[0]) return err_set(err, "run %lld (%s) has no checkpoint yet", (long long)run_id, status);
    return store_checkpoint_verify(s, run_id, path, err);
}

/* Here rather than in db/jobs.c: recording a resumable checkpoint above
   needs it, and the jobs need this file (the check before a resume). */
int store_job_set_resume(Store *s, int64_t run_id, int64_t step, const char *ckpt_path, char *err)
{
    assert(s && run_id > 0 && err);
    if (!ckpt_path || !*ckpt_path)
        return err_set(err, "store: a job resumes from a checkpoint path, none given");
    char what[64];
    snprintf(what, sizeof what, "record resume point of run %lld", (long long)run_id);
    /* inside a caller's transaction (store_checkpoint_record) it joins it */
    int own = sqlite3_get_autocommit(store_sqlite(s));
    if (own && store_begin(s, what, err))
        return -1;
    sqlite3_stmt *st;
    int status = store_prepare(s,
                               "UPDATE runs SET resume_ckpt = ?2, resume_step = ?3 WHERE id = ?1",
                               &st, what, err);
    if (status == 0) {
        if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
            store_bind_text(st, 2, ckpt_path) != SQLITE_OK ||
            sqlite3_bind_int64(st, 3, step) != SQLITE_OK) {
            status = store_fail(s, err, what);
            (void)sqlite3_finalize(st);
        } else {
            status = store_update_run(s, st, run_id, what, err);
        }
    }
    if (status == 0)
        status = store_checkpoint_add(s, run_id, step, ckpt_path, err);
    return own ? store_end(s, status, what, err) : status;
}
