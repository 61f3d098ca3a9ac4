/* Cost of summarising ORQ/BinGrad buckets: the radix sort with prefix sums
 * (qz_sorted_build) and the histogram ORQ uses on long buckets
 * (qz_hist_build, d/2 bins) against the C library's qsort and a memcpy of the
 * same data, timed in the same run; prints ns per element and ratios.
 * Build: cmake --build build --target bench_sort; run: build/bench_sort [BUCKET] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_clock.h"
#include "qz_internal.h"
#include "rng.h"

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const size_t d = argc > 1 ? (size_t)atol(argv[1]) : 512, n = (size_t)1 << 22, nb = n / d;
    float *x = malloc(n * sizeof *x), *copy = malloc(d * sizeof *copy);
    void *work = malloc(qz_sorted_workspace(d));
    rng_t r;
    rng_init(&r, 1);
    for (size_t i = 0; i < n; i++) x[i] = (float)(rng_double(&r) - 0.5) * (float)(rng_double(&r) * 1e-3);
    qz_sorted s;
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    for (int rep = 0; rep < 3; rep++) {
        double t0 = gq_now();
        for (size_t b = 0; b < nb; b++) memcpy(copy, x + b * d, d * sizeof *copy);
        best[0] = fmin(best[0], gq_now() - t0);
        t0 = gq_now();
        for (size_t b = 0; b < nb; b++) qz_sorted_build(&s, x + b * d, d, work);
        best[1] = fmin(best[1], gq_now() - t0);
        t0 = gq_now();
        for (size_t b = 0; b < nb; b++) {
            memcpy(copy, x + b * d, d * sizeof *copy);
            qsort(copy, d, sizeof *copy, cmp_float);
        }
        best[2] = fmin(best[2], gq_now() - t0);
        t0 = gq_now();
        for (size_t b = 0; b < nb; b++) qz_hist_build(&s, x + b * d, d, d / 2 > 0 ? d / 2 : 1, work);
        best[3] = fmin(best[3], gq_now() - t0);
    }
    const char *names[4] = {"memcpy (reference)", "radix sort + prefix sums", "qsort", "histogram, d/2 bins"};
    printf("bucket %zu, %zu buckets\n%-26s %10s %10s\n", d, nb, "", "ns/elem", "x memcpy");
    for (int k = 0; k < 4; k++) printf("%-26s %10.3f %10.1f\n", names[k], 1e9 * best[k] / (double)n, best[k] / best[0]);
    free(x);
    free(copy);
    free(work);
    return 0;
}
