/* Synthetic gradients (cli/gradgen.c): GSL's samplers drawing from rng.h's generator. The uniform gradient is rng.h's
 * stream itself, element for element (1e-3 (2u - 1), u its doubles from the seed); each distribution's scale is its
 * closed form at 2^16 elements (the Gaussian's standard deviation 1e-3, the Laplace's mean absolute value 1e-3, the
 * median absolute value of Student's t with 3 degrees of freedom 0.7649e-3, its 75th percentile); the same seed
 * gives the same bytes, another seed others. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gradgen.h"
#include "rng.h"

static int by_value(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    size_t n = 1 << 16;
    float *u = gradgen("uniform", &n, 7, 0);
    rng_t r;
    rng_init(&r, 7);
    int same = u != NULL;
    for (size_t i = 0; same && i < n; i++) same = u[i] == (float)(1e-3 * (2 * rng_double(&r) - 1));
    CHECK(same, "uniform: rng.h's stream from seed 7, element for element");

    float *g = gradgen("gaussian", &n, 7, 0), *l = gradgen("laplace", &n, 7, 0), *t = gradgen("student-t", &n, 7, 0);
    CHECK(g && l && t, "the three distributions drawn");
    if (g && l && t) {
        double g2 = 0, labs = 0;
        for (size_t i = 0; i < n; i++) g2 += (double)g[i] * g[i], labs += fabs(l[i]);
        const double sd = sqrt(g2 / n), mad = labs / n;
        /* sampling error of 2^16 draws: the sd's relative 1/sqrt(2n) = 0.28%, |X|'s mean 1/sqrt(n) = 0.39% */
        CHECK(fabs(sd / 1e-3 - 1) < 0.02, "gaussian: sd %g, not 1e-3", sd);
        CHECK(fabs(mad / 1e-3 - 1) < 0.02, "laplace: mean |x| %g, not 1e-3", mad);
        for (size_t i = 0; i < n; i++) t[i] = fabsf(t[i]);
        qsort(t, n, sizeof *t, by_value);
        CHECK(fabs(t[n / 2] / 0.7649e-3 - 1) < 0.03, "student-t(3): median |x| %g, not 0.7649e-3", (double)t[n / 2]);
    }
    size_t m = 1000;
    float *a = gradgen("gaussian", &m, 11, 0), *b = gradgen("gaussian", &m, 11, 0), *c = gradgen("gaussian", &m, 12, 0);
    CHECK(a && b && c && memcmp(a, b, m * sizeof *a) == 0, "the same seed, the same gradient");
    CHECK(a && c && memcmp(a, c, m * sizeof *a) != 0, "another seed, another gradient");
    free(u), free(g), free(l), free(t), free(a), free(b), free(c);
    return check_summary();
}
