/*
 * head.c — what every task ends with: the output head and cross-entropy over
 * the positions that have a target.  Only those rows go through the head
 * (mlm computes logits at its chosen positions only; clm at every position),
 * except in an evaluation that scores every position (mlm's loss_all).
 * Single-stack tasks also run the last block's position-wise tail on those
 * rows only (task_single_stack_run, StackCall.rows).
 */
#include <assert.h>
#include <string.h>

#include "engine/ops.h"
#include "engine/task.h"

/* w->target_rows, w->targets_compact <- the rows with a target; their count */
static int collect_targets(Work *w, const int32_t *targets, int N)
{
    int M = 0;
    for (int i = 0; i < N; i++)
        if (targets[i] >= 0) {
            w->target_rows[M] = i;
            w->targets_compact[M++] = targets[i];
        }
    return M;
}

/* Head and loss on M rows [M, d] whose targets are w->targets_compact;
   with t->want_grad, their gradient into drows [M, d]. */
static void head_loss_rows(TaskCall *t, const float *rows, int M, float *drows)
{
    const Model *m = t->m;
    Work *w = t->w;
    t->n_targets += M;
    /* the bias is added, and its gradient summed, inside the loss's passes
       over the logits rather than in passes of their own */
    head_forward(m, w->gemm, w->logits, rows, M, 0);
    t->loss_sum += xent_head(w->logits, model_param(m, m->head_b),
                             t->want_grad ? w->grads + m->params[m->head_b].offset : NULL, w->targets_compact, M,
                             m->cfg.vocab, t->loss_scale, t->want_grad, &t->correct);
    if (t->want_grad) head_backward(m, w->gemm, w->grads, drows, w->logits, rows, M, 0);
}

void task_head_loss(TaskCall *t, const float *rows, const int32_t *targets, float *drows)
{
    Work *w = t->w;
    int N = t->B * t->m->cfg.n_ctx, d = t->m->cfg.d;
    int M = collect_targets(w, targets, N);
    if (M == 0) {
        if (t->want_grad) memset(drows, 0, sizeof(float) * (size_t)N * d);
        return;
    }
    if (M == N) { /* every row has a target: use them in place */
        head_loss_rows(t, rows, M, drows);
        return;
    }
    for (int r = 0; r < M; r++)
        memcpy(w->head_in + (size_t)r * d, rows + (size_t)w->target_rows[r] * d, sizeof(float) * d);
    head_loss_rows(t, w->head_in, M, w->head_grad);
    if (!t->want_grad) return;
    memcpy(drows, w->head_grad, sizeof(float) * (size_t)M * d);
    rows_spread(drows, w->target_rows, M, N, d);
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
    int N = t->B * m->cfg.n_ctx;
    StackCall sc = {m, w, t->B, t->sample0, t->training, t->step_key, zero_block, zero_from, t->want_grad, NULL, 0};
    StackActs *sa = &w->stacks[0];
    /* Only the rows with a target reach the loss: when they are fewer than
       all (mlm's chosen positions, a corpus's scored tokens), the last
       block's position-wise tail runs on them alone (StackCall.rows).  Not
       with dropout in training, whose mask is indexed by position. */
    int M = t->score_all ? N : collect_targets(w, w->targets, N);
    int restrict_tail = M > 0 && M < N && !(t->training && m->cfg.dropout > 0);
    if (restrict_tail) {
        sc.rows = w->target_rows;
        sc.n_rows = M;
    }
    embed_forward(m, 0, sa->blocks[0].x, w->inputs, t->B);
    stack_forward(&sc, 0, w->inputs);
    if (t->score_all) {
        task_head_loss_all(t, sa->out, w->targets, w->targets_all);
        return;
    }
    if (restrict_tail) head_loss_rows(t, sa->out, M, w->dout);
    else task_head_loss(t, sa->out, w->targets, w->dout);
    if (!t->want_grad) return;
    stack_backward(&sc, 0, w->inputs, w->dout, w->t1);
    embed_backward(m, 0, w->grads, w->t1, w->inputs, t->B);
}
