/*
 * builtin_copy.c — builtin:copy and builtin:selective-copy, the copying
 * diagnostics used to compare attention with its replacements, as corpora
 * for the clm task.
 *
 * Spec: builtin:copy[:key=value,...]
 *   length=L         tokens to copy, default n/2 - 1
 *   vocab=V          total vocabulary incl. PAD 0, MASK 1, SEP 2, default 32
 *   examples=N       train examples, default 20000
 *   eval_examples=M  valid and test examples each, default 1000
 *   seed=S           default: DataOptions.seed, or 1 when that is 0
 * One example of n tokens (2L + 1 <= n), content ids 3 .. V-1 drawn
 * uniformly with repetition:
 *
 *     x1 x2 ... xL  SEP  x1 x2 ... xL  PAD ... PAD
 *
 * The second x1 .. xL are scored.
 *
 * Spec: builtin:selective-copy[:key=value,...] (Mamba, Gu & Dao 2023)
 *   length=L         content tokens, default 8
 *   vocab=V          total vocabulary incl. PAD 0, MASK 1, SEP 2, BLANK 3,
 *                    default 20 (16 content ids, as in Mamba)
 *   examples=N, eval_examples=M, seed=S   as above
 * One example of n tokens (2L + 1 <= n), content ids 4 .. V-1 drawn
 * uniformly with repetition, R = n - 1 - L:
 *
 *     [R tokens: x1 .. xL at L distinct uniform positions, in order; BLANK
 *      elsewhere]  SEP  x1 x2 ... xL
 *
 * The trailing x1 .. xL are scored: the model has to pick the content out
 * of the blanks and reproduce it in order, which a fixed (input-independent)
 * shift cannot do.
 *
 * Every scored token repeats one seen earlier in its example, so the loss
 * floor is 0.  n = DataOptions.n_ctx (0: 64) is the example length.  Every split is its
 * examples back to back plus one trailing PAD (example_len = n), so a clm
 * window of n + 1 tokens fits at every example start; that extra token is
 * never scored.  Splits use streams 1, 2, 3 of the seed.
 *
 * Not for: associative recall (builtin_mqar.c).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdio.h>
#include <string.h>

enum { COPY_DEFAULT_N_CTX = 64, COPY_MAX_VOCAB = 1 << 20 };
enum { COPY_SEP = 2, COPY_BLANK = 3 };

typedef struct {
    int length;         /* L */
    int region;         /* selective: positions the content is scattered over */
    int32_t first;      /* first content id */
    uint32_t n_content; /* content ids first .. first + n_content - 1 */
} CopyParams;

/* ids [n] (all PAD), scored [n] (all 0) -> x1..xL SEP x1..xL */
static void write_copy(void *state, int split, DataRng *r, int32_t *ids, uint8_t *scored)
{
    const CopyParams *c = state;
    (void)split; /* every split alike */
    int L = c->length;
    for (int i = 0; i < L; i++) ids[i] = c->first + (int32_t)data_rng_below(r, c->n_content);
    ids[L] = COPY_SEP;
    for (int i = 0; i < L; i++) {
        ids[L + 1 + i] = ids[i];
        scored[L + 1 + i] = 1;
    }
}

/* ids [n] (all PAD), scored [n] (all 0) -> region with scattered content,
   SEP, the content in order */
static void write_selective(void *state, int split, DataRng *r, int32_t *ids, uint8_t *scored)
{
    const CopyParams *c = state;
    (void)split;
    int L = c->length, R = c->region;
    int32_t *output = ids + R + 1;
    /* Selection sampling (Knuth's algorithm S): each position is taken with
       probability (still needed) / (still left), so the L positions are a
       uniform subset, visited in order. */
    int taken = 0;
    for (int pos = 0; pos < R; pos++) {
        if ((int)data_rng_below(r, (uint32_t)(R - pos)) < L - taken) {
            int32_t token = c->first + (int32_t)data_rng_below(r, c->n_content);
            ids[pos] = token;
            output[taken] = token;
            scored[R + 1 + taken] = 1;
            taken++;
        } else {
            ids[pos] = COPY_BLANK;
        }
    }
    ids[R] = COPY_SEP;
}

enum { O_LENGTH, O_VOCAB, O_EXAMPLES, O_EVAL, O_SEED, O_COUNT };

/* The options with their defaults, parsed from opts. */
static int copy_options(const char *name, int selective, const char *opts, BuiltinOption o[O_COUNT], char *err)
{
    int reserved = selective ? COPY_BLANK + 1 : COPY_SEP + 1;
    const BuiltinOption table[O_COUNT] = {
        [O_LENGTH] = {"length", 1, 1 << 20, 1, 8, 0},
        [O_VOCAB] = {"vocab", reserved + 1, COPY_MAX_VOCAB, 1, selective ? 20 : 32, 0},
        [O_EXAMPLES] = {"examples", 1, 1e8, 1, 20000, 0},
        [O_EVAL] = {"eval_examples", 1, 1e8, 1, 1000, 0},
        [O_SEED] = {"seed", 0, 9007199254740991.0, 1, 1, 0},
    };
    memcpy(o, table, sizeof table);
    return builtin_parse_options(name, opts, o, O_COUNT, err);
}

int builtin_copy_vocab(const char *opts, int *vocab, char *err)
{
    BuiltinOption o[O_COUNT];
    if (copy_options("copy", 0, opts, o, err) != 0) return -1;
    *vocab = (int)o[O_VOCAB].value;
    return 0;
}

int builtin_selective_copy_vocab(const char *opts, int *vocab, char *err)
{
    BuiltinOption o[O_COUNT];
    if (copy_options("selective-copy", 1, opts, o, err) != 0) return -1;
    *vocab = (int)o[O_VOCAB].value;
    return 0;
}

/* The shared body: options, checks, generation. */
static int copy_corpus(const char *name, int selective, const char *opts, uint64_t seed, int n_ctx,
                       BuiltinCorpus *out, char *err)
{
    int reserved = selective ? COPY_BLANK + 1 : COPY_SEP + 1;
    BuiltinOption o[O_COUNT];
    memset(out, 0, sizeof *out);
    if (copy_options(name, selective, opts, o, err) != 0) return -1;
    int n = n_ctx > 0 ? n_ctx : COPY_DEFAULT_N_CTX;
    if (n < 3)
        return err_set(err, "builtin:%s: n_ctx=%d is too short (an example needs at least 3 tokens)", name, n);
    int L = o[O_LENGTH].given ? (int)o[O_LENGTH].value : selective ? 8 : n / 2 - 1;
    if (L < 1) L = 1;
    if (2 * (long)L + 1 > n)
        return err_set(err, "builtin:%s: length=%d needs 2*length + 1 = %ld tokens, more than n_ctx=%d",
                       name, L, 2 * (long)L + 1, n);
    int V = (int)o[O_VOCAB].value;
    CopyParams c = {L, n - 1 - L, reserved, (uint32_t)(V - reserved)};
    uint64_t s = o[O_SEED].given ? (uint64_t)o[O_SEED].value : (seed ? seed : 1);
    size_t examples[SPLIT_COUNT] = {(size_t)o[O_EXAMPLES].value, (size_t)o[O_EVAL].value,
                                    (size_t)o[O_EVAL].value};
    if (builtin_examples(name, examples, n, s, selective ? write_selective : write_copy, &c, out, err) != 0)
        return -1;
    out->vocab = V;
    out->loss_floor = 0;   /* every scored token is a copy of an earlier one */
    snprintf(out->canonical, sizeof out->canonical,
             "builtin:%s:length=%d,vocab=%d,examples=%zu,eval_examples=%zu,seed=%llu,n_ctx=%d", name, L, V,
             examples[0], examples[1], (unsigned long long)s, n);
    return 0;
}

int builtin_copy(const char *opts, uint64_t seed, int n_ctx, BuiltinCorpus *out, char *err)
{
    return copy_corpus("copy", 0, opts, seed, n_ctx, out, err);
}

int builtin_selective_copy(const char *opts, uint64_t seed, int n_ctx, BuiltinCorpus *out, char *err)
{
    return copy_corpus("selective-copy", 1, opts, seed, n_ctx, out, err);
}
