/* The data-parallel training loop; see trainer.h. */
#include "trainer.h"

#include <cblas.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_core.h"
#include "exchange_run.h"
#include "gq_clock.h"
#include "gq_epoch.h"
#include "rng.h"

void train_normalize(float *out, const uint8_t *img, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = ((float)img[i] / 255.0f - 0.2860f) / 0.3530f;
}

/* Copies n floats and says where the first NaN or Inf is (-1: none): one pass copies and keeps the
 * largest exponent field, in vectors (a test and branch per element was 1% of an epoch); only a run
 * that met a non-finite element looks for the first one. */
static long copy_checked(float *dst, const float *src, size_t n)
{
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, src + i, sizeof u);
        memcpy(dst + i, &u, sizeof u);
        u &= 0x7f800000u;
        top = u > top ? u : top;
    }
    for (size_t i = 0; top == 0x7f800000u && i < n; i++)
        if (!isfinite(src[i])) return (long)i;
    return -1;
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

train_config train_config_defaults(void)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.batch = 64, c.epochs = 10, c.seed = 1, c.lr = 0.02, c.momentum = 0.9, c.weight_decay = 5e-4;
    c.optimizer = OPT_MOMENTUM, c.error_feedback = -1, c.schedule = LR_STEP, c.step_every = 4, c.step_gamma = 0.3;
    c.workers = 4, c.sync = SYNC_PS;
    qz_defaults(QZ_FP32, &c.quant);
    return c;
}

double train_lr_at(const train_config *c, int epoch, long step, long steps_per_epoch)
{
    double lr = c->lr;
    if (c->schedule == LR_STEP && c->step_every > 0) lr *= pow(c->step_gamma, (epoch - 1) / c->step_every);
    if (c->schedule == LR_POLY) lr *= pow(1.0 - (double)step / ((double)steps_per_epoch * c->epochs), c->poly_power);
    return lr;
}

static gq_err dump(const train_config *c, const net_t *net, const float *g, int iter, char *msg, size_t cap)
{
    for (int i = 0; i < net->nlayers; i++) {
        const model_layer *l = &c->model->layers[i];
        for (int part = 0; part < 2; part++) {
            size_t n = (size_t)(part ? l->bias_params : l->weight_params);
            if (!n) continue;
            char name[512];
            snprintf(name, sizeof name, "iter%d_%s_%s.f32", iter, l->name, part ? "b" : "w");
            for (char *p = name; *p; p++)
                if (*p == '/') *p = '_';
            if (c->dump_write(c->dump_ctx, name, g + (part ? net->b_off[i] : net->w_off[i]), n) != 0)
                return gq_fail(GQ_ERR_IO, msg, cap, "%s", ""); /* dump_write has said why */
        }
    }
    return GQ_OK;
}

/* The update, the same on every worker, from the averaged gradient avg (weight decay added here): SGD,
 * momentum (m1 the velocity) or Adam (m1, m2 its moments; its bias corrections are per step).
 * @return the first parameter the update made non-finite, or -1. */
static long optimizer_step(const train_config *c, net_t *net, const float *avg, float *m1, float *m2, double lr,
                           long step)
{
    const double b1 = 0.9, b2 = 0.999;
    const double c1 = 1 - pow(b1, (double)step + 1), c2 = 1 - pow(b2, (double)step + 1);
    long bad = -1;
    float *params = net->params;
    for (size_t k = 0; k < net->num_params; k++) {
        double gk = avg[k] + c->weight_decay * params[k];
        if (c->optimizer == OPT_SGD) {
            params[k] -= (float)(lr * gk);
        } else if (c->optimizer == OPT_MOMENTUM) {
            m1[k] = (float)(c->momentum * m1[k] + gk);
            params[k] -= (float)(lr * m1[k]);
        } else {
            m1[k] = (float)(b1 * m1[k] + (1 - b1) * gk);
            m2[k] = (float)(b2 * m2[k] + (1 - b2) * gk * gk);
            double mh = m1[k] / c1, vh = m2[k] / c2;
            params[k] -= (float)(lr * mh / (sqrt(vh) + 1e-8));
        }
        if (bad < 0 && !isfinite(params[k])) bad = (long)k;
    }
    return bad;
}

gq_err train_run(const train_config *c, const idx_dataset *train, const idx_dataset *test, epoch_fn report, void *ctx,
                 char *msg, size_t cap)
{
    train_comm *comm = c->comm;
    const int W = comm ? comm->size : c->workers, B = c->batch, rank = comm ? comm->rank : 0;
    const int local = comm ? 1 : W; /* worker gradients held here */
    if (W < 1 || W > TRAIN_MAX_WORKERS || B < 1 || c->epochs < 1)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "workers must be 1..%d, batch and epochs >= 1", TRAIN_MAX_WORKERS);
    if (train->rows * train->cols != (int)((size_t)c->model->input.c * c->model->input.h * c->model->input.w))
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s takes %dx%dx%d inputs, the data has %dx%d images", c->model->name,
                       c->model->input.c, c->model->input.h, c->model->input.w, train->rows, train->cols);
    const int ntrain = c->train_limit > 0 && c->train_limit < train->n ? c->train_limit : train->n;
    const int iters = (int)gq_iterations_per_epoch(ntrain, W, B);
    if (iters < 1)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%d training images are fewer than one global batch of %d workers x %d",
                       ntrain, W, B);
    /* in a ring that re-quantizes partial sums no error is any one worker's (PowerSGD's factors sum exactly) */
    const int residual = W == 1 || xch_keeps_residual(c->sync, &c->quant);
    if (!residual && c->error_feedback == 1)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "ring all-reduce re-quantizes partial sums: no worker's own error to feed back "
                       "(--ef off, or another --sync)");
    openblas_set_num_threads(1);
    net_t net;
    gq_err e = net_init(&net, c->model, B, c->seed, msg, cap);
    if (e != GQ_OK) {
        net_free(&net);
        return e;
    }
    const size_t P = net.num_params, px = (size_t)train->rows * train->cols;
    xstate x = {.c = c, .w_off = net.w_off, .b_off = net.b_off, .W = W, .rank = rank, .P = P, .msg = msg, .mcap = cap};
    x.ef = !residual ? 0 : c->error_feedback >= 0 ? c->error_feedback : qz_biased(c->quant.id);

    const int slots = comm ? W : 0; /* message buffers, one per peer or segment */
    const int made = xstate_alloc(&x, local, slots);
    float *xin = calloc((size_t)B * px, sizeof *xin), *m1 = calloc(P, sizeof *m1), *m2 = calloc(P, sizeof *m2);
    float *scales = calloc((size_t)W, sizeof *scales);
    double *losses = calloc((size_t)W * iters, sizeof *losses), *mine = calloc((size_t)iters, sizeof *mine);
    int *order = malloc((size_t)train->n * sizeof *order);
    uint8_t *labels = malloc((size_t)B);
    if (!made || !xin || !m1 || !m2 || !scales || !losses || !mine || !order || !labels) {
        e = GQ_ERR_NOMEM;
        snprintf(msg, cap, "out of memory for %d workers' gradients of %zu parameters", local, P);
        goto out;
    }
    for (int i = 0; i < ntrain; i++) order[i] = i;
    rng_t shuffle;
    rng_init(&shuffle, rng_derive(c->seed, 0x5eed, 0));
    long step = 0;
    const double flops_per_image = c->model->fwd_flops * (1 + c->model->backward_ratio);
    for (int epoch = 1; epoch <= c->epochs && e == GQ_OK; epoch++) {
        double t0 = gq_now(), tc = 0, tq = 0, tcodec = 0, loss_sum = 0;
        x.up = x.down = x.nmse_sum = 0, x.nmse_n = 0;
        const double sent0 = comm ? comm->bytes_sent : 0, recv0 = comm ? comm->bytes_received : 0;
        for (int i = ntrain - 1; i > 0; i--) { /* Fisher-Yates, seeded */
            int j = (int)(rng_u64(&shuffle) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        for (int it = 0; it < iters && e == GQ_OK; it++, step++) {
            const double lr = train_lr_at(c, epoch, step, iters);
            double tc0 = gq_now();
            const double it_sent = comm ? comm->bytes_sent : 0, it_recv = comm ? comm->bytes_received : 0;
            memset(&x.it, 0, sizeof x.it);
            x.step = step;
            long bad = -1;
            for (int l = 0; l < local; l++) { /* each worker held here, on its shard */
                const int w = rank + l;
                for (int b = 0; b < B; b++) {
                    int idx = order[(it * W + w) * B + b];
                    train_normalize(xin + (size_t)b * px, train->images + (size_t)idx * px, px);
                    labels[b] = train->labels[idx];
                }
                net_zero_grad(&net);
                net_forward(&net, xin, B, 1, rng_derive(c->seed, (uint64_t)step, (uint64_t)w + 1));
                float loss = net_loss(&net, xin, labels, B, 1, NULL);
                bad = copy_checked(x.g + (size_t)l * P, net.grads, P);
                if (!isfinite(loss) && bad < 0) bad = 0;
                losses[(size_t)it * W + w] = loss, mine[it] = loss;
                if (bad >= 0) break;
            }
            double tq0 = gq_now();
            tc += tq0 - tc0;
            x.it.compute_s = tq0 - tc0;
            /* a diverged worker stops here; under MPI the caller ends the others (they wait in the exchange) */
            if (bad >= 0) e = diverged(c, &net, msg, cap, step, epoch, (size_t)bad, "gradient");
            if (e != GQ_OK) break;
            if (c->dump_write && rank == 0)
                for (int k = 0; k < c->ndump && e == GQ_OK; k++)
                    if (c->dump_at[k] == step + 1) e = dump(c, &net, x.g, (int)step + 1, msg, cap);
            if (e != GQ_OK) break;
            /* the exchange, tensor by tensor */
            for (int t = 0; t < x.nt && e == GQ_OK; t++) e = xstate_exchange(&x, t, scales);
            if (e != GQ_OK) break;
            tq += gq_now() - tq0;
            tcodec += x.it.encode_s + x.it.decode_s;
            const long badp = optimizer_step(c, &net, x.avg, m1, m2, lr, step);
            if (badp >= 0) e = diverged(c, &net, msg, cap, step, epoch, (size_t)badp, "parameter");
            x.it.step = step + 1;
            x.it.wall_s = gq_now() - tc0;
            x.it.bytes_sent = comm ? comm->bytes_sent - it_sent : 0;
            x.it.bytes_received = comm ? comm->bytes_received - it_recv : 0;
            if (c->on_iteration) c->on_iteration(&x.it, c->iteration_ctx);
        }
        if (e != GQ_OK) break;
        if (comm) { /* the workers' losses, gathered once an epoch (not a message round each iteration) */
            const double *all = losses; /* rank-major: all[w * iters + it] */
            if ((e = comm->allgather_doubles(comm, mine, iters, losses)) != GQ_OK) {
                snprintf(msg, cap, "MPI all-gather failed: %s", gq_strerror(e));
                break;
            }
            for (int it = 0; it < iters; it++) /* in one process's order: iteration by iteration, worker by worker */
                for (int w = 0; w < W; w++) loss_sum += (float)all[(size_t)w * iters + it] / W;
        } else {
            for (int it = 0; it < iters; it++)
                for (int w = 0; w < W; w++) loss_sum += (float)losses[(size_t)it * W + w] / W;
        }
        if (rank != 0) continue; /* rank 0 evaluates and reports; the others go on to the next epoch */
        epoch_stats s = {0};
        s.epoch = epoch;
        s.iterations = iters;
        s.train_loss = loss_sum / iters;
        s.bytes_up_per_iter = comm ? (comm->bytes_sent - sent0) / iters : x.up / iters / W;
        s.bytes_down_per_iter = comm ? (comm->bytes_received - recv0) / iters : x.down / iters;
        s.quant_nmse = x.nmse_n ? x.nmse_sum / x.nmse_n : 0;
        s.compute_s = tc;
        s.exchange_s = tq;
        s.quant_s = tcodec;
        s.gflops = flops_per_image * iters * local * B / tc / 1e9;
        evaluate(&net, test, c->test_limit, xin, &s.test_loss, &s.test_accuracy);
        s.wall_s = gq_now() - t0;
        s.params = net.params;
        s.num_params = P;
        if (report) report(&s, ctx);
    }
out:
    xstate_free(&x);
    free(xin), free(m1), free(m2), free(scales), free(losses), free(mine), free(order), free(labels);
    net_free(&net);
    return e;
}
