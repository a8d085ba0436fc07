/*
 * checkpoint.h — models to and from safetensors files (SPEC section 7):
 * tensors named as the model's parameter table, every model key of SPEC
 * section 1 in __metadata__ as a string plus "format": "mixbench", and the
 * tokenizer so that `generate` needs no data.
 */
#ifndef MIXBENCH_CHECKPOINT_H
#define MIXBENCH_CHECKPOINT_H

#include <stdint.h>

#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/model.h"

typedef struct {
    const char *key, *value;
} CkptExtra;

/* Writes m atomically; tok may be NULL; extra metadata entries optional. */
int checkpoint_save(const char *path, const Model *m, const Tokenizer *tok,
                    const CkptExtra *extra, int n_extra, char *err);

/* Reads the config of a checkpoint into c (keys it lacks keep their
   defaults, unknown keys are ignored), builds the model and loads every
   tensor, checking names and shapes.  *tok (if tok is not NULL) receives the
   stored tokenizer or NULL when none was stored. */
int checkpoint_load(const char *path, Config *c, Model *m, Tokenizer **tok, char *err);

/* Loads matching weights of a checkpoint into an already built model (for
   --init): every tensor of the model must be present with the same shape. */
int checkpoint_load_weights(const char *path, Model *m, char *err);

#endif
