/* Statistics over seeds; see seed_stats.h. */
#include "seed_stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

void train_paired_ci(const double *a, const double *b, size_t n, double *mean, double *sd, double *lo, double *hi)
{
    double d[64] = {0};
    if (n > 64) n = 64;
    for (size_t i = 0; i < n; i++) d[i] = a[i] - b[i];
    *mean = gsl_stats_mean(d, 1, n);
    *sd = n > 1 ? gsl_stats_sd_m(d, 1, n, *mean) : 0;
    const double half = n > 1 ? gsl_cdf_tdist_Pinv(0.975, (double)n - 1) * *sd / sqrt((double)n) : INFINITY;
    *lo = *mean - half, *hi = *mean + half;
}
