/* The SimGrid engine's child side, a module of its own (gqsim-simgrid.so):
 * one actor per GPU -- or, on a generated uniform platform, per node one for
 * the first GPU and one for the others, which behave alike; or, where those
 * only meet the first GPU (the leaders' schemes), one actor per node moving
 * their flows from their host (sg_host_sendto; the first flow of each size,
 * the others taking as long) -- and one per
 * parameter server where there is one walks the plan's buckets: it waits
 * until a bucket is ready, spends the encode time, moves the real encoded
 * byte counts through the platform's links with SimGrid's flow model, spends
 * the decode time. Compute is the plan's timeline (every GPU is identical),
 * so actors only sleep through it. Flows are aggregated where the aggregate
 * is exact on a uniform fabric: a ring is one flow per hop carrying all its
 * steps, with the other steps' latencies added; the sharded exchange between
 * node leaders is one flow per node carrying what that node sends to all
 * other shards, which loads every NIC exactly as the full all-to-all does on
 * a non-blocking switch. Only the forked child of sg_engine.c loads this
 * module, and with it SimGrid and ns-3: a gqsim that does not run the
 * SimGrid engine never pays for loading them. It calls nothing of gqsim's
 * own, only SimGrid; what it needs comes in its arguments. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_names.h"
#include "sim_internal.h"

/* ---- the world of one run, which every actor reaches through its data ------------------ */

/* How long a folded stand-in's flow of `bytes` took, up (to the leader) or down (folded_flow). */
typedef struct {
    long bytes;
    int down;
    double s; /* < 0 while the first such flow is under way */
} flow_took;

typedef struct {
    const sim_config *c;
    const sim_plan *plan;
    int P, G, N, iters; /* GPUs, GPUs per node, nodes, iterations */
    int R;              /* worker actors: P, or fewer where one stands for several GPUs */
    double *end;        /* per actor: end of its last iteration */
    double *comm;       /* per actor: its time in exchanges, bucket after bucket, over all iterations */
    int token;          /* the payload pointed to: only the byte count is simulated */
    flow_took *took;    /* the folded stand-ins' flows by size: 4 a bucket at most, up and down for full nodes */
    int ntook;          /* and a last one partly used */
    sg_mutex_t lock;
    sg_cond_t took_done;          /* notified as each first flow of a size ends */
    long flows;                   /* flows moved, the count of the engine's work that tests bound (sim_result.flows) */
    sg_host_t *hub;               /* the placed servers' flows aggregated (placed_phase): each node's hub, else NULL */
    struct hub_state *hub_phases; /* and its phases, in the order every node runs them */
    int *hub_calls;               /* per node: its leaders_placed calls so far */
    sg_cond_t hub_cond;           /* notified as a phase's first sender starts and its last one ends */
    /* BytePS's pipeline (plan->pipelined): per GPU actor its buckets' starts in the current iteration and the
     * semaphore its down actor posts as it ends one; per node, its host's pushes done (its own server may sum) */
    double *pipe_start;
    sg_sem_t *pipe_iter, *pipe_own;
    void *pipe_sink; /* where the pipeline's gets, which outlive the call that posts them, put the payload pointer */
    /* TensorFlow's placed servers overlapped (plan->pull_forward): the step's end, which every node and server
     * reaches; per node and bucket when the node's own part of its gradient is done (its server waits for it) and
     * the iteration that set it; the last update applied in the step */
    sg_bar_t pf_step;
    double *pf_own;
    int *pf_own_it;
    double pf_applied;
    sg_cond_t *pf_cond;        /* per bucket: an actor waits on its bucket's alone, woken only by progress there */
    struct pf_hub *pf_hub;     /* its flows' progress through the hub, where there is one */
    int *pf_held_at, *pf_held; /* per bucket k, its servers (a share > 0): pf_held[pf_held_at[k] .. pf_held_at[k+1]) */
    int *pf_senders;           /* per bucket, the nodes that push some of it (not holding all of it) */
    /* read_in_step (distributed_replicated): per node its CPU's clock, which its pushes' sends and its reads'
     * receives share; per bucket the last of its servers' applies in the current step (the iteration that set it)
     * and the applies so far over all steps */
    double *rs_cpu, *rs_applied;
    int *rs_applied_it, *rs_applies;
    /* TernGrad's shared scaler (scaler_rounds), two sets by the parity of a node's calls: when each node entered, when
     * it leaves, how many are in, how many all-reduces have ended; per node its calls; scratch for rd_finish */
    double *sc_at[2], *sc_left[2], *sc_v;
    int sc_in[2], *sc_calls;
    long sc_done[2];
    sg_cond_t sc_cond;
} sg_world;

/* A worker actor: one GPU, or (on a generated, uniform platform, in a ring or all-gather) the hops of a node's other
 * GPUs, alike and disjoint, as one actor (NODE_GROUPED); a ring's hops carry the same bytes whoever makes them. */
typedef struct {
    sg_world *w;
    int index;     /* 0 .. R-1, the ring position; R: the parameter server */
    int node;      /* the node it runs on */
    int slot;      /* its host on that node: n<node>g<slot>; slot 0 is the node's leader */
    int node_gpus; /* GPUs in use on its node */
    int followers; /* leader: the node's other actors, indices index+1 .. index+followers */
    /* NODE_FOLDED: a leader's node's other GPUs (node_gpus - 1), drawn as one host without an actor of its own; the
     * leader moves their flows and keeps the clock their actor would have had (`clock`, and `t0` its iteration's
     * start) */
    struct {
        sg_host_t host; /* NULL: none */
        double clock, t0;
    } folded;
} sg_actor_ctx;

static sg_mailbox_t mbox(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static sg_mailbox_t mbox(const char *fmt, ...)
{
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return sg_mailbox_by_name(name);
}

static void sleep_s(double s)
{
    if (s > 0) sg_actor_sleep_for(s);
}
static void sleep_until(double t) { sleep_s(t - simgrid_get_clock()); }
static long bytes_of(double b) { return b < 1 ? 1 : (long)(b + 0.5); }

/* Every flow starts here, counted. */
static sg_comm_t put_async(sg_world *w, sg_mailbox_t to, double bytes)
{
    w->flows++;
    return sg_mailbox_put_async(to, &w->token, bytes_of(bytes));
}
static void put(sg_world *w, sg_mailbox_t to, double bytes)
{
    w->flows++;
    sg_mailbox_put(to, &w->token, bytes_of(bytes));
}

/* A folded stand-in's flow between its host and its leader's. It is alone on its node's links (its leader waits for
 * it, and no other flow reaches the node meanwhile), so every such flow of one size and direction takes as long:
 * the first of each is moved, and the others take as long as it did -- those started while it is under way wait
 * for it to end, which is no later than theirs would. Moving them all cost O(nodes^2): SimGrid 3.32 files every
 * host-to-host comm in one list (its maestro's) and searches that list end to end as each one ends. */
static void folded_flow(sg_world *w, sg_host_t from, sg_host_t to, long bytes, int down)
{
    const double t0 = simgrid_get_clock();
    int k = 0;
    while (k < w->ntook && !(w->took[k].bytes == bytes && w->took[k].down == down)) k++;
    if (k == w->ntook) {
        if (k == 4 * w->plan->n) abort(); /* cannot be: see took */
        /* filed before any simcall, so that the leaders who come next at the same time find it */
        w->took[w->ntook++] = (flow_took){bytes, down, -1};
        w->flows += 1; /* as put() counts */
        sg_host_sendto(from, to, (double)bytes);
        w->took[k].s = simgrid_get_clock() - t0;
        sg_cond_notify_all(w->took_done);
        return;
    }
    if (w->took[k].s >= 0) {
        sleep_s(w->took[k].s);
        return;
    }
    sg_mutex_lock(w->lock);
    while (w->took[k].s < 0) sg_cond_wait(w->took_done, w->lock);
    sg_mutex_unlock(w->lock);
    sleep_until(t0 + w->took[k].s);
}

static void send_recv(sg_world *w, sg_mailbox_t to, double nbytes, sg_mailbox_t from)
{
    sg_comm_t c[2];
    c[0] = put_async(w, to, nbytes);
    void *data;
    c[1] = sg_mailbox_get_async(from, &data);
    sg_comm_wait_all(c, 2);
}

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

/* Recursive doubling between the n nodes' first GPUs (sim_rd_rounds), node i entering at t[i], each message taking
 * mu: beyond the largest power of two m <= n, each of the first 2(n - m) nodes that is even hands its value to the
 * next first (their message starts once both are there) and takes the result back from it last; the m others
 * exchange with the one whose rank among them differs in one bit, a bit a round, each round's pair of messages
 * starting once both have ended the one before. f[i]: when node i has the result; v: m doubles of scratch. */
static void rd_finish(const double *t, double *f, int n, double mu, double *v)
{
    const int m = sim_rd_pow2(n), rem = n - m;
    for (int r = 0; r < m; r++) v[r] = r < rem ? fmax(t[2 * r], t[2 * r + 1]) + mu : t[r + rem];
    for (int bit = 1; bit < m; bit <<= 1)
        for (int r = 0; r < m; r++)
            if (r < (r ^ bit)) v[r] = v[r ^ bit] = fmax(v[r], v[r ^ bit]) + mu;
    for (int i = 0; i < n; i++) f[i] = i < 2 * rem ? v[i / 2] + mu : v[i - rem];
}

/* The nodes' first GPUs all-reduce the scaler: each enters when it gets here; once the last has, the rounds' times
 * follow from when each entered (rd_finish) at the plan's message time between nodes -- the messages carry a few
 * bytes, so sharing a link with a gradient's flow costs them nothing measurable, and their latencies are the whole
 * of it -- and each node leaves when its result is in. Times, not flows: 4096 nodes make 49,152 messages a bucket
 * (16384 GPUs of 4 took 17 s as flows, 1.5-2.1 s so). Two sets of slots, by the parity of a node's calls: a node
 * cannot begin its call after next before every node has left this one. */
static void scaler_rounds(sg_world *w, int node, double bytes)
{
    const int g = w->sc_calls[node]++ & 1;
    sg_mutex_lock(w->lock);
    w->sc_at[g][node] = simgrid_get_clock();
    if (++w->sc_in[g] == w->N) {
        w->sc_in[g] = 0;
        rd_finish(w->sc_at[g], w->sc_left[g], w->N, w->plan->a_inter + bytes / w->plan->b_inter, w->sc_v);
        w->sc_done[g]++;
        sg_cond_notify_all(w->sc_cond);
    } else {
        const long want = w->sc_done[g] + 1;
        while (w->sc_done[g] < want) sg_cond_wait(w->sc_cond, w->lock);
    }
    const double leave = w->sc_left[g][node];
    sg_mutex_unlock(w->lock);
    sleep_until(leave);
}

/* TernGrad's shared scaler before a bucket's encode (sim_scaler_s): the node's GPUs' maxima to its first GPU, the
 * nodes' all-reduced, the result back. A folded node's other GPUs are alone on its links: their message each way
 * is its latency and bytes. */
static void scaler_allreduce(sg_world *w, const sg_actor_ctx *me, double bytes)
{
    if (me->slot > 0) {
        put(w, mbox("sc%d", me->node), bytes);
        sg_mailbox_get(mbox("sb%d", me->index));
        return;
    }
    const double folded = me->folded.host ? w->plan->a_intra + bytes / w->plan->b_intra : 0;
    sg_comm_t *c = me->followers ? malloc((size_t)me->followers * sizeof *c) : NULL;
    void *data;
    if (me->followers && !c) abort(); /* the child dies and the parent reports a failed run */
    for (int l = 0; l < me->followers; l++) c[l] = sg_mailbox_get_async(mbox("sc%d", me->node), &data);
    sg_comm_wait_all(c, (size_t)me->followers);
    sleep_s(folded);
    if (w->N > 1) scaler_rounds(w, me->node, bytes);
    sleep_s(folded);
    for (int l = 0; l < me->followers; l++) c[l] = put_async(w, mbox("sb%d", me->index + 1 + l), bytes);
    sg_comm_wait_all(c, (size_t)me->followers);
    free(c);
}

/* ---- schemes, one bucket ------------------------------------------------------------------ */

/* Where the platform's servers talk gRPC (rpc=), a message costs its sender c->rpc_send_s and its receiver
 * c->rpc_recv_s of CPU time, one message after another at each end: the sleeps named send and recv below. */
static void ps_worker(sg_world *w, int r, const sim_bucket *b) /* one GPU per actor */
{
    sleep_s(b->enc_s + w->c->rpc_send_s);
    put(w, mbox("pu%d", r), b->up_bytes);
    sg_mailbox_get(mbox("pd%d", r));
    sleep_s(w->c->rpc_recv_s + b->dec_down_s);
}

static void ps_server(int argc, char **argv)
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

/* Node-local reduce to the leader (the node's first GPU) and broadcast back,
 * around `inter` (what the leaders do among themselves). Where a node's
 * other GPUs are folded into one host, the leader moves their sum in one flow
 * (their flows would share its link); otherwise each GPU is an actor. */
static void node_reduce_bcast(sg_world *w, sg_actor_ctx *me, const sim_bucket *b,
                              void (*inter)(sg_world *w, int node, const sim_bucket *b))
{
    const int a = me->index, here = me->node_gpus;
    if (me->slot != 0) {
        sleep_s(b->enc_s);
        put(w, mbox("lu%d", a), b->up_bytes);
        sg_mailbox_get(mbox("ld%d", a));
        sleep_s(b->dec_down_s);
        return;
    }
    sg_comm_t *c = malloc((size_t)(me->followers + 1) * sizeof *c);
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    if (here > 1) {
        sleep_s(b->enc_s);
        if (me->folded.host) {
            /* the others' put, posted once they have encoded from where their clock is: as with a mailbox, the
             * flow starts when both ends are there */
            sleep_until(fmax(me->folded.clock, me->folded.t0 + b->ready_s) + b->enc_s);
            folded_flow(w, me->folded.host, sg_host_self(), bytes_of((here - 1) * b->up_bytes), 0);
        } else {
            for (int l = 0; l < me->followers; l++) c[l] = sg_mailbox_get_async(mbox("lu%d", a + 1 + l), &data);
            sg_comm_wait_all(c, (size_t)me->followers);
        }
        sleep_s((here - 1) * b->dec_s);
    }
    /* one GPU a node sends the servers its own encoded contribution and decodes their reply (a ring across leaders
     * encodes and decodes its steps) */
    const int alone = here == 1 && w->N > 1 && w->c->run.sync == SYNC_PS_SHARDED;
    if (alone) sleep_s(b->enc_s);
    if (w->N > 1) inter(w, me->node, b);
    if (alone) sleep_s(b->dec_down_s);
    if (here > 1) {
        sleep_s(b->enc_down_s);
        if (me->folded.host) {
            folded_flow(w, sg_host_self(), me->folded.host, bytes_of((here - 1) * b->down_bytes), 1);
            me->folded.clock = simgrid_get_clock() + b->dec_down_s; /* they decode the reply */
        } else {
            for (int l = 0; l < me->followers; l++) c[l] = put_async(w, mbox("ld%d", a + 1 + l), b->down_bytes);
            sg_comm_wait_all(c, (size_t)me->followers);
        }
    }
    free(c);
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

/* The placed servers' exchange aggregated at the hub: one phase (a bucket's push or its replies) in the order every
 * node runs them, phase = 2 x the node's count of leaders_placed calls + 0 (push) or 1 (replies). */
typedef struct hub_state {
    int started;           /* a sender's flow to the hub is under way: the receivers' flows from it may start */
    int out_done, in_done; /* senders whose flow to the hub has ended; receivers whose flow from it has */
    int servers;           /* the phase's servers: the push's receivers, the replies' senders */
} hub_state;

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
static int machine_flows(const sg_world *w)
{
    return w->N / gcd_int(w->N, w->plan->cpu_machines) * w->plan->cpu_machines;
}

/* Node `node`'s push of its `bytes` to the machines (times its contributions, node_pushes): its L/N flows at once
 * (c: room for them). */
static void machines_push(sg_world *w, int node, double bytes, sg_comm_t *c)
{
    const int per = machine_flows(w) / w->N;
    const double g = node_pushes(w->plan, node);
    for (int j = 0; j < per; j++) c[j] = put_async(w, mbox("cu%d", node + j * w->N), g * bytes / per);
    sg_comm_wait_all(c, (size_t)per);
}

/* Machine s's reply, `bytes` to every node (times its contributions): its L/M flows at once, flow f to node f mod N
 * (c: room for them). */
static void machine_replies(sg_world *w, int s, double bytes, sg_comm_t *c)
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
static void cpu_server(int argc, char **argv)
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
static void node_ring(sg_world *w, const sg_actor_ctx *me, const char *tag, double bytes)
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
static void host_server(int argc, char **argv)
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

/* tree (NCCL's): inside a node a chain of its GPUs, the first (the leader) in both of the nodes' binary trees
 * (tree_links); a bucket's half goes up each tree, summed on the way, and comes back down. NCCL pipelines it in
 * chunks, so, as a ring's hops, every edge is one flow each way carrying all its bytes at once, the pipeline's other
 * hop latencies added: 2 x depth between nodes, 2 x (GPUs - 1) along the chains, the first of them paid by the flows
 * (at the model's latency factor; the rest without, the connections being open). Every partial sum is re-quantized
 * on its way up, as a ring's are (a root the half it broadcasts): the codec's work before and after. */
static void tree_exchange(sg_world *w, const sg_actor_ctx *me, const sim_bucket *b)
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
    const double L = w->plan->net.latency_factor, depth = w->plan->tree_depth;
    const double first = w->N > 1 ? w->plan->a_inter : w->plan->a_chain;
    const double hops = 2 * depth * w->plan->a_inter + 2 * (w->G - 1) * w->plan->a_chain;
    sleep_s(hops / L - first / L + b->enc_s / 2 + b->dec_s);
}

/* One bucket's exchange in the run's scheme, from this worker's side: rings' hop sizes and step counts are the P
 * GPUs' ring; the actors are its hops, one per GPU or one per run of GPUs whose hops are alike and disjoint (see
 * sim_simgrid). */
static void exchange_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
    const int a = me->index, R = w->R;
    const double a_hop = w->plan->a_ring;
    switch (w->c->run.sync) {
    case SYNC_PS: ps_worker(w, a, b); break;
    case SYNC_PS_FLAT: (w->plan->servers ? roots_worker : flat_worker)(w, a, b); break;
    case SYNC_PS_SHARDED:
        if (w->c->run.ps_on_cpu && w->c->run.node_sum == NODE_SUM_GPUS)
            node_sum_bucket(w, me, b);
        else if (w->c->run.ps_on_cpu)
            to_host(w, me, b);
        else
            node_reduce_bcast(w, me, b, w->plan->servers ? leaders_placed : leaders_shards);
        break;
    case SYNC_HIERARCHICAL: node_reduce_bcast(w, me, b, leaders_ring); break;
    case SYNC_RING: {
        double steps = 2.0 * (w->P - 1);
        sleep_s(b->host_s); /* staged through host memory: copies and the CPU's sums (0 on the GPUs) */
        if (w->c->run.exact_flows) {
            ring_steps(w, "rg", a, R, b->up_bytes / w->P, steps, (b->enc_s + b->dec_s) / w->P);
            break;
        }
        ring_exchange(w, "rg", a, R, steps / w->P * b->up_bytes, w->plan->a_ring_step, steps);
        sleep_s(steps * (b->enc_s + b->dec_s) / w->P);
        break;
    }
    case SYNC_TREE: tree_exchange(w, me, b); break;
    case SYNC_ALLGATHER:
        sleep_s(b->enc_s);
        if (w->c->run.exact_flows) {
            ring_steps(w, "ag", a, R, b->up_bytes, w->P - 1, b->dec_s);
            break;
        }
        ring_exchange(w, "ag", a, R, (w->P - 1) * b->up_bytes, a_hop, w->P - 1);
        sleep_s((w->P - 1) * b->dec_s);
        break;
    }
}

/* ---- BytePS's pipeline: five stages, an actor each (per GPU two, per host three), each walking the buckets in
 * order; every receiver posts its gets for a whole iteration at its start, so that a sender's flow starts when the
 * sender is ready and a stage waits only for its own input (analytic.c's pipeline() is the same timeline). */

/* Posts the gets of one iteration: `per` a bucket, from mailboxes named by name(k's j-th). */
static sg_comm_t *pipe_gets(sg_world *w, int per, sg_mailbox_t (*name)(const sg_actor_ctx *, int),
                            const sg_actor_ctx *me)
{
    sg_comm_t *c = malloc((size_t)w->plan->n * (size_t)per * sizeof *c);
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    for (int k = 0; k < w->plan->n; k++)
        for (int j = 0; j < per; j++) c[k * per + j] = sg_mailbox_get_async(name(me, j), &w->pipe_sink);
    return c;
}

static sg_mailbox_t copy_down_box(const sg_actor_ctx *me, int j) { return (void)j, mbox("hd%d", me->index); }
static sg_mailbox_t copy_up_box(const sg_actor_ctx *me, int g) { return mbox("hu%d", me->followers + g); }
static sg_mailbox_t shares_in_box(const sg_actor_ctx *me, int j) { return (void)j, mbox("su%d", me->node); }
static sg_mailbox_t replies_in_box(const sg_actor_ctx *me, int s)
{
    return me->w->plan->cpu_machines ? mbox("cd%d", me->node + s * me->w->N) : mbox("sd%d", me->node);
}
static sg_mailbox_t machine_in_box(const sg_actor_ctx *me, int j)
{
    return mbox("cu%d", me->node + j * me->w->plan->cpu_machines);
}

/* The GPUs' first stage: each bucket when backward has made it, the reduce-scatter over the node's ring, this GPU's
 * slice of the sum copied to the host; the next iteration once this GPU's down actor has ended this one. */
static void pipe_up(sg_world *w, sg_actor_ctx *me)
{
    const int G = me->node_gpus, a = me->index;
    for (int it = 0; it < w->iters; it++) {
        const double t0 = simgrid_get_clock();
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sleep_until(t0 + b->ready_s);
            w->pipe_start[(size_t)a * w->plan->n + k] = simgrid_get_clock();
            node_ring(w, me, "nr", b->node_bytes);
            put(w, mbox("hu%d", a), b->node_bytes / G);
        }
        sleep_until(t0 + w->plan->compute_s);
        sg_sem_acquire(w->pipe_iter[a]);
    }
    w->end[a] = simgrid_get_clock();
}

/* The GPUs' last stage: this GPU's slice of the reply from the host, the all-gather; the exchanges' time the union
 * of the buckets' spans. */
static void pipe_down(int argc, char **argv)
{
    (void)argc, (void)argv;
    sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int a = me->index;
    for (int it = 0; it < w->iters; it++) {
        sg_comm_t *in = pipe_gets(w, 1, copy_down_box, me);
        double last_end = 0;
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sg_comm_wait(in[k]);
            node_ring(w, me, "na", b->node_bytes);
            const double end = simgrid_get_clock(), start = w->pipe_start[(size_t)a * w->plan->n + k];
            w->comm[a] += fmax(0, end - fmax(start, last_end));
            last_end = end;
        }
        free(in);
        sg_sem_release(w->pipe_iter[a]);
    }
}

/* The host's push: the node's slices of a bucket in, the encode, the push (to every other node's server, one flow
 * to the next node carrying them all, as leaders_shards; or 1/M to each server machine). */
static void pipe_push(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int G = me->node_gpus, N = w->N, M = w->plan->cpu_machines, per = M ? machine_flows(w) / N : 1;
    sg_comm_t *out = malloc((size_t)per * sizeof *out);
    if (!out) abort();
    for (int it = 0; it < w->iters; it++) {
        sg_comm_t *in = pipe_gets(w, G, copy_up_box, me);
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sg_comm_wait_all(in + (size_t)k * G, (size_t)G);
            sleep_s(b->host_enc_s);
            if (M) {
                sleep_s(M * w->c->rpc_send_s);
                machines_push(w, me->node, b->up_bytes, out);
            } else {
                sleep_s((N - 1) * w->c->rpc_send_s);
                put(w, mbox("su%d", (me->node + 1) % N), (N - 1.0) / N * b->up_bytes);
                sg_sem_release(w->pipe_own[me->node]);
            }
        }
        free(in);
    }
    free(out);
}

/* A server on a worker node's host: the other nodes' shares of a bucket in (one flow from the previous node), once
 * its own node has pushed, the sums, the reply to every other node (one flow to the next). */
static void pipe_server(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int N = w->N;
    const double others = N - 1, send = w->c->rpc_send_s, recv = w->c->rpc_recv_s;
    for (int it = 0; it < w->iters; it++) {
        sg_comm_t *in = pipe_gets(w, 1, shares_in_box, me);
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sg_comm_wait(in[k]);
            sg_sem_acquire(w->pipe_own[me->node]);
            sleep_s(others * recv + b->srv_dec_s + b->srv_enc_s / N + others * send);
            put(w, mbox("sd%d", (me->node + 1) % N), others / N * b->down_bytes);
        }
        free(in);
    }
}

/* A server on a machine of its own (index me->node): every node's share of a bucket in, the sums, a reply to each. */
static void pipe_machine(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int N = w->N, M = w->plan->cpu_machines, per = machine_flows(w) / M;
    sg_comm_t *out = malloc((size_t)per * sizeof *out);
    if (!out) abort();
    for (int it = 0; it < w->iters; it++) {
        sg_comm_t *in = pipe_gets(w, per, machine_in_box, me);
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sg_comm_wait_all(in + (size_t)k * per, (size_t)per);
            sleep_s(N * (w->c->rpc_recv_s + b->srv_dec_s / M) + b->srv_enc_s / M + N * w->c->rpc_send_s);
            machine_replies(w, me->node, b->down_bytes, out);
        }
        free(in);
    }
    free(out);
}

/* The host's pull: the replies to a bucket in (from the previous node's flow, or 1/M from each server machine), the
 * decode, each GPU's slice copied down. */
static void pipe_pull(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int G = me->node_gpus, N = w->N, M = w->plan->cpu_machines, per = M ? machine_flows(w) / N : 1;
    sg_comm_t *out = malloc((size_t)G * sizeof *out);
    if (!out) abort();
    for (int it = 0; it < w->iters; it++) {
        sg_comm_t *in = pipe_gets(w, per, replies_in_box, me);
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sg_comm_wait_all(in + (size_t)k * per, (size_t)per);
            sleep_s((M ? M : N - 1) * w->c->rpc_recv_s + b->host_dec_s);
            for (int g = 0; g < G; g++) out[g] = put_async(w, mbox("hd%d", me->followers + g), b->node_bytes / G);
            sg_comm_wait_all(out, (size_t)G);
        }
        free(in);
    }
    free(out);
}

static void worker(int argc, char **argv)
{
    (void)argc, (void)argv;
    sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int a = me->index;
    if (w->plan->pipelined) {
        pipe_up(w, me);
        return;
    }
    for (int it = 0; it < w->iters; it++) {
        double t0 = simgrid_get_clock();
        me->folded.t0 = me->folded.clock;
        for (int k = 0; w->P > 1 && k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sleep_until(t0 + b->ready_s);
            const double exchange0 = simgrid_get_clock();
            if (w->plan->factors) {
                /* PowerSGD: half the encode, P's all-reduce, the other half, Q's all-reduce, the decode; each
                 * all-reduce the scheme's own of plain floats */
                sim_bucket phase = {0};
                phase.ready_s = b->ready_s;
                phase.up_bytes = phase.down_bytes = b->up_bytes;
                sleep_s(b->enc_s / 2);
                exchange_bucket(w, me, &phase);
                sleep_s(b->enc_s / 2);
                phase.up_bytes = phase.down_bytes = b->up2_bytes;
                if (b->up2_bytes > 0) exchange_bucket(w, me, &phase);
                sleep_s(b->dec_s);
            } else {
                if (b->scaler_bytes > 0) scaler_allreduce(w, me, b->scaler_bytes);
                exchange_bucket(w, me, b);
            }
            w->comm[a] += simgrid_get_clock() - exchange0;
        }
        sleep_until(t0 + w->plan->compute_s);
        me->folded.clock = fmax(me->folded.clock, me->folded.t0 + w->plan->compute_s);
    }
    w->end[a] = fmax(simgrid_get_clock(), me->folded.host ? me->folded.clock : 0);
}

/* ---- TensorFlow's placed servers overlapped (plan->pull_forward): an actor a node, an actor a server ---------- */

/* Waits until *count, a counter of bucket k's, reaches `want` (another actor's progress, notified on the bucket's
 * pf_cond). */
static void pf_wait(sg_world *w, int k, const int *count, int want)
{
    sg_mutex_lock(w->lock);
    while (*count < want) sg_cond_wait(w->pf_cond[k], w->lock);
    sg_mutex_unlock(w->lock);
}
static void pf_bump(sg_world *w, int k, int *count)
{
    sg_mutex_lock(w->lock);
    ++*count;
    sg_cond_notify_all(w->pf_cond[k]);
    sg_mutex_unlock(w->lock);
}

/* Where the platform has a hub (a star), a node's reads and a server's replies meet there, as the placed servers'
 * phases do (hub_phase): a server sends each of its variables once to the hub, (N - 1) copies of its share, one
 * variable after another in forward order; a node takes each variable from the hub, one after another in forward
 * order, from once its servers have begun to send it, and has it once their flows too have ended. Pushes the other
 * way: a node sends each gradient's shares to the hub as one flow, in backward order, without waiting for the
 * servers; a server takes its share of every node's from the hub as one flow from once the first has begun, and
 * applies once every node's flow and its own have ended. Each NIC direction then carries one flow at a time, as
 * many bytes as the pairs would, and the NICs' time is the analytic engine's queues'. Elsewhere (a fat tree, a
 * user's platform, --exact-flows) every read and push is a flow of its own between the pair, all a step's reads
 * asked at once (TensorFlow's RecvTensor calls) and each push sent when made, sharing the links as they come:
 * exact, and slow where the pairs are many (docs/simulation.md). */
typedef struct pf_hub {
    int *pull_started, *pull_ended; /* per bucket and server: the server's flow to the hub, over all steps */
    int *push_started, *push_ended; /* per bucket: nodes' flows to the hub, over all steps */
} pf_hub_t;

/* Through the hub: server srv sends its copies of bucket k's update (`bytes`) to the hub of its node as one flow,
 * the readers told when it begins and when it ends. */
static void hub_reply(sg_world *w, int srv, int k, double bytes)
{
    pf_hub_t *h = w->pf_hub;
    const size_t at = (size_t)k * (size_t)w->plan->servers + (size_t)srv;
    pf_bump(w, k, &h->pull_started[at]);
    w->flows++;
    sg_host_sendto(sg_host_self(), w->hub[srv], (double)bytes_of(bytes));
    pf_bump(w, k, &h->pull_ended[at]);
}

/* Through the hub: node `node` takes bucket k (`bytes`) from its hub from once every other server holding some of
 * it has begun to send it in step `it`, and has it once their flows too have ended. @return when. */
static double hub_read(sg_world *w, int node, int k, int it, double bytes)
{
    pf_hub_t *h = w->pf_hub;
    const size_t K = (size_t)w->plan->servers;
    const int *held = w->pf_held + w->pf_held_at[k], nheld = w->pf_held_at[k + 1] - w->pf_held_at[k];
    for (int j = 0; j < nheld; j++)
        if (held[j] != node) pf_wait(w, k, &h->pull_started[(size_t)k * K + (size_t)held[j]], it + 1);
    w->flows++;
    sg_host_sendto(w->hub[node], sg_host_self(), (double)bytes_of(bytes));
    for (int j = 0; j < nheld; j++)
        if (held[j] != node) pf_wait(w, k, &h->pull_ended[(size_t)k * K + (size_t)held[j]], it + 1);
    return simgrid_get_clock();
}

/* read_in_step: the actor that reads a node's variables back within the step, as each one's servers reply (through
 * the hub, or each server's flow to it), its CPU receiving their messages (the clock its pushes' sends share) and
 * its own part giving each to its GPUs; `finish` when it has the last. */
typedef struct {
    const sg_actor_ctx *me;
    int it;
    double t0, finish;
} rs_step;
static void rs_reader(int argc, char **argv)
{
    (void)argc, (void)argv;
    rs_step *r = sg_actor_self_get_data();
    sg_world *w = r->me->w;
    const sim_plan *p = w->plan;
    pf_hub_t *h = w->pf_hub;
    const int K = p->servers, node = r->me->node, it = r->it, nb = p->n;
    const double rcv = w->c->rpc_recv_s, g = node_pushes(p, node);
    size_t most = 1, n = 0; /* pairs: every share of every bucket asked at once, as forward's reads */
    for (int k = 0; !h && k < nb; k++) most += (size_t)(w->pf_held_at[k + 1] - w->pf_held_at[k]);
    sg_comm_t *c = malloc(most * sizeof *c);
    int *of = malloc(most * sizeof *of), *left = calloc((size_t)nb + 1, sizeof *left);
    double *arrival = malloc(((size_t)nb + 1) * sizeof *arrival);
    void *data;
    if (!c || !of || !left || !arrival) abort(); /* the child dies and the parent reports a failed run */
    for (int k = 0; !h && k < nb; k++)
        for (int j = w->pf_held_at[k]; j < w->pf_held_at[k + 1]; j++)
            if (w->pf_held[j] != node)
                c[n] = sg_mailbox_get_async(mbox("fp%d.%d", w->pf_held[j], node), &data), of[n++] = k, left[k]++;
    double local = r->t0;
    for (int k = 0, next = 0; k < nb; k++) { /* backward order: as the updates are applied */
        const double mine = node < K ? p->share[(size_t)k * K + node] : 0;
        const int nheld = w->pf_held_at[k + 1] - w->pf_held_at[k];
        double got;
        if (!(mine < 1)) { /* it holds all of it: nothing to read once the barrier has passed */
            pf_wait(w, k, &w->rs_applies[k], (it + 1) * nheld);
            got = w->rs_applied[k] + sim_barrier_s(p);
        } else {
            if (h) {
                arrival[k] = hub_read(w, node, k, it, g * (1 - mine) * p->b[k].down_bytes);
            } else {
                for (; next <= k; next++) /* until this bucket's shares are all in (later ones may come first) */
                    while (left[next] > 0) {
                        const ssize_t i = sg_comm_wait_any(c, n);
                        if (i < 0) abort();
                        if (--left[of[i]] == 0) arrival[of[i]] = simgrid_get_clock();
                        c[i] = c[n - 1], of[i] = of[n - 1], n--;
                    }
            }
            got = w->rs_cpu[node] = fmax(w->rs_cpu[node], arrival[k]) + g * placed_sent(p, (size_t)k, node) * rcv;
        }
        local = fmax(local, got) + p->b[k].local_down_s;
    }
    r->finish = local;
    free(c), free(of), free(left), free(arrival);
}

/* read_in_step: the actor that replies with a server's variables, each once every server holding it has applied
 * the step's updates and the barrier's two messages have passed, one after another. */
static void rs_replier(int argc, char **argv)
{
    (void)argc, (void)argv;
    rs_step *r = sg_actor_self_get_data();
    sg_world *w = r->me->w;
    const sim_plan *p = w->plan;
    pf_hub_t *h = w->pf_hub;
    const int N = w->N, K = p->servers, srv = r->me->node, it = r->it;
    const double others = all_pushes(p) - node_pushes(p, srv);
    sg_comm_t *c = malloc(((size_t)N + 1) * sizeof *c);
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    for (int k = 0; k < p->n; k++) {
        const double share = p->share[(size_t)k * K + srv];
        if (!(share > 0)) continue;
        pf_wait(w, k, &w->rs_applies[k], (it + 1) * (w->pf_held_at[k + 1] - w->pf_held_at[k]));
        sleep_until(w->rs_applied[k] + sim_barrier_s(p));
        if (h) {
            hub_reply(w, srv, k, others * share * p->b[k].down_bytes);
            continue;
        }
        size_t n = 0;
        for (int o = 0; o < N; o++)
            if (o != srv)
                c[n++] = put_async(w, mbox("fp%d.%d", srv, o), node_pushes(p, o) * share * p->b[k].down_bytes);
        sg_comm_wait_all(c, n);
    }
    free(c);
}

/* Starts `fn` as a helper of the calling actor on its host, its data `r`. */
static sg_actor_t rs_start(void (*fn)(int, char **), rs_step *r)
{
    sg_actor_t a = sg_actor_init(fn == rs_reader ? "reader" : "replier", sg_host_self());
    sg_actor_set_data(a, r);
    sg_actor_ref(a);
    sg_actor_start(a, fn, 0, NULL);
    return a;
}
static void rs_join(sg_actor_t a)
{
    sg_actor_join(a, -1);
    sg_actor_unref(a);
}

/* A node (its GPUs alike: their own part of the exchange, sim_node_local, as delays). Forward takes each layer's
 * variables once they have arrived, their messages have been received (its CPU, one after another) and they have
 * gone through its own part, and stalls until then; backward pushes each gradient after its own part and its
 * messages' send; the step ends when every server has applied every update and every node has computed. */
static void pf_node(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const sim_plan *p = w->plan;
    pf_hub_t *h = w->pf_hub;
    const int K = p->servers, node = me->node, nb = p->n;
    const double snd = w->c->rpc_send_s, rcv = w->c->rpc_recv_s, g = node_pushes(p, node); /* its pushes, reads */
    sg_host_t here = sg_host_self();
    size_t most = 0; /* the flows of a step each way: a bucket's shares held by other servers */
    for (int k = 0; k < nb; k++) most += (size_t)placed_sent(p, (size_t)k, node) + 1;
    sg_comm_t *c = malloc(most * sizeof *c);
    int *of = malloc(most * sizeof *of), *left = malloc((size_t)nb * sizeof *left);
    double *arrival = malloc((size_t)nb * sizeof *arrival);
    void *data;
    if (!c || !of || !left || !arrival) abort(); /* the child dies and the parent reports a failed run */
    for (int it = 0; it < w->iters; it++) {
        const double t0 = simgrid_get_clock();
        size_t n = 0;
        rs_step rs = {me, it, t0, t0}; /* distributed_replicated: the reads within the step, by their own actor */
        sg_actor_t reader = p->read_in_step ? rs_start(rs_reader, &rs) : NULL;
        for (int k = nb - 1; !reader && k >= 0; k--) { /* the reads, in forward order */
            const double *share = p->share + (size_t)k * K, mine = node < K ? share[node] : 0;
            left[k] = 0, arrival[k] = t0;
            if (!(mine < 1)) continue;
            if (h) {
                arrival[k] = hub_read(w, node, k, it, g * (1 - mine) * p->b[k].down_bytes);
                continue;
            }
            for (int j = w->pf_held_at[k]; j < w->pf_held_at[k + 1]; j++)
                if (w->pf_held[j] != node)
                    c[n] = sg_mailbox_get_async(mbox("fp%d.%d", w->pf_held[j], node), &data), of[n++] = k, left[k]++;
        }
        while (n > 0) { /* pairs: each bucket's arrival, when the last of its shares has come */
            const ssize_t i = sg_comm_wait_any(c, n);
            if (i < 0) abort();
            if (--left[of[i]] == 0) arrival[of[i]] = simgrid_get_clock();
            c[i] = c[n - 1], of[i] = of[n - 1], n--;
        }
        double cpu = t0, local = t0, stall = 0, last = t0;
        for (int k = nb - 1; !reader && k >= 0; k--) {
            const sim_bucket *b = &p->b[k];
            const double msgs = g * placed_sent(p, (size_t)k, node);
            if (msgs > 0) cpu = fmax(cpu, arrival[k]) + msgs * rcv, last = fmax(last, arrival[k]);
            local = fmax(local, msgs > 0 ? cpu : t0) + b->local_down_s;
            stall = fmax(stall, local - t0 - b->need_s);
        }
        double own = t0, sent = t0;    /* its own part's clock, its CPU's sends' */
        for (int k = 0; k < nb; k++) { /* backward: each gradient pushed when made */
            const sim_bucket *b = &p->b[k];
            const double *share = p->share + (size_t)k * K, mine = node < K ? share[node] : 0;
            own = fmax(own, t0 + stall + b->ready_s) + b->local_up_s;
            if (mine > 0) { /* its server takes its own share from here */
                sg_mutex_lock(w->lock);
                w->pf_own[(size_t)node * nb + k] = own, w->pf_own_it[(size_t)node * nb + k] = it + 1;
                sg_cond_notify_all(w->pf_cond[k]);
                sg_mutex_unlock(w->lock);
            }
            if (!(mine < 1)) continue;
            const double send_s = g * placed_sent(p, (size_t)k, node) * snd;
            sent = reader ? (w->rs_cpu[node] = fmax(w->rs_cpu[node], own) + send_s) : fmax(sent, own) + send_s;
            sleep_until(sent);
            if (h) {
                pf_bump(w, k, &h->push_started[k]);
                w->flows++;
                sg_host_sendto(here, w->hub[node], (double)bytes_of(g * (1 - mine) * b->up_bytes));
                pf_bump(w, k, &h->push_ended[k]);
                continue;
            }
            for (int j = w->pf_held_at[k]; j < w->pf_held_at[k + 1]; j++)
                if (w->pf_held[j] != node)
                    c[n++] = put_async(w, mbox("fu%d.%d", w->pf_held[j], node), g * share[w->pf_held[j]] * b->up_bytes);
        }
        sg_comm_wait_all(c, n);
        if (reader) rs_join(reader);
        sleep_until(fmax(t0 + stall + w->plan->compute_s, rs.finish));
        sg_barrier_wait(w->pf_step);
        w->comm[me->index] += reader ? rs.finish - (t0 + p->b[0].ready_s)
                                     : (last - t0) + fmax(0, w->pf_applied - (t0 + stall + p->b[0].ready_s));
        sg_barrier_wait(w->pf_step); /* every node has read the step's last update before the next step's */
    }
    w->end[me->index] = simgrid_get_clock();
    free(c), free(of), free(left), free(arrival);
}

/* Server s: sends every variable it holds to every other node (through the hub, or each pair's all at once), takes
 * the contributions as they come, and applies each bucket's update in backward order once all N are in (its own
 * node's from pf_own): its decodes, its sums, its encodes, its messages' CPU. */
static void pf_server(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const sim_plan *p = w->plan;
    pf_hub_t *h = w->pf_hub;
    const int N = w->N, K = p->servers, srv = me->node, nb = p->n;
    const double snd = w->c->rpc_send_s, rcv = w->c->rpc_recv_s;
    const double T = all_pushes(p), others = T - node_pushes(p, srv); /* contributions: all, the other nodes' */
    sg_host_t here = sg_host_self();
    int held = 0;
    for (int k = 0; k < nb; k++) held += p->share[(size_t)k * K + srv] > 0;
    const size_t most = h ? 1 : (size_t)held * (size_t)(N - 1);
    sg_comm_t *out = malloc((most + 1) * sizeof *out), *in = malloc((most + 1) * sizeof *in);
    const int *senders = w->pf_senders;
    void *data;
    if (!out || !in) abort(); /* the child dies and the parent reports a failed run */
    for (int it = 0; it < w->iters; it++) {
        size_t n = 0;
        rs_step rs = {me, it, 0, 0}; /* distributed_replicated: the replies within the step, by their own actor */
        sg_actor_t replier = p->read_in_step ? rs_start(rs_replier, &rs) : NULL;
        for (int k = nb - 1; !replier && k >= 0; k--) { /* the replies, in forward order */
            const double share = p->share[(size_t)k * K + srv];
            if (!(share > 0)) continue;
            if (h) { /* through the hub, one variable after another */
                hub_reply(w, srv, k, others * share * p->b[k].down_bytes);
                continue;
            }
            for (int o = 0; o < N; o++)
                if (o != srv)
                    out[n++] = put_async(w, mbox("fp%d.%d", srv, o), node_pushes(p, o) * share * p->b[k].down_bytes);
        }
        for (size_t i = 0, j = 0; !h && j < (size_t)nb; j++) { /* pairs: the contributions, in backward order */
            if (!(p->share[j * K + srv] > 0)) continue;
            for (int o = 0; o < N; o++)
                if (o != srv) in[i++] = sg_mailbox_get_async(mbox("fu%d.%d", srv, o), &data);
        }
        double apply = 0;
        for (int k = 0, i = 0; k < nb; k++) {
            const sim_bucket *b = &p->b[k];
            const double share = p->share[(size_t)k * K + srv], msgs = p->msgs[(size_t)k * K + srv];
            if (!(share > 0)) continue;
            if (h) { /* its share of every node's flow, from once the first has begun */
                pf_wait(w, k, &h->push_started[k], it * senders[k] + 1);
                w->flows++;
                sg_host_sendto(w->hub[srv], here, (double)bytes_of(others * share * b->up_bytes));
                pf_wait(w, k, &h->push_ended[k], (it + 1) * senders[k]);
            } else {
                sg_comm_wait_all(in + (size_t)i * (N - 1), (size_t)(N - 1));
                i++;
            }
            pf_wait(w, k, &w->pf_own_it[(size_t)srv * nb + k], it + 1);
            const double own = w->pf_own[(size_t)srv * nb + k];
            apply = fmax(apply, fmax(simgrid_get_clock(), own)) + T * share * b->srv_dec_s + share * b->srv_enc_s +
                    others * msgs * (rcv + snd);
            sleep_until(apply);
            if (replier) { /* the last of its servers to apply lets the barrier pass */
                sg_mutex_lock(w->lock);
                const int now = w->rs_applied_it[k] == it + 1;
                w->rs_applied[k] = now ? fmax(w->rs_applied[k], apply) : apply, w->rs_applied_it[k] = it + 1;
                w->rs_applies[k]++;
                sg_cond_notify_all(w->pf_cond[k]);
                sg_mutex_unlock(w->lock);
            }
        }
        sg_comm_wait_all(out, n);
        if (replier) rs_join(replier);
        w->pf_applied = fmax(w->pf_applied, apply);
        sg_barrier_wait(w->pf_step);
        sg_barrier_wait(w->pf_step);
        if (srv == 0) w->pf_applied = 0; /* read by every node between the two waits */
    }
    free(out), free(in);
}

/* ---- the child ------------------------------------------------------------------------- */

/* The worker actors: per node the leader (its first GPU), then its followers (none where folded: the leader's
 * folded.host is set where hosts are known). */
static int build_actors(sg_world *w, sg_actor_ctx *ctx, node_actors mode)
{
    int a = 0;
    for (int node = 0; node < w->N; node++) {
        int here = node + 1 < w->N ? w->G : w->P - node * w->G, followers = node_followers(here, mode);
        ctx[a] = (sg_actor_ctx){w, a, node, 0, here, followers, {NULL, 0, 0}};
        for (int l = 1; l <= followers; l++) ctx[a + l] = (sg_actor_ctx){w, a + l, node, l, here, 0, {NULL, 0, 0}};
        a += 1 + followers;
    }
    return a;
}

int gq_simgrid_child(const sim_config *c, const sim_plan *p, const char *xml_path, node_actors mode, int hub,
                     char cfg[SIM_SG_NET_CFGS][64], int fd)
{
    sg_world w = {.c = c,
                  .plan = p,
                  .P = c->gpus,
                  .G = p->per_node,
                  .N = p->nodes,
                  .iters = c->run.iterations > 0 ? c->run.iterations : 1};
    /* the workers; then a single server, or with servers on the host CPUs one per node */
    /* (BytePS on one machine has none: it connects to no server) */
    const int hosts =
        c->run.ps_on_cpu && c->run.sync == SYNC_PS_SHARDED && w.P > 1 && !(c->run.node_sum == NODE_SUM_GPUS && w.N == 1)
            ? w.N
            : 0;
    sg_actor_ctx *ctx = calloc((size_t)w.P + 1 + (size_t)hosts, sizeof *ctx);
    w.end = calloc((size_t)w.P, sizeof *w.end);
    w.comm = calloc((size_t)w.P, sizeof *w.comm);
    if (!w.end || !w.comm || !ctx) return 1;
    w.R = build_actors(&w, ctx, mode);
    const int host_cols = mode != NODE_PER_GPU ? 2 : w.G; /* GPUs per node in the platform */
    char *argv[] = {"gqsim", cfg[0], cfg[4], "--cfg=contexts/stack-size:256",
                    /* a platform may be wrong: SimGrid says why at ERROR (parse) or CRITICAL (exceptions) */
                    "--log=root.thres:error", cfg[1], cfg[2], cfg[3], NULL};
    int argc = 8;
    simgrid_init(&argc, argv);
    simgrid_load_platform(xml_path);
    w.took = malloc(4 * (size_t)p->n * sizeof *w.took);
    if (!w.took) return 1;
    if (p->pipelined) { /* semaphores: one per GPU actor and per node */
        w.pipe_start = calloc((size_t)w.R * (size_t)p->n, sizeof *w.pipe_start);
        w.pipe_iter = calloc((size_t)w.R, sizeof *w.pipe_iter);
        w.pipe_own = calloc((size_t)w.N, sizeof *w.pipe_own);
        if (!w.pipe_start || !w.pipe_iter || !w.pipe_own) return 1;
        for (int a = 0; a < w.R; a++) w.pipe_iter[a] = sg_sem_init(0);
        for (int n = 0; n < w.N; n++) w.pipe_own[n] = sg_sem_init(0);
    }
    w.lock = sg_mutex_init();
    w.took_done = sg_cond_init();
    w.sc_cond = sg_cond_init();
    w.sc_at[0] = calloc(5 * (size_t)w.N, sizeof(double));
    w.sc_calls = calloc((size_t)w.N, sizeof *w.sc_calls);
    if (!w.sc_at[0] || !w.sc_calls) return 1;
    w.sc_at[1] = w.sc_at[0] + w.N, w.sc_left[0] = w.sc_at[1] + w.N, w.sc_left[1] = w.sc_left[0] + w.N;
    w.sc_v = w.sc_left[1] + w.N;
    w.hub_cond = sg_cond_init();
    /* hosts by (node, GPU) from one listing: sg_host_by_name searches the
     * zones linearly, which made starting P actors cost O(P^2); the host
     * CPUs n<node>cpu where servers run on them, and the nodes' hubs hub<node> */
    char name[HOST_NAME_CAP]; /* a host missing from the platform, named in its message */
    sg_host_t *grid = calloc((size_t)w.N * (host_cols + 2), sizeof *grid), *all = sg_host_list();
    if (!grid || !all) return 1;
    sg_host_t *cpu = grid + (size_t)w.N * host_cols, *hubs = cpu + w.N;
    for (size_t h = 0, nh = sg_host_count(); h < nh; h++) {
        int node = -1, gpu;
        const host_kind kind = host_name_parse(sg_host_get_name(all[h]), &node, &gpu);
        if (node >= w.N) continue;
        if (kind == HOST_GPU && gpu < host_cols)
            grid[node * host_cols + gpu] = all[h];
        else if (kind == HOST_CPU)
            cpu[node] = all[h];
        else if (kind == HOST_HUB && hub)
            hubs[node] = all[h];
    }
    if (hub) {
        w.hub = hubs;
        for (int n = 0; n < w.N; n++)
            if (!hubs[n]) {
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n", host_name(name, HOST_HUB, n, 0));
                return 1;
            }
    }
    if (w.hub) { /* two phases a call: a bucket, or PowerSGD's two all-reduces of one */
        w.hub_phases = calloc(4 * (size_t)w.iters * (size_t)p->n, sizeof *w.hub_phases);
        w.hub_calls = calloc((size_t)w.N, sizeof *w.hub_calls);
        if (!w.hub_phases || !w.hub_calls) return 1;
    }
    free(all);
    const int ps_cpu = c->run.sync == SYNC_PS && c->run.ps_on_cpu;
    int leader = 0; /* a host's node's first GPU actor: the hosts come in node order */
    sg_actor_ctx *pf = p->pull_forward ? calloc((size_t)w.N + (size_t)p->servers, sizeof *pf) : NULL;
    if (p->pull_forward) { /* an actor a node and one a server, each on the node's first GPU or its host CPU */
        w.R = w.N;
        w.pf_step = sg_barrier_init((unsigned)(w.N + p->servers));
        w.pf_own = calloc((size_t)p->servers * (size_t)p->n, sizeof *w.pf_own);
        w.pf_own_it = calloc((size_t)p->servers * (size_t)p->n, sizeof *w.pf_own_it);
        w.pf_cond = calloc((size_t)p->n, sizeof *w.pf_cond);
        for (int k = 0; w.pf_cond && k < p->n; k++) w.pf_cond[k] = sg_cond_init();
        w.pf_held_at = calloc((size_t)p->n + 1, sizeof *w.pf_held_at);
        w.pf_senders = calloc((size_t)p->n, sizeof *w.pf_senders);
        if (!pf || !w.pf_cond || !w.pf_own || !w.pf_own_it || !w.pf_held_at || !w.pf_senders) return 1;
        if (p->read_in_step) {
            w.rs_cpu = calloc((size_t)w.N + (size_t)p->n, sizeof *w.rs_cpu);
            w.rs_applied_it = calloc(2 * (size_t)p->n, sizeof *w.rs_applied_it);
            if (!w.rs_cpu || !w.rs_applied_it) return 1;
            w.rs_applied = w.rs_cpu + w.N, w.rs_applies = w.rs_applied_it + p->n;
        }
        for (int k = 0; k < p->n; k++) { /* each bucket's servers, counted then listed; the nodes that push to them */
            const double *share = p->share + (size_t)k * p->servers;
            w.pf_held_at[k + 1] = w.pf_held_at[k];
            for (int s = 0; s < p->servers; s++) w.pf_held_at[k + 1] += share[s] > 0;
            w.pf_senders[k] = w.N;
            for (int s = 0; s < p->servers && s < w.N; s++) w.pf_senders[k] -= share[s] >= 1;
        }
        if (!(w.pf_held = malloc(((size_t)w.pf_held_at[p->n] + 1) * sizeof *w.pf_held))) return 1;
        for (int k = 0, j = 0; k < p->n; k++)
            for (int s = 0; s < p->servers; s++)
                if (p->share[(size_t)k * p->servers + s] > 0) w.pf_held[j++] = s;
        if (w.hub) {
            const size_t per = (size_t)p->n * (size_t)p->servers;
            w.pf_hub = malloc(sizeof *w.pf_hub);
            int *counts = w.pf_hub ? calloc(2 * per + 2 * (size_t)p->n, sizeof *counts) : NULL;
            if (!counts) return 1;
            *w.pf_hub = (pf_hub_t){counts, counts + per, counts + 2 * per, counts + 2 * per + p->n};
        }
        for (int a = 0; a < w.N + p->servers; a++) {
            const int node = a < w.N ? a : a - w.N;
            sg_host_t where = hosts ? cpu[node] : grid[node * host_cols];
            if (!where) {
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n",
                        host_name(name, hosts ? HOST_CPU : HOST_GPU, node, 0));
                return 1;
            }
            pf[a] = (sg_actor_ctx){&w, node, node, 0, 0, 0, {NULL, 0, 0}};
            sg_actor_t act = sg_actor_init(a < w.N ? "node" : "server", where);
            sg_actor_set_data(act, &pf[a]);
            sg_actor_start(act, a < w.N ? pf_node : pf_server, 0, NULL);
        }
    }
    for (int a = 0; !p->pull_forward && a <= w.R + hosts; a++) { /* the workers, then the server(s) where there are */
        if (a == w.R && !(c->run.sync == SYNC_PS && w.P > 1)) continue;
        const int server = a == w.R, host = a > w.R, node = host ? a - w.R - 1 : server ? 0 : ctx[a].node;
        int gpu = server || host ? 0 : ctx[a].slot;
        sg_host_t where = host || (server && ps_cpu) ? cpu[node] : grid[node * host_cols + gpu];
        if (!where) {
            if (host || (server && ps_cpu))
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s (a host CPU for --ps-on cpu)\n",
                        host_name(name, HOST_CPU, node, 0));
            else
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n", host_name(name, HOST_GPU, node, gpu));
            return 1;
        }
        if (server) ctx[a] = (sg_actor_ctx){&w, a, 0, 0, 0, 0, {NULL, 0, 0}};
        if (mode == NODE_FOLDED && !server && !host && ctx[a].node_gpus > 1 &&
            !(ctx[a].folded.host = grid[node * host_cols + 1])) {
            fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n", host_name(name, HOST_GPU, node, 1));
            return 1;
        }
        if (host) { /* its node's GPU actors: the leader's index and the GPUs in use */
            while (ctx[leader].node != node) leader++;
            ctx[a] = (sg_actor_ctx){&w, a, node, 0, ctx[leader].node_gpus, leader, {NULL, 0, 0}};
        }
        sg_actor_t act = sg_actor_init(server ? "ps" : host ? "host" : "worker", where);
        sg_actor_set_data(act, &ctx[a]);
        /* BytePS's pipeline: the GPU's first stage is its worker, its last an actor of its own; the host's push,
         * server (a server a node) and pull */
        sg_actor_start(act, server ? ps_server : host ? (p->pipelined ? pipe_push : host_server) : worker, 0, NULL);
        static const xbt_main_func_t HOST_STAGES[] = {pipe_pull, pipe_server};
        for (int j = 0; p->pipelined && j < (host ? 2 - (p->cpu_machines > 0) : !server); j++) {
            act = sg_actor_init(host ? "host-stage" : "worker-down", where);
            sg_actor_set_data(act, &ctx[a]);
            sg_actor_start(act, host ? HOST_STAGES[j] : pipe_down, 0, NULL);
        }
    }
    /* servers on machines of their own: the host CPUs of the nodes after the workers' */
    const int M = p->cpu_machines;
    sg_actor_ctx *srv = M ? calloc((size_t)M, sizeof *srv) : NULL;
    if (M && !srv) return 1;
    for (int s = 0; s < M; s++) {
        sg_host_t where = sg_host_by_name(host_name(name, HOST_CPU, w.N + s, 0));
        if (!where) {
            fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s (a server machine for --ps-cpu-machines)\n", name);
            return 1;
        }
        srv[s] = (sg_actor_ctx){&w, s, s, 0, 0, 0, {NULL, 0, 0}};
        sg_actor_t act = sg_actor_init("cpu-server", where);
        sg_actor_set_data(act, &srv[s]);
        sg_actor_start(act, p->pipelined ? pipe_machine : cpu_server, 0, NULL);
    }
    simgrid_run();
    sg_cond_destroy(w.sc_cond);
    free(w.sc_at[0]), free(w.sc_calls);
    if (p->pull_forward) {
        sg_barrier_destroy(w.pf_step);
        for (int k = 0; k < p->n; k++) sg_cond_destroy(w.pf_cond[k]);
        free(w.pf_cond);
        free(w.pf_own), free(w.pf_own_it), free(pf), free(w.pf_held_at), free(w.pf_held), free(w.pf_senders);
        free(w.rs_cpu), free(w.rs_applied_it);
        if (w.pf_hub) free(w.pf_hub->pull_started), free(w.pf_hub);
    }
    for (int a = 0; p->pipelined && a < w.R; a++) sg_sem_destroy(w.pipe_iter[a]);
    for (int n = 0; p->pipelined && n < w.N; n++) sg_sem_destroy(w.pipe_own[n]);
    free(w.pipe_start), free(w.pipe_iter), free(w.pipe_own);
    free(srv);
    free(w.took);
    sg_cond_destroy(w.took_done);
    sg_cond_destroy(w.hub_cond);
    free(w.hub_phases);
    free(w.hub_calls);
    sg_mutex_destroy(w.lock);
    free(grid);
    double end = 0, comm = 0;
    for (int a = 0; a < w.R; a++) end = fmax(end, w.end[a]), comm = fmax(comm, w.comm[a]);
    const sg_child_result result = {.iteration_s = end / w.iters, .comm_s = comm / w.iters, .flows = w.flows};
    free(w.end);
    free(w.comm);
    free(ctx);
    ssize_t n = write(fd, &result, sizeof result);
    return n == (ssize_t)sizeof result ? 0 : 1;
}
