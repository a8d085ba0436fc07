/*
 * test_diagnostics.c — the synthetic diagnostic corpora (builtin:mqar,
 * builtin:copy, builtin:selective-copy): their structure example by
 * example (values follow their keys, queries ask for keys present, the
 * copies equal their sources, scored marks exactly the answers), layout
 * (example_len = n_ctx, one trailing PAD), determinism per seed, distinct
 * splits, speed, spec errors; and end to end: attention learns MQAR to high
 * valid accuracy and copy to a clearly falling loss.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/data/data.h"
#include "engine/model.h"
#include "engine/trainer.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <cblas.h>

static const char *const SPLITS[SPLIT_COUNT] = {"train", "valid", "test"};

static int load(const char *spec, int n_ctx, Dataset *ds)
{
    char err[ERR_LEN];
    DataOptions o = {0};
    o.n_ctx = n_ctx;
    if (dataset_load(spec, &o, ds, err) != 0) {
        printf("  %s: %s\n", spec, err);
        return -1;
    }
    return 0;
}

/* Every split: E examples of n tokens plus one trailing PAD, unscored. */
static void check_layout(const Dataset *ds, const char *spec, int n, const size_t examples[SPLIT_COUNT])
{
    for (int s = 0; s < SPLIT_COUNT; s++) {
        const TokenStream *t = &ds->split[s];
        CHECK(t->example_len == n, "%s %s: example_len %d, want %d", spec, SPLITS[s], t->example_len, n);
        CHECK(t->len == examples[s] * (size_t)n + 1, "%s %s: %zu tokens, want %zu", spec, SPLITS[s], t->len,
              examples[s] * (size_t)n + 1);
        CHECK(t->scored != NULL, "%s %s: no scored mask", spec, SPLITS[s]);
        if (!t->scored || t->len == 0) continue;
        CHECK(t->ids[t->len - 1] == TOKEN_PAD && !t->scored[t->len - 1], "%s %s: the trailing token", spec,
              SPLITS[s]);
        for (size_t i = 0; i < t->len; i++)
            if (t->ids[i] < 0 || t->ids[i] >= ds->vocab) {
                CHECK(0, "%s %s: token %zu is %d, outside vocab %d", spec, SPLITS[s], i, t->ids[i], ds->vocab);
                break;
            }
    }
}

/* Checks one MQAR example; returns the number of failures found. */
static int check_mqar_example(const int32_t *ids, const uint8_t *scored, int n, int P, int Q, int vocab)
{
    int n_keys = (vocab - 2) / 2, bad = 0;
    int32_t key_lo = 2, key_hi = 2 + n_keys, value_hi = vocab;
    for (int p = 0; p < P; p++) {
        int32_t k = ids[2 * p], v = ids[2 * p + 1];
        bad += !(k >= key_lo && k < key_hi) || !(v >= key_hi && v < value_hi);
        for (int q = 0; q < p; q++) bad += ids[2 * q] == k || ids[2 * q + 1] == v;
        bad += scored[2 * p] || scored[2 * p + 1];
    }
    for (int q = 0; q < Q; q++) {
        int32_t k = ids[2 * P + 2 * q], v = ids[2 * P + 2 * q + 1];
        int found = -1;
        for (int p = 0; p < P; p++)
            if (ids[2 * p] == k) found = p;
        bad += found < 0;                                   /* asks for a key present */
        if (found >= 0) bad += v != ids[2 * found + 1];   /* followed by its value */
        bad += scored[2 * P + 2 * q] != 0 || scored[2 * P + 2 * q + 1] != 1;
    }
    for (int i = 2 * P + 2 * Q; i < n; i++) bad += ids[i] != TOKEN_PAD || scored[i];
    return bad;
}

static void test_mqar_structure(void)
{
    struct {
        const char *spec;
        int n_ctx, P, Q, vocab;
        size_t examples[SPLIT_COUNT];
    } cases[] = {
        {"builtin:mqar", 0, 8, 8, 128, {20000, 1000, 1000}},
        {"builtin:mqar:pairs=4,examples=500,eval_examples=50", 32, 4, 4, 128, {500, 50, 50}},
        {"builtin:mqar:pairs=4,queries=10,vocab=20,examples=300,eval_examples=30", 32, 4, 10, 20, {300, 30, 30}},
        {"builtin:mqar:pairs=16,vocab=1000,examples=200,eval_examples=20", 40, 16, 4, 1000, {200, 20, 20}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        Dataset ds;
        if (load(cases[c].spec, cases[c].n_ctx, &ds)) { CHECK(0, "load"); continue; }
        int n = cases[c].n_ctx ? cases[c].n_ctx : 64;
        CHECK(ds.vocab == cases[c].vocab, "%s: vocab %d", cases[c].spec, ds.vocab);
        CHECK(tokenizer_kind(ds.tokenizer) == TOKENIZER_IDS, "%s: tokenizer", cases[c].spec);
        CHECK(ds.loss_floor == 0, "%s: loss floor %g", cases[c].spec, ds.loss_floor);
        check_layout(&ds, cases[c].spec, n, cases[c].examples);
        for (int s = 0; s < SPLIT_COUNT; s++) {
            const TokenStream *t = &ds.split[s];
            int bad_examples = 0;
            size_t n_scored = 0;
            for (size_t e = 0; e < cases[c].examples[s]; e++)
                bad_examples += check_mqar_example(t->ids + e * n, t->scored + e * n, n, cases[c].P, cases[c].Q,
                                                   cases[c].vocab) != 0;
            for (size_t i = 0; i < t->len; i++) n_scored += t->scored[i];
            CHECK(bad_examples == 0, "%s %s: %d malformed examples", cases[c].spec, SPLITS[s], bad_examples);
            CHECK(n_scored == cases[c].examples[s] * (size_t)cases[c].Q, "%s %s: %zu scored tokens",
                  cases[c].spec, SPLITS[s], n_scored);
        }
        dataset_free(&ds);
    }
}

static void test_copy_structure(void)
{
    Dataset ds;
    size_t examples[SPLIT_COUNT] = {20000, 1000, 1000};
    if (load("builtin:copy", 0, &ds)) { CHECK(0, "load"); return; }
    check_layout(&ds, "builtin:copy", 64, examples);
    CHECK(ds.vocab == 32, "vocab %d", ds.vocab);
    int L = 31, bad = 0;   /* default length n/2 - 1 */
    for (int s = 0; s < SPLIT_COUNT; s++) {
        const TokenStream *t = &ds.split[s];
        for (size_t e = 0; e < examples[s]; e++) {
            const int32_t *x = t->ids + e * 64;
            const uint8_t *sc = t->scored + e * 64;
            int ok = x[L] == 2 && !sc[L];
            for (int i = 0; i < L; i++)
                ok &= x[i] >= 3 && x[i] < 32 && x[L + 1 + i] == x[i] && !sc[i] && sc[L + 1 + i];
            for (int i = 2 * L + 1; i < 64; i++) ok &= x[i] == TOKEN_PAD && !sc[i];
            bad += !ok;
        }
    }
    CHECK(bad == 0, "%d malformed copy examples", bad);
    dataset_free(&ds);

    /* a given length, a short context */
    if (load("builtin:copy:length=5,vocab=8,examples=100,eval_examples=10", 16, &ds)) { CHECK(0, "load"); return; }
    const int32_t *x = ds.split[SPLIT_TRAIN].ids;
    int32_t want[16] = {0};
    memcpy(want, x, 5 * sizeof *x);
    want[5] = 2;
    memcpy(want + 6, x, 5 * sizeof *x);
    CHECK(memcmp(x, want, sizeof want) == 0 && ds.split[SPLIT_TRAIN].example_len == 16, "length=5 n_ctx=16 layout");
    dataset_free(&ds);
}

static void test_selective_copy_structure(void)
{
    Dataset ds;
    size_t examples[SPLIT_COUNT] = {20000, 1000, 1000};
    if (load("builtin:selective-copy", 0, &ds)) { CHECK(0, "load"); return; }
    check_layout(&ds, "builtin:selective-copy", 64, examples);
    CHECK(ds.vocab == 20, "vocab %d", ds.vocab);
    int L = 8, R = 64 - 1 - L, bad = 0;
    long position_hits[64] = {0};
    for (int s = 0; s < SPLIT_COUNT; s++) {
        const TokenStream *t = &ds.split[s];
        for (size_t e = 0; e < examples[s]; e++) {
            const int32_t *x = t->ids + e * 64;
            const uint8_t *sc = t->scored + e * 64;
            int32_t content[64];
            int n_content = 0, ok = x[R] == 2 && !sc[R];
            for (int i = 0; i < R; i++) {
                ok &= !sc[i] && (x[i] == 3 || (x[i] >= 4 && x[i] < 20));
                if (x[i] != 3) {
                    content[n_content++] = x[i];
                    position_hits[i]++;
                }
            }
            ok &= n_content == L;
            for (int i = 0; i < L && n_content == L; i++) ok &= x[R + 1 + i] == content[i] && sc[R + 1 + i];
            bad += !ok;
        }
    }
    CHECK(bad == 0, "%d malformed selective-copy examples", bad);
    /* positions are spread over the whole region: each about 22000*8/55 */
    long lo = position_hits[0], hi = position_hits[0];
    for (int i = 0; i < R; i++) {
        lo = MB_MIN(lo, position_hits[i]);
        hi = MB_MAX(hi, position_hits[i]);
    }
    CHECK(lo > 2800 && hi < 3600, "content position counts from %ld to %ld (expected about 3200)", lo, hi);
    dataset_free(&ds);
}

static int same_stream(const TokenStream *a, const TokenStream *b)
{
    return a->len == b->len && memcmp(a->ids, b->ids, sizeof *a->ids * a->len) == 0 &&
           memcmp(a->scored, b->scored, a->len) == 0;
}

static void test_determinism_and_splits(void)
{
    const char *specs[] = {"builtin:mqar", "builtin:copy", "builtin:selective-copy"};
    const char *seeded[] = {"builtin:mqar:seed=2", "builtin:copy:seed=2", "builtin:selective-copy:seed=2"};
    for (int k = 0; k < 3; k++) {
        Dataset a, b, c;
        double t0 = now_seconds();
        if (load(specs[k], 0, &a)) { CHECK(0, "load"); continue; }
        double seconds = now_seconds() - t0;
        printf("  %s: %.3f s to generate\n", specs[k], seconds);
        CHECK(seconds < 0.5, "%s took %.3f s", specs[k], seconds);
        if (load(specs[k], 0, &b)) { CHECK(0, "load"); dataset_free(&a); continue; }
        if (load(seeded[k], 0, &c)) { CHECK(0, "load"); dataset_free(&a); dataset_free(&b); continue; }
        for (int s = 0; s < SPLIT_COUNT; s++) {
            CHECK(same_stream(&a.split[s], &b.split[s]), "%s %s differs between loads", specs[k], SPLITS[s]);
            CHECK(!same_stream(&a.split[s], &c.split[s]), "%s %s: seed=2 gives the same stream", specs[k],
                  SPLITS[s]);
        }
        /* valid and test are the same size: they must still differ */
        CHECK(!same_stream(&a.split[SPLIT_VALID], &a.split[SPLIT_TEST]), "%s: valid == test", specs[k]);
        size_t m = a.split[SPLIT_VALID].len;
        CHECK(memcmp(a.split[SPLIT_TRAIN].ids, a.split[SPLIT_VALID].ids, m * sizeof(int32_t)) != 0,
              "%s: valid is a prefix of train", specs[k]);
        /* DataOptions.seed is the default seed */
        Dataset d;
        char err[ERR_LEN];
        DataOptions o = {0};
        o.seed = 2;
        if (dataset_load(specs[k], &o, &d, err) == 0) {
            CHECK(same_stream(&d.split[SPLIT_TRAIN], &c.split[SPLIT_TRAIN]), "%s: DataOptions.seed=2 vs seed=2",
                  specs[k]);
            dataset_free(&d);
        } else {
            CHECK(0, "%s", err);
        }
        dataset_free(&a);
        dataset_free(&b);
        dataset_free(&c);
    }
}

static void expect_error(const char *spec, int n_ctx, const DataOptions *base, const char *want)
{
    Dataset ds;
    char err[ERR_LEN] = "";
    DataOptions o = {0};
    if (base) o = *base;
    o.n_ctx = n_ctx;
    int rc = dataset_load(spec, &o, &ds, err);
    CHECK(rc != 0, "%s loaded but should fail with '%s'", spec, want);
    CHECK(strstr(err, want) != NULL, "%s: error '%s' lacks '%s'", spec, err, want);
    CHECK(strchr(err, '\n') == NULL, "%s: error has a line break", spec);
    if (rc == 0) dataset_free(&ds);
}

/* train_pairs=L: each training example has p in L..P pairs (every p
   seen), with min(p, (n - 2p) / 2) queries; valid and test keep P; the
   spec train_pairs=P is the corpus without the key, bit for bit. */
/* Two specs that must give the same corpus, bit for bit, at n_ctx n (an
   option at its default changes nothing). */
static void expect_same_corpus(const char *spec_a, const char *spec_b, int n)
{
    Dataset a, b;
    if (load(spec_a, n, &a)) { CHECK(0, "load %s", spec_a); return; }
    if (load(spec_b, n, &b)) { CHECK(0, "load %s", spec_b); dataset_free(&a); return; }
    for (int s = 0; s < SPLIT_COUNT; s++)
        CHECK(same_stream(&a.split[s], &b.split[s]), "%s and %s differ in %s", spec_a, spec_b, SPLITS[s]);
    dataset_free(&a);
    dataset_free(&b);
}

static void test_mqar_train_pairs(void)
{
    const char *spec = "builtin:mqar:pairs=6,train_pairs=2,examples=400,eval_examples=40";
    int n = 24, P = 6, L = 2, V = 128;
    Dataset ds;
    if (load(spec, n, &ds)) { CHECK(0, "load"); return; }
    int seen[8] = {0}, bad = 0;
    const TokenStream *t = &ds.split[SPLIT_TRAIN];
    for (size_t e = 0; e < 400; e++) {
        const uint8_t *sc = t->scored + e * n;
        int first = 0;
        while (first < n && !sc[first]) first++;
        int p = (first - 1) / 2; /* the first answer follows the p pairs and one query key */
        if (p < L || p > P) { bad++; continue; }
        seen[p]++;
        bad += check_mqar_example(t->ids + e * n, sc, n, p, MB_MIN(p, (n - 2 * p) / 2), V) != 0;
    }
    CHECK(bad == 0, "%s: %d malformed training examples", spec, bad);
    for (int p = L; p <= P; p++) CHECK(seen[p] > 40, "%s: %d training examples of %d pairs", spec, seen[p], p);
    for (int s = SPLIT_VALID; s < SPLIT_COUNT; s++) {
        int bad_eval = 0;
        for (size_t e = 0; e < 40; e++)
            bad_eval += check_mqar_example(ds.split[s].ids + e * n, ds.split[s].scored + e * n, n, P,
                                           MB_MIN(P, (n - 2 * P) / 2), V) != 0;
        CHECK(bad_eval == 0, "%s %s: %d examples not of %d pairs", spec, SPLITS[s], bad_eval, P);
    }
    dataset_free(&ds);
    expect_same_corpus("builtin:mqar:pairs=6,train_pairs=6,examples=100", "builtin:mqar:pairs=6,examples=100", n);
}

/* scatter=1: the pairs first, then Q query slots among filler tokens, in
   Zoology's power-law placement (slot 0 the likeliest, far slots drawn too),
   every query answered by its pair's value; valid and test alike. */
static void test_mqar_scatter(void)
{
    const char *spec = "builtin:mqar:pairs=4,scatter=1,vocab=64,examples=2000,eval_examples=200";
    int n = 64, P = 4, Q = 4, V = 64, S = (n - 2 * P) / 2;
    Dataset ds;
    if (load(spec, n, &ds)) { CHECK(0, "load"); return; }
    check_layout(&ds, spec, n, (size_t[]){2000, 200, 200});
    int bad = 0, slot_hits[32] = {0}, far = 0;
    for (int sp = 0; sp < SPLIT_COUNT; sp++) {
        const TokenStream *t = &ds.split[sp];
        size_t count = sp == SPLIT_TRAIN ? 2000 : 200;
        for (size_t e = 0; e < count; e++) {
            const int32_t *ids = t->ids + e * n;
            const uint8_t *sc = t->scored + e * n;
            int answers = 0;
            /* the pairs as in the contiguous layout (Q = 0: no query check) */
            bad += check_mqar_example(ids, sc, 2 * P, P, 0, V) != 0;
            for (int i = 2 * P; i < n; i++) {
                bad += ids[i] < 2 || ids[i] >= V;                  /* filler: no PAD */
                if (!sc[i]) continue;
                answers++;
                int slot = (i - 2 * P - 1) / 2;
                bad += (i - 2 * P) % 2 != 1;                       /* a slot's second token */
                int found = -1;
                for (int p = 0; p < P; p++)
                    if (ids[2 * p] == ids[i - 1]) found = p;
                bad += found < 0 || ids[i] != ids[2 * found + 1];  /* its key's value */
                if (sp == SPLIT_TRAIN) {
                    slot_hits[slot]++;
                    far += slot >= Q;
                }
            }
            bad += answers != Q;
        }
    }
    CHECK(bad == 0, "%s: %d faults", spec, bad);
    /* weights (s+1)^-0.99 over 28 slots, 4 drawn: slot 0 is in most
       examples, the last slot in some, and most examples reach past the
       contiguous layout's last query slot */
    CHECK(slot_hits[0] > 1000 && slot_hits[0] < 2000, "slot 0 drawn in %d of 2000", slot_hits[0]);
    CHECK(slot_hits[S - 1] > 20 && slot_hits[S - 1] < slot_hits[1], "last slot %d, slot 1 %d", slot_hits[S - 1],
          slot_hits[1]);
    CHECK(far > 2000, "%d queries beyond slot %d", far, Q - 1);
    dataset_free(&ds);
    /* scatter=0 is the contiguous corpus, bit for bit */
    expect_same_corpus("builtin:mqar:pairs=4,scatter=0,examples=100", "builtin:mqar:pairs=4,examples=100", n);
}

/* ':' separates options as ',' does (a sweep's values split at commas) */
static void test_colon_options(void)
{
    Dataset a, b, c;
    if (load("builtin:mqar:pairs=4,vocab=64,examples=50", 16, &a)) { CHECK(0, "load"); return; }
    if (load("builtin:mqar:pairs=4:vocab=64:examples=50", 16, &b)) { CHECK(0, "load"); dataset_free(&a); return; }
    if (load("builtin:mqar:pairs=4:vocab=128,examples=50", 16, &c)) {
        CHECK(0, "load");
        dataset_free(&a);
        dataset_free(&b);
        return;
    }
    CHECK(a.vocab == 64 && b.vocab == 64 && c.vocab == 128, "vocab %d %d %d", a.vocab, b.vocab, c.vocab);
    for (int s = 0; s < SPLIT_COUNT; s++)
        CHECK(same_stream(&a.split[s], &b.split[s]), "%s differs between ',' and ':'", SPLITS[s]);
    CHECK(a.split[SPLIT_TRAIN].len == 50 * 16 + 1, "examples=50 after ':': %zu tokens", a.split[SPLIT_TRAIN].len);
    dataset_free(&a);
    dataset_free(&b);
    dataset_free(&c);
}

/* data_mqar_pairs reads pairs= from the spec alone, the generator's own
   default when it names none: the number of pairs each test example holds */
static void test_mqar_pairs_from_spec(void)
{
    /* test_mqar_structure's first case checks that "builtin:mqar" generates
       examples of 8 pairs */
    CHECK(data_mqar_pairs("builtin:mqar") == 8, "default %d", data_mqar_pairs("builtin:mqar"));
    CHECK(data_mqar_pairs("builtin:mqar:pairs=16:train_pairs=4:scatter=1") == 16, "pairs=16");
    CHECK(data_mqar_pairs("builtin:mqar:vocab=128,pairs=3") == 3, "pairs after ','");
    CHECK(data_mqar_pairs("builtin:copy:examples=10") == 0, "copy is not mqar");
    CHECK(data_mqar_pairs("builtin:mqarx:pairs=4") == 0, "mqarx is not mqar");
    CHECK(data_mqar_pairs("builtin:mqar:pairs=4:bogus=1") == 0, "a malformed spec");
    CHECK(data_mqar_pairs(NULL) == 0 && data_mqar_pairs("ptb") == 0, "not built-in");
}

static void test_errors(void)
{
    expect_error("builtin:mqar:pairs=40", 64, NULL, "pairs=40 leaves no room for a query in n_ctx=64");
    expect_error("builtin:mqar:pairs=8,queries=20", 32, NULL,
                 "pairs=8 and queries=20 need 2*pairs + 2*queries = 56 tokens, more than n_ctx=32");
    expect_error("builtin:mqar:pairs=8,vocab=12", 64, NULL, "pairs=8 needs 8 distinct keys but vocab=12 has 5");
    expect_error("builtin:mqar:keys=3", 64, NULL, "unknown option 'keys' (known: pairs, queries, vocab,");
    expect_error("builtin:mqar:pairs=4,train_pairs=5", 64, NULL, "train_pairs=5 is more than pairs=4");
    expect_error("builtin:mqar:scatter=2", 64, NULL, "bad value '2' for scatter");
    expect_error("builtin:mqar:pairs=0", 64, NULL, "bad value '0' for pairs");
    expect_error("builtin:mqar:pairs=2.5", 64, NULL, "bad value '2.5' for pairs");
    expect_error("builtin:mqar:vocab", 64, NULL, "needs a value");
    expect_error("builtin:copy:length=32", 64, NULL, "length=32 needs 2*length + 1 = 65 tokens, more than n_ctx=64");
    expect_error("builtin:copy:vocab=3", 64, NULL, "bad value '3' for vocab");
    expect_error("builtin:copy", 2, NULL, "n_ctx=2 is too short");
    expect_error("builtin:selective-copy:length=9", 16, NULL, "length=9 needs 2*length + 1 = 19 tokens");
    expect_error("builtin:selective-copy:vocab=4", 64, NULL, "bad value '4' for vocab");
    expect_error("builtin:selective-copy:blanks=4", 64, NULL, "unknown option 'blanks'");
    expect_error("builtin:copies", 64, NULL, "unknown builtin corpus 'copies' (known: stories, markov, mqar, copy");
    DataOptions word = {0};
    word.tokenizer = "word";
    expect_error("builtin:mqar", 64, &word, "builtin:mqar produces token ids; its tokenizer is ids");
    DataOptions small = {0};
    small.vocab = 100;
    expect_error("builtin:mqar", 64, &small, "builtin:mqar needs vocab >= 128");
}

/* The vocabulary check passes a larger model vocabulary (as markov does). */
static void test_larger_model_vocab(void)
{
    Dataset ds;
    char err[ERR_LEN];
    DataOptions o = {0};
    o.vocab = 100;
    CHECK(dataset_load("builtin:copy:vocab=64,examples=10,eval_examples=10", &o, &ds, err) == 0, "%s", err);
    if (ds.tokenizer) {
        CHECK(ds.vocab == 64, "vocab %d", ds.vocab);
        dataset_free(&ds);
    }
}

/* Trains c on ds, evaluating valid after each of the check-points in
   eval_at (ascending, ending with c->steps).  valid[k] gets the result at
   eval_at[k]; losses[s] the train loss of step s + 1 (may be NULL). */
static int train_and_eval(const Config *c, const Dataset *ds, const int *eval_at, int n_evals, EvalResult *valid,
                          double *losses)
{
    Model m;
    char err[ERR_LEN];
    Config cc = *c;
    cc.vocab = ds->vocab;
    if (config_validate(&cc, err) || model_build(&m, &cc, err)) {
        printf("  %s\n", err);
        return -1;
    }
    Trainer *t;
    if (trainer_create(&t, &m, ds, cc.threads, 1, err)) {
        printf("  %s\n", err);
        model_free(&m);
        return -1;
    }
    TrainProgress p = {0};
    int rc = 0, k = 0;
    while (rc == 0 && !trainer_done(t) && k < n_evals) {
        rc = trainer_step(t, &p, err);
        if (rc == 0 && losses) losses[p.step - 1] = p.loss;
        if (rc == 0 && p.step == eval_at[k]) rc = trainer_evaluate(t, SPLIT_VALID, &valid[k++], err);
    }
    if (rc) printf("  %s\n", err);
    trainer_free(t);
    model_free(&m);
    return rc;
}

/* MQAR needs an induction circuit (layer 1 copies each key into its value's
   position, layer 2 matches the query against it); 2-layer attention sits
   on the "one of the example's values" plateau (loss ln P, accuracy 1/P)
   until the circuit forms, then jumps to ~1.  With 4 scored queries per
   example and batch 32 that takes thousands of steps (and 128 ids); 12
   queries per example, 32 ids and batch 128 make it a few hundred (seeds 1-3:
   500, 500, 750 steps). */
static void test_attention_learns_mqar(void)
{
    Dataset ds;
    const char *spec = "builtin:mqar:pairs=4,queries=12,vocab=32";
    if (load(spec, 32, &ds)) { CHECK(0, "load"); return; }
    Config c;
    const char *args[] = {"arch=attention", "task=clm", "d=64", "layers=2", "heads=2", "n_ctx=32", "batch=128",
                          "steps=1000", "lr=0.001", "warmup=30", "decay=constant", "threads=0", NULL};
    if (tm_config(&c, args)) { CHECK(0, "setup"); dataset_free(&ds); return; }
    Model m;
    char err[ERR_LEN];
    Trainer *t = NULL;
    c.vocab = ds.vocab;
    if (config_validate(&c, err) || model_build(&m, &c, err)) {
        CHECK(0, "%s", err);
        dataset_free(&ds);
        return;
    }
    if (trainer_create(&t, &m, &ds, c.threads, 1, err)) {
        CHECK(0, "%s", err);
        model_free(&m);
        dataset_free(&ds);
        return;
    }
    double t0 = now_seconds();
    TrainProgress p = {0};
    EvalResult valid = {0};
    int rc = 0;
    /* evaluate every 250 steps; stop once the circuit has formed */
    while (rc == 0 && !trainer_done(t) && valid.accuracy <= 0.9) {
        rc = trainer_step(t, &p, err);
        if (rc == 0 && p.step % 250 == 0) {
            rc = trainer_evaluate(t, SPLIT_VALID, &valid, err);
            printf("  attention on %s (n_ctx 32): step %lld  train loss %.4f  valid loss %.4f  accuracy %.4f  "
                   "(%lld targets, %.1f s)\n",
                   spec, (long long)p.step, p.loss_smooth, valid.loss, valid.accuracy, (long long)valid.n_targets,
                   now_seconds() - t0);
            fflush(stdout);
        }
    }
    CHECK(rc == 0, "%s", err);
    CHECK(valid.n_targets == 1000 * 12, "valid scores %lld targets, want 1000 examples x 12 queries",
          (long long)valid.n_targets);
    CHECK(valid.accuracy > 0.9, "valid accuracy %.4f after %lld steps", valid.accuracy, (long long)p.step);
    trainer_free(t);
    model_free(&m);
    dataset_free(&ds);
}

static void test_copy_loss_falls(void)
{
    Dataset ds;
    if (load("builtin:copy:length=8,vocab=16", 32, &ds)) { CHECK(0, "load"); return; }
    Config c;
    const char *args[] = {"arch=attention", "task=clm", "d=64", "layers=2", "heads=2", "n_ctx=32", "batch=32",
                          "steps=200", "lr=0.003", "warmup=20", "decay=cosine", "threads=0", NULL};
    if (tm_config(&c, args)) { CHECK(0, "setup"); dataset_free(&ds); return; }
    double losses[200];
    int eval_at[] = {200};
    EvalResult valid[1];
    memset(valid, 0, sizeof valid);
    int rc = train_and_eval(&c, &ds, eval_at, 1, valid, losses);
    CHECK(rc == 0, "training failed");
    double first = 0, last = 0;
    for (int s = 0; s < 10; s++) {
        first += losses[s] / 10;
        last += losses[190 + s] / 10;
    }
    printf("  attention on copy (n_ctx 32, length 8, 13 symbols): train loss %.4f -> %.4f, valid loss %.4f "
           "accuracy %.4f (chance loss %.4f)\n",
           first, last, valid[0].loss, valid[0].accuracy, log(13.0));
    CHECK(valid[0].n_targets == 1000 * 8, "valid scores %lld targets", (long long)valid[0].n_targets);
    CHECK(last < 0.5 * first, "copy train loss %.4f -> %.4f did not clearly fall", first, last);
    dataset_free(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    openblas_set_num_threads(1);
    RUN(test_mqar_structure);
    RUN(test_mqar_train_pairs);
    RUN(test_mqar_scatter);
    RUN(test_copy_structure);
    RUN(test_selective_copy_structure);
    RUN(test_determinism_and_splits);
    RUN(test_colon_options);
    RUN(test_mqar_pairs_from_spec);
    RUN(test_errors);
    RUN(test_larger_model_vocab);
    RUN(test_attention_learns_mqar);
    RUN(test_copy_loss_falls);
    CHECK_EXIT();
}
