/*
 * tokenizer_bpe.c — byte-level BPE encoding and decoding from a list of
 * merges.  Ids 2..257 are the 256 bytes, id 258 + r is merge r.
 *
 * Encoding pre-splits the text into the chunks the merges were learned on
 * (bpe_chunk_end), then in each chunk repeatedly merges the adjacent pair
 * with the lowest rank.  Each distinct chunk is encoded once per call (a
 * per-call cache), which makes a 10 MB text cost little more than its
 * distinct words.  Decoding concatenates bytes, so decode(encode(x)) == x.
 *
 * Not for: learning merges (bpe_learn.c) or caching them (bpe_cache.c).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"

#include <stdlib.h>
#include <string.h>

int bpe_init(Tokenizer *t, const int32_t *merges, int n_merges, char *err)
{
    BpeModel *m = &t->bpe;
    int vocab = BYTE_VOCAB + n_merges;
    m->merges = malloc(((size_t)n_merges + 1) * 2 * sizeof *m->merges);
    m->piece_off = malloc((size_t)vocab * sizeof *m->piece_off);
    m->piece_len = malloc((size_t)vocab * sizeof *m->piece_len);
    if (!m->merges || !m->piece_off || !m->piece_len ||
        data_pairmap_init(&m->rank, (size_t)n_merges + 16) != 0)
        return err_set(err, "out of memory building the bpe tokenizer");
    size_t total = 256;
    for (int id = 0; id < BYTE_BASE; id++) m->piece_off[id] = m->piece_len[id] = 0;
    for (int byte = 0; byte < 256; byte++) {
        m->piece_off[BYTE_BASE + byte] = (uint32_t)byte;
        m->piece_len[BYTE_BASE + byte] = 1;
    }
    for (int r = 0; r < n_merges; r++) {
        int32_t a = merges[2 * r], b = merges[2 * r + 1];
        int32_t z = BYTE_VOCAB + r;
        if (a < BYTE_BASE || b < BYTE_BASE || a >= z || b >= z)
            return err_set(err, "bpe merge %d (%d %d) refers to an id not yet defined", r, a, b);
        int is_new = 0;
        if (data_pairmap_add(&m->rank, data_pair_key(a, b), &is_new) < 0)
            return err_set(err, "out of memory building the bpe tokenizer");
        if (!is_new) return err_set(err, "bpe merge %d (%d %d) is a duplicate", r, a, b);
        m->merges[2 * r] = a;
        m->merges[2 * r + 1] = b;
        m->piece_len[z] = m->piece_len[a] + m->piece_len[b];
        m->piece_off[z] = (uint32_t)total;
        total += m->piece_len[z];
        if (total > UINT32_MAX) return err_set(err, "bpe pieces are too long");
    }
    m->pieces = malloc(total + 1);
    if (!m->pieces) return err_set(err, "out of memory building the bpe tokenizer");
    for (int byte = 0; byte < 256; byte++) m->pieces[byte] = (uint8_t)byte;
    for (int r = 0; r < n_merges; r++) {
        int32_t a = merges[2 * r], b = merges[2 * r + 1], z = BYTE_VOCAB + r;
        uint8_t *dst = m->pieces + m->piece_off[z];
        memcpy(dst, m->pieces + m->piece_off[a], m->piece_len[a]);
        memcpy(dst + m->piece_len[a], m->pieces + m->piece_off[b], m->piece_len[b]);
    }
    m->n_merges = n_merges;
    t->vocab = vocab;
    return 0;
}

/* Encodes one chunk (at most BPE_MAX_CHUNK bytes) into syms; returns the
   number of ids. */
static int encode_chunk(const BpeModel *m, const unsigned char *s, int n, int32_t *syms)
{
    for (int k = 0; k < n; k++) syms[k] = BYTE_BASE + s[k];
    for (;;) {
        int32_t best = INT32_MAX;
        for (int k = 0; k + 1 < n; k++) {
            int32_t r = data_pairmap_find(&m->rank, data_pair_key(syms[k], syms[k + 1]));
            if (r >= 0 && r < best) best = r;
        }
        if (best == INT32_MAX) return n;
        int32_t a = m->merges[2 * best], b = m->merges[2 * best + 1];
        int j = 0;
        for (int k = 0; k < n; k++) {
            if (k + 1 < n && syms[k] == a && syms[k + 1] == b) {
                syms[j++] = BYTE_VOCAB + best;
                k++;
            } else {
                syms[j++] = syms[k];
            }
        }
        n = j;
    }
}

int bpe_encode(const Tokenizer *t, const char *text, size_t len, DataIds *out, char *err)
{
    DataStrMap seen;          /* chunk -> dense index */
    DataIds cached = {0};     /* the ids of all seen chunks, back to back */
    uint32_t *cached_off = NULL, *cached_len = NULL;
    size_t cached_cap = 0;
    int rc = -1;
    if (data_strmap_init(&seen, 4096) != 0) return err_set(err, "out of memory encoding bpe");
    const unsigned char *s = (const unsigned char *)text;
    int32_t syms[BPE_MAX_CHUNK];
    for (size_t i = 0; i < len;) {
        size_t end = bpe_chunk_end(s, len, i);
        int is_new = 0;
        int32_t c = data_strmap_add(&seen, text + i, end - i, &is_new);
        if (c < 0) goto oom;
        if (is_new) {
            if ((size_t)c >= cached_cap) {
                size_t cap = cached_cap ? cached_cap * 2 : 4096;
                uint32_t *o = realloc(cached_off, cap * sizeof *o);
                if (o) cached_off = o;
                uint32_t *l = realloc(cached_len, cap * sizeof *l);
                if (l) cached_len = l;
                if (!o || !l) goto oom;
                cached_cap = cap;
            }
            int n = encode_chunk(&t->bpe, s + i, (int)(end - i), syms);
            cached_off[c] = (uint32_t)cached.len;
            cached_len[c] = (uint32_t)n;
            for (int k = 0; k < n; k++)
                if (data_ids_push(&cached, syms[k]) != 0) goto oom;
        }
        for (uint32_t k = 0; k < cached_len[c]; k++)
            if (data_ids_push(out, cached.ids[cached_off[c] + k]) != 0) goto oom;
        i = end;
    }
    rc = 0;
    goto done;
oom:
    err_set(err, "out of memory encoding bpe");
done:
    data_strmap_free(&seen);
    free(cached.ids);
    free(cached_off);
    free(cached_len);
    return rc;
}

size_t bpe_decode_one(const Tokenizer *t, int32_t id, char *buf, size_t cap)
{
    if (id == TOKEN_MASK) return data_put(buf, cap, "<mask>", 6);
    if (id < BYTE_BASE || id >= t->vocab) return data_put(buf, cap, "", 0);
    return data_put(buf, cap, (const char *)t->bpe.pieces + t->bpe.piece_off[id],
                    t->bpe.piece_len[id]);
}

void bpe_free(Tokenizer *t)
{
    free(t->bpe.merges);
    free(t->bpe.piece_off);
    free(t->bpe.piece_len);
    free(t->bpe.pieces);
    data_pairmap_free(&t->bpe.rank);
    memset(&t->bpe, 0, sizeof t->bpe);
}
