/*
 * tests/fuzz/standalone.c — main() for a harness built without libFuzzer:
 * runs LLVMFuzzerTestOneInput once on each file named on the command line,
 * so tests/fuzz/test_fuzz_regress.sh can replay the seed corpora and every input
 * that once crashed with the ordinary compiler.  Before each input it
 * writes "input: PATH" to stderr, so a crash names the file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *grown = realloc(data, cap *= 2);
            if (!grown) free(data);
            data = grown;
        }
    }
    int failed = ferror(f) || !data;
    fclose(f);
    if (failed) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(data);
        return -1;
    }
    fprintf(stderr, "input: %s\n", path);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) bad |= run_file(argv[i]) != 0;
    printf("ran %d inputs\n", argc - 1);
    return bad ? 1 : 0;
}
