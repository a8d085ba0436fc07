/*
 * generate.c — the per-position forward pass of generate.h: the same
 * skeleton as engine/stack.c, one row at a time, with each block's mixer
 * reading and extending its cache through MixerOps.forward_step.
 */
#include "engine/generate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"
#include "engine/task.h"

struct Generator {
    const Model *m;
    int incremental;        /* every mixer has forward_step and it was asked for */
    int32_t *seq;           /* every token pushed, [cap] */
    size_t len, cap;
    float **cache;          /* per block */
    float *scratch;
    float *x, *a, *mix, *s1, *x1, *b, *h, *ha, *f, *s2, *out, *stat;  /* one row each */
    float *logits;          /* [V] */
    Work work;              /* the full-window fallback (B = 1) */
};

int generator_create(Generator **out, const Model *m, int incremental, char *err)
{
    *out = NULL;
    if (m->n_stacks != 1 || !m->stacks[0].causal)
        return err_set(err, "generation needs a single causal stack (task clm), not task %s", m->cfg.task);
    Generator *g = calloc(1, sizeof *g);
    if (!g) return err_set(err, "out of memory");
    g->m = m;
    const Config *c = &m->cfg;
    int d = c->d, dff = c->ffn_mult * c->d, L = c->layers;
    g->incremental = incremental && m->mixer->forward_step && m->mixer->cache_floats;
    g->cap = 1024 > 2 * (size_t)c->n_ctx ? 1024 : 2 * (size_t)c->n_ctx;
    g->seq = malloc(sizeof(int32_t) * g->cap);
    g->cache = calloc((size_t)L, sizeof(float *));
    size_t row_floats = 10 * (size_t)d + 2 * (size_t)dff + 2 + (size_t)c->vocab;
    float *rows = calloc(row_floats, sizeof(float));
    size_t scratch = m->mixer->scratch_floats(c, 1);
    g->scratch = scratch ? calloc(scratch, sizeof(float)) : NULL;
    int bad = !g->seq || !g->cache || !rows || (scratch && !g->scratch);
    if (!bad && g->incremental)
        for (int l = 0; l < L && !bad; l++) {
            size_t cf = m->mixer->cache_floats(c);
            g->cache[l] = calloc(cf ? cf : 1, sizeof(float));
            bad = !g->cache[l];
        }
    if (bad || work_alloc(&g->work, m, 1, 0, err)) {
        free(rows);
        generator_free(g);
        return bad ? err_set(err, "out of memory for generation") : -1;
    }
    float *p = rows;
    g->x = p, p += d;
    g->a = p, p += d;
    g->mix = p, p += d;
    g->s1 = p, p += d;
    g->x1 = p, p += d;
    g->b = p, p += d;
    g->f = p, p += d;
    g->s2 = p, p += d;
    g->out = p, p += 2 * d;
    g->h = p, p += dff;
    g->ha = p, p += dff;
    g->stat = p, p += 2;
    g->logits = p;
    *out = g;
    return 0;
}

void generator_free(Generator *g)
{
    if (!g) return;
    if (g->cache)
        for (int l = 0; l < g->m->cfg.layers; l++) free(g->cache[l]);
    free(g->cache);
    free(g->x); /* the rows block starts at x */
    free(g->scratch);
    free(g->seq);
    work_free(&g->work);
    free(g);
}

void generator_reset(Generator *g) { g->len = 0; }
int generator_is_incremental(const Generator *g) { return g->incremental && g->len <= (size_t)g->m->cfg.n_ctx; }

static void ln_row(const Model *m, int wi, int bi, float *y, const float *x, float *stat)
{
    layernorm_forward(y, stat, stat + 1, x, model_param(m, wi), model_param(m, bi), 1, m->cfg.d);
}

/* Position t = len-1 through every block, one row. */
static void step_row(Generator *g, int t)
{
    const Model *m = g->m;
    const Config *c = &m->cfg;
    int d = c->d, dff = c->ffn_mult * c->d;
    const Stack *st = &m->stacks[0];
    const float *pos = st->pos_emb >= 0 ? model_param(m, st->pos_emb) : m->sinusoid;
    const float *e = model_param(m, m->tok_emb) + (size_t)g->seq[g->len - 1] * d;
    if (pos) vec_add(g->x, e, pos + (size_t)t * d, d);
    else memcpy(g->x, e, sizeof(float) * d);
    const float *w[MIX_MAX_PARAMS];
    float *dw[MIX_MAX_PARAMS] = {0};
    for (int l = 0; l < c->layers; l++) {
        const BlockParams *bp = &st->blocks[l];
        for (int k = 0; k < bp->n_mix; k++) w[k] = model_param(m, bp->mix0 + k);
        MixArgs a = {0};
        a.cfg = c;
        a.B = 1;
        a.n = c->n_ctx;
        a.d = d;
        a.heads = c->heads;
        a.causal = 1;
        a.block = l;
        a.tokens = g->seq + (g->len - 1 - (size_t)t);   /* position 0 of this window */
        a.w = w;
        a.dw = dw;
        a.scratch = g->scratch;
        a.state = bp->mix_state;
        const float *mix_in = g->x;
        if (c->norm == NORM_PRE) {
            ln_row(m, bp->ln1_w, bp->ln1_b, g->a, g->x, g->stat);
            mix_in = g->a;
        }
        m->mixer->forward_step(&a, t, mix_in, g->mix, g->cache[l]);
        vec_add(g->s1, g->x, g->mix, d);
        const float *x1 = g->s1;
        if (c->norm == NORM_POST) {
            ln_row(m, bp->ln1_w, bp->ln1_b, g->x1, g->s1, g->stat);
            x1 = g->x1;
        }
        const float *ffn_in = x1;
        if (c->norm == NORM_PRE) {
            ln_row(m, bp->ln2_w, bp->ln2_b, g->b, x1, g->stat);
            ffn_in = g->b;
        }
        linear_forward(g->h, ffn_in, model_param(m, bp->w1), model_param(m, bp->b1), 1, d, dff);
        act_forward(g->ha, g->h, (size_t)dff, c->act);
        linear_forward(g->f, g->ha, model_param(m, bp->w2), model_param(m, bp->b2), 1, dff, d);
        vec_add(g->s2, x1, g->f, d);
        if (c->norm == NORM_POST) ln_row(m, bp->ln2_w, bp->ln2_b, g->x, g->s2, g->stat);
        else memcpy(g->x, g->s2, sizeof(float) * d);
    }
    const float *final = g->x;
    if (c->norm != NORM_NONE) {
        ln_row(m, st->lnf_w, st->lnf_b, g->out, g->x, g->stat);
        final = g->out;
    }
    head_forward(m, g->logits, final, 1);
}

/* The last min(len, n) tokens through the full forward pass. */
static void full_window(Generator *g)
{
    const Model *m = g->m;
    int n = m->cfg.n_ctx, d = m->cfg.d;
    size_t ctx = g->len < (size_t)n ? g->len : (size_t)n, start = g->len - ctx;
    Work *w = &g->work;
    for (int t = 0; t < n; t++) w->inputs[t] = (size_t)t < ctx ? g->seq[start + t] : 0 /* PAD: a causal model cannot see it */;
    StackCall sc = {m, w, 1, 0, 0, 0, -1, 0};
    embed_forward(m, 0, w->stacks[0].blocks[0].x, w->inputs, 1);
    stack_forward(&sc, 0, w->inputs);
    head_forward(m, g->logits, w->stacks[0].out + (ctx - 1) * (size_t)d, 1);
}

const float *generator_push(Generator *g, int32_t token)
{
    if (g->len == g->cap) {
        /* keep only the last window: older tokens can no longer matter */
        size_t n = (size_t)g->m->cfg.n_ctx;
        memmove(g->seq, g->seq + g->len - n, sizeof(int32_t) * n);
        g->len = n;
    }
    g->seq[g->len++] = token;
    if (g->incremental && g->len <= (size_t)g->m->cfg.n_ctx) step_row(g, (int)g->len - 1);
    else full_window(g);
    return g->logits;
}
