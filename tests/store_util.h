/*
 * store_util.h — helpers shared by the store tests: file names in the
 * test's temp folder (the test sets store_tmp_dir) and one-value queries.
 */
#ifndef MIXBENCH_TEST_STORE_UTIL_H
#define MIXBENCH_TEST_STORE_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/store.h"
#include "engine/common.h"

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

#endif
