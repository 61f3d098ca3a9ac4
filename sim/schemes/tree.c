/* tree: NCCL's double binary tree between nodes, a chain of the node's GPUs inside each (sg_allreduce.c's
 * tree_bucket; the trees' shape in nccl_tree.h): half the bucket summed up each tree and broadcast back down,
 * pipelined. */
#include <math.h>

#include "sim_internal.h"

static double tree_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    (void)c;
    const double G = p->per_node, N = p->nodes, x = p->reverse_load;
    const double first = N > 1 ? p->a_inter : p->a_chain;
    /* every link carries as much each way: a leader's NIC its trees' half-buckets; each hop of a chain the bucket
     * up and back (b_chain: where two hops share a link, each gets half) */
    const double nic = N > 1 ? p->tree_half_buckets / 2.0 * b->up_bytes * x / p->b_inter : 0;
    const double chain = G > 1 ? b->up_bytes * x / p->b_chain : 0;
    return b->enc_s + b->dec_s + first + fmax(nic, chain) + b->enc_s / 2 + b->dec_s;
}

/* NCCL pipelines the trees in chunks: the other hop latencies, 2 x depth between nodes and 2 x (GPUs - 1) along the
 * chains, the first of them paid by the flows (at the model's latency factor), the rest without it, the connections
 * being open */
static double tree_latency_after(const sim_plan *p)
{
    const double first = p->nodes > 1 ? p->a_inter : p->a_chain;
    const double hops = 2 * p->tree_depth * p->a_inter + 2 * (p->per_node - 1) * p->a_chain;
    return (hops - first) / p->net.latency_factor;
}

/* the busier of a node's leader (its trees' half-buckets, its chain) and a chain's middle */
static void tree_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down)
{
    (void)c;
    const double lead = p->tree_half_buckets / 2.0 + (p->per_node > 1), middle = p->per_node > 2 ? 2 : 0;
    *up = fmax(lead, middle) * (b->up_bytes + b->up2_bytes), *down = fmax(lead, middle) * (b->up_bytes + b->up2_bytes);
}

const sim_scheme SIM_SCHEME_TREE = {
    .sync = SYNC_TREE,
    .search_order = 6,
    .bucket_comm = tree_comm,
    .traffic = tree_traffic,
    .latency_after = tree_latency_after,
};
