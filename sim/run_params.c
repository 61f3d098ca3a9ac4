/* The run-parameter table and its readers; see run_params.h. */
#include "run_params.h"

#include "frameworks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_number.h"
#include "gq_table.h"
#include "phys_range.h"
#include "sim_bounds.h"

const char *const PS_PLACEMENT_NAMES[] = {"even", "round-robin", "greedy", "roots", NULL};
const char *const CODEC_DEVICE_NAMES[] = {"gpu", "cpu", "none", NULL};
const char *const ENGINE_NAMES[] = {"simgrid", "analytic", "smpi", NULL};
static const char *const PS_ON_NAMES[] = {"gpu", "cpu", NULL};
static const char *const NODE_SUM_NAMES[] = {"host", "gpus", "none", NULL}; /* node_sum's order */
static const char *const REDUCE_ON_NAMES[] = {"gpu", "host", NULL};
static const char *const RING_STEPS_NAMES[] = {"messages", "pipelined", NULL};
static const char *const PS_PULL_NAMES[] = {"forward", "round", "backward", NULL};
static const char *const FUSION_WAIT_NAMES[] = {"cycle", "previous", NULL};
static const char *const EF_NAMES[] = {"auto", "on", "off", NULL}; /* EF_AUTO, EF_ON, EF_OFF */

static int check_network(const char *v, char *msg, size_t cap)
{
    sim_network n;
    return sim_network_parse(v, &n, msg, cap);
}

#define AT(field) offsetof(sim_request, run.field)

/* Command-line help shows the rows in this order. */
const run_param RUN_PARAMS[] = {
    {.key = "compute_images_per_s",
     .flag = "--gpu-images-per-s",
     .meta = "X",
     .type = RP_REAL,
     .offset = AT(gpu_images_per_s),
     .lo = PHYS_IMAGE_RATE_LO, /* slower than an image a day is not a GPU */
     .hi = PHYS_IMAGE_RATE_HI,
     .unit = "images/s",
     .scope = RP_SIM | RP_COLUMN,
     .help = "this GPU's measured images/s (in --precision), instead of its profile"},
    {.key = "precision",
     .flag = "--precision",
     .type = RP_ENUM,
     .offset = AT(precision),
     .names = PRECISION_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "the GPUs' arithmetic: fp32 (default); amp, mixed precision (its measured rate, gradients sent as fp16 "
             "with no codec, as AMP makes them); tf32 (A100 and later: its measured rate, fp32 gradients)"},
    {.key = "sync",
     .flag = "--sync",
     .type = RP_ENUM,
     .offset = AT(sync),
     .dflt = SYNC_PS_SHARDED,
     .names = SYNC_NAMES,
     .scope = RP_SIM | RP_SMPI,
     .help = "synchronisation scheme (default {default})"},
    {.key = "ps_shards",
     .flag = "--ps-shards",
     .meta = "K",
     .type = RP_COUNT,
     .offset = AT(ps_shards),
     .lo = 1,
     .hi = SIM_MAX_PS_SHARDS,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ps-sharded: K parameter servers, on the first K nodes (default one per node)",
     .schemes = SYNC_BIT(SYNC_PS_SHARDED),
     .off_scheme = "--ps-shards and --ps-placement shape --sync ps-sharded, not %s"},
    {.key = "ps_placement",
     .flag = "--ps-placement",
     .type = RP_ENUM,
     .offset = AT(ps_placement),
     .names = PS_PLACEMENT_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ps-sharded: every bucket split evenly (default), or whole tensors as TensorFlow places variables; "
             "ps-flat: evenly, roots: tensor k whole on GPU k mod P, one of at least --partition bytes split "
             "evenly over all (HiPress's CaSync-PS), or greedy: each tensor whole on the GPU holding the fewest "
             "elements so far (TensorFlow's local parameter servers on the GPUs)"},
    {.key = "ps_pull",
     .flag = "--ps-pull",
     .type = RP_ENUM,
     .offset = AT(ps_pull),
     .names = PS_PULL_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "placed servers (--ps-placement round-robin|greedy) with --overlap on: each gradient pushed as backward "
             "makes it and each variable read back as the next forward needs it (forward, default: TensorFlow's "
             "parameter_server), every push and reply in one round after backward (round), or each gradient pushed "
             "as made and its variable read back within the step once every worker's update of it is applied "
             "(backward: distributed_replicated's barrier a variable)"},
    {.key = "partition",
     .flag = "--partition",
     .meta = "BYTES",
     .type = RP_REAL,
     .offset = AT(partition_bytes),
     .lo = 0,
     .integral = 1,
     .hi = SIM_MAX_FUSION_BYTES,
     .unit = "bytes",
     .scope = RP_SIM | RP_COLUMN,
     .help = "ps-sharded with placement: a tensor of more fp32 bytes is cut into ceil(its bytes / BYTES) even pieces, "
             "each placed as a variable of its own (TensorFlow's variable_axis_size_partitioner; BytePS's "
             "BYTEPS_PARTITION_BYTES); ps-flat with roots: a tensor of at least BYTES is cut into one piece a GPU "
             "(HiPress); default 0, whole"},
    {.key = "ps_on",
     .flag = "--ps-on",
     .type = RP_ENUM,
     .offset = AT(ps_on_cpu),
     .names = PS_ON_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ps, ps-sharded: servers aggregate on a node's first GPU (default) or its host CPU (over PCIe)",
     .families = SCHEME_NODE_SERVERS,
     .off_scheme = "--ps-on cpu places the servers of --sync ps or ps-sharded, not %s"},
    {.key = "ps_node_sum",
     .flag = "--ps-node-sum",
     .type = RP_ENUM,
     .offset = AT(node_sum),
     .names = NODE_SUM_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ps-sharded with --ps-on cpu: every GPU's gradient crosses PCIe and the host adds them (host, default), "
             "or the node's GPUs sum them with NCCL and one fp32 sum crosses PCIe, the host encoding it (gpus: "
             "BytePS's push-pull), or nobody: every GPU pushes its own gradient to the servers and reads the reply "
             "itself (none: TensorFlow's parameter_server)"},
    {.key = "ps_cpu_machines",
     .flag = "--ps-cpu-machines",
     .meta = "K",
     .type = RP_COUNT,
     .offset = AT(ps_cpu_machines),
     .lo = 1,
     .hi = SIM_MAX_PS_SHARDS,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ps-sharded with --ps-on cpu: the servers on K more machines without GPUs, each with the workers' NIC, "
             "every bucket split evenly over them (BytePS's CPU-only servers); default none: on the workers' hosts"},
    {.key = "reduce_on",
     .flag = "--reduce-on",
     .type = RP_ENUM,
     .offset = AT(reduce_on_host),
     .names = REDUCE_ON_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ring: all-reduce on the GPUs (NCCL, default) or staged through host memory: each bucket copied to the "
             "host over PCIe, summed by the CPU, copied back (MPI's all-reduce)",
     .schemes = SYNC_BIT(SYNC_RING),
     .off_scheme = "--reduce-on host stages a ring all-reduce (--sync ring), not %s",
     .engines = ENGINE_BIT(ENGINE_SIMGRID) | ENGINE_BIT(ENGINE_ANALYTIC),
     .off_engine = "--reduce-on host: the %s engine runs the trainer, which reduces on its workers"},
    {.key = "ring_steps",
     .flag = "--ring-steps",
     .type = RP_ENUM,
     .offset = AT(ring_pipelined),
     .names = RING_STEPS_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "ring: each step a message paying the network model's latency factor (default; MPI's ring), or steps "
             "pipelined on open connections paying it once a bucket, the others the links' latency (NCCL)",
     .schemes = SYNC_BIT(SYNC_RING),
     .off_scheme = "--ring-steps pipelined charges the steps of --sync ring, not of another scheme",
     .engines = ENGINE_BIT(ENGINE_SIMGRID) | ENGINE_BIT(ENGINE_ANALYTIC),
     .off_engine = "--ring-steps pipelined charges the steps of --sync ring; the %s engine runs the trainer's ring, "
                   "one MPI message a step"},
    {.key = "downlink",
     .flag = "--downlink",
     .type = RP_ENUM,
     .offset = AT(exchange.downlink),
     .names = DOWNLINK_NAMES,
     .scope = RP_SIM | RP_TRAIN | RP_COLUMN | RP_SMPI,
     .help = "the server's reply (auto: fp32 for fp32, summed levels for terngrad, else re-quantized)",
     .families = SCHEME_REPLY,
     .off_scheme = "--downlink shapes a server's reply; %s has none"},
    {.key = "overlap",
     .flag = "--overlap",
     .type = RP_SWITCH,
     .offset = AT(overlap),
     .dflt = 1,
     .scope = RP_SIM | RP_COLUMN,
     .help = "exchange a bucket as soon as backward has made it (default {default})"},
    {.key = "fusion",
     .flag = "--fusion",
     .meta = "BYTES",
     .type = RP_REAL,
     .offset = AT(fusion_bytes),
     .lo = 0,
     .integral = 1,
     .hi = SIM_MAX_FUSION_BYTES,
     .dflt = 67108864, /* 64 MiB, Horovod's default fusion threshold */
     .unit = "bytes",
     .scope = RP_SIM | RP_COLUMN,
     .help = "fuse tensors into buckets of this many fp32 bytes (default {default}; 0: one per tensor)"},
    {.key = "fusion_cycle",
     .flag = "--fusion-cycle",
     .meta = "SECONDS",
     .type = RP_REAL,
     .offset = AT(fusion_cycle_s),
     .lo = 0,
     .hi = SIM_MAX_FUSION_CYCLE_S,
     .dflt = 0.005, /* 5 ms, Horovod's default cycle time */
     .unit = "seconds",
     .scope = RP_SIM | RP_COLUMN,
     .help = "Horovod's cycle: tensors ready within one leave together (default {default})"},
    {.key = "fusion_wait",
     .flag = "--fusion-wait",
     .type = RP_ENUM,
     .offset = AT(fusion_wait_previous),
     .names = FUSION_WAIT_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "with cycles: every cycle on its clock (default), or, as Horovod's loop runs, the next cycle not before "
             "the previous one's all-reduces end, taking everything ready by then (back-pressure)"},
    {.key = "engine",
     .flag = "--engine",
     .type = RP_ENUM,
     .offset = AT(engine),
     .names = ENGINE_NAMES,
     .scope = RP_SIM,
     .help = "SimGrid's flow model, the alpha-beta cross-check, or the trainer's exchange under SMPI (default "
             "simgrid)"},
    {.key = "network_model",
     .flag = "--network-model",
     .meta = "LV08|CM02[:latency-factor=X,bandwidth-factor=Y]",
     .type = RP_TEXT,
     .offset = AT(network_model),
     .check = check_network,
     .scope = RP_SIM | RP_COLUMN,
     .help = "SimGrid network model (default LV08 on TCP, CM02 on RDMA), with calibrated factors if given (train: "
             "recorded in the --measured-out row, for validate)"},
    {.key = "fp32_below",
     .flag = "--fp32-below",
     .meta = "N",
     .type = RP_REAL,
     .offset = AT(exchange.fp32_below),
     .lo = 0,
     .integral = 1,
     .hi = SIM_MAX_FP32_BELOW,
     .unit = "elements",
     .scope = RP_SIM | RP_TRAIN | RP_COLUMN | RP_SMPI,
     .help = "tensors with fewer elements travel in fp32"},
    {.key = "fp32_last",
     .flag = "--fp32-last",
     .type = RP_FLAG,
     .offset = AT(exchange.fp32_last),
     .scope = RP_SIM | RP_TRAIN | RP_COLUMN | RP_SMPI,
     .help = "the classifier (last layer with weights) travels in fp32"},
    {.key = "codec_on",
     .flag = "--codec-on",
     .type = RP_ENUM,
     .offset = AT(codec_on),
     .names = CODEC_DEVICE_NAMES,
     .scope = RP_SIM | RP_COLUMN,
     .help = "where encode and decode run: the GPU (default; its kernels delay backward), the host CPU (beside the "
             "GPU, the gradient crossing PCIe), or nowhere (a free codec, the upper bound)"},
    {.key = "codec_costs",
     .flag = "--codec-costs",
     .meta = "FILE.csv",
     .type = RP_TEXT,
     .offset = AT(codec_costs),
     .scope = RP_SIM,
     .help = "codec costs per quantizer and device (from 'gqsim quant calibrate'), before the built-in ones"},
    {.key = "quant_cost_scale",
     .flag = "--quant-cost-scale",
     .meta = "X",
     .type = RP_REAL,
     .offset = AT(quant_cost_scale),
     .lo = 0,
     .hi = 1e6,
     .dflt = 1,
     .unit = "a factor",
     .scope = RP_SIM,
     .help = "multiply the codec cost"},
    {.key = "quant_rate",
     .flag = "--quant-rate",
     .meta = "ELEMENTS_PER_S",
     .type = RP_REAL,
     .offset = AT(quant_rate),
     .lo = PHYS_CODEC_RATE_LO, /* slower than an element a second is not a codec */
     .hi = PHYS_CODEC_RATE_HI,
     .unit = "elements/s",
     .scope = RP_SIM,
     .help = "codec cost as a flat rate of elements a second, instead of the codec's profile"},
    {.key = "iterations",
     .flag = "--iterations",
     .meta = "N",
     .type = RP_COUNT,
     .offset = AT(iterations),
     .lo = 1,
     .hi = 100,
     .dflt = 1,
     .scope = RP_SIM,
     .help = "simulated iterations (SimGrid; default {default}, the steady state)",
     .engines = ENGINE_BIT(ENGINE_SIMGRID),
     .off_engine = "--iterations is the SimGrid engine's; the %s engine has no use for it"},
    {.key = "exact_flows",
     .flag = "--exact-flows",
     .type = RP_FLAG,
     .offset = AT(exact_flows),
     .scope = RP_SIM,
     .help = "SimGrid: every ring step, pair and worker-server pair as its own message (slow; checks the aggregated "
             "flows)",
     .schemes = ~SYNC_BIT(SYNC_TREE),
     .off_scheme = "--exact-flows: a tree's flows are already one an edge each way; its pipeline's chunks have no "
                   "message of their own to check",
     .engines = ENGINE_BIT(ENGINE_SIMGRID),
     .off_engine = "--exact-flows is the SimGrid engine's; the %s engine has no use for it"},
    {.key = "compute_jitter",
     .flag = "--compute-jitter",
     .meta = "CV",
     .type = RP_REAL,
     .offset = AT(compute_jitter),
     .lo = 0,
     .hi = 0.5, /* a Gaussian time with a larger spread is negative too often to mean anything */
     .dflt = SIM_GPU_SPREAD_CV,
     .unit = "a coefficient of variation",
     .scope = RP_SIM | RP_COLUMN,
     .help = "stragglers: each GPU's compute time Gaussian with this coefficient of variation, every step waiting "
             "for the slowest (default 0.0148, identical GPUs' published spread; 0 on gpu=cpu; 0: all equal)"},
    {.key = "ef",
     .flag = "--ef",
     .type = RP_ENUM,
     .offset = AT(ef),
     .names = EF_NAMES,
     .scope = RP_SIM | RP_TRAIN | RP_COLUMN,
     .help = "error feedback (auto: on for the biased signsgd, topk, bingrad-b, powersgd, except in a ring that "
             "re-quantizes at each hop, as the trainer does); the simulator charges its pass over the gradient (a read "
             "and a write) to each encode"},
    {.key = "framework",
     .flag = "--framework",
     .meta = "horovod-nccl|horovod-0.20|horovod-mpi|pytorch-ddp|tf-ps|tf-replicated|byteps|hipress",
     .type = RP_TEXT,
     .offset = AT(framework),
     .check = framework_check,
     .scope = RP_SIM | RP_COLUMN,
     .help = "a framework's settings for the run parameters not given (sync, fusion, cycle, overlap, servers: "
             "docs/simulation.md#frameworks)"},
    {.key = "no_scaler_sharing",
     .flag = "--no-scaler-sharing",
     .type = RP_FLAG,
     .offset = AT(exchange.no_scaler_sharing),
     .scope = RP_TRAIN | RP_SMPI,
     .help = "terngrad: each worker its own scaler"},
};
const size_t RUN_PARAM_COUNT = sizeof RUN_PARAMS / sizeof RUN_PARAMS[0];
_Static_assert(sizeof RUN_PARAMS / sizeof RUN_PARAMS[0] <= RUN_PARAMS_MAX, "RUN_PARAMS_MAX is too small");

const run_param *run_param_by_key(const char *key)
{
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++)
        if (strcmp(RUN_PARAMS[i].key, key) == 0) return &RUN_PARAMS[i];
    return NULL;
}

const run_param *run_param_by_flag(const char *flag)
{
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++)
        if (strcmp(RUN_PARAMS[i].flag, flag) == 0) return &RUN_PARAMS[i];
    return NULL;
}

int run_param_column(const run_param *p)
{
    if (!(p->scope & RP_COLUMN)) return -1;
    int k = 0;
    for (const run_param *r = RUN_PARAMS; r < p; r++) k += !!(r->scope & RP_COLUMN);
    return k < RUN_COLUMNS_MAX ? k : -1;
}

void *run_param_at(const run_param *p, sim_request *q) { return (char *)q + p->offset; }

/* Enum fields are stored as int: every enum of the table has int's size (checked where they are declared). */
_Static_assert(sizeof(sync_kind) == sizeof(int) && sizeof(downlink_kind) == sizeof(int) &&
                   sizeof(ps_placement) == sizeof(int) && sizeof(engine_kind) == sizeof(int) &&
                   sizeof(codec_device) == sizeof(int),
               "an enum parameter is not int-sized");

void run_param_allowed(const run_param *p, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    if (p->type == RP_SWITCH) { /* on first, as people say it */
        snprintf(out, cap, "on|off");
        return;
    }
    for (int i = 0; p->names && p->names[i] && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "|" : "", p->names[i]);
}

/* "gpu, cpu or none" for a message. */
static void names_in_words(const char *const *names, char *out, size_t cap)
{
    size_t k = 0, n = 0;
    while (names[k]) k++;
    out[0] = '\0';
    for (size_t i = 0; i < k && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i == 0 ? "" : i + 1 == k ? " or " : ", ", names[i]);
}

/* A bound as people write it: 1e9, not 1e+09. out has room for 32. */
static const char *bound(double v, char out[32])
{
    char raw[32];
    snprintf(raw, sizeof raw, "%g", v);
    const char *e = strchr(raw, 'e');
    size_t k = e ? (size_t)(e - raw) + 1 : strlen(raw);
    memcpy(out, raw, k);
    if (e) {
        const char *d = e + 1;
        if (*d == '-') out[k++] = '-';
        if (*d == '+' || *d == '-') d++;
        while (d[0] == '0' && d[1]) d++;
        while (*d) out[k++] = *d++;
    }
    out[k] = '\0';
    return out;
}

static gq_err run_param_parse(const run_param *p, sim_request *q, const char *text, char *msg, size_t cap);
static unsigned long long bit_of(const run_param *p) { return 1ULL << (size_t)(p - RUN_PARAMS); }
int run_param_given(const run_param *p, const sim_request *q) { return (q->given & bit_of(p)) != 0; }
void run_param_forget(const run_param *p, sim_request *q) { q->given &= ~bit_of(p); }
void run_param_mark(const run_param *p, sim_request *q) { q->given |= bit_of(p); }

gq_err run_param_set(const run_param *p, sim_request *q, const char *text, char *msg, size_t cap)
{
    gq_err e = run_param_parse(p, q, text, msg, cap);
    if (e == GQ_OK) q->given |= bit_of(p);
    return e;
}

static gq_err run_param_parse(const run_param *p, sim_request *q, const char *text, char *msg, size_t cap)
{
    void *at = run_param_at(p, q);
    char *end;
    if (strlen(text) >= RUN_PARAM_TEXT_MAX)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "%s '%.40s...' is too long", p->key, text);
    switch (p->type) {
    case RP_REAL: {
        double x = 0;
        if (gq_parse_real_in(text, p->lo, p->lo_open, p->hi, &x) != 0 || (p->integral && x != floor(x))) {
            char lo[32], hi[32];
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s '%.40s' must be %s%s in %c%s, %s]", p->key, text,
                           p->integral ? "a whole number of " : "", p->unit, p->lo_open ? '(' : '[', bound(p->lo, lo),
                           bound(p->hi, hi));
        }
        *(double *)at = x;
        return GQ_OK;
    }
    case RP_COUNT: {
        errno = 0;
        const unsigned long long x = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
        if (text[0] < '0' || text[0] > '9' || *end || errno || x < (unsigned long long)p->lo ||
            x > (unsigned long long)p->hi)
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s '%.40s' must be an integer in %.0f..%.0f", p->key, text, p->lo,
                           p->hi);
        *(int *)at = (int)x;
        return GQ_OK;
    }
    case RP_ENUM:
        for (int i = 0; p->names[i]; i++)
            if (strcmp(text, p->names[i]) == 0) return *(int *)at = i, GQ_OK;
        char words[160];
        names_in_words(p->names, words, sizeof words);
        return gq_fail(GQ_ERR_SPEC, msg, cap, "%s '%.40s' is not %s", p->key, text, words);
    case RP_SWITCH:
    case RP_FLAG:
        if (strcmp(text, "0") && strcmp(text, "1"))
            return gq_fail(GQ_ERR_SPEC, msg, cap, "%s '%.40s' is not 0 or 1", p->key, text);
        *(int *)at = text[0] == '1';
        return GQ_OK;
    case RP_TEXT:
        if (p->check && p->check(text, msg, cap) != 0) return GQ_ERR_SPEC;
        *(const char **)at = text;
        return GQ_OK;
    }
    return gq_fail(GQ_ERR_PARAM, msg, cap, "%s: no such type", p->key);
}

void run_param_format(const run_param *p, const sim_request *q, char *out, size_t cap)
{
    const void *at = (const char *)q + p->offset;
    switch (p->type) {
    case RP_REAL: snprintf(out, cap, "%.17g", *(const double *)at); return;
    case RP_COUNT:
    case RP_SWITCH:
    case RP_FLAG: snprintf(out, cap, "%d", *(const int *)at); return;
    case RP_ENUM: {
        const int v = *(const int *)at;
        int n = 0;
        while (p->names[n]) n++;
        snprintf(out, cap, "%s", v >= 0 && v < n ? p->names[v] : "?");
        return;
    }
    case RP_TEXT: snprintf(out, cap, "%s", *(const char *const *)at ? *(const char *const *)at : ""); return;
    }
}

void run_param_help(const run_param *p, char *out, size_t cap)
{
    char dflt[64];
    if (p->type == RP_ENUM)
        snprintf(dflt, sizeof dflt, "%s", p->names[(int)p->dflt]);
    else if (p->type == RP_SWITCH || p->type == RP_FLAG)
        snprintf(dflt, sizeof dflt, "%s", p->dflt != 0 ? "on" : "off");
    else
        table_real(dflt, sizeof dflt, p->dflt); /* the shortest decimal that reads back: 67108864, 0.005 */
    size_t n = 0;
    out[0] = '\0';
    for (const char *h = p->help; *h && n + 1 < cap;) {
        if (strncmp(h, "{default}", 9) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s", dflt);
            h += 9;
        } else {
            out[n++] = *h++, out[n] = '\0';
        }
        if (n >= cap) n = cap - 1;
    }
}

int run_param_changed(const run_param *p, const sim_request *q)
{
    const void *at = (const char *)q + p->offset;
    if (p->type == RP_REAL) return *(const double *)at != p->dflt;
    if (p->type == RP_TEXT) return *(const char *const *)at != NULL;
    return *(const int *)at != (int)p->dflt;
}

void run_params_defaults(sim_request *q)
{
    memset(q, 0, sizeof *q);
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const run_param *p = &RUN_PARAMS[i];
        void *at = run_param_at(p, q);
        if (p->type == RP_REAL)
            *(double *)at = p->dflt;
        else if (p->type != RP_TEXT)
            *(int *)at = (int)p->dflt;
    }
}
