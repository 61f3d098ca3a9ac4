/* QSGD (Alistarh et al., NIPS 2017): Q(v_i) = ||v|| sign(v_i) xi_i, xi_i one
 * of the two nearest multiples of 1/s around |v_i|/||v||, chosen stochastically
 * so Q is unbiased. `levels` counts all levels, -s..s, so levels = 2s+1.
 * norm=l2 is the paper's; norm=max the practical variant.
 * Wire (docs/wire-format.md#qsgd): code=dense stores one float (the norm) per
 * bucket and a level index 0..2s per element in ceil(log2 levels) bits;
 * code=elias stores each bucket as norm, Elias-gamma count of non-zeros, then
 * per non-zero Elias-gamma gap, sign bit, Elias-gamma level (data-dependent
 * size). Both draw the same random numbers: they decode to the same values. */
#include <math.h>
#include <stdio.h>

#include "bitstream.h"
#include "qz_internal.h"
#include "qz_round_avx2.h"
#include "qz_round_avx512.h"
#include "rng.h"

static unsigned qs_half(const qz_params *p) { return (p->levels - 1) / 2; }
static unsigned qs_nstored(const qz_params *p) { return (void)p, 1; }
static unsigned qs_nlevels(const qz_params *p) { return p->levels; }

static unsigned qs_moments_wanted(const qz_params *p)
{
    return p->norm == QZ_NORM_MAX ? QZ_MOMENT_MAX : QZ_MOMENT_SUMSQ;
}

static gq_err qs_norm(float *stored, const qz_moments *m, const qz_params *p)
{
    if (!m->finite) return GQ_ERR_NONFINITE;
    stored[0] = p->norm == QZ_NORM_MAX ? m->maxabs : qz_finite_scale(sqrt(m->sumsq));
    return GQ_OK;
}

static gq_err qs_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)work;
    qz_moments m = qz_moments_of(x, len, qs_moments_wanted(p));
    return qs_norm(stored, &m, p);
}

static gq_err qs_fit_many(float *stored, const float *x, size_t blen, const qz_params *p)
{
    qz_moments m[QZ_FIT_MANY];
    qz_moments_many(m, x, blen, QZ_FIT_MANY, qs_moments_wanted(p));
    for (int t = 0; t < QZ_FIT_MANY; t++) {
        gq_err e = qs_norm(stored + t, &m[t], p);
        if (e != GQ_OK) return e;
    }
    return GQ_OK;
}

/* The reference: one element at a time. scale = s / norm. */
static void qs_quantize_scalar(uint8_t *codes, const float *x, size_t len, float scale, unsigned s, uint32_t key,
                               uint32_t j)
{
    const float fs = (float)s;
    /* integer selects only: float ?: does not if-convert under -ftrapping-math */
    const int si = (int)s;
    for (size_t i = 0; i < len; i++, j++) {
        float r = fabsf(x[i]) * scale; /* in [0, s] up to rounding; max norm reaches s exactly */
        uint32_t rb, fb;               /* r = min(r, s) on the bit patterns: both are >= 0 */
        memcpy(&rb, &r, 4);
        memcpy(&fb, &fs, 4);
        rb = rb < fb ? rb : fb;
        memcpy(&r, &rb, 4);
        int lo = (int)r; /* r >= 0: truncation is floor */
        float u = rng_uniform24(rng_hash32(key, j));
        int mag = lo + (u < r - (float)lo);
        mag = mag < si ? mag : si;
        const int neg = -(int)(x[i] < 0);               /* 0 or -1 */
        codes[i] = (uint8_t)(si + ((mag ^ neg) - neg)); /* level index s -+ mag, 0..2s: no multiply */
    }
}

#if defined(__AVX2__) && !defined(__AVX512F__) /* the AVX-512 build runs sixteen lanes */
/* Eight elements' level indices as the reference computes them. k.f: s / norm; k.i0: s's float bits; k.i1: s. */
static inline __m256i qs_codes8(const float *x, __m256i hv, qz_lanes_k k)
{
    const __m256 v = _mm256_loadu_ps(x);
    const __m256 mag_in = _mm256_mul_ps(_mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))), k.f);
    const __m256 r = _mm256_castsi256_ps(_mm256_min_epi32(_mm256_castps_si256(mag_in), k.i0));
    const __m256i lo = _mm256_cvttps_epi32(r);
    const __m256 frac = _mm256_sub_ps(r, _mm256_cvtepi32_ps(lo));
    const __m256 u = _mm256_mul_ps(qz_hash8_u24(hv), _mm256_set1_ps(1.0f / 16777216.0f));
    const __m256i up = _mm256_castps_si256(_mm256_cmp_ps(u, frac, _CMP_LT_OQ)); /* -1 rounds up */
    /* lo = s only where r = s, whose fraction 0 never rounds up: mag <= s without the reference's min */
    const __m256i mag = _mm256_sub_epi32(lo, up);
    /* mag negated where x's bits are a negative integer: x < 0, or -0.0 whose mag is 0 */
    return _mm256_add_epi32(k.i1, _mm256_sign_epi32(mag, _mm256_castps_si256(v)));
}
#endif

#if defined(__AVX512F__)
/* Sixteen elements' level indices, as qs_codes8's; AVX-512 has no vpsignd: the magnitude negated under a mask where
 * x's bits are a negative integer (x < 0, or -0.0 whose magnitude is 0). */
static inline __m512i qs_codes16(const float *x, __m512i hv, qz_lanes16_k k)
{
    const __m512 v = _mm512_loadu_ps(x);
    const __m512i bits = _mm512_castps_si512(v), zero = _mm512_setzero_si512();
    const __m512 mag_in =
        _mm512_mul_ps(_mm512_castsi512_ps(_mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF))), k.f);
    const __m512 r = _mm512_castsi512_ps(_mm512_min_epi32(_mm512_castps_si512(mag_in), k.i0));
    const __m512i lo = _mm512_cvttps_epi32(r);
    const __m512 frac = _mm512_sub_ps(r, _mm512_cvtepi32_ps(lo));
    const __m512 u = _mm512_mul_ps(qz_hash16_u24(hv), _mm512_set1_ps(1.0f / 16777216.0f));
    const __mmask16 up = _mm512_cmp_ps_mask(u, frac, _CMP_LT_OQ);
    const __m512i mag = _mm512_mask_add_epi32(lo, up, lo, _mm512_set1_epi32(1)); /* <= s, as qs_codes8 says */
    const __m512i signed_mag = _mm512_mask_sub_epi32(mag, _mm512_cmplt_epi32_mask(bits, zero), zero, mag);
    return _mm512_add_epi32(k.i1, signed_mag);
}
#endif

static void qs_quantize(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p,
                        uint32_t key, uint32_t idx0)
{
    /* a 32-bit hash index j beside i (64-bit lanes would need a repack) */
    const unsigned s = qs_half(p);
    const float scale = fminf((float)s * qz_safe_inv(stored[0]), FLT_MAX);
    size_t i = 0;
#if defined(__AVX2__)
    const float fs = (float)s;
    int32_t fs_bits;
    memcpy(&fs_bits, &fs, 4);
#endif
#if defined(__AVX512F__)
    const qz_lanes16_k k = {
        .f = _mm512_set1_ps(scale), .i0 = _mm512_set1_epi32(fs_bits), .i1 = _mm512_set1_epi32((int)s)};
    i = qz_round_lanes16(codes, x, len, key, idx0, qs_codes16, k);
#elif defined(__AVX2__)
    const qz_lanes_k k = {_mm256_set1_ps(scale), _mm256_set1_epi32(fs_bits), _mm256_set1_epi32((int)s)};
    i = qz_round_lanes(codes, x, len, key, idx0, qs_codes8, k);
#endif
    qs_quantize_scalar(codes + i, x + i, len - i, scale, s, key, idx0 + (uint32_t)i);
}

static void qs_table(float *table, const float *stored, const qz_params *p)
{
    const unsigned s = qs_half(p);
    for (unsigned k = 0; k < p->levels; k++) table[k] = (float)((double)((int)k - (int)s) / s * stored[0]);
}

static const qz_dense QS = {.nstored = qs_nstored,
                            .nlevels = qs_nlevels,
                            .fit = qs_fit,
                            .fit_many = qs_fit_many,
                            .quantize = qs_quantize,
                            .prefetches = QZ_ROUND_PREFETCHES,
                            .table = qs_table};

/* ---- Elias-gamma form ----------------------------------------------------------- */
/* Gamma code of v >= 1 in an LSB-first stream: N = floor(log2 v) zero bits, a
 * one bit, then the low N bits of v; 2N+1 bits in all, as the textbook code. */

static unsigned floor_log2(uint64_t v) { return 63u - (unsigned)__builtin_clzll(v); }

static void gamma_put(bitwriter *bw, uint64_t v)
{
    unsigned nb = floor_log2(v);
    for (unsigned z = nb; z > 0;) {
        unsigned k = z > 32 ? 32 : z;
        bw_put(bw, 0, k);
        z -= k;
    }
    bw_put(bw, 1, 1);
    if (nb > 32) {
        bw_put(bw, (uint32_t)v, 32);
        bw_put(bw, (uint32_t)((v >> 32) & ((1ull << (nb - 32)) - 1)), nb - 32);
    } else if (nb > 0) {
        bw_put(bw, (uint32_t)(v & ((1ull << nb) - 1)), nb);
    }
}

/* @return the value, or 0 on a malformed code (a valid code is never 0). */
static uint64_t gamma_get(bitreader *br)
{
    unsigned nb = 0;
    while (br_get(br, 1) == 0) {
        if (++nb > 63 || br->overrun) return 0;
    }
    uint64_t low = 0;
    if (nb > 32) {
        low = br_get(br, 32);
        low |= (uint64_t)br_get(br, nb - 32) << 32;
    } else if (nb > 0) {
        low = br_get(br, nb);
    }
    return br->overrun ? 0 : ((1ull << nb) | low);
}

size_t qz_gamma_bits(uint64_t v);
size_t qz_gamma_bits(uint64_t v) { return 2 * (size_t)floor_log2(v) + 1; }

static size_t elias_bound(const qz_params *p, size_t n)
{
    /* per bucket: 32-bit norm + gamma(count+1) <= 129 bits; per element at
     * most gap 1 bit + sign + gamma(level <= s): a denser-than-worst gap never
     * costs more than the elements it skips would have. */
    size_t per_elem = 2 + qz_gamma_bits(qs_half(p)), a, b, bits;
    if (qz_mul_ovf(qz_bucket_count(p, n), 161, &a) || qz_mul_ovf(n / 8 + 1, per_elem * 8, &b) ||
        qz_add_ovf(a, b, &bits))
        return gq_error_result(GQ_ERR_TOO_LARGE);
    return bits / 8 + 1;
}

static size_t elias_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                           uint8_t *codes, void *fit_work)
{
    const size_t blen = qz_bucket_len(p, n), nb = qz_bucket_count(p, n);
    const unsigned s = qs_half(p);
    bitwriter bw;
    bw_init(&bw, dst, cap);
    for (size_t b = 0; b < nb; b++) {
        size_t j0 = b * blen, len = (b + 1 == nb) ? n - j0 : blen, nnz = 0;
        float norm;
        gq_err e = qs_fit(&norm, src + j0, len, p, fit_work);
        if (e != GQ_OK) return gq_error_result(e);
        qz_dense_codes(&QS, codes, src + j0, j0, len, &norm, p, seed);
        for (size_t i = 0; i < len; i++) nnz += codes[i] != s;
        bw_put(&bw, f32_bits(norm), 32);
        gamma_put(&bw, (uint64_t)nnz + 1);
        size_t prev = (size_t)-1;
        for (size_t i = 0; i < len; i++) {
            if (codes[i] == s) continue;
            gamma_put(&bw, (uint64_t)(i - prev));
            bw_put(&bw, codes[i] < s, 1);
            gamma_put(&bw, codes[i] < s ? s - codes[i] : codes[i] - s);
            prev = i;
        }
    }
    size_t r = bw_close(&bw);
    return r ? r : gq_error_result(GQ_ERR_DST_TOO_SMALL);
}

static size_t elias_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    const size_t blen = qz_bucket_len(p, n), nb = qz_bucket_count(p, n);
    const unsigned s = qs_half(p);
    const gq_err corrupt = GQ_ERR_CORRUPT;
    bitreader br;
    br_init(&br, src, size);
    for (size_t b = 0; b < nb; b++) {
        size_t j0 = b * blen, len = (b + 1 == nb) ? n - j0 : blen;
        float norm = bits_f32(br_get(&br, 32));
        uint64_t cnt = gamma_get(&br);
        if (br.overrun) return gq_error_result(GQ_ERR_TRUNCATED);
        if (!isfinite(norm) || norm < 0 || cnt == 0 || cnt - 1 > len) return gq_error_result(corrupt);
        float *out = dst + j0;
        memset(out, 0, len * sizeof *out);
        size_t idx = (size_t)-1;
        for (uint64_t k = 0; k + 1 < cnt; k++) {
            uint64_t gap = gamma_get(&br);
            unsigned neg = br_get(&br, 1);
            uint64_t level = gamma_get(&br);
            if (br.overrun) return gq_error_result(GQ_ERR_TRUNCATED);
            if (gap == 0 || gap > len || level == 0 || level > s) return gq_error_result(corrupt);
            idx += (size_t)gap;
            if (idx >= len) return gq_error_result(corrupt);
            float v = (float)((double)level / s * norm);
            out[idx] = neg ? -v : v;
        }
    }
    /* all input consumed, with only zero padding in the last byte */
    if (br.ptr != br.end || (br.acc & ((1ull << br.nbits) - 1)) != 0 || br.nbits >= 8) return gq_error_result(corrupt);
    return n;
}

/* ---- codec ---------------------------------------------------------------------- */

static void qs_defaults(qz_params *p)
{
    p->levels = 5;
    p->bucket = 512;
    p->norm = QZ_NORM_L2;
    p->code = QZ_CODE_DENSE;
}
static size_t qs_payload(const qz_params *p, size_t n)
{
    return p->code == QZ_CODE_ELIAS ? elias_bound(p, n) : qz_dense_payload(&QS, p, n);
}
static size_t qs_workspace(const qz_params *p, size_t n)
{
    return qz_dense_workspace(&QS, p, n) + (p->code == QZ_CODE_ELIAS ? qz_bucket_len(p, n) : 0);
}
static int qs_exact(const qz_params *p) { return p->code == QZ_CODE_DENSE; }
/* Elias: a bucket of zeros is its 32-bit norm and gamma(1), one bit: 33 bits, the least any bucket takes */
static size_t qs_least(const qz_params *p, size_t n)
{
    size_t bits;
    if (qz_mul_ovf(qz_bucket_count(p, n), 33, &bits)) return gq_error_result(GQ_ERR_TOO_LARGE);
    return bits / 8 + (bits % 8 != 0);
}
static size_t qs_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                        void *work)
{
    if (p->code == QZ_CODE_ELIAS) return elias_encode(dst, cap, src, n, p, seed, (uint8_t *)work, NULL);
    return qz_dense_encode(&QS, dst, src, n, p, seed, work);
}
static size_t qs_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    if (p->code == QZ_CODE_ELIAS) return elias_decode(dst, n, src, size, p);
    return qz_dense_decode(&QS, dst, n, src, size, p);
}

static int qs_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":levels=%u,bucket=%llu,norm=%s,code=%s", p->levels, (unsigned long long)p->bucket,
                    QZ_NORM_NAMES[p->norm & 1], QZ_CODE_NAMES[p->code & 1]);
}
static int qs_check(const qz_params *p, char *why, size_t cap)
{
    if (p->levels < 3 || p->levels > QZ_QSGD_MAX_LEVELS || p->levels % 2 == 0)
        return snprintf(why, cap, "levels=%u must be odd, from 3 to %u", p->levels, QZ_QSGD_MAX_LEVELS), -1;
    return 0;
}
/* bucket norms, then rounding; Elias adds a prefix sum for the variable lengths */
static void qs_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    const int elias = p->code == QZ_CODE_ELIAS;
    enc[0] = elias ? 3 : 2, enc[1] = elias ? 13 : 8.5, dec[0] = elias ? 2 : 1, dec[1] = elias ? 9 : 4.5;
}

const qz_codec qz_qsgd = {
    .id = QZ_QSGD,
    .name = "qsgd",
    .summary = "QSGD: unbiased uniform levels scaled by the bucket's L2 or max norm",
    .keys_help = "levels=5 (odd, 3..255) bucket=512 norm=l2|max code=dense|elias",
    .keys = QZ_KEY_LEVELS | QZ_KEY_BUCKET | QZ_KEY_NORM | QZ_KEY_CODE,
    .defaults = qs_defaults,
    .level_count = qs_nlevels,
    .payload_bound = qs_payload,
    .payload_exact = qs_exact,
    .payload_least = qs_least,
    .workspace = qs_workspace,
    .encode = qs_encode,
    .decode = qs_decode,
    .format_keys = qs_format,
    .check = qs_check,
    .gpu_traffic = qs_gpu_traffic,
};
