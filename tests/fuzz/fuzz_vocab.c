/*
 * tests/fuzz/fuzz_vocab.c — fuzzes the vocabulary loader
 * tokenizer_deserialize (engine/data/tokenizer.c): the serialised
 * tokenizer a checkpoint carries in its metadata (word lists with \xHH
 * escapes, BPE merges), read by `generate` and `eval` from a file that may
 * come from anyone.  For one it accepts: serialising it again and reading
 * that back gives the same text; encoding a text gives ids inside the
 * vocabulary; every id decodes; BPE decodes back to the exact bytes.
 */
#include "engine/common.h"
#include "engine/data/data.h"
#include "tests/fuzz/fuzz.h"

/* The text to encode: the input itself after the serialisation's magic
   line, at most 512 bytes, so that it has words of this vocabulary. */
static void exercise(const Tokenizer *t, const char *input)
{
    char err[ERR_LEN];
    char sample[513];
    snprintf(sample, sizeof sample, "%s", input);
    int32_t *ids = NULL;
    size_t n = 0;
    if (tokenizer_encode(t, sample, &ids, &n, err) != 0) {
        FUZZ_CHECK(ids == NULL && n == 0);
        return;
    }
    int vocab = tokenizer_vocab(t);
    char decoded[2048];
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(ids[i] >= 0 && ids[i] < vocab);
        used += tokenizer_decode_one(t, ids[i], decoded + used, sizeof decoded - used);
        FUZZ_CHECK(used < sizeof decoded);
    }
    if (tokenizer_kind(t) == TOKENIZER_BPE || tokenizer_kind(t) == TOKENIZER_CHAR)
        FUZZ_CHECK(used == strlen(sample) && memcmp(decoded, sample, used) == 0);
    /* ids outside the vocabulary, and the reserved ones, decode to something */
    const int32_t odd[] = {-1, 0, 1, 2, 3, vocab - 1, vocab, INT32_MAX};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        char one[64];
        FUZZ_CHECK(tokenizer_decode_one(t, odd[i], one, sizeof one) < sizeof one);
    }
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_LEN];
    char *text = fuzz_cstring(data, size);
    Tokenizer *t = tokenizer_deserialize(text, err);
    if (!t) {
        FUZZ_CHECK(err[0] != '\0');
        free(text);
        return 0;
    }
    char *serial = tokenizer_serialize(t);
    FUZZ_CHECK(serial != NULL);
    Tokenizer *again = tokenizer_deserialize(serial, err);
    if (!again) fprintf(stderr, "tokenizer_serialize wrote what tokenizer_deserialize rejects: %s\n", err);
    FUZZ_CHECK(again != NULL);
    char *serial2 = tokenizer_serialize(again);
    FUZZ_CHECK(serial2 != NULL && strcmp(serial, serial2) == 0);
    FUZZ_CHECK(tokenizer_vocab(again) == tokenizer_vocab(t));
    const char *body = strchr(text, '\n');
    exercise(t, body ? body + 1 : "");
    free(serial2);
    free(serial);
    tokenizer_free(again);
    tokenizer_free(t);
    free(text);
    return 0;
}
