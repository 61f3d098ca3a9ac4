/* Dense code packing: codes of w bits (1..8) LSB-first, eight codes at a time
 * through a 64-bit accumulator (eight w-bit codes are exactly w bytes), and
 * five trits per byte. Each width gets its own unrolled loop through a
 * static inline generic called with a constant w (the lz4 trick). The plain
 * bit-stream writer in bitstream.h is the reference these are tested against. */
#include "qz_internal.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX2__)
/* Thirty-two codes of w <= 6 bits at a time: byte pairs, then pairs of
 * pairs, summed by the multiply-adds (c0 + c1 << w, then + c23 << 2w), two
 * 4w-bit halves joined in each 64-bit lane (w bytes, LSB-first as the scalar
 * loop writes them), the lanes' bytes gathered to the front of each 128-bit
 * half and stored 16 bytes at a time: each store writes up to 16 - 2w bytes
 * past its group, into the region the following codes overwrite, so the
 * loop stops while this call's own bytes still cover them. @return codes done */
static inline size_t pack_avx2(uint8_t *dst, const uint8_t *codes, size_t count, const unsigned w)
{
    const __m256i pair = _mm256_set1_epi16((short)((1 << w) << 8 | 1));
    const __m256i quad = _mm256_set1_epi32((1 << (2 * w)) << 16 | 1);
    const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
    /* per 128-bit half: bytes 0..w-1 of each 64-bit lane, then bytes 8..8+w-1 */
    int8_t idx[16];
    for (int b = 0; b < 16; b++) idx[b] = (int8_t)(b < (int)w ? b : b < 2 * (int)w ? 8 + b - (int)w : -1);
    const __m256i gather = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)idx));
    size_t g = 0;
    for (; (count - g) * w >= 8 * (4 * (size_t)w + 16); g += 32, dst += 4 * w) {
        const __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(codes + g));
        const __m256i c4 = _mm256_madd_epi16(_mm256_maddubs_epi16(c, pair), quad);
        const __m256i c8 =
            _mm256_or_si256(_mm256_and_si256(c4, low32), _mm256_srli_epi64(_mm256_andnot_si256(low32, c4), 32 - 4 * w));
        const __m256i packed = _mm256_shuffle_epi8(c8, gather);
        _mm_storeu_si128((__m128i *)(void *)dst, _mm256_castsi256_si128(packed));
        _mm_storeu_si128((__m128i *)(void *)(dst + 2 * w), _mm256_extracti128_si256(packed, 1));
    }
    return g;
}
#endif

static inline void pack_generic(uint8_t *dst, const uint8_t *codes, size_t count, const unsigned w)
{
    size_t g = 0;
#if defined(__AVX2__)
    if (w <= 6) {
        g = pack_avx2(dst, codes, count, w);
        dst += g / 8 * w;
    }
#endif
    for (; g + 8 <= count; g += 8) {
        uint64_t acc = 0;
        for (unsigned k = 0; k < 8; k++) acc |= (uint64_t)codes[g + k] << (k * w);
        for (unsigned b = 0; b < w; b++) dst[b] = (uint8_t)(acc >> (8 * b));
        dst += w;
    }
    if (g < count) {
        uint64_t acc = 0;
        size_t rem = count - g;
        for (size_t k = 0; k < rem; k++) acc |= (uint64_t)codes[g + k] << (k * w);
        size_t bytes = (rem * w + 7) / 8;
        for (size_t b = 0; b < bytes; b++) dst[b] = (uint8_t)(acc >> (8 * b));
    }
}

static inline void unpack_generic(uint8_t *codes, const uint8_t *src, size_t count, const unsigned w)
{
    const uint64_t mask = (1u << w) - 1;
    size_t g = 0;
    for (; g + 8 <= count; g += 8) {
        uint64_t acc = 0;
        for (unsigned b = 0; b < w; b++) acc |= (uint64_t)src[b] << (8 * b);
        for (unsigned k = 0; k < 8; k++) codes[g + k] = (uint8_t)((acc >> (k * w)) & mask);
        src += w;
    }
    if (g < count) {
        uint64_t acc = 0;
        size_t rem = count - g, bytes = (rem * w + 7) / 8;
        for (size_t b = 0; b < bytes; b++) acc |= (uint64_t)src[b] << (8 * b);
        for (size_t k = 0; k < rem; k++) codes[g + k] = (uint8_t)((acc >> (k * w)) & mask);
    }
}

void qz_pack_bits(uint8_t *dst, const uint8_t *codes, size_t count, unsigned w)
{
    switch (w) {
    case 1: pack_generic(dst, codes, count, 1); break;
    case 2: pack_generic(dst, codes, count, 2); break;
    case 3: pack_generic(dst, codes, count, 3); break;
    case 4: pack_generic(dst, codes, count, 4); break;
    case 5: pack_generic(dst, codes, count, 5); break;
    case 6: pack_generic(dst, codes, count, 6); break;
    case 7: pack_generic(dst, codes, count, 7); break;
    default: pack_generic(dst, codes, count, 8); break;
    }
}

void qz_unpack_bits(uint8_t *codes, const uint8_t *src, size_t count, unsigned w)
{
    switch (w) {
    case 1: unpack_generic(codes, src, count, 1); break;
    case 2: unpack_generic(codes, src, count, 2); break;
    case 3: unpack_generic(codes, src, count, 3); break;
    case 4: unpack_generic(codes, src, count, 4); break;
    case 5: unpack_generic(codes, src, count, 5); break;
    case 6: unpack_generic(codes, src, count, 6); break;
    case 7: unpack_generic(codes, src, count, 7); break;
    default: unpack_generic(codes, src, count, 8); break;
    }
}

void qz_pack_trits(uint8_t *dst, const uint8_t *codes, size_t count)
{
    size_t g = 0;
    for (; g + 5 <= count; g += 5)
        *dst++ = (uint8_t)(codes[g] + 3 * codes[g + 1] + 9 * codes[g + 2] + 27 * codes[g + 3] + 81 * codes[g + 4]);
    if (g < count) {
        unsigned v = 0, m = 1;
        for (; g < count; g++, m *= 3) v += codes[g] * m;
        *dst = (uint8_t)v;
    }
}

int qz_unpack_trits(uint8_t *codes, const uint8_t *src, size_t count)
{
    unsigned bad = 0;
    size_t g = 0;
    for (; g + 5 <= count; g += 5) {
        unsigned v = *src++;
        bad |= v >= 243;
        for (unsigned k = 0; k < 5; k++) {
            codes[g + k] = (uint8_t)(v % 3);
            v /= 3;
        }
    }
    if (g < count) {
        unsigned v = *src, rem = (unsigned)(count - g), lim = 1;
        for (unsigned k = 0; k < rem; k++) lim *= 3;
        bad |= v >= lim; /* unused trits of the last byte must be zero */
        for (; g < count; g++) {
            codes[g] = (uint8_t)(v % 3);
            v /= 3;
        }
    }
    return bad ? -1 : 0;
}
