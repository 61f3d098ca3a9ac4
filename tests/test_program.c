/* A bucket's program (sim/plan_program.c), the steps both engines run: its steps one by one for PowerSGD under the
 * tree (half the encode, P's all-reduce, the tree's pipeline latencies, the other half, Q's, the latencies again,
 * the decode), without Q where there is none, for TernGrad's shared scaler under the ring (its all-reduce, then the
 * ring's exchange, no latency after), and the program's price alone on the network (sim_bucket_comm) against the
 * closed forms of docs/simulation.md worked here from the plan's numbers. */
#include "check.h"
#include "sim_internal.h"

/* 4 nodes of 2 GPUs, the tree's depth floor(log2 4) = 2, each node's leader in 3 half-buckets' edges */
static sim_plan tree_plan(void)
{
    sim_plan p = {0};
    p.nodes = 4, p.per_node = 2, p.gpus = 8;
    p.a_inter = 8e-6, p.b_inter = 1.25e9, p.a_chain = 2e-6, p.b_chain = 10e9, p.a_intra = 2e-6, p.b_intra = 10e9;
    p.tree_depth = 2, p.tree_half_buckets = 3, p.reverse_load = 1, p.net.latency_factor = 4;
    return p;
}

static int same_steps(const sim_bucket *b, const sim_step *want, int n)
{
    if (b->steps != n) return 0;
    for (int i = 0; i < n; i++)
        if (b->step[i].kind != want[i].kind || b->step[i].value != want[i].value) return 0;
    return 1;
}

static void test_powersgd_tree(void)
{
    sim_config c = {0};
    c.run.sync = SYNC_TREE, c.gpus = 8;
    sim_plan p = tree_plan();
    p.factors = 1;
    sim_bucket b = {0};
    b.enc_s = 4e-3, b.dec_s = 1e-3, b.up_bytes = 1e6, b.down_bytes = 1e6, b.up2_bytes = 2e5;
    sim_plan_program(&c, &p, &b);
    /* NCCL's pipeline: 2 x depth hops between nodes, 2 x (G - 1) along a chain, the first paid by the flows, the
     * others at the latency without the network model's factor */
    const double tail = (2 * 2 * 8e-6 + 2 * 1 * 2e-6 - 8e-6) / 4;
    const sim_step want[] = {{STEP_DELAY, 2e-3}, {STEP_FLOATS, 1e6}, {STEP_DELAY, tail}, {STEP_DELAY, 2e-3},
                             {STEP_FLOATS, 2e5}, {STEP_DELAY, tail}, {STEP_DELAY, 1e-3}};
    CHECK(same_steps(&b, want, 7), "PowerSGD under the tree: %d steps", b.steps);
    /* a tree's exchange of B plain floats alone: the first latency, then the busier of a leader's NIC (its 3
     * half-buckets, half of B each, both ways at once) and a chain's hop (B) */
    double exchanges = 0;
    for (int i = 0; i < 2; i++) {
        const double B = i ? 2e5 : 1e6, nic = 3 / 2.0 * B / 1.25e9, chain = B / 10e9;
        exchanges += 8e-6 + (nic > chain ? nic : chain);
    }
    const double want_s = 4e-3 + 1e-3 + exchanges + 2 * tail;
    CHECK(fabs(sim_bucket_comm(&c, &p, &b) - want_s) < 1e-15, "PowerSGD under the tree alone: %.17g, not %.17g",
          sim_bucket_comm(&c, &p, &b), want_s);
    b.up2_bytes = 0; /* a bucket without a Q: P's all-reduce alone */
    sim_plan_program(&c, &p, &b);
    const sim_step one[] = {
        {STEP_DELAY, 2e-3}, {STEP_FLOATS, 1e6}, {STEP_DELAY, tail}, {STEP_DELAY, 2e-3}, {STEP_DELAY, 1e-3}};
    CHECK(same_steps(&b, one, 5), "PowerSGD without Q: %d steps", b.steps);
}

static void test_scaler_ring(void)
{
    sim_config c = {0};
    c.run.sync = SYNC_RING, c.gpus = 8;
    sim_plan p = tree_plan();
    p.a_ring = p.a_ring_step = 8e-6, p.b_ring = 1.25e9;
    sim_bucket b = {0};
    b.enc_s = 8e-4, b.dec_s = 4e-4, b.up_bytes = 8e5, b.down_bytes = 8e5, b.scaler_bytes = 40;
    sim_plan_program(&c, &p, &b);
    const sim_step want[] = {{STEP_SCALER, 40}, {STEP_EXCHANGE, 0}};
    CHECK(same_steps(&b, want, 2), "TernGrad's scaler, then the ring: %d steps", b.steps);
    /* the scaler: to the node's first GPU and back (2 x (a + 40 B / b)), 2 rounds of recursive doubling over 4
     * nodes; the ring: 14 steps of an eighth of the bucket, each re-encoding and decoding an eighth */
    const double scaler = 2 * (2e-6 + 40 / 10e9) + 2 * (8e-6 + 40 / 1.25e9);
    const double ring = 14 * (8e-6 + 8e5 / 8 / 1.25e9) + 14 * (8e-4 + 4e-4) / 8;
    CHECK(fabs(sim_bucket_comm(&c, &p, &b) - (scaler + ring)) < 1e-15, "scaler and ring alone: %.17g, not %.17g",
          sim_bucket_comm(&c, &p, &b), scaler + ring);
    b.scaler_bytes = 0;
    sim_plan_program(&c, &p, &b);
    CHECK(same_steps(&b, want + 1, 1), "no scaler: the exchange alone (%d steps)", b.steps);
}

int main(void)
{
    test_powersgd_tree();
    test_scaler_ring();
    return check_summary();
}
