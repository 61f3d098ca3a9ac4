/* PowerSGD against linear algebra done another way (GSL's SVD): a matrix of
 * rank r comes back whole from a rank-r encode; a random matrix's error falls
 * with the rank and never beats the best rank-r approximation (Eckart-Young:
 * the sum of the discarded squared singular values), and warm-started encodes
 * of one matrix converge to it (power iteration); the factors' columns are
 * orthonormal; exact wire sizes from the shape; the shape rules (vectors,
 * factors no smaller than the matrix, min=) send plain floats; a header
 * whose shape does not divide n is refused. */
#include <gsl/gsl_linalg.h>

#include "check.h"

/* A rows x cols matrix (row-major) of rank r with singular values 1, 1/2, ..., 1/r, from seeded Gaussians. */
static float *low_rank(size_t rows, size_t cols, size_t r, unsigned long seed)
{
    float *U = test_gradient(DIST_GAUSSIAN, rows * r, seed), *V = test_gradient(DIST_GAUSSIAN, cols * r, seed + 1);
    float *M = calloc(rows * cols, sizeof *M);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double s = 0;
            for (size_t k = 0; k < r; k++) s += (double)U[i * r + k] * V[j * r + k] / (double)(k + 1);
            M[i * cols + j] = (float)(s * 1e3);
        }
    free(U), free(V);
    return M;
}

/* The best rank-r squared error of M (Eckart-Young), from GSL's one-sided Jacobi SVD in double. */
static double best_error(const float *M, size_t rows, size_t cols, size_t r)
{
    gsl_matrix *A = gsl_matrix_alloc(rows, cols), *V = gsl_matrix_alloc(cols, cols);
    gsl_vector *S = gsl_vector_alloc(cols);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) gsl_matrix_set(A, i, j, M[i * cols + j]);
    gsl_linalg_SV_decomp_jacobi(A, V, S); /* rows >= cols */
    double e = 0;
    for (size_t k = r; k < cols; k++) e += gsl_vector_get(S, k) * gsl_vector_get(S, k);
    gsl_matrix_free(A), gsl_matrix_free(V), gsl_vector_free(S);
    return e;
}

static double sq_error(const float *a, const float *b, size_t n, double *norm)
{
    double e = 0, s = 0;
    for (size_t i = 0; i < n; i++) e += ((double)a[i] - b[i]) * ((double)a[i] - b[i]), s += (double)b[i] * b[i];
    if (norm) *norm = s;
    return e;
}

static qz_params shaped(const char *spec, size_t rows)
{
    qz_params p = test_spec(spec);
    p.rows = rows;
    return p;
}

static void test_exact_rank(void)
{
    const size_t rows = 60, cols = 40;
    for (size_t r = 1; r <= 4; r++) {
        float *M = low_rank(rows, cols, r, 10 + r);
        char spec[32];
        snprintf(spec, sizeof spec, "powersgd:rank=%zu", r);
        qz_params p = shaped(spec, rows);
        size_t size;
        float *y = test_roundtrip(&p, M, rows * cols, 3, &size);
        double norm = 1, e = y ? sq_error(y, M, rows * cols, &norm) : INFINITY;
        CHECK(y && e <= 1e-10 * norm, "rank %zu: a rank-%zu matrix comes back whole (relative error %.3g)", r, r,
              e / norm);
        CHECK(size == 32 + 4 * r * (rows + cols), "rank %zu: %zu bytes, header and (rows + cols) r floats", r, size);
        free(M), free(y);
    }
}

static void test_random_matrix(void)
{
    const size_t rows = 64, cols = 48, n = rows * cols;
    float *M = test_gradient(DIST_GAUSSIAN, n, 77);
    double prev = INFINITY;
    int falling = 1, above = 1;
    for (size_t r = 1; r <= 8; r *= 2) {
        char spec[32];
        snprintf(spec, sizeof spec, "powersgd:rank=%zu", r);
        qz_params p = shaped(spec, rows);
        size_t size;
        float *y = test_roundtrip(&p, M, n, 5, &size);
        double norm = 1, e = sq_error(y, M, n, &norm), best = best_error(M, rows, cols, r);
        falling &= e < prev;
        above &= e >= best * (1 - 1e-5);
        prev = e;
        free(y);
    }
    CHECK(falling, "a random matrix's error falls with the rank (1, 2, 4, 8)");
    CHECK(above, "no rank-r encode beats the best rank-r approximation");

    /* warm start: encode the same matrix again and again, each from the last Q -- the power iteration converges
     * to the top singular subspace, and the error to Eckart-Young's. A matrix with a clear gap after r. */
    const size_t r = 3;
    float *L = low_rank(rows, cols, r, 99), *noise = test_gradient(DIST_GAUSSIAN, n, 5);
    for (size_t i = 0; i < n; i++) L[i] += 0.05f * noise[i];
    qz_params p = shaped("powersgd:rank=3", rows);
    float *Q = malloc(cols * r * sizeof *Q), *y = malloc(n * sizeof *y);
    size_t cap = qz_bound(&p, n), wcap = qz_workspace_size(&p, n), size = 0;
    unsigned char *buf = malloc(cap), *work = malloc(wcap);
    qz_powersgd_init_q(Q, cols, r, 1);
    for (int it = 0; it < 30; it++) size = qz_encode_warm(buf, cap, L, n, &p, (uint64_t)it, Q, work, wcap);
    const size_t got = qz_decode(y, n, buf, size);
    const double e = sq_error(y, L, n, NULL), best = best_error(L, rows, cols, r);
    CHECK(got == n && e <= best * 1.001 && e >= best * (1 - 1e-4),
          "30 warm-started steps reach the best rank-3 error (%.6g vs %.6g)", e, best);
    /* a cold start (warm=off) ignores the state: every step is one iteration from a fresh Q */
    qz_params cold = shaped("powersgd:rank=3,warm=off", rows);
    size = qz_encode_warm(buf, cap, L, n, &cold, 29, Q, work, wcap);
    unsigned char *stateless = malloc(cap);
    size_t size2 = qz_encode(stateless, cap, L, n, &cold, 29, work, wcap);
    CHECK(!gq_is_error(size) && size == size2 && memcmp(buf, stateless, size) == 0,
          "warm=off: byte for byte the stateless encode, whatever the state holds");
    free(L), free(noise), free(Q), free(y), free(buf), free(work), free(M), free(stateless);
}

static void test_orthonormal(void)
{
    const size_t rows = 50, r = 4;
    float *P = test_gradient(DIST_LAPLACE, rows * r, 3);
    for (size_t k = 0; k < rows; k++) P[k * r + 3] = P[k * r + 0] * 2 - P[k * r + 1]; /* dependent: a zero column */
    qz_powersgd_orthonormalize(P, rows, r);
    double worst = 0, last = 0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            double d = 0;
            for (size_t k = 0; k < rows; k++) d += (double)P[k * r + i] * P[k * r + j];
            worst = fmax(worst, fabs(d - (i == j)));
        }
    for (size_t k = 0; k < rows; k++) last += fabs(P[k * r + 3]);
    CHECK(worst < 1e-6, "Gram-Schmidt: the columns are orthonormal (worst |P^T P - I| %.3g)", worst);
    CHECK(last < 1e-5, "a column in the span of the others becomes (close to) zero (%.3g)", last);
    free(P);
}

static void test_shapes_and_sizes(void)
{
    size_t rows, cols, r;
    qz_params p = test_spec("powersgd:rank=4");
    qz_powersgd_shape(&p, 100000, &rows, &cols, &r); /* 250 x 400, the squarest */
    CHECK(rows == 250 && cols == 400 && r == 4, "100000 elements: 250 x 400 at rank 4 (%zu x %zu, %zu)", rows, cols, r);
    CHECK(qz_exact_size(&p, 100000) == 32 + 4 * 4 * 650, "its size: 32 + 16 x 650");
    qz_powersgd_shape(&p, 65536, &rows, &cols, &r); /* a square: the divisor equal to sqrt(n) is the squarest */
    CHECK(rows == 256 && cols == 256, "65536 elements: 256 x 256 (%zu x %zu)", rows, cols);
    qz_powersgd_shape(&p, 4099, &rows, &cols, &r); /* a prime: a vector */
    CHECK(rows == 1 && r == 0 && qz_exact_size(&p, 4099) == 32 + 4 * 4099, "a prime count travels as floats");
    p.rows = 8; /* 8 x 8: rank 4 would send 4 x 16 = 64 floats, no fewer than 64 */
    qz_powersgd_shape(&p, 64, &rows, &cols, &r);
    CHECK(r == 0 && qz_exact_size(&p, 64) == 32 + 256, "8 x 8 at rank 4: the factors are no smaller, floats");
    p.rows = 9; /* 9 x 9: 4 x 18 = 72 < 81 */
    qz_powersgd_shape(&p, 81, &rows, &cols, &r);
    CHECK(r == 4 && qz_exact_size(&p, 81) == 32 + 288, "9 x 9 at rank 4: 72 floats");
    p.rows = 7; /* 7 does not divide 81: the caller's shape is wrong */
    CHECK(gq_is_error(qz_exact_size(&p, 81)), "a shape that does not divide n is an error");
    qz_params m = shaped("powersgd:rank=1,min=1000", 10);
    CHECK(qz_exact_size(&m, 1000) == 32 + 4 * 110, "min=1000: 10 x 100 compressed");
    qz_params m2 = shaped("powersgd:rank=1,min=1000", 2);
    CHECK(qz_exact_size(&m2, 998) == 32 + 4 * 998, "min=1000: 998 elements travel as floats");
    /* a rank above the short side is cut to it: 3 x 50 at rank 8 is rank 3, 3 x 53 = 159 floats for 150 */
    qz_params big = shaped("powersgd:rank=8", 3);
    qz_powersgd_shape(&big, 150, &rows, &cols, &r);
    CHECK(r == 0, "3 x 50 at rank 8 -> rank 3 sends 159 floats for 150: floats");
}

static void test_header(void)
{
    const size_t rows = 12, cols = 10, n = rows * cols;
    float *M = test_gradient(DIST_GAUSSIAN, n, 8);
    qz_params p = shaped("powersgd:rank=2,warm=off,min=100", rows);
    size_t size;
    unsigned char *buf = test_encode(&p, M, n, 1, &size);
    qz_header h;
    CHECK(buf && qz_peek(buf, size, &h) == GQ_OK && h.params.rank == 2 && h.params.rows == 12 && !h.params.warm &&
              h.params.min_elements == 100,
          "the header gives back rank, rows, warm and min");
    char spec[64];
    qz_format_spec(&h.params, spec, sizeof spec);
    CHECK(strcmp(spec, "powersgd:rank=2,warm=off,min=100") == 0, "canonical spec '%s'", spec);
    buf[16] = 7; /* rows 7: does not divide 120 */
    CHECK(qz_peek(buf, size, &h) == GQ_ERR_CORRUPT, "a shape that does not divide n is a corrupt header");
    buf[16] = 0;
    CHECK(qz_peek(buf, size, &h) == GQ_ERR_CORRUPT, "rows 0 is a corrupt header");
    free(buf), free(M);
}

int main(void)
{
    test_exact_rank();
    test_random_matrix();
    test_orthonormal();
    test_shapes_and_sizes();
    test_header();
    return check_summary();
}
