/* BinGrad-pb (Xu, Huo, Huang 2020): partially biased binary quantizer. Inside
 * [a, b] elements round stochastically and unbiasedly, outside they clip to
 * the nearer level. a and b minimise
 *   F = sum_{x<a}(a-x)^2 + sum_{x>b}(x-b)^2 + sum_{a<=x<=b}(b-x)(x-a).
 * F is convex in a for fixed b (dF/da = 2 sum_{x<a}(a-x) - sum_{a<=x<=b}(b-x)
 * increases with a) and likewise in b, and between data points each
 * stationary condition is linear, so each coordinate update is exact: binary
 * search the data interval where the derivative changes sign, then solve.
 * Wire: two floats per bucket, one bit per element. */
#include <math.h>
#include <stdio.h>

#include "bingrad.h"
#include "rng.h"

/* What the fit's root searches probe: the sorted bucket and the fixed level. */
typedef struct {
    const qz_sorted *s;
    double b, a;  /* the fixed level */
    size_t bound; /* jb for g, ia for h */
} pb_probe;

/* F at (a, b), given i = #{x < a} and j = #{x <= b}: O(1) with the prefix
 * sums. The fit knows both bounds of every point it evaluates, so it never
 * searches for them twice (each search is nine dependent lookups; the fit
 * spent most of its time in them). */
static double error_at(const qz_sorted *s, float a, float b, size_t i, size_t j)
{
    const size_t len = s->len;
    double below = qz_sum2(s, 0, i) - 2.0 * a * qz_sum1(s, 0, i) + (double)a * a * (double)i;
    double above = qz_sum2(s, j, len) - 2.0 * b * qz_sum1(s, j, len) + (double)b * b * (double)(len - j);
    double mid = 0; /* qz_interval_cost(s, a, b), whose bounds are i and j */
    if (j > i) {
        mid = -qz_sum2(s, i, j) + ((double)a + b) * qz_sum1(s, i, j) - (double)a * b * (double)(j - i);
        mid = mid > 0 ? mid : 0.0;
    }
    return below + above + mid;
}

double bingrad_pb_error(float a, float b, const qz_sorted *s)
{
    return error_at(s, a, b, qz_lower_bound(s, a), qz_upper_bound(s, b));
}

/* a minimising F for fixed b (jb = #{x <= b}): root of g(a) = 2 sum_{x<a}(a-x) - sum_{a<=x<=b}(b-x).
 * g at a = x_k with k elements below increases with k. */
static int g_at_least_0(const void *ctx, size_t k)
{
    const pb_probe *c = ctx;
    const qz_sorted *s = c->s;
    const double a = s->x[k];
    return 2.0 * (a * (double)k - qz_sum1(s, 0, k)) - (c->b * (double)(c->bound - k) - qz_sum1(s, k, c->bound)) >= 0;
}

static float update_a(const qz_sorted *s, float b, size_t jb, size_t hint)
{
    /* k = number of elements below a: the smallest k in [1, jb] with g(x_k) >= 0 */
    const pb_probe c = {s, b, 0, jb};
    size_t k =
        qz_gallop_first(1, jb, hint, g_at_least_0, &c); /* the root lies in (x_{k-1}, x_k] with k elements below */
    if (k >= jb) return b;
    double a = (2.0 * qz_sum1(s, 0, k) + (double)b * (double)(jb - k) - qz_sum1(s, k, jb)) / (2.0 * (double)k);
    a = qz_max(a, s->x[k - 1]);
    a = qz_min(a, s->x[k]);
    return (float)a;
}

/* b minimising F for fixed a (ia = #{x < a}): root of h(b) = 2 sum_{x>b}(x-b) - sum_{a<=x<=b}(x-a).
 * h at b = x_k (elements [k+1, len) above) decreases with k. */
static int h_below_0(const void *ctx, size_t k)
{
    const pb_probe *c = ctx;
    const qz_sorted *s = c->s;
    const size_t len = s->len, ia = c->bound;
    const double bb = s->x[k];
    return 2.0 * (qz_sum1(s, k + 1, len) - bb * (double)(len - k - 1)) -
               (qz_sum1(s, ia, k + 1) - c->a * (double)(k + 1 - ia)) <
           0;
}

static float update_b(const qz_sorted *s, float a, size_t ia, size_t hint)
{
    size_t len = s->len;
    /* the largest k in [ia, len-1] with h(x_k) >= 0 (ia if none): one before
     * the first k in (ia, len-1] where h < 0 (len if none); hint: a guess of
     * that first k, the count of elements at or below the last b */
    if (ia >= len - 1) return s->x[len - 1];
    const pb_probe c = {s, 0, a, ia};
    const size_t k = qz_gallop_first(ia + 1, len, hint, h_below_0, &c) - 1;
    /* root in [x_k, x_{k+1}) with elements [k+1, len) above */
    if (k + 1 >= len) return s->x[len - 1];
    size_t m = len - k - 1;
    double b =
        (2.0 * qz_sum1(s, k + 1, len) - (qz_sum1(s, ia, k + 1) - (double)a * (double)(k + 1 - ia))) / (2.0 * (double)m);
    b = qz_max(b, s->x[k]);
    b = qz_min(b, s->x[k + 1]);
    return (float)b;
}

/* A point of the fit: the levels, their bounds (i = #{x < a}, j = #{x <= b}) and F there. */
typedef struct {
    float a, b;
    size_t i, j;
    double f;
} pb_point;

static pb_point pb_point_at(const qz_sorted *s, float a, float b, size_t hint_i, size_t hint_j)
{
    pb_point p = {a, b, qz_lower_bound_near(s, a, hint_i), qz_upper_bound_near(s, b, hint_j), 0};
    p.f = error_at(s, a, b, p.i, p.j);
    return p;
}

/* With the index sets fixed (i elements below a, j at or below b), both
 * stationary conditions are linear in (a, b):
 *   2i a - (j-i) b = 2 S[0,i) - S[i,j)
 *   (j-i) a - 2(n-j) b = S[i,j) - 2 S[j,n)
 * Solving them and re-deriving (i, j) is Newton's method on this piecewise-
 * linear system; it finishes what coordinate descent approaches slowly. */
static int segment_step(const qz_sorted *s, pb_point *p)
{
    size_t n = s->len, i = p->i, j = p->j;
    double m = (double)(j - i), r1 = 2 * qz_sum1(s, 0, i) - qz_sum1(s, i, j),
           r2 = qz_sum1(s, i, j) - 2 * qz_sum1(s, j, n);
    double det = 2.0 * (double)i * -2.0 * (double)(n - j) + m * m;
    if (det == 0) return 0;
    double na = (r1 * -2.0 * (double)(n - j) + m * r2) / det; /* Cramer's rule */
    double nb = (2.0 * (double)i * r2 - m * r1) / det;
    na = qz_max(na, s->x[0]);
    nb = qz_min(nb, s->x[n - 1]);
    if (!(na <= nb)) return 0;
    pb_point q = pb_point_at(s, (float)na, (float)nb, i, j);
    if (!(q.f < p->f)) return 0;
    *p = q;
    return 1;
}

/* The objective is convex in each level alone but not jointly: its Hessian
 * [[2i, -m], [-m, 2(n-j)]] is indefinite where 4 i (n-j) < m^2, few elements
 * clipped, and there the descent from (min, max) stopped in local minima
 * (measured against the best pair of data points: up to 39% above it on cubed
 * Gaussian draws, 48% on a bucket of LeNet-5's gradients). So it starts from
 * the best of b at the ranks len-1 - (2^t - 1) down to the median, the upper
 * tail in doubling steps (where a heavy tail puts the optimum), each with its
 * best a, and of a at the ranks 2^t - 1 up to the median, each with its best
 * b (the mirror image): every bucket measured then reached the best pair
 * (tests/test_bingrad.c), for about 900 more cycles a bucket of 512
 * (docs/quantizers.md#bingrad-b-and-bingrad-pb-xu-huo-huang-2020). */
static pb_point pb_start(const qz_sorted *s)
{
    const size_t len = s->len;
    pb_point p = pb_point_at(s, s->x[0], s->x[len - 1], 0, len);
    unsigned steps = 0; /* 2^t - 1 elements beyond the level, up to half the bucket */
    while (((size_t)2 << steps) - 1 < len / 2) steps++;
    size_t hint_i = 0, hint_j = len;
    for (unsigned t = steps; t > 0; t--) {
        const size_t beyond = ((size_t)1 << t) - 1;
        /* b with 2^t - 1 elements above it, and its best a */
        const float b = s->x[len - 1 - beyond];
        const size_t jb = qz_upper_bound_near(s, b, len - beyond);
        const pb_point q = pb_point_at(s, update_a(s, b, jb, hint_i), b, hint_i, jb);
        hint_i = q.i;
        if (q.f < p.f) p = q;
        /* a with 2^t - 1 elements below it, and its best b (a heavy lower tail mirrors the upper) */
        const float a = s->x[beyond];
        const size_t ia = qz_lower_bound_near(s, a, beyond);
        const pb_point r = pb_point_at(s, a, update_b(s, a, ia, hint_j), ia, hint_j);
        hint_j = r.j;
        if (r.f < p.f) p = r;
    }
    return p;
}

void bingrad_pb_fit(float *a_out, float *b_out, const qz_sorted *s)
{
    pb_point p = pb_start(s);
    for (int it = 0; it < 50 && p.a < p.b; it++) {
        const float na = update_a(s, p.b, p.j, p.i);
        const size_t ia = qz_lower_bound_near(s, na, p.i);
        const float nb = update_b(s, na, ia, p.j);
        const size_t jb = qz_upper_bound_near(s, nb, p.j);
        const pb_point q = {na, nb, ia, jb, error_at(s, na, nb, ia, jb)};
        if (!(q.f < p.f)) break; /* coordinate descent never increases F */
        p = q;
        if (it >= 2) /* near the optimum: let Newton finish */
            for (int k = 0; k < 8 && segment_step(s, &p); k++) continue;
    }
    *a_out = p.a;
    *b_out = p.b;
}

/* ---- codec ------------------------------------------------------------------------ */

static unsigned pb_nstored(const qz_params *p) { return (void)p, 2; }
static unsigned pb_nlevels(const qz_params *p) { return (void)p, 2; }

static gq_err pb_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    (void)p;
    if ((uint64_t)len > UINT32_MAX) return GQ_ERR_TOO_LARGE; /* the radix sort counts in 32 bits */
    qz_sorted s;
    qz_sorted_build(&s, x, len, work);
    if (!isfinite(s.s2[len])) return GQ_ERR_NONFINITE;
    bingrad_pb_fit(&stored[0], &stored[1], &s);
    return GQ_OK;
}

static void pb_quantize(uint8_t *codes, const float *x, size_t len, const float *stored, const qz_params *p,
                        uint32_t key, uint32_t idx0)
{
    (void)p;
    const float a = stored[0], b = stored[1], inv = qz_safe_inv(b - a);
    const uint32_t above_clips = b > a; /* with a == b every element is the one level */
    uint32_t j = idx0;                  /* 32-bit hash index beside i (64-bit lanes would need a repack) */
    for (size_t i = 0; i < len; i++, j++) {
        float prob = (x[i] - a) * inv; /* <= 0 never rounds up, >= 1 always does */
        float u = rng_uniform24(rng_hash32(key, j));
        /* integer results combined without && (a branch per element that kept the loop scalar) */
        uint32_t up = u < prob, above = x[i] >= b;
        codes[i] = (uint8_t)(up | (above & above_clips));
    }
}

static void pb_table(float *table, const float *stored, const qz_params *p)
{
    (void)p;
    table[0] = stored[0];
    table[1] = stored[1];
}

static const qz_dense PB = {.nstored = pb_nstored,
                            .nlevels = pb_nlevels,
                            .fit_workspace = qz_sorted_workspace,
                            .fit = pb_fit,
                            .quantize = pb_quantize,
                            .table = pb_table};

static void pb_defaults(qz_params *p) { p->bucket = 512; }

static int bpb_format(const qz_params *p, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":bucket=%llu", (unsigned long long)p->bucket);
}
static void bpb_gpu_traffic(const qz_params *p, double enc[2], double dec[2])
{
    (void)p;
    enc[0] = 3, enc[1] = 20, dec[0] = 1, dec[1] = 4.125;
}

const qz_codec qz_bingrad_pb = {
    .id = QZ_BINGRAD_PB,
    .name = "bingrad-pb",
    .summary = "BinGrad-pb: binary {a,b}, unbiased inside [a,b], clipped outside, 1 bit",
    .keys_help = "bucket=512",
    .keys = QZ_KEY_BUCKET,
    .defaults = pb_defaults,
    .level_count = pb_nlevels,
    .dense = &PB,
    .format_keys = bpb_format,
    .gpu_traffic = bpb_gpu_traffic,
};
