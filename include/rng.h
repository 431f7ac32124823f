/*
 * rng.h — a small seeded PRNG (splitmix64 to seed, xoshiro256** to draw).
 *
 * Every simulation owns one struct rng; nothing is global, so the same seed gives the same
 * stream everywhere. rng_hash gives a value that depends only on its inputs (enrichment uses
 * it so a job's value depends on (profile, seed, job id), never on row order).
 */
#ifndef VOIDFIT_RNG_H
#define VOIDFIT_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4]; /* xoshiro256** state */
};

static inline uint64_t rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix(&seed);
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

/* A uniform double in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* A uniform integer in [0, n); n > 0. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(rng_unit(r) * (double)n);
}

/* rng_hash in two steps, for many values of c with the same (a, b): rng_hash_ab(a, b) once,
 * then rng_hash_c(that, c) for each c. */
static inline uint64_t rng_hash_ab(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ 0x243f6a8885a308d3ULL;
	uint64_t h = rng_splitmix(&x);
	x = h ^ b;
	return rng_splitmix(&x);
}

static inline uint64_t rng_hash_c(uint64_t ab, uint64_t c)
{
	uint64_t x = ab ^ c;
	return rng_splitmix(&x);
}

/* A 64-bit value that depends only on (a, b, c). */
static inline uint64_t rng_hash(uint64_t a, uint64_t b, uint64_t c)
{
	return rng_hash_c(rng_hash_ab(a, b), c);
}

#endif
