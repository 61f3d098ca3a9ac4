/* quant bench's and quant sweep's tables, made in quant/ (qz_measure.h): every row where it should be and each
 * number the same as measuring that quantizer alone gives -- the sizes the codec's exact size, the errors
 * qz_measure's for the same gradient, seed and trials -- and a codec's error naming which one failed. */
#include "check.h"
#include "qz_measure.h"

static void test_sweep(void)
{
    const size_t n = 4096;
    float *x = test_gradient(DIST_GAUSSIAN, n, 3);
    const uint64_t buckets[] = {128, 512}, levels[] = {3};
    qz_scheme sch[QZ_SCHEMES_MAX(1)];
    const size_t nsch = qz_comparison_schemes(sch, levels, 1, buckets[0]);
    double nmse[2 * QZ_SCHEMES_MAX(1)];
    gq_table t;
    table_init(&t, QZ_SWEEP_COLUMNS, QZ_SWEEP_NCOLUMNS);
    char failed[128] = "";
    const gq_err e =
        qz_sweep_rows("g", x, n, buckets, 2, levels, 1, 2, 7, NULL, NULL, 0, 2 * nsch, &t, nmse, failed, sizeof failed);
    CHECK(e == GQ_OK && t.nrows == 1 + 2 * nsch, "2 buckets x %zu schemes: %zu rows (%s)", nsch, t.nrows - 1, failed);
    for (size_t b = 0; e == GQ_OK && b < 2; b++) {
        qz_comparison_schemes(sch, levels, 1, buckets[b]);
        for (size_t s = 0; s < nsch; s++) {
            const size_t row = 1 + b * nsch + s;
            qz_params p;
            qz_measured m;
            qz_parse_spec(sch[s].spec, &p, NULL, 0);
            qz_measure(&p, x, n, 2, 7, 0, &m);
            const double bits = 8.0 * (double)qz_exact_size(&p, n) / (double)n;
            CHECK(strcmp(table_cell(&t, row, 3), sch[s].spec) == 0 && nmse[b * nsch + s] == m.nmse &&
                      fabs(strtod(table_cell(&t, row, 5), NULL) / bits - 1) < 1e-5,
                  "row %zu: %s, nmse %g (alone %g), %s bits an element (exact size: %g)", row, table_cell(&t, row, 3),
                  nmse[b * nsch + s], m.nmse, table_cell(&t, row, 5), bits);
        }
    }
    table_free(&t);
    free(x);
}

static void test_bench(void)
{
    const size_t n = 2048;
    float *x = test_gradient(DIST_LAPLACE, n, 5);
    qz_params p[2];
    qz_parse_spec("terngrad", &p[0], NULL, 0);
    qz_parse_spec("qsgd:levels=5,bucket=256", &p[1], NULL, 0);
    gq_table t;
    size_t failed = 99;
    gq_err e = qz_bench_table(p, 2, x, n, 1, 1, NULL, NULL, &t, &failed);
    CHECK(e == GQ_OK && t.nrows == 4 && strcmp(table_cell(&t, 1, 0), "reference") == 0,
          "the reference, then a row a quantizer (%zu rows)", t.nrows - 1);
    for (size_t k = 0; e == GQ_OK && k < 2; k++)
        CHECK(strtoull(table_cell(&t, 2 + k, 3), NULL, 10) == qz_exact_size(&p[k], n), "row %zu: %s bytes, exact %zu",
              k + 2, table_cell(&t, 2 + k, 3), (size_t)qz_exact_size(&p[k], n));
    table_free(&t);
    /* a gradient the codec refuses (a NaN): the error, and which quantizer */
    x[7] = NAN;
    e = qz_bench_table(p, 2, x, n, 1, 1, NULL, NULL, &t, &failed);
    CHECK(e != GQ_OK && failed == 0, "a NaN: %s, at quantizer %zu", gq_strerror(e), failed);
    table_free(&t);
    free(x);
}

int main(void)
{
    test_sweep();
    test_bench();
    return check_summary();
}
