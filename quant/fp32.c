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

/* An exponent field of all ones is Inf or NaN; OR-ing the test over the block
 * keeps the loop branch-free so that it vectorises. */
static int nonfinite_bits(const float *x, size_t n)
{
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) bad |= (uint32_t)((f32_bits(x[i]) & 0x7F800000u) == 0x7F800000u);
    return bad != 0;
}

/* The wire is little-endian: on a little-endian host a block is a copy (the
 * byte-wise stores were vectorised by GCC into byte permutes, 2.8x a memcpy).
 * One loop copies and tests, so each element is read once; written as loads
 * and stores of 32-bit words, which GCC turns into full-width vector moves. */
static int copy_finite(void *dst, const void *src, size_t n)
{
    uint32_t bad = 0;
    const uint8_t *s = (const uint8_t *)src;
    uint8_t *d = (uint8_t *)dst;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, s + 4 * i, 4);
        bad |= (uint32_t)((u & 0x7F800000u) == 0x7F800000u);
        memcpy(d + 4 * i, &u, 4);
    }
    return bad != 0;
}

static int fp32_encode_block(uint8_t *dst, const float *src, size_t n)
{
    if (QZ_LITTLE_ENDIAN) return copy_finite(dst, src, n);
    for (size_t i = 0; i < n; i++) store_f32(dst + 4 * i, src[i]);
    return nonfinite_bits(src, n);
}

static int fp32_decode_block(float *dst, const uint8_t *src, size_t n)
{
    if (QZ_LITTLE_ENDIAN) return copy_finite(dst, src, n);
    for (size_t i = 0; i < n; i++) dst[i] = load_f32(src + 4 * i);
    return nonfinite_bits(dst, n);
}

const qz_codec qz_fp32 = {
    .id = QZ_FP32,
    .name = "fp32",
    .summary = "uncompressed 32-bit floats (the baseline)",
    .keys_help = "",
    .keys = 0,
    .defaults = fp32_defaults,
    .payload_bound = fp32_payload,
    .bytes_per_element = 4,
    .encode_block = fp32_encode_block,
    .decode_block = fp32_decode_block,
};
