/* The parameter servers' actors, one bucket from a worker's side, and the servers' own: ps (one server), ps-flat
 * (a shard on every GPU, or HiPress's roots), ps-sharded (the leaders' shards even or placed as TensorFlow places
 * variables, aggregated through a hub; servers on the hosts' CPUs or on machines of their own; BytePS's node sum
 * without the pipeline). */
#include "sg_world.h"

/* Where the platform's servers talk gRPC (rpc=), a message costs its sender c->rpc_send_s and its receiver
 * c->rpc_recv_s of CPU time, one message after another at each end: the sleeps named send and recv below. */
static void ps_worker(sg_world *w, int r, const sim_bucket *b) /* one GPU per actor */
{
    sleep_s(b->enc_s + w->c->rpc_send_s);
    put(w, mbox("pu%d", r), b->up_bytes);
    sg_mailbox_get(mbox("pd%d", r));
    sleep_s(w->c->rpc_recv_s + b->dec_down_s);
}

void ps_server(int argc, char **argv)
{
    (void)argc, (void)argv;
    sg_world *w = ((sg_actor_ctx *)sg_actor_self_get_data())->w;
    sg_comm_t *c = malloc((size_t)w->P * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    for (int it = 0; it < w->iters; it++)
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            for (int r = 0; r < w->R; r++) c[r] = sg_mailbox_get_async(mbox("pu%d", r), &data);
            sg_comm_wait_all(c, (size_t)w->R);
            sleep_s(w->P * (b->srv_dec_s + w->c->rpc_recv_s) + b->srv_enc_s + w->P * w->c->rpc_send_s);
            for (int r = 0; r < w->R; r++) c[r] = put_async(w, mbox("pd%d", r), b->down_bytes);
            sg_comm_wait_all(c, (size_t)w->R);
        }
    free(c);
}

/* ps-flat: every GPU serves 1/P of the bucket. Its P - 1 shards go out while the others' come in, then the replies
 * the same way. No worker starts the next bucket before every server has had this one's shards (each waits for all
 * its replies), so one mailbox a GPU each way matches every message to its bucket. */
static void flat_worker(sg_world *w, int a, const sim_bucket *b)
{
    const int P = w->P;
    const double send = w->c->rpc_send_s, recv = w->c->rpc_recv_s; /* each message, at each end */
    sg_comm_t *c = malloc(2 * (size_t)(P - 1) * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    sleep_s(b->enc_s + (P - 1) * send);
    int n = 0;
    for (int j = 0; j < P; j++)
        if (j != a) c[n++] = put_async(w, mbox("fu%d", j), b->up_bytes / P);
    for (int j = 1; j < P; j++) c[n++] = sg_mailbox_get_async(mbox("fu%d", a), &data);
    sg_comm_wait_all(c, (size_t)n);
    sleep_s((P - 1) * recv + b->srv_dec_s + b->srv_enc_s / P + (P - 1) * send);
    n = 0;
    for (int j = 0; j < P; j++)
        if (j != a) c[n++] = put_async(w, mbox("fd%d", j), b->down_bytes / P);
    for (int j = 1; j < P; j++) c[n++] = sg_mailbox_get_async(mbox("fd%d", a), &data);
    sg_comm_wait_all(c, (size_t)n);
    sleep_s((P - 1) * recv + b->dec_down_s);
    free(c);
}

/* ps-flat with HiPress's roots: GPU a sends each other root its share of the bucket and, a root itself, takes the
 * P - 1 contributions of its own, decodes them, encodes the sum once and replies to all; it then takes the other
 * roots' replies. A GPU moves to the next bucket once every root it sent to has replied, and a root replies once it
 * has every contribution: one mailbox a GPU each way still matches every message to its bucket. */
static void roots_worker(sg_world *w, int a, const sim_bucket *b)
{
    const int P = w->P;
    const double *share = w->plan->share + (size_t)(b - w->plan->b) * P, s = share[a];
    const double send = w->c->rpc_send_s, recv = w->c->rpc_recv_s;
    sg_comm_t *c = malloc(2 * (size_t)(P - 1) * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    int roots = 0;
    for (int j = 0; j < P; j++) roots += j != a && share[j] > 0;
    sleep_s((1 - s) * b->enc_s + roots * send);
    int n = 0;
    for (int j = 0; j < P; j++)
        if (j != a && share[j] > 0) c[n++] = put_async(w, mbox("fu%d", j), share[j] * b->up_bytes);
    for (int j = 1; s > 0 && j < P; j++) c[n++] = sg_mailbox_get_async(mbox("fu%d", a), &data);
    sg_comm_wait_all(c, (size_t)n);
    if (s > 0) sleep_s((P - 1) * (s * b->srv_dec_s + recv + send) + s * b->srv_enc_s);
    n = 0;
    for (int j = 0; s > 0 && j < P; j++)
        if (j != a) c[n++] = put_async(w, mbox("fd%d", j), s * b->down_bytes);
    for (int j = 0; j < roots; j++) c[n++] = sg_mailbox_get_async(mbox("fd%d", a), &data);
    sg_comm_wait_all(c, (size_t)n);
    sleep_s(roots * recv + (1 - s) * b->dec_down_s);
    free(c);
}

/* Every leader sends `bytes` to every other leader and receives as much; with `per_reader`, `bytes` times the
 * receiving node's pushes (node_pushes: its GPUs, each reading its own reply). */
static void all_to_all(sg_world *w, const char *tag, int node, double nbytes, int per_reader)
{
    sg_comm_t *c = malloc(2 * (size_t)w->N * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    int k = 0;
    for (int o = 0; o < w->N; o++)
        if (o != node) c[k++] = put_async(w, mbox("%s%d", tag, o), nbytes * (per_reader ? node_pushes(w->plan, o) : 1));
    for (int o = 0; o < w->N; o++)
        if (o != node) c[k++] = sg_mailbox_get_async(mbox("%s%d", tag, node), &data);
    sg_comm_wait_all(c, (size_t)k);
    free(c);
}

static void leaders_shards(sg_world *w, int node, const sim_bucket *b)
{
    /* every leader is one shard: it sends the other shards (N-1)/N of its node's g contributions (g: node_pushes),
     * they reduce the T contributions, and send back (N-1)/N of the reply g times. Every node's flow to the next
     * carries what the pairs would where nodes are alike; a last node with fewer GPUs pushing its own, the pairs */
    const sim_plan *p = w->plan;
    const double g = node_pushes(p, node), T = all_pushes(p), share = (double)(w->N - 1) / w->N;
    const double sent = g * (w->N - 1), taken = T - g;             /* messages out to the others, and in from them */
    const double send = w->c->rpc_send_s, recv = w->c->rpc_recv_s; /* each message, at each end */
    const int pairs = w->c->run.exact_flows || node_pushes(p, w->N - 1) != node_pushes(p, 0);
    sleep_s(sent * send);
    if (pairs)
        all_to_all(w, "su", node, g * b->up_bytes / w->N, 0);
    else
        send_recv(w, mbox("su%d", (node + 1) % w->N), g * share * b->up_bytes, mbox("su%d", node));
    sleep_s(taken * recv + T / w->N * b->srv_dec_s + b->srv_enc_s / w->N + taken * send);
    if (pairs)
        all_to_all(w, "sd", node, b->down_bytes / w->N, 1);
    else
        send_recv(w, mbox("sd%d", (node + 1) % w->N), g * share * b->down_bytes, mbox("sd%d", node));
    sleep_s(sent * recv);
}

/* A flow into a node from the hub, moved by an actor of its own while the node moves its own flow out; it starts
 * once some sender's flow has (nothing arrives before anything is sent). */
typedef struct {
    sg_world *w;
    hub_state *ph;
    sg_host_t from, to;
    double bytes;
} hub_flow;
static void hub_flow_actor(int argc, char **argv)
{
    (void)argc, (void)argv;
    const hub_flow *f = sg_actor_self_get_data();
    sg_mutex_lock(f->w->lock);
    while (!f->ph->started) sg_cond_wait(f->w->hub_cond, f->w->lock);
    sg_mutex_unlock(f->w->lock);
    sg_host_sendto(f->from, f->to, f->bytes);
    if (++f->ph->in_done == f->ph->servers) sg_cond_notify_all(f->w->hub_cond);
}

/* One phase from one node's side: all it sends (to the servers, or as a server to the workers) as one flow to the
 * hub, all it receives as one flow from the hub, both at once. Every flow of the pairwise exchange crosses its
 * sender's NIC and its receiver's, so each NIC carries the same bytes as there. A pairwise flow ends when the
 * server's NIC has moved all the flows it shares, so the node also waits, as it waited for its flows there, for the
 * servers' flows: pushing, for every server's flow in (`push`: a push is done once received); receiving replies,
 * for every server's flow out (a reply arrives no sooner than its server sends it). What is lost is how max-min
 * fairness splits a NIC between the flows of different pairs: docs/simulation.md compares it with the pairwise
 * exchange (--exact-flows). */
static void hub_phase(sg_world *w, int node, int phase, double out, double in, int servers, int push)
{
    hub_state *ph = &w->hub_phases[phase];
    ph->servers = servers;
    sg_host_t here = sg_host_self();
    hub_flow f = {w, ph, w->hub[node], here, (double)bytes_of(in)};
    sg_actor_t helper = NULL;
    if (in > 0) {
        helper = sg_actor_init("hubin", here);
        sg_actor_set_data(helper, &f);
        sg_actor_ref(helper);
        sg_actor_start(helper, hub_flow_actor, 0, NULL);
        w->flows++;
    }
    if (out > 0) {
        if (!ph->started) ph->started = 1, sg_cond_notify_all(w->hub_cond);
        w->flows += 1; /* the hub's flow, counted as put() counts */
        sg_host_sendto(here, w->hub[node], (double)bytes_of(out));
        if (++ph->out_done == servers && !push) sg_cond_notify_all(w->hub_cond);
    }
    if (helper) {
        sg_actor_join(helper, -1);
        sg_actor_unref(helper);
    }
    /* the servers' flows: in, where this node pushed to them; out, where it takes their replies */
    int *servers_done = push ? &ph->in_done : &ph->out_done;
    if (push ? out > 0 : in > 0) {
        sg_mutex_lock(w->lock);
        while (*servers_done < servers) sg_cond_wait(w->hub_cond, w->lock);
        sg_mutex_unlock(w->lock);
    }
}

/* One phase of the placed servers' exchange from this node's side (push: its shares to the servers and, a server,
 * every node's share of its own; else the replies the other way), through the hub where the platform has one, else
 * one flow per pair. */
static void placed_phase(sg_world *w, int node, size_t k, double bytes, int push)
{
    const int N = w->N, K = w->plan->servers;
    const double *share = w->plan->share + k * K, mine = node < K ? share[node] : 0;
    const double g = node_pushes(w->plan, node), T = all_pushes(w->plan); /* contributions: this node's, all */
    if (w->hub) {
        double others = 0; /* the shares this node sends away, and receives replies for */
        int servers = 0;   /* those that reply */
        for (int s = 0; s < K; s++) others += s != node && share[s] > 0 ? share[s] : 0, servers += share[s] > 0;
        const double away = g * others * bytes, served = mine > 0 ? (T - g) * mine * bytes : 0;
        const int phase = 2 * w->hub_calls[node] + !push;
        w->hub_calls[node] += !push;
        hub_phase(w, node, phase, push ? away : served, push ? served : away, servers, push);
        return;
    }
    sg_comm_t *c = malloc((size_t)(N + K) * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    size_t n = 0;    /* what this node sends is posted first */
    for (int s = 0; push && s < K; s++)
        if (s != node && share[s] > 0) c[n++] = put_async(w, mbox("xu%d.%d", s, node), g * share[s] * bytes);
    for (int o = 0; mine > 0 && o < N; o++)
        if (o != node)
            c[n++] = push ? sg_mailbox_get_async(mbox("xu%d.%d", node, o), &data)
                          : put_async(w, mbox("xd%d.%d", o, node), node_pushes(w->plan, o) * mine * bytes);
    for (int s = 0; !push && s < K; s++)
        if (s != node && share[s] > 0) c[n++] = sg_mailbox_get_async(mbox("xd%d.%d", node, s), &data);
    sg_comm_wait_all(c, n);
    free(c);
}

/* ps-sharded with the plan's servers (nodes 0..K-1) and shares: every leader sends each server its share of the
 * node's contribution (of each of its GPUs' where they push their own); each server decodes the T contributions to
 * its share, encodes its reply and sends it to every leader (every GPU). A leader that serves keeps its own share. */
static void leaders_placed(sg_world *w, int node, const sim_bucket *b)
{
    const int K = w->plan->servers;
    const size_t k = (size_t)(b - w->plan->b);
    const double mine = node < K ? w->plan->share[k * K + node] : 0, *msgs = w->plan->msgs + k * K;
    const double g = node_pushes(w->plan, node), T = all_pushes(w->plan);
    const double send = w->c->rpc_send_s, recv = w->c->rpc_recv_s; /* each message, at each end */
    const double sent = g * placed_sent(w->plan, k, node), served = node < K ? (T - g) * msgs[node] : 0;
    sleep_s(sent * send);
    placed_phase(w, node, k, b->up_bytes, 1);
    sleep_s(served * recv + T * mine * b->srv_dec_s + mine * b->srv_enc_s + served * send);
    placed_phase(w, node, k, b->down_bytes, 0);
    sleep_s(sent * recv);
}

/* ps-sharded on the host CPUs (--ps-on cpu): every GPU of a node, its first too, sends its contribution up to
 * the node's host and waits for the reply; a message to the host's server, or, where every GPU pushes its own
 * (per_gpu_push), its copy to host memory, from where its pushes leave. */
static void to_host(sg_world *w, const sg_actor_ctx *me, const sim_bucket *b)
{
    const int msg = !w->plan->per_gpu_push;
    sleep_s(b->enc_s + msg * w->c->rpc_send_s);
    put(w, mbox("hu%d", me->index), b->up_bytes);
    sg_mailbox_get(mbox("hd%d", me->index));
    sleep_s(msg * w->c->rpc_recv_s + b->dec_down_s);
}

/* The N worker nodes and the M server machines (plan->cpu_machines) exchange alike shares, every node 1/M of its
 * bucket with every machine. On a non-blocking switch L = lcm(N, M) flows load every NIC as the N x M pairs would
 * -- flow f from node f mod N to machine f mod M (and its reply back), N/L of a node's bucket: a node's NIC carries
 * its whole bucket, a machine's N/M of one -- in N flows instead of N^2 where M = N (as leaders_shards' one flow a
 * node; on a fat tree, which pairs cross an uplink is not kept). Node i's flows are i + jN, machine s's s + jM. */
static int gcd_int(int a, int b) { return b ? gcd_int(b, a % b) : a; }
int machine_flows(const sg_world *w) { return w->N / gcd_int(w->N, w->plan->cpu_machines) * w->plan->cpu_machines; }

/* Node `node`'s push of its `bytes` to the machines (times its contributions, node_pushes): its L/N flows at once
 * (c: room for them). */
void machines_push(sg_world *w, int node, double bytes, sg_comm_t *c)
{
    const int per = machine_flows(w) / w->N;
    const double g = node_pushes(w->plan, node);
    for (int j = 0; j < per; j++) c[j] = put_async(w, mbox("cu%d", node + j * w->N), g * bytes / per);
    sg_comm_wait_all(c, (size_t)per);
}

/* Machine s's reply, `bytes` to every node (times its contributions): its L/M flows at once, flow f to node f mod N
 * (c: room for them). */
void machine_replies(sg_world *w, int s, double bytes, sg_comm_t *c)
{
    const int L = machine_flows(w), M = w->plan->cpu_machines, per = L / M;
    for (int j = 0; j < per; j++)
        c[j] = put_async(w, mbox("cd%d", s + j * M), node_pushes(w->plan, (s + j * M) % w->N) * bytes * w->N / L);
    sg_comm_wait_all(c, (size_t)per);
}

/* ps-sharded on the hosts with the servers on machines of their own: this node's host sends its contribution to the
 * machines and takes the reply from them, a message each way a machine (its gRPC costs). */
static void to_cpu_machines(sg_world *w, int node, const sim_bucket *b)
{
    const int M = w->plan->cpu_machines, per = machine_flows(w) / w->N;
    sg_comm_t *c = malloc((size_t)per * sizeof *c);
    void *data;
    if (!c) abort();                             /* the child dies and the parent reports a failed run */
    const double g = node_pushes(w->plan, node); /* its contributions, a message each to every machine */
    sleep_s(g * M * w->c->rpc_send_s);
    machines_push(w, node, b->up_bytes, c);
    for (int j = 0; j < per; j++) c[j] = sg_mailbox_get_async(mbox("cd%d", node + j * w->N), &data);
    sg_comm_wait_all(c, (size_t)per);
    sleep_s(g * M * w->c->rpc_recv_s);
    free(c);
}

/* A server on a machine of its own (its index in me->node): takes in every worker node's share of each bucket,
 * decodes and adds them, encodes its share of the reply and sends it to every node. */
void cpu_server(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int M = w->plan->cpu_machines, s = me->node, per = machine_flows(w) / M;
    const double T = all_pushes(w->plan); /* the contributions it takes a share of: the nodes', or every GPU's */
    sg_comm_t *c = malloc((size_t)per * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    for (int it = 0; it < w->iters; it++)
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            for (int j = 0; j < per; j++) c[j] = sg_mailbox_get_async(mbox("cu%d", s + j * M), &data);
            sg_comm_wait_all(c, (size_t)per);
            sleep_s(T * (w->c->rpc_recv_s + b->srv_dec_s / M) + b->srv_enc_s / M + T * w->c->rpc_send_s);
            machine_replies(w, s, b->down_bytes, c);
        }
    free(c);
}

/* The exchange between the nodes' hosts: with the servers on machines of their own, placed on the nodes, or an
 * even shard a node. */
static void hosts_exchange(sg_world *w, int node, const sim_bucket *b)
{
    (w->plan->cpu_machines ? to_cpu_machines : w->plan->servers ? leaders_placed : leaders_shards)(w, node, b);
}

/* NCCL's ring over this GPU's node (BytePS's reduce-scatter, tag "nr", or all-gather, "na") moving `bytes`: G - 1
 * steps of a G-th as one flow a hop, the other steps' latencies added without the network model's latency factor,
 * which the flow paid (NCCL pipelines them). With servers on the hosts every GPU is an actor: the node's first is
 * its index - its slot. */
void node_ring(sg_world *w, const sg_actor_ctx *me, const char *tag, double bytes)
{
    const int G = me->node_gpus, next = me->index - me->slot + (me->slot + 1) % G;
    if (G < 2) return;
    send_recv(w, mbox("%s%d", tag, next), (G - 1) * bytes / G, mbox("%s%d", tag, me->index));
    sleep_s((G - 2) * w->plan->a_node_ring / w->plan->net.latency_factor);
}

/* BytePS on one machine (across machines, the pipeline's actors below): the reduce-scatter, then the all-gather. */
static void node_sum_bucket(sg_world *w, const sg_actor_ctx *me, const sim_bucket *b)
{
    node_ring(w, me, "nr", b->node_bytes);
    node_ring(w, me, "na", b->node_bytes);
}

/* A node's host CPU as its server: takes in the node's GPUs' contributions (their indices first .. first +
 * node_gpus - 1), sums them, exchanges shards with the other hosts as the leaders would, replies. Where every GPU
 * pushes its own (per_gpu_push) it sums nothing: it moves its GPUs' pushes and their replies, all of them at
 * once, and serves its shares of every GPU's. */
void host_server(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int first = me->followers, G = me->node_gpus;
    sg_comm_t *c = malloc((size_t)G * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    for (int it = 0; it < w->iters; it++)
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            for (int g = 0; g < G; g++) c[g] = sg_mailbox_get_async(mbox("hu%d", first + g), &data);
            sg_comm_wait_all(c, (size_t)G);
            if (!w->plan->per_gpu_push) sleep_s(G * (b->srv_dec_s + w->c->rpc_recv_s));
            if (w->N > 1) hosts_exchange(w, me->node, b);
            if (!w->plan->per_gpu_push) sleep_s(b->srv_enc_s + G * w->c->rpc_send_s);
            for (int g = 0; g < G; g++) c[g] = put_async(w, mbox("hd%d", first + g), b->down_bytes);
            sg_comm_wait_all(c, (size_t)G);
        }
    free(c);
}

/* ---- the parameter servers: ps, ps-sharded, ps-flat, one bucket each ----------------------------------------- */

void ps_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b) { ps_worker(w, me->index, b); }

void ps_flat_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    (w->plan->servers ? roots_worker : flat_worker)(w, me->index, b);
}

/* ps-sharded: BytePS's push-pull, the GPUs' messages to their host's servers, or the node's reduce, the leaders'
 * shards (even, or placed as TensorFlow places variables) and the broadcast */
void ps_sharded_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    if (w->c->run.ps_on_cpu && w->c->run.node_sum == NODE_SUM_GPUS)
        node_sum_bucket(w, me, b);
    else if (w->c->run.ps_on_cpu)
        to_host(w, me, b);
    else
        node_reduce_bcast(w, me, b, w->plan->servers ? leaders_placed : leaders_shards);
}
