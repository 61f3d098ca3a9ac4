/* The SimGrid engine's flows and sleeps, what every scheme's actors are made of: mailboxes by name, counted flows,
 * a folded stand-in's flows timed once a size, TernGrad's scaler all-reduce before a bucket, and a node's reduce to
 * its leader and broadcast back (the leaders' schemes). The families' actors (sg_allreduce.c, sg_servers.c,
 * sg_pipeline.c, sg_overlap.c) and the child's worker (sg_child.c) are built on these; these call none of them. */
#include "sg_world.h"

sg_mailbox_t mbox(const char *fmt, ...)
{
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return sg_mailbox_by_name(name);
}

void sleep_s(double s)
{
    if (s > 0) sg_actor_sleep_for(s);
}
void sleep_until(double t) { sleep_s(t - simgrid_get_clock()); }
long bytes_of(double b) { return b < 1 ? 1 : (long)(b + 0.5); }

/* Every flow starts here, counted. */
sg_comm_t put_async(sg_world *w, sg_mailbox_t to, double bytes)
{
    w->flows++;
    return sg_mailbox_put_async(to, &w->token, bytes_of(bytes));
}
void put(sg_world *w, sg_mailbox_t to, double bytes)
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

void send_recv(sg_world *w, sg_mailbox_t to, double nbytes, sg_mailbox_t from)
{
    sg_comm_t c[2];
    c[0] = put_async(w, to, nbytes);
    void *data;
    c[1] = sg_mailbox_get_async(from, &data);
    sg_comm_wait_all(c, 2);
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
void scaler_allreduce(sg_world *w, const sg_actor_ctx *me, double bytes)
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

/* Node-local reduce to the leader (the node's first GPU) and broadcast back,
 * around `inter` (what the leaders do among themselves). Where a node's
 * other GPUs are folded into one host, the leader moves their sum in one flow
 * (their flows would share its link); otherwise each GPU is an actor. */
void node_reduce_bcast(sg_world *w, sg_actor_ctx *me, const sim_bucket *b,
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
