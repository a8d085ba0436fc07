/*
 * config_data.c — the dataset a config names: c->data loaded with c's
 * tokenizer options (or a checkpoint's tokenizer), and c->vocab set from it.
 * Shared by `mixbench run`, `eval` and the runner's jobs.
 */
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"

int dataset_load_config(Config *c, const Tokenizer *tok, Dataset *ds, char *err)
{
    DataOptions o;
    memset(&o, 0, sizeof o);
    o.tokenizer = c->tokenizer[0] ? c->tokenizer : NULL;
    o.vocab = c->vocab;
    o.min_count = c->min_count;
    o.n_ctx = c->n_ctx;
    o.reuse = tok;
    if (dataset_load(c->data, &o, ds, err)) return -1;
    if (tok && ds->vocab != c->vocab)
        return err_set(err, "%s: the tokenizer gives %d ids but the model has vocab=%d", c->data, ds->vocab,
                       c->vocab);
    c->vocab = ds->vocab;
    return 0;
}
