/*
 * tokenizer_word.c — the word tokenizer: whitespace split, <eos> at each
 * line end, vocabulary from the train split.
 *
 * Ids: PAD 0, MASK 1, <unk> 2, <eos> 3, then the train words by descending
 * frequency, ties by byte order.  "<unk>" and "<eos>" written in the text
 * (PTB and WikiText carry <unk>) map to the reserved ids.  Words rarer than
 * min_count, words beyond the vocabulary cap and unseen words become <unk>.
 * Data files get an <eos> after every line, also after an unterminated last
 * line (the pytorch word_language_model convention); tokenizer_encode adds
 * one per '\n' only, so a prompt does not end in <eos>.
 *
 * Not for: punctuation splitting or lower-casing (corpora come tokenized).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdlib.h>
#include <string.h>

static const char UNK_WORD[] = "<unk>";
static const char EOS_WORD[] = "<eos>";

/* Counting state while the train split is read once: each word's dense
   index goes into stream (-1 for <eos>) and its count into counts. */
typedef struct {
    DataStrMap *map;       /* build: counting map */
    int64_t *counts;
    size_t counts_cap;
    DataIds *stream;       /* build: dense indices, -1 for <eos> */
} WordCounter;

static int count_word(WordCounter *c, const char *w, size_t len)
{
    int32_t index = data_strmap_add(c->map, w, len, NULL);
    if (index < 0) return -1;
    if ((size_t)index >= c->counts_cap) {
        size_t cap = c->counts_cap ? c->counts_cap * 2 : 4096;
        int64_t *counts = realloc(c->counts, cap * sizeof *counts);
        if (!counts) return -1;
        memset(counts + c->counts_cap, 0, (cap - c->counts_cap) * sizeof *counts);
        c->counts = counts;
        c->counts_cap = cap;
    }
    c->counts[index]++;
    return data_ids_push(c->stream, index);
}

/* qsort has no context argument in C11; the words are sorted as records. */
typedef struct {
    int64_t count;
    const char *word;
    uint32_t len;
    int32_t index;
} WordRank;

static int compare_rank(const void *pa, const void *pb)
{
    const WordRank *a = pa, *b = pb;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    size_t n = MB_MIN(a->len, b->len);
    int c = memcmp(a->word, b->word, n);
    if (c) return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static int is_reserved(const char *w, size_t len)
{
    return (len == 5 && (memcmp(w, UNK_WORD, 5) == 0 || memcmp(w, EOS_WORD, 5) == 0));
}

int word_build(Tokenizer *t, const char *train, size_t len, int cap, int min_count,
               int32_t **train_ids, size_t *n_train, char *err)
{
    *train_ids = NULL;
    *n_train = 0;
    if (cap > 0 && cap <= WORD_FIRST)
        return err_set(err, "word vocabulary cap %d is too small (it must exceed %d reserved ids)",
                       cap, WORD_FIRST);
    if (min_count < 1) min_count = 1;

    DataStrMap map;
    DataIds stream = {0};
    WordCounter counter = {&map, NULL, 0, &stream};
    WordRank *ranks = NULL;
    int32_t *remap = NULL;
    /* a text has at most len / 2 + 1 distinct words: a small text gets a
       small map (the map grows when needed; 3 MB of slots set up per call
       made a tiny corpus cost 30 ms under the fuzzers' sanitizers) */
    if (data_strmap_init(&map, MB_MIN((size_t)1 << 16, len / 2 + 1)) != 0)
        return err_set(err, "out of memory");

    int rc = -1;
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)train[i];
        if (c == '\n') {
            if (data_ids_push(&stream, -1) != 0) goto oom;
            i++;
        } else if (data_is_space(c)) {
            i++;
        } else {
            size_t start = i;
            while (i < len && !data_is_space((unsigned char)train[i])) i++;
            if (count_word(&counter, train + start, i - start) != 0) goto oom;
        }
    }
    if (len > 0 && train[len - 1] != '\n' && data_ids_push(&stream, -1) != 0) goto oom;

    int32_t n_types = map.count;
    ranks = malloc((size_t)(n_types + 1) * sizeof *ranks);
    remap = malloc((size_t)(n_types + 1) * sizeof *remap);
    if (!ranks || !remap) goto oom;
    int n_ranked = 0;
    for (int32_t k = 0; k < n_types; k++) {
        const char *w = data_strmap_key(&map, k);
        uint32_t wlen = data_strmap_len(&map, k);
        remap[k] = WORD_UNK;
        if (is_reserved(w, wlen)) {
            remap[k] = memcmp(w, UNK_WORD, 5) == 0 ? WORD_UNK : WORD_EOS;
            continue;
        }
        if (counter.counts[k] < min_count) continue;
        ranks[n_ranked++] = (WordRank){counter.counts[k], w, wlen, k};
    }
    qsort(ranks, (size_t)n_ranked, sizeof *ranks, compare_rank);
    if (cap > 0 && n_ranked > cap - WORD_FIRST) n_ranked = cap - WORD_FIRST;

    if (data_strmap_init(&t->word.index, (size_t)n_ranked + 2) != 0) goto oom;
    if (data_strmap_add(&t->word.index, UNK_WORD, 5, NULL) < 0 ||
        data_strmap_add(&t->word.index, EOS_WORD, 5, NULL) < 0)
        goto oom;
    for (int r = 0; r < n_ranked; r++) {
        int32_t dense = data_strmap_add(&t->word.index, ranks[r].word, ranks[r].len, NULL);
        if (dense < 0) goto oom;
        remap[ranks[r].index] = dense + BYTE_BASE;
    }
    t->vocab = t->word.index.count + BYTE_BASE;

    for (size_t k = 0; k < stream.len; k++)
        stream.ids[k] = stream.ids[k] < 0 ? WORD_EOS : remap[stream.ids[k]];
    *train_ids = stream.ids;
    *n_train = stream.len;
    stream.ids = NULL;
    rc = 0;
    goto done;
oom:
    err_set(err, "out of memory building the word vocabulary");
done:
    free(stream.ids);
    free(ranks);
    free(remap);
    free(counter.counts);
    data_strmap_free(&map);
    return rc;
}

int word_add(Tokenizer *t, const char *word, size_t len, char *err)
{
    if (!t->word.index.slots && data_strmap_init(&t->word.index, 1024) != 0)
        return err_set(err, "out of memory");
    int is_new = 0;
    if (data_strmap_add(&t->word.index, word, len, &is_new) < 0)
        return err_set(err, "out of memory");
    if (!is_new) return err_set(err, "word '%.*s' appears twice in the vocabulary", (int)MB_MIN(len, 64), word);
    t->vocab = t->word.index.count + BYTE_BASE;
    return 0;
}

int word_encode(const Tokenizer *t, const char *text, size_t len, int final_eos,
                DataIds *out, char *err)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            if (data_ids_push(out, WORD_EOS) != 0) goto oom;
            i++;
        } else if (data_is_space(c)) {
            i++;
        } else {
            size_t start = i;
            while (i < len && !data_is_space((unsigned char)text[i])) i++;
            int32_t dense = data_strmap_find(&t->word.index, text + start, i - start);
            if (data_ids_push(out, dense < 0 ? WORD_UNK : dense + BYTE_BASE) != 0) goto oom;
        }
    }
    if (final_eos && len > 0 && text[len - 1] != '\n' && data_ids_push(out, WORD_EOS) != 0)
        goto oom;
    return 0;
oom:
    return err_set(err, "out of memory encoding words");
}

size_t word_decode_one(const Tokenizer *t, int32_t id, char *buf, size_t cap)
{
    if (id == TOKEN_PAD || id < 0 || id >= t->vocab) return data_put(buf, cap, "", 0);
    if (id == TOKEN_MASK) return data_put(buf, cap, "<mask> ", 7);
    if (id == WORD_EOS) return data_put(buf, cap, "\n", 1);
    int32_t dense = id - BYTE_BASE;
    uint32_t n = data_strmap_len(&t->word.index, dense);
    size_t w = data_put(buf, cap, data_strmap_key(&t->word.index, dense), n);
    if (w == n && cap > n + 1) w += data_put(buf + n, cap - n, " ", 1);
    return w;
}

void word_free(Tokenizer *t)
{
    data_strmap_free(&t->word.index);
}
