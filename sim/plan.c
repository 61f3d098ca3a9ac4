/* Builds the plan: one tensor per weight and bias array, in the order their
 * gradients become ready (last layer first), fused into buckets of at least
 * fusion_bytes raw fp32 bytes; each tensor's wire size comes from the real
 * encoder's size function (qz_exact_size) or, for data-dependent codes, from
 * encoding a synthetic Gaussian gradient of that exact length. */
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cost.h"
#include "sim_bounds.h"
#include "sim_internal.h"

const char *ps_placement_name(ps_placement k) { return (unsigned)k < 4 ? PS_PLACEMENT_NAMES[k] : "?"; }
int ps_placement_parse(const char *s, ps_placement *out)
{
    for (int i = 0; PS_PLACEMENT_NAMES[i]; i++)
        if (strcmp(s, PS_PLACEMENT_NAMES[i]) == 0) return *out = (ps_placement)i, 0;
    return -1;
}
void sync_describe(sync_kind s, int ps_shards, ps_placement placement, int pull, int ps_on_cpu, node_sum sum,
                   int cpu_machines, double partition_bytes, char *out, size_t cap)
{
    const int roots = s == SYNC_PS_FLAT && placement != PS_EVEN; /* HiPress's roots, or greedy over the GPUs */
    const int sharded = s == SYNC_PS_SHARDED || roots, on_cpu = ps_on_cpu && sync_is(s, SCHEME_NODE_SERVERS);
    char keys[128] = "";
    size_t n = 0;
    if (sharded && ps_shards > 0) n += (size_t)snprintf(keys + n, sizeof keys - n, ",shards=%d", ps_shards);
    if (sharded && placement != PS_EVEN)
        n += (size_t)snprintf(keys + n, sizeof keys - n, ",placement=%s", ps_placement_name(placement));
    if (sharded && (placement != PS_EVEN || (on_cpu && sum == NODE_SUM_GPUS)) && partition_bytes > 0)
        n += (size_t)snprintf(keys + n, sizeof keys - n, ",partition=%.0f", partition_bytes);
    if (sharded && !roots && placement != PS_EVEN && pull != PS_PULL_FORWARD)
        n += (size_t)snprintf(keys + n, sizeof keys - n, ",pull=%s", pull == PS_PULL_ROUND ? "round" : "backward");
    if (on_cpu) n += (size_t)snprintf(keys + n, sizeof keys - n, ",on=cpu");
    if (on_cpu && sharded && sum != NODE_SUM_HOST)
        n += (size_t)snprintf(keys + n, sizeof keys - n, ",sum=%s", sum == NODE_SUM_GPUS ? "gpus" : "none");
    if (on_cpu && sharded && cpu_machines > 0) snprintf(keys + n, sizeof keys - n, ",machines=%d", cpu_machines);
    snprintf(out, cap, "%s%s%s", sync_name(s), keys[0] ? ":" : "", keys[0] ? keys + 1 : "");
}

/* The pieces --partition cuts a tensor of n elements into: ceil(4n / partition bytes), at most n, 1 without. */
static size_t pieces_of(const sim_config *c, size_t n)
{
    if (!(c->run.partition_bytes > 0) || 4.0 * (double)n <= c->run.partition_bytes) return 1;
    const double k = ceil(4.0 * (double)n / c->run.partition_bytes);
    return k < (double)n ? (size_t)k : n;
}

/* Piece j of k of n elements: the first n % k pieces one element more. */
static size_t piece_n(size_t n, size_t k, size_t j) { return n / k + (j < n % k); }

/* HiPress's roots: a tensor of at least the partition's fp32 bytes is cut into one piece a GPU (at most n), piece j
 * rooted at GPU j; a smaller one stays whole. */
static size_t root_pieces(const sim_config *c, size_t n)
{
    const size_t P = (size_t)c->gpus;
    return c->run.partition_bytes > 0 && 4.0 * (double)n >= c->run.partition_bytes ? (P < n ? P : n) : 1;
}

/* Each piece's server (the tensors in the model's order, each tensor's pieces in order: first[k] is tensor k's
 * first), as the placement puts them: every piece a variable of its own. */
static int place_tensors(const sim_config *c, const xch_tensor *T, size_t nt, int servers, const size_t *first,
                         int *server_of)
{
    double *load = calloc((size_t)servers, sizeof *load);
    if (!load) return -1;
    for (size_t k = 0; k < nt; k++)
        for (size_t j = 0, np = first[k + 1] - first[k]; j < np; j++) {
            const size_t v = first[k] + j; /* the variable's index */
            if (c->run.ps_placement == PS_ROUND_ROBIN) {
                server_of[v] = (int)(v % (size_t)servers);
            } else { /* greedy: the least-loaded server so far, the first of equals */
                int best = 0;
                for (int s = 1; s < servers; s++)
                    if (load[s] < load[best]) best = s;
                server_of[v] = best;
                load[best] += 4.0 * (double)piece_n(T[k].n, np, j); /* TensorFlow's byte_size_load_fn */
            }
        }
    free(load);
    return 0;
}

/* Exact encoded size of n elements; data-dependent codes are measured on a
 * synthetic Gaussian gradient (cached: models repeat tensor sizes). */
static double encoded_size(const qz_params *q, size_t n)
{
    size_t exact = qz_exact_size(q, n);
    if (!gq_is_error(exact)) return (double)exact;
    static struct {
        size_t n;
        qz_params q;
        double size;
    } cache[256];
    static int ncache;
    for (int i = 0; i < ncache; i++)
        if (cache[i].n == n && memcmp(&cache[i].q, q, sizeof *q) == 0) return cache[i].size;
    float *x = malloc(n * sizeof *x);
    size_t cap = qz_bound(q, n), wcap = qz_workspace_size(q, n);
    void *buf = malloc(cap), *work = malloc(wcap ? wcap : 1);
    double size = (double)cap;
    if (x && buf && work) {
        codec_cost_gaussian(x, n, n);
        size_t s = qz_encode(buf, cap, x, n, q, 1, work, wcap);
        if (!gq_is_error(s)) size = (double)s;
    }
    free(x);
    free(buf);
    free(work);
    if (ncache < 256) cache[ncache].n = n, cache[ncache].q = *q, cache[ncache++].size = size;
    return size;
}

/* ---- the cluster's links as the schemes cross them (routes inside a node: platforms/node_route_between) ---- */

static void route_cost(const cluster_spec *cl, int from, int to, double *lat, double *bw)
{
    node_route r;
    node_route_between(cl, from, to, &r);
    node_route_cost(cl, &r, lat, bw);
}

/* The slowest of the routes from GPUs lo..hi-1 to `to` (a GPU or NODE_GATEWAY): the longest latency, the least
 * bandwidth (no contention counted); 0 and infinity for none. */
static void slowest_to(const cluster_spec *cl, int lo, int hi, int to, double *lat, double *bw)
{
    *lat = 0, *bw = INFINITY;
    for (int g = lo; g < hi; g++) {
        double l, b;
        route_cost(cl, g, to, &l, &b);
        *lat = fmax(*lat, l), *bw = fmin(*bw, b);
    }
}

/* A node's first GPU to another node's, through both nodes' routes to their NICs: latency and bandwidth with
 * factors 1 (the fat-tree's uplinks are the caller's). */
static void leader_to_leader(const cluster_spec *cl, double *lat, double *bw)
{
    double la, ba, lb, bb, nic = cluster_nic_bandwidth(cl);
    route_cost(cl, 0, NODE_GATEWAY, &la, &ba);
    route_cost(cl, NODE_GATEWAY, 0, &lb, &bb);
    *lat = la + lb + 2 * cl->inter->latency;
    *bw = fmin(fmin(ba, bb), nic);
}

/* Flows from[f] -> to[f] inside a node, all at once: each one's route latency (lat[f]) and the least bandwidth any
 * gets on its slowest link, the flows that share a link direction counted (under max-min sharing every one then
 * lasts bytes / that bandwidth). @return -1 out of memory. */
static int flows_cost(const cluster_spec *cl, int nflows, const int *from, const int *to, double *lat, double *bw)
{
    const int L = node_link_count(cl);
    int *load = calloc(2 * (size_t)L, sizeof *load);
    node_route *r = malloc((size_t)(nflows > 0 ? nflows : 1) * sizeof *r);
    if (!load || !r) return free(load), free(r), -1;
    for (int f = 0; f < nflows; f++) {
        node_route_between(cl, from[f], to[f], &r[f]);
        for (int k = 0; k < r[f].n; k++) load[2 * r[f].hop[k].link + r[f].hop[k].up]++;
    }
    *bw = INFINITY;
    for (int f = 0; f < nflows; f++) {
        lat[f] = 0;
        for (int k = 0; k < r[f].n; k++) {
            const node_link nl = node_link_at(cl, r[f].hop[k].link);
            lat[f] += nl.latency;
            *bw = fmin(*bw, nl.bandwidth / load[2 * r[f].hop[k].link + r[f].hop[k].up]);
        }
    }
    free(load), free(r);
    return 0;
}

/* A ring over the G GPUs of each node in rank order (across nodes: the last GPU's flow leaves through the NICs
 * and enters the next node at its first GPU): the latency of its longest hop inside a node, with `multi` that of
 * the two legs inside the nodes of the hop between them, and the bandwidth each flow gets (flows_cost; NICs not
 * counted). @return -1 out of memory. */
static int ring_cost(const cluster_spec *cl, int G, int multi, double *lat, double *cross, double *bw)
{
    const int nflows = multi ? G + 1 : G;
    int *ends = calloc(2 * (size_t)nflows, sizeof *ends);
    double *l = malloc((size_t)nflows * sizeof *l);
    if (!ends || !l) return free(ends), free(l), -1;
    for (int f = 0; f < nflows; f++) { /* flows g -> g+1; the last GPU's to the gateway, the gateway's to GPU 0 */
        ends[f] = f < G - 1 ? f : f == G - 1 ? G - 1 : NODE_GATEWAY;
        ends[nflows + f] = f < G - 1 ? f + 1 : f == G - 1 ? (multi ? NODE_GATEWAY : 0) : 0;
    }
    const int rc = flows_cost(cl, nflows, ends, ends + nflows, l, bw);
    *lat = *cross = 0;
    for (int f = 0; rc == 0 && f < nflows; f++) {
        if (multi && f >= G - 1)
            *cross += l[f];
        else
            *lat = fmax(*lat, l[f]);
    }
    free(ends), free(l);
    return rc;
}

int sim_chain_cost(const cluster_spec *cl, int G, double *lat, double *bw)
{
    const int nflows = 2 * (G - 1);
    *lat = 0, *bw = INFINITY;
    if (nflows == 0) return 0;
    int *ends = calloc(2 * (size_t)nflows, sizeof *ends);
    double *l = malloc((size_t)nflows * sizeof *l);
    if (!ends || !l) return free(ends), free(l), -1;
    for (int f = 0; f < nflows; f++) {
        const int g = f / 2, back = f % 2;
        ends[f] = back ? g + 1 : g, ends[nflows + f] = back ? g : g + 1;
    }
    const int rc = flows_cost(cl, nflows, ends, ends + nflows, l, bw);
    for (int f = 0; rc == 0 && f < nflows; f++) *lat = fmax(*lat, l[f]);
    free(ends), free(l);
    return rc;
}

int sim_network_calibrate(const cluster_spec *c, const char *base, const double *bytes, const double *seconds, size_t k,
                          sim_network *n, double *alpha, double *beta, char *msg, size_t cap)
{
    if (sim_network_parse(base, n, msg, cap) != 0) return -1;
    size_t small = 0, nlarge = 0;
    double xs[64], ys[64];
    for (size_t i = 0; i < k; i++) {
        if (!(bytes[i] >= 1 && seconds[i] > 0))
            return snprintf(msg, cap, "row %zu: sizes and times must be > 0", i + 1), -1;
        if (bytes[i] < bytes[small]) small = i;
        if (bytes[i] >= 65536 && nlarge < 64) xs[nlarge] = bytes[i], ys[nlarge++] = seconds[i];
    }
    if (k == 0 || nlarge < 2) return snprintf(msg, cap, "needs two sizes of 64 KiB or more, and a small one"), -1;
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(xs, 1, ys, 1, nlarge, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    if (!(c1 > 0)) return snprintf(msg, cap, "the times do not grow with the size: no bandwidth to fit"), -1;
    *alpha = seconds[small], *beta = 1 / c1;
    /* the model's route between two nodes' first GPUs, factors 1: as the plan charges it */
    double model_alpha, model_beta;
    leader_to_leader(c, &model_alpha, &model_beta);
    n->latency_factor = *alpha / model_alpha;
    n->bandwidth_factor = *beta / model_beta;
    if (!(n->latency_factor >= SIM_NET_FACTOR_MIN && n->latency_factor <= SIM_NET_FACTOR_MAX &&
          n->bandwidth_factor >= SIM_NET_FACTOR_MIN && n->bandwidth_factor <= SIM_NET_FACTOR_MAX))
        return snprintf(msg, cap, "factors out of range (latency x%g, bandwidth x%g): is it the right platform?",
                        n->latency_factor, n->bandwidth_factor),
               -1;
    return 0;
}

void sim_simgrid_net_cfg(const sim_config *c, const sim_plan *p, char cfg[SIM_SG_NET_CFGS][64])
{
    const sim_network *n = &p->net;
    snprintf(cfg[0], 64, "--cfg=network/model:%s", n->name);
    snprintf(cfg[1], 64, "--cfg=network/crosstraffic:%d", n->crosstraffic);
    snprintf(cfg[2], 64, "--cfg=network/latency-factor:%.17g", n->latency_factor);
    snprintf(cfg[3], 64, "--cfg=network/bandwidth-factor:%.17g", n->bandwidth_factor);
    /* the TCP window must not throttle fast links: gamma >= 4 x bandwidth x RTT */
    const double need = 4 * cluster_nic_bandwidth(c->cluster) * 2 * p->a_inter;
    snprintf(cfg[4], 64, "--cfg=network/TCP-gamma:%.0f", need > 4194304 ? need : 4194304);
}

/* b += a: a tensor joins a bucket. */
static void bucket_add(sim_bucket *b, const sim_bucket *a)
{
    b->elements += a->elements, b->raw_bytes += a->raw_bytes, b->up_bytes += a->up_bytes;
    b->down_bytes += a->down_bytes, b->up2_bytes += a->up2_bytes;
    b->enc_s += a->enc_s, b->dec_s += a->dec_s, b->enc_down_s += a->enc_down_s, b->dec_down_s += a->dec_down_s;
    b->srv_dec_s += a->srv_dec_s, b->srv_enc_s += a->srv_enc_s, b->host_s += a->host_s;
}

/* Horovod's background loop (docs/tensor-fusion.rst; its timeline shows it): every cycle it takes the tensors that
 * are ready, fuses them into buffers of up to the threshold, and all-reduces them one after another; the next cycle
 * starts a cycle after this one did, or when its all-reduces end if later (back-pressure), and takes everything
 * ready by then. p->b holds one bucket a tensor in ready order, ready_s when backward made it; they become the
 * loop's buckets, each ready when its cycle starts. A tensor made exactly at a cycle's start waits for the next, as
 * with cycles on their clock; with all-reduces shorter than a cycle the two are the same buckets. The all-reduces'
 * ends are the analytic engine's (contention-free): the SimGrid engine runs the same buckets. */
/* The index of the cycle of length len that time t falls in, and when that cycle ends. A cycle so short that t / len
 * passes a double (a subnormal length) is a point: its index is t itself and it ends at t. */
static double cycle_index(double t, double len)
{
    const double q = floor(t / len);
    return isfinite(q) ? q : t;
}
static double cycle_end(double t, double len)
{
    const double q = floor(t / len);
    return isfinite(q) ? (q + 1) * len : t;
}

static gq_err horovod_loop(const sim_config *c, sim_plan *p)
{
    if (p->n <= 0) return GQ_OK;
    sim_bucket *out = calloc((size_t)p->n, sizeof *out);
    if (!out) return GQ_ERR_NOMEM;
    const double cycle = c->run.fusion_cycle_s;
    double start = 0; /* the cycle's start, from the iteration's */
    int n = 0;
    for (int k = 0; k < p->n;) {
        if (!(p->b[k].ready_s < start)) { /* nothing ready: the loop idles a whole number of cycles */
            const double ready = p->b[k].ready_s, next = start + cycle_end(ready - start, cycle);
            /* past the tensor, however short the cycle: one below a double's resolution here must not stall */
            start = next > ready ? next : nextafter(ready, INFINITY);
        }
        double end = start;
        while (k < p->n && p->b[k].ready_s < start) {
            sim_bucket *b = &out[n++];
            do bucket_add(b, &p->b[k++]);
            while (k < p->n && p->b[k].ready_s < start && c->run.fusion_bytes > 0 &&
                   b->raw_bytes < c->run.fusion_bytes);
            b->ready_s = start;
            sim_plan_program(c, p, b);
            end += sim_bucket_comm(c, p, b);
        }
        start = fmax(start + cycle, end);
    }
    free(p->b);
    p->b = out, p->n = n;
    return GQ_OK;
}

/* What the link costs hand on to the tensors' costs. */
typedef struct {
    int multi;    /* more than one node */
    int on_host;  /* ps or ps-sharded servers on the hosts' CPUs */
    int node_sum; /* BytePS's push-pull: the node's GPUs sum, the host encodes */
    double b_up;  /* the slowest GPU's rate up to its node's root (the host, the NICs) */
} plan_links_out;

/* The network model and every route's alpha and beta the engines charge: inside a node, between nodes, to a single
 * server, a ring's hops, a node's NCCL ring and copies to its host, a tree's chain, with the model's factors. */
static gq_err plan_links(const sim_config *c, sim_plan *p, plan_links_out *out, char *msg, size_t cap)
{
    const cluster_spec *cl = c->cluster;
    p->tcp = !cl->inter->rdma;
    if (sim_network_parse(c->run.network_model ? c->run.network_model : sim_network_default(!p->tcp), &p->net, msg,
                          cap) != 0)
        return GQ_ERR_PARAM;
    const double lat_factor = p->net.latency_factor, bw_factor = p->net.bandwidth_factor;
    p->reverse_load = p->net.crosstraffic ? 1.05 : 1; /* as sim_simgrid_net_cfg turns it on */
    if (c->run.engine == ENGINE_ANALYTIC) /* closed forms with the model's factors; cross-traffic as a reverse load */
        snprintf(p->network_model, sizeof p->network_model, "alpha-beta, %s factors (lat x%g, bw x%g%s)", p->net.name,
                 lat_factor, bw_factor, p->reverse_load > 1 ? ", reverse load x1.05" : "");
    else
        snprintf(p->network_model, sizeof p->network_model, "%s(lat x%g, bw x%g%s)", p->net.name, lat_factor, bw_factor,
                 p->net.crosstraffic ? ", crosstraffic" : "");
    /* node-local reduce: the slowest follower's route to its leader (no contention counted) */
    const int G = p->per_node, multi = p->nodes > 1;
    slowest_to(cl, 1, G, 0, &p->a_intra, &p->b_intra);
    if (G == 1) p->a_intra = 2 * cl->intra->latency, p->b_intra = cl->intra->bandwidth; /* not crossed */
    leader_to_leader(cl, &p->a_inter, &p->b_inter);
    /* every GPU's route up to its node's root, where the NICs and the host CPU are */
    double a_up, b_up, a_down, b_down;
    slowest_to(cl, 0, G, NODE_GATEWAY, &a_up, &b_up);
    route_cost(cl, NODE_GATEWAY, 0, &a_down, &b_down);
    const double nic = cluster_nic_bandwidth(cl);
    const int on_host = c->run.ps_on_cpu && sync_is(c->run.sync, SCHEME_NODE_SERVERS);
    /* a single server: on GPU 0 of node 0, the farthest GPU's route to it; on node 0's host, up to its root */
    p->a_far = p->a_intra, p->b_far = p->b_intra;
    if (multi) p->a_far = a_up + (on_host ? 0 : a_down) + 2 * cl->inter->latency;
    if (multi) p->b_far = fmin(on_host ? b_up : fmin(b_up, b_down), nic);
    if (on_host && !multi) p->a_far = a_up, p->b_far = b_up;
    const int node_sum = on_host && c->run.sync == SYNC_PS_SHARDED && c->run.node_sum == NODE_SUM_GPUS;
    /* on one machine its host is every GPU's server whoever sums: per-GPU pushes are between machines */
    p->per_gpu_push = on_host && c->run.sync == SYNC_PS_SHARDED && c->run.node_sum == NODE_SUM_NONE && multi;
    /* server machines take the nodes' flows as lcm(N, M) stand-ins that load every NIC as the pairs would only where
     * the nodes push alike */
    if (p->per_gpu_push && c->run.ps_cpu_machines > 0 && c->gpus % G != 0)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "every GPU pushing its own (--ps-node-sum none) to machines of their own (--ps-cpu-machines) "
                       "needs full nodes: --gpus %d is not a multiple of their %d GPUs",
                       c->gpus, G);
    if (on_host && c->run.sync == SYNC_PS_SHARDED) { /* GPUs to their host; hosts to hosts over the NICs alone */
        if (!node_sum) p->a_intra = a_up, p->b_intra = b_up; /* else the GPUs' reduce, then the first GPU's copy */
        p->a_inter = 2 * cl->inter->latency, p->b_inter = nic;
    }
    if (node_sum) { /* NCCL's ring inside the node; every GPU's slice of the sum to the host at once */
        double cross;
        int *ends = malloc(2 * (size_t)G * sizeof *ends);
        double *lat = malloc((size_t)G * sizeof *lat);
        int rc = ends && lat ? 0 : -1;
        for (int g = 0; rc == 0 && g < G; g++) ends[g] = g, ends[G + g] = NODE_GATEWAY;
        if (rc == 0) rc = ring_cost(cl, G, 0, &p->a_node_ring, &cross, &p->b_node_ring);
        if (rc == 0) rc = flows_cost(cl, G, ends, ends + G, lat, &p->b_copy);
        p->a_copy = 0;
        for (int g = 0; rc == 0 && g < G; g++) p->a_copy = fmax(p->a_copy, lat[g]);
        free(ends), free(lat);
        if (rc != 0) return GQ_ERR_NOMEM;
    }
    double cross; /* the ring's hop between nodes, inside them */
    if (ring_cost(cl, G, multi, &p->a_ring, &cross, &p->b_ring) != 0) return GQ_ERR_NOMEM;
    cross += 2 * cl->inter->latency;
    if (multi) p->b_ring = fmin(p->b_ring, cluster_nic_bandwidth(cl));
    if (cl->topo == TOPO_FAT_TREE && p->nodes > cl->leaf_nodes) {
        const double up = cluster_nic_wire_bandwidth(cl) * cl->leaf_nodes / cl->oversub; /* two uplinks */
        p->a_inter += 2 * cl->inter->latency, p->a_far += 2 * cl->inter->latency, cross += 2 * cl->inter->latency;
        p->b_inter = fmin(p->b_inter, up), p->b_far = fmin(p->b_far, up), p->b_ring = fmin(p->b_ring, up);
    }
    if (multi) p->a_ring = fmax(p->a_ring, cross);
    p->a_intra *= lat_factor, p->a_inter *= lat_factor, p->a_far *= lat_factor, p->a_ring *= lat_factor;
    p->b_intra *= bw_factor, p->b_inter *= bw_factor, p->b_far *= bw_factor, p->b_ring *= bw_factor;
    p->a_node_ring *= lat_factor, p->a_copy *= lat_factor, p->b_node_ring *= bw_factor, p->b_copy *= bw_factor;
    /* A pipelined ring (NCCL) streams its steps over connections it keeps open: the model's latency factor, which
     * stands for what a message costs TCP beyond its wire latency, is paid by the first step alone */
    p->a_ring_step = c->run.ring_pipelined ? p->a_ring / lat_factor : p->a_ring;
    const sim_scheme *scheme = sim_scheme_of(c->run.sync);
    if (scheme->links && scheme->links(c, p) != 0) return GQ_ERR_NOMEM; /* its own: the tree's chain */
    *out = (plan_links_out){multi, on_host, node_sum, b_up};
    return GQ_OK;
}

/* A tensor's upload bytes to the servers of its bucket, each server's for now (shares once the buckets are whole),
 * and which servers it messages: split evenly, on HiPress's roots (tensor k on GPU k mod P, or piece j on GPU j), or
 * each piece on the server placement gave it (server_of). */
static void add_server_bytes(const sim_config *c, sim_plan *p, const sim_bucket *cur, const xch_tensor *tt, size_t k,
                             size_t np, double up, int hipress, const size_t *first, const int *server_of)
{
    const double n = (double)tt->n;
    double *share = p->share + (cur - p->b) * p->servers, *msgs = p->msgs + (cur - p->b) * p->servers;
    /* even; and what HiPress does not compress it all-reduces: spread as a ring's load */
    if (c->run.ps_placement == PS_EVEN || (hipress && !tt->quantized))
        for (int s = 0; s < p->servers; s++) share[s] += up / p->servers, msgs[s] = 1;
    else if (hipress) /* tensor k on GPU k mod P, or piece j on GPU j (a message to each root) */
        for (size_t j = 0; j < np; j++) {
            const size_t g = np > 1 ? j : k % (size_t)p->servers;
            share[g] += up * (double)piece_n(tt->n, np, j) / n, msgs[g] = 1;
        }
    else /* each piece on its server, its share of the tensor's bytes as of its elements */
        for (size_t j = 0; j < np; j++)
            share[server_of[first[k] + j]] += up * (double)piece_n(tt->n, np, j) / n,
                msgs[server_of[first[k] + j]] += 1;
}

/* BytePS's pipeline with --partition: the last bucket, a tensor's, as np alike, each a 1/np of it (its pieces differ
 * by an element at most; their exact sizes' sum is the whole's wire). @return the last of them. */
static sim_bucket *split_bucket(sim_plan *p, size_t np)
{
    const double f = 1.0 / (double)np;
    sim_bucket piece = p->b[p->n - 1]; /* the tensor's own: split runs without fusion */
    double *v[] = {&piece.elements,  &piece.raw_bytes,  &piece.up_bytes,   &piece.down_bytes, &piece.up2_bytes,
                   &piece.enc_s,     &piece.dec_s,      &piece.enc_down_s, &piece.dec_down_s, &piece.srv_dec_s,
                   &piece.srv_enc_s, &piece.node_bytes, &piece.host_enc_s, &piece.host_dec_s, &piece.host_s};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) *v[i] *= f;
    for (size_t j = 0; j < np; j++) p->b[p->n - 1 + (int)j] = piece;
    p->n += (int)np - 1;
    return &p->b[p->n - 1];
}

/* Each bucket's bytes per server as its share of the bucket's upload, and the messages to servers with a share. */
static void server_shares(sim_plan *p)
{
    for (int k = 0; k < p->n; k++)
        for (int s = 0; s < p->servers; s++) {
            p->share[k * p->servers + s] =
                p->b[k].up_bytes > 0 ? p->share[k * p->servers + s] / p->b[k].up_bytes : 1.0 / p->servers;
            p->b[k].msgs_all += p->share[k * p->servers + s] > 0 ? p->msgs[k * p->servers + s] : 0;
        }
}

/* A tensor's (or its np pieces') codec costs added to its bucket b: on the GPU or the host, PCIe copies, the servers'
 * and BytePS's hosts' codecs, MPI's host reduce. q: a codec runs; host_codec: a node's host encodes the GPUs' sum.
 * @return the GPU time its codec kernels take from backward (0 where they run beside it). */
static double add_codec_costs(const sim_config *c, sim_bucket *b, const sim_tensor_codec *tc, double n, size_t np,
                              int q, int requant_down, int host_codec, int node_sum, int on_cpu, double b_up)
{
    /* a codec call a tensor or piece: a fixed cost each and a cost per element; on the host, the
     * tensor's copy over PCIe before encoding, and the reply's back after decoding */
    const double enc = q ? 1e-9 * ((double)np * tc->encode_fixed_ns + tc->encode_ns * n) : 0;
    const double dec = q ? 1e-9 * ((double)np * tc->decode_fixed_ns + tc->decode_ns * n) : 0;
    const double copy = q && c->host_copy_bw > 0 ? 4 * n / c->host_copy_bw : 0;
    b->enc_s += enc + copy;
    b->dec_s += dec;
    b->enc_down_s += requant_down ? enc : 0;
    b->dec_down_s += requant_down ? dec + copy : q ? copy : 0;
    if (host_codec) { /* the node's sum as the GPUs made it; the host's codec on it, the reply's */
        b->host_enc_s +=
            q && !c->grads_fp16 ? 1e-9 * ((double)np * c->server_encode_fixed_ns + c->server_encode_ns * n) : 0;
        b->host_dec_s +=
            requant_down && q ? 1e-9 * ((double)np * c->server_decode_fixed_ns + c->server_decode_ns * n) : 0;
    }
    if (node_sum) b->node_bytes += (c->grads_fp16 ? 2 : 4) * n;
    if (on_cpu) { /* the host decodes (if encoded) and adds every contribution, even fp32, and encodes its reply */
        b->srv_dec_s +=
            1e-9 * (c->server_sum_ns * n + (q ? (double)np * c->server_decode_fixed_ns + c->server_decode_ns * n : 0));
        b->srv_enc_s +=
            requant_down && q ? 1e-9 * ((double)np * c->server_encode_fixed_ns + c->server_encode_ns * n) : 0;
    } else {
        b->srv_dec_s += dec;
        b->srv_enc_s += requant_down ? enc : 0;
    }
    if (c->run.reduce_on_host && c->run.sync == SYNC_RING && c->gpus > 1) /* MPI: to the host, summed there, back */
        b->host_s += 2 * 4 * n / b_up + (c->gpus - 1.0) / c->gpus * n * 1e-9 * c->server_sum_ns;
    return c->codec_serial && c->gpus > 1 ? enc + (requant_down ? dec : 0) : 0; /* GPU time taken from backward */
}

/* A tensor's bytes each way, up and down (and up2, PowerSGD's second all-reduce where its factors are all-reduced),
 * its nc parts on the wire a header each (PowerSGD's wire is its whole matrix's factors). @return the rank PowerSGD
 * sends it at (0: as floats), 1 for the other codecs. */
static size_t tensor_bytes(const sim_config *c, const sim_tensor_codec *tc, const xch_tensor *tt, size_t nc,
                           int factors, double *up, double *dn, double *up2)
{
    const double n = (double)tt->n;
    const qz_params tq = xch_tensor_quant(&tc->quant, tt); /* with its matrix shape, for PowerSGD */
    size_t rows = 1, cols = tt->n, rank = 1;
    if (tq.id == QZ_POWERSGD) qz_powersgd_shape(&tq, tt->n, &rows, &cols, &rank);
    double wire = 4 * n;
    if (tt->quantized && (nc == 1 || tq.id == QZ_POWERSGD))
        wire = encoded_size(&tq, tt->n);
    else if (tt->quantized) /* n % nc pieces one element longer than the others */
        wire = (double)(tt->n % nc) * encoded_size(&tq, piece_n(tt->n, nc, 0)) +
               (double)(nc - tt->n % nc) * encoded_size(&tq, tt->n / nc);
    *up2 = 0;
    xch_tensor_bytes(&c->run.exchange, &tc->quant, tt, c->gpus, wire, wire, up, dn);
    if (factors && tt->quantized) /* P's floats, then Q's; a tensor PowerSGD sends as floats, in the first */
        *up = *dn = rank ? 4.0 * (double)(rank * rows) : 4 * n, *up2 = rank ? 4.0 * (double)(rank * cols) : 0;
    return rank;
}

/* The servers: ps-sharded's K shards where asked (the nodes in use by default), a placement of whole tensors, server
 * machines of their own, or ps-flat's roots; BytePS's pipeline where a node's host encodes its GPUs' sum. @return K. */
static int plan_servers(const sim_config *c, sim_plan *p, int pipelined, int on_host)
{
    /* K servers on the first K nodes (fewer where fewer nodes are in use) */
    const int K = c->run.ps_shards > 0 && c->run.ps_shards < p->nodes ? c->run.ps_shards : p->nodes;
    p->pipelined = pipelined;
    if (c->run.sync == SYNC_PS_SHARDED && on_host && c->run.ps_cpu_machines > 0 && p->nodes > 1)
        p->cpu_machines = c->run.ps_cpu_machines; /* the workers' nodes serve nothing: no servers among them */
    else if (c->run.sync == SYNC_PS_SHARDED && p->nodes > 1 && (c->run.ps_placement != PS_EVEN || K != p->nodes))
        p->servers = K;
    else if (c->run.sync == SYNC_PS_FLAT && c->run.ps_placement != PS_EVEN && c->gpus > 1)
        p->servers = c->gpus; /* every GPU the root of some tensors: HiPress's, or TensorFlow's greedy setter */
    return K;
}

/* The plan once every tensor is in a bucket: the servers' shares, the reads of forward, the codec kernels' time on the
 * GPU, Horovod's loop where it runs, and each bucket's program. */
static gq_err finish_plan(const sim_config *c, sim_plan *p, double serial_s, int loop, char *msg, size_t cap)
{
    if (p->servers) server_shares(p);
    for (int k = 0; p->pull_forward && k < p->n; k++)
        sim_node_local(c, p, &p->b[k], &p->b[k].local_up_s, &p->b[k].local_down_s);
    if (c->codec_serial) { /* a GPU runs its codec kernels between backward's: compute ends later */
        p->compute_s += serial_s;
        for (int k = 0; k < p->n; k++)
            if (!c->run.overlap) p->b[k].ready_s = p->compute_s;
    }
    if (p->n == 0) return gq_fail(GQ_ERR_PARAM, msg, cap, "model '%s' has no parameters", c->model->name);
    if (loop) return horovod_loop(c, p); /* its fused buckets get their programs as it makes them */
    for (int k = 0; k < p->n; k++) sim_plan_program(c, p, &p->b[k]);
    return GQ_OK;
}

gq_err sim_plan_build(const sim_config *c, sim_plan *p, char *msg, size_t cap)
{
    memset(p, 0, sizeof *p);
    const model_t *m = c->model;
    const cluster_spec *cl = c->cluster;
    if (c->gpus < 1) return gq_fail(GQ_ERR_PARAM, msg, cap, "--gpus must be >= 1");
    p->compute_s = c->fwd_s + c->bwd_s;
    p->nodes = cluster_nodes_for(cl, c->gpus);
    /* a platform of a stated size (nodes=, or a user's XML) holds what it holds: never more nodes in silence */
    if (cl->nodes > 0 && p->nodes > cl->nodes)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s%s has %d node%s of %d GPUs (%d GPUs): not enough for %d GPUs",
                       cl->xml_path[0] ? cl->xml_path : "the cluster", cl->xml_path[0] ? "" : " (nodes=)", cl->nodes,
                       cl->nodes == 1 ? "" : "s", cl->gpus_per_node, cl->nodes * cl->gpus_per_node, c->gpus);
    p->per_node = c->gpus < cl->gpus_per_node ? c->gpus : cl->gpus_per_node;
    p->gpus = c->gpus;
    plan_links_out links = {0};
    const gq_err le = plan_links(c, p, &links, msg, cap);
    if (le != GQ_OK) return le;
    const int multi = links.multi, on_host = links.on_host, node_sum = links.node_sum;
    const double b_up = links.b_up;

    if (c->run.ps_shards < 0 || c->run.ps_shards > SIM_MAX_PS_SHARDS)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "--ps-shards must be 1.." SIM_STR(SIM_MAX_PS_SHARDS));
    const int K = plan_servers(c, p, node_sum && multi, on_host); /* ps-sharded's shards (the nodes by default) */

    /* tensors in ready order: layers from last to first, biases before weights */
    double fwd[4096], bwd[4096];
    if (m->nlayers > 4096) return gq_fail(GQ_ERR_PARAM, msg, cap, "model has too many layers");
    model_layer_times(m, c->fwd_s, c->bwd_s, fwd, bwd);
    xch_tensor *T = malloc((2 * m->nlayers + 1) * sizeof *T);
    size_t *first = calloc(2 * m->nlayers + 2, sizeof *first); /* each tensor's first piece, and the end */
    int *server_of = NULL;
    p->b = calloc(2 * m->nlayers + 1, sizeof *p->b);
    p->share = p->servers ? calloc((2 * m->nlayers + 1) * (size_t)p->servers, sizeof *p->share) : NULL;
    p->msgs = p->servers ? calloc((2 * m->nlayers + 1) * (size_t)p->servers, sizeof *p->msgs) : NULL;
    if (!p->b || !T || !first || (p->servers && (!p->share || !p->msgs))) return free(T), free(first), GQ_ERR_NOMEM;
    const size_t nt = xch_tensors(m, &c->quant, &c->run.exchange, T);
    if (c->tensor_codec && c->ntensor_codec != nt)
        return free(T), free(first),
               gq_fail(GQ_ERR_PARAM, msg, cap, "the plan has %zu tensors, model '%s' %zu", c->ntensor_codec, m->name,
                       nt);
    const int roots = p->servers && c->run.sync == SYNC_PS_FLAT;
    const int placed = p->servers && c->run.ps_placement != PS_EVEN && !roots;
    /* TensorFlow's local parameter_server on the GPUs (ParamServerDeviceSetter): each variable whole on the GPU
     * holding the fewest elements so far, a partitioned one's pieces each a variable */
    const int greedy_roots = roots && c->run.ps_placement == PS_GREEDY, hipress = roots && !greedy_roots;
    /* BytePS's pipeline with --partition: each piece of a tensor a bucket of its own (one a tensor before) */
    const int split = p->pipelined && c->run.partition_bytes > 0;
    if (p->pipelined &&
        (p->servers || c->run.exact_flows || (split && (c->run.fusion_bytes > 0 || c->run.fusion_cycle_s > 0))))
        return free(T), free(first),
               gq_fail(GQ_ERR_PARAM, msg, cap,
                       "BytePS's pipeline (--ps-node-sum gpus) splits every bucket evenly over the servers, as "
                       "aggregated flows%s",
                       split && !p->servers && !c->run.exact_flows ? ", a partition a bucket: no fusion" : "");
    for (size_t k = 0; k < nt; k++)
        first[k + 1] = first[k] + (placed || split || greedy_roots ? pieces_of(c, T[k].n)
                                   : roots                         ? root_pieces(c, T[k].n)
                                                                   : 1);
    if (split && first[nt] > 2 * m->nlayers + 1) {
        sim_bucket *more = realloc(p->b, (first[nt] + 1) * sizeof *p->b);
        if (!more) return free(T), free(first), GQ_ERR_NOMEM;
        p->b = more;
        memset(p->b + 2 * m->nlayers + 1, 0, (first[nt] - 2 * m->nlayers) * sizeof *p->b);
    }
    /* TensorFlow's workers push each gradient as backward makes it and read each variable as forward needs it, or
     * (distributed_replicated) within the step once its update is applied */
    p->pull_forward = placed && c->run.overlap && c->gpus > 1 && c->run.ps_pull != PS_PULL_ROUND;
    p->read_in_step = p->pull_forward && c->run.ps_pull == PS_PULL_BACKWARD;
    double before[4097] = {0}; /* forward's time before each layer */
    for (size_t l = 0; l < m->nlayers; l++) before[l + 1] = before[l] + fwd[l];
    if ((placed || greedy_roots) && !(server_of = malloc(first[nt] * sizeof *server_of)))
        return free(T), free(first), GQ_ERR_NOMEM;
    if ((placed || greedy_roots) && place_tensors(c, T, nt, p->servers, first, server_of) != 0)
        return free(T), free(first), free(server_of), GQ_ERR_NOMEM;
    /* the segments of a tensor split evenly over the servers (ps-sharded's K or its server machines, ps-flat's P):
     * each server decodes its own, so each carries its own header (the trainer encodes them one by one); the codec
     * still costs one call a tensor, as one kernel over the tensor writing every segment would. 1 elsewhere (one
     * server, an all-gather, whole tensors or pieces placed, rings, which re-quantize a chunk at each hop, BytePS's
     * push-pull, whose host encodes the node's sum) */
    const int even_split = !placed && !roots && !node_sum && c->gpus > 1;
    const sim_scheme *scheme = sim_scheme_of(c->run.sync);
    const size_t segments = even_split && scheme->segments ? scheme->segments(c, p, K) : 1;
    /* TernGrad's shared scaler, a float a segment, where the engines run it before each bucket; not where
     * TensorFlow's placed servers overlap (their timelines leave it out), nor in BytePS's push-pull */
    const int shared_scaler =
        sync_is(c->run.sync, SCHEME_SHARED_SCALER) && c->gpus > 1 && !node_sum && !p->pull_forward;
    /* Horovod's loop: a bucket a tensor first, each ready when backward makes it; fused as the loop runs below */
    const int loop =
        c->run.fusion_wait_previous && c->run.fusion_cycle_s > 0 && c->run.overlap && c->gpus > 1 && !p->servers;
    double t = c->fwd_s, cur_cycle = -1, serial_s = 0, serial_seen = 0;
    sim_bucket *cur = NULL;
    int layer_done = (int)m->nlayers; /* backward has passed layers >= this */
    /* each tensor's codec: the configuration's, or the plan's for it */
    const sim_tensor_codec whole = {c->quant, c->encode_ns, c->decode_ns, c->encode_fixed_ns, c->decode_fixed_ns};
    for (size_t k = nt; k-- > 0;) {
        const sim_tensor_codec *tc = c->tensor_codec ? &c->tensor_codec[k] : &whole;
        if (c->tensor_codec) T[k].quantized = tc->quant.id != QZ_FP32;
        const xch_tensor *tt = &T[k];
        const int requant_down = xch_downlink(&c->run.exchange, &tc->quant) != DOWNLINK_FP32;
        const int factors = xch_factor_allreduce(c->run.sync, &tc->quant) && c->gpus > 1;
        p->factors |= factors;
        for (; layer_done > tt->layer; layer_done--) t += bwd[layer_done - 1];
        const double n = (double)tt->n;
        /* pieces (--partition) are encoded each on its own: the sum of their sizes, a codec call each */
        const size_t np = first[k + 1] - first[k];
        /* the tensor's parts on the wire, a header each: its pieces, or its non-empty segments */
        const size_t nc = np > 1 ? np : segments < tt->n ? segments : tt->n;
        double up, dn, up2;
        const size_t rank = tensor_bytes(c, tc, tt, nc, factors, &up, &dn, &up2);
        /* a new bucket: per tensor without fusion; when the bucket is full; and, with
         * cycles, when this tensor is ready in a later cycle than the bucket's */
        t += serial_s - serial_seen; /* the encodes so far held backward up */
        serial_seen = serial_s;
        double cycle = c->run.fusion_cycle_s > 0 ? cycle_index(t, c->run.fusion_cycle_s) : 0;
        /* whole tensors on their servers: TensorFlow pushes each variable to its server on its own, so the servers
         * work side by side over the whole gradient -- in the round, one exchange, not buckets in turn (each of
         * which would wait for its own busiest server); read in forward, a bucket a tensor, as it is made */
        if (!cur || loop || p->pull_forward ||
            (!placed && (c->run.fusion_bytes <= 0 || cur->raw_bytes >= c->run.fusion_bytes || cycle != cur_cycle))) {
            cur = &p->b[p->n++];
            cur_cycle = cycle;
        }
        cur->need_s = before[tt->layer];
        const int q = tt->quantized && rank > 0; /* a codec runs (PowerSGD's float tensors have none) */
        cur->elements += n;
        cur->raw_bytes += 4.0 * n;
        cur->up_bytes += up;
        cur->up2_bytes += up2;
        cur->down_bytes += dn;
        /* TernGrad's scaler sharing, one tiny exchange a layer (docs/papers.md): every worker's maximum all-reduced
         * before the encode, a float for each segment a server (or each root, or the one server) decodes under it;
         * rings re-quantize at every hop and share nothing */
        if (shared_scaler && tt->quantized && xch_shares_scaler(&c->run.exchange, &tc->quant))
            cur->scaler_bytes += 4.0 * (double)nc;
        if (p->servers) /* bytes per server for now; shares once the buckets are whole */
            add_server_bytes(c, p, cur, tt, k, np, up, hipress, first, server_of);
        serial_s += add_codec_costs(c, cur, tc, n, np, q, requant_down, node_sum && multi, node_sum, on_host, b_up);
        /* with cycles a bucket leaves at the end of its cycle (its tensors are ready by then) */
        cur->ready_s = !c->run.overlap                      ? p->compute_s
                       : c->run.fusion_cycle_s > 0 && !loop ? cycle_end(t, c->run.fusion_cycle_s)
                                                            : t;
        if (split && np > 1) cur = split_bucket(p, np);
    }
    free(T), free(first), free(server_of);
    return finish_plan(c, p, serial_s, loop, msg, cap);
}

void sim_plan_free(sim_plan *p)
{
    free(p->b), free(p->share), free(p->msgs);
    p->b = NULL, p->share = NULL, p->msgs = NULL;
}

double sim_timeline(const sim_plan *p, const double *comm_s, double *exposed)
{
    double t = 0;
    for (int k = 0; k < p->n; k++) {
        if (comm_s[k] <= 0) continue; /* nothing to send (one GPU): no wait for the bucket */
        double start = p->b[k].ready_s > t ? p->b[k].ready_s : t;
        t = start + comm_s[k];
    }
    double end = t > p->compute_s ? t : p->compute_s;
    if (exposed) *exposed = end - p->compute_s;
    return end;
}

void sim_traffic(const sim_config *c, const sim_plan *p, sim_gpu_bytes *t)
{
    const sim_scheme *scheme = sim_scheme_of(c->run.sync);
    sim_gpu_bytes sum = {0, 0, 0, 0};
    for (int k = 0; c->gpus > 1 && k < p->n; k++) {
        sim_gpu_bytes b;
        scheme->traffic(c, p, &p->b[k], &b);
        sum.up += b.up, sum.down += b.down, sum.busiest_up += b.busiest_up, sum.busiest_down += b.busiest_down;
    }
    *t = sum;
}
