/* BytePS's push-pull as its pipeline (plan->pipelined): five stages, an actor each (per GPU two, per host three),
 * each walking the buckets in order; every receiver posts its gets for a whole iteration at its start, so that a
 * sender's flow starts when the sender is ready and a stage waits only for its own input (analytic.c's pipeline()
 * is the same timeline). */
#include "sg_world.h"

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
void pipe_up(sg_world *w, sg_actor_ctx *me)
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
void pipe_down(int argc, char **argv)
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
void pipe_push(int argc, char **argv)
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
void pipe_server(int argc, char **argv)
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
void pipe_machine(int argc, char **argv)
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
void pipe_pull(int argc, char **argv)
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
