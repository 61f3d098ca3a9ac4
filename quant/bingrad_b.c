/* BinGrad-b (Xu, Huo, Huang 2020): biased, deterministic binary quantizer with
 * minimum squared error. The optimum has a and b at the means of their cells
 * and the threshold at (a+b)/2; it is found exactly by scanning the d-1 split
 * points of the sorted bucket with prefix sums. Wire: two floats per bucket,
 * one bit per element (0 = a, 1 = b). */
#include <math.h>
#include <stdlib.h>

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

enum { BB_GRID = 16, BB_LEAF = 24 }; /* bins per level; a sort below this many */

typedef struct {
    double N, T;           /* the bucket's count and sum */
    double best;           /* the best F so far */
    double best_n, best_s; /* its split */
} bb_search;

static void consider(bb_search *q, double n, double s)
{
    if (n <= 0 || n >= q->N) return; /* both sides must hold elements */
    double f = split_gain(n, s, q->N, q->T);
    if (f > q->best) q->best = f, q->best_n = n, q->best_s = s;
}

/* The elements v[0..m) are a contiguous range of the sorted bucket, with n0
 * elements summing to s0 below them. Finds the best split among their data
 * points, or proves that none beats q->best: F is jointly convex in (n, S),
 * and every split inside lies in the triangle (n0, s0), (n0+m, s0+sum v) and
 * the corner where "the k smallest are at least min v" meets "the other m-k
 * are at most max v" -- so F at those three points bounds it. Otherwise the
 * elements go into BB_GRID value bins (spare, as long as v, receives them),
 * the splits between bins are evaluated from the bins' counts and sums, and
 * each bin is searched the same way; at BB_LEAF elements or fewer, a sort. */
/* Sum, minimum and maximum of v[0..m), in 8 lanes so that it vectorises. */
static double range_sum(const float *v, size_t m, float *mn, float *mx)
{
    double acc[8] = {0};
    float lo[8], hi[8];
    for (int l = 0; l < 8; l++) lo[l] = hi[l] = v[0];
    size_t i = 0;
    for (; i + 8 <= m; i += 8)
        for (int l = 0; l < 8; l++) {
            float x = v[i + l];
            acc[l] += x;
            lo[l] = x < lo[l] ? x : lo[l];
            hi[l] = x > hi[l] ? x : hi[l];
        }
    for (; i < m; i++) acc[0] += v[i], lo[0] = v[i] < lo[0] ? v[i] : lo[0], hi[0] = v[i] > hi[0] ? v[i] : hi[0];
    double sum = 0;
    *mn = lo[0], *mx = hi[0];
    for (int l = 0; l < 8; l++) {
        sum += acc[l];
        *mn = lo[l] < *mn ? lo[l] : *mn;
        *mx = hi[l] > *mx ? hi[l] : *mx;
    }
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

/* Can a split strictly inside the value range [mn, mx] of m elements -- a
 * contiguous range of the sorted bucket, with n0 elements summing to s0 below
 * them, sum their own sum -- beat q->best? F is jointly convex in (n, S), and
 * every such split lies in the triangle (n0, s0), (n0+m, s0+sum) and the
 * corner where "the k smallest are at least mn" meets "the other m-k are at
 * most mx": F at those three points bounds it. */
static int may_beat(const bb_search *q, size_t m, double n0, double s0, double sum, float mn, float mx)
{
    if (m <= 1 || mn == mx) return 0; /* no split strictly inside */
    double k = ((double)m * mx - sum) / ((double)mx - mn);
    double bound = fmax(split_gain(n0 + k, s0 + k * mn, q->N, q->T),
                        fmax(split_gain(n0, s0, q->N, q->T), split_gain(n0 + (double)m, s0 + sum, q->N, q->T)));
    return bound > q->best * (1 + 1e-12);
}

/* The best split among the m elements of v[0..m) (as for may_beat), if one
 * can beat q->best: at BB_LEAF elements or fewer, sort and scan; else one pass
 * sums BB_GRID value bins (count, sum, min, max; no element moves), every
 * split between bins is evaluated, and only the bins that may still beat the
 * best are gathered (into spare, which holds room > m floats) and searched
 * the same way. */
static void search(bb_search *q, const float *v, size_t m, double n0, double s0, double sum, float mn, float mx,
                   float *spare, size_t room)
{
    if (!may_beat(q, m, n0, s0, sum, mn, mx)) return;
    if (m <= BB_LEAF) { /* sort a copy and scan every split; room >= m */
        memcpy(spare, v, m * sizeof *spare);
        sort_and_scan(q, spare, m, n0, s0);
        return;
    }
    /* bins by (x - mn) * G / (mx - mn): monotone in x, so each bin is a
     * contiguous value range, and mx goes to the last bin. Two interleaved
     * sets of bins, so that runs of one bin are two chains of updates. */
    const float inv = (float)(BB_GRID / ((double)mx - mn));
    if (!isfinite(inv)) return; /* a range below float's resolution */
    uint32_t cnt[2][BB_GRID] = {{0}};
    float lo[2][BB_GRID], hi[2][BB_GRID];
    double sm[2][BB_GRID] = {{0}};
    for (int h = 0; h < 2; h++)
        for (int b = 0; b < BB_GRID; b++) lo[h][b] = mx, hi[h][b] = mn;
    for (size_t i = 0; i < m; i++) {
        const float x = v[i], d = (x - mn) * inv;
        const int b = d >= BB_GRID ? BB_GRID - 1 : (int)d, h = (int)(i & 1);
        cnt[h][b]++;
        sm[h][b] += x;
        lo[h][b] = x < lo[h][b] ? x : lo[h][b];
        hi[h][b] = x > hi[h][b] ? x : hi[h][b];
    }
    double bn[BB_GRID + 1], bs[BB_GRID + 1];
    bn[0] = n0, bs[0] = s0;
    for (int b = 0; b < BB_GRID; b++) {
        if (cnt[0][b] + cnt[1][b]) consider(q, bn[b], bs[b]); /* the split below this bin's smallest element */
        bn[b + 1] = bn[b] + cnt[0][b] + cnt[1][b];
        bs[b + 1] = bs[b] + sm[0][b] + sm[1][b];
    }
    /* the bins that may still hold a better split, gathered in one pass into
     * their own regions of spare */
    size_t at[BB_GRID], start[BB_GRID], used = 0;
    int open = 0, want[BB_GRID];
    float bmn[BB_GRID], bmx[BB_GRID];
    for (int b = 0; b < BB_GRID; b++) {
        size_t c = cnt[0][b] + cnt[1][b];
        want[b] = 0;
        if (!c) continue;
        bmn[b] = lo[0][b] < lo[1][b] ? lo[0][b] : lo[1][b], bmx[b] = hi[0][b] > hi[1][b] ? hi[0][b] : hi[1][b];
        if (!may_beat(q, c, bn[b], bs[b], bs[b + 1] - bs[b], bmn[b], bmx[b])) continue; /* judged before gathering */
        want[b] = 1, open++;
        start[b] = at[b] = used, used += c;
    }
    if (!open) return;
    for (int b = 0; b < BB_GRID; b++) /* the others write to one slot past the gathered ones, and stay */
        if (!want[b]) at[b] = used;
    for (size_t i = 0; i < m; i++) { /* no branch: which bins are wanted is data, hard to predict */
        const float x = v[i], d = (x - mn) * inv;
        const int b = d >= BB_GRID ? BB_GRID - 1 : (int)d;
        spare[at[b]] = x;
        at[b] += (size_t)want[b];
    }
    for (int b = 0; b < BB_GRID; b++) {
        if (!want[b]) continue;
        size_t c = at[b] - start[b];
        float *mine = spare + start[b];
        if (room - used > c) /* the bin's own search has room for a copy and a spare slot */
            search(q, mine, c, bn[b], bs[b], bs[b + 1] - bs[b], bmn[b], bmx[b], spare + used, room - used);
        else /* deep in data whose bins keep most elements together: sort them instead */
            sort_and_scan(q, mine, c, bn[b], bs[b]);
    }
}

gq_err bingrad_b_fit_unsorted(float *a, float *b, const float *x, size_t len, float *work)
{
    float mn, mx;
    double T = range_sum(x, len, &mn, &mx);
    if (!isfinite(T) || !isfinite(mn) || !isfinite(mx)) return GQ_ERR_NONFINITE;
    if (mn == mx) {
        *a = *b = mn;
        return GQ_OK;
    }
    bb_search q = {(double)len, T, -INFINITY, 0, 0};
    search(&q, x, len, 0, 0, T, mn, mx, work, 2 * len); /* room > len: len >= 1 */
    *a = (float)(q.best_s / q.best_n);
    *b = (float)((T - q.best_s) / (q.N - q.best_n));
    return GQ_OK;
}

/* ---- codec ------------------------------------------------------------------------ */

static unsigned bb_nstored(const qz_params *p) { return (void)p, 2; }
static unsigned bb_nlevels(const qz_params *p) { return (void)p, 2; }

/* Where the bucket sorts fast (the vector network: 2.7 ns an element at 512),
 * the scan of every split on the sorted bucket is the cheaper exact search
 * (1.4 against 3.3 us a bucket of 512); elsewhere the branch and bound. */
static gq_err bb_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)p;                                                 /* work: qz_sorted_workspace(len) >= 2 * len floats */
    if ((uint64_t)len > UINT32_MAX) return GQ_ERR_TOO_LARGE; /* the bins count in 32 bits */
    if (qz_sort_is_fast(len)) {
        qz_sorted s;
        qz_sorted_build(&s, x, len, work);
        if (!isfinite(s.s2[len])) return GQ_ERR_NONFINITE;
        bingrad_b_fit(&stored[0], &stored[1], &s);
        return GQ_OK;
    }
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
                            .sorts = 1,
                            .fit = bb_fit,
                            .quantize = bb_quantize,
                            .table = bb_table};

static void bb_defaults(qz_params *p) { p->bucket = 512; }

const qz_codec qz_bingrad_b = {
    .id = QZ_BINGRAD_B,
    .name = "bingrad-b",
    .summary = "BinGrad-b: biased binary {a,b}, minimum squared error, 1 bit",
    .keys_help = "bucket=512",
    .keys = QZ_KEY_BUCKET,
    .defaults = bb_defaults,
    .level_count = bb_nlevels,
    .dense = &BB,
};
