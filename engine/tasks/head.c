/*
 * head.c — what every task ends with: the output head and cross-entropy over
 * the positions that have a target.  Only those rows go through the head
 * (mlm computes logits at its chosen positions only; clm at every position),
 * except in an evaluation that scores every position (mlm's loss_all).
 */
#include <assert.h>
#include <string.h>

#include "engine/ops.h"
#include "engine/task.h"

void task_head_loss(TaskCall *t, const float *rows, const int32_t *targets, float *drows)
{
    const Model *m = t->m;
    Work *w = t->w;
    int N = t->B * m->cfg.n_ctx, d = m->cfg.d, M = 0;
    for (int i = 0; i < N; i++)
        if (targets[i] >= 0) {
            w->target_rows[M] = i;
            w->targets_compact[M++] = targets[i];
        }
    t->n_targets += M;
    if (M == 0) {
        if (t->want_grad) memset(drows, 0, sizeof(float) * (size_t)N * d);
        return;
    }
    /* every row has a target: use them in place, else gather */
    const float *head_rows = rows;
    if (M < N) {
        for (int r = 0; r < M; r++)
            memcpy(w->head_in + (size_t)r * d, rows + (size_t)w->target_rows[r] * d, sizeof(float) * d);
        head_rows = w->head_in;
    }
    /* the bias is added, and its gradient summed, inside the loss's passes
       over the logits rather than in passes of their own */
    head_forward(m, w->gemm, w->logits, head_rows, M, 0);
    t->loss_sum += xent_head(w->logits, model_param(m, m->head_b),
                             t->want_grad ? w->grads + m->params[m->head_b].offset : NULL, w->targets_compact, M,
                             m->cfg.vocab, t->loss_scale, t->want_grad, &t->correct);
    if (!t->want_grad) return;
    if (M == N) {
        head_backward(m, w->gemm, w->grads, drows, w->logits, head_rows, M, 0);
        return;
    }
    head_backward(m, w->gemm, w->grads, w->head_grad, w->logits, head_rows, M, 0);
    memset(drows, 0, sizeof(float) * (size_t)N * d);
    for (int r = 0; r < M; r++)
        memcpy(drows + (size_t)w->target_rows[r] * d, w->head_grad + (size_t)r * d, sizeof(float) * d);
}

void task_head_loss_all(TaskCall *t, const float *rows, const int32_t *targets, const int32_t *all_targets)
{
    assert(!t->want_grad);
    const Model *m = t->m;
    Work *w = t->w;
    int N = t->B * m->cfg.n_ctx, V = m->cfg.vocab;
    for (int i = 0; i < N; i++) {
        assert(all_targets[i] >= 0);
        t->n_targets += targets[i] >= 0;
    }
    t->n_all += N;
    head_forward(m, w->gemm, w->logits, rows, N, 1);
    /* without want_grad the logits are only read, so both passes see them */
    t->loss_all_sum += xent_forward_backward(w->logits, all_targets, N, V, 0.0f, 0, NULL);
    t->loss_sum += xent_forward_backward(w->logits, targets, N, V, 0.0f, 0, &t->correct);
}

void task_single_stack_run(TaskCall *t, int zero_block, int zero_from)
{
    const Model *m = t->m;
    Work *w = t->w;
    StackCall sc = {m, w, t->B, t->sample0, t->training, t->step_key, zero_block, zero_from, t->want_grad};
    StackActs *sa = &w->stacks[0];
    embed_forward(m, 0, sa->blocks[0].x, w->inputs, t->B);
    stack_forward(&sc, 0, w->inputs);
    if (t->score_all) {
        task_head_loss_all(t, sa->out, w->targets, w->targets_all);
        return;
    }
    task_head_loss(t, sa->out, w->targets, w->dout);
    if (!t->want_grad) return;
    stack_backward(&sc, 0, w->inputs, w->dout, w->t1);
    embed_backward(m, 0, w->grads, w->t1, w->inputs, t->B);
}
