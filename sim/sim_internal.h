/* The plan both engines execute: buckets of tensors with their ready times,
 * exact wire sizes and quantizer costs, and the cluster's effective links. */
#ifndef GQ_SIM_INTERNAL_H
#define GQ_SIM_INTERNAL_H

#include "nccl_tree.h"
#include "sim.h"

/* One step of a bucket's program (sim_plan_program): what happens, in turn, once the bucket is ready. The analytic
 * engine prices each step alone on the network (sim_bucket_comm); the SimGrid engine's workers run it (sg_child.c).
 * What is made of several exchanges or of latencies no flow pays is written here once, for both. */
typedef enum {
    STEP_DELAY,    /* codec work, or latency, on the critical path: value seconds */
    STEP_SCALER,   /* TernGrad's shared scaler all-reduced: value bytes a message */
    STEP_EXCHANGE, /* the scheme's exchange of the bucket */
    STEP_FLOATS,   /* the scheme's exchange of value bytes of plain floats each way (PowerSGD's P, then its Q) */
} sim_step_kind;
typedef struct {
    sim_step_kind kind;
    double value;
} sim_step;
#define SIM_STEPS_MAX 8

typedef struct {
    double elements;   /* gradient elements in the bucket */
    double raw_bytes;  /* fp32: 4 per element */
    double up_bytes;   /* a worker's encoded contribution */
    double down_bytes; /* a parameter server's reply to one worker */
    double enc_s;      /* a worker encoding its contribution */
    double dec_s;      /* decoding one contribution-sized buffer */
    double enc_down_s; /* a server (re-)encoding its reply */
    double dec_down_s; /* a worker decoding the reply */
    double srv_dec_s;  /* a server taking in one contribution-sized buffer (decode, and on a host CPU the sum) */
    double srv_enc_s;  /* a server encoding its reply (enc_down_s, or on a host CPU its encode there) */
    double ready_s;    /* when its last gradient is ready, from the start of the iteration */
    double host_s;     /* reduce_on_host: its copies to and from host memory and the CPU's sums on a ring's path */
    /* NODE_SUM_GPUS (BytePS): the gradient as the GPUs made it, which they sum and broadcast and which crosses PCIe
     * to the host and back; the host encoding the node's sum before its push, decoding the reply after its pull */
    double node_bytes, host_enc_s, host_dec_s;
    /* PowerSGD's factors all-reduced (xch_factor_allreduce): up_bytes (and down_bytes) are the first all-reduce's,
     * P's and the tensors sent as floats; up2_bytes the second's, Q's, which waits for the first, the
     * orthogonalisation and the second GEMM (the encode's second half). 0 elsewhere. */
    double up2_bytes;
    /* pull_forward (TensorFlow's placed servers overlapped): the forward time before its layer (when the next step's
     * forward needs it back), and a node's own part of its exchange before the push (the node-local reduce, the
     * encode) and after the pull (the decode, the broadcast to the node's GPUs); 0 elsewhere */
    double need_s, local_up_s, local_down_s;
    /* with servers: the messages a node sends in it to every server that holds some of it (placed_sent's total) */
    double msgs_all;
    /* TernGrad's shared scaler (xch_shares_scaler) where servers or every worker decode the contributions under it:
     * the bytes of each message of the all-reduce of the workers' maxima that comes before the bucket's encode (a
     * float a tensor and segment; sim_scaler_s); 0 elsewhere */
    double scaler_bytes;
    sim_step step[SIM_STEPS_MAX]; /* its program: sim_plan_program */
    int steps;
} sim_bucket;

struct sim_plan {
    sim_bucket *b;
    int n;
    double compute_s;
    /* effective links after the network model's factors: latency, bandwidth (platforms' node routes; under the plain
     * node layout a_far = a_ring = a_inter with more than one node, a_intra with one) */
    double a_intra, b_intra; /* a node's slowest GPU to its first GPU (the node-local reduce) */
    double a_inter, b_inter; /* a node's first GPU to another's, across the NICs */
    double a_far, b_far;     /* the farthest GPU to the first GPU of node 0 (the single parameter server) */
    /* NODE_SUM_GPUS: the ring over a node's GPUs (its longest hop's latency, the bandwidth each hop gets; the reduce-
     * scatter and the all-gather) and every GPU's copy of its slice to the host, all at once */
    double a_node_ring, b_node_ring, a_copy, b_copy;
    double a_ring, b_ring; /* a hop of the ring over all GPUs in rank order: its longest hop, its shared bandwidth */
    double a_ring_step;    /* the latency each further step of a ring pays: a_ring, or without the model's factor
                              where the ring is pipelined */
    int nodes, per_node;   /* nodes used, GPUs per node used (the last may hold fewer) */
    int gpus;              /* GPUs used */
    /* per_gpu_push across nodes: every GPU pushes its own contribution to the servers and reads its own reply, so a
     * node's host moves node_pushes() of them where it moved one sum (node_pushes) */
    int per_gpu_push;
    sim_network net; /* the network model, its factors applied above */
    /* SimGrid's cross-traffic (LV08): a flow also loads its reverse path at 0.05 of its rate (its ACKs), so where
     * every link carries a flow each way -- rings, all-to-all -- each gets 1/1.05 of it; 1 without cross-traffic */
    double reverse_load;
    char network_model[128];
    int tcp;
    int factors; /* PowerSGD's factors all-reduced, two phases a bucket (sim_bucket.up2_bytes) */
    /* ps-sharded with servers or placement other than one even shard per node: `servers` servers on nodes
     * 0..servers-1; ps-flat with HiPress's roots: the P GPUs, `servers` = P. Per bucket k the share of it each
     * serves, share[k * servers + s] (summing to 1); servers 0 otherwise */
    int servers;
    /* ps-sharded on the hosts with servers on machines of their own (ps_cpu_machines, more than one worker node):
     * how many, each serving 1/cpu_machines of every bucket; the workers' nodes serve nothing. 0 otherwise */
    int cpu_machines;
    /* NODE_SUM_GPUS across nodes (BytePS): the buckets pipelined through five stages, each sequential over the
     * buckets and starting a bucket when the stage before has passed it on -- the GPUs' reduce-scatter and copies,
     * the host's encode and push, the servers' sums and replies, the host's decode and copies, the GPUs' all-gather
     * (sim_pipeline) -- so that a NIC pushes one bucket while it pulls another */
    int pipelined;
    double *share;
    /* with servers: per bucket k the messages a node sends server s, msgs[k * servers + s]: one where the bucket is
     * split evenly, one per tensor placed whole (TensorFlow sends each variable on its own) */
    double *msgs;
    /* placed servers (round-robin, greedy) with overlap: a bucket a tensor, each pushed as backward makes it and
     * pulled back when the next step's forward needs it, as TensorFlow's workers read and update variables; the step
     * ends when every server has applied every update (sim_pull_forward) */
    int pull_forward;
    /* with pull_forward, TensorFlow's distributed_replicated: each variable read back within the step, once every
     * server holding it has applied every update and a barrier's two messages have passed; the step ends when every
     * node has every variable back (sim_read_in_step) */
    int read_in_step;
    /* tree: the deepest path of either binary tree, in hops between nodes, and the most half-buckets a node sends
     * (as many as it receives) over the two trees: its parents and children */
    int tree_depth, tree_half_buckets;
    double a_chain, b_chain; /* tree: the chain inside a node, its slowest hop and the bandwidth a flow of it gets */
};

/* The contributions node n pushes to every server in a bucket (and the replies it reads back): its GPUs where each
 * pushes its own (per_gpu_push), else one, the node's sum. */
static inline double node_pushes(const sim_plan *p, int n)
{
    if (!p->per_gpu_push) return 1;
    return n + 1 < p->nodes ? p->per_node : p->gpus - (p->nodes - 1) * p->per_node;
}
/* A server's contributions from every node (its own node's too): the GPUs, or the nodes */
static inline double all_pushes(const sim_plan *p) { return p->per_gpu_push ? p->gpus : p->nodes; }

/* read_in_step: a variable's barrier once its last server has applied (add_sync_queues_and_barrier): two messages'
 * latency, each worker's apply acknowledged and its token passed to the others (their few bytes' CPU not charged) */
static inline double sim_barrier_s(const sim_plan *p) { return 2 * p->a_inter; }

/* With servers: the messages node `node` sends in bucket k (to every server but itself that holds some of it), and
 * as many replies it takes back. */
static inline double placed_sent(const sim_plan *p, size_t k, int node)
{
    const size_t at = k * (size_t)p->servers + (size_t)node; /* its own server's, kept */
    return p->b[k].msgs_all - (node < p->servers && p->share[at] > 0 ? p->msgs[at] : 0);
}

/* Recursive doubling over n members, the all-reduce of small messages of MPICH and Open MPI (and SMPI's rdb): the
 * largest power of two m <= n (rd_pow2), and the rounds on its critical path: log2 m, and where n > m two more (the
 * n - m members beyond it hand their value to a partner first and take the result back last). */
static inline int sim_rd_pow2(int n)
{
    int m = 1;
    while (2 * m <= n) m *= 2;
    return m;
}
static inline int sim_rd_rounds(int n)
{
    const int m = sim_rd_pow2(n);
    return __builtin_ctz((unsigned)m) + 2 * (n > m);
}

/* TernGrad's shared scaler before bucket b's encode: a node's GPUs' maxima to its first GPU and the result back (two
 * messages inside the node), recursive doubling between the nodes' first GPUs. */
static inline double sim_scaler_s(const sim_plan *p, double s)
{
    if (s <= 0) return 0;
    const double intra = p->per_node > 1 ? 2 * (p->a_intra + s / p->b_intra) : 0;
    return intra + sim_rd_rounds(p->nodes) * (p->a_inter + s / p->b_inter);
}

/* The planner's link costs a scheme's links may build on (plan.c). A tree's chain inside a node of the cluster: GPU
 * g to g+1 (the reduce, toward the leader) and back (the broadcast), every hop at once; its slowest hop's latency
 * and the bandwidth a flow of it gets, before the network model's factors. @return -1 out of memory. */
int sim_chain_cost(const cluster_spec *cl, int G, double *lat, double *bw);

/* A bucket of value bytes of plain floats each way, made when b is ready: what a STEP_FLOATS exchanges. */
static inline sim_bucket sim_floats_of(const sim_bucket *b, double bytes)
{
    sim_bucket floats = {0};
    floats.ready_s = b->ready_s, floats.up_bytes = floats.down_bytes = bytes;
    return floats;
}

gq_err sim_plan_build(const sim_config *c, sim_plan *p, char *msg, size_t cap);
/* b's program once its bytes and costs are whole: a shared scaler's all-reduce, the scheme's exchange; PowerSGD's
 * half encode, P's all-reduce, the other half, Q's, the decode; after each exchange the latencies of the scheme's
 * pipeline that its flows do not pay (the scheme's latency_after). */
void sim_plan_program(const sim_config *c, const sim_plan *p, sim_bucket *b);
void sim_plan_free(sim_plan *p);

/* The iteration given per-bucket communication durations (sequential per
 * GPU, each starting when its bucket is ready and the previous one is done). */
double sim_timeline(const sim_plan *p, const double *comm_s, double *exposed);

/* SimGrid's options for the plan's network model (model, factors said explicitly, cross-traffic where the model has
 * it, a TCP window that never throttles a link): the same for the simgrid and smpi engines. */
#define SIM_SG_NET_CFGS 5
void sim_simgrid_net_cfg(const sim_config *c, const sim_plan *p, char cfg[SIM_SG_NET_CFGS][64]);

/* How the SimGrid engine draws a node's GPUs other than its first (the leader): one actor each; one actor standing
 * for all of them (rings and all-gathers, whose hops run beside the leader's); or, where they only ever meet their
 * leader and it waits for them anyway (the leaders' schemes), no actor of their own: the leader moves their flows
 * from their host itself and keeps their clock. The last two on a platform of two hosts per node. */
typedef enum { NODE_PER_GPU, NODE_GROUPED, NODE_FOLDED } node_actors;

/* A node with `here` GPUs in use: its leader's follower actors. */
static inline int node_followers(int here, node_actors mode)
{
    return here > 1 && mode != NODE_FOLDED ? (mode == NODE_GROUPED ? 1 : here - 1) : 0;
}

/* What the SimGrid engine's child hands its parent through a pipe, whole (one write of the struct, one process
 * image on both ends): per iteration, the slowest GPU's time and its exchanges' time, and the flows moved in all
 * iterations. */
typedef struct {
    double iteration_s, comm_s;
    long flows;
} sg_child_result;

/* The SimGrid engine's child (sg_child.c, the module gqsim-simgrid.so): runs the plan on the platform at
 * xml_path with SimGrid, `cfg` its network options (hub: the platform has the placed servers' hub,
 * CLUSTER_XML_HUB), and writes its sg_child_result to fd. @return the child's exit status. Reached only through
 * dlopen from sg_engine.c's forked child. */
int gq_simgrid_child(const sim_config *c, const sim_plan *p, const char *xml_path, node_actors mode, int hub,
                     char cfg[SIM_SG_NET_CFGS][64], int fd);

/* bucket_cost.c, the closed forms of one bucket's exchange alone on the network. A node's own part of bucket b's
 * exchange before its push and after its pull (the node-local reduce and broadcast, which both engines charge as
 * delays). */
void sim_node_local(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down);
/* BytePS (--ps-node-sum gpus): each of the five stages' time for one bucket in its pipeline. */
void sim_pipeline_stages(const sim_config *c, const sim_plan *p, const sim_bucket *b, double st[5]);
/* One bucket's exchange (the scaler round and PowerSGD's two all-reduces included): the analytic engine's time of
 * it, and what the planner paces Horovod's loop of fused buckets with (sim_plan_build). */
double sim_bucket_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b);
/* pull_forward: the step's time and its exchanges' time by the analytic engine: each node's and server's link
 * directions serve their flows first come first served (pulls in forward order, pushes in backward order). */
double sim_pull_forward(const sim_config *c, const sim_plan *p, double *comm_s);
/* read_in_step: the same, each variable read back in the step that pushed it (sim_plan.read_in_step) */
double sim_read_in_step(const sim_config *c, const sim_plan *p, double *comm_s);

gq_err sim_analytic(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap);
gq_err sim_simgrid(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap);
gq_err sim_simgrid_check(const sim_config *c, const sim_plan *p, char *msg, size_t cap);
gq_err sim_smpi(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap);
gq_err sim_smpi_check(const sim_config *c, const sim_plan *p, char *msg, size_t cap);

/* Bytes a GPU sends and receives: the mean over the GPUs, and the busiest GPU's (a node's leader, a tree's). */
typedef struct {
    double up, down, busiest_up, busiest_down;
} sim_gpu_bytes;

/* Per-GPU traffic of one iteration, for the result: its scheme's traffic summed over the buckets. */
void sim_traffic(const sim_config *c, const sim_plan *p, sim_gpu_bytes *t);

/* A scheme's part of the simulator, one file each in sim/schemes/ and a line in its registry: the closed form of one
 * bucket's exchange alone on the network (the analytic engine's, and Horovod's loop's pacing), and the bytes a GPU
 * sends and receives for a bucket, the mean over the GPUs (bytes_per_gpu_up and _down) and the busiest's
 * (bytes_busiest_gpu_up). */
typedef struct {
    int search_order; /* where advise tries it among the schemes (ties between configurations keep this order) */
    double (*bucket_comm)(const sim_config *c, const sim_plan *p, const sim_bucket *b);
    void (*traffic)(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t);
    /* the latencies of its pipeline that no flow pays, after each exchange (sim_plan_program); NULL: none */
    double (*latency_after)(const sim_plan *p);
    /* the links only it uses, once the plan's common ones are set with the network model's factors (p->net):
     * @return 0, or -1 out of memory; NULL: none */
    int (*links)(const sim_config *c, sim_plan *p);
    /* where every bucket is split evenly over servers, the segments of a tensor, each with its own header, given
     * the K servers on nodes; NULL: 1 (whole tensors to one place, or a ring's chunks re-quantized at each hop) */
    size_t (*segments)(const sim_config *c, const sim_plan *p, int servers);
} sim_scheme;
/* A scheme row's traffic where a GPU sends its own contribution and gets the reply, whatever happens inside its
 * node (ps, ps-sharded): every GPU alike. */
void sim_traffic_own(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t);
/* Every GPU alike: up and down, the busiest's the mean. */
void sim_traffic_alike(sim_gpu_bytes *t, double up, double down);
/* The scheme's row; NULL past SYNC_COUNT. */
const sim_scheme *sim_scheme_of(sync_kind s);

#endif
