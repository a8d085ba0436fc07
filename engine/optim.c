/*
 * optim.c — AdamW, schedule and clipping of optim.h.  The arithmetic follows
 * PyTorch's single-tensor AdamW step operation by operation (lerp for the
 * first moment, bias corrections in double), so a run can be matched against
 * torch.optim.AdamW to float32 rounding.  Dense floats and live table rows go
 * through the same element function, so the sparse path gives the dense
 * numbers bit for bit.
 */
#include "engine/optim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"

int adamw_init(AdamW *o, const Model *model, char *err)
{
    memset(o, 0, sizeof *o);
    size_t bytes = sizeof(float) * (model->n_floats ? model->n_floats : 16);
    o->m = aligned_alloc(64, bytes);
    o->v = aligned_alloc(64, bytes);
    if (!o->m || !o->v) {
        adamw_free(o);
        return err_set(err, "out of memory for optimizer state");
    }
    memset(o->m, 0, bytes);
    memset(o->v, 0, bytes);
    o->lazy = model->cfg.table_optim == TABLE_LAZY;
    for (int i = 0; i < model->n_params; i++)
        if (model->params[i].sparse_rows && model->params[i].decay) {
            adamw_free(o);
            return err_set(err, "%s: a sparse-row parameter cannot take weight decay", model->params[i].name);
        }
    if (o->lazy || model->n_sparse == 0) return 0;
    o->live = calloc((size_t)model->n_sparse, sizeof(LiveRows));
    if (!o->live) {
        adamw_free(o);
        return err_set(err, "out of memory for optimizer state");
    }
    o->n_live = model->n_sparse;
    for (int i = 0; i < model->n_params; i++) {
        const Param *p = &model->params[i];
        if (!p->sparse_rows) continue;
        LiveRows *l = &o->live[p->sparse_index];
        l->rows = malloc(sizeof(int32_t) * (size_t)p->shape[0]);
        l->is_live = calloc((size_t)p->shape[0], 1);
        if (!l->rows || !l->is_live) {
            adamw_free(o);
            return err_set(err, "out of memory for optimizer state");
        }
    }
    return 0;
}

void adamw_free(AdamW *o)
{
    free(o->m);
    free(o->v);
    for (int s = 0; s < o->n_live; s++) {
        free(o->live[s].rows);
        free(o->live[s].is_live);
    }
    free(o->live);
    memset(o, 0, sizeof *o);
}

int64_t wsd_cooldown_start(const Config *c, int64_t total_steps)
{
    int64_t S = total_steps, W = c->warmup;
    int64_t C = (int64_t)floor(c->cooldown * (double)S);
    if (C < 1) C = 1;
    return S - C > W ? S - C : W;
}

/* wsd after the warm-up: lr until the cool-down's first step D, then
   linearly to 0 at the last step, lr*(S-1-s)/(S-D): the SPEC's
   lr*(S-1-s)/C, with C = S - D shortened when the warm-up takes its first
   steps.  No step after the warm-up (S <= W) or an unknown S: lr. */
static double wsd_lr(const Config *c, int64_t s, int64_t total_steps)
{
    int64_t D = wsd_cooldown_start(c, total_steps), C = total_steps - D;
    if (C < 1 || s < D) return c->lr;
    return c->lr * (double)(total_steps - 1 - s) / (double)C;
}

double schedule_lr(const Config *c, int64_t s, int64_t total_steps, double progress)
{
    double lr = c->lr;
    int64_t W = c->warmup;
    if (s < W) return lr * (double)(s + 1) / (double)W;
    if (c->decay == DECAY_CONSTANT) return lr;
    if (c->decay == DECAY_WSD) return wsd_lr(c, s, total_steps);
    double frac;
    if (progress >= 0.0) frac = progress;
    else if (total_steps - 1 > W) frac = (double)(s - W) / (double)(total_steps - 1 - W);
    else frac = 0.0;
    if (frac > 1.0) frac = 1.0;
    if (frac < 0.0) frac = 0.0;
    if (c->decay == DECAY_LINEAR) return lr * (1.0 - frac);
    return lr * 0.5 * (1.0 + cos(M_PI * frac));
}

double grad_sumsq(const float *grads, size_t begin, size_t end)
{
    return vec_sumsq(grads + begin, end - begin);
}

/* The per-step constants of AdamW, in PyTorch's order of operations. */
typedef struct {
    float step_size, bc2_sqrt, decay_mul, one_minus_b1, beta2, one_minus_b2, eps;
} AdamStep;

static AdamStep adam_step(double lr, double weight_decay, int64_t t)
{
    double bc1 = 1.0 - pow(0.9, (double)t), bc2 = 1.0 - pow(0.999, (double)t);
    AdamStep k;
    k.step_size = (float)(lr / bc1);
    k.bc2_sqrt = (float)sqrt(bc2);
    k.decay_mul = (float)(1.0 - lr * weight_decay);
    k.one_minus_b1 = (float)(1.0 - 0.9);
    k.beta2 = 0.999f;
    k.one_minus_b2 = (float)(1.0 - 0.999);
    k.eps = 1e-8f;
    return k;
}

/* AdamW on n floats; grads NULL means a zero gradient.  The four arrays
   never overlap (restrict) and optim.c is built without errno (the Makefile:
   setting it would keep sqrtf scalar), so the loop is one vectorised pass
   with the same operations in the same order: the same bits as element by
   element. */
static inline void adamw_floats(float *restrict w, float *restrict m, float *restrict v,
                                const float *restrict grads, float clip_coef, const AdamStep *k, int decay,
                                size_t n)
{
    const float decay_mul = decay ? k->decay_mul : 1.0f, one_minus_b1 = k->one_minus_b1, beta2 = k->beta2,
                one_minus_b2 = k->one_minus_b2, bc2_sqrt = k->bc2_sqrt, eps = k->eps, neg_step = -k->step_size;
    if (!grads) {
        for (size_t j = 0; j < n; j++) {
            float mj = m[j] + one_minus_b1 * (0.0f - m[j]);
            float vj = v[j] * beta2 + one_minus_b2 * 0.0f * 0.0f;
            float wj = decay ? w[j] * decay_mul : w[j];
            m[j] = mj;
            v[j] = vj;
            w[j] = wj + neg_step * (mj / (sqrtf(vj) / bc2_sqrt + eps));
        }
        return;
    }
    for (size_t j = 0; j < n; j++) {
        float g = grads[j] * clip_coef;
        float mj = m[j] + one_minus_b1 * (g - m[j]);
        float vj = v[j] * beta2 + one_minus_b2 * g * g;
        float wj = decay ? w[j] * decay_mul : w[j];
        m[j] = mj;
        v[j] = vj;
        w[j] = wj + neg_step * (mj / (sqrtf(vj) / bc2_sqrt + eps));
    }
}

void adamw_update(const Model *model, AdamW *o, const float *grads, float clip_coef,
                  double lr, double weight_decay, int64_t t, size_t begin, size_t end)
{
    AdamStep k = adam_step(lr, weight_decay, t);
    for (int i = 0; i < model->n_params; i++) {
        const Param *p = &model->params[i];
        size_t lo = p->offset > begin ? p->offset : begin;
        size_t hi = p->offset + p->numel < end ? p->offset + p->numel : end;
        if (lo >= hi) continue;
        int decay = p->decay && weight_decay > 0.0;
        adamw_floats(model->w + lo, o->m + lo, o->v + lo, grads + lo, clip_coef, &k, decay, hi - lo);
    }
}

void adamw_sparse_begin(AdamW *o, int s, const RowGrad *g)
{
    if (o->lazy) return;
    LiveRows *l = &o->live[s];
    for (int64_t i = 0; i < g->count; i++) {
        int32_t row = g->touched[i];
        if (l->is_live[row]) continue;
        l->is_live[row] = 1;
        l->rows[l->count++] = row;
    }
}

int64_t adamw_sparse_rows(const AdamW *o, int s, const RowGrad *g)
{
    return o->lazy ? g->count : o->live[s].count;
}

/* PyTorch SparseAdam (torch.optim.SparseAdam, 1.13) on one touched row:
     m_upd = (g - m)(1-b1); m += m_upd; v_upd = (g^2 - v)(1-b2); v += v_upd;
     p += -(lr sqrt(bc2)/bc1) * ((m_upd + m_old) / (sqrt(v_upd + v_old) + eps)) */
static inline void sparse_adam_floats(float *w, float *m, float *v, const float *grads, float clip_coef,
                                      float neg_step_size, const AdamStep *k, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        float g = grads[j] * clip_coef;
        float m_old = m[j], v_old = v[j];
        float m_upd = (g - m_old) * k->one_minus_b1;
        float v_upd = (g * g - v_old) * k->one_minus_b2;
        m[j] = m_old + m_upd;
        v[j] = v_old + v_upd;
        float numer = m_upd + m_old;
        float denom = sqrtf(v_upd + v_old) + k->eps;
        w[j] = w[j] + neg_step_size * (numer / denom);
    }
}

void adamw_sparse_update(const Model *model, AdamW *o, int s, const RowGrad *g, float clip_coef,
                         double lr, int64_t t, int64_t begin, int64_t end)
{
    const Param *p = &model->params[g->param];
    size_t width = (size_t)g->width;
    float *w = model->w + p->offset, *m = o->m + p->offset, *v = o->v + p->offset;
    AdamStep k = adam_step(lr, 0.0, t);
    if (o->lazy) {
        double bc1 = 1.0 - pow(0.9, (double)t), bc2 = 1.0 - pow(0.999, (double)t);
        float neg_step_size = (float)(-(lr * sqrt(bc2) / bc1));
        for (int64_t i = begin; i < end; i++) {
            size_t at = (size_t)g->touched[i] * width;
            sparse_adam_floats(w + at, m + at, v + at, g->values + (size_t)i * width, clip_coef, neg_step_size,
                               &k, width);
        }
        return;
    }
    const LiveRows *l = &o->live[s];
    for (int64_t i = begin; i < end; i++) {
        int32_t row = l->rows[i];
        size_t at = (size_t)row * width;
        adamw_floats(w + at, m + at, v + at, rowgrad_find(g, row), clip_coef, &k, 0, width);
    }
}

/* 1 when any of the n floats has a bit set (-0.0 counts: an update would
   turn it into +0). */
static int any_bit_set(const float *x, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        uint32_t bits;
        memcpy(&bits, &x[j], sizeof bits);
        if (bits) return 1;
    }
    return 0;
}

void adamw_restore_live(AdamW *o, const Model *model)
{
    if (o->lazy) return;
    for (int i = 0; i < model->n_params; i++) {
        const Param *p = &model->params[i];
        if (!p->sparse_rows) continue;
        LiveRows *l = &o->live[p->sparse_index];
        size_t width = p->numel / (size_t)p->shape[0];
        l->count = 0;
        for (int64_t row = 0; row < p->shape[0]; row++) {
            size_t at = p->offset + (size_t)row * width;
            l->is_live[row] = (uint8_t)(any_bit_set(o->m + at, width) || any_bit_set(o->v + at, width));
            if (l->is_live[row]) l->rows[l->count++] = (int32_t)row;
        }
    }
}
