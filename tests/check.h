/* A tiny test harness (redis testhelp.h style) plus helpers shared by the
 * quantizer tests: synthetic gradients from GSL's distributions, and an
 * encode that allocates. Each test binary ends with "N passed, N failed". */
#ifndef GQ_TEST_CHECK_H
#define GQ_TEST_CHECK_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qz.h"

static int check_passed_, check_failed_;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            check_passed_++;                                                                                           \
        } else {                                                                                                       \
            check_failed_++;                                                                                           \
            fprintf(stderr, "%s:%d: FAIL (%s): ", __FILE__, __LINE__, #cond);                                          \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    return check_failed_ != 0;
}

/* The first four are the common set; the last two are the hard cases real
 * gradients have: a point mass at zero (ReLU networks' exact zeros) and
 * tails so heavy that a few elements span most of the range. */
typedef enum { DIST_GAUSSIAN, DIST_LAPLACE, DIST_STUDENT3, DIST_UNIFORM, DIST_ZEROS60, DIST_STUDENT15 } test_dist;
static const char *const TEST_DIST_NAMES[] = {"gaussian",           "laplace",     "student-t3", "uniform",
                                              "60% zeros, laplace", "student-t1.5"};

/* n samples of a zero-mean distribution with scale 1e-3, as gradients are. */
static inline float *test_gradient(test_dist d, size_t n, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        switch (d) {
        case DIST_GAUSSIAN: v = gsl_ran_gaussian(r, 1.0); break;
        case DIST_LAPLACE: v = gsl_ran_laplace(r, 1.0); break;
        case DIST_STUDENT3: v = gsl_ran_tdist(r, 3.0); break;
        case DIST_UNIFORM: v = gsl_rng_uniform(r) * 2 - 1; break;
        case DIST_ZEROS60: v = gsl_rng_uniform(r) < 0.6 ? 0.0 : gsl_ran_laplace(r, 1.0); break;
        case DIST_STUDENT15: v = gsl_ran_tdist(r, 1.5); break;
        }
        x[i] = (float)(v * 1e-3);
    }
    gsl_rng_free(r);
    return x;
}

static inline qz_params test_spec(const char *spec)
{
    qz_params p;
    char msg[256];
    if (qz_parse_spec(spec, &p, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "bad spec in test: %s\n", msg);
        exit(2);
    }
    return p;
}

/* Encodes into an exactly-sized malloc'd buffer (so ASan sees over-reads). */
static inline unsigned char *test_encode(const qz_params *p, const float *x, size_t n, uint64_t seed, size_t *size)
{
    size_t cap = qz_bound(p, n), wcap = qz_workspace_size(p, n);
    unsigned char *buf = malloc(cap);
    void *work = malloc(wcap ? wcap : 1);
    size_t r = qz_encode(buf, cap, x, n, p, seed, work, wcap);
    free(work);
    if (gq_is_error(r)) {
        free(buf);
        *size = r;
        return NULL;
    }
    unsigned char *exact = malloc(r);
    memcpy(exact, buf, r);
    free(buf);
    *size = r;
    return exact;
}

/* Encode then decode; returns the decoded array or NULL. */
static inline float *test_roundtrip(const qz_params *p, const float *x, size_t n, uint64_t seed, size_t *size)
{
    unsigned char *buf = test_encode(p, x, n, seed, size);
    if (!buf) return NULL;
    float *y = malloc(n * sizeof *y);
    size_t r = qz_decode(y, n, buf, *size);
    free(buf);
    if (r != n) {
        free(y);
        return NULL;
    }
    return y;
}

#endif
