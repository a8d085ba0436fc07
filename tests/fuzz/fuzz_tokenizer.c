/*
 * tests/fuzz/fuzz_tokenizer.c — fuzzes building a tokenizer from a corpus
 * and tokenizing it (engine/data/dataset.c, tokenizer_word.c,
 * tokenizer_char.c, bpe_learn.c, tokenizer_bpe.c): dataset_load on a
 * folder or a single file written from the input (fuzz_write_corpus).  The
 * first byte picks the tokenizer (word, char, bpe), folder or file, and the
 * vocabulary size and min_count.  For a corpus it accepts: every id of
 * every split lies inside the vocabulary, the tokenizer survives a
 * serialise / read round trip (tokenizer_clone through the serialisation),
 * and each id decodes.  BPE caches are removed after each run.
 */
#include "engine/common.h"
#include "engine/data/data.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    static const char *const kinds[4] = {"word", "char", "bpe", "word"};
    unsigned opt = data[0];
    DataOptions o;
    memset(&o, 0, sizeof o);
    o.tokenizer = kinds[opt & 3];
    int folder = (opt & 4) != 0;
    if (opt & 3) o.vocab = (opt & 3) == 2 ? 258 + (int)(opt >> 3) * 4 : 0;
    else o.vocab = (opt & 8) ? 4 + (int)(opt >> 4) : 0;
    o.min_count = (opt & 3) == 3 ? 1 + (int)(opt >> 6) : 0;
    char spec[256];
    fuzz_write_corpus(data + 1, size - 1, folder, spec, sizeof spec);
    setenv("XDG_CACHE_HOME", fuzz_dir(), 1);

    char err[ERR_LEN];
    Dataset ds;
    if (dataset_load(spec, &o, &ds, err) == 0) {
        FUZZ_CHECK(ds.tokenizer != NULL && ds.vocab == tokenizer_vocab(ds.tokenizer));
        for (int s = 0; s < SPLIT_COUNT; s++)
            for (size_t i = 0; i < ds.split[s].len; i++)
                FUZZ_CHECK(ds.split[s].ids[i] >= 0 && ds.split[s].ids[i] < ds.vocab);
        char *serial = tokenizer_serialize(ds.tokenizer);
        FUZZ_CHECK(serial != NULL);
        Tokenizer *copy = tokenizer_deserialize(serial, err);
        if (!copy) fprintf(stderr, "the built tokenizer does not read back: %s\n", err);
        FUZZ_CHECK(copy != NULL && tokenizer_vocab(copy) == ds.vocab);
        char buf[64];
        for (int32_t id = 0; id < ds.vocab && id < 2048; id++)
            FUZZ_CHECK(tokenizer_decode_one(copy, id, buf, sizeof buf) < sizeof buf);
        tokenizer_free(copy);
        free(serial);
        dataset_free(&ds);
    } else {
        FUZZ_CHECK(ds.tokenizer == NULL && err[0] != '\0');
    }
    /* the BPE cache beside the data: its key holds the file's mtime, which
       a fast loop can repeat, so never let one run see another's */
    char cache[300];
    for (int v = 258; v < 258 + 32 * 4 + 1; v += 4) {
        snprintf(cache, sizeof cache, "%s.bpe%d.merges", spec, v);
        remove(cache);
    }
    return 0;
}
