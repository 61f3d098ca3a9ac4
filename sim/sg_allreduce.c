/* The all-reduces' actors, one bucket from a worker's side: ring (a flow a hop, or with --exact-flows a step),
 * hierarchical (the node's reduce, the leaders' ring, the broadcast) and allgather. (NCCL's double binary tree has
 * its actors in its own file, sim/schemes/tree.c.) */
#include "sg_world.h"

/* A ring of `members` (indices via rank_of) moving `total` bytes around:
 * one flow per hop, the other (steps - 1) latencies added. */
static void ring_exchange(sg_world *w, const char *tag, int pos, int members, double total, double hop_latency,
                          double steps)
{
    send_recv(w, mbox("%s%d", tag, (pos + 1) % members), total, mbox("%s%d", tag, pos));
    sleep_s((steps - 1) * hop_latency);
}

/* The same ring, step by step: each step sends one chunk to the successor
 * and waits for the predecessor's. */
static void ring_steps(sg_world *w, const char *tag, int pos, int members, double chunk, double steps,
                       double work_per_step)
{
    for (int k = 0; k < (int)steps; k++) {
        send_recv(w, mbox("%s%d", tag, (pos + 1) % members), chunk, mbox("%s%d", tag, pos));
        sleep_s(work_per_step);
    }
}

static void leaders_ring(sg_world *w, int node, const sim_bucket *b)
{
    double steps = 2.0 * (w->N - 1);
    if (w->c->run.exact_flows) {
        ring_steps(w, "hr", node, w->N, b->up_bytes / w->N, steps, (b->enc_s + b->dec_s) / w->N);
        return;
    }
    ring_exchange(w, "hr", node, w->N, steps / w->N * b->up_bytes, w->plan->a_inter, steps);
    sleep_s(steps * (b->enc_s + b->dec_s) / w->N);
}

/* ---- the all-reduces: ring, hierarchical, allgather, one bucket each ----------------------------------- */

/* ring: 2(P - 1) steps of 1/P of the bucket around every GPU, as one flow a hop (or, with --exact-flows, a step) */
void ring_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    const int a = me->index, R = w->R;
    double steps = 2.0 * (w->P - 1);
    sleep_s(b->host_s); /* staged through host memory: copies and the CPU's sums (0 on the GPUs) */
    if (w->c->run.exact_flows) {
        ring_steps(w, "rg", a, R, b->up_bytes / w->P, steps, (b->enc_s + b->dec_s) / w->P);
        return;
    }
    ring_exchange(w, "rg", a, R, steps / w->P * b->up_bytes, w->plan->a_ring_step, steps);
    sleep_s(steps * (b->enc_s + b->dec_s) / w->P);
}

/* allgather: every encoded contribution around the ring, P - 1 hops */
void allgather_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    const int a = me->index, R = w->R;
    const double a_hop = w->plan->a_ring;
    sleep_s(b->enc_s);
    if (w->c->run.exact_flows) {
        ring_steps(w, "ag", a, R, b->up_bytes, w->P - 1, b->dec_s);
        return;
    }
    ring_exchange(w, "ag", a, R, (w->P - 1) * b->up_bytes, a_hop, w->P - 1);
    sleep_s((w->P - 1) * b->dec_s);
}

/* hierarchical: the node's reduce to its leader, the leaders' ring, the broadcast back */
void hierarchical_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    node_reduce_bcast(w, me, b, leaders_ring);
}
