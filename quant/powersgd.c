/* PowerSGD (Vogels, Karimireddy and Jaggi, NeurIPS 2019): a tensor seen as a
 * rows x cols matrix M is sent as two thin factors, P = orth(M Q) (rows x r)
 * and Q' = M^T P (cols x r), and received as P Q'^T, the best rank-r
 * approximation one power iteration from Q finds. Q is the last step's Q'
 * (warm start) where the caller keeps it, else a seeded Gaussian. Matrices
 * whose factors would not be smaller than they are (vectors, r >= the short
 * side) and tensors under min= elements travel as plain floats. Biased: the
 * trainer pairs it with error feedback. Because P and Q' are sums of the
 * workers' own factors, a ring all-reduces them (the trainer does so with
 * the functions below); here a single worker's factors go on the wire.
 * Wire (docs/wire-format.md#powersgd): P then Q', little-endian floats, or n
 * floats; rows, r and min travel in the header. Its GEMMs run through CBLAS. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "qz_internal.h"
#include "rng.h"

/* The largest divisor of n not above sqrt(n): the squarest matrix of n elements, for arrays with no shape. */
static size_t squarest_rows(size_t n)
{
    size_t best = 1;
    for (size_t d = 1; d <= n / d; d++)
        if (n % d == 0) best = d;
    return best;
}

void qz_powersgd_shape(const qz_params *p, size_t n, size_t *rows, size_t *cols, size_t *rank)
{
    const size_t m = p->rows ? (size_t)p->rows : squarest_rows(n);
    *rows = m && n % m == 0 ? m : 1;
    *cols = n / *rows;
    size_t r = p->rank, short_side = *rows < *cols ? *rows : *cols;
    if (r > short_side) r = short_side;
    /* compressed only where the factors are smaller than the matrix: never a vector, never rank >= half the side */
    const int pays = r > 0 && (double)r * (double)(*rows + *cols) < (double)*rows * (double)*cols;
    *rank = pays && (uint64_t)n >= p->min_elements ? r : 0;
}

void qz_powersgd_init_q(float *Q, size_t cols, size_t r, uint64_t seed)
{
    rng_t g;
    rng_init(&g, rng_derive(seed, 0x9057, cols * 131 + r));
    for (size_t i = 0; i < cols * r; i += 2) {
        double z0, z1;
        rng_gaussian_pair(&g, 1.0, &z0, &z1);
        Q[i] = (float)z0;
        if (i + 1 < cols * r) Q[i + 1] = (float)z1;
    }
}

/* Shapes: M rows x cols, P rows x r, Q cols x r, all row-major. */
void qz_powersgd_project(const float *M, size_t rows, size_t cols, const float *Q, size_t r, float *P)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)r, (int)cols, 1.0f, M, (int)cols, Q, (int)r,
                0.0f, P, (int)r);
}

void qz_powersgd_back(const float *M, size_t rows, size_t cols, const float *P, size_t r, float *Q)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)cols, (int)r, (int)rows, 1.0f, M, (int)cols, P, (int)r,
                0.0f, Q, (int)r);
}

void qz_powersgd_expand(const float *P, const float *Q, size_t rows, size_t cols, size_t r, float *M)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)cols, (int)r, 1.0f, P, (int)r, Q, (int)r, 0.0f,
                M, (int)cols);
}

/* Modified Gram-Schmidt on P's columns (stride r), in double for the dot products: each column loses its
 * projections on the ones before it, then is scaled to unit length. A column with almost nothing left (under 1e-4
 * of its length: a gradient of lower rank than r, or zero) is rounding noise, not a direction -- normalised, it
 * would not be orthogonal to the others and P P^T would no longer be a projection -- so it becomes zero and adds
 * nothing when expanded. */
void qz_powersgd_orthonormalize(float *P, size_t rows, size_t r)
{
    for (size_t i = 0; i < r; i++) {
        double before = 0, norm = 0;
        for (size_t k = 0; k < rows; k++) before += (double)P[k * r + i] * P[k * r + i];
        for (size_t j = 0; j < i; j++) {
            double dot = 0;
            for (size_t k = 0; k < rows; k++) dot += (double)P[k * r + i] * P[k * r + j];
            for (size_t k = 0; k < rows; k++) P[k * r + i] = (float)(P[k * r + i] - dot * P[k * r + j]);
        }
        for (size_t k = 0; k < rows; k++) norm += (double)P[k * r + i] * P[k * r + i];
        const double inv = norm > 1e-8 * before && norm > 0 ? 1.0 / sqrt(norm) : 0.0;
        for (size_t k = 0; k < rows; k++) P[k * r + i] = (float)(P[k * r + i] * inv);
    }
}

static size_t ps_payload(const qz_params *p, size_t n)
{
    size_t rows, cols, r, floats;
    if (p->rows && n % p->rows != 0) return gq_error_result(GQ_ERR_PARAM);
    qz_powersgd_shape(p, n, &rows, &cols, &r);
    if (r == 0)
        floats = n;
    else if (qz_mul_ovf(rows + cols, r, &floats))
        return gq_error_result(GQ_ERR_TOO_LARGE);
    if (qz_mul_ovf(floats, 4, &floats)) return gq_error_result(GQ_ERR_TOO_LARGE);
    return floats;
}

/* P and Q: (rows + cols) r floats, fewer than n wherever the tensor is compressed -- n floats whatever its shape */
static size_t ps_workspace(const qz_params *p, size_t n)
{
    (void)p;
    return n * sizeof(float);
}

static void store_floats(uint8_t *dst, const float *x, size_t n)
{
    if (QZ_LITTLE_ENDIAN)
        memcpy(dst, x, n * sizeof *x);
    else
        for (size_t i = 0; i < n; i++) store_f32(dst + 4 * i, x[i]);
}

static int load_floats(float *x, const uint8_t *src, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) x[i] = load_f32(src + 4 * i), bad |= !isfinite(x[i]);
    return bad;
}

static size_t ps_encode_warm(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                             float *warm_q, void *work)
{
    (void)cap;
    size_t rows, cols, r;
    /* the largest |g| by its bits (a float's magnitude orders as its bit pattern does, NaN and Inf above every
     * finite one): one vectorised pass, no branch */
    uint32_t big = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t b = f32_bits(src[i]) & 0x7FFFFFFFu;
        big = b > big ? b : big;
    }
    if (big >= 0x7F800000u) return gq_error_result(GQ_ERR_NONFINITE); /* Inf, NaN */
    if (big >= f32_bits(QZ_POWERSGD_LARGEST)) return gq_error_result(GQ_ERR_RANGE);
    qz_powersgd_shape(p, n, &rows, &cols, &r);
    if (r == 0) {
        store_floats(dst, src, n);
        return 4 * n;
    }
    float *P = (float *)work, *Q = P + rows * r;
    if (warm_q && p->warm)
        memcpy(Q, warm_q, cols * r * sizeof *Q);
    else
        qz_powersgd_init_q(Q, cols, r, seed);
    qz_powersgd_project(src, rows, cols, Q, r, P);
    qz_powersgd_orthonormalize(P, rows, r);
    qz_powersgd_back(src, rows, cols, P, r, Q);
    if (warm_q) memcpy(warm_q, Q, cols * r * sizeof *Q);
    store_floats(dst, P, rows * r);
    store_floats(dst + 4 * rows * r, Q, cols * r);
    return 4 * (rows + cols) * r;
}

/* The payload's size was checked against (p, n) by the caller. The factors are read into memory of their own
 * (GEMM's output may not alias its inputs, and dst is too small to hold both): (rows + cols) r floats, a small
 * fraction of the tensor. */
static size_t ps_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    (void)size;
    size_t rows, cols, r;
    qz_powersgd_shape(p, n, &rows, &cols, &r);
    if (r == 0) return load_floats(dst, src, n) ? gq_error_result(GQ_ERR_CORRUPT) : n;
    float *F = malloc((rows + cols) * r * sizeof *F);
    if (!F) return gq_error_result(GQ_ERR_NOMEM);
    size_t result = n;
    if (load_floats(F, src, (rows + cols) * r))
        result = gq_error_result(GQ_ERR_CORRUPT);
    else
        qz_powersgd_expand(F, F + rows * r, rows, cols, r, dst);
    free(F);
    if (!gq_is_error(result) && !qz_all_finite(dst, n)) result = gq_error_result(GQ_ERR_CORRUPT);
    return result;
}

static void ps_defaults(qz_params *p) { p->rank = 2, p->warm = 1; }

static int ps_format(const qz_params *p, char *buf, size_t cap)
{
    int k = snprintf(buf, cap, ":rank=%u", p->rank);
    if (!p->warm && k >= 0) k += snprintf(buf ? buf + k : NULL, (size_t)k < cap ? cap - (size_t)k : 0, ",warm=off");
    if (p->min_elements && k >= 0)
        k += snprintf(buf ? buf + k : NULL, (size_t)k < cap ? cap - (size_t)k : 0, ",min=%llu",
                      (unsigned long long)p->min_elements);
    return k;
}

static int ps_check(const qz_params *p, char *why, size_t cap)
{
    if (p->rank < 1 || p->rank > QZ_POWERSGD_MAX_RANK)
        return snprintf(why, cap, "rank=%u must be from 1 to %u", p->rank, QZ_POWERSGD_MAX_RANK), -1;
    if (p->min_elements > QZ_POWERSGD_MAX_MIN)
        return snprintf(why, cap, "min=%llu must be at most %u", (unsigned long long)p->min_elements,
                        QZ_POWERSGD_MAX_MIN),
               -1;
    if (p->warm != 0 && p->warm != 1) return snprintf(why, cap, "warm must be on or off"), -1;
    return 0;
}

/* Encode: the residual's add is error feedback's (charged apart), then M Q, Gram-Schmidt (a norm and r - 1
 * projections a column, two launches each, on rows x r floats: nothing per element), M^T P: M read twice.
 * Decode: P Q'^T, M written once. The GEMMs' arithmetic is qz_gpu_flops'. */
static void ps_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    enc[0] = 2 + 2.0 * p->rank, enc[1] = 8, dec[0] = 1, dec[1] = 4;
}

static void ps_gpu_flops(const qz_params *p, double *enc, double *dec) { *enc = 4.0 * p->rank, *dec = 2.0 * p->rank; }

const qz_codec qz_powersgd = {
    .id = QZ_POWERSGD,
    .name = "powersgd",
    .biased = 1,
    .summary = "PowerSGD: rank-r factors P and Q of each matrix from one warm-started power iteration",
    .keys_help = "rank=2 warm=on|off min=0",
    .keys = QZ_KEY_RANK | QZ_KEY_WARM | QZ_KEY_MIN,
    .defaults = ps_defaults,
    .payload_bound = ps_payload,
    .workspace = ps_workspace,
    .encode_warm = ps_encode_warm,
    .decode = ps_decode,
    .format_keys = ps_format,
    .check = ps_check,
    .gpu_traffic = ps_gpu_traffic,
    .gpu_flops = ps_gpu_flops,
    .largest_input = QZ_POWERSGD_LARGEST,
};
