/* Reads a dense buffer's per-bucket levels straight from the documented wire
 * layout (docs/wire-format.md), independently of the library's decoder, so
 * tests can check decoded values and exact variances against them. */
#ifndef GQ_TEST_LEVELS_H
#define GQ_TEST_LEVELS_H

#include <stdint.h>
#include <string.h>

#include "qz.h"

static inline float wire_f32(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Fills lv (ascending) with the levels of bucket b; returns their count. */
static inline unsigned wire_levels(const qz_params *p, const unsigned char *buf, size_t b, float *lv)
{
    const unsigned char *sc = buf + 32;
    switch (p->id) {
    case QZ_TERNGRAD: {
        float s = wire_f32(sc + 4 * b);
        lv[0] = -s, lv[1] = 0, lv[2] = s;
        return 3;
    }
    case QZ_QSGD: {
        float norm = wire_f32(sc + 4 * b);
        unsigned s = (p->levels - 1) / 2;
        for (unsigned k = 0; k < p->levels; k++) lv[k] = (float)((double)((int)k - (int)s) / s * norm);
        return p->levels;
    }
    case QZ_ORQ:
        for (unsigned k = 0; k < p->levels; k++) lv[k] = wire_f32(sc + 4 * (b * p->levels + k));
        return p->levels;
    case QZ_BINGRAD_B:
    case QZ_BINGRAD_PB: lv[0] = wire_f32(sc + 8 * b), lv[1] = wire_f32(sc + 8 * b + 4); return 2;
    case QZ_SIGNSGD: {
        float m = wire_f32(sc + 4 * b);
        lv[0] = -m, lv[1] = m;
        return 2;
    }
    default: lv[0] = 0; return 0; /* not a level quantizer */
    }
}

/* Neighbouring levels a <= x <= c (a = c when x is on a level). */
static inline void level_neighbours(const float *lv, unsigned k, float x, double *a, double *c)
{
    if (k == 0) {
        *a = *c = x;
        return;
    }
    *a = lv[0], *c = lv[k - 1];
    for (unsigned m = 0; m < k; m++) {
        if (lv[m] <= x && lv[m] > *a) *a = lv[m];
        if (lv[m] >= x && lv[m] < *c) *c = lv[m];
    }
    if (x <= lv[0]) *a = *c = lv[0];
    if (x >= lv[k - 1]) *a = *c = lv[k - 1];
}

#endif
