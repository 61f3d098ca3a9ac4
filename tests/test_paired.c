/* The paired comparison behind train --versus against numbers worked by hand: differences 1, 2, 3, 4 have mean 2.5,
 * standard deviation sqrt(5/3), and with t(0.975, 3) = 3.182446305 (tables of Student's t) a 95% interval of
 * 2.5 -/+ 2.054280; two seeds use t(0.975, 1) = 12.706205; equal pairs give a zero-width interval at zero. */
#include <math.h>
#include <stdio.h>

#include "seed_stats.h"

static int failed;
static void expect(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    failed += !ok;
}

int main(void)
{
    const double a[] = {1.5, 2.25, 3.0, 4.75}, b[] = {0.5, 0.25, 0.0, 0.75};
    double mean, sd, lo, hi;
    train_paired_ci(a, b, 4, &mean, &sd, &lo, &hi);
    const double half = 3.182446305 * sqrt(5.0 / 3.0) / 2;
    expect(fabs(mean - 2.5) < 1e-12 && fabs(sd - sqrt(5.0 / 3.0)) < 1e-12, "mean 2.5, sd sqrt(5/3)");
    expect(fabs(lo - (2.5 - half)) < 1e-8 && fabs(hi - (2.5 + half)) < 1e-8, "95% interval 2.5 -/+ 2.054280");
    const double c[] = {0.8, 0.9}, d[] = {0.7, 0.7};
    train_paired_ci(c, d, 2, &mean, &sd, &lo, &hi);
    const double half2 = 12.706205 * (0.1 / sqrt(2.0)) / sqrt(2.0);
    expect(fabs(mean - 0.15) < 1e-12 && fabs(lo - (0.15 - half2)) < 1e-6, "two seeds: t(0.975, 1) = 12.706205");
    train_paired_ci(d, d, 2, &mean, &sd, &lo, &hi);
    expect(mean == 0 && sd == 0 && lo == 0 && hi == 0, "equal pairs: a zero-width interval at zero");
    printf("%d failed\n", failed);
    return failed != 0;
}
