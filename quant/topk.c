/* Top-k sparsification: keep the k = ceil(ratio*n) elements of largest |g|
 * (ties broken by lower index), send their indices and values. Biased: pair
 * it with error feedback in the trainer. Wire (docs/wire-format.md#topk): u64
 * k, then k ascending indices (index=auto: u32 when n <= 2^32, else u64;
 * index=32 or 64: that width), then k floats. */
#include <math.h>
#include <stdio.h>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "qz_internal.h"

size_t qz_topk_k(const qz_params *p, size_t n);
size_t qz_topk_k(const qz_params *p, size_t n)
{
    double k = ceil((double)p->ratio * (double)n);
    if (k < 1) k = 1;
    return k >= (double)n ? n : (size_t)k;
}

/* index=auto: u32 where every index fits, else u64; index=32|64: always that width (PyTorch-based libraries send
 * int64). 0: index=32 cannot address n elements. */
static unsigned index_bytes(const qz_params *p, size_t n)
{
    const int fits = (uint64_t)n <= 0x100000000ull;
    return p->index == QZ_INDEX_64 ? 8u : p->index == QZ_INDEX_32 ? (fits ? 4u : 0u) : fits ? 4u : 8u;
}

static size_t tk_payload(const qz_params *p, size_t n)
{
    size_t k = qz_topk_k(p, n), r;
    if (index_bytes(p, n) == 0 || qz_mul_ovf(k, index_bytes(p, n) + 4, &r) || qz_add_ovf(r, 8, &r))
        return gq_error_result(GQ_ERR_TOO_LARGE);
    return r;
}

static size_t tk_workspace(const qz_params *p, size_t n)
{
    (void)p;
    return n * sizeof(float);
}

/* Moves the value of rank k (0-based, descending) to a[k]; Hoare partition
 * with a median-of-three pivot. */
static float select_desc(float *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        float x = a[lo], y = a[mid], z = a[hi];
        float pivot = (x < y) ? ((y < z) ? y : (x < z ? z : x)) : ((x < z) ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

/* Writes the k elements of largest |g| in index order, given the k-th largest
 * magnitude thr: every element above it, then as many equal to it as there
 * are places left, lowest index first. The elements looked at are
 * src[cand[0..nc)] (ascending indices), or with cand NULL all of src[0..nc). */
static void tk_emit(uint8_t *dst, size_t k, unsigned iw, const float *src, const size_t *cand, size_t nc, float thr)
{
    size_t above = 0;
    for (size_t c = 0; c < nc; c++) above += fabsf(src[cand ? cand[c] : c]) > thr;
    size_t ties = k - above, t = 0;
    uint8_t *idx = dst + 8, *val = dst + 8 + k * iw;
    store_u64(dst, k);
    for (size_t c = 0; c < nc && t < k; c++) {
        size_t i = cand ? cand[c] : c;
        float m = fabsf(src[i]);
        if (m > thr || (m == thr && ties > 0)) {
            if (m == thr) ties--;
            if (iw == 4)
                store_u32(idx + 4 * t, (uint32_t)i);
            else
                store_u64(idx + 8 * t, i);
            store_f32(val + 4 * t, src[i]);
            t++;
        }
    }
}

/* The exact selection on the whole array: the reference, and the fallback. */
static size_t tk_encode_full(uint8_t *dst, const float *src, size_t n, size_t k, unsigned iw, float *mag)
{
    for (size_t i = 0; i < n; i++) mag[i] = fabsf(src[i]);
    const float thr = select_desc(mag, n, k - 1);
    tk_emit(dst, k, iw, src, NULL, n, thr);
    return 8 + k * (iw + 4);
}

enum { TK_SAMPLE = 16384, TK_BLOCK = 16 };

/* A threshold from an evenly spaced sample, set low enough that the elements
 * at or above it almost surely include the k largest; one pass collects them
 * (a vectorised "any above?" test per 16 elements skips most of the array),
 * and the exact selection runs on the candidates only. The result is exactly
 * tk_encode_full's: if the candidates are fewer than k (an unlucky sample) or
 * do not fit the workspace, the full selection runs instead. */
static size_t tk_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                        void *work)
{
    (void)cap, (void)seed;
    const size_t k = qz_topk_k(p, n);
    float *mag = (float *)work;
    if (n < 8 * TK_SAMPLE || k > n / 16) {
        if (!qz_all_finite(src, n)) return gq_error_result(GQ_ERR_NONFINITE);
        return tk_encode_full(dst, src, n, k, index_bytes(p, n), mag);
    }
    const size_t stride = n / TK_SAMPLE;
    for (size_t s = 0; s < TK_SAMPLE; s++) mag[s] = fabsf(src[s * stride]);
    const double expect = (double)k * TK_SAMPLE / (double)n; /* the k-th largest's rank in the sample */
    size_t rank = (size_t)(1.25 * expect + 4.0 * sqrt(expect) + 8.0);
    if (rank >= TK_SAMPLE) rank = TK_SAMPLE - 1;
    uint32_t lo_bits = f32_bits(select_desc(mag, TK_SAMPLE, rank));

    /* candidates' indices in the workspace, as many as fit with their magnitudes after them */
    size_t *cand = (size_t *)work, room = n * sizeof(float) / (sizeof(size_t) + sizeof(float)), nc = 0;
    uint32_t nonfinite = 0;
    size_t i = 0;
#ifdef __AVX512F__
    /* 16 compares and a compress of the indices that pass, no branch */
    if (n <= UINT32_MAX) {
        uint32_t *cand32 = (uint32_t *)work;
        const size_t room32 = n - TK_BLOCK; /* 32-bit indices: the workspace holds n */
        const __m512i absmask = _mm512_set1_epi32(0x7FFFFFFF), lo = _mm512_set1_epi32((int)lo_bits),
                      inf = _mm512_set1_epi32(0x7F800000), step = _mm512_set1_epi32(TK_BLOCK);
        __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        __mmask16 bad = 0;
        for (; i + TK_BLOCK <= n && nc <= room32; i += TK_BLOCK) {
            __m512i b = _mm512_and_si512(_mm512_loadu_si512((const void *)(src + i)), absmask);
            bad |= _mm512_cmpge_epu32_mask(b, inf);
            __mmask16 m = _mm512_cmpge_epu32_mask(b, lo);
            /* compress in a register, store all 16 lanes: a masked compress
             * to memory is microcoded on some CPUs (AMD Zen 4) */
            _mm512_storeu_si512((void *)(cand32 + nc), _mm512_maskz_compress_epi32(m, iota));
            nc += (size_t)__builtin_popcount(m);
            iota = _mm512_add_epi32(iota, step);
        }
        nonfinite = bad != 0;
        /* widen in place, from the end, to the size_t list the rest uses */
        if (nc < room)
            for (size_t c = nc; c-- > 0;) cand[c] = cand32[c];
        else
            nc = room; /* too many for the size_t list: the full selection below */
    }
#endif
    for (; i + TK_BLOCK <= n; i += TK_BLOCK) {
        uint32_t any = 0, bad = 0;
        for (int l = 0; l < TK_BLOCK; l++) {
            uint32_t b = f32_bits(src[i + l]) & 0x7FFFFFFFu;
            any |= b >= lo_bits;
            bad |= b >= 0x7F800000u;
        }
        nonfinite |= bad;
        if (!any) continue;
        for (int l = 0; l < TK_BLOCK; l++)
            if ((f32_bits(src[i + l]) & 0x7FFFFFFFu) >= lo_bits && nc < room) cand[nc++] = i + l;
    }
    for (; i < n; i++) {
        uint32_t b = f32_bits(src[i]) & 0x7FFFFFFFu;
        nonfinite |= b >= 0x7F800000u;
        if (b >= lo_bits && nc < room) cand[nc++] = i;
    }
    if (nonfinite) return gq_error_result(GQ_ERR_NONFINITE);
    if (nc < k || nc >= room) return tk_encode_full(dst, src, n, k, index_bytes(p, n), mag);
    float *cmag = (float *)(cand + nc); /* the candidates' magnitudes, for the selection */
    for (size_t c = 0; c < nc; c++) cmag[c] = fabsf(src[cand[c]]);
    const float thr = select_desc(cmag, nc, k - 1);
    tk_emit(dst, k, index_bytes(p, n), src, cand, nc, thr);
    return 8 + k * (index_bytes(p, n) + 4);
}

static size_t tk_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    if (size < 8) return gq_error_result(GQ_ERR_TRUNCATED);
    uint64_t k = load_u64(src);
    const unsigned iw = index_bytes(p, n);
    if (iw == 0) return gq_error_result(GQ_ERR_CORRUPT);
    if (k == 0 || k > n) return gq_error_result(GQ_ERR_CORRUPT);
    if ((size - 8) / (iw + 4) < k) return gq_error_result(GQ_ERR_TRUNCATED);
    if (size != 8 + k * (iw + 4)) return gq_error_result(GQ_ERR_CORRUPT);
    const uint8_t *idx = src + 8, *val = src + 8 + k * iw;
    memset(dst, 0, n * sizeof *dst);
    uint64_t prev = 0;
    for (uint64_t t = 0; t < k; t++) {
        uint64_t i = iw == 4 ? load_u32(idx + 4 * t) : load_u64(idx + 8 * t);
        float v = load_f32(val + 4 * t);
        if (i >= n || (t > 0 && i <= prev) || !isfinite(v)) return gq_error_result(GQ_ERR_CORRUPT);
        dst[i] = v;
        prev = i;
    }
    return n;
}

static void tk_defaults(qz_params *p) { p->ratio = 0.01f; }

static int tk_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":ratio=%g%s%s", p->ratio, p->index != QZ_INDEX_AUTO ? ",index=" : "",
                    p->index != QZ_INDEX_AUTO ? QZ_INDEX_NAMES[(unsigned)p->index < 3 ? p->index : 0] : "");
}
static int tk_check(const qz_params *p, char *why, size_t cap)
{
    if (!(p->ratio > 0.0f && p->ratio <= 1.0f)) return snprintf(why, cap, "ratio=%g must be in (0, 1]", p->ratio), -1;
    return 0;
}
/* radix selection, then compaction; zero-fill and scatter */
static void tk_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    const double index = p->index == QZ_INDEX_64 ? 8 : 4;
    enc[0] = 5, enc[1] = 16 + (index + 4) * p->ratio, dec[0] = 2, dec[1] = 4 + (index + 4) * p->ratio;
}

const qz_codec qz_topk = {
    .id = QZ_TOPK,
    .name = "topk",
    .biased = 1,
    .summary = "top-k sparsification: the k largest |g| as (index, value) pairs",
    .keys_help = "ratio=0.01 index=auto|32|64",
    .keys = QZ_KEY_RATIO | QZ_KEY_INDEX,
    .defaults = tk_defaults,
    .payload_bound = tk_payload,
    .workspace = tk_workspace,
    .encode = tk_encode,
    .decode = tk_decode,
    .format_keys = tk_format,
    .check = tk_check,
    .gpu_traffic = tk_gpu_traffic,
};
