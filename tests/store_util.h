/*
 * store_util.h — helpers shared by the store tests: file names in the
 * test's temp folder (the test sets store_tmp_dir) and one-value queries.
 */
#ifndef MIXBENCH_TEST_STORE_UTIL_H
#define MIXBENCH_TEST_STORE_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/ckpt_owner.h"
#include "db/store.h"
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "engine/io/safetensors.h"

static char tmp_dir[256];

/* A file name in the test's temp folder. */
static inline const char *db_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

/* store_query callback: the first column of the first row. */
typedef struct {
    char text[512];
    int rows;
    int is_null;
} FirstValue;

static inline int first_value(void *ctx, int ncols, char **values, char **names)
{
    (void)names;
    FirstValue *fv = ctx;
    if (fv->rows++ == 0 && ncols > 0) {
        fv->is_null = values[0] == NULL;
        snprintf(fv->text, sizeof fv->text, "%s", values[0] ? values[0] : "");
    }
    return 0;
}

static inline FirstValue query1(Store *s, const char *sql)
{
    FirstValue fv = {{0}, 0, 0};
    char err[ERR_LEN] = "";
    if (store_query(s, sql, first_value, &fv, err) != 0) {
        printf("  query failed: %s: %s\n", sql, err);
        snprintf(fv.text, sizeof fv.text, "<error>");
    }
    return fv;
}

static inline double query_num(Store *s, const char *sql)
{
    FirstValue fv = query1(s, sql);
    return fv.rows && !fv.is_null ? strtod(fv.text, NULL) : NAN;
}

/* A stand-in checkpoint at path: a safetensors file without tensors whose
   metadata names store s, run_id and step as a job's checkpoint does
   (db/ckpt_owner.h), so that the store's checks of whose a file is pass
   without training a model.  Returns path. */
static inline const char *fake_checkpoint(Store *s, int64_t run_id, int64_t step, const char *path)
{
    char id[STORE_ID_LEN], run[32], at[32], err[ERR_LEN];
    if (store_identity(s, id, sizeof id, err)) printf("  fake_checkpoint: %s\n", err);
    snprintf(run, sizeof run, "%lld", (long long)run_id);
    snprintf(at, sizeof at, "%lld", (long long)step);
    StMeta meta[] = {{"format", "mixbench"},
                     {CKPT_META_STORE_ID, id},
                     {CKPT_META_STORE_NAME, store_file_name(s)},
                     {CKPT_META_RUN_ID, run},
                     {CKPT_META_STEP, at}};
    if (st_write(path, meta, 5, NULL, 0, err)) printf("  fake_checkpoint: %s\n", err);
    return path;
}

#endif
