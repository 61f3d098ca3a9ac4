/* ORQ level search against independent references:
 *  - greedy + refinement within 2% of the exact dynamic-programming optimum
 *    on small buckets, and never below it; the codec's histogram search on
 *    longer buckets within the same 2%;
 *  - every interior level satisfies the optimality condition (the slope of
 *    the cost changes sign there);
 *  - ORQ's expected error <= QSGD with the max norm at the same total levels,
 *    on Gaussian, Laplace and heavy-tailed data;
 *  - ORQ degrades less than QSGD as the bucket grows (128 -> 32768);
 *  - the coarse programme's candidates are those of their definition;
 *  - fit=hist's levels are edges of the bucket's 48-bin histogram and the
 *    best of all edge sets (every one enumerated), short buckets solved
 *    exactly; qz_levels_excess compares them with the optimum.
 * Expected errors are computed here by brute force over the elements. */
#include <stdint.h>

#include "check.h"
#include "orq.h"

/* sum over elements of (c-x)(x-a) for their neighbouring levels, by brute force */
static double brute_error(const float *x, size_t n, const float *lv, unsigned k)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double a = lv[0], c = lv[k - 1];
        for (unsigned m = 0; m < k; m++) {
            if (lv[m] <= x[i] && lv[m] > a) a = lv[m];
            if (lv[m] >= x[i] && lv[m] < c) c = lv[m];
        }
        e += (c - x[i]) * (x[i] - a);
    }
    return e;
}

static void test_greedy_vs_exact(void)
{
    int worse = 0, below = 0, cases = 0;
    double worst = 1;
    /* sizes above the coarse search's 64 candidates, so no case is solved exactly by construction */
    static const unsigned KS[] = {3, 4, 5, 6, 7, 8, 9, 12, 16};
    void *work = malloc(qz_sorted_workspace(400));
    for (int dist = 0; dist < 3; dist++)
        for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++)
            for (int rep = 0; rep < 10; rep++) {
                unsigned k = KS[ki];
                size_t n = 65 + (size_t)rep * 29;
                float *x = test_gradient((test_dist)dist, n, 1000u * k + rep + 77u * dist);
                qz_sorted s;
                qz_sorted_build(&s, x, n, work);
                float g[16], e[16];
                orq_levels_greedy(g, k, &s);
                orq_levels_exact(e, k, &s);
                double eg = brute_error(x, n, g, k), ee = brute_error(x, n, e, k);
                if (ee > 0 && eg / ee > worst) worst = eg / ee;
                worse += eg > ee * 1.02 + 1e-18;
                below += eg < ee * (1 - 1e-9);
                cases++;
                free(x);
            }
    free(work);
    CHECK(worse == 0, "greedy ORQ more than 2%% above the DP optimum in %d of %d buckets (worst %.4f)", worse, cases,
          worst);
    CHECK(below == 0, "greedy ORQ below the exact optimum in %d buckets: the DP is wrong", below);
    printf("greedy/exact worst ratio over %d buckets: %.5f\n", cases, worst);
}

/* The codec's own path: long buckets are searched on a histogram (levels on
 * bin edges), or sorted where the histogram is too coarse, and must stay
 * within the same 2% of the exact optimum over all level sets on data
 * points -- also with a point mass at zero and with Student-t(1.5) tails
 * (there ORQ-9 and ORQ-16 are held to 7%: the sorted search's own worst on
 * 1151 measured buckets was 5.9%). */
static void test_codec_levels_vs_exact(void)
{
    static const unsigned KS[] = {3, 5, 9, 16};
    static const size_t NS[] = {512, 700, 1000};
    static const test_dist DISTS[] = {DIST_GAUSSIAN, DIST_LAPLACE, DIST_STUDENT3, DIST_ZEROS60, DIST_STUDENT15};
    int worse = 0, cases = 0;
    double worst = 1;
    void *work = malloc(qz_sorted_workspace(1000)), *work2 = malloc(qz_sorted_workspace(1000));
    for (size_t di = 0; di < sizeof DISTS / sizeof DISTS[0]; di++)
        for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++)
            for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++) {
                const int dist = DISTS[di];
                const double bound = dist == DIST_STUDENT15 && KS[ki] > 5 ? 1.07 : 1.02;
                unsigned k = KS[ki];
                size_t n = NS[ni];
                float *x = test_gradient((test_dist)dist, n, 31u * k + 1000u * (unsigned)ni + 7u * dist);
                float g[16], e[16];
                orq_levels_bucket(g, k, x, n, work);
                qz_sorted s;
                qz_sorted_build(&s, x, n, work2);
                orq_levels_exact(e, k, &s);
                double eg = brute_error(x, n, g, k), ee = brute_error(x, n, e, k);
                if (ee > 0 && eg / ee > worst && bound < 1.05) worst = eg / ee;
                if (eg > ee * bound + 1e-18)
                    fprintf(stderr, "  %s, ORQ-%u, %zu elements: %.4f of the optimum\n", TEST_DIST_NAMES[dist], k, n,
                            eg / ee);
                worse += eg > ee * bound + 1e-18;
                cases++;
                for (unsigned m = 0; m + 1 < k; m++) worse += !(g[m] <= g[m + 1]);
                worse += g[0] != e[0] || g[k - 1] != e[k - 1]; /* min and max are always levels */
                free(x);
            }
    free(work);
    free(work2);
    CHECK(worse == 0,
          "codec ORQ levels above the bound on the DP optimum (or out of order) in %d of %d buckets "
          "(worst within 2%%: %.4f)",
          worse, cases, worst);
    printf("codec/exact worst ratio over %d buckets: %.5f\n", cases, worst);
}

static void test_optimality_condition(void)
{
    const size_t n = 512;
    void *work = malloc(qz_sorted_workspace(n));
    int bad = 0;
    for (int dist = 0; dist < 3; dist++) {
        float *x = test_gradient((test_dist)dist, n, 5 + dist);
        qz_sorted s;
        qz_sorted_build(&s, x, n, work);
        float lv[9];
        orq_levels_greedy(lv, 9, &s);
        for (int m = 1; m < 8; m++) {
            /* slope just below and just above l: sum_{a<=x<l}(x-a) - sum_{l<x<=c}(c-x) +- the mass at l */
            double a = lv[m - 1], l = lv[m], c = lv[m + 1], left = 0, right = 0, at = 0;
            for (size_t i = 0; i < n; i++) {
                if (x[i] >= a && x[i] < l) left += x[i] - a;
                if (x[i] > l && x[i] <= c) right += c - x[i];
                if (x[i] == l) at += c - a;
            }
            /* convex cost: the slope must be <= 0 from the left and >= 0 from the right */
            bad += !(left - right - at <= 1e-12 && left - right + at >= -1e-12);
        }
        free(x);
    }
    free(work);
    CHECK(bad == 0, "%d interior ORQ-9 levels violate the optimality condition", bad);
}

static double nmse_of(const char *spec, const float *x, size_t n)
{
    qz_params p = test_spec(spec);
    double e = 0, norm = 0;
    const int T = 4;
    for (int t = 0; t < T; t++) {
        size_t size;
        float *y = test_roundtrip(&p, x, n, 300 + t, &size);
        for (size_t i = 0; i < n; i++) e += ((double)y[i] - x[i]) * ((double)y[i] - x[i]);
        free(y);
    }
    for (size_t i = 0; i < n; i++) norm += (double)x[i] * x[i];
    return e / T / norm;
}

static void test_orq_beats_qsgd(void)
{
    const size_t n = 1 << 16;
    char so[64], sq[64];
    for (int dist = 0; dist < 3; dist++) {
        float *x = test_gradient((test_dist)dist, n, 900 + dist);
        for (unsigned L = 3; L <= 9; L += 2) {
            snprintf(so, sizeof so, "orq:levels=%u,bucket=512", L);
            snprintf(sq, sizeof sq, "qsgd:levels=%u,bucket=512,norm=max", L);
            double eo = nmse_of(so, x, n), eq = nmse_of(sq, x, n);
            CHECK(eo <= eq, "%s on %s: nmse %.4g above QSGD-max's %.4g", so, TEST_DIST_NAMES[dist], eo, eq);
        }
        snprintf(so, sizeof so, "orq:levels=5,bucket=32768");
        snprintf(sq, sizeof sq, "qsgd:levels=5,bucket=32768,norm=max");
        double o_small = nmse_of("orq:levels=5,bucket=128", x, n), o_big = nmse_of(so, x, n);
        double q_small = nmse_of("qsgd:levels=5,bucket=128,norm=max", x, n), q_big = nmse_of(sq, x, n);
        CHECK(o_big / o_small < q_big / q_small,
              "on %s ORQ degrades %.2fx from bucket 128 to 32768, QSGD-max %.2fx: ORQ should degrade less",
              TEST_DIST_NAMES[dist], o_big / o_small, q_big / q_small);
        free(x);
    }
}

/* The sorted summary against its definition, for every length the network
 * sort takes (up to 1024, padded to a power of two) and the radix sort's
 * beyond: the points ascend as IEEE order with -0 before +0 (the sign is kept),
 * n[k] = k, and the prefix sums equal double sums of the sorted values in
 * the documented order: segments of 64, each summed from its start, offset by
 * the sum of the segments before it. */
static int key_order(const void *a, const void *b)
{
    uint32_t u, v;
    memcpy(&u, a, 4);
    memcpy(&v, b, 4);
    u = u >> 31 ? ~u : u | 0x80000000u; /* the order of IEEE floats, as integers */
    v = v >> 31 ? ~v : v | 0x80000000u;
    return (u > v) - (u < v);
}

static void test_sorted_build(void)
{
    static const size_t LENS[] = {1,   2,   3,   7,   8,   9,   15,   16,   17,   31,   100,
                                  255, 256, 257, 511, 512, 513, 1000, 1023, 1024, 1025, 2000};
    const size_t nl = sizeof LENS / sizeof LENS[0];
    int bad = 0, cases = 0;
    void *work = malloc(qz_sorted_workspace(2000));
    float *ref = malloc(2000 * sizeof *ref);
    for (int kind = 0; kind < 5; kind++)
        for (size_t li = 0; li < nl; li++) {
            const size_t n = LENS[li];
            float *x = test_gradient(DIST_LAPLACE, n, 7000u + 31u * (unsigned)li + (unsigned)kind);
            for (size_t i = 0; i < n; i++) {
                if (kind == 1) x[i] = (float)((int)(x[i] * 3000.0f)) * 0.25f; /* many duplicates */
                if (kind == 2)
                    x[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? -0.0f : x[i] * 1e-40f; /* signed zeros, subnormals */
                if (kind == 3) x[i] = 1.5f;                                        /* all equal */
                if (kind == 4) x[i] = -(float)i;                                   /* descending */
            }
            memcpy(ref, x, n * sizeof *x);
            qsort(ref, n, sizeof *ref, key_order);
            qz_sorted s;
            qz_sorted_build(&s, x, n, work);
            double a1 = 0, a2 = 0, o1 = 0, o2 = 0;
            int ok = s.len == n && s.n[0] == 0 && s.s1[0] == 0 && s.s2[0] == 0;
            for (size_t i = 0; ok && i < n; i++) {
                if (i % 64 == 0) o1 += a1, o2 += a2, a1 = a2 = 0; /* a new segment */
                a1 += ref[i], a2 += (double)ref[i] * ref[i];
                ok = memcmp(&s.x[i], &ref[i], 4) == 0 && s.n[i + 1] == (double)(i + 1) &&
                     s.s1[i + 1] == (i < 64 ? a1 : o1 + a1) && s.s2[i + 1] == (i < 64 ? a2 : o2 + a2);
            }
            if (!ok && bad < 3) fprintf(stderr, "sorted summary wrong: kind %d, %zu elements\n", kind, n);
            bad += !ok;
            cases++;
            free(x);
        }
    free(ref);
    free(work);
    CHECK(bad == 0, "%d of %d sorted summaries differ from sorting by definition", bad, cases);
}

/* The coarse programme's candidates by their definition (orq.h), with plain
 * scans from the start: for t = 0..31 the first point with at least
 * t total / 31 elements before it and the first at or above lo + t span / 31,
 * ascending, one index a distinct value. Sorted buckets of 310 and 620
 * elements put the rank targets (10 t and 20 t) exactly on counts: the
 * threshold at equality. On a histogram's d edges, for k levels: the edge
 * nearest below t (d - 1) / 31 for t = 0..31 up to 5 levels (with 5 and 6 at
 * the threshold), t (d - 1) / 63 for t = 0..63 above. */
static size_t candidates_by_definition(size_t *idx, const qz_sorted *s, unsigned k)
{
    const size_t d = s->len;
    size_t all[64], m = 0;
    if (d <= 64) {
        for (size_t i = 0; i < d; i++) all[m++] = i;
    } else if (s->edges) {
        const double parts = k <= 5 ? 31 : 63;
        for (double t = 0; t <= parts; t++) all[m++] = (size_t)floor(t * (double)(d - 1) / parts);
    } else {
        const double lo = s->x[0], span = (double)s->x[d - 1] - lo, total = s->n[d - 1];
        for (size_t t = 0; t < 32; t++) {
            const double r = (double)t * total / 31.0, v = lo + span * (double)t / 31.0;
            size_t p = 0, q = 0;
            while (p < d - 1 && !(s->n[p] >= r)) p++;
            while (q < d - 1 && !((double)s->x[q] >= v)) q++;
            all[m++] = p, all[m++] = q;
        }
    }
    for (size_t i = 1; i < m; i++) /* insertion sort */
        for (size_t j = i; j > 0 && all[j - 1] > all[j]; j--) {
            const size_t tmp = all[j];
            all[j] = all[j - 1], all[j - 1] = tmp;
        }
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || s->x[all[i]] != s->x[idx[u - 1]]) idx[u++] = all[i];
    return u;
}

/* n elements from base up to `ulps` floats above it, each value repeated a few times */
static float *few_ulps(size_t n, float base, unsigned ulps)
{
    float *x = malloc(n * sizeof *x);
    uint32_t b;
    memcpy(&b, &base, 4);
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = b + (uint32_t)((i * 37u) % (ulps + 1));
        memcpy(&x[i], &u, 4);
    }
    return x;
}

/* The histogram by its definition: element x in bin min(floor((x - lo) bins
 * / (hi - lo)), bins - 1); n[b] and s1[b] the count and sum of the elements
 * in bins below b, s1 in its blocked order to within 1e-13 of the sum of
 * |x| (the counts exactly); edges lo + (hi - lo) b / bins, the last hi; no
 * sums of squares. 255 and 13 bins leave the last of the four blocks short,
 * 1 and 3 bins leave blocks empty. */
static void test_hist_build(void)
{
    static const test_dist DISTS[] = {DIST_GAUSSIAN, DIST_LAPLACE, DIST_ZEROS60, DIST_UNIFORM};
    static const size_t LENS[] = {7, 300, 512, 1000}, BINS[] = {1, 3, 13, 255, 256};
    int bad = 0, cases = 0;
    void *work = malloc(qz_sorted_workspace(1000));
    double *cnt = malloc(1001 * sizeof *cnt), *sum = malloc(1001 * sizeof *sum);
    for (size_t di = 0; di < sizeof DISTS / sizeof DISTS[0]; di++)
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (size_t bi = 0; bi < sizeof BINS / sizeof BINS[0]; bi++) {
                const size_t n = LENS[li], bins = BINS[bi];
                if (bins > n) continue;
                float *x = test_gradient(DISTS[di], n, 9500u + 7u * (unsigned)li + 131u * (unsigned)di);
                float lo = x[0], hi = x[0];
                double abs = 0;
                for (size_t i = 0; i < n; i++) lo = fminf(lo, x[i]), hi = fmaxf(hi, x[i]), abs += fabs(x[i]);
                memset(cnt, 0, (bins + 1) * sizeof *cnt);
                memset(sum, 0, (bins + 1) * sizeof *sum);
                for (size_t i = 0; i < n; i++) {
                    size_t b = hi > lo ? (size_t)floor(((double)x[i] - lo) * (double)bins / ((double)hi - lo)) : 0;
                    b = b < bins ? b : bins - 1;
                    for (size_t e = b + 1; e <= bins; e++) cnt[e] += 1, sum[e] += x[i];
                }
                qz_sorted s;
                int ok = qz_hist_build(&s, x, n, bins, work) == 0 && s.len == bins + 1 && s.edges == 1 && !s.s2;
                for (size_t e = 0; ok && e <= bins; e++) {
                    const double edge = e == bins ? hi : (double)lo + ((double)hi - lo) / (double)bins * (double)e;
                    ok = s.n[e] == cnt[e] && fabs(s.s1[e] - sum[e]) <= 1e-13 * abs && s.x[e] == (float)edge;
                }
                if (!ok && bad < 3) fprintf(stderr, "histogram wrong: dist %zu, %zu elements, %zu bins\n", di, n, bins);
                bad += !ok;
                cases++;
                free(x);
            }
    free(cnt);
    free(sum);
    CHECK(bad == 0, "%d of %d histograms differ from their definition", bad, cases);
    CHECK(cases == 68, "%d histograms checked, 68 planned", cases);
    /* edges over a range of 100 ulps: 256 bins round to fewer floats, so the points are not distinct */
    float *x = few_ulps(512, 1.0f, 100);
    qz_sorted s;
    CHECK(qz_hist_build(&s, x, 512, 256, work) == 0 && s.distinct == 0, "edges over 100 ulps taken as distinct");
    free(x);
    x = test_gradient(DIST_GAUSSIAN, 512, 9600);
    CHECK(qz_hist_build(&s, x, 512, 256, work) == 0 && s.distinct == 1, "edges of a Gaussian bucket not distinct");
    free(x);
    free(work);
}

/* brute_error of the levels at edge indices idx */
static double edges_error(const float *x, size_t n, const qz_sorted *s, const size_t *idx, unsigned k)
{
    float lv[16];
    for (unsigned m = 0; m < k; m++) lv[m] = s->x[idx[m]];
    return brute_error(x, n, lv, k);
}

/* The codec's search on a histogram's edges, by its definition (orq.h,
 * docs/quantizers.md#orq): the coarse programme, then band programmes of
 * +-6 edges, each kept while it lowers the cost (brute force here), and
 * another one only where a kept band moved some level by exactly 6 edges,
 * at most three. Buckets where a second band ran and changed the levels are
 * counted, so the rule's both sides are exercised. */
static void test_edge_search(void)
{
    static const test_dist DISTS[] = {DIST_GAUSSIAN, DIST_LAPLACE, DIST_STUDENT3, DIST_UNIFORM};
    static const unsigned KS[] = {5, 9};
    const size_t n = 512, w = 6;
    int bad = 0, cases = 0, second = 0, second_moved = 0;
    void *work = malloc(qz_sorted_workspace(n)), *work2 = malloc(qz_sorted_workspace(n));
    for (size_t di = 0; di < sizeof DISTS / sizeof DISTS[0]; di++)
        for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++)
            for (int rep = 0; rep < 40; rep++) {
                const unsigned k = KS[ki];
                float *x = test_gradient(DISTS[di], n, 15000u + (unsigned)rep + 100u * (unsigned)di + 7u * k);
                qz_sorted s;
                if (qz_hist_build(&s, x, n, n / 2, work) != 0) CHECK(0, "histogram of finite elements refused");
                double most = 0; /* crowded buckets are sorted by the codec: not this path */
                for (size_t b = 0; b + 1 < s.len; b++) most = fmax(most, s.n[b + 1] - s.n[b]);
                if (most > (double)n / 16) {
                    free(x);
                    continue;
                }
                size_t idx[16], nidx[16];
                orq_coarse_levels(idx, k, &s);
                double cost = edges_error(x, n, &s, idx, k);
                for (int round = 0; round < 3; round++) {
                    orq_band_levels(nidx, idx, k, &s, w);
                    const double ncost = edges_error(x, n, &s, nidx, k);
                    if (!(ncost < cost * (1 - 1e-9))) break;
                    int at_edge = 0, moved = 0;
                    for (unsigned l = 1; l + 1 < k; l++)
                        at_edge |= nidx[l] + w == idx[l] || nidx[l] == idx[l] + w, moved |= nidx[l] != idx[l];
                    second += round == 1, second_moved += round == 1 && moved;
                    memcpy(idx, nidx, sizeof idx);
                    cost = ncost;
                    if (!at_edge) break;
                }
                float want[16], got[16];
                for (unsigned m = 0; m < k; m++) want[m] = s.x[idx[m]];
                CHECK(orq_levels_bucket(got, k, x, n, work2) == GQ_OK, "orq_levels_bucket failed");
                const int ok = memcmp(want, got, k * sizeof *got) == 0;
                if (!ok && bad < 3) fprintf(stderr, "edge search differs: dist %zu, %u levels, rep %d\n", di, k, rep);
                bad += !ok, cases++;
                free(x);
            }
    /* edges that repeat values (100 ulps, 256 bins, no bin crowded): ascending levels from min to max, within
     * the codec's 2% of the optimum */
    float *x = few_ulps(n, 1.0f, 100);
    qz_sorted s;
    qz_sorted_build(&s, x, n, work);
    for (unsigned k = 5; k <= 9; k += 4) {
        float got[16], opt[16];
        CHECK(orq_levels_bucket(got, k, x, n, work2) == GQ_OK && orq_levels_exact(opt, k, &s) == GQ_OK,
              "levels of a bucket of 100 ulps");
        int ordered = got[0] == opt[0] && got[k - 1] == opt[k - 1];
        for (unsigned m = 0; m + 1 < k; m++) ordered &= got[m] <= got[m + 1];
        const double eg = brute_error(x, n, got, k), eo = brute_error(x, n, opt, k);
        CHECK(ordered && eg <= eo * 1.02 + 1e-30, "%u levels over 100 ulps: %.4g of the optimum's error, ordered %d", k,
              eo > 0 ? eg / eo : 0, ordered);
    }
    free(x);
    free(work);
    free(work2);
    CHECK(bad == 0, "%d of %d searches on edges differ from their definition", bad, cases);
    CHECK(cases >= 300, "only %d of 320 buckets uncrowded", cases);
    CHECK(second_moved > 0, "no second band moved a level in %d searches (%d second bands)", cases, second);
    printf("edge searches: %d cases, %d second bands, %d of them moved levels\n", cases, second, second_moved);
}

/* Whether the candidates of s for k levels are those of their definition;
 * *nw: how many the definition has. */
static int candidates_match(const qz_sorted *s, unsigned k, size_t *want, size_t *nw)
{
    size_t got[64];
    const size_t ng = orq_coarse_candidates(got, s, k);
    *nw = candidates_by_definition(want, s, k);
    return ng == *nw && memcmp(got, want, ng * sizeof *got) == 0;
}

static void test_coarse_candidates(void)
{
    static const test_dist DISTS[] = {DIST_GAUSSIAN, DIST_LAPLACE, DIST_STUDENT15, DIST_ZEROS60, DIST_UNIFORM};
    static const size_t LENS[] = {60, 65, 300, 310, 512, 620, 1000};
    int bad = 0, cases = 0, long_scans = 0;
    void *work = malloc(qz_sorted_workspace(1000));
    for (size_t di = 0; di < sizeof DISTS / sizeof DISTS[0]; di++)
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (int sorted = 0; sorted < 2; sorted++) {
                const size_t n = LENS[li];
                float *x = test_gradient(DISTS[di], n, 9100u + 13u * (unsigned)li + 101u * (unsigned)di);
                qz_sorted s;
                if (sorted)
                    qz_sorted_build(&s, x, n, work);
                else if (qz_hist_build(&s, x, n, n / 2, work) != 0)
                    CHECK(0, "histogram of %zu finite elements refused", n);
                for (unsigned k = 5; k <= 6; k++) {
                    size_t want[64], nw;
                    const int ok = candidates_match(&s, k, want, &nw);
                    if (!ok && bad < 3)
                        fprintf(stderr, "coarse candidates differ: dist %zu, %zu elements, %s, %u levels\n", di, n,
                                sorted ? "sorted" : "histogram", k);
                    for (size_t i = 1; i < nw; i++) long_scans += want[i] - want[i - 1] > 8;
                    bad += !ok;
                    cases++;
                }
                free(x);
            }
    /* a histogram whose edges repeat values (10 ulps, 256 bins): one candidate a value, fewer than spread */
    float *x = few_ulps(512, 1.0f, 10);
    qz_sorted s;
    qz_hist_build(&s, x, 512, 256, work);
    for (unsigned k = 5; k <= 6; k++) {
        size_t want[64], nw;
        bad += !(candidates_match(&s, k, want, &nw) && nw < (k <= 5 ? 32u : 64u)), cases++;
    }
    free(x);
    free(work);
    CHECK(bad == 0, "%d of %d candidate sets differ from their definition", bad, cases);
    CHECK(long_scans > 0, "no gap between candidates wider than a vector: the scans' loops untested");
}

/* The programme written plainly (orq.h: orq_coarse_levels, orq_band_levels),
 * one end and one predecessor at a time in the same float expressions: every
 * build's vectors (sixteen ends, eight, four) must give its levels bit for
 * bit. layer[l] holds nl[l] ascending indices; layer 0 is {0}, layer k-1
 * {d-1}. prune = 0 leaves the pruning out, to show where it decides. */
static void programme_by_definition(size_t *idx, unsigned k, const qz_sorted *s, const size_t *const *layer,
                                    const size_t *nl, int prune)
{
    const size_t d = s->len;
    const double mid = 0.5 * ((double)s->x[0] + s->x[d - 1]);
    float f[2][64];
    size_t from[16][64];
    f[0][0] = 0;
    for (unsigned l = 1; l < k; l++) {
        const size_t *ci = layer[l - 1], *cj = layer[l], ni = nl[l - 1], nj = nl[l];
        const float *fi = f[(l - 1) & 1];
        float *fj = f[l & 1];
        size_t first = 0;
        for (size_t b = 0; b < nj; b++) {
            const float nJ = (float)s->n[cj[b]], xJ = (float)(s->x[cj[b]] - mid),
                        pJ = (float)(s->s1[cj[b]] - mid * s->n[cj[b]]);
            const float alphaJ = pJ - xJ * nJ, baseJ = xJ * pJ;
            float best = INFINITY;
            size_t at = 0;
            for (size_t a = prune ? first : 0; a < ni && ci[a] <= cj[b]; a++) {
                const float nI = (float)s->n[ci[a]], xI = (float)(s->x[ci[a]] - mid),
                            pI = (float)(s->s1[ci[a]] - mid * s->n[ci[a]]);
                const float alphaI = pI - xI * nI, baseI = xI * pI;
                const float pa = fi[a] == INFINITY ? INFINITY : fi[a] - baseI;
                const float c = pa + xI * alphaJ - alphaI * xJ;
                if (c < best) best = c, at = a;
            }
            fj[b] = baseJ + best;
            from[l][b] = at;
            if (b % 16 == 15 && best != INFINITY) first = at;
        }
    }
    size_t b = 0;
    for (unsigned l = k - 1; l > 0; l--) {
        idx[l] = layer[l][b];
        b = from[l][b];
    }
    idx[0] = 0;
}

/* Layers of the coarse programme (its candidates for every interior level)
 * or of the band around idx (w points each side, one index a value). */
static void layers_of(size_t (*store)[64], const size_t **layer, size_t *nl, unsigned k, const qz_sorted *s,
                      const size_t *idx, size_t w)
{
    const size_t d = s->len;
    store[0][0] = 0, store[k - 1][0] = d - 1, nl[0] = nl[k - 1] = 1;
    for (unsigned l = 1; l + 1 < k; l++) {
        if (!idx) {
            nl[l] = orq_coarse_candidates(store[l], s, k);
            continue;
        }
        const size_t lo = idx[l] > w ? idx[l] - w : 0, hi = idx[l] + w < d - 1 ? idx[l] + w : d - 1;
        nl[l] = 0;
        for (size_t i = lo; i <= hi; i++)
            if (nl[l] == 0 || s->x[i] != s->x[store[l][nl[l] - 1]]) store[l][nl[l]++] = i;
    }
    for (unsigned l = 0; l < k; l++) layer[l] = store[l];
}

/* One programme of bucket s against the plain one: the band around the
 * greedy search's levels (as the codec's search moves them) or the coarse
 * programme. @return whether it matches; *decides: whether the pruning changed
 * the plain one's answer. */
static int programme_matches(const qz_sorted *s, unsigned k, int band, int *decides)
{
    size_t store[16][64], nl[16], got[16], want[16], unpruned[16], start[16];
    const size_t *layer[16];
    if (band) {
        float lv[16];
        orq_levels_greedy(lv, k, s);
        for (unsigned m = 0; m < k; m++) {
            size_t i = 0;
            while (i + 1 < s->len && s->x[i] < lv[m]) i++;
            start[m] = i;
        }
        orq_band_levels(got, start, k, s, 12);
        layers_of(store, layer, nl, k, s, start, 12);
    } else {
        orq_coarse_levels(got, k, s);
        layers_of(store, layer, nl, k, s, NULL, 0);
    }
    programme_by_definition(want, k, s, layer, nl, 1);
    programme_by_definition(unpruned, k, s, layer, nl, 0);
    *decides = memcmp(want, unpruned, k * sizeof *want) != 0;
    return memcmp(got, want, k * sizeof *got) == 0;
}

static void test_programme(void)
{
    static const unsigned KS[] = {4, 5, 9, 16};
    static const test_dist DISTS[] = {DIST_GAUSSIAN, DIST_LAPLACE, DIST_STUDENT3, DIST_UNIFORM};
    int bad = 0, cases = 0, decides = 0, d;
    void *work = malloc(qz_sorted_workspace(512));
    for (size_t di = 0; di < sizeof DISTS / sizeof DISTS[0]; di++)
        for (int rep = 0; rep < 150; rep++) {
            float *x = test_gradient(DISTS[di], 512, 12000u + (unsigned)rep + 1000u * (unsigned)di);
            qz_sorted s;
            if (rep % 2)
                qz_sorted_build(&s, x, 512, work);
            else if (qz_hist_build(&s, x, 512, 256, work) != 0)
                CHECK(0, "histogram of finite elements refused");
            for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++)
                for (int band = 0; band < 2; band++) {
                    const int ok = programme_matches(&s, KS[ki], band, &d);
                    if (!ok && bad < 3)
                        fprintf(stderr, "%s programme differs: dist %zu, rep %d, %u levels\n", band ? "band" : "coarse",
                                di, rep, KS[ki]);
                    bad += !ok, decides += d, cases++;
                }
            free(x);
        }
    /* buckets where float rounding breaks the quadrangle inequality and the pruning decides (found by a search
     * of 160,000 buckets: the band around the greedy search's 16 levels, sorted Laplace and Student-t(3)) */
    static const struct {
        test_dist dist;
        unsigned seed;
    } DECISIVE[] = {{DIST_LAPLACE, 3249},  {DIST_LAPLACE, 20247}, {DIST_LAPLACE, 30745},
                    {DIST_STUDENT3, 5967}, {DIST_STUDENT3, 8196}, {DIST_STUDENT3, 18217}};
    int decisive = 0;
    for (size_t c = 0; c < sizeof DECISIVE / sizeof DECISIVE[0]; c++) {
        float *x = test_gradient(DECISIVE[c].dist, 512, DECISIVE[c].seed);
        qz_sorted s;
        qz_sorted_build(&s, x, 512, work);
        bad += !programme_matches(&s, 16, 1, &d), decisive += d, cases++;
        free(x);
    }
    free(work);
    CHECK(bad == 0, "%d of %d programmes differ from the plain one", bad, cases);
    CHECK(decisive == 6, "the pruning decides in %d of the 6 buckets found for it: the plain programme changed",
          decisive);
    printf("programmes: %d cases, the pruning decides in %d and in %d of 6 chosen\n", cases, decides, decisive);
}

/* fit=hist: interior levels on the edges lo + (hi - lo) b / 48, the best such
 * set by enumeration of all of them (3 and 4 levels), never below the exact
 * optimum, within 2% of it for 5 levels on Gaussian buckets (docs/quantizers.md
 * measures 0.4%); a bucket of no more than 48 elements solved exactly. */
#define HIST_BINS 48
static void test_hist_fit(void)
{
    static const test_dist DISTS[] = {DIST_GAUSSIAN, DIST_LAPLACE, DIST_STUDENT3, DIST_ZEROS60, DIST_STUDENT15};
    void *work = malloc(qz_sorted_workspace(1000)), *work2 = malloc(qz_sorted_workspace(1000));
    int off_edge = 0, not_best = 0, below = 0, cases = 0;
    double worst_gauss5 = 1;
    for (size_t di = 0; di < sizeof DISTS / sizeof DISTS[0]; di++)
        for (unsigned k = 3; k <= 5; k++)
            for (size_t ni = 0; ni < 2; ni++) {
                const size_t n = ni ? 1000 : 512;
                float *x = test_gradient(DISTS[di], n, 5u * k + 11u * (unsigned)n + 3u * DISTS[di]);
                float h[16], e[16], edge[HIST_BINS + 1];
                CHECK(orq_levels_hist(h, k, x, n, work) == GQ_OK, "orq_levels_hist failed");
                float lo = x[0], hi = x[0];
                for (size_t i = 1; i < n; i++) lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
                for (int b = 0; b <= HIST_BINS; b++)
                    edge[b] = b == HIST_BINS ? hi : (float)((double)lo + ((double)hi - lo) / HIST_BINS * b);
                for (unsigned m = 0; m < k; m++) {
                    int on = 0;
                    for (int b = 0; b <= HIST_BINS; b++) on |= h[m] == edge[b];
                    off_edge += !on || (m > 0 && !(h[m - 1] <= h[m]));
                }
                off_edge += h[0] != lo || h[k - 1] != hi;
                const double eh = brute_error(x, n, h, k);
                if (k <= 4) { /* every set of interior edges */
                    double best = INFINITY;
                    float t[4] = {lo, 0, 0, hi};
                    for (int b1 = 1; b1 < HIST_BINS; b1++)
                        for (int b2 = k == 4 ? b1 : HIST_BINS - 1; b2 < HIST_BINS; b2++) {
                            t[1] = edge[b1], t[2] = edge[b2], t[k - 1] = hi;
                            const double et = brute_error(x, n, t, k);
                            best = et < best ? et : best;
                        }
                    not_best += eh > best * (1 + 1e-5) + 1e-18;
                }
                qz_sorted s;
                qz_sorted_build(&s, x, n, work2);
                orq_levels_exact(e, k, &s);
                const double ee = brute_error(x, n, e, k);
                below += eh < ee * (1 - 1e-9);
                if (DISTS[di] == DIST_GAUSSIAN && k == 5 && eh / ee > worst_gauss5) worst_gauss5 = eh / ee;
                cases++;
                free(x);
            }
    CHECK(off_edge == 0, "%d fit=hist levels off the 48 edges, out of order or without min and max", off_edge);
    CHECK(not_best == 0, "fit=hist not the best set of edges in %d buckets", not_best);
    CHECK(below == 0, "fit=hist below the exact optimum in %d of %d buckets: one of the two is wrong", below, cases);
    CHECK(worst_gauss5 <= 1.02, "fit=hist ORQ-5 on Gaussian buckets %.4f of the optimum (2%% allowed)", worst_gauss5);

    /* no more elements than bins: sorted and solved exactly */
    float *x = test_gradient(DIST_LAPLACE, HIST_BINS, 99);
    float h[16], e[16];
    orq_levels_hist(h, 5, x, HIST_BINS, work);
    qz_sorted s;
    qz_sorted_build(&s, x, HIST_BINS, work2);
    orq_levels_exact(e, 5, &s);
    const double eh = brute_error(x, HIST_BINS, h, 5), ee = brute_error(x, HIST_BINS, e, 5);
    CHECK(fabs(eh - ee) <= 1e-12 * ee, "fit=hist on %d elements: %.9g, the optimum %.9g", HIST_BINS, eh, ee);
    free(x);
    free(work);
    free(work2);
}

/* qz_levels_excess: the exact-fit ratio of a bucket the codec solves exactly
 * is 1; ratios are never below 1 and follow the search (hist >= exact here);
 * codecs without a level search and buckets too long to solve are refused. */
static void test_levels_excess(void)
{
    float *x = test_gradient(DIST_STUDENT3, 8 * 512, 7);
    qz_params p;
    char msg[128];
    double r_exact = 0, r_hist = 0, r_small = 0, r;
    qz_parse_spec("orq:levels=9", &p, msg, sizeof msg);
    CHECK(qz_levels_excess(&p, x, 8 * 512, 8, &r_exact) == GQ_OK, "excess of orq-9");
    p.fit = QZ_FIT_HIST;
    CHECK(qz_levels_excess(&p, x, 8 * 512, 8, &r_hist) == GQ_OK, "excess of orq-9 fit=hist");
    CHECK(r_exact >= 1 - 1e-9 && r_exact <= 1.02 && r_hist >= r_exact, "excess: exact search %.5f, hist %.5f", r_exact,
          r_hist);
    qz_parse_spec("orq:levels=5,bucket=64", &p, msg, sizeof msg); /* up to 64 distinct values: the exact programme */
    CHECK(qz_levels_excess(&p, x, 8 * 512, 8, &r_small) == GQ_OK && fabs(r_small - 1) < 1e-9,
          "excess on buckets of 64: %.12f, not 1", r_small);
    /* through the codec: fit=hist's encoded values are orq_levels_hist's levels, the default's are not */
    for (int fit = 0; fit <= 1; fit++) {
        qz_parse_spec(fit ? "orq:levels=5,fit=hist" : "orq:levels=5", &p, msg, sizeof msg);
        const size_t cap = qz_bound(&p, 512), wcap = qz_workspace_size(&p, 512);
        void *buf = malloc(cap), *w = malloc(wcap);
        float y[512], lv[5];
        const size_t bytes = qz_encode(buf, cap, x, 512, &p, 3, w, wcap);
        CHECK(!gq_is_error(bytes) && qz_decode(y, 512, buf, bytes) == 512, "orq fit=%d round trip", fit);
        orq_levels_hist(lv, 5, x, 512, w);
        int off = 0;
        for (size_t i = 0; i < 512; i++)
            off += y[i] != lv[0] && y[i] != lv[1] && y[i] != lv[2] && y[i] != lv[3] && y[i] != lv[4];
        CHECK(fit ? off == 0 : off > 0, "orq fit=%s: %d decoded values off the histogram's levels",
              fit ? "hist" : "exact", off);
        free(buf);
        free(w);
    }
    qz_parse_spec("orq:levels=5,bucket=1025", &p, msg, sizeof msg);
    CHECK(qz_levels_excess(&p, x, 8 * 512, 8, &r) == GQ_ERR_PARAM, "a bucket of 1025 solved exactly");
    qz_parse_spec("qsgd:levels=5", &p, msg, sizeof msg);
    CHECK(qz_levels_excess(&p, x, 8 * 512, 8, &r) == GQ_ERR_PARAM, "qsgd has no level search");
    free(x);
}

int main(void)
{
    test_sorted_build();
    test_hist_build();
    test_coarse_candidates();
    test_programme();
    test_edge_search();
    test_greedy_vs_exact();
    test_codec_levels_vs_exact();
    test_optimality_condition();
    test_orq_beats_qsgd();
    test_hist_fit();
    test_levels_excess();
    return check_summary();
}
