/*
 * tests/fuzz/fuzz.h — what the harnesses of tests/fuzz/ share: a scratch
 * folder of this process under /tmp (removed at exit) for the readers that
 * take a path, writing the fuzzer's bytes to a file, and a check that
 * aborts so that a broken invariant counts as a crash.
 *
 * Each harness is one translation unit, so everything here is static.  Built
 * two ways: with libFuzzer (`make fuzz`), and with tests/fuzz/standalone.c
 * as main (`make fuzz-regress`, run by tests/fuzz/test_fuzz_regress.sh).
 */
#ifndef MIXBENCH_FUZZ_H
#define MIXBENCH_FUZZ_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test; a failure aborts, which libFuzzer
   and tests/fuzz/test_fuzz_regress.sh both report as a crash. */
#define FUZZ_CHECK(cond)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                     \
            abort();                                                            \
        }                                                                       \
    } while (0)

static char fuzz_dir_path[64];

static inline int fuzz_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static inline void fuzz_remove_dir(void)
{
    if (fuzz_dir_path[0]) nftw(fuzz_dir_path, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* This process's own scratch folder, made on first use (never a fixed name:
   two fuzzers, or a fuzzer and its -fork children, must not share files). */
static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "/tmp/mixbench-fuzz-XXXXXX");
        if (!mkdtemp(fuzz_dir_path)) {
            perror("mkdtemp");
            abort();
        }
        atexit(fuzz_remove_dir);
    }
    return fuzz_dir_path;
}

/* dir/name of the scratch folder into path (cap bytes). */
static inline void fuzz_path(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", fuzz_dir(), name);
}

static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* A NUL-terminated copy of the input, for the readers that take a string
   (an embedded NUL simply ends it early, as it would for them). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Writes a corpus to the scratch folder the way dataset_load reads one:
   with `folder` set, the bytes split at their first two 0x1E (record
   separator) bytes into train.txt, valid.txt and test.txt of a folder
   (missing parts are empty files); else all of them into one text file
   (split 90/5/5 by lines by the loader).  spec gets the path to load. */
static inline void fuzz_write_corpus(const uint8_t *data, size_t size, int folder, char *spec, size_t cap)
{
    if (!folder) {
        fuzz_path(spec, cap, "corpus.txt");
        fuzz_write_file(spec, data, size);
        return;
    }
    static const char *const names[3] = {"train.txt", "valid.txt", "test.txt"};
    fuzz_path(spec, cap, "corpus");
    mkdir(spec, 0700);
    size_t start = 0;
    for (int part = 0; part < 3; part++) {
        size_t end = start;
        while (end < size && (part == 2 || data[end] != 0x1E)) end++;
        char path[320];
        snprintf(path, sizeof path, "%s/%s", spec, names[part]);
        fuzz_write_file(path, data + start, end - start);
        start = end < size ? end + 1 : size;
    }
}

#endif
