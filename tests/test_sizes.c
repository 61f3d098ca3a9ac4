/* Encoded sizes equal the documented formulas (docs/wire-format.md) to the
 * byte, for every quantizer, over awkward n and bucket sizes; Elias sizes
 * equal the sum of the gamma-code lengths recomputed from the decoded values;
 * and the size arithmetic holds in 64 bits for huge n and reports overflow. */
#include "check.h"

/* Documented layout, written out independently of the library. */
typedef struct {
    const char *spec;
    unsigned stored; /* floats per bucket */
    unsigned bits;   /* bits per element; 0 = trits */
} dense_case;

static const dense_case DENSE[] = {
    {"terngrad", 1, 2},
    {"terngrad:pack=trits", 1, 0},
    {"terngrad:bucket=100", 1, 2},
    {"terngrad:bucket=7,pack=trits", 1, 0},
    {"qsgd:levels=3", 1, 2},
    {"qsgd:levels=5", 1, 3},
    {"qsgd:levels=9,norm=max", 1, 4},
    {"qsgd:levels=17,bucket=100", 1, 5},
    {"qsgd:levels=255,bucket=64", 1, 8},
    {"orq:levels=2", 2, 1},
    {"orq:levels=3", 3, 2},
    {"orq:levels=5", 5, 3},
    {"orq:levels=9,bucket=128", 9, 4},
    {"orq:levels=16,bucket=1000", 16, 4},
    {"bingrad-b", 2, 1},
    {"bingrad-pb:bucket=128", 2, 1},
    {"signsgd", 1, 1},
    {"signsgd:bucket=33", 1, 1},
};

static unsigned long long ceil_div(unsigned long long a, unsigned long long b) { return (a + b - 1) / b; }

static unsigned long long gamma_bits(unsigned long long v)
{
    unsigned nb = 0;
    while ((v >> nb) > 1) nb++;
    return 2ull * nb + 1;
}

int main(void)
{
    static const size_t NS[] = {1, 2, 5, 7, 8, 63, 100, 511, 512, 513, 1000, 4080, 4081, 12345, 100000};
    int bad = 0, checked = 0;
    for (size_t c = 0; c < sizeof DENSE / sizeof DENSE[0]; c++) {
        qz_params p = test_spec(DENSE[c].spec);
        for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++) {
            size_t n = NS[t], size;
            unsigned long long d = p.bucket == 0 || p.bucket > n ? n : p.bucket;
            unsigned long long want =
                32 + ceil_div(n, d) * DENSE[c].stored * 4 +
                (DENSE[c].bits ? ceil_div((unsigned long long)n * DENSE[c].bits, 8) : ceil_div(n, 5));
            float *x = test_gradient(DIST_GAUSSIAN, n, 10 + t);
            unsigned char *buf = test_encode(&p, x, n, 7, &size);
            if (!buf || size != want || qz_exact_size(&p, n) != want) {
                bad++;
                fprintf(stderr, "%s n=%zu: size %zu, formula %llu\n", DENSE[c].spec, n, size, want);
            }
            checked++;
            free(buf);
            free(x);
        }
    }
    CHECK(bad == 0 && checked > 200, "%d of %d dense sizes differ from the formula", bad, checked);

    /* fp32, fp16, topk */
    bad = 0;
    for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++) {
        size_t n = NS[t], s32, s16, stk;
        float *x = test_gradient(DIST_LAPLACE, n, 30 + t);
        qz_params p32 = test_spec("fp32"), p16 = test_spec("fp16"), ptk = test_spec("topk:ratio=0.01");
        free(test_encode(&p32, x, n, 1, &s32));
        free(test_encode(&p16, x, n, 1, &s16));
        free(test_encode(&ptk, x, n, 1, &stk));
        unsigned long long k = (unsigned long long)ceil(0.01 * n);
        if (k < 1) k = 1;
        bad += s32 != 32 + 4 * n || s16 != 32 + 2 * n || stk != 32 + 8 + k * 8;
        free(x);
    }
    CHECK(bad == 0, "%d fp32/fp16/topk sizes differ from 32+4n, 32+2n, 40+8k", bad);

    /* Elias: the size is the sum of the code lengths of what was sent */
    bad = 0;
    static const char *ELIAS[] = {"qsgd:levels=3,code=elias", "qsgd:levels=5,code=elias,bucket=100",
                                  "qsgd:levels=9,code=elias,norm=max", "qsgd:levels=33,code=elias,bucket=0"};
    for (size_t c = 0; c < 4; c++) {
        qz_params p = test_spec(ELIAS[c]);
        unsigned s = (p.levels - 1) / 2;
        for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++) {
            size_t n = NS[t], size;
            float *x = test_gradient(DIST_STUDENT3, n, 50 + t);
            float *y = test_roundtrip(&p, x, n, 3, &size);
            size_t d = p.bucket == 0 || p.bucket > n ? n : p.bucket;
            unsigned long long bits = 0;
            for (size_t b0 = 0; b0 < n; b0 += d) {
                size_t len = n - b0 < d ? n - b0 : d, nnz = 0;
                double norm = 0;
                for (size_t i = b0; i < b0 + len; i++)
                    norm = p.norm == QZ_NORM_MAX ? fmax(norm, fabs(x[i])) : norm + (double)x[i] * x[i];
                if (p.norm == QZ_NORM_L2) norm = sqrt(norm);
                bits += 32;
                long prev = -1;
                for (size_t i = b0; i < b0 + len; i++) {
                    if (y[i] == 0) continue;
                    unsigned long long level = (unsigned long long)llround(fabs(y[i]) / (float)norm * s);
                    bits += gamma_bits((unsigned long long)((long)(i - b0) - prev)) + 1 + gamma_bits(level);
                    prev = (long)(i - b0);
                    nnz++;
                }
                bits += gamma_bits(nnz + 1);
            }
            bad += y == NULL || size != 32 + ceil_div(bits, 8) || size > qz_bound(&p, n);
            free(x);
            free(y);
        }
    }
    CHECK(bad == 0, "%d Elias sizes differ from the sum of their code lengths", bad);

    /* 64-bit sizes: formulas at n = 2^40, no allocation */
    size_t big = (size_t)1 << 40;
    qz_params tg = test_spec("terngrad"), tr = test_spec("terngrad:pack=trits"), o5 = test_spec("orq:levels=5"),
              tk = test_spec("topk:ratio=0.001"), f32 = test_spec("fp32");
    CHECK(qz_bound(&tg, big) == 32 + 4 + big / 4, "terngrad 2-bit at 2^40");
    CHECK(qz_bound(&tr, big) == 32 + 4 + ceil_div(big, 5), "terngrad trits at 2^40");
    CHECK(qz_bound(&o5, big) == 32 + (big / 512) * 20 + big / 8 * 3, "orq-5 at 2^40");
    size_t ktk = (size_t)ceil(0.001f * (double)big);
    CHECK(qz_bound(&tk, big) == 32 + 8 + ktk * 12, "topk uses 8-byte indices beyond 2^32 (%zu)", qz_bound(&tk, big));
    CHECK(qz_bound(&f32, big) == 32 + 4 * big, "fp32 at 2^40");
    CHECK(gq_error_code(qz_bound(&f32, SIZE_MAX / 2)) == GQ_ERR_TOO_LARGE, "fp32 size overflow is an error");
    size_t ob = qz_bound(&o5, SIZE_MAX - 3);
    CHECK(!gq_is_error(ob) && ob > (SIZE_MAX - 3) / 8 * 3, "orq-5 bound near SIZE_MAX does not wrap (%zu)", ob);
    return check_summary();
}
