/*
 * builtin_mqar.c — builtin:mqar, multi-query associative recall (Zoology,
 * Arora et al. 2023): the synthetic task that separates attention from
 * most of its replacements, as a corpus for the clm task.
 *
 * Spec: builtin:mqar[:key=value,...]
 *   pairs=P          key-value pairs per example, default 8
 *   queries=Q        queries per example, default min(P, (n - 2P) / 2)
 *   train_pairs=L    the training examples' pair count is uniform in L..P
 *                    (a mixture, as Zoology trains one model on several pair
 *                    counts); valid and test keep P; default P
 *   vocab=V          total vocabulary incl. PAD 0 and MASK 1, default 128
 *   examples=N       train examples, default 20000
 *   eval_examples=M  valid and test examples each, default 1000
 *   seed=S           default: DataOptions.seed, or 1 when that is 0
 * n = DataOptions.n_ctx (0: 64) is the example length; 2P + 2Q <= n.
 *
 * Ids: keys 2 .. 2+K-1 and values 2+K .. V-1 with K = (V-2)/2 (the values
 * get the odd one out).  One example of n tokens:
 *
 *     k1 v1 k2 v2 ... kP vP  q1 w1 q2 w2 ... qQ wQ  PAD ... PAD
 *
 * Keys are distinct within an example, and so are values (both uniform
 * samples without replacement, as in Zoology).  Each query q is a key of the
 * example, drawn uniformly and independently (with replacement: a key may be
 * asked twice and another not at all), and w is its value.  Only the w
 * tokens are scored (scored[i] = 1 at each w): a model earns accuracy by
 * recalling the value bound to a key it saw earlier in the same example.
 * The pairs are not predictable and the query keys are random, so nothing
 * else counts.  Queries are independent on purpose: were they a permutation
 * of the keys (each asked once, as in Zoology), the values already given
 * after earlier queries would be in the stream, and "the value not asked
 * for yet" would answer the last query by elimination without any recall
 * (a 2-layer attention model sits at that shortcut's accuracy, about 0.52
 * for 4 pairs, for thousands of steps).
 *
 * Unlike Zoology, queries follow the pairs contiguously (Zoology scatters
 * them with power-law gaps among random filler tokens) and the value is in
 * the stream after its query key, as next-token prediction needs.
 *
 * With train_pairs=L < P a training example first draws its pair count p
 * uniformly in L..P, then its queries: Q when queries= is given, else
 * min(p, (n - 2p) / 2).  Without it no such draw is made, so the corpus is
 * what it was before the key existed.
 *
 * Every scored token is determined by what precedes it, so the loss floor
 * is 0 and a perfect model has accuracy 1.
 *
 * Every split is its examples back to back plus one trailing PAD
 * (example_len = n), so a clm window of n + 1 tokens fits at every example
 * start, including the last; that extra token is never scored.  Splits use
 * streams 1, 2, 3 of the seed.
 *
 * Not for: the copying tasks (builtin_copy.c).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MQAR_DEFAULT_N_CTX = 64, MQAR_MAX_VOCAB = 1 << 20 };

typedef struct {
    int pairs, queries;
    int train_min;      /* train_pairs: the smallest training pair count */
    int queries_given;  /* queries= fixed, else it follows each example's pairs */
    int n;              /* example length */
    int32_t *keys;      /* [n_keys] a permutation of the key ids */
    int32_t *values;    /* [n_values] a permutation of the value ids */
    int n_keys, n_values;
} MqarState;

/* Moves a uniform random sample of k of the n items to items[0..k). */
static void sample_front(DataRng *r, int32_t *items, int n, int k)
{
    for (int i = 0; i < k; i++) {
        int j = i + (int)data_rng_below(r, (uint32_t)(n - i));
        int32_t swap = items[i];
        items[i] = items[j];
        items[j] = swap;
    }
}

/* ids [n] (all PAD), scored [n] (all 0) -> one example */
static void write_mqar(void *state, int split, DataRng *r, int32_t *ids, uint8_t *scored)
{
    MqarState *m = state;
    int P = m->pairs, Q = m->queries;
    if (split == SPLIT_TRAIN && m->train_min < m->pairs) {
        P = m->train_min + (int)data_rng_below(r, (uint32_t)(m->pairs - m->train_min + 1));
        if (!m->queries_given) Q = MB_MIN(P, (m->n - 2 * P) / 2);
    }
    sample_front(r, m->keys, m->n_keys, P);
    sample_front(r, m->values, m->n_values, P);
    for (int p = 0; p < P; p++) {
        ids[2 * p] = m->keys[p];
        ids[2 * p + 1] = m->values[p];
    }
    int32_t *query = ids + 2 * P;
    uint8_t *query_scored = scored + 2 * P;
    for (int q = 0; q < Q; q++) {
        int p = (int)data_rng_below(r, (uint32_t)P);
        query[2 * q] = m->keys[p];
        query[2 * q + 1] = m->values[p];
        query_scored[2 * q + 1] = 1;
    }
}

enum { O_PAIRS, O_QUERIES, O_VOCAB, O_EXAMPLES, O_EVAL, O_SEED, O_TRAIN_PAIRS, O_COUNT };

/* The options with their defaults, parsed from opts. */
static int mqar_options(const char *opts, BuiltinOption o[O_COUNT], char *err)
{
    const BuiltinOption table[O_COUNT] = {
        [O_PAIRS] = {"pairs", 1, 1 << 20, 1, 8, 0},
        [O_QUERIES] = {"queries", 1, 1 << 20, 1, 0, 0},
        [O_VOCAB] = {"vocab", 4, MQAR_MAX_VOCAB, 1, 128, 0},
        [O_EXAMPLES] = {"examples", 1, 1e8, 1, 20000, 0},
        [O_EVAL] = {"eval_examples", 1, 1e8, 1, 1000, 0},
        [O_SEED] = {"seed", 0, 9007199254740991.0, 1, 1, 0},
        [O_TRAIN_PAIRS] = {"train_pairs", 1, 1 << 20, 1, 0, 0},
    };
    memcpy(o, table, sizeof table);
    return builtin_parse_options("mqar", opts, o, O_COUNT, err);
}

int builtin_mqar_vocab(const char *opts, int *vocab, char *err)
{
    BuiltinOption o[O_COUNT];
    if (mqar_options(opts, o, err) != 0) return -1;
    *vocab = (int)o[O_VOCAB].value;
    return 0;
}

int builtin_mqar(const char *opts, uint64_t seed, int n_ctx, BuiltinCorpus *out, char *err)
{
    BuiltinOption o[O_COUNT];
    memset(out, 0, sizeof *out);
    if (mqar_options(opts, o, err) != 0) return -1;
    int n = n_ctx > 0 ? n_ctx : MQAR_DEFAULT_N_CTX;
    int P = (int)o[O_PAIRS].value, V = (int)o[O_VOCAB].value;
    int n_keys = (V - BYTE_BASE) / 2, n_values = V - BYTE_BASE - n_keys;
    if (P > n_keys)
        return err_set(err, "builtin:mqar: pairs=%d needs %d distinct keys but vocab=%d has %d "
                            "(keys are half of the ids above 1; raise vocab to at least %d)",
                       P, P, V, n_keys, 2 * P + BYTE_BASE);
    int Q;
    if (o[O_QUERIES].given) {
        Q = (int)o[O_QUERIES].value;
        if (2 * (long)P + 2 * (long)Q > n)
            return err_set(err, "builtin:mqar: pairs=%d and queries=%d need 2*pairs + 2*queries = %ld "
                                "tokens, more than n_ctx=%d",
                           P, Q, 2 * (long)P + 2 * (long)Q, n);
    } else {
        Q = MB_MIN(P, (n - 2 * P) / 2);
        if (2 * (long)P + 2 > n)
            return err_set(err, "builtin:mqar: pairs=%d leaves no room for a query in n_ctx=%d "
                                "(2*pairs + 2*queries <= n_ctx, so pairs <= %d)",
                           P, n, (n - 2) / 2);
    }
    int L = o[O_TRAIN_PAIRS].given ? (int)o[O_TRAIN_PAIRS].value : P;
    if (L > P)
        return err_set(err, "builtin:mqar: train_pairs=%d is more than pairs=%d (training draws its pair count "
                            "from train_pairs..pairs)",
                       L, P);
    uint64_t s = o[O_SEED].given ? (uint64_t)o[O_SEED].value : (seed ? seed : 1);

    MqarState m = {P, Q, L, o[O_QUERIES].given, n, NULL, NULL, n_keys, n_values};
    m.keys = malloc(sizeof *m.keys * (size_t)n_keys);
    m.values = malloc(sizeof *m.values * (size_t)n_values);
    int rc = -1;
    if (!m.keys || !m.values) {
        err_set(err, "builtin:mqar: out of memory");
    } else {
        for (int k = 0; k < n_keys; k++) m.keys[k] = BYTE_BASE + k;
        for (int v = 0; v < n_values; v++) m.values[v] = BYTE_BASE + n_keys + v;
        size_t examples[SPLIT_COUNT] = {(size_t)o[O_EXAMPLES].value, (size_t)o[O_EVAL].value,
                                        (size_t)o[O_EVAL].value};
        rc = builtin_examples("mqar", examples, n, s, write_mqar, &m, out, err);
        if (rc == 0) {
            out->vocab = V;
            out->loss_floor = 0;   /* every scored value is determined by its key */
            char mix[40] = "";
            if (L < P) snprintf(mix, sizeof mix, ",train_pairs=%d", L);
            snprintf(out->canonical, sizeof out->canonical,
                     "builtin:mqar:pairs=%d%s,queries=%d,vocab=%d,examples=%zu,eval_examples=%zu,seed=%llu,n_ctx=%d",
                     P, mix, Q, V, examples[0], examples[1], (unsigned long long)s, n);
        }
    }
    free(m.keys);
    free(m.values);
    return rc;
}
