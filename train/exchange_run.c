/* The exchange of the workers' gradients; see exchange_run.h. */
#include "exchange_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_clock.h"
#include "nn.h"
#include "rng.h"

/* What a server sends back: the average in fp32, re-quantized, or TernGrad's summed levels; none in an all-gather. */
typedef enum { REPLY_FP32, REPLY_REQUANT, REPLY_LEVELS, REPLY_NONE } reply_kind;

/* Every worker serves a segment of every tensor: ps-flat, and ps-sharded, which is ps-flat where a node has one
 * worker (the trainer's ranks are its nodes). */
static int flat(const xstate *x) { return x->c->sync == SYNC_PS_SHARDED || x->c->sync == SYNC_PS_FLAT; }
static int nsegs(const xstate *x) { return x->W > 1 && (flat(x) || x->c->sync == SYNC_RING) ? x->W : 1; }
static int ring(const xstate *x) { return x->c->sync == SYNC_RING && x->W > 1; }
/* PowerSGD in a ring: its factors all-reduced (two rings a tensor), not partial sums re-quantized at each hop */
static int factor_ring(const xstate *x) { return ring(x) && xch_factor_allreduce(x->c->sync, &x->c->quant); }
/* A tensor re-quantized at every hop of the ring */
static int hop_quantized(const xstate *x, const xch_tensor *tt) { return tt->quantized && !factor_ring(x); }
static int server_of(const xstate *x, int j) { return flat(x) ? j : 0; }
/* Segment j of S of n elements: [lo, hi). */
static size_t seg_lo(size_t n, int S, int j) { return n * (size_t)j / (size_t)S; }
static size_t seg_len(size_t n, int S, int j) { return seg_lo(n, S, j + 1) - seg_lo(n, S, j); }
static size_t tensor_off(const xstate *x, const xch_tensor *tt)
{
    return tt->bias ? x->b_off[tt->layer] : x->w_off[tt->layer];
}
/* Seeds: a worker's upload of segment j, a server's reply, a ring hop (by the encoder's place in the chunk's order). */
static uint64_t seg_seed(uint64_t base, int j, int S) { return S == 1 ? base : rng_derive(base, (uint64_t)j, 0x5e9); }
static uint64_t up_seed(const xstate *x, int w, int t, int j)
{
    return seg_seed(rng_derive(x->c->seed, (uint64_t)x->step, (uint64_t)(w * x->nt + t)), j, nsegs(x));
}
static uint64_t reply_seed(const xstate *x, int t, int j)
{
    return seg_seed(rng_derive(x->c->seed, (uint64_t)x->step, 0xd0d0 + (uint64_t)t), j, nsegs(x));
}
static uint64_t hop_seed(const xstate *x, int t, int chunk, int hop)
{
    return rng_derive(rng_derive(x->c->seed, (uint64_t)x->step, 0x7196 + (uint64_t)t), (uint64_t)chunk, (uint64_t)hop);
}

static reply_kind reply_of(const xstate *x, const xch_tensor *tt)
{
    if (x->c->sync == SYNC_ALLGATHER) return REPLY_NONE;
    if (!tt->quantized) return REPLY_FP32;
    switch (xch_downlink(&x->c->exchange, &x->c->quant)) {
    case DOWNLINK_REQUANT: return REPLY_REQUANT;
    case DOWNLINK_TERNGRAD: return xch_shares_scaler(&x->c->exchange, &x->c->quant) ? REPLY_LEVELS : REPLY_FP32;
    default: return REPLY_FP32;
    }
}

/* A codec call's time since t0 (or `share` of one: PowerSGD's encode comes in two halves around an all-reduce),
 * measured, and under SMPI charged as simulated time from the given costs. */
static void codec_time(xstate *x, double t0, int decode, size_t n, double share)
{
    const double dt = gq_now() - t0;
    if (decode)
        x->it.decode_s += dt;
    else
        x->it.encode_s += dt;
    if (x->costs)
        x->c->comm->execute(x->c->comm, share * 1e-9 *
                                            (decode ? x->costs->decode_fixed_ns + x->costs->decode_ns * n
                                                    : x->costs->encode_fixed_ns + x->costs->encode_ns * n));
}

/* warm_q: the worker's PowerSGD state for this segment (NULL elsewhere) */
static gq_err enc_warm(xstate *x, uint8_t *dst, const float *src, size_t n, const qz_params *q, uint64_t seed,
                       float *warm_q, size_t *sz, const char *what, int layer)
{
    double t0 = gq_now();
    size_t r =
        x->sizes_only ? qz_exact_size(q, n) : qz_encode_warm(dst, x->cap, src, n, q, seed, warm_q, x->work, x->wcap);
    codec_time(x, t0, 0, n, 1);
    if (gq_is_error(r))
        return snprintf(x->msg, x->mcap, "%s layer '%s': %s", what, x->c->model->layers[layer].name,
                        gq_strerror(gq_error_code(r))),
               gq_error_code(r);
    *sz = r;
    return GQ_OK;
}

static gq_err enc(xstate *x, uint8_t *dst, const float *src, size_t n, const qz_params *q, uint64_t seed, size_t *sz,
                  const char *what, int layer)
{
    return enc_warm(x, dst, src, n, q, seed, NULL, sz, what, layer);
}

static gq_err dec_into(xstate *x, float *dst, size_t n, const uint8_t *src, size_t sz, const char *what, int layer)
{
    double t0 = gq_now();
    size_t r = x->sizes_only ? n : qz_decode(dst, n, src, sz);
    codec_time(x, t0, 1, n, 1);
    if (r != n)
        return snprintf(x->msg, x->mcap, "%s layer '%s': %s", what, x->c->model->layers[layer].name,
                        gq_strerror(gq_is_error(r) ? gq_error_code(r) : GQ_ERR_CORRUPT)),
               gq_is_error(r) ? gq_error_code(r) : GQ_ERR_CORRUPT;
    return GQ_OK;
}

/* The averaging every server does, one worker at a time in worker order. */
static void add_average(float *a, const float *d, size_t m, int W)
{
    for (size_t k = 0; k < m; k++) a[k] += d[k] / W;
}
static void add_levels(int32_t *L, const float *d, size_t m)
{
    for (size_t k = 0; k < m; k++) L[k] += (d[k] > 0) - (d[k] < 0);
}
static void level_means(float *a, const int32_t *L, size_t m, float scale, int W)
{
    for (size_t k = 0; k < m; k++) a[k] = xch_level_mean(L[k], scale, W);
}

/* Worker w's segment j (its gradient in slot l) as it travels: encoded (then decoded into x->dec, for its
 * residual and its error) or its fp32 values. */
static gq_err upload(xstate *x, int l, int w, int t, int j, const qz_params *q, uint8_t *dst, size_t *sz)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt) + seg_lo(tt->n, nsegs(x), j), m = seg_len(tt->n, nsegs(x), j);
    float *gw = x->g + (size_t)l * x->P + off;
    if (!tt->quantized) {
        if (!x->sizes_only) memcpy(dst, gw, m * sizeof *gw);
        *sz = m * sizeof *gw;
        return GQ_OK;
    }
    float *warm = x->qst ? x->qst + (size_t)l * x->qtotal + x->qoff[(size_t)t * x->W + j] : NULL;
    gq_err e = enc_warm(x, dst, gw, m, q, up_seed(x, w, t, j), warm, sz, "quantizing", tt->layer);
    if (e == GQ_OK) e = dec_into(x, x->dec, m, dst, *sz, "quantizing", tt->layer);
    if (e != GQ_OK || x->sizes_only) return e;
    double err = 0, norm = 0;
    for (size_t k = 0; k < m; k++) {
        double d = (double)x->dec[k] - gw[k];
        err += d * d, norm += (double)gw[k] * gw[k];
        if (x->ef) x->res[(size_t)l * x->P + off + k] = gw[k] - x->dec[k];
    }
    if (norm > 0) x->nmse_sum += err / norm, x->nmse_n++;
    return GQ_OK;
}

/* The rank PowerSGD sends tensor tt at in a ring (0: as floats, a plain fp32 all-reduce) */
static size_t factor_rank(const xstate *x, const xch_tensor *tt)
{
    const qz_params q = xch_tensor_quant(&x->c->quant, tt);
    size_t rows, cols, r;
    qz_powersgd_shape(&q, tt->n, &rows, &cols, &r);
    return r;
}

/* Error feedback's residual added to the gradients held here, then each segment's shared TernGrad scaler
 * (the workers' maximum: over the local workers, then over the ranks). */
static gq_err prepare(xstate *x, int t, int local, float *scales)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt);
    const int S = nsegs(x);
    if (!tt->quantized || (ring(x) && !factor_ring(x))) return GQ_OK;
    const int as_floats = factor_ring(x) && !factor_rank(x, tt); /* exact: no error to keep */
    if (x->ef && !as_floats)
        for (int l = 0; l < local; l++)
            for (size_t k = 0; k < tt->n; k++) x->g[(size_t)l * x->P + off + k] += x->res[(size_t)l * x->P + off + k];
    if (!xch_shares_scaler(&x->c->exchange, &x->c->quant)) return GQ_OK;
    for (int j = 0; j < S; j++) {
        scales[j] = 0;
        for (int l = 0; l < local; l++) {
            float s = 0;
            if (seg_len(tt->n, S, j) && !x->sizes_only) {
                gq_err e = qz_terngrad_scale(&x->c->quant, x->g + (size_t)l * x->P + off + seg_lo(tt->n, S, j),
                                             seg_len(tt->n, S, j), &s);
                if (e != GQ_OK) return snprintf(x->msg, x->mcap, "TernGrad's scaler: %s", gq_strerror(e)), e;
            }
            scales[j] = s > scales[j] ? s : scales[j];
        }
    }
    return x->c->comm ? x->c->comm->max_floats(x->c->comm, scales, S) : GQ_OK;
}

/* A tensor's quantizer: for PowerSGD its matrix shape where it travels whole (a segment of it has none: the
 * codec takes the squarest of the segment's length) */
static qz_params tensor_quant(const xstate *x, const xch_tensor *tt)
{
    return nsegs(x) == 1 ? xch_tensor_quant(&x->c->quant, tt) : x->c->quant;
}
/* Segment j's quantizer: the tensor's, with the workers' shared TernGrad scaler */
static qz_params seg_quant(const xstate *x, const xch_tensor *tt, const float *scales, int j)
{
    qz_params q = tensor_quant(x, tt);
    if (!ring(x) && xch_shares_scaler(&x->c->exchange, &q)) q.shared_scale = scales[j] > 0 ? scales[j] : 0;
    return q;
}

/* ---- in one process: every worker here -------------------------------------------------------- */

static gq_err factors_exchange(xstate *x, int t, size_t *bytes);

/* The average of `len` floats of every worker held here (worker l's at base + l stride) in ring order, chunk j
 * from worker j on, as exchange_ring_mpi's ranks add them. */
static void ring_average_local(const xstate *x, const float *base, size_t stride, size_t len, float *out)
{
    for (int j = 0; j < x->W; j++) {
        const size_t lo = seg_lo(len, x->W, j), m = seg_len(len, x->W, j);
        memset(out + lo, 0, m * sizeof *out);
        for (int s = 0; s < x->W; s++) add_average(out + lo, base + (size_t)((j + s) % x->W) * stride + lo, m, x->W);
    }
}

static gq_err exchange_local(xstate *x, int t, float *scales)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt);
    const int W = x->W;
    int S = nsegs(x);
    gq_err e = prepare(x, t, W, scales);
    double encoded = 0, requant = 0;
    if (e == GQ_OK && factor_ring(x) && tt->quantized && factor_rank(x, tt)) {
        size_t bytes = 0;
        e = factors_exchange(x, t, &bytes);
        encoded = (double)bytes * W;
        S = 0;                                     /* done */
    } else if (ring(x) && !hop_quantized(x, tt)) { /* an fp32 tensor summed in ring order */
        ring_average_local(x, x->g + off, x->P, tt->n, x->avg + off);
        encoded = 4.0 * (double)tt->n * W; /* a tensor PowerSGD sends as floats: its contribution */
        S = 0;
    }
    for (int j = 0; j < S && e == GQ_OK; j++) {
        const size_t lo = seg_lo(tt->n, S, j), m = seg_len(tt->n, S, j);
        float *a = x->avg + off + lo;
        if (!m) continue;
        memset(a, 0, m * sizeof *a);
        if (ring(x)) { /* chunk j's hops: decode, add the next worker's gradient, re-encode */
            float *p = x->part;
            size_t sz;
            memcpy(p, x->g + (size_t)j * x->P + off + lo, m * sizeof *p);
            for (int s = 1; s < W && e == GQ_OK; s++) {
                const float *gw = x->g + (size_t)((j + s) % W) * x->P + off + lo;
                e = enc(x, x->buf, p, m, &x->c->quant, hop_seed(x, t, j, s - 1), &sz, "quantizing", tt->layer);
                if (e == GQ_OK) e = dec_into(x, x->dec, m, x->buf, sz, "quantizing", tt->layer);
                for (size_t k = 0; e == GQ_OK && k < m; k++) p[k] = x->dec[k] + gw[k];
            }
            for (size_t k = 0; k < m; k++) p[k] = p[k] / W;
            if (e == GQ_OK) e = enc(x, x->buf, p, m, &x->c->quant, hop_seed(x, t, j, W), &sz, "quantizing", tt->layer);
            if (e == GQ_OK) e = dec_into(x, a, m, x->buf, sz, "quantizing", tt->layer);
            encoded += (double)sz * W;
            continue;
        }
        const reply_kind rk = reply_of(x, tt);
        const qz_params q = seg_quant(x, tt, scales, j);
        if (rk == REPLY_LEVELS) memset(x->lev, 0, m * sizeof *x->lev);
        for (int w = 0; w < W && e == GQ_OK; w++) {
            size_t sz;
            e = upload(x, w, w, t, j, &q, x->buf, &sz);
            if (e != GQ_OK) break;
            encoded += (double)sz;
            add_average(a, tt->quantized ? x->dec : x->g + (size_t)w * x->P + off + lo, m, W);
            if (rk == REPLY_LEVELS) add_levels(x->lev, x->dec, m);
        }
        if (e == GQ_OK && rk == REPLY_REQUANT) { /* the server re-quantizes; every worker decodes the same bytes */
            size_t sz;
            const qz_params rq = tensor_quant(x, tt);
            e = enc(x, x->reply, a, m, &rq, reply_seed(x, t, j), &sz, "re-quantizing", tt->layer);
            if (e == GQ_OK) e = dec_into(x, a, m, x->reply, sz, "re-quantizing", tt->layer);
            requant += (double)sz;
        }
        if (rk == REPLY_LEVELS) level_means(a, x->lev, m, q.shared_scale, W);
    }
    if (e != GQ_OK) return e;
    /* the policy's count; workers' encoded sizes may differ, so their mean stands for each */
    double tu, td;
    xch_tensor_bytes(&x->c->exchange, &x->c->quant, tt, W, tt->quantized ? encoded / W : 0, requant, &tu, &td);
    x->up += tu * W, x->down += td;
    return GQ_OK;
}

/* ---- over MPI: this rank is one worker ------------------------------------------------------------ */

static void post(comm_msg *list, int *n, int peer, void *buf, size_t len) { list[(*n)++] = (comm_msg){peer, buf, len}; }

static gq_err wait_all(xstate *x, int ns, int nr)
{
    double t0 = gq_now();
    gq_err e = x->c->comm->exchange(x->c->comm, x->sends, ns, x->recvs, nr);
    x->it.wait_s += gq_now() - t0;
    if (e != GQ_OK) snprintf(x->msg, x->mcap, "MPI exchange failed: %s", gq_strerror(e));
    return e;
}

/* A received fp32 segment, checked for its length. */
static gq_err check_floats(xstate *x, size_t m, size_t len, int layer)
{
    if (len != m * sizeof(float))
        return snprintf(x->msg, x->mcap, "layer '%s': %zu bytes received where %zu floats were due",
                        x->c->model->layers[layer].name, len, m),
               GQ_ERR_CORRUPT;
    return GQ_OK;
}
static gq_err take_floats(xstate *x, float *dst, size_t m, const uint8_t *src, size_t len, int layer)
{
    gq_err e = check_floats(x, m, len, layer);
    if (e == GQ_OK && !x->sizes_only) memcpy(dst, src, len);
    return e;
}

static gq_err exchange_ps_mpi(xstate *x, int t, float *scales)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt), cap = x->cap;
    const int W = x->W, S = nsegs(x), r = x->rank, gather = x->c->sync == SYNC_ALLGATHER;
    const reply_kind rk = reply_of(x, tt);
    gq_err e = prepare(x, t, 1, scales);
    for (int j = 0; j < S && e == GQ_OK; j++) {
        const qz_params q = seg_quant(x, tt, scales, j);
        if (seg_len(tt->n, S, j)) e = upload(x, 0, r, t, j, &q, x->sbuf + j * x->slot, &x->ssz[j]);
    }
    if (e != GQ_OK) return e;
    /* up: each segment to its server (in an all-gather, the whole tensor to everyone) */
    const int mine = gather ? 0 : flat(x) ? r : r == 0 ? 0 : -1;
    const int serving = mine >= 0 && seg_len(tt->n, S, mine) > 0;
    int ns = 0, nr = 0;
    if (gather) {
        /* a ring, as NCCL's all-gather and MPI's for large messages run it (and the other engines charge it): W - 1
         * steps, each passing on to the next rank the tensor taken from the previous one the step before, this
         * rank's own first; step s takes worker r - s - 1's */
        const int next = (r + 1) % W, prev = (r + W - 1) % W;
        for (int s = 0; s + 1 < W; s++) {
            const int pass = (r - s + W) % W, take = (r - s - 1 + W) % W;
            ns = nr = 0;
            post(x->sends, &ns, next, pass == r ? x->sbuf : x->rbuf + pass * x->slot,
                 pass == r ? x->ssz[0] : x->rsz[pass]);
            post(x->recvs, &nr, prev, x->rbuf + take * x->slot, cap);
            if ((e = wait_all(x, ns, nr)) != GQ_OK) return e;
            x->rsz[take] = x->recvs[0].len;
        }
    } else {
        for (int j = 0; j < S; j++)
            if (seg_len(tt->n, S, j) && server_of(x, j) != r)
                post(x->sends, &ns, server_of(x, j), x->sbuf + j * x->slot, x->ssz[j]);
        for (int p = 0; p < W; p++)
            if (p != r && serving) post(x->recvs, &nr, p, x->rbuf + p * x->slot, cap);
        if ((e = wait_all(x, ns, nr)) != GQ_OK) return e;
        for (int i = 0; i < nr; i++) x->rsz[x->recvs[i].peer] = x->recvs[i].len;
    }
    size_t rlen = 0;
    if (serving) { /* the server's average, worker by worker in worker order, as in one process */
        const size_t lo = seg_lo(tt->n, S, mine), m = seg_len(tt->n, S, mine);
        const qz_params q = seg_quant(x, tt, scales, mine);
        float *a = x->avg + off + lo;
        if (!x->sizes_only) {
            memset(a, 0, m * sizeof *a);
            if (rk == REPLY_LEVELS) memset(x->lev, 0, m * sizeof *x->lev);
        }
        for (int w = 0; w < W && e == GQ_OK; w++) {
            const uint8_t *src = w == r ? x->sbuf + mine * x->slot : x->rbuf + w * x->slot;
            const size_t len = w == r ? x->ssz[mine] : x->rsz[w];
            e = tt->quantized ? dec_into(x, x->dec, m, src, len, "decoding", tt->layer)
                              : take_floats(x, x->dec, m, src, len, tt->layer);
            if (e != GQ_OK) break;
            /* the clock read as ever: under SMPI each read moves simulated time (smpi/wtime), sizes only or not */
            double t0 = gq_now();
            if (!x->sizes_only) {
                add_average(a, x->dec, m, W);
                if (rk == REPLY_LEVELS) add_levels(x->lev, x->dec, m);
            }
            x->it.decode_s += gq_now() - t0;
        }
        if (e == GQ_OK && rk == REPLY_REQUANT) {
            const qz_params rq = tensor_quant(x, tt);
            e = enc(x, x->reply, a, m, &rq, reply_seed(x, t, mine), &rlen, "re-quantizing", tt->layer);
            if (e == GQ_OK) e = dec_into(x, a, m, x->reply, rlen, "re-quantizing", tt->layer);
        } else if (rk == REPLY_LEVELS) {
            if (!x->sizes_only) {
                level_means(a, x->lev, m, q.shared_scale, W);
                xch_levels_pack(x->reply, x->lev, m, W);
            }
            rlen = xch_levels_size(m, W);
        } else if (rk == REPLY_FP32) {
            rlen = m * sizeof *a;
            if (!x->sizes_only) memcpy(x->reply, a, rlen);
        }
    }
    if (e != GQ_OK || gather) return e;
    /* down: every server's reply to every other worker */
    ns = nr = 0;
    for (int p = 0; serving && p < W; p++)
        if (p != r) post(x->sends, &ns, p, x->reply, rlen);
    for (int j = 0; j < S; j++)
        if (seg_len(tt->n, S, j) && server_of(x, j) != r)
            post(x->recvs, &nr, server_of(x, j), x->rbuf + j * x->slot, cap);
    if ((e = wait_all(x, ns, nr)) != GQ_OK) return e;
    for (int i = 0; i < nr && e == GQ_OK; i++) {
        const int j = S == 1 ? 0 : x->recvs[i].peer;
        const size_t lo = seg_lo(tt->n, S, j), m = seg_len(tt->n, S, j), len = x->recvs[i].len;
        float *a = x->avg + off + lo;
        const uint8_t *src = x->rbuf + j * x->slot;
        if (rk == REPLY_REQUANT) {
            e = dec_into(x, a, m, src, len, "decoding the reply of", tt->layer);
        } else if (rk == REPLY_LEVELS) { /* under the segment's shared scaler, which every worker holds */
            if (len == xch_levels_size(m, W) && x->sizes_only) continue;
            if (len != xch_levels_size(m, W) || xch_levels_unpack(src, m, W, x->lev) != 0)
                return snprintf(x->msg, x->mcap, "layer '%s': a corrupt TernGrad reply",
                                x->c->model->layers[tt->layer].name),
                       GQ_ERR_CORRUPT;
            level_means(a, x->lev, m, seg_quant(x, tt, scales, j).shared_scale, W);
        } else {
            e = take_floats(x, a, m, src, len, tt->layer);
        }
    }
    return e;
}

/* The average over the ranks of `len` floats (this rank's: mine) into out, by ring all-reduce: W-1 reduce-scatter
 * steps (rank r sends chunk r-s to r+1, which adds its own), W-1 all-gather steps; each chunk summed from its own
 * rank on, as ring_average_local does. */
static gq_err ring_average_mpi(xstate *x, const float *mine, size_t len, float *out, int layer)
{
    const int W = x->W, r = x->rank, next = (r + 1) % W, prev = (r + W - 1) % W;
    float *p = x->part;
    gq_err e = GQ_OK;
    size_t lo = seg_lo(len, W, r), m = seg_len(len, W, r), sz = m * sizeof *p;
    for (size_t k = 0; k < m && !x->sizes_only; k++) p[k] = 0, p[k] += mine[lo + k] / W; /* as add_average does */
    if (!x->sizes_only) memcpy(x->buf, p, sz);
    for (int s = 0; s < W - 1 && e == GQ_OK; s++) {
        const int cs = (r - s + W) % W, cr = (r - s - 1 + 2 * W) % W;
        int ns = 0, nr = 0;
        if (seg_len(len, W, cs)) post(x->sends, &ns, next, x->buf, sz);
        if (seg_len(len, W, cr)) post(x->recvs, &nr, prev, x->reply, x->cap);
        if ((e = wait_all(x, ns, nr)) != GQ_OK || !nr) continue;
        lo = seg_lo(len, W, cr), m = seg_len(len, W, cr);
        if ((e = take_floats(x, p, m, x->reply, x->recvs[0].len, layer)) != GQ_OK) break;
        sz = m * sizeof *p;
        if (x->sizes_only) continue;
        add_average(p, mine + lo, m, W);
        memcpy(x->buf, p, sz);
        if (s == W - 2) memcpy(out + lo, p, sz);
    }
    for (int s = 0; s < W - 1 && e == GQ_OK; s++) { /* all-gather: forward what came in */
        const int cs = (r + 1 - s + W) % W, cr = (r - s + W) % W;
        int ns = 0, nr = 0;
        if (seg_len(len, W, cs))
            post(x->sends, &ns, next, out + seg_lo(len, W, cs), seg_len(len, W, cs) * sizeof(float));
        if (seg_len(len, W, cr))
            post(x->recvs, &nr, prev, out + seg_lo(len, W, cr), seg_len(len, W, cr) * sizeof(float));
        if ((e = wait_all(x, ns, nr)) == GQ_OK && nr) e = check_floats(x, seg_len(len, W, cr), x->recvs[0].len, layer);
    }
    return e;
}

/* Ring all-reduce of a tensor re-quantized at every hop: the reduce-scatter's partial sums are decoded, added to,
 * and encoded again; the finished average is encoded once and forwarded as it is by the all-gather. */
static gq_err exchange_ring_mpi(xstate *x, int t)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt), cap = x->cap;
    if (!hop_quantized(x, tt)) return ring_average_mpi(x, x->g + off, tt->n, x->avg + off, tt->layer);
    const int W = x->W, r = x->rank, next = (r + 1) % W, prev = (r + W - 1) % W;
    const float *g = x->g + off;
    float *p = x->part;
    gq_err e = GQ_OK;
    size_t lo = seg_lo(tt->n, W, r), m = seg_len(tt->n, W, r), sz = 0;
    if (!x->sizes_only) memcpy(p, g + lo, m * sizeof *p);
    if (m) e = enc(x, x->buf, p, m, &x->c->quant, hop_seed(x, t, r, 0), &sz, "quantizing", tt->layer);
    for (int s = 0; s < W - 1 && e == GQ_OK; s++) {
        const int cs = (r - s + W) % W, cr = (r - s - 1 + 2 * W) % W;
        int ns = 0, nr = 0;
        if (seg_len(tt->n, W, cs)) post(x->sends, &ns, next, x->buf, sz);
        if (seg_len(tt->n, W, cr)) post(x->recvs, &nr, prev, x->reply, cap);
        if ((e = wait_all(x, ns, nr)) != GQ_OK || !nr) continue;
        lo = seg_lo(tt->n, W, cr), m = seg_len(tt->n, W, cr);
        if ((e = dec_into(x, x->dec, m, x->reply, x->recvs[0].len, "decoding", tt->layer)) != GQ_OK) break;
        for (size_t k = 0; k < m && !x->sizes_only; k++) p[k] = x->dec[k] + g[lo + k];
        if (s < W - 2) {
            e = enc(x, x->buf, p, m, &x->c->quant, hop_seed(x, t, cr, s + 1), &sz, "quantizing", tt->layer);
        } else { /* the whole sum: the average, encoded once for the all-gather */
            for (size_t k = 0; k < m && !x->sizes_only; k++) p[k] = p[k] / W;
            e = enc(x, x->rbuf + cr * x->slot, p, m, &x->c->quant, hop_seed(x, t, cr, W), &x->rsz[cr], "quantizing",
                    tt->layer);
            if (e == GQ_OK)
                e = dec_into(x, x->avg + off + lo, m, x->rbuf + cr * x->slot, x->rsz[cr], "quantizing", tt->layer);
        }
    }
    for (int s = 0; s < W - 1 && e == GQ_OK; s++) { /* all-gather: forward what came in */
        const int cs = (r + 1 - s + W) % W, cr = (r - s + W) % W;
        int ns = 0, nr = 0;
        if (seg_len(tt->n, W, cs)) post(x->sends, &ns, next, x->rbuf + cs * x->slot, x->rsz[cs]);
        if (seg_len(tt->n, W, cr)) post(x->recvs, &nr, prev, x->rbuf + cr * x->slot, cap);
        if ((e = wait_all(x, ns, nr)) != GQ_OK || !nr) continue;
        lo = seg_lo(tt->n, W, cr), m = seg_len(tt->n, W, cr);
        x->rsz[cr] = x->recvs[0].len;
        e = dec_into(x, x->avg + off + lo, m, x->rbuf + cr * x->slot, x->rsz[cr], "decoding", tt->layer);
    }
    return e;
}

/* ---- PowerSGD in a ring: its factors all-reduced ---------------------------------------------------------
 * Vogels et al.'s Algorithm 1 with error feedback (their Algorithm 2), for every worker held here: M = gradient +
 * residual; P = M Q, all-reduced (averaged), orthonormalised by everyone alike; Q' = M^T P, all-reduced; the
 * update P Q'^T (the average of the workers' rank-r approximations P Q'_w^T); each worker's residual M - P Q'_w^T;
 * the next Q is the averaged Q' (warm start). The averages go round a ring as plain floats, in the same order in
 * one process as over MPI, so both give the same bits. */
static gq_err factors_average(xstate *x, const float *mine, size_t stride, size_t len, float *out, int layer)
{
    if (x->c->comm) return ring_average_mpi(x, mine, len, out, layer);
    ring_average_local(x, mine, stride, len, out);
    return GQ_OK;
}

static gq_err factors_exchange(xstate *x, int t, size_t *bytes)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt), stride = x->maxn;
    const qz_params q = xch_tensor_quant(&x->c->quant, tt);
    const int local = x->c->comm ? 1 : x->W;
    size_t rows, cols, r;
    qz_powersgd_shape(&q, tt->n, &rows, &cols, &r);
    float *Q = x->qst + x->qoff[(size_t)t * x->W], *Pbar = x->fac + (size_t)local * stride, *Qbar = Pbar + rows * r;
    if (!q.warm && !x->sizes_only)
        qz_powersgd_init_q(Q, cols, r, rng_derive(x->c->seed, (uint64_t)x->step, 0x9e5 + (uint64_t)t));
    double t0 = gq_now();
    for (int l = 0; l < local && !x->sizes_only; l++)
        qz_powersgd_project(x->g + (size_t)l * x->P + off, rows, cols, Q, r, x->fac + (size_t)l * stride);
    codec_time(x, t0, 0, tt->n, 0.5); /* the first of the encode's two GEMMs */
    gq_err e = factors_average(x, x->fac, stride, rows * r, Pbar, tt->layer);
    if (e != GQ_OK) return e;
    t0 = gq_now();
    if (!x->sizes_only) qz_powersgd_orthonormalize(Pbar, rows, r);
    for (int l = 0; l < local && !x->sizes_only; l++) {
        const float *M = x->g + (size_t)l * x->P + off;
        float *Ql = x->fac + (size_t)l * stride; /* P_l is spent: Q'_l in its place */
        qz_powersgd_back(M, rows, cols, Pbar, r, Ql);
        qz_powersgd_expand(Pbar, Ql, rows, cols, r, x->dec); /* the worker's own approximation: its error */
        double err = 0, norm = 0;
        for (size_t k = 0; k < tt->n; k++) {
            const double d = (double)x->dec[k] - M[k];
            err += d * d, norm += (double)M[k] * M[k];
            if (x->ef) x->res[(size_t)l * x->P + off + k] = M[k] - x->dec[k];
        }
        if (norm > 0) x->nmse_sum += err / norm, x->nmse_n++;
    }
    codec_time(x, t0, 0, tt->n, 0.5);
    if ((e = factors_average(x, x->fac, stride, cols * r, Qbar, tt->layer)) != GQ_OK) return e;
    t0 = gq_now();
    if (!x->sizes_only) qz_powersgd_expand(Pbar, Qbar, rows, cols, r, x->avg + off);
    codec_time(x, t0, 1, tt->n, 1);
    if (q.warm && !x->sizes_only) memcpy(Q, Qbar, cols * r * sizeof *Q);
    *bytes = 4 * r * (rows + cols);
    return GQ_OK;
}

/* ---- training ------------------------------------------------------------------------------------ */

/* PowerSGD's matrix for segment j of S of tensor t: its columns and rank (0: floats). */
static void segment_shape(const xstate *x, int t, int j, int S, size_t *cols, size_t *r)
{
    const size_t m = seg_len(x->T[t].n, S, j);
    const qz_params q = S == 1 ? xch_tensor_quant(&x->c->quant, &x->T[t]) : x->c->quant;
    size_t rows;
    qz_powersgd_shape(&q, m ? m : 1, &rows, cols, r);
}

/* PowerSGD's state: each worker's Q for every tensor and segment it encodes (in a ring, one per tensor, the
 * same on every worker), from the same seeded start everywhere; in a ring, room for every worker's factors and
 * their averages. @return 0 when out of memory. */
static int powersgd_alloc(xstate *x, int local)
{
    const int S = factor_ring(x) ? 1 : nsegs(x);
    size_t cols, r;
    x->qoff = calloc((size_t)x->nt * x->W + 1, sizeof *x->qoff);
    if (!x->qoff) return 0;
    for (int t = 0; t < x->nt; t++)
        for (int j = 0; j < S; j++) {
            segment_shape(x, t, j, S, &cols, &r);
            x->qoff[(size_t)t * x->W + j] = x->qtotal;
            x->qtotal += cols * r;
        }
    x->qst = malloc(((size_t)local * x->qtotal + 1) * sizeof *x->qst);
    x->fac = !factor_ring(x) ? NULL
             : x->shared     ? (float *)x->shared /* sizes only: the factors' values do not matter either */
                             : malloc(((size_t)local + 1) * x->maxn * sizeof *x->fac);
    if (!x->qst || (factor_ring(x) && !x->fac)) return 0;
    for (int t = 0; t < x->nt; t++)
        for (int j = 0; j < S; j++) {
            segment_shape(x, t, j, S, &cols, &r);
            for (int l = 0; l < local && r; l++)
                qz_powersgd_init_q(x->qst + (size_t)l * x->qtotal + x->qoff[(size_t)t * x->W + j], cols, r,
                                   rng_derive(x->c->seed, (uint64_t)t, (uint64_t)j));
        }
    return 1;
}

/* The tensor list and every exchange buffer, sized for the largest tensor: `local` workers' gradients held here (and
 * their residuals when x->ef), `slots` message buffers (one per peer or segment; 0 in one process). Needs x->c, W, P,
 * ef; 0 when out of memory (xstate_free then frees what was made). */
int xstate_alloc(xstate *x, int local, int slots)
{
    const train_config *c = x->c;
    x->T = calloc(2 * (size_t)c->model->nlayers + 1, sizeof *x->T);
    if (!x->T) return 0;
    x->nt = (int)xch_tensors(c->model, &c->quant, &c->exchange, x->T);
    size_t maxn = 1;
    for (int t = 0; t < x->nt; t++) maxn = x->T[t].n > maxn ? x->T[t].n : maxn;
    x->maxn = maxn;
    const size_t bound = qz_bound(&c->quant, maxn), levels = xch_levels_size(maxn, x->W);
    x->cap = gq_is_error(bound) ? 0 : bound;
    x->cap = 4 * maxn > x->cap ? 4 * maxn : x->cap;
    x->cap = levels > x->cap ? levels : x->cap;
    x->wcap = qz_workspace_size(&c->quant, maxn);
    const size_t W = (size_t)x->W;
    x->slot = x->cap;
    if (x->sizes_only) {
        /* Under SMPI with exact sizes nothing reads a value: every buffer is one block the ranks share (SMPI folds
         * it onto one physical block and copies none of it in a message), so memory stays flat in model x ranks. */
        size_t bytes = x->cap > 4 * (size_t)local * x->P ? x->cap : 4 * (size_t)local * x->P;
        bytes = 4 * ((size_t)local + 1) * maxn > bytes ? 4 * ((size_t)local + 1) * maxn : bytes;
        if (!c->comm || !c->comm->shared_alloc || !(x->shared = c->comm->shared_alloc(c->comm, bytes))) return 0;
        x->g = x->avg = x->dec = x->part = (float *)x->shared, x->lev = (int32_t *)x->shared;
        x->buf = x->reply = x->sbuf = x->rbuf = (uint8_t *)x->shared;
        x->slot = 0; /* every message in the one block */
        x->work = malloc(1);
    } else {
        x->g = calloc((size_t)local * x->P, sizeof *x->g);
        x->res = x->ef ? calloc((size_t)local * x->P, sizeof *x->res) : NULL;
        x->avg = calloc(x->P, sizeof *x->avg), x->dec = calloc(maxn, sizeof *x->dec);
        x->part = calloc(maxn, sizeof *x->part), x->lev = calloc(maxn, sizeof *x->lev);
        x->buf = malloc(x->cap), x->reply = malloc(x->cap), x->work = malloc(x->wcap ? x->wcap : 1);
        x->sbuf = slots ? malloc((size_t)slots * x->cap) : NULL;
        x->rbuf = slots ? malloc((size_t)slots * x->cap) : NULL;
    }
    x->ssz = calloc(W, sizeof *x->ssz), x->rsz = calloc(W, sizeof *x->rsz);
    x->sends = calloc(2 * W, sizeof *x->sends), x->recvs = calloc(2 * W, sizeof *x->recvs);
    if (c->quant.id == QZ_POWERSGD && !powersgd_alloc(x, local)) return 0;
    return x->g && (!x->ef || x->res) && x->avg && x->dec && x->part && x->lev && x->buf && x->reply && x->work &&
           (!slots || (x->sbuf && x->rbuf)) && x->ssz && x->rsz && x->sends && x->recvs;
}

void xstate_free(xstate *x)
{
    if (x->shared) { /* one block under every buffer's name */
        if (x->fac == (float *)x->shared) x->fac = NULL;
        x->c->comm->shared_free(x->c->comm, x->shared);
        x->shared = NULL;
        x->g = x->avg = x->dec = x->part = NULL, x->lev = NULL;
        x->buf = x->reply = x->sbuf = x->rbuf = NULL;
    }
    free(x->T), free(x->g), free(x->res), free(x->avg), free(x->dec), free(x->part), free(x->lev), free(x->buf);
    free(x->reply), free(x->work), free(x->sbuf), free(x->rbuf), free(x->ssz), free(x->rsz), free(x->sends);
    free(x->recvs), free(x->qst), free(x->qoff), free(x->fac);
}

gq_err xstate_exchange(xstate *x, int t, float *scales)
{
    if (!x->c->comm) return exchange_local(x, t, scales);
    if (!ring(x)) return exchange_ps_mpi(x, t, scales);
    if (!factor_ring(x) || !x->T[t].quantized || !factor_rank(x, &x->T[t])) return exchange_ring_mpi(x, t);
    size_t bytes;
    gq_err e = prepare(x, t, 1, scales);
    return e == GQ_OK ? factors_exchange(x, t, &bytes) : e;
}

/* ---- the exchange alone, under SMPI -------------------------------------------------------------- */

gq_err train_exchange_run(const train_config *c, int iterations, const exchange_costs *costs, double *iteration_s,
                          char *msg, size_t cap)
{
    train_comm *comm = c->comm;
    if (!comm || !comm->execute || !comm->now || iterations < 1)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "the exchange alone runs under SMPI, for one iteration or more");
    const int W = comm->size;
    const model_t *m = c->model;
    xstate x = {.c = c, .W = W, .rank = comm->rank, .costs = costs, .msg = msg, .mcap = cap};
    size_t *off = calloc(2 * m->nlayers + 1, sizeof *off);
    if (!off) return GQ_ERR_NOMEM;
    x.w_off = off, x.b_off = off + m->nlayers;
    x.P = net_layout(m, off, off + m->nlayers); /* the trainer's layout */
    x.ef = 0;                                   /* the values do not matter here, only their sizes and costs */
    /* where every size follows from the element count (all but QSGD's Elias code), no value is computed at all:
     * the codecs' sizes and charged costs, the messages, the same simulated times (GQSIM_SMPI_VALUES=1 computes
     * them anyway, which the tests use to show that nothing changes) */
    const char *values = getenv("GQSIM_SMPI_VALUES");
    x.sizes_only = comm->shared_alloc && !gq_is_error(qz_exact_size(&c->quant, 1)) && !(values && *values == '1');
    const int made = xstate_alloc(&x, 1, W);
    float *scales = calloc((size_t)W, sizeof *scales);
    gq_err e = GQ_OK;
    if (!made || !scales) {
        e = GQ_ERR_NOMEM;
        snprintf(msg, cap, "out of memory for a gradient of %zu parameters", x.P);
    }
    /* a gradient of the usual size (Gaussian, sigma 1e-3), this worker's own, the same every iteration */
    rng_t r;
    rng_init(&r, rng_derive(c->seed, 0x9a55, (uint64_t)x.rank));
    for (size_t k = 0; e == GQ_OK && !x.sizes_only && k < x.P; k += 2) {
        double z0, z1;
        rng_gaussian_pair(&r, 1e-3, &z0, &z1);
        x.g[k] = (float)z0;
        if (k + 1 < x.P) x.g[k + 1] = (float)z1;
    }
    double t_first = 0, t_end = 0;
    for (int it = 0; it < iterations && e == GQ_OK; it++) {
        x.step = it;
        if (it == 1) t_first = comm->now(comm);
        comm->execute(comm, costs->compute_s); /* forward and backward, not executed: charged */
        for (int t = 0; t < x.nt && e == GQ_OK; t++) e = xstate_exchange(&x, t, scales);
    }
    t_end = comm->now(comm);
    *iteration_s = iterations > 1 ? (t_end - t_first) / (iterations - 1) : t_end;
    xstate_free(&x);
    free(off), free(scales);
    return e;
}
