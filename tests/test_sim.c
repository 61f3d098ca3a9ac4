/* The simulation against closed forms and physical sense:
 *  - the SimGrid and analytic engines agree within 2% without contention (two
 *    hosts, one transfer at a time; a ring on a uniform InfiniBand cluster)
 *    and differ where contention matters (a single parameter server);
 *  - one GPU pays no communication; fp32 traffic is exactly 4 bytes a parameter;
 *  - a single parameter server saturates as GPUs are added, a sharded one does not;
 *  - compression helps more on 1 GbE than on 100 Gb/s InfiniBand;
 *  - overlapping communication with backward never makes an iteration slower;
 *  - one simulated iteration predicts the steady state within 1% of three;
 *  - the aggregated flows (a ring as one flow per hop, the sharded exchange
 *    as one flow per node) predict within 1% of every step and every pair
 *    simulated as its own message;
 *  - parameter servers placed as TensorFlow places variables: the busiest
 *    server's NIC carries its tensors from every other node, and the time is
 *    that (placements recomputed here from their definitions);
 *  - inside a DGX-1: a ring over NVLink peers runs at one NVLink's rate (20
 *    GB/s, 25 on the V100's), one in rank order over 8 GPUs at PCIe's where
 *    it meets GPUs that are not peers, between nodes at the leader's PCIe x16;
 *    the reduce to the first GPU waits on the GPUs that reach it by PCIe;
 *  - servers on the host CPU: the GPUs' flows share a K80 board's x16 and
 *    the host's sums add up; ps-sharded between hosts skips the leaders;
 *  - the SimGrid engine's work, counted in flows (never in seconds): a ring
 *    moves one flow a bucket per node's two actors, the leaders' schemes one
 *    per node (twice for the sharded one's push and reply) and each folded
 *    flow size once a run -- linear in nodes, so twice the GPUs twice the
 *    flows; a folding undone would multiply them by the GPUs a node;
 *  - the placed servers' flows through a hub, a flow a node a phase each way,
 *    within 1% of every pair as its own flow, in 2 (N + K) flows, not 2 K (N - 1). */
#include "check.h"
#include "sim.h"
#include "zoo.h"

static gq_zoo Z;

static sim_config base(const char *model, const cluster_spec *cl, int gpus, const char *quant, sync_kind sync)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    c.model = zoo_model(&Z, model, NULL, 0);
    c.cluster = cl;
    c.gpus = gpus;
    qz_parse_spec(quant, &c.quant, NULL, 0);
    c.run.sync = sync;
    c.run.overlap = 1;
    c.run.fusion_bytes = 64e6;
    c.fwd_s = 0.05; /* fixed compute: the tests are about the network */
    c.bwd_s = 0.10;
    c.encode_ns = c.quant.id == QZ_FP32 ? 0 : 0.05; /* a GPU-side quantizer's cost */
    c.decode_ns = c.encode_ns;
    c.run.iterations = 1;
    return c;
}

/* A run's result; a failed one has a NaN iteration (which fails every comparison, also a ratio of two failed
 * runs) and -1 flows. */
static sim_result result_of(sim_config c, engine_kind e)
{
    sim_result r;
    char msg[256];
    c.run.engine = e;
    if (sim_run(&c, &r, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "sim failed: %s\n", msg);
        memset(&r, 0, sizeof r);
        r.iteration_s = NAN, r.flows = -1;
    }
    return r;
}
static double run(sim_config c, engine_kind e) { return result_of(c, e).iteration_s; }

static cluster_spec cluster(const char *spec)
{
    cluster_spec c;
    char msg[256];
    if (cluster_parse(spec, &c, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "%s\n", msg);
        exit(2);
    }
    return c;
}

static void test_engines_agree(void)
{
    cluster_spec ib1 = cluster("cluster:gpus-per-node=1,gpu=P100,intra=nvlink1,inter=ib-edr"),
                 eth1 = cluster("cluster:gpus-per-node=1,gpu=GTX 1080,intra=pcie3,inter=1gbe"),
                 ib4 = cluster("terngrad-infiniband");
    static const char *const Q[] = {"fp32", "terngrad"};
    for (int q = 0; q < 2; q++) {
        /* two hosts: the worker on node 1 sends to the server on node 0, then back */
        sim_config c = base("alexnet", &ib1, 2, Q[q], SYNC_PS);
        double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.02, "two hosts on IB, %s: SimGrid %.6f vs analytic %.6f", Q[q], s, a);
        c = base("alexnet", &eth1, 2, Q[q], SYNC_PS);
        s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.02, "two hosts on 1 GbE (LV08), %s: SimGrid %.6f vs analytic %.6f", Q[q], s, a);
        /* a ring on a uniform cluster: every link carries one flow each way */
        c = base("vgg-a", &ib4, 32, Q[q], SYNC_RING);
        s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.02, "ring of 32 on IB, %s: SimGrid %.6f vs analytic %.6f", Q[q], s, a);
        /* without overlap every second of communication and codec shows: a parameter server on one
         * of two hosts (it decodes both contributions), and a hierarchical all-reduce on four nodes
         * of two GPUs, where nothing is shared either */
        cluster_spec ib2 = cluster("cluster:gpus-per-node=2,gpu=P100,intra=nvlink1,inter=ib-edr");
        c = base("alexnet", &ib1, 2, Q[q], SYNC_PS);
        c.run.overlap = 0, c.decode_ns = c.quant.id == QZ_FP32 ? 0 : 1.0;
        s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.01, "PS on two hosts, no overlap, %s: SimGrid %.6f vs analytic %.6f", Q[q], s, a);
        c = base("vgg-a", &ib2, 8, Q[q], SYNC_HIERARCHICAL);
        c.run.overlap = 0;
        s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.02, "hierarchical, 4 nodes x 2, no overlap, %s: SimGrid %.6f vs analytic %.6f", Q[q],
              s, a);
        /* TCP (LV08): where every link carries a flow each way, each shares it with the reverse one's ACKs (5%);
         * the analytic engine counts that too, so without overlap the two agree (4.4% apart before) */
        cluster_spec eth10 = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe");
        static const sync_kind SYNCS[] = {SYNC_RING, SYNC_ALLGATHER, SYNC_PS_SHARDED, SYNC_PS_FLAT};
        for (int k = 0; k < 4; k++)
            for (int gpus = 2; gpus <= 8; gpus *= 4) {
                c = base("alexnet", &eth10, gpus, Q[q], SYNCS[k]);
                c.run.overlap = 0;
                s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
                CHECK(fabs(s / a - 1) < 0.005, "%s on %d hosts, 10 GbE (LV08), %s: SimGrid %.6f vs analytic %.6f",
                      sync_name(SYNCS[k]), gpus, Q[q], s, a);
            }
    }
}

/* TernGrad's shared scaler: what it adds (against the same run without sharing, the same bytes) in the SimGrid
 * engine, whose nodes' first GPUs exchange real messages by recursive doubling and whose other GPUs send theirs to
 * it and take the result back, against the analytic engine's closed form (test_pinned holds that one to the
 * rounds counted by hand): LeNet-5, a bucket a tensor after backward, 1 GbE (LV08), single-GPU nodes at powers of
 * two and between them, and nodes of 2 and 4 (a node's GPUs as actors of their own, or folded into its first). */
static void test_shared_scaler(void)
{
    cluster_spec one = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=1gbe"),
                 two = cluster("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=1gbe"),
                 four = cluster("cluster:gpus-per-node=4,gpu=P100,intra=pcie3,inter=1gbe");
    /* one server and 12 workers: its replies leave one after another, so without the scaler the workers begin the
     * next bucket staggered, and with it they meet first -- part of the scaler's time is what they would have waited
     * anyway: SimGrid adds 3-5% less there than the closed form, which knows no stagger */
    const struct {
        const cluster_spec *cl;
        int gpus;
        sync_kind sync;
        double below; /* how far under the closed form SimGrid may go */
    } CASES[] = {
        {&one, 2, SYNC_PS_SHARDED, 0.01},   {&one, 3, SYNC_PS_SHARDED, 0.01}, {&one, 5, SYNC_PS_SHARDED, 0.01},
        {&one, 8, SYNC_PS_SHARDED, 0.01},   {&one, 3, SYNC_ALLGATHER, 0.01},  {&one, 6, SYNC_PS_FLAT, 0.01},
        {&one, 4, SYNC_PS, 0.01},           {&two, 6, SYNC_PS_SHARDED, 0.01}, {&two, 6, SYNC_PS_FLAT, 0.01},
        {&two, 6, SYNC_ALLGATHER, 0.01},    {&four, 8, SYNC_PS, 0.01},        {&four, 8, SYNC_PS_SHARDED, 0.01},
        {&four, 12, SYNC_PS_SHARDED, 0.01}, {&four, 12, SYNC_PS_FLAT, 0.01},  {&one, 12, SYNC_PS, 0.05},
        {&four, 12, SYNC_PS, 0.05}};
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        sim_config c = base("lenet5", CASES[i].cl, CASES[i].gpus, "terngrad", CASES[i].sync);
        c.run.overlap = 0, c.run.fusion_bytes = 0;
        double added[2];
        for (int e = 0; e < 2; e++) {
            const engine_kind engine = e ? ENGINE_SIMGRID : ENGINE_ANALYTIC;
            c.run.exchange.no_scaler_sharing = 0;
            const double shared = run(c, engine);
            c.run.exchange.no_scaler_sharing = 1;
            added[e] = shared - run(c, engine);
        }
        const double r = added[1] / added[0] - 1;
        CHECK(added[0] > 0 && r < 0.01 && r > -CASES[i].below,
              "the shared scaler, %s on %d GPUs in nodes of %d: SimGrid adds %.6g s, analytic %.6g s",
              sync_name(CASES[i].sync), CASES[i].gpus, CASES[i].cl->gpus_per_node, added[1], added[0]);
    }
}

/* HiPress's roots (ps-flat, --ps-placement roots), on single-GPU nodes over RDMA with the codec. A bucket's roots
 * hold unequal shares (whole tensors; cut at 4 MiB only the large ones are split): a root encodes less (not its own
 * share) and its flows leave before the others', which SimGrid lets begin while the analytic engine starts a
 * phase's flows at its last sender's start -- at or above SimGrid, within 1% (0.4% at 8 hosts whole, 0.015% cut).
 * And the roots' NICs set the time: whole (AlexNet's fc6 on one GPU) slower than cut. */
static void test_roots(void)
{
    cluster_spec ib1 = cluster("cluster:gpus-per-node=1,gpu=P100,intra=nvlink1,inter=ib-edr");
    double whole = 0, cut = 0;
    for (int gpus = 2; gpus <= 8; gpus *= 2)
        for (int part = 0; part < 2; part++) {
            sim_config c = base("alexnet", &ib1, gpus, "signsgd", SYNC_PS_FLAT);
            c.run.ps_placement = PS_ROOTS, c.run.overlap = 0, c.run.partition_bytes = part ? 4194304 : 0;
            const double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
            CHECK(fabs(s / a - 1) < 0.01 && a >= s * (1 - 1e-12),
                  "roots on %d hosts (%s), IB: SimGrid %.9f vs analytic %.9f", gpus, part ? "cut at 4 MiB" : "whole", s,
                  a);
            if (gpus == 8) *(part ? &cut : &whole) = s;
        }
    CHECK(whole > cut, "8 hosts: whole tensors at their roots %.6f s, cut a piece a GPU %.6f s", whole, cut);
    for (int gpus = 2; gpus <= 8; gpus *= 2) { /* TensorFlow's greedy setter over the GPUs: fp32 placed whole too */
        sim_config c = base("alexnet", &ib1, gpus, "fp32", SYNC_PS_FLAT);
        c.run.ps_placement = PS_GREEDY, c.run.overlap = 0;
        const double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        c.run.ps_placement = PS_ROOTS; /* fp32 all-reduced evenly there */
        const double even = run(c, ENGINE_SIMGRID);
        CHECK(fabs(s / a - 1) < 0.01 && a >= s * (1 - 1e-12), "greedy over %d hosts, IB: SimGrid %.9f vs analytic %.9f",
              gpus, s, a);
        CHECK(s > even, "greedy over %d hosts: AlexNet's fc6 whole on one GPU %.6f s, spread evenly %.6f s", gpus, s,
              even);
    }
}

/* ps-flat: every GPU a server of 1/P; on nodes of 4 GPUs the NIC carries its GPUs' shards for the other nodes, the
 * busier of it and a GPU's own link in the analytic engine, every flow in SimGrid's. And the communication time:
 * with no overlap the exchange starts when backward ends, so it is all the iteration beyond compute. */
static void test_flat_and_comm(void)
{
    cluster_spec eth = cluster("terngrad-ethernet");
    for (int gpus = 8; gpus <= 32; gpus *= 4) {
        sim_config c = base("resnet50", &eth, gpus, "terngrad", SYNC_PS_FLAT);
        c.run.overlap = 0;
        const double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.005, "ps-flat, %d GPUs in nodes of 4, 1 GbE: SimGrid %.6f vs analytic %.6f", gpus, s,
              a);
        sim_result r;
        char msg[256];
        c.run.engine = ENGINE_SIMGRID;
        CHECK(sim_run(&c, &r, msg, sizeof msg) == GQ_OK &&
                  fabs(r.comm_s - (r.iteration_s - c.fwd_s - c.bwd_s)) <= 1e-9 * r.iteration_s,
              "no overlap, %d GPUs: communication %.9f s = iteration %.9f - compute %.2f", gpus, r.comm_s,
              r.iteration_s, c.fwd_s + c.bwd_s);
        c.run.overlap = 1;
        CHECK(sim_run(&c, &r, msg, sizeof msg) == GQ_OK && r.comm_s > r.comm_exposed_s && r.comm_exposed_s > 0,
              "overlap, %d GPUs: communication %.6f s, more than the %.6f s not hidden", gpus, r.comm_s,
              r.comm_exposed_s);
    }
}

/* A ring staged through host memory: the same added time in both engines (the copies and sums are on each GPU's
 * own path, nothing shared), and slower than NCCL's. */
static void test_ring_on_host(void)
{
    cluster_spec eth = cluster("terngrad-ethernet");
    sim_config c = base("alexnet", &eth, 8, "fp32", SYNC_RING);
    c.run.overlap = 0, c.run.reduce_on_host = 1, c.server_sum_ns = 0.335;
    const double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / a - 1) < 0.005, "ring through host memory, 8 GPUs: SimGrid %.6f vs analytic %.6f", s, a);
    c.run.reduce_on_host = 0;
    const double nccl = run(c, ENGINE_ANALYTIC);
    CHECK(a > nccl, "staged through the host (%.6f s) slower than on the GPUs (%.6f s)", a, nccl);
}

/* A pipelined ring (NCCL) on TCP: SimGrid's flow pays LV08's latency factor once, the other steps' latencies are
 * added without it, as the analytic engine charges them; both engines agree, and on 64 GPUs of 10 GbE with small
 * buckets (ResNet-50, per tensor) the pipeline is faster than a message a step by (2(P-1) - 1) (L - 1) a_hop a
 * bucket. */
static void test_ring_pipelined(void)
{
    cluster_spec eth = cluster("cluster:gpus-per-node=1,gpu=V100,intra=pcie3,inter=10gbe");
    sim_config c = base("resnet50", &eth, 64, "fp32", SYNC_RING);
    c.run.overlap = 0, c.run.fusion_bytes = 0;
    const double msg_s = run(c, ENGINE_SIMGRID), msg_a = run(c, ENGINE_ANALYTIC);
    c.run.ring_pipelined = 1;
    const double pipe_s = run(c, ENGINE_SIMGRID), pipe_a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(pipe_s / pipe_a - 1) < 0.005, "pipelined ring, 64 GPUs: SimGrid %.6f vs analytic %.6f", pipe_s, pipe_a);
    CHECK(fabs(msg_s / msg_a - 1) < 0.005, "ring a message a step, 64 GPUs: SimGrid %.6f vs analytic %.6f", msg_s,
          msg_a);
    CHECK(pipe_s < msg_s / 2, "pipelined %.6f s, under half of a message a step %.6f s", pipe_s, msg_s);
}

/* NCCL's double binary tree (--sync tree): where nothing but a node's own NIC is shared (one GPU a node; a 4-GPU
 * chain on NVLink) SimGrid's flows, one an edge each way with the pipeline's other hops added, take what the
 * closed form says within 0.5%, on TCP (LV08's factor once a bucket, its cross-traffic) and on RDMA; the engine
 * moves 2 N (G - 1) chain flows and 4 (N - 1) tree flows a bucket; and at 256 nodes of 10 GbE, one bucket a tensor,
 * the tree's 2 log2 N hops beat the pipelined ring's 2 (P - 1). On two nodes a node's NIC carries the bucket once
 * each way, the ring's about twice: the tree is nearly twice as fast there (NCCL's issue #946). */
static void test_tree(void)
{
    cluster_spec eth = cluster("cluster:gpus-per-node=1,gpu=V100,intra=pcie3,inter=10gbe"),
                 nv = cluster("cluster:gpus-per-node=4,gpu=V100,intra=nvlink2,inter=ib-edr");
    const int GPUS[] = {2, 7, 64};
    for (int i = 0; i < 3; i++) {
        sim_config c = base("resnet50", &eth, GPUS[i], "fp32", SYNC_TREE);
        c.run.overlap = 0, c.run.fusion_bytes = 0;
        double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.005, "tree, %d GPUs of 10 GbE: SimGrid %.6f vs analytic %.6f", GPUS[i], s, a);
        c = base("resnet50", &nv, 4 * GPUS[i], "qsgd", SYNC_TREE);
        c.encode_ns = c.decode_ns = 1; /* the codec's share large enough to show */
        sim_result r = result_of(c, ENGINE_SIMGRID);
        a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(r.iteration_s / a - 1) < 0.005, "tree, %d nodes of 4 V100: SimGrid %.6f vs analytic %.6f", GPUS[i],
              r.iteration_s, a);
        const long N = GPUS[i], want = (2 * N * 3 + 4 * (N - 1)) * r.buckets;
        CHECK(r.flows == want, "tree, %ld nodes of 4: %ld flows, %ld expected", N, r.flows, want);
    }
    sim_config c = base("resnet50", &eth, 256, "fp32", SYNC_TREE);
    c.run.overlap = 0, c.run.fusion_bytes = 0;
    const double tree = run(c, ENGINE_ANALYTIC);
    c.run.sync = SYNC_RING, c.run.ring_pipelined = 1;
    const double ring = run(c, ENGINE_ANALYTIC);
    CHECK(tree < ring / 2, "256 nodes of 10 GbE, a bucket a tensor: tree %.4f s, under half the ring's %.4f s", tree,
          ring);
    c = base("alexnet", &nv, 8, "fp32", SYNC_TREE);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12;
    const double two_tree = result_of(c, ENGINE_SIMGRID).comm_s;
    c.run.sync = SYNC_RING;
    const double two_ring = result_of(c, ENGINE_SIMGRID).comm_s;
    CHECK(two_ring / two_tree > 1.7 && two_ring / two_tree < 2, "two nodes: ring %.6f s / tree %.6f s = %.3f", two_ring,
          two_tree, two_ring / two_tree);
    /* one node: no tree, only the chain. Of 2 GPUs, each sends the other one gradient's worth; of 3, the middle one
     * passes the reduction on and the result back, two (the busiest GPU's bytes); the mean, the chain's 2(g - 1)
     * sends over g GPUs */
    const double S = 4.0 * (double)model_params(c.model);
    for (int g = 2; g <= 3; g++) {
        c = base("alexnet", &nv, g, "fp32", SYNC_TREE);
        const sim_result one = result_of(c, ENGINE_ANALYTIC);
        CHECK(fabs(one.bytes_busiest_up / ((g - 1) * S) - 1) < 1e-12 && one.bytes_busiest_up == one.bytes_busiest_down,
              "tree on one node of %d GPUs: the busiest %.0f bytes up, %d x the gradient's %.0f", g,
              one.bytes_busiest_up, g - 1, S);
        CHECK(fabs(one.bytes_up / (2.0 * (g - 1) / g * S) - 1) < 1e-12 && one.bytes_up == one.bytes_down,
              "tree on one node of %d GPUs: the mean %.0f bytes up, 2(g - 1)/g of the gradient", g, one.bytes_up);
    }
}

/* Horovod's loop (--fusion-wait previous): the plan's buckets are the loop's, paced by the analytic engine's
 * all-reduce times; SimGrid runs the same buckets and, where nothing is shared, takes as long within 0.5%. On 64
 * nodes of 10 GbE with 1 ms cycles (ResNet-50, Horovod's 128 MiB threshold, NCCL's pipelined ring) the rings are
 * longer than a cycle, so the loop fuses more and sends fewer buckets: faster than cycles on their clock. */
static void test_fusion_wait(void)
{
    cluster_spec eth = cluster("cluster:gpus-per-node=1,gpu=V100,intra=pcie3,inter=10gbe");
    sim_config c = base("resnet50", &eth, 64, "fp32", SYNC_RING);
    c.run.ring_pipelined = 1, c.run.fusion_bytes = 134217728, c.run.fusion_cycle_s = 0.001;
    const sim_result clock = result_of(c, ENGINE_ANALYTIC);
    c.run.fusion_wait_previous = 1;
    const sim_result loop = result_of(c, ENGINE_ANALYTIC), sg = result_of(c, ENGINE_SIMGRID);
    CHECK(fabs(sg.iteration_s / loop.iteration_s - 1) < 0.005, "the loop, 64 GPUs: SimGrid %.6f vs analytic %.6f",
          sg.iteration_s, loop.iteration_s);
    CHECK(loop.buckets < clock.buckets && loop.iteration_s < clock.iteration_s,
          "the loop: %d buckets, %.4f s; cycles on their clock: %d buckets, %.4f s", loop.buckets, loop.iteration_s,
          clock.buckets, clock.iteration_s);
}

static void test_contention(void)
{
    cluster_spec eth = cluster("terngrad-ethernet");
    /* 28 remote workers into the server's NIC: SimGrid shares it, alpha-beta cannot */
    sim_config c = base("alexnet", &eth, 32, "fp32", SYNC_PS);
    double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(s > 5 * a, "single PS, 32 GPUs on 1 GbE: SimGrid %.3f s should far exceed contention-free %.3f s", s, a);
    /* and the size of it is the incast: (remote workers) x bytes / NIC, up and down */
    double bytes = 4.0 * 60965224, nic = 125e6 * 0.97;
    double incast = 2 * 28 * bytes / nic;
    CHECK(s > 0.95 * incast && s < 1.1 * incast + 0.2, "single PS time %.2f s vs incast bound %.2f s", s, incast);
}

static void test_basics(void)
{
    cluster_spec eth = cluster("terngrad-ethernet");
    sim_config c = base("alexnet", &eth, 1, "terngrad", SYNC_PS);
    sim_result r;
    char msg[256];
    sim_run(&c, &r, msg, sizeof msg);
    CHECK(r.iteration_s == c.fwd_s + c.bwd_s && r.bytes_up == 0, "one GPU: compute only (%.6f)", r.iteration_s);
    c = base("alexnet", &eth, 8, "fp32", SYNC_PS);
    sim_run(&c, &r, msg, sizeof msg);
    CHECK(r.bytes_up == 4.0 * 60965224 && r.bytes_down == 4.0 * 60965224, "fp32 PS traffic is 4 bytes a parameter");
    c = base("alexnet", &eth, 8, "terngrad", SYNC_PS);
    sim_run(&c, &r, msg, sizeof msg);
    /* 2 bits + 36 bytes (header, scale) per tensor: 16 tensors (the shared scaler's all-reduce is not counted) */
    double expect = 0;
    const model_t *m = zoo_model(&Z, "alexnet", NULL, 0);
    for (size_t i = 0; i < m->nlayers; i++) {
        uint64_t parts[2] = {m->layers[i].weight_params, m->layers[i].bias_params};
        for (int k = 0; k < 2; k++)
            if (parts[k]) expect += 32 + 4 + (double)((parts[k] * 2 + 7) / 8);
    }
    CHECK(r.bytes_up == expect, "terngrad uplink %.0f bytes, expected %.0f", r.bytes_up, expect);
}

static double images_per_s(sim_config c) { return c.gpus * 128 / run(c, ENGINE_SIMGRID); }

static void test_scaling(void)
{
    cluster_spec ib = cluster("terngrad-infiniband"), eth = cluster("terngrad-ethernet");
    double ps16 = images_per_s(base("alexnet", &ib, 16, "fp32", SYNC_PS)),
           ps64 = images_per_s(base("alexnet", &ib, 64, "fp32", SYNC_PS)),
           sh16 = images_per_s(base("alexnet", &ib, 16, "fp32", SYNC_PS_SHARDED)),
           sh64 = images_per_s(base("alexnet", &ib, 64, "fp32", SYNC_PS_SHARDED));
    CHECK(ps64 < 1.2 * ps16, "a single PS saturates: %.0f -> %.0f images/s from 16 to 64 GPUs", ps16, ps64);
    CHECK(sh64 > 3 * sh16, "a sharded PS scales: %.0f -> %.0f images/s from 16 to 64 GPUs", sh16, sh64);

    double ge = images_per_s(base("alexnet", &eth, 64, "terngrad", SYNC_PS_SHARDED)) /
                images_per_s(base("alexnet", &eth, 64, "fp32", SYNC_PS_SHARDED)),
           gi = images_per_s(base("alexnet", &ib, 64, "terngrad", SYNC_PS_SHARDED)) /
                images_per_s(base("alexnet", &ib, 64, "fp32", SYNC_PS_SHARDED));
    CHECK(ge > gi && ge > 2, "TernGrad gains %.2fx on 1 GbE and %.2fx on InfiniBand at 64 GPUs", ge, gi);
}

static void test_overlap_and_iterations(void)
{
    cluster_spec eth = cluster("terngrad-ethernet"), ib = cluster("terngrad-infiniband");
    const cluster_spec *cl[2] = {&eth, &ib};
    int worse = 0, runs = 0;
    for (int k = 0; k < 2; k++)
        for (int s = SYNC_PS; s <= SYNC_ALLGATHER; s++)
            for (int g = 8; g <= 64; g *= 8)
                for (int q = 0; q < 2; q++) {
                    sim_config c = base("googlenet", cl[k], g, q ? "terngrad" : "fp32", (sync_kind)s);
                    c.run.fusion_bytes = 4e6;
                    double on = run(c, ENGINE_SIMGRID);
                    c.run.overlap = 0;
                    double off = run(c, ENGINE_SIMGRID);
                    worse += on > off * (1 + 1e-9);
                    runs++;
                }
    CHECK(worse == 0, "overlap made %d of %d iterations slower", worse, runs);
    sim_config c = base("alexnet", &eth, 32, "terngrad", SYNC_PS_SHARDED);
    double one = run(c, ENGINE_SIMGRID);
    c.run.iterations = 3;
    double three = run(c, ENGINE_SIMGRID);
    CHECK(fabs(one / three - 1) < 0.01, "1 iteration %.6f s vs the mean of 3 %.6f s", one, three);
}

static void test_aggregation(void)
{
    cluster_spec eth = cluster("terngrad-ethernet"), ib = cluster("terngrad-infiniband");
    const cluster_spec *cl[2] = {&eth, &ib};
    static const sync_kind S[] = {SYNC_RING, SYNC_ALLGATHER, SYNC_PS_SHARDED, SYNC_HIERARCHICAL};
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 4; s++)
            for (int q = 0; q < 2; q++) {
                sim_config c = base("alexnet", cl[k], 32, q ? "terngrad" : "fp32", S[s]);
                double agg = run(c, ENGINE_SIMGRID);
                c.run.exact_flows = 1;
                double exact = run(c, ENGINE_SIMGRID);
                CHECK(fabs(agg / exact - 1) < 0.01, "%s %s %s, 32 GPUs: aggregated %.6f s vs every message %.6f s",
                      cl[k]->name, sync_name(S[s]), q ? "terngrad" : "fp32", agg, exact);
            }
}

/* The bytes each of K servers holds when AlexNet's tensors (each layer's weights, then biases) are placed round-robin
 * or greedily (the least-loaded server so far); the busiest server's. */
static double busiest_server(const model_t *m, int K, int greedy)
{
    double load[8] = {0};
    int k = 0;
    for (size_t i = 0; i < m->nlayers; i++)
        for (int bias = 0; bias < 2; bias++) {
            const double n = (double)(bias ? m->layers[i].bias_params : m->layers[i].weight_params);
            if (n == 0) continue;
            int s = k++ % K;
            if (greedy)
                for (int o = s = 0; o < K; o++) s = load[o] < load[s] ? o : s;
            load[s] += 4 * n;
        }
    double most = 0;
    for (int s = 0; s < K; s++) most = load[s] > most ? load[s] : most;
    return most;
}

static void test_ps_placement(void)
{
    /* four single-GPU nodes on 1 GbE (LV08: bandwidth x 0.97), fp32, nothing overlapped */
    cluster_spec eth = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=1gbe");
    const int N = 4;
    const double bw = 125e6 * 0.97;
    sim_config c = base("alexnet", &eth, N, "fp32", SYNC_PS_SHARDED);
    c.run.overlap = 0;
    const double even = run(c, ENGINE_SIMGRID), compute = c.fwd_s + c.bwd_s;
    c.run.ps_shards = N;
    CHECK(run(c, ENGINE_SIMGRID) == even, "ps-sharded with --ps-shards = nodes is the default");
    double params = 0;
    for (size_t i = 0; i < c.model->nlayers; i++)
        params += (double)(c.model->layers[i].weight_params + c.model->layers[i].bias_params);
    /* one server: every other node's gradient into its NIC, and the replies out of it */
    c.run.ps_shards = 1;
    double s = run(c, ENGINE_SIMGRID), want = compute + 2 * (N - 1) * 4 * params / bw;
    CHECK(fabs(s / want - 1) < 0.02, "one server: %.3f s, closed form %.3f s", s, want);
    /* round-robin over 2: every weight tensor on server 0 (each layer's bias goes to server 1) */
    c.run.ps_shards = 2, c.run.ps_placement = PS_ROUND_ROBIN;
    s = run(c, ENGINE_SIMGRID), want = compute + 2 * (N - 1) * busiest_server(c.model, 2, 0) / bw;
    CHECK(fabs(s / want - 1) < 0.02, "round-robin over 2: %.3f s, busiest server's NIC %.3f s", s, want);
    double a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / a - 1) < 0.01, "round-robin over 2: SimGrid %.4f s, analytic %.4f s", s, a);
    /* greedy over 4: fc6's 37.7 M weights make one server the bottleneck, whatever else it holds */
    c.run.ps_shards = 4, c.run.ps_placement = PS_GREEDY;
    s = run(c, ENGINE_SIMGRID), want = compute + 2 * (N - 1) * busiest_server(c.model, 4, 1) / bw;
    CHECK(fabs(s / want - 1) < 0.02, "greedy over 4: %.3f s, busiest server's NIC %.3f s", s, want);
    CHECK(s > 2 * even, "greedy over 4 (%.3f s): over twice even shards (%.3f s)", s, even);
    a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / a - 1) < 0.01, "greedy over 4: SimGrid %.4f s, analytic %.4f s", s, a);
}

static void test_inside_nodes(void)
{
    /* one bucket, no overlap: the iteration is compute + the exchange's closed form */
    cluster_spec dgx = cluster("dgx1"), v100 = cluster("dgx1-v100");
    sim_config c = base("alexnet", &dgx, 4, "fp32", SYNC_RING);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12;
    const double S = 4.0 * (double)model_params(c.model);
    /* GPUs 0-3 are NVLink peers: 6 steps of S/4 at one NVLink's 20 GB/s, 1 us */
    double expect = 0.15 + 6 * (1e-6 + S / 4 / 20e9), s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "dgx1 ring of 4: SimGrid %.6f s, analytic %.6f s, closed form %.6f s (20 GB/s)", s, a, expect);
    c.cluster = &v100;
    expect = 0.15 + 6 * (1e-6 + S / 4 / 25e9), s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "dgx1-v100 ring of 4: SimGrid %.6f s, analytic %.6f s, closed form %.6f s (25 GB/s: 0-1 is single)", s, a,
          expect);
    /* eight in rank order: 3 -> 4 and 7 -> 0 are not NVLink peers and go by PCIe x16 (15.75 GB/s, 2 us) */
    c = base("alexnet", &dgx, 8, "fp32", SYNC_RING);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12;
    expect = 0.15 + 14 * (2e-6 + S / 8 / 15.75e9), s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "dgx1 ring of 8: SimGrid %.6f s, analytic %.6f s, closed form %.6f s (PCIe hops)", s, a, expect);
    /* two nodes: the hop between them leaves GPU 7 and enters GPU 0 over PCIe, 1 us + 1 us + 2 x 0.6 */
    c = base("alexnet", &dgx, 16, "fp32", SYNC_RING);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12;
    expect = 0.15 + 30 * (3.2e-6 + S / 16 / 15.75e9), s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "dgx1 ring of 16 on 2 nodes: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", s, a, expect);
    /* the node-local reduce: 5, 6 and 7 reach GPU 0 by PCIe and share its x16 (3 S / 15.75 GB/s, longer than the
     * NVLink peers' S / 20 GB/s), the same again for the broadcast; the analytic engine counts no contention */
    c = base("alexnet", &dgx, 8, "fp32", SYNC_HIERARCHICAL);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12;
    expect = 0.15 + 2 * (2e-6 + 3 * S / 15.75e9), s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.01, "dgx1 reduce and broadcast: SimGrid %.6f s, closed form %.6f s", s, expect);
    expect = 0.15 + 2 * (2e-6 + S / 15.75e9);
    CHECK(fabs(a / expect - 1) < 1e-6, "dgx1 reduce and broadcast, no contention: analytic %.6f s, %.6f s", a, expect);
}

/* Parameter servers on the host CPU (--ps-on cpu): every GPU's contribution crosses PCIe to its host, which adds it
 * into the aggregate at a given cost per element. */
static void test_ps_on_cpu(void)
{
    const double sum_ns = 0.3; /* the host adding one element */
    cluster_spec k80 = cluster("p2.8xlarge");
    sim_config c = base("alexnet", &k80, 8, "fp32", SYNC_PS);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12, c.run.network_model = "CM02", c.run.ps_on_cpu = 1,
    c.server_sum_ns = sum_ns;
    const double n = (double)model_params(c.model), S = 4 * n;
    /* 8 GPUs to the host: a K80 board's two share its x16 (2 S / 15.75 GB/s), 1 us; the host adds 8 contributions */
    double expect = 0.15 + 2 * (1e-6 + 2 * S / 15.75e9) + 8 * n * sum_ns * 1e-9;
    double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005, "PS on the host of a p2.8xlarge: SimGrid %.6f s, closed form %.6f s", s,
          expect);
    expect = 0.15 + 2 * (1e-6 + S / 15.75e9) + 8 * n * sum_ns * 1e-9; /* no contention counted */
    CHECK(fabs(a / expect - 1) < 1e-6, "PS on the host, analytic: %.6f s, closed form %.6f s", a, expect);
    /* on the first GPU instead: its own x16 takes the 7 others' flows, and summing costs nothing */
    c.run.ps_on_cpu = 0;
    s = run(c, ENGINE_SIMGRID);
    expect = 0.15 + 2 * (2e-6 + 7 * S / 15.75e9);
    CHECK(fabs(s / expect - 1) < 0.005, "PS on GPU 0 of a p2.8xlarge: SimGrid %.6f s, closed form %.6f s", s, expect);

    /* ps-sharded on the hosts of 2 nodes of 2 GPUs: up to the host over each GPU's x16, the host adds 2, the
     * hosts swap halves over the NICs (12.5 GB/s, 2 x 0.6 us) and add the other half, and the same way back */
    cluster_spec ib = cluster("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=ib-edr");
    c = base("alexnet", &ib, 4, "fp32", SYNC_PS_SHARDED);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12, c.run.ps_on_cpu = 1, c.server_sum_ns = sum_ns;
    expect =
        0.15 + 2 * (1e-6 + S / 15.75e9) + 2 * n * sum_ns * 1e-9 + n * sum_ns * 1e-9 + 2 * (1.2e-6 + S / 2 / 12.5e9);
    s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "ps-sharded on 2 hosts: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", s, a, expect);
    /* BytePS's push-pull (--ps-node-sum gpus): the two GPUs reduce-scatter, each sending the other half its gradient
     * (2 PCIe links, 2 us), each copies its half of the sum to the host (1 us, its own link), the hosts swap halves
     * and each adds the two of its half, and back the same way, the GPUs all-gathering */
    c.run.node_sum = NODE_SUM_GPUS;
    expect = 0.15 + 2 * (2e-6 + S / 2 / 15.75e9) + 2 * (1e-6 + S / 2 / 15.75e9) + n * sum_ns * 1e-9 +
             2 * (1.2e-6 + S / 2 / 12.5e9);
    s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "BytePS push-pull on 2 nodes of 2: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", s, a, expect);
    /* the servers on machines of their own: one takes both nodes' sums in over its NIC (2 S a phase); with two,
     * each node's NIC carries its own sum (S) and each server half of both; a server adds 2/M contributions */
    for (int M = 1; M <= 2; M++) {
        c.run.ps_cpu_machines = M;
        expect = 0.15 + 2 * (2e-6 + S / 2 / 15.75e9) + 2 * (1e-6 + S / 2 / 15.75e9) + 2.0 / M * n * sum_ns * 1e-9 +
                 2 * (1.2e-6 + 2.0 / M * S / 12.5e9);
        s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
              "BytePS, servers on %d machine(s) of their own: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", M,
              s, a, expect);
    }
    /* 2 nodes of 4 on TCP (LV08: latency x13.01, each hop's ACKs): the reduce-scatter's flows, its further steps'
     * latencies without the factor, the 4 copies at once; SimGrid as the analytic engine, nothing shared but what
     * the analytic engine counts */
    {
        cluster_spec tcp4 = cluster("cluster:gpus-per-node=4,gpu=P100,intra=pcie3,inter=10gbe");
        sim_config t = base("alexnet", &tcp4, 8, "fp32", SYNC_PS_SHARDED);
        t.run.overlap = 0, t.run.fusion_bytes = 1e12, t.run.ps_on_cpu = 1, t.run.node_sum = NODE_SUM_GPUS,
        t.server_sum_ns = sum_ns;
        s = run(t, ENGINE_SIMGRID), a = run(t, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 1e-6, "BytePS on 2 nodes of 4 over TCP: SimGrid %.9f s, analytic %.9f s", s, a);
    }
    /* BytePS's pipeline, AlexNet cut into 4 MB partitions, nodes of one GPU over RDMA: every stage's flows alone in
     * their direction, so SimGrid is the analytic engine's timeline; 4 nodes and 2 machines, and 6 nodes and 4
     * machines (lcm(6, 4) = 12 flows a phase stand for the 24 pairs) */
    {
        cluster_spec one = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=ib-edr");
        for (int i = 0; i < 2; i++) {
            sim_config t = base("alexnet", &one, i ? 6 : 4, "fp32", SYNC_PS_SHARDED);
            t.run.fusion_bytes = 0, t.run.partition_bytes = 4096000, t.run.ps_on_cpu = 1,
            t.run.node_sum = NODE_SUM_GPUS;
            t.run.ps_cpu_machines = i ? 4 : 2, t.server_sum_ns = sum_ns;
            const sim_result sg = result_of(t, ENGINE_SIMGRID), an = result_of(t, ENGINE_ANALYTIC);
            CHECK(fabs(sg.iteration_s / an.iteration_s - 1) < 1e-6 && fabs(sg.comm_s / an.comm_s - 1) < 1e-6,
                  "BytePS's pipeline, %d single-GPU nodes, %d server machines: SimGrid %.9f s (exchanges %.9f), "
                  "analytic %.9f s (%.9f)",
                  t.gpus, t.run.ps_cpu_machines, sg.iteration_s, sg.comm_s, an.iteration_s, an.comm_s);
        }
    }
    /* every GPU to its host (--ps-node-sum host), the hosts to 3 server machines (lcm(2, 3) = 6 flows a phase): one
     * bucket after backward, the two engines alike */
    {
        sim_config t = c;
        t.run.node_sum = NODE_SUM_HOST, t.run.ps_cpu_machines = 3, t.gpus = 4;
        s = run(t, ENGINE_SIMGRID), a = run(t, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 1e-6, "hosts to 3 server machines: SimGrid %.9f s, analytic %.9f s", s, a);
    }
    c.run.ps_cpu_machines = 0;
    /* one node: the reduce-scatter and the all-gather, no host, no server */
    c.gpus = 2;
    expect = 0.15 + 2 * (2e-6 + S / 2 / 15.75e9);
    s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "BytePS on one node of 2: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", s, a, expect);
}

/* Every GPU pushing its own (--ps-node-sum none: TensorFlow's parameter_server) to the servers on the hosts: a node's
 * NIC carries its GPUs' contributions, not their sum, and a server adds every GPU's. */
static void test_per_gpu_push(void)
{
    const double sum_ns = 0.3;
    cluster_spec ib = cluster("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=ib-edr");
    sim_config c = base("alexnet", &ib, 4, "fp32", SYNC_PS_SHARDED);
    c.run.overlap = 0, c.run.fusion_bytes = 1e12, c.run.ps_on_cpu = 1, c.run.node_sum = NODE_SUM_NONE,
    c.server_sum_ns = sum_ns;
    const double n = (double)model_params(c.model), S = 4 * n;
    /* 2 nodes of 2: each GPU's copy to its host (its own x16), the hosts swap halves of both GPUs' gradients (S
     * each way over 12.5 GB/s, where the node's sum moved S/2), each server adds the 4 GPUs' halves, and back */
    double expect = 0.15 + 2 * (1e-6 + S / 15.75e9) + 2 * n * sum_ns * 1e-9 + 2 * (1.2e-6 + S / 12.5e9);
    double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "every GPU pushing, 2 nodes of 2: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", s, a, expect);
    /* 3 GPUs: node 0 pushes its 2 GPUs' halves (S), node 1 its one (S/2); each NIC's busier direction carries S, and
     * a server adds 3 halves; the SimGrid engine moves every pair's flow (the nodes are not alike) */
    c.gpus = 3;
    expect = 0.15 + 2 * (1e-6 + S / 15.75e9) + 1.5 * n * sum_ns * 1e-9 + 2 * (1.2e-6 + S / 12.5e9);
    s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6,
          "every GPU pushing, 3 GPUs on nodes of 2: SimGrid %.6f s, analytic %.6f s, closed form %.6f s", s, a, expect);
    /* 5 GPUs on 3 nodes of 2: the nodes push 2, 2 and 1 contributions, the busiest NIC direction 4/3 S (a full node's
     * out, the last node's in) and a server adds 5 thirds; every pair a flow of its own, each way, and every GPU's
     * copy up and down: 2 x 3 x 2 + 2 x 5 flows */
    c.gpus = 5;
    const sim_result five = result_of(c, ENGINE_SIMGRID);
    expect = 0.15 + 2 * (1e-6 + S / 15.75e9) + 5.0 / 3 * n * sum_ns * 1e-9 + 2 * (1.2e-6 + 4.0 / 3 * S / 12.5e9);
    a = run(c, ENGINE_ANALYTIC);
    CHECK(fabs(five.iteration_s / expect - 1) < 0.005 && fabs(a / expect - 1) < 1e-6 && five.flows == 22,
          "every GPU pushing, 5 GPUs on nodes of 2: SimGrid %.6f s in %ld flows, analytic %.6f s, closed form %.6f s",
          five.iteration_s, five.flows, a, expect);
    /* the servers on M machines of their own, gRPC's costs a message: 2 and 3 nodes of 2 against M = 1, 2, 3 (lcm(N,
     * M) stand-in flows), one bucket after backward: nothing shared the analytic engine does not count */
    c.gpus = 4, c.rpc_send_s = 0.5e-3, c.rpc_recv_s = 0.7e-3;
    for (int gpus = 4; gpus <= 6; gpus += 2)
        for (int M = 1; M <= 3; M++) {
            c.gpus = gpus, c.run.ps_cpu_machines = M;
            const sim_result sm = result_of(c, ENGINE_SIMGRID), am = result_of(c, ENGINE_ANALYTIC);
            CHECK(fabs(sm.iteration_s / am.iteration_s - 1) < 1e-6,
                  "every GPU pushing, %d GPUs to %d server machine(s): SimGrid %.9f s, analytic %.9f s", gpus, M,
                  sm.iteration_s, am.iteration_s);
        }
    c.run.ps_cpu_machines = 0, c.rpc_send_s = c.rpc_recv_s = 0;
    /* placed servers (greedy over 2, TensorFlow's tensors a message each, gRPC's costs a message), the round after
     * backward and the reads in forward on InfiniBand, the round on TCP (each flow's ACKs load the other direction):
     * on 2 nodes nothing is shared there that the analytic engine does not count. Reading in forward on TCP a node's
     * pushes meet its server's replies on one NIC and the analytic engine is the lower bound (as where the node sums:
     * docs/simulation.md) */
    cluster_spec tcp = cluster("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=10gbe");
    c.gpus = 4, c.run.ps_placement = PS_GREEDY, c.run.fusion_bytes = 0, c.rpc_send_s = 0.5e-3, c.rpc_recv_s = 0.7e-3;
    for (int i = 0; i < 4; i++) {
        const int round = i % 2;
        c.run.ps_pull = round, c.run.overlap = !round, c.cluster = i < 2 ? &ib : &tcp;
        const sim_result sg = result_of(c, ENGINE_SIMGRID), an = result_of(c, ENGINE_ANALYTIC);
        const double r = sg.iteration_s / an.iteration_s;
        CHECK(round    ? fabs(r - 1) < 1e-9
              : i == 2 ? r >= 1 - 1e-9
                       : fabs(r - 1) < 0.005,
              "every GPU pushing to greedy servers (%s, %s): SimGrid %.6f s, analytic %.6f s",
              round ? "the round" : "reads in forward", i < 2 ? "InfiniBand" : "10 GbE", sg.iteration_s,
              an.iteration_s);
    }
    c.cluster = &ib;
    /* the round with free sums: each tensor's exchange is its copies (up and down, 1 us + its bytes / 15.75 GB/s
     * each), two latencies across the NICs (1.2 us) and its bytes over the busiest NIC direction, which pushing
     * every GPU's own doubles; so pushes - the sum = the sum - copies - latencies, tensor by tensor */
    c.run.ps_pull = 1, c.run.overlap = 0, c.server_sum_ns = 0, c.rpc_send_s = c.rpc_recv_s = 0;
    const double copies = 2 * S / 15.75e9;
    for (int e = 0; e < 2; e++) {
        const engine_kind ek = e ? ENGINE_ANALYTIC : ENGINE_SIMGRID;
        const sim_result r = result_of(c, ek);
        const double pushes = r.comm_s, latencies = 2 * r.buckets * (1e-6 + 1.2e-6);
        c.run.node_sum = NODE_SUM_HOST;
        const double summed = result_of(c, ek).comm_s;
        c.run.node_sum = NODE_SUM_NONE;
        CHECK(fabs((pushes - summed) / (summed - copies - latencies) - 1) < (e ? 1e-9 : 0.01),
              "%s: pushes %.6f s - the sum %.6f s = the sum's NIC time (%.6f s)", e ? "analytic" : "SimGrid", pushes,
              summed, summed - copies - latencies);
    }
    c.server_sum_ns = sum_ns;
    /* 4 nodes of 2 through the hub, greedy over 4 reading in forward: the analytic engine's queues the lower bound;
     * every pair's own flow (--exact-flows) within 10% of the hub's */
    c.gpus = 8, c.run.ps_pull = 0, c.run.overlap = 1;
    const double sg = run(c, ENGINE_SIMGRID), an = run(c, ENGINE_ANALYTIC);
    c.run.exact_flows = 1;
    const double pairs = run(c, ENGINE_SIMGRID);
    CHECK(an <= sg * (1 + 1e-9) && fabs(sg / pairs - 1) < 0.10,
          "every GPU pushing, 4 nodes of 2, greedy over 4: analytic %.6f s, SimGrid %.6f s, pairs %.6f s", an, sg,
          pairs);
}

/* gRPC's cost per message (rpc=): each message costs its sender `send` and its receiver `recv` of CPU time, one after
 * another at each end; the iteration grows by what the busiest end's messages cost, in both engines. */
static void test_rpc(void)
{
    const double send = 60e-6, recv = 80e-6, both = send + recv;
    cluster_spec eth = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe");
    const int N = 4;
    static const struct {
        sync_kind sync;
        int shards;
        ps_placement placement;
        double messages; /* the busiest path's message ends, in units of send + recv */
        const char *what;
    } CASE[] = {
        /* a worker's message up and back, the server's 4 in and 4 out */
        {SYNC_PS, 0, PS_EVEN, 1 + N, "ps: a worker's 2 ends and the server's 4 + 4"},
        /* every node sends each of 3 others its shard, serves their 3, answers 3 and takes 3 replies */
        {SYNC_PS_SHARDED, 0, PS_EVEN, 2 * (N - 1), "ps-sharded: 3 messages each way at each node"},
        /* one server (node 0): the others' one message each, its 3 in and 3 out */
        {SYNC_PS_SHARDED, 1, PS_EVEN, 1 + (N - 1), "one server: a node's 2 ends and the server's 3 + 3"},
    };
    static const engine_kind ENGINES[] = {ENGINE_ANALYTIC, ENGINE_SIMGRID};
    for (size_t i = 0; i < sizeof CASE / sizeof CASE[0]; i++)
        for (size_t k = 0; k < 2; k++) {
            const engine_kind e = ENGINES[k];
            sim_config c = base("alexnet", &eth, N, "fp32", CASE[i].sync);
            c.run.overlap = 0, c.run.fusion_bytes = 1e12, c.run.network_model = "CM02"; /* one bucket */
            c.run.ps_shards = CASE[i].shards, c.run.ps_placement = CASE[i].placement;
            const double plain = run(c, e);
            c.rpc_send_s = send, c.rpc_recv_s = recv;
            const double d = run(c, e) - plain, want = CASE[i].messages * both;
            CHECK(fabs(d - want) < 1e-9, "%s, %s engine: +%.6f s, closed form +%.6f s", CASE[i].what,
                  e == ENGINE_SIMGRID ? "SimGrid" : "analytic", d, want);
        }
    /* round-robin over 2: every weight (8 tensors) on server 0, every bias (8) on server 1, one message per tensor
     * (TensorFlow sends each variable on its own): nodes 2 and 3 send 16 and take 16 replies; server 0 takes 3 x 8
     * in and sends as many out. The analytic engine adds the busiest of each: 16 send + 24 (recv + send) + 16 recv.
     * In SimGrid the other senders start sooner, so server 0's link fills no later and the growth is at most that. */
    sim_config c = base("alexnet", &eth, N, "fp32", SYNC_PS_SHARDED);
    c.run.overlap = 0, c.run.network_model = "CM02", c.run.ps_shards = 2, c.run.ps_placement = PS_ROUND_ROBIN;
    const double a0 = run(c, ENGINE_ANALYTIC), s0 = run(c, ENGINE_SIMGRID);
    c.rpc_send_s = send, c.rpc_recv_s = recv;
    const double da = run(c, ENGINE_ANALYTIC) - a0, ds = run(c, ENGINE_SIMGRID) - s0;
    const double want = 16 * send + 24 * both + 16 * recv;
    CHECK(fabs(da - want) < 1e-9, "round-robin over 2, analytic: +%.6f s, closed form +%.6f s", da, want);
    CHECK(ds <= want + 1e-9 && ds >= 24 * both + 16 * recv, "round-robin over 2, SimGrid: +%.6f s (%.6f .. %.6f)", ds,
          24 * both + 16 * recv, want);
}

/* gRPC's copies (cluster.rpc_copy_rate, set where every flow between nodes is a message): a node's NICs at a copy
 * rate R below the wire's are NICs of rate R -- in both engines, the same iteration as on a link kind of that
 * bandwidth and latency to the last digits, for the one server, even shards, and placed servers read in forward
 * and in the round; a rate at the wire's (equality) or above is the wire's. */
static void test_rpc_copy_rate(void)
{
    cluster_spec fast = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=ib-edr");
    link_kind wire_r = *fast.inter;
    const double R = fast.inter->bandwidth / 3.5;
    wire_r.bandwidth = R;
    cluster_spec slow = fast;
    slow.inter = &wire_r;
    static const struct {
        sync_kind sync;
        int shards, round;
        ps_placement placement;
        const char *what;
    } CASE[] = {
        {SYNC_PS, 0, 0, PS_EVEN, "ps"},
        {SYNC_PS_SHARDED, 0, 0, PS_EVEN, "ps-sharded even"},
        {SYNC_PS_SHARDED, 4, 0, PS_GREEDY, "4 greedy servers read in forward"},
        {SYNC_PS_SHARDED, 4, 1, PS_GREEDY, "4 greedy servers in the round"},
    };
    static const engine_kind ENGINES[] = {ENGINE_ANALYTIC, ENGINE_SIMGRID};
    for (size_t i = 0; i < sizeof CASE / sizeof CASE[0]; i++)
        for (size_t k = 0; k < 2; k++) {
            const engine_kind e = ENGINES[k];
            const char *name = e == ENGINE_SIMGRID ? "SimGrid" : "analytic";
            cluster_spec capped = fast;
            sim_config c = base("alexnet", &capped, 4, "fp32", CASE[i].sync);
            c.run.network_model = "CM02", c.run.ps_shards = CASE[i].shards, c.run.ps_placement = CASE[i].placement;
            c.run.ps_pull = CASE[i].round;
            const double on_wire = run(c, e);
            capped.rpc_copy_rate = R;
            const double copied = run(c, e);
            c.cluster = &slow;
            const double on_r = run(c, e);
            CHECK(fabs(copied / on_r - 1) < 1e-12 && copied > 1.01 * on_wire,
                  "%s, %s engine: copies at %.4g GB/s %.9f s, a wire of that rate %.9f s, the wire's own %.9f s",
                  CASE[i].what, name, R / 1e9, copied, on_r, on_wire);
            c.cluster = &capped;
            capped.rpc_copy_rate = fast.inter->bandwidth; /* at equality */
            const double at = run(c, e);
            capped.rpc_copy_rate = 2 * fast.inter->bandwidth;
            const double above = run(c, e);
            CHECK(at == on_wire && above == on_wire,
                  "%s, %s engine: copies at the wire's rate %.9f s, above %.9f s, %.9f s", CASE[i].what, name, at,
                  above, on_wire);
        }
    /* a fat tree's uplinks stay the wire's: 4:1 over 2 nodes a leaf is 6.25 GB/s, above two nodes' copies at R, so the
     * iteration is the non-blocking tree's (1:1) */
    cluster_spec tree4 =
                     cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=ib-edr,topology=fat-tree,oversub=4,"
                             "leaf=2"),
                 tree1 =
                     cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=ib-edr,topology=fat-tree,oversub=1,"
                             "leaf=2");
    tree4.rpc_copy_rate = tree1.rpc_copy_rate = R;
    for (size_t k = 0; k < 2; k++) {
        sim_config c4 = base("alexnet", &tree4, 4, "fp32", SYNC_PS_SHARDED), c1 = c4;
        c4.run.network_model = c1.run.network_model = "CM02", c1.cluster = &tree1;
        const double t4 = run(c4, ENGINES[k]), t1 = run(c1, ENGINES[k]);
        CHECK(fabs(t4 / t1 - 1) < 1e-9, "copies at %.4g GB/s on a 4:1 fat tree %.9f s, 1:1 %.9f s (%s engine)", R / 1e9,
              t4, t1, ENGINES[k] == ENGINE_SIMGRID ? "SimGrid" : "analytic");
    }
}

/* PowerSGD's factors all-reduced: two all-reduces a bucket in both engines alike; without overlap, its codec is on
 * the critical path whole -- every encoded element's encode (its two halves) and decode, the tensors it sends as
 * floats (vectors) charged nothing; and an all-reduce of fewer bytes is faster on 10 GbE than fp32's. */
static void test_powersgd(void)
{
    cluster_spec ib2 = cluster("cluster:gpus-per-node=2,gpu=P100,intra=nvlink1,inter=ib-edr"),
                 eth10 = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe");
    static const sync_kind SYNCS[] = {SYNC_RING, SYNC_HIERARCHICAL};
    for (int k = 0; k < 2; k++) {
        sim_config c = base("vgg-a", &ib2, 8, "powersgd:rank=4", SYNCS[k]);
        c.run.overlap = 0;
        const double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.02, "powersgd, %s, 4 nodes x 2, no overlap: SimGrid %.6f vs analytic %.6f",
              sync_name(SYNCS[k]), s, a);
    }
    /* on TCP every all-reduce pays 2(P - 1) latencies: the second (Q's) is half the exchange, both engines alike */
    for (int gpus = 2; gpus <= 8; gpus *= 4) {
        sim_config c = base("alexnet", &eth10, gpus, "powersgd:rank=1", SYNC_RING);
        c.run.overlap = 0;
        const double s = run(c, ENGINE_SIMGRID), a = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(s / a - 1) < 0.005, "powersgd ring on %d hosts, 10 GbE (LV08): SimGrid %.6f vs analytic %.6f", gpus,
              s, a);
    }
    /* AlexNet's (60,965,224 parameters, grouped) weights are all matrices PowerSGD compresses at rank 2 (its biases,
     * 10,568 floats in 8 tensors, are not): 1 ns an element each way and nothing fixed add (60,965,224 - 10,568) x 2 ns
     */
    sim_config c = base("alexnet", &eth10, 4, "powersgd:rank=2", SYNC_RING);
    c.run.overlap = 0, c.encode_ns = c.decode_ns = 0;
    const double bare = run(c, ENGINE_ANALYTIC);
    c.encode_ns = c.decode_ns = 1.0;
    const double coded = run(c, ENGINE_ANALYTIC), want = (60965224.0 - 10568) * 2e-9;
    CHECK(fabs((coded - bare) / want - 1) < 1e-9, "powersgd's codec on the critical path: %.9f s added (%.9f)",
          coded - bare, want);
    sim_config f = base("alexnet", &eth10, 4, "fp32", SYNC_RING);
    f.run.overlap = 0;
    CHECK(bare < run(f, ENGINE_ANALYTIC), "powersgd's all-reduce faster than fp32's on 10 GbE (%.6f s)", bare);
}

/* The SimGrid engine's flows against their counts (the regression check of its work: a count, not a time). */
static sim_result engine_run(sim_config c) { return result_of(c, ENGINE_SIMGRID); }

static void test_engine_work(void)
{
    cluster_spec eth = cluster("terngrad-ethernet"); /* 4 GPUs a node */
    for (int gpus = 64; gpus <= 128; gpus *= 2) {
        const long nodes = gpus / 4;
        sim_config c = base("alexnet", &eth, gpus, "terngrad", SYNC_RING);
        sim_result one = engine_run(c);
        CHECK(one.buckets > 1 && one.flows == 2 * nodes * one.buckets, "ring, %d GPUs: %ld flows, %ld expected", gpus,
              one.flows, 2 * nodes * one.buckets);
        c.run.iterations = 3;
        sim_result three = engine_run(c);
        CHECK(three.flows == 3 * one.flows, "ring, 3 iterations, %d GPUs: %ld flows, 3 x %ld expected", gpus,
              three.flows, one.flows);
        static const sync_kind S[] = {SYNC_HIERARCHICAL, SYNC_PS_SHARDED};
        for (int s = 0; s < 2; s++) {
            /* the leaders' (TernGrad's shared scaler, in ps-sharded, moves no flow: its rounds are times) */
            const long per_bucket = S[s] == SYNC_HIERARCHICAL ? nodes : 2 * nodes;
            c = base("alexnet", &eth, gpus, "terngrad", S[s]);
            one = engine_run(c);
            c.run.iterations = 3;
            three = engine_run(c);
            /* the folded stand-ins' flows: one a size and direction, up and down each bucket at most, once a run */
            const long folded = one.flows - per_bucket * one.buckets;
            CHECK(folded >= 2 && folded <= 2 * one.buckets && three.flows == 3 * per_bucket * one.buckets + folded,
                  "%s, %d GPUs: %ld and %ld flows in 1 and 3 iterations, %ld a bucket, %d buckets",
                  S[s] == SYNC_HIERARCHICAL ? "hierarchical" : "ps-sharded", gpus, one.flows, three.flows, per_bucket,
                  one.buckets);
        }
    }
}

/* The placed servers' flows through the hub (one a node a phase each way) against every pair as its own flow
 * (--exact-flows, the pairwise exchange): within 1% of it on a star -- Piz Daint's 8-GPU row is the furthest, 0.6%
 * (docs/simulation.md) -- in 2 (N + K) flows a bucket where the pairs take 2 K (N - 1). */
static void test_ps_hub(void)
{
    cluster_spec k80 = cluster("cluster:gpus-per-node=1,gpu=K80,intra=pcie3,inter=1gbe"),
                 daint = cluster("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=aries"),
                 ib = cluster("terngrad-infiniband");
    struct {
        const char *model;
        const cluster_spec *cl;
        int gpus, shards, on_cpu;
    } C[] = {{"inception3", &k80, 32, 32, 1},
             {"inception3", &daint, 2, 1, 1}, /* the replies wait for their server: 7.5% early without it */
             {"inception3", &daint, 8, 2, 1},
             {"vgg-a", &ib, 64, 8, 0}};
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        sim_config c = base(C[i].model, C[i].cl, C[i].gpus, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = C[i].shards, c.run.ps_placement = PS_GREEDY, c.run.ps_on_cpu = C[i].on_cpu;
        c.run.ps_pull = 1;                         /* the round after backward (test_pull_forward: the other) */
        c.server_sum_ns = C[i].on_cpu ? 0.335 : 0; /* the host's sums, as every run from the CLI charges them */
        const double hub = run(c, ENGINE_SIMGRID);
        c.run.exact_flows = 1;
        const double pairs = run(c, ENGINE_SIMGRID);
        CHECK(fabs(hub / pairs - 1) <= 0.01, "%s on %d GPUs, %d greedy servers: hub %.6f s, pairs %.6f s", C[i].model,
              C[i].gpus, C[i].shards, hub, pairs);
    }
    /* even shards on 16 of 64 nodes: every node pushes to 15 or 16 servers, each server replies to 63 nodes */
    const long N = 64, K = 16;
    sim_config c = base("alexnet", &k80, (int)N, "fp32", SYNC_PS_SHARDED);
    c.run.ps_shards = (int)K;
    sim_result hub = engine_run(c);
    c.run.exact_flows = 1;
    sim_result pairs = engine_run(c);
    CHECK(hub.buckets > 1 && hub.flows == 2 * (N + K) * hub.buckets && pairs.flows == 2 * K * (N - 1) * pairs.buckets,
          "64 nodes, 16 even servers, %d buckets: %ld flows through the hub (%ld expected), %ld pairwise (%ld)",
          hub.buckets, hub.flows, 2 * (N + K) * hub.buckets, pairs.flows, 2 * K * (N - 1) * pairs.buckets);
    CHECK(fabs(hub.iteration_s / pairs.iteration_s - 1) <= 0.01, "even over 16 of 64: hub %.6f s, pairs %.6f s",
          hub.iteration_s, pairs.iteration_s);
}

/* Placed servers overlapped, reads in forward or in the step, against what they can be held to without a closed
 * form: on TCP (AlexNet, ResNet-50 on 1 GbE) the analytic engine the lower bound; the hub within 10% of every pair
 * a flow of its own (--exact-flows); on InfiniBand (VGG-A, 32 GPUs, 8 servers), where backward hides the exchange,
 * faster than the round after backward by the factor `than_round`. */
static void placed_cases(ps_pull_mode mode, double than_round)
{
    cluster_spec eth = cluster("terngrad-ethernet"), ibn = cluster("terngrad-infiniband");
    const char *name = mode == PS_PULL_FORWARD ? "reads in forward" : "reads in the step";
    struct {
        const char *model;
        const cluster_spec *cl;
        int gpus, shards;
    } C[] = {{"alexnet", &eth, 16, 4}, {"resnet50", &eth, 32, 8}, {"vgg-a", &ibn, 32, 8}};
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        sim_config c = base(C[i].model, C[i].cl, C[i].gpus, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = C[i].shards, c.run.ps_placement = PS_GREEDY, c.run.ps_pull = mode;
        const double sg = run(c, ENGINE_SIMGRID), an = run(c, ENGINE_ANALYTIC);
        c.run.exact_flows = 1;
        const double pairs = run(c, ENGINE_SIMGRID);
        c.run.exact_flows = 0, c.run.ps_pull = PS_PULL_ROUND;
        const double round = run(c, ENGINE_SIMGRID);
        CHECK(an <= sg * (1 + 1e-9), "%s, %s on %d GPUs, %d servers: analytic %.6f s above SimGrid %.6f s", name,
              C[i].model, C[i].gpus, C[i].shards, an, sg);
        CHECK(fabs(sg / pairs - 1) <= 0.10, "%s, %s on %d GPUs, %d servers: hub %.6f s, pairs %.6f s", name, C[i].model,
              C[i].gpus, C[i].shards, sg, pairs);
        if (C[i].cl == &ibn) /* on TCP the network, not backward, is the step: the chains may lose to the round */
            CHECK(sg < than_round * round, "%s, vgg-a on InfiniBand: %.6f s, the round %.6f s", name, sg, round);
    }
}

/* TensorFlow's placed servers overlapped (--ps-pull forward, the default with placement and overlap): reads during
 * forward, pushes during backward. Where nothing is shared -- one server, every other node reading from it and
 * pushing to it, each NIC direction one flow at a time through the hub -- the SimGrid engine is the analytic
 * engine's queues, within 0.5%; where a node's NIC also carries its own server's replies or contributions, the
 * analytic engine is a lower bound (it queues what SimGrid shares); the hub within 10% of every pair a flow of its
 * own (--exact-flows, all of a step's reads asked at once: the table in docs/simulation.md); 2 N flows a tensor
 * (its server's one each way, every other node's one each way); and where the exchange hides behind compute, as
 * TensorFlow's does, faster than the round after backward. */
static void test_pull_forward(void)
{
    cluster_spec ib = cluster("cluster:gpus-per-node=1,gpu=V100,intra=pcie3,inter=ib-edr");
    for (int gpus = 2; gpus <= 8; gpus *= 2) {
        sim_config c = base("vgg-a", &ib, gpus, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = 1, c.run.ps_placement = PS_GREEDY;
        const sim_result sg = result_of(c, ENGINE_SIMGRID), an = result_of(c, ENGINE_ANALYTIC);
        CHECK(fabs(sg.iteration_s / an.iteration_s - 1) <= 0.005,
              "vgg-a, %d hosts, one server: SimGrid %.6f s, "
              "analytic %.6f s",
              gpus, sg.iteration_s, an.iteration_s);
        CHECK(sg.buckets > 1 && sg.flows == 2L * gpus * sg.buckets, "vgg-a, %d hosts: %ld flows, %ld expected", gpus,
              sg.flows, 2L * gpus * sg.buckets);
    }
    placed_cases(PS_PULL_FORWARD, 0.8);
}

/* distributed_replicated (--ps-pull backward): each variable read back within the step once applied and past the
 * barrier. On InfiniBand the two engines agree: within 0.5% with one server, within 2.5% where servers' nodes push
 * too (1.3-1.9% measured: SimGrid shares a NIC's way out between a node's pushes and its replies, the analytic
 * engine queues them as they come); on TCP the analytic engine is the lower bound, as reads in forward; pairs
 * within 10% of the hub; and on InfiniBand, where backward hides them, the chains beat the round after it by more
 * than 10% (0.529 s against 0.650 s for vgg-a on 32 GPUs). */
static void test_read_in_step(void)
{
    cluster_spec ib = cluster("cluster:gpus-per-node=1,gpu=V100,intra=pcie3,inter=ib-edr");
    for (int gpus = 2; gpus <= 8; gpus *= 2) {
        sim_config c = base("vgg-a", &ib, gpus, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = 1, c.run.ps_placement = PS_GREEDY, c.run.ps_pull = PS_PULL_BACKWARD;
        const sim_result sg = result_of(c, ENGINE_SIMGRID), an = result_of(c, ENGINE_ANALYTIC);
        CHECK(fabs(sg.iteration_s / an.iteration_s - 1) <= 0.005,
              "read in step, vgg-a, %d hosts, one server: SimGrid %.6f s, analytic %.6f s", gpus, sg.iteration_s,
              an.iteration_s);
        CHECK(sg.buckets > 1 && sg.flows == 2L * gpus * sg.buckets, "read in step, vgg-a, %d hosts: %ld flows, %ld",
              gpus, sg.flows, 2L * gpus * sg.buckets);
    }
    for (int shards = 2; shards <= 8; shards *= 2) { /* servers' nodes that push too: their NICs' way out shared */
        sim_config c = base("vgg-a", &ib, 8, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = shards, c.run.ps_placement = PS_GREEDY, c.run.ps_pull = PS_PULL_BACKWARD;
        const double sg = run(c, ENGINE_SIMGRID), an = run(c, ENGINE_ANALYTIC);
        CHECK(an <= sg && sg / an - 1 <= 0.025,
              "read in step, vgg-a, 8 hosts, %d servers: SimGrid %.6f s, analytic %.6f s", shards, sg, an);
    }
    { /* nodes of 4 with servers on their hosts and gRPC's costs: the reads' receives and broadcasts end the step */
        cluster_spec four = cluster("cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=ib-edr");
        sim_config c = base("vgg-a", &four, 16, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = 4, c.run.ps_placement = PS_ROUND_ROBIN, c.run.ps_pull = PS_PULL_BACKWARD, c.run.ps_on_cpu = 1;
        c.server_sum_ns = 0.3, c.rpc_send_s = 0.1e-3, c.rpc_recv_s = 0.15e-3;
        const double sg = run(c, ENGINE_SIMGRID), an = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(sg / an - 1) <= 0.01,
              "read in step, vgg-a, 4 nodes of 4, servers on the hosts: SimGrid %.6f s, "
              "analytic %.6f s",
              sg, an);
    }
    { /* InfiniBand at a WAN's latency (2 ms): each variable's barrier, 2 latencies, is on the chain */
        cluster_spec far = ib;
        link_kind slow = *ib.inter;
        slow.latency = 2e-3, far.inter = &slow;
        sim_config c = base("vgg-a", &far, 8, "fp32", SYNC_PS_SHARDED);
        c.run.ps_shards = 1, c.run.ps_placement = PS_GREEDY, c.run.ps_pull = PS_PULL_BACKWARD;
        const double sg = run(c, ENGINE_SIMGRID), an = run(c, ENGINE_ANALYTIC);
        CHECK(fabs(sg / an - 1) <= 0.005, "read in step, vgg-a, 8 hosts 2 ms apart: SimGrid %.6f s, analytic %.6f s",
              sg, an);
    }
    placed_cases(PS_PULL_BACKWARD, 0.9);
}

int main(void)
{
    if (zoo_load(&Z, NULL, NULL, 0) != GQ_OK) return 2;
    test_powersgd();
    test_engines_agree();
    test_shared_scaler();
    test_flat_and_comm();
    test_roots();
    test_pull_forward();
    test_read_in_step();
    test_ring_on_host();
    test_ring_pipelined();
    test_tree();
    test_fusion_wait();
    test_contention();
    test_basics();
    test_scaling();
    test_overlap_and_iterations();
    test_aggregation();
    test_ps_placement();
    test_inside_nodes();
    test_ps_on_cpu();
    test_per_gpu_push();
    test_rpc();
    test_rpc_copy_rate();
    test_engine_work();
    test_ps_hub();
    zoo_free(&Z);
    return check_summary();
}
