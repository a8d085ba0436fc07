/*
 * checkpoint.c — save and load models as safetensors (checkpoint.h).
 */
#include "engine/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/io/safetensors.h"

int checkpoint_save(const char *path, const Model *m, const Tokenizer *tok,
                    const CkptExtra *extra, int n_extra, char *err)
{
    int n_keys = config_key_count();
    int cap = n_keys + 4 + n_extra;
    StMeta *meta = calloc((size_t)cap, sizeof(StMeta));
    char (*values)[1100] = calloc((size_t)n_keys, sizeof *values);
    StTensorRef *tensors = calloc((size_t)m->n_params, sizeof(StTensorRef));
    char *tok_text = tok ? tokenizer_serialize(tok) : NULL;
    int rc = -1;
    if (!meta || !values || !tensors || (tok && !tok_text)) {
        err_set(err, "out of memory writing %s", path);
        goto done;
    }
    int nm = 0;
    meta[nm++] = (StMeta){"format", "mixbench"};
    for (int i = 0; i < n_keys; i++) {
        if (config_key_group(i) != KEY_MODEL) continue;
        config_get(&m->cfg, config_key_name(i), values[i], sizeof values[i]);
        meta[nm++] = (StMeta){config_key_name(i), values[i]};
    }
    if (tok_text) meta[nm++] = (StMeta){"tokenizer", tok_text};
    for (int i = 0; i < n_extra; i++) meta[nm++] = (StMeta){extra[i].key, extra[i].value};
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        tensors[i].name = p->name;
        tensors[i].ndim = p->ndim;
        tensors[i].shape[0] = p->shape[0];
        tensors[i].shape[1] = p->shape[1];
        tensors[i].data = m->w + p->offset;
    }
    rc = st_write(path, meta, nm, tensors, m->n_params, err);
done:
    free(meta);
    free(values);
    free(tensors);
    free(tok_text);
    return rc;
}

static int copy_tensors(const char *path, const StFile *f, Model *m, char *err)
{
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        const StTensor *t = st_find(f, p->name);
        if (!t) return err_set(err, "%s: tensor %s is missing", path, p->name);
        int ok = t->ndim == p->ndim && t->shape[0] == p->shape[0] &&
                 (p->ndim < 2 || t->shape[1] == p->shape[1]);
        if (!ok)
            return err_set(err, "%s: tensor %s has shape [%lld%s%lld] but the model needs [%lld%s%lld]", path,
                           p->name, (long long)t->shape[0], t->ndim > 1 ? "," : "",
                           t->ndim > 1 ? (long long)t->shape[1] : 0LL, (long long)p->shape[0],
                           p->ndim > 1 ? "," : "", p->ndim > 1 ? (long long)p->shape[1] : 0LL);
        memcpy(m->w + p->offset, t->data, sizeof(float) * p->numel);
    }
    return 0;
}

int checkpoint_load(const char *path, Config *c, Model *m, Tokenizer **tok, char *err)
{
    StFile f;
    if (tok) *tok = NULL;
    if (st_read(path, &f, err)) return -1;
    int rc = -1;
    const char *format = st_meta(&f, "format");
    if (!format || strcmp(format, "mixbench") != 0) {
        err_set(err, "%s: not a mixbench checkpoint (metadata \"format\" is %s)", path,
                format ? format : "missing");
        goto done;
    }
    for (int i = 0; i < f.n_meta; i++) {
        int idx = -1;
        for (int k = 0; k < config_key_count(); k++)
            if (!strcmp(config_key_name(k), f.meta_keys[i]) && config_key_group(k) == KEY_MODEL) idx = k;
        if (idx < 0) continue;
        char e[ERR_LEN];
        if (config_set(c, f.meta_keys[i], f.meta_values[i], e)) {
            err_set(err, "%s: %s", path, e);
            goto done;
        }
    }
    char e[ERR_LEN];
    if (config_validate(c, e)) {
        err_set(err, "%s: %s", path, e);
        goto done;
    }
    if (model_build(m, c, err)) goto done;
    if (copy_tensors(path, &f, m, err)) {
        model_free(m);
        goto done;
    }
    const char *tok_text = st_meta(&f, "tokenizer");
    if (tok && tok_text) {
        *tok = tokenizer_deserialize(tok_text, e);
        if (!*tok) {
            err_set(err, "%s: stored tokenizer: %s", path, e);
            model_free(m);
            goto done;
        }
    }
    rc = 0;
done:
    st_free(&f);
    return rc;
}

int checkpoint_load_weights(const char *path, Model *m, char *err)
{
    StFile f;
    if (st_read(path, &f, err)) return -1;
    int rc = copy_tensors(path, &f, m, err);
    st_free(&f);
    return rc;
}
