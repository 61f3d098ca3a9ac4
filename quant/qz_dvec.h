/* Vectors of doubles as wide as the build's registers, loaded from floats:
 * the passes of the fits that search without sorting (BinGrad-b, -pb) sum in
 * doubles, as the sorted summary does. 512-bit vectors lowered to SSE2
 * spill, so the width follows the target. Selects by mask (C has no vector
 * ?:); two masks are never combined, which SSE2 builds do lane by lane. */
#ifndef GQ_QZ_DVEC_H
#define GQ_QZ_DVEC_H

#include <stdint.h>

#if defined(__AVX512F__)
#define DW 8
#elif defined(__AVX__)
#define DW 4
#else
#define DW 2
#endif
typedef double dvec __attribute__((vector_size(8 * DW)));
typedef int64_t lvec __attribute__((vector_size(8 * DW)));
typedef float fvec_u __attribute__((vector_size(4 * DW), aligned(4), may_alias));
#define LOAD_D(p) __builtin_convertvector(*(const fvec_u *)(const void *)(p), dvec)
#define SELECT(mask, a, b) ((dvec)(((lvec)(a) & (mask)) | ((lvec)(b) & ~(mask))))
#define MASKED(mask, a) ((dvec)((lvec)(a) & (mask)))

static inline dvec dvec_splat(double v)
{
    dvec r;
    for (int l = 0; l < DW; l++) r[l] = v;
    return r;
}

static inline double dvec_sum(dvec v)
{
    double s = 0;
    for (int l = 0; l < DW; l++) s += v[l];
    return s;
}

#endif
