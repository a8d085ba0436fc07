/*
 * test_murmur3.c — MurmurHash3_x86_32 against published test vectors, and
 * the inline 4/8-byte key forms against the byte form.
 */
#include <string.h>

#include "engine/murmur3.h"
#include "engine/rng.h"
#include "tests/check.h"

static void test_vectors(void)
{
    struct { const char *s; uint32_t seed, want; } v[] = {
        {"", 0, 0},
        {"", 1, 0x514E28B7u},
        {"", 0xffffffffu, 0x81F16F39u},
        {"test", 0, 0xba6bd213u},
        {"Hello, world!", 0, 0xc0363e43u},
        {"Hello, world!", 1234, 0xfaf6cdb3u},
        {"The quick brown fox jumps over the lazy dog", 0, 0x2e4ff723u},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t got = murmur3_32(v[i].s, strlen(v[i].s), v[i].seed);
        CHECK(got == v[i].want, "murmur3(\"%s\", %u) = %08x, want %08x", v[i].s, v[i].seed, got, v[i].want);
    }
    uint8_t zeros[4] = {0, 0, 0, 0};
    CHECK(murmur3_32(zeros, 4, 0) == 0x2362F9DEu, "4 zero bytes: %08x", murmur3_32(zeros, 4, 0));
}

static void test_inline_keys(void)
{
    Rng r;
    rng_seed(&r, 9);
    for (int i = 0; i < 1000; i++) {
        uint32_t a = (uint32_t)rng_next(&r), b = (uint32_t)rng_next(&r), seed = (uint32_t)rng_next(&r);
        uint8_t key[8];
        for (int j = 0; j < 4; j++) {
            key[j] = (uint8_t)(a >> (8 * j));
            key[4 + j] = (uint8_t)(b >> (8 * j));
        }
        CHECK(murmur3_u32(a, seed) == murmur3_32(key, 4, seed), "u32 form differs");
        CHECK(murmur3_u32_pair(a, b, seed) == murmur3_32(key, 8, seed), "pair form differs");
    }
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_vectors);
    RUN(test_inline_keys);
    CHECK_EXIT();
}
