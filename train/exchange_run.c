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

static gq_err enc(xstate *x, uint8_t *dst, const float *src, size_t n, const qz_params *q, uint64_t seed, size_t *sz,
                  const char *what, int layer)
{
    double t0 = gq_now();
    size_t r = qz_encode(dst, x->cap, src, n, q, seed, x->work, x->wcap);
    x->it.encode_s += gq_now() - t0;
    if (x->costs) x->c->comm->execute(x->c->comm, 1e-9 * (x->costs->encode_fixed_ns + x->costs->encode_ns * n));
    if (gq_is_error(r))
        return snprintf(x->msg, x->mcap, "%s layer '%s': %s", what, x->c->model->layers[layer].name,
                        gq_strerror(gq_error_code(r))),
               gq_error_code(r);
    *sz = r;
    return GQ_OK;
}

static gq_err dec_into(xstate *x, float *dst, size_t n, const uint8_t *src, size_t sz, const char *what, int layer)
{
    double t0 = gq_now();
    size_t r = qz_decode(dst, n, src, sz);
    x->it.decode_s += gq_now() - t0;
    if (x->costs) x->c->comm->execute(x->c->comm, 1e-9 * (x->costs->decode_fixed_ns + x->costs->decode_ns * n));
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
        memcpy(dst, gw, m * sizeof *gw);
        *sz = m * sizeof *gw;
        return GQ_OK;
    }
    gq_err e = enc(x, dst, gw, m, q, up_seed(x, w, t, j), sz, "quantizing", tt->layer);
    if (e == GQ_OK) e = dec_into(x, x->dec, m, dst, *sz, "quantizing", tt->layer);
    if (e != GQ_OK) return e;
    double err = 0, norm = 0;
    for (size_t k = 0; k < m; k++) {
        double d = (double)x->dec[k] - gw[k];
        err += d * d, norm += (double)gw[k] * gw[k];
        if (x->ef) x->res[(size_t)l * x->P + off + k] = gw[k] - x->dec[k];
    }
    if (norm > 0) x->nmse_sum += err / norm, x->nmse_n++;
    return GQ_OK;
}

/* Error feedback's residual added to the gradients held here, then each segment's shared TernGrad scaler
 * (the workers' maximum: over the local workers, then over the ranks). */
static gq_err prepare(xstate *x, int t, int local, float *scales)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt);
    const int S = nsegs(x);
    if (!tt->quantized || ring(x)) return GQ_OK;
    if (x->ef)
        for (int l = 0; l < local; l++)
            for (size_t k = 0; k < tt->n; k++) x->g[(size_t)l * x->P + off + k] += x->res[(size_t)l * x->P + off + k];
    if (!xch_shares_scaler(&x->c->exchange, &x->c->quant)) return GQ_OK;
    for (int j = 0; j < S; j++) {
        scales[j] = 0;
        for (int l = 0; l < local; l++) {
            float s = 0;
            if (seg_len(tt->n, S, j)) {
                gq_err e = qz_terngrad_scale(&x->c->quant, x->g + (size_t)l * x->P + off + seg_lo(tt->n, S, j),
                                             seg_len(tt->n, S, j), &s);
                if (e != GQ_OK) return snprintf(x->msg, x->mcap, "TernGrad's scaler: %s", gq_strerror(e)), e;
            }
            scales[j] = s > scales[j] ? s : scales[j];
        }
    }
    return x->c->comm ? x->c->comm->max_floats(x->c->comm, scales, S) : GQ_OK;
}

static qz_params seg_quant(const xstate *x, const float *scales, int j)
{
    qz_params q = x->c->quant;
    if (!ring(x) && xch_shares_scaler(&x->c->exchange, &q)) q.shared_scale = scales[j] > 0 ? scales[j] : 0;
    return q;
}

/* ---- in one process: every worker here -------------------------------------------------------- */

static gq_err exchange_local(xstate *x, int t, float *scales)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt);
    const int W = x->W, S = nsegs(x);
    gq_err e = prepare(x, t, W, scales);
    double encoded = 0, requant = 0;
    for (int j = 0; j < S && e == GQ_OK; j++) {
        const size_t lo = seg_lo(tt->n, S, j), m = seg_len(tt->n, S, j);
        float *a = x->avg + off + lo;
        if (!m) continue;
        memset(a, 0, m * sizeof *a);
        if (ring(x) && tt->quantized) { /* chunk j's hops: decode, add the next worker's gradient, re-encode */
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
        if (ring(x)) { /* an fp32 chunk summed in ring order: from worker j on */
            for (int s = 0; s < W; s++) add_average(a, x->g + (size_t)((j + s) % W) * x->P + off + lo, m, W);
            continue;
        }
        const reply_kind rk = reply_of(x, tt);
        const qz_params q = seg_quant(x, scales, j);
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
            e = enc(x, x->reply, a, m, &x->c->quant, reply_seed(x, t, j), &sz, "re-quantizing", tt->layer);
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
    if (e == GQ_OK) memcpy(dst, src, len);
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
        const qz_params q = seg_quant(x, scales, j);
        if (seg_len(tt->n, S, j)) e = upload(x, 0, r, t, j, &q, x->sbuf + j * cap, &x->ssz[j]);
    }
    if (e != GQ_OK) return e;
    /* up: each segment to its server (in an all-gather, the whole tensor to everyone) */
    const int mine = gather ? 0 : flat(x) ? r : r == 0 ? 0 : -1;
    const int serving = mine >= 0 && seg_len(tt->n, S, mine) > 0;
    int ns = 0, nr = 0;
    for (int j = 0; j < S; j++)
        if (!gather && seg_len(tt->n, S, j) && server_of(x, j) != r)
            post(x->sends, &ns, server_of(x, j), x->sbuf + j * cap, x->ssz[j]);
    for (int p = 0; p < W; p++) {
        if (p == r) continue;
        if (gather) post(x->sends, &ns, p, x->sbuf, x->ssz[0]);
        if (serving) post(x->recvs, &nr, p, x->rbuf + p * cap, cap);
    }
    if ((e = wait_all(x, ns, nr)) != GQ_OK) return e;
    for (int i = 0; i < nr; i++) x->rsz[x->recvs[i].peer] = x->recvs[i].len;
    size_t rlen = 0;
    if (serving) { /* the server's average, worker by worker in worker order, as in one process */
        const size_t lo = seg_lo(tt->n, S, mine), m = seg_len(tt->n, S, mine);
        const qz_params q = seg_quant(x, scales, mine);
        float *a = x->avg + off + lo;
        memset(a, 0, m * sizeof *a);
        if (rk == REPLY_LEVELS) memset(x->lev, 0, m * sizeof *x->lev);
        for (int w = 0; w < W && e == GQ_OK; w++) {
            const uint8_t *src = w == r ? x->sbuf + mine * cap : x->rbuf + w * cap;
            const size_t len = w == r ? x->ssz[mine] : x->rsz[w];
            e = tt->quantized ? dec_into(x, x->dec, m, src, len, "decoding", tt->layer)
                              : take_floats(x, x->dec, m, src, len, tt->layer);
            if (e != GQ_OK) break;
            double t0 = gq_now();
            add_average(a, x->dec, m, W);
            if (rk == REPLY_LEVELS) add_levels(x->lev, x->dec, m);
            x->it.decode_s += gq_now() - t0;
        }
        if (e == GQ_OK && rk == REPLY_REQUANT) {
            e = enc(x, x->reply, a, m, &x->c->quant, reply_seed(x, t, mine), &rlen, "re-quantizing", tt->layer);
            if (e == GQ_OK) e = dec_into(x, a, m, x->reply, rlen, "re-quantizing", tt->layer);
        } else if (rk == REPLY_LEVELS) {
            level_means(a, x->lev, m, q.shared_scale, W);
            xch_levels_pack(x->reply, x->lev, m, q.shared_scale, W);
            rlen = xch_levels_size(m, W);
        } else if (rk == REPLY_FP32) {
            memcpy(x->reply, a, rlen = m * sizeof *a);
        }
    }
    if (e != GQ_OK || gather) return e;
    /* down: every server's reply to every other worker */
    ns = nr = 0;
    for (int p = 0; serving && p < W; p++)
        if (p != r) post(x->sends, &ns, p, x->reply, rlen);
    for (int j = 0; j < S; j++)
        if (seg_len(tt->n, S, j) && server_of(x, j) != r) post(x->recvs, &nr, server_of(x, j), x->rbuf + j * cap, cap);
    if ((e = wait_all(x, ns, nr)) != GQ_OK) return e;
    for (int i = 0; i < nr && e == GQ_OK; i++) {
        const int j = S == 1 ? 0 : x->recvs[i].peer;
        const size_t lo = seg_lo(tt->n, S, j), m = seg_len(tt->n, S, j), len = x->recvs[i].len;
        float *a = x->avg + off + lo;
        const uint8_t *src = x->rbuf + j * cap;
        if (rk == REPLY_REQUANT) {
            e = dec_into(x, a, m, src, len, "decoding the reply of", tt->layer);
        } else if (rk == REPLY_LEVELS) {
            float scale;
            if (len != xch_levels_size(m, W) || xch_levels_unpack(src, m, W, x->lev, &scale) != 0)
                return snprintf(x->msg, x->mcap, "layer '%s': a corrupt TernGrad reply",
                                x->c->model->layers[tt->layer].name),
                       GQ_ERR_CORRUPT;
            level_means(a, x->lev, m, scale, W);
        } else {
            e = take_floats(x, a, m, src, len, tt->layer);
        }
    }
    return e;
}

/* Ring all-reduce: W-1 reduce-scatter steps (rank r sends chunk r-s to r+1), W-1 all-gather steps. */
static gq_err exchange_ring_mpi(xstate *x, int t)
{
    const xch_tensor *tt = &x->T[t];
    const size_t off = tensor_off(x, tt), cap = x->cap;
    const int W = x->W, r = x->rank, next = (r + 1) % W, prev = (r + W - 1) % W, quantized = tt->quantized;
    const float *g = x->g + off;
    float *p = x->part;
    gq_err e = GQ_OK;
    size_t lo, m, sz = 0;
    lo = seg_lo(tt->n, W, r), m = seg_len(tt->n, W, r);
    if (quantized) {
        memcpy(p, g + lo, m * sizeof *p);
        if (m) e = enc(x, x->buf, p, m, &x->c->quant, hop_seed(x, t, r, 0), &sz, "quantizing", tt->layer);
    } else {
        for (size_t k = 0; k < m; k++) p[k] = 0, p[k] += g[lo + k] / W; /* as add_average does from zero */
        sz = m * sizeof *p;
        memcpy(x->buf, p, sz);
    }
    for (int s = 0; s < W - 1 && e == GQ_OK; s++) {
        const int cs = (r - s + W) % W, cr = (r - s - 1 + 2 * W) % W;
        int ns = 0, nr = 0;
        if (seg_len(tt->n, W, cs)) post(x->sends, &ns, next, x->buf, sz);
        if (seg_len(tt->n, W, cr)) post(x->recvs, &nr, prev, x->reply, cap);
        if ((e = wait_all(x, ns, nr)) != GQ_OK || !nr) continue;
        lo = seg_lo(tt->n, W, cr), m = seg_len(tt->n, W, cr);
        const size_t len = x->recvs[0].len;
        if (!quantized) {
            if ((e = take_floats(x, p, m, x->reply, len, tt->layer)) != GQ_OK) break;
            add_average(p, g + lo, m, W);
            memcpy(x->buf, p, sz = m * sizeof *p);
            if (s == W - 2) memcpy(x->avg + off + lo, p, sz);
            continue;
        }
        if ((e = dec_into(x, x->dec, m, x->reply, len, "decoding", tt->layer)) != GQ_OK) break;
        for (size_t k = 0; k < m; k++) p[k] = x->dec[k] + g[lo + k];
        if (s < W - 2) {
            e = enc(x, x->buf, p, m, &x->c->quant, hop_seed(x, t, cr, s + 1), &sz, "quantizing", tt->layer);
        } else { /* the whole sum: the average, encoded once for the all-gather */
            for (size_t k = 0; k < m; k++) p[k] = p[k] / W;
            e = enc(x, x->rbuf + cr * cap, p, m, &x->c->quant, hop_seed(x, t, cr, W), &x->rsz[cr], "quantizing",
                    tt->layer);
            if (e == GQ_OK)
                e = dec_into(x, x->avg + off + lo, m, x->rbuf + cr * cap, x->rsz[cr], "quantizing", tt->layer);
        }
    }
    for (int s = 0; s < W - 1 && e == GQ_OK; s++) { /* all-gather: forward what came in */
        const int cs = (r + 1 - s + W) % W, cr = (r - s + W) % W;
        int ns = 0, nr = 0;
        if (seg_len(tt->n, W, cs))
            post(x->sends, &ns, next,
                 quantized ? (void *)(x->rbuf + cs * cap) : (void *)(x->avg + off + seg_lo(tt->n, W, cs)),
                 quantized ? x->rsz[cs] : seg_len(tt->n, W, cs) * sizeof(float));
        if (seg_len(tt->n, W, cr))
            post(x->recvs, &nr, prev,
                 quantized ? (void *)(x->rbuf + cr * cap) : (void *)(x->avg + off + seg_lo(tt->n, W, cr)),
                 quantized ? cap : seg_len(tt->n, W, cr) * sizeof(float));
        if ((e = wait_all(x, ns, nr)) != GQ_OK || !nr) continue;
        lo = seg_lo(tt->n, W, cr), m = seg_len(tt->n, W, cr);
        if (quantized) {
            x->rsz[cr] = x->recvs[0].len;
            e = dec_into(x, x->avg + off + lo, m, x->rbuf + cr * cap, x->rsz[cr], "decoding", tt->layer);
        } else {
            e = check_floats(x, m, x->recvs[0].len, tt->layer);
        }
    }
    return e;
}

/* ---- training ------------------------------------------------------------------------------------ */

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
    const size_t bound = qz_bound(&c->quant, maxn), levels = xch_levels_size(maxn, x->W);
    x->cap = gq_is_error(bound) ? 0 : bound;
    x->cap = 4 * maxn > x->cap ? 4 * maxn : x->cap;
    x->cap = levels > x->cap ? levels : x->cap;
    x->wcap = qz_workspace_size(&c->quant, maxn);
    const size_t W = (size_t)x->W;
    x->g = calloc((size_t)local * x->P, sizeof *x->g);
    x->res = x->ef ? calloc((size_t)local * x->P, sizeof *x->res) : NULL;
    x->avg = calloc(x->P, sizeof *x->avg), x->dec = calloc(maxn, sizeof *x->dec);
    x->part = calloc(maxn, sizeof *x->part), x->lev = calloc(maxn, sizeof *x->lev);
    x->buf = malloc(x->cap), x->reply = malloc(x->cap), x->work = malloc(x->wcap ? x->wcap : 1);
    x->sbuf = slots ? malloc((size_t)slots * x->cap) : NULL, x->rbuf = slots ? malloc((size_t)slots * x->cap) : NULL;
    x->ssz = calloc(W, sizeof *x->ssz), x->rsz = calloc(W, sizeof *x->rsz);
    x->sends = calloc(2 * W, sizeof *x->sends), x->recvs = calloc(2 * W, sizeof *x->recvs);
    return x->g && (!x->ef || x->res) && x->avg && x->dec && x->part && x->lev && x->buf && x->reply && x->work &&
           (!slots || (x->sbuf && x->rbuf)) && x->ssz && x->rsz && x->sends && x->recvs;
}

void xstate_free(xstate *x)
{
    free(x->T), free(x->g), free(x->res), free(x->avg), free(x->dec), free(x->part), free(x->lev), free(x->buf);
    free(x->reply), free(x->work), free(x->sbuf), free(x->rbuf), free(x->ssz), free(x->rsz), free(x->sends);
    free(x->recvs);
}

gq_err xstate_exchange(xstate *x, int t, float *scales)
{
    if (!x->c->comm) return exchange_local(x, t, scales);
    return ring(x) ? exchange_ring_mpi(x, t) : exchange_ps_mpi(x, t, scales);
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
    for (size_t k = 0; e == GQ_OK && k < x.P; k += 2) {
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
