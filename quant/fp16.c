/* fp16: IEEE binary16 with round-to-nearest-even, 2 bytes per element.
 * Magnitudes beyond the largest half (65504) saturate to it instead of
 * becoming Inf, so the wire never carries a non-finite value. */
#include <math.h>

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

static size_t fp16_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                          void *work)
{
    (void)cap, (void)p, (void)seed, (void)work;
    if (!qz_all_finite(src, n)) return gq_error_result(GQ_ERR_NONFINITE);
    for (size_t i = 0; i < n; i++) {
        uint16_t h = qz_f32_to_f16(src[i]);
        dst[2 * i] = (uint8_t)h;
        dst[2 * i + 1] = (uint8_t)(h >> 8);
    }
    return 2 * n;
}

static size_t fp16_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    (void)size, (void)p;
    unsigned bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t h = (uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
        bad |= (h & 0x7C00u) == 0x7C00u;
        dst[i] = qz_f16_to_f32(h);
    }
    return bad ? gq_error_result(GQ_ERR_CORRUPT) : n;
}

const qz_codec qz_fp16 = {
    .id = QZ_FP16,
    .name = "fp16",
    .summary = "IEEE half precision, round to nearest even, saturating",
    .keys_help = "",
    .keys = 0,
    .defaults = fp16_defaults,
    .payload_bound = fp16_payload,
    .encode = fp16_encode,
    .decode = fp16_decode,
};
