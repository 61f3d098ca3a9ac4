/* tree: NCCL's double binary tree between nodes, a chain of the node's GPUs inside each (the trees' shape in
 * nccl_tree.h): half the bucket summed up each tree and broadcast back down, pipelined. The whole scheme is this
 * file: its row (closed form, traffic, the pipeline's latencies, its chain's links) for the planner and the analytic
 * engine, and, compiled into the SimGrid engine's module (GQ_SIMGRID_ACTORS), its actors. */
#ifndef GQ_SIMGRID_ACTORS
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* The two trees over `nodes` nodes: the deepest node's hops to its root, and the most half-buckets a node moves. */
static void tree_shape(int nodes, int *depth, int *most)
{
    *depth = 0, *most = 0;
    for (int n = 0; n < nodes; n++) {
        int links = 0;
        for (int t = 0; t < 2; t++) {
            int parent, child[2], hops = 0;
            tree_links(nodes, t, n, &parent, child);
            links += (parent >= 0) + (child[0] >= 0) + (child[1] >= 0);
            for (int up = parent, c2[2]; up >= 0 && hops <= nodes; hops++) tree_links(nodes, t, up, &up, c2);
            *depth = hops > *depth ? hops : *depth;
        }
        *most = links > *most ? links : *most;
    }
}

/* NCCL pipelines its trees over connections it keeps open (the network model's latency factor paid once a bucket):
 * the trees' shape, and the chain inside a node at the model's factors */
static int tree_links_cost(const sim_config *c, sim_plan *p)
{
    const double lat_factor = p->net.latency_factor, bw_factor = p->net.bandwidth_factor;
    snprintf(p->network_model + strlen(p->network_model), sizeof p->network_model - strlen(p->network_model),
             ", tree pipelined: lat x%g once a bucket", lat_factor);
    tree_shape(p->nodes, &p->tree_depth, &p->tree_half_buckets);
    if (sim_chain_cost(c->cluster, p->per_node, &p->a_chain, &p->b_chain) != 0) return -1;
    p->a_chain *= lat_factor, p->b_chain *= bw_factor;
    return 0;
}

/* the busiest, the busier of a node's leader (its trees' half-buckets, its chain) and a chain's middle; the mean:
 * the two trees over N nodes reduce and broadcast a half-bucket along each of their 2(N - 1) edges, 2(N - 1)
 * buckets, and each node's chain of g GPUs 2(g - 1), so 2(P - 1) buckets over P GPUs, as a ring's */
static void tree_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t)
{
    const double lead = p->tree_half_buckets / 2.0 + (p->per_node > 1), middle = p->per_node > 2 ? 2 : 0;
    const double B = b->up_bytes + b->up2_bytes, P = c->gpus;
    t->busiest_up = t->busiest_down = fmax(lead, middle) * B;
    t->up = t->down = 2 * (P - 1) / P * B;
}

const sim_scheme SIM_SCHEME_TREE = {
    .search_order = 6,
    .bucket_comm = tree_comm,
    .traffic = tree_traffic,
    .latency_after = tree_latency_after,
    .links = tree_links_cost,
};

#else /* ---- its SimGrid actors --------------------------------------------------------------------------- */
#include "sg_world.h"

/* tree (NCCL's): inside a node a chain of its GPUs, the first (the leader) in both of the nodes' binary trees
 * (tree_links); a bucket's half goes up each tree, summed on the way, and comes back down. NCCL pipelines it in
 * chunks, so, as a ring's hops, every edge is one flow each way carrying all its bytes at once; the pipeline's other
 * hop latencies follow in the bucket's program (tree_latency_after, above). Every partial sum is
 * re-quantized on its way up, as a ring's are (a root the half it broadcasts): the codec's work before and after. */
void tree_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    const int a = me->index, lead = a - me->slot, up = w->N > 1 && me->slot == 0, G = me->node_gpus;
    sg_comm_t c[12];
    void *data;
    int n = 0;
    sleep_s(b->enc_s + b->dec_s);
    if (me->slot > 0) { /* up the chain toward the leader, and its broadcast back */
        c[n++] = put_async(w, mbox("tc%d.%d", a - 1, a), b->up_bytes);
        c[n++] = sg_mailbox_get_async(mbox("tc%d.%d", a, a - 1), &data);
    }
    if (me->slot + 1 < G) {
        c[n++] = sg_mailbox_get_async(mbox("tc%d.%d", a, a + 1), &data);
        c[n++] = put_async(w, mbox("tc%d.%d", a + 1, a), b->up_bytes);
    }
    for (int t = 0; up && t < 2; t++) { /* half the bucket in each tree, between the nodes' leaders */
        int parent, child[2];
        tree_links(w->N, t, me->node, &parent, child);
        for (int k = -1; k < 2; k++) {
            const int o = k < 0 ? parent : child[k];
            if (o < 0) continue;
            c[n++] = put_async(w, mbox("t%d.%d.%d", t, o * w->G, lead), b->up_bytes / 2);
            c[n++] = sg_mailbox_get_async(mbox("t%d.%d.%d", t, lead, o * w->G), &data);
        }
    }
    sg_comm_wait_all(c, (size_t)n);
    sleep_s(b->enc_s / 2 + b->dec_s);
}
#endif
