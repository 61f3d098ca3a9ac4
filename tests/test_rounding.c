/* Stochastic rounding element by element, against the rule of
 * docs/wire-format.md#randomness recomputed here: u = (h >> 8) / 2^24 with
 * h = lowbias32(key + i), key from the seed; TernGrad rounds |x| away from 0
 * where u * 2^24 < |x| * 2^24 / s, QSGD rounds r = min(|x| s / norm, s) up
 * from floor(r) where u < r - floor(r), ORQ from the level below x where
 * u < (x - below) / (above - below). The encoders run eight or more lanes
 * at a time with a one-element loop for the tail; every length from 1 to 99
 * and lengths around the chunk (4080) put each element in each position of
 * both, and the data holds -0.0, +0.0, clipped values and subnormals. */
#include <float.h>

#include "check.h"
#include "rng.h"

static float stored_float(const unsigned char *buf, size_t k)
{
    uint32_t u = 0;
    for (int b = 0; b < 4; b++) u |= (uint32_t)buf[32 + 4 * k + (size_t)b] << (8 * b);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static float inverse(float w) { return w > 0 ? fminf(1.0f / w, FLT_MAX) : 0.0f; }

static float draw24(uint32_t key, size_t i) { return (float)(rng_hash32(key, (uint32_t)i) >> 8); }

/* TernGrad's value of element i: +-s or 0. */
static float terngrad_value(float x, float s, uint32_t key, size_t i)
{
    const float prob24 = fabsf(x) * (inverse(s) * 16777216.0f);
    return draw24(key, i) < prob24 ? (signbit(x) ? -s : s) : 0.0f;
}

/* QSGD's value of element i for half = (levels - 1) / 2. */
static float qsgd_value(float x, float norm, unsigned half, uint32_t key, size_t i)
{
    const float fs = (float)half, scale = fminf(fs * inverse(norm), FLT_MAX);
    float r = fabsf(x) * scale;
    r = r < fs ? r : fs;
    const int lo = (int)r, mag = lo + (draw24(key, i) * (1.0f / 16777216.0f) < r - (float)lo);
    const int level = x < 0 ? -mag : mag;
    return (float)((double)level / half * norm);
}

/* Laplace data with every special case the lanes must agree on. */
static float *hard_data(size_t n, unsigned long seed)
{
    float *x = test_gradient(DIST_LAPLACE, n, seed);
    for (size_t i = 0; i < n; i++) {
        if (i % 11 == 3) x[i] = -0.0f;
        if (i % 13 == 5) x[i] = 0.0f;
        if (i % 17 == 7) x[i] *= 40.0f; /* beyond TernGrad's clip: rounds away always */
        if (i % 19 == 2) x[i] = 1e-40f * (i % 2 ? 1 : -1);
    }
    return x;
}

/* ORQ's value of element i between its bucket's k ascending levels lv: the
 * interval [lv[m], lv[m+1]] holding x (m counts the interior levels <= x),
 * rounded up where u < (x - lv[m]) / (lv[m+1] - lv[m]) as the encoder
 * computes it (the inverse width, then a product). */
static float orq_value(float x, const float *lv, unsigned k, uint32_t key, size_t i)
{
    unsigned m = 0;
    for (unsigned t = 1; t + 1 < k; t++) m += x >= lv[t];
    const float prob = (x - lv[m]) * inverse(lv[m + 1] - lv[m]);
    return lv[m + (draw24(key, i) * (1.0f / 16777216.0f) < prob)];
}

/* Elements whose decoded value differs from the rule's. */
static size_t mismatches(const char *spec, const float *x, size_t n, uint64_t seed)
{
    qz_params p = test_spec(spec);
    size_t size, bad = 0;
    unsigned char *buf = test_encode(&p, x, n, seed, &size);
    float *y = malloc(n * sizeof *y);
    if (!buf || qz_decode(y, n, buf, size) != n) {
        free(buf), free(y);
        return n + 1;
    }
    const size_t blen = p.bucket == 0 || p.bucket > n ? n : p.bucket;
    const uint32_t key = rng_key32(seed, 0);
    for (size_t i = 0; i < n; i++) {
        float want;
        if (p.id == QZ_ORQ) { /* the bucket's levels, side by side after the header */
            float lv[16];
            for (unsigned m = 0; m < p.levels; m++) lv[m] = stored_float(buf, i / blen * p.levels + m);
            want = orq_value(x[i], lv, p.levels, key, i);
        } else {
            const float s = stored_float(buf, i / blen);
            want =
                p.id == QZ_TERNGRAD ? terngrad_value(x[i], s, key, i) : qsgd_value(x[i], s, (p.levels - 1) / 2, key, i);
        }
        bad += memcmp(&want, &y[i], 4) != 0;
    }
    free(buf), free(y);
    return bad;
}

/* Every element's probability equal to its own draw (a bucket of max 1:
 * TernGrad with clip=0 and QSGD with norm=max and one level each side take
 * |x| itself as the probability): the rule keeps all of them at 0. */
static void test_draw_equal_to_probability(void)
{
    static const char *const SPECS[] = {"terngrad:clip=0", "qsgd:levels=3,norm=max,bucket=0"};
    const uint64_t seed = 77;
    const uint32_t key = rng_key32(seed, 0);
    for (size_t s = 0; s < 2; s++)
        for (size_t n = 40; n <= 100; n += 60) {
            float *x = malloc(n * sizeof *x);
            x[0] = 1.0f;
            for (size_t i = 1; i < n; i++) x[i] = draw24(key, i) / 16777216.0f * (i % 2 ? 1 : -1);
            CHECK(mismatches(SPECS[s], x, n, seed) == 0, "%s, n = %zu: draws equal to their probabilities", SPECS[s],
                  n);
            qz_params p = test_spec(SPECS[s]);
            size_t size, zeros = 0;
            float *y = test_roundtrip(&p, x, n, seed, &size);
            for (size_t i = 1; y && i < n; i++) zeros += y[i] == 0;
            CHECK(zeros == n - 1, "%s, n = %zu: %zu of %zu such elements at 0", SPECS[s], n, zeros, n - 1);
            free(x), free(y);
        }
}

int main(void)
{
    test_draw_equal_to_probability();
    static const char *const SPECS[] = {"terngrad",
                                        "terngrad:bucket=64",
                                        "terngrad:pack=trits",
                                        "terngrad:pack=int8,bucket=100",
                                        "terngrad:clip=0",
                                        "qsgd",
                                        "qsgd:levels=3,norm=max",
                                        "qsgd:levels=15,bucket=77",
                                        "qsgd:levels=255",
                                        "qsgd:levels=7,bucket=0",
                                        "orq",
                                        "orq:levels=3,bucket=100",
                                        "orq:levels=9",
                                        "orq:levels=16,bucket=300",
                                        "orq:levels=2,bucket=64"};
    size_t lengths[120], nl = 0;
    for (size_t n = 1; n < 100; n++) lengths[nl++] = n;
    static const size_t LONG[] = {4079, 4080, 4081, 4111, 4112, 4113, 8160, 10007};
    for (size_t k = 0; k < sizeof LONG / sizeof LONG[0]; k++) lengths[nl++] = LONG[k];
    for (size_t s = 0; s < sizeof SPECS / sizeof SPECS[0]; s++) {
        size_t bad = 0, checked = 0;
        for (size_t k = 0; k < nl; k++) {
            float *x = hard_data(lengths[k], 300 + k);
            bad += mismatches(SPECS[s], x, lengths[k], 0x5EEDull * (k + 1));
            checked += lengths[k];
            free(x);
        }
        CHECK(bad == 0, "%s: %zu of %zu elements not rounded as the rule says", SPECS[s], bad, checked);
    }
    return check_summary();
}
