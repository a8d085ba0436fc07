/*
 * data_maps.c — the two hash maps the tokenizers are built on: byte string
 * -> dense index (word vocabularies, BPE word counts, encode caches) and
 * (left, right) id pair -> dense index (BPE pair counts and merge ranks).
 * Open addressing with linear probing, grown at 50% load; dense indices are
 * handed out in insertion order so callers keep plain parallel arrays.
 *
 * Not for: deletion (nothing in engine/data removes keys) or thread-shared
 * use (each map belongs to one tokenizer or one call).
 */
#include "engine/data/data_internal.h"

#include <stdlib.h>
#include <string.h>

uint64_t data_hash_bytes(const void *s, size_t len)
{
    /* FNV-1a with a final avalanche so the low bits used for the slot mix. */
    const unsigned char *p = s;
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

static size_t slots_for(size_t expected)
{
    size_t n = 64;
    while (n < expected * 2) n *= 2;
    return n;
}

int data_strmap_init(DataStrMap *m, size_t expected)
{
    memset(m, 0, sizeof *m);
    m->n_slots = slots_for(expected);
    m->slots = malloc(m->n_slots * sizeof *m->slots);
    if (!m->slots) return -1;
    for (size_t i = 0; i < m->n_slots; i++) m->slots[i].index = -1;
    return 0;
}

void data_strmap_free(DataStrMap *m)
{
    free(m->slots);
    free(m->key_offs);
    free(m->key_lens);
    free(m->pool);
    memset(m, 0, sizeof *m);
}

int32_t data_strmap_find(const DataStrMap *m, const char *s, size_t len)
{
    if (!m->slots) return -1;
    uint64_t h = data_hash_bytes(s, len);
    size_t mask = m->n_slots - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const DataStrSlot *slot = &m->slots[i];
        if (slot->index < 0) return -1;
        if (slot->hash == h && slot->key_len == len &&
            memcmp(m->pool + slot->key_off, s, len) == 0)
            return slot->index;
    }
}

static int strmap_grow(DataStrMap *m)
{
    size_t n = m->n_slots * 2;
    DataStrSlot *slots = malloc(n * sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < n; i++) slots[i].index = -1;
    for (size_t i = 0; i < m->n_slots; i++) {
        if (m->slots[i].index < 0) continue;
        size_t j = (size_t)m->slots[i].hash & (n - 1);
        while (slots[j].index >= 0) j = (j + 1) & (n - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->n_slots = n;
    return 0;
}

int32_t data_strmap_add(DataStrMap *m, const char *s, size_t len, int *is_new)
{
    if (is_new) *is_new = 0;
    if (len > UINT32_MAX / 2) return -1;
    uint64_t h = data_hash_bytes(s, len);
    size_t mask = m->n_slots - 1;
    size_t i = (size_t)h & mask;
    for (;; i = (i + 1) & mask) {
        DataStrSlot *slot = &m->slots[i];
        if (slot->index < 0) break;
        if (slot->hash == h && slot->key_len == len &&
            memcmp(m->pool + slot->key_off, s, len) == 0)
            return slot->index;
    }
    if (m->pool_len + len + 1 > m->pool_cap) {
        size_t cap = m->pool_cap ? m->pool_cap : 4096;
        while (cap < m->pool_len + len + 1) cap *= 2;
        if (cap > UINT32_MAX) return -1;
        char *pool = realloc(m->pool, cap);
        if (!pool) return -1;
        m->pool = pool;
        m->pool_cap = cap;
    }
    if ((size_t)m->count == m->keys_cap) {
        size_t cap = m->keys_cap ? m->keys_cap * 2 : 256;
        uint32_t *offs = realloc(m->key_offs, cap * sizeof *offs);
        if (!offs) return -1;
        m->key_offs = offs;
        uint32_t *lens = realloc(m->key_lens, cap * sizeof *lens);
        if (!lens) return -1;
        m->key_lens = lens;
        m->keys_cap = cap;
    }
    uint32_t off = (uint32_t)m->pool_len;
    memcpy(m->pool + off, s, len);
    m->pool[off + len] = '\0';
    m->pool_len += len + 1;
    int32_t index = m->count++;
    m->key_offs[index] = off;
    m->key_lens[index] = (uint32_t)len;
    m->slots[i] = (DataStrSlot){h, off, (uint32_t)len, index};
    if (is_new) *is_new = 1;
    if ((size_t)m->count * 2 > m->n_slots && strmap_grow(m) != 0) return -1;
    return index;
}

/* ---- pair map */

static inline size_t pair_slot(uint64_t key, size_t mask)
{
    key ^= key >> 31;
    key *= 0x7FB5D329728EA185ull;
    key ^= key >> 27;
    key *= 0x81DADEF4BC2DD44Dull;
    key ^= key >> 33;
    return (size_t)key & mask;
}

int data_pairmap_init(DataPairMap *m, size_t expected)
{
    memset(m, 0, sizeof *m);
    m->n_slots = slots_for(expected);
    m->keys = malloc(m->n_slots * sizeof *m->keys);
    m->values = malloc(m->n_slots * sizeof *m->values);
    if (!m->keys || !m->values) {
        data_pairmap_free(m);
        return -1;
    }
    memset(m->keys, 0xFF, m->n_slots * sizeof *m->keys);
    return 0;
}

void data_pairmap_free(DataPairMap *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

int32_t data_pairmap_find(const DataPairMap *m, uint64_t key)
{
    if (!m->keys) return -1;
    size_t mask = m->n_slots - 1;
    for (size_t i = pair_slot(key, mask);; i = (i + 1) & mask) {
        if (m->keys[i] == key) return m->values[i];
        if (m->keys[i] == UINT64_MAX) return -1;
    }
}

static int pairmap_grow(DataPairMap *m)
{
    size_t n = m->n_slots * 2;
    uint64_t *keys = malloc(n * sizeof *keys);
    int32_t *values = malloc(n * sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    memset(keys, 0xFF, n * sizeof *keys);
    for (size_t i = 0; i < m->n_slots; i++) {
        if (m->keys[i] == UINT64_MAX) continue;
        size_t j = pair_slot(m->keys[i], n - 1);
        while (keys[j] != UINT64_MAX) j = (j + 1) & (n - 1);
        keys[j] = m->keys[i];
        values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->n_slots = n;
    return 0;
}

int32_t data_pairmap_add(DataPairMap *m, uint64_t key, int *is_new)
{
    if (is_new) *is_new = 0;
    size_t mask = m->n_slots - 1;
    size_t i = pair_slot(key, mask);
    for (;; i = (i + 1) & mask) {
        if (m->keys[i] == key) return m->values[i];
        if (m->keys[i] == UINT64_MAX) break;
    }
    int32_t index = m->count++;
    m->keys[i] = key;
    m->values[i] = index;
    if (is_new) *is_new = 1;
    if ((size_t)m->count * 2 > m->n_slots && pairmap_grow(m) != 0) return -1;
    return index;
}
