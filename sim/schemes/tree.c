/* tree: NCCL's double binary tree between nodes, a chain of the node's GPUs inside each (sg_allreduce.c's
 * tree_bucket; the trees' shape in nccl_tree.h): half the bucket summed up each tree and broadcast back down,
 * pipelined. */
#include <math.h>

#include "sim_internal.h"

static double tree_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    (void)c;
    const double G = p->per_node, N = p->nodes, L = p->net.latency_factor, x = p->reverse_load;
    const double first = N > 1 ? p->a_inter : p->a_chain;
    const double hops = 2 * p->tree_depth * p->a_inter + 2 * (G - 1) * p->a_chain;
    /* every link carries as much each way: a leader's NIC its trees' half-buckets; each hop of a chain the bucket
     * up and back (b_chain: where two hops share a link, each gets half) */
    const double nic = N > 1 ? p->tree_half_buckets / 2.0 * b->up_bytes * x / p->b_inter : 0;
    const double chain = G > 1 ? b->up_bytes * x / p->b_chain : 0;
    return b->enc_s + b->dec_s + first + (hops - first) / L + fmax(nic, chain) + b->enc_s / 2 + b->dec_s;
}

/* the busier of a node's leader (its trees' half-buckets, its chain) and a chain's middle */
static void tree_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down)
{
    (void)c;
    const double lead = p->tree_half_buckets / 2.0 + (p->per_node > 1), middle = p->per_node > 2 ? 2 : 0;
    *up = fmax(lead, middle) * (b->up_bytes + b->up2_bytes), *down = fmax(lead, middle) * (b->up_bytes + b->up2_bytes);
}

const sim_scheme SIM_SCHEME_TREE = {SYNC_TREE, 6, tree_comm, tree_traffic};
