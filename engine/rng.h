/*
 * rng.h — deterministic random numbers.  A run's generator (xoshiro256**)
 * is seeded from its seed and stored in checkpoints; stochastic kernels
 * (dropout, level dropout) use a counter-based hash of (key, index) so their
 * draws do not depend on how the batch is split between threads.
 */
#ifndef MIXBENCH_RNG_H
#define MIXBENCH_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} Rng;

void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_next(Rng *r);
/* Uniform in [0, 1) with 24 random bits (float) / 53 bits (double). */
float rng_float(Rng *r);
double rng_double(Rng *r);
/* Uniform integer in [0, n). */
uint64_t rng_below(Rng *r, uint64_t n);
/* Standard normal (Box-Muller, double precision). */
double rng_normal(Rng *r);

/* splitmix64 finaliser of a key and an index: a stateless stream. */
uint64_t rng_hash(uint64_t key, uint64_t index);
/* FNV-1a of a string, to derive per-parameter streams from names. */
uint64_t rng_hash_string(const char *s);

#endif
