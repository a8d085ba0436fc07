/*
 * tests/fuzz/fuzz_safetensors.c — fuzzes the checkpoint reader st_read
 * (engine/io/safetensors.c) on a whole file: the bytes go to a memfd read
 * through /proc/self/fd/N.  For a file it accepts, every tensor's numel
 * must match its shape and every float of it is read (ASan checks they lie
 * in the file's data), st_find and st_meta must find each entry, and
 * st_free must be safe twice.
 */
#include "engine/common.h"
#include "engine/io/safetensors.h"
#include "tests/fuzz/fuzz.h"

#include <sys/mman.h>

static int memfd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("mixbench-fuzz-safetensors", 0);
        FUZZ_CHECK(memfd >= 0);
    }
    FUZZ_CHECK(ftruncate(memfd, 0) == 0);
    FUZZ_CHECK(pwrite(memfd, data, size, 0) == (ssize_t)size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);

    StFile f;
    char err[ERR_LEN];
    if (st_read(path, &f, err) != 0) {
        FUZZ_CHECK(f.n_tensors == 0 && f.tensors == NULL && f.blob == NULL);
        st_free(&f);
        return 0;
    }
    volatile float sink = 0;
    for (int i = 0; i < f.n_tensors; i++) {
        const StTensor *t = &f.tensors[i];
        FUZZ_CHECK(t->ndim >= 0 && t->ndim <= ST_MAX_DIMS);
        int64_t numel = 1;
        for (int k = 0; k < t->ndim; k++) {
            FUZZ_CHECK(t->shape[k] >= 0);
            numel *= t->shape[k];
        }
        FUZZ_CHECK(numel == t->numel);
        FUZZ_CHECK(((uintptr_t)t->data & (sizeof(float) - 1)) == 0);
        for (int64_t k = 0; k < t->numel; k++) sink += t->data[k];
        FUZZ_CHECK(st_find(&f, t->name) != NULL);
    }
    for (int i = 0; i < f.n_meta; i++) FUZZ_CHECK(st_meta(&f, f.meta_keys[i]) != NULL);
    (void)sink;
    st_free(&f);
    st_free(&f);
    return 0;
}
