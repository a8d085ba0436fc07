/*
 * generate.c — the per-position forward pass of generate.h: the batch-1
 * skeleton of engine/infer.c on one row, each block's mixer reading and
 * extending its cache through MixerOps.forward_step; the window fallback is
 * infer_window.  Nothing is allocated or packed per token.
 */
#include "engine/generate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/infer.h"
#include "engine/ops.h"

struct Generator {
    const Model *m;
    int incremental;        /* every mixer has forward_step and it was asked for */
    int32_t *seq;           /* every token pushed, [cap] */
    size_t len, cap;
    float **cache;          /* per block */
    float *scratch;
    float *logits;          /* [V] */
    int32_t *window;        /* [n] the full-window fallback's ids */
    Infer *inf;             /* packed FFN and head, row buffers (n rows) */
    int t;                  /* the position step_mix works on */
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
    int L = c->layers;
    g->incremental = incremental && m->mixer->forward_step && m->mixer->cache_floats;
    g->cap = 1024 > 2 * (size_t)c->n_ctx ? 1024 : 2 * (size_t)c->n_ctx;
    g->seq = malloc(sizeof(int32_t) * g->cap);
    g->window = malloc(sizeof(int32_t) * c->n_ctx);
    g->cache = calloc((size_t)L, sizeof(float *));
    g->logits = calloc((size_t)c->vocab, sizeof(float));
    size_t scratch = m->mixer->scratch_floats(c, 1);
    g->scratch = scratch ? calloc(scratch, sizeof(float)) : NULL;
    int bad = !g->seq || !g->window || !g->cache || !g->logits || (scratch && !g->scratch);
    if (!bad && g->incremental)
        for (int l = 0; l < L && !bad; l++) {
            size_t cf = m->mixer->cache_floats(c);
            g->cache[l] = calloc(cf ? cf : 1, sizeof(float));
            bad = !g->cache[l];
        }
    if (bad || infer_create(&g->inf, m, c->n_ctx, err)) {
        generator_free(g);
        return bad ? err_set(err, "out of memory for generation") : -1;
    }
    *out = g;
    return 0;
}

void generator_free(Generator *g)
{
    if (!g) return;
    if (g->cache)
        for (int l = 0; l < g->m->cfg.layers; l++) free(g->cache[l]);
    free(g->cache);
    free(g->logits);
    free(g->window);
    free(g->scratch);
    free(g->seq);
    infer_free(g->inf);
    free(g);
}

void generator_reset(Generator *g) { g->len = 0; }
int generator_is_incremental(const Generator *g) { return g->incremental && g->len <= (size_t)g->m->cfg.n_ctx; }

/* InferMix for one row: block's forward_step at position g->t. */
static void step_mix(void *ctx, int block, const float *in, float *out, int N)
{
    (void)N;
    Generator *g = ctx;
    const float *w[MIX_MAX_PARAMS];
    float *dw[MIX_MAX_PARAMS];
    MixArgs a;
    /* the window's position 0 */
    infer_mix_args(g->m, block, g->seq + (g->len - 1 - (size_t)g->t), g->scratch, w, dw, &a);
    void *state = infer_mix_state(g->inf, block);
    if (state && g->m->mixer->infer->step) g->m->mixer->infer->step(&a, state, g->t, in, out, g->cache[block]);
    else g->m->mixer->forward_step(&a, g->t, in, out, g->cache[block]);
}

/* Position t = len-1 through every block, one row. */
static void step_row(Generator *g, int t)
{
    const Model *m = g->m;
    int d = m->cfg.d;
    const Stack *st = &m->stacks[0];
    const float *pos = st->pos_emb >= 0 ? model_param(m, st->pos_emb) : m->sinusoid;
    const float *e = model_param(m, m->tok_emb) + (size_t)g->seq[g->len - 1] * d;
    float *x = infer_input(g->inf);
    if (pos) vec_add(x, e, pos + (size_t)t * d, d);
    else memcpy(x, e, sizeof(float) * d);
    g->t = t;
    infer_rows(g->inf, x, 1, step_mix, g, 0, 1, g->logits);
}

/* The last min(len, n) tokens through the full forward pass. */
static void full_window(Generator *g)
{
    int n = g->m->cfg.n_ctx;
    size_t ctx = g->len < (size_t)n ? g->len : (size_t)n, start = g->len - ctx;
    for (int t = 0; t < n; t++) g->window[t] = (size_t)t < ctx ? g->seq[start + t] : 0 /* PAD: a causal model cannot see it */;
    infer_window(g->inf, g->window, (int)ctx - 1, 1, g->logits);
}

/* Appends token; 1 when the logits come from the caches (one position of
   work), 0 when they need the full window. */
static int append(Generator *g, int32_t token)
{
    if (g->len == g->cap) {
        /* keep only the last window: older tokens can no longer matter */
        size_t n = (size_t)g->m->cfg.n_ctx;
        memmove(g->seq, g->seq + g->len - n, sizeof(int32_t) * n);
        g->len = n;
    }
    g->seq[g->len++] = token;
    return g->incremental && g->len <= (size_t)g->m->cfg.n_ctx;
}

const float *generator_push(Generator *g, int32_t token)
{
    if (append(g, token)) step_row(g, (int)g->len - 1);
    else full_window(g);
    return g->logits;
}

void generator_feed(Generator *g, int32_t token)
{
    /* the caches must see every token; the full window is read at the next push */
    if (append(g, token)) step_row(g, (int)g->len - 1);
}
