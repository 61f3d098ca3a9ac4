/* Sorted buckets for ORQ and BinGrad: an LSD radix sort of the bucket (the
 * level searches want it sorted once, and a comparison sort would cost more
 * than the whole TernGrad encode), then prefix sums of x and x^2 in double so
 * any interval's count, sum and sum of squares are O(1). */
#include "qz_internal.h"

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

static size_t hist_workspace(size_t bins);

size_t qz_sorted_workspace(size_t len)
{
    size_t sorted = 3 * (len + 1) * sizeof(double) + align8(len * sizeof(uint32_t)) * 2;
    size_t hist = hist_workspace(len); /* any bins <= len */
    return (sorted > hist ? sorted : hist) + 16;
}

/* Order-preserving map of float bits to unsigned keys. */
static inline uint32_t float_key(uint32_t u) { return u ^ (uint32_t)(-(int32_t)(u >> 31) | 0x80000000u); }
static inline uint32_t key_float(uint32_t k) { return k ^ ((k >> 31) ? 0x80000000u : 0xFFFFFFFFu); }

/* LSD radix sort, 8 bits a pass. Runs of equal digits (the sign and
 * exponent byte of a bucket hardly varies) turn the counter increments into a
 * chain of dependent loads and stores; splitting the input into RADIX_PARTS
 * stripes with their own counters runs that many chains side by side, and
 * stripe order keeps the sort stable. */
#define RADIX_PARTS 4

void qz_sorted_build(qz_sorted *s, const float *x, size_t len, void *work)
{
    uint8_t *base = (uint8_t *)(((uintptr_t)work + 7) & ~(uintptr_t)7);
    double *cnt = (double *)base, *s1 = cnt + (len + 1), *s2 = s1 + (len + 1);
    uint32_t *keys = (uint32_t *)(s2 + (len + 1));
    uint32_t *tmp = (uint32_t *)((uint8_t *)keys + align8(len * sizeof(uint32_t)));
    uint32_t all[4][256], h[RADIX_PARTS][256]; /* counts fit: len < 2^32 */
    const size_t q = len / RADIX_PARTS, last = (size_t)(RADIX_PARTS - 1) * q;
    memset(all, 0, sizeof all);

    /* the high bytes hardly vary: odd and even elements count into their own copies, two chains instead of one */
    uint32_t odd[2][256];
    memset(odd, 0, sizeof odd);
    size_t i0 = 0;
    for (; i0 + 2 <= len; i0 += 2) {
        uint32_t k = float_key(f32_bits(x[i0])), l = float_key(f32_bits(x[i0 + 1]));
        keys[i0] = k, keys[i0 + 1] = l;
        all[0][k & 0xFF]++, all[0][l & 0xFF]++;
        all[1][(k >> 8) & 0xFF]++, all[1][(l >> 8) & 0xFF]++;
        all[2][(k >> 16) & 0xFF]++, odd[0][(l >> 16) & 0xFF]++;
        all[3][k >> 24]++, odd[1][l >> 24]++;
    }
    for (; i0 < len; i0++) {
        uint32_t k = float_key(f32_bits(x[i0]));
        keys[i0] = k;
        all[0][k & 0xFF]++, all[1][(k >> 8) & 0xFF]++, all[2][(k >> 16) & 0xFF]++, all[3][k >> 24]++;
    }
    for (int d = 0; d < 256; d++) all[2][d] += odd[0][d], all[3][d] += odd[1][d];
    for (int pass = 0; pass < 4; pass++) {
        const unsigned shift = 8u * (unsigned)pass;
        if (all[pass][(keys[0] >> shift) & 0xFF] == len) continue; /* every key shares this byte: a no-op */
        /* per-stripe counts of the current order; the last stripe is the remainder */
        memset(h, 0, sizeof h);
        for (size_t i = 0; i < q; i++)
            for (int p = 0; p < RADIX_PARTS - 1; p++) h[p][(keys[(size_t)p * q + i] >> shift) & 0xFF]++;
        for (int d = 0; d < 256; d++) {
            uint32_t others = 0;
            for (int p = 0; p < RADIX_PARTS - 1; p++) others += h[p][d];
            h[RADIX_PARTS - 1][d] = all[pass][d] - others;
        }
        /* each digit's start (one chain of 256), then each stripe's place in it (independent across digits) */
        uint32_t start[256], sum = 0;
        for (int d = 0; d < 256; d++) start[d] = sum, sum += all[pass][d];
        for (int p = 0; p < RADIX_PARTS; p++)
            for (int d = 0; d < 256; d++) {
                uint32_t c = h[p][d];
                h[p][d] = start[d];
                start[d] += c;
            }
        for (size_t i = 0; i < q; i++)
            for (int p = 0; p < RADIX_PARTS; p++) {
                uint32_t k = keys[(size_t)p * q + i];
                tmp[h[p][(k >> shift) & 0xFF]++] = k;
            }
        for (size_t i = last + q; i < len; i++) {
            uint32_t k = keys[i];
            tmp[h[RADIX_PARTS - 1][(k >> shift) & 0xFF]++] = k;
        }
        uint32_t *t = keys;
        keys = tmp;
        tmp = t;
    }
    float *sorted = (float *)keys; /* in place: the keys become their floats */
    double a1 = 0, a2 = 0;
    cnt[0] = s1[0] = s2[0] = 0;
    for (size_t i = 0; i < len; i++) {
        float v = bits_f32(key_float(keys[i]));
        sorted[i] = v;
        a1 += v;
        a2 += (double)v * v;
        cnt[i + 1] = (double)(i + 1);
        s1[i + 1] = a1;
        s2[i + 1] = a2;
    }
    s->x = sorted;
    s->n = cnt;
    s->s1 = s1;
    s->s2 = s2;
    s->len = len;
}

/* The histogram: one pass for the range, one that bins each element and
 * accumulates count, sum and sum of squares per bin (at index bin + 1), then
 * prefix sums in place with the running sums in registers. */
static size_t hist_workspace(size_t bins)
{
    /* the prefix arrays, the edges, and the per-bin accumulators (four doubles, 32-byte aligned) */
    return 3 * (bins + 1) * sizeof(double) + align8((bins + 1) * sizeof(float)) + 4 * (bins + 1) * sizeof(double) + 32;
}

int qz_hist_build(qz_sorted *s, const float *x, size_t len, size_t bins, void *work)
{
    uint8_t *base = (uint8_t *)(((uintptr_t)work + 7) & ~(uintptr_t)7);
    double *cnt = (double *)base, *s1 = cnt + (bins + 1), *s2 = s1 + (bins + 1);
    float *edge = (float *)(s2 + (bins + 1));
    /* min and max on order-preserving integer keys: float selects do not
     * vectorise under -ftrapping-math, integer ones do */
    uint32_t kmin = UINT32_MAX, kmax = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t k = float_key(f32_bits(x[i]));
        kmin = k < kmin ? k : kmin;
        kmax = k > kmax ? k : kmax;
    }
    const float lo = bits_f32(key_float(kmin)), hi = bits_f32(key_float(kmax));
    /* a NaN's key lies beyond the infinities', so any non-finite element is an extreme */
    if (!isfinite(lo) || !isfinite(hi)) return -1;
    const double span = (double)hi - (double)lo, scale = span > 0 ? (double)bins / span : 0;
    /* one 32-byte add a element: count, sum and sum of squares of a bin side by side, not three
     * read-modify-writes of three arrays (bench_sort on Zen 3: 4.5-4.7 -> 4.0-4.4 ns an element) */
    typedef double bin_sums __attribute__((vector_size(32)));
    bin_sums *acc = (bin_sums *)(((uintptr_t)(edge + bins + 1) + 31) & ~(uintptr_t)31);
    memset(acc, 0, (bins + 1) * sizeof *acc);
    for (size_t i = 0; i < len; i++) {
        double v = x[i];
        int64_t t = (int64_t)((v - lo) * scale);             /* signed: a one-instruction conversion */
        size_t b = t < (int64_t)bins ? (size_t)t : bins - 1; /* the maximum, and rounding at the top edge */
        acc[b + 1] += (bin_sums){1, v, v * v, 0};
    }
    double n = 0, a1 = 0, a2 = 0;
    cnt[0] = s1[0] = s2[0] = 0;
    for (size_t b = 1; b <= bins; b++) {
        n += acc[b][0], a1 += acc[b][1], a2 += acc[b][2];
        cnt[b] = n, s1[b] = a1, s2[b] = a2;
    }
    const double step = span / (double)bins;
    for (size_t b = 0; b < bins; b++) edge[b] = (float)((double)lo + step * (double)b);
    edge[bins] = hi;
    s->x = edge;
    s->n = cnt;
    s->s1 = s1;
    s->s2 = s2;
    s->len = bins + 1;
    return 0;
}

size_t qz_lower_bound(const qz_sorted *s, double v)
{
    size_t lo = 0, hi = s->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t qz_upper_bound(const qz_sorted *s, double v)
{
    size_t lo = 0, hi = s->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->x[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double qz_interval_cost(const qz_sorted *s, double a, double c)
{
    /* sum (c-x)(x-a) = -S2 + (a+c) S1 - a c N over a <= x <= c */
    size_t i = qz_lower_bound(s, a), j = qz_upper_bound(s, c);
    if (j <= i) return 0.0;
    double cost = -qz_sum2(s, i, j) + (a + c) * qz_sum1(s, i, j) - a * c * (double)(j - i);
    return cost > 0 ? cost : 0.0;
}
