/* The data-parallel training loop; see trainer.h. */
#include "trainer.h"

#include <cblas.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_clock.h"
#include "rng.h"

void openblas_set_num_threads(int); /* OpenBLAS: one thread keeps small GEMMs fast and runs reproducible */

double train_sgemm_gflops(void)
{
    const int N = 512;
    float *a = malloc((size_t)N * N * sizeof *a), *b = malloc((size_t)N * N * sizeof *b),
          *c = malloc((size_t)N * N * sizeof *c);
    if (!a || !b || !c) return 0;
    for (int i = 0; i < N * N; i++) a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f;
    openblas_set_num_threads(1);
    double best = 1e9;
    for (int t = 0; t < 3; t++) {
        double t0 = gq_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
        double dt = gq_now() - t0;
        best = dt < best ? dt : best;
    }
    free(a), free(b), free(c);
    return 2.0 * N * N * N / best / 1e9;
}

void train_normalize(float *out, const uint8_t *img, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = ((float)img[i] / 255.0f - 0.2860f) / 0.3530f;
}

static int biased(qz_id id) { return id == QZ_SIGNSGD || id == QZ_TOPK || id == QZ_BINGRAD_B; }

/* Copies n floats and says where the first NaN or Inf is (-1: none): one pass for both. */
static long copy_checked(float *dst, const float *src, size_t n)
{
    long bad = -1;
    for (size_t i = 0; i < n; i++) {
        dst[i] = src[i];
        if (bad < 0 && !isfinite(src[i])) bad = (long)i;
    }
    return bad;
}

/* The one-line reason of a diverged run: where, and what to try. */
static gq_err diverged(const train_config *c, const net_t *net, char *msg, size_t cap, long step, int epoch, size_t at,
                       const char *what)
{
    const char *layer = "?";
    for (int i = 0; i < net->nlayers; i++) {
        const model_layer *l = &c->model->layers[i];
        if ((at >= net->w_off[i] && at < net->w_off[i] + l->weight_params) ||
            (at >= net->b_off[i] && at < net->b_off[i] + l->bias_params))
            layer = l->name;
    }
    snprintf(msg, cap,
             "training diverged at iteration %ld (epoch %d): a non-finite %s in layer '%s' (lr %g is too "
             "large?)",
             step + 1, epoch, what, layer, c->lr);
    return GQ_ERR_NONFINITE;
}

/* Evaluates on the test set: mean loss and accuracy. */
static void evaluate(net_t *net, const idx_dataset *d, int limit, float *x, double *loss, double *acc)
{
    int n = limit > 0 && limit < d->n ? limit : d->n, right = 0;
    size_t px = (size_t)d->rows * d->cols;
    double sum = 0;
    for (int i = 0; i < n; i += net->max_batch) {
        int B = n - i < net->max_batch ? n - i : net->max_batch, c;
        train_normalize(x, d->images + (size_t)i * px, (size_t)B * px);
        net_forward(net, x, B, 0, 0);
        sum += (double)net_loss(net, x, d->labels + i, B, 0, &c) * B;
        right += c;
    }
    *loss = sum / n;
    *acc = (double)right / n;
}

static void dump(const train_config *c, const net_t *net, const float *g, int iter)
{
    for (int i = 0; i < net->nlayers; i++) {
        const model_layer *l = &c->model->layers[i];
        for (int part = 0; part < 2; part++) {
            size_t n = (size_t)(part ? l->bias_params : l->weight_params);
            if (!n) continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/iter%d_%s_%s.f32", c->dump_dir, iter, l->name, part ? "b" : "w");
            for (char *p = path + strlen(c->dump_dir) + 1; *p; p++)
                if (*p == '/') *p = '_';
            FILE *f = fopen(path, "wb");
            if (!f) continue;
            fwrite(g + (part ? net->b_off[i] : net->w_off[i]), sizeof(float), n, f); /* little-endian host */
            fclose(f);
        }
    }
}

gq_err train_run(const train_config *c, const idx_dataset *train, const idx_dataset *test, epoch_fn report, void *ctx,
                 char *msg, size_t cap)
{
    const int W = c->workers, B = c->batch;
    if (W < 1 || W > TRAIN_MAX_WORKERS || B < 1 || c->epochs < 1)
        return snprintf(msg, cap, "workers must be 1..%d, batch and epochs >= 1", TRAIN_MAX_WORKERS), GQ_ERR_PARAM;
    if (train->rows * train->cols != (int)((size_t)c->model->input.c * c->model->input.h * c->model->input.w))
        return snprintf(msg, cap, "%s takes %dx%dx%d inputs, the data has %dx%d images", c->model->name,
                        c->model->input.c, c->model->input.h, c->model->input.w, train->rows, train->cols),
               GQ_ERR_PARAM;
    const int ntrain = c->train_limit > 0 && c->train_limit < train->n ? c->train_limit : train->n;
    const int iters = ntrain / (W * B);
    if (iters < 1)
        return snprintf(msg, cap, "%d training images are fewer than one global batch of %d workers x %d", ntrain, W,
                        B),
               GQ_ERR_PARAM;
    openblas_set_num_threads(1);
    net_t net;
    gq_err e = net_init(&net, c->model, B, c->seed, msg, cap);
    if (e != GQ_OK) {
        net_free(&net);
        return e;
    }
    const size_t P = net.num_params, px = (size_t)train->rows * train->cols;
    const int ef = c->error_feedback >= 0 ? c->error_feedback : biased(c->quant.id);
    const downlink_kind reply = xch_downlink(&c->exchange, &c->quant);

    /* tensors as the exchange policy lists them: every layer's weights, then biases */
    xch_tensor *T = calloc(2 * (size_t)c->model->nlayers + 1, sizeof *T);
    int nt = T ? (int)xch_tensors(c->model, &c->quant, &c->exchange, T) : 0;
    size_t maxn = 1;
    for (int t = 0; t < nt; t++) maxn = T[t].n > maxn ? T[t].n : maxn;
    float *g = calloc((size_t)W * P, sizeof *g); /* each worker's gradient */
    float *res = ef ? calloc((size_t)W * P, sizeof *res) : NULL;
    float *avg = calloc(P, sizeof *avg), *dec = calloc(maxn, sizeof *dec);
    float *x = calloc((size_t)B * px, sizeof *x), *m1 = calloc(P, sizeof *m1), *m2 = calloc(P, sizeof *m2);
    size_t bcap = qz_bound(&c->quant, maxn), wcap = qz_workspace_size(&c->quant, maxn);
    uint8_t *buf = malloc(gq_is_error(bcap) ? 1 : bcap);
    void *work = malloc(wcap ? wcap : 1);
    int *order = malloc((size_t)train->n * sizeof *order);
    uint8_t *labels = malloc((size_t)B);
    if (!T || !g || (ef && !res) || !avg || !dec || !x || !m1 || !m2 || !buf || !work || !order || !labels) {
        e = GQ_ERR_NOMEM;
        snprintf(msg, cap, "out of memory for %d workers' gradients of %zu parameters", W, P);
        goto out;
    }
    for (int i = 0; i < ntrain; i++) order[i] = i;
    rng_t shuffle;
    rng_init(&shuffle, rng_derive(c->seed, 0x5eed, 0));
    long step = 0;
    const double flops_per_image = c->model->fwd_flops * (1 + c->model->backward_ratio);
    for (int epoch = 1; epoch <= c->epochs && e == GQ_OK; epoch++) {
        double t0 = gq_now(), tc = 0, tq = 0, loss_sum = 0, up = 0, down = 0, nmse_sum = 0;
        long nmse_n = 0;
        for (int i = ntrain - 1; i > 0; i--) { /* Fisher-Yates, seeded */
            int j = (int)(rng_u64(&shuffle) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        for (int it = 0; it < iters && e == GQ_OK; it++, step++) {
            double lr = c->lr;
            if (c->schedule == LR_STEP && c->step_every > 0) lr *= pow(c->step_gamma, (epoch - 1) / c->step_every);
            if (c->schedule == LR_POLY) lr *= pow(1.0 - (double)step / ((double)iters * c->epochs), c->poly_power);
            double tc0 = gq_now();
            for (int w = 0; w < W; w++) { /* each worker on its shard */
                for (int b = 0; b < B; b++) {
                    int idx = order[(it * W + w) * B + b];
                    train_normalize(x + (size_t)b * px, train->images + (size_t)idx * px, px);
                    labels[b] = train->labels[idx];
                }
                net_zero_grad(&net);
                net_forward(&net, x, B, 1, rng_derive(c->seed, (uint64_t)step, (uint64_t)w + 1));
                float loss = net_loss(&net, x, labels, B, 1, NULL);
                loss_sum += loss / W;
                const long bad = copy_checked(g + (size_t)w * P, net.grads, P);
                if (!isfinite(loss) || bad >= 0) {
                    e = diverged(c, &net, msg, cap, step, epoch, bad >= 0 ? bad : 0, "gradient");
                    break;
                }
            }
            if (e != GQ_OK) break;
            double tq0 = gq_now();
            tc += tq0 - tc0;
            if (c->dump_dir)
                for (int k = 0; k < c->ndump; k++)
                    if (c->dump_at[k] == step + 1) dump(c, &net, g, (int)step + 1);
            /* the exchange, tensor by tensor */
            for (int t = 0; t < nt && e == GQ_OK; t++) {
                const xch_tensor *tt = &T[t];
                const size_t off = tt->bias ? net.b_off[tt->layer] : net.w_off[tt->layer];
                float *a = avg + off;
                double tu, td;
                memset(a, 0, tt->n * sizeof *a);
                if (!tt->quantized) {
                    for (int w = 0; w < W; w++)
                        for (size_t k = 0; k < tt->n; k++) a[k] += g[(size_t)w * P + off + k] / W;
                    xch_tensor_bytes(&c->exchange, &c->quant, tt, W, 0, 0, &tu, &td);
                    up += tu * W, down += td; /* every worker sends its tensor and receives the average */
                    continue;
                }
                qz_params q = c->quant;
                if (ef)
                    for (int w = 0; w < W; w++)
                        for (size_t k = 0; k < tt->n; k++) g[(size_t)w * P + off + k] += res[(size_t)w * P + off + k];
                if (xch_shares_scaler(&c->exchange, &q)) {
                    float smax = 0;
                    for (int w = 0; w < W && e == GQ_OK; w++) {
                        float s;
                        e = qz_terngrad_scale(&q, g + (size_t)w * P + off, tt->n, &s);
                        smax = s > smax ? s : smax;
                    }
                    q.shared_scale = smax > 0 ? smax : 0;
                }
                double encoded_sum = 0;
                for (int w = 0; w < W && e == GQ_OK; w++) {
                    float *gw = g + (size_t)w * P + off;
                    size_t sz = qz_encode(buf, bcap, gw, tt->n, &q,
                                          rng_derive(c->seed, (uint64_t)step, (uint64_t)(w * nt + t)), work, wcap);
                    if (gq_is_error(sz) || qz_decode(dec, tt->n, buf, sz) != tt->n) {
                        snprintf(msg, cap, "quantizing layer '%s': %s", c->model->layers[tt->layer].name,
                                 gq_strerror(gq_error_code(sz)));
                        e = gq_is_error(sz) ? gq_error_code(sz) : GQ_ERR_CORRUPT;
                        break;
                    }
                    encoded_sum += (double)sz;
                    double err = 0, norm = 0;
                    for (size_t k = 0; k < tt->n; k++) {
                        double d = (double)dec[k] - gw[k];
                        err += d * d, norm += (double)gw[k] * gw[k];
                        a[k] += dec[k] / W;
                        if (ef) res[(size_t)w * P + off + k] = gw[k] - dec[k];
                    }
                    if (norm > 0) nmse_sum += err / norm, nmse_n++;
                }
                if (e != GQ_OK) break;
                double requant = 0;
                if (reply == DOWNLINK_REQUANT) { /* re-quantize the average; every worker gets the same bytes */
                    qz_params qr = c->quant;
                    size_t sz = qz_encode(buf, bcap, a, tt->n, &qr,
                                          rng_derive(c->seed, (uint64_t)step, 0xd0d0 + (uint64_t)t), work, wcap);
                    if (gq_is_error(sz) || qz_decode(a, tt->n, buf, sz) != tt->n) {
                        snprintf(msg, cap, "re-quantizing layer '%s': %s", c->model->layers[tt->layer].name,
                                 gq_strerror(gq_error_code(sz)));
                        e = gq_is_error(sz) ? gq_error_code(sz) : GQ_ERR_CORRUPT;
                        break;
                    }
                    requant = (double)sz;
                }
                /* the policy's count; workers' encoded sizes may differ, so their mean stands for each */
                xch_tensor_bytes(&c->exchange, &c->quant, tt, W, encoded_sum / W, requant, &tu, &td);
                up += tu * W, down += td;
            }
            tq += gq_now() - tq0;
            /* the update, the same on every worker (Adam's bias corrections are per step) */
            const double b1 = 0.9, b2 = 0.999;
            const double c1 = 1 - pow(b1, (double)step + 1), c2 = 1 - pow(b2, (double)step + 1);
            long badp = -1; /* the first parameter the update made non-finite */
            for (size_t k = 0; k < P && e == GQ_OK; k++) {
                double gk = avg[k] + c->weight_decay * net.params[k];
                if (c->optimizer == OPT_SGD) {
                    net.params[k] -= (float)(lr * gk);
                } else if (c->optimizer == OPT_MOMENTUM) {
                    m1[k] = (float)(c->momentum * m1[k] + gk);
                    net.params[k] -= (float)(lr * m1[k]);
                } else {
                    m1[k] = (float)(b1 * m1[k] + (1 - b1) * gk);
                    m2[k] = (float)(b2 * m2[k] + (1 - b2) * gk * gk);
                    double mh = m1[k] / c1, vh = m2[k] / c2;
                    net.params[k] -= (float)(lr * mh / (sqrt(vh) + 1e-8));
                }
                if (badp < 0 && !isfinite(net.params[k])) badp = (long)k;
            }
            if (badp >= 0) e = diverged(c, &net, msg, cap, step, epoch, (size_t)badp, "parameter");
        }
        if (e != GQ_OK) break;
        epoch_stats s = {0};
        s.epoch = epoch;
        s.iterations = iters;
        s.train_loss = loss_sum / iters;
        s.bytes_up_per_iter = up / iters / W;
        s.bytes_down_per_iter = down / iters;
        s.quant_nmse = nmse_n ? nmse_sum / nmse_n : 0;
        s.compute_s = tc;
        s.quant_s = tq;
        s.gflops = flops_per_image * iters * W * B / tc / 1e9;
        evaluate(&net, test, c->test_limit, x, &s.test_loss, &s.test_accuracy);
        s.wall_s = gq_now() - t0;
        s.params = net.params;
        s.num_params = P;
        if (report) report(&s, ctx);
    }
out:
    free(T), free(g), free(res), free(avg), free(dec), free(x), free(m1), free(m2), free(buf), free(work);
    free(order), free(labels);
    net_free(&net);
    return e;
}
