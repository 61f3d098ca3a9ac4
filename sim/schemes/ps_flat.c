/* ps-flat: every GPU serves 1/P of every bucket, with no reduction inside a node -- each GPU sends its P - 1 shards
 * to their servers, which decode P contributions of 1/P, encode the reply and send it back; or each tensor whole at
 * its root GPU (HiPress's roots, --ps-placement roots or greedy). */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes this scheme's actors from sg_servers.c */
#include <math.h>

#include "sim_internal.h"

/* ps-flat with HiPress's roots: GPU a roots the share s_a of the bucket. Every GPU encodes what it sends (all but its
 * own roots' share: every piece of a split tensor is a codec call of its own) and sends each root its share; each
 * phase (the contributions, the replies) takes as long as its busiest link direction needs -- a GPU's own link
 * carries what it sends and what its roots take in, a node's NIC what its GPUs send the other nodes' roots and what
 * its roots take from the other nodes' GPUs, each with the other direction's ACKs under cross-traffic; in between the
 * busiest root decodes the P - 1 contributions of its share and encodes its reply once; then each GPU decodes the
 * replies of the shares it does not root. A message to a root and its reply cost their ends (rpc=). */
static double flat_roots(const sim_config *c, const sim_plan *p, const sim_bucket *b, int k)
{
    const int P = c->gpus, G = p->per_node, N = p->nodes;
    const double *share = p->share + (size_t)k * P, x = p->reverse_load - 1;
    double gpu = 0, nic = 0, start = 0, work = 0, end = 0, all_roots = 0;
    for (int a = 0; a < P; a++) all_roots += share[a] > 0;
    for (int a = 0; a < P; a++) {
        const double s = share[a];
        const double roots = all_roots - (s > 0); /* the others that root some of it: a's messages out, replies in */
        gpu = fmax(gpu, fmax(1 - s, (P - 1) * s));
        start = fmax(start, (1 - s) * b->enc_s + roots * c->rpc_send_s);
        if (s > 0) work = fmax(work, (P - 1) * (s * b->srv_dec_s + c->rpc_recv_s + c->rpc_send_s) + s * b->srv_enc_s);
        end = fmax(end, roots * c->rpc_recv_s + (1 - s) * b->dec_down_s);
    }
    for (int n = 0; N > 1 && n < N; n++) { /* the last node may hold fewer GPUs */
        const int lo = n * G, hi = lo + G < P ? lo + G : P;
        double mine = 0;
        for (int a = lo; a < hi; a++) mine += share[a];
        const double out = (hi - lo) * (1 - mine), in = (P - (hi - lo)) * mine;
        nic = fmax(nic, fmax(out + x * in, in + x * out));
    }
    const double per_byte = fmax(gpu / p->b_intra, nic / p->b_inter), a = N > 1 ? p->a_far : p->a_intra;
    return start + a + b->up_bytes * per_byte + work + a + b->down_bytes * per_byte + end;
}

static double ps_flat_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    if (p->servers) return flat_roots(c, p, b, (int)(b - p->b));
    const double P = c->gpus, rpc = c->rpc_send_s + c->rpc_recv_s; /* a message's two ends */
    const double G = p->per_node, N = p->nodes, share = (P - 1) / P;
    /* the busier of a GPU's own link and, across nodes, its NIC carrying its G GPUs' shards for the others */
    const double gpu_s = share / p->b_intra, nic_s = N > 1 ? G * (P - G) / P / (p->b_inter / p->reverse_load) : 0;
    const double per_byte = fmax(gpu_s, nic_s);
    const double a = N > 1 ? p->a_far : p->a_intra;
    const double serve = b->srv_dec_s + b->srv_enc_s / P; /* P contributions of 1/P; one reply of 1/P */
    return b->enc_s + a + b->up_bytes * per_byte + serve + a + b->down_bytes * per_byte + b->dec_down_s +
           2 * (P - 1) * rpc; /* P - 1 messages each way, both ends */
}

/* (P - 1)/P of the contribution and of the reply: a GPU's own shard stays */
static void ps_flat_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t)
{
    (void)p;
    const double P = c->gpus;
    sim_traffic_alike(t, (P - 1) / P * b->up_bytes, (P - 1) / P * b->down_bytes);
}

/* a segment a GPU: every GPU serves its share */
static size_t ps_flat_segments(const sim_config *c, const sim_plan *p, int servers)
{
    (void)p, (void)servers;
    return (size_t)c->gpus;
}

const sim_scheme SIM_SCHEME_PS_FLAT = {
    .search_order = 5, .bucket_comm = ps_flat_comm, .traffic = ps_flat_traffic, .segments = ps_flat_segments};
#endif
