/* Synthetic gradient generation: GSL's samplers drawing from rng.h's generator (see gradgen.h). */
#include "gradgen.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "rng.h"

/* rng.h's sequential generator as a GSL generator type, so that GSL's samplers (the ziggurat, Laplace, Student's t)
 * draw from the one stream gqsim's other synthetic data come from, not from a second generator (MT19937) */
static void splitmix_set(void *state, unsigned long seed) { rng_init(state, seed); }
static unsigned long splitmix_get(void *state) { return (unsigned long)(rng_u64(state) >> 32); }
static double splitmix_get_double(void *state) { return rng_double(state); }
static const gsl_rng_type SPLITMIX64 = {
    "gqsim-splitmix64", 0xffffffffUL, 0, sizeof(rng_t), splitmix_set, splitmix_get, splitmix_get_double,
};

const char *const GRADGEN_DISTS[] = {"gaussian", "laplace", "uniform", "student-t", NULL};

int gradgen_is_named(const char *dist)
{
    for (int i = 0; GRADGEN_DISTS[i]; i++)
        if (strcmp(dist, GRADGEN_DISTS[i]) == 0) return 1;
    return 0;
}

int gradgen_check(const char *dist)
{
    if (gradgen_is_named(dist) || strstr(dist, ".f32") || strchr(dist, '/')) return 0;
    cli_error("--dist '%s' is not gaussian, laplace, uniform, student-t or a FILE.f32", dist);
    return -1;
}

float *gradgen(const char *dist, size_t *n, uint64_t seed, uint64_t max_elements)
{
    if (!gradgen_is_named(dist)) {
        if (gradgen_check(dist) != 0) return NULL;
        float *x;
        return cli_read_f32(dist, max_elements, &x, n) == 0 ? x : NULL;
    }
    float *x = malloc(*n * sizeof *x);
    gsl_rng *r = x ? gsl_rng_alloc(&SPLITMIX64) : NULL;
    if (!r) {
        free(x);
        cli_error("out of memory for %zu elements", *n);
        return NULL;
    }
    gsl_rng_set(r, (unsigned long)seed);
    int kind = 0;
    while (strcmp(dist, GRADGEN_DISTS[kind]) != 0) kind++;
    for (size_t i = 0; i < *n; i++) {
        double v;
        switch (kind) {
        case 0: v = gsl_ran_gaussian_ziggurat(r, 1.0); break;
        case 1: v = gsl_ran_laplace(r, 1.0); break;
        case 2: v = 2 * gsl_rng_uniform(r) - 1; break;
        default: v = gsl_ran_tdist(r, 3.0); break;
        }
        x[i] = (float)(1e-3 * v);
    }
    gsl_rng_free(r);
    return x;
}
