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

/* The buckets through the pipeline's stages: a stage takes bucket k once it is done with k - 1 and the stage before
 * has passed k on (the first once k is ready). The exchanges' time is the union of the buckets' spans, first
 * stage's start to last stage's end. @return the last bucket's end. */
static double pipeline(const sim_config *c, const sim_plan *p, double *comm_s)
{
    double done[5] = {0, 0, 0, 0, 0}, last_end = 0;
    *comm_s = 0;
    for (int k = 0; k < p->n; k++) {
        double st[5], t = p->b[k].ready_s;
        sim_pipeline_stages(c, p, &p->b[k], st);
        const double start = fmax(t, done[0]);
        for (int j = 0; j < 5; j++) t = done[j] = fmax(t, done[j]) + st[j];
        *comm_s += fmax(0, t - fmax(start, last_end));
        last_end = t;
    }
    return last_end;
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
 * begun to when the last has ended -- the SimGrid engine's flows through the hub (sg_overlap.c). Each direction also
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
