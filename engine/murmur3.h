/*
 * murmur3.h — MurmurHash3_x86_32 (Austin Appleby, public domain algorithm),
 * the hash the SPEC fixes for PairConnect's pair slots and the mlm
 * evaluation masks, so that every tool computes the same slots and masks.
 */
#ifndef MIXBENCH_MURMUR3_H
#define MIXBENCH_MURMUR3_H

#include <stddef.h>
#include <stdint.h>

uint32_t murmur3_32(const void *key, size_t len, uint32_t seed);

/* The SPEC's keys: le32(a) and le32(a) || le32(b). */
uint32_t murmur3_u32(uint32_t a, uint32_t seed);
uint32_t murmur3_u32_pair(uint32_t a, uint32_t b, uint32_t seed);

#endif
