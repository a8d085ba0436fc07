/*
 * tests/fuzz/fuzz_ids.c — fuzzes the ids reader (engine/data/tokenizer_ids.c
 * through dataset_load with tokenizer=ids): corpora that already are token
 * ids, whitespace-separated decimal integers, in a folder or a single file
 * written from the input (fuzz_write_corpus).  The first two bytes give
 * the vocabulary (1..65536), the third picks folder or file.  For a corpus
 * it accepts, every id lies inside the vocabulary; a refused one names the
 * problem.  The same text also goes through tokenizer_encode of an ids
 * tokenizer (what `generate` does with a prompt).
 */
#include "engine/common.h"
#include "engine/data/data.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    DataOptions o;
    memset(&o, 0, sizeof o);
    o.tokenizer = "ids";
    o.vocab = 1 + (int)(data[0] | data[1] << 8);
    int folder = data[2] & 1;
    char spec[256];
    fuzz_write_corpus(data + 3, size - 3, folder, spec, sizeof spec);

    char err[ERR_LEN];
    Dataset ds;
    if (dataset_load(spec, &o, &ds, err) == 0) {
        FUZZ_CHECK(ds.vocab == o.vocab);
        for (int s = 0; s < SPLIT_COUNT; s++)
            for (size_t i = 0; i < ds.split[s].len; i++)
                FUZZ_CHECK(ds.split[s].ids[i] >= 0 && ds.split[s].ids[i] < ds.vocab);
        char *text = fuzz_cstring(data + 3, size - 3);
        int32_t *ids = NULL;
        size_t n = 0;
        if (tokenizer_encode(ds.tokenizer, text, &ids, &n, err) == 0) {
            for (size_t i = 0; i < n; i++) FUZZ_CHECK(ids[i] >= 0 && ids[i] < ds.vocab);
            free(ids);
        }
        free(text);
        dataset_free(&ds);
    } else {
        FUZZ_CHECK(ds.tokenizer == NULL && err[0] != '\0');
    }
    return 0;
}
