/*
 * unigram.c — the unigram entropy of a token stream: the entropy (nats) of
 * its token frequencies, which is the mean loss of a model that learned how
 * often each token occurs and nothing else.  The workbench stores it once
 * per dataset, tokenizer and vocabulary (db/datasets.c) as the level a run
 * must get below to have learned anything from context ("not learning:
 * unigram level").
 *
 * Diagnostic corpora (builtin:mqar, copy, selective-copy) score only their
 * answer positions, so the whole stream's entropy (keys, separators, PAD)
 * is not the reference for their loss; there the entropy is taken over the
 * scored targets only: the loss of a model that knows where the answers are
 * and how often each answer occurs, but reads no context.  Their answers
 * are uniform draws whose distribution does not depend on n_ctx, so one
 * value serves every n_ctx of a spec.
 *
 * Not for: entropy rates of sources with memory (builtin_markov.c computes
 * its exact loss floor).
 */
#include "engine/common.h"
#include "engine/data/data.h"

#include <math.h>
#include <stdlib.h>

int token_stream_unigram_entropy(const TokenStream *s, int vocab, double *nats, int64_t *n_counted,
                                 char *err)
{
    *nats = NAN;
    if (n_counted) *n_counted = 0;
    if (vocab <= 0) return err_set(err, "unigram entropy: vocab=%d is not positive", vocab);
    int64_t *counts = calloc((size_t)vocab, sizeof *counts);
    if (!counts) return err_set(err, "out of memory counting %d token ids", vocab);
    int64_t total = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->scored && !s->scored[i]) continue;
        int32_t id = s->ids[i];
        if (id < 0 || id >= vocab) {
            free(counts);
            return err_set(err, "unigram entropy: token %zu has id %d outside the vocabulary of %d", i, id,
                           vocab);
        }
        counts[id]++;
        total++;
    }
    /* H = sum_i p_i log(1/p_i), p_i = c_i / N: each term is non-negative, so
       the sum does not cancel */
    double h = 0;
    for (int v = 0; v < vocab; v++)
        if (counts[v]) h += (double)counts[v] / (double)total * log((double)total / (double)counts[v]);
    free(counts);
    if (n_counted) *n_counted = total;
    *nats = total ? h : NAN;
    return 0;
}
