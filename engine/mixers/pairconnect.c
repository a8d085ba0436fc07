/*
 * pairconnect.c — PairConnect, hashed pairwise word embeddings (SPEC
 * section 2).  Per block, h tables T_k [K, d] (K = hash_size) and two MLPs:
 *
 *   slot_k(i, j) = murmur3_32(le32(t_i) || le32(t_j),
 *                             seed = hash_seed + 1000 * block + k) mod K
 *   P_k[i] = mean over j in N(i) of T_k[slot_k(i, j)]   (pair_reduce = sum:
 *            the sum; 0 when N(i) is empty)
 *   p[i]   = concat_k P_k[i]                            p [B, n, h*d]
 *   y[i]   = MLPx(x[i]) + MLPp(p[i])                    x, y [B, n, d]
 *   MLP(z) = W2 GELU(W1 z + b1) + b2 (GELU whatever `act` is);
 *            MLPx: d -> d_p -> d, MLPp: h*d -> d_p -> d
 *
 * N(i) = {j < i} causal, {j != i} bidirectional.  The pair part reads the
 * block's input token ids (MixArgs.tokens), not x, so dx comes from MLPx
 * alone.  Table gradients are scatter-adds into this thread's row
 * accumulators (MixArgs.row_grads, engine/sparse.h), never a dense [K, d]
 * buffer.  Slots are recomputed in backward: h hashes per pair cost less
 * than keeping n^2 h ids per sample.
 *
 * Saved per sample: p [n, h*d], then MLPx's hidden layer before and after
 * GELU [n, d_p] each, then MLPp's.
 *
 * Batch-1 inference (MixerOps.infer, engine/infer.h; below): the MLPs
 * packed once, MLPp's first layer folded into the tables while they are
 * small.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/infer.h"
#include "engine/mixer.h"
#include "engine/murmur3.h"
#include "engine/ops.h"
#include "engine/sparse.h"

#ifdef __AVX512F__
#include <immintrin.h>
#endif

/* Parameter order: table0 .. table{h-1}, then MLPx and MLPp, each w1 b1 w2 b2. */
enum { W1, B1, W2, B2, MLP_PARAMS };
#define MLPX(h) (h)
#define MLPP(h) ((h) + MLP_PARAMS)
#define MAX_TABLES (MIX_MAX_PARAMS - 2 * MLP_PARAMS)

static int pair_width(const Config *c) { return c->d_pair > 0 ? c->d_pair : c->d; }

static int pairconnect_check(const Config *c, char *err)
{
    if (c->heads > MAX_TABLES)
        return err_set(err, "pairconnect: heads=%d exceeds the maximum of %d tables", c->heads, MAX_TABLES);
    return 0;
}

static void set_decl(ParamDecl *p, const char *name, int64_t rows, int64_t cols, int init)
{
    mix_decl(p, name, rows, cols, init);
}

/* An MLP n_in -> dp -> d: weights decay and count as dense, biases do not. */
static void declare_mlp(ParamDecl *decl, const char *prefix, int n_in, int dp, int d)
{
    char name[32];
    snprintf(name, sizeof name, "%s.w1", prefix);
    set_decl(&decl[W1], name, dp, n_in, INIT_LINEAR);
    snprintf(name, sizeof name, "%s.b1", prefix);
    set_decl(&decl[B1], name, dp, 0, INIT_ZERO);
    snprintf(name, sizeof name, "%s.w2", prefix);
    set_decl(&decl[W2], name, d, dp, INIT_LINEAR);
    snprintf(name, sizeof name, "%s.b2", prefix);
    set_decl(&decl[B2], name, d, 0, INIT_ZERO);
    decl[W1].decay = decl[W1].dense = decl[W2].decay = decl[W2].dense = 1;
}

static int pairconnect_declare(const Config *c, ParamDecl *decl)
{
    int h = c->heads, d = c->d, dp = pair_width(c);
    int64_t n = c->n_ctx;
    for (int k = 0; k < h; k++) {
        char name[32];
        snprintf(name, sizeof name, "table%d", k);
        set_decl(&decl[k], name, c->hash_size, d, INIT_NORMAL);
        decl[k].sparse_rows = 1;
        /* a sample has n(n-1) ordered pairs (bidirectional; causal half) */
        decl[k].rows_per_sample = n > 1 ? n * (n - 1) : 1;
    }
    declare_mlp(decl + MLPX(h), "mlpx", d, dp, d);
    declare_mlp(decl + MLPP(h), "mlpp", h * d, dp, d);
    return h + 2 * MLP_PARAMS;
}

static size_t pairconnect_saved(const Config *c)
{
    return (size_t)c->n_ctx * ((size_t)c->heads * c->d + 4 * (size_t)pair_width(c));
}

/* The table-gradient grouping of one sample and table (pair_backward):
   P <= n(n-1) pairs, an open-addressed map of 2^m >= 2P entries. */
static size_t group_map_size(const Config *c)
{
    size_t P = (size_t)c->n_ctx * (size_t)(c->n_ctx > 1 ? c->n_ctx - 1 : 1), H = 1;
    while (H < 2 * P) H *= 2;
    return H;
}

/* In 4-byte units: the row pointers (8 bytes each) first, then int32s. */
static size_t group_scratch(const Config *c)
{
    size_t P = (size_t)c->n_ctx * (size_t)(c->n_ctx > 1 ? c->n_ctx - 1 : 1);
    return 2 * P + 2 * group_map_size(c) + 4 * P + 2 + 1;
}

/* forward: MLPp's output [B*n, d]; backward: the hidden gradient [B*n, dp],
   dp [B*n, h*d] and the grouping; forward_step: p, hidden, GELU(hidden),
   MLPp output. */
static size_t pairconnect_scratch(const Config *c, int B)
{
    size_t d = c->d, dp = pair_width(c), hd = (size_t)c->heads * c->d;
    return (size_t)B * c->n_ctx * (d + dp + hd) + dp + group_scratch(c);
}

typedef struct {
    float *pair, *hx, *ax, *hp, *ap;
} Saved;

static Saved saved_split(const MixArgs *a)
{
    size_t N = (size_t)a->B * a->n, dp = pair_width(a->cfg);
    Saved s;
    s.pair = a->saved;
    s.hx = s.pair + N * a->heads * a->d;
    s.ax = s.hx + N * dp;
    s.hp = s.ax + N * dp;
    s.ap = s.hp + N * dp;
    return s;
}

static uint32_t table_seed(const MixArgs *a, int k)
{
    return (uint32_t)a->cfg->hash_seed + 1000u * (uint32_t)a->block + (uint32_t)k;
}

static uint32_t pair_slot(int32_t t_i, int32_t t_j, uint32_t seed, uint32_t K)
{
    return murmur3_u32_pair((uint32_t)t_i, (uint32_t)t_j, seed) % K;
}

/* |N(i)| and the factor the reduction applies to the sum over it. */
static int partners(const MixArgs *a, int i, int causal) { return causal ? i : a->n - 1; }

static float reduce_scale(const Config *c, int count)
{
    return c->pair_reduce == REDUCE_SUM || count == 0 ? 1.0f : 1.0f / (float)count;
}

/* Table rows are fetched PAIR_AHEAD partners before they are added: once
   the tables outgrow the caches every lookup misses, and a lookup waiting
   for the one before it would make the time grow with K instead of with the
   number of lookups.  The sum runs over j in the same order either way. */
#define PAIR_CHUNK 64
#define PAIR_AHEAD 4

static void prefetch_row(const float *row, int d)
{
    for (int f = 0; f < d; f += 16) __builtin_prefetch(row + f);
}

#ifdef __AVX512F__
/* acc[f0 .. f0 + 16 V) += rows[0] + rows[1] + ... in that order, the sums
   held in V registers (V a constant at each call) rather than reloaded and
   stored per row. */
static inline __attribute__((always_inline)) void rows_add_block(float *acc, const float *const *rows, int count,
                                                                 int f0, const int V, const int ahead)
{
    __m512 s[16];
    for (int v = 0; v < V; v++) s[v] = _mm512_loadu_ps(acc + f0 + 16 * v);
    for (int r = 0; r < count; r++) {
        if (ahead && r + ahead < count)
            for (int v = 0; v < V; v++) _mm_prefetch((const char *)(rows[r + ahead] + f0 + 16 * v), _MM_HINT_T0);
        for (int v = 0; v < V; v++) s[v] = _mm512_add_ps(s[v], _mm512_loadu_ps(rows[r] + f0 + 16 * v));
    }
    for (int v = 0; v < V; v++) _mm512_storeu_ps(acc + f0 + 16 * v, s[v]);
}
#endif

/* acc [d] += rows[0] + rows[1] + ... + rows[count-1], each float summed in
   row order (so the same sums as vec_acc row after row). */
static void rows_add(float *acc, const float *const *rows, int count, int d, int ahead)
{
    for (int r = 0; r < count && r < ahead; r++) prefetch_row(rows[r], d);
    int f = 0;
#ifdef __AVX512F__
    if (ahead) {
        for (; f + 256 <= d; f += 256) rows_add_block(acc, rows, count, f, 16, PAIR_AHEAD);
        for (; f + 16 <= d; f += 16) rows_add_block(acc, rows, count, f, 1, PAIR_AHEAD);
    } else {
        for (; f + 256 <= d; f += 256) rows_add_block(acc, rows, count, f, 16, 0);
        for (; f + 16 <= d; f += 16) rows_add_block(acc, rows, count, f, 1, 0);
    }
#endif
    for (; f < d; f++)
        for (int r = 0; r < count; r++) acc[f] += rows[r][f];
}

/* ids [n] -> p_i [h*d]: the reduced T_k[slot_k(i, j)] over j in N(i), per k. */
/* acc [width] += the rows table[slot_k(i, j)] (rows of `width` floats)
   over j in N(i), in j order. */
static void gather_rows(const MixArgs *a, const int32_t *ids, int i, int causal, int k, const float *table,
                        int width, float *acc)
{
    int end = causal ? i : a->n;
    uint32_t K = (uint32_t)a->cfg->hash_size, seed = table_seed(a, k);
    for (int j0 = 0; j0 < end; j0 += PAIR_CHUNK) {
        const float *rows[PAIR_CHUNK];
        int count = 0;
        for (int j = j0; j < end && j < j0 + PAIR_CHUNK; j++)
            if (j != i) rows[count++] = table + (size_t)pair_slot(ids[i], ids[j], seed, K) * width;
        rows_add(acc, rows, count, width, PAIR_AHEAD);
    }
}

static void pair_features(const MixArgs *a, const int32_t *ids, int i, int causal, float *p_i)
{
    int d = a->d, h = a->heads;
    memset(p_i, 0, sizeof(float) * (size_t)h * d);
    for (int k = 0; k < h; k++) gather_rows(a, ids, i, causal, k, a->w[k], d, p_i + (size_t)k * d);
    float scale = reduce_scale(a->cfg, partners(a, i, causal));
    if (scale != 1.0f)
        for (int f = 0; f < h * d; f++) p_i[f] *= scale;
}

/* The grouping's arrays, laid out in scratch (group_scratch). */
typedef struct {
    const float **srcs;  /* [P] dp rows, grouped by table row, (i, j) order within a group */
    int32_t *map_key;    /* [H] table row, -1 empty */
    int32_t *map_val;    /* [H] its group */
    int32_t *pair_group; /* [P] each pair's group */
    int32_t *pair_src;   /* [P] each pair's i */
    int32_t *group_row;  /* [P] each group's table row, groups in first-touch order */
    int32_t *start;      /* [P + 1] each group's first entry in srcs */
    int H;
} Groups;

static Groups groups_split(const Config *c, float *mem)
{
    size_t P = (size_t)c->n_ctx * (size_t)(c->n_ctx > 1 ? c->n_ctx - 1 : 1);
    Groups gr;
    gr.H = (int)group_map_size(c);
    /* 8-byte alignment for the pointers: scratch is malloc'd and the float
       offset before it even is not guaranteed, so round up (the +1 unit) */
    uintptr_t at = ((uintptr_t)mem + 7) & ~(uintptr_t)7;
    gr.srcs = (const float **)at;
    gr.map_key = (int32_t *)(gr.srcs + P);
    gr.map_val = gr.map_key + gr.H;
    gr.pair_group = gr.map_val + gr.H;
    gr.pair_src = gr.pair_group + P;
    gr.group_row = gr.pair_src + P;
    gr.start = gr.group_row + P;
    return gr;
}

/* The group of table row `row`, a new one (recorded in group_row) on its
   first sight. */
static int32_t group_of(Groups *gr, uint32_t row, int32_t *n_groups)
{
    uint32_t mask = (uint32_t)gr->H - 1, at = (row * 2654435761u) & mask;
    while (gr->map_key[at] >= 0) {
        if ((uint32_t)gr->map_key[at] == row) return gr->map_val[at];
        at = (at + 1) & mask;
    }
    gr->map_key[at] = (int32_t)row;
    gr->map_val[at] = *n_groups;
    gr->group_row[*n_groups] = (int32_t)row;
    return (*n_groups)++;
}

/* dp [n, h*d] of one sample (its rows scaled in place by the reduction) ->
   scatter-adds into the tables' row accumulators: every slot_k(i, j), j in
   N(i), receives dp_i's k-th part.  Done per table as a gather: the pairs
   grouped by table row (stable, so in (i, j) order), each row accumulated
   in registers over its group's dp rows (which stay in cache) and stored
   once, rather than a read-modify-write of a table row per pair.  Every
   row gets the same additions in the same order as pair after pair would
   give, and rows are first touched in the same order: the same bits. */
static void pair_backward(const MixArgs *a, const int32_t *ids, float *dp, Groups *gr)
{
    int n = a->n, d = a->d, h = a->heads;
    size_t hd = (size_t)h * d;
    uint32_t K = (uint32_t)a->cfg->hash_size;
    for (int i = 0; i < n; i++) {
        float scale = reduce_scale(a->cfg, partners(a, i, a->causal));
        if (scale != 1.0f)
            for (size_t f = 0; f < hd; f++) dp[(size_t)i * hd + f] *= scale;
    }
    for (int k = 0; k < h; k++) {
        RowGrad *g = a->row_grads[k];
        if (!g) continue;
        uint32_t seed = table_seed(a, k);
        memset(gr->map_key, 0xff, sizeof(int32_t) * (size_t)gr->H);
        int32_t P = 0, G = 0;
        for (int i = 0; i < n; i++) {
            int end = a->causal ? i : n;
            for (int j = 0; j < end; j++) {
                if (j == i) continue;
                gr->pair_group[P] = group_of(gr, pair_slot(ids[i], ids[j], seed, K), &G);
                gr->pair_src[P++] = i;
            }
        }
        memset(gr->start, 0, sizeof(int32_t) * (size_t)(G + 1));
        for (int32_t p = 0; p < P; p++) gr->start[gr->pair_group[p] + 1]++;
        for (int32_t q = 0; q < G; q++) gr->start[q + 1] += gr->start[q];
        for (int32_t p = 0; p < P; p++) /* start[q] walks to start[q + 1] */
            gr->srcs[gr->start[gr->pair_group[p]]++] = dp + (size_t)gr->pair_src[p] * hd + (size_t)k * d;
        for (int32_t q = G; q > 0; q--) gr->start[q] = gr->start[q - 1];
        gr->start[0] = 0;
        float *row = G ? rowgrad_row(g, gr->group_row[0]) : NULL;
        for (int32_t q = 0; q < G; q++) { /* the next group's row fetched while this one sums */
            float *next = q + 1 < G ? rowgrad_row(g, gr->group_row[q + 1]) : NULL;
            if (next) prefetch_row(next, d);
            rows_add(row, gr->srcs + gr->start[q], gr->start[q + 1] - gr->start[q], d, 0);
            row = next;
        }
    }
}

/* z [N, n_in] -> out [N, d] = W2 GELU(W1 z + b1) + b2; hid, act [N, dp]
   keep the hidden layer before and after GELU.  w: the MLP's 4 params. */
static void mlp_forward(struct Gemm *g, const float *const *w, const float *z, int N, int n_in, int dp, int d, float *hid,
                        float *act, float *out)
{
    linear_forward(g, hid, z, w[W1], NULL, N, n_in, dp);
    bias_act_forward(act, hid, w[B1], N, dp, ACT_GELU);
    linear_forward(g, out, act, w[W2], w[B2], N, dp, d);
}

/* dout [N, d] -> dz [N, n_in] (overwritten; NULL to skip); the MLP's
   parameter gradients (from index i0) accumulate; dhid [N, dp] is scratch. */
static void mlp_backward(const MixArgs *a, int i0, const float *z, const float *hid, const float *act,
                         const float *dout, int N, int n_in, int dp, int d, float *dhid, float *dz)
{
    const float *const *w = a->w + i0;
    float *const *dw = a->dw + i0;
    linear_backward(a->gemm, dhid, dw[W2], dw[B2], dout, act, w[W2], N, dp, d, 0);
    act_backward_bias(dhid, hid, dw[B1], N, dp, ACT_GELU);
    linear_backward(a->gemm, dz, dw[W1], NULL, dhid, z, w[W1], N, n_in, dp, 0);
}

static void pairconnect_forward(const MixArgs *a, const float *x, float *y)
{
    int n = a->n, d = a->d, h = a->heads, dp = pair_width(a->cfg), N = a->B * n;
    Saved s = saved_split(a);
    for (int b = 0; b < a->B; b++)
        for (int i = 0; i < n; i++)
            pair_features(a, a->tokens + (size_t)b * n, i, a->causal, s.pair + ((size_t)b * n + i) * h * d);
    float *y_pair = a->scratch;
    mlp_forward(a->gemm, a->w + MLPX(h), x, N, d, dp, d, s.hx, s.ax, y);
    mlp_forward(a->gemm, a->w + MLPP(h), s.pair, N, h * d, dp, d, s.hp, s.ap, y_pair);
    vec_acc(y, y_pair, (size_t)N * d);
}

static void pairconnect_backward(const MixArgs *a, const float *x, const float *dy, float *dx)
{
    int n = a->n, d = a->d, h = a->heads, dp = pair_width(a->cfg), N = a->B * n;
    Saved s = saved_split(a);
    float *dhid = a->scratch, *dpair = dhid + (size_t)N * dp;
    mlp_backward(a, MLPX(h), x, s.hx, s.ax, dy, N, d, dp, d, dhid, dx);
    mlp_backward(a, MLPP(h), s.pair, s.hp, s.ap, dy, N, h * d, dp, d, dhid, dpair);
    Groups gr = groups_split(a->cfg, dpair + (size_t)N * h * d);
    for (int b = 0; b < a->B; b++) pair_backward(a, a->tokens + (size_t)b * n, dpair + (size_t)b * n * h * d, &gr);
}

/* Incremental decoding: position t pairs with the ids before it, which
   a->tokens holds, so the cache is unused (O(t h d) per token). */
static size_t pairconnect_cache(const Config *c)
{
    (void)c;
    return 0;
}

/* One row through an MLP by GEMVs (nothing packed per token). */
static void mlp_row(const float *const *w, const float *z, int n_in, int dp, int d, float *hid, float *act,
                    float *out)
{
    linear_row(hid, z, w[W1], w[B1], n_in, dp);
    act_forward(act, hid, (size_t)dp, ACT_GELU);
    linear_row(out, act, w[W2], w[B2], dp, d);
}

static void pairconnect_step(const MixArgs *a, int t, const float *x_t, float *y_t, float *cache)
{
    (void)cache;
    int d = a->d, h = a->heads, dp = pair_width(a->cfg);
    float *pair = a->scratch, *hid = pair + (size_t)h * d, *act = hid + dp, *y_pair = act + dp;
    pair_features(a, a->tokens, t, 1, pair);
    mlp_row(a->w + MLPX(h), x_t, d, dp, d, hid, act, y_t);
    mlp_row(a->w + MLPP(h), pair, h * d, dp, d, hid, act, y_pair);
    vec_acc(y_t, y_pair, (size_t)d);
}

/* Batch-1 inference (MixerInfer).  MLPp's first layer is linear in the
   pair features, so W1 p_i = scale * sum_k sum_j W1_k T_k[slot_k(i, j)]
   (W1_k: W1's columns k*d .. k*d + d - 1): with the tables folded through
   W1 once, U_k = T_k W1_k^T [K, d_p], the hidden layer is a sum of gathered
   U rows and its matrix product goes away (n h d d_p multiply-adds per
   window, about a third of the mixer's).  The folded tables take as much
   memory as the tables when d_p = d, so they are built only up to
   FOLD_MAX_FLOATS per block; beyond that MLPp's first layer is packed like
   the other three linear layers.  Same sums as forward up to summation
   order: float32 rounding. */
#define FOLD_MAX_FLOATS ((size_t)4 << 20)

enum { PX1, PX2, PP1, PP2, PACKED_LAYERS };

typedef struct {
    PackedLinear layer[PACKED_LAYERS];   /* PP1 unused when folded */
    float *folded;                       /* [h][K][d_p], or NULL */
} PairInfer;

static int pair_folds(const Config *c)
{
    return (size_t)c->heads * (size_t)c->hash_size * (size_t)pair_width(c) <= FOLD_MAX_FLOATS;
}

static void pair_infer_destroy(void *state)
{
    PairInfer *pi = state;
    if (!pi) return;
    for (int l = 0; l < PACKED_LAYERS; l++) packed_linear_free(&pi->layer[l]);
    free(pi->folded);
    free(pi);
}

static void *pair_infer_create(const Config *c, const float *const *w, char *err)
{
    int h = c->heads, d = c->d, dp = pair_width(c), K = c->hash_size;
    PairInfer *pi = calloc(1, sizeof *pi);
    if (!pi) {
        err_set(err, "out of memory for pairconnect inference");
        return NULL;
    }
    const float *const *x = w + MLPX(h), *const *p = w + MLPP(h);
    int bad = packed_linear_make(&pi->layer[PX1], x[W1], d, dp, err) ||
              packed_linear_make(&pi->layer[PX2], x[W2], dp, d, err) ||
              packed_linear_make(&pi->layer[PP2], p[W2], dp, d, err);
    if (!bad && pair_folds(c)) {
        pi->folded = malloc(sizeof(float) * (size_t)h * K * dp);
        bad = !pi->folded;
        if (bad) err_set(err, "out of memory for pairconnect's folded tables");
        for (int k = 0; k < h && !bad; k++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, dp, d, 1.0f, w[k], d, p[W1] + (size_t)k * d,
                        h * d, 0.0f, pi->folded + (size_t)k * K * dp, dp);
    } else if (!bad) {
        bad = packed_linear_make(&pi->layer[PP1], p[W1], h * d, dp, err);
    }
    if (bad) {
        pair_infer_destroy(pi);
        return NULL;
    }
    return pi;
}

static double pair_infer_bytes(const Config *c)
{
    double h = c->heads, d = c->d, dp = pair_width(c), panel = 32.0;
    double out_dp = ceil(dp / panel) * panel, out_d = ceil(d / panel) * panel;
    double mlpp1 = pair_folds(c) ? h * c->hash_size * dp : out_dp * h * d;
    return 4.0 * (out_dp * d + 2.0 * out_d * dp + mlpp1);
}

/* Row i of MLPp's hidden layer from the folded tables: hid_i [d_p] =
   b1 + scale * sum_k sum_j U_k[slot_k(i, j)], j in N(i). */
static void pair_hidden_folded(const MixArgs *a, const PairInfer *pi, const int32_t *ids, int i, int causal,
                               float *hid_i)
{
    int h = a->heads, dp = pair_width(a->cfg);
    size_t K = (size_t)a->cfg->hash_size;
    memset(hid_i, 0, sizeof(float) * dp);
    for (int k = 0; k < h; k++) gather_rows(a, ids, i, causal, k, pi->folded + (size_t)k * K * dp, dp, hid_i);
    float scale = reduce_scale(a->cfg, partners(a, i, causal));
    const float *b1 = a->w[MLPP(h) + B1];
    for (int f = 0; f < dp; f++) hid_i[f] = b1[f] + scale * hid_i[f];
}

/* mlp_forward from the hidden layer on, with W2 packed: out = W2 GELU(hid) + b2. */
static void mlp_packed_out(const PackedLinear *w2, const float *b2, const float *hid, int N, int dp, float *act,
                           float *out)
{
    act_forward(act, hid, (size_t)N * dp, ACT_GELU);
    packed_linear_forward(w2, out, act, b2, N);
}

/* y_pair [N, d] = MLPp(p) for the N rows from `first` on (window rows, or
   the one row of a step); pair [N, h*d] and hid, act [N, d_p] scratch. */
static void mlpp_rows(const MixArgs *a, const PairInfer *pi, int first, int N, int causal, float *pair, float *hid,
                      float *act, float *y_pair)
{
    int d = a->d, h = a->heads, dp = pair_width(a->cfg);
    const float *const *w = a->w + MLPP(h);
    for (int r = 0; r < N; r++) {
        if (pi->folded) pair_hidden_folded(a, pi, a->tokens, first + r, causal, hid + (size_t)r * dp);
        else pair_features(a, a->tokens, first + r, causal, pair + (size_t)r * h * d);
    }
    if (!pi->folded) packed_linear_forward(&pi->layer[PP1], hid, pair, w[B1], N);
    mlp_packed_out(&pi->layer[PP2], w[B2], hid, N, dp, act, y_pair);
}

/* y [N, d] = MLPx(x) + MLPp(p): the rows from `first` on. */
static void pair_infer_rows(const MixArgs *a, const PairInfer *pi, int first, int N, int causal, const float *x,
                            float *y, float *pair, float *hid, float *act, float *y_pair)
{
    int h = a->heads, dp = pair_width(a->cfg);
    const float *const *w = a->w + MLPX(h);
    packed_linear_forward(&pi->layer[PX1], hid, x, w[B1], N);
    mlp_packed_out(&pi->layer[PX2], w[B2], hid, N, dp, act, y);
    mlpp_rows(a, pi, first, N, causal, pair, hid, act, y_pair);
    vec_acc(y, y_pair, (size_t)N * a->d);
}

static void pair_infer_forward(const MixArgs *a, void *state, const float *x, float *y)
{
    Saved s = saved_split(a);
    pair_infer_rows(a, state, 0, a->n, a->causal, x, y, s.pair, s.hx, s.ax, a->scratch);
}

static void pair_infer_step(const MixArgs *a, void *state, int t, const float *x_t, float *y_t, float *cache)
{
    (void)cache;
    int d = a->d, h = a->heads, dp = pair_width(a->cfg);
    float *pair = a->scratch, *hid = pair + (size_t)h * d, *act = hid + dp, *y_pair = act + dp;
    pair_infer_rows(a, state, t, 1, 1, x_t, y_t, pair, hid, act, y_pair);
}

static const MixerInfer pair_infer = {
    .create = pair_infer_create,
    .destroy = pair_infer_destroy,
    .bytes = pair_infer_bytes,
    .forward = pair_infer_forward,
    .step = pair_infer_step,
};

/* The pair lookups: h*d adds per partner forward and as many scatter-adds
   backward; a token has (n-1)/2 partners on average causal, n-1
   bidirectional.  (The MLPs are dense parameters: 6 x params.) */
static double pairconnect_flops(const Config *c, int causal)
{
    double partners_per_token = causal ? (c->n_ctx - 1) / 2.0 : (double)(c->n_ctx - 1);
    return 2.0 * c->heads * c->d * partners_per_token;
}

/* tests/engine/test_mixer_contract.c checks these besides the defaults: the
   other reduction, and pair vectors narrower than d in a small table */
static const char *const PAIRCONNECT_CHECK_VARIANTS[] = {"pair_reduce=sum", "d_pair=4 hash_size=50", NULL};

const MixerOps mixer_pairconnect = {
    .name = "pairconnect",
    .summary = "PairConnect: hashed pairwise token embeddings + MLPs",
    .has_causal = 1,
    .has_bidir = 1,
    .default_pos = POS_LEARNED,
    .check_config = pairconnect_check,
    .declare = pairconnect_declare,
    .saved_per_sample = pairconnect_saved,
    .scratch_floats = pairconnect_scratch,
    .forward = pairconnect_forward,
    .backward = pairconnect_backward,
    .cache_floats = pairconnect_cache,
    .forward_step = pairconnect_step,
    .extra_flops_per_token = pairconnect_flops,
    .infer = &pair_infer,
    .check_variants = PAIRCONNECT_CHECK_VARIANTS,
};
