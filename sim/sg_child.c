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
 * own but the host names it shares with the XML writer (compiled in); what
 * it needs comes in its arguments. This file holds the worker that walks
 * the buckets, the table of schemes' actors and the child's entry; the
 * flows and sleeps every scheme's actors are made of are in sg_flows.c, the
 * families' actors in sg_allreduce.c, sg_servers.c, sg_pipeline.c and
 * sg_overlap.c (sg_world.h). */
#include "sg_world.h"

/* One bucket's exchange in the run's scheme, from this worker's side, by the scheme's actors (sg_allreduce.c,
 * sg_servers.c): rings' hop sizes and step counts are the P GPUs' ring; the actors are its hops, one per GPU or one
 * per run of GPUs whose hops are alike and disjoint (see sim_simgrid). The table is the registry's
 * (exchange/schemes.h): a scheme's actors are <its file>_bucket. */
static void exchange_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b)
{
#define SG_SCHEME_ACTORS(id, file, name, families) [SYNC_##id] = file##_bucket,
    static const sg_bucket_fn EXCHANGE[SYNC_COUNT] = {GQ_SCHEMES(SG_SCHEME_ACTORS)};
    EXCHANGE[w->c->run.sync](w, me, b);
}

/* One step of the bucket's program (sim_plan_program), as its actors: a delay slept, the scaler's rounds, the
 * scheme's exchange of the bucket or of plain floats. */
static void run_step(sg_world *w, sg_actor_ctx *me, const sim_bucket *b, const sim_step *s)
{
    if (s->kind == STEP_DELAY) {
        sleep_s(s->value);
    } else if (s->kind == STEP_SCALER) {
        scaler_allreduce(w, me, s->value);
    } else if (s->kind == STEP_EXCHANGE) {
        exchange_bucket(w, me, b);
    } else {
        const sim_bucket floats = sim_floats_of(b, s->value);
        exchange_bucket(w, me, &floats);
    }
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
            for (int i = 0; i < b->steps; i++) run_step(w, me, b, &b->step[i]);
            w->comm[a] += simgrid_get_clock() - exchange0;
        }
        sleep_until(t0 + w->plan->compute_s);
        me->folded.clock = fmax(me->folded.clock, me->folded.t0 + w->plan->compute_s);
    }
    w->end[a] = fmax(simgrid_get_clock(), me->folded.host ? me->folded.clock : 0);
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

/* The platform's hosts by (node, GPU) from one listing (sg_host_by_name searches the zones linearly, which made
 * starting P actors cost O(P^2)), the host CPUs n<node>cpu where servers run on them, and the nodes' hubs hub<node>:
 * grid holds `cols` GPUs a node, then the N host CPUs, then the N hubs. */
typedef struct {
    sg_host_t *grid, *cpu, *hubs;
    int cols;
} host_index;

static int index_hosts(sg_world *w, int hub, host_index *h)
{
    char name[HOST_NAME_CAP];
    sg_host_t *all = sg_host_list();
    h->grid = calloc((size_t)w->N * (h->cols + 2), sizeof *h->grid);
    if (!h->grid || !all) return free(all), 1;
    h->cpu = h->grid + (size_t)w->N * h->cols, h->hubs = h->cpu + w->N;
    for (size_t k = 0, nh = sg_host_count(); k < nh; k++) {
        int node = -1, gpu;
        const host_kind kind = host_name_parse(sg_host_get_name(all[k]), &node, &gpu);
        if (node >= w->N) continue;
        if (kind == HOST_GPU && gpu < h->cols)
            h->grid[node * h->cols + gpu] = all[k];
        else if (kind == HOST_CPU)
            h->cpu[node] = all[k];
        else if (kind == HOST_HUB && hub)
            h->hubs[node] = all[k];
    }
    free(all);
    if (hub) {
        w->hub = h->hubs;
        for (int n = 0; n < w->N; n++)
            if (!h->hubs[n]) {
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n", host_name(name, HOST_HUB, n, 0));
                return 1;
            }
    }
    if (w->hub) { /* two phases a call: a bucket, or PowerSGD's two all-reduces of one */
        w->hub_phases = calloc(4 * (size_t)w->iters * (size_t)w->plan->n, sizeof *w->hub_phases);
        w->hub_calls = calloc((size_t)w->N, sizeof *w->hub_calls);
        if (!w->hub_phases || !w->hub_calls) return 1;
    }
    return 0;
}

/* What every run's actors share, made once SimGrid is up: the folded flows' table, BytePS's semaphores, the lock and
 * conditions, TernGrad's scaler slots. */
static int world_init(sg_world *w)
{
    const sim_plan *p = w->plan;
    w->took = malloc(4 * (size_t)p->n * sizeof *w->took);
    if (!w->took) return 1;
    if (p->pipelined) { /* semaphores: one per GPU actor and per node */
        w->pipe_start = calloc((size_t)w->R * (size_t)p->n, sizeof *w->pipe_start);
        w->pipe_iter = calloc((size_t)w->R, sizeof *w->pipe_iter);
        w->pipe_own = calloc((size_t)w->N, sizeof *w->pipe_own);
        if (!w->pipe_start || !w->pipe_iter || !w->pipe_own) return 1;
        for (int a = 0; a < w->R; a++) w->pipe_iter[a] = sg_sem_init(0);
        for (int n = 0; n < w->N; n++) w->pipe_own[n] = sg_sem_init(0);
    }
    w->lock = sg_mutex_init();
    w->took_done = sg_cond_init();
    w->sc_cond = sg_cond_init();
    w->sc_at[0] = calloc(5 * (size_t)w->N, sizeof(double));
    w->sc_calls = calloc((size_t)w->N, sizeof *w->sc_calls);
    if (!w->sc_at[0] || !w->sc_calls) return 1;
    w->sc_at[1] = w->sc_at[0] + w->N, w->sc_left[0] = w->sc_at[1] + w->N, w->sc_left[1] = w->sc_left[0] + w->N;
    w->sc_v = w->sc_left[1] + w->N;
    w->hub_cond = sg_cond_init();
    return 0;
}

/* TensorFlow's placed servers overlapped: an actor a node and one a server, each on the node's first GPU or its host
 * CPU (`hosts`), and what they share. *pf gets their contexts. */
static int start_overlapped(sg_world *w, const host_index *h, int hosts, sg_actor_ctx **pf_out)
{
    const sim_plan *p = w->plan;
    char name[HOST_NAME_CAP];
    sg_actor_ctx *pf = *pf_out = calloc((size_t)w->N + (size_t)p->servers, sizeof *pf);
    w->R = w->N;
    w->pf_step = sg_barrier_init((unsigned)(w->N + p->servers));
    w->pf_own = calloc((size_t)p->servers * (size_t)p->n, sizeof *w->pf_own);
    w->pf_own_it = calloc((size_t)p->servers * (size_t)p->n, sizeof *w->pf_own_it);
    w->pf_cond = calloc((size_t)p->n, sizeof *w->pf_cond);
    for (int k = 0; w->pf_cond && k < p->n; k++) w->pf_cond[k] = sg_cond_init();
    w->pf_held_at = calloc((size_t)p->n + 1, sizeof *w->pf_held_at);
    w->pf_senders = calloc((size_t)p->n, sizeof *w->pf_senders);
    if (!pf || !w->pf_cond || !w->pf_own || !w->pf_own_it || !w->pf_held_at || !w->pf_senders) return 1;
    if (p->read_in_step) {
        w->rs_cpu = calloc((size_t)w->N + (size_t)p->n, sizeof *w->rs_cpu);
        w->rs_applied_it = calloc(2 * (size_t)p->n, sizeof *w->rs_applied_it);
        if (!w->rs_cpu || !w->rs_applied_it) return 1;
        w->rs_applied = w->rs_cpu + w->N, w->rs_applies = w->rs_applied_it + p->n;
    }
    for (int k = 0; k < p->n; k++) { /* each bucket's servers, counted then listed; the nodes that push to them */
        const double *share = p->share + (size_t)k * p->servers;
        w->pf_held_at[k + 1] = w->pf_held_at[k];
        for (int s = 0; s < p->servers; s++) w->pf_held_at[k + 1] += share[s] > 0;
        w->pf_senders[k] = w->N;
        for (int s = 0; s < p->servers && s < w->N; s++) w->pf_senders[k] -= share[s] >= 1;
    }
    if (!(w->pf_held = malloc(((size_t)w->pf_held_at[p->n] + 1) * sizeof *w->pf_held))) return 1;
    for (int k = 0, j = 0; k < p->n; k++)
        for (int s = 0; s < p->servers; s++)
            if (p->share[(size_t)k * p->servers + s] > 0) w->pf_held[j++] = s;
    if (w->hub) {
        const size_t per = (size_t)p->n * (size_t)p->servers;
        w->pf_hub = malloc(sizeof *w->pf_hub);
        int *counts = w->pf_hub ? calloc(2 * per + 2 * (size_t)p->n, sizeof *counts) : NULL;
        if (!counts) return 1;
        *w->pf_hub = (pf_hub_t){counts, counts + per, counts + 2 * per, counts + 2 * per + p->n};
    }
    for (int a = 0; a < w->N + p->servers; a++) {
        const int node = a < w->N ? a : a - w->N;
        sg_host_t where = hosts ? h->cpu[node] : h->grid[node * h->cols];
        if (!where) {
            fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n",
                    host_name(name, hosts ? HOST_CPU : HOST_GPU, node, 0));
            return 1;
        }
        pf[a] = (sg_actor_ctx){w, node, node, 0, 0, 0, {NULL, 0, 0}};
        sg_actor_t act = sg_actor_init(a < w->N ? "node" : "server", where);
        sg_actor_set_data(act, &pf[a]);
        sg_actor_start(act, a < w->N ? pf_node : pf_server, 0, NULL);
    }
    return 0;
}

/* The workers, then the single server where there is one, then the hosts' servers (one a node, `hosts`), each with
 * BytePS's pipeline's other stages where it runs. */
static int start_workers(sg_world *w, sg_actor_ctx *ctx, const host_index *h, int hosts, node_actors mode)
{
    const sim_config *c = w->c;
    const sim_plan *p = w->plan;
    char name[HOST_NAME_CAP];
    const int ps_cpu = c->run.sync == SYNC_PS && c->run.ps_on_cpu;
    int leader = 0; /* a host's node's first GPU actor: the hosts come in node order */
    for (int a = 0; a <= w->R + hosts; a++) {
        if (a == w->R && !(c->run.sync == SYNC_PS && w->P > 1)) continue;
        const int server = a == w->R, host = a > w->R, node = host ? a - w->R - 1 : server ? 0 : ctx[a].node;
        int gpu = server || host ? 0 : ctx[a].slot;
        sg_host_t where = host || (server && ps_cpu) ? h->cpu[node] : h->grid[node * h->cols + gpu];
        if (!where) {
            if (host || (server && ps_cpu))
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s (a host CPU for --ps-on cpu)\n",
                        host_name(name, HOST_CPU, node, 0));
            else
                fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n", host_name(name, HOST_GPU, node, gpu));
            return 1;
        }
        if (server) ctx[a] = (sg_actor_ctx){w, a, 0, 0, 0, 0, {NULL, 0, 0}};
        if (mode == NODE_FOLDED && !server && !host && ctx[a].node_gpus > 1 &&
            !(ctx[a].folded.host = h->grid[node * h->cols + 1])) {
            fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s\n", host_name(name, HOST_GPU, node, 1));
            return 1;
        }
        if (host) { /* its node's GPU actors: the leader's index and the GPUs in use */
            while (ctx[leader].node != node) leader++;
            ctx[a] = (sg_actor_ctx){w, a, node, 0, ctx[leader].node_gpus, leader, {NULL, 0, 0}};
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
    return 0;
}

/* Servers on machines of their own: the host CPUs of the nodes after the workers'. *srv_out gets their contexts. */
static int start_machines(sg_world *w, sg_actor_ctx **srv_out)
{
    const int M = w->plan->cpu_machines;
    char name[HOST_NAME_CAP];
    sg_actor_ctx *srv = *srv_out = M ? calloc((size_t)M, sizeof *srv) : NULL;
    if (M && !srv) return 1;
    for (int s = 0; s < M; s++) {
        sg_host_t where = sg_host_by_name(host_name(name, HOST_CPU, w->N + s, 0));
        if (!where) {
            fprintf(stderr, "[gqsim/CRITICAL] Host not found: %s (a server machine for --ps-cpu-machines)\n", name);
            return 1;
        }
        srv[s] = (sg_actor_ctx){w, s, s, 0, 0, 0, {NULL, 0, 0}};
        sg_actor_t act = sg_actor_init("cpu-server", where);
        sg_actor_set_data(act, &srv[s]);
        sg_actor_start(act, w->plan->pipelined ? pipe_machine : cpu_server, 0, NULL);
    }
    return 0;
}

/* Everything world_init, index_hosts and the starts made, once the run is over. */
static void world_free(sg_world *w, host_index *h, sg_actor_ctx *pf, sg_actor_ctx *srv)
{
    const sim_plan *p = w->plan;
    sg_cond_destroy(w->sc_cond);
    free(w->sc_at[0]), free(w->sc_calls);
    if (p->pull_forward) {
        sg_barrier_destroy(w->pf_step);
        for (int k = 0; k < p->n; k++) sg_cond_destroy(w->pf_cond[k]);
        free(w->pf_cond);
        free(w->pf_own), free(w->pf_own_it), free(pf), free(w->pf_held_at), free(w->pf_held), free(w->pf_senders);
        free(w->rs_cpu), free(w->rs_applied_it);
        if (w->pf_hub) free(w->pf_hub->pull_started), free(w->pf_hub);
    }
    for (int a = 0; p->pipelined && a < w->R; a++) sg_sem_destroy(w->pipe_iter[a]);
    for (int n = 0; p->pipelined && n < w->N; n++) sg_sem_destroy(w->pipe_own[n]);
    free(w->pipe_start), free(w->pipe_iter), free(w->pipe_own);
    free(srv);
    free(w->took);
    sg_cond_destroy(w->took_done);
    sg_cond_destroy(w->hub_cond);
    free(w->hub_phases);
    free(w->hub_calls);
    sg_mutex_destroy(w->lock);
    free(h->grid);
}

__attribute__((visibility("default"))) int gq_simgrid_child(const sim_config *c, const sim_plan *p,
                                                            const char *xml_path, node_actors mode, int hub,
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
    host_index h = {.cols = mode != NODE_PER_GPU ? 2 : w.G}; /* GPUs per node in the platform */
    char *argv[] = {"gqsim", cfg[0], cfg[4], "--cfg=contexts/stack-size:256",
                    /* a platform may be wrong: SimGrid says why at ERROR (parse) or CRITICAL (exceptions) */
                    "--log=root.thres:error", cfg[1], cfg[2], cfg[3], NULL};
    int argc = 8;
    simgrid_init(&argc, argv);
    simgrid_load_platform(xml_path);
    sg_actor_ctx *pf = NULL, *srv = NULL;
    if (world_init(&w) || index_hosts(&w, hub, &h)) return 1;
    if (p->pull_forward ? start_overlapped(&w, &h, hosts, &pf) : start_workers(&w, ctx, &h, hosts, mode)) return 1;
    if (start_machines(&w, &srv)) return 1;
    simgrid_run();
    world_free(&w, &h, pf, srv);
    double end = 0, comm = 0;
    for (int a = 0; a < w.R; a++) end = fmax(end, w.end[a]), comm = fmax(comm, w.comm[a]);
    const sg_child_result result = {.iteration_s = end / w.iters, .comm_s = comm / w.iters, .flows = w.flows};
    free(w.end);
    free(w.comm);
    free(ctx);
    ssize_t n = write(fd, &result, sizeof result);
    return n == (ssize_t)sizeof result ? 0 : 1;
}
