/*
 * checkpoint.c — save and load models as safetensors (checkpoint.h).  The
 * writer lays out the weights, then any model-shaped arrays; the readers
 * find tensors by name, so they skip whatever else a file holds.
 */
#include "engine/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"

/* "<prefix><param name>" fits: names are < 96 bytes, prefixes short. */
#define CKPT_NAME_LEN 160

/* The model keys as model_build stores them (pos and d_pair resolved), so
   that a file lacking them, or a config leaving them at "default", compares
   equal to what the model would be. */
static void resolve_model_keys(Config *c)
{
    c->pos = config_pos(c);
    if (c->d_pair == 0) c->d_pair = c->d;
}

void checkpoint_config_hash(const Config *c, char out[CKPT_HASH_LEN])
{
    Config r = *c;
    resolve_model_keys(&r);
    r.emb_std = config_emb_std(&r);
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a, 64 bits */
    char line[1200], value[1100];
    for (int k = 0; k < config_key_count(); k++) {
        if (config_key_group(k) != KEY_MODEL) continue;
        config_get(&r, config_key_name(k), value, sizeof value);
        int n = snprintf(line, sizeof line, "%s=%s\n", config_key_name(k), value);
        for (int i = 0; i < n && i < (int)sizeof line; i++) h = (h ^ (unsigned char)line[i]) * 0x100000001b3ull;
    }
    snprintf(out, CKPT_HASH_LEN, "%016llx", (unsigned long long)h);
}

int checkpoint_write(const char *path, const Model *m, const Tokenizer *tok, const CkptExtra *extra,
                     int n_extra, const CkptArray *arrays, int n_arrays, char *err)
{
    int n_keys = config_key_count();
    int cap = n_keys + 5 + n_extra;
    int n_tensors = m->n_params * (1 + n_arrays);
    StMeta *meta = calloc((size_t)cap, sizeof(StMeta));
    char (*values)[1100] = calloc((size_t)n_keys, sizeof *values);
    StTensorRef *tensors = calloc((size_t)(n_tensors ? n_tensors : 1), sizeof(StTensorRef));
    char (*names)[CKPT_NAME_LEN] = calloc((size_t)(n_tensors ? n_tensors : 1), sizeof *names);
    char *tok_text = tok ? tokenizer_serialize(tok) : NULL;
    int rc = -1;
    if (!meta || !values || !tensors || !names || (tok && !tok_text)) {
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
    char hash[CKPT_HASH_LEN];
    checkpoint_config_hash(&m->cfg, hash);
    meta[nm++] = (StMeta){CKPT_META_CONFIG_HASH, hash};
    for (int i = 0; i < n_extra; i++) meta[nm++] = (StMeta){extra[i].key, extra[i].value};
    for (int a = -1; a < n_arrays; a++) {
        const float *base = a < 0 ? m->w : arrays[a].data;
        for (int i = 0; i < m->n_params; i++) {
            const Param *p = &m->params[i];
            StTensorRef *t = &tensors[(a + 1) * m->n_params + i];
            char *name = names[(a + 1) * m->n_params + i];
            snprintf(name, CKPT_NAME_LEN, "%s%s", a < 0 ? "" : arrays[a].prefix, p->name);
            t->name = name;
            t->ndim = p->ndim;
            t->shape[0] = p->shape[0];
            t->shape[1] = p->shape[1];
            t->data = base + p->offset;
        }
    }
    rc = st_write(path, meta, nm, tensors, n_tensors, err);
done:
    free(meta);
    free(values);
    free(tensors);
    free(names);
    free(tok_text);
    return rc;
}

int checkpoint_save(const char *path, const Model *m, const Tokenizer *tok,
                    const CkptExtra *extra, int n_extra, char *err)
{
    return checkpoint_write(path, m, tok, extra, n_extra, NULL, 0, err);
}

int checkpoint_is_resumable(const char *path)
{
    StFile f;
    char err[ERR_LEN];
    if (st_read_meta(path, &f, err)) return 0;
    int yes = st_meta(&f, "train_state") != NULL;
    st_free(&f);
    return yes;
}

int checkpoint_open(const char *path, StFile *f, char *err)
{
    if (st_read(path, f, err)) return -1;
    const char *format = st_meta(f, "format");
    if (!format || strcmp(format, "mixbench") != 0) {
        err_set(err, "%s: not a mixbench checkpoint (metadata \"format\" is %s)", path,
                format ? format : "missing");
        st_free(f);
        return -1;
    }
    return 0;
}

/* Applies every model key stored in f's metadata to c. */
static int read_config(const char *path, const StFile *f, Config *c, char *err)
{
    for (int i = 0; i < f->n_meta; i++) {
        int idx = -1;
        for (int k = 0; k < config_key_count(); k++)
            if (!strcmp(config_key_name(k), f->meta_keys[i]) && config_key_group(k) == KEY_MODEL) idx = k;
        if (idx < 0) continue;
        char e[ERR_LEN];
        if (config_set(c, f->meta_keys[i], f->meta_values[i], e)) return err_set(err, "%s: %s", path, e);
    }
    return 0;
}

/* Index of the first model key on which a and b differ (their values as
   text in va, vb), or -1. */
static int first_model_difference(const Config *a, const Config *b, char *va, char *vb, int cap)
{
    for (int k = 0; k < config_key_count(); k++) {
        if (config_key_group(k) != KEY_MODEL) continue;
        config_get(a, config_key_name(k), va, cap);
        config_get(b, config_key_name(k), vb, cap);
        if (strcmp(va, vb)) return k;
    }
    return -1;
}

int checkpoint_check_config(const char *path, const StFile *f, const Model *m, char *err)
{
    Config stored;
    config_defaults(&stored);
    if (read_config(path, f, &stored, err)) return -1;
    resolve_model_keys(&stored);
    char have[1100], want[1100];
    int k = first_model_difference(&stored, &m->cfg, have, want, sizeof have);
    if (k >= 0)
        return err_set(err, "%s: the checkpoint has %s=%s but this model has %s=%s", path, config_key_name(k), have,
                       config_key_name(k), want);
    return 0;
}

int checkpoint_read_config(const char *path, Config *c, Tokenizer **tok, char *err)
{
    StFile f;
    if (tok) *tok = NULL;
    if (checkpoint_open(path, &f, err)) return -1;
    int rc = read_config(path, &f, c, err);
    const char *tok_text = st_meta(&f, "tokenizer");
    if (rc == 0 && tok && tok_text) {
        char e[ERR_LEN];
        *tok = tokenizer_deserialize(tok_text, e);
        if (!*tok) rc = err_set(err, "%s: stored tokenizer: %s", path, e);
    }
    st_free(&f);
    return rc;
}

int checkpoint_config_agrees(const Config *stored, const Config *wanted, char *err)
{
    Config a = *stored, b = *wanted;
    resolve_model_keys(&a);
    resolve_model_keys(&b);
    char have[1100], want[1100];
    int k = first_model_difference(&a, &b, have, want, sizeof have);
    if (k >= 0)
        return err_set(err, "%s=%s contradicts the checkpoint's %s=%s", config_key_name(k), want, config_key_name(k),
                       have);
    return 0;
}

static const StTensor *find_tensor(const StFile *f, const Model *m, int param, const char *prefix)
{
    char name[CKPT_NAME_LEN];
    snprintf(name, sizeof name, "%s%s", prefix, m->params[param].name);
    return st_find(f, name);
}

int checkpoint_check_tensors(const char *path, const StFile *f, const Model *m, const char *prefix,
                             char *err)
{
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        const StTensor *t = find_tensor(f, m, i, prefix);
        if (!t) return err_set(err, "%s: tensor %s%s is missing", path, prefix, p->name);
        int ok = t->ndim == p->ndim && t->shape[0] == p->shape[0] &&
                 (p->ndim < 2 || t->shape[1] == p->shape[1]);
        if (!ok)
            return err_set(err, "%s: tensor %s%s has shape [%lld%s%lld] but the model needs [%lld%s%lld]", path,
                           prefix, p->name, (long long)t->shape[0], t->ndim > 1 ? "," : "",
                           t->ndim > 1 ? (long long)t->shape[1] : 0LL, (long long)p->shape[0],
                           p->ndim > 1 ? "," : "", p->ndim > 1 ? (long long)p->shape[1] : 0LL);
    }
    return 0;
}

const float *checkpoint_tensor(const StFile *f, const Model *m, int param, const char *prefix)
{
    const StTensor *t = find_tensor(f, m, param, prefix);
    return t ? t->data : NULL;
}

void checkpoint_copy_tensors(const StFile *f, const Model *m, const char *prefix, float *dest)
{
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        memcpy(dest + p->offset, checkpoint_tensor(f, m, i, prefix), sizeof(float) * p->numel);
    }
}

int checkpoint_load(const char *path, Config *c, Model *m, Tokenizer **tok, char *err)
{
    StFile f;
    if (tok) *tok = NULL;
    if (checkpoint_open(path, &f, err)) return -1;
    int rc = -1;
    char e[ERR_LEN];
    if (read_config(path, &f, c, err)) goto done;
    if (config_validate(c, e)) {
        err_set(err, "%s: %s", path, e);
        goto done;
    }
    if (model_build(m, c, err)) goto done;
    if (checkpoint_check_tensors(path, &f, m, "", err)) {
        model_free(m);
        goto done;
    }
    checkpoint_copy_tensors(&f, m, "", m->w);
    const char *tok_text = st_meta(&f, "tokenizer");
    if (tok && tok_text) {
        *tok = tokenizer_deserialize(tok_text, e);
        if (!*tok) {
            err_set(err, "%s: stored tokenizer: %s", path, e);
            model_free(m);
            goto done;
        }
        /* its ids index the model's embedding: a tokenizer larger than the
           model (a hand-made file) made `generate --prompt` read outside
           tok_emb (found by tests/fuzz/fuzz_checkpoint.c) */
        if (tokenizer_vocab(*tok) > m->cfg.vocab) {
            err_set(err, "%s: the stored tokenizer has %d ids but the model has vocab=%d", path,
                    tokenizer_vocab(*tok), m->cfg.vocab);
            tokenizer_free(*tok);
            *tok = NULL;
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
    int rc = checkpoint_check_tensors(path, &f, m, "", err);
    if (rc == 0) checkpoint_copy_tensors(&f, m, "", m->w);
    st_free(&f);
    return rc;
}
