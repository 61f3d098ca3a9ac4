/* Edge cases with defined behaviour (docs/quantizers.md#edge-cases), for every
 * quantizer: an all-zero bucket decodes to zeros; a constant bucket decodes
 * exactly where the quantizer can represent it; n = 1; n not a multiple of
 * the bucket; NaN or Inf input is GQ_ERR_NONFINITE and n = 0 GQ_ERR_EMPTY;
 * a too-small output or workspace is an error and nothing is written past it;
 * TernGrad's shared scaler is what goes on the wire. */
#include <float.h>

#include "check.h"
#include "levels.h"

static const char *const ALL[] = {
    "fp32",
    "fp16",
    "terngrad",
    "terngrad:pack=trits",
    "terngrad:scale=sigma",
    "terngrad:pack=int8",
    "qsgd",
    "qsgd:code=elias",
    "qsgd:norm=max,levels=9",
    "orq",
    "orq:levels=16",
    "bingrad-b",
    "bingrad-pb",
    "signsgd",
    "signsgd:pack=byte",
    "topk",
    "topk:index=64",
    "powersgd",
    "powersgd:rank=1,warm=off",
};
#define NALL (sizeof ALL / sizeof ALL[0])

static void test_zeros_and_constants(void)
{
    const size_t n = 1500;
    float *zero = calloc(n, sizeof *zero), *cst = malloc(n * sizeof *cst);
    for (size_t i = 0; i < n; i++) cst[i] = 0.25f;
    for (size_t c = 0; c < NALL; c++) {
        qz_params p = test_spec(ALL[c]);
        size_t size;
        float *y = test_roundtrip(&p, zero, n, 1, &size);
        int nonzero = 0;
        for (size_t i = 0; y && i < n; i++) nonzero += y[i] != 0.0f;
        CHECK(y && nonzero == 0, "%s: all-zero input decodes to zeros (%d non-zero)", ALL[c], nonzero);
        free(y);
        /* a constant is exact for every quantizer whose top level is max |g| or a bucket value
         * (not for QSGD's L2 norm, whose levels are multiples of ||g||/s) */
        if (p.id == QZ_TOPK || (p.id == QZ_TERNGRAD && p.clip > 0) || (p.id == QZ_QSGD && p.norm == QZ_NORM_L2))
            continue;
        if (p.id == QZ_POWERSGD) { /* a constant has rank 1: its factors give it back, rounded twice */
            y = test_roundtrip(&p, cst, n, 1, &size);
            double worst = 0;
            for (size_t i = 0; y && i < n; i++) worst = fmax(worst, fabs(y[i] - 0.25));
            CHECK(y && worst <= 0.25 * 1e-6, "%s: a constant bucket decodes within 1e-6 (%.3g off)", ALL[c], worst);
            free(y);
            continue;
        }
        y = test_roundtrip(&p, cst, n, 1, &size);
        int off = 0;
        for (size_t i = 0; y && i < n; i++) off += y[i] != 0.25f;
        CHECK(y && off == 0, "%s: a constant bucket decodes exactly (%d off)", ALL[c], off);
        free(y);
    }
    free(zero);
    free(cst);
}

static void test_odd_sizes(void)
{
    static const size_t NS[] = {1, 2, 3, 511, 513, 4079, 4081, 8161};
    for (size_t c = 0; c < NALL; c++) {
        qz_params p = test_spec(ALL[c]);
        int bad = 0;
        /* QSGD with the L2 norm has variance up to min(d/s^2, sqrt(d)/s) ||g||^2 (Alistarh et
         * al., Lemma 3.1); every other quantizer here stays below the signal, well within 4x */
        double s = (p.levels - 1) / 2.0, d = p.bucket ? (double)p.bucket : 8161.0;
        double limit = p.id == QZ_QSGD && p.norm == QZ_NORM_L2 ? 1.5 * fmin(d / (s * s), sqrt(d) / s) : 4.0;
        for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++) {
            size_t n = NS[t], size;
            float *x = test_gradient(DIST_GAUSSIAN, n, 40 + t);
            float *y = test_roundtrip(&p, x, n, 3, &size);
            double e = 0, norm = 0;
            for (size_t i = 0; y && i < n; i++) e += (y[i] - x[i]) * (y[i] - x[i]), norm += x[i] * x[i];
            bad += !y || !(e <= limit * norm);
            free(x);
            free(y);
        }
        CHECK(bad == 0, "%s: %d odd sizes failed to round-trip sensibly", ALL[c], bad);
    }
    /* n = 1: unbiased quantizers return the value itself (min = max) */
    float one = -0.125f;
    static const char *const EXACT1[] = {"fp32",      "fp16",       "terngrad:clip=0", "qsgd", "orq",
                                         "bingrad-b", "bingrad-pb", "signsgd",         "topk", "powersgd"};
    for (size_t c = 0; c < sizeof EXACT1 / sizeof EXACT1[0]; c++) {
        qz_params p = test_spec(EXACT1[c]);
        size_t size;
        float *y = test_roundtrip(&p, &one, 1, 9, &size);
        CHECK(y && *y == one, "%s: n = 1 round-trips exactly (got %g)", EXACT1[c], y ? *y : NAN);
        free(y);
    }
}

static void test_bad_input(void)
{
    const size_t n = 1000;
    float *x = test_gradient(DIST_GAUSSIAN, n, 3);
    for (size_t c = 0; c < NALL; c++) {
        qz_params p = test_spec(ALL[c]);
        size_t size;
        float saved = x[n / 2];
        x[n / 2] = NAN;
        unsigned char *buf = test_encode(&p, x, n, 1, &size);
        CHECK(!buf && gq_error_code(size) == GQ_ERR_NONFINITE, "%s: NaN input -> GQ_ERR_NONFINITE", ALL[c]);
        free(buf);
        x[n / 2] = -INFINITY;
        buf = test_encode(&p, x, n, 1, &size);
        CHECK(!buf && gq_error_code(size) == GQ_ERR_NONFINITE, "%s: -Inf input -> GQ_ERR_NONFINITE", ALL[c]);
        free(buf);
        x[n / 2] = saved;
        unsigned char tiny[64];
        CHECK(gq_error_code(qz_encode(tiny, sizeof tiny, x, 0, &p, 1, NULL, 0)) == GQ_ERR_EMPTY,
              "%s: n = 0 -> GQ_ERR_EMPTY", ALL[c]);

        /* too-small output: an error, and the guard bytes after the capacity untouched */
        size_t bound = qz_bound(&p, n), wcap = qz_workspace_size(&p, n);
        unsigned char *out = malloc(bound + 16);
        void *work = malloc(wcap + 1);
        memset(out, 0xA5, bound + 16);
        size_t r = qz_encode(out, bound - 1, x, n, &p, 1, work, wcap);
        int guard = 0;
        for (size_t i = bound - 1; i < bound + 16; i++) guard += out[i] != 0xA5;
        CHECK(gq_error_code(r) == GQ_ERR_DST_TOO_SMALL && guard == 0, "%s: short output is refused", ALL[c]);
        if (wcap > 0)
            CHECK(gq_error_code(qz_encode(out, bound, x, n, &p, 1, work, wcap - 1)) == GQ_ERR_WORK_TOO_SMALL,
                  "%s: short workspace is refused", ALL[c]);
        r = qz_encode(out, bound, x, n, &p, 1, work, wcap);
        float *y = malloc(n * sizeof *y);
        CHECK(!gq_is_error(r) && gq_error_code(qz_decode(y, n - 1, out, r)) == GQ_ERR_DST_TOO_SMALL,
              "%s: decode into too few elements is refused", ALL[c]);
        free(y);
        free(out);
        free(work);
    }
    free(x);
}

static void test_shared_scale(void)
{
    const size_t n = 777;
    float *x = test_gradient(DIST_GAUSSIAN, n, 4);
    qz_params p = test_spec("terngrad:bucket=100");
    p.shared_scale = 0.5f;
    size_t size;
    unsigned char *buf = test_encode(&p, x, n, 1, &size);
    int bad = 0;
    for (size_t b = 0; buf && b < 8; b++) bad += wire_f32(buf + 32 + 4 * b) != 0.5f;
    CHECK(buf && bad == 0, "the shared scaler is every bucket's scale on the wire");
    free(buf);
    free(x);
}

/* fp16 against the definition of binary16, for every finite half: its value
 * encodes to itself and decodes exactly; the midpoint between two neighbours
 * goes to the one with the even significand, a hair either side to the nearer;
 * beyond 65504 saturates. The array's length is not a multiple of 8, so both
 * the vector path (F16C where built) and the scalar tail are checked. */
static double half_value(unsigned h)
{
    unsigned e = (h >> 10) & 31u, m = h & 1023u;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, (int)e - 25);
    return (h & 0x8000u) ? -v : v;
}

static void test_fp16_definition(void)
{
    enum { NH = 0x7C00 }; /* finite magnitudes 0 .. 0x7BFF */
    size_t cap = 2 * 4 * NH + 64, n = 0;
    float *x = malloc(cap * sizeof *x);
    uint16_t *want = malloc(cap * sizeof *want);
    for (unsigned sign = 0; sign <= 0x8000u; sign += 0x8000u)
        for (unsigned h = 0; h < NH; h++) {
            x[n] = (float)half_value(sign | h), want[n++] = (uint16_t)(sign | h);
            if (h + 1 < NH) {
                double lo = half_value(sign | h), hi = half_value(sign | (h + 1)), mid = (lo + hi) / 2;
                x[n] = (float)mid, want[n++] = (uint16_t)(sign | ((h & 1) ? h + 1 : h));
                x[n] = nextafterf((float)mid, (float)lo), want[n++] = (uint16_t)(sign | h);
                x[n] = nextafterf((float)mid, (float)hi), want[n++] = (uint16_t)(sign | (h + 1));
            }
        }
    const float sat[] = {65519.99f, 65520.0f, 1e30f, FLT_MAX, -65520.0f, -1e30f};
    for (size_t i = 0; i < sizeof sat / sizeof sat[0]; i++) x[n] = sat[i], want[n++] = sat[i] > 0 ? 0x7BFF : 0xFBFF;
    x[n] = 1e-30f, want[n++] = 0; /* below half the smallest subnormal */
    qz_params p = test_spec("fp16");
    size_t bound = qz_bound(&p, n);
    unsigned char *buf = malloc(bound);
    size_t size = qz_encode(buf, bound, x, n, &p, 1, NULL, 0);
    CHECK(size == 32 + 2 * n, "fp16: %zu elements encode to %zu bytes", n, size);
    size_t wrong = 0, first = n;
    for (size_t i = 0; i < n && size == 32 + 2 * n; i++) {
        unsigned got = buf[32 + 2 * i] | buf[32 + 2 * i + 1] << 8;
        if (got != want[i]) wrong++, first = first < n ? first : i;
    }
    CHECK(wrong == 0, "fp16: %zu of %zu conversions differ from binary16's rounding (first: %.9g)", wrong, n,
          first < n ? x[first] : 0.0);
    float *y = malloc(n * sizeof *y);
    size_t got = qz_decode(y, n, buf, size);
    wrong = 0;
    for (size_t i = 0; got == n && i < n; i++) wrong += (double)y[i] != half_value(want[i]);
    CHECK(got == n && wrong == 0, "fp16: %zu of %zu decode to another value than their half", wrong, n);
    free(buf), free(x), free(want), free(y);
}

/* Finite gradients whose float sums overflow (|x| near 1e37: a bucket's sum
 * of squares, or a lane's 64 |x|, passes FLT_MAX): the encode succeeds and each
 * bucket's stored norm is the one summed in double, in element order. QSGD's
 * L2 norm and signSGD's mean tell finiteness from their sums alone (no max),
 * so an overflow must not be taken for a NaN; checked on the four-at-a-time
 * fit and on the short last bucket's own. */
static void test_sums_overflow_float(void)
{
    static const char *const SPECS[] = {"qsgd:bucket=512", "signsgd:bucket=512", "terngrad:bucket=512,scale=sigma"};
    const size_t n = 9000, d = 512, nb = (n + d - 1) / d;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (i % 3 ? 1.0f : -1.0f) * 8e36f * (1.0f + (float)(i % 7) / 8.0f);
    for (size_t c = 0; c < sizeof SPECS / sizeof SPECS[0]; c++) {
        qz_params p = test_spec(SPECS[c]);
        size_t size;
        unsigned char *buf = test_encode(&p, x, n, 5, &size);
        CHECK(buf != NULL, "%s: finite values near 1e37 encode (got %s)", SPECS[c],
              buf ? "a buffer" : gq_strerror(gq_error_code(size)));
        size_t wrong = 0;
        for (size_t b = 0; buf && b < nb && c < 2; b++) {
            const size_t len = b + 1 < nb ? d : n - b * d;
            double sum = 0;
            for (size_t i = b * d; i < b * d + len; i++) sum += c == 0 ? (double)x[i] * x[i] : fabs((double)x[i]);
            const float want = c == 0 ? (float)sqrt(sum) : (float)(sum / (double)len);
            float got;
            memcpy(&got, buf + QZ_HEADER_BYTES + 4 * b, 4);
            wrong += got != want;
        }
        CHECK(wrong == 0, "%s: %zu of %zu bucket norms differ from the double sums", SPECS[c], wrong, nb);
        free(buf);
    }
    free(x);
}

/* Buckets fitted four at a time (the dense driver's fit_many) store what each
 * bucket fitted alone stores: every bucket's scale in a long encode equals
 * the scale of that bucket encoded by itself; and a NaN or Inf in any of the
 * four is still an error. */
static void test_buckets_fitted_together(void)
{
    static const char *const SPECS[] = {
        "qsgd:bucket=512",      "qsgd:norm=max,levels=9,bucket=256", "signsgd:bucket=512",
        "terngrad:bucket=1024", "terngrad:bucket=128,clip=0",        "terngrad:bucket=512,scale=sigma"};
    const size_t n = 9000; /* not a multiple of any bucket: a short last one */
    float *x = test_gradient(DIST_LAPLACE, n, 17);
    for (size_t c = 0; c < sizeof SPECS / sizeof SPECS[0]; c++) {
        qz_params p = test_spec(SPECS[c]);
        const size_t d = p.bucket, nb = (n + d - 1) / d;
        size_t size, one;
        unsigned char *all = test_encode(&p, x, n, 5, &size);
        int bad = !all;
        for (size_t b = 0; all && b < nb; b++) {
            const size_t len = b + 1 < nb ? d : n - b * d;
            unsigned char *alone = test_encode(&p, x + b * d, len, 5, &one);
            bad += !alone || memcmp(all + QZ_HEADER_BYTES + 4 * b, alone + QZ_HEADER_BYTES, 4) != 0;
            free(alone);
        }
        free(all);
        CHECK(bad == 0, "%s: %d bucket scales differ from the bucket fitted alone", SPECS[c], bad);
        for (size_t at = 100; at < 4 * d; at += d) { /* in each of the first four buckets */
            float saved = x[at];
            x[at] = at % 2 ? NAN : INFINITY;
            unsigned char *buf = test_encode(&p, x, n, 5, &size);
            CHECK(!buf && gq_error_code(size) == GQ_ERR_NONFINITE, "%s: a non-finite element %zu -> GQ_ERR_NONFINITE",
                  SPECS[c], at);
            free(buf);
            x[at] = saved;
        }
    }
    free(x);
}

int main(void)
{
    test_buckets_fitted_together();
    test_sums_overflow_float();
    test_fp16_definition();
    test_zeros_and_constants();
    test_odd_sizes();
    test_bad_input();
    test_shared_scale();
    return check_summary();
}
