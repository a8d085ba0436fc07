/*
 * sample.h — choosing the next token from a causal model's logits, shared
 * by `mixbench generate` and the workbench's Generate screen: greedy at
 * temperature 0, else softmax sampling at a temperature, optionally over
 * the top k logits only.  Ids 0 and 1 (PAD and MASK) are reserved and never
 * drawn.
 *
 * Not for: computing logits (engine/generate.h) or decoding ids to text
 * (the tokenizer).
 */
#ifndef MIXBENCH_SAMPLE_H
#define MIXBENCH_SAMPLE_H

#include <stdint.h>

#include "engine/rng.h"

/* Draws an id from logits [V], which it overwrites (reserved ids and those
   below the top-k cut become -inf).  temperature 0: the arg max, no draw.
   top_k 0 (or >= V): no cut.  scratch holds V floats (used only when
   0 < top_k < V; may be NULL otherwise). */
int32_t sample_token(float *logits, int V, double temperature, int top_k, Rng *rng, float *scratch);

/* The id that starts a sequence when the prompt is empty: <eos> (id 3) for
   vocabularies that have one past the reserved ids, else id 2. */
int32_t sample_start_token(int V);

#endif
