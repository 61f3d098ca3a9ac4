/* ORQ-s (Xu, Huo, Huang 2020): unbiased stochastic rounding onto s levels
 * chosen per bucket to minimise the expected error sum (c-x)(x-a).
 *
 * Level search (docs/quantizers.md#orq): the bucket is summarised once
 * (qz_sorted) — sorted when short, so that levels live on data points (the
 * cost is piecewise linear between them), else as a histogram whose bin edges
 * are the candidate levels — and every interval cost is then O(1). Between
 * neighbours a < c the cost of an interior level l is convex with slope
 * D(l) = sum_{a<=x<=l}(x-a) - sum_{l<=x<=c}(c-x): the best l is where D
 * changes sign, the paper's optimality condition.
 *  1. Greedy (docs/papers.md §1): from {min, max}, insert the level that lowers the cost
 *     most, until s levels; coordinate passes re-place each interior level.
 *  2. With more than one interior level, coordinate passes stall in local
 *     optima (measured: up to 30% above the optimum on heavy-tailed buckets),
 *     so a second start is taken: the exact optimum over 64 candidate points
 *     (dynamic programming, eight or sixteen candidates at a time in vector registers,
 *     pruned by the quadrangle inequality), polished by exact joint moves of
 *     all levels within a band of candidate points. The cheaper of the two
 *     results wins; up to ORQ_DP_ONLY levels, and on a histogram's edges, the
 *     second start alone is taken (on edges: 32 or 64 evenly spread
 *     candidates, no coordinate passes, another band only where a level
 *     reached its band's edge).
 * `fit=hist` skips both: the exact optimum over the edges of a 48-bin
 * histogram, faster and further from the optimum (orq_levels_hist).
 * Wire: s floats per bucket, ceil(log2 s) bits per element. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __AVX__
#include <immintrin.h>
#endif

#include "orq.h"
#include "qz_round_avx512.h"
#include "rng.h"

double orq_expected_error(const float *levels, unsigned k, const qz_sorted *s)
{
    double e = 0;
    for (unsigned m = 0; m + 1 < k; m++) e += qz_interval_cost(s, levels[m], levels[m + 1]);
    return e;
}

/* The search works on indices of candidate points (qz_sorted: the sorted
 * elements, or histogram edges), so an interval's cost is O(1) with no
 * search. Cost of the elements in [x_i, x_j) rounded onto {x_i, x_j} (an
 * element on x_j would cost nothing, so leaving it out changes nothing),
 * plus their sum of squares: (a + c) S1 - a c N, without the -S2 of the
 * cost. Every comparison the search makes is between level sets over the
 * same elements (chains from the first point to the last, or an interval
 * against its two halves), where those squares are the same sum and cancel;
 * a histogram does not keep them. */
static double index_cost(const qz_sorted *s, size_t i, size_t j)
{
    double a = s->x[i], c = s->x[j];
    return (a + c) * qz_sum1(s, i, j) - a * c * qz_nelem(s, i, j);
}

static double levels_cost(const size_t *idx, unsigned k, const qz_sorted *s)
{
    double e = 0;
    for (unsigned m = 0; m + 1 < k; m++) e += index_cost(s, idx[m], idx[m + 1]);
    return e;
}

/* D(t) >= 0 for a level at candidate t between candidates i and j: what the
 * split searches probe (non-decreasing in t). */
typedef struct {
    const qz_sorted *s;
    size_t i, j;
    double a, c;
} split_probe;

static int slope_at_least_0(const void *ctx, size_t t)
{
    const split_probe *q = ctx;
    const double left = qz_sum1(q->s, q->i, t) - q->a * qz_nelem(q->s, q->i, t);
    const double right = q->c * qz_nelem(q->s, t, q->j) - qz_sum1(q->s, t, q->j);
    return left >= right;
}

/* The best level between candidate indices i < j, placed by the optimality
 * condition: the first t where D(t) = sum_{[x_i, x_t)}(x - x_i) -
 * sum_{[x_t, x_j)}(x_j - x) turns non-negative (D is non-decreasing), or a
 * neighbour of it, whichever costs least; searched outward from hint (a
 * refinement re-places a level near where it was: a few probes, not a
 * binary search's eight), the same t either way. Returns i when nothing
 * lies strictly inside. */
static size_t best_split(const qz_sorted *s, size_t i, size_t j, size_t hint, double *cost_out)
{
    if (j <= i + 1) {
        *cost_out = index_cost(s, i, j);
        return i;
    }
    const split_probe q = {s, i, j, s->x[i], s->x[j]};
    const size_t lo = qz_gallop_first(i + 1, j, hint, slope_at_least_0, &q);
    size_t best = i;
    double best_cost = INFINITY;
    for (size_t t = lo > i + 1 ? lo - 1 : lo; t <= lo + 1 && t < j; t++) {
        double cost = index_cost(s, i, t) + index_cost(s, t, j);
        if (cost < best_cost) best_cost = cost, best = t;
    }
    *cost_out = best_cost;
    return best;
}

/* Greedy insertion: from {min, max}, the level that lowers the cost most,
 * until k levels. Each interval's best split is kept, as an insertion
 * changes only the interval it splits (ORQ-9: 15 splits searched, not 35). */
static void score_interval(const qz_sorted *s, const size_t *idx, unsigned m, double *gain, size_t *split)
{
    double after;
    split[m] = best_split(s, idx[m], idx[m + 1], idx[m] + (idx[m + 1] - idx[m]) / 2, &after);
    gain[m] = index_cost(s, idx[m], idx[m + 1]) - after;
}

static void greedy(size_t *idx, unsigned k, const qz_sorted *s)
{
    double gain[QZ_ORQ_MAX_LEVELS]; /* of the best split of interval m, [idx[m], idx[m+1]] */
    size_t split[QZ_ORQ_MAX_LEVELS];
    idx[0] = 0;
    idx[1] = s->len - 1;
    if (k > 2) score_interval(s, idx, 0, gain, split);
    for (unsigned have = 2; have < k; have++) {
        double best_gain = -1;
        unsigned at = 0;
        size_t level = idx[0];
        for (unsigned m = 0; m + 1 < have; m++)
            if (gain[m] > best_gain) best_gain = gain[m], at = m, level = split[m];
        /* no interval can improve (few distinct values): the level duplicates idx[at] */
        memmove(idx + at + 2, idx + at + 1, (have - at - 1) * sizeof *idx);
        memmove(gain + at + 2, gain + at + 1, (have - at - 2) * sizeof *gain);
        memmove(split + at + 2, split + at + 1, (have - at - 2) * sizeof *split);
        idx[at + 1] = level;
        score_interval(s, idx, at, gain, split); /* the two halves of the interval just split */
        score_interval(s, idx, at + 1, gain, split);
    }
}

/* Coordinate passes: each interior level to its best place between its
 * neighbours, until none moves. A level whose neighbours have not moved
 * since it was last placed would stay: it is not searched again. */
static void refine(size_t *idx, unsigned k, const qz_sorted *s)
{
    unsigned char stale[QZ_ORQ_MAX_LEVELS];
    memset(stale, 1, sizeof stale);
    for (int pass = 0; pass < 16; pass++) {
        int moved = 0;
        for (unsigned m = 1; m + 1 < k; m++) {
            if (!stale[m]) continue;
            stale[m] = 0;
            double cost;
            size_t t = best_split(s, idx[m - 1], idx[m + 1], idx[m], &cost);
            if (t != idx[m] && cost < index_cost(s, idx[m - 1], idx[m]) + index_cost(s, idx[m], idx[m + 1])) {
                idx[m] = t;
                moved = 1;
                stale[m - 1] = stale[m + 1] = 1;
            }
        }
        if (!moved) break;
    }
}

/* ---- dynamic programming over candidate levels ----------------------------------- */
/* A chain of levels from the first point to the last costs, over its
 * intervals [a, c), sum (c-x)(x-a) = -S2 + (a+c) S1 - a c N. The S2 terms add
 * up to the bucket's sum of squares whatever the levels, so the search
 * minimises T(i,j) = (x_i + x_j)(P_j - P_i) - x_i x_j (N_j - N_i) (P, N the
 * prefix sums and counts at each candidate point). For a fixed end j,
 *   F(i) + T(i,j) = x_j P_j + [F(i) - x_i P_i] + x_i (P_j - x_j N_j) + (x_i N_i - P_i) x_j,
 * two products and three sums per predecessor i, in floats, for eight or sixteen ends j
 * at once. T has the quadrangle inequality (T(a,c) + T(b,d) <= T(a,d) +
 * T(b,c) for a <= b <= c <= d, as the SSE of 1-D k-means does), so a later
 * end's best predecessor is never earlier than an earlier end's, and the
 * predecessors before the best of the previous span of DP_PRUNE ends are
 * skipped (in floats the inequality can fail by a rounding: then the pruning
 * decides, in about one bucket in 8,000 with 16 levels, alike in every
 * build). Values are taken relative to the middle
 * of the bucket's range (the cost does not change under a shift), so that an
 * offset bucket does not lose the digits that tell candidates apart; the
 * chosen levels are compared in double precision (levels_cost) before they
 * are kept. */

#define ORQ_CANDIDATES 64 /* coarse candidates; buckets up to this size are solved exactly */
#ifndef ORQ_ROUNDS
#define ORQ_ROUNDS 3
#endif
#ifndef ORQ_BAND
#define ORQ_BAND 12 /* half-width of the band of joint moves around each level, in data points */
#endif
#ifndef ORQ_BAND_HIST
#define ORQ_BAND_HIST 6 /* the same in histogram edges (see orq_levels_bucket) */
#endif
/* Ends of a layer at a time: sixteen with AVX-512 (on Zen 5, whose vectors
 * are 512 bits whole, the programme takes a quarter less time than with
 * eight; on Zen 4 the same), eight otherwise. The same sums lane by lane. */
#ifndef DP_LANES
#if defined(__AVX512F__)
#define DP_LANES 16
#else
#define DP_LANES 8
#endif
#endif
#ifndef DP_PRUNE
#define DP_PRUNE 16 /* ends between updates of the pruning point: a multiple of DP_LANES */
#endif
_Static_assert(DP_PRUNE % DP_LANES == 0, "the pruning point moves at whole chunks");
#define DP_CAP ((ORQ_CANDIDATES + 2 * ORQ_BAND + 1 + DP_LANES - 1) / DP_LANES * DP_LANES)

typedef struct {
    size_t idx[DP_CAP]; /* sorted indices into the bucket */
    size_t n;
} cand_set;

typedef float dp_vec __attribute__((vector_size(DP_LANES * 4)));
typedef int32_t dp_ivec __attribute__((vector_size(DP_LANES * 4)));

static void dp_point(const qz_sorted *s, size_t i, double mid, float *x, float *p, float *n)
{
    *n = (float)s->n[i];
    *x = (float)(s->x[i] - mid);
    *p = (float)(s->s1[i] - mid * s->n[i]);
}

/* Lane by lane, c and its predecessor a where c is lower: strictly, so the
 * first of equal predecessors stays. The new best is a select on the compare
 * (x86's min), so the loop-carried chain is one instruction, not a compare
 * and a blend. */
static inline void keep_better(dp_vec c, int32_t a, dp_vec *best, dp_ivec *at)
{
    const dp_ivec better = c < *best;
#if defined(__AVX512F__) && DP_LANES == 16
    *best = (dp_vec)_mm512_min_ps((__m512)c, (__m512)*best);
#elif defined(__AVX__) && DP_LANES == 8
    *best = (dp_vec)_mm256_min_ps((__m256)c, (__m256)*best); /* c where c < best, else best */
#else
    *best = (dp_vec)(((dp_ivec)c & better) | ((dp_ivec)*best & ~better));
#endif
    *at = (a & better) | (*at & ~better);
}

/* Two chains (even and odd predecessors) merged: lane by lane the lower, the
 * earlier predecessor where they are equal, as one chain would have kept. */
static inline void merge_chains(dp_vec b1, dp_ivec a1, dp_vec *best, dp_ivec *at)
{
    const dp_ivec take = (b1 < *best) | ((b1 == *best) & (a1 < *at));
    *best = (dp_vec)(((dp_ivec)b1 & take) | ((dp_ivec)*best & ~take));
    *at = (a1 & take) | (*at & ~take);
}

/* A layer's candidate points as the programme reads them, padded to whole
 * vectors with the last point: x, alpha = P - x N, base = x P, the index. */
typedef struct {
    float x[DP_CAP], alpha[DP_CAP], base[DP_CAP];
    int32_t at[DP_CAP];
} dp_points;

static inline void dp_point_at(dp_points *q, size_t t, const qz_sorted *s, size_t i, double mid)
{
    float x, p, n;
    dp_point(s, i, mid, &x, &p, &n);
    q->x[t] = x, q->alpha[t] = p - x * n, q->base[t] = x * p, q->at[t] = (int32_t)i;
}

static void dp_points_of(dp_points *q, const cand_set *c, const qz_sorted *s, double mid)
{
    const size_t padded = (c->n + DP_LANES - 1) / DP_LANES * DP_LANES, i0 = c->idx[0];
    size_t t = 0;
    if (c->idx[c->n - 1] - i0 == c->n - 1) /* consecutive points (a band on distinct edges): loads that vectorise */
        for (; t < c->n; t++) dp_point_at(q, t, s, i0 + t, mid);
    for (; t < padded; t++) dp_point_at(q, t, s, c->idx[t < c->n ? t : c->n - 1], mid);
}

/* The best k levels with level l taken from layer[l] (layer[0] = {0} and
 * layer[k-1] = {d-1}); writes their indices. DP_LANES ends j of a layer at a
 * time, one lane each, against every predecessor i in turn. */
static void dp_select(size_t *idx, unsigned k, const qz_sorted *s, const cand_set *const *layer)
{
    const double mid = 0.5 * ((double)s->x[0] + s->x[s->len - 1]);
    float f[2][DP_CAP], pa[DP_CAP];
    int32_t from[QZ_ORQ_MAX_LEVELS][DP_CAP];
    dp_points pts[2]; /* layers l-1 and l; a layer the same as the one before is not computed again */
    const dp_points *qi = &pts[0];
    f[0][0] = 0;
    dp_points_of(&pts[0], layer[0], s, mid);
    for (unsigned l = 1; l < k; l++) {
        const cand_set *ci = layer[l - 1], *cj = layer[l];
        const dp_points *qj = qi;
        if (cj != ci) {
            dp_points *other = qi == &pts[0] ? &pts[1] : &pts[0];
            dp_points_of(other, cj, s, mid);
            qj = other;
        }
        const float *fi = f[(l - 1) & 1];
        float *fj = f[l & 1];
        const size_t ni = ci->n;
        /* predecessor i: F(i) - x_i P_i; with x_i and alpha_i, F(i) + T(i, j) - x_j P_j =
         * pa_i + x_i alpha_j - alpha_i x_j */
        for (size_t a = 0; a < ni; a++) pa[a] = fi[a] == INFINITY ? INFINITY : fi[a] - qi->base[a];
        const float *ux = qi->x, *ua = qi->alpha;
        size_t limit = 0; /* predecessors at or before the chunk's last end: a prefix of layer l-1 */
        size_t first = 0; /* T has the quadrangle inequality, so a later end's best predecessor is no earlier */
        for (size_t b0 = 0; b0 < cj->n; b0 += DP_LANES) {
            const size_t nb = cj->n - b0 < DP_LANES ? cj->n - b0 : DP_LANES;
            dp_vec alpha, xj, base, inf, best;
            dp_ivec jat, at = {0};
            memcpy(&alpha, qj->alpha + b0, sizeof alpha);
            memcpy(&xj, qj->x + b0, sizeof xj);
            memcpy(&base, qj->base + b0, sizeof base);
            memcpy(&jat, qj->at + b0, sizeof jat);
            for (int t = 0; t < DP_LANES; t++) inf[t] = INFINITY;
            best = inf;
            /* predecessors at or before every lane's j need no mask; the rest, before some lanes' only (a
             * layer of the same distinct candidates as the one before: counted, not scanned) */
            size_t all = limit;
            if (ci == cj) {
                all = b0 + 1, limit = b0 + nb;
            } else if (ci->idx[ni - 1] <= cj->idx[b0]) { /* the whole layer before (bands apart): no scan */
                all = limit = ni;
            } else {
                while (all < ni && ci->idx[all] <= cj->idx[b0]) all++;
                while (limit < ni && ci->idx[limit] <= cj->idx[b0 + nb - 1]) limit++;
            }
            /* two chains, as the compare's latency, not the arithmetic, bounds one */
            dp_vec best1 = inf;
            dp_ivec at1 = {0};
            size_t a = first;
            for (; a + 1 < all; a += 2) {
                keep_better(pa[a] + ux[a] * alpha - ua[a] * xj, (int32_t)a, &best, &at);
                keep_better(pa[a + 1] + ux[a + 1] * alpha - ua[a + 1] * xj, (int32_t)(a + 1), &best1, &at1);
            }
            if (a < all) keep_better(pa[a] + ux[a] * alpha - ua[a] * xj, (int32_t)a, &best, &at);
            merge_chains(best1, at1, &best, &at);
            for (a = all > first ? all : first; a < limit; a++) {
                const dp_ivec valid = (int32_t)ci->idx[a] <= jat; /* i at or before this lane's j */
                const dp_vec c = pa[a] + ux[a] * alpha - ua[a] * xj;
                keep_better((dp_vec)(((dp_ivec)c & valid) | ((dp_ivec)inf & ~valid)), (int32_t)a, &best, &at);
            }
            /* whole vectors (the arrays have room): an unreachable end stays +inf, as base is finite */
            const dp_vec fv = base + best;
            memcpy(fj + b0, &fv, sizeof fv);
            memcpy(&from[l][b0], &at, sizeof at);
            /* pruned at whole spans of DP_PRUNE ends whatever the lanes, so that every build considers the same
             * predecessors (float rounding can break the inequality by a hair: where it does, the pruning
             * decides, and it must decide alike) */
            if ((b0 + DP_LANES) % DP_PRUNE == 0 && best[nb - 1] != INFINITY) first = (size_t)at[nb - 1];
        }
        qi = qj;
    }
    size_t b = 0;
    for (unsigned l = k - 1; l > 0; l--) {
        idx[l] = layer[l]->idx[b];
        b = (size_t)from[l][b];
    }
    idx[0] = 0;
}

static void add_candidate(cand_set *c, size_t i) { c->idx[c->n++] = i; }

/* Keeps one index per distinct value of an ascending list of candidates. */
static void unique_values(cand_set *c, const qz_sorted *s)
{
    size_t m = 0;
    for (size_t t = 0; t < c->n; t++)
        if (m == 0 || s->x[c->idx[t]] != s->x[c->idx[m - 1]]) c->idx[m++] = c->idx[t];
    c->n = m;
}

static void end_layers(cand_set *ends, const cand_set **layer, unsigned k, size_t d)
{
    ends[0].n = ends[1].n = 1;
    ends[0].idx[0] = 0;
    ends[1].idx[0] = d - 1;
    layer[0] = &ends[0];
    layer[k - 1] = &ends[1];
}

/* The first index in [from, end) whose count reaches r, or end: a vector of
 * counts a compare, so that a scan of a few bins ends in one predictable
 * branch, not in a mispredicted exit a candidate. The same index as the
 * scalar loop's (`while (a[i] < r) i++`: it stops at the first value not
 * below r). */
static size_t first_count_at_least(const double *a, size_t from, size_t end, double r)
{
#if defined(__AVX512F__)
    const __m512d rv = _mm512_set1_pd(r);
    for (; from + 8 <= end; from += 8) {
        const __mmask8 m = _mm512_cmp_pd_mask(_mm512_loadu_pd(a + from), rv, _CMP_NLT_UQ);
        if (m) return from + (size_t)__builtin_ctz(m);
    }
#elif defined(__AVX__)
    const __m256d rv = _mm256_set1_pd(r);
    for (; from + 4 <= end; from += 4) {
        const int m = _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(a + from), rv, _CMP_NLT_UQ));
        if (m) return from + (size_t)__builtin_ctz((unsigned)m);
    }
#endif
    while (from < end && a[from] < r) from++;
    return from;
}

/* The same over ascending points (floats, compared as doubles, as
 * `s->x[i] < v` is). */
static size_t first_point_at_least(const float *x, size_t from, size_t end, double v)
{
#if defined(__AVX512F__)
    const __m512d vv = _mm512_set1_pd(v);
    for (; from + 8 <= end; from += 8) {
        const __m512d p = _mm512_cvtps_pd(_mm256_loadu_ps(x + from));
        const __mmask8 m = _mm512_cmp_pd_mask(p, vv, _CMP_NLT_UQ);
        if (m) return from + (size_t)__builtin_ctz(m);
    }
#elif defined(__AVX__)
    const __m256d vv = _mm256_set1_pd(v);
    for (; from + 4 <= end; from += 4) {
        const __m256d p = _mm256_cvtps_pd(_mm_loadu_ps(x + from));
        const int m = _mm256_movemask_pd(_mm256_cmp_pd(p, vv, _CMP_NLT_UQ));
        if (m) return from + (size_t)__builtin_ctz((unsigned)m);
    }
#endif
    while (from < end && x[from] < v) from++;
    return from;
}

/* Global start: the optimum over ORQ_CANDIDATES order statistics, half spaced
 * evenly in rank (where the mass is), half evenly in value (where heavy tails
 * put their cost); exact when the bucket has no more elements than that. Both
 * halves ascend, so one scan of the points finds them and a merge orders them.
 * A histogram's edges are already even in value, and no bin of one holds
 * much of the mass (a crowded bucket is sorted, orq_levels_bucket): there m
 * edges evenly spread, t (d - 1) / (m - 1) for t = 0..m-1, with no scan;
 * m = ORQ_CANDIDATES, or ORQ_EDGE_CANDIDATES_FEW up to ORQ_FEW_LEVELS levels,
 * as the programme's work grows with the candidates squared. Measured on 400
 * histogram buckets of 512 (Gaussian, Laplace, Student-t 3, uniform): the
 * levels' error over the exact optimum the same to five digits as with the
 * ranks' and values' candidates with 5 levels (32 edges; 24 were 0.001%
 * worse), within 0.00002 of it in each kind's aggregate with 9
 * (docs/quantizers.md#orq), for the scans' seventh of ORQ-5's encode. */
#define ORQ_FEW_LEVELS 5
#define ORQ_EDGE_CANDIDATES_FEW 32
static void coarse_candidates(cand_set *c, const qz_sorted *s, unsigned k)
{
    const size_t d = s->len;
    c->n = 0;
    if (d <= ORQ_CANDIDATES) {
        for (size_t i = 0; i < d; i++) add_candidate(c, i);
    } else if (s->edges) {
        const size_t m = k <= ORQ_FEW_LEVELS ? ORQ_EDGE_CANDIDATES_FEW : ORQ_CANDIDATES;
        const size_t step = (d - 1) / (m - 1), extra = (d - 1) % (m - 1);
        /* t (d - 1) / (m - 1) as a quotient and remainder carried along: no division a candidate */
        for (size_t t = 0, at = 0, rem = 0; t < m; t++) {
            add_candidate(c, at);
            at += step, rem += extra;
            if (rem >= m - 1) at++, rem -= m - 1;
        }
    } else {
        const size_t half = ORQ_CANDIDATES / 2;
        const double lo = s->x[0], span = (double)s->x[d - 1] - lo, total = s->n[d - 1];
        size_t by_rank[ORQ_CANDIDATES / 2], by_value[ORQ_CANDIDATES / 2], p = 0, q = 0;
        for (size_t t = 0; t < half; t++) {
            const double r = (double)t * total / (double)(half - 1), v = lo + span * (double)t / (double)(half - 1);
            p = first_count_at_least(s->n, p, d - 1, r); /* the first point with at least r elements before it */
            q = first_point_at_least(s->x, q, d, v);     /* the first point at or above v */
            by_rank[t] = p, by_value[t] = q < d ? q : d - 1;
        }
        for (size_t a = 0, b = 0; a < half || b < half;)
            add_candidate(c, b == half || (a < half && by_rank[a] <= by_value[b]) ? by_rank[a++] : by_value[b++]);
    }
    if (!s->distinct) unique_values(c, s);
}

size_t orq_coarse_candidates(size_t *idx, const qz_sorted *s, unsigned k)
{
    cand_set c;
    coarse_candidates(&c, s, k);
    memcpy(idx, c.idx, c.n * sizeof *idx);
    return c.n;
}

void orq_coarse_levels(size_t *idx, unsigned k, const qz_sorted *s)
{
    cand_set c, ends[2];
    const cand_set *layer[QZ_ORQ_MAX_LEVELS];
    coarse_candidates(&c, s, k);
    for (unsigned l = 1; l + 1 < k; l++) layer[l] = &c;
    end_layers(ends, layer, k, s->len);
    dp_select(idx, k, s, layer);
}

void orq_band_levels(size_t *nidx, const size_t *idx, unsigned k, const qz_sorted *s, size_t w)
{
    cand_set band[QZ_ORQ_MAX_LEVELS], ends[2];
    const cand_set *layer[QZ_ORQ_MAX_LEVELS];
    const size_t d = s->len;
    for (unsigned l = 1; l + 1 < k; l++) {
        size_t at = idx[l], lo = at > w ? at - w : 0, hi = at + w < d - 1 ? at + w : d - 1;
        band[l].n = 0;
        for (size_t i = lo; i <= hi; i++) add_candidate(&band[l], i);
        if (!s->distinct) unique_values(&band[l], s);
        layer[l] = &band[l];
    }
    end_layers(ends, layer, k, d);
    dp_select(nidx, k, s, layer);
}

/* Joint move of every interior level within +-w candidate points of where
 * it is (*cost: the levels' cost, updated): the exact optimum over that band. Unlike one-level moves it shifts
 * neighbouring levels together, which is where coordinate descent stalls on
 * this piecewise-linear cost. @return 0 if it did not lower the cost, 2 if
 * it did and some level went to its band's edge (the optimum may lie
 * beyond), else 1. */
static int band_dp(size_t *idx, double *cost, unsigned k, const qz_sorted *s, size_t w)
{
    size_t nidx[QZ_ORQ_MAX_LEVELS];
    orq_band_levels(nidx, idx, k, s, w);
    const double ncost = levels_cost(nidx, k, s);
    if (!(ncost < *cost * (1 - 1e-12))) return 0;
    *cost = ncost;
    int at_edge = 0;
    for (unsigned l = 1; l + 1 < k; l++) at_edge |= nidx[l] + w == idx[l] || nidx[l] == idx[l] + w;
    memcpy(idx, nidx, k * sizeof *idx);
    return at_edge ? 2 : 1;
}

/* Up to ORQ_DP_ONLY levels the DP start alone is kept: on 1151 buckets of
 * 512 (Gaussian, Laplace, Student-t 3 and 1.5, LeNet-5's gradients) the
 * greedy start beat it once with 5 levels, by 0.017%, and cost 17% of the
 * search; with 9 levels it won 27 times, by up to 5.4%, so it stays there,
 * on sorted buckets. On a histogram's edges (every level count up to
 * ORQ_HIST_LEVELS) the DP start alone: on 1588 histogram buckets of 512
 * (Gaussian, Laplace, Student-t 3 and 1.5, uniform) with 9 levels the greedy
 * start won 13 times, by at most 0.94%, and the levels' error over the exact
 * optimum on data points moved by at most 0.005% in aggregate and not at all
 * in the worst bucket (docs/quantizers.md#orq), for a fifth of ORQ-9's
 * encode. */
#define ORQ_DP_ONLY 5

static void levels_search(float *levels, unsigned k, const qz_sorted *s, size_t band)
{
    size_t idx[QZ_ORQ_MAX_LEVELS], alt[QZ_ORQ_MAX_LEVELS];
    const int dp_only = k > 3 && (s->edges || k <= ORQ_DP_ONLY);
    if (!dp_only) {
        greedy(idx, k, s);
        refine(idx, k, s);
    }
    if (k > 3) { /* with one interior level the greedy step is already the optimum */
        /* On edges no coordinate passes (the bands' joint moves include their single moves), and another
         * band only where one moved a level to its edge: a band whose levels all stay inside it is taken as
         * settled. Measured on 400 histogram buckets of 512 (Gaussian, Laplace, Student-t 3, uniform): the
         * levels' error over the exact optimum the same to five digits with 5 levels and within 0.00002 in
         * aggregate with 9, for a sixth (5 levels) and a fifth (9) of the search (docs/quantizers.md#orq). */
        const int edges = s->edges;
        orq_coarse_levels(alt, k, s);
        if (!edges) refine(alt, k, s);
        double cost = levels_cost(alt, k, s); /* of alt, carried from band to band */
        for (int round = 0, moved = 1; round < ORQ_ROUNDS && moved; round++) {
            const int r = band_dp(alt, &cost, k, s, band);
            moved = edges ? r == 2 : r != 0;
            if (r && !edges) refine(alt, k, s), cost = levels_cost(alt, k, s);
        }
        if (dp_only || cost < levels_cost(idx, k, s)) memcpy(idx, alt, sizeof alt);
    }
    for (unsigned m = 0; m < k; m++) levels[m] = s->x[idx[m]];
}

void orq_levels_greedy(float *levels, unsigned k, const qz_sorted *s) { levels_search(levels, k, s, ORQ_BAND); }

gq_err orq_levels_exact(float *levels, unsigned k, const qz_sorted *s)
{
    /* distinct sorted values are the only candidates */
    size_t d = 0, len = s->len;
    float *v = malloc(len * sizeof *v);
    double *f = malloc((size_t)k * len * sizeof *f);
    size_t *from = malloc((size_t)k * len * sizeof *from);
    gq_err err = GQ_OK;
    if (!v || !f || !from) {
        err = GQ_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < len; i++)
        if (d == 0 || s->x[i] != v[d - 1]) v[d++] = s->x[i];
    if (d <= k) { /* every value can be a level: zero error */
        for (unsigned m = 0; m < k; m++) levels[m] = v[m < d ? m : d - 1];
        goto done;
    }
    /* f[m][j]: least cost of covering v[0..j] with m+1 levels, the last at v[j] */
    for (size_t j = 0; j < d; j++) f[j] = j == 0 ? 0 : INFINITY;
    for (unsigned m = 1; m < k; m++)
        for (size_t j = 0; j < d; j++) {
            double best = INFINITY;
            size_t arg = 0;
            for (size_t i = 0; i < j; i++) {
                double c = f[(m - 1) * d + i] + qz_interval_cost(s, v[i], v[j]);
                if (c < best) best = c, arg = i;
            }
            f[m * d + j] = best;
            from[m * d + j] = arg;
        }
    size_t j = d - 1;
    for (unsigned m = k - 1; m > 0; m--) {
        levels[m] = v[j];
        j = from[m * d + j];
    }
    levels[0] = v[0];
done:
    free(v);
    free(f);
    free(from);
    return err;
}

/* ---- how far the fitted levels are from the optimum -------------------------------- */

gq_err qz_levels_excess(const qz_params *p, const float *x, size_t n, size_t max_buckets, double *ratio)
{
    const size_t bucket = p->bucket && p->bucket < n ? (size_t)p->bucket : n;
    if (p->id != QZ_ORQ || bucket == 0 || bucket > QZ_EXCESS_MAX_BUCKET || max_buckets == 0) return GQ_ERR_PARAM;
    const size_t whole = n / bucket, take = whole < max_buckets ? whole : max_buckets;
    void *work = malloc(qz_sorted_workspace(bucket)); /* the search's summary, then the sorted bucket's */
    gq_err err = work ? GQ_OK : GQ_ERR_NOMEM;
    double fitted = 0, best = 0;
    for (size_t t = 0; t < take && err == GQ_OK; t++) {
        const float *b = x + (whole - 1) * t / (take > 1 ? take - 1 : 1) * bucket; /* spread from first to last */
        float lf[QZ_ORQ_MAX_LEVELS], lo[QZ_ORQ_MAX_LEVELS];
        qz_sorted s;
        err = p->fit == QZ_FIT_HIST ? orq_levels_hist(lf, p->levels, b, bucket, work)
                                    : orq_levels_bucket(lf, p->levels, b, bucket, work);
        if (err == GQ_OK) {
            qz_sorted_build(&s, b, bucket, work);
            err = orq_levels_exact(lo, p->levels, &s);
        }
        if (err == GQ_OK)
            fitted += orq_expected_error(lf, p->levels, &s), best += orq_expected_error(lo, p->levels, &s);
    }
    free(work);
    if (err == GQ_OK) *ratio = best > 0 ? fitted / best : 1.0; /* no error to make: every value is a level */
    return err;
}

/* ---- codec ------------------------------------------------------------------------ */

static unsigned orq_nstored(const qz_params *p) { return p->levels; }
static unsigned orq_nlevels(const qz_params *p) { return p->levels; }

/* Buckets longer than ORQ_SORT_MAX, quantized to at most ORQ_HIST_LEVELS
 * levels, are summarised by a histogram of len / ORQ_HIST_RATIO bins (at most
 * ORQ_HIST_MAX) instead of being sorted: one streaming pass instead of four
 * radix passes, and levels restricted to bin edges cost within a fraction of
 * a percent more than levels on data points (tests/test_orq.c pins it against
 * the exact optimum). Measured limits: on 129-257 elements (64-128 bins) a
 * heavy-tailed bucket came out 5% above the optimum, and 16 levels 2.3%
 * above, so those sort. */
#define ORQ_SORT_MAX 511
#define ORQ_HIST_RATIO 2
#define ORQ_HIST_MAX 4096
#define ORQ_HIST_LEVELS 9
/* A histogram whose fullest bin holds more than len / ORQ_CROWD elements is
 * too coarse where the mass is: heavy tails stretch equal bins over the
 * outliers and leave the bulk in a bin or two, and a point mass (the exact
 * zeros of ReLU networks' gradients) needs a level on it, which bin edges do
 * not offer. Measured on 1151 buckets of 512 (Gaussian, Laplace, Student-t 3
 * and 1.5, LeNet-5's gradients): the histogram's levels were up to 3.2x
 * (ORQ-5) and 15x (ORQ-9) the optimum's error on such buckets, the sorted
 * search's within 0.3% and 6%; no Gaussian or Laplace bucket crossed the
 * threshold, 78% of LeNet-5's did (docs/quantizers.md#orq). */
#define ORQ_CROWD 16

static int hist_is_crowded(const qz_sorted *h, size_t len)
{
    const double limit = (double)len / ORQ_CROWD;
    int crowded = 0; /* no early exit and no fmax (a libm call): one compare a bin */
    for (size_t b = 0; b + 1 < h->len; b++) crowded |= h->n[b + 1] - h->n[b] > limit;
    return crowded;
}

gq_err orq_levels_bucket(float *levels, unsigned k, const float *x, size_t len, void *work)
{
    qz_sorted s;
    int sort = len <= ORQ_SORT_MAX || k > ORQ_HIST_LEVELS;
    if (!sort) {
        size_t bins = len / ORQ_HIST_RATIO;
        bins = bins > ORQ_HIST_MAX ? ORQ_HIST_MAX : bins;
        if (qz_hist_build(&s, x, len, bins, work) != 0) return GQ_ERR_NONFINITE;
        sort = hist_is_crowded(&s, len); /* the sorted summary takes the same workspace */
    }
    if (sort) {
        qz_sorted_build(&s, x, len, work);
        if (!isfinite(s.s2[len])) return GQ_ERR_NONFINITE;
    }
    /* on a histogram's edges a narrower band: measured on 750 buckets of 512 (five kinds of data, 5 and 9
     * levels) the levels' error over the optimum rose by at most 0.006% in aggregate and 0.04% in the
     * worst bucket, and the search is 9% (5 levels) and 19% (9) faster; on data points the wider band is
     * what keeps small sorted buckets within 2% of the optimum (tests/test_orq.c) */
    levels_search(levels, k, &s, sort ? ORQ_BAND : ORQ_BAND_HIST);
    return GQ_OK;
}

/* fit=hist: the levels the exact optimum would take if every element sat on
 * the edges of a histogram of ORQ_FIT_HIST_BINS equal bins: one streaming
 * pass and a dynamic programme over its edges, no sort, no refinement. Its
 * excess error over the optimum is measured (`quant bench`'s
 * levels_err_vs_opt column, docs/quantizers.md#orq-fithist). */
#ifndef ORQ_FIT_HIST_BINS
#define ORQ_FIT_HIST_BINS 48
#endif
_Static_assert(ORQ_FIT_HIST_BINS + 1 <= ORQ_CANDIDATES, "every edge a candidate of the exact programme");

gq_err orq_levels_hist(float *levels, unsigned k, const float *x, size_t len, void *work)
{
    qz_sorted s;
    size_t idx[QZ_ORQ_MAX_LEVELS];
    if (len <= ORQ_FIT_HIST_BINS) { /* no fewer points than the bins: sorted, and solved exactly */
        qz_sorted_build(&s, x, len, work);
        if (!isfinite(s.s2[len])) return GQ_ERR_NONFINITE;
    } else if (qz_hist_build(&s, x, len, ORQ_FIT_HIST_BINS, work) != 0) {
        return GQ_ERR_NONFINITE;
    }
    orq_coarse_levels(idx, k, &s); /* no more points than candidates: the exact optimum over them */
    for (unsigned m = 0; m < k; m++) levels[m] = s.x[idx[m]];
    return GQ_OK;
}

static gq_err orq_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    if ((uint64_t)len > UINT32_MAX) return GQ_ERR_TOO_LARGE; /* the radix sort counts in 32 bits */
    if (p->fit == QZ_FIT_HIST) return orq_levels_hist(stored, p->levels, x, len, work);
    return orq_levels_bucket(stored, p->levels, x, len, work);
}

/* In chunks, level by level, so that every loop vectorises: each element's
 * interval, its lower level and the interval's 1/width by comparisons and
 * integer selects (a table lookup by interval would be a gather, which GCC
 * does not emit for AMD Zen 1-3 and so left the loop scalar), then the
 * rounding. */
#define ORQ_CHUNK 256
static void orq_quantize_chunks(uint8_t *codes, const float *x, size_t len, const float *lv, const float *inv,
                                unsigned k, uint32_t key, uint32_t idx0)
{
    uint32_t lv_bits[QZ_ORQ_MAX_LEVELS], inv_bits[QZ_ORQ_MAX_LEVELS];
    memcpy(lv_bits, lv, k * sizeof *lv);
    memcpy(inv_bits, inv, k * sizeof *inv);
    int32_t interval[ORQ_CHUNK];
    uint32_t low[ORQ_CHUNK], scale[ORQ_CHUNK]; /* float bits of lv[interval] and inv[interval] */
    for (size_t c0 = 0; c0 < len; c0 += ORQ_CHUNK) {
        const size_t cn = len - c0 < ORQ_CHUNK ? len - c0 : ORQ_CHUNK;
        const float *xc = x + c0;
        for (size_t i = 0; i < cn; i++) interval[i] = 0, low[i] = lv_bits[0], scale[i] = inv_bits[0];
        for (unsigned t = 1; t + 1 < k; t++) {
            const float level = lv[t];
            const uint32_t lt = lv_bits[t], st = inv_bits[t];
            for (size_t i = 0; i < cn; i++) {
                const uint32_t above = xc[i] >= level, mask = 0u - above;
                interval[i] += (int32_t)above;
                low[i] = (low[i] & ~mask) | (lt & mask);
                scale[i] = (scale[i] & ~mask) | (st & mask);
            }
        }
        uint32_t j = idx0 + (uint32_t)c0; /* 32-bit hash index beside i */
        for (size_t i = 0; i < cn; i++, j++) {
            float lo, sc;
            memcpy(&lo, &low[i], 4);
            memcpy(&sc, &scale[i], 4);
            float prob = (xc[i] - lo) * sc;
            float u = rng_uniform24(rng_hash32(key, j));
            codes[c0 + i] = (uint8_t)(interval[i] + (u < prob));
        }
    }
}

#if defined(__AVX512F__)
/* Sixteen elements' codes with AVX-512, whose permute is a sixteen-entry
 * table lookup in a register: k.f the levels and k.i0 the widths' inverses
 * (at most sixteen each), k.table the k.count levels. The same compares, the
 * same float sub and mul and the same draw as the chunks' loops, so the same
 * codes (tests/test_rounding.c checks every element against the rule). The
 * chunks took a seventh of ORQ-5's encode on Zen 5. */
static inline __attribute__((always_inline)) __m512i orq_codes16(const float *x, __m512i hv, qz_lanes16_k k)
{
    const __m512 v = _mm512_loadu_ps(x);
    const __m512i one = _mm512_set1_epi32(1);
    __m512i interval = _mm512_setzero_si512();
    for (unsigned t = 1; t + 1 < k.count; t++) /* x >= level t, false for a NaN as the chunks' compare */
        interval = _mm512_mask_add_epi32(interval, _mm512_cmp_ps_mask(v, _mm512_set1_ps(k.table[t]), _CMP_GE_OQ),
                                         interval, one);
    const __m512 lo = _mm512_permutexvar_ps(interval, k.f),
                 sc = _mm512_permutexvar_ps(interval, _mm512_castsi512_ps(k.i0));
    const __m512 prob = _mm512_mul_ps(_mm512_sub_ps(v, lo), sc),
                 u = _mm512_mul_ps(qz_hash16_u24(hv), _mm512_set1_ps(1.0f / 16777216.0f));
    return _mm512_mask_add_epi32(interval, _mm512_cmp_ps_mask(u, prob, _CMP_LT_OQ), interval, one);
}
#endif

static void orq_quantize(uint8_t *codes, const float *x, size_t len, const float *lv, const qz_params *p, uint32_t key,
                         uint32_t idx0)
{
    const unsigned k = p->levels;
    float inv[QZ_ORQ_MAX_LEVELS];
    for (unsigned m = 0; m + 1 < k; m++) inv[m] = qz_safe_inv(lv[m + 1] - lv[m]);
    inv[k - 1] = 0; /* never used: x <= max puts every element below the last level */
    size_t done = 0;
#if defined(__AVX512F__)
    float lt[16] = {0}, it[16] = {0};
    memcpy(lt, lv, k * sizeof *lv);
    memcpy(it, inv, k * sizeof *inv);
    const qz_lanes16_k c = {
        .f = _mm512_loadu_ps(lt), .i0 = _mm512_castps_si512(_mm512_loadu_ps(it)), .table = lv, .count = k};
    done = qz_round_lanes16(codes, x, len, key, idx0, orq_codes16, c);
#endif
    if (done < len) orq_quantize_chunks(codes + done, x + done, len - done, lv, inv, k, key, idx0 + (uint32_t)done);
}

static void orq_table(float *table, const float *stored, const qz_params *p)
{
    memcpy(table, stored, p->levels * sizeof *table);
}

/* Levels from an untrusted buffer must ascend (the quantizer relies on it). */
static int orq_check(const float *lv, const qz_params *p)
{
    for (unsigned m = 0; m + 1 < p->levels; m++)
        if (!(lv[m] <= lv[m + 1])) return -1;
    return 0;
}

static const qz_dense ORQ = {.nstored = orq_nstored,
                             .nlevels = orq_nlevels,
                             .fit_workspace = qz_sorted_workspace,
                             .fit = orq_fit,
                             .quantize = orq_quantize,
                             .table = orq_table,
                             .check = orq_check};

static void orq_defaults(qz_params *p)
{
    p->levels = 5;
    p->bucket = 512;
}

static int orq_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":levels=%u,bucket=%llu%s", p->levels, (unsigned long long)p->bucket,
                    p->fit == QZ_FIT_HIST ? ",fit=hist" : "");
}
static int orq_check_params(const qz_params *p, char *why, size_t cap)
{
    if (p->levels < 2 || p->levels > QZ_ORQ_MAX_LEVELS)
        return snprintf(why, cap, "levels=%u must be from 2 to %u", p->levels, QZ_ORQ_MAX_LEVELS), -1;
    return 0;
}
/* sort, level search, rounding */
static void orq_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    (void)p;
    enc[0] = 3, enc[1] = 24, dec[0] = 1, dec[1] = 4.5;
}

const qz_codec qz_orq = {
    .id = QZ_ORQ,
    .name = "orq",
    .summary = "ORQ: unbiased rounding onto per-bucket optimal levels (greedy + refinement)",
    .keys_help = "levels=5 (2..16) bucket=512 fit=exact|hist",
    .keys = QZ_KEY_LEVELS | QZ_KEY_BUCKET | QZ_KEY_FIT,
    .defaults = orq_defaults,
    .level_count = orq_nlevels,
    .dense = &ORQ,
    .format_keys = orq_format,
    .check = orq_check_params,
    .gpu_traffic = orq_gpu_traffic,
};
