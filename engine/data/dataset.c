/*
 * dataset.c — turns a dataset spec into a tokenizer and three token
 * streams: a folder with train/valid/test files, one file split 90/5/5 by
 * lines, or a built-in corpus.
 *
 * Folder: the first complete set of {train,valid,test}.txt,
 * wiki.{train,valid,test}.tokens, ptb.{train,valid,test}.txt.
 * One file: with L lines (a last line without '\n' counts), train is lines
 * [0, floor(0.90 L)), valid [floor(0.90 L), floor(0.95 L)), test the rest;
 * a split that comes out empty is an error (it takes about 20 lines).
 * Tokenizer default: word for text, ids for builtin:markov and the
 * diagnostics (mqar, copy, selective-copy: builtin_mqar.c, builtin_copy.c,
 * which also set the splits' scored masks and example_len); with
 * DataOptions.reuse (a checkpoint's tokenizer) all three splits are encoded
 * with a copy of it instead.  BPE merges are keyed by the train text's
 * absolute path, size and mtime (bpe_cache.c).
 *
 * Not for: windows and batches (engine/trainer.c draws them).
 */
#include "engine/common.h"
#include "engine/text.h"
#include "engine/data/data_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const SPLIT_NAMES[SPLIT_COUNT] = {"train", "valid", "test"};
static const char *const FOLDER_LAYOUTS[][SPLIT_COUNT] = {
    {"train.txt", "valid.txt", "test.txt"},
    {"wiki.train.tokens", "wiki.valid.tokens", "wiki.test.tokens"},
    {"ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"},
};
enum { N_LAYOUTS = 3, DEFAULT_BPE_VOCAB = 4096 };

/* The texts of the three splits and where they came from. */
typedef struct {
    const char *text[SPLIT_COUNT];
    size_t len[SPLIT_COUNT];
    DataSource src[SPLIT_COUNT];
    char cache_key[4400];      /* BPE cache key */
    const char *beside;        /* where the BPE cache may sit, or NULL */
} SplitTexts;

const char *tokenizer_kind_name(TokenizerKind kind)
{
    switch (kind) {
    case TOKENIZER_WORD: return "word";
    case TOKENIZER_CHAR: return "char";
    case TOKENIZER_BPE: return "bpe";
    case TOKENIZER_IDS: return "ids";
    }
    return "?";
}

static int parse_kind(const char *name, TokenizerKind fallback, TokenizerKind *kind, char *err)
{
    if (!name || !name[0]) {
        *kind = fallback;
        return 0;
    }
    for (int k = TOKENIZER_WORD; k <= TOKENIZER_IDS; k++)
        if (strcmp(name, tokenizer_kind_name((TokenizerKind)k)) == 0) {
            *kind = (TokenizerKind)k;
            return 0;
        }
    return err_set(err, "unknown tokenizer '%s' (known: word, char, bpe, ids)", name);
}

/* The tokenizer kind: the reused tokenizer's, else the named one, else the
   dataset's default. */
static int resolve_kind(const DataOptions *o, TokenizerKind fallback, TokenizerKind *kind,
                        char *err)
{
    if (!o->reuse) return parse_kind(o->tokenizer, fallback, kind, err);
    *kind = tokenizer_kind(o->reuse);
    TokenizerKind named = *kind;
    if (o->tokenizer && o->tokenizer[0]) {
        if (parse_kind(o->tokenizer, fallback, &named, err) != 0) return -1;
        if (named != *kind)
            return err_set(err, "tokenizer=%s does not match the given %s tokenizer", o->tokenizer,
                           tokenizer_kind_name(*kind));
    }
    return 0;
}

static int encode_split(const Tokenizer *t, const SplitTexts *st, int split, DataIds *out,
                        char *err)
{
    const char *text = st->text[split];
    size_t len = st->len[split];
    switch (t->kind) {
    case TOKENIZER_WORD: return word_encode(t, text, len, 1, out, err);
    case TOKENIZER_CHAR: return char_encode(text, len, out, err);
    case TOKENIZER_BPE: return bpe_encode(t, text, len, out, err);
    case TOKENIZER_IDS: return ids_encode(text, len, t->vocab, &st->src[split], out, err);
    }
    return err_set(err, "bad tokenizer kind");
}

/* Makes ds->tokenizer: a copy of the reused one, or one built from the
   train text.  The word tokenizer encodes train while it counts, so it
   sets *train_done. */
static int make_tokenizer(Dataset *ds, TokenizerKind kind, const DataOptions *o,
                          const SplitTexts *st, int *train_done, char *err)
{
    *train_done = 0;
    if (o->reuse) {
        ds->tokenizer = tokenizer_clone(o->reuse, err);
        return ds->tokenizer ? 0 : -1;
    }
    int vocab = kind == TOKENIZER_CHAR ? BYTE_VOCAB : kind == TOKENIZER_IDS ? o->vocab : 0;
    if (kind == TOKENIZER_IDS && vocab <= 0)
        return err_set(err, "the ids tokenizer needs the vocabulary size (set vocab=)");
    ds->tokenizer = tokenizer_new(kind, vocab, err);
    if (!ds->tokenizer) return -1;
    if (kind == TOKENIZER_WORD) {
        *train_done = 1;
        return word_build(ds->tokenizer, st->text[0], st->len[0], o->vocab, o->min_count,
                          &ds->split[0].ids, &ds->split[0].len, err);
    }
    if (kind == TOKENIZER_BPE) {
        int target = o->vocab > 0 ? o->vocab : DEFAULT_BPE_VOCAB;
        int32_t *merges = NULL;
        int n_merges = 0, from_cache = 0;
        if (bpe_learn_cached(st->text[0], st->len[0], target, st->cache_key, st->beside, &merges,
                             &n_merges, &from_cache, err) != 0)
            return -1;
        int rc = bpe_init(ds->tokenizer, merges, n_merges, err);
        free(merges);
        return rc;
    }
    return 0;
}

/* The word and bpe tokenizers read text: a file with a NUL byte, or one
   where more than NOT_TEXT_SHARE of the bytes are neither valid UTF-8 nor
   ordinary whitespace (control bytes, broken sequences), is a binary file
   given by mistake, not a corpus, and is refused instead of trained on as
   "words".  Latin-1 text (a few percent of stray high bytes) passes. */
#define NOT_TEXT_SHARE 0.3

static int check_text(const char *text, size_t len, const DataSource *src, TokenizerKind kind, char *err)
{
    size_t bad = 0;
    long line = src->first_line;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        if (c == 0)
            return err_set(err, "%s:%ld: a NUL byte: this is not a text file; the %s tokenizer reads text "
                                "(tokenizer=char reads any bytes, tokenizer=ids token ids)",
                           src->name, line, tokenizer_kind_name(kind));
        size_t n = c < 0x80 ? 1 : text_utf8_seq(text + i, len - i);
        if (n == 0 || (c < 0x20 && !strchr("\t\n\v\f\r", c)) || c == 0x7f) bad++;
        line += c == '\n';
        i += n ? n : 1;
    }
    if (len > 0 && (double)bad > NOT_TEXT_SHARE * (double)len)
        return err_set(err, "%s: %.0f%% of its bytes are neither UTF-8 text nor whitespace: this is not a text "
                            "file; the %s tokenizer reads text (tokenizer=char reads any bytes, tokenizer=ids "
                            "token ids)", src->name, 100.0 * (double)bad / (double)len, tokenizer_kind_name(kind));
    return 0;
}

/* Makes the tokenizer and encodes all three splits. */
static int tokenize_splits(Dataset *ds, TokenizerKind kind, const DataOptions *o,
                           const SplitTexts *st, char *err)
{
    for (int s = 0; (kind == TOKENIZER_WORD || kind == TOKENIZER_BPE) && s < SPLIT_COUNT; s++)
        if (check_text(st->text[s], st->len[s], &st->src[s], kind, err)) return -1;
    int first = 0;
    if (make_tokenizer(ds, kind, o, st, &first, err) != 0) return -1;
    for (int s = first; s < SPLIT_COUNT; s++) {
        DataIds ids = {0};
        if (encode_split(ds->tokenizer, st, s, &ids, err) != 0) {
            free(ids.ids);
            return -1;
        }
        ds->split[s].ids = ids.ids;
        ds->split[s].len = ids.len;
    }
    for (int s = 0; s < SPLIT_COUNT; s++)
        if (ds->split[s].len == 0)
            return err_set(err, "the %s split (%s) is empty", SPLIT_NAMES[s], st->src[s].name);
    ds->vocab = ds->tokenizer->vocab;
    ds->bytes_per_token_is_one = kind == TOKENIZER_CHAR;
    return 0;
}

/* "bpe1 <absolute path> size=<bytes> mtime=<s>.<ns> <part>" */
static void file_cache_key(const char *path, const struct stat *st, const char *part, char *key,
                           size_t cap)
{
    char *abs = realpath(path, NULL);
    snprintf(key, cap, "bpe1 %s size=%lld mtime=%lld.%09ld %s", abs ? abs : path,
             (long long)st->st_size, (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec,
             part);
    free(abs);
    for (char *p = key; *p; p++)
        if (*p == '\n' || *p == '\r') *p = '?';
}

static int load_folder(Dataset *ds, const char *dir, TokenizerKind kind, const DataOptions *o,
                       char *err)
{
    char paths[SPLIT_COUNT][4200];
    int layout = -1;
    struct stat st;
    for (int l = 0; l < N_LAYOUTS && layout < 0; l++) {
        snprintf(paths[0], sizeof paths[0], "%s/%s", dir, FOLDER_LAYOUTS[l][0]);
        if (stat(paths[0], &st) != 0) continue;
        for (int s = 1; s < SPLIT_COUNT; s++) {
            snprintf(paths[s], sizeof paths[s], "%s/%s", dir, FOLDER_LAYOUTS[l][s]);
            struct stat other;
            if (stat(paths[s], &other) != 0)
                return err_set(err, "folder %s has %s but no %s", dir, FOLDER_LAYOUTS[l][0],
                               FOLDER_LAYOUTS[l][s]);
        }
        layout = l;
    }
    if (layout < 0)
        return err_set(err, "folder %s has no recognisable splits (expected train.txt, valid.txt, "
                            "test.txt or wiki.*.tokens or ptb.*.txt)", dir);
    snprintf(paths[0], sizeof paths[0], "%s/%s", dir, FOLDER_LAYOUTS[layout][0]);
    if (stat(paths[0], &st) != 0) return err_set(err, "cannot stat %s", paths[0]);

    char *buf[SPLIT_COUNT] = {NULL, NULL, NULL};
    SplitTexts texts;
    memset(&texts, 0, sizeof texts);
    int rc = 0;
    for (int s = 0; s < SPLIT_COUNT && rc == 0; s++) {
        size_t len = 0;
        rc = data_read_file(paths[s], &buf[s], &len, err);
        texts.text[s] = buf[s];
        texts.len[s] = len;
        texts.src[s] = (DataSource){paths[s], 1};
    }
    if (rc == 0) {
        file_cache_key(paths[0], &st, "whole", texts.cache_key, sizeof texts.cache_key);
        texts.beside = dir;
        rc = tokenize_splits(ds, kind, o, &texts, err);
    }
    for (int s = 0; s < SPLIT_COUNT; s++) free(buf[s]);
    return rc;
}

static int load_file(Dataset *ds, const char *path, const struct stat *st, TokenizerKind kind,
                     const DataOptions *o, char *err)
{
    char *buf = NULL;
    size_t len = 0;
    if (data_read_file(path, &buf, &len, err) != 0) return -1;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    if (len > 0 && buf[len - 1] != '\n') lines++;
    size_t ends[SPLIT_COUNT] = {lines * 90 / 100, lines * 95 / 100, lines};
    if (ends[0] == 0 || ends[1] == ends[0] || ends[2] == ends[1]) {
        free(buf);
        return err_set(err, "%s has %zu lines, too few to split 90/5/5 by lines (a split would be empty)",
                       path, lines);
    }
    /* Byte offsets of the split boundaries. */
    size_t offset[SPLIT_COUNT + 1] = {0, 0, 0, len};
    size_t line = 0;
    for (size_t i = 0; i < len && line < ends[1]; i++) {
        if (buf[i] != '\n') continue;
        line++;
        if (line == ends[0]) offset[1] = i + 1;
        if (line == ends[1]) offset[2] = i + 1;
    }
    SplitTexts texts;
    memset(&texts, 0, sizeof texts);
    for (int s = 0; s < SPLIT_COUNT; s++) {
        texts.text[s] = buf + offset[s];
        texts.len[s] = offset[s + 1] - offset[s];
        texts.src[s] = (DataSource){path, (long)(s == 0 ? 1 : ends[s - 1] + 1)};
    }
    file_cache_key(path, st, "lines 0-90%", texts.cache_key, sizeof texts.cache_key);
    texts.beside = path;
    int rc = tokenize_splits(ds, kind, o, &texts, err);
    free(buf);
    return rc;
}

typedef int (*DiagnosticFn)(const char *, uint64_t, int, BuiltinCorpus *, char *);
typedef int (*DiagnosticVocabFn)(const char *, int *, char *);

/* The diagnostics: examples of n_ctx tokens with scored targets. */
static const struct {
    const char *name;
    DiagnosticFn make;
    DiagnosticVocabFn vocab;
} DIAGNOSTICS[] = {
    {"mqar", builtin_mqar, builtin_mqar_vocab},
    {"copy", builtin_copy, builtin_copy_vocab},
    {"selective-copy", builtin_selective_copy, builtin_selective_copy_vocab},
};

static int diagnostic_index(const char *name, size_t name_len)
{
    for (size_t i = 0; i < sizeof DIAGNOSTICS / sizeof DIAGNOSTICS[0]; i++)
        if (strlen(DIAGNOSTICS[i].name) == name_len && !memcmp(DIAGNOSTICS[i].name, name, name_len))
            return (int)i;
    return -1;
}

static DiagnosticFn find_diagnostic(const char *name, size_t name_len)
{
    int i = diagnostic_index(name, name_len);
    return i < 0 ? NULL : DIAGNOSTICS[i].make;
}

int data_builtin_vocab(const char *spec)
{
    if (!spec || strncmp(spec, "builtin:", 8)) return 0;
    const char *name = spec + 8, *colon = strchr(name, ':');
    int i = diagnostic_index(name, colon ? (size_t)(colon - name) : strlen(name)), vocab = 0;
    char err[ERR_LEN];
    if (i < 0 || DIAGNOSTICS[i].vocab(colon ? colon + 1 : "", &vocab, err) != 0) return 0;
    return vocab;
}

int data_mqar_pairs(const char *spec)
{
    static const char PREFIX[] = "builtin:mqar";
    size_t len = sizeof PREFIX - 1;
    if (!spec || strncmp(spec, PREFIX, len) || (spec[len] && spec[len] != ':')) return 0;
    int pairs = 0;
    char err[ERR_LEN];
    return builtin_mqar_pairs(spec[len] ? spec + len + 1 : "", &pairs, err) ? 0 : pairs;
}

int data_scores_answers(const char *spec)
{
    if (!spec || strncmp(spec, "builtin:", 8)) return 0;
    const char *name = spec + 8, *colon = strchr(name, ':');
    return find_diagnostic(name, colon ? (size_t)(colon - name) : strlen(name)) != NULL;
}

static int load_builtin(Dataset *ds, const char *spec, const DataOptions *o, char *err)
{
    const char *name = spec + strlen("builtin:");
    const char *colon = strchr(name, ':');
    size_t name_len = colon ? (size_t)(colon - name) : strlen(name);
    const char *opts = colon ? colon + 1 : "";
    BuiltinCorpus corpus;
    memset(&corpus, 0, sizeof corpus);
    int is_markov = name_len == 6 && memcmp(name, "markov", 6) == 0;
    int is_stories = name_len == 7 && memcmp(name, "stories", 7) == 0;
    DiagnosticFn diagnostic = find_diagnostic(name, name_len);
    if (!is_markov && !is_stories && !diagnostic)
        return err_set(err, "unknown builtin corpus '%.*s' (known: stories, markov, mqar, copy, "
                            "selective-copy)",
                       (int)MB_MIN(name_len, (size_t)64), name);
    int is_ids = is_markov || diagnostic;
    TokenizerKind kind;
    if (resolve_kind(o, is_ids ? TOKENIZER_IDS : TOKENIZER_WORD, &kind, err) != 0) return -1;

    if (is_ids) {
        if (kind != TOKENIZER_IDS)
            return err_set(err, "builtin:%.*s produces token ids; its tokenizer is ids (not %s)",
                           (int)name_len, name, tokenizer_kind_name(kind));
        int rc = is_markov ? builtin_markov(opts, o->seed, &corpus, err)
                           : diagnostic(opts, o->seed, o->n_ctx, &corpus, err);
        if (rc != 0) return -1;
        int given = o->reuse ? tokenizer_vocab(o->reuse) : o->vocab;
        if (given > 0 && given < corpus.vocab) {
            err_set(err, "builtin:%.*s needs vocab >= %d (%s), got %d", (int)name_len, name,
                    corpus.vocab, is_markov ? "states + 2" : "its own vocab= option", given);
            builtin_free(&corpus);
            return -1;
        }
        ds->tokenizer = o->reuse ? tokenizer_clone(o->reuse, err)
                                 : tokenizer_new(TOKENIZER_IDS, corpus.vocab, err);
        if (!ds->tokenizer) {
            builtin_free(&corpus);
            return -1;
        }
        for (int s = 0; s < SPLIT_COUNT; s++) {
            ds->split[s].ids = corpus.ids[s];
            ds->split[s].len = corpus.ids_len[s];
            ds->split[s].scored = corpus.scored[s];
            ds->split[s].example_len = corpus.example_len;
            corpus.ids[s] = NULL;
            corpus.scored[s] = NULL;
        }
        ds->vocab = ds->tokenizer->vocab;
        ds->loss_floor = corpus.loss_floor;
        builtin_free(&corpus);
        return 0;
    }

    if (kind == TOKENIZER_IDS)
        return err_set(err, "builtin:stories is text; use the word, char or bpe tokenizer");
    if (builtin_stories(opts, o->seed, &corpus, err) != 0) return -1;
    SplitTexts texts;
    memset(&texts, 0, sizeof texts);
    static const char *const NAMES[SPLIT_COUNT] = {"builtin:stories train", "builtin:stories valid",
                                                   "builtin:stories test"};
    for (int s = 0; s < SPLIT_COUNT; s++) {
        texts.text[s] = corpus.text[s];
        texts.len[s] = corpus.text_len[s];
        texts.src[s] = (DataSource){NAMES[s], 1};
    }
    snprintf(texts.cache_key, sizeof texts.cache_key, "bpe1 %s size=%zu", corpus.canonical,
             corpus.text_len[0]);
    texts.beside = NULL;
    int rc = tokenize_splits(ds, kind, o, &texts, err);
    builtin_free(&corpus);
    return rc;
}

static int load_path(Dataset *ds, const char *path, const DataOptions *o, char *err)
{
    TokenizerKind kind;
    if (resolve_kind(o, TOKENIZER_WORD, &kind, err) != 0) return -1;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return err_set(err, "dataset '%s' not found (expected a folder, a text file or builtin:NAME)",
                           path);
        return err_set(err, "cannot open dataset '%s': %s", path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return load_folder(ds, path, kind, o, err);
    if (S_ISREG(st.st_mode)) return load_file(ds, path, &st, kind, o, err);
    return err_set(err, "dataset '%s' is neither a folder nor a regular file", path);
}

int dataset_load(const char *spec, const DataOptions *opt, Dataset *ds, char *err)
{
    memset(ds, 0, sizeof *ds);
    ds->loss_floor = NAN;
    DataOptions o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (!spec || !spec[0]) return err_set(err, "no dataset given");
    if (strlen(spec) >= sizeof ds->spec)
        return err_set(err, "dataset spec is too long (%zu bytes, max %zu)", strlen(spec),
                       sizeof ds->spec - 1);
    if (o.vocab < 0) return err_set(err, "vocab=%d must not be negative", o.vocab);
    snprintf(ds->spec, sizeof ds->spec, "%s", spec);
    int rc = strncmp(spec, "builtin:", 8) == 0 ? load_builtin(ds, spec, &o, err)
                                                : load_path(ds, spec, &o, err);
    if (rc != 0) {
        dataset_free(ds);
        return -1;
    }
    return 0;
}

void dataset_free(Dataset *ds)
{
    if (!ds) return;
    tokenizer_free(ds->tokenizer);
    for (int s = 0; s < SPLIT_COUNT; s++) {
        free(ds->split[s].ids);
        free(ds->split[s].scored);
    }
    memset(ds, 0, sizeof *ds);
    ds->loss_floor = NAN;
}
