/*
 * optim.c — AdamW, schedule and clipping of optim.h.  The arithmetic follows
 * PyTorch's single-tensor AdamW step operation by operation (lerp for the
 * first moment, bias corrections in double), so a run can be matched against
 * torch.optim.AdamW to float32 rounding.
 */
#include "engine/optim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"

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
    return 0;
}

void adamw_free(AdamW *o)
{
    free(o->m);
    free(o->v);
    memset(o, 0, sizeof *o);
}

double schedule_lr(const Config *c, int64_t s, int64_t total_steps, double progress)
{
    double lr = c->lr;
    int64_t W = c->warmup;
    if (s < W) return lr * (double)(s + 1) / (double)W;
    if (c->decay == DECAY_CONSTANT) return lr;
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
    double s = 0.0;
    for (size_t i = begin; i < end; i++) s += (double)grads[i] * (double)grads[i];
    return s;
}

void adamw_update(const Model *model, AdamW *o, const float *grads, float clip_coef,
                  double lr, double weight_decay, int64_t t, size_t begin, size_t end)
{
    const float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    double bc1 = 1.0 - pow(0.9, (double)t), bc2 = 1.0 - pow(0.999, (double)t);
    float step_size = (float)(lr / bc1);
    float bc2_sqrt = (float)sqrt(bc2);
    float one_minus_b1 = (float)(1.0 - 0.9), one_minus_b2 = (float)(1.0 - 0.999);
    float decay_mul = (float)(1.0 - lr * weight_decay);
    (void)beta1;
    for (int i = 0; i < model->n_params; i++) {
        const Param *p = &model->params[i];
        size_t lo = p->offset > begin ? p->offset : begin;
        size_t hi = p->offset + p->numel < end ? p->offset + p->numel : end;
        if (lo >= hi) continue;
        float *w = model->w, *m = o->m, *v = o->v;
        int decay = p->decay && weight_decay > 0.0;
        for (size_t j = lo; j < hi; j++) {
            float g = grads[j] * clip_coef;
            if (decay) w[j] *= decay_mul;
            m[j] = m[j] + one_minus_b1 * (g - m[j]);
            v[j] = v[j] * beta2 + one_minus_b2 * g * g;
            float denom = sqrtf(v[j]) / bc2_sqrt + eps;
            w[j] = w[j] + (-step_size) * (m[j] / denom);
        }
    }
}
