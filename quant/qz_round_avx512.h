/* Sixteen-lane pieces of the stochastic rounding loops (TernGrad, QSGD) for
 * AVX-512 builds, as qz_round_avx2.h's eight: the element-index hash of
 * common/rng.h on sixteen lanes, and codes narrowed to bytes by one vpmovdb
 * each (AVX-512 has the narrowing store that AVX2 builds by packs and a
 * permute). On a CPU with whole 512-bit units (Zen 5) the rounding's
 * arithmetic, not memory, bounded the eight-lane loops (docs/performance.md).
 * Every result is the scalar loop's, bit for bit (tests/test_rounding.c). */
#ifndef GQ_QZ_ROUND_AVX512_H
#define GQ_QZ_ROUND_AVX512_H

#if defined(__AVX512F__)
#include <immintrin.h>
#include <stdint.h>

#include "qz_internal.h"

/* rng_hash32(key, j + lane) for the sixteen lanes, given h = key + j + lane. */
static inline __m512i qz_hash16(__m512i h)
{
    h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
    h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0x21F0AAAD));
    h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 15));
    h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0x735A2D97));
    return _mm512_xor_si512(h, _mm512_srli_epi32(h, 15));
}

/* The hash's top 24 bits as a float: exact, as rng_uniform24 takes them. */
static inline __m512 qz_hash16_u24(__m512i h) { return _mm512_cvtepi32_ps(_mm512_srli_epi32(qz_hash16(h), 8)); }

/* A codec's constants for its sixteen-lane step, broadcast once, and a
 * table of `count` floats it reads in memory (ORQ's levels). */
typedef struct {
    __m512 f;
    __m512i i0, i1;
    const float *table;
    unsigned count;
} qz_lanes16_k;

/* The codes (0..255) of sixteen elements x[0..16), hv their hash inputs. */
typedef __m512i (*qz_codes16_fn)(const float *x, __m512i hv, qz_lanes16_k k);

/* Codes of x[0..len) 64 at a time, element x[i]'s draw indexed j + i, by the codec's step (inlined: the pointer is
 * a constant at every call). @return the elements done, a multiple of 64: the scalar loop takes the rest. */
static inline __attribute__((always_inline)) size_t qz_round_lanes16(uint8_t *codes, const float *x, size_t len,
                                                                     uint32_t key, uint32_t j, qz_codes16_fn codes16,
                                                                     qz_lanes16_k k)
{
    const __m512i sixteen = _mm512_set1_epi32(16);
    __m512i hv = _mm512_add_epi32(_mm512_set1_epi32((int)(key + j)),
                                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        __builtin_prefetch(x + i + QZ_PREFETCH_AHEAD);
        __builtin_prefetch(x + i + QZ_PREFETCH_AHEAD + 16);
        __builtin_prefetch(x + i + QZ_PREFETCH_AHEAD + 32);
        __builtin_prefetch(x + i + QZ_PREFETCH_AHEAD + 48);
        for (int q = 0; q < 4; q++, hv = _mm512_add_epi32(hv, sixteen))
            _mm_storeu_si128((__m128i *)(void *)(codes + i + 16 * q),
                             _mm512_cvtepi32_epi8(codes16(x + i + 16 * q, hv, k)));
    }
    return i;
}
#endif

#endif
