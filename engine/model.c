/*
 * model.c — builds the parameter table of a model (names and shapes exactly
 * as SPEC section 7), initialises it (SPEC section 5), counts parameters and
 * FLOPs, and runs the embedding and output head.  Token embeddings are
 * N(0, emb_std) (config_emb_std: 1.0 for mixer and ema, 2 sqrt(n_ctx) for cumsum,
 * 0.02 otherwise); linear layers' weights (INIT_LINEAR) N(0, 0.02), or
 * N(0, 1/sqrt(fan_in)) under init=fan_in; every other normal init is
 * N(0, 0.02).  The blocks themselves are in engine/stack.c.
 */
#include "engine/model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"
#include "engine/rng.h"
#include "engine/sparse.h"
#include "engine/task.h"

typedef struct {
    Param *items;
    int count, cap;
    size_t floats;
} ParamList;

static int add_param(ParamList *pl, const char *name, int ndim, int64_t r, int64_t c,
                     int init, int decay, int embedding, int dense, int sparse_rows)
{
    if (pl->count == pl->cap) {
        int cap = pl->cap ? pl->cap * 2 : 64;
        Param *items = realloc(pl->items, sizeof(Param) * cap);
        if (!items) return -1;
        pl->items = items;
        pl->cap = cap;
    }
    Param *p = &pl->items[pl->count];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = ndim;
    p->shape[0] = r;
    p->shape[1] = ndim > 1 ? c : 1;
    p->numel = (size_t)r * (size_t)(ndim > 1 ? c : 1);
    p->offset = pl->floats;
    /* 16-float alignment keeps every tensor on a 64-byte boundary */
    pl->floats += (p->numel + 15) & ~(size_t)15;
    p->init = init;
    p->decay = decay;
    p->embedding = embedding;
    p->dense = dense;
    p->sparse_rows = sparse_rows;
    return pl->count++;
}

static int add_ln(ParamList *pl, const char *prefix, const char *ln, int d, int *wi, int *bi)
{
    char name[96];
    snprintf(name, sizeof name, "%.60s%.20s.w", prefix, ln);
    *wi = add_param(pl, name, 1, d, 1, INIT_ONE, 0, 0, 0, 0);
    snprintf(name, sizeof name, "%.60s%.20s.b", prefix, ln);
    *bi = add_param(pl, name, 1, d, 1, INIT_ZERO, 0, 0, 0, 0);
    return (*wi < 0 || *bi < 0) ? -1 : 0;
}

/* A linear layer's weight [out, in]: fan_in is in, what each output sums over. */
static double linear_std(const Config *c, const Param *p)
{
    assert(p->ndim == 2 && p->shape[1] > 0);
    return c->init == WEIGHT_INIT_FAN_IN ? 1.0 / sqrt((double)p->shape[1]) : 0.02;
}

static void init_params(Model *m)
{
    double inv_sqrt_n = 1.0 / sqrt((double)m->cfg.n_ctx);
    double emb_std = config_emb_std(&m->cfg);
    for (int i = 0; i < m->n_params; i++) {
        Param *p = &m->params[i];
        float *w = m->w + p->offset;
        Rng rng;
        rng_seed(&rng, (uint64_t)m->cfg.seed ^ rng_hash_string(p->name));
        double lin_std = p->init == INIT_LINEAR ? linear_std(&m->cfg, p) : 0;
        for (size_t j = 0; j < p->numel; j++) {
            switch (p->init) {
            case INIT_NORMAL: w[j] = (float)(0.02 * rng_normal(&rng)); break;
            case INIT_LINEAR: w[j] = (float)(lin_std * rng_normal(&rng)); break;
            case INIT_TOKEN_EMB: w[j] = (float)(emb_std * rng_normal(&rng)); break;
            case INIT_ONE: w[j] = 1.0f; break;
            case INIT_UNIFORM_INV_SQRT_N:
                w[j] = (float)((2.0 * rng_double(&rng) - 1.0) * inv_sqrt_n);
                break;
            case INIT_UNIFORM_INV_SQRT_FAN:
                w[j] = (float)((2.0 * rng_double(&rng) - 1.0) / sqrt((double)p->shape[p->ndim - 1]));
                break;
            case INIT_S4D_REAL: w[j] = (float)log(1.0 + (double)(j % (size_t)p->shape[1])); break;
            case INIT_DT_BIAS: {
                double dt = fmax(exp(log(1e-3) + rng_double(&rng) * (log(1e-1) - log(1e-3))), 1e-4);
                w[j] = (float)(dt + log(-expm1(-dt))); /* softplus^-1(dt) = log(e^dt - 1) */
                break;
            }
            default: w[j] = 0.0f;
            }
        }
    }
}

/* The parameter table of c; with allocate, also the weights, the mixers'
   state and the sinusoid table (model_build), else nothing big (model_plan). */
static int model_make(Model *m, const Config *c, int allocate, char *err)
{
    memset(m, 0, sizeof *m);
    m->cfg = *c;
    /* store resolved values, so checkpoint metadata says what was built */
    m->cfg.pos = config_pos(c);
    m->cfg.emb_std = config_emb_std(c);
    if (m->cfg.d_pair == 0) m->cfg.d_pair = c->d;
    m->mixer = mixer_find(c->arch);
    m->task = task_find(c->task);
    if (!m->mixer) return err_set(err, "unknown architecture '%s'", c->arch);
    if (!m->task) return err_set(err, "unknown task '%s'", c->task);
    m->pos = config_pos(c);
    int d = c->d, n = c->n_ctx, V = c->vocab, dff = c->ffn_mult * c->d;
    ParamList pl = {0};
    char name[96];
    int bad = 0;

    m->tok_emb = add_param(&pl, "tok_emb", 2, V, d, INIT_TOKEN_EMB, 0, 1, 0, 0);
    StackSpec specs[MODEL_MAX_STACKS];
    m->n_stacks = m->task->stacks(c, m->mixer, specs);
    ParamDecl decl[MIX_MAX_PARAMS];
    for (int s = 0; s < m->n_stacks; s++) {
        Stack *st = &m->stacks[s];
        memcpy(st->prefix, specs[s].prefix, sizeof st->prefix);
        st->causal = specs[s].causal;
        st->pos_emb = -1;
        if (m->pos == POS_LEARNED) {
            snprintf(name, sizeof name, "%spos_emb", st->prefix);
            st->pos_emb = add_param(&pl, name, 2, n, d, INIT_NORMAL, 0, 1, 0, 0);
        }
        st->blocks = calloc((size_t)c->layers, sizeof(BlockParams));
        if (!st->blocks) { bad = 1; break; }
        for (int l = 0; l < c->layers; l++) {
            BlockParams *bp = &st->blocks[l];
            char pre[64];
            snprintf(pre, sizeof pre, "%sblocks.%d.", st->prefix, l);
            bp->ln1_w = bp->ln1_b = bp->ln2_w = bp->ln2_b = -1;
            if (c->norm != NORM_NONE) bad |= add_ln(&pl, pre, "ln1", d, &bp->ln1_w, &bp->ln1_b);
            int nd = m->mixer->declare(c, decl);
            bp->n_mix = nd;
            bp->mix0 = pl.count;
            for (int k = 0; k < nd; k++) {
                snprintf(name, sizeof name, "%.60smix.%.30s", pre, decl[k].name);
                int emb = decl[k].sparse_rows;
                int pi = add_param(&pl, name, decl[k].ndim, decl[k].shape[0], decl[k].shape[1],
                                   decl[k].init, decl[k].decay, emb, decl[k].dense, decl[k].sparse_rows);
                if (pi < 0) bad = 1;
                else {
                    pl.items[pi].rows_per_sample = decl[k].rows_per_sample;
                    /* adjacent in memory to the next of its kind (sparse_layout) */
                    pl.items[pi].packed = k + 1 < nd && !decl[k + 1].sparse_rows == !decl[k].sparse_rows;
                }
            }
            if (c->norm != NORM_NONE) bad |= add_ln(&pl, pre, "ln2", d, &bp->ln2_w, &bp->ln2_b);
            snprintf(name, sizeof name, "%sffn.w1", pre);
            bp->w1 = add_param(&pl, name, 2, dff, d, INIT_LINEAR, 1, 0, 1, 0);
            snprintf(name, sizeof name, "%sffn.b1", pre);
            bp->b1 = add_param(&pl, name, 1, dff, 1, INIT_ZERO, 0, 0, 0, 0);
            snprintf(name, sizeof name, "%sffn.w2", pre);
            bp->w2 = add_param(&pl, name, 2, d, dff, INIT_LINEAR, 1, 0, 1, 0);
            snprintf(name, sizeof name, "%sffn.b2", pre);
            bp->b2 = add_param(&pl, name, 1, d, 1, INIT_ZERO, 0, 0, 0, 0);
            if (allocate && m->mixer->create) {
                bp->mix_state = m->mixer->create(c, err);
                if (!bp->mix_state) { bad = 2; break; }
            }
        }
        st->lnf_w = st->lnf_b = -1;
        if (c->norm != NORM_NONE) {
            snprintf(name, sizeof name, "%sln_f", st->prefix);
            bad |= add_ln(&pl, "", name, d, &st->lnf_w, &st->lnf_b);
        }
        if (bad) break;
    }
    if (!c->tie) m->head_w = add_param(&pl, "lm_head.w", 2, V, d, INIT_LINEAR, 1, 0, 1, 0);
    else m->head_w = m->tok_emb;
    m->head_b = add_param(&pl, "lm_head.b", 1, V, 1, INIT_ZERO, 0, 0, 0, 0);
    m->params = pl.items;
    m->n_params = pl.count;
    m->n_floats = pl.floats;
    if (bad || m->head_b < 0) {
        int had_msg = bad == 2;
        model_free(m);
        return had_msg ? -1 : err_set(err, "out of memory building the model");
    }
    sparse_layout(m);   /* sparse_rows params after the dense ones (engine/sparse.h) */
    if (!allocate) return 0;
    m->w = aligned_alloc(64, sizeof(float) * (m->n_floats ? m->n_floats : 16));
    if (!m->w) {
        model_free(m);
        return err_set(err, "out of memory: %zu parameters", m->n_floats);
    }
    memset(m->w, 0, sizeof(float) * m->n_floats);
    if (m->pos == POS_SINUSOIDAL) {
        m->sinusoid = malloc(sizeof(float) * (size_t)n * d);
        if (!m->sinusoid) {
            model_free(m);
            return err_set(err, "out of memory");
        }
        for (int t = 0; t < n; t++)
            for (int i = 0; 2 * i < d; i++) {
                double freq = pow(10000.0, -(2.0 * i) / d);
                m->sinusoid[(size_t)t * d + 2 * i] = (float)sin(t * freq);
                if (2 * i + 1 < d) m->sinusoid[(size_t)t * d + 2 * i + 1] = (float)cos(t * freq);
            }
    }
    init_params(m);
    return 0;
}

int model_build(Model *m, const Config *c, char *err) { return model_make(m, c, 1, err); }

int model_plan(Model *m, const Config *c, char *err) { return model_make(m, c, 0, err); }

void model_free(Model *m)
{
    for (int s = 0; s < m->n_stacks; s++) {
        Stack *st = &m->stacks[s];
        if (!st->blocks) continue;
        for (int l = 0; l < m->cfg.layers; l++)
            if (st->blocks[l].mix_state && m->mixer->destroy) m->mixer->destroy(st->blocks[l].mix_state);
        free(st->blocks);
    }
    free(m->params);
    free(m->w);
    free(m->sinusoid);
    memset(m, 0, sizeof *m);
}

int model_find_param(const Model *m, const char *name)
{
    for (int i = 0; i < m->n_params; i++)
        if (strcmp(m->params[i].name, name) == 0) return i;
    return -1;
}

int64_t model_count_params(const Model *m, int64_t *non_embedding)
{
    int64_t total = 0, nonemb = 0;
    for (int i = 0; i < m->n_params; i++) {
        total += (int64_t)m->params[i].numel;
        if (!m->params[i].embedding) nonemb += (int64_t)m->params[i].numel;
    }
    if (non_embedding) *non_embedding = nonemb;
    return total;
}

int64_t model_dense_params(const Model *m)
{
    int64_t dense = 0;
    for (int i = 0; i < m->n_params; i++)
        if (m->params[i].dense) dense += (int64_t)m->params[i].numel;
    if (m->cfg.tie) dense += (int64_t)m->params[m->tok_emb].numel;
    return dense;
}

double model_train_flops_per_token(const Model *m)
{
    double f = 6.0 * (double)model_dense_params(m);
    for (int s = 0; s < m->n_stacks; s++)
        f += m->cfg.layers * m->mixer->extra_flops_per_token(&m->cfg, m->stacks[s].causal);
    return f;
}

void embed_forward(const Model *m, int stack, float *x0, const int32_t *tokens, int B)
{
    assert(stack >= 0 && stack < m->n_stacks && B > 0);
    int n = m->cfg.n_ctx, d = m->cfg.d;
    const float *emb = model_param(m, m->tok_emb);
    const Stack *st = &m->stacks[stack];
    const float *pos = st->pos_emb >= 0 ? model_param(m, st->pos_emb) : m->sinusoid;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++) {
            float *row = x0 + ((size_t)b * n + t) * d;
            assert(tokens[b * n + t] >= 0 && tokens[b * n + t] < m->cfg.vocab);
            const float *e = emb + (size_t)tokens[b * n + t] * d;
            if (pos) vec_add(row, e, pos + (size_t)t * d, d);
            else memcpy(row, e, sizeof(float) * d);
        }
}

void embed_backward(const Model *m, int stack, float *grads, const float *dx0,
                    const int32_t *tokens, int B)
{
    int n = m->cfg.n_ctx, d = m->cfg.d;
    float *demb = grads + m->params[m->tok_emb].offset;
    const Stack *st = &m->stacks[stack];
    float *dpos = st->pos_emb >= 0 ? grads + m->params[st->pos_emb].offset : NULL;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < n; t++) {
            const float *row = dx0 + ((size_t)b * n + t) * d;
            vec_acc(demb + (size_t)tokens[b * n + t] * d, row, d);
            if (dpos) vec_acc(dpos + (size_t)t * d, row, d);
        }
}

void head_forward(const Model *m, struct Gemm *g, float *logits, const float *rows, int N, int with_bias)
{
    linear_forward(g, logits, rows, model_param(m, m->head_w), with_bias ? model_param(m, m->head_b) : NULL, N,
                   m->cfg.d, m->cfg.vocab);
}

void head_backward(const Model *m, struct Gemm *g, float *grads, float *drows, const float *dlogits,
                   const float *rows, int N, int with_bias)
{
    linear_backward(g, drows, grads + m->params[m->head_w].offset,
                    with_bias ? grads + m->params[m->head_b].offset : NULL, dlogits, rows,
                    model_param(m, m->head_w), N, m->cfg.d, m->cfg.vocab, 0);
}
