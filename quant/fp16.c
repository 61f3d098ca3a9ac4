/* fp16: IEEE binary16 with round-to-nearest-even, 2 bytes per element.
 * Magnitudes beyond the largest half (65504) saturate to it instead of
 * becoming Inf, so the wire never carries a non-finite value. */
#include <math.h>
#include <stdio.h>
#ifdef __F16C__
#include <immintrin.h>
#endif

#include "qz_internal.h"

uint16_t qz_f32_to_f16(float f);
float qz_f16_to_f32(uint16_t h);

uint16_t qz_f32_to_f16(float f)
{
    uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7FFFFFFFu;
    if (ax >= 0x477FF000u) return (uint16_t)(sign | 0x7BFFu); /* >= 65520 would round to Inf */
    if (ax < 0x38800000u) {                                   /* below 2^-14: a half subnormal */
        /* adding 2^23 makes the FPU round |f|*2^24 to an integer, ties to even */
        float t = fabsf(f) * 16777216.0f + 8388608.0f;
        return (uint16_t)(sign | (f32_bits(t) - 0x4B000000u));
    }
    uint32_t t = ax - (112u << 23); /* rebias 127 -> 15 */
    t += 0xFFFu + ((t >> 13) & 1u); /* round the 13 dropped bits to nearest even */
    return (uint16_t)(sign | (t >> 13));
}

float qz_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (e == 31) return NAN; /* never written; the decoder rejects it */
    return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

static void fp16_defaults(qz_params *p) { (void)p; }

static size_t fp16_payload(const qz_params *p, size_t n)
{
    (void)p;
    size_t r;
    return qz_mul_ovf(n, 2, &r) ? gq_error_result(GQ_ERR_TOO_LARGE) : r;
}

/* With F16C (x86 -march=native builds) eight conversions per instruction;
 * the scalar functions above are the reference and the fallback. The vector
 * path clamps to +-65504 first so that it saturates as they do, and converts
 * with round-to-nearest-even, as they do. */
static int fp16_encode_block(uint8_t *dst, const float *src, size_t n)
{
    size_t i = 0;
    uint32_t bad = 0;
#ifdef __F16C__
    const __m256 maxh = _mm256_set1_ps(65504.0f), sign = _mm256_set1_ps(-0.0f);
    __m256i expo = _mm256_set1_epi32(0x7F800000), allbad = _mm256_setzero_si256();
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(src + i);
        allbad = _mm256_or_si256(allbad, _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(v), expo), expo));
        __m256 mag = _mm256_min_ps(_mm256_andnot_ps(sign, v), maxh);
        v = _mm256_or_ps(mag, _mm256_and_ps(sign, v));
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    bad = !_mm256_testz_si256(allbad, allbad);
#endif
    for (; i < n; i++) {
        bad |= (f32_bits(src[i]) & 0x7F800000u) == 0x7F800000u;
        uint16_t h = qz_f32_to_f16(src[i]);
        dst[2 * i] = (uint8_t)h;
        dst[2 * i + 1] = (uint8_t)(h >> 8);
    }
    return bad != 0;
}

static int fp16_decode_block(float *dst, const uint8_t *src, size_t n)
{
    size_t i = 0;
    unsigned bad = 0;
#ifdef __F16C__
    const __m128i expo = _mm_set1_epi16(0x7C00);
    __m128i allbad = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
        allbad = _mm_or_si128(allbad, _mm_cmpeq_epi16(_mm_and_si128(h, expo), expo));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    bad = !_mm_testz_si128(allbad, allbad);
#endif
    for (; i < n; i++) {
        uint16_t h = (uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
        bad |= (h & 0x7C00u) == 0x7C00u;
        dst[i] = qz_f16_to_f32(h);
    }
    return bad != 0;
}

/* a cast each way */
static void f16_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    (void)p;
    enc[0] = 1, enc[1] = 6, dec[0] = 1, dec[1] = 6;
}

const qz_codec qz_fp16 = {
    .id = QZ_FP16,
    .name = "fp16",
    .summary = "IEEE half precision, round to nearest even, saturating",
    .keys_help = "",
    .keys = 0,
    .defaults = fp16_defaults,
    .payload_bound = fp16_payload,
    .bytes_per_element = 2,
    .encode_block = fp16_encode_block,
    .decode_block = fp16_decode_block,
    .gpu_traffic = f16_gpu_traffic,
};
