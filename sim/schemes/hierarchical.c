/* hierarchical: a node's GPUs reduce to their leader, the leaders all-reduce in a ring across the nodes, each leader
 * broadcasts the result inside its node. */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes this scheme's actors from sg_allreduce.c */
#include "sim_internal.h"

static double hierarchical_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    const double N = p->nodes;
    double up, down;
    sim_node_local(c, p, b, &up, &down);
    double t = up;
    const double bw_inter = p->b_inter / p->reverse_load; /* every node sends and receives at once */
    if (N > 1) {
        double steps = 2 * (N - 1);
        t += steps * (p->a_inter + b->up_bytes / N / bw_inter) + steps * (b->enc_s + b->dec_s) / N;
    }
    return t + down;
}

/* a node leader's, the busiest GPU's: its ring across the nodes, and its node's GPUs' contributions in and the
 * broadcast out */
static void hierarchical_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down)
{
    (void)c;
    double nn = p->nodes;
    *up = 2 * (nn - 1) / nn * (b->up_bytes + b->up2_bytes) + (p->per_node - 1) * (b->down_bytes + b->up2_bytes);
    *down = 2 * (nn - 1) / nn * (b->up_bytes + b->up2_bytes) + (p->per_node - 1) * (b->up_bytes + b->up2_bytes);
}

const sim_scheme SIM_SCHEME_HIERARCHICAL = {
    .search_order = 2, .bucket_comm = hierarchical_comm, .traffic = hierarchical_traffic};
#endif
