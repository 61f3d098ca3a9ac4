/* Error feedback's bookkeeping in the trainer's exchange, from its outputs alone: with gradient g_w and old residual
 * r_w, each worker sends an approximation s_w of M_w = g_w + r_w and keeps r'_w = M_w - s_w, and the update is the
 * average of what was sent -- so avg = mean_w (g_w + r_w - r'_w), up to float rounding. Checked for PowerSGD's
 * factors all-reduced in a ring (the average of P Q'_w^T is P Q-bar^T), for PowerSGD and signSGD in an all-gather
 * (the receivers average the decoded buffers), and for top-k through a server with an fp32 reply; every residual
 * holds something (the approximations are not exact); a PowerSGD ring's update has rank <= r and is the
 * orthogonal projection of the workers' mean on P's columns; warm-started, its exchanges converge to the best
 * rank-r approximation (and do not without the warm start). */
#include <gsl/gsl_linalg.h>

#include "check.h"
#include "exchange_run.h"
#include "nn.h"
#include "zoo.h"

static void check_identity(const model_t *m, const char *spec, sync_kind sync, int W)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.model = m, c.workers = W, c.seed = 3, c.sync = sync;
    qz_parse_spec(spec, &c.quant, NULL, 0);
    if (sync == SYNC_PS) c.exchange.downlink = DOWNLINK_FP32;
    char msg[256];
    size_t off[64];
    xstate x = {.c = &c, .W = W, .ef = 1, .msg = msg, .mcap = sizeof msg};
    x.w_off = off, x.b_off = off + m->nlayers;
    x.P = net_layout(m, off, off + m->nlayers);
    const int made = xstate_alloc(&x, W, 0);
    float *M = malloc((size_t)W * x.P * sizeof *M), *scales = calloc((size_t)W, sizeof *scales);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (size_t k = 0; made && k < (size_t)W * x.P; k++) {
        x.g[k] = (float)gsl_ran_gaussian(r, 1e-3);
        x.res[k] = (float)gsl_ran_gaussian(r, 2e-4);
        M[k] = x.g[k] + x.res[k]; /* as the exchange adds them */
    }
    gq_err e = GQ_OK;
    for (int t = 0; made && t < x.nt && e == GQ_OK; t++) e = xstate_exchange(&x, t, scales);
    double worst = 0, scale = 0, kept = 0;
    for (size_t k = 0; made && e == GQ_OK && k < x.P; k++) {
        double sent = 0;
        for (int w = 0; w < W; w++) sent += ((double)M[(size_t)w * x.P + k] - x.res[(size_t)w * x.P + k]) / W;
        worst = fmax(worst, fabs(sent - x.avg[k]));
        for (int w = 0; w < W; w++) {
            scale = fmax(scale, fabs(M[(size_t)w * x.P + k]));
            kept += fabs(x.res[(size_t)w * x.P + k]);
        }
    }
    CHECK(made && e == GQ_OK && worst <= 1e-5 * scale && kept > 0,
          "%s, %s, %d workers: the update is the mean of gradient + old residual - new residual (worst %.3g of %.3g)%s",
          spec, sync_name(sync), W, worst, scale, e == GQ_OK ? "" : msg);
    if (sync == SYNC_RING && c.quant.id == QZ_POWERSGD) { /* conv3's update (120 x 400) has rank <= r (GSL's SVD) */
        size_t l = 0;
        while (l + 1 < m->nlayers && strcmp(m->layers[l].name, "conv3") != 0) l++;
        gsl_matrix *A = gsl_matrix_alloc(400, 120), *V = gsl_matrix_alloc(120, 120);
        gsl_vector *S = gsl_vector_alloc(120), *work = gsl_vector_alloc(120);
        for (size_t i = 0; i < 120; i++)
            for (size_t j = 0; j < 400; j++) gsl_matrix_set(A, j, i, x.avg[off[l] + i * 400 + j]);
        gsl_linalg_SV_decomp(A, V, S, work);
        const double top = gsl_vector_get(S, 0), next = gsl_vector_get(S, c.quant.rank);
        CHECK(m->layers[l].weight_params == 48000 && next <= 1e-5 * top,
              "%s: the averaged update of conv3 has rank %u (singular value %u is %.3g of the first)", spec,
              c.quant.rank, c.quant.rank + 1, next / top);
        gsl_matrix_free(A), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(work);
        /* and it is the projection of the workers' mean M on P's orthonormal columns: P P^T mean(M), so that
         * |update|^2 + |mean(M) - update|^2 = |mean(M)|^2 (Pythagoras; a P not orthonormalised breaks it) */
        double u2 = 0, d2 = 0, m2 = 0;
        for (size_t k = off[l]; k < off[l] + 48000; k++) {
            double mean = 0;
            for (int w = 0; w < W; w++) mean += M[(size_t)w * x.P + k] / W;
            u2 += (double)x.avg[k] * x.avg[k], d2 += (mean - x.avg[k]) * (mean - x.avg[k]), m2 += mean * mean;
        }
        CHECK(fabs(u2 + d2 - m2) <= 1e-4 * m2, "%s: conv3's update is a projection of the mean (%.6g + %.6g vs %.6g)",
              spec, u2, d2, m2);
    }
    gsl_rng_free(r);
    free(M), free(scales);
    xstate_free(&x);
}

/* Warm start in a ring: the workers' P and Q' average to one power iteration on the mean gradient, so exchanging
 * the same gradients again and again from the last Q converges to its best rank-r approximation (GSL's SVD:
 * Eckart-Young). conv3 (120 x 400) is given a strong rank-2 part plus noise, a gap the iteration closes fast. */
static void check_warm(const model_t *m, const char *spec, int steps, double lo, double hi)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.model = m, c.workers = 3, c.seed = 5, c.sync = SYNC_RING;
    qz_parse_spec(spec, &c.quant, NULL, 0);
    char msg[256];
    size_t off[64];
    xstate x = {.c = &c, .W = 3, .ef = 0, .msg = msg, .mcap = sizeof msg};
    x.w_off = off, x.b_off = off + m->nlayers;
    x.P = net_layout(m, off, off + m->nlayers);
    size_t l = 0;
    while (l + 1 < m->nlayers && strcmp(m->layers[l].name, "conv3") != 0) l++;
    const int made = xstate_alloc(&x, 3, 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 21);
    double u[2][120], v[2][400];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 120; i++) u[k][i] = gsl_ran_gaussian(r, 1);
        for (int j = 0; j < 400; j++) v[k][j] = gsl_ran_gaussian(r, 1);
    }
    for (int w = 0; made && w < 3; w++)
        for (size_t k = 0; k < x.P; k++) x.g[(size_t)w * x.P + k] = (float)gsl_ran_gaussian(r, 1e-3);
    for (int w = 0; made && w < 3; w++)
        for (int i = 0; i < 120; i++)
            for (int j = 0; j < 400; j++)
                x.g[(size_t)w * x.P + off[l] + (size_t)i * 400 + j] +=
                    (float)(1e-3 * (3 * u[0][i] * v[0][j] + u[1][i] * v[1][j]));
    gsl_matrix *A = gsl_matrix_alloc(400, 120), *V = gsl_matrix_alloc(120, 120);
    gsl_vector *S = gsl_vector_alloc(120), *work = gsl_vector_alloc(120);
    double mean[48000];
    for (size_t k = 0; k < 48000; k++) {
        mean[k] = 0;
        for (int w = 0; w < 3; w++) mean[k] += x.g[(size_t)w * x.P + off[l] + k] / 3;
    }
    for (size_t i = 0; i < 120; i++)
        for (size_t j = 0; j < 400; j++) gsl_matrix_set(A, j, i, mean[i * 400 + j]);
    gsl_linalg_SV_decomp(A, V, S, work);
    double best = 0;
    for (size_t k = c.quant.rank; k < 120; k++) best += gsl_vector_get(S, k) * gsl_vector_get(S, k);
    double first = 0, last = 0;
    float scales[3];
    gq_err e = GQ_OK;
    for (int step = 0; made && step < steps && e == GQ_OK; step++) {
        x.step = step;
        for (int t = 0; t < x.nt && e == GQ_OK; t++) e = xstate_exchange(&x, t, scales);
        double err = 0;
        for (size_t k = 0; k < 48000; k++) err += (mean[k] - x.avg[off[l] + k]) * (mean[k] - x.avg[off[l] + k]);
        if (step == 0) first = err;
        last = err;
    }
    CHECK(made && e == GQ_OK && last >= lo * best && last <= hi * best,
          "%s, %d exchanges of one gradient: conv3's error %.6g, %.4g x the best rank-%u (the first %.6g)", spec, steps,
          last, last / best, c.quant.rank, first);
    gsl_matrix_free(A), gsl_matrix_free(V), gsl_vector_free(S), gsl_vector_free(work);
    gsl_rng_free(r);
    xstate_free(&x);
}

int main(void)
{
    gq_zoo z;
    if (zoo_load(&z, NULL, NULL, 0) != GQ_OK) return 2;
    const model_t *lenet = zoo_model(&z, "lenet5", NULL, 0);
    check_identity(lenet, "powersgd:rank=2", SYNC_RING, 3);
    check_identity(lenet, "powersgd:rank=1,warm=off", SYNC_RING, 4);
    check_identity(lenet, "powersgd:rank=2", SYNC_ALLGATHER, 3);
    check_identity(lenet, "signsgd", SYNC_ALLGATHER, 2);
    check_identity(lenet, "topk:ratio=0.05", SYNC_PS, 3);
    check_warm(lenet, "powersgd:rank=2", 8, 1 - 1e-4, 1.001);
    check_warm(lenet, "powersgd:rank=2,warm=off", 8, 1.5, INFINITY); /* a fresh Q each time: one iteration's error */
    zoo_free(&z);
    return check_summary();
}
