/* Every threshold the simulator and the trainer compare against, tested at
 * equality and one step past it, and the formulas an independent mutation run
 * found no test pinned: the fusion bucket that closes when its raw bytes reach
 * --fusion, the tensor of exactly --fp32-below elements (quantized: "below"
 * is strict), the learning-rate schedules epoch by epoch, and TernGrad's
 * clipped scale min(max|g|, clip x sigma) with sigma the population standard
 * deviation about the mean.
 *
 * The model is test_pinned's: one fully-connected layer, a weight tensor of
 * 1,000,000 elements and a bias of 1000, on 4 GPUs (2 a node, InfiniBand EDR,
 * CM02). Backward reaches the bias first (4000 raw bytes), then the weight. */
#include "check.h"
#include "model.h"
#include "scenario.h"
#include "sim.h"
#include "trainer.h"

static model_t M;
static cluster_spec CL;
static const double AX = 3.2e-6; /* one inter-node message's latency: 2 x 1 us of PCIe + 2 x 0.6 us of NIC */

static sim_result simulate(const char *quant, sync_kind sync, double fusion_bytes, double fp32_below)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    c.model = &M, c.cluster = &CL, c.gpus = 4, c.run.sync = sync, c.run.overlap = 0, c.run.fusion_bytes = fusion_bytes;
    qz_parse_spec(quant, &c.quant, NULL, 0);
    c.run.exchange.fp32_below = fp32_below;
    c.fwd_s = 0.01, c.bwd_s = 0.02, c.run.engine = ENGINE_ANALYTIC, c.run.iterations = 1;
    sim_result r;
    char msg[256];
    if (sim_run(&c, &r, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "sim failed: %s\n", msg);
        r.iteration_s = r.bytes_up = NAN;
    }
    return r;
}

/* A bucket is full when its raw bytes reach --fusion: at 4000 (the bias) the weight starts a second bucket, at 4001
 * it joins the first. A ring pays 2(P - 1) latencies a bucket and splits the same bytes either way: two buckets
 * cost exactly 2(P - 1) a_inter more. */
static void test_fusion_at_equality(void)
{
    const double two = simulate("fp32", SYNC_RING, 4000, 0).iteration_s,
                 one = simulate("fp32", SYNC_RING, 4001, 0).iteration_s;
    const double all = simulate("fp32", SYNC_RING, 1e12, 0).iteration_s;
    CHECK(fabs((two - one) - 2 * 3 * AX) < 1e-12, "fusion 4000 vs 4001: %.12g s apart, want 2(P-1) a_inter = %.12g",
          two - one, 2 * 3 * AX);
    CHECK(one == all, "fusion 4001 is one bucket, as 1e12: %.17g vs %.17g", one, all);
    const double per_tensor = simulate("fp32", SYNC_RING, 0, 0).iteration_s;
    CHECK(per_tensor == two, "fusion 0 (a bucket a tensor) is the two buckets of 4000: %.17g vs %.17g", per_tensor,
          two);
}

/* A tensor of fewer than --fp32-below elements travels in fp32: the bias (1000) is quantized at 1000, fp32 at 1001. */
static void test_fp32_below_at_equality(void)
{
    qz_params q;
    qz_parse_spec("terngrad", &q, NULL, 0);
    /* each quantized tensor's encoding (TernGrad's shared scaler is agreed by an all-reduce of its own, not counted
     * in the traffic) */
    const double enc_w = (double)qz_exact_size(&q, 1000000), enc_b = (double)qz_exact_size(&q, 1000);
    const double at = simulate("terngrad", SYNC_PS, 1e12, 1000).bytes_up,
                 past = simulate("terngrad", SYNC_PS, 1e12, 1001).bytes_up;
    CHECK(at == enc_w + enc_b, "fp32-below 1000: the bias quantized, %.0f bytes up, want %.0f", at, enc_w + enc_b);
    CHECK(past == enc_w + 4000, "fp32-below 1001: the bias in fp32, %.0f bytes up, want %.0f", past, enc_w + 4000);
    const double big = simulate("terngrad", SYNC_PS, 1e12, 1000000).bytes_up,
                 all = simulate("terngrad", SYNC_PS, 1e12, 1000001).bytes_up;
    CHECK(big == enc_w + 4000, "fp32-below 1e6: the weight (1e6) quantized, %.0f bytes", big);
    CHECK(all == 4004000, "fp32-below 1e6 + 1: both in fp32, %.0f bytes", all);
}

/* The schedules, epoch by epoch, from their definitions written out by hand. */
static void test_lr_schedule(void)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.lr = 0.1, c.epochs = 10, c.schedule = LR_STEP, c.step_every = 4, c.step_gamma = 0.5;
    /* epochs 1-4: 0.1; 5-8: 0.05; 9-10: 0.025 -- the step lands on epoch 5, not 4 or 6 */
    static const double STEP[10] = {0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025};
    for (int e = 1; e <= 10; e++) {
        const double got = train_lr_at(&c, e, (long)(e - 1) * 7, 7);
        CHECK(fabs(got - STEP[e - 1]) < 1e-15, "step:4:0.5, epoch %d: lr %.17g, want %.17g", e, got, STEP[e - 1]);
    }
    c.schedule = LR_POLY, c.poly_power = 2;
    /* 10 epochs of 7 steps: step s has (1 - s/70)^2; the first 0.1, the last (1 - 69/70)^2 x 0.1 */
    CHECK(train_lr_at(&c, 1, 0, 7) == 0.1, "poly: the first step has the full rate");
    CHECK(fabs(train_lr_at(&c, 6, 35, 7) - 0.1 * 0.25) < 1e-15, "poly:2, step 35 of 70: a quarter");
    CHECK(fabs(train_lr_at(&c, 10, 69, 7) - 0.1 / 4900) < 1e-17, "poly:2, the last step: (1/70)^2");
    c.schedule = LR_CONST;
    for (int e = 1; e <= 10; e++) CHECK(train_lr_at(&c, e, (long)e * 7, 7) == 0.1, "const, epoch %d", e);
}

/* TernGrad's scale: min(max|g|, 2.5 sigma) with the defaults (scale=max, clip=2.5), 2.5 sigma with scale=sigma. */
static void test_terngrad_scale(void)
{
    enum { N = 100 };
    float x[N];
    qz_params p;
    qz_parse_spec("terngrad", &p, NULL, 0);
    for (int i = 0; i < N; i++) x[i] = i % 2 ? 1.0f : -1.0f; /* mean 0, sigma 1, max 1: not clipped */
    float s = 0;
    CHECK(qz_terngrad_scale(&p, x, N, &s) == GQ_OK && s == 1.0f, "+-1: scale %.9g, want max|g| = 1", s);
    for (int i = 0; i < N; i++) x[i] = 0;
    x[37] = 10; /* mean 0.1, variance 100/100 - 0.01 = 0.99: 2.5 sigma = 2.48746... below max|g| = 10 */
    const double want = 2.5 * sqrt(0.99);
    CHECK(qz_terngrad_scale(&p, x, N, &s) == GQ_OK && fabs(s - want) < 1e-6 * want,
          "one spike: scale %.9g, want 2.5 sigma = %.9g (population sigma about the mean)", s, want);
    qz_parse_spec("terngrad:scale=sigma", &p, NULL, 0);
    for (int i = 0; i < N; i++) x[i] = i % 2 ? 1.0f : -1.0f;
    CHECK(qz_terngrad_scale(&p, x, N, &s) == GQ_OK && fabs(s - 2.5f) < 1e-6, "scale=sigma: %.9g, want 2.5", s);
    qz_parse_spec("terngrad:clip=0", &p, NULL, 0);
    x[37] = 10;
    CHECK(qz_terngrad_scale(&p, x, N, &s) == GQ_OK && s == 10.0f, "clip=0: the plain max, %.9g", s);
}

/* Time to accuracy: a seed reaches the target at the first epoch whose accuracy is at or above it. */
static void test_tta_at_equality(void)
{
    const double acc[2][4] = {{0.5, 0.7, 0.8, -1}, {0.6, 0.8, 0.9, -1}}; /* two seeds, 3 epochs, stride 4 */
    tta_result r = tta_reach(&acc[0][0], 2, 4, 3, 0.7, 100);
    CHECK(r.reached == 2 && r.iterations == 200, "target 0.7, equal to seed 0's epoch 2: %zu seeds, %g iterations",
          r.reached, r.iterations);
    r = tta_reach(&acc[0][0], 2, 4, 3, 0.8, 100);
    CHECK(r.reached == 2 && r.iterations == 250, "target 0.8: epochs 3 and 2, a mean of 250 iterations, got %zu, %g",
          r.reached, r.iterations);
    r = tta_reach(&acc[0][0], 2, 4, 3, nextafter(0.8, 1), 100);
    CHECK(r.reached == 1 && r.iterations == 300, "target just above 0.8: seed 1 alone, at epoch 3; got %zu, %g",
          r.reached, r.iterations);
    CHECK(fabs(r.final_accuracy - 0.85) < 1e-15, "final accuracy %.17g, the mean of 0.8 and 0.9", r.final_accuracy);
    r = tta_reach(&acc[0][0], 2, 4, 3, 0.95, 100);
    CHECK(r.reached == 0 && r.iterations == 0, "a target nobody reaches: %zu, %g", r.reached, r.iterations);
}

int main(void)
{
    char msg[256];
    if (model_parse(&M, "name fc\ninput 1x1x1000\nfc f out=1000\n", "thresholds.model", msg, sizeof msg) != GQ_OK ||
        cluster_parse("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=ib-edr", &CL, msg, sizeof msg) != GQ_OK) {
        fprintf(stderr, "setup: %s\n", msg);
        return 1;
    }
    test_fusion_at_equality();
    test_fp32_below_at_equality();
    test_lr_schedule();
    test_terngrad_scale();
    test_tta_at_equality();
    return check_summary();
}
