/*
 * data_buffers.c — growable id buffers and whole-file reading for
 * engine/data (text grows in a StrBuf, engine/io/json.h).
 *
 * Not for: anything that knows about tokens or splits.
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int data_ids_push(DataIds *v, int32_t id)
{
    if (v->len == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 1024;
        int32_t *ids = realloc(v->ids, cap * sizeof *ids);
        if (!ids) return -1;
        v->ids = ids;
        v->cap = cap;
    }
    v->ids[v->len++] = id;
    return 0;
}

int data_read_file(const char *path, char **buf, size_t *len, char *err)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(err, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return err_set(err, "%s is not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    char *data = malloc(size + 1);
    if (!data) {
        fclose(f);
        return err_set(err, "out of memory reading %s (%zu bytes)", path, size);
    }
    size_t got = fread(data, 1, size, f);
    int failed = ferror(f);
    fclose(f);
    if (failed || got != size) {
        free(data);
        return err_set(err, "cannot read %s", path);
    }
    data[size] = '\0';
    *buf = data;
    *len = size;
    return 0;
}

size_t data_put(char *buf, size_t cap, const char *s, size_t n)
{
    if (cap == 0) return 0;
    if (n > cap - 1) n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return n;
}
