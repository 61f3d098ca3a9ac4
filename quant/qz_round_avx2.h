/* Eight-lane pieces of the stochastic rounding loops (TernGrad, QSGD) for
 * AVX2 builds: the element-index hash of common/rng.h on eight lanes, and
 * thirty-two 32-bit codes narrowed to bytes in element order, and the
 * loop both codecs run them in. GCC
 * vectorizes the scalar loops 32 lanes at a time and, with AVX2's sixteen
 * registers, spills and narrows twice (codes and signs separately); these
 * loops keep eight lanes and one narrowing (docs/performance.md, "Stochastic
 * rounding in eight lanes"). Every result is the scalar loop's, bit for bit:
 * the scalar loops stay beside them as the reference (tests/test_rounding.c). */
#ifndef GQ_QZ_ROUND_AVX2_H
#define GQ_QZ_ROUND_AVX2_H

#include "qz_internal.h"

/* The vector loops (this one and qz_round_avx512.h's) ask for their input
 * QZ_PREFETCH_AHEAD elements ahead; the scalar loops leave it to the driver. */
#if defined(__AVX2__)
#define QZ_ROUND_PREFETCHES 1
#else
#define QZ_ROUND_PREFETCHES 0
#endif

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
static inline void qz_store_codes32(uint8_t *out, const __m256i c[4])
{
    /* packs work inside 128-bit halves: bytes come out as c0 0-3, c1 0-3, c2 0-3, c3 0-3 | the lanes 4-7 */
    const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
    const __m256i order = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i *)(void *)out, order);
}

/* A codec's constants for its eight-lane step, broadcast once (what each holds is the codec's). */
typedef struct {
    __m256 f;
    __m256i i0, i1;
} qz_lanes_k;

/* The codes of eight elements x[0..8), hv their hash inputs. */
typedef __m256i (*qz_codes8_fn)(const float *x, __m256i hv, qz_lanes_k k);

/* Codes of x[0..len) 32 at a time, element x[i]'s draw indexed j + i, by
 * the codec's step (inlined: the pointer is a constant at every call).
 * @return the elements done, a multiple of 32: the scalar loop takes the rest. */
static inline __attribute__((always_inline)) size_t
qz_round_lanes(uint8_t *codes, const float *x, size_t len, uint32_t key, uint32_t j, qz_codes8_fn codes8, qz_lanes_k k)
{
    const __m256i eight = _mm256_set1_epi32(8);
    __m256i hv = qz_hash8_base(key, j);
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        __m256i c[4];
        __builtin_prefetch(x + i + QZ_PREFETCH_AHEAD); /* past the end is harmless: a prefetch never faults */
        __builtin_prefetch(x + i + QZ_PREFETCH_AHEAD + 16);
        for (int q = 0; q < 4; q++, hv = _mm256_add_epi32(hv, eight)) c[q] = codes8(x + i + 8 * q, hv, k);
        qz_store_codes32(codes + i, c);
    }
    return i;
}
#endif

#endif
