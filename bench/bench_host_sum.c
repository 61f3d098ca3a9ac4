/* What a parameter server on the host CPU pays to take in one fp32
 * contribution: adding it into the aggregate (acc[i] += x[i]), one thread,
 * on arrays larger than the caches, against a memcpy of the same array timed
 * in the same run. Its ns per element is the `fp32,cpu` row of
 * data/codec_costs_cpu.csv (docs/codec-costs.md#the-host-as-parameter-server).
 * Build: cmake --build build --target bench_host_sum; run: build/bench_host_sum [LOG2_N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_clock.h"

/* acc[n] += x[n] */
static void accumulate(float *restrict acc, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++) acc[i] += x[i];
}

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 24;
    if (lg < 10 || lg > 28) return fprintf(stderr, "bench_host_sum: LOG2_N must be 10..28\n"), 2;
    const size_t n = (size_t)1 << lg;
    float *acc = malloc(n * sizeof *acc), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!acc || !x || !y) return fprintf(stderr, "bench_host_sum: out of memory\n"), 1;
    for (size_t i = 0; i < n; i++) acc[i] = 0, x[i] = (float)(i % 1000) * 1e-3f, y[i] = 0;
    double copy = 1e9, sum = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = gq_now();
        memcpy(y, x, n * sizeof *x);
        double t1 = gq_now();
        accumulate(acc, x, n);
        double t2 = gq_now();
        copy = t1 - t0 < copy ? t1 - t0 : copy;
        sum = t2 - t1 < sum ? t2 - t1 : sum;
    }
    printf("elements,memcpy_ns_per_element,sum_ns_per_element,sum_over_memcpy,check\n");
    printf("%zu,%.4f,%.4f,%.3f,%g\n", n, copy * 1e9 / n, sum * 1e9 / n, sum / copy, (double)acc[n - 1] + y[n - 1]);
    free(acc), free(x), free(y);
    return 0;
}
