/*
 * generate.h — next-token logits for one growing sequence (batch 1), for
 * `mixbench generate` and the inference bench.  While the sequence fits in
 * n_ctx and every mixer has forward_step, each new token costs one position
 * of work (attention reads its key/value cache, cumsum a running sum, ...);
 * otherwise (a mixer without it, or a window that slides past n_ctx) the
 * logits come from a full forward pass over the last n_ctx tokens.  Both
 * paths give the same logits to float rounding.  Both run on engine/infer.h
 * (FFN and head weights packed once at generator_create; a token is GEMVs,
 * with no allocation or packing).
 */
#ifndef MIXBENCH_GENERATE_H
#define MIXBENCH_GENERATE_H

#include <stdint.h>

#include "engine/model.h"

typedef struct Generator Generator;

/* For a model whose task is clm (single causal stack). */
int generator_create(Generator **out, const Model *m, int incremental, char *err);
void generator_free(Generator *g);
/* Starts a new sequence. */
void generator_reset(Generator *g);
/* Appends a token; returns the logits [V] predicting the next one (valid
   until the next call). */
const float *generator_push(Generator *g, int32_t token);
/* Appends a token whose logits are not wanted (a prompt's, before its last):
   the caches take it as generator_push does, while a mixer without them
   recomputes nothing until the next push, so a prompt of P tokens costs one
   full window rather than P. */
void generator_feed(Generator *g, int32_t token);
/* 1 when tokens are being added incrementally (not recomputed). */
int generator_is_incremental(const Generator *g);

#endif
