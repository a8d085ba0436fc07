/*
 * builtin_markov.c — builtin:markov, a seeded Markov source whose entropy
 * rate is known exactly, so tests can assert that a model gets near the
 * floor.
 *
 * Spec: builtin:markov[:key=value,...]
 *   states=V       symbols, default 64; tokens are ids 2..V+1 and the
 *                  vocabulary is V + 2 (PAD 0, MASK 1 reserved)
 *   order=1|2      context length in symbols, default 1
 *   branch=B       likely successors per context, default 4
 *   smooth=E       probability spread uniformly over all V symbols, default
 *                  0.01; E > 0 makes the chain irreducible and aperiodic
 *   tokens=N       train length, default 500000
 *   eval_tokens=M  valid and test length each, default 50000
 *   seed=S         default: DataOptions.seed, or 1 when that is 0
 *
 * The chain: every context (the last `order` symbols) gets B distinct
 * successors drawn uniformly, with weights from a flat Dirichlet
 * (normalised exponentials); P(s | c) = (1 - E) w_c(s) + E / V.  The exact
 * entropy rate sum_c pi(c) H(P(. | c)) (nats/token) goes into loss_floor;
 * pi, the stationary distribution over contexts, comes from power
 * iteration in double until no entry moves by 1e-13.  Each split starts
 * from a context drawn from pi, so every stream is stationary.  The table
 * uses stream 0 of the seed, the splits streams 1..3.
 *
 * Not for: text (tokens are ids directly; the tokenizer is ids).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n_symbols, order, branch;
    double smooth;
    size_t n_ctx;          /* n_symbols ^ order */
    size_t n_suffix;       /* n_symbols ^ (order - 1) */
    int32_t *succ;         /* [n_ctx][branch] successor symbols */
    double *weight;        /* [n_ctx][branch] Dirichlet weights, sum 1 */
    double *pi;            /* [n_ctx] stationary distribution */
} MarkovChain;

static void chain_free(MarkovChain *m)
{
    free(m->succ);
    free(m->weight);
    free(m->pi);
}

static void draw_table(MarkovChain *m, DataRng *rng)
{
    int V = m->n_symbols, B = m->branch;
    for (size_t c = 0; c < m->n_ctx; c++) {
        int32_t *succ = m->succ + c * (size_t)B;
        double *w = m->weight + c * (size_t)B;
        double total = 0;
        for (int j = 0; j < B; j++) {
            int32_t s;
            int again;
            do {   /* distinct successors; B <= V so this ends */
                s = (int32_t)data_rng_below(rng, (uint32_t)V);
                again = 0;
                for (int k = 0; k < j; k++) again |= succ[k] == s;
            } while (again);
            succ[j] = s;
            w[j] = -log(1.0 - data_rng_double(rng)) + 1e-12;
            total += w[j];
        }
        for (int j = 0; j < B; j++) w[j] /= total;
    }
}

static int stationary(MarkovChain *m, char *err)
{
    size_t n = m->n_ctx, S = m->n_suffix;
    int V = m->n_symbols, B = m->branch;
    double keep = 1.0 - m->smooth, spread = m->smooth / V;
    double *next = malloc(n * sizeof *next);
    double *suffix_mass = malloc(S * sizeof *suffix_mass);
    m->pi = malloc(n * sizeof *m->pi);
    if (!next || !suffix_mass || !m->pi) {
        free(next);
        free(suffix_mass);
        return err_set(err, "builtin:markov: out of memory");
    }
    for (size_t c = 0; c < n; c++) m->pi[c] = 1.0 / (double)n;
    int converged = 0;
    for (int iter = 0; iter < 200000 && !converged; iter++) {
        memset(next, 0, n * sizeof *next);
        memset(suffix_mass, 0, S * sizeof *suffix_mass);
        for (size_t c = 0; c < n; c++) {
            double p = m->pi[c];
            size_t base = (c % S) * (size_t)V;
            const int32_t *succ = m->succ + c * (size_t)B;
            const double *w = m->weight + c * (size_t)B;
            for (int j = 0; j < B; j++) next[base + (size_t)succ[j]] += p * keep * w[j];
            suffix_mass[c % S] += p;
        }
        double total = 0;
        for (size_t s = 0; s < S; s++) {
            double add = suffix_mass[s] * spread;
            for (int v = 0; v < V; v++) next[s * (size_t)V + (size_t)v] += add;
        }
        for (size_t c = 0; c < n; c++) total += next[c];
        double moved = 0;
        for (size_t c = 0; c < n; c++) {
            next[c] /= total;
            moved = fmax(moved, fabs(next[c] - m->pi[c]));
        }
        double *swap = m->pi;
        m->pi = next;
        next = swap;
        converged = moved < 1e-13;
    }
    free(next);
    free(suffix_mass);
    if (!converged) return err_set(err, "builtin:markov: the stationary distribution did not converge");
    return 0;
}

static double entropy_rate(const MarkovChain *m)
{
    int V = m->n_symbols, B = m->branch;
    double keep = 1.0 - m->smooth, floor_p = m->smooth / V;
    double rest = (V - B) > 0 && floor_p > 0 ? -(double)(V - B) * floor_p * log(floor_p) : 0.0;
    double h = 0;
    for (size_t c = 0; c < m->n_ctx; c++) {
        const double *w = m->weight + c * (size_t)B;
        double hc = rest;
        for (int j = 0; j < B; j++) {
            double p = keep * w[j] + floor_p;
            if (p > 0) hc -= p * log(p);
        }
        h += m->pi[c] * hc;
    }
    return h;
}

static int generate(const MarkovChain *m, DataRng *rng, size_t len, int32_t **out, char *err)
{
    int V = m->n_symbols, B = m->branch;
    int32_t *ids = malloc((len ? len : 1) * sizeof *ids);
    if (!ids) return err_set(err, "builtin:markov: out of memory for %zu tokens", len);
    /* Start from a context drawn from pi. */
    double u = data_rng_double(rng), acc = 0;
    size_t c = m->n_ctx - 1;
    for (size_t k = 0; k < m->n_ctx; k++) {
        acc += m->pi[k];
        if (u < acc) {
            c = k;
            break;
        }
    }
    for (size_t t = 0; t < len; t++) {
        int32_t s;
        if (data_rng_double(rng) < m->smooth) {
            s = (int32_t)data_rng_below(rng, (uint32_t)V);
        } else {
            const int32_t *succ = m->succ + c * (size_t)B;
            const double *w = m->weight + c * (size_t)B;
            double r = data_rng_double(rng);
            int j = 0;
            while (j < B - 1 && r >= w[j]) r -= w[j++];
            s = succ[j];
        }
        ids[t] = BYTE_BASE + s;
        c = (c % m->n_suffix) * (size_t)V + (size_t)s;
    }
    *out = ids;
    return 0;
}

int builtin_markov(const char *opts, uint64_t seed, BuiltinCorpus *out, char *err)
{
    enum { O_STATES, O_ORDER, O_BRANCH, O_SMOOTH, O_TOKENS, O_EVAL, O_SEED, O_COUNT };
    BuiltinOption o[O_COUNT] = {
        [O_STATES] = {"states", 2, 65534, 1, 64, 0},
        [O_ORDER] = {"order", 1, 2, 1, 1, 0},
        [O_BRANCH] = {"branch", 1, 65534, 1, 4, 0},
        [O_SMOOTH] = {"smooth", 1e-9, 0.999999, 0, 0.01, 0},
        [O_TOKENS] = {"tokens", 16, 2e9, 1, 500000, 0},
        [O_EVAL] = {"eval_tokens", 16, 2e9, 1, 50000, 0},
        [O_SEED] = {"seed", 0, 9007199254740991.0, 1, 1, 0},
    };
    memset(out, 0, sizeof *out);
    if (builtin_parse_options("markov", opts, o, O_COUNT, err) != 0) return -1;
    MarkovChain m = {0};
    m.n_symbols = (int)o[O_STATES].value;
    m.order = (int)o[O_ORDER].value;
    m.branch = (int)o[O_BRANCH].value;
    m.smooth = o[O_SMOOTH].value;
    if (m.branch > m.n_symbols)
        return err_set(err, "builtin:markov: branch=%d exceeds states=%d", m.branch, m.n_symbols);
    m.n_suffix = m.order == 2 ? (size_t)m.n_symbols : 1;
    m.n_ctx = m.n_suffix * (size_t)m.n_symbols;
    if (m.n_ctx * (size_t)m.branch > ((size_t)1 << 24))
        return err_set(err, "builtin:markov: states^order x branch = %zu is too large (max %d)",
                       m.n_ctx * (size_t)m.branch, 1 << 24);
    uint64_t s = o[O_SEED].given ? (uint64_t)o[O_SEED].value : (seed ? seed : 1);
    size_t lengths[SPLIT_COUNT] = {(size_t)o[O_TOKENS].value, (size_t)o[O_EVAL].value,
                                   (size_t)o[O_EVAL].value};

    m.succ = malloc(m.n_ctx * (size_t)m.branch * sizeof *m.succ);
    m.weight = malloc(m.n_ctx * (size_t)m.branch * sizeof *m.weight);
    if (!m.succ || !m.weight) {
        chain_free(&m);
        return err_set(err, "builtin:markov: out of memory");
    }
    DataRng rng;
    data_rng_seed(&rng, s, 0);
    draw_table(&m, &rng);
    if (stationary(&m, err) != 0) {
        chain_free(&m);
        return -1;
    }
    for (int split = 0; split < SPLIT_COUNT; split++) {
        data_rng_seed(&rng, s, (uint64_t)split + 1);
        if (generate(&m, &rng, lengths[split], &out->ids[split], err) != 0) {
            chain_free(&m);
            builtin_free(out);
            return -1;
        }
        out->ids_len[split] = lengths[split];
    }
    out->vocab = m.n_symbols + BYTE_BASE;
    out->loss_floor = entropy_rate(&m);
    snprintf(out->canonical, sizeof out->canonical,
             "builtin:markov:states=%d,order=%d,branch=%d,smooth=%g,tokens=%zu,eval_tokens=%zu,seed=%llu",
             m.n_symbols, m.order, m.branch, m.smooth, lengths[0], lengths[1],
             (unsigned long long)s);
    chain_free(&m);
    return 0;
}
