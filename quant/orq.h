/* ORQ level search, exposed for tests and the sweep: the greedy construction
 * with refinement that the codec uses, and the exact dynamic-programming
 * optimum it is tested against. Both take a sorted bucket or a histogram (qz_sorted). */
#ifndef GQ_ORQ_H
#define GQ_ORQ_H

#include "qz_internal.h"

/* Greedy + refinement (docs/papers.md §1): k levels, ascending, levels[0] = min and
 * levels[k-1] = max. */
void orq_levels_greedy(float *levels, unsigned k, const qz_sorted *s);

/* The levels the codec uses for one bucket: the greedy search on the sorted
 * bucket (short buckets) or on a histogram of it. work: qz_sorted_workspace(len).
 * @return GQ_OK, or GQ_ERR_NONFINITE when x holds a NaN or an infinity. */
gq_err orq_levels_bucket(float *levels, unsigned k, const float *x, size_t len, void *work);

/* fit=hist: the exact optimum over the edges of a histogram of the bucket
 * (ORQ_FIT_HIST_BINS bins; short buckets sorted and solved exactly), an
 * approximation one streaming pass long. work: qz_sorted_workspace(len).
 * @return GQ_OK, or GQ_ERR_NONFINITE. */
gq_err orq_levels_hist(float *levels, unsigned k, const float *x, size_t len, void *work);

/* The exact optimum over all k-level sets (levels lie on data points, as the
 * cost is piecewise linear between them); O(k len^2), for small buckets.
 * @return GQ_OK or GQ_ERR_NOMEM. */
gq_err orq_levels_exact(float *levels, unsigned k, const qz_sorted *s);

/* The coarse programme's candidate points for k levels (indices into s,
 * ascending, one per distinct value): every point when s has at most
 * ORQ_CANDIDATES (64); on a histogram's d edges, t (d - 1) / (m - 1) for
 * t = 0..m-1, m = 32 up to 5 levels, else 64; else for t = 0..31 the first
 * point with at least t / 31 of the elements before it and the first point
 * at or above min + t / 31 of the range, merged. idx holds 64. @return their
 * count. */
size_t orq_coarse_candidates(size_t *idx, const qz_sorted *s, unsigned k);

/* The coarse programme's levels (k >= 3; indices into s): the optimum over
 * those candidates (first and last point fixed) as computed in floats,
 * relative to the middle of the range, each end's best predecessor the
 * earliest of equal costs, and the predecessors of ends 16 g to 16 g + 15
 * starting at the best of end 16 g - 1 (the quadrangle inequality's pruning,
 * at the same ends in every build). */
void orq_coarse_levels(size_t *idx, unsigned k, const qz_sorted *s);

/* The band programme (the search's joint moves): the same optimum with
 * interior level l taken among the distinct values within w points of
 * idx[l]; writes it to nidx (k >= 3). */
void orq_band_levels(size_t *nidx, const size_t *idx, unsigned k, const qz_sorted *s, size_t w);

/* Expected squared error of unbiased stochastic rounding onto the levels:
 * sum over intervals of sum (c-x)(x-a). */
double orq_expected_error(const float *levels, unsigned k, const qz_sorted *s);

#endif
