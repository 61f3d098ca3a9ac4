/* BinGrad-b (Xu, Huo, Huang 2020): biased, deterministic binary quantizer with
 * minimum squared error. The optimum has a and b at the means of their cells
 * and the threshold at (a+b)/2; it is found exactly by scanning the d-1 split
 * points of the sorted bucket with prefix sums. Wire: two floats per bucket,
 * one bit per element (0 = a, 1 = b). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "bingrad.h"

/* The squared error of the split below point k is sum(x^2) - F(k), F(k) =
 * S_k^2 / k + (T - S_k)^2 / (n - k) (S_k the sum of the k smallest): the
 * best split maximises F. Scored eight splits at a time in vectors of doubles
 * (GCC left the scalar loop's divisions scalar: 40% of an encode), a split
 * between equal values scoring -inf (integer selects, which vectorise); the
 * first of equal maxima wins. */
typedef double scan_v __attribute__((vector_size(64)));
typedef int64_t scan_i __attribute__((vector_size(64)));
typedef float scan_f __attribute__((vector_size(32)));
typedef int32_t scan_fi __attribute__((vector_size(32)));
typedef double scan_v_unaligned __attribute__((vector_size(64), aligned(8), may_alias));
typedef float scan_f_unaligned __attribute__((vector_size(32), aligned(4), may_alias));
#define SCAN_LANES 8

void bingrad_b_fit(float *a, float *b, const qz_sorted *s)
{
    const size_t len = s->len;
    const double T = qz_sum1(s, 0, len), N = (double)len;
    size_t best_k = 0;
    double best = -INFINITY;
    size_t k0 = 1;
    if (len > SCAN_LANES) {
        /* each lane keeps its own first maximum; the lanes are merged at the end */
        scan_v lane_best, n;
        scan_i lane_k = {0};
        for (int t = 0; t < SCAN_LANES; t++) lane_best[t] = -INFINITY, n[t] = (double)(1 + t);
        for (; k0 + SCAN_LANES <= len; k0 += SCAN_LANES, n += SCAN_LANES) {
            const scan_f here = *(const scan_f_unaligned *)(const void *)(s->x + k0),
                         before = *(const scan_f_unaligned *)(const void *)(s->x + k0 - 1);
            const scan_i same = __builtin_convertvector((scan_fi)(here == before), scan_i); /* not a split */
            const scan_v sk = *(const scan_v_unaligned *)(const void *)(s->s1 + k0), rest = T - sk;
            const scan_v f = sk * sk / n + rest * rest / (N - n);
            const scan_i better = (f > lane_best) & ~same;
            lane_best = (scan_v)(((scan_i)f & better) | ((scan_i)lane_best & ~better));
            lane_k = (((scan_i){0, 1, 2, 3, 4, 5, 6, 7} + (int64_t)k0) & better) | (lane_k & ~better);
        }
        for (int t = 0; t < SCAN_LANES; t++)
            if (lane_best[t] > best || (lane_best[t] == best && (size_t)lane_k[t] < best_k))
                best = lane_best[t], best_k = (size_t)lane_k[t];
    }
    for (; k0 < len; k0++) {
        const double n = (double)k0, sk = s->s1[k0], rest = T - sk, f = sk * sk / n + rest * rest / (N - n);
        if (s->x[k0] != s->x[k0 - 1] && f > best) best = f, best_k = k0;
    }
    if (best_k == 0) { /* a single distinct value */
        *a = *b = s->x[0];
        return;
    }
    *a = (float)(qz_sum1(s, 0, best_k) / (double)best_k);
    *b = (float)(qz_sum1(s, best_k, len) / (double)(len - best_k));
}

double bingrad_b_error(float a, float b, const qz_sorted *s)
{
    float t = 0.5f * (a + b);
    size_t k = qz_lower_bound(s, t), len = s->len;
    /* sum (x-a)^2 over [0,k) + sum (x-b)^2 over [k,len) */
    return qz_sum2(s, 0, k) - 2.0 * a * qz_sum1(s, 0, k) + (double)a * a * (double)k + qz_sum2(s, k, len) -
           2.0 * b * qz_sum1(s, k, len) + (double)b * b * (double)(len - k);
}

/* ---- the same optimum without sorting the bucket --------------------------------------- */

/* F(n, S) = S^2/n + (T-S)^2/(N-n): the squared error of the split that puts n
 * elements summing to S below the threshold is sum(x^2) - F, so the best
 * split maximises F. An empty side contributes nothing. */
static double split_gain(double n, double s, double N, double T)
{
    double f = 0;
    if (n > 0) f += s * s / n;
    if (N - n > 0) f += (T - s) * (T - s) / (N - n);
    return f;
}

/* A leaf of at most BB_LEAF elements is sorted (6: the fastest of 4 to 32
 * at buckets of 128 and 512, docs/performance.md); BB_STEPS threshold steps
 * at most before the search proper; BB_NODES ranges pending at most. */
enum { BB_LEAF = 6, BB_STEPS = 40, BB_NODES = 96 };

typedef struct {
    double N, T;           /* the bucket's count and sum */
    double best;           /* the best F so far */
    double best_n, best_s; /* its split */
} bb_search;

/* Is F(n, S) > B? Without dividing where both sides hold elements (the
 * search asks this some twenty times a bucket, and a division costs as much
 * as a cut's pass over a few dozen elements). */
static int gain_exceeds(double n, double s, double N, double T, double B)
{
    if (n <= 0 || n >= N) return split_gain(n, s, N, T) > B;
    const double r = N - n, u = T - s;
    return s * s * r + u * u * n > B * n * r;
}

static void consider(bb_search *q, double n, double s)
{
    if (n <= 0 || n >= q->N) return; /* both sides must hold elements */
    if (q->best > -INFINITY && !gain_exceeds(n, s, q->N, q->T, q->best)) return;
    double f = split_gain(n, s, q->N, q->T);
    if (f > q->best) q->best = f, q->best_n = n, q->best_s = s;
}

/* Vectors of doubles as wide as the build's registers, loaded from floats:
 * the search's passes sum in doubles, as the sorted summary does. 512-bit
 * vectors lowered to SSE2 spill, so the width follows the target. Selects by
 * mask (C has no vector ?:); two masks are never combined, which SSE2 builds
 * do lane by lane. */
#if defined(__AVX512F__)
#define DW 8
#elif defined(__AVX__)
#define DW 4
#else
#define DW 2
#endif
typedef double dvec __attribute__((vector_size(8 * DW)));
typedef int64_t lvec __attribute__((vector_size(8 * DW)));
typedef float fvec_u __attribute__((vector_size(4 * DW), aligned(4), may_alias));
#define LOAD_D(p) __builtin_convertvector(*(const fvec_u *)(const void *)(p), dvec)
#define SELECT(mask, a, b) ((dvec)(((lvec)(a) & (mask)) | ((lvec)(b) & ~(mask))))

static dvec dvec_splat(double v)
{
    dvec r;
    for (int l = 0; l < DW; l++) r[l] = v;
    return r;
}

/* Sum, minimum and maximum of v[0..m) (m >= 1), two vectors at a time, each
 * its own chains (one chain of compare and select waited on the other). */
static double range_sum(const float *v, size_t m, float *mn, float *mx)
{
    dvec acc0 = dvec_splat(0), acc1 = dvec_splat(0), lo0 = dvec_splat(v[0]), hi0 = lo0, lo1 = lo0, hi1 = lo0;
    size_t i = 0;
    for (; i + 2 * DW <= m; i += 2 * DW) {
        const dvec x0 = LOAD_D(v + i), x1 = LOAD_D(v + i + DW);
        acc0 += x0, acc1 += x1;
        lo0 = SELECT(x0 < lo0, x0, lo0), hi0 = SELECT(x0 > hi0, x0, hi0);
        lo1 = SELECT(x1 < lo1, x1, lo1), hi1 = SELECT(x1 > hi1, x1, hi1);
    }
    lo0 = SELECT(lo1 < lo0, lo1, lo0), hi0 = SELECT(hi1 > hi0, hi1, hi0);
    double sum = 0, l0 = lo0[0], h0 = hi0[0];
    for (int l = 0; l < DW; l++) {
        sum += acc0[l] + acc1[l];
        l0 = lo0[l] < l0 ? lo0[l] : l0;
        h0 = hi0[l] > h0 ? hi0[l] : h0;
    }
    for (; i < m; i++) sum += v[i], l0 = v[i] < l0 ? v[i] : l0, h0 = v[i] > h0 ? v[i] : h0;
    *mn = (float)l0, *mx = (float)h0; /* floats widened and narrowed: exact */
    return sum;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Sorts buf[0..m) in place and evaluates every split between its values. */
static void sort_and_scan(bb_search *q, float *buf, size_t m, double n0, double s0)
{
    if (m <= BB_LEAF)
        for (size_t i = 1; i < m; i++) {
            float x = buf[i];
            size_t j = i;
            for (; j > 0 && buf[j - 1] > x; j--) buf[j] = buf[j - 1];
            buf[j] = x;
        }
    else
        qsort(buf, m, sizeof *buf, cmp_float);
    double n = n0, s = s0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0 && buf[i] != buf[i - 1]) consider(q, n, s);
        n += 1, s += buf[i];
    }
}

/* The elements of one value interval: buf[side][at .. at + m). */
typedef struct {
    size_t at, m;
    int side;      /* 0, 1: the halves of the work area; 2: the input */
    float mn, mx;  /* their least and greatest */
    double n0, s0; /* count and sum of the bucket's elements below them */
    double sum;
} bb_node;

/* Can a split strictly inside node d -- m elements in [mn, mx], a
 * contiguous range of the sorted bucket, with n0 elements summing to s0
 * below them, sum their own sum -- beat q->best? F is jointly convex in
 * (n, S), and every such split lies in the triangle (n0, s0), (n0+m, s0+sum)
 * and the corner where "the k smallest are at least mn" meets "the other m-k
 * are at most mx": F at those three points bounds it. */
static int may_beat(const bb_search *q, const bb_node *d)
{
    const double m = (double)d->m, n0 = d->n0, s0 = d->s0, sum = d->sum, mn = d->mn, mx = d->mx;
    if (d->m <= 1 || mn == mx) return 0; /* no split strictly inside */
    const double k = (m * mx - sum) / (mx - mn), B = q->best * (1 + 1e-12);
    return gain_exceeds(n0 + k, s0 + k * mn, q->N, q->T, B) || gain_exceeds(n0, s0, q->N, q->T, B) ||
           gain_exceeds(n0 + m, s0 + sum, q->N, q->T, B);
}

/* One cut of a node at p: its elements below p and the others, and what the
 * children need to know of them. */
typedef struct {
    size_t lo;          /* elements below p */
    double slo;         /* their sum */
    float lo_mx, hi_mn; /* the greatest below p, the least at or above it */
} bb_cut;

/* Moves the m elements of src below p to dst[0..lo) and the others to
 * dst[lo..m), each side in no particular order. */
static bb_cut partition(float *dst, const float *src, size_t m, float p)
{
    bb_cut c;
#if defined(__AVX512F__)
    /* each vector's two sides compressed in a register and stored under a
     * mask: the lows forward from dst, the highs backward from dst + m */
    const __m512 vp = _mm512_set1_ps(p);
    __m512 vmx = _mm512_set1_ps(-INFINITY), vmn = _mm512_set1_ps(INFINITY);
    __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
    float *lo = dst, *hi = dst + m;
    for (size_t i = 0; i < m; i += 16) {
        const __mmask16 live = m - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (m - i)) - 1);
        const __m512 v = _mm512_maskz_loadu_ps(live, src + i);
        const __mmask16 below = _mm512_mask_cmp_ps_mask(live, v, vp, _CMP_LT_OQ), above = live & ~below;
        const unsigned nb = (unsigned)__builtin_popcount(below), na = (unsigned)__builtin_popcount(above);
        _mm512_mask_storeu_ps(lo, (__mmask16)((1u << nb) - 1), _mm512_maskz_compress_ps(below, v));
        lo += nb, hi -= na;
        _mm512_mask_storeu_ps(hi, (__mmask16)((1u << na) - 1), _mm512_maskz_compress_ps(above, v));
        vmx = _mm512_mask_max_ps(vmx, below, vmx, v);
        vmn = _mm512_mask_min_ps(vmn, above, vmn, v);
        acc0 = _mm512_mask_add_pd(acc0, (__mmask8)below, acc0, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        acc1 = _mm512_mask_add_pd(acc1, (__mmask8)(below >> 8), acc1,
                                  _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    }
    c.lo = (size_t)(lo - dst);
    c.slo = _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
    c.lo_mx = _mm512_reduce_max_ps(vmx);
    c.hi_mn = _mm512_reduce_min_ps(vmn);
#else
    /* the sums and extremes in vectors (a scalar loop would wait on one chain
     * of additions), then the elements moved: each written to both ends, the
     * side it belongs to keeps it */
    const dvec pv = dvec_splat(p);
    const dvec ninf = dvec_splat(-INFINITY), pinf = dvec_splat(INFINITY);
    dvec acc0 = dvec_splat(0), acc1 = dvec_splat(0), lo_mx = ninf, hi_mn = pinf;
    size_t i = 0;
    for (; i + 2 * DW <= m; i += 2 * DW) {
        const dvec x0 = LOAD_D(src + i), x1 = LOAD_D(src + i + DW);
        const lvec b0 = x0 < pv, b1 = x1 < pv;
        acc0 += (dvec)((lvec)x0 & b0), acc1 += (dvec)((lvec)x1 & b1);
        /* no two masks combined: SSE2 builds would do that lane by lane */
        const dvec l0 = SELECT(b0, x0, ninf), h0 = SELECT(b0, pinf, x0), l1 = SELECT(b1, x1, ninf),
                   h1 = SELECT(b1, pinf, x1);
        lo_mx = SELECT(l0 > lo_mx, l0, lo_mx), hi_mn = SELECT(h0 < hi_mn, h0, hi_mn);
        lo_mx = SELECT(l1 > lo_mx, l1, lo_mx), hi_mn = SELECT(h1 < hi_mn, h1, hi_mn);
    }
    double slo = 0, lmx = -INFINITY, hmn = INFINITY;
    for (int l = 0; l < DW; l++) {
        slo += acc0[l] + acc1[l];
        lmx = lo_mx[l] > lmx ? lo_mx[l] : lmx;
        hmn = hi_mn[l] < hmn ? hi_mn[l] : hmn;
    }
    for (; i < m; i++) {
        const float x = src[i];
        if (x < p)
            slo += x, lmx = x > lmx ? x : lmx;
        else
            hmn = x < hmn ? x : hmn;
    }
    size_t lo = 0, hi = m;
    for (i = 0; i < m; i++) {
        const float x = src[i];
        dst[lo] = x, dst[hi - 1] = x;
        lo += (size_t)(x < p), hi -= (size_t) !(x < p);
    }
    c.lo = lo, c.slo = slo, c.lo_mx = (float)lmx, c.hi_mn = (float)hmn;
#endif
    return c;
}

/* A threshold strictly above mn and at most mx, so that both sides hold
 * elements: the middle of the values, or of their bit patterns where they
 * span more than four octaves of one sign (so that magnitudes spread over
 * many octaves are told apart in at most 32 cuts). */
static float middle(float mn, float mx)
{
    float p = 0.5f * mn + 0.5f * mx;
    if ((mn > 0 && mx > 16 * mn) || (mx < 0 && mn < 16 * mx)) {
        uint32_t u, v;
        float am = fabsf(mn), ax = fabsf(mx);
        memcpy(&u, mn > 0 ? &am : &ax, sizeof u); /* the smaller magnitude */
        memcpy(&v, mn > 0 ? &ax : &am, sizeof v);
        uint32_t mid = mn > 0 ? u + (v - u + 1) / 2 : u + (v - u) / 2;
        memcpy(&p, &mid, sizeof p);
        if (mx < 0) p = -p;
    }
    return p > mn && p <= mx ? p : mx;
}

/* Where node d is cut: on one side of the best split, at the geometric
 * middle of its distances from the best threshold tb (no nearer than 4% of
 * b - a), so that the bound, weakest near tb, meets ranges that shrink
 * toward it; elsewhere at its middle. */
static float pivot(const bb_search *q, const bb_node *d)
{
    const double bn = q->best_n, bs = q->best_s, a = bs / bn, b = (q->T - bs) / (q->N - bn), tb = 0.5 * (a + b),
                 near = 0.04 * (b - a);
    double lo = 0, hi = 0, sign = 0;
    if (d->n0 >= bn) /* above the best split */
        lo = qz_max(d->mn - tb, near), hi = d->mx - tb, sign = 1;
    else if (d->n0 + (double)d->m <= bn) /* below it */
        lo = qz_max(tb - d->mx, near), hi = tb - d->mn, sign = -1;
    if (hi > 2 * lo) {
        const float g = (float)(tb + sign * sqrt(lo * hi));
        if (g > d->mn && g <= d->mx) return g;
    }
    return middle(d->mn, d->mx);
}

/* Cuts node d at p (mn < p <= mx) into its two children, d's elements moved
 * to the other half of the work area; scores the split at p. */
static void cut(bb_search *q, float *const buf[3], const bb_node *d, float p, bb_node *below, bb_node *above)
{
    const int side = d->side == 0 ? 1 : 0;
    bb_cut c = partition(buf[side] + d->at, buf[d->side] + d->at, d->m, p);
    const bb_node parent = *d; /* below or above may be d itself */
    *below = (bb_node){parent.at, c.lo, side, parent.mn, c.lo_mx, parent.n0, parent.s0, c.slo};
    *above = (bb_node){parent.at + c.lo,  parent.m - c.lo,   side, c.hi_mn, parent.mx, parent.n0 + (double)c.lo,
                       parent.s0 + c.slo, parent.sum - c.slo};
    consider(q, above->n0, above->s0);
}

/* The search. Threshold steps toward a fixed point of t = (a+b)/2 (a, b the
 * cell means of the split at t: Lloyd's iteration, which never lowers F)
 * each cut the range holding the new threshold, so the ranges around the
 * fixed point -- a local optimum, usually the best split -- shrink as the
 * steps converge. Then every range is bounded (may_beat), and those that may
 * still hold a better split are cut again (pivot) until they are small
 * enough to sort. Each cut is one vector pass over the range's elements; no
 * element is sorted but in the leaves. */
gq_err bingrad_b_fit_unsorted(float *a, float *b, const float *x, size_t len, float *work)
{
    float mn, mx;
    double T = range_sum(x, len, &mn, &mx);
    if (!isfinite(T) || !isfinite(mn) || !isfinite(mx)) return GQ_ERR_NONFINITE;
    if (mn == mx) {
        *a = *b = mn;
        return GQ_OK;
    }
    float *const buf[3] = {work, work + len, (float *)(uintptr_t)x}; /* side 2, the input, is only read */
    bb_search q = {(double)len, T, -INFINITY, 0, 0};
    bb_node node[BB_NODES]; /* in value order during the steps, a stack after */
    size_t count = 1;
    node[0] = (bb_node){0, len, 2, mn, mx, 0, 0, T};
    /* the threshold steps: Lloyd's, then the secant through the last two
     * (overshooting a little, to bracket the fixed point), then the secant
     * inside the bracket; h(t) = (a+b)/2 - t > 0 where the fixed point is above */
    float t = (float)(T / (double)len);
    int have_lo = 0, have_hi = 0, have_prev = 0;
    double t_lo = 0, h_lo = 0, t_hi = 0, h_hi = 0, t_prev = 0, h_prev = 0;
    for (int step = 0; step < BB_STEPS && count < BB_NODES; step++) {
        size_t i = 0;
        while (i < count && !(node[i].mn < t && t <= node[i].mx)) i++;
        if (i == count) break; /* t splits where an earlier step did */
        memmove(&node[i + 2], &node[i + 1], (count - i - 1) * sizeof *node);
        cut(&q, buf, &node[i], t, &node[i], &node[i + 1]);
        count++;
        const double n = node[i + 1].n0, s = node[i + 1].s0, lloyd = 0.5 * (s / n + (T - s) / (q.N - n)), h = lloyd - t;
        if (node[i].mx < lloyd && lloyd <= node[i + 1].mn) break; /* (a+b)/2 splits where t does: a fixed point */
        if (h > 0)
            t_lo = t, h_lo = h, have_lo = 1;
        else
            t_hi = t, h_hi = h, have_hi = 1;
        double next = step == 0 ? t + 2.5 * h : lloyd; /* Lloyd's steps shrink by about 0.6 a step near a fixed point */
        if (have_lo && have_hi) {
            next = t_lo + h_lo * (t_hi - t_lo) / (h_lo - h_hi);
            if (!(next > qz_min(t_lo, t_hi) && next < qz_max(t_lo, t_hi))) next = 0.5 * (t_lo + t_hi);
        } else if (have_prev && h * h_prev > 0 && fabs(h) < fabs(h_prev))
            next = t - 1.25 * h * (t - t_prev) / (h - h_prev);
        t_prev = t, h_prev = h, have_prev = 1;
        t = (float)next;
    }
    while (count > 0) {
        bb_node d = node[--count];
        if (!may_beat(&q, &d)) continue;
        if (d.m <= BB_LEAF || count + 2 > BB_NODES) { /* sort in place; the input is copied first */
            float *v = buf[d.side == 2 ? 0 : d.side] + d.at;
            if (d.side == 2) memcpy(v, x + d.at, d.m * sizeof *v);
            sort_and_scan(&q, v, d.m, d.n0, d.s0);
            continue;
        }
        cut(&q, buf, &d, pivot(&q, &d), &node[count], &node[count + 1]);
        count += 2;
    }
    *a = (float)(q.best_s / q.best_n);
    *b = (float)((T - q.best_s) / (q.N - q.best_n));
    return GQ_OK;
}

/* ---- codec ------------------------------------------------------------------------ */

static unsigned bb_nstored(const qz_params *p) { return (void)p, 2; }
static unsigned bb_nlevels(const qz_params *p) { return (void)p, 2; }

/* The search without a sort (2.5 against 3.5 ns an element for sort and
 * scan at 512, AVX-512 build; docs/performance.md): the same optimum. */
/* The search's work area: two copies of a bucket. */
static size_t bb_workspace(size_t len) { return 2 * len * sizeof(float); }

static gq_err bb_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)p;
    if ((uint64_t)len > UINT32_MAX) return GQ_ERR_TOO_LARGE; /* the limit of the codecs that sort */
    return bingrad_b_fit_unsorted(&stored[0], &stored[1], x, len, (float *)work);
}

static void bb_quantize(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p,
                        uint32_t key, uint32_t idx0)
{
    (void)p, (void)key, (void)idx0;
    const float t = 0.5f * (stored[0] + stored[1]);
    for (size_t i = 0; i < len; i++) codes[i] = x[i] >= t;
}

static void bb_table(float *table, const float *stored, const qz_params *p)
{
    (void)p;
    table[0] = stored[0];
    table[1] = stored[1];
}

static const qz_dense BB = {.nstored = bb_nstored,
                            .nlevels = bb_nlevels,
                            .fit_workspace = bb_workspace,
                            .fit = bb_fit,
                            .quantize = bb_quantize,
                            .table = bb_table};

static void bb_defaults(qz_params *p) { p->bucket = 512; }

static int bb_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":bucket=%llu", (unsigned long long)p->bucket);
}
/* a bucket sort in shared memory */
static void bb_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    (void)p;
    enc[0] = 2, enc[1] = 16, dec[0] = 1, dec[1] = 4.125;
}

const qz_codec qz_bingrad_b = {
    .id = QZ_BINGRAD_B,
    .name = "bingrad-b",
    .biased = 1,
    .summary = "BinGrad-b: biased binary {a,b}, minimum squared error, 1 bit",
    .keys_help = "bucket=512",
    .keys = QZ_KEY_BUCKET,
    .defaults = bb_defaults,
    .level_count = bb_nlevels,
    .dense = &BB,
    .format_keys = bb_format,
    .gpu_traffic = bb_gpu_traffic,
};
