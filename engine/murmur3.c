/*
 * murmur3.c — MurmurHash3_x86_32 over bytes, read as little-endian 32-bit
 * blocks whatever the host order is.
 */
#include "engine/murmur3.h"

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t mix_k(uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    return k * 0x1b873593u;
}

static inline uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

uint32_t murmur3_32(const void *key, size_t len, uint32_t seed)
{
    const uint8_t *p = key;
    uint32_t h = seed;
    size_t blocks = len / 4;
    for (size_t i = 0; i < blocks; i++) {
        const uint8_t *b = p + 4 * i;
        uint32_t k = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        h ^= mix_k(k);
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    const uint8_t *tail = p + 4 * blocks;
    uint32_t k = 0;
    switch (len & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1: k ^= tail[0]; h ^= mix_k(k);
    }
    h ^= (uint32_t)len;
    return fmix32(h);
}

/* The 4- and 8-byte keys inline: no byte buffer, same result. */
uint32_t murmur3_u32(uint32_t a, uint32_t seed)
{
    uint32_t h = seed ^ mix_k(a);
    h = rotl32(h, 13) * 5 + 0xe6546b64u;
    return fmix32(h ^ 4u);
}

uint32_t murmur3_u32_pair(uint32_t a, uint32_t b, uint32_t seed)
{
    uint32_t h = seed ^ mix_k(a);
    h = rotl32(h, 13) * 5 + 0xe6546b64u;
    h ^= mix_k(b);
    h = rotl32(h, 13) * 5 + 0xe6546b64u;
    return fmix32(h ^ 8u);
}
