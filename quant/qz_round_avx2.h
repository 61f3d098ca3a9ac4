/* Eight-lane pieces of the stochastic rounding loops (TernGrad, QSGD) for
 * AVX2 builds: the element-index hash of common/rng.h on eight lanes, and
 * thirty-two 32-bit codes narrowed to bytes in element order. GCC
 * vectorizes the scalar loops 32 lanes at a time and, with AVX2's sixteen
 * registers, spills and narrows twice (codes and signs separately); these
 * loops keep eight lanes and one narrowing (docs/performance.md, "Stochastic
 * rounding in eight lanes"). Every result is the scalar loop's, bit for bit:
 * the scalar loops stay beside them as the reference (tests/test_rounding.c). */
#ifndef GQ_QZ_ROUND_AVX2_H
#define GQ_QZ_ROUND_AVX2_H

#if defined(__AVX2__)
#include <immintrin.h>
#include <stdint.h>

/* rng_hash32(key, j + lane) for the eight lanes, given hv = key + j + lane. */
static inline __m256i qz_hash8(__m256i h)
{
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0x21F0AAAD));
    h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
    h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0x735A2D97));
    return _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
}

/* The hash's top 24 bits as a float: exact, as rng_uniform24 takes them. */
static inline __m256 qz_hash8_u24(__m256i h) { return _mm256_cvtepi32_ps(_mm256_srli_epi32(qz_hash8(h), 8)); }

/* key + j + {0..7}: the hash input of eight consecutive elements. */
static inline __m256i qz_hash8_base(uint32_t key, uint32_t j)
{
    return _mm256_add_epi32(_mm256_set1_epi32((int)(key + j)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Four vectors of codes 0..255 (elements 0-7, 8-15, 16-23, 24-31) stored as 32 bytes in element order. */
static inline void qz_store_codes32(uint8_t *out, __m256i a, __m256i b, __m256i c, __m256i d)
{
    /* packs work inside 128-bit halves: bytes come out as a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7 */
    const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    const __m256i order = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i *)(void *)out, order);
}
#endif

#endif
