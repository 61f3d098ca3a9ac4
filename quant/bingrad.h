/* BinGrad level fits, exposed for tests and the sweep. Both take a sorted
 * bucket and return the two levels a <= b. */
#ifndef GQ_BINGRAD_H
#define GQ_BINGRAD_H

#include "qz_internal.h"

/* BinGrad-b: the exact minimum-squared-error two-level deterministic
 * quantizer (scan of all split points; a, b = the cell means). */
void bingrad_b_fit(float *a, float *b, const qz_sorted *s);
/* The same optimum from the unsorted bucket x[0..len) (len >= 1), by
 * branch and bound over value intervals; work holds 2*len floats.
 * GQ_ERR_NONFINITE if x holds NaN or Inf. */
gq_err bingrad_b_fit_unsorted(float *a, float *b, const float *x, size_t len, float *work);
/* Its squared error: elements below (a+b)/2 go to a, the rest to b. */
double bingrad_b_error(float a, float b, const qz_sorted *s);

/* BinGrad-pb: stationary point of sum_{x<a}(a-x)^2 + sum_{x>b}(x-b)^2 +
 * sum_{a<=x<=b}(b-x)(x-a), by exact coordinate updates. */
void bingrad_pb_fit(float *a, float *b, const qz_sorted *s);
/* That objective: the expected squared error of BinGrad-pb. */
double bingrad_pb_error(float a, float b, const qz_sorted *s);

#endif
