/* The SimGrid engine's module (gqsim-simgrid.so), inside: the world of one run, which every actor reaches through
 * its data, the actor's own context, and what its files share -- the flows and sleeps every scheme's actors are made
 * of (sg_flows.c), each scheme family's actors (sg_allreduce.c: ring, hierarchical, allgather; sg_servers.c:
 * ps, ps-sharded, ps-flat; sg_pipeline.c: BytePS's push-pull; sg_overlap.c: TensorFlow's placed servers
 * overlapped with forward; a scheme's own file in sim/schemes/, tree's). Only the module includes it; its symbols are
 * hidden outside the module. */
#ifndef GQ_SG_WORLD_H
#define GQ_SG_WORLD_H

#include "host_names.h"
#include "sim_internal.h"
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

/* The placed servers' exchange aggregated at the hub: one phase (a bucket's push or its replies) in the order every
 * node runs them, phase = 2 x the node's count of leaders_placed calls + 0 (push) or 1 (replies). */
typedef struct hub_state {
    int started;           /* a sender's flow to the hub is under way: the receivers' flows from it may start */
    int out_done, in_done; /* senders whose flow to the hub has ended; receivers whose flow from it has */
    int servers;           /* the phase's servers: the push's receivers, the replies' senders */
} hub_state;

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

/* One bucket's exchange from one worker's side, a scheme's actors (sg_child.c's table by scheme). */
typedef void (*sg_bucket_fn)(sg_world *w, sg_actor_ctx *me, const sim_bucket *b);

/* ---- sg_flows.c: flows, sleeps and the steps several schemes share ---- */
sg_mailbox_t mbox(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sleep_s(double s);
void sleep_until(double t);
long bytes_of(double b);
sg_comm_t put_async(sg_world *w, sg_mailbox_t to, double bytes);
void put(sg_world *w, sg_mailbox_t to, double bytes);
void send_recv(sg_world *w, sg_mailbox_t to, double nbytes, sg_mailbox_t from);
void scaler_allreduce(sg_world *w, const sg_actor_ctx *me, double bytes);
void node_reduce_bcast(sg_world *w, sg_actor_ctx *me, const sim_bucket *b,
                       void (*inter)(sg_world *w, int node, const sim_bucket *b));

/* ---- each scheme's bucket, <its file>_bucket (exchange/schemes.h): in sg_allreduce.c (ring, hierarchical,
 * allgather), sg_servers.c (ps, ps-sharded, ps-flat) or the scheme's own file (sim/schemes/tree.c) ---- */
#define SG_SCHEME_BUCKET(id, file, name, families)                                                                     \
    void file##_bucket(sg_world *w, sg_actor_ctx *me, const sim_bucket *b);
GQ_SCHEMES(SG_SCHEME_BUCKET)

/* ---- sg_servers.c: the servers' actors, and what BytePS's pipeline shares with them ---- */
void ps_server(int argc, char **argv);
void cpu_server(int argc, char **argv);
void host_server(int argc, char **argv);
int machine_flows(const sg_world *w);
void machines_push(sg_world *w, int node, double bytes, sg_comm_t *c);
void machine_replies(sg_world *w, int s, double bytes, sg_comm_t *c);
void node_ring(sg_world *w, const sg_actor_ctx *me, const char *tag, double bytes);

/* ---- sg_pipeline.c: BytePS's stages ---- */
void pipe_up(sg_world *w, sg_actor_ctx *me);
void pipe_down(int argc, char **argv);
void pipe_push(int argc, char **argv);
void pipe_server(int argc, char **argv);
void pipe_machine(int argc, char **argv);
void pipe_pull(int argc, char **argv);

/* ---- sg_overlap.c: TensorFlow's placed servers overlapped ---- */
void pf_node(int argc, char **argv);
void pf_server(int argc, char **argv);

#endif
