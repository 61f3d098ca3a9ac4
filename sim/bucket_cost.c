/* The closed forms of one bucket's exchange, alone on the network: latency + bytes / bandwidth of each transfer's
 * slowest link, each scheme's steps, the servers' work, the codec's share on the critical path. The analytic engine
 * lays them on its timeline (analytic.c); the planner paces Horovod's loop of fused buckets with them (plan.c); the
 * SimGrid engine charges a node's own part of an exchange with them as delays (sg_child.c). They read only the plan
 * and the configuration, so that neither the planner nor an engine depends on another for them. */
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

/* ps-sharded and hierarchical: a node's part before the exchange between nodes (its GPUs' contributions reduced at
 * the leader, or every GPU's sent up to the host CPU, which sums them) and after it (the reply broadcast to the
 * node's GPUs, or sent down from the host, and decoded). One GPU a node alone sends the servers its own encoded
 * contribution and decodes their reply (a ring across leaders encodes its steps). */
void sim_node_local(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down)
{
    const double G = p->per_node, rpc = c->rpc_send_s + c->rpc_recv_s;
    const int host = c->run.ps_on_cpu && c->run.sync == SYNC_PS_SHARDED; /* the leader's contribution too goes up */
    const int alone = G == 1 && !host && c->run.sync == SYNC_PS_SHARDED && p->nodes > 1;
    *up = *down = 0;
    if (host && p->per_gpu_push) { /* each GPU's own copy to its host and back: its pushes and reads are messages */
        *up = b->enc_s + p->a_intra + b->up_bytes / p->b_intra;
        *down = p->a_intra + b->down_bytes / p->b_intra + b->dec_down_s;
    } else if (host) { /* the GPUs' messages to their host and its replies, as at the single server */
        *up = b->enc_s + p->a_intra + b->up_bytes / p->b_intra + G * b->srv_dec_s + (G + 1) * rpc;
        *down = b->srv_enc_s + p->a_intra + b->down_bytes / p->b_intra + b->dec_down_s;
    } else if (G > 1) {
        *up = b->enc_s + p->a_intra + b->up_bytes / p->b_intra + (G - 1) * b->dec_s;
        *down = b->enc_down_s + p->a_intra + b->down_bytes / p->b_intra + b->dec_down_s;
    } else if (alone) {
        *up = b->enc_s, *down = b->dec_down_s;
    }
}

static double scheme_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    const double P = c->gpus, rpc = c->rpc_send_s + c->rpc_recv_s; /* a message's two ends */
    double a, bw;
    switch (c->run.sync) {
    case SYNC_PS: { /* server on the first GPU of node 0 */
        a = p->a_far, bw = p->b_far;
        double server = P * b->srv_dec_s + b->srv_enc_s + P * rpc; /* and its messages in and out */
        return b->enc_s + rpc + a + b->up_bytes / bw + server + a + b->down_bytes / bw + b->dec_down_s;
    }
    case SYNC_PS_SHARDED:     /* node-local reduce, leaders exchange shards, broadcast */
    case SYNC_HIERARCHICAL: { /* node-local reduce, ring across leaders, broadcast */
        const double N = p->nodes;
        if (c->run.ps_on_cpu && c->run.node_sum == NODE_SUM_GPUS &&
            c->run.sync == SYNC_PS_SHARDED) { /* BytePS: a bucket alone
                          through the pipeline's stages */
            double st[5];
            sim_pipeline_stages(c, p, b, st);
            return st[0] + st[1] + st[2] + st[3] + st[4];
        }
        double up, down;
        sim_node_local(c, p, b, &up, &down);
        double t = up;
        const double bw_inter = p->b_inter / p->reverse_load; /* every node sends and receives at once */
        if (N > 1 && c->run.sync == SYNC_PS_SHARDED && p->servers) {
            t += placed_servers(c, p, b, (int)(b - p->b));
        } else if (N > 1 && c->run.sync == SYNC_PS_SHARDED) {
            double ph[3];
            shard_phases(c, p, b, ph);
            t += ph[0] + ph[1] + ph[2];
        } else if (N > 1) {
            double steps = 2 * (N - 1);
            t += steps * (p->a_inter + b->up_bytes / N / bw_inter) + steps * (b->enc_s + b->dec_s) / N;
        }
        return t + down;
    }
    case SYNC_PS_FLAT: { /* every GPU serves 1/P of the bucket: its P - 1 shards out and in, each way */
        if (p->servers) return flat_roots(c, p, b, (int)(b - p->b));
        const double G = p->per_node, N = p->nodes, share = (P - 1) / P;
        /* the busier of a GPU's own link and, across nodes, its NIC carrying its G GPUs' shards for the others */
        const double gpu_s = share / p->b_intra, nic_s = N > 1 ? G * (P - G) / P / (p->b_inter / p->reverse_load) : 0;
        const double per_byte = fmax(gpu_s, nic_s);
        a = N > 1 ? p->a_far : p->a_intra;
        const double serve = b->srv_dec_s + b->srv_enc_s / P; /* P contributions of 1/P; one reply of 1/P */
        return b->enc_s + a + b->up_bytes * per_byte + serve + a + b->down_bytes * per_byte + b->dec_down_s +
               2 * (P - 1) * rpc; /* P - 1 messages each way, both ends */
    }
    case SYNC_RING: { /* reduce-scatter then all-gather: 2(P-1) steps of 1/P */
        a = p->a_ring, bw = p->b_ring / p->reverse_load;
        double steps = 2 * (P - 1);
        /* every step after the first at a_ring_step (a_ring unless pipelined: the difference is then 0 exactly) */
        return steps * (a + b->up_bytes / P / bw) - (steps - 1) * (a - p->a_ring_step) +
               steps * (b->enc_s + b->dec_s) / P + b->host_s;
    }
    case SYNC_TREE: { /* NCCL's double binary tree between nodes, a chain inside each (sg_child.c's tree_exchange) */
        const double G = p->per_node, N = p->nodes, L = p->net.latency_factor, x = p->reverse_load;
        const double first = N > 1 ? p->a_inter : p->a_chain;
        const double hops = 2 * p->tree_depth * p->a_inter + 2 * (G - 1) * p->a_chain;
        /* every link carries as much each way: a leader's NIC its trees' half-buckets; each hop of a chain the bucket
         * up and back (b_chain: where two hops share a link, each gets half) */
        const double nic = N > 1 ? p->tree_half_buckets / 2.0 * b->up_bytes * x / p->b_inter : 0;
        const double chain = G > 1 ? b->up_bytes * x / p->b_chain : 0;
        return b->enc_s + b->dec_s + first + (hops - first) / L + fmax(nic, chain) + b->enc_s / 2 + b->dec_s;
    }
    case SYNC_ALLGATHER: { /* ring all-gather of every encoded contribution */
        a = p->a_ring, bw = p->b_ring / p->reverse_load;
        return b->enc_s + (P - 1) * (a + b->up_bytes / bw) + (P - 1) * b->dec_s;
    }
    }
    return 0;
}

/* PowerSGD's factors: half the encode (M Q), P's all-reduce, the other half (orthogonalisation, M^T P), Q's
 * all-reduce, the decode (P Q^T); each all-reduce the scheme's, of plain floats. */
double sim_bucket_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    if (!p->factors) return sim_scaler_s(p, b) + scheme_comm(c, p, b);
    sim_bucket phase = {0};
    phase.up_bytes = phase.down_bytes = b->up_bytes;
    double t = b->enc_s / 2 + scheme_comm(c, p, &phase) + b->enc_s / 2;
    phase.up_bytes = phase.down_bytes = b->up2_bytes;
    if (b->up2_bytes > 0) t += scheme_comm(c, p, &phase);
    return t + b->dec_s;
}
