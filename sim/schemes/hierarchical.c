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

/* the busiest, a node's leader: its ring across the nodes, its node's GPUs' contributions in and the broadcast out;
 * the mean over the P GPUs: the N leaders' rings, and each of the P - N others' contribution out and broadcast in */
static void hierarchical_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t)
{
    const double N = p->nodes, P = c->gpus, ring = 2 * (N - 1) / N * (b->up_bytes + b->up2_bytes);
    const double in = b->up_bytes + b->up2_bytes, out = b->down_bytes + b->up2_bytes; /* a follower's, each way */
    t->busiest_up = ring + (p->per_node - 1) * out, t->busiest_down = ring + (p->per_node - 1) * in;
    t->up = (N * ring + (P - N) * (out + in)) / P, t->down = t->up;
}

const sim_scheme SIM_SCHEME_HIERARCHICAL = {
    .search_order = 2, .bucket_comm = hierarchical_comm, .traffic = hierarchical_traffic};
#endif
