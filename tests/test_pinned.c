/* The analytic engine and the traffic against closed forms derived by hand,
 * for every synchronisation scheme, so that a change to any formula fails.
 *
 * Setup: one fully-connected layer on a 1000-element input: a weight tensor
 * of n_w = 1,000,000 and a bias tensor of n_b = 1000 elements. Fusion into
 * one bucket, no overlap (the bucket leaves when backward ends), compute
 * 0.03 s. Cluster: 2 GPUs per node on PCIe 3 (15.75 GB/s, 1 us), InfiniBand
 * EDR between nodes (12.5 GB/s, 0.6 us), RDMA so CM02: factors 1. Hence
 *   a_intra = 2 x 1 us = 2 us        (GPU -> node switch -> GPU)
 *   a_inter = 2 x 1 + 2 x 0.6 = 3.2 us  (and through two NIC links)
 *   b_intra = 15.75e9, b_inter = min(NIC, PCIe) = 12.5e9 bytes/s.
 * 4 GPUs: P = 4, N = 2 nodes, G = 2 GPUs per node.
 * Per bucket: U = bytes up, D = the reply, e/d = encode/decode seconds of a
 * contribution, e'/d' = of the reply (0 when the reply is fp32):
 *   ps           e + a_inter + U/b_inter + P d + e' + a_inter + D/b_inter + d'
 *   ps-sharded   [e + a_intra + U/b_intra + (G-1) d]
 *                + a_inter + (N-1)/N U/b_inter + d + e'/N + a_inter + (N-1)/N D/b_inter
 *                + [e' + a_intra + D/b_intra + d']
 *   hierarchical [the same node parts] + 2(N-1) (a_inter + U/N/b_inter) + 2(N-1)(e + d)/N
 *   ring         2(P-1) (a_inter + U/P/b_inter) + 2(P-1)(e + d)/P  (pipelined: below)
 *   allgather    e + (P-1)(a_inter + U/b_inter) + (P-1) d
 *   ps-flat      e + a_inter + x U + d + e'/P + a_inter + x D + d', where x, seconds a byte of the bucket, is
 *                the busier of a GPU's link, (P-1)/P / b_intra, and its node's NIC, G (P-G)/P / b_inter
 *   tree         3e/2 + 2d + 2 a_inter + 2 a_intra + U/b_inter: two nodes are each other's parent in one tree and
 *                child in the other (depth 1), so a leader sends and receives two half-buckets, U, over its NIC
 *                and one bucket over its chain's link (U/b_intra, less); the pipeline's hops are two between
 *                nodes (up, down) and two along the chain of two GPUs; every node re-quantizes its half-sums on
 *                the way up (e + d), decodes the way down (d), a root encodes its half (e/2)
 * TernGrad's shared scaler (ps, ps-sharded, ps-flat, allgather; one tiny exchange a layer, docs/papers.md), before
 * the encode: 2 (a_intra + s/b_intra) + R (a_inter + s/b_inter), s = 4 bytes a tensor and segment (ps-sharded N
 * segments, ps-flat P, else 1), R the rounds of recursive doubling between the N nodes (MPICH's all-reduce of small
 * messages: log2 of the largest power of two m <= N, + 2 where N > m; 1 for N = 2). Not in the traffic.
 * A quantized tensor split evenly over the servers (ps-sharded's N segments, ps-flat's P) is encoded a segment at a
 * time, a header each: U and a re-quantized D are the segments' sums (tern_bytes).
 * Traffic per GPU per iteration (the busiest GPU for hierarchical):
 *   ps, ps-sharded U up, D down; ps-flat (P-1)/P U up, (P-1)/P D down; ring 2(P-1)/P U both ways; allgather (P-1)U
 *   both ways; hierarchical 2(N-1)/N U + (G-1) D up, 2(N-1)/N U + (G-1) U down; tree 2U both ways (a leader: U to
 *   the other node, U along its chain). */
#include "check.h"
#include "model.h"
#include "sim.h"

static model_t M;
static cluster_spec CL;
static const double NW = 1e6, NB = 1000, AI = 2e-6, AX = 3.2e-6, BI = 15.75e9, BX = 12.5e9, COMPUTE = 0.03;
static const double ENC_NS = 1.0, DEC_NS = 2.0; /* per element, for quantized runs */

/* The setup above: one bucket after backward, the analytic engine, no codec cost (the callers set it). */
static sim_config pinned(const cluster_spec *cl, const char *quant, sync_kind sync, int gpus)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    c.model = &M, c.cluster = cl, c.gpus = gpus, c.run.sync = sync, c.run.overlap = 0, c.run.fusion_bytes = 1e12;
    qz_parse_spec(quant, &c.quant, NULL, 0);
    c.fwd_s = 0.01, c.bwd_s = 0.02, c.run.engine = ENGINE_ANALYTIC, c.run.iterations = 1;
    return c;
}

/* ps-flat with whole tensors on 4 GPUs in 2 nodes of 2 (shares s of a bucket of U bytes, the reply as large, no
 * codec, no RPC): the busiest of a GPU's own link, (1 - s) out and 3s in, and a node's NIC, what its two GPUs send
 * the other node's roots and take from its GPUs, each way: 2 a_far + 2 U x the busiest's time a byte. */
static double roots_comm(const double s[4], double U)
{
    double gpu = 0, nic = 0;
    for (int a = 0; a < 4; a++) gpu = fmax(gpu, fmax(1 - s[a], 3 * s[a]));
    for (int n = 0; n < 2; n++) nic = fmax(nic, 2 * fmax(1 - s[2 * n] - s[2 * n + 1], s[2 * n] + s[2 * n + 1]));
    return 2 * AX + 2 * U * fmax(gpu / BI, nic / BX);
}

static sim_result simulate(const char *quant, sync_kind sync, int gpus, downlink_kind down)
{
    sim_config c = pinned(&CL, quant, sync, gpus);
    c.run.exchange.downlink = down;
    c.encode_ns = c.quant.id == QZ_FP32 ? 0 : ENC_NS, c.decode_ns = c.quant.id == QZ_FP32 ? 0 : DEC_NS;
    sim_result r;
    char msg[256];
    if (sim_run(&c, &r, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "sim failed: %s\n", msg);
        r.iteration_s = r.bytes_up = r.bytes_down = NAN;
    }
    return r;
}

static void close_to(double got, double want, const char *what)
{
    CHECK(fabs(got - want) <= 1e-12 + 1e-9 * fabs(want), "%s: %.9g, closed form %.9g", what, got, want);
}

/* TernGrad's bytes for n elements in S segments of n/S (the first n % S one longer), each encoded on its own. */
static double tern_bytes(double n, int S)
{
    qz_params q;
    qz_parse_spec("terngrad", &q, NULL, 0);
    const size_t len = (size_t)n / (size_t)S, longer = (size_t)n % (size_t)S;
    return (double)longer * (double)qz_exact_size(&q, len + 1) + (double)(S - longer) * (double)qz_exact_size(&q, len);
}

/* The expected iteration time and traffic of one scheme, from the formulas above. A quantized tensor split evenly
 * over servers travels in segments each encoded on its own (ps-sharded N, ps-flat P): TernGrad's U (and a
 * re-quantized D) are then the segments' sums. */
static void expect(const char *quant, sync_kind sync, downlink_kind down, double U, double D, double e, double d,
                   double e2, double d2)
{
    const double P = 4, N = 2, G = 2;
    double t = 0, up = 0, dn = 0; /* the busiest GPU's bytes; the mean's below */
    if (!strcmp(quant, "terngrad") && (sync == SYNC_PS_SHARDED || sync == SYNC_PS_FLAT)) {
        const int S = sync == SYNC_PS_SHARDED ? (int)N : (int)P;
        U = tern_bytes(NW, S) + tern_bytes(NB, S);
        if (down == DOWNLINK_REQUANT) D = U; /* each server re-encodes its segment */
    }
    const double node_up = e + AI + U / BI + (G - 1) * d, node_down = e2 + AI + D / BI + d2;
    switch (sync) {
    case SYNC_PS:
        t = e + AX + U / BX + P * d + e2 + AX + D / BX + d2;
        up = U, dn = D;
        break;
    case SYNC_PS_SHARDED:
        t = node_up + AX + (N - 1) / N * U / BX + d + e2 / N + AX + (N - 1) / N * D / BX + node_down;
        up = U, dn = D;
        break;
    case SYNC_HIERARCHICAL:
        t = node_up + 2 * (N - 1) * (AX + U / N / BX) + 2 * (N - 1) * (e + d) / N + node_down;
        up = 2 * (N - 1) / N * U + (G - 1) * D, dn = 2 * (N - 1) / N * U + (G - 1) * U;
        break;
    case SYNC_RING:
        t = 2 * (P - 1) * (AX + U / P / BX) + 2 * (P - 1) * (e + d) / P;
        up = dn = 2 * (P - 1) / P * U;
        break;
    case SYNC_ALLGATHER:
        t = e + (P - 1) * (AX + U / BX) + (P - 1) * d;
        up = dn = (P - 1) * U;
        break;
    case SYNC_TREE:
        t = 1.5 * e + 2 * d + 2 * AX + 2 * AI + U / BX;
        up = dn = 2 * U;
        break;
    case SYNC_PS_FLAT: {
        const double x = fmax((P - 1) / P / BI, G * (P - G) / P / BX); /* here the NIC: 1/BX against 0.75/BI */
        t = e + AX + x * U + d + e2 / P + AX + x * D + d2;
        up = (P - 1) / P * U, dn = (P - 1) / P * D;
        break;
    }
    }
    if (!strcmp(quant, "terngrad") &&
        (sync == SYNC_PS || sync == SYNC_PS_SHARDED || sync == SYNC_PS_FLAT || sync == SYNC_ALLGATHER)) {
        const double s = 4 * 2 * (sync == SYNC_PS_SHARDED ? N : sync == SYNC_PS_FLAT ? P : 1);
        t += 2 * (AI + s / BI) + 1 * (AX + s / BX);
    }
    /* the mean over the GPUs: hierarchical's N leaders' rings and its P - N others' contribution out and broadcast in
     * (as many bytes received as sent, so up and down alike); a tree's 2(N - 1) buckets between the nodes and 2(G - 1)
     * along each node's chain, 2(P - 1) over P, as a ring's; every other scheme's GPUs alike */
    const double mean_up = sync == SYNC_HIERARCHICAL ? (2 * (N - 1) * U + (P - N) * (U + D)) / P
                           : sync == SYNC_TREE       ? 2 * (P - 1) / P * U
                                                     : up,
                 mean_dn = sync == SYNC_HIERARCHICAL || sync == SYNC_TREE ? mean_up : dn;
    sim_result r = simulate(quant, sync, 4, down);
    char what[160];
    snprintf(what, sizeof what, "%s, %s, downlink %s: iteration", sync_name(sync), quant, downlink_name(down));
    close_to(r.iteration_s, COMPUTE + t, what);
    snprintf(what, sizeof what, "%s, %s, downlink %s: communication time (one bucket, after backward)", sync_name(sync),
             quant, downlink_name(down));
    close_to(r.comm_s, t, what);
    snprintf(what, sizeof what, "%s, %s, downlink %s: bytes up, the mean", sync_name(sync), quant, downlink_name(down));
    close_to(r.bytes_up, mean_up, what);
    snprintf(what, sizeof what, "%s, %s, downlink %s: bytes down, the mean", sync_name(sync), quant,
             downlink_name(down));
    close_to(r.bytes_down, mean_dn, what);
    snprintf(what, sizeof what, "%s, %s, downlink %s: the busiest GPU's bytes up", sync_name(sync), quant,
             downlink_name(down));
    close_to(r.bytes_busiest_up, up, what);
    snprintf(what, sizeof what, "%s, %s, downlink %s: the busiest GPU's bytes down", sync_name(sync), quant,
             downlink_name(down));
    close_to(r.bytes_busiest_down, dn, what);
}

/* What several checks share, set by test_every_scheme (the first run): raw, fp32's bytes of the model; for TernGrad
 * on it, U its upload's encoded bytes, D the summed levels' reply, e and d its encode and decode time. A check that
 * names its own of these declares it. */
static double raw, U, D, e, d;

/* fp32 and TernGrad (each downlink) on every scheme; sets the shared quantities below. */
static void test_every_scheme(void)
{
    const sync_kind ALL[] = {SYNC_PS,        SYNC_PS_SHARDED, SYNC_HIERARCHICAL, SYNC_RING,
                             SYNC_ALLGATHER, SYNC_PS_FLAT,    SYNC_TREE};
    const int NS = sizeof ALL / sizeof ALL[0];
    /* fp32: 4 bytes an element both ways, no codec cost */
    raw = 4 * (NW + NB);
    for (int s = 0; s < NS; s++) expect("fp32", ALL[s], DOWNLINK_AUTO, raw, raw, 0, 0, 0, 0);

    /* TernGrad, automatic downlink: 2 bits an element plus its header and scaler per tensor
     * (the encoder's exact size, tested in quant/), the shared scaler agreed before (in the time); the reply is
     * the sum of 4 ternary vectors, log2(9) bits an element, packed by the server and unpacked by
     * every GPU at the codec's cost */
    qz_params tg;
    qz_parse_spec("terngrad", &tg, NULL, 0);
    const double enc_w = (double)qz_exact_size(&tg, (size_t)NW), enc_b = (double)qz_exact_size(&tg, (size_t)NB);
    U = enc_w + enc_b;
    D = ceil(NW * log2(9.0) / 8) + ceil(NB * log2(9.0) / 8);
    e = ENC_NS * 1e-9 * (NW + NB), d = DEC_NS * 1e-9 * (NW + NB);
    CHECK(enc_w == 32 + 4 + 250000, "TernGrad's 1e6 weights: 32-byte header, a scaler, 2 bits each (%.0f)", enc_w);
    for (int s = 0; s < NS; s++) expect("terngrad", ALL[s], DOWNLINK_AUTO, U, D, e, d, e, d);
    /* the re-quantized reply: as large as the upload, encoded by the server, decoded by every GPU */
    for (int s = 0; s < NS; s++) expect("terngrad", ALL[s], DOWNLINK_REQUANT, U, U, e, d, e, d);
    /* an fp32 reply to a quantized upload */
    for (int s = 0; s < NS; s++) expect("terngrad", ALL[s], DOWNLINK_FP32, U, raw, e, d, 0, 0);
}

/* a ring staged through host memory (MPI's all-reduce): fp32 up to the host over the GPU's PCIe link (BI),
 * summed there by the CPU, (P-1)/P of the elements at S ns each, and back: the fp32 ring plus
 * 2 x 4n / BI + (P-1)/P n S, and no other change */
static void test_host_ring(void)
{
    sim_config c = pinned(&CL, "fp32", SYNC_RING, 4);
    c.run.reduce_on_host = 1, c.server_sum_ns = 0.5;
    sim_result r;
    char m2[256];
    const double P = 4, n = NW + NB;
    const double ring = 2 * (P - 1) * (AX + raw / P / BX), host = 2 * raw / BI + (P - 1) / P * n * 0.5e-9;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.iteration_s, COMPUTE + ring + host, "ring through host memory: iteration");
    close_to(r.comm_s, ring + host, "ring through host memory: communication time");
    close_to(r.bytes_up, 2 * (P - 1) / P * raw, "ring through host memory: the same bytes on the network");
}

/* a pipelined ring (NCCL: --ring-steps pipelined) pays the network model's latency factor L on its first step
 * alone, the links' latency on the other 2(P-1) - 1: with CM02 and L = 10 (bandwidth factor 1),
 *   messages   2(P-1) (L a_inter + U/P/b_inter)
 *   pipelined  L a_inter + (2(P-1) - 1) a_inter + 2(P-1) U/P/b_inter;
 * at L = 1 the two are the same to the bit */
static void test_pipelined_ring(void)
{
    sim_config c = pinned(&CL, "fp32", SYNC_RING, 4);
    c.run.network_model = "CM02:latency-factor=10";
    sim_result r, r1;
    char m2[256];
    const double P = 4, L = 10, steps = 2 * (P - 1);
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, steps * (L * AX + raw / P / BX), "ring, latency factor 10, a message a step");
    c.run.ring_pipelined = 1;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, L * AX + (steps - 1) * AX + steps * raw / P / BX, "ring, latency factor 10, pipelined");
    CHECK(strstr(r.network_model, "ring pipelined: lat x10 once a bucket") != NULL, "the row says so: '%s'",
          r.network_model);
    c.run.network_model = NULL; /* CM02, factor 1 */
    CHECK(sim_run(&c, &r1, m2, sizeof m2) == GQ_OK, "%s", m2);
    c.run.ring_pipelined = 0;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    CHECK(r1.comm_s == r.comm_s, "factor 1: pipelined %.17g is the ring a message a step, %.17g", r1.comm_s, r.comm_s);
}

/* a tree on 8 nodes (16 GPUs), CM02 with latency factor L = 10, fp32: the trees' depth is floor(log2 8) = 3
 * and the busiest node sends four half-buckets (inner in one tree: a parent, two children; a leaf in the
 * other), 2U over its NIC; the chain of two GPUs U over PCIe. The pipeline's hops: 2 x 3 between nodes and
 * 2 x 1 along the chain, the first (between nodes) at L a_inter, the others at the links' own latency:
 *   L a_inter + (6 - 1) a_inter + 2 a_intra + 2U/b_inter
 * and the row says so */
static void test_tree_closed_form(void)
{
    sim_config c = pinned(&CL, "fp32", SYNC_TREE, 16);
    c.run.network_model = "CM02:latency-factor=10";
    sim_result r;
    char m2[256];
    const double L = 10;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, L * AX + 5 * AX + 2 * AI + 2 * raw / BX, "tree, 8 nodes of 2 GPUs, latency factor 10");
    close_to(r.bytes_busiest_up, 3 * raw, "tree, 8 nodes: a leader's bytes out, 2U to other nodes, U along its chain");
    close_to(r.bytes_up, 2 * 15.0 / 16 * raw, "tree, 16 GPUs: the mean, 2(P - 1)/P U as a ring's");
    CHECK(strstr(r.network_model, "tree pipelined: lat x10 once a bucket") != NULL, "the row says so: '%s'",
          r.network_model);
    /* 3 nodes of 2: depth 1, the busiest node three half-buckets; one node of 2 (a chain alone, no NIC):
     *   L a_inter + (2 - 1) a_inter + 2 a_intra + 1.5 U/b_inter      and      L a_intra + (2 - 1) a_intra +
     * U/b_intra */
    c.gpus = 6;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, L * AX + AX + 2 * AI + 1.5 * raw / BX, "tree, 3 nodes of 2 GPUs, latency factor 10");
    close_to(r.bytes_busiest_up, 2.5 * raw,
             "tree, 3 nodes: a leader's bytes out, three half-buckets and U along its chain");
    c.gpus = 2;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, L * AI + AI + raw / BI, "tree, one node of 2 GPUs, latency factor 10");
}

/* BytePS's push-pull (ps-sharded on the hosts, the node's GPUs summing first): TernGrad re-quantized both ways,
 * the host's codec at E and D ns an element and F ns a call (2 tensors), its sum at S ns an element. The GPUs
 * reduce-scatter fp32 over their ring, one step of half the sum each way on the two GPUs' hop (a_intra +
 * 2n/b_intra), each GPU copies its half to the host over its own PCIe link (1 us, b_intra), the host encodes
 * (2F + E n), the hosts swap halves over the NICs (2 x 0.6 us each way, b_inter),
 * each server decodes and adds the 2 halves it serves (2F + D n + S n for the bucket's worth) and encodes its
 * half of the reply ((2F + E n) / 2), the host decodes the reply (2F + D n), and back the same way:
 *   2 (a_intra + 2n/b_intra) + 2 (1 us + 2n/b_intra) + (2F + E n) + 2 (1.2 us + U/2/b_inter)
 *   + (2F + D n + S n) + (2F + E n)/2 + (2F + D n)
 * The GPUs encode nothing (encode_s and decode_s are the host's); the bytes on the network are U each way. On one
 * node (2 GPUs): the reduce-scatter and the all-gather alone, 2 (a_intra + 2n/b_intra). */
static void test_byteps_push_pull(void)
{
    const double E = 3, Dn = 4, S = 0.5, F = 500, n = NW + NB;
    sim_config c = pinned(&CL, "terngrad", SYNC_PS_SHARDED, 4);
    c.run.exchange.downlink = DOWNLINK_REQUANT;
    c.run.ps_on_cpu = 1, c.run.node_sum = NODE_SUM_GPUS, c.server_sum_ns = S;
    c.server_encode_ns = E, c.server_decode_ns = Dn, c.server_encode_fixed_ns = F, c.server_decode_fixed_ns = F;
    sim_result r;
    char m2[256];
    const double enc = 1e-9 * (2 * F + E * n), dec = 1e-9 * (2 * F + Dn * n);
    const double want = 2 * (AI + raw / 2 / BI) + 2 * (1e-6 + raw / 2 / BI) + enc + 2 * (1.2e-6 + U / 2 / BX) + dec +
                        S * n * 1e-9 + enc / 2 + dec;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, want, "BytePS push-pull, 2 nodes of 2: communication time");
    close_to(r.bytes_up, U, "BytePS push-pull: bytes up");
    close_to(r.bytes_down, U, "BytePS push-pull: bytes down (re-quantized)");
    close_to(r.encode_s, enc, "BytePS push-pull: encode_s is the host's encode (the GPUs encode nothing)");
    close_to(r.decode_s, dec, "BytePS push-pull: decode_s is the host's decode of the reply");
    c.gpus = 2;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, 2 * (AI + raw / 2 / BI), "BytePS on one node: the reduce-scatter and all-gather alone");
}

/* Nodes of G V100s, PCIe 3 inside, EDR InfiniBand between: the clusters the closed forms below are worked on. */
static cluster_spec v100_nodes(int G)
{
    char spec[96], msg[256];
    cluster_spec cl;
    snprintf(spec, sizeof spec, "cluster:gpus-per-node=%d,gpu=V100,intra=pcie3,inter=ib-edr", G);
    CHECK(cluster_parse(spec, &cl, msg, sizeof msg) == GQ_OK, "%s", msg);
    return cl;
}

/* BytePS on nodes of 4 GPUs, CM02 with latency factor L = 10, fp32, the host's sums free: the reduce-scatter's
 * 3 steps of a quarter (every GPU's own PCIe link carries one flow each way, the hop 2 links) pay L on the first
 * step alone (NCCL pipelines the ring), the 4 copies to the host run at once on their own links:
 *   2 (L a_intra + 2 a_intra + 3 n/b_intra) + 2 (L 1 us + n/b_intra) + 2 (L 1.2 us + 2n/b_inter)     */
static void test_byteps_node_ring(void)
{
    const cluster_spec four = v100_nodes(4);
    sim_config c = pinned(&four, "fp32", SYNC_PS_SHARDED, 8);
    c.run.ps_on_cpu = 1, c.run.node_sum = NODE_SUM_GPUS, c.run.network_model = "CM02:latency-factor=10";
    sim_result r;
    char m2[256];
    const double L = 10, n = NW + NB;
    const double want = 2 * (L * AI + 2 * AI + 3 * n / BI) + 2 * (L * 1e-6 + n / BI) + 2 * (L * 1.2e-6 + 2 * n / BX);
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, want, "BytePS on 2 nodes of 4, latency factor 10: the ring pipelined");
}

/* BytePS's pipeline: 2 nodes of one GPU, servers on 2 machines of their own, fp32, the weights cut into 4 pieces
 * of 250,000 elements (--partition 1000000), each a bucket; the biases (1000) a bucket first; all ready when
 * backward ends. A piece's stages: its copy to the host c = 1 us + 1e6/b_intra, its push p = 1.2 us +
 * 1e6/b_inter, a server's sums and reply s = N/M 250,000 S + 1.2 us + 1e6/b_inter (the bottleneck), the copy
 * back c; a stage takes a bucket once done with the one before. So the last piece ends after the biases' copy
 * c_b, the first piece's copy and push, the servers' four turns and the last copy back:
 *   c_b + c + p + 4 s + c         (one bucket after another, it would be c_b' + 4 (2c + p + s)) */
static void test_byteps_pipeline(void)
{
    const cluster_spec one = v100_nodes(1);
    const double S = 0.5, N = 2, M = 2;
    sim_config c = pinned(&one, "fp32", SYNC_PS_SHARDED, 2);
    c.run.ps_on_cpu = 1, c.run.node_sum = NODE_SUM_GPUS, c.run.ps_cpu_machines = 2, c.server_sum_ns = S;
    c.run.fusion_bytes = 0, c.run.partition_bytes = 1e6;
    sim_result r;
    char m2[256];
    const double cb = 1e-6 + 4 * NB / BI, cp = 1e-6 + 1e6 / BI, p = 1.2e-6 + 1e6 / BX;
    const double s = N / M * 250000 * S * 1e-9 + 1.2e-6 + 1e6 / BX;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, cb + cp + p + 4 * s + cp, "BytePS's pipeline, 4 pieces through 2 server machines");
    close_to(r.iteration_s, COMPUTE + cb + cp + p + 4 * s + cp, "BytePS's pipeline: iteration");
}

/* the servers on M machines of their own (--ps-cpu-machines), fp32, the node's GPUs summing first: each node's
 * host sends its whole sum out, 1/M to each server, and takes the whole reply back; a server's NIC takes N/M of a
 * bucket in and sends as much out. A NIC carries one direction a phase, so the busier side takes
 * max(1, N/M) x 4n / b_inter a phase; a server adds N contributions of 1/M of the bucket (S ns an element):
 *   2 (a_intra + 2n/b_intra) + 2 (1 us + 2n/b_intra) + 2 (1.2 us + max(1, N/M) 4n/b_inter) + (N/M) S n
 * N = 2 nodes: M = 1 doubles the server's load; M = 2 and M = 4 leave each node's own NIC the bottleneck */
static void test_cpu_machines(void)
{
    const double S = 0.5, n = NW + NB, N = 2;
    sim_config c = pinned(&CL, "fp32", SYNC_PS_SHARDED, 4);
    c.run.ps_on_cpu = 1, c.run.node_sum = NODE_SUM_GPUS, c.server_sum_ns = S;
    sim_result r;
    char m2[256], what[96];
    for (int M = 1; M <= 4; M *= 2) {
        c.run.ps_cpu_machines = M;
        const double want = 2 * (AI + raw / 2 / BI) + 2 * (1e-6 + raw / 2 / BI) +
                            2 * (1.2e-6 + fmax(1, N / M) * raw / BX) + N / M * S * n * 1e-9;
        CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
        snprintf(what, sizeof what, "servers on %d machine%s of their own", M, M > 1 ? "s" : "");
        close_to(r.comm_s, want, what);
    }
}

/* every GPU pushing its own (--ps-node-sum none, TensorFlow's parameter_server), fp32, servers on the 2 nodes'
 * hosts, their sums at S ns an element, gRPC's R1 to send and R2 to take in a message. Each GPU copies its
 * gradient to the host over its own PCIe link (1 us, b_intra) and back; no sum, no message inside the node. A
 * node pushes g = 2 contributions, so its NIC carries twice the node sum's (N-1)/N U and sends g (N-1) = 2
 * messages; a server takes T/N = 2 contributions' worth of its half (T = 4 GPUs) from 2 messages and answers
 * them:
 *   2 (1 us + U/b_intra) + 2 R1 + 1.2 us + U/b_inter + 2 R2 + 2 S n + 2 R1 + 1.2 us + U/b_inter + 2 R2
 * With one server (--ps-shards 1: node 0's host holds the whole bucket), node 1 pushes 2U in 2 messages, the
 * server adds all 4 GPUs' and answers 2 messages:
 *   2 (1 us + U/b_intra) + 2 R1 + 1.2 us + 2U/b_inter + 4 S n + 2 (R2 + R1) + 1.2 us + 2U/b_inter + 2 R2
 * (the node's sum instead, --ps-node-sum host: U/2 and U/b_inter, the host adding its 2 GPUs' in its own
 * messages) */
static void test_every_gpu_pushing(void)
{
    const double S = 0.5, n = NW + NB, R1 = 50e-6, R2 = 70e-6, copies = 2 * (1e-6 + raw / BI);
    sim_config c = pinned(&CL, "fp32", SYNC_PS_SHARDED, 4);
    c.run.ps_on_cpu = 1, c.run.node_sum = NODE_SUM_NONE, c.server_sum_ns = S, c.rpc_send_s = R1, c.rpc_recv_s = R2;
    sim_result r;
    char m2[256];
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s,
             copies + 2 * R1 + 1.2e-6 + raw / BX + 2 * R2 + 2 * S * n * 1e-9 + 2 * R1 + 1.2e-6 + raw / BX + 2 * R2,
             "every GPU pushing its own, 2 nodes of 2, a server a node");
    close_to(r.bytes_up, raw, "every GPU pushing its own: a GPU's bytes up");
    c.run.ps_shards = 1;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s,
             copies + 2 * R1 + 1.2e-6 + 2 * raw / BX + 4 * S * n * 1e-9 + 2 * (R2 + R1) + 1.2e-6 + 2 * raw / BX +
                 2 * R2,
             "every GPU pushing its own, 2 nodes of 2, one server");
    /* on one machine its host serves its GPUs whoever sums: the same as --ps-node-sum host, to the bit */
    sim_result one, host;
    c.gpus = 2, c.run.ps_shards = 0;
    CHECK(sim_run(&c, &one, m2, sizeof m2) == GQ_OK, "%s", m2);
    c.run.node_sum = NODE_SUM_HOST;
    CHECK(sim_run(&c, &host, m2, sizeof m2) == GQ_OK, "%s", m2);
    CHECK(one.comm_s == host.comm_s && one.comm_s > 0, "one machine: pushes %.17g s, the host's sum %.17g s",
          one.comm_s, host.comm_s);
    /* the servers on M machines of their own: a node pushes its 2 GPUs' contributions, 1/M of each to every
     * machine (2M messages), a machine takes 4/M of a bucket from 4 messages, adds 4 contributions of 1/M and
     * answers them; the busier NIC side carries max(2, 4/M) buckets each way:
     *   2 (1 us + U/b_intra) + 2M R1 + 1.2 us + L U/b_inter + 4 (R2 + S n/M) + 4 R1 + 1.2 us + L U/b_inter + 2M R2
     */
    c.run.node_sum = NODE_SUM_NONE, c.gpus = 4;
    for (int M = 1; M <= 4; M *= 2) {
        const double L = fmax(2, 4.0 / M);
        c.run.ps_cpu_machines = M;
        CHECK(sim_run(&c, &one, m2, sizeof m2) == GQ_OK, "%s", m2);
        char what[96];
        snprintf(what, sizeof what, "every GPU pushing to %d server machine%s", M, M > 1 ? "s" : "");
        close_to(one.comm_s,
                 copies + 2 * M * R1 + 1.2e-6 + L * raw / BX + 4 * (R2 + S * n * 1e-9 / M) + 4 * R1 + 1.2e-6 +
                     L * raw / BX + 2 * M * R2,
                 what);
    }
    /* TernGrad to M server machines: each machine decodes its own segment, a tensor's M segments a header each */
    sim_config t = pinned(&CL, "terngrad", SYNC_PS_SHARDED, 4);
    t.run.ps_on_cpu = 1, t.run.node_sum = NODE_SUM_NONE;
    for (int M = 1; M <= 4; M *= 2) {
        t.run.ps_cpu_machines = M;
        CHECK(sim_run(&t, &one, m2, sizeof m2) == GQ_OK, "%s", m2);
        char what[96];
        snprintf(what, sizeof what, "TernGrad to %d server machine%s: a header a segment", M, M > 1 ? "s" : "");
        close_to(one.bytes_up, tern_bytes(NW, M) + tern_bytes(NB, M), what);
    }
    /* 3 GPUs on nodes of 2: the nodes push unlike, which the machines' stand-in flows do not keep: an error */
    c.gpus = 3;
    CHECK(sim_run(&c, &one, m2, sizeof m2) == GQ_ERR_PARAM && strstr(m2, "needs full nodes") != NULL,
          "every GPU pushing to server machines from a half node: refused (%s)", m2);
}

/* ps-sharded on nodes of one GPU: no node-local reduce, and each GPU encodes its own contribution for the
 * servers and decodes their reply itself (until 2026-12-04 neither was charged):
 *   e + a_inter + (N-1)/N U/b_inter + d + e'/N + a_inter + (N-1)/N D/b_inter + d', N = 2 nodes
 * (TernGrad's summed reply: the reply's encode and decode at the codec's cost, e' = e, d' = d) */
static void test_one_gpu_nodes(void)
{
    const cluster_spec one = v100_nodes(1);
    sim_config c = pinned(&one, "terngrad", SYNC_PS_SHARDED, 2);
    c.encode_ns = ENC_NS, c.decode_ns = DEC_NS;
    sim_result r;
    char m2[256];
    /* the summed reply of 2 workers: log2(1 + 2 x 2) bits an element */
    const double N = 2, D2 = ceil(NW * log2(5.0) / 8) + ceil(NB * log2(5.0) / 8);
    const double scaler = AX + 4 * 2 * N / BX; /* one round between the 2 nodes, a float a tensor and segment */
    const double U2 = tern_bytes(NW, 2) + tern_bytes(NB, 2); /* a segment a server, each with its header */
    const double want = scaler + e + AX + (N - 1) / N * U2 / BX + d + e / N + AX + (N - 1) / N * D2 / BX + d;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, want, "ps-sharded, one GPU a node: the GPU's own encode and decode");
    /* the codec's fixed cost F once a tensor however many segments it writes (one kernel over the tensor): the
     * GPU's encode F, a server's N decodes of 1/N each F, its encode of its 1/N F/N, the GPU's decode F */
    const double F = 700;
    c.encode_fixed_ns = c.decode_fixed_ns = F;
    sim_result fixed;
    CHECK(sim_run(&c, &fixed, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(fixed.comm_s - r.comm_s, 2 * (3 + 1 / N) * F * 1e-9,
             "ps-sharded, one GPU a node: the codec's fixed cost once a tensor, not a segment");
}

/* Segments of tiny tensors: ps-flat over 8 single-GPU nodes cuts each tensor in 8, the empty ones sent by no one:
 * out=8 (80 weights, 8 biases: a segment of 1 each, n equal to the segments), out=4 (40 weights, 4 biases in 4
 * segments, the other 4 empty). A GPU sends 7 of 8 segments' bytes. */
static void test_tiny_segments(void)
{
    char msg[256];
    const cluster_spec one = v100_nodes(1);
    qz_params q;
    qz_parse_spec("terngrad", &q, NULL, 0);
    for (int out = 8; out >= 4; out -= 4) {
        model_t tiny;
        char spec[64];
        snprintf(spec, sizeof spec, "name tiny\ninput 1x1x10\nfc f out=%d\n", out);
        CHECK(model_parse(&tiny, spec, "tiny.model", msg, sizeof msg) == GQ_OK, "%s", msg);
        sim_config c = pinned(&one, "terngrad", SYNC_PS_FLAT, 8);
        c.model = &tiny;
        sim_result r;
        char m2[256];
        CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
        const double bias = out * (double)qz_exact_size(&q, 1); /* out segments of one; 8 - out empty */
        char what[96];
        snprintf(what, sizeof what, "ps-flat on 8 GPUs, %d biases in segments of one", out);
        close_to(r.bytes_up, 7.0 / 8 * (tern_bytes(10.0 * out, 8) + bias), what);
        model_free(&tiny);
    }
}

/* TernGrad's shared scaler between N nodes of one GPU: what it adds over the same run without sharing
 * (--no-scaler-sharing: the same bytes, no all-reduce) is R rounds of a_inter + s/b_inter, s = 4 bytes a tensor
 * and segment. R from MPICH's recursive doubling, counted by hand: N = 2 exchanges once; 3 pairs 0 with 1 (in and
 * out, 2) around 2 nodes' one round; 4 two rounds; 5, 6 and 7 pair 1, 2 and 3 couples around 4 nodes' 2 rounds;
 * 8 three rounds; 12 pairs 4 couples around 8 nodes' 3 rounds; 16 four rounds. ps-sharded has N segments, ps-flat
 * N (a GPU each), ps and allgather one. */
static void test_shared_scaler(void)
{
    const cluster_spec one = v100_nodes(1);
    static const int NODES[] = {2, 3, 4, 5, 6, 7, 8, 12, 16}, ROUNDS[] = {1, 3, 2, 4, 4, 4, 3, 5, 4};
    static const sync_kind SHARED[] = {SYNC_PS, SYNC_PS_SHARDED, SYNC_PS_FLAT, SYNC_ALLGATHER};
    for (size_t i = 0; i < sizeof NODES / sizeof NODES[0]; i++)
        for (size_t k = 0; k < sizeof SHARED / sizeof SHARED[0]; k++) {
            sim_config c = pinned(&one, "terngrad", SHARED[k], NODES[i]);
            c.encode_ns = ENC_NS, c.decode_ns = DEC_NS;
            sim_result shared, apart;
            char m2[256];
            const double segs = SHARED[k] == SYNC_PS_SHARDED || SHARED[k] == SYNC_PS_FLAT ? NODES[i] : 1;
            CHECK(sim_run(&c, &shared, m2, sizeof m2) == GQ_OK, "%s", m2);
            c.run.exchange.no_scaler_sharing = 1;
            CHECK(sim_run(&c, &apart, m2, sizeof m2) == GQ_OK, "%s", m2);
            char what[128];
            snprintf(what, sizeof what, "%s, %d nodes: the shared scaler's %d rounds", sync_name(SHARED[k]), NODES[i],
                     ROUNDS[i]);
            close_to(shared.comm_s - apart.comm_s, ROUNDS[i] * (AX + 4 * 2 * segs / BX), what);
            snprintf(what, sizeof what, "%s, %d nodes: the scaler's bytes not in the traffic", sync_name(SHARED[k]),
                     NODES[i]);
            close_to(shared.bytes_up, apart.bytes_up, what);
        }
}

/* the codec on the GPU (codec_serial): its kernels lengthen the compute by every encode and every
 * reply decode, e + d; with a fixed cost of F ns per call (2 tensors: weights, biases) too. Ring,
 * TernGrad's summed reply, no overlap: the ring then starts when the longer compute ends. */
static void test_codec_on_gpu(void)
{
    const double F = 1000; /* ns per call */
    sim_config c = pinned(&CL, "terngrad", SYNC_RING, 4);
    c.encode_ns = ENC_NS, c.decode_ns = DEC_NS, c.encode_fixed_ns = F, c.decode_fixed_ns = F;
    c.codec_serial = 1;
    sim_result r;
    char m2[256];
    const double e2 = e + 2 * F * 1e-9, d2 = d + 2 * F * 1e-9, P = 4;
    double want = COMPUTE + e2 + d2 + 2 * (P - 1) * (AX + U / P / BX) + 2 * (P - 1) * (e2 + d2) / P;
    if (sim_run(&c, &r, m2, sizeof m2) != GQ_OK) r.iteration_s = r.compute_s = NAN;
    close_to(r.iteration_s, want, "GPU codec, ring: iteration");
    close_to(r.compute_s, COMPUTE + e2 + d2, "GPU codec: compute lengthened by its kernels");
    /* on the host instead: beside the GPU, but every quantized tensor crosses PCIe each way */
    c.codec_serial = 0, c.host_copy_bw = 15.75e9;
    const double copy = 4 * (NW + NB) / 15.75e9;
    want = COMPUTE + 2 * (P - 1) * (AX + U / P / BX) + 2 * (P - 1) * (e2 + copy + d2) / P;
    if (sim_run(&c, &r, m2, sizeof m2) != GQ_OK) r.iteration_s = NAN;
    close_to(r.iteration_s, want, "host codec, ring: iteration");
}

/* --partition with placed servers: 4 nodes of 2 GPUs, 4 servers round-robin, fp32. Whole, the weights (4 MB)
 * sit on server 0 and the bias (4 kB) on server 1: server 0's NIC takes 3 x 4,000,000 bytes from the other
 * nodes each way. Cut at 1 MB, the weights are 4 pieces of 250,000 elements on servers 0..3 and the bias, the
 * fifth variable, on server 0 again: its NIC takes 3 x 1,004,000. With the node-local reduce and broadcast
 * (a_intra + U/b_intra each) and no codec or RPC cost:
 *   2 (a_intra + U/b_intra) + 2 a_inter + 2 x (the busiest NIC direction's bytes) / b_inter */
static void test_partition(void)
{
    sim_config c = pinned(&CL, "fp32", SYNC_PS_SHARDED, 8);
    c.run.ps_shards = 4, c.run.ps_placement = PS_ROUND_ROBIN;
    const double U = raw, node = 2 * (AI + U / BI);
    sim_result r;
    char m2[256];
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, node + 2 * AX + 2 * 3 * 4000000.0 / BX, "placed whole: server 0 takes the weights");
    c.run.partition_bytes = 1e6;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, node + 2 * AX + 2 * 3 * 1004000.0 / BX, "cut at 1 MB: four pieces, the bias on server 0");
    c.run.partition_bytes = 4e6; /* at equality: 4,000,000 bytes are not more than 4e6, the weights stay whole */
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, node + 2 * AX + 2 * 3 * 4000000.0 / BX, "a partition the tensor's size: whole");
}

/* TensorFlow's placed servers overlapped (--overlap on, --ps-pull forward): 4 nodes of 2 GPUs, 4 servers
 * round-robin, fp32; the weights (W = 4,000,000 bytes) on server 0, the bias (Wb = 4,000) on server 1, both in
 * the one layer, forward 0.01 s, backward 0.02 s. Reads: server 0 sends the weights to the 3 other nodes, its
 * NIC out taking 3W, while each node's NIC in takes W, then the bias (after 3 Wb from server 1); a node's own
 * part (the broadcast to its GPUs, a_intra + bytes / b_intra a tensor) after each: forward waits
 *   S = a_inter + 3W/b_inter + 2 a_intra + (W + Wb)/b_intra      (nodes 1-3; node 0 holds the weights).
 * Pushes after backward (S + 0.03): the bias first (to server 1), then the weights, each after the node's own
 * reduce (the same a_intra + bytes / b_intra); server 0's NIC in takes 3W from once the three senders have
 * begun, and the step ends when it has applied them:
 *   T = S + 0.03 + 2 a_intra + (W + Wb)/b_intra + a_inter + 3W/b_inter
 * -- the hot server's NIC carries 3W out during forward and 3W in after backward; the round instead
 * (--ps-pull round) charges both after backward, with one node-local reduce and broadcast of the whole. */
static void test_pull_forward(void)
{
    sim_config c = pinned(&CL, "fp32", SYNC_PS_SHARDED, 8);
    c.run.ps_shards = 4, c.run.ps_placement = PS_ROUND_ROBIN, c.run.overlap = 1;
    const double W = 4 * NW, Wb = 4 * NB, local = 2 * AI + (W + Wb) / BI;
    const double S = AX + 3 * W / BX + local;
    sim_result r;
    char m2[256];
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.iteration_s, S + COMPUTE + local + AX + 3 * W / BX, "pull forward: the hot server's 3W out, 3W in");
    c.run.ps_pull = PS_PULL_ROUND;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.iteration_s, COMPUTE + 2 * (AI + raw / BI) + 2 * AX + 2 * 3 * W / BX, "pull round: after backward");
    /* distributed_replicated (--ps-pull backward): the same pushes after backward, the bias's first; each
     * variable, once applied, waits for the barrier's two messages (2 a_inter), then its server replies and every
     * node reads it and broadcasts it to its GPUs, all in the step. The bias's chain is done before the weights'
     * pushes begin; the weights: their own reduce after the bias's, 3W into server 0, the barrier, 3W out of it,
     * the broadcast:
     *   T = COMPUTE + 2 a_intra + (W + Wb)/b_intra + a_inter + 3W/b_inter + 2 a_inter
     *       + a_inter + 3W/b_inter + a_intra + W/b_intra */
    c.run.ps_pull = PS_PULL_BACKWARD;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.iteration_s, COMPUTE + 3 * AI + (2 * W + Wb) / BI + 4 * AX + 2 * 3 * W / BX,
             "pull backward: each variable applied, the barrier, read back in the step");
    close_to(r.comm_s, r.iteration_s - COMPUTE, "pull backward: the exchange from the last gradient's readiness");
}

/* gRPC's copies (rpc=, docs/simulation.md#grpc): where every flow between nodes is a message, a node's NICs move
 * them no faster than its CPU copies them, so the same reads in forward and pushes with a copy rate R below the
 * wire's take 3W/R where they took 3W/b_inter; R at the wire's or above changes nothing. */
static void test_grpc_copies(void)
{
    cluster_spec slow = CL;
    sim_config c = pinned(&slow, "fp32", SYNC_PS_SHARDED, 8);
    c.run.ps_shards = 4, c.run.ps_placement = PS_ROUND_ROBIN, c.run.overlap = 1;
    const double W = 4 * NW, Wb = 4 * NB, local = 2 * AI + (W + Wb) / BI;
    static const double RATE[] = {BX / 2.5, BX, 2 * BX};
    for (int i = 0; i < 3; i++) {
        slow.rpc_copy_rate = RATE[i];
        const double R = RATE[i] < BX ? RATE[i] : BX, S = AX + 3 * W / R + local;
        sim_result r;
        char m2[256], what[96];
        CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
        snprintf(what, sizeof what, "gRPC copies at %.4g GB/s (the wire %.4g): 3W/R out, 3W/R in", RATE[i] / 1e9,
                 BX / 1e9);
        close_to(r.iteration_s, S + COMPUTE + local + AX + 3 * W / R, what);
    }
}

/* HiPress's roots (ps-flat, --ps-placement roots): 4 GPUs on 2 nodes, fp16 at no codec cost (W, Wb the weights'
 * and the bias's wire, U = W + Wb, the reply as large). Whole, the weights (tensor 0) are rooted at GPU 0 and the
 * bias (tensor 1) at GPU 1: GPU 0's own link takes the weights from the 3 others, 3W, more than node 0's NIC
 * takes (2U over the slower b_inter: less). Cut at 4 MB (at equality: the weights' 4,000,000 fp32 bytes are not
 * less than 4e6) into a piece a GPU (Wp each, encoded on its own), the bias on GPU 1: the busiest link from each
 * GPU's and each node's loads (below). No codec, no RPC: 2 a_far + 2 x (busiest bytes) / its bandwidth. And what
 * HiPress does not compress it all-reduces: fp32 tensors are spread evenly, ps-flat's closed form. */
static void test_hipress_roots(void)
{
    sim_config c = pinned(&CL, "fp16", SYNC_PS_FLAT, 4);
    c.run.ps_placement = PS_ROOTS;
    const double W = (double)qz_exact_size(&c.quant, (size_t)NW), Wb = (double)qz_exact_size(&c.quant, (size_t)NB);
    sim_result r;
    char m2[256];
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, 2 * AX + 2 * fmax(3 * W / BI, 2 * (W + Wb) / BX),
             "roots, whole: GPU 0's link takes the weights thrice");
    c.run.partition_bytes = 4e6;
    const double Wp = (double)qz_exact_size(&c.quant, (size_t)NW / 4), U4 = 4 * Wp + Wb;
    const double s4[4] = {Wp / U4, (Wp + Wb) / U4, Wp / U4, Wp / U4};
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, roots_comm(s4, U4), "roots cut at 4 MB, at equality: a piece a GPU");
    c.run.partition_bytes = 4e6 + 1; /* just over the weights' bytes: whole again */
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, 2 * AX + 2 * fmax(3 * W / BI, 2 * (W + Wb) / BX), "roots cut at 4 MB + 1 byte: whole");
    c = pinned(&CL, "fp32", SYNC_PS_FLAT, 4);
    c.run.ps_placement = PS_ROOTS;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, 2 * AX + 2 * raw * fmax(0.75 / BI, 2 * 2 / 4.0 / BX), "roots, fp32: all-reduced evenly");
    /* TensorFlow's local parameter_server on the GPUs (--ps-placement greedy: ParamServerDeviceSetter), fp32
     * placed whole too: the weights (4 NW bytes) on GPU 0, the first of four empty GPUs, the bias on GPU 1, the
     * least loaded after -- as the roots' closed form above with fp32's bytes. Cut at 1 MB (--partition, more
     * bytes than that: 4 pieces of 250,000), the pieces on GPUs 0..3 and the bias, all four now equal, on GPU 0
     * again (the roots put it on GPU 1). */
    c.run.ps_placement = PS_GREEDY;
    const double Wf = 4 * NW, Wbf = 4 * NB;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, 2 * AX + 2 * fmax(3 * Wf / BI, 2 * (Wf + Wbf) / BX),
             "greedy over the GPUs, fp32: the weights whole on GPU 0");
    c.run.partition_bytes = 1e6;
    const double sg[4] = {(Wf / 4 + Wbf) / raw, Wf / 4 / raw, Wf / 4 / raw, Wf / 4 / raw};
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, roots_comm(sg, raw), "greedy cut at 1 MB: a piece a GPU, the bias back on GPU 0");
}

static void test_roots_partitioned(void)
{
    sim_config c;
    sim_result r;
    char m2[256];
    /* the codec: signSGD re-quantized both ways, e = 1 ns and d = 2 ns an element (E, D for the bucket). Whole,
     * GPUs 2 and 3 root nothing: they encode the bucket (E) and decode both replies (D); GPU 0 roots the share
     * s0 = W/U of the bucket's wire (W the weights', U the whole's), decodes its 3 contributions and encodes
     * its reply once, s0 (3D + E), more than GPU 1's s1 (3D + E). Links as above with U's bytes, the reply the
     * same size: E + 2 a_far + 2 U x max(3 s0 / b_intra, 2 / b_inter) + s0 (3D + E) + D */
    c = pinned(&CL, "signsgd", SYNC_PS_FLAT, 4);
    c.run.ps_placement = PS_ROOTS, c.encode_ns = ENC_NS, c.decode_ns = DEC_NS;
    const double W = (double)qz_exact_size(&c.quant, (size_t)NW), U = W + (double)qz_exact_size(&c.quant, (size_t)NB);
    const double E = 1e-9 * ENC_NS * (NW + NB), D = 1e-9 * DEC_NS * (NW + NB), s0 = W / U;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, E + 2 * AX + 2 * U * fmax(3 * s0 / BI, 2 / BX) + s0 * (3 * D + E) + D,
             "roots, signSGD: the roots' decodes, one encode each, the others' codec");
    close_to(r.bytes_up, 0.75 * U, "roots, signSGD: bytes up, (P - 1)/P of the wire on average");
    /* cut at 4 MB, every GPU roots a piece of the weights (Wp each, encoded on its own) and GPU 1 the bias too:
     * shares s_a = Wp/U', s_1 = (Wp + Wb)/U'. Each GPU encodes all but its share, (1 - s_a) E, the most where
     * the share is least; GPU 1 decodes the most, 3 s_1 D + s_1 E; the busiest link from the loads above */
    c.run.partition_bytes = 4e6;
    const double Wp = (double)qz_exact_size(&c.quant, (size_t)NW / 4), Wb = (double)qz_exact_size(&c.quant, (size_t)NB);
    const double U2 = 4 * Wp + Wb, s[4] = {Wp / U2, (Wp + Wb) / U2, Wp / U2, Wp / U2};
    double gpu = 0, nic = 0;
    for (int a = 0; a < 4; a++) gpu = fmax(gpu, fmax(1 - s[a], 3 * s[a]));
    for (int n = 0; n < 2; n++) {
        const double mine = s[2 * n] + s[2 * n + 1];
        nic = fmax(nic, fmax(2 * (1 - mine), 2 * mine));
    }
    const double x = fmax(gpu / BI, nic / BX);
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.comm_s, (1 - s[0]) * E + 2 * AX + 2 * U2 * x + s[1] * (3 * D + E) + (1 - s[0]) * D,
             "roots cut at 4 MB, signSGD: each GPU encodes and decodes all but its own share");
}

/* Horovod's loop (--fusion-wait previous) on three fc layers of 1000 x 1000 (U = 4,004,000 bytes each, weights
 * and biases), fp32 ring on 4 GPUs, forward 10.1 ms, backward 0.75 ms split evenly: layers c, b, a ready at
 * 10.35, 10.6 and 10.85 ms. Cycles of 0.3 ms; one bucket's ring T(U) = 2(P-1)(a_inter + U/P/b_inter), 0.49968 ms
 * for one layer.
 *   on its clock: c leaves at 10.5, b at 10.8, a at 11.1, each waiting for the one before:
 *     10.5 ms + 3 T(U)
 *   the loop: c at 10.5; the next cycle starts when c's ring ends, 10.99968 > 10.8, and takes b and a together:
 *     10.5 ms + T(U) + T(2U)
 * and with 3 ms cycles (rings far shorter than a cycle) the two are the same buckets, to the bit. */
static void test_horovod_loop(void)
{
    char msg[256];
    static model_t M3;
    CHECK(model_parse(&M3, "name bp\ninput 1x1x1000\nfc a out=1000\nfc b out=1000\nfc c out=1000\n", "bp.model", msg,
                      sizeof msg) == GQ_OK,
          "%s", msg);
    sim_config c = pinned(&CL, "fp32", SYNC_RING, 4);
    c.model = &M3, c.run.overlap = 1, c.fwd_s = 0.0101, c.bwd_s = 0.00075, c.run.fusion_cycle_s = 0.0003;
    const double P = 4, U = 4 * 1001000.0, T1 = 2 * (P - 1) * (AX + U / P / BX),
                 T2 = 2 * (P - 1) * (AX + 2 * U / P / BX);
    sim_result r;
    char m2[256];
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.iteration_s, 0.0105 + 3 * T1, "cycles on their clock: three buckets, each after the last");
    c.run.fusion_wait_previous = 1;
    CHECK(sim_run(&c, &r, m2, sizeof m2) == GQ_OK, "%s", m2);
    close_to(r.iteration_s, 0.0105 + T1 + T2, "Horovod's loop: the second cycle waits for the first ring, fuses two");
    CHECK(r.buckets == 2, "the loop's buckets: %d, 2 expected", r.buckets);
    sim_result clock3, loop3;
    c.run.fusion_cycle_s = 0.003;
    CHECK(sim_run(&c, &loop3, m2, sizeof m2) == GQ_OK, "%s", m2);
    c.run.fusion_wait_previous = 0;
    CHECK(sim_run(&c, &clock3, m2, sizeof m2) == GQ_OK, "%s", m2);
    CHECK(loop3.iteration_s == clock3.iteration_s && loop3.buckets == clock3.buckets,
          "rings shorter than a cycle: the loop's %.17g s (%d buckets) is the clock's %.17g s (%d)", loop3.iteration_s,
          loop3.buckets, clock3.iteration_s, clock3.buckets);
    /* at equality: four layers, backward 0.25 s each from 0.5 s, 0.25 s cycles, all exact in binary: every
     * tensor is made exactly at a cycle's start and leaves at the next one, in both, four buckets */
    static model_t M4;
    CHECK(model_parse(&M4, "name bp4\ninput 1x1x1000\nfc a out=1000\nfc b out=1000\nfc c out=1000\nfc d out=1000\n",
                      "bp4.model", msg, sizeof msg) == GQ_OK,
          "%s", msg);
    c.model = &M4, c.fwd_s = 0.5, c.bwd_s = 1.0, c.run.fusion_cycle_s = 0.25;
    CHECK(sim_run(&c, &clock3, m2, sizeof m2) == GQ_OK, "%s", m2);
    c.run.fusion_wait_previous = 1;
    CHECK(sim_run(&c, &loop3, m2, sizeof m2) == GQ_OK, "%s", m2);
    CHECK(loop3.buckets == 4 && clock3.buckets == 4 && loop3.iteration_s == clock3.iteration_s,
          "made at a cycle's start, taken at the next: loop %d buckets %.17g s, clock %d buckets %.17g s",
          loop3.buckets, loop3.iteration_s, clock3.buckets, clock3.iteration_s);
}
/* one GPU: no communication at all */
static void test_one_gpu(void)
{
    sim_result one = simulate("terngrad", SYNC_RING, 1, DOWNLINK_AUTO);
    close_to(one.iteration_s, COMPUTE, "one GPU: the compute alone");
    CHECK(one.bytes_up == 0 && one.bytes_down == 0, "one GPU sends nothing");
}

int main(void)
{
    char msg[256];
    if (model_parse(&M, "name fc\ninput 1x1x1000\nfc f out=1000\n", "pinned.model", msg, sizeof msg) != GQ_OK ||
        cluster_parse("cluster:gpus-per-node=2,gpu=V100,intra=pcie3,inter=ib-edr", &CL, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    test_every_scheme();
    test_host_ring();
    test_pipelined_ring();
    test_tree_closed_form();
    test_byteps_push_pull();
    test_byteps_node_ring();
    test_byteps_pipeline();
    test_cpu_machines();
    test_every_gpu_pushing();
    test_one_gpu_nodes();
    test_tiny_segments();
    test_shared_scaler();
    test_codec_on_gpu();
    test_partition();
    test_pull_forward();
    test_grpc_copies();
    test_hipress_roots();
    test_roots_partitioned();
    test_one_gpu();
    model_free(&M);
    test_horovod_loop(); /* on models of its own */
    return check_summary();
}
