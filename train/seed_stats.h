/* Statistics over a training's seeds, for comparisons that must tell an effect from the seeds' spread (train
 * --versus): GSL's mean, standard deviation and Student's t quantile. */
#ifndef GQ_SEED_STATS_H
#define GQ_SEED_STATS_H

#include <stddef.h>

/* Paired differences a[i] - b[i] over n >= 2 pairs (the same seed's two runs; at most 64): their mean, standard
 * deviation and the mean's 95% confidence interval, mean -/+ t(0.975, n - 1) sd / sqrt(n). One pair: sd 0 and an
 * interval without ends (-inf, inf). */
void train_paired_ci(const double *a, const double *b, size_t n, double *mean, double *sd, double *lo, double *hi);

#endif
