/* Framework presets; see frameworks.h and docs/schemes.md#frameworks. libc
 * only (gqsim-smpi links the run-parameter table, which checks names here). */
#include "frameworks.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gq_suggest.h"
#include "run_params.h"

const framework_preset FRAMEWORKS[] = {
    {"horovod-nccl",
     "sync=ring,fusion=134217728,fusion_cycle=0.001,overlap=1,fusion_wait=previous,ring_steps=pipelined",
     "Horovod 0.21 and later over NCCL: tensors that are ready are fused into buffers of up to 128 MiB and "
     "all-reduced every 1 ms cycle while backward runs (docs/tensor-fusion.rst; v0.21.0 changelog: 'Changed "
     "default cycle time from 5ms to 1ms and fusion threshold from 64MB to 128MB'), a cycle waiting for the "
     "previous one's all-reduces; NCCL's ring pipelined"},
    {"horovod-0.20", "sync=ring,fusion=67108864,fusion_cycle=0.005,overlap=1,fusion_wait=previous,ring_steps=pipelined",
     "Horovod up to 0.20 over NCCL: 64 MB fusion buffers, 5 ms cycles (docs/tensor-fusion.rst of those "
     "releases), gqsim's defaults; NCCL's ring pipelined"},
    {"horovod-mpi", "sync=ring,reduce_on=host,fusion=134217728,fusion_cycle=0.001,overlap=1,fusion_wait=previous",
     "Horovod 0.21 and later built without HOROVOD_GPU_ALLREDUCE=NCCL: its 'CPU version' (docs/gpus.rst) all-reduces "
     "the fused buffers with MPI in host memory, each copied there over PCIe and back"},
    {"pytorch-ddp", "sync=ring,fusion=26214400,fusion_cycle=0,overlap=1,ring_steps=pipelined",
     "PyTorch DistributedDataParallel over NCCL: gradients in buckets of bucket_cap_mb = 25 MiB (its default), "
     "each all-reduced as soon as backward has filled it (torch.nn.parallel.DistributedDataParallel); NCCL's "
     "ring pipelined"},
    {"tf-ps", "sync=ps-sharded,ps_placement=round-robin,ps_on=cpu,ps_node_sum=none,fusion=0,fusion_cycle=0,overlap=1",
     "TensorFlow 1.x parameter servers: variables on the parameter-server tasks' CPUs, placed round-robin (the "
     "default ps_strategy of tf.compat.v1.train.replica_device_setter), each variable read as forward needs it and "
     "each gradient pushed as backward makes it, each a message of its own; every GPU (tower) reads the variables "
     "and pushes its gradients itself, the servers adding them (tf_cnn_benchmarks' variable_mgr.py, "
     "VariableMgrDistributedFetchFromPS: 'each tower gets a copy of the variables from the parameter server, and "
     "sends its gradients to the param server')"},
    {"tf-replicated",
     "sync=ps-sharded,ps_placement=round-robin,ps_pull=backward,ps_on=cpu,fusion=0,fusion_cycle=0,overlap=1",
     "TensorFlow 1.x tf_cnn_benchmarks, variable_update=distributed_replicated: a copy of the variables on every "
     "GPU, a master copy on the parameter servers; each worker sums its GPUs' gradients, then pushes the sum of "
     "each variable to the server that owns it as backward makes it, and fetches the updated variable (the "
     "High-Performance Models guide, 'Replicated Variables in Distributed Training') within the step, after a "
     "barrier on its update (variable_mgr.py: apply_gradients, add_sync_queues_and_barrier, then each GPU's copy "
     "assigned), each variable's chain as soon as its gradient is made; the master copies placed by "
     "replica_device_setter without a ps_strategy, round-robin (benchmark_cnn.py's param_server_device)"},
    {"byteps", "sync=ps-sharded,ps_on=cpu,ps_node_sum=gpus,partition=4096000,fusion=0,fusion_cycle=0,overlap=1",
     "BytePS push-pull (docs/architecture.md): a node's GPUs reduce each tensor with NCCL, the sum is copied to host "
     "memory, where BytePS's compressors run (docs/gradient-compression.md: 'copy them to the CPU buffer waiting for "
     "next-level compression'), pushed to the servers, summed there on the CPU, pulled, copied back and broadcast "
     "with NCCL; a server on every worker machine (colocated), tensors pushed as backward makes them, cut into "
     "4,096,000-byte partitions (docs/env.md, BYTEPS_PARTITION_BYTES) that go through those stages as a pipeline; "
     "BytePS hashes the partitions over the servers, gqsim splits each evenly over them, the hash's expected load"},
    {"hipress",
     "sync=ps-flat,ps_placement=roots,partition=4194304,fp32_below=262144,fusion=67108864,fusion_cycle=0.005,overlap=1",
     "HiPress's CaSync-PS (its Horovod fork, src/CaSync/horovod/mxnet/__init__.py): every GPU a rank; a compressed "
     "tensor is encoded by every rank but its root (its index mod the ranks), gathered there, decoded and summed, "
     "encoded once and broadcast; a tensor of at least 4 MiB (_partition_byte) cut into one partition a rank, "
     "partition p rooted at rank p; a tensor under 262,144 elements not compressed (--comp-threshold in its "
     "scripts); the gathers of a cycle fused into one all-to-all, as Horovod fuses (64 MB, 5 ms cycles)"},
};
const size_t FRAMEWORK_COUNT = sizeof FRAMEWORKS / sizeof FRAMEWORKS[0];

/* Frameworks refused with why until their mechanism is modelled ("name: why"); none now. */
const char *const FRAMEWORKS_NOT_MODELLED[] = {NULL};

#define MAX_PRESETS 16
_Static_assert(sizeof FRAMEWORKS / sizeof FRAMEWORKS[0] <= MAX_PRESETS, "MAX_PRESETS is too small");

/* The presets' names, in the table's order. @return their number. */
static size_t preset_names(const char *names[MAX_PRESETS])
{
    for (size_t i = 0; i < FRAMEWORK_COUNT; i++) names[i] = FRAMEWORKS[i].name;
    return FRAMEWORK_COUNT;
}

/* Other names a preset answers to: the ones earlier releases gave it. */
static const char *const ALIASES[][2] = {{"horovod", "horovod-nccl"}};

static const framework_preset *find(const char *name)
{
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (strcasecmp(name, ALIASES[i][0]) == 0) name = ALIASES[i][1];
    const char *names[MAX_PRESETS];
    const int k = gq_match_name(name, names, preset_names(names));
    return k >= 0 ? &FRAMEWORKS[k] : NULL;
}

int framework_check(const char *v, char *msg, size_t cap)
{
    if (find(v)) return 0;
    for (int i = 0; FRAMEWORKS_NOT_MODELLED[i]; i++) {
        const size_t len = strcspn(FRAMEWORKS_NOT_MODELLED[i], ":");
        if (strlen(v) == len && strncasecmp(v, FRAMEWORKS_NOT_MODELLED[i], len) == 0) {
            snprintf(msg, cap, "framework %s", FRAMEWORKS_NOT_MODELLED[i]);
            return -1;
        }
    }
    const char *names[MAX_PRESETS];
    const size_t n = preset_names(names);
    char known[256] = "", near[96];
    for (size_t i = 0; i < n; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", names[i]);
    snprintf(msg, cap, "framework '%.40s' is not one gqsim knows%s (known: %s)", v,
             gq_did_you_mean(v, names, n, near, sizeof near), known);
    return -1;
}

/* A setting's group: the servers' (ps_*, and partition, which cuts tensors for them) and the ring's (ring_*) apply
 * only where the run has servers or a ring
 * of gqsim's own (the smpi engine runs the trainer's MPI ring; --exact-flows makes every step a message); the
 * cycles' pacing (fusion_wait) only where there are cycles of all-reduces overlapped with backward. */
typedef enum { GROUP_RUN, GROUP_SERVERS, GROUP_RING, GROUP_CYCLES } setting_group;

static setting_group group_of(const char *key)
{
    return strncmp(key, "ps_", 3) == 0 || strcmp(key, "partition") == 0 ? GROUP_SERVERS
           : strncmp(key, "ring_", 5) == 0                              ? GROUP_RING
           : strcmp(key, "fusion_wait") == 0                            ? GROUP_CYCLES
                                                                        : GROUP_RUN;
}

int fusion_wait_applies(const sim_request *q)
{
    return sync_is(q->run.sync, SCHEME_ALLREDUCE) && q->run.fusion_cycle_s > 0 && q->run.overlap &&
           q->run.engine != ENGINE_SMPI;
}

/* Applies the preset's settings of one group that q does not mark as given; hold: marked as given once set (the
 * user's from then on). */
static gq_err apply(const framework_preset *f, sim_request *q, setting_group group, int hold, char *msg, size_t cap)
{
    char key[64], value[96];
    for (const char *p = f->settings; *p;) {
        const size_t n = strcspn(p, ",");
        const char *eq = memchr(p, '=', n);
        if (!eq) return gq_fail(GQ_ERR_PARAM, msg, cap, "framework %s: '%.*s' is not KEY=VALUE", f->name, (int)n, p);
        snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
        snprintf(value, sizeof value, "%.*s", (int)(n - (size_t)(eq - p) - 1), eq + 1);
        p += n + (p[n] == ',');
        const run_param *rp = run_param_by_key(key);
        if (!rp) return gq_fail(GQ_ERR_PARAM, msg, cap, "framework %s: no run parameter '%s'", f->name, key);
        if (group_of(key) != group || run_param_given(rp, q)) continue;
        char why[256];
        if (run_param_set(rp, q, value, why, sizeof why) != GQ_OK)
            return gq_fail(GQ_ERR_PARAM, msg, cap, "framework %s: %s", f->name, why);
        if (!hold) run_param_forget(rp, q); /* the preset's, not the user's: another preset could still set it */
    }
    return GQ_OK;
}

/* Whether the preset's own scheme is `sync`. */
static int preset_sync_is(const framework_preset *f, const char *sync)
{
    const char *v = strstr(f->settings, "sync=");
    const size_t n = strlen(sync);
    return v && strncmp(v + 5, sync, n) == 0 && (v[5 + n] == ',' || v[5 + n] == '\0');
}

static gq_err apply_preset(sim_request *q, int hold, char *msg, size_t cap)
{
    if (!q->run.framework) return GQ_OK;
    const framework_preset *f = find(q->run.framework);
    if (!f) return framework_check(q->run.framework, msg, cap) ? GQ_ERR_USAGE : GQ_OK;
    gq_err e = apply(f, q, GROUP_RUN, hold, msg, cap);
    /* ps-flat's servers are the GPUs, the others' are on nodes: a preset places the servers of its own kind only */
    const int flat = preset_sync_is(f, "ps-flat");
    if (e == GQ_OK && (flat ? q->run.sync == SYNC_PS_FLAT : sync_is(q->run.sync, SCHEME_NODE_SERVERS)))
        e = apply(f, q, GROUP_SERVERS, hold, msg, cap);
    if (e == GQ_OK && q->run.sync == SYNC_RING && q->run.engine != ENGINE_SMPI && !q->run.exact_flows)
        e = apply(f, q, GROUP_RING, hold, msg, cap);
    if (e == GQ_OK && fusion_wait_applies(q)) e = apply(f, q, GROUP_CYCLES, hold, msg, cap);
    return e;
}

gq_err framework_apply(sim_request *q, char *msg, size_t cap) { return apply_preset(q, 0, msg, cap); }
gq_err framework_hold(sim_request *q, char *msg, size_t cap) { return apply_preset(q, 1, msg, cap); }
