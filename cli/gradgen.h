/* Synthetic gradients for benchmarks and sweeps, drawn with GSL's samplers
 * from rng.h's generator (seeded: the same seed, the same gradient), or real
 * gradients from a raw float32 file. */
#ifndef GQ_GRADGEN_H
#define GQ_GRADGEN_H

#include <stddef.h>
#include <stdint.h>

/* Names accepted by --dist besides a FILE.f32 path. */
extern const char *const GRADGEN_DISTS[];

/* Fills a new array: `dist` is gaussian, laplace, uniform or student-t (3
 * degrees of freedom, heavy-tailed), scaled to a typical gradient magnitude
 * (1e-3), or a path to a raw float32 file of at most max_elements elements
 * (then *n is the file's length). @return the array, or NULL after printing an error. */
float *gradgen(const char *dist, size_t *n, uint64_t seed, uint64_t max_elements);

/* 0 if `dist` is a distribution's name or looks like a file; else -1 after
 * printing (a usage error, found before any work). */
int gradgen_check(const char *dist);

/* 1 if `dist` names a distribution rather than a file. */
int gradgen_is_named(const char *dist);

#endif
