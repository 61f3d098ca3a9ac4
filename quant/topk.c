/* Top-k sparsification: keep the k = ceil(ratio*n) elements of largest |g|
 * (ties broken by lower index), send their indices and values. Biased: pair
 * it with error feedback in the trainer. Wire (docs/wire-format.md#topk): u64
 * k, then k ascending indices (u32 when n <= 2^32, else u64), then k floats. */
#include <math.h>

#include "qz_internal.h"

size_t qz_topk_k(const qz_params *p, size_t n);
size_t qz_topk_k(const qz_params *p, size_t n)
{
    double k = ceil((double)p->ratio * (double)n);
    if (k < 1) k = 1;
    return k >= (double)n ? n : (size_t)k;
}

static unsigned index_bytes(size_t n) { return (uint64_t)n <= 0x100000000ull ? 4u : 8u; }

static size_t tk_payload(const qz_params *p, size_t n)
{
    size_t k = qz_topk_k(p, n), r;
    if (qz_mul_ovf(k, index_bytes(n) + 4, &r) || qz_add_ovf(r, 8, &r)) return gq_error_result(GQ_ERR_TOO_LARGE);
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

static size_t tk_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                        void *work)
{
    (void)cap, (void)seed;
    if (!qz_all_finite(src, n)) return gq_error_result(GQ_ERR_NONFINITE);
    const size_t k = qz_topk_k(p, n);
    const unsigned iw = index_bytes(n);
    float *mag = (float *)work;
    for (size_t i = 0; i < n; i++) mag[i] = fabsf(src[i]);
    const float thr = select_desc(mag, n, k - 1);
    size_t above = 0;
    for (size_t i = 0; i < n; i++) above += fabsf(src[i]) > thr;
    size_t ties = k - above, t = 0;
    uint8_t *idx = dst + 8, *val = dst + 8 + k * iw;
    store_u64(dst, k);
    for (size_t i = 0; i < n && t < k; i++) {
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
    return 8 + k * (iw + 4);
}

static size_t tk_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    (void)p;
    if (size < 8) return gq_error_result(GQ_ERR_TRUNCATED);
    uint64_t k = load_u64(src);
    const unsigned iw = index_bytes(n);
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

const qz_codec qz_topk = {
    .id = QZ_TOPK,
    .name = "topk",
    .summary = "top-k sparsification: the k largest |g| as (index, value) pairs",
    .keys_help = "ratio=0.01",
    .keys = QZ_KEY_RATIO,
    .defaults = tk_defaults,
    .payload_bound = tk_payload,
    .workspace = tk_workspace,
    .encode = tk_encode,
    .decode = tk_decode,
};
