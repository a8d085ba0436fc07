/*
 * tests/fuzz/fuzz_checkpoint.c — fuzzes reading a model checkpoint from a
 * stranger (engine/checkpoint.c on top of st_read): the bytes go to a memfd
 * read through /proc/self/fd/N.  checkpoint_read_config (the metadata: model
 * keys, tokenizer) on every input; checkpoint_load (build the model, check
 * every tensor's name and shape, copy the weights) when the stored config
 * describes a small model, since a large one is a legitimate allocation the
 * fuzzer would report as out of memory.  The seed is a real checkpoint.
 */
#include "engine/checkpoint.h"
#include "engine/common.h"
#include "tests/fuzz/fuzz.h"

#include <sys/mman.h>

static int memfd = -1;

/* At most about a million floats whatever the architecture. */
static int small_model(const Config *c)
{
    return c->d <= 64 && c->layers <= 4 && c->heads <= 16 && c->n_ctx <= 256 && c->ffn_mult <= 8 &&
           c->vocab <= 4096 && c->hash_size <= 100000 && c->d_pair <= 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("mixbench-fuzz-checkpoint", 0);
        FUZZ_CHECK(memfd >= 0);
    }
    FUZZ_CHECK(ftruncate(memfd, 0) == 0);
    FUZZ_CHECK(pwrite(memfd, data, size, 0) == (ssize_t)size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);

    char err[ERR_LEN];
    Config c;
    config_defaults(&c);
    Tokenizer *tok = NULL;
    if (checkpoint_read_config(path, &c, &tok, err) != 0) {
        FUZZ_CHECK(tok == NULL && err[0] != '\0');
        return 0;
    }
    int load = small_model(&c);
    tokenizer_free(tok);
    if (!load) return 0;

    Config loaded;
    config_defaults(&loaded);
    Model m;
    memset(&m, 0, sizeof m);
    tok = NULL;
    if (checkpoint_load(path, &loaded, &m, &tok, err) == 0) {
        FUZZ_CHECK(m.w != NULL || m.n_floats == 0);
        volatile float sink = 0;
        for (size_t i = 0; i < m.n_floats; i++) sink += m.w[i];
        (void)sink;
        if (tok) FUZZ_CHECK(tokenizer_vocab(tok) <= m.cfg.vocab);
        model_free(&m);
    }
    tokenizer_free(tok);
    return 0;
}
