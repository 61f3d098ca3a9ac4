/* TensorFlow's placed servers overlapped with the step (plan->pull_forward): an actor a node and an actor a server,
 * each variable read back as forward needs it (or within the step, read_in_step), each gradient pushed as backward
 * makes it. */
#include "sg_world.h"

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
void pf_node(int argc, char **argv)
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
void pf_server(int argc, char **argv)
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
