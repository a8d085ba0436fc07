/*
 * bpe_learn.c — learns byte-level BPE merges from a train text.
 *
 * The text is pre-split into chunks (bpe_chunk_end) and the merges are
 * learned over the unique chunks weighted by their counts, so the work
 * depends on the number of distinct words, not on the text length.  Pair
 * counts are kept incrementally: a merge only revisits the words that hold
 * the merged pair (each pair keeps the list of words it occurs in), and a
 * max-heap with lazy deletion finds the next best pair.
 *
 * Tie-breaking is deterministic: the highest count wins, then the smaller
 * left id, then the smaller right id.  Learning stops at the target
 * vocabulary or when no pair occurs twice.
 *
 * Not for: encoding (tokenizer_bpe.c) or the cache (bpe_cache.c).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdlib.h>
#include <string.h>

enum { CLASS_SPACE, CLASS_LETTER, CLASS_DIGIT, CLASS_OTHER };

static inline int byte_class(unsigned char c)
{
    if (data_is_space(c)) return CLASS_SPACE;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80) return CLASS_LETTER;
    if (c >= '0' && c <= '9') return CLASS_DIGIT;
    return CLASS_OTHER;
}

size_t bpe_chunk_end(const unsigned char *s, size_t n, size_t i)
{
    size_t limit = MB_MIN(n, i + BPE_MAX_CHUNK);
    size_t j = i + 1;
    int c = byte_class(s[i]);
    if (s[i] == ' ' && j < limit && byte_class(s[j]) != CLASS_SPACE) {
        int word_class = byte_class(s[j]);
        while (j < limit && byte_class(s[j]) == word_class) j++;
        return j;
    }
    while (j < limit && byte_class(s[j]) == c) j++;
    /* A whitespace run leaves its last space to the word that follows. */
    if (c == CLASS_SPACE && j - i > 1 && j < n && s[j - 1] == ' ' &&
        byte_class(s[j]) != CLASS_SPACE)
        j--;
    return j;
}

typedef struct {
    int32_t *words;
    int32_t n, cap;
} WordList;

typedef struct {
    int64_t count;
    int32_t pair;
} HeapEntry;

typedef struct {
    /* unique chunks */
    int32_t n_words;
    int64_t *word_count;
    int32_t *word_off, *word_len;    /* into syms */
    int32_t *syms;
    /* pairs, by dense index of pairs */
    DataPairMap pairs;
    int32_t pairs_cap;
    int64_t *pair_count;
    int32_t *pair_left, *pair_right;
    WordList *pair_words;
    int32_t *pair_stamp;             /* last merge that queued the pair */
    /* heap */
    HeapEntry *heap;
    size_t heap_len, heap_cap;
    /* pairs that gained count during the current merge */
    int32_t *touched;
    size_t n_touched, touched_cap;
} Learner;

static int heap_before(const Learner *L, HeapEntry a, HeapEntry b)
{
    if (a.count != b.count) return a.count > b.count;
    if (L->pair_left[a.pair] != L->pair_left[b.pair])
        return L->pair_left[a.pair] < L->pair_left[b.pair];
    return L->pair_right[a.pair] < L->pair_right[b.pair];
}

static int heap_push(Learner *L, HeapEntry e)
{
    if (L->heap_len == L->heap_cap) {
        size_t cap = L->heap_cap ? L->heap_cap * 2 : 4096;
        HeapEntry *heap = realloc(L->heap, cap * sizeof *heap);
        if (!heap) return -1;
        L->heap = heap;
        L->heap_cap = cap;
    }
    size_t i = L->heap_len++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!heap_before(L, e, L->heap[parent])) break;
        L->heap[i] = L->heap[parent];
        i = parent;
    }
    L->heap[i] = e;
    return 0;
}

static HeapEntry heap_pop(Learner *L)
{
    HeapEntry top = L->heap[0];
    HeapEntry last = L->heap[--L->heap_len];
    size_t i = 0, n = L->heap_len;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap_before(L, L->heap[child + 1], L->heap[child])) child++;
        if (!heap_before(L, L->heap[child], last)) break;
        L->heap[i] = L->heap[child];
        i = child;
    }
    if (n > 0) L->heap[i] = last;
    return top;
}

static int32_t pair_index(Learner *L, int32_t left, int32_t right)
{
    int is_new = 0;
    int32_t p = data_pairmap_add(&L->pairs, data_pair_key(left, right), &is_new);
    if (p < 0 || !is_new) return p;
    if (p >= L->pairs_cap) {
        int32_t cap = L->pairs_cap ? L->pairs_cap * 2 : 8192;
        int64_t *count = realloc(L->pair_count, (size_t)cap * sizeof *count);
        if (count) L->pair_count = count;
        int32_t *l = realloc(L->pair_left, (size_t)cap * sizeof *l);
        if (l) L->pair_left = l;
        int32_t *r = realloc(L->pair_right, (size_t)cap * sizeof *r);
        if (r) L->pair_right = r;
        WordList *w = realloc(L->pair_words, (size_t)cap * sizeof *w);
        if (w) L->pair_words = w;
        int32_t *s = realloc(L->pair_stamp, (size_t)cap * sizeof *s);
        if (s) L->pair_stamp = s;
        if (!count || !l || !r || !w || !s) return -1;
        L->pairs_cap = cap;
    }
    L->pair_count[p] = 0;
    L->pair_left[p] = left;
    L->pair_right[p] = right;
    L->pair_words[p] = (WordList){NULL, 0, 0};
    L->pair_stamp[p] = -1;
    return p;
}

static int note_word(WordList *list, int32_t w)
{
    if (list->n > 0 && list->words[list->n - 1] == w) return 0;
    if (list->n == list->cap) {
        int32_t cap = list->cap ? list->cap * 2 : 4;
        int32_t *words = realloc(list->words, (size_t)cap * sizeof *words);
        if (!words) return -1;
        list->words = words;
        list->cap = cap;
    }
    list->words[list->n++] = w;
    return 0;
}

static int note_touched(Learner *L, int32_t p, int merge)
{
    if (L->pair_stamp[p] == merge) return 0;
    L->pair_stamp[p] = merge;
    if (L->n_touched == L->touched_cap) {
        size_t cap = L->touched_cap ? L->touched_cap * 2 : 1024;
        int32_t *t = realloc(L->touched, cap * sizeof *t);
        if (!t) return -1;
        L->touched = t;
        L->touched_cap = cap;
    }
    L->touched[L->n_touched++] = p;
    return 0;
}

/* Replaces every (a, b) in word w by z, updating the pair counts. */
static int merge_word(Learner *L, int32_t w, int32_t a, int32_t b, int32_t z, int merge)
{
    int32_t *s = L->syms + L->word_off[w];
    int32_t n = L->word_len[w];
    int found = 0;
    for (int32_t k = 0; k + 1 < n; k++)
        if (s[k] == a && s[k + 1] == b) {
            found = 1;
            break;
        }
    if (!found) return 0;
    int64_t c = L->word_count[w];
    for (int32_t k = 0; k + 1 < n; k++)
        L->pair_count[data_pairmap_find(&L->pairs, data_pair_key(s[k], s[k + 1]))] -= c;
    int32_t m = 0;
    for (int32_t k = 0; k < n; k++) {
        if (k + 1 < n && s[k] == a && s[k + 1] == b) {
            s[m++] = z;
            k++;
        } else {
            s[m++] = s[k];
        }
    }
    L->word_len[w] = m;
    for (int32_t k = 0; k + 1 < m; k++) {
        int32_t p = pair_index(L, s[k], s[k + 1]);
        if (p < 0) return -1;
        L->pair_count[p] += c;
        if (s[k] == z || s[k + 1] == z) {
            if (note_word(&L->pair_words[p], w) != 0 || note_touched(L, p, merge) != 0) return -1;
        }
    }
    return 0;
}

static int count_chunks(Learner *L, const char *train, size_t len)
{
    DataStrMap chunks;
    /* at most len / 2 + 1 distinct chunks: sized to the text (the map grows) */
    if (data_strmap_init(&chunks, MB_MIN((size_t)1 << 16, len / 2 + 1)) != 0) return -1;
    int64_t *counts = NULL;
    size_t counts_cap = 0;
    const unsigned char *s = (const unsigned char *)train;
    for (size_t i = 0; i < len;) {
        size_t end = bpe_chunk_end(s, len, i);
        int32_t w = data_strmap_add(&chunks, train + i, end - i, NULL);
        if (w < 0) goto fail;
        if ((size_t)w >= counts_cap) {
            size_t cap = counts_cap ? counts_cap * 2 : 4096;
            int64_t *c = realloc(counts, cap * sizeof *c);
            if (!c) goto fail;
            memset(c + counts_cap, 0, (cap - counts_cap) * sizeof *c);
            counts = c;
            counts_cap = cap;
        }
        counts[w]++;
        i = end;
    }
    L->n_words = chunks.count;
    L->word_count = counts;
    counts = NULL;
    L->word_off = malloc(((size_t)L->n_words + 1) * sizeof *L->word_off);
    L->word_len = malloc(((size_t)L->n_words + 1) * sizeof *L->word_len);
    L->syms = malloc((chunks.pool_len + 1) * sizeof *L->syms);
    if (!L->word_off || !L->word_len || !L->syms) goto fail;
    int32_t off = 0;
    for (int32_t w = 0; w < L->n_words; w++) {
        const unsigned char *key = (const unsigned char *)data_strmap_key(&chunks, w);
        int32_t n = (int32_t)data_strmap_len(&chunks, w);
        L->word_off[w] = off;
        L->word_len[w] = n;
        for (int32_t k = 0; k < n; k++) L->syms[off + k] = BYTE_BASE + key[k];
        off += n;
    }
    data_strmap_free(&chunks);
    return 0;
fail:
    free(counts);
    data_strmap_free(&chunks);
    return -1;
}

static void learner_free(Learner *L)
{
    free(L->word_count);
    free(L->word_off);
    free(L->word_len);
    free(L->syms);
    if (L->pair_words)
        for (int32_t p = 0; p < L->pairs.count && p < L->pairs_cap; p++) free(L->pair_words[p].words);
    free(L->pair_words);
    free(L->pair_count);
    free(L->pair_left);
    free(L->pair_right);
    free(L->pair_stamp);
    free(L->heap);
    free(L->touched);
    data_pairmap_free(&L->pairs);
}

int bpe_learn(const char *train, size_t len, int target_vocab, int32_t **merges_out,
              int *n_out, char *err)
{
    *merges_out = NULL;
    *n_out = 0;
    if (target_vocab < BYTE_VOCAB)
        return err_set(err, "bpe vocabulary %d is too small (at least %d: 2 reserved + 256 bytes)",
                       target_vocab, BYTE_VOCAB);
    int max_merges = target_vocab - BYTE_VOCAB;
    Learner L;
    memset(&L, 0, sizeof L);
    int32_t *merges = NULL;
    /* at most len distinct pairs: a small text gets a small map (it grows) */
    if (data_pairmap_init(&L.pairs, MB_MIN((size_t)1 << 14, len + 1)) != 0 ||
        count_chunks(&L, train, len) != 0)
        goto oom;
    /* Each merge removes at least one symbol from the unique words. */
    int64_t n_syms = 0;
    for (int32_t w = 0; w < L.n_words; w++) n_syms += L.word_len[w];
    if (max_merges > n_syms) max_merges = (int)n_syms;
    merges = malloc(((size_t)max_merges + 1) * 2 * sizeof *merges);
    if (!merges) goto oom;

    for (int32_t w = 0; w < L.n_words; w++) {
        const int32_t *s = L.syms + L.word_off[w];
        for (int32_t k = 0; k + 1 < L.word_len[w]; k++) {
            int32_t p = pair_index(&L, s[k], s[k + 1]);
            if (p < 0) goto oom;
            L.pair_count[p] += L.word_count[w];
            if (note_word(&L.pair_words[p], w) != 0) goto oom;
        }
    }
    for (int32_t p = 0; p < L.pairs.count; p++)
        if (heap_push(&L, (HeapEntry){L.pair_count[p], p}) != 0) goto oom;

    int n_merges = 0;
    while (n_merges < max_merges && L.heap_len > 0) {
        HeapEntry top = heap_pop(&L);
        int64_t current = L.pair_count[top.pair];
        if (current != top.count) {
            /* Stale: the pair lost count since it was queued. */
            if (current > 0 && heap_push(&L, (HeapEntry){current, top.pair}) != 0) goto oom;
            continue;
        }
        if (current < 2) break;
        int32_t a = L.pair_left[top.pair], b = L.pair_right[top.pair];
        int32_t z = BYTE_VOCAB + n_merges;
        merges[2 * n_merges] = a;
        merges[2 * n_merges + 1] = b;
        L.n_touched = 0;
        /* The merged pair's word list is not appended to while it is walked:
           every new pair holds z, which is not a or b. */
        for (int32_t k = 0; k < L.pair_words[top.pair].n; k++) {
            int32_t w = L.pair_words[top.pair].words[k];  /* pair_words may move */
            if (merge_word(&L, w, a, b, z, n_merges) != 0) goto oom;
        }
        for (size_t k = 0; k < L.n_touched; k++) {
            int32_t p = L.touched[k];
            if (L.pair_count[p] > 0 && heap_push(&L, (HeapEntry){L.pair_count[p], p}) != 0) goto oom;
        }
        free(L.pair_words[top.pair].words);
        L.pair_words[top.pair] = (WordList){NULL, 0, 0};
        n_merges++;
    }
    learner_free(&L);
    *merges_out = merges;
    *n_out = n_merges;
    return 0;
oom:
    learner_free(&L);
    free(merges);
    return err_set(err, "out of memory learning bpe merges");
}
