/*
 * safetensors.h — reading and writing checkpoints in the safetensors format:
 * an 8-byte little-endian header length, a JSON header (tensor name ->
 * dtype F32, shape, data_offsets; "__metadata__" -> string map), then raw
 * little-endian float32 data.  Files written here load in any safetensors
 * reader (PyTorch, numpy).
 *
 * Writes are atomic: a temp file beside the target, fsync, rename, fsync of
 * the folder, so a crash leaves either the old file or the new one.
 * Reads validate everything (header length, JSON, dtypes, offsets within the
 * file, no overlaps) and name the problem on failure.
 */
#ifndef MIXBENCH_SAFETENSORS_H
#define MIXBENCH_SAFETENSORS_H

#include <stdint.h>

#define ST_MAX_DIMS 4

typedef struct {
    const char *key;
    const char *value;
} StMeta;

typedef struct {
    const char *name;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    const float *data;
} StTensorRef;

/* Writes tensors back to back in the order given (ndim 0..ST_MAX_DIMS, data
 * may be NULL when a tensor has no elements).  Names and metadata must be
 * unique, valid UTF-8, and no tensor may be called "__metadata__"; n_meta 0
 * writes no "__metadata__" entry.  The temp file is "<path>.tmp.<pid>.<tid>";
 * on failure it is removed and an existing file at path is untouched. */
int st_write(const char *path, const StMeta *meta, int n_meta,
             const StTensorRef *tensors, int n_tensors, char *err);

typedef struct {
    char *name;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    int64_t numel;
    float *data;          /* points into the file's loaded data */
} StTensor;

typedef struct {
    StTensor *tensors;
    int n_tensors;
    char **meta_keys;
    char **meta_values;
    int n_meta;
    void *blob;           /* owned storage */
} StFile;

/* Loads the whole file.  Tensors keep the header's order; data pointers are
 * float-aligned.  On failure out is left empty (st_free on it is harmless)
 * and err names the file and the problem, e.g.
 * "ckpt.safetensors: truncated: header says 1234 bytes but the file has 100". */
int st_read(const char *path, StFile *out, char *err);
/* As st_read, with every check of the header against the file's size, but
 * without reading the data: metadata, names and shapes only (every
 * tensor's data is NULL).  For whose-is-this questions about big files. */
int st_read_meta(const char *path, StFile *out, char *err);
/* NULL when absent. */
const StTensor *st_find(const StFile *f, const char *name);
const char *st_meta(const StFile *f, const char *key);
/* Frees everything st_read allocated and zeroes f; safe to call twice. */
void st_free(StFile *f);

#endif
