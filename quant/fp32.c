/* fp32: the uncompressed baseline, 4 bytes per element, little-endian. */
#include <math.h>

#include "qz_internal.h"

static void fp32_defaults(qz_params *p) { (void)p; }

static size_t fp32_payload(const qz_params *p, size_t n)
{
    (void)p;
    size_t r;
    return qz_mul_ovf(n, 4, &r) ? gq_error_result(GQ_ERR_TOO_LARGE) : r;
}

static size_t fp32_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                          void *work)
{
    (void)cap, (void)p, (void)seed, (void)work;
    if (!qz_all_finite(src, n)) return gq_error_result(GQ_ERR_NONFINITE);
    for (size_t i = 0; i < n; i++) store_f32(dst + 4 * i, src[i]);
    return 4 * n;
}

static size_t fp32_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    (void)size, (void)p;
    for (size_t i = 0; i < n; i++) dst[i] = load_f32(src + 4 * i);
    return qz_all_finite(dst, n) ? n : gq_error_result(GQ_ERR_CORRUPT);
}

const qz_codec qz_fp32 = {
    .id = QZ_FP32,
    .name = "fp32",
    .summary = "uncompressed 32-bit floats (the baseline)",
    .keys_help = "",
    .keys = 0,
    .defaults = fp32_defaults,
    .payload_bound = fp32_payload,
    .encode = fp32_encode,
    .decode = fp32_decode,
};
