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

/* Sorts the keys of x into keys (tmp: as many of scratch); returns keys or tmp, whichever holds them. */
static uint32_t *radix_sort(uint32_t *keys, uint32_t *tmp, const float *x, size_t len)
{
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
    return keys;
}

/* ---- small buckets: a bitonic sorting network in vector registers ------------------------- */
/* Buckets of up to SORT_NET_MAX elements (ORQ's and BinGrad's default is 512)
 * are sorted by a bitonic network on the keys, SORT_W lanes a vector, padded
 * with the largest key to a power of two: about 45 min/max steps over the
 * whole bucket for 512 elements, no scatter and no data-dependent branch,
 * where the radix sort's four scatter passes cost 7-9 ns an element
 * (docs/performance.md). The data live column-major in the vectors (element i
 * in lane i / nv of vector i % nv), so that the steps between elements fewer
 * than nv apart -- 35 of the 45 for 512 -- pair whole vectors without a
 * shuffle. Both sorts put the same keys in the same order; only AVX2 and
 * AVX-512 have the unsigned min/max that make the network pay, so other
 * builds keep the radix sort. */
#define SORT_NET_MAX 1024
#if defined(__AVX512F__)
#define SORT_W 16
#elif defined(__AVX2__)
#define SORT_W 8
#endif

#ifdef SORT_W
#include <immintrin.h>
typedef uint32_t sort_vec __attribute__((vector_size(4 * SORT_W)));

static inline sort_vec vec_min(sort_vec a, sort_vec b)
{
#if SORT_W == 16
    return (sort_vec)_mm512_min_epu32((__m512i)a, (__m512i)b);
#else
    return (sort_vec)_mm256_min_epu32((__m256i)a, (__m256i)b);
#endif
}
static inline sort_vec vec_max(sort_vec a, sort_vec b)
{
#if SORT_W == 16
    return (sort_vec)_mm512_max_epu32((__m512i)a, (__m512i)b);
#else
    return (sort_vec)_mm256_max_epu32((__m256i)a, (__m256i)b);
#endif
}

static inline sort_vec vec_select(sort_vec m, sort_vec a, sort_vec b) { return (a & m) | (b & ~m); }
/* lane l of the result is lane idx[l] of a (through the intrinsic: clang has no variable __builtin_shuffle) */
static inline sort_vec vec_permute(sort_vec a, sort_vec idx)
{
#if SORT_W == 16
    return (sort_vec)_mm512_permutexvar_epi32((__m512i)idx, (__m512i)a);
#else
    return (sort_vec)_mm256_permutevar8x32_epi32((__m256i)a, (__m256i)idx);
#endif
}

/* The network for nv vectors (a constant in each instantiation). Merge size
 * s, distance d: element i goes up (takes the min) when i's bit d is clear
 * and the run is ascending, i.e. bit s of i is clear or s is the whole. The
 * plain form: every step a pass over the vectors in memory. */
static inline __attribute__((always_inline)) void bitonic_sort(sort_vec *v, const unsigned nv)
{
    const unsigned n = nv * SORT_W;
    for (unsigned s = 2; s <= n; s <<= 1)
        for (unsigned d = s / 2; d > 0; d >>= 1) {
            if (d < nv && s < nv) { /* partners in other vectors, the direction by vector */
                for (unsigned blk = 0; blk < nv; blk += 2 * d)
                    for (unsigned a = blk; a < blk + d; a++) {
                        const sort_vec x = v[a], y = v[a + d], lo = vec_min(x, y), hi = vec_max(x, y);
                        v[a] = a & s ? hi : lo;
                        v[a + d] = a & s ? lo : hi;
                    }
            } else if (d < nv) { /* partners in other vectors, the direction by lane */
                sort_vec up;
                for (unsigned l = 0; l < SORT_W; l++) up[l] = s == n || !(l & (s / nv)) ? ~0u : 0u;
                for (unsigned blk = 0; blk < nv; blk += 2 * d)
                    for (unsigned a = blk; a < blk + d; a++) {
                        const sort_vec x = v[a], y = v[a + d], lo = vec_min(x, y), hi = vec_max(x, y);
                        v[a] = vec_select(up, lo, hi);
                        v[a + d] = vec_select(up, hi, lo);
                    }
            } else { /* partners in other lanes of the same vector */
                const unsigned ld = d / nv;
                sort_vec partner, take_min;
                for (unsigned l = 0; l < SORT_W; l++) {
                    const int low = !(l & ld), up = s == n || !(l & (s / nv));
                    partner[l] = l ^ ld;
                    take_min[l] = low == up ? ~0u : 0u;
                }
                for (unsigned a = 0; a < nv; a++) {
                    const sort_vec x = v[a], y = vec_permute(x, partner);
                    v[a] = vec_select(take_min, vec_min(x, y), vec_max(x, y));
                }
            }
        }
}

/* The same network with the steps grouped so that data stay in registers:
 * the steps between vectors fewer than SORT_BLK apart stay inside blocks of
 * SORT_BLK vectors (half the vector registers), which are loaded once for all
 * of a merge's such steps; the steps inside vectors are done vector by
 * vector, all of a merge's at once. Same comparisons in the same order for
 * each element pair, so the same output; for nv >= 2 * SORT_BLK. */
#define SORT_BLK (SORT_W == 16 ? 16 : 8)

/* Merges s <= SORT_BLK inside one block (the first, column-wise phase): the
 * direction is a bit of the vector's index. */
static inline __attribute__((always_inline)) void block_presort(sort_vec *v, unsigned base)
{
    sort_vec r[SORT_BLK];
#pragma GCC unroll 16
    for (unsigned k = 0; k < SORT_BLK; k++) r[k] = v[base + k];
#pragma GCC unroll 4
    for (unsigned s = 2; s <= SORT_BLK; s <<= 1)
#pragma GCC unroll 4
        for (unsigned d = s / 2; d > 0; d >>= 1)
#pragma GCC unroll 16
            for (unsigned a = 0; a < SORT_BLK; a++) {
                if (a & d) continue;
                const sort_vec lo = vec_min(r[a], r[a + d]), hi = vec_max(r[a], r[a + d]);
                const int down = ((base + a) & s) != 0;
                r[a] = down ? hi : lo;
                r[a + d] = down ? lo : hi;
            }
#pragma GCC unroll 16
    for (unsigned k = 0; k < SORT_BLK; k++) v[base + k] = r[k];
}

/* The steps d = SORT_BLK/2 .. 1 of one merge on one block; up: the lanes that go up. */
static inline __attribute__((always_inline)) void block_merge(sort_vec *v, unsigned base, sort_vec up)
{
    sort_vec r[SORT_BLK];
#pragma GCC unroll 16
    for (unsigned k = 0; k < SORT_BLK; k++) r[k] = v[base + k];
#pragma GCC unroll 4
    for (unsigned d = SORT_BLK / 2; d > 0; d >>= 1)
#pragma GCC unroll 16
        for (unsigned a = 0; a < SORT_BLK; a++) {
            if (a & d) continue;
            const sort_vec lo = vec_min(r[a], r[a + d]), hi = vec_max(r[a], r[a + d]);
            r[a] = vec_select(up, lo, hi);
            r[a + d] = vec_select(up, hi, lo);
        }
#pragma GCC unroll 16
    for (unsigned k = 0; k < SORT_BLK; k++) v[base + k] = r[k];
}

static inline __attribute__((always_inline)) void bitonic_sort_blocked(sort_vec *v, const unsigned nv)
{
    const unsigned n = nv * SORT_W;
    for (unsigned base = 0; base < nv; base += SORT_BLK) block_presort(v, base);
    for (unsigned s = 2 * SORT_BLK; s <= n; s <<= 1) {
        /* steps inside vectors (d >= nv), all of this merge's, vector by vector */
        if (s / 2 >= nv) {
            sort_vec partner[8], take_min[8];
            unsigned steps = 0;
            for (unsigned d = s / 2; d >= nv; d >>= 1, steps++)
                for (unsigned l = 0; l < SORT_W; l++) {
                    const unsigned ld = d / nv;
                    const int low = !(l & ld), up = s == n || !(l & (s / nv));
                    partner[steps][l] = l ^ ld;
                    take_min[steps][l] = low == up ? ~0u : 0u;
                }
            for (unsigned a = 0; a < nv; a++) {
                sort_vec x = v[a];
                for (unsigned t = 0; t < steps; t++) {
                    const sort_vec y = vec_permute(x, partner[t]);
                    x = vec_select(take_min[t], vec_min(x, y), vec_max(x, y));
                }
                v[a] = x;
            }
        }
        /* steps between vectors at least a block apart, in memory */
        const unsigned dtop = s / 2 < nv ? s / 2 : nv / 2;
        for (unsigned d = dtop; d >= SORT_BLK; d >>= 1) {
            sort_vec up;
            for (unsigned l = 0; l < SORT_W; l++) up[l] = s == n || !(l & (s / nv)) ? ~0u : 0u;
            for (unsigned blk = 0; blk < nv; blk += 2 * d)
                for (unsigned a = blk; a < blk + d; a++) {
                    const sort_vec x = v[a], y = v[a + d], lo = vec_min(x, y), hi = vec_max(x, y);
                    const sort_vec u = s < nv ? (a & s ? (sort_vec){0} : ~(sort_vec){0}) : up;
                    v[a] = vec_select(u, lo, hi);
                    v[a + d] = vec_select(u, hi, lo);
                }
        }
        /* steps inside blocks */
        for (unsigned base = 0; base < nv; base += SORT_BLK) {
            sort_vec up;
            for (unsigned l = 0; l < SORT_W; l++)
                up[l] = s < nv ? (base & s ? 0u : ~0u) : s == n || !(l & (s / nv)) ? ~0u : 0u;
            block_merge(v, base, up);
        }
    }
}

/* Sorts the keys of x[0..len) (len <= SORT_NET_MAX) into keys. */
static void network_sort(uint32_t *keys, const float *x, size_t len)
{
    sort_vec v[SORT_NET_MAX / SORT_W];
    uint32_t *k = (uint32_t *)(void *)v;
    unsigned nv = 1;
    while (nv * SORT_W < len) nv <<= 1;
    for (size_t i = 0; i < len; i++) k[i] = float_key(f32_bits(x[i])); /* any order: the network sorts it */
    for (size_t i = len; i < (size_t)nv * SORT_W; i++) k[i] = UINT32_MAX;
    switch (nv) {
    case 1: bitonic_sort(v, 1); break;
    case 2: bitonic_sort(v, 2); break;
    case 4: bitonic_sort(v, 4); break;
    case 8: bitonic_sort(v, 8); break;
#if SORT_BLK <= 8
    case 16: bitonic_sort_blocked(v, 16); break;
#else
    case 16: bitonic_sort(v, 16); break;
#endif
    case 32: bitonic_sort_blocked(v, 32); break;
    case 64: bitonic_sort_blocked(v, 64); break;
    default: bitonic_sort_blocked(v, SORT_NET_MAX / SORT_W); break;
    }
    for (unsigned a = 0; a < nv; a++) /* column-major back to ascending order; the padding is last */
        for (unsigned l = 0; l < SORT_W; l++) {
            const size_t i = (size_t)l * nv + a;
            if (i < len) keys[i] = v[a][l];
        }
}
#endif

/* s1[k], s2[k]: the sums of v[0..k) and of their squares, in double. One
 * running sum would make every add wait on the one before (four cycles an
 * element for the two of them); the elements go in segments of PREFIX_SEG,
 * PREFIX_LANES segments side by side each with its own running sums, and each
 * segment's sums are then offset by the total of the segments before it. The
 * order is fixed (the same bits in every build), not the sequential one. */
#define PREFIX_SEG 64
#define PREFIX_LANES 8
/* The running sums of lanes g0 .. g0+ng-1, in the order above. Inlined twice: for groups of whole lanes (ng and
 * whole constant: no test, so that the sums stay in registers -- with the test they lived on the stack, a store
 * and a load an element) and for the last, partial group. */
static inline __attribute__((always_inline)) void prefix_group(double *s1, double *s2, const float *v, size_t len,
                                                               size_t g0, size_t ng, int whole)
{
    double a1[PREFIX_LANES] = {0}, a2[PREFIX_LANES] = {0};
    for (size_t t = 0; t < PREFIX_SEG; t++)
        for (size_t g = 0; g < ng; g++) {
            const size_t i = (g0 + g) * PREFIX_SEG + t;
            if (!whole && i >= len) continue;
            a1[g] += v[i];
            a2[g] += (double)v[i] * v[i];
            s1[i + 1] = a1[g];
            s2[i + 1] = a2[g];
        }
}

static void prefix_sums(double *s1, double *s2, const float *v, size_t len)
{
    s1[0] = s2[0] = 0;
    const size_t segs = (len + PREFIX_SEG - 1) / PREFIX_SEG;
    for (size_t g0 = 0; g0 < segs; g0 += PREFIX_LANES) {
        if ((g0 + PREFIX_LANES) * PREFIX_SEG <= len)
            prefix_group(s1, s2, v, len, g0, PREFIX_LANES, 1);
        else
            prefix_group(s1, s2, v, len, g0, segs - g0, 0);
    }
    for (size_t g = 1; g < segs; g++) { /* the segments before g sum to s1[g * PREFIX_SEG], final by now */
        const size_t first = g * PREFIX_SEG, last = first + PREFIX_SEG < len ? first + PREFIX_SEG : len;
        const double o1 = s1[first], o2 = s2[first];
        for (size_t i = first + 1; i <= last; i++) s1[i] += o1, s2[i] += o2;
    }
}

void qz_sorted_build(qz_sorted *s, const float *x, size_t len, void *work)
{
    uint8_t *base = (uint8_t *)(((uintptr_t)work + 7) & ~(uintptr_t)7);
    double *cnt = (double *)base, *s1 = cnt + (len + 1), *s2 = s1 + (len + 1);
    uint32_t *keys = (uint32_t *)(s2 + (len + 1));
    uint32_t *tmp = (uint32_t *)((uint8_t *)keys + align8(len * sizeof(uint32_t)));
#ifdef SORT_W
    if (len <= SORT_NET_MAX)
        network_sort(keys, x, len);
    else
#endif
        keys = radix_sort(keys, tmp, x, len);
    float *sorted = (float *)keys; /* in place: the keys become their floats */
    for (size_t i = 0; i < len; i++) {
        sorted[i] = bits_f32(key_float(keys[i]));
        cnt[i + 1] = (double)(i + 1);
    }
    cnt[0] = 0;
    prefix_sums(s1, s2, sorted, len);
    s->x = sorted;
    s->n = cnt;
    s->s1 = s1;
    s->s2 = s2;
    s->len = len;
    s->edges = 0;
    s->distinct = 0; /* not looked at: elements may repeat */
}

/* The histogram: one pass for the range, one that bins each element and
 * accumulates count and sum per bin (at index bin + 1), then prefix sums. No
 * sums of squares: the level searches compare level sets over the same
 * elements, where they cancel (qz_sorted). */
static size_t hist_workspace(size_t bins)
{
    /* the prefix arrays, the edges, and the per-bin accumulators (two doubles, 16-byte aligned) */
    return 2 * (bins + 1) * sizeof(double) + align8((bins + 1) * sizeof(float)) + 2 * (bins + 1) * sizeof(double) + 16;
}

/* The prefix sums run in HIST_BLOCKS blocks of bins side by side, each block
 * then offset by the total of the blocks before it: one running sum would
 * make every add wait on the one before (a 256-bin histogram's two chains
 * took a fifth of its build). A fixed order, the same bits in every build;
 * the counts are whole numbers, exact in any order. */
#define HIST_BLOCKS 4
#define HIST_CHUNK 64
typedef double hist_sums __attribute__((vector_size(16))); /* count, sum */

static void hist_prefix(double *cnt, double *s1, const hist_sums *acc, size_t bins)
{
    const size_t blk = (bins + HIST_BLOCKS - 1) / HIST_BLOCKS;
    hist_sums run[HIST_BLOCKS] = {{0, 0}};
    cnt[0] = s1[0] = 0;
    for (size_t t = 1; t <= blk; t++)
        for (size_t g = 0; g < HIST_BLOCKS; g++) {
            const size_t b = g * blk + t;
            if (b > bins) break; /* only in the last rows of a short last block */
            run[g] += acc[b];
            cnt[b] = run[g][0], s1[b] = run[g][1];
        }
    for (size_t g = 1; g < HIST_BLOCKS && g * blk < bins; g++) { /* the blocks before g sum to [g * blk], final */
        const size_t first = g * blk, last = first + blk < bins ? first + blk : bins;
        const double o0 = cnt[first], o1 = s1[first];
        for (size_t b = first + 1; b <= last; b++) cnt[b] += o0, s1[b] += o1;
    }
}

int qz_hist_build(qz_sorted *s, const float *x, size_t len, size_t bins, void *work)
{
    uint8_t *base = (uint8_t *)(((uintptr_t)work + 7) & ~(uintptr_t)7);
    double *cnt = (double *)base, *s1 = cnt + (bins + 1);
    float *edge = (float *)(s1 + (bins + 1));
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
    /* one 16-byte add an element: count and sum of a bin side by side, not two read-modify-writes */
    hist_sums *acc = (hist_sums *)(((uintptr_t)(edge + bins + 1) + 15) & ~(uintptr_t)15);
    memset(acc, 0, (bins + 1) * sizeof *acc);
    /* the bins of HIST_CHUNK elements at a time in vectors, then their adds: a tenth less time than binning
     * each element before its add (Zen 5) */
    const int32_t top = (int32_t)bins - 1;
    for (size_t c0 = 0; c0 < len; c0 += HIST_CHUNK) {
        const size_t cn = len - c0 < HIST_CHUNK ? len - c0 : HIST_CHUNK;
        int32_t at[HIST_CHUNK];
        for (size_t i = 0; i < cn; i++) {
            const int32_t t = (int32_t)(((double)x[c0 + i] - lo) * scale); /* in [0, bins]: x lies in [lo, hi] */
            at[i] = (t < top ? t : top) + 1; /* the maximum, and rounding at the top edge, in the last bin */
        }
        for (size_t i = 0; i < cn; i++) acc[at[i]] += (hist_sums){1, x[c0 + i]};
    }
    hist_prefix(cnt, s1, acc, bins);
    const double step = span / (double)bins;
    for (size_t b = 0; b < bins; b++) edge[b] = (float)((double)lo + step * (double)b);
    edge[bins] = hi;
    int distinct = 1; /* a range of a few ulps rounds neighbouring edges to one float */
    for (size_t b = 0; b < bins; b++) distinct &= edge[b] < edge[b + 1];
    s->x = edge;
    s->n = cnt;
    s->s1 = s1;
    s->s2 = NULL;
    s->len = bins + 1;
    s->edges = 1;
    s->distinct = distinct;
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

typedef struct {
    const qz_sorted *s;
    double v;
} bound_probe;

static int at_least(const void *c, size_t k)
{
    const bound_probe *p = c;
    return p->s->x[k] >= p->v;
}

static int above(const void *c, size_t k)
{
    const bound_probe *p = c;
    return p->s->x[k] > p->v;
}

size_t qz_lower_bound_near(const qz_sorted *s, double v, size_t hint)
{
    const bound_probe c = {s, v};
    return qz_gallop_first(0, s->len, hint, at_least, &c);
}

size_t qz_upper_bound_near(const qz_sorted *s, double v, size_t hint)
{
    const bound_probe c = {s, v};
    return qz_gallop_first(0, s->len, hint, above, &c);
}

double qz_interval_cost(const qz_sorted *s, double a, double c)
{
    /* sum (c-x)(x-a) = -S2 + (a+c) S1 - a c N over a <= x <= c */
    size_t i = qz_lower_bound(s, a), j = qz_upper_bound(s, c);
    if (j <= i) return 0.0;
    double cost = -qz_sum2(s, i, j) + (a + c) * qz_sum1(s, i, j) - a * c * (double)(j - i);
    return cost > 0 ? cost : 0.0;
}
