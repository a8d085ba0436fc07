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
 *   scatter=0|1      1: queries at random places of the rest of the window
 *                    among random filler tokens, as Zoology's (below);
 *                    default 0, queries right after the pairs
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
 * Unlike Zoology, by default queries follow the pairs contiguously, so
 * that the rest of the window after the last answer is padding a causal
 * model never reads before answering: n does not change the task.  The
 * value is in the stream after its query key, as next-token prediction
 * needs (Zoology's input has a random token there; its label is the value).
 *
 * scatter=1 places them as Zoology's generator does (zoology/data/
 * associative_recall.py, multiquery_ar, power_a = 0.01): the S = (n - 2P)/2
 * two-token slots after the pairs, slot s (0-based) drawn with probability
 * proportional to (s + 1)^(a - 1), a = 0.01, Q of them without replacement
 * (one weighted draw after another, each from the slots left), the query
 * and its value in each drawn slot in slot order, and every other position
 * of the window after the pairs a filler token uniform over the key and
 * value ids.  A query is then up to n - 2P tokens from its pair, among
 * distractors: n is part of the task, as in Zoology's Figure 2.
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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MQAR_DEFAULT_N_CTX = 64, MQAR_MAX_VOCAB = 1 << 20 };
#define MQAR_POWER_A 0.01   /* Zoology's power_a: how strongly short gaps are favoured */

typedef struct {
    int pairs, queries;
    int train_min;      /* train_pairs: the smallest training pair count */
    int queries_given;  /* queries= fixed, else it follows each example's pairs */
    int n;              /* example length */
    double *slot_weight; /* scatter=1: [n / 2] the slots' power-law weights; NULL: contiguous */
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

/* scatter=1: the window after P pairs (query [n - 2P], query_scored) gets
   filler tokens, then Q queries in slots drawn by their power-law weights
   without replacement, in slot order. */
static void scatter_queries(MqarState *m, DataRng *r, int P, int Q, int32_t *query, uint8_t *query_scored)
{
    int rest = m->n - 2 * P, S = rest / 2;
    uint32_t content = (uint32_t)(m->n_keys + m->n_values);
    for (int i = 0; i < rest; i++) query[i] = BYTE_BASE + (int32_t)data_rng_below(r, content);
    /* mark the drawn slots in query_scored's slot positions, then fill them */
    double left = 0;
    for (int s = 0; s < S; s++) left += m->slot_weight[s];
    for (int q = 0; q < Q; q++) {
        double u = data_rng_double(r) * left, run = 0;
        int pick = -1;
        for (int s = 0; s < S; s++) {
            if (query_scored[2 * s + 1]) continue;
            pick = s;   /* the last free slot, should rounding leave u past the sum */
            run += m->slot_weight[s];
            if (u < run) break;
        }
        query_scored[2 * pick + 1] = 1;
        left -= m->slot_weight[pick];
    }
    for (int s = 0; s < S; s++)
        if (query_scored[2 * s + 1]) {
            int p = (int)data_rng_below(r, (uint32_t)P);
            query[2 * s] = m->keys[p];
            query[2 * s + 1] = m->values[p];
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
    if (m->slot_weight) {
        scatter_queries(m, r, P, Q, query, query_scored);
        return;
    }
    for (int q = 0; q < Q; q++) {
        int p = (int)data_rng_below(r, (uint32_t)P);
        query[2 * q] = m->keys[p];
        query[2 * q + 1] = m->values[p];
        query_scored[2 * q + 1] = 1;
    }
}

enum { O_PAIRS, O_QUERIES, O_VOCAB, O_EXAMPLES, O_EVAL, O_SEED, O_TRAIN_PAIRS, O_SCATTER, O_COUNT };

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
        [O_SCATTER] = {"scatter", 0, 1, 1, 0, 0},
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

int builtin_mqar_pairs(const char *opts, int *pairs, char *err)
{
    BuiltinOption o[O_COUNT];
    if (mqar_options(opts, o, err) != 0) return -1;
    *pairs = (int)o[O_PAIRS].value;
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

    int scatter = (int)o[O_SCATTER].value;
    MqarState m = {P, Q, L, o[O_QUERIES].given, n, NULL, NULL, NULL, n_keys, n_values};
    m.keys = malloc(sizeof *m.keys * (size_t)n_keys);
    m.values = malloc(sizeof *m.values * (size_t)n_values);
    if (scatter) m.slot_weight = malloc(sizeof *m.slot_weight * (size_t)(n / 2 + 1));
    int rc = -1;
    if (!m.keys || !m.values || (scatter && !m.slot_weight)) {
        err_set(err, "builtin:mqar: out of memory");
    } else {
        /* Zoology's power law, power_a = 0.01: slot s weighs (s + 1)^(a - 1) */
        for (int k = 0; scatter && k <= n / 2; k++) m.slot_weight[k] = pow(k + 1.0, MQAR_POWER_A - 1.0);
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
                     "builtin:mqar:pairs=%d%s,queries=%d%s,vocab=%d,examples=%zu,eval_examples=%zu,seed=%llu,n_ctx=%d",
                     P, mix, Q, scatter ? ",scatter=1" : "", V, examples[0], examples[1], (unsigned long long)s, n);
        }
    }
    free(m.keys);
    free(m.values);
    free(m.slot_weight);
    return rc;
}
