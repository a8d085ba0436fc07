/*
 * test_pairconnect.c — the PairConnect mixer and the sparse-row gradient path
 * its hash tables use: pair slots against MurmurHash3 computed here and by an
 * independent implementation; the forward pass against a double-precision
 * reference; table gradients (collisions included) by finite differences;
 * row accumulators against dense sums; table_optim = adamw bit for bit equal
 * to dense AdamW; lazy = PyTorch SparseAdam (numbers from torch 1.13) moving
 * only touched rows; incremental decoding; determinism of whole runs; and
 * K = 1,000,000 training, with step times printed per K and mode.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/murmur3.h"
#include "engine/ops.h"
#include "engine/optim.h"
#include "engine/sparse.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

/* One pairconnect block, alone (V 13, d 4, h 2, n 5 unless args say). */
static int rig_open(MixerRig *r, int B, int causal, const char *const *args)
{
    char err[512];
    memset(r, 0, sizeof *r);
    config_defaults(&r->c);
    const char *base[] = {"arch=pairconnect", "vocab=13", "d=4", "heads=2", "n_ctx=5", "layers=1", "batch=2", NULL};
    for (int i = 0; base[i]; i++) config_set_arg(&r->c, base[i], err);
    for (int i = 0; args && args[i]; i++)
        if (config_set_arg(&r->c, args[i], err)) {
            printf("  %s\n", err);
            return -1;
        }
    if (config_validate(&r->c, err) || model_build(&r->m, &r->c, err) || work_alloc(&r->w, &r->m, B, 1, err)) {
        printf("  %s\n", err);
        return -1;
    }
    rig_wire(r, B, r->c.n_ctx, causal);
    return 0;
}

static float *rig_param(MixerRig *r, int k) { return model_param(&r->m, r->m.stacks[0].blocks[0].mix0 + k); }
static const Param *rig_decl(MixerRig *r, int k) { return &r->m.params[r->m.stacks[0].blocks[0].mix0 + k]; }

/* slot_k(i, j) straight from the SPEC: murmur3_32 over the 8 key bytes. */
static uint32_t spec_slot(int32_t ti, int32_t tj, uint32_t seed, uint32_t K)
{
    uint8_t key[8];
    for (int b = 0; b < 4; b++) {
        key[b] = (uint8_t)((uint32_t)ti >> (8 * b));
        key[4 + b] = (uint8_t)((uint32_t)tj >> (8 * b));
    }
    return murmur3_32(key, 8, seed) % K;
}

/* ---- pair slots ---- */

static void test_pair_slots(void)
{
    /* slot values from an independent Python MurmurHash3_x86_32 */
    struct {
        int hash_seed, K, block, k;
        int32_t a, b;
        uint32_t slot_ab, slot_ba;
    } cases[] = {
        {0, 1000, 0, 0, 2, 3, 772, 490},
        {7, 1000, 2, 1, 11, 4, 539, 777},
        {0, 1000000, 0, 0, 2, 3, 705772, 0},
        {7, 97, 2, 0, 12, 9, 35, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char seed_arg[40], k_arg[40];
        snprintf(seed_arg, sizeof seed_arg, "hash_seed=%d", cases[c].hash_seed);
        snprintf(k_arg, sizeof k_arg, "hash_size=%d", cases[c].K);
        const char *args[] = {seed_arg, k_arg, "n_ctx=2", NULL};
        MixerRig r;
        if (rig_open(&r, 1, 0, args)) { CHECK(0, "rig"); continue; }
        int h = r.c.heads, d = r.c.d;
        /* row s of every table holds s in column 0: p reads back the slot */
        for (int k = 0; k < h; k++) {
            float *T = rig_param(&r, k);
            memset(T, 0, sizeof(float) * rig_decl(&r, k)->numel);
            for (int s = 0; s < cases[c].K; s++) T[(size_t)s * d] = (float)s;
        }
        r.a.block = cases[c].block;
        r.w.inputs[0] = cases[c].a;
        r.w.inputs[1] = cases[c].b;
        float x[8] = {0}, y[8];
        r.m.mixer->forward(&r.a, x, y);
        const float *p = r.a.saved;   /* p [n, h*d] leads the saved floats */
        for (int k = 0; k < h; k++) {
            uint32_t seed = (uint32_t)(cases[c].hash_seed + 1000 * cases[c].block + k);
            uint32_t ab = spec_slot(cases[c].a, cases[c].b, seed, cases[c].K);
            uint32_t ba = spec_slot(cases[c].b, cases[c].a, seed, cases[c].K);
            CHECK(p[k * d] == (float)ab, "case %zu table %d: slot(a, b) %g, murmur3 %u", c, k, p[k * d], ab);
            CHECK(p[h * d + k * d] == (float)ba, "case %zu table %d: slot(b, a) %g, murmur3 %u", c, k,
                  p[h * d + k * d], ba);
            if (k == cases[c].k) {
                CHECK(ab == cases[c].slot_ab, "case %zu: slot %u, independent value %u", c, ab, cases[c].slot_ab);
                if (cases[c].slot_ba)
                    CHECK(ba == cases[c].slot_ba, "case %zu: slot %u, independent value %u", c, ba,
                          cases[c].slot_ba);
            }
            CHECK(murmur3_u32_pair((uint32_t)cases[c].a, (uint32_t)cases[c].b, seed) % (uint32_t)cases[c].K == ab,
                  "inline pair hash differs");
        }
        rig_close(&r);
    }
}

/* ---- forward against a double-precision reference ---- */

static double gelu_d(double v) { return 0.5 * v * (1.0 + erf(v / sqrt(2.0))); }

/* out [d] = W2 GELU(W1 z + b1) + b2 in double; w: the MLP's 4 params. */
static void mlp_ref(const float *const *w, const double *z, int n_in, int dp, int d, double *out)
{
    double hid[256];
    for (int o = 0; o < dp; o++) {
        double s = w[1][o];
        for (int i = 0; i < n_in; i++) s += (double)w[0][(size_t)o * n_in + i] * z[i];
        hid[o] = gelu_d(s);
    }
    for (int o = 0; o < d; o++) {
        double s = w[3][o];
        for (int i = 0; i < dp; i++) s += (double)w[2][(size_t)o * dp + i] * hid[i];
        out[o] = s;
    }
}

static void reference_forward(const MixArgs *a, const float *x, double *y)
{
    const Config *c = a->cfg;
    int n = a->n, d = a->d, h = a->heads, dp = c->d_pair ? c->d_pair : d;
    double p[512], z[256], out_x[256], out_p[256];
    for (int b = 0; b < a->B; b++)
        for (int i = 0; i < n; i++) {
            const int32_t *ids = a->tokens + (size_t)b * n;
            int count = 0;
            memset(p, 0, sizeof p);
            for (int j = 0; j < n; j++) {
                if (j == i || (a->causal && j > i)) continue;
                count++;
                for (int k = 0; k < h; k++) {
                    uint32_t seed = (uint32_t)(c->hash_seed + 1000 * a->block + k);
                    const float *row = a->w[k] + (size_t)spec_slot(ids[i], ids[j], seed, (uint32_t)c->hash_size) * d;
                    for (int f = 0; f < d; f++) p[k * d + f] += row[f];
                }
            }
            if (c->pair_reduce == REDUCE_MEAN && count)
                for (int f = 0; f < h * d; f++) p[f] /= count;
            for (int f = 0; f < d; f++) z[f] = x[((size_t)b * n + i) * d + f];
            mlp_ref(a->w + h, z, d, dp, d, out_x);
            mlp_ref(a->w + h + 4, p, h * d, dp, d, out_p);
            for (int f = 0; f < d; f++) y[((size_t)b * n + i) * d + f] = out_x[f] + out_p[f];
        }
}

static void test_forward_reference(void)
{
    const char *reduce[] = {"pair_reduce=mean", "pair_reduce=sum"};
    /* the second shape's rows (160 floats) take both the 16-lane blocks and
       a tail of the gathers' sums */
    const char *shapes[][4] = {{"hash_size=11", "heads=3", "d=6", "d_pair=5"},
                               {"hash_size=4000", "heads=2", "d=160", "d_pair=24"}};
    for (int shape = 0; shape < 2; shape++)
    for (int causal = 0; causal <= 1; causal++)
        for (int rd = 0; rd < 2; rd++) {
            const char *args[] = {reduce[rd], shapes[shape][0], shapes[shape][1], shapes[shape][2], shapes[shape][3],
                                  "n_ctx=7", "hash_seed=3", NULL};
            MixerRig r;
            int B = 2;
            if (rig_open(&r, B, causal, args)) { CHECK(0, "rig"); continue; }
            Rng rng;
            rng_seed(&rng, 21);
            for (int k = 0; k < r.m.stacks[0].blocks[0].n_mix; k++) fill(rig_param(&r, k), rig_decl(&r, k)->numel, &rng, 0.5f);
            r.a.block = 1;
            size_t N = (size_t)B * r.c.n_ctx * r.c.d;
            float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
            double *ref = malloc(sizeof(double) * N);
            fill(x, N, &rng, 1.0f);
            for (int i = 0; i < B * r.c.n_ctx; i++) r.w.inputs[i] = 2 + (int32_t)rng_below(&rng, 11);
            r.m.mixer->forward(&r.a, x, y);
            reference_forward(&r.a, x, ref);
            double worst = 0, scale = 0;
            for (size_t i = 0; i < N; i++) {
                worst = fmax(worst, fabs(y[i] - ref[i]));
                scale = fmax(scale, fabs(ref[i]));
            }
            CHECK(worst <= 2e-6 * scale, "%s causal=%d %s: forward differs from the reference by %g (scale %g)",
                  shapes[shape][0], causal, reduce[rd], worst, scale);
            free(x);
            free(y);
            free(ref);
            rig_close(&r);
        }
}

/* ---- table gradients by finite differences (K = 7: slots collide) ---- */

static double rig_loss(MixerRig *r, const float *x, float *y, const float *rr, size_t N)
{
    r->m.mixer->forward(&r->a, x, y);
    double s = 0;
    for (size_t i = 0; i < N; i++) s += (double)y[i] * rr[i];
    return s;
}

static void test_table_grads(void)
{
    const char *reduce[] = {"pair_reduce=mean", "pair_reduce=sum"};
    for (int causal = 0; causal <= 1; causal++)
        for (int rd = 0; rd < 2; rd++) {
            const char *args[] = {reduce[rd], "hash_size=7", "d_pair=3", NULL};
            MixerRig r;
            int B = 2;
            if (rig_open(&r, B, causal, args)) { CHECK(0, "rig"); continue; }
            Rng rng;
            rng_seed(&rng, 5);
            int n_mix = r.m.stacks[0].blocks[0].n_mix;
            for (int k = 0; k < n_mix; k++) fill(rig_param(&r, k), rig_decl(&r, k)->numel, &rng, 0.5f);
            size_t N = (size_t)B * r.c.n_ctx * r.c.d;
            float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *rr = malloc(sizeof(float) * N),
                  *dx = malloc(sizeof(float) * N), *grads = malloc(sizeof(float) * r.m.n_floats);
            fill(x, N, &rng, 1.0f);
            fill(rr, N, &rng, 1.0f);
            for (int i = 0; i < B * r.c.n_ctx; i++) r.w.inputs[i] = 2 + (int32_t)rng_below(&rng, 4); /* repeats */
            work_zero_grads(&r.w, &r.m);
            r.m.mixer->forward(&r.a, x, y);
            r.m.mixer->backward(&r.a, x, rr, dx);
            work_dense_grads(&r.w, &r.m, grads);
            int bad = 0, nonzero = 0;
            float h = 1e-2f;
            for (int k = 0; k < r.c.heads; k++) {
                const Param *p = rig_decl(&r, k);
                float *T = rig_param(&r, k);
                for (size_t i = 0; i < p->numel; i++) {
                    float keep = T[i];
                    T[i] = keep + h; double lp = rig_loss(&r, x, y, rr, N);
                    T[i] = keep - h; double lm = rig_loss(&r, x, y, rr, N);
                    T[i] = keep;
                    double num = (lp - lm) / (2 * h), ana = grads[p->offset + i];
                    nonzero += ana != 0.0;
                    if (fabs(num - ana) > 1e-2 * fmax(fabs(num), fabs(ana)) + 1e-3 && bad++ < 5)
                        CHECK(0, "causal=%d %s: %s[%zu] numeric %g analytic %g", causal, reduce[rd], p->name, i, num,
                              ana);
                }
            }
            CHECK(nonzero > 10, "only %d non-zero table gradient entries", nonzero);
            free(x); free(y); free(rr); free(dx); free(grads);
            rig_close(&r);
        }
}

/* ---- row accumulators ---- */

static void test_rowgrad(void)
{
    enum { K = 50, W = 3, ADDS = 40 };
    RowGrad g[2], merged;
    char err[ERR_LEN];
    CHECK(rowgrad_init(&g[0], 0, K, W, ADDS, err) == 0, "%s", err);
    CHECK(rowgrad_init(&g[1], 0, K, W, ADDS, err) == 0, "%s", err);
    CHECK(rowgrad_init(&merged, 0, K, W, K, err) == 0, "%s", err);
    float dense[2][K * W], sum[K * W], back[K * W];
    Rng r;
    rng_seed(&r, 9);
    for (int round = 0; round < 3; round++) { /* clear makes them reusable */
        memset(dense, 0, sizeof dense);
        for (int t = 0; t < 2; t++) {
            rowgrad_clear(&g[t]);
            for (int i = 0; i < ADDS; i++) {
                int row = (int)rng_below(&r, K);
                float v[W];
                fill(v, W, &r, 1.0f);
                vec_acc(rowgrad_row(&g[t], row), v, W);
                vec_acc(dense[t] + row * W, v, W);
            }
            memset(back, 0, sizeof back);
            rowgrad_scatter(&g[t], back);
            CHECK(memcmp(back, dense[t], sizeof back) == 0, "scatter differs from dense accumulation");
        }
        rowgrad_clear(&merged);
        rowgrad_merge(&merged, &g[0]);
        rowgrad_merge(&merged, &g[1]);
        /* the dense path's thread sum: buffer 0, then += buffer 1 */
        for (int i = 0; i < K * W; i++) sum[i] = dense[0][i] + dense[1][i];
        memset(back, 0, sizeof back);
        rowgrad_scatter(&merged, back);
        CHECK(memcmp(back, sum, sizeof back) == 0, "merged rows differ from the dense sum");
        double ss = 0;
        for (int i = 0; i < K * W; i++) ss += (double)sum[i] * sum[i];
        CHECK(fabs(rowgrad_sumsq(&merged) - ss) <= 1e-12 * ss, "sumsq %g vs %g", rowgrad_sumsq(&merged), ss);
        CHECK(!merged.overflow && !g[0].overflow, "overflow flagged");
    }
    /* more rows than the capacity: flagged, nothing written out of bounds */
    RowGrad small;
    CHECK(rowgrad_init(&small, 0, K, W, 2, err) == 0, "%s", err);
    for (int row = 0; row < 5; row++) rowgrad_row(&small, row)[0] += 1.0f;
    CHECK(small.overflow && small.count == 2, "overflow %d count %lld", small.overflow, (long long)small.count);
    rowgrad_clear(&small);
    CHECK(!small.overflow && small.count == 0 && small.slot_of[0] == -1 && small.slot_of[1] == -1, "clear");
    rowgrad_free(&small);
    rowgrad_free(&g[0]);
    rowgrad_free(&g[1]);
    rowgrad_free(&merged);
}

/* ---- the optimizer: sparse adamw == dense AdamW, bit for bit ---- */

/* One optimizer step of model a through the sparse path (the work's row
   accumulators as the step's gradient). */
static void sparse_step(Model *a, AdamW *o, Work *w, float coef, double lr, double wd, int64_t t)
{
    adamw_update(a, o, w->grads, coef, lr, wd, t, 0, a->n_dense_floats);
    for (int s = 0; s < a->n_sparse; s++) {
        adamw_sparse_begin(o, s, &w->row_grads[s]);
        adamw_sparse_update(a, o, s, &w->row_grads[s], coef, lr, t, 0, adamw_sparse_rows(o, s, &w->row_grads[s]));
    }
}

static void test_sparse_adamw_is_dense_adamw(void)
{
    Model a, b;
    Config c;
    const char *keys[] = {"arch=pairconnect", "hash_size=200", "heads=2", "n_ctx=6", "layers=2", "seed=4"};
    if (tm_build(&a, &c, keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], NULL) ||
        tm_build(&b, &c, keys[0], keys[1], keys[2], keys[3], keys[4], keys[5], NULL)) {
        CHECK(0, "build");
        return;
    }
    CHECK(a.n_sparse == 4 && a.n_dense_floats < a.n_floats, "n_sparse %d", a.n_sparse);
    CHECK(memcmp(a.w, b.w, sizeof(float) * a.n_floats) == 0, "same seed, different init");
    Work w;
    AdamW oa, ob;
    char err[ERR_LEN];
    int B = 2;
    if (work_alloc(&w, &a, B, 1, err) || adamw_init(&oa, &a, err) || adamw_init(&ob, &b, err)) {
        CHECK(0, "%s", err);
        return;
    }
    float *dense = malloc(sizeof(float) * a.n_floats), *init = malloc(sizeof(float) * a.n_floats);
    memcpy(init, a.w, sizeof(float) * a.n_floats);
    int64_t idle_live = 0;
    for (int64_t t = 1; t <= 8; t++) {
        tm_batch(&a, &w, B, 100 + (uint64_t)t);
        tm_run(&a, &w, B, 1, 0);
        work_dense_grads(&w, &a, dense);
        float coef = t % 2 ? 0.7f : 1.0f;
        double lr = 0.01 * (double)t;
        for (int s = 0; s < a.n_sparse; s++) /* live rows this step has no gradient for */
            for (int64_t i = 0; i < oa.live[s].count; i++) idle_live += !rowgrad_find(&w.row_grads[s], oa.live[s].rows[i]);
        sparse_step(&a, &oa, &w, coef, lr, 0.01, t);
        adamw_update(&b, &ob, dense, coef, lr, 0.01, t, 0, b.n_floats);   /* everything dense */
        CHECK(memcmp(a.w, b.w, sizeof(float) * a.n_floats) == 0, "step %lld: parameters differ", (long long)t);
        CHECK(memcmp(oa.m, ob.m, sizeof(float) * a.n_floats) == 0, "step %lld: m differs", (long long)t);
        CHECK(memcmp(oa.v, ob.v, sizeof(float) * a.n_floats) == 0, "step %lld: v differs", (long long)t);
    }
    CHECK(idle_live > 0, "no live row went a step without gradient: the decay path is untested");
    int64_t untouched = 0, moved = 0;
    for (int i = 0; i < a.n_params; i++) {
        const Param *p = &a.params[i];
        if (!p->sparse_rows) continue;
        for (size_t j = 0; j < p->numel; j++) {
            untouched += a.w[p->offset + j] == init[p->offset + j];
            moved += a.w[p->offset + j] != init[p->offset + j];
        }
    }
    CHECK(untouched > 0 && moved > 0, "untouched %lld moved %lld table entries", (long long)untouched, (long long)moved);
    free(dense);
    free(init);
    adamw_free(&oa);
    adamw_free(&ob);
    work_free(&w);
    model_free(&a);
    model_free(&b);
}

/* ---- lazy = SparseAdam; and both modes against torch 1.13 ---- */

static void test_lazy_moves_touched_rows_only(void)
{
    Model a;
    Config c;
    if (tm_build(&a, &c, "arch=pairconnect", "hash_size=300", "n_ctx=5", "table_optim=lazy", NULL)) {
        CHECK(0, "build");
        return;
    }
    Work w;
    AdamW o;
    char err[ERR_LEN];
    int B = 2;
    if (work_alloc(&w, &a, B, 1, err) || adamw_init(&o, &a, err)) { CHECK(0, "%s", err); return; }
    float *before = malloc(sizeof(float) * a.n_floats), *m_before = malloc(sizeof(float) * a.n_floats);
    for (int64_t t = 1; t <= 4; t++) {
        tm_batch(&a, &w, B, 7 + (uint64_t)t);
        tm_run(&a, &w, B, 1, 0);
        memcpy(before, a.w, sizeof(float) * a.n_floats);
        memcpy(m_before, o.m, sizeof(float) * a.n_floats);
        sparse_step(&a, &o, &w, 1.0f, 0.01, 0.0, t);
        int bad = 0;
        for (int s = 0; s < a.n_sparse; s++) {
            int moved_rows = 0;
            const RowGrad *g = &w.row_grads[s];
            const Param *p = &a.params[g->param];
            for (int64_t row = 0; row < g->rows; row++) {
                size_t at = p->offset + (size_t)row * g->width;
                int same = !memcmp(a.w + at, before + at, sizeof(float) * g->width) &&
                           !memcmp(o.m + at, m_before + at, sizeof(float) * g->width);
                if (rowgrad_find(g, row)) moved_rows += !same;
                else bad += !same;
            }
            CHECK(moved_rows > 0 && moved_rows <= g->count, "%d rows moved, %lld touched", moved_rows,
                  (long long)g->count);
        }
        CHECK(bad == 0, "step %lld: %d untouched rows changed", (long long)t, bad);
    }
    free(before);
    free(m_before);
    adamw_free(&o);
    work_free(&w);
    model_free(&a);
}

/* A [3, 2] table stepped by hand with sparse gradients (rows {0, 2}, {1},
   {0, 1}), lr 0.1: torch.optim.SparseAdam and torch.optim.AdamW
   (weight_decay 0) give these parameters. */
static void test_against_torch(void)
{
    static const float init[6] = {0.5f, -0.25f, 0.125f, 1.0f, -0.75f, 0.3f};
    static const float want[2][6] = {
        {0.317143202f, -0.154518366f, 0.270717263f, 0.839649737f, -0.849999905f, 0.200000644f},   /* lazy */
        {0.252700359f, -0.0915809572f, 0.270717382f, 0.839649677f, -0.968801439f, 0.0811985582f}, /* adamw */
    };
    static const int rows[3][2] = {{0, 2}, {1, -1}, {0, 1}};
    static const float vals[3][2][2] = {{{0.1f, -0.2f}, {0.3f, 0.05f}}, {{-0.4f, 0.6f}}, {{0.2f, 0.2f}, {-0.1f, 0.7f}}};
    for (int mode = 0; mode < 2; mode++) {
        Param p;
        memset(&p, 0, sizeof p);
        snprintf(p.name, sizeof p.name, "table0");
        p.ndim = 2;
        p.shape[0] = 3;
        p.shape[1] = 2;
        p.numel = 6;
        p.sparse_rows = 1;
        Model m;
        memset(&m, 0, sizeof m);
        config_defaults(&m.cfg);
        m.cfg.table_optim = mode == 0 ? TABLE_LAZY : TABLE_ADAMW;
        m.params = &p;
        m.n_params = 1;
        m.n_floats = 16;
        m.n_sparse = 1;
        float w[16] = {0};
        memcpy(w, init, sizeof init);
        m.w = w;
        AdamW o;
        RowGrad g;
        char err[ERR_LEN];
        if (adamw_init(&o, &m, err) || rowgrad_init(&g, 0, 3, 2, 3, err)) { CHECK(0, "%s", err); return; }
        for (int t = 0; t < 3; t++) {
            rowgrad_clear(&g);
            for (int r = 0; r < 2 && rows[t][r] >= 0; r++) vec_acc(rowgrad_row(&g, rows[t][r]), vals[t][r], 2);
            adamw_sparse_begin(&o, 0, &g);
            adamw_sparse_update(&m, &o, 0, &g, 1.0f, 0.1, t + 1, 0, adamw_sparse_rows(&o, 0, &g));
        }
        for (int i = 0; i < 6; i++)
            CHECK(fabsf(w[i] - want[mode][i]) <= 1e-6f * fabsf(want[mode][i]), "%s: p[%d] = %.9g, torch %.9g",
                  mode ? "adamw" : "lazy", i, w[i], want[mode][i]);
        rowgrad_free(&g);
        adamw_free(&o);
    }
}

/* ---- incremental decoding ---- */

static void test_forward_step(void)
{
    const char *args[] = {"hash_size=13", "n_ctx=6", "d_pair=7", NULL};
    MixerRig r;
    if (rig_open(&r, 1, 1, args)) { CHECK(0, "rig"); return; }
    Rng rng;
    rng_seed(&rng, 31);
    for (int k = 0; k < r.m.stacks[0].blocks[0].n_mix; k++) fill(rig_param(&r, k), rig_decl(&r, k)->numel, &rng, 0.5f);
    r.a.block = 1;
    int n = r.c.n_ctx, d = r.c.d;
    float x[6 * 4], full[6 * 4], step[4];
    fill(x, (size_t)n * d, &rng, 1.0f);
    for (int i = 0; i < n; i++) r.w.inputs[i] = 2 + (int32_t)rng_below(&rng, 400);
    r.m.mixer->forward(&r.a, x, full);
    CHECK(r.m.mixer->cache_floats(&r.m.cfg) == 0, "pairconnect keeps no cache");
    for (int t = 0; t < n; t++) {
        r.m.mixer->forward_step(&r.a, t, x + t * d, step, NULL);
        for (int f = 0; f < d; f++)
            CHECK(fabsf(step[f] - full[t * d + f]) <= 1e-6f * (1.0f + fabsf(full[t * d + f])), "t=%d f=%d: %g vs %g",
                  t, f, step[f], full[t * d + f]);
    }
    rig_close(&r);
}

/* ---- whole training runs ---- */

/* Trains `steps` steps; losses [steps]; *final_w gets a copy of the weights
   and *n_floats their count (may be NULL); *step_seconds the mean time of
   the steps after the first.  Returns 0 or -1. */
static int train(const char *const *args, const Dataset *ds, int steps, double *losses, float **final_w,
                 size_t *n_floats, double *step_seconds)
{
    Config c;
    Model m;
    Trainer *t;
    char err[ERR_LEN];
    config_defaults(&c);
    for (int i = 0; args[i]; i++)
        if (config_set_arg(&c, args[i], err)) { printf("  %s\n", err); return -1; }
    c.vocab = ds->vocab;
    if (config_validate(&c, err) || model_build(&m, &c, err)) { printf("  %s\n", err); return -1; }
    if (trainer_create(&t, &m, ds, c.threads, 1, err)) {
        printf("  %s\n", err);
        model_free(&m);
        return -1;
    }
    TrainProgress p;
    int rc = 0;
    double start = 0;
    for (int s = 0; s < steps && rc == 0; s++) {
        if (s == 1) start = now_seconds();
        if (trainer_step(t, &p, err)) { printf("  %s\n", err); rc = -1; }
        losses[s] = p.loss;
    }
    if (step_seconds) *step_seconds = steps > 1 ? (now_seconds() - start) / (steps - 1) : 0;
    if (final_w) {
        *final_w = malloc(sizeof(float) * m.n_floats);
        memcpy(*final_w, m.w, sizeof(float) * m.n_floats);
        *n_floats = m.n_floats;
    }
    trainer_free(t);
    model_free(&m);
    return rc;
}

static void test_determinism(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 40, 3000, 2);
    const char *tasks[] = {"task=clm", "task=mlm"}, *optims[] = {"table_optim=adamw", "table_optim=lazy"};
    for (int threads = 1; threads <= 2; threads++)
        for (int k = 0; k < 2; k++) {
            char th[32];
            snprintf(th, sizeof th, "threads=%d", threads);
            const char *args[] = {"arch=pairconnect", tasks[k], optims[k], "d=16", "layers=2", "heads=2", "n_ctx=12",
                                  "batch=5", "hash_size=500", "dropout=0.1", "steps=10", "lr=0.01", th, NULL};
            double l1[10], l2[10];
            float *w1 = NULL, *w2 = NULL;
            size_t n1 = 0, n2 = 0;
            if (train(args, &ds, 10, l1, &w1, &n1, NULL) || train(args, &ds, 10, l2, &w2, &n2, NULL)) {
                CHECK(0, "train");
                free(w1);
                free(w2);
                continue;
            }
            CHECK(memcmp(l1, l2, sizeof l1) == 0, "threads=%d %s: losses differ between identical runs", threads,
                  tasks[k]);
            CHECK(n1 == n2 && memcmp(w1, w2, sizeof(float) * n1) == 0, "threads=%d %s: weights differ", threads,
                  tasks[k]);
            CHECK(isfinite(l1[9]), "threads=%d %s: loss %g", threads, tasks[k], l1[9]);
            free(w1);
            free(w2);
        }
    tm_free_dataset(&ds);
}

/* K up to 1e6: training works and, in lazy mode, a step's time does not
   grow with K (times are printed, not asserted: the machine is shared). */
static void test_large_tables(void)
{
    Dataset ds;
    tm_random_dataset(&ds, 200, 20000, 3);
    for (int s = 0; s < SPLIT_COUNT; s++) /* learnable: next = 3 prev + noise */
        for (size_t i = 1; i < ds.split[s].len; i++)
            ds.split[s].ids[i] = 2 + (3 * ds.split[s].ids[i - 1] + ds.split[s].ids[i] % 3) % 198;
    const char *sizes[] = {"hash_size=1000", "hash_size=100000", "hash_size=1000000"};
    const char *optims[] = {"table_optim=lazy", "table_optim=adamw"};
    for (int o = 0; o < 2; o++)
        for (int k = 0; k < 3; k++) {
            const char *args[] = {"arch=pairconnect", sizes[k], optims[o], "d=16", "layers=1", "heads=1", "n_ctx=32",
                                  "batch=8", "lr=0.01", "warmup=0", "decay=constant", "threads=1", NULL};
            enum { STEPS = 12 };
            double losses[STEPS], secs = 0;
            if (train(args, &ds, STEPS, losses, NULL, NULL, &secs)) { CHECK(0, "%s %s", sizes[k], optims[o]); continue; }
            CHECK(isfinite(losses[STEPS - 1]) && losses[STEPS - 1] < losses[0], "%s %s: loss %g -> %g", sizes[k],
                  optims[o], losses[0], losses[STEPS - 1]);
            printf("  %-17s %-17s d=16: %.2f ms per step, loss %.3f -> %.3f\n", sizes[k], optims[o], 1e3 * secs,
                   losses[0], losses[STEPS - 1]);
        }
    tm_free_dataset(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_pair_slots);
    RUN(test_forward_reference);
    RUN(test_table_grads);
    RUN(test_rowgrad);
    RUN(test_sparse_adamw_is_dense_adamw);
    RUN(test_lazy_moves_touched_rows_only);
    RUN(test_against_torch);
    RUN(test_forward_step);
    RUN(test_determinism);
    RUN(test_large_tables);
    CHECK_EXIT();
}
