/* Measuring quantizers; see qz_measure.h. */
#include "qz_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_clock.h"

typedef struct {
    const qz_params *p;
    const float *x;
    size_t n, cap, wcap, size;
    unsigned char *buf;
    void *work;
    float *y;
    uint64_t seed;
    int failed;
    size_t err; /* the failing call's result */
} codec_run;

static void run_encode(codec_run *r)
{
    size_t s = qz_encode(r->buf, r->cap, r->x, r->n, r->p, r->seed, r->work, r->wcap);
    if (gq_is_error(s))
        r->failed = 1, r->err = s;
    else
        r->size = s;
}
static void run_decode(codec_run *r)
{
    size_t d = qz_decode(r->y, r->n, r->buf, r->size);
    if (d != r->n) r->failed = 1, r->err = d;
}
static void run_memcpy(codec_run *r) { memcpy(r->y, r->x, r->n * sizeof *r->x); }

/* Seconds per call on `clock`, timing a batch that lasts at least min_s so
 * the clock's resolution does not matter for small n. *reps (in and out) is
 * the batch to start from: a batch too short sizes the next from its own
 * time with a quarter to spare (at least double, at most 100 times), so a
 * trial after the first usually times one batch, not a doubling series that
 * spent three times min_s. */
static double time_per_call(void (*fn)(codec_run *), codec_run *r, double (*clock)(void), double min_s, long *reps)
{
    const long most = 1L << 22;
    for (long n = *reps > 0 ? *reps : 1;;) {
        double t0 = clock();
        for (long k = 0; k < n && !r->failed; k++) fn(r);
        double dt = clock() - t0;
        if (r->failed || dt >= min_s || n >= most) return *reps = n, dt / (double)n;
        const double want = dt > 0 ? 1.25 * min_s / dt * (double)n : 100.0 * (double)n;
        n = want < 2.0 * (double)n ? 2 * n : want > 100.0 * (double)n ? 100 * n : (long)want + 1;
        if (n > most) n = most;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void codec_run_free(codec_run *r) { free(r->buf), free(r->work), free(r->y); }

gq_err qz_measure(const qz_params *p, const float *x, size_t n, int trials, uint64_t seed, int timed, qz_measured *m)
{
    codec_run r = {.p = p, .x = x, .n = n, .cap = qz_bound(p, n), .wcap = qz_workspace_size(p, n)};
    r.buf = malloc(r.cap);
    r.work = malloc(r.wcap ? r.wcap : 1);
    r.y = malloc(n * sizeof *r.y);
    double *mean = calloc(n, sizeof *mean), err = 0, norm = 0;
    gq_err e = GQ_OK;
    if (!r.buf || !r.work || !r.y || !mean) r.failed = 1, e = GQ_ERR_NOMEM;
    m->enc_s = m->dec_s = INFINITY;
    m->bytes = 0;
    long enc_reps = 1, dec_reps = 1;
    for (int t = 0; t < trials && !r.failed; t++) {
        r.seed = seed + (uint64_t)t;
        if (timed) {
            m->enc_s = fmin(m->enc_s, time_per_call(run_encode, &r, gq_now, 0.02, &enc_reps));
            if (!r.failed) m->dec_s = fmin(m->dec_s, time_per_call(run_decode, &r, gq_now, 0.02, &dec_reps));
        } else {
            run_encode(&r);
            if (!r.failed) run_decode(&r);
        }
        if (r.failed) break;
        if (t == 0) m->bytes = r.size;
        for (size_t i = 0; i < n; i++) {
            double d = (double)r.y[i] - x[i];
            err += d * d;
            mean[i] += r.y[i];
        }
    }
    if (!r.failed) {
        double b = 0;
        for (size_t i = 0; i < n; i++) {
            double d = mean[i] / trials - x[i];
            b += d * d;
            norm += (double)x[i] * x[i];
        }
        m->nmse = norm > 0 ? err / trials / norm : 0;
        m->bias = norm > 0 ? b / norm : 0;
    } else if (r.err) {
        e = gq_is_error(r.err) ? gq_error_code(r.err) : GQ_ERR_CORRUPT; /* a decode of the wrong length */
    }
    codec_run_free(&r);
    free(mean);
    return r.failed && e == GQ_OK ? GQ_ERR_CORRUPT : e;
}

double qz_measure_memcpy(const float *x, size_t n, int trials)
{
    codec_run ref = {.x = x, .n = n, .y = malloc(n * sizeof(float))};
    double best = INFINITY;
    long reps = 1;
    for (int k = 0; ref.y && k < trials; k++) best = fmin(best, time_per_call(run_memcpy, &ref, gq_now, 0.02, &reps));
    free(ref.y);
    return best;
}

gq_err qz_measure_cpu(const qz_params *p, const float *x, size_t n, int trials, double *enc_s, double *dec_s)
{
    codec_run r = {.p = p, .x = x, .n = n, .cap = qz_bound(p, n), .wcap = qz_workspace_size(p, n)};
    r.buf = malloc(r.cap);
    r.work = malloc(r.wcap ? r.wcap : 1);
    r.y = malloc(n * sizeof *r.y);
    double te[64], td[64];
    if (trials > 64) trials = 64;
    if (trials < 1) trials = 1;
    gq_err e = r.buf && r.work && r.y ? GQ_OK : GQ_ERR_NOMEM;
    long enc_reps = 1, dec_reps = 1;
    for (int t = 0; e == GQ_OK && t < trials; t++) {
        r.seed = (uint64_t)t;
        te[t] = time_per_call(run_encode, &r, gq_cpu_now, 0.005, &enc_reps); /* long enough for the CPU clock */
        if (!r.failed) td[t] = time_per_call(run_decode, &r, gq_cpu_now, 0.005, &dec_reps);
        if (r.failed) e = gq_is_error(r.err) ? gq_error_code(r.err) : GQ_ERR_CORRUPT;
    }
    if (e == GQ_OK) {
        qsort(te, (size_t)trials, sizeof *te, by_value);
        qsort(td, (size_t)trials, sizeof *td, by_value);
        *enc_s = te[trials / 2], *dec_s = td[trials / 2];
    }
    codec_run_free(&r);
    return e;
}

/* One scheme: its label, its spec (a format, the bucket as its last
 * argument), its levels. */
static void add_scheme(qz_scheme *s, size_t *k, unsigned levels, const char *label, const char *spec, uint64_t d)
{
    snprintf(s[*k].label, sizeof s[*k].label, "%s", label);
    snprintf(s[*k].spec, sizeof s[*k].spec, spec, (unsigned long long)d);
    s[(*k)++].levels = levels;
}

size_t qz_comparison_schemes(qz_scheme *s, const uint64_t *levels, size_t nlevels, uint64_t d)
{
    size_t k = 0;
    for (size_t l = 0; l < nlevels; l++) {
        unsigned L = (unsigned)levels[l];
        char label[32], spec[64];
        snprintf(label, sizeof label, "orq-%u", L);
        snprintf(spec, sizeof spec, "orq:levels=%u,bucket=%%llu", L);
        add_scheme(s, &k, L, label, spec, d);
        snprintf(label, sizeof label, "qsgd-%u-max", L);
        snprintf(spec, sizeof spec, "qsgd:levels=%u,bucket=%%llu,norm=max", L);
        add_scheme(s, &k, L, label, spec, d);
        snprintf(label, sizeof label, "qsgd-%u-l2", L);
        snprintf(spec, sizeof spec, "qsgd:levels=%u,bucket=%%llu,norm=l2", L);
        add_scheme(s, &k, L, label, spec, d);
    }
    add_scheme(s, &k, 3, "terngrad", "terngrad:bucket=%llu,clip=0", d);
    add_scheme(s, &k, 3, "terngrad-clip2.5", "terngrad:bucket=%llu,clip=2.5", d);
    add_scheme(s, &k, 2, "bingrad-b", "bingrad-b:bucket=%llu", d);
    add_scheme(s, &k, 2, "bingrad-pb", "bingrad-pb:bucket=%llu", d);
    return k;
}

#define BENCH_EXCESS_BUCKETS 8 /* buckets an ORQ row's levels are compared with the exact optimum on */

const char *const QZ_BENCH_COLUMNS[] = {"quant",
                                        "n",
                                        "bucket",
                                        "bytes",
                                        "bits_per_element",
                                        "ratio_vs_fp32",
                                        "encode_ns_per_element",
                                        "decode_ns_per_element",
                                        "encode_frac_of_ref",
                                        "decode_frac_of_ref",
                                        "nmse",
                                        "bias",
                                        "levels_err_vs_opt"};
const size_t QZ_BENCH_NCOLUMNS = sizeof QZ_BENCH_COLUMNS / sizeof QZ_BENCH_COLUMNS[0];

gq_err qz_bench_table(const qz_params *params, size_t n, const float *x, size_t count, int trials, uint64_t seed,
                      qz_progress_fn progress, void *ctx, gq_table *t, size_t *failed)
{
    table_init(t, QZ_BENCH_COLUMNS, QZ_BENCH_NCOLUMNS);
    /* the memory-bandwidth reference: stream the floats in and out once */
    double ref_s = qz_measure_memcpy(x, count, trials);
    double ref_ns = 1e9 * ref_s / (double)count;
    table_row(t, "reference\t%zu\t0\t%zu\t32\t1\t%.4f\t%.4f\t1\t1\t0\t0\t-", count, 4 * count, ref_ns, ref_ns);
    for (size_t k = 0; k < n; k++) {
        char canon[256];
        qz_format_spec(&params[k], canon, sizeof canon);
        if (progress) progress(ctx, k + 1, n, canon);
        qz_measured m;
        gq_err e = qz_measure(&params[k], x, count, trials, seed, 1, &m);
        if (e != GQ_OK) return *failed = k, e;
        double enc_ns = 1e9 * m.enc_s / (double)count, dec_ns = 1e9 * m.dec_s / (double)count;
        /* a level search's error over the optimum's (ORQ, buckets short enough to solve exactly), else - */
        char excess[32] = "-";
        double ratio;
        if (qz_levels_excess(&params[k], x, count, BENCH_EXCESS_BUCKETS, &ratio) == GQ_OK)
            snprintf(excess, sizeof excess, "%.5f", ratio);
        table_row(t, "%s\t%zu\t%llu\t%zu\t%.6g\t%.5g\t%.4f\t%.4f\t%.4f\t%.4f\t%.6g\t%.6g\t%s", canon, count,
                  (unsigned long long)params[k].bucket, m.bytes, 8.0 * (double)m.bytes / (double)count,
                  4.0 * (double)count / (double)m.bytes, enc_ns, dec_ns, ref_ns / enc_ns, ref_ns / dec_ns, m.nmse,
                  m.bias, excess);
    }
    return GQ_OK;
}

const char *const QZ_SWEEP_COLUMNS[] = {"dist",   "bucket",           "scheme", "quant",
                                        "levels", "bits_per_element", "nmse",   "bias"};
const size_t QZ_SWEEP_NCOLUMNS = sizeof QZ_SWEEP_COLUMNS / sizeof QZ_SWEEP_COLUMNS[0];

gq_err qz_sweep_rows(const char *dist, const float *x, size_t count, const uint64_t *buckets, size_t nbuckets,
                     const uint64_t *levels, size_t nlevels, int trials, uint64_t seed, qz_progress_fn progress,
                     void *ctx, size_t done, size_t total, gq_table *t, double *nmse, char *failed_spec, size_t cap)
{
    qz_scheme sch[QZ_SCHEMES_MAX(8)];
    for (size_t b = 0; b < nbuckets; b++) {
        const size_t nsch = qz_comparison_schemes(sch, levels, nlevels, buckets[b]);
        for (size_t s = 0; s < nsch; s++) {
            char what[160];
            snprintf(what, sizeof what, "%s on %s", sch[s].spec, dist);
            if (progress) progress(ctx, ++done, total, what);
            qz_params p;
            qz_measured m;
            gq_err e = qz_parse_spec(sch[s].spec, &p, NULL, 0);
            if (e == GQ_OK) e = qz_measure(&p, x, count, trials, seed, 0, &m);
            if (e != GQ_OK) return snprintf(failed_spec, cap, "%s", sch[s].spec), e;
            nmse[b * nsch + s] = m.nmse;
            table_row(t, "%s\t%llu\t%s\t%s\t%u\t%.6g\t%.6g\t%.6g", dist, (unsigned long long)buckets[b], sch[s].label,
                      sch[s].spec, sch[s].levels, 8.0 * (double)m.bytes / (double)count, m.nmse, m.bias);
        }
    }
    return GQ_OK;
}
