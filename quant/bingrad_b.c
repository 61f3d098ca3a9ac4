/* BinGrad-b (Xu, Huo, Huang 2020): biased, deterministic binary quantizer with
 * minimum squared error. The optimum has a and b at the means of their cells
 * and the threshold at (a+b)/2; it is found exactly by scanning the d-1 split
 * points of the sorted bucket with prefix sums. Wire: two floats per bucket,
 * one bit per element (0 = a, 1 = b). */
#include <math.h>

#include "bingrad.h"

static double cell_sse(const qz_sorted *s, size_t i, size_t j)
{
    double n = (double)(j - i), s1 = qz_sum1(s, i, j);
    return n > 0 ? qz_sum2(s, i, j) - s1 * s1 / n : 0.0;
}

void bingrad_b_fit(float *a, float *b, const qz_sorted *s)
{
    size_t len = s->len, best_k = 0;
    double best = INFINITY;
    for (size_t k = 1; k < len; k++) {
        if (s->x[k] == s->x[k - 1]) continue; /* a split must separate values */
        double e = cell_sse(s, 0, k) + cell_sse(s, k, len);
        if (e < best) best = e, best_k = k;
    }
    if (best_k == 0) { /* a single distinct value */
        *a = *b = s->x[0];
        return;
    }
    *a = (float)(qz_sum1(s, 0, best_k) / (double)best_k);
    *b = (float)(qz_sum1(s, best_k, len) / (double)(len - best_k));
}

double bingrad_b_error(float a, float b, const qz_sorted *s)
{
    float t = 0.5f * (a + b);
    size_t k = qz_lower_bound(s, t), len = s->len;
    /* sum (x-a)^2 over [0,k) + sum (x-b)^2 over [k,len) */
    return qz_sum2(s, 0, k) - 2.0 * a * qz_sum1(s, 0, k) + (double)a * a * (double)k + qz_sum2(s, k, len) -
           2.0 * b * qz_sum1(s, k, len) + (double)b * b * (double)(len - k);
}

/* ---- codec ------------------------------------------------------------------------ */

static unsigned bb_nstored(const qz_params *p) { return (void)p, 2; }
static unsigned bb_nlevels(const qz_params *p) { return (void)p, 2; }

static gq_err bb_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)p;
    if ((uint64_t)len > UINT32_MAX) return GQ_ERR_TOO_LARGE; /* the radix sort counts in 32 bits */
    qz_sorted s;
    qz_sorted_build(&s, x, len, work);
    if (!isfinite(s.s2[len])) return GQ_ERR_NONFINITE;
    bingrad_b_fit(&stored[0], &stored[1], &s);
    return GQ_OK;
}

static void bb_quantize(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p,
                        uint32_t key, uint32_t idx0)
{
    (void)p, (void)key, (void)idx0;
    const float t = 0.5f * (stored[0] + stored[1]);
    for (size_t i = 0; i < len; i++) codes[i] = x[i] >= t;
}

static void bb_table(float *table, const float *stored, const qz_params *p)
{
    (void)p;
    table[0] = stored[0];
    table[1] = stored[1];
}

static const qz_dense BB = {bb_nstored, bb_nlevels, NULL, 1, bb_fit, bb_quantize, bb_table, NULL};

static void bb_defaults(qz_params *p) { p->bucket = 512; }

const qz_codec qz_bingrad_b = {
    .id = QZ_BINGRAD_B,
    .name = "bingrad-b",
    .summary = "BinGrad-b: biased binary {a,b}, minimum squared error, 1 bit",
    .keys_help = "bucket=512",
    .keys = QZ_KEY_BUCKET,
    .defaults = bb_defaults,
    .level_count = bb_nlevels,
    .dense = &BB,
};
