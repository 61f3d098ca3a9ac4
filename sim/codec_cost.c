/* Codec costs timed on this machine; see codec_cost.h. */
#include "codec_cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gq_clock.h"
#include "rng.h"

void codec_cost_gaussian(float *x, size_t n, uint64_t seed)
{
    rng_t r;
    rng_init(&r, seed);
    for (size_t i = 0; i < n; i += 2) { /* Box-Muller pairs */
        double u1 = rng_double(&r) + 1e-300, u2 = rng_double(&r), m = sqrt(-2 * log(u1)) * 1e-3;
        x[i] = (float)(m * cos(6.283185307179586 * u2));
        if (i + 1 < n) x[i + 1] = (float)(m * sin(6.283185307179586 * u2));
    }
}

gq_err codec_cost_measure(const qz_params *q, double *enc_ns, double *dec_ns)
{
    static struct {
        qz_params q;
        double enc, dec;
    } cache[32];
    static int ncache;
    for (int i = 0; i < ncache; i++)
        if (memcmp(&cache[i].q, q, sizeof *q) == 0) return *enc_ns = cache[i].enc, *dec_ns = cache[i].dec, GQ_OK;
    if (q->id == QZ_FP32) return *enc_ns = *dec_ns = 0, GQ_OK;
    const size_t n = (size_t)1 << 20;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    size_t cap = qz_bound(q, n), wcap = qz_workspace_size(q, n);
    void *buf = malloc(cap), *work = malloc(wcap ? wcap : 1);
    double be = INFINITY, bd = INFINITY;
    if (x) codec_cost_gaussian(x, n, 1);
    for (int t = 0; x && y && buf && work && t < 3; t++) {
        double t0 = gq_now();
        size_t s = qz_encode(buf, cap, x, n, q, (uint64_t)t, work, wcap);
        double t1 = gq_now();
        if (gq_is_error(s)) break;
        qz_decode(y, n, buf, s);
        double t2 = gq_now();
        be = fmin(be, t1 - t0), bd = fmin(bd, t2 - t1);
    }
    free(x), free(y), free(buf), free(work);
    if (!isfinite(be)) return GQ_ERR_PARAM;
    *enc_ns = 1e9 * be / (double)n, *dec_ns = 1e9 * bd / (double)n;
    if (ncache < 32) cache[ncache].q = *q, cache[ncache].enc = *enc_ns, cache[ncache++].dec = *dec_ns;
    return GQ_OK;
}
