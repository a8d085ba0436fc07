/*
 * tests/fuzz/fuzz_bpe_cache.c — fuzzes the BPE-cache reader read_cache
 * (engine/data/bpe_cache.c): the input is a cache file in this process's
 * scratch folder, read with the key "fuzz-key" and a target of 320 ids (so
 * a valid cache says "key fuzz-key" and "vocab 320").  Merges it accepts
 * must build a BPE tokenizer (bpe_init) that encodes a text and decodes it
 * back byte for byte.
 *
 * read_cache is static, so this file includes bpe_cache.c itself (the
 * archive's copy is then never linked: every symbol it defines is defined
 * here).  Going through bpe_learn_cached instead would relearn the merges
 * after every refused file, which costs 20 ms under ASan and left the
 * fuzzer at 40 executions a second.
 */
#include "engine/data/bpe_cache.c"

#include "tests/fuzz/fuzz.h"

enum { TARGET_VOCAB = 320 };

static const char TEXT[] = "the cat sat on the mat. the dog sat on the log.\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char cache[128];
    fuzz_path(cache, sizeof cache, "train.txt.bpe320.merges");
    fuzz_write_file(cache, data, size);

    int32_t *merges = NULL;
    int n_merges = 0;
    if (read_cache(cache, "fuzz-key", TARGET_VOCAB, &merges, &n_merges) != 0) {
        FUZZ_CHECK(merges == NULL);
        return 0;
    }
    FUZZ_CHECK(n_merges >= 0 && n_merges <= TARGET_VOCAB - BYTE_VOCAB);
    char err[ERR_LEN];
    Tokenizer *t = tokenizer_new(TOKENIZER_BPE, 0, err);
    FUZZ_CHECK(t != NULL);
    int rc = bpe_init(t, merges, n_merges, err);
    if (rc) fprintf(stderr, "merges the cache accepted do not build a tokenizer: %s\n", err);
    FUZZ_CHECK(rc == 0);
    int32_t *ids = NULL;
    size_t n = 0;
    FUZZ_CHECK(tokenizer_encode(t, TEXT, &ids, &n, err) == 0);
    char decoded[sizeof TEXT];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(ids[i] >= BYTE_BASE && ids[i] < tokenizer_vocab(t));
        used += tokenizer_decode_one(t, ids[i], decoded + used, sizeof decoded - used);
    }
    FUZZ_CHECK(used == sizeof TEXT - 1 && memcmp(decoded, TEXT, used) == 0);
    free(ids);
    tokenizer_free(t);
    free(merges);
    return 0;
}
