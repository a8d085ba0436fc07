/*
 * data_buffers.c — growable text and id buffers and whole-file reading for
 * engine/data.
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

int data_text_reserve(DataText *t, size_t extra)
{
    if (t->len + extra + 1 <= t->cap) return 0;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + extra + 1) cap *= 2;
    char *data = realloc(t->data, cap);
    if (!data) return -1;
    t->data = data;
    t->cap = cap;
    return 0;
}

int data_text_append(DataText *t, const char *s, size_t len)
{
    if (data_text_reserve(t, len) != 0) return -1;
    memcpy(t->data + t->len, s, len);
    t->len += len;
    t->data[t->len] = '\0';
    return 0;
}

int data_text_printf(DataText *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || data_text_reserve(t, (size_t)n) != 0) return -1;
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
    return 0;
}

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
