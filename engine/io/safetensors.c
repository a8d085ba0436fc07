/*
 * safetensors.c — checkpoint files in the safetensors format
 * (github.com/huggingface/safetensors), float32 only.
 *
 * Layout: an 8-byte little-endian u64 N, N bytes of UTF-8 JSON header, then
 * the data buffer.  The header maps each tensor name to {"dtype": "F32",
 * "shape": [...], "data_offsets": [begin, end]} with offsets relative to the
 * start of the data buffer, plus an optional "__metadata__" string map.
 * Like the reference implementation, the writer pads the header with spaces
 * so the data starts 8-byte aligned, and the reader insists that tensors
 * tile the data buffer exactly (no gaps, no overlaps, nothing after).
 *
 * Not for: other dtypes, memory mapping, or lazy loading — a mixbench
 * checkpoint is small enough to read whole.
 */
#include "engine/io/safetensors.h"
#include "engine/common.h"
#include "engine/io/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(sizeof(float) == 4, "safetensors F32 needs a 4-byte float");

/* The reference implementation refuses larger headers; so do we, both ways. */
#define ST_MAX_HEADER 100000000ULL
/* Dimensions and offsets travel as JSON doubles: integers beyond 2^53 are
 * not exact there. */
#define ST_MAX_INT ((int64_t)1 << 53)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ST_BIG_ENDIAN 1
#else
#define ST_BIG_ENDIAN 0
#endif

/* ---- shared helpers ---------------------------------------------------- */

/* "[2, 3]" into buf. */
static const char *shape_text(const int64_t *shape, int ndim, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "",
                                 (long long)shape[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

/* Element count of a shape, or -1 if it overflows int64 bytes. */
static int64_t shape_numel(const int64_t *shape, int ndim)
{
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return -1;
        if (shape[i] && numel > INT64_MAX / 4 / shape[i])
            return -1;
        numel *= shape[i];
    }
    return numel;
}

/* A string from the file made fit for a one-line message: control bytes
 * become '?' and long strings are cut, at a character boundary, with "...". */
#define SHOWN_LEN 72
static const char *shown(const char *s, char buf[SHOWN_LEN + 4])
{
    size_t n = 0;
    for (; s[n] && n < SHOWN_LEN; n++) {
        unsigned char c = (unsigned char)s[n];
        buf[n] = c < 0x20 || c == 0x7F ? '?' : (char)c;
    }
    if (s[n]) {
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* ---- writing ----------------------------------------------------------- */

static int write_floats_le(FILE *f, const float *x, size_t n)
{
    if (n == 0)
        return 0; /* x may be NULL for an empty tensor */
#if ST_BIG_ENDIAN
    unsigned char chunk[4096];
    while (n > 0) {
        size_t m = MB_MIN(n, sizeof chunk / 4);
        for (size_t i = 0; i < m; i++) {
            unsigned char b[4];
            memcpy(b, &x[i], 4);
            for (int k = 0; k < 4; k++)
                chunk[4 * i + (size_t)k] = b[3 - k];
        }
        if (fwrite(chunk, 4, m, f) != m)
            return -1;
        x += m;
        n -= m;
    }
    return 0;
#else
    return fwrite(x, sizeof *x, n, f) == n ? 0 : -1;
#endif
}

static int check_write_args(const char *path, const StMeta *meta, int n_meta,
                            const StTensorRef *tensors, int n_tensors, char *err)
{
    if (n_meta < 0 || n_tensors < 0 || (n_meta > 0 && !meta) || (n_tensors > 0 && !tensors))
        return err_set(err, "%s: cannot write: bad tensor or metadata count", path);
    for (int i = 0; i < n_meta; i++) {
        const char *key = meta[i].key, *value = meta[i].value;
        if (!key || !value)
            return err_set(err, "%s: cannot write: metadata entry %d has no key or value", path, i);
        if (!json_utf8_valid(key, strlen(key)) || !json_utf8_valid(value, strlen(value)))
            return err_set(err, "%s: cannot write: metadata '%s' is not valid UTF-8", path, key);
        for (int j = 0; j < i; j++)
            if (strcmp(meta[j].key, key) == 0)
                return err_set(err, "%s: cannot write: metadata key '%s' appears twice", path, key);
    }
    for (int i = 0; i < n_tensors; i++) {
        const StTensorRef *t = &tensors[i];
        char shape[160];
        if (!t->name)
            return err_set(err, "%s: cannot write: tensor %d has no name", path, i);
        if (strcmp(t->name, "__metadata__") == 0 || !json_utf8_valid(t->name, strlen(t->name)))
            return err_set(err, "%s: cannot write: '%s' is not a valid tensor name", path, t->name);
        if (t->ndim < 0 || t->ndim > ST_MAX_DIMS)
            return err_set(err, "%s: cannot write: tensor '%s' has %d dimensions (0 to %d allowed)",
                           path, t->name, t->ndim, ST_MAX_DIMS);
        for (int d = 0; d < t->ndim; d++)
            if (t->shape[d] < 0 || t->shape[d] > ST_MAX_INT)
                return err_set(err, "%s: cannot write: tensor '%s' has shape %s", path, t->name,
                               shape_text(t->shape, t->ndim, shape, sizeof shape));
        int64_t numel = shape_numel(t->shape, t->ndim);
        if (numel < 0)
            return err_set(err, "%s: cannot write: tensor '%s' shape %s is too large", path,
                           t->name, shape_text(t->shape, t->ndim, shape, sizeof shape));
        if (numel > 0 && !t->data)
            return err_set(err, "%s: cannot write: tensor '%s' has no data", path, t->name);
        for (int j = 0; j < i; j++)
            if (strcmp(tensors[j].name, t->name) == 0)
                return err_set(err, "%s: cannot write: tensor name '%s' appears twice", path, t->name);
    }
    return 0;
}

/* The JSON header, padded with spaces to a multiple of 8 bytes.  Tensors are
 * laid out in the order given. */
static int build_header(const char *path, const StMeta *meta, int n_meta,
                        const StTensorRef *tensors, int n_tensors, StrBuf *header, char *err)
{
    sb_append(header, "{");
    if (n_meta > 0) {
        sb_append(header, "\"__metadata__\":{");
        for (int i = 0; i < n_meta; i++) {
            if (i)
                sb_append(header, ",");
            sb_json_string(header, meta[i].key);
            sb_append(header, ":");
            sb_json_string(header, meta[i].value);
        }
        sb_append(header, "}");
    }
    int64_t offset = 0;
    for (int i = 0; i < n_tensors; i++) {
        const StTensorRef *t = &tensors[i];
        int64_t nbytes = 4 * shape_numel(t->shape, t->ndim);
        if (nbytes > ST_MAX_INT - offset)
            return err_set(err, "%s: cannot write: more than 2^53 bytes of tensor data", path);
        if (n_meta > 0 || i > 0)
            sb_append(header, ",");
        sb_json_string(header, t->name);
        sb_append(header, ":{\"dtype\":\"F32\",\"shape\":[");
        for (int d = 0; d < t->ndim; d++)
            sb_printf(header, "%s%lld", d ? "," : "", (long long)t->shape[d]);
        sb_printf(header, "],\"data_offsets\":[%lld,%lld]}", (long long)offset,
                  (long long)(offset + nbytes));
        offset += nbytes;
    }
    sb_append(header, "}");
    while (sb_ok(header) && header->len % 8 != 0)
        sb_append(header, " ");
    if (!sb_ok(header))
        return err_set(err, "%s: cannot write: out of memory building the header", path);
    if (header->len > ST_MAX_HEADER)
        return err_set(err, "%s: cannot write: header of %zu bytes exceeds the 100 MB limit",
                       path, header->len);
    return 0;
}

/* "<path>.tmp.<pid>.<tid>": unique among live writers in this process and
 * others, so an existing file of that name is a leftover of a crash. */
static char *temp_path_for(const char *path)
{
    size_t size = strlen(path) + 64;
    char *tmp = malloc(size);
    if (tmp)
        snprintf(tmp, size, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)syscall(SYS_gettid));
    return tmp;
}

static int sync_parent_folder(const char *path, char *err)
{
    char *folder = strdup(path);
    if (!folder)
        return err_set(err, "%s: out of memory", path);
    char *slash = strrchr(folder, '/');
    const char *dir = ".";
    if (slash == folder)
        dir = "/";
    else if (slash) {
        *slash = '\0';
        dir = folder;
    }
    int rc = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* EINVAL: the file system cannot sync folders, nothing more to do. */
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
        rc = err_set(err, "%s: saved, but syncing folder %s failed (%s); the file may not survive a crash",
                     path, dir, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(folder);
    return rc;
}

int st_write(const char *path, const StMeta *meta, int n_meta,
             const StTensorRef *tensors, int n_tensors, char *err)
{
    if (!path || !*path)
        return err_set(err, "safetensors: no file name given");
    if (check_write_args(path, meta, n_meta, tensors, n_tensors, err) != 0)
        return -1;

    StrBuf header;
    sb_init(&header);
    if (build_header(path, meta, n_meta, tensors, n_tensors, &header, err) != 0) {
        sb_free(&header);
        return -1;
    }

    char *tmp = temp_path_for(path);
    if (!tmp) {
        sb_free(&header);
        return err_set(err, "%s: out of memory", path);
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        err_set(err, "%s: cannot create %s: %s", path, tmp, strerror(e));
        free(tmp);
        sb_free(&header);
        return -1;
    }
    /* Each step runs only if the ones before succeeded; the first failure
     * keeps its errno and name for the message. */
    FILE *f = fdopen(fd, "wb");
    const char *step = "write";
    int ok = f != NULL, e = f ? 0 : errno;
    if (!f)
        close(fd);

    unsigned char len_le[8];
    for (int k = 0; k < 8; k++)
        len_le[k] = (unsigned char)((uint64_t)header.len >> (8 * k));
    ok = ok && fwrite(len_le, 1, 8, f) == 8;
    ok = ok && fwrite(header.data, 1, header.len, f) == header.len;
    for (int i = 0; ok && i < n_tensors; i++) {
        size_t numel = (size_t)shape_numel(tensors[i].shape, tensors[i].ndim);
        ok = write_floats_le(f, tensors[i].data, numel) == 0;
    }
    ok = ok && fflush(f) == 0;
    if (f && !ok && !e)
        e = errno;
    if (ok && fsync(fileno(f)) != 0) {
        e = errno;
        step = "sync";
        ok = 0;
    }
    if (f && fclose(f) != 0 && ok) {
        e = errno;
        ok = 0;
    }
    if (ok && rename(tmp, path) != 0) {
        e = errno;
        step = "rename";
        ok = 0;
    }
    if (!ok) {
        unlink(tmp);
        if (!e)
            e = EIO;
        err_set(err, "%s: cannot save (%s of %s failed: %s); any existing file is unchanged",
                path, step, tmp, strerror(e));
    }
    free(tmp);
    sb_free(&header);
    if (!ok)
        return -1;
    return sync_parent_folder(path, err);
}

/* ---- reading ----------------------------------------------------------- */

typedef struct {
    int64_t begin, end;
    const char *name;
} Span;

static int span_cmp(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A JSON number that is a non-negative integer exactly representable. */
static int as_count(const JsonValue *v, int64_t *out)
{
    if (!v || v->type != JSON_NUMBER || !(v->number >= 0) || v->number > (double)ST_MAX_INT ||
        v->number != (double)(int64_t)v->number)
        return -1;
    *out = (int64_t)v->number;
    return 0;
}

/* Reads the data region; fills out->blob. */
static int read_exact(FILE *f, void *buf, size_t n)
{
    return fread(buf, 1, n, f) == n ? 0 : -1;
}

static int parse_tensor(const char *path, const char *name, const JsonValue *info,
                        int64_t data_len, StTensor *t, Span *span, char *err)
{
    char shape[160], name_buf[SHOWN_LEN + 4], dtype_buf[SHOWN_LEN + 4];
    name = shown(name, name_buf);
    if (info->type != JSON_OBJECT)
        return err_set(err, "%s: tensor '%s': entry is not a JSON object", path, name);

    const JsonValue *dtype = json_get(info, "dtype");
    if (!dtype || dtype->type != JSON_STRING)
        return err_set(err, "%s: tensor '%s': missing or non-string \"dtype\"", path, name);
    if (strcmp(dtype->string, "F32") != 0)
        return err_set(err, "%s: tensor '%s' has dtype %s; only F32 is supported", path, name,
                       shown(dtype->string, dtype_buf));

    const JsonValue *dims = json_get(info, "shape");
    if (!dims || dims->type != JSON_ARRAY)
        return err_set(err, "%s: tensor '%s': \"shape\" is missing or not a list", path, name);
    if (dims->count > ST_MAX_DIMS)
        return err_set(err, "%s: tensor '%s' has %d dimensions; at most %d are supported", path,
                       name, dims->count, ST_MAX_DIMS);
    t->ndim = dims->count;
    for (int d = 0; d < dims->count; d++)
        if (as_count(&dims->items[d], &t->shape[d]) != 0)
            return err_set(err, "%s: tensor '%s': \"shape\" is not a list of non-negative integers",
                           path, name);
    t->numel = shape_numel(t->shape, t->ndim);
    if (t->numel < 0)
        return err_set(err, "%s: tensor '%s': shape %s is too large", path, name,
                       shape_text(t->shape, t->ndim, shape, sizeof shape));

    const JsonValue *offsets = json_get(info, "data_offsets");
    int64_t begin, end;
    if (!offsets || offsets->type != JSON_ARRAY || offsets->count != 2 ||
        as_count(&offsets->items[0], &begin) != 0 || as_count(&offsets->items[1], &end) != 0)
        return err_set(err, "%s: tensor '%s': \"data_offsets\" is not a pair of non-negative integers",
                       path, name);
    if (begin > end || end > data_len)
        return err_set(err, "%s: tensor '%s': data_offsets [%lld, %lld] are outside the %lld-byte data buffer",
                       path, name, (long long)begin, (long long)end, (long long)data_len);
    if (end - begin != 4 * t->numel)
        return err_set(err, "%s: tensor '%s': data_offsets [%lld, %lld] hold %lld bytes but shape %s needs %lld",
                       path, name, (long long)begin, (long long)end, (long long)(end - begin),
                       shape_text(t->shape, t->ndim, shape, sizeof shape), (long long)(4 * t->numel));
    span->begin = begin;
    span->end = end;
    return 0;
}

static int parse_metadata(const char *path, const JsonValue *m, StFile *out, char *err)
{
    if (m->type == JSON_NULL)
        return 0;
    if (m->type != JSON_OBJECT)
        return err_set(err, "%s: \"__metadata__\" is not a JSON object", path);
    if (m->count == 0)
        return 0;
    out->meta_keys = calloc((size_t)m->count, sizeof *out->meta_keys);
    out->meta_values = calloc((size_t)m->count, sizeof *out->meta_values);
    if (!out->meta_keys || !out->meta_values)
        return err_set(err, "%s: out of memory", path);
    out->n_meta = m->count; /* entries still NULL are fine for st_free */
    char key_buf[SHOWN_LEN + 4];
    for (int i = 0; i < m->count; i++) {
        if (m->items[i].type != JSON_STRING)
            return err_set(err, "%s: metadata value for '%s' is not a string", path,
                           shown(m->keys[i], key_buf));
        for (int j = 0; j < i; j++)
            if (strcmp(m->keys[j], m->keys[i]) == 0)
                return err_set(err, "%s: metadata key '%s' appears twice", path,
                               shown(m->keys[i], key_buf));
        out->meta_keys[i] = strdup(m->keys[i]);
        out->meta_values[i] = strdup(m->items[i].string);
        if (!out->meta_keys[i] || !out->meta_values[i])
            return err_set(err, "%s: out of memory", path);
    }
    return 0;
}

/* Checks the header against a data buffer of data_len bytes at out->blob
 * and fills out's tensors and metadata. */
static int parse_header(const char *path, const JsonValue *root, int64_t data_len,
                        StFile *out, char *err)
{
    if (root->type != JSON_OBJECT)
        return err_set(err, "%s: header is not a JSON object", path);

    /* Duplicate keys would make a name ambiguous: refuse them. */
    int n = root->count, n_meta_entries = 0;
    const char **names = malloc((size_t)(n ? n : 1) * sizeof *names);
    if (!names)
        return err_set(err, "%s: out of memory", path);
    for (int i = 0; i < n; i++)
        names[i] = root->keys[i];
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    for (int i = 1; i < n; i++)
        if (strcmp(names[i - 1], names[i]) == 0) {
            char key_buf[SHOWN_LEN + 4];
            err_set(err, "%s: header has the key '%s' twice", path, shown(names[i], key_buf));
            free(names);
            return -1;
        }
    free(names);

    for (int i = 0; i < n; i++)
        if (strcmp(root->keys[i], "__metadata__") == 0) {
            n_meta_entries++;
            if (parse_metadata(path, &root->items[i], out, err) != 0)
                return -1;
        }

    int n_tensors = n - n_meta_entries;
    Span *spans = malloc((size_t)(n_tensors ? n_tensors : 1) * sizeof *spans);
    out->tensors = calloc((size_t)(n_tensors ? n_tensors : 1), sizeof *out->tensors);
    if (!spans || !out->tensors) {
        free(spans);
        return err_set(err, "%s: out of memory", path);
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(root->keys[i], "__metadata__") == 0)
            continue;
        StTensor *t = &out->tensors[out->n_tensors];
        Span *span = &spans[out->n_tensors];
        if (!(t->name = strdup(root->keys[i]))) {
            free(spans);
            return err_set(err, "%s: out of memory", path);
        }
        out->n_tensors++;
        if (parse_tensor(path, t->name, &root->items[i], data_len, t, span, err) != 0) {
            free(spans);
            return -1;
        }
        span->name = t->name;
        /* a header-only read (st_read_meta) has no data to point into */
        t->data = out->blob ? (float *)((char *)out->blob + span->begin) : NULL;
    }

    /* Sorted by offset, the tensors must tile [0, data_len) exactly.  Every
     * tensor then starts at a multiple of 4, so data pointers into the
     * malloc'd blob are float-aligned. */
    qsort(spans, (size_t)n_tensors, sizeof *spans, span_cmp);
    int64_t covered = 0;
    const char *previous = NULL;
    int rc = 0;
    char name_a[SHOWN_LEN + 4], name_b[SHOWN_LEN + 4];
    for (int i = 0; i < n_tensors && rc == 0; i++) {
        if (spans[i].begin < covered)
            rc = err_set(err, "%s: tensors '%s' and '%s' overlap", path, shown(previous, name_a),
                         shown(spans[i].name, name_b));
        else if (spans[i].begin > covered)
            rc = err_set(err, "%s: %lld unused bytes before tensor '%s' (data_offsets must be contiguous)",
                         path, (long long)(spans[i].begin - covered), shown(spans[i].name, name_b));
        covered = spans[i].end;
        previous = spans[i].name;
    }
    if (rc == 0 && covered < data_len)
        rc = err_set(err, "%s: trailing garbage: %lld bytes after the last tensor", path,
                     (long long)(data_len - covered));
    free(spans);
    return rc;
}

/* st_read, or with with_data 0 st_read_meta: the same checks of the
   header against the file's size, without reading the data. */
static int read_file(const char *path, StFile *out, int with_data, char *err)
{
    memset(out, 0, sizeof *out);
    if (!path || !*path)
        return err_set(err, "safetensors: no file name given");
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(err, "%s: cannot open: %s", path, strerror(errno));

    char *header = NULL;
    JsonValue *root = NULL;
    int rc = -1;
    struct stat st;
    unsigned char len_le[8];
    uint64_t header_len = 0;
    int64_t size = 0;

    if (fstat(fileno(f), &st) != 0) {
        err_set(err, "%s: cannot stat: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        err_set(err, "%s: not a regular file", path);
        goto done;
    }
    size = (int64_t)st.st_size;
    if (size < 8) {
        err_set(err, "%s: truncated: %lld bytes, too short for the 8-byte header length", path,
                (long long)size);
        goto done;
    }
    if (read_exact(f, len_le, 8) != 0) {
        err_set(err, "%s: read error", path);
        goto done;
    }
    for (int k = 0; k < 8; k++)
        header_len |= (uint64_t)len_le[k] << (8 * k);
    if (header_len > (uint64_t)size - 8) {
        err_set(err, "%s: truncated: header says %llu bytes but the file has %lld", path,
                (unsigned long long)header_len, (long long)size);
        goto done;
    }
    if (header_len > ST_MAX_HEADER) {
        err_set(err, "%s: header of %llu bytes exceeds the 100 MB limit", path,
                (unsigned long long)header_len);
        goto done;
    }

    int64_t data_len = size - 8 - (int64_t)header_len;
    header = malloc(header_len ? header_len : 1);
    /* malloc's alignment (at least 8) keeps every float in the blob aligned. */
    if (with_data) out->blob = malloc(data_len ? (size_t)data_len : 1);
    if (!header || (with_data && !out->blob)) {
        err_set(err, "%s: out of memory reading %lld bytes", path, (long long)size);
        goto done;
    }
    if (read_exact(f, header, header_len) != 0 ||
        (with_data && read_exact(f, out->blob, (size_t)data_len) != 0)) {
        err_set(err, "%s: read error or file shrank while reading", path);
        goto done;
    }

    char json_err[ERR_LEN];
    root = json_parse(header, header_len, json_err);
    if (!root) {
        err_set(err, "%s: bad header: %s", path, json_err);
        goto done;
    }
    if (parse_header(path, root, data_len, out, err) != 0)
        goto done;

#if ST_BIG_ENDIAN
    unsigned char *bytes = out->blob;
    for (int64_t i = 0; with_data && i + 4 <= data_len; i += 4) {
        unsigned char b0 = bytes[i], b1 = bytes[i + 1];
        bytes[i] = bytes[i + 3];
        bytes[i + 1] = bytes[i + 2];
        bytes[i + 2] = b1;
        bytes[i + 3] = b0;
    }
#endif
    rc = 0;

done:
    fclose(f);
    free(header);
    json_free(root);
    if (rc != 0)
        st_free(out);
    return rc;
}

int st_read(const char *path, StFile *out, char *err)
{
    return read_file(path, out, 1, err);
}

int st_read_meta(const char *path, StFile *out, char *err)
{
    return read_file(path, out, 0, err);
}

const StTensor *st_find(const StFile *f, const char *name)
{
    for (int i = 0; f && name && i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    return NULL;
}

const char *st_meta(const StFile *f, const char *key)
{
    for (int i = 0; f && key && i < f->n_meta; i++)
        if (strcmp(f->meta_keys[i], key) == 0)
            return f->meta_values[i];
    return NULL;
}

void st_free(StFile *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->n_tensors; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    for (int i = 0; i < f->n_meta; i++) {
        free(f->meta_keys ? f->meta_keys[i] : NULL);
        free(f->meta_values ? f->meta_values[i] : NULL);
    }
    free(f->meta_keys);
    free(f->meta_values);
    free(f->blob);
    memset(f, 0, sizeof *f);
}
