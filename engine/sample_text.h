/*
 * sample_text.h — the one sampling loop of `mixbench generate` and the
 * workbench's Generate screen: the prompt encoded and fed to a Generator
 * (engine/generate.h), then tokens drawn one by one (engine/sample.h) and
 * decoded; the text goes out piece by piece through a callback: first the
 * prompt itself (and a space after a word-level prompt, since word tokens
 * decode as "word "), then each sampled token's piece.
 *
 * Not for: where the text goes (the command prints it, the screen shows it).
 */
#ifndef MIXBENCH_SAMPLE_TEXT_H
#define MIXBENCH_SAMPLE_TEXT_H

#include <stdint.h>

#include "engine/data/data.h"
#include "engine/model.h"

typedef struct {
    const char *prompt;        /* "" starts a line: <eos> for word data, else the first id */
    int64_t length;            /* tokens to sample */
    double temperature;        /* 0: greedy */
    int top_k;                 /* 0: no cut */
    uint64_t seed;
} SampleRequest;

/* Called with each piece of text (the prompt first, then a token's piece
   with how many tokens are done); a non-zero return stops the loop. */
typedef int (*SampleEmit)(void *ctx, const char *piece, int64_t tokens_done);

/* Samples r->length tokens from the clm model m with tokenizer tok.
   *incremental (may be NULL) says whether tokens were added incrementally
   (engine/generate.h).  -1 with err when the prompt does not encode or
   memory runs out. */
int sample_text(const Model *m, const Tokenizer *tok, const SampleRequest *r, SampleEmit emit, void *ctx,
                int *incremental, char *err);

#endif
