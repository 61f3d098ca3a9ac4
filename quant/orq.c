/* ORQ-s (Xu, Huo, Huang 2020): unbiased stochastic rounding onto s levels
 * chosen per bucket to minimise the expected error sum (c-x)(x-a).
 *
 * Level search: the bucket is sorted once (qz_sorted) so every interval cost
 * is O(1). Between two neighbours a < c, the cost as a function of an
 * interior level l is convex and piecewise linear with breaks at data points;
 * its slope is D(l) = sum_{a<=x<=l}(x-a) - sum_{l<=x<=c}(c-x), so the best l
 * is the data point where D changes sign: the paper's optimality condition.
 * Greedy: from {min, max}, insert the level that lowers the cost most, until
 * s levels; then coordinate passes re-place each interior level between its
 * neighbours. Wire: s floats per bucket, ceil(log2 s) bits per element. */
#include <math.h>
#include <stdlib.h>

#include "orq.h"
#include "rng.h"

double orq_expected_error(const float *levels, unsigned k, const qz_sorted *s)
{
    double e = 0;
    for (unsigned m = 0; m + 1 < k; m++) e += qz_interval_cost(s, levels[m], levels[m + 1]);
    return e;
}

static double split_cost(const qz_sorted *s, double a, double l, double c)
{
    return qz_interval_cost(s, a, l) + qz_interval_cost(s, l, c);
}

/* The best level strictly inside (a, c), or a itself when no data point lies
 * strictly inside. */
static float best_level(const qz_sorted *s, float a, float c, double *cost_out)
{
    size_t i = qz_upper_bound(s, a), j = qz_lower_bound(s, c);
    if (i >= j) {
        *cost_out = qz_interval_cost(s, a, c);
        return a;
    }
    /* smallest k in [i, j) with D(x_k) >= 0; D by index so ties stay monotone */
    size_t lo = i, hi = j;
    while (lo < hi) {
        size_t k = lo + (hi - lo) / 2;
        double left = qz_sum1(s, i, k + 1) - (double)a * (double)(k + 1 - i);
        double right = (double)c * (double)(j - k) - qz_sum1(s, k, j);
        if (left - right >= 0)
            hi = k;
        else
            lo = k + 1;
    }
    float best = a;
    double best_cost = INFINITY;
    for (size_t k = lo > i ? lo - 1 : lo; k <= lo + 1 && k < j; k++) {
        double cost = split_cost(s, a, s->x[k], c);
        if (cost < best_cost) {
            best_cost = cost;
            best = s->x[k];
        }
    }
    *cost_out = best_cost;
    return best;
}

/* Inserts the one level that lowers the cost most into lv[0..have). */
static void insert_best(float *lv, unsigned have, const qz_sorted *s)
{
    double best_gain = -1;
    unsigned at = 0;
    float level = lv[0];
    for (unsigned m = 0; m + 1 < have; m++) {
        double after;
        float l = best_level(s, lv[m], lv[m + 1], &after);
        double gain = qz_interval_cost(s, lv[m], lv[m + 1]) - after;
        if (gain > best_gain) {
            best_gain = gain;
            at = m;
            level = l;
        }
    }
    /* no interval can improve (few distinct values): the level duplicates lv[at] */
    memmove(lv + at + 2, lv + at + 1, (have - at - 1) * sizeof *lv);
    lv[at + 1] = level;
}

/* Coordinate passes: each interior level to its best place between its
 * neighbours, until none moves. */
static void refine(float *lv, unsigned k, const qz_sorted *s)
{
    for (int pass = 0; pass < 16; pass++) {
        int moved = 0;
        for (unsigned m = 1; m + 1 < k; m++) {
            double cost;
            float l = best_level(s, lv[m - 1], lv[m + 1], &cost);
            if (l != lv[m] && cost < split_cost(s, lv[m - 1], lv[m], lv[m + 1])) {
                lv[m] = l;
                moved = 1;
            }
        }
        if (!moved) break;
    }
}

/* Cost of the elements between sorted indices i <= j, rounded onto {x_i, x_j}. */
static double index_cost(const qz_sorted *s, size_t i, size_t j)
{
    double a = s->x[i], c = s->x[j];
    return -qz_sum2(s, i, j + 1) + (a + c) * qz_sum1(s, i, j + 1) - a * c * (double)(j + 1 - i);
}

/* ---- dynamic programming over candidate levels ----------------------------------- */
/* The interval cost w(i, j) satisfies the quadrangle inequality
 * (w(a,c) + w(b,d) <= w(a,d) + w(b,c) for a <= b <= c <= d, as the SSE of
 * 1-D k-means does), so the best predecessor of a level is monotone in the
 * level's position and each DP layer takes O(m log m) evaluations by divide
 * and conquer instead of O(m^2). */

#define ORQ_CANDIDATES 64 /* coarse candidates; buckets up to this size are solved exactly */
#define ORQ_BAND 24       /* largest half-width of the band around each level */

typedef struct {
    size_t idx[2 * ORQ_CANDIDATES + 1]; /* sorted indices into the bucket */
    size_t n;
} cand_set;

static void dc_layer(const qz_sorted *s, const cand_set *ci, const double *fi, const cand_set *cj, double *fj,
                     unsigned char *arg, long jlo, long jhi, size_t olo, size_t ohi)
{
    while (jlo <= jhi) {
        long mid = jlo + (jhi - jlo) / 2;
        size_t j = cj->idx[mid], barg = olo;
        double best = INFINITY;
        for (size_t a = olo; a <= ohi && ci->idx[a] <= j; a++) {
            if (fi[a] == INFINITY) continue;
            double c = fi[a] + index_cost(s, ci->idx[a], j);
            if (c < best) best = c, barg = a;
        }
        fj[mid] = best;
        arg[mid] = (unsigned char)barg;
        dc_layer(s, ci, fi, cj, fj, arg, mid + 1, jhi, barg, ohi); /* right half: predecessors >= barg */
        jhi = mid - 1, ohi = barg;                                 /* left half, iteratively */
    }
}

/* The best k levels with level l taken from layer[l] (layer[0] = {0} and
 * layer[k-1] = {d-1}); writes the levels to lv. */
static void dp_select(float *lv, unsigned k, const qz_sorted *s, const cand_set *layer)
{
    double f[2][2 * ORQ_CANDIDATES + 1];
    unsigned char from[QZ_ORQ_MAX_LEVELS][2 * ORQ_CANDIDATES + 1];
    f[0][0] = 0;
    for (unsigned l = 1; l < k; l++)
        dc_layer(s, &layer[l - 1], f[(l - 1) & 1], &layer[l], f[l & 1], from[l], 0, (long)layer[l].n - 1, 0,
                 layer[l - 1].n - 1);
    size_t b = 0;
    for (unsigned l = k - 1; l > 0; l--) {
        lv[l] = s->x[layer[l].idx[b]];
        b = from[l][b];
    }
    lv[0] = s->x[0];
}

static void add_candidate(cand_set *c, size_t i) { c->idx[c->n++] = i; }

static void sort_unique(cand_set *c, const qz_sorted *s)
{
    for (size_t a = 1; a < c->n; a++) /* insertion sort: at most 129 entries, mostly sorted */
        for (size_t b = a; b > 0 && c->idx[b - 1] > c->idx[b]; b--) {
            size_t t = c->idx[b];
            c->idx[b] = c->idx[b - 1];
            c->idx[b - 1] = t;
        }
    size_t m = 0;
    for (size_t t = 0; t < c->n; t++) /* one index per distinct value */
        if (m == 0 || s->x[c->idx[t]] != s->x[c->idx[m - 1]]) c->idx[m++] = c->idx[t];
    c->n = m;
}

/* Global start: the optimum over ORQ_CANDIDATES order statistics, half spaced
 * evenly in rank (where the mass is), half evenly in value (where heavy tails
 * put their cost); exact when the bucket has no more elements than that. */
static void coarse_dp(float *lv, unsigned k, const qz_sorted *s)
{
    cand_set layer[QZ_ORQ_MAX_LEVELS];
    size_t d = s->len;
    cand_set *c = &layer[1];
    c->n = 0;
    if (d <= ORQ_CANDIDATES) {
        for (size_t i = 0; i < d; i++) add_candidate(c, i);
    } else {
        const size_t half = ORQ_CANDIDATES / 2;
        const double lo = s->x[0], span = (double)s->x[d - 1] - lo;
        for (size_t t = 0; t < half; t++) {
            add_candidate(c, (size_t)((double)t * (double)(d - 1) / (double)(half - 1) + 0.5));
            size_t v = qz_lower_bound(s, lo + span * (double)t / (double)(half - 1));
            add_candidate(c, v < d ? v : d - 1);
        }
    }
    sort_unique(c, s);
    for (unsigned l = 2; l + 1 < k; l++) layer[l] = *c;
    layer[0].n = layer[k - 1].n = 1;
    layer[0].idx[0] = 0;
    layer[k - 1].idx[0] = d - 1;
    dp_select(lv, k, s, layer);
}

/* Joint move of every interior level within +-w data points of where it is:
 * the exact optimum over that band. Unlike one-level moves it shifts
 * neighbouring levels together, which is where coordinate descent stalls on
 * this piecewise-linear cost. @return 1 if it lowered the cost. */
static int band_dp(float *lv, unsigned k, const qz_sorted *s, size_t w)
{
    cand_set layer[QZ_ORQ_MAX_LEVELS];
    size_t d = s->len;
    if (w > ORQ_BAND) w = ORQ_BAND;
    layer[0].n = layer[k - 1].n = 1;
    layer[0].idx[0] = 0;
    layer[k - 1].idx[0] = d - 1;
    for (unsigned l = 1; l + 1 < k; l++) {
        size_t at = qz_lower_bound(s, lv[l]), lo = at > w ? at - w : 0, hi = at + w < d - 1 ? at + w : d - 1;
        layer[l].n = 0;
        for (size_t i = lo; i <= hi; i++) add_candidate(&layer[l], i);
        sort_unique(&layer[l], s);
    }
    float nl[QZ_ORQ_MAX_LEVELS];
    dp_select(nl, k, s, layer);
    if (!(orq_expected_error(nl, k, s) < orq_expected_error(lv, k, s) * (1 - 1e-12))) return 0;
    memcpy(lv, nl, k * sizeof *lv);
    return 1;
}

static void polish(float *lv, unsigned k, const qz_sorted *s, size_t w)
{
    refine(lv, k, s);
    for (int round = 0; round < 3 && band_dp(lv, k, s, w); round++) refine(lv, k, s);
}

void orq_levels_greedy(float *levels, unsigned k, const qz_sorted *s)
{
    float lv[QZ_ORQ_MAX_LEVELS], alt[QZ_ORQ_MAX_LEVELS];
    lv[0] = s->x[0];
    lv[1] = s->x[s->len - 1];
    for (unsigned have = 2; have < k; have++) insert_best(lv, have, s);
    refine(lv, k, s);
    if (k > 3) { /* with one interior level the greedy step is already the optimum */
        size_t w = 2 * (s->len / (ORQ_CANDIDATES / 2)) + 3; /* two gaps between rank candidates */
        polish(lv, k, s, w);
        coarse_dp(alt, k, s);
        polish(alt, k, s, w);
        if (orq_expected_error(alt, k, s) < orq_expected_error(lv, k, s)) memcpy(lv, alt, sizeof alt);
    }
    memcpy(levels, lv, k * sizeof *lv);
}

gq_err orq_levels_exact(float *levels, unsigned k, const qz_sorted *s)
{
    /* distinct sorted values are the only candidates */
    size_t d = 0, len = s->len;
    float *v = malloc(len * sizeof *v);
    double *f = malloc((size_t)k * len * sizeof *f);
    size_t *from = malloc((size_t)k * len * sizeof *from);
    gq_err err = GQ_OK;
    if (!v || !f || !from) {
        err = GQ_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < len; i++)
        if (d == 0 || s->x[i] != v[d - 1]) v[d++] = s->x[i];
    if (d <= k) { /* every value can be a level: zero error */
        for (unsigned m = 0; m < k; m++) levels[m] = v[m < d ? m : d - 1];
        goto done;
    }
    /* f[m][j]: least cost of covering v[0..j] with m+1 levels, the last at v[j] */
    for (size_t j = 0; j < d; j++) f[j] = j == 0 ? 0 : INFINITY;
    for (unsigned m = 1; m < k; m++)
        for (size_t j = 0; j < d; j++) {
            double best = INFINITY;
            size_t arg = 0;
            for (size_t i = 0; i < j; i++) {
                double c = f[(m - 1) * d + i] + qz_interval_cost(s, v[i], v[j]);
                if (c < best) best = c, arg = i;
            }
            f[m * d + j] = best;
            from[m * d + j] = arg;
        }
    size_t j = d - 1;
    for (unsigned m = k - 1; m > 0; m--) {
        levels[m] = v[j];
        j = from[m * d + j];
    }
    levels[0] = v[0];
done:
    free(v);
    free(f);
    free(from);
    return err;
}

/* ---- codec ------------------------------------------------------------------------ */

static unsigned orq_nstored(const qz_params *p) { return p->levels; }
static unsigned orq_nlevels(const qz_params *p) { return p->levels; }

static gq_err orq_fit(float *stored, const float *x, size_t len, const qz_params *p, void *work)
{
    qz_sorted s;
    qz_sorted_build(&s, x, len, work);
    if (!isfinite(s.s2[len])) return GQ_ERR_NONFINITE;
    orq_levels_greedy(stored, p->levels, &s);
    return GQ_OK;
}

static void orq_quantize(uint8_t *codes, const float *x, size_t len, const float *lv, const qz_params *p, uint32_t key,
                         uint32_t idx0)
{
    const unsigned k = p->levels;
    float inv[QZ_ORQ_MAX_LEVELS];
    for (unsigned m = 0; m + 1 < k; m++) inv[m] = qz_safe_inv(lv[m + 1] - lv[m]);
    for (size_t i = 0; i < len; i++) {
        unsigned m = 0;
        for (unsigned t = 1; t + 1 < k; t++) m += x[i] >= lv[t];
        float prob = (x[i] - lv[m]) * inv[m];
        float u = rng_uniform24(rng_hash32(key, idx0 + (uint32_t)i));
        codes[i] = (uint8_t)(m + (u < prob));
    }
}

static void orq_table(float *table, const float *stored, const qz_params *p)
{
    memcpy(table, stored, p->levels * sizeof *table);
}

static const qz_dense ORQ = {orq_nstored, orq_nlevels, NULL, orq_fit, orq_quantize, orq_table};

static void orq_defaults(qz_params *p)
{
    p->levels = 5;
    p->bucket = 512;
}
static size_t orq_payload(const qz_params *p, size_t n) { return qz_dense_payload(&ORQ, p, n); }
static size_t orq_workspace(const qz_params *p, size_t n)
{
    return qz_dense_workspace(&ORQ, p, n, qz_sorted_workspace(qz_bucket_len(p, n)));
}
static unsigned orq_levels(const qz_params *p) { return p->levels; }
static size_t orq_encode(uint8_t *dst, size_t cap, const float *src, size_t n, const qz_params *p, uint64_t seed,
                         void *work)
{
    (void)cap;
    return qz_dense_encode(&ORQ, dst, src, n, p, seed, work);
}
static size_t orq_decode(float *dst, size_t n, const uint8_t *src, size_t size, const qz_params *p)
{
    for (size_t b = 0; b < qz_bucket_count(p, n); b++) /* levels must ascend */
        for (unsigned m = 0; m + 1 < p->levels; m++)
            if (!(load_f32(src + (b * p->levels + m) * 4) <= load_f32(src + (b * p->levels + m + 1) * 4)))
                return gq_error_result(GQ_ERR_CORRUPT);
    return qz_dense_decode(&ORQ, dst, n, src, size, p);
}

const qz_codec qz_orq = {
    .id = QZ_ORQ,
    .name = "orq",
    .summary = "ORQ: unbiased rounding onto per-bucket optimal levels (greedy + refinement)",
    .keys_help = "levels=5 (2..16) bucket=512",
    .keys = QZ_KEY_LEVELS | QZ_KEY_BUCKET,
    .defaults = orq_defaults,
    .payload_bound = orq_payload,
    .payload_is_exact = 1,
    .workspace = orq_workspace,
    .level_count = orq_levels,
    .encode = orq_encode,
    .decode = orq_decode,
};
