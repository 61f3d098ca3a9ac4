/* Unbiasedness and exact variance of every unbiased quantizer.
 *
 * For element x between levels a <= x <= c, unbiased stochastic rounding has
 * variance (c-x)(x-a). Over T seeds, the mean of the decoded values deviates
 * from x with variance (c-x)(x-a)/T, so sum_i (mean_i - x_i)^2 should be
 * V/T with V = sum_i (c-x)(x-a); and the mean squared error of one encode
 * should be V. Both are checked within bounds derived from the sample sizes
 * (the statistics are sums over >= 1000 independent elements). The levels
 * are read from the wire, not from the library. (QSGD's Elias form draws the
 * same numbers and decodes to the same values as the dense form: test_roundtrip.) */
#include "check.h"
#include "levels.h"

static void check_unbiased_p(qz_params p, const char *spec, test_dist dist)
{
    const size_t n = 2048;
    const int T = 1000;
    float *x = test_gradient(dist, n, 77);
    double *mean = calloc(n, sizeof *mean), mse = 0, V = 0;
    size_t d = p.bucket == 0 || p.bucket > n ? n : p.bucket;
    for (int t = 0; t < T; t++) {
        size_t size;
        unsigned char *buf = test_encode(&p, x, n, 1000 + t, &size);
        float *y = malloc(n * sizeof *y);
        qz_decode(y, n, buf, size);
        for (size_t i = 0; i < n; i++) {
            mean[i] += y[i];
            mse += ((double)y[i] - x[i]) * ((double)y[i] - x[i]);
        }
        if (t == 0) { /* levels depend on data only, not on the seed */
            for (size_t i = 0; i < n; i++) {
                float lv[256];
                unsigned k = wire_levels(&p, buf, i / d, lv);
                double a, c;
                level_neighbours(lv, k, x[i], &a, &c);
                V += (c - x[i]) * (x[i] - a);
            }
        }
        free(y);
        free(buf);
    }
    mse /= T;
    double dev = 0;
    for (size_t i = 0; i < n; i++) {
        double m = mean[i] / T - x[i];
        dev += m * m;
    }
    /* dev*T/V is a weighted chi-square mean with ~n terms: within 25% by far */
    double ratio_dev = dev * T / V, ratio_mse = mse / V;
    CHECK(ratio_dev > 0.75 && ratio_dev < 1.25, "%s on %s: mean deviation %.3f x the unbiased expectation", spec,
          TEST_DIST_NAMES[dist], ratio_dev);
    /* mse is an average over T*n draws: within 3% */
    CHECK(ratio_mse > 0.97 && ratio_mse < 1.03, "%s on %s: empirical variance %.4f x sum (c-x)(x-a)", spec,
          TEST_DIST_NAMES[dist], ratio_mse);
    free(mean);
    free(x);
}

static void check_unbiased(const char *spec, test_dist dist) { check_unbiased_p(test_spec(spec), spec, dist); }

int main(void)
{
    static const char *const UNBIASED[] = {
        "terngrad:clip=0",
        "terngrad:clip=0,bucket=256,pack=trits",
        "qsgd:levels=3",
        "qsgd:levels=5,norm=max",
        "qsgd:levels=9,bucket=128",
        "orq:levels=2",
        "orq:levels=3",
        "orq:levels=5",
        "orq:levels=9,bucket=256",
    };
    for (size_t c = 0; c < sizeof UNBIASED / sizeof UNBIASED[0]; c++) {
        check_unbiased(UNBIASED[c], DIST_GAUSSIAN);
        check_unbiased(UNBIASED[c], DIST_STUDENT3);
        const qz_params q = test_spec(UNBIASED[c]);
        CHECK(!qz_biased(q.id), "%s is unbiased (above) but its codec row says biased", UNBIASED[c]);
    }
    /* the codec rows' biased flag, which turns the trainer's error feedback on: the three deterministic
     * compressors (sign, top-k's dropped elements, BinGrad-b's two-level fit), nothing else */
    int nbiased = 0;
    for (qz_id id = QZ_FP32; id < QZ_ID_END_; id++) nbiased += qz_biased(id);
    CHECK(nbiased == 4 && qz_biased(QZ_SIGNSGD) && qz_biased(QZ_TOPK) && qz_biased(QZ_BINGRAD_B) &&
              qz_biased(QZ_POWERSGD),
          "%d quantizers flagged biased, want signsgd, topk, bingrad-b and powersgd", nbiased);
    /* scaler sharing: a shared scaler above every |g| keeps TernGrad unbiased */
    qz_params p = test_spec("terngrad:clip=0,bucket=64");
    p.shared_scale = 0.02f; /* > max |g| of 2048 Laplace(1e-3) samples with overwhelming probability */
    check_unbiased_p(p, "terngrad:clip=0,bucket=64 shared=0.02", DIST_LAPLACE);
    return check_summary();
}
