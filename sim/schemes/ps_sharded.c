/* ps-sharded (the default): a node's GPUs reduce to their leader (or send up to their host's CPU), the leaders send
 * each server its share and get the reduced share back, then broadcast it inside the node; the servers a shard on
 * every node, on --ps-shards of them, placed as TensorFlow places variables (--ps-placement), on machines of their
 * own (--ps-cpu-machines), or BytePS's push-pull through a pipeline of stages (--ps-node-sum gpus). */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes this scheme's actors from sg_servers.c and              \
                             sg_pipeline.c */
#include <math.h>

#include "sim_internal.h"

/* ps-sharded across nodes with the plan's servers and shares: each phase
 * (the leaders' uploads, the servers' replies) takes as long as its busiest
 * NIC direction needs for all it carries, plus a latency; in between, the
 * busiest server decodes its contributions and encodes its reply. */
static double placed_servers(const sim_config *c, const sim_plan *p, const sim_bucket *b, int k)
{
    const int N = p->nodes, K = p->servers;
    const double *share = p->share + (size_t)k * K, *msgs = p->msgs + (size_t)k * K, x = p->reverse_load - 1;
    const double T = all_pushes(p);
    double work = 0, load = 0; /* load: the busiest NIC direction, in units of the bucket */
    double sends = 0;          /* the most messages a node sends (and gets back) */
    for (int n = 0; n < N; n++) {
        /* a node pushes g contributions of every share it does not serve (g: node_pushes); a server receives its
         * share of the T - g others'; a link carries its flows and, under cross-traffic, the ACKs of those coming
         * the other way */
        const double g = node_pushes(p, n), mine = n < K ? share[n] : 0, out = g * (1 - mine), in = (T - g) * mine;
        load = fmax(load, fmax(out + x * in, in + x * out));
        sends = fmax(sends, g * placed_sent(p, (size_t)k, n));
        if (n < K) /* a server takes in, and answers, T - g of its messages from the other nodes */
            work = fmax(work, T * mine * b->srv_dec_s + mine * b->srv_enc_s +
                                  (T - g) * msgs[n] * (c->rpc_recv_s + c->rpc_send_s));
    }
    /* the replies mirror the uploads: the same loads with the directions swapped */
    return sends * c->rpc_send_s + p->a_inter + load * b->up_bytes / p->b_inter + work + p->a_inter +
           load * b->down_bytes / p->b_inter + sends * c->rpc_recv_s;
}

/* ps-sharded's exchange between the nodes (N > 1) split evenly over its servers, in three phases: a node's push
 * (its messages' sends and the flows), a server's work and its reply (its messages in, its sums, its messages
 * out, the flows back), a node's receipt of the replies. With a server on every node each NIC sends and receives
 * at once, (N - 1)/N of a bucket each way; with the servers on M machines of their own (cpu_machines) a NIC
 * carries one direction a phase (no cross-traffic): a node's the whole bucket, a machine's N/M of it. */
static void shard_phases(const sim_config *c, const sim_plan *p, const sim_bucket *b, double ph[3])
{
    const double N = p->nodes, send = c->rpc_send_s, recv = c->rpc_recv_s;
    if (p->cpu_machines) { /* g: a full node's contributions, T: all of them (node_pushes, all_pushes) */
        const double M = p->cpu_machines, g = node_pushes(p, 0), T = all_pushes(p), load = fmax(g, T / M);
        ph[0] = g * M * send + p->a_inter + load * b->up_bytes / p->b_inter;
        ph[1] = T * (recv + b->srv_dec_s / M) + b->srv_enc_s / M + T * send + p->a_inter +
                load * b->down_bytes / p->b_inter;
        ph[2] = g * M * recv;
    } else {
        /* g: the contributions a full node pushes (its GPUs where each pushes its own): its messages, its NIC's
         * bytes and a server's from every other node are g times a node's sum's; a server adds T of 1/N */
        const double share = (N - 1) / N, bw = p->b_inter / p->reverse_load, g = node_pushes(p, 0), T = all_pushes(p);
        ph[0] = g * (N - 1) * send + p->a_inter + g * share * b->up_bytes / bw;
        ph[1] = g * (N - 1) * recv + T / N * b->srv_dec_s + b->srv_enc_s / N + g * (N - 1) * send + p->a_inter +
                g * share * b->down_bytes / bw;
        ph[2] = g * (N - 1) * recv;
    }
}

/* BytePS (--ps-node-sum gpus): each stage's time for one bucket, the GPUs' reduce-scatter (NCCL's ring over the
 * node's GPUs, G - 1 steps of a G-th of the sum, each hop carrying one flow each way; pipelined, the model's
 * latency factor paid by the first step alone) and each GPU's copy of its G-th to the host, the host's encode and
 * push, a server's sums and its reply, the host's decode and copies back, the GPUs' all-gather; each push and
 * reply ends when its flows do, every node and server alike. On one machine the reduce-scatter and the all-gather
 * alone. */
void sim_pipeline_stages(const sim_config *c, const sim_plan *p, const sim_bucket *b, double st[5])
{
    const double G = p->per_node, N = p->nodes;
    const double ring = G > 1 ? p->a_node_ring + (G - 2) * p->a_node_ring / p->net.latency_factor +
                                    (G - 1) * b->node_bytes / G / (p->b_node_ring / p->reverse_load)
                              : 0;
    const double copy = p->a_copy + b->node_bytes / G / p->b_copy;
    st[0] = ring, st[1] = st[2] = st[3] = 0, st[4] = ring;
    if (N == 1) return; /* BytePS connects to servers with more than one machine */
    double ph[3];
    shard_phases(c, p, b, ph);
    st[0] += copy, st[1] = b->host_enc_s + ph[0], st[2] = ph[1], st[3] = ph[2] + b->host_dec_s + copy;
}

static double ps_sharded_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    const double N = p->nodes;
    if (c->run.ps_on_cpu && c->run.node_sum == NODE_SUM_GPUS) { /* BytePS: a bucket alone through the pipeline's
                                                                    stages */
        double st[5];
        sim_pipeline_stages(c, p, b, st);
        return st[0] + st[1] + st[2] + st[3] + st[4];
    }
    double up, down;
    sim_node_local(c, p, b, &up, &down);
    double t = up;
    if (N > 1 && p->servers) {
        t += placed_servers(c, p, b, (int)(b - p->b));
    } else if (N > 1) {
        double ph[3];
        shard_phases(c, p, b, ph);
        t += ph[0] + ph[1] + ph[2];
    }
    return t + down;
}

/* a segment a server: one a node's shard, or one a server machine (--ps-cpu-machines) */
static size_t ps_sharded_segments(const sim_config *c, const sim_plan *p, int servers)
{
    (void)c;
    return (size_t)(p->cpu_machines ? p->cpu_machines : servers);
}

const sim_scheme SIM_SCHEME_PS_SHARDED = {
    .search_order = 0, .bucket_comm = ps_sharded_comm, .traffic = sim_traffic_own, .segments = ps_sharded_segments};
#endif
