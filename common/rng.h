/* Counter-based randomness for stochastic rounding.
 *
 * A quantizer's random draw for element i is a pure function of (key, i): no
 * state advances, so an encode is identical whatever the thread count or loop
 * order, and can be replayed exactly by tests and by the simulator. Callers
 * that need independent streams per (step, worker, layer) derive a seed with
 * rng_derive(). The 32-bit finaliser keeps the inner loops vectorizable. */
#ifndef GQ_RNG_H
#define GQ_RNG_H

#include <math.h>
#include <stdint.h>

/* SplitMix64 finaliser: a bijective 64-bit mix. */
static inline uint64_t rng_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A seed for an independent stream, e.g. rng_derive(seed, step, worker). */
static inline uint64_t rng_derive(uint64_t seed, uint64_t a, uint64_t b)
{
    return rng_mix64(rng_mix64(seed ^ rng_mix64(a)) ^ rng_mix64(b + 0x632BE59BD9B4E019ull));
}

/* The 32-bit key used for elements whose index has high word `hi`. */
static inline uint32_t rng_key32(uint64_t seed, uint64_t hi)
{
    return (uint32_t)rng_mix64(seed ^ (hi * 0xD6E8FEB86659FD93ull));
}

/* 32-bit integer hash of (key, low index word): the "lowbias32" finaliser
 * (constants from the published hash-prospector search), two multiplies,
 * applied to key + i. Vectorizes with 32-bit lane multiplies. */
static inline uint32_t rng_hash32(uint32_t key, uint32_t i)
{
    uint32_t h = i + key;
    h ^= h >> 16;
    h *= 0x21F0AAADu;
    h ^= h >> 15;
    h *= 0x735A2D97u;
    h ^= h >> 15;
    return h;
}

/* Uniform in [0, 1) with 24 bits of resolution, exact in float. */
static inline float rng_uniform24(uint32_t h) { return (float)(h >> 8) * (1.0f / 16777216.0f); }

/* A small sequential generator for synthetic data and sampling in tests. */
typedef struct {
    uint64_t state;
} rng_t;

static inline void rng_init(rng_t *r, uint64_t seed) { r->state = seed; }
static inline uint64_t rng_u64(rng_t *r)
{
    r->state += 0x9E3779B97F4A7C15ull;
    return rng_mix64(r->state);
}
static inline double rng_double(rng_t *r) { return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }

/* Two independent N(0, sd^2) draws from two uniforms (Box-Muller): the one Gaussian sampler of the
 * synthetic gradients, the codec cost model and the trainer's initialisation, so that each stream is
 * the same wherever it is drawn. */
static inline void rng_gaussian_pair(rng_t *r, double sd, double *z0, double *z1)
{
    const double u1 = rng_double(r) + 1e-300, u2 = rng_double(r), m = sqrt(-2 * log(u1)) * sd;
    *z0 = m * cos(6.283185307179586 * u2);
    *z1 = m * sin(6.283185307179586 * u2);
}

#endif
