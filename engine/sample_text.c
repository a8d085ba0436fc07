/*
 * sample_text.c — the sampling loop of sample_text.h.
 */
#include "engine/sample_text.h"

#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/generate.h"
#include "engine/rng.h"
#include "engine/sample.h"

int sample_text(const Model *m, const Tokenizer *tok, const SampleRequest *r, SampleEmit emit, void *ctx,
                int *incremental, char *err)
{
    int V = m->cfg.vocab;
    int32_t *ids = NULL;
    size_t n_prompt = 0;
    if (tokenizer_encode(tok, r->prompt, &ids, &n_prompt, err)) return -1;
    Generator *g = NULL;
    float *work = malloc(sizeof(float) * 2 * (size_t)V);
    if (!work || generator_create(&g, m, 1, err)) {
        if (!work) err_set(err, "generate: out of memory");
        free(work);
        free(ids);
        return -1;
    }
    if (incremental) *incremental = generator_is_incremental(g);
    size_t plen = strlen(r->prompt);
    int stop = emit(ctx, r->prompt, 0);
    if (!stop && tokenizer_kind(tok) == TOKENIZER_WORD && plen && r->prompt[plen - 1] != ' ' &&
        r->prompt[plen - 1] != '\n')
        stop = emit(ctx, " ", 0);
    for (size_t i = 0; i + 1 < n_prompt && !stop; i++) generator_feed(g, ids[i]);
    const float *logits = generator_push(g, n_prompt ? ids[n_prompt - 1] : sample_start_token(V));
    Rng rng;
    rng_seed(&rng, r->seed);
    char piece[1024];
    for (int64_t k = 0; k < r->length && !stop; k++) {
        memcpy(work, logits, sizeof(float) * V);
        int32_t id = sample_token(work, V, r->temperature, r->top_k, &rng, work + V);
        tokenizer_decode_one(tok, id, piece, sizeof piece);
        stop = emit(ctx, piece, k + 1);
        if (!stop && k + 1 < r->length) logits = generator_push(g, id);
    }
    generator_free(g);
    free(work);
    free(ids);
    return 0;
}
