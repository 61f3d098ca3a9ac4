/* TernGrad (Wen et al., NIPS 2017): unbiased stochastic ternarization onto
 * {-s, 0, +s}, one scaler per bucket (bucket=0: per layer).
 *   scale=max   s = max of the clipped |g|, clipping at clip*sigma (docs/papers.md §1);
 *   scale=sigma s = clip*sigma, the authors' code; |g| > s rounds to s.
 * An external shared scaler (scaler sharing across workers) replaces s.
 * Wire: one float per bucket, then 2 bits per element (00 = 0, 01 = +s,
 * 10 = -s), 5 trits per byte, or one int8 per element (-1, 0, +1: as
 * compression libraries that do not pack bits send it) (docs/wire-format.md). */
#include <math.h>
#include <stdio.h>

#include "qz_internal.h"
#include "qz_round_avx2.h"
#include "qz_round_avx512.h"
#include "rng.h"

static unsigned tg_nstored(const qz_params *p) { return (void)p, 1; }
static unsigned tg_nlevels(const qz_params *p) { return (void)p, 3; }
static qz_pack tg_packing(const qz_params *p) { return p->pack; }
static const int8_t TG_BYTES[3] = {0, 1, -1}; /* pack=int8: code 0 -> 0, +s -> +1, -s -> -1 */

/* sigma only where it is used: clipping, or scale=sigma (a shared scaler uses neither) */
static unsigned tg_moments_wanted(const qz_params *p)
{
    const int need_sigma = p->shared_scale <= 0 && (p->scale == QZ_SCALE_SIGMA || p->clip > 0);
    return QZ_MOMENT_MAX | (need_sigma ? QZ_MOMENT_SUM | QZ_MOMENT_SUMSQ : 0u);
}

static gq_err tg_scale(float *stored, qz_moments m, size_t len, const qz_params *p)
{
    if (!m.finite) return GQ_ERR_NONFINITE;
    double mean = m.sum / (double)len, var = m.sumsq / (double)len - mean * mean;
    double sigma = sqrt(var > 0 ? var : 0);
    double s;
    if (p->shared_scale > 0)
        s = p->shared_scale;
    else if (p->scale == QZ_SCALE_SIGMA)
        s = p->clip * sigma;
    else if (p->clip > 0)
        s = fmin(m.maxabs, p->clip * sigma);
    else
        s = m.maxabs;
    stored[0] = qz_finite_scale(s);
    return GQ_OK;
}

static gq_err tg_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)work;
    return tg_scale(stored, qz_moments_of(x, len, tg_moments_wanted(p)), len, p);
}

static gq_err tg_fit_many(float *stored, const float *x, size_t blen, const qz_params *p)
{
    qz_moments m[QZ_FIT_MANY];
    qz_moments_many(m, x, blen, QZ_FIT_MANY, tg_moments_wanted(p));
    for (int t = 0; t < QZ_FIT_MANY; t++) {
        gq_err e = tg_scale(stored + t, m[t], blen, p);
        if (e != GQ_OK) return e;
    }
    return GQ_OK;
}

/* The reference: one element at a time. */
static void tg_quantize_scalar(uint8_t *codes, const float *x, size_t len, float inv24, uint32_t key, uint32_t j)
{
    for (size_t i = 0; i < len; i++, j++) {
        float prob24 = fabsf(x[i]) * inv24;
        float u24 = (float)(rng_hash32(key, j) >> 8);
        uint32_t bits;
        memcpy(&bits, &x[i], 4);
        uint32_t nz = u24 < prob24;
        codes[i] = (uint8_t)(nz + (nz & (bits >> 31))); /* 0, 1 (+s) or 2 (-s) */
    }
}

#if defined(__AVX2__) && !defined(__AVX512F__) /* the AVX-512 build runs sixteen lanes */
/* Eight elements' codes as the reference computes them: nz & (1 + sign bit). k.f: 2^24 / s. */
static inline __m256i tg_codes8(const float *x, __m256i hv, qz_lanes_k k)
{
    const __m256 v = _mm256_loadu_ps(x);
    const __m256 prob24 = _mm256_mul_ps(_mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))), k.f);
    const __m256i nz = _mm256_castps_si256(_mm256_cmp_ps(qz_hash8_u24(hv), prob24, _CMP_LT_OQ));
    const __m256i sign = _mm256_srli_epi32(_mm256_castps_si256(v), 31);
    return _mm256_and_si256(nz, _mm256_add_epi32(sign, _mm256_set1_epi32(1)));
}
#endif

#if defined(__AVX512F__)
/* Sixteen elements' codes, as tg_codes8's: 1 + sign bit where the draw falls under |x| 2^24 / s, else 0. */
static inline __m512i tg_codes16(const float *x, __m512i hv, qz_lanes16_k k)
{
    const __m512 v = _mm512_loadu_ps(x);
    const __m512 prob24 = _mm512_mul_ps(
        _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF))), k.f);
    const __mmask16 nz = _mm512_cmp_ps_mask(qz_hash16_u24(hv), prob24, _CMP_LT_OQ);
    const __m512i sign = _mm512_srli_epi32(_mm512_castps_si512(v), 31);
    return _mm512_maskz_add_epi32(nz, sign, _mm512_set1_epi32(1));
}
#endif

static void tg_quantize(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p,
                        uint32_t key, uint32_t idx0)
{
    (void)p;
    /* P(round away from 0) = |x|/s; compared against a 24-bit uniform integer, the
     * probability pre-scaled by 2^24 (>= 2^24 always rounds away: clipping).
     * A 32-bit element counter j: 64-bit index lanes cost a repack per vector */
    const float inv24 = qz_safe_inv(stored[0]) * 16777216.0f;
    size_t i = 0;
#if defined(__AVX512F__)
    i = qz_round_lanes16(codes, x, len, key, idx0, tg_codes16, (qz_lanes16_k){.f = _mm512_set1_ps(inv24)});
#elif defined(__AVX2__)
    i = qz_round_lanes(codes, x, len, key, idx0, tg_codes8, (qz_lanes_k){.f = _mm256_set1_ps(inv24)});
#endif
    tg_quantize_scalar(codes + i, x + i, len - i, inv24, key, idx0 + (uint32_t)i);
}

static void tg_table(float *table, const float *stored, const qz_params *p)
{
    (void)p;
    table[0] = 0.0f;
    table[1] = stored[0];
    table[2] = -stored[0];
}

static const qz_dense TG = {.nstored = tg_nstored,
                            .nlevels = tg_nlevels,
                            .packing = tg_packing,
                            .byte_of = TG_BYTES,
                            .fit = tg_fit,
                            .fit_many = tg_fit_many,
                            .quantize = tg_quantize,
                            .prefetches = QZ_ROUND_PREFETCHES,
                            .table = tg_table};

gq_err qz_terngrad_scale(const qz_params *p, const float *x, size_t n, float *scale)
{
    if (p->id != QZ_TERNGRAD) return GQ_ERR_PARAM;
    if (n == 0) return GQ_ERR_EMPTY;
    qz_params own = *p;
    own.shared_scale = 0;
    return tg_fit(scale, x, n, &own, NULL);
}

static void tg_defaults(qz_params *p)
{
    p->bucket = 0;
    p->clip = 2.5f;
    p->scale = QZ_SCALE_MAX;
    p->pack = QZ_PACK_2BIT;
}

static int tg_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":bucket=%llu,clip=%g,scale=%s,pack=%s", (unsigned long long)p->bucket, p->clip,
                    QZ_SCALE_NAMES[p->scale & 1], QZ_TG_PACK_NAMES[(unsigned)p->pack < 3 ? p->pack : 0]);
}
static int tg_check(const qz_params *p, char *why, size_t cap)
{
    if (p->scale == QZ_SCALE_SIGMA && p->clip == 0.0f)
        return snprintf(why, cap, "scale=sigma needs clip > 0 (the scaler is clip*sigma)"), -1;
    return 0;
}
/* max (and sigma) reduction, then rounding and packing */
static void tg_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    const int byte = p->pack == QZ_PACK_BYTE; /* pack=int8: a byte per element, not bits */
    enc[0] = 2, enc[1] = byte ? 9 : 8.25, dec[0] = 1, dec[1] = byte ? 5 : 4.25;
}

const qz_codec qz_terngrad = {
    .id = QZ_TERNGRAD,
    .name = "terngrad",
    .summary = "TernGrad: unbiased ternary {-s,0,+s}, layer-wise scaler, clipping",
    .keys_help = "bucket=0 clip=2.5 scale=max|sigma pack=2bit|trits|int8",
    .keys = QZ_KEY_BUCKET | QZ_KEY_CLIP | QZ_KEY_SCALE | QZ_KEY_PACK,
    .defaults = tg_defaults,
    .level_count = tg_nlevels,
    .dense = &TG,
    .pack_names = QZ_TG_PACK_NAMES,
    .format_keys = tg_format,
    .check = tg_check,
    .gpu_traffic = tg_gpu_traffic,
};
