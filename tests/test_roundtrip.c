/* Round trips: decoded values lie exactly on their bucket's levels as read
 * from the wire; the same seed gives the same bytes and another seed other
 * bytes; fp32 is exact and fp16 within half an ulp of binary16; top-k keeps
 * the k largest; the dense and Elias forms of QSGD decode to the same values;
 * deterministic quantizers ignore the seed. */
#include "check.h"
#include "levels.h"

static const char *const LEVEL_SPECS[] = {
    "terngrad",
    "terngrad:clip=0,pack=trits,bucket=300",
    "terngrad:scale=sigma",
    "qsgd:levels=3",
    "qsgd:levels=9,norm=max,bucket=100",
    "qsgd:levels=255,bucket=64",
    "orq:levels=2",
    "orq:levels=5",
    "orq:levels=16,bucket=200",
    "bingrad-b",
    "bingrad-pb:bucket=128",
    "signsgd",
    "signsgd:bucket=50",
};

static void test_on_levels(void)
{
    const size_t n = 3001;
    for (size_t c = 0; c < sizeof LEVEL_SPECS / sizeof LEVEL_SPECS[0]; c++) {
        qz_params p = test_spec(LEVEL_SPECS[c]);
        for (int dist = 0; dist < 4; dist++) {
            float *x = test_gradient((test_dist)dist, n, 100 + dist);
            size_t size;
            unsigned char *buf = test_encode(&p, x, n, 42, &size);
            float *y = malloc(n * sizeof *y);
            size_t r = buf ? qz_decode(y, n, buf, size) : 0;
            size_t d = p.bucket == 0 || p.bucket > n ? n : p.bucket, off = 0;
            for (size_t i = 0; r == n && i < n; i++) {
                float lv[256];
                unsigned k = wire_levels(&p, buf, i / d, lv);
                int on = 0;
                for (unsigned m = 0; m < k; m++) on |= y[i] == lv[m];
                off += !on;
            }
            CHECK(r == n && off == 0, "%s on %s: %zu of %zu decoded values are off the wire levels", LEVEL_SPECS[c],
                  TEST_DIST_NAMES[dist], off, n);
            free(buf);
            free(y);
            free(x);
        }
    }
}

static void test_seeds(void)
{
    const size_t n = 5000;
    float *x = test_gradient(DIST_GAUSSIAN, n, 7);
    static const char *const STOCHASTIC[] = {"terngrad", "qsgd", "qsgd:code=elias", "orq", "bingrad-pb"};
    for (size_t c = 0; c < 5; c++) {
        qz_params p = test_spec(STOCHASTIC[c]);
        size_t s1, s2, s3;
        unsigned char *a = test_encode(&p, x, n, 1, &s1), *b = test_encode(&p, x, n, 1, &s2),
                      *d = test_encode(&p, x, n, 2, &s3);
        CHECK(s1 == s2 && memcmp(a, b, s1) == 0, "%s: same seed, same bytes", STOCHASTIC[c]);
        CHECK(s1 != s3 || memcmp(a, d, s1) != 0, "%s: another seed, other bytes", STOCHASTIC[c]);
        free(a), free(b), free(d);
    }
    static const char *const DETERMINISTIC[] = {"bingrad-b", "signsgd", "topk", "fp16"};
    for (size_t c = 0; c < 4; c++) {
        qz_params p = test_spec(DETERMINISTIC[c]);
        size_t s1, s3;
        unsigned char *a = test_encode(&p, x, n, 1, &s1), *d = test_encode(&p, x, n, 99, &s3);
        CHECK(s1 == s3 && memcmp(a, d, s1) == 0, "%s ignores the seed", DETERMINISTIC[c]);
        free(a), free(d);
    }
    free(x);
}

static int desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

static void test_exact_formats(void)
{
    const size_t n = 4097;
    float *x = test_gradient(DIST_STUDENT3, n, 9);
    x[0] = 70000.0f; /* beyond binary16: saturates */
    x[1] = 3e-8f;    /* a binary16 subnormal */
    size_t size;
    qz_params p = test_spec("fp32");
    float *y = test_roundtrip(&p, x, n, 0, &size);
    CHECK(y && memcmp(x, y, n * sizeof *x) == 0, "fp32 is lossless");
    free(y);
    p = test_spec("fp16");
    y = test_roundtrip(&p, x, n, 0, &size);
    int bad = 0;
    for (size_t i = 2; y && i < n; i++) {
        double ax = fabs(x[i]), tol = ax >= 6.103515625e-05 ? ax * (1.0 / 2048) : 2.98023223876953125e-08;
        bad += fabs(y[i] - x[i]) > tol;
    }
    CHECK(y && bad == 0, "fp16 within half an ulp (%d off)", bad);
    CHECK(y && y[0] == 65504.0f, "fp16 saturates at 65504 (got %g)", y ? y[0] : 0);
    /* half subnormals are multiples of 2^-24 = 5.96e-8; 3e-8 is 0.503 of a step */
    CHECK(y && y[1] == 5.9604644775390625e-08f, "fp16 rounds 3e-8 up to the subnormal 2^-24 (got %g)", y ? y[1] : 0);
    free(y);

    x[0] = 1.0f;
    p = test_spec("topk:ratio=0.01");
    y = test_roundtrip(&p, x, n, 0, &size);
    size_t k = (size_t)ceil(0.01 * n), kept = 0;
    float *mag = malloc(n * sizeof *mag);
    for (size_t i = 0; i < n; i++) mag[i] = fabsf(x[i]);
    float *sorted = malloc(n * sizeof *sorted);
    memcpy(sorted, mag, n * sizeof *mag);
    qsort(sorted, n, sizeof *sorted, desc);
    float thr = sorted[k - 1]; /* the k-th largest magnitude */
    free(sorted);
    bad = 0;
    for (size_t i = 0; y && i < n; i++) {
        if (y[i] != 0) kept++, bad += y[i] != x[i] || mag[i] < thr;
    }
    CHECK(y && kept == k && bad == 0, "topk keeps exactly the %zu largest (kept %zu, %d wrong)", k, kept, bad);
    free(mag);
    free(y);
    free(x);
}

static void test_elias_equals_dense(void)
{
    const size_t n = 10000;
    float *x = test_gradient(DIST_LAPLACE, n, 11);
    static const char *const PAIRS[][2] = {
        {"qsgd:levels=5", "qsgd:levels=5,code=elias"},
        {"qsgd:levels=3,norm=max,bucket=0", "qsgd:levels=3,norm=max,bucket=0,code=elias"}};
    for (int c = 0; c < 2; c++) {
        qz_params pd = test_spec(PAIRS[c][0]), pe = test_spec(PAIRS[c][1]);
        size_t sd, se;
        float *yd = test_roundtrip(&pd, x, n, 5, &sd), *ye = test_roundtrip(&pe, x, n, 5, &se);
        CHECK(yd && ye && memcmp(yd, ye, n * sizeof *yd) == 0, "%s decodes as its dense form", PAIRS[c][1]);
        free(yd), free(ye);
    }
    qz_params p = test_spec("qsgd:levels=3,code=elias,bucket=0");
    size_t se, sd;
    qz_params pdense = test_spec("qsgd:levels=3,bucket=0");
    free(test_encode(&p, x, n, 5, &se));
    free(test_encode(&pdense, x, n, 5, &sd));
    CHECK(se < sd, "QSGD-3 with the L2 norm is sparse: Elias (%zu B) beats dense (%zu B)", se, sd);
    free(x);
}

/* top-k on arrays large enough for the sampled threshold, against the
 * definition: sort all indices by |g| descending, ties by lower index, keep
 * the first k, list them by index. Cases: Gaussian; heavy ties (values from a
 * set of 7); many zeros; large values only at the sampled positions (the
 * sample overestimates: the exact fallback must run); large values only
 * between them (the sample underestimates: many candidates). */
static const float *sort_key_;
static int by_mag_desc(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    float x = fabsf(sort_key_[i]), y = fabsf(sort_key_[j]);
    if (x != y) return x > y ? -1 : 1;
    return i < j ? -1 : 1;
}
static int by_index(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return i < j ? -1 : i > j;
}

static void test_topk_selection(void)
{
    const size_t n = 1000003, stride = n / 16384;
    float *x = malloc(n * sizeof *x);
    size_t *order = malloc(n * sizeof *order);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    const char *const RATIOS[] = {"topk:ratio=0.01", "topk:ratio=0.001", "topk:ratio=0.05"};
    for (int kind = 0; kind < 5; kind++)
        for (int q = 0; q < 3; q++) {
            gsl_rng_set(r, 100 + (unsigned long)kind);
            for (size_t i = 0; i < n; i++) {
                double g = gsl_ran_gaussian(r, 1.0);
                x[i] = kind == 0   ? (float)g
                       : kind == 1 ? (float)((int)(g * 2) % 7) * 0.5f
                       : kind == 2 ? (i % 3 ? 0.0f : (float)g)
                       : kind == 3 ? (float)(i % stride == 0 ? 10 + g : g * 0.01)
                                   : (float)(i % stride != 0 ? 10 + g : g * 0.01);
            }
            qz_params p = test_spec(RATIOS[q]);
            size_t k = (size_t)ceil((double)p.ratio * n), bound = qz_bound(&p, n);
            size_t work = qz_workspace_size(&p, n);
            unsigned char *buf = malloc(bound);
            void *w = malloc(work);
            size_t size = qz_encode(buf, bound, x, n, &p, 1, w, work);
            for (size_t i = 0; i < n; i++) order[i] = i;
            sort_key_ = x;
            qsort(order, n, sizeof *order, by_mag_desc);
            qsort(order, k, sizeof *order, by_index);
            size_t wrong = 0;
            for (size_t t = 0; size == 32 + 8 + 8 * k && t < k; t++) {
                const unsigned char *ip = buf + 40 + 4 * t, *vp = buf + 40 + 4 * k + 4 * t;
                uint32_t idx = (uint32_t)ip[0] | (uint32_t)ip[1] << 8 | (uint32_t)ip[2] << 16 | (uint32_t)ip[3] << 24;
                float v;
                memcpy(&v, vp, 4);
                wrong += idx != order[t] || v != x[order[t]];
            }
            CHECK(size == 32 + 8 + 8 * k && wrong == 0,
                  "%s, case %d: %zu of %zu kept elements differ from the definition", RATIOS[q], kind, wrong, k);
            free(buf), free(w);
        }
    gsl_rng_free(r);
    free(x), free(order);
}

int main(void)
{
    test_topk_selection();
    test_on_levels();
    test_seeds();
    test_exact_formats();
    test_elias_equals_dense();
    return check_summary();
}
