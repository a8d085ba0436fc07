/*
 * tests/fuzz/fuzz_bpe_cache.c — fuzzes the BPE-cache reader
 * (engine/data/bpe_cache.c): the input is the cache file
 * "<data>.bpe320.merges" beside a training text in this process's scratch
 * folder, read by bpe_learn_cached with the key "fuzz-key" and a target of
 * 320 ids (so a valid cache says "key fuzz-key" and "vocab 320").  Merges
 * from the cache must build a BPE tokenizer (bpe_init) that encodes and
 * decodes the text back; when the cache is refused the merges are learned
 * from a short fixed text and written over it.  $XDG_CACHE_HOME points into
 * the scratch folder, so the user cache is never touched.
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"
#include "tests/fuzz/fuzz.h"

enum { TARGET_VOCAB = 320 };

static const char TRAIN[] = "the cat sat on the mat. the dog sat on the log.\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char beside[128], cache[160], user_cache[160];
    fuzz_path(beside, sizeof beside, "train.txt");
    fuzz_path(user_cache, sizeof user_cache, "user-cache");
    setenv("XDG_CACHE_HOME", user_cache, 1);
    snprintf(cache, sizeof cache, "%s.bpe%d.merges", beside, TARGET_VOCAB);
    fuzz_write_file(cache, data, size);

    char err[ERR_LEN];
    int32_t *merges = NULL;
    int n_merges = 0, from_cache = 0;
    int rc = bpe_learn_cached(TRAIN, sizeof TRAIN - 1, TARGET_VOCAB, "fuzz-key", beside, &merges,
                              &n_merges, &from_cache, err);
    FUZZ_CHECK(rc == 0);
    FUZZ_CHECK(n_merges >= 0 && n_merges <= TARGET_VOCAB - BYTE_VOCAB);
    Tokenizer *t = tokenizer_new(TOKENIZER_BPE, 0, err);
    FUZZ_CHECK(t != NULL);
    rc = bpe_init(t, merges, n_merges, err);
    if (rc) fprintf(stderr, "merges from %s do not build a tokenizer: %s\n",
                    from_cache ? "the cache" : "learning", err);
    FUZZ_CHECK(rc == 0);
    int32_t *ids = NULL;
    size_t n = 0;
    FUZZ_CHECK(tokenizer_encode(t, TRAIN, &ids, &n, err) == 0);
    char decoded[sizeof TRAIN];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(ids[i] >= BYTE_BASE && ids[i] < tokenizer_vocab(t));
        used += tokenizer_decode_one(t, ids[i], decoded + used, sizeof decoded - used);
    }
    FUZZ_CHECK(used == sizeof TRAIN - 1 && memcmp(decoded, TRAIN, used) == 0);
    free(ids);
    tokenizer_free(t);
    free(merges);
    remove(cache);
    return 0;
}
