/*
 * tokenizer.c — the Tokenizer object: dispatch to the four kinds, and the
 * self-contained serialisation stored in checkpoint metadata.
 *
 * Serialisation (printable ASCII, lines end in '\n'):
 *     mixbench-tokenizer 1
 *     kind word|char|bpe|ids
 *     vocab <V>
 *   word: then V - 4 lines, the words of ids 4.. in order; bytes outside
 *         '!'..'~' and the backslash are written as \xHH.
 *   bpe:  then "merges <n>" and n lines "<left> <right>" in rank order.
 *
 * Not for: building vocabularies from data (dataset.c and the per-kind
 * files do that).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"
#include "engine/io/json.h"

#include <stdlib.h>
#include <string.h>

static const char SERIAL_MAGIC[] = "mixbench-tokenizer 1";
static const char *const KIND_NAMES[] = {"word", "char", "bpe", "ids"};

Tokenizer *tokenizer_new(TokenizerKind kind, int vocab, char *err)
{
    Tokenizer *t = calloc(1, sizeof *t);
    if (!t) {
        err_set(err, "out of memory");
        return NULL;
    }
    t->kind = kind;
    t->vocab = vocab;
    return t;
}

Tokenizer *tokenizer_clone(const Tokenizer *t, char *err)
{
    char *text = tokenizer_serialize(t);
    if (!text) {
        err_set(err, "out of memory copying the tokenizer");
        return NULL;
    }
    Tokenizer *copy = tokenizer_deserialize(text, err);
    free(text);
    return copy;
}

void tokenizer_free(Tokenizer *t)
{
    if (!t) return;
    word_free(t);
    bpe_free(t);
    free(t);
}

TokenizerKind tokenizer_kind(const Tokenizer *t) { return t->kind; }

int tokenizer_vocab(const Tokenizer *t) { return t->vocab; }

int tokenizer_encode(const Tokenizer *t, const char *text, int32_t **out, size_t *n, char *err)
{
    DataIds ids = {0};
    size_t len = strlen(text);
    int rc = 0;
    switch (t->kind) {
    case TOKENIZER_WORD: rc = word_encode(t, text, len, 0, &ids, err); break;
    case TOKENIZER_CHAR: rc = char_encode(text, len, &ids, err); break;
    case TOKENIZER_BPE: rc = bpe_encode(t, text, len, &ids, err); break;
    case TOKENIZER_IDS: {
        DataSource src = {"text", 1};
        rc = ids_encode(text, len, t->vocab, &src, &ids, err);
        break;
    }
    }
    if (rc != 0) {
        free(ids.ids);
        *out = NULL;
        *n = 0;
        return -1;
    }
    if (!ids.ids) ids.ids = malloc(sizeof *ids.ids);   /* empty text: a valid pointer */
    if (!ids.ids) return err_set(err, "out of memory");
    *out = ids.ids;
    *n = ids.len;
    return 0;
}

size_t tokenizer_decode_one(const Tokenizer *t, int32_t id, char *buf, size_t cap)
{
    switch (t->kind) {
    case TOKENIZER_WORD: return word_decode_one(t, id, buf, cap);
    case TOKENIZER_CHAR: return char_decode_one(id, buf, cap);
    case TOKENIZER_BPE: return bpe_decode_one(t, id, buf, cap);
    case TOKENIZER_IDS: return ids_decode_one(id, buf, cap);
    }
    return data_put(buf, cap, "", 0);
}

static void put_escaped(StrBuf *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c > ' ' && c < 0x7F && c != '\\') {
            sb_append_len(out, &s[i], 1);
        } else {
            char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            sb_append_len(out, e, 4);
        }
    }
    sb_append_len(out, "\n", 1);
}

char *tokenizer_serialize(const Tokenizer *t)
{
    StrBuf out;
    sb_init(&out);
    sb_printf(&out, "%s\nkind %s\nvocab %d\n", SERIAL_MAGIC, KIND_NAMES[t->kind], t->vocab);
    if (t->kind == TOKENIZER_WORD) {
        for (int32_t id = WORD_FIRST; id < t->vocab; id++) {
            int32_t dense = id - BYTE_BASE;
            put_escaped(&out, data_strmap_key(&t->word.index, dense), data_strmap_len(&t->word.index, dense));
        }
    } else if (t->kind == TOKENIZER_BPE) {
        sb_printf(&out, "merges %d\n", t->bpe.n_merges);
        for (int r = 0; r < t->bpe.n_merges; r++)
            sb_printf(&out, "%d %d\n", (int)t->bpe.merges[2 * r], (int)t->bpe.merges[2 * r + 1]);
    }
    return sb_take(&out);
}

/* ---- deserialisation */

typedef struct {
    const char *p, *end;
    int line;
} Reader;

static int next_line(Reader *r, const char **line, size_t *len)
{
    if (r->p >= r->end) return -1;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    const char *stop = nl ? nl : r->end;
    *line = r->p;
    *len = (size_t)(stop - r->p);
    r->p = nl ? nl + 1 : r->end;
    r->line++;
    return 0;
}

/* "name <integer>" */
static int read_field(Reader *r, const char *name, long *value, char *err)
{
    const char *line;
    size_t len, n = strlen(name);
    if (next_line(r, &line, &len) != 0 || len <= n + 1 || memcmp(line, name, n) != 0 ||
        line[n] != ' ')
        return err_set(err, "tokenizer data, line %d: expected '%s <number>'", r->line, name);
    long v = 0;
    for (size_t i = n + 1; i < len; i++) {
        if (line[i] < '0' || line[i] > '9' || v > 100000000)
            return err_set(err, "tokenizer data, line %d: bad %s", r->line, name);
        v = v * 10 + (line[i] - '0');
    }
    *value = v;
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int read_words(Reader *r, Tokenizer *t, long vocab, char *err)
{
    if (word_add(t, "<unk>", 5, err) != 0 || word_add(t, "<eos>", 5, err) != 0) return -1;
    char *word = NULL;
    size_t cap = 0;
    for (long id = WORD_FIRST; id < vocab; id++) {
        const char *line;
        size_t len;
        if (next_line(r, &line, &len) != 0 || len == 0) {
            free(word);
            return err_set(err, "tokenizer data: %ld words expected, found %ld", vocab - WORD_FIRST,
                           id - WORD_FIRST);
        }
        if (len > cap) {
            char *w = realloc(word, len);
            if (!w) {
                free(word);
                return err_set(err, "out of memory");
            }
            word = w;
            cap = len;
        }
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
            if (line[i] == '\\') {
                int hi = i + 3 < len && line[i + 1] == 'x' ? hex_value(line[i + 2]) : -1;
                int lo = hi >= 0 ? hex_value(line[i + 3]) : -1;
                if (lo < 0) {
                    free(word);
                    return err_set(err, "tokenizer data, line %d: bad escape", r->line);
                }
                word[n++] = (char)(hi * 16 + lo);
                i += 3;
            } else {
                word[n++] = line[i];
            }
        }
        if (word_add(t, word, n, err) != 0) {
            free(word);
            return -1;
        }
    }
    free(word);
    return 0;
}

static int read_merges(Reader *r, Tokenizer *t, long vocab, char *err)
{
    long n_merges;
    if (read_field(r, "merges", &n_merges, err) != 0) return -1;
    if (n_merges != vocab - BYTE_VOCAB)
        return err_set(err, "tokenizer data: %ld merges do not make vocabulary %ld", n_merges, vocab);
    int32_t *merges = malloc(((size_t)n_merges + 1) * 2 * sizeof *merges);
    if (!merges) return err_set(err, "out of memory");
    for (long k = 0; k < n_merges; k++) {
        const char *line;
        size_t len;
        long v[2] = {0, 0};
        int field = 0, digits = 0, ok = next_line(r, &line, &len) == 0;
        for (size_t i = 0; ok && i < len; i++) {
            if (line[i] == ' ' && field == 0 && digits > 0) {
                field = 1;
                digits = 0;
            } else if (line[i] >= '0' && line[i] <= '9' && digits < 9) {
                v[field] = v[field] * 10 + (line[i] - '0');
                digits++;
            } else {
                ok = 0;
            }
        }
        if (!ok || field != 1 || digits == 0) {
            free(merges);
            return err_set(err, "tokenizer data, line %d: expected '<left> <right>'", r->line);
        }
        merges[2 * k] = (int32_t)v[0];
        merges[2 * k + 1] = (int32_t)v[1];
    }
    int rc = bpe_init(t, merges, (int)n_merges, err);
    free(merges);
    return rc;
}

Tokenizer *tokenizer_deserialize(const char *s, char *err)
{
    Reader r = {s, s + strlen(s), 0};
    const char *line;
    size_t len;
    if (next_line(&r, &line, &len) != 0 || len != strlen(SERIAL_MAGIC) ||
        memcmp(line, SERIAL_MAGIC, len) != 0) {
        err_set(err, "tokenizer data does not start with '%s'", SERIAL_MAGIC);
        return NULL;
    }
    if (next_line(&r, &line, &len) != 0 || len < 6 || memcmp(line, "kind ", 5) != 0) {
        err_set(err, "tokenizer data, line 2: expected 'kind <name>'");
        return NULL;
    }
    int kind = -1;
    for (int k = 0; k < 4; k++)
        if (len - 5 == strlen(KIND_NAMES[k]) && memcmp(line + 5, KIND_NAMES[k], len - 5) == 0)
            kind = k;
    if (kind < 0) {
        err_set(err, "tokenizer data: unknown kind '%.*s'", (int)MB_MIN(len - 5, (size_t)32), line + 5);
        return NULL;
    }
    long vocab;
    if (read_field(&r, "vocab", &vocab, err) != 0) return NULL;
    long min_vocab = kind == TOKENIZER_WORD ? WORD_FIRST : kind == TOKENIZER_IDS ? 1 : BYTE_VOCAB;
    if (vocab < min_vocab || (kind == TOKENIZER_CHAR && vocab != BYTE_VOCAB)) {
        err_set(err, "tokenizer data: vocabulary %ld is not valid for %s", vocab, KIND_NAMES[kind]);
        return NULL;
    }
    Tokenizer *t = tokenizer_new((TokenizerKind)kind, (int)vocab, err);
    if (!t) return NULL;
    int rc = 0;
    if (kind == TOKENIZER_WORD) rc = read_words(&r, t, vocab, err);
    else if (kind == TOKENIZER_BPE) rc = read_merges(&r, t, vocab, err);
    if (rc == 0 && t->vocab != vocab) rc = err_set(err, "tokenizer data: vocabulary mismatch");
    if (rc != 0) {
        tokenizer_free(t);
        return NULL;
    }
    return t;
}
