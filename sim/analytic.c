/* The alpha-beta engine: every transfer takes latency + bytes / bandwidth of
 * its path's slowest link, as if it had the network to itself (no contention:
 * not at a shared NIC, not at a parameter server's link). It is exact where
 * nothing is shared, and a lower bound elsewhere: the SimGrid engine is the
 * prediction, this is the cross-check (docs/simulation.md#engines). One
 * sharing it does count, as SimGrid's LV08 does: where every link carries a
 * flow in each direction at once (rings, the leaders' all-to-all), each flow
 * shares its link with the ACKs of the one coming the other way. Servers on
 * the host CPU (--ps-on cpu) take the plan's host routes and costs; where
 * the node's GPUs sum first (BytePS), the sum's copy to the host and back;
 * where every GPU pushes its own (TensorFlow's parameter_server), a node's
 * host moves its GPUs' contributions, not their sum. Where the platform
 * says its servers talk gRPC (rpc=), each message costs its sender and its
 * receiver their CPU time, one message after another at each end. */
#include <math.h>
#include <stdlib.h>

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
static void pipeline_stages(const sim_config *c, const sim_plan *p, const sim_bucket *b, double st[5])
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
    const int host = c->ps_on_cpu && c->sync == SYNC_PS_SHARDED; /* the leader's contribution too goes up */
    const int alone = G == 1 && !host && c->sync == SYNC_PS_SHARDED && p->nodes > 1;
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
    switch (c->sync) {
    case SYNC_PS: { /* server on the first GPU of node 0 */
        a = p->a_far, bw = p->b_far;
        double server = P * b->srv_dec_s + b->srv_enc_s + P * rpc; /* and its messages in and out */
        return b->enc_s + rpc + a + b->up_bytes / bw + server + a + b->down_bytes / bw + b->dec_down_s;
    }
    case SYNC_PS_SHARDED:     /* node-local reduce, leaders exchange shards, broadcast */
    case SYNC_HIERARCHICAL: { /* node-local reduce, ring across leaders, broadcast */
        const double N = p->nodes;
        if (c->ps_on_cpu && c->node_sum == NODE_SUM_GPUS && c->sync == SYNC_PS_SHARDED) { /* BytePS: a bucket alone
                                                                                  through the pipeline's stages */
            double st[5];
            pipeline_stages(c, p, b, st);
            return st[0] + st[1] + st[2] + st[3] + st[4];
        }
        double up, down;
        sim_node_local(c, p, b, &up, &down);
        double t = up;
        const double bw_inter = p->b_inter / p->reverse_load; /* every node sends and receives at once */
        if (N > 1 && c->sync == SYNC_PS_SHARDED && p->servers) {
            t += placed_servers(c, p, b, (int)(b - p->b));
        } else if (N > 1 && c->sync == SYNC_PS_SHARDED) {
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

/* The buckets through the pipeline's stages: a stage takes bucket k once it is done with k - 1 and the stage before
 * has passed k on (the first once k is ready). The exchanges' time is the union of the buckets' spans, first
 * stage's start to last stage's end. @return the last bucket's end. */
static double pipeline(const sim_config *c, const sim_plan *p, double *comm_s)
{
    double done[5] = {0, 0, 0, 0, 0}, last_end = 0;
    *comm_s = 0;
    for (int k = 0; k < p->n; k++) {
        double st[5], t = p->b[k].ready_s;
        pipeline_stages(c, p, &p->b[k], st);
        const double start = fmax(t, done[0]);
        for (int j = 0; j < 5; j++) t = done[j] = fmax(t, done[j]) + st[j];
        *comm_s += fmax(0, t - fmax(start, last_end));
        last_end = t;
    }
    return last_end;
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

/* Keeps hi[0] >= hi[1] the two largest values seen and *at where the largest came from, given value v from i. */
static void top_two_add(double hi[2], int *at, double v, int i)
{
    if (v > hi[0])
        hi[1] = hi[0], hi[0] = v, *at = i;
    else if (v > hi[1])
        hi[1] = v;
}

/* The two largest of v[i] over i in 0..n-1 where use(i), and where the largest is: a value's largest over the others
 * is then hi[1] at i == *at, else hi[0]. -inf where none. */
static void top_two(const double *v, int n, const double *use, double hi[2], int *at)
{
    hi[0] = hi[1] = -INFINITY, *at = -1;
    for (int i = 0; i < n; i++)
        if (!use || use[i] > 0) top_two_add(hi, at, v[i], i);
}

/* TensorFlow's placed servers overlapped (plan->pull_forward), one step from its start: every node reads every
 * variable back and forward takes each layer's when it has arrived, its messages have been received (the node's
 * CPU) and it has gone through the node's own part -- a stall where it has not, forward and backward moving later
 * by as much; backward pushes each gradient as it makes it, after the node's own part and its messages' send; a
 * server applies a variable's update once the N contributions are in (decodes, sums, encodes, its messages' CPU);
 * the step ends when every server has applied every update and every node has computed. Each NIC direction serves
 * one message after another, each paying its latency: a server's replies in forward order (all of a variable's
 * copies at once), a node's reads in forward order from once its servers have begun sending, each had once they
 * have ended too; a node's pushes in backward order, a server's share of a gradient from once its first sender has
 * begun to when the last has ended -- the SimGrid engine's flows through the hub (sg_child.c). Each direction also
 * carries, under cross-traffic, the ACKs of what comes the other way in the same variable. */
double sim_pull_forward(const sim_config *c, const sim_plan *p, double *comm_s)
{
    const int N = p->nodes, K = p->servers;
    const double bw = p->b_inter, a = p->a_inter, x = p->reverse_load - 1, snd = c->rpc_send_s, rcv = c->rpc_recv_s;
    const double T = all_pushes(p); /* a variable's readers and its gradient's pushers: nodes, or GPUs (g a node) */
    double *v = calloc(7 * (size_t)N + 2 * (size_t)K, sizeof *v);
    if (!v) return NAN;
    /* a server is a node: its replies and the contributions it takes share that node's NIC directions */
    double *in = v, *out = in + N, *local = out + N, *stall = local + N, *own = stall + N, *arrived = own + N;
    double *cpu = arrived + N, *begun = cpu + N, *apply = begun + K, *srv_out = out, *srv_in = in;
    for (int k = p->n - 1; k >= 0; k--) { /* the reads, in forward order (the buckets are in backward order) */
        const sim_bucket *b = &p->b[k];
        const double *share = p->share + (size_t)k * K, D = b->down_bytes;
        for (int s = 0; s < K; s++)
            if (share[s] > 0) {
                const double g = node_pushes(p, s);
                begun[s] = srv_out[s], srv_out[s] += a + ((T - g) * share[s] * D + x * g * (1 - share[s]) * D) / bw;
            }
        double start[2], end[2];
        int start_at, end_at;
        top_two(begun, K, share, start, &start_at);
        top_two(srv_out, K, share, end, &end_at);
        for (int n = 0; n < N; n++) {
            const double mine = n < K ? share[n] : 0, g = node_pushes(p, n);
            double ready = 0; /* received: its messages taken in by the node's CPU */
            if (mine < 1) {   /* it takes the others' shares from their servers */
                const double from = n == start_at ? start[1] : start[0], until = n == end_at ? end[1] : end[0];
                in[n] = fmax(in[n], from) + a + (g * (1 - mine) * D + x * (T - g) * mine * D) / bw;
                const double arrival = fmax(in[n], until);
                arrived[n] = fmax(arrived[n], arrival);
                ready = cpu[n] = fmax(cpu[n], arrival) + g * placed_sent(p, (size_t)k, n) * rcv;
            }
            local[n] = fmax(local[n], ready) + b->local_down_s;
            stall[n] = fmax(stall[n], local[n] - b->need_s);
        }
    }
    double end = 0;
    for (int n = 0; n < N; n++) end = fmax(end, stall[n] + p->compute_s), cpu[n] = 0;
    for (int k = 0; k < p->n; k++) { /* the pushes, in backward order */
        const sim_bucket *b = &p->b[k];
        const double *share = p->share + (size_t)k * K, *msgs = p->msgs + (size_t)k * K, U = b->up_bytes;
        double first = INFINITY, last = 0; /* the senders' flows: the first begun, the last ended */
        for (int n = 0; n < N; n++) {
            const double mine = n < K ? share[n] : 0, g = node_pushes(p, n);
            own[n] = fmax(own[n], stall[n] + b->ready_s) + b->local_up_s;
            if (mine < 1) { /* its messages sent by its CPU, then on its NIC */
                cpu[n] = fmax(cpu[n], own[n]) + g * placed_sent(p, (size_t)k, n) * snd;
                const double from = fmax(out[n], cpu[n]);
                out[n] = from + a + (g * (1 - mine) * U + x * (T - g) * mine * U) / bw;
                first = fmin(first, from), last = fmax(last, out[n]);
            }
        }
        for (int s = 0; s < K; s++) {
            if (!(share[s] > 0)) continue;
            const double g = node_pushes(p, s);
            srv_in[s] = fmax(srv_in[s], first) + a + ((T - g) * share[s] * U + x * g * (1 - share[s]) * U) / bw;
            apply[s] = fmax(apply[s], fmax(fmax(srv_in[s], last), own[s])) + T * share[s] * b->srv_dec_s +
                       share[s] * b->srv_enc_s + (T - g) * msgs[s] * (rcv + snd);
        }
    }
    double applied = 0;
    for (int s = 0; s < K; s++) applied = fmax(applied, apply[s]);
    *comm_s = 0;
    for (int n = 0; n < N; n++) *comm_s = fmax(*comm_s, arrived[n] + fmax(0, applied - (stall[n] + p->b[0].ready_s)));
    free(v);
    return fmax(end, applied);
}

/* ---- TensorFlow's distributed_replicated (plan->read_in_step): the step as an event queue --------------------- */

/* The jobs of one variable's chain, in order: a node's CPU sends its messages, its NIC pushes; a server's NIC takes
 * the contributions in, it applies the update; its NIC replies once the barrier has passed; a node's NIC reads,
 * its CPU receives, its own part broadcasts the variable to its GPUs. */
enum { RS_SEND, RS_PUSH, RS_IN, RS_APPLY, RS_REPLY, RS_READ, RS_RECV, RS_DOWN };
typedef struct {
    double ready;
    size_t seq;      /* ties go in the order queued: the same answer every run */
    int kind, k, at; /* at: the node or the server */
} rs_job;
typedef struct {
    rs_job *heap;
    size_t n, seq, cap;
    int failed; /* a job could not be queued (no memory): the answer is NaN */
} rs_queue;

static int rs_before(const rs_job *a, const rs_job *b)
{
    return a->ready < b->ready || (a->ready == b->ready && a->seq < b->seq);
}
static void rs_put(rs_queue *q, double ready, int kind, int k, int at)
{
    if (q->n == q->cap) {
        rs_job *more = realloc(q->heap, (2 * q->cap + 64) * sizeof *more);
        if (!more) {
            q->failed = 1;
            return;
        }
        q->heap = more, q->cap = 2 * q->cap + 64;
    }
    size_t i = q->n++;
    const rs_job j = {ready, q->seq++, kind, k, at};
    for (; i > 0 && rs_before(&j, &q->heap[(i - 1) / 2]); i = (i - 1) / 2) q->heap[i] = q->heap[(i - 1) / 2];
    q->heap[i] = j;
}
static rs_job rs_take(rs_queue *q)
{
    const rs_job top = q->heap[0], last = q->heap[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && rs_before(&q->heap[c + 1], &q->heap[c])) c++;
        if (!rs_before(&q->heap[c], &last)) break;
        q->heap[i] = q->heap[c], i = c;
    }
    if (q->n > 0) q->heap[i] = last;
    return top;
}

/* distributed_replicated, one step from its start: each node pushes each gradient as backward makes it (after its
 * own part and its messages' send); a server takes a gradient's contributions in and applies the update once all
 * T are in (as sim_pull_forward); once every server holding the variable has applied, the barrier's two messages
 * (each worker's apply acknowledged, its token to the others: variable_mgr.py's add_sync_queues_and_barrier; its
 * few bytes' CPU not charged) pass and every node reads the variable back: the servers' NICs reply, a node has it
 * once all its servers' replies have ended, its CPU receives the messages and its own part gives it to its GPUs.
 * The step ends when every node has computed and has every variable back. Each resource -- a NIC direction, a
 * node's CPU, a server's apply, a node's own part -- serves its jobs one after another in the order they become
 * ready, so that a node's pushes and, where it serves, its replies share its NIC's way out as they come. */
double sim_read_in_step(const sim_config *c, const sim_plan *p, double *comm_s)
{
    const int N = p->nodes, K = p->servers, nb = p->n;
    const double bw = p->b_inter, a = p->a_inter, x = p->reverse_load - 1, snd = c->rpc_send_s, rcv = c->rpc_recv_s;
    const double T = all_pushes(p);
    const size_t NB = (size_t)nb;
    /* per node when its NIC's two ways, its CPU and its own part (down: the last of which is when it has all back)
     * are next free;
     * per server when its apply is; per bucket its pushes' first start and last end, its applies' last, its
     * barrier's end, its replies' two latest starts and ends; per bucket and node its own part done before the push */
    double *v = calloc(4 * (size_t)N + (size_t)K + 8 * NB + NB * (size_t)N, sizeof *v);
    int *left = calloc(3 * NB, sizeof *left);
    rs_queue q = {NULL, 0, 0, 0, 0};
    if (!v || !left) return free(v), free(left), NAN;
    double *out = v, *in = out + N, *cpu = in + N, *down = cpu + N, *app = down + N;
    double *first = app + K, *last = first + NB, *applied = last + NB, *done = applied + NB;
    double *ybegun = done + NB, *yended = ybegun + 2 * NB, *own = yended + 2 * NB; /* two each a bucket */
    int *pushes_left = left, *applies_left = left + NB, *replies_left = left + 2 * NB;
    int *ybegun_at = malloc(2 * NB * sizeof *ybegun_at), *yended_at = ybegun_at ? ybegun_at + NB : NULL;
    if (!ybegun_at) return free(v), free(left), NAN;
    for (int n = 0; n < N; n++) { /* a node's own part before each push, in backward order */
        double t = 0;
        for (int k = 0; k < nb; k++) own[(size_t)k * N + n] = t = fmax(t, p->b[k].ready_s) + p->b[k].local_up_s;
    }
    for (int k = 0; k < nb; k++) {
        const double *share = p->share + (size_t)k * K;
        first[k] = INFINITY, ybegun[2 * k] = ybegun[2 * k + 1] = yended[2 * k] = yended[2 * k + 1] = -INFINITY;
        ybegun_at[k] = yended_at[k] = -1;
        for (int s = 0; s < K; s++) applies_left[k] += share[s] > 0, replies_left[k] += share[s] > 0;
        for (int n = 0; n < N; n++)
            if (!((n < K ? share[n] : 0) >= 1)) pushes_left[k]++, rs_put(&q, own[(size_t)k * N + n], RS_SEND, k, n);
    }
    while (q.n > 0) {
        const rs_job j = rs_take(&q);
        const int k = j.k, at = j.at;
        const sim_bucket *b = &p->b[k];
        const double *share = p->share + (size_t)k * K;
        const double mine = at < K ? share[at] : 0, g = node_pushes(p, at), U = b->up_bytes, D = b->down_bytes;
        const double sent = g * placed_sent(p, (size_t)k, at);
        double t;
        switch (j.kind) {
        case RS_SEND:
            cpu[at] = fmax(cpu[at], j.ready) + sent * snd;
            rs_put(&q, cpu[at], RS_PUSH, k, at);
            break;
        case RS_PUSH:
            t = fmax(out[at], j.ready);
            out[at] = t + a + (g * (1 - mine) * U + x * (T - g) * mine * U) / bw;
            first[k] = fmin(first[k], t), last[k] = fmax(last[k], out[at]);
            if (--pushes_left[k] == 0)
                for (int s = 0; s < K; s++)
                    if (share[s] > 0) rs_put(&q, first[k], RS_IN, k, s);
            break;
        case RS_IN:
            in[at] = fmax(in[at], j.ready) + a + ((T - g) * mine * U + x * g * (1 - mine) * U) / bw;
            rs_put(&q, fmax(fmax(in[at], last[k]), own[(size_t)k * N + at]), RS_APPLY, k, at);
            break;
        case RS_APPLY:
            app[at] = fmax(app[at], j.ready) + T * mine * b->srv_dec_s + mine * b->srv_enc_s +
                      (T - g) * p->msgs[(size_t)k * K + at] * (rcv + snd);
            applied[k] = fmax(applied[k], app[at]);
            if (--applies_left[k] == 0) {
                done[k] = applied[k] + sim_barrier_s(p);
                for (int s = 0; s < K; s++)
                    if (share[s] > 0) rs_put(&q, done[k], RS_REPLY, k, s);
            }
            break;
        case RS_REPLY:
            t = fmax(j.ready, out[at]); /* after what its NIC already sends */
            out[at] = t + a + ((T - g) * mine * D + x * g * (1 - mine) * D) / bw;
            top_two_add(ybegun + 2 * k, &ybegun_at[k], t, at), top_two_add(yended + 2 * k, &yended_at[k], out[at], at);
            if (--replies_left[k] == 0)
                for (int n = 0; n < N; n++) {
                    const double from = ybegun[2 * k + (n == ybegun_at[k])];
                    if ((n < K ? share[n] : 0) >= 1)
                        rs_put(&q, done[k], RS_DOWN, k, n); /* it holds all of it: nothing to read */
                    else
                        rs_put(&q, from, RS_READ, k, n);
                }
            break;
        case RS_READ:
            in[at] = fmax(in[at], j.ready) + a + (g * (1 - mine) * D + x * (T - g) * mine * D) / bw;
            rs_put(&q, fmax(in[at], yended[2 * k + (at == yended_at[k])]), RS_RECV, k, at);
            break;
        case RS_RECV:
            cpu[at] = fmax(cpu[at], j.ready) + sent * rcv;
            rs_put(&q, cpu[at], RS_DOWN, k, at);
            break;
        default: /* RS_DOWN */ down[at] = fmax(down[at], j.ready) + b->local_down_s; break;
        }
    }
    double end = 0;
    for (int n = 0; n < N; n++) end = fmax(end, down[n]);
    *comm_s = end - p->b[0].ready_s;
    free(v), free(left), free(q.heap), free(ybegun_at);
    return q.failed ? NAN : fmax(end, p->compute_s);
}

gq_err sim_analytic(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap)
{
    (void)msg, (void)cap;
    double *comm = calloc((size_t)p->n, sizeof *comm);
    if (!comm) return GQ_ERR_NOMEM;
    r->encode_s = r->decode_s = r->comm_s = 0;
    for (int k = 0; c->gpus > 1 && k < p->n; k++) {
        comm[k] = sim_bucket_comm(c, p, &p->b[k]);
        r->comm_s += comm[k];
        r->encode_s += p->b[k].enc_s + p->b[k].host_enc_s; /* on the GPUs, or BytePS's host */
        r->decode_s += p->b[k].dec_down_s + p->b[k].host_dec_s;
    }
    if (p->pull_forward) { /* pushes during backward, reads in the next forward or this step: its own timeline */
        r->iteration_s = p->read_in_step ? sim_read_in_step(c, p, &r->comm_s) : sim_pull_forward(c, p, &r->comm_s);
        r->comm_exposed_s = r->iteration_s - p->compute_s;
        if (!isfinite(r->iteration_s)) return free(comm), GQ_ERR_NOMEM;
    } else if (p->pipelined && c->gpus > 1) { /* the stages' own timeline, not one bucket's exchange after another's */
        const double end = pipeline(c, p, &r->comm_s);
        r->iteration_s = fmax(end, p->compute_s);
        r->comm_exposed_s = r->iteration_s - p->compute_s;
    } else {
        r->iteration_s = sim_timeline(p, comm, &r->comm_exposed_s);
    }
    free(comm);
    return GQ_OK;
}
