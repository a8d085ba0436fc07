/*
 * test_data.c — tests for engine/data: the four tokenizers (round trips,
 * serialisation), the real corpora (PTB, WikiText-2, tiny shakespeare token
 * counts and vocabularies), the BPE merge cache, ids errors naming the line,
 * spec errors, and the built-in corpora (stories determinism and
 * vocabulary, markov entropy rate against its exact loss floor).
 *
 * MIXBENCH_DATA points at the shared corpora (default ../shared/data); the
 * tests that read them are skipped when they are not there.
 */
#include "engine/common.h"
#include "engine/data/data.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[256];

static void corpus_path(char *out, size_t cap, const char *rel)
{
    snprintf(out, cap, "%s/%s", corpora_dir(), rel);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        printf("  cannot write %s\n", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

static void copy_file(const char *from, const char *to)
{
    size_t len;
    char *text = read_all(from, &len);
    if (!text) return;
    FILE *f = fopen(to, "wb");
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
    free(text);
}

/* Decodes ids[0..n) into a malloc'd string. */
static char *decode_all(const Tokenizer *t, const int32_t *ids, size_t n)
{
    size_t cap = n * 8 + 64, used = 0;
    char *out = malloc(cap);
    char piece[1024];
    for (size_t i = 0; i < n; i++) {
        size_t k = tokenizer_decode_one(t, ids[i], piece, sizeof piece);
        if (used + k + 1 > cap) {
            cap = (used + k + 1) * 2;
            out = realloc(out, cap);
        }
        memcpy(out + used, piece, k);
        used += k;
    }
    out[used] = '\0';
    return out;
}

/* Compares two texts ignoring the amount and kind of whitespace. */
static int same_words(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r') a++;
        while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r') b++;
        if (!*a || !*b) return !*a && !*b;
        while (*a && *b && *a != ' ' && *a != '\t' && *a != '\n' && *a != '\r') {
            if (*a != *b) return 0;
            a++;
            b++;
        }
        int a_end = !*a || *a == ' ' || *a == '\t' || *a == '\n' || *a == '\r';
        int b_end = !*b || *b == ' ' || *b == '\t' || *b == '\n' || *b == '\r';
        if (!a_end || !b_end) return 0;
    }
}

static int same_stream(const TokenStream *a, const TokenStream *b)
{
    return a->len == b->len && memcmp(a->ids, b->ids, a->len * sizeof *a->ids) == 0;
}

/* ---- real corpora */

static void test_ptb_word(void)
{
    char path[1024], err[ERR_LEN] = "";
    corpus_path(path, sizeof path, "ptb");
    Dataset ds;
    double t0 = now_seconds();
    int rc = dataset_load(path, NULL, &ds, err);
    double dt = now_seconds() - t0;
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    printf("  ptb word: %.3f s\n", dt);
    /* 9,999 types incl. <unk> + <eos>, plus PAD and MASK; "<unk>" in the
       text is the reserved id 2. */
    CHECK(ds.vocab == 10002, "vocab %d", ds.vocab);
    CHECK(tokenizer_kind(ds.tokenizer) == TOKENIZER_WORD, "kind");
    CHECK(ds.split[SPLIT_TRAIN].len == 929589, "train %zu", ds.split[SPLIT_TRAIN].len);
    CHECK(ds.split[SPLIT_VALID].len == 73760, "valid %zu", ds.split[SPLIT_VALID].len);
    CHECK(ds.split[SPLIT_TEST].len == 82430, "test %zu", ds.split[SPLIT_TEST].len);
    CHECK(isnan(ds.loss_floor), "loss floor %g", ds.loss_floor);
    CHECK(dt < 2.0, "load took %.2f s", dt);

    int32_t *ids = NULL;
    size_t n = 0;
    CHECK(tokenizer_encode(ds.tokenizer, "the <unk> zzzunseen\n", &ids, &n, err) == 0, "%s", err);
    CHECK(n == 4 && ids[1] == 2 && ids[2] == 2 && ids[3] == 3, "n=%zu", n);
    CHECK(n == 4 && ids[0] == 4, "'the' should be the most frequent word, got id %d", n ? ids[0] : -1);
    free(ids);
    /* valid and test have no types absent from train */
    size_t unk_valid = 0, unk_text = 0;
    for (size_t i = 0; i < ds.split[SPLIT_VALID].len; i++) unk_valid += ds.split[SPLIT_VALID].ids[i] == 2;
    char *valid = NULL;
    char vpath[1100];
    snprintf(vpath, sizeof vpath, "%s/ptb.valid.txt", path);
    valid = read_all(vpath, NULL);
    for (const char *p = valid; p && (p = strstr(p, "<unk>")); p += 5) unk_text++;
    CHECK(unk_valid == unk_text, "valid <unk> %zu vs %zu in text", unk_valid, unk_text);
    free(valid);

    /* vocabulary cap and min_count */
    Dataset capped;
    DataOptions opt = {.vocab = 1000};
    CHECK(dataset_load(path, &opt, &capped, err) == 0, "%s", err);
    CHECK(capped.vocab == 1000, "capped vocab %d", capped.vocab);
    CHECK(capped.split[SPLIT_TRAIN].len == 929589, "capped train %zu", capped.split[SPLIT_TRAIN].len);
    dataset_free(&capped);
    DataOptions rare = {.min_count = 50};
    CHECK(dataset_load(path, &rare, &capped, err) == 0, "%s", err);
    CHECK(capped.vocab > 1000 && capped.vocab < 10002, "min_count vocab %d", capped.vocab);
    dataset_free(&capped);
    dataset_free(&ds);
}

static void test_wikitext_word(void)
{
    char path[1024], err[ERR_LEN] = "";
    corpus_path(path, sizeof path, "wikitext-2");
    Dataset ds;
    double t0 = now_seconds();
    int rc = dataset_load(path, NULL, &ds, err);
    double dt = now_seconds() - t0;
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    printf("  wikitext-2 word: %.3f s\n", dt);
    CHECK(ds.split[SPLIT_TRAIN].len == 2088628, "train %zu", ds.split[SPLIT_TRAIN].len);
    CHECK(ds.split[SPLIT_VALID].len == 217646, "valid %zu", ds.split[SPLIT_VALID].len);
    CHECK(ds.split[SPLIT_TEST].len == 245569, "test %zu", ds.split[SPLIT_TEST].len);
    CHECK(ds.vocab == 33278 + 2, "vocab %d", ds.vocab);
    CHECK(dt < 2.0, "load took %.2f s", dt);
    /* word round trip on the valid split, modulo whitespace */
    char vpath[1100];
    snprintf(vpath, sizeof vpath, "%s/valid.txt", path);
    char *text = read_all(vpath, NULL);
    char *back = decode_all(ds.tokenizer, ds.split[SPLIT_VALID].ids, ds.split[SPLIT_VALID].len);
    CHECK(text && same_words(text, back), "valid split does not decode back to its words");
    free(text);
    free(back);
    dataset_free(&ds);
}

static void test_tinyshakespeare_char(void)
{
    char path[1024], err[ERR_LEN] = "";
    corpus_path(path, sizeof path, "tinyshakespeare/input.txt");
    DataOptions opt = {.tokenizer = "char"};
    Dataset ds;
    int rc = dataset_load(path, &opt, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    CHECK(ds.vocab == 258 && ds.bytes_per_token_is_one, "vocab %d", ds.vocab);
    size_t len;
    char *text = read_all(path, &len);
    /* 40,000 lines: train 36,000, valid 2,000, test 2,000 */
    size_t line = 0, cut[2] = {0, 0};
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n') {
            line++;
            if (line == 36000) cut[0] = i + 1;
            if (line == 38000) cut[1] = i + 1;
        }
    CHECK(line == 40000, "lines %zu", line);
    CHECK(ds.split[SPLIT_TRAIN].len == cut[0], "train %zu vs %zu", ds.split[SPLIT_TRAIN].len, cut[0]);
    CHECK(ds.split[SPLIT_VALID].len == cut[1] - cut[0], "valid %zu", ds.split[SPLIT_VALID].len);
    CHECK(ds.split[SPLIT_TEST].len == len - cut[1], "test %zu", ds.split[SPLIT_TEST].len);
    char *back = decode_all(ds.tokenizer, ds.split[SPLIT_TEST].ids, ds.split[SPLIT_TEST].len);
    CHECK(strcmp(back, text + cut[1]) == 0, "test split does not decode to the file's tail");
    CHECK(ds.split[SPLIT_TRAIN].ids[0] == 2 + 'F', "first id %d", ds.split[SPLIT_TRAIN].ids[0]);
    free(back);
    free(text);
    dataset_free(&ds);
}

/* ---- round trips */

static void make_folder(const char *name, const char *train, const char *valid, const char *test,
                        char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", tmp_root, name);
    mkdir(dir, 0755);
    char p[1200];
    snprintf(p, sizeof p, "%s/train.txt", dir);
    write_file(p, train);
    snprintf(p, sizeof p, "%s/valid.txt", dir);
    write_file(p, valid);
    snprintf(p, sizeof p, "%s/test.txt", dir);
    write_file(p, test);
}

static void test_word_roundtrip(void)
{
    char dir[1024], err[ERR_LEN] = "";
    make_folder("words", "the cat sat on the mat\nthe dog sat\n\n  a cat  ran\n", "the cat\n",
                "a dog ran", dir, sizeof dir);
    Dataset ds;
    int rc = dataset_load(dir, NULL, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    /* the(3) cat(2) sat(2) a dog mat on ran: 8 words + 4 reserved */
    CHECK(ds.vocab == 12, "vocab %d", ds.vocab);
    CHECK(ds.split[SPLIT_TRAIN].len == 6 + 1 + 3 + 1 + 1 + 3 + 1, "train %zu", ds.split[SPLIT_TRAIN].len);
    CHECK(ds.split[SPLIT_TEST].len == 4, "unterminated last line gets <eos>: %zu", ds.split[SPLIT_TEST].len);
    char buf[64];
    CHECK(tokenizer_decode_one(ds.tokenizer, 4, buf, sizeof buf) == 4 && strcmp(buf, "the ") == 0, "%s", buf);
    CHECK(tokenizer_decode_one(ds.tokenizer, 5, buf, sizeof buf) == 4 && strcmp(buf, "cat ") == 0, "ties by byte order: %s", buf);
    CHECK(tokenizer_decode_one(ds.tokenizer, 3, buf, sizeof buf) == 1 && strcmp(buf, "\n") == 0, "eos");
    CHECK(tokenizer_decode_one(ds.tokenizer, 0, buf, sizeof buf) == 0 && buf[0] == '\0', "pad");
    CHECK(tokenizer_decode_one(ds.tokenizer, 4, buf, 3) == 2 && strcmp(buf, "th") == 0, "truncation: %s", buf);

    const char *text = "the  dog sat on\tthe mat\n a cat ran\n";
    int32_t *ids;
    size_t n;
    CHECK(tokenizer_encode(ds.tokenizer, text, &ids, &n, err) == 0, "%s", err);
    char *back = decode_all(ds.tokenizer, ids, n);
    CHECK(same_words(text, back), "'%s' vs '%s'", text, back);
    CHECK(n == 11, "tokens %zu", n);
    free(back);
    free(ids);
    dataset_free(&ds);
}

static void test_char_roundtrip(void)
{
    char dir[1024], err[ERR_LEN] = "";
    make_folder("chars", "abc\n", "d\n", "e\n", dir, sizeof dir);
    DataOptions opt = {.tokenizer = "char"};
    Dataset ds;
    int rc = dataset_load(dir, &opt, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    const char *text = "Hello,\tw\xc3\xb6rld!\r\n  \x01\x7f\xff end";
    int32_t *ids;
    size_t n;
    CHECK(tokenizer_encode(ds.tokenizer, text, &ids, &n, err) == 0, "%s", err);
    CHECK(n == strlen(text), "n %zu", n);
    char *back = decode_all(ds.tokenizer, ids, n);
    CHECK(strcmp(back, text) == 0, "char round trip");
    CHECK(ids[0] == 2 + 'H', "id %d", ids[0]);
    free(back);
    free(ids);
    dataset_free(&ds);
}

static void test_bpe_roundtrip(void)
{
    char path[1200], err[ERR_LEN] = "";
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bpe_rt", tmp_root);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/input.txt", dir);
    char src[1024];
    corpus_path(src, sizeof src, "tinyshakespeare/input.txt");
    copy_file(src, path);
    DataOptions opt = {.tokenizer = "bpe", .vocab = 1024};
    Dataset ds;
    int rc = dataset_load(path, &opt, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    CHECK(ds.vocab == 1024, "vocab %d", ds.vocab);
    size_t len;
    char *text = read_all(path, &len);
    size_t n_all = ds.split[0].len + ds.split[1].len + ds.split[2].len;
    CHECK(n_all < len / 2, "bpe should compress: %zu tokens for %zu bytes", n_all, len);
    char *parts[3];
    size_t total = 0;
    for (int s = 0; s < 3; s++) {
        parts[s] = decode_all(ds.tokenizer, ds.split[s].ids, ds.split[s].len);
        total += strlen(parts[s]);
    }
    char *joined = malloc(total + 1);
    snprintf(joined, total + 1, "%s%s%s", parts[0], parts[1], parts[2]);
    CHECK(total == len && memcmp(joined, text, len) == 0, "the splits decode back to the file");
    for (int s = 0; s < 3; s++) free(parts[s]);
    free(joined);
    free(text);

    const char *odd = "  Tabs\tand   spaces,\n\n\r\nUTF-8: na\xc3\xafve caf\xc3\xa9 \xe6\x88\xa6 1234567 x--y!!";
    int32_t *ids;
    size_t n;
    CHECK(tokenizer_encode(ds.tokenizer, odd, &ids, &n, err) == 0, "%s", err);
    char *back = decode_all(ds.tokenizer, ids, n);
    CHECK(strcmp(back, odd) == 0, "bpe round trip of odd text: '%s'", back);
    free(back);
    free(ids);
    dataset_free(&ds);
}

/* ---- the BPE cache */

static void test_bpe_cache(void)
{
    char dir[1024], path[1200], cache[1300], err[ERR_LEN] = "";
    snprintf(dir, sizeof dir, "%s/bpe_cache", tmp_root);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/shakespeare.txt", dir);
    char src[1024];
    corpus_path(src, sizeof src, "tinyshakespeare/input.txt");
    copy_file(src, path);
    snprintf(cache, sizeof cache, "%s.bpe512.merges", path);

    DataOptions opt = {.tokenizer = "bpe", .vocab = 512};
    Dataset first, second;
    double t0 = now_seconds();
    int rc = dataset_load(path, &opt, &first, err);
    double t1 = now_seconds();
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    CHECK(access(cache, R_OK) == 0, "no cache file %s", cache);
    rc = dataset_load(path, &opt, &second, err);
    double t2 = now_seconds();
    CHECK(rc == 0, "%s", err);
    printf("  bpe 512 on tinyshakespeare: learn+encode %.3f s, cached %.3f s\n", t1 - t0, t2 - t1);
    for (int s = 0; s < SPLIT_COUNT && rc == 0; s++)
        CHECK(same_stream(&first.split[s], &second.split[s]), "split %d differs after caching", s);
    if (rc == 0) dataset_free(&second);

    /* The cache really is read: a valid cache holding only 10 merges gives
       a 268-token vocabulary. */
    size_t len;
    char *merges = read_all(cache, &len);
    CHECK(merges != NULL, "read cache");
    if (merges) {
        char *body = strstr(merges, "\nmerges ");
        if (body) body++;
        char *line = body ? strchr(body, '\n') : NULL;
        for (int k = 0; k < 10 && line; k++) line = strchr(line + 1, '\n');
        if (line) {
            char small[8192];
            char *after_count = strchr(body, '\n');
            snprintf(small, sizeof small, "%.*smerges 10%.*s\nend\n", (int)(body - merges), merges,
                     (int)(line - after_count), after_count);
            write_file(cache, small);
            rc = dataset_load(path, &opt, &second, err);
            CHECK(rc == 0, "%s", err);
            CHECK(rc != 0 || second.vocab == 268, "vocab from the 10-merge cache: %d", second.vocab);
            if (rc == 0) dataset_free(&second);
        }
        free(merges);
    }

    /* A corrupt cache is ignored and relearned. */
    write_file(cache, "mixbench-bpe-merges 1\nkey garbage\n");
    rc = dataset_load(path, &opt, &second, err);
    CHECK(rc == 0, "%s", err);
    for (int s = 0; s < SPLIT_COUNT && rc == 0; s++)
        CHECK(same_stream(&first.split[s], &second.split[s]), "split %d differs after relearning", s);
    if (rc == 0) dataset_free(&second);
    char *rewritten = read_all(cache, NULL);
    CHECK(rewritten && strstr(rewritten, "\nend\n"), "the corrupt cache was rewritten");
    free(rewritten);

    /* A read-only folder: the cache goes to $XDG_CACHE_HOME/mixbench. */
    char ro[1100], ro_file[1200], xdg[1100];
    snprintf(ro, sizeof ro, "%s/readonly", tmp_root);
    snprintf(xdg, sizeof xdg, "%s/xdg", tmp_root);
    mkdir(ro, 0755);
    mkdir(xdg, 0755);
    snprintf(ro_file, sizeof ro_file, "%s/shakespeare.txt", ro);
    copy_file(src, ro_file);
    chmod(ro, 0555);
    const char *old_xdg = getenv("XDG_CACHE_HOME");
    char *saved = old_xdg ? strdup(old_xdg) : NULL;
    setenv("XDG_CACHE_HOME", xdg, 1);
    rc = dataset_load(ro_file, &opt, &second, err);
    CHECK(rc == 0, "%s", err);
    char ro_cache[1300];
    snprintf(ro_cache, sizeof ro_cache, "%s.bpe512.merges", ro_file);
    CHECK(access(ro_cache, F_OK) != 0, "wrote into the read-only folder");
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "ls %s/mixbench/shakespeare.txt-*.bpe512.merges >/dev/null 2>&1", xdg);
    CHECK(system(cmd) == 0, "no cache in %s/mixbench", xdg);
    for (int s = 0; s < SPLIT_COUNT && rc == 0; s++)
        CHECK(same_stream(&first.split[s], &second.split[s]), "split %d differs (read-only copy)", s);
    if (rc == 0) dataset_free(&second);
    Dataset third;
    rc = dataset_load(ro_file, &opt, &third, err);
    CHECK(rc == 0, "%s", err);
    if (rc == 0) dataset_free(&third);
    if (saved) setenv("XDG_CACHE_HOME", saved, 1);
    else unsetenv("XDG_CACHE_HOME");
    free(saved);
    chmod(ro, 0755);
    dataset_free(&first);
}

/* ---- ids */

static void test_ids(void)
{
    char dir[1024], err[ERR_LEN] = "";
    make_folder("ids", "2 3 4\n5 6\n\n7\n", "8 9\n", "10 99", dir, sizeof dir);
    DataOptions opt = {.tokenizer = "ids", .vocab = 100};
    Dataset ds;
    int rc = dataset_load(dir, &opt, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc == 0) {
        CHECK(ds.vocab == 100, "vocab %d", ds.vocab);
        CHECK(ds.split[SPLIT_TRAIN].len == 6, "line breaks add no token: %zu", ds.split[SPLIT_TRAIN].len);
        CHECK(ds.split[SPLIT_TEST].len == 2 && ds.split[SPLIT_TEST].ids[1] == 99, "test");
        char buf[16];
        tokenizer_decode_one(ds.tokenizer, 42, buf, sizeof buf);
        CHECK(strcmp(buf, "42 ") == 0, "'%s'", buf);
        dataset_free(&ds);
    }

    /* an id outside the vocabulary on line 12 */
    char train[512] = "";
    for (int line = 1; line <= 20; line++) {
        char l[32];
        snprintf(l, sizeof l, "%d 5\n", line == 12 ? 70000 : line + 2);
        strcat(train, l);
    }
    make_folder("ids_bad", train, "2\n", "3\n", dir, sizeof dir);
    opt.vocab = 1000;
    rc = dataset_load(dir, &opt, &ds, err);
    CHECK(rc != 0, "accepted id 70000");
    CHECK(strstr(err, "train.txt:12: token id 70000 is outside the vocabulary (vocab=1000)") != NULL, "%s", err);

    make_folder("ids_word", "2 3\n4 x5\n", "2\n", "3\n", dir, sizeof dir);
    rc = dataset_load(dir, &opt, &ds, err);
    CHECK(rc != 0 && strstr(err, "train.txt:2:") && strstr(err, "x5"), "%s", err);
    make_folder("ids_neg", "2 3\n", "-4\n", "3\n", dir, sizeof dir);
    rc = dataset_load(dir, &opt, &ds, err);
    CHECK(rc != 0 && strstr(err, "valid.txt:1:") && strstr(err, "-4"), "%s", err);

    DataOptions no_vocab = {.tokenizer = "ids"};
    make_folder("ids_ok", "2 3\n", "2\n", "3\n", dir, sizeof dir);
    rc = dataset_load(dir, &no_vocab, &ds, err);
    CHECK(rc != 0 && strstr(err, "vocab"), "%s", err);

    /* a single ids file: line numbers count from the top of the file */
    char file[1100], text[4096] = "";
    snprintf(file, sizeof file, "%s/ids_single.txt", tmp_root);
    for (int line = 1; line <= 40; line++) strcat(text, line == 38 ? "2 abc\n" : "2 3 4\n");
    write_file(file, text);
    rc = dataset_load(file, &opt, &ds, err);
    CHECK(rc != 0 && strstr(err, "ids_single.txt:38:"), "%s", err);

    /* encode through the tokenizer */
    Tokenizer *t = tokenizer_deserialize("mixbench-tokenizer 1\nkind ids\nvocab 50\n", err);
    CHECK(t != NULL, "%s", err);
    if (t) {
        int32_t *ids;
        size_t n;
        CHECK(tokenizer_encode(t, "1 2\n 49", &ids, &n, err) == 0 && n == 3 && ids[2] == 49, "%s", err);
        free(ids);
        CHECK(tokenizer_encode(t, "1 2\n50", &ids, &n, err) != 0 && strstr(err, ":2:"), "%s", err);
        tokenizer_free(t);
    }
}

/* ---- errors */

static void expect_error(const char *spec, const DataOptions *opt, const char *fragment)
{
    Dataset ds;
    char err[ERR_LEN] = "";
    int rc = dataset_load(spec, opt, &ds, err);
    CHECK(rc != 0, "'%s' loaded", spec);
    if (rc == 0) {
        dataset_free(&ds);
        return;
    }
    CHECK(strstr(err, fragment) != NULL, "'%s': error '%s' lacks '%s'", spec, err, fragment);
    CHECK(strchr(err, '\n') == NULL && err[0], "'%s': not one line: '%s'", spec, err);
    CHECK(ds.tokenizer == NULL && ds.split[0].ids == NULL, "'%s' left data behind", spec);
}

static void test_errors(void)
{
    char dir[1024], path[1100];
    expect_error("/nonexistent/corpus", NULL, "not found");
    expect_error("", NULL, "no dataset");

    snprintf(dir, sizeof dir, "%s/empty_folder", tmp_root);
    mkdir(dir, 0755);
    expect_error(dir, NULL, "no recognisable splits");
    snprintf(path, sizeof path, "%s/train.txt", dir);
    write_file(path, "a b c\n");
    expect_error(dir, NULL, "no valid.txt");

    make_folder("empty_valid", "a b\n", "", "c\n", dir, sizeof dir);
    expect_error(dir, NULL, "valid split");
    DataOptions chars = {.tokenizer = "char"};
    expect_error(dir, &chars, "is empty");

    snprintf(path, sizeof path, "%s/short.txt", tmp_root);
    write_file(path, "one\ntwo\nthree\n");
    expect_error(path, NULL, "too few to split");

    DataOptions bad_tok = {.tokenizer = "sentencepiece"};
    expect_error("builtin:stories", &bad_tok, "unknown tokenizer 'sentencepiece'");
    make_folder("tok", "a\n", "b\n", "c\n", dir, sizeof dir);
    expect_error(dir, &bad_tok, "unknown tokenizer");

    expect_error("builtin:novels", NULL, "unknown builtin corpus 'novels'");
    expect_error("builtin:markov:colour=3", NULL, "unknown option 'colour'");
    expect_error("builtin:markov:order=3", NULL, "bad value '3' for order");
    expect_error("builtin:markov:states=abc", NULL, "bad value 'abc' for states");
    expect_error("builtin:markov:states", NULL, "needs a value");
    expect_error("builtin:markov:states=8,branch=9", NULL, "branch=9 exceeds states=8");
    expect_error("builtin:stories:tokens=1.5", NULL, "bad value '1.5' for tokens");
    DataOptions word = {.tokenizer = "word"};
    expect_error("builtin:markov", &word, "tokenizer is ids");
    DataOptions ids = {.tokenizer = "ids", .vocab = 100};
    expect_error("builtin:stories", &ids, "is text");
    DataOptions tiny_bpe = {.tokenizer = "bpe", .vocab = 100};
    expect_error("builtin:stories:tokens=1000,eval_tokens=200", &tiny_bpe, "too small");
    DataOptions small_vocab = {.vocab = 10};
    expect_error("builtin:markov", &small_vocab, "vocab >= 66");
}

/* ---- built-ins */

/* Plug-in estimate of H(X_t | context) in nats from a stream. */
static double empirical_entropy(const TokenStream *s, int symbols, int order)
{
    size_t n_ctx = order == 1 ? (size_t)symbols : (size_t)symbols * (size_t)symbols;
    double *counts = calloc(n_ctx * (size_t)symbols, sizeof *counts);
    double *ctx_total = calloc(n_ctx, sizeof *ctx_total);
    double total = 0;
    for (size_t t = (size_t)order; t < s->len; t++) {
        size_t c = (size_t)(s->ids[t - 1] - 2);
        if (order == 2) c += (size_t)(s->ids[t - 2] - 2) * (size_t)symbols;
        counts[c * (size_t)symbols + (size_t)(s->ids[t] - 2)] += 1;
        ctx_total[c] += 1;
        total += 1;
    }
    double h = 0;
    for (size_t c = 0; c < n_ctx; c++)
        for (int x = 0; x < symbols; x++) {
            double k = counts[c * (size_t)symbols + (size_t)x];
            if (k > 0) h -= k / total * log(k / ctx_total[c]);
        }
    free(counts);
    free(ctx_total);
    return h;
}

static void test_markov(void)
{
    char err[ERR_LEN] = "";
    Dataset ds;
    double t0 = now_seconds();
    int rc = dataset_load("builtin:markov:tokens=2000000", NULL, &ds, err);
    double dt = now_seconds() - t0;
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    CHECK(ds.vocab == 66 && tokenizer_kind(ds.tokenizer) == TOKENIZER_IDS, "vocab %d", ds.vocab);
    CHECK(ds.split[SPLIT_VALID].len == 50000, "valid %zu", ds.split[SPLIT_VALID].len);
    int in_range = 1;
    for (int s = 0; s < SPLIT_COUNT; s++)
        for (size_t i = 0; i < ds.split[s].len; i++)
            in_range &= ds.split[s].ids[i] >= 2 && ds.split[s].ids[i] < 66;
    CHECK(in_range, "symbols are ids 2..65");
    double h = empirical_entropy(&ds.split[SPLIT_TRAIN], 64, 1);
    printf("  markov order 1: floor %.5f nats, empirical %.5f (%.2f%%), log V %.3f, %.3f s\n",
           ds.loss_floor, h, 100 * (h - ds.loss_floor) / ds.loss_floor, log(64.0), dt);
    CHECK(isfinite(ds.loss_floor) && ds.loss_floor < 0.5 * log(64.0), "floor %g", ds.loss_floor);
    CHECK(fabs(h - ds.loss_floor) < 0.01 * ds.loss_floor, "empirical %g vs floor %g", h, ds.loss_floor);
    Dataset again;
    CHECK(dataset_load("builtin:markov:tokens=2000000", NULL, &again, err) == 0, "%s", err);
    CHECK(same_stream(&ds.split[0], &again.split[0]) && again.loss_floor == ds.loss_floor, "deterministic");
    dataset_free(&again);
    dataset_free(&ds);

    rc = dataset_load("builtin:markov:states=16,order=2,branch=3,tokens=2000000,seed=7", NULL, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    h = empirical_entropy(&ds.split[SPLIT_TRAIN], 16, 2);
    printf("  markov order 2: floor %.5f nats, empirical %.5f (%.2f%%)\n", ds.loss_floor, h,
           100 * (h - ds.loss_floor) / ds.loss_floor);
    CHECK(fabs(h - ds.loss_floor) < 0.01 * ds.loss_floor, "empirical %g vs floor %g", h, ds.loss_floor);
    CHECK(ds.vocab == 18, "vocab %d", ds.vocab);
    dataset_free(&ds);

    /* DataOptions.seed is used when the spec sets none */
    DataOptions a = {.seed = 5}, b = {.seed = 6};
    Dataset da, db;
    CHECK(dataset_load("builtin:markov:tokens=1000", &a, &da, err) == 0, "%s", err);
    CHECK(dataset_load("builtin:markov:tokens=1000", &b, &db, err) == 0, "%s", err);
    CHECK(!same_stream(&da.split[0], &db.split[0]), "seeds 5 and 6 gave the same stream");
    dataset_free(&da);
    dataset_free(&db);
}

static void test_stories(void)
{
    char err[ERR_LEN] = "";
    Dataset a, b, c;
    double t0 = now_seconds();
    int rc = dataset_load("builtin:stories", NULL, &a, err);
    double dt = now_seconds() - t0;
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    printf("  stories default: vocab %d, train %zu, valid %zu, test %zu, %.3f s\n", a.vocab,
           a.split[0].len, a.split[1].len, a.split[2].len, dt);
    CHECK(a.vocab >= 300 && a.vocab <= 1500, "vocab %d", a.vocab);
    CHECK(a.split[SPLIT_TRAIN].len >= 2000000 && a.split[SPLIT_TRAIN].len < 2001000, "train %zu", a.split[0].len);
    CHECK(a.split[SPLIT_VALID].len >= 100000 && a.split[SPLIT_VALID].len < 101000, "valid %zu", a.split[1].len);
    CHECK(dt < 1.5, "generation took %.2f s", dt);
    CHECK(dataset_load("builtin:stories", NULL, &b, err) == 0, "%s", err);
    for (int s = 0; s < SPLIT_COUNT; s++) CHECK(same_stream(&a.split[s], &b.split[s]), "split %d not deterministic", s);
    dataset_free(&b);
    CHECK(dataset_load("builtin:stories:seed=2", NULL, &c, err) == 0, "%s", err);
    CHECK(!same_stream(&a.split[0], &c.split[0]), "seed=2 gave the same stories");
    dataset_free(&c);
    /* the splits are different streams */
    CHECK(memcmp(a.split[0].ids, a.split[1].ids, 200 * sizeof(int32_t)) != 0, "train and valid start alike");
    /* unseen words in valid are rare: the same grammar */
    size_t unk = 0;
    for (size_t i = 0; i < a.split[SPLIT_VALID].len; i++) unk += a.split[SPLIT_VALID].ids[i] == 2;
    CHECK(unk == 0, "%zu <unk> in valid", unk);
    char *story = decode_all(a.tokenizer, a.split[SPLIT_TEST].ids, 80);
    printf("  sample: %.300s\n", story);
    free(story);
    dataset_free(&a);

    DataOptions chars = {.tokenizer = "char"};
    CHECK(dataset_load("builtin:stories:tokens=20000,eval_tokens=2000", &chars, &a, err) == 0, "%s", err);
    CHECK(a.vocab == 258 && a.split[0].len > 80000, "char stories %zu", a.split[0].len);
    dataset_free(&a);
}

/* ---- serialisation */

static void check_same_tokenizer(const Tokenizer *t, const char *label)
{
    char err[ERR_LEN] = "";
    char *s = tokenizer_serialize(t);
    CHECK(s != NULL, "%s: serialize", label);
    if (!s) return;
    for (const char *p = s; *p; p++)
        if (!((*p >= ' ' && *p <= '~') || *p == '\n')) {
            CHECK(0, "%s: unprintable byte 0x%02x", label, (unsigned char)*p);
            break;
        }
    Tokenizer *u = tokenizer_deserialize(s, err);
    CHECK(u != NULL, "%s: %s", label, err);
    if (u) {
        CHECK(tokenizer_kind(u) == tokenizer_kind(t) && tokenizer_vocab(u) == tokenizer_vocab(t),
              "%s: kind or vocab", label);
        char a[512], b[512];
        int same = 1;
        for (int32_t id = 0; id < tokenizer_vocab(t) && same; id++) {
            size_t na = tokenizer_decode_one(t, id, a, sizeof a);
            size_t nb = tokenizer_decode_one(u, id, b, sizeof b);
            same = na == nb && memcmp(a, b, na) == 0;
            if (!same) CHECK(0, "%s: id %d decodes differently", label, id);
        }
        const char *text = tokenizer_kind(t) == TOKENIZER_IDS
                               ? "2 3 4\n5"
                               : "the cat sat , Valkyria Chronicles 3 : caf\xc3\xa9 = = \n<unk> sat\n";
        int32_t *ia, *ib;
        size_t na, nb;
        CHECK(tokenizer_encode(t, text, &ia, &na, err) == 0, "%s", err);
        CHECK(tokenizer_encode(u, text, &ib, &nb, err) == 0, "%s", err);
        CHECK(na == nb && memcmp(ia, ib, na * sizeof *ia) == 0, "%s: encodings differ", label);
        free(ia);
        free(ib);
        char *s2 = tokenizer_serialize(u);
        CHECK(s2 && strcmp(s, s2) == 0, "%s: serialisation is not stable", label);
        free(s2);
        tokenizer_free(u);
    }
    free(s);
}

static void test_serialize(void)
{
    char path[1024], err[ERR_LEN] = "";
    Dataset ds;
    if (corpora_present()) {   /* UTF-8 words */
        corpus_path(path, sizeof path, "wikitext-2");
        int rc = dataset_load(path, NULL, &ds, err);
        CHECK(rc == 0, "%s", err);
        if (rc == 0) check_same_tokenizer(ds.tokenizer, "word"), dataset_free(&ds);
    }
    DataOptions chars = {.tokenizer = "char"};
    int rc = dataset_load("builtin:stories:tokens=1000,eval_tokens=200", &chars, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc == 0) check_same_tokenizer(ds.tokenizer, "char"), dataset_free(&ds);
    /* bpe on a text of this test's own */
    char bpe_file[1100];
    snprintf(bpe_file, sizeof bpe_file, "%s/serialize_bpe.txt", tmp_root);
    FILE *f = fopen(bpe_file, "wb");
    CHECK(f != NULL, "cannot write %s", bpe_file);
    if (!f) return;
    for (int i = 0; i < 400; i++)
        fprintf(f, "the %d foxes ran over %d hills, and the hens said \"%s\" %d times.\n", i % 17, i % 23,
                i % 3 ? "cluck" : "café", i);
    fclose(f);
    DataOptions bpe = {.tokenizer = "bpe", .vocab = 320};
    rc = dataset_load(bpe_file, &bpe, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc == 0) check_same_tokenizer(ds.tokenizer, "bpe"), dataset_free(&ds);
    rc = dataset_load("builtin:markov:tokens=1000", NULL, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc == 0) check_same_tokenizer(ds.tokenizer, "ids"), dataset_free(&ds);

    const char *bad[] = {
        "", "hello", "mixbench-tokenizer 1\nkind klingon\nvocab 5\n",
        "mixbench-tokenizer 1\nkind char\nvocab 300\n",
        "mixbench-tokenizer 1\nkind word\nvocab 6\nfoo\n",
        "mixbench-tokenizer 1\nkind bpe\nvocab 260\nmerges 2\n2 3\n300 2\n",
        "mixbench-tokenizer 1\nkind bpe\nvocab 260\nmerges 2\n2 3\n2 3\n",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = '\0';
        Tokenizer *t = tokenizer_deserialize(bad[k], err);
        CHECK(t == NULL && err[0], "bad serialisation %zu accepted", k);
        tokenizer_free(t);
    }
}

/* ---- reusing a checkpoint's tokenizer */

static void test_reuse(void)
{
    char path[1024], err[ERR_LEN] = "";
    corpus_path(path, sizeof path, "ptb");
    Dataset base, again;
    int rc = dataset_load(path, NULL, &base, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    char *text = tokenizer_serialize(base.tokenizer);
    Tokenizer *saved = tokenizer_deserialize(text, err);
    free(text);
    DataOptions reuse = {.reuse = saved, .vocab = 5};   /* vocab is ignored */
    rc = dataset_load(path, &reuse, &again, err);
    CHECK(rc == 0, "%s", err);
    for (int s = 0; s < SPLIT_COUNT && rc == 0; s++)
        CHECK(same_stream(&base.split[s], &again.split[s]), "split %d differs with the reused tokenizer", s);
    if (rc == 0) {
        CHECK(again.vocab == 10002 && again.tokenizer != saved, "vocab %d", again.vocab);
        dataset_free(&again);
    }
    /* another corpus through the PTB vocabulary: unknown words are <unk> */
    rc = dataset_load("builtin:stories:tokens=5000,eval_tokens=500", &reuse, &again, err);
    CHECK(rc == 0 && again.vocab == 10002, "%s", err);
    if (rc == 0) dataset_free(&again);
    DataOptions clash = {.reuse = saved, .tokenizer = "char"};
    expect_error(path, &clash, "does not match");

    Tokenizer *ids66 = tokenizer_deserialize("mixbench-tokenizer 1\nkind ids\nvocab 66\n", err);
    Tokenizer *ids10 = tokenizer_deserialize("mixbench-tokenizer 1\nkind ids\nvocab 10\n", err);
    DataOptions markov = {.reuse = ids66};
    rc = dataset_load("builtin:markov:tokens=1000", &markov, &again, err);
    CHECK(rc == 0 && again.vocab == 66 && isfinite(again.loss_floor), "%s", err);
    if (rc == 0) dataset_free(&again);
    markov.reuse = ids10;
    expect_error("builtin:markov:tokens=1000", &markov, "vocab >= 66");
    markov.reuse = saved;
    expect_error("builtin:markov:tokens=1000", &markov, "tokenizer is ids");
    tokenizer_free(ids66);
    tokenizer_free(ids10);
    tokenizer_free(saved);
    dataset_free(&base);
}

/* ---- two loads at once (no shared state) */

typedef struct {
    const char *spec;
    DataOptions opt;
    Dataset ds;
    int rc;
    char err[ERR_LEN];
} LoadJob;

static void *load_job(void *arg)
{
    LoadJob *job = arg;
    job->rc = dataset_load(job->spec, &job->opt, &job->ds, job->err);
    return NULL;
}

static void test_concurrent_loads(void)
{
    char dir[1024], path[1100], src[1024];
    snprintf(dir, sizeof dir, "%s/concurrent", tmp_root);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/input.txt", dir);
    corpus_path(src, sizeof src, "tinyshakespeare/input.txt");
    copy_file(src, path);
    LoadJob jobs[4] = {
        {.spec = path, .opt = {.tokenizer = "bpe", .vocab = 700}},
        {.spec = path, .opt = {.tokenizer = "bpe", .vocab = 700}},
        {.spec = "builtin:stories:tokens=200000", .opt = {0}},
        {.spec = "builtin:markov", .opt = {0}},
    };
    pthread_t th[4];
    for (int k = 0; k < 4; k++) pthread_create(&th[k], NULL, load_job, &jobs[k]);
    for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
    for (int k = 0; k < 4; k++) CHECK(jobs[k].rc == 0, "job %d: %s", k, jobs[k].err);
    if (jobs[0].rc == 0 && jobs[1].rc == 0)
        for (int s = 0; s < SPLIT_COUNT; s++)
            CHECK(same_stream(&jobs[0].ds.split[s], &jobs[1].ds.split[s]), "concurrent bpe loads differ");
    for (int k = 0; k < 4; k++)
        if (jobs[k].rc == 0) dataset_free(&jobs[k].ds);
}

/* ---- unigram entropy (engine/data/unigram.c) */

static void test_unigram_entropy(void)
{
    char dir[1024], err[ERR_LEN] = "";
    /* train: a b a <eos> a <eos>: a 3, b 1, <eos> 2 of 6 tokens */
    make_folder("unigram", "a b a\na\n", "a\n", "b\n", dir, sizeof dir);
    Dataset ds;
    int rc = dataset_load(dir, NULL, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    double nats;
    int64_t counted;
    CHECK(token_stream_unigram_entropy(&ds.split[SPLIT_TRAIN], ds.vocab, &nats, &counted, err) == 0, "%s", err);
    double want = 0.5 * log(2.0) + log(6.0) / 6.0 + log(3.0) / 3.0;
    CHECK(counted == 6 && fabs(nats - want) < 1e-12, "counted %lld, %.15f nats, want %.15f", (long long)counted,
          nats, want);
    dataset_free(&ds);

    /* scored positions only: 6 5 9 9 -> 1/4 1/4 1/2 */
    int32_t ids[] = {5, 6, 5, 7, 9, 9};
    uint8_t scored[] = {0, 1, 1, 0, 1, 1};
    TokenStream s = {ids, 6, scored, 3};
    CHECK(token_stream_unigram_entropy(&s, 10, &nats, &counted, err) == 0, "%s", err);
    CHECK(counted == 4 && fabs(nats - 1.5 * log(2.0)) < 1e-12, "scored: %lld, %.15f", (long long)counted, nats);
    s.scored = NULL; /* every token: 5 5 6 7 9 9 -> 1/3 1/6 1/6 1/3 */
    CHECK(token_stream_unigram_entropy(&s, 10, &nats, &counted, err) == 0, "%s", err);
    want = 2.0 / 3.0 * log(3.0) + log(6.0) / 3.0;
    CHECK(counted == 6 && fabs(nats - want) < 1e-12, "all: %.15f, want %.15f", nats, want);
    CHECK(token_stream_unigram_entropy(&s, 8, &nats, NULL, err) != 0 && strstr(err, "id 9"),
          "an id outside the vocabulary is an error: %s", err);
    uint8_t none[6] = {0};
    s.scored = none;
    CHECK(token_stream_unigram_entropy(&s, 10, &nats, &counted, err) == 0 && counted == 0 && isnan(nats),
          "nothing scored: NAN, got %g", nats);

    /* mqar: its answers are uniform over the 63 value ids (vocab 128), which
       the whole stream (keys, values, PAD) is not */
    DataOptions o = {.n_ctx = 64};
    rc = dataset_load("builtin:mqar", &o, &ds, err);
    CHECK(rc == 0, "%s", err);
    if (rc != 0) return;
    CHECK(token_stream_unigram_entropy(&ds.split[SPLIT_TRAIN], ds.vocab, &nats, &counted, err) == 0, "%s", err);
    CHECK(fabs(nats - log(63.0)) < 0.002, "mqar answers: %.5f nats, log 63 = %.5f", nats, log(63.0));
    TokenStream whole = ds.split[SPLIT_TRAIN];
    whole.scored = NULL;
    double all;
    CHECK(token_stream_unigram_entropy(&whole, ds.vocab, &all, NULL, err) == 0, "%s", err);
    CHECK(fabs(all - nats) > 0.1, "the whole stream (%.4f) is another number than the answers (%.4f)", all, nats);
    dataset_free(&ds);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    snprintf(tmp_root, sizeof tmp_root, "/tmp/mixbench_test_data_XXXXXX");
    if (!mkdtemp(tmp_root)) {
        printf("FAIL cannot make a temporary folder\n");
        return 1;
    }
    RUN_IF(corpora_present(), NO_CORPORA, test_ptb_word);
    RUN_IF(corpora_present(), NO_CORPORA, test_wikitext_word);
    RUN_IF(corpora_present(), NO_CORPORA, test_tinyshakespeare_char);
    RUN(test_word_roundtrip);
    RUN(test_char_roundtrip);
    RUN_IF(corpora_present(), NO_CORPORA, test_bpe_roundtrip);
    RUN_IF(corpora_present(), NO_CORPORA, test_bpe_cache);
    RUN(test_ids);
    RUN(test_errors);
    RUN(test_markov);
    RUN(test_stories);
    RUN(test_serialize);
    RUN(test_unigram_entropy);
    RUN_IF(corpora_present(), NO_CORPORA, test_reuse);
    RUN_IF(corpora_present(), NO_CORPORA, test_concurrent_loads);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "chmod -R u+w %s && rm -rf %s", tmp_root, tmp_root);
    if (system(cmd) != 0) printf("  could not remove %s\n", tmp_root);
    CHECK_EXIT();
}
