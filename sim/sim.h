/* Synchronous data-parallel training on a GPU cluster, one iteration:
 * forward, then backward layer by layer in reverse order, with each layer's
 * gradient (weights and biases as separate tensors) exchanged through the
 * chosen synchronisation scheme, compressed by a real quantizer from quant/.
 * Two engines share one plan (tensors, fusion buckets, ready times, exact
 * encoded sizes, encode/decode costs): SimGrid's flow-level network model,
 * and an alpha-beta formula without contention as a cross-check
 * (docs/simulation.md). */
#ifndef GQ_SIM_H
#define GQ_SIM_H

#include <stddef.h>

#include "codec_cost.h"
#include "exchange.h"
#include "gq_error.h"
#include "model.h"
#include "platform.h"
#include "qz.h"

typedef enum { ENGINE_SIMGRID, ENGINE_ANALYTIC, ENGINE_SMPI } engine_kind;
extern const char *const ENGINE_NAMES[]; /* as --engine names them, NULL-terminated, in run_params.c */

/* A network model, a row of network_model.c's table: SimGrid's LV08 (TCP: latency x 13.01, bandwidth x 0.97,
 * cross-traffic) or CM02 (factors 1, no cross-traffic), optionally with its factors replaced by calibrated ones:
 * `LV08:latency-factor=1.2,bandwidth-factor=0.956`. What the engines do differently under a model is a field
 * here, never a comparison of its name. */
typedef struct {
    char name[8];
    double latency_factor, bandwidth_factor;
    int crosstraffic; /* a flow's acknowledgements load the reverse direction (SimGrid's network/crosstraffic) */
} sim_network;
/* @return 0, or -1 with the reason in msg. */
int sim_network_parse(const char *spec, sim_network *n, char *msg, size_t cap);
/* The model a platform gets when it names none: LV08 over TCP, CM02 over RDMA. */
const char *sim_network_default(int rdma);

/* SimGrid's network calibration in two segments, from a ping-pong between
 * two nodes of cluster c (GPU 0 of each; `bytes` and one-way `seconds`, k
 * sizes): the latency is the smallest message's time, the bandwidth
 * 1 / slope of a least-squares line through the sizes of 64 KiB and more;
 * each factor is measured / the model's own (the route's latencies added,
 * its narrowest link) on top of `base` (LV08 or CM02). Fills n with the
 * calibrated model; alpha and beta get the measured latency (s) and
 * bandwidth (bytes/s). @return 0, or -1 with the reason in msg. */
int sim_network_calibrate(const cluster_spec *c, const char *base, const double *bytes, const double *seconds, size_t k,
                          sim_network *n, double *alpha, double *beta, char *msg, size_t cap);

/* How ps-sharded places the gradient on its servers: `even` splits every
 * bucket evenly over them (one server per node: gqsim's default); as
 * TensorFlow places variables, whole tensors in the model's order (each
 * layer's weights, then its biases): `round-robin` (replica_device_setter's
 * default) or `greedy` (GreedyLoadBalancingStrategy: to the server with the
 * fewest bytes so far). ps-flat's servers are the GPUs: `even` (every bucket
 * split over all of them), or `roots` as HiPress's CaSync-PS places them:
 * tensor k of the model whole on GPU k mod P, a tensor of at least the
 * partition's bytes split evenly over all P. */
typedef enum { PS_EVEN = 0, PS_ROUND_ROBIN = 1, PS_GREEDY = 2, PS_ROOTS = 3 } ps_placement;
extern const char *const PS_PLACEMENT_NAMES[]; /* NULL-terminated, in run_params.c */
const char *ps_placement_name(ps_placement k);
int ps_placement_parse(const char *s, ps_placement *out);
/* When a placed server's worker reads each variable back (sim_run_params.ps_pull; --ps-pull forward|round|backward). */
typedef enum { PS_PULL_FORWARD = 0, PS_PULL_ROUND = 1, PS_PULL_BACKWARD = 2 } ps_pull_mode;

/* ps-sharded on the hosts' CPUs: who sums a node's GPUs' gradients before the servers. `host`: every GPU sends its
 * own up to its host, which adds them and pushes the node's sum; `gpus`: the GPUs with NCCL, one sum copied to the
 * host (BytePS); `none`: nobody -- every GPU pushes its own gradient to every server and reads every reply itself
 * (TensorFlow's parameter_server: each tower's gradients go to the servers, which add them). */
typedef enum { NODE_SUM_HOST = 0, NODE_SUM_GPUS = 1, NODE_SUM_NONE = 2 } node_sum;

/* "ps-sharded", or with servers, placement or server device other than the defaults
 * "ps-sharded:shards=K,placement=P,on=cpu" (the keys that differ; ",sum=gpus" where the node's GPUs sum first,
 * ",sum=none" where every GPU pushes its own,
 * ",machines=M" with servers on machines of their own); "ps" or "ps:on=cpu"; "ps-flat:placement=roots,partition=B"
 * with roots. */
void sync_describe(sync_kind s, int ps_shards, ps_placement placement, int pull, int ps_on_cpu, node_sum sum,
                   int cpu_machines, double partition_bytes, char *out, size_t cap);

/* One tensor's codec in a per-tensor plan (sim_config.tensor_codec): its quantizer and what it costs, as the
 * configuration's own encode_ns ... decode_fixed_ns are for the whole model's. */
typedef struct {
    qz_params quant;
    double encode_ns, decode_ns, encode_fixed_ns, decode_fixed_ns;
} sim_tensor_codec;

/* The run parameters, run_params.c's rows: how the gradients meet, fusion, overlap, where the codec runs, what the
 * engines charge. One struct, embedded by value in the request (sim_request.run, as the user set it) and in the
 * configuration an engine runs (sim_config.run, copied whole from the request): a parameter is a field here, a row
 * there, and the code that reads it. */
typedef struct {
    sync_kind sync;
    int ps_shards;             /* ps-sharded: parameter servers, on the first nodes' leaders; 0: one per node */
    ps_placement ps_placement; /* ps-sharded: how the gradient is split over them */
    int ps_pull;               /* placed servers (round-robin, greedy) with overlap, when a worker reads each variable
                                  back (a ps_pull_mode): PS_PULL_FORWARD, as the next forward needs it, each gradient
                                  pushed as made; PS_PULL_ROUND, every push and reply in one round after backward;
                                  PS_PULL_BACKWARD, each gradient pushed as made and its variable read back within the
                                  step once every worker's update of it is applied (plan->pull_forward, ->read_in_step) */
    int ps_on_cpu;             /* ps, ps-sharded: the servers aggregate on their node's host CPU (every GPU's
                                  contribution crosses PCIe to it), not on its first GPU */
    node_sum node_sum;         /* ps-sharded with ps_on_cpu, who sums a node's gradients: NODE_SUM_HOST, every GPU sends
                                  its own to the host, which adds them; NODE_SUM_GPUS, the node's GPUs sum them (NCCL)
                                  and the sum is copied to the host, which encodes it with the host's codec costs below,
                                  pushes it and decodes the reply, copied back and broadcast (BytePS's push-pull);
                                  NODE_SUM_NONE, every GPU's encoded gradient is copied to its host and pushed from
                                  there to the servers as a message of its own, every GPU reading its own reply
                                  (TensorFlow's parameter_server) */
    int ps_cpu_machines;       /* ps-sharded with ps_on_cpu: the servers on this many more machines, without GPUs,
                                  with the workers' NIC kind, every bucket split evenly over them; 0: the servers on
                                  the workers' hosts */
    int reduce_on_host;        /* ring: each bucket copied to host memory, summed by the CPU, copied back */
    int ring_pipelined;        /* ring: steps streamed on open connections, as NCCL pipelines them: the network
                                  model's latency factor paid once a bucket, the other steps the links' latency */
    xch_policy exchange;       /* which tensors are quantized, the server's reply */
    int overlap;               /* 1: a bucket leaves as soon as its gradients are ready */
    double fusion_bytes;       /* bucket size of raw fp32 gradients; 0 = one bucket per tensor */
    double fusion_cycle_s;     /* > 0: Horovod-style cycles: tensors ready within one cycle
                                  are fused (up to fusion_bytes) and leave at its end */
    double partition_bytes;    /* ps-sharded with placement: a tensor of more fp32 bytes is cut into
                                  ceil(bytes / this) even pieces, each placed as a variable of its own */
    int fusion_wait_previous;  /* with cycles: the next cycle starts no sooner than the previous cycle's
                                  all-reduces end, and takes everything ready by then (Horovod's loop) */
    engine_kind engine;
    const char *network_model; /* NULL: LV08 for TCP links, CM02 for RDMA; see sim_network_parse */
    int iterations;            /* simulated iterations (SimGrid engine); >= 1 */
    int exact_flows;           /* SimGrid: every ring step and every all-to-all pair as its own
                                  message, to check the aggregated flows (slow at scale) */
    /* read by the scenario layer (scenario.c), which turns them into the configuration's costs above */
    double gpu_images_per_s; /* > 0: this GPU's measured throughput (in `precision`), instead of a profile */
    int precision;           /* precision_kind: fp32; amp (fp16 gradients, no codec for them); tf32 */
    codec_device codec_on;   /* where encode and decode run (default the GPU) */
    const char *codec_costs; /* a codec cost profile file (quant,device,...), or NULL */
    double quant_rate;       /* > 0: codec cost as this many elements/s on every device, nothing fixed */
    double quant_cost_scale; /* codec cost multiplier */
    double compute_jitter;   /* stragglers: each GPU's compute time's coefficient of variation (Gaussian) */
    int ef;                  /* error feedback: EF_AUTO (on for the biased quantizers), EF_ON, EF_OFF */
    const char *framework;   /* a preset (frameworks.h) for the parameters not given; NULL: none */
} sim_run_params;

typedef struct {
    const model_t *model;
    const char *model_source; /* the model as named (built-in name or .model path): the smpi engine reloads it */
    const cluster_spec *cluster;
    int gpus;             /* workers, one per GPU */
    qz_params quant;      /* fp32 = no compression */
    sim_run_params run;   /* the run parameters, the request's (scenario_run copies them whole) */
    int grads_fp16;       /* the GPUs make fp16 gradients (mixed precision): 2 bytes an element inside a node,
                             nothing to encode when they travel as fp16 */
    double server_sum_ns; /* with ps_on_cpu or reduce_on_host: the host adding an element into a sum, */
    double server_decode_ns, server_decode_fixed_ns; /* decoding a contribution first (quantized tensors), */
    double server_encode_ns, server_encode_fixed_ns; /* encoding its reply (codec_server_cost_cpu) */
    double rpc_send_s, rpc_recv_s; /* ps, ps-sharded: each message between a worker and a server costs its sender
                                      and its receiver this much CPU time, one message after another (the
                                      platform's rpc=, from data/rpc_costs.csv); 0: nothing */
    double fwd_s, bwd_s;           /* compute per iteration per GPU */
    double encode_ns, decode_ns;   /* codec cost per element (0 for fp32) */
    double encode_fixed_ns, decode_fixed_ns; /* and per call (one call per tensor) */
    int codec_serial;    /* 1: the codec runs on the GPU, its kernels delay backward (a GPU is one stream) */
    double host_copy_bw; /* > 0: the codec runs on the host: the tensor crosses PCIe at this many bytes/s
                            before encoding and after decoding the reply */
    /* a per-tensor plan: tensor k (xch_tensors' order) travels as tensor_codec[k].quant at its costs, fp32 where
     * that is fp32 (fp32_below and fp32_last then do not apply); NULL: every tensor as quant, at the costs above */
    const sim_tensor_codec *tensor_codec;
    size_t ntensor_codec;
} sim_config;

typedef struct {
    double iteration_s;          /* per iteration, steady state */
    double compute_s;            /* forward + backward */
    double comm_exposed_s;       /* iteration time not hidden behind compute */
    double comm_s;               /* the exchanges' whole time, bucket after bucket, hidden or not (the slowest GPU's) */
    double encode_s, decode_s;   /* per GPU per iteration (on its critical path or not; with NODE_SUM_GPUS, its
                                    node's host's) */
    double bytes_up, bytes_down; /* per GPU per iteration, as sent and received: the mean over the GPUs */
    double bytes_busiest_up, bytes_busiest_down; /* the same of the GPU that sends (receives) the most */
    int buckets;
    long flows; /* the SimGrid engine: flows it moved over all iterations (its work, which tests bound); else 0 */
    char network_model[128];
} sim_result;

/* The engines, behind one interface (analytic, SimGrid; engines to come
 * plug in here): each runs a plan and fills a result. */
typedef struct sim_plan sim_plan;
typedef struct {
    const char *summary; /* one line for help */
    gq_err (*run)(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap);
    /* What the engine refuses before it runs (a scheme it lacks, a limit), the reason in msg; run() refuses the same.
     * NULL: it runs every plan. */
    gq_err (*check)(const sim_config *c, const sim_plan *p, char *msg, size_t cap);
} sim_engine;
/* The engine of a kind; NULL if none. */
const sim_engine *sim_engine_get(engine_kind k);
/* By name ("simgrid", "analytic"). @return 0, or -1 if unknown. */
int sim_engine_parse(const char *name, engine_kind *k);
const char *sim_engine_name(engine_kind k);

/* Every scheme, in the order advise tries them (each scheme's row in sim/schemes/ gives its place; ties between
 * configurations keep this order): out has room for SYNC_COUNT. */
void sim_schemes_in_search_order(sync_kind out[SYNC_COUNT]);

/* Runs one configuration. SimGrid runs in a forked child (its engine can be
 * initialised once per process), so a platform SimGrid rejects is an error,
 * not an abort. On error writes one line into msg. */
gq_err sim_run(const sim_config *c, sim_result *r, char *msg, size_t cap);
/* Whether c's engine would run c: the plan built and the engine's refusals asked, nothing simulated (advise screens
 * with the analytic engine what another engine runs in the end). On a refusal writes one line into msg. */
gq_err sim_check(const sim_config *c, char *msg, size_t cap);

/* The SimGrid engine's limit, in worker actors (one per GPU; where a node's
 * GPUs other than the first are drawn as one host, two per node for rings
 * and all-gathers, one per node for the leaders' schemes): 16384. Each
 * actor's stack has a guard page, which splits a memory mapping, and the
 * kernel allows 65530 mappings (vm.max_map_count) -- past about 32000 actors
 * SimGrid fails; and with one actor per GPU, 16384 already take about a
 * minute. So 16384 GPUs with one actor each; on 4-GPU nodes 32768 GPUs in a
 * ring, 65536 with ps-sharded or hierarchical. The analytic engine has no
 * limit. */
#define SIM_SIMGRID_MAX_ACTORS 16384
/* ps-flat moves P(P - 1) flows a bucket each way: 128 GPUs take 3 s, 256 over ten minutes (SimGrid 3.32 on 2
 * cores); past this many GPUs, the analytic engine */
#define SIM_SIMGRID_MAX_FLAT_GPUS 128
/* A user's XML: hosts of every kind (GPUs, CPUs, switches drawn as hosts), four an actor at most */
#define SIM_SIMGRID_MAX_XML_HOSTS (4 * SIM_SIMGRID_MAX_ACTORS)
/* Rough cost of a SimGrid run on this kind of machine, from measurements
 * (docs/performance.md#simulation-cost): seconds and megabytes. For a
 * warning before long runs, the refusal beyond the limits and the spread of runs over MPI ranks. buckets: the
 * plan's (0: not known, counted as 1), which ps-flat's all-to-all grows with. */
double sim_simgrid_cost_s(const cluster_spec *cl, sync_kind sync, int gpus, int iterations, int buckets);
double sim_simgrid_cost_mb(const cluster_spec *cl, sync_kind sync, int gpus);

#endif
