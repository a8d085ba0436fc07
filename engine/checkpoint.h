/*
 * checkpoint.h — models to and from safetensors files (SPEC section 7):
 * tensors named as the model's parameter table, every model key of SPEC
 * section 1 in __metadata__ as a string plus "format": "mixbench", and the
 * tokenizer so that `generate` needs no data.
 *
 * One writer serves model checkpoints and the trainer's resumable ones
 * (engine/trainer.h), which add model-shaped arrays (the AdamW moments) as
 * extra tensors "<prefix><param name>" and a "train_state" metadata entry;
 * the model readers here ignore both.
 *
 * Not for: the training state itself (trainer.c owns its meaning).
 */
#ifndef MIXBENCH_CHECKPOINT_H
#define MIXBENCH_CHECKPOINT_H

#include <stdint.h>

#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/io/safetensors.h"
#include "engine/model.h"

typedef struct {
    const char *key, *value;
} CkptExtra;

/* Whose a checkpoint is (issue 23): a job writes these metadata entries
   with its checkpoints, and the store (db/ckpt_owner.h) reads them back
   before it records, resumes from or samples a file.  "config_hash" is
   written by checkpoint_write itself, for every checkpoint. */
#define CKPT_META_STORE_ID "store_id"      /* the store's id (store_info) */
#define CKPT_META_STORE_NAME "store"       /* the store file's name, for messages */
#define CKPT_META_RUN_ID "run_id"
#define CKPT_META_STEP "step"
#define CKPT_META_CONFIG_HASH "config_hash"
#define CKPT_HASH_LEN 17                   /* 16 hex digits and the NUL */

/* A hash of the model keys of c (the KEY_MODEL group of config.c's table,
   resolved as model_build stores them: pos, d_pair and emb_std), as 16 hex
   digits: equal for two configs that build the same model shape and init. */
void checkpoint_config_hash(const Config *c, char out[CKPT_HASH_LEN]);

/* A float array laid out like Model.w (e.g. an optimizer moment), stored as
   one tensor "<prefix><param name>" per parameter, shaped like it. */
typedef struct {
    const char *prefix;      /* e.g. "optim.m." */
    const float *data;       /* [n_floats], indexed like Model.w */
} CkptArray;

/* Writes m atomically; tok may be NULL; extra metadata entries optional. */
int checkpoint_save(const char *path, const Model *m, const Tokenizer *tok,
                    const CkptExtra *extra, int n_extra, char *err);
/* checkpoint_save plus n_arrays model-shaped arrays after the weights (the
   shared writer). */
int checkpoint_write(const char *path, const Model *m, const Tokenizer *tok, const CkptExtra *extra,
                     int n_extra, const CkptArray *arrays, int n_arrays, char *err);

/* Reads the config of a checkpoint into c (keys it lacks keep their
   defaults, unknown keys are ignored), builds the model and loads every
   tensor, checking names and shapes.  *tok (if tok is not NULL) receives the
   stored tokenizer or NULL when none was stored. */
int checkpoint_load(const char *path, Config *c, Model *m, Tokenizer **tok, char *err);

/* Reads only what a checkpoint says about its model (for --init): every
   model key stored in its metadata into c (keys it lacks keep c's values,
   unknown keys are ignored), and its tokenizer into *tok when tok is not
   NULL (NULL when none was stored). */
int checkpoint_read_config(const char *path, Config *c, Tokenizer **tok, char *err);

/* 0 when every model key (the KEY_MODEL group of config.c's table, pos and
   d_pair resolved as model_build does) of wanted equals stored's; else -1
   naming the first that differs, e.g. "d=64 contradicts the checkpoint's
   d=32" (wanted's value first). */
int checkpoint_config_agrees(const Config *stored, const Config *wanted, char *err);

/* Loads matching weights of a checkpoint into an already built model (for
   --init): every tensor of the model must be present with the same shape. */
int checkpoint_load_weights(const char *path, Model *m, char *err);

/* ---- pieces for readers that restore more than a model (trainer_resume):
   every check runs before anything is copied, so a reader can refuse a file
   without having changed its model. ---- */

/* 1 when the file at path holds a training state to resume from (its
   metadata has "train_state"; only the header is read), else 0. */
int checkpoint_is_resumable(const char *path);

/* Reads a whole mixbench checkpoint (st_read plus the "format" check). */
int checkpoint_open(const char *path, StFile *f, char *err);
/* 0 when every model key of SPEC section 1 stored in f (missing keys taking
   their defaults, pos and d_pair resolved as model_build does) equals m's;
   else -1 naming the first key that differs, e.g.
   "ckpt: the checkpoint has d=128 but this model has d=256". */
int checkpoint_check_config(const char *path, const StFile *f, const Model *m, char *err);
/* 0 when f holds "<prefix><name>" with the param's shape for every param of
   m (prefix "" = the weights). */
int checkpoint_check_tensors(const char *path, const StFile *f, const Model *m, const char *prefix,
                             char *err);
/* The data of "<prefix><name of param i>" (NULL when absent). */
const float *checkpoint_tensor(const StFile *f, const Model *m, int param, const char *prefix);
/* Copies every "<prefix><name>" tensor into dest, indexed like Model.w
   (after checkpoint_check_tensors said they are all there). */
void checkpoint_copy_tensors(const StFile *f, const Model *m, const char *prefix, float *dest);

#endif
