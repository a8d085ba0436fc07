/*
 * infer.c — infer.h: packed linear layers (a register-blocked kernel over
 * 32-column panels, AVX-512 when the compiler targets it, plain C
 * otherwise), the one-row GEMV, and the batch-1 block skeleton of
 * engine/stack.c without what only training needs (dropout, saved
 * activations, the zeroed positions of task complete).
 */
#include "engine/infer.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#define PANEL 32

static size_t packed_floats(int n_in, int n_out)
{
    return (size_t)((n_out + PANEL - 1) / PANEL) * n_in * PANEL;
}

int packed_linear_make(PackedLinear *pl, const float *w, int n_in, int n_out, char *err)
{
    pl->n_in = n_in;
    pl->n_out = n_out;
    pl->panels = (n_out + PANEL - 1) / PANEL;
    size_t floats = packed_floats(n_in, n_out);
    pl->p = aligned_alloc(64, sizeof(float) * floats);
    if (!pl->p) return err_set(err, "out of memory for packed weights (%.1f MB)", floats * 4 / 1048576.0);
    for (int j = 0; j < pl->panels; j++)
        for (int k = 0; k < n_in; k++)
            for (int c = 0; c < PANEL; c++) {
                int o = j * PANEL + c;
                pl->p[((size_t)j * n_in + k) * PANEL + c] = o < n_out ? w[(size_t)o * n_in + k] : 0.0f;
            }
    return 0;
}

void packed_linear_free(PackedLinear *pl)
{
    free(pl->p);
    pl->p = NULL;
}

#ifdef __AVX512F__
/* Rows r0..r0+R-1 of x against panels j0..j0+C-1: R x C x 2 accumulators
   of 16 floats, each b + x_0 w_0 + x_1 w_1 + ... in k order.  R and C are
   constants at every call, so the loops unroll into registers. */
static inline __attribute__((always_inline)) void tile(const PackedLinear *pl, float *y, const float *x,
                                                       const float *b, int r0, int j0, const int R, const int C)
{
    int n_in = pl->n_in, n_out = pl->n_out;
    __m512 acc[8][4][2];
    for (int c = 0; c < C; c++) {
        int o = (j0 + c) * PANEL, left = n_out - o;
        __mmask16 m0 = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
        __mmask16 m1 = left >= 32 ? 0xffff : left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1);
        __m512 b0 = b ? _mm512_maskz_loadu_ps(m0, b + o) : _mm512_setzero_ps();
        __m512 b1 = b ? _mm512_maskz_loadu_ps(m1, b + o + 16) : _mm512_setzero_ps();
        for (int r = 0; r < R; r++) {
            acc[r][c][0] = b0;
            acc[r][c][1] = b1;
        }
    }
    const float *xr = x + (size_t)r0 * n_in;
    for (int k = 0; k < n_in; k++) {
        for (int c = 0; c < C; c++) {
            const float *p = pl->p + ((size_t)(j0 + c) * n_in + k) * PANEL;
            __m512 w0 = _mm512_load_ps(p), w1 = _mm512_load_ps(p + 16);
            for (int r = 0; r < R; r++) {
                __m512 xb = _mm512_set1_ps(xr[(size_t)r * n_in + k]);
                acc[r][c][0] = _mm512_fmadd_ps(xb, w0, acc[r][c][0]);
                acc[r][c][1] = _mm512_fmadd_ps(xb, w1, acc[r][c][1]);
            }
        }
    }
    for (int c = 0; c < C; c++) {
        int o = (j0 + c) * PANEL, left = n_out - o;
        __mmask16 m0 = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
        __mmask16 m1 = left >= 32 ? 0xffff : left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1);
        for (int r = 0; r < R; r++) {
            float *yr = y + (size_t)(r0 + r) * n_out + o;
            _mm512_mask_storeu_ps(yr, m0, acc[r][c][0]);
            _mm512_mask_storeu_ps(yr + 16, m1, acc[r][c][1]);
        }
    }
}

void packed_linear_forward(const PackedLinear *pl, float *y, const float *x, const float *b, int N)
{
    int J = pl->panels;
    if (N == 1) { /* a GEMV: four panels at once keep eight FMA chains going */
        int j = 0;
        for (; j + 4 <= J; j += 4) tile(pl, y, x, b, 0, j, 1, 4);
        for (; j < J; j++) tile(pl, y, x, b, 0, j, 1, 1);
        return;
    }
    for (int j = 0; j < J; j++) { /* one panel stays in L1 while every row block passes */
        int r = 0;
        for (; r + 6 <= N; r += 6) tile(pl, y, x, b, r, j, 6, 1);
        switch (N - r) {
        case 5: tile(pl, y, x, b, r, j, 5, 1); break;
        case 4: tile(pl, y, x, b, r, j, 4, 1); break;
        case 3: tile(pl, y, x, b, r, j, 3, 1); break;
        case 2: tile(pl, y, x, b, r, j, 2, 1); break;
        case 1: tile(pl, y, x, b, r, j, 1, 1); break;
        default: break;
        }
    }
}
#else
void packed_linear_forward(const PackedLinear *pl, float *y, const float *x, const float *b, int N)
{
    int n_in = pl->n_in, n_out = pl->n_out;
    for (int j = 0; j < pl->panels; j++)
        for (int r = 0; r < N; r++) {
            float acc[PANEL];
            for (int c = 0; c < PANEL; c++) acc[c] = b && j * PANEL + c < n_out ? b[j * PANEL + c] : 0.0f;
            const float *xr = x + (size_t)r * n_in;
            for (int k = 0; k < n_in; k++) {
                const float *p = pl->p + ((size_t)j * n_in + k) * PANEL;
                for (int c = 0; c < PANEL; c++) acc[c] += xr[k] * p[c];
            }
            for (int c = 0; c < PANEL && j * PANEL + c < n_out; c++) y[(size_t)r * n_out + j * PANEL + c] = acc[c];
        }
}
#endif

void linear_row(float *y, const float *x, const float *w, const float *b, int n_in, int n_out)
{
    if (b) memcpy(y, b, sizeof(float) * n_out);
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n_out, n_in, 1.0f, w, n_in, x, 1, b ? 1.0f : 0.0f, y, 1);
}

struct Infer {
    const Model *m;
    int max_rows;
    PackedLinear *w1, *w2;     /* per block */
    PackedLinear head;
    void **mix_state;         /* per block: MixerInfer state, or NULL */
    float *x, *a, *mix, *s1, *x1, *b, *f, *s2, *out, *h, *ha, *mean, *rstd;
    /* infer_window: the mixers' forward on one sample */
    float *saved, *scratch;
    const int32_t *tokens;
    float *block;             /* the rows block x .. rstd, one allocation */
};

/* Floats of the row buffers of a window of max_rows rows. */
static size_t row_floats(const Config *c, int max_rows)
{
    size_t R = (size_t)max_rows, d = (size_t)c->d, dff = (size_t)c->ffn_mult * d;
    return ((R * (9 * d + 2 * dff + 2)) + 15) & ~(size_t)15;   /* aligned_alloc: a multiple of 64 bytes */
}

double infer_bytes(const Model *m, int max_rows)
{
    const Config *c = &m->cfg;
    int d = c->d, dff = c->ffn_mult * c->d;
    double floats = (double)row_floats(c, max_rows) + (double)packed_floats(d, c->vocab) +
                    (double)c->layers * (double)(packed_floats(d, dff) + packed_floats(dff, d)) +
                    (double)m->mixer->saved_per_sample(c) + (double)m->mixer->scratch_floats(c, 1);
    double mix_state = m->mixer->infer ? (double)c->layers * m->mixer->infer->bytes(c) : 0.0;
    return 4.0 * floats + mix_state;
}

int infer_create(Infer **out, const Model *m, int max_rows, char *err)
{
    *out = NULL;
    const Config *c = &m->cfg;
    int d = c->d, dff = c->ffn_mult * c->d, L = c->layers;
    Infer *inf = calloc(1, sizeof *inf);
    if (!inf) return err_set(err, "out of memory for inference");
    inf->m = m;
    inf->max_rows = max_rows;
    inf->w1 = calloc((size_t)L, sizeof(PackedLinear));
    inf->w2 = calloc((size_t)L, sizeof(PackedLinear));
    inf->mix_state = calloc((size_t)L, sizeof(void *));
    size_t R = (size_t)max_rows, floats = row_floats(c, max_rows);
    inf->block = aligned_alloc(64, sizeof(float) * floats);
    size_t saved = m->mixer->saved_per_sample(c), scratch = m->mixer->scratch_floats(c, 1);
    inf->saved = calloc(saved ? saved : 1, sizeof(float));
    inf->scratch = calloc(scratch ? scratch : 1, sizeof(float));
    if (!inf->w1 || !inf->w2 || !inf->mix_state || !inf->block || !inf->saved || !inf->scratch) {
        infer_free(inf);
        return err_set(err, "out of memory for inference");
    }
    memset(inf->block, 0, sizeof(float) * floats);
    float *p = inf->block;
    float **rows_d[] = {&inf->x, &inf->a, &inf->mix, &inf->s1, &inf->x1, &inf->b, &inf->f, &inf->s2, &inf->out};
    for (size_t i = 0; i < sizeof rows_d / sizeof *rows_d; i++, p += R * d) *rows_d[i] = p;
    inf->h = p, p += R * dff;
    inf->ha = p, p += R * dff;
    inf->mean = p, p += R;
    inf->rstd = p;
    const Stack *st = &m->stacks[0];
    for (int l = 0; l < L; l++) {
        const BlockParams *bp = &st->blocks[l];
        if (packed_linear_make(&inf->w1[l], model_param(m, bp->w1), d, dff, err) ||
            packed_linear_make(&inf->w2[l], model_param(m, bp->w2), dff, d, err)) {
            infer_free(inf);
            return -1;
        }
    }
    if (packed_linear_make(&inf->head, model_param(m, m->head_w), d, c->vocab, err)) {
        infer_free(inf);
        return -1;
    }
    const MixerInfer *mi = m->mixer->infer;
    for (int l = 0; mi && l < L; l++) {
        const BlockParams *bp = &st->blocks[l];
        const float *w[MIX_MAX_PARAMS];
        for (int k = 0; k < bp->n_mix; k++) w[k] = model_param(m, bp->mix0 + k);
        inf->mix_state[l] = mi->create(c, w, err);
        if (!inf->mix_state[l]) {
            infer_free(inf);
            return -1;
        }
    }
    *out = inf;
    return 0;
}

void infer_free(Infer *inf)
{
    if (!inf) return;
    for (int l = 0; l < inf->m->cfg.layers; l++) {
        if (inf->w1) packed_linear_free(&inf->w1[l]);
        if (inf->w2) packed_linear_free(&inf->w2[l]);
        if (inf->mix_state && inf->mix_state[l]) inf->m->mixer->infer->destroy(inf->mix_state[l]);
    }
    free(inf->mix_state);
    packed_linear_free(&inf->head);
    free(inf->w1);
    free(inf->w2);
    free(inf->block);
    free(inf->saved);
    free(inf->scratch);
    free(inf);
}

float *infer_input(Infer *inf) { return inf->x; }

void *infer_mix_state(const Infer *inf, int block) { return inf->mix_state[block]; }

static void ln_rows(const Model *m, int wi, int bi, float *y, const float *x, float *mean, float *rstd, int N)
{
    layernorm_forward(y, mean, rstd, x, model_param(m, wi), model_param(m, bi), N, m->cfg.d);
}

void infer_rows(Infer *inf, float *x0, int N, InferMix mix, void *ctx, int head_from, int head_n, float *logits)
{
    const Model *m = inf->m;
    const Config *c = &m->cfg;
    const Stack *st = &m->stacks[0];
    int d = c->d, dff = c->ffn_mult * c->d;
    size_t Nd = (size_t)N * d;
    float *x = x0;
    for (int l = 0; l < c->layers; l++) {
        const BlockParams *bp = &st->blocks[l];
        const float *mix_in = x;
        if (c->norm == NORM_PRE) {
            ln_rows(m, bp->ln1_w, bp->ln1_b, inf->a, x, inf->mean, inf->rstd, N);
            mix_in = inf->a;
        }
        mix(ctx, l, mix_in, inf->mix, N);
        vec_add(inf->s1, x, inf->mix, Nd);
        const float *x1 = inf->s1;
        if (c->norm == NORM_POST) {
            ln_rows(m, bp->ln1_w, bp->ln1_b, inf->x1, inf->s1, inf->mean, inf->rstd, N);
            x1 = inf->x1;
        }
        const float *ffn_in = x1;
        if (c->norm == NORM_PRE) {
            ln_rows(m, bp->ln2_w, bp->ln2_b, inf->b, x1, inf->mean, inf->rstd, N);
            ffn_in = inf->b;
        }
        packed_linear_forward(&inf->w1[l], inf->h, ffn_in, model_param(m, bp->b1), N);
        act_forward(inf->ha, inf->h, (size_t)N * dff, c->act);
        packed_linear_forward(&inf->w2[l], inf->f, inf->ha, model_param(m, bp->b2), N);
        if (c->norm == NORM_POST) {
            vec_add(inf->s2, x1, inf->f, Nd);
            ln_rows(m, bp->ln2_w, bp->ln2_b, x, inf->s2, inf->mean, inf->rstd, N);
        } else {
            vec_add(x, x1, inf->f, Nd);
        }
    }
    const float *final = x;
    if (c->norm != NORM_NONE) {
        ln_rows(m, st->lnf_w, st->lnf_b, inf->out, x, inf->mean, inf->rstd, N);
        final = inf->out;
    }
    packed_linear_forward(&inf->head, logits, final + (size_t)head_from * d, model_param(m, m->head_b),
                          head_n);
}

void infer_mix_args(const Model *m, int block, const int32_t *tokens, float *scratch, const float **w, float **dw,
                    MixArgs *a)
{
    const BlockParams *bp = &m->stacks[0].blocks[block];
    for (int k = 0; k < bp->n_mix; k++) {
        w[k] = model_param(m, bp->mix0 + k);
        dw[k] = NULL;
    }
    memset(a, 0, sizeof *a);
    a->cfg = &m->cfg;
    a->B = 1;
    a->n = m->cfg.n_ctx;
    a->d = m->cfg.d;
    a->heads = m->cfg.heads;
    a->causal = m->stacks[0].causal;
    a->block = block;
    a->tokens = tokens;
    a->scratch = scratch;
    a->w = w;
    a->dw = dw;
    a->state = bp->mix_state;
}

/* InferMix for infer_window: the mixer's forward on one sample (its
   inference forward when it has one). */
static void window_mix(void *ctx, int block, const float *in, float *out, int N)
{
    (void)N;
    Infer *inf = ctx;
    const float *w[MIX_MAX_PARAMS];
    float *dw[MIX_MAX_PARAMS];
    MixArgs a;
    infer_mix_args(inf->m, block, inf->tokens, inf->scratch, w, dw, &a);
    a.saved = inf->saved;
    if (inf->mix_state[block]) inf->m->mixer->infer->forward(&a, inf->mix_state[block], in, out);
    else inf->m->mixer->forward(&a, in, out);
}

void infer_window(Infer *inf, const int32_t *tokens, int head_from, int head_n, float *logits)
{
    const Model *m = inf->m;
    inf->tokens = tokens;
    embed_forward(m, 0, inf->x, tokens, 1);
    infer_rows(inf, inf->x, m->cfg.n_ctx, window_mix, inf, head_from, head_n, logits);
}

double infer_xent(float *logits, const int32_t *targets, int N, int V)
{
    enum { LANES = 16 };
    double loss = 0.0;
    for (int i = 0; i < N; i++) {
        float *row = logits + (size_t)i * V;
        if (targets[i] < 0) continue;
        float target_logit = row[targets[i]];
        float part[LANES];
        for (int j = 0; j < LANES; j++) part[j] = -INFINITY;
        int v = 0;
        for (; v + LANES <= V; v += LANES)
            for (int j = 0; j < LANES; j++) part[j] = row[v + j] > part[j] ? row[v + j] : part[j];
        float mx = -INFINITY;
        for (int j = 0; j < LANES; j++) mx = part[j] > mx ? part[j] : mx;
        for (; v < V; v++) mx = row[v] > mx ? row[v] : mx;
        for (v = 0; v < V; v++) row[v] -= mx;
        vec_exp(row, row, (size_t)V);
        for (int j = 0; j < LANES; j++) part[j] = 0.0f;
        for (v = 0; v + LANES <= V; v += LANES)
            for (int j = 0; j < LANES; j++) part[j] += row[v + j];
        float sum = 0.0f;
        for (int j = 0; j < LANES; j++) sum += part[j];
        for (; v < V; v++) sum += row[v];
        loss += (double)(logf(sum) + mx - target_logit);
    }
    return loss;
}
