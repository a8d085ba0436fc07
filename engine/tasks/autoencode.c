/*
 * autoencode.c — the autoencoder of Masked Mixers II (SPEC section 3).  A
 * window of n tokens; the encoder ("enc.", L blocks) reads it and e is its
 * final-LN hidden state at the last position; the decoder ("dec.", L blocks)
 * reads e repeated n times (plus dec.pos_emb when pos != none) and predicts
 * the token at every position.  Both stacks are causal where the mixer has a
 * causal mode, else bidirectional (fft).  Every mixer except pairconnect:
 * its decoder would have no tokens to pair.
 */
#include <string.h>

#include "engine/common.h"
#include "engine/ops.h"
#include "engine/task.h"

static int autoencode_check(const MixerOps *mixer, const Config *c, char *err)
{
    (void)c;
    if (!strcmp(mixer->name, "pairconnect"))
        return err_set(err, "task autoencode excludes pairconnect: its decoder would have no tokens to pair "
                            "(SPEC section 3)");
    return 0;
}

static int autoencode_stacks(const Config *c, const MixerOps *mixer, StackSpec *out)
{
    (void)c;
    strcpy(out[0].prefix, "enc.");
    strcpy(out[1].prefix, "dec.");
    out[0].causal = out[1].causal = mixer->has_causal;
    return 2;
}

static int autoencode_window(const Config *c) { return c->n_ctx; }

static void autoencode_prepare(const Config *c, int B, const int32_t *windows, const uint8_t *scored,
                               int32_t *inputs, int32_t *targets, int training, Rng *rng,
                               const int64_t *window_index)
{
    const TaskOps *bidir = task_find("bidir"); /* same rule: the window is its own target */
    bidir->prepare(c, B, windows, scored, inputs, targets, training, rng, window_index);
}

/* The decoder's positional table: learned dec.pos_emb, the sinusoid, or none. */
static const float *decoder_pos(const Model *m)
{
    return m->stacks[1].pos_emb >= 0 ? model_param(m, m->stacks[1].pos_emb) : m->sinusoid;
}

static void autoencode_run(TaskCall *t)
{
    const Model *m = t->m;
    Work *w = t->w;
    int B = t->B, n = m->cfg.n_ctx, d = m->cfg.d;
    size_t row = sizeof(float) * d;
    StackCall sc = {m, w, B, t->sample0, t->training, t->step_key, -1, 0, t->want_grad, NULL, 0};
    embed_forward(m, 0, w->stacks[0].blocks[0].x, w->inputs, B);
    stack_forward(&sc, 0, w->inputs);
    const float *enc = w->stacks[0].out, *pos = decoder_pos(m);
    float *x_dec = w->stacks[1].blocks[0].x;
    for (int b = 0; b < B; b++) {
        const float *e = enc + ((size_t)b * n + n - 1) * d;
        for (int s = 0; s < n; s++) {
            float *xr = x_dec + ((size_t)b * n + s) * d;
            if (pos) vec_add(xr, e, pos + (size_t)s * d, d);
            else memcpy(xr, e, row);
        }
    }
    stack_forward(&sc, 1, w->inputs);
    task_head_loss(t, w->stacks[1].out, w->targets, w->dout2);
    if (!t->want_grad) return;
    stack_backward(&sc, 1, w->inputs, w->dout2, w->t1);
    /* x_dec[b, s] = e_b + pos[s]: de_b = sum_s dx_dec[b, s]; dpos[s] += dx_dec[b, s] */
    const float *dx_dec = w->t1;
    float *dpos = m->stacks[1].pos_emb >= 0 ? w->grads + m->params[m->stacks[1].pos_emb].offset : NULL;
    float *denc = w->dout;
    memset(denc, 0, row * (size_t)B * n);
    for (int b = 0; b < B; b++) {
        float *de = denc + ((size_t)b * n + n - 1) * d;
        for (int s = 0; s < n; s++) {
            const float *g = dx_dec + ((size_t)b * n + s) * d;
            vec_acc(de, g, d);
            if (dpos) vec_acc(dpos + (size_t)s * d, g, d);
        }
    }
    stack_backward(&sc, 0, w->inputs, denc, w->t1);
    embed_backward(m, 0, w->grads, w->t1, w->inputs, B);
}

const TaskOps task_autoencode = {
    .name = "autoencode",
    .summary = "autoencoder: the encoder's last hidden state, repeated, is decoded back to the window",
    .check_arch = autoencode_check,
    .stacks = autoencode_stacks,
    .window_len = autoencode_window,
    .prepare = autoencode_prepare,
    .run = autoencode_run,
};
