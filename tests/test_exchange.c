/* One exchange policy, two users: the bytes per GPU per iteration that the
 * simulator predicts for a parameter server equal the bytes the trainer
 * counts from the real encoder while training LeNet-5, for every quantizer
 * whose encoded size does not depend on the data, every downlink, with and
 * without an fp32 classifier and small tensors in fp32, at 2 and 4 workers;
 * PowerSGD's factors in a ring: the simulated bytes are its closed form.
 * The trainer runs two iterations on synthetic images (no data set needed). */
#include "check.h"
#include "sim.h"
#include "trainer.h"
#include "zoo.h"

static double trained_up, trained_down;

static void on_epoch(const epoch_stats *s, void *ctx)
{
    (void)ctx;
    trained_up = s->bytes_up_per_iter, trained_down = s->bytes_down_per_iter;
}

/* The policy's own rules on LeNet-5, by hand: 10 tensors (5 layers with weights and biases); the
 * classifier is fc5 (layer 10: 840 weights, 10 biases); fp32-below 100 leaves the biases of conv1 (6),
 * conv2 (16), fc4 (84) and fc5 (10) in fp32. */
static void test_rules(const model_t *lenet)
{
    xch_tensor t[32];
    qz_params tg;
    qz_parse_spec("terngrad", &tg, NULL, 0);
    xch_policy last = {0, 1, DOWNLINK_AUTO, 0}, small = {100, 0, DOWNLINK_AUTO, 0};
    CHECK(xch_classifier(lenet) == 10 && strcmp(lenet->layers[10].name, "fc5") == 0, "the classifier is fc5");
    size_t n = xch_tensors(lenet, &tg, &last, t);
    int fp32 = 0;
    size_t fp32_elems = 0;
    for (size_t i = 0; i < n; i++)
        if (!t[i].quantized) fp32++, fp32_elems += t[i].n;
    CHECK(n == 10 && fp32 == 2 && fp32_elems == 850 && t[8].layer == 10 && !t[8].bias && t[8].n == 840,
          "fp32-last: fc5's 840 weights and 10 biases in fp32 (%d tensors, %zu elements)", fp32, fp32_elems);
    n = xch_tensors(lenet, &tg, &small, t);
    fp32 = 0, fp32_elems = 0;
    for (size_t i = 0; i < n; i++)
        if (!t[i].quantized) fp32++, fp32_elems += t[i].n;
    CHECK(fp32 == 4 && fp32_elems == 6 + 16 + 84 + 10, "fp32-below 100: four bias tensors (%d, %zu elements)", fp32,
          fp32_elems);
    CHECK(xch_downlink(&small, &tg) == DOWNLINK_TERNGRAD, "TernGrad's automatic reply is its summed levels");
    qz_parse_spec("qsgd", &tg, NULL, 0);
    CHECK(xch_downlink(&small, &tg) == DOWNLINK_REQUANT && !xch_shares_scaler(&small, &tg),
          "QSGD's automatic reply is re-quantized, with no scaler to share");
    qz_parse_spec("fp32", &tg, NULL, 0);
    CHECK(xch_downlink(&small, &tg) == DOWNLINK_FP32, "fp32's reply is fp32");
}

/* TernGrad's summed levels on the wire: base 2W+1, in groups of k digits a field of the bits base^k - 1 needs, k
 * the one with the fewest bits a digit. The groups below were found by exact integer search outside this code. */
static void test_levels(void)
{
    static const struct {
        int workers;
        unsigned digits, bits;
    } GROUPS[] = {{1, 29, 46}, {2, 3, 7},    {3, 21, 59}, {4, 17, 54},
                  {8, 11, 45}, {16, 12, 61}, {64, 9, 64}, {1024, 5, 56}};
    for (size_t i = 0; i < sizeof GROUPS / sizeof GROUPS[0]; i++) {
        const xch_levels_group g = xch_levels_grouping(GROUPS[i].workers);
        CHECK(g.digits == GROUPS[i].digits && g.bits == GROUPS[i].bits,
              "%d workers: %u digits in %u bits (want %u in %u)", GROUPS[i].workers, g.digits, g.bits, GROUPS[i].digits,
              GROUPS[i].bits);
    }
    /* ceil(groups x bits / 8): W = 8, 11 digits a 45-bit group; W = 1, 29 in 46 bits */
    CHECK(xch_levels_size(1, 8) == 6 && xch_levels_size(11, 8) == 6 && xch_levels_size(12, 8) == 12 &&
              xch_levels_size(88, 8) == 45 && xch_levels_size(29, 1) == 6 && xch_levels_size(30, 1) == 12,
          "sizes: the groups' bits in whole bytes");
    /* within 2% of log2(2W + 1) bits a level for every W up to 4096 (the old whole words: 23% over at 4096) */
    double worst = 0;
    for (int W = 1; W <= 4096; W++) {
        const xch_levels_group g = xch_levels_grouping(W);
        const double over = (double)g.bits / g.digits / log2(2.0 * W + 1) - 1;
        worst = over > worst ? over : worst;
    }
    CHECK(worst > 0 && worst < 0.02, "bits a level at most 2%% over log2(2W + 1) (worst %.4f)", worst);
    /* a set padding bit is a buffer this code did not write: one level of W = 8 leaves 3 of 48 bits */
    {
        int32_t one = 5, back1 = 0;
        uint8_t b1[6];
        xch_levels_pack(b1, &one, 1, 8);
        CHECK(xch_levels_unpack(b1, 1, 8, &back1) == 0 && back1 == 5, "one level round-trips");
        b1[5] |= 0x80;
        CHECK(xch_levels_unpack(b1, 1, 8, &back1) != 0, "a set padding bit is refused");
    }
    enum { N = 1001 };
    static int32_t lv[N], back[N];
    static uint8_t buf[8 * N + 4];
    const int workers[] = {1, 2, 3, 4, 8, 64, 1024};
    for (size_t wi = 0; wi < sizeof workers / sizeof workers[0]; wi++) {
        const int W = workers[wi];
        for (int i = 0; i < N; i++) lv[i] = (int32_t)((i * 7919 + W) % (2 * W + 1)) - W; /* every level, both ends */
        lv[0] = -W, lv[N - 1] = W;
        xch_levels_pack(buf, lv, N, W);
        int ok = xch_levels_unpack(buf, N, W, back) == 0 && memcmp(lv, back, sizeof lv) == 0;
        CHECK(ok, "%d workers: %d levels round-trip", W, N);
        /* a word past its last digit is a corrupt buffer */
        const uint64_t word = UINT64_MAX;
        memcpy(buf + xch_levels_size(N, W) - 8, &word, 8);
        CHECK(xch_levels_unpack(buf, N, W, back) != 0, "%d workers: an out-of-range word is refused", W);
    }
    /* the average every rank computes from them: s x L / W, in double, rounded once */
    CHECK(xch_level_mean(3, 0.1f, 4) == (float)(0.1f * 3.0 / 4) && xch_level_mean(-4, 2.0f, 4) == -2.0f, "level means");
}

/* The schemes' families, as docs/schemes.md describes each scheme: the members of every family by name. */
static void test_families(void)
{
    static const struct {
        unsigned family;
        const char *members; /* space-separated, in SYNC_NAMES' order */
    } WANT[] = {
        {SCHEME_SERVERS, "ps ps-sharded ps-flat"},
        {SCHEME_NODE_SERVERS, "ps ps-sharded"},
        {SCHEME_REPLY, "ps ps-sharded hierarchical ps-flat"},
        {SCHEME_ALLREDUCE, "ring hierarchical allgather tree"},
        {SCHEME_REQUANT_HOPS, "ring tree"},
        {SCHEME_FACTORS, "ring hierarchical tree"},
        {SCHEME_SHARED_SCALER, "ps ps-sharded allgather ps-flat"},
        {SCHEME_NODE_LEADERS, "ps-sharded hierarchical"},
        {SCHEME_ALIKE_FOLLOWERS, "ps-sharded ring hierarchical allgather"},
        {SCHEME_TRAINER, "ps ps-sharded ring allgather ps-flat"},
    };
    for (size_t f = 0; f < sizeof WANT / sizeof *WANT; f++) {
        char got[128] = "";
        for (int s = 0; s < SYNC_COUNT; s++)
            if (sync_is((sync_kind)s, WANT[f].family))
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? " " : "", SYNC_NAMES[s]);
        CHECK(strcmp(got, WANT[f].members) == 0, "family 0x%x: '%s', want '%s'", WANT[f].family, got, WANT[f].members);
    }
    CHECK(SYNC_NAMES[SYNC_COUNT] == NULL && !sync_is((sync_kind)SYNC_COUNT, 0), "SYNC_COUNT schemes, no more");
}

int main(void)
{
    test_families();
    gq_zoo z;
    if (zoo_load(&z, NULL, NULL, 0) != GQ_OK) return 2;
    const model_t *lenet = zoo_model(&z, "lenet5", NULL, 0);
    test_rules(lenet);
    cluster_spec cl;
    char msg[512];
    cluster_parse("cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=10gbe", &cl, msg, sizeof msg);

    /* 2 workers x 8 images x 2 iterations of random 28x28 images */
    enum { N = 64 };
    static uint8_t images[N * 784], labels[N];
    uint64_t r = 12345;
    for (size_t i = 0; i < sizeof images; i++) r = r * 6364136223846793005ull + 1, images[i] = (uint8_t)(r >> 56);
    for (int i = 0; i < N; i++) labels[i] = (uint8_t)(i % 10);
    idx_dataset data = {images, labels, N, 28, 28};

    static const char *const QUANTS[] = {"fp32",
                                         "fp16",
                                         "terngrad",
                                         "terngrad:pack=trits",
                                         "terngrad:bucket=64",
                                         "qsgd:levels=5",
                                         "qsgd:levels=9,norm=max",
                                         "orq:levels=3",
                                         "bingrad-b",
                                         "bingrad-pb",
                                         "signsgd",
                                         "topk:ratio=0.05",
                                         "powersgd:rank=1",
                                         "powersgd:rank=4,warm=off"};
    int compared = 0;
    for (size_t qi = 0; qi < sizeof QUANTS / sizeof QUANTS[0]; qi++)
        for (int down = DOWNLINK_AUTO; down <= DOWNLINK_TERNGRAD; down++)
            for (int variant = 0; variant < 2; variant++)
                for (int workers = 2; workers <= 4; workers += 2) {
                    xch_policy pol = {variant ? 100 : 0, variant, (downlink_kind)down, 0};
                    train_config t;
                    memset(&t, 0, sizeof t);
                    t.model = lenet;
                    qz_parse_spec(QUANTS[qi], &t.quant, NULL, 0);
                    if (gq_is_error(qz_exact_size(&t.quant, 1000))) continue; /* data-dependent size */
                    t.workers = workers, t.batch = 8, t.epochs = 1, t.train_limit = 2 * workers * 8;
                    t.optimizer = OPT_SGD, t.lr = 0.01, t.seed = 7, t.error_feedback = -1, t.test_limit = 8;
                    t.exchange = pol;
                    trained_up = trained_down = -1;
                    gq_err e = train_run(&t, &data, &data, on_epoch, NULL, msg, sizeof msg);

                    sim_config c;
                    memset(&c, 0, sizeof c);
                    c.model = lenet, c.cluster = &cl, c.gpus = workers, c.quant = t.quant, c.run.sync = SYNC_PS;
                    c.run.exchange = pol, c.run.overlap = 1, c.fwd_s = 0.01, c.bwd_s = 0.02,
                    c.run.engine = ENGINE_ANALYTIC;
                    c.run.iterations = 1;
                    sim_result res;
                    gq_err es = sim_run(&c, &res, msg, sizeof msg);
                    CHECK(e == GQ_OK && es == GQ_OK && res.bytes_up == trained_up && res.bytes_down == trained_down,
                          "%s, downlink %s, %s, %d workers: simulated %.0f up %.0f down, trained %.0f up %.0f down",
                          QUANTS[qi], downlink_name((downlink_kind)down), variant ? "fp32 classifier" : "all quantized",
                          workers, res.bytes_up, res.bytes_down, trained_up, trained_down);
                    compared++;
                }
    /* all 14 have exact sizes (top-k's k is fixed, PowerSGD's factors follow the shape), x 4 downlinks x 2
     * variants x 2 worker counts */
    CHECK(compared == 14 * 4 * 2 * 2, "%d configurations compared", compared);
    /* PowerSGD's factors in a ring of 4 workers, LeNet-5 by hand at rank 2: conv1 6 x 25 -> 2 (6 + 25) = 62
     * floats; conv2 16 x 150 -> 332; conv3 120 x 400 -> 1040; fc4 84 x 120 -> 408; fc5 10 x 84 -> 188; the
     * biases (6 + 16 + 120 + 84 + 10 = 236) as floats: 2266 floats, 9064 bytes a worker contributes; each
     * worker sends 2 (W - 1) / W of it round the ring (the two all-reduces together) */
    {
        train_config t;
        memset(&t, 0, sizeof t);
        t.model = lenet;
        qz_parse_spec("powersgd:rank=2", &t.quant, NULL, 0);
        t.workers = 4, t.batch = 8, t.epochs = 1, t.train_limit = 2 * 4 * 8, t.sync = SYNC_RING;
        t.optimizer = OPT_SGD, t.lr = 0.01, t.seed = 7, t.error_feedback = -1, t.test_limit = 8;
        trained_up = -1;
        gq_err e = train_run(&t, &data, &data, on_epoch, NULL, msg, sizeof msg);
        CHECK(e == GQ_OK && trained_up == 9064, "ring, powersgd rank 2: each worker contributes %.0f bytes (9064)",
              trained_up);
        sim_config c;
        memset(&c, 0, sizeof c);
        c.model = lenet, c.cluster = &cl, c.gpus = 4, c.quant = t.quant, c.run.sync = SYNC_RING;
        c.run.overlap = 1, c.fwd_s = 0.01, c.bwd_s = 0.02, c.run.engine = ENGINE_ANALYTIC, c.run.iterations = 1;
        sim_result res;
        CHECK(sim_run(&c, &res, msg, sizeof msg) == GQ_OK && res.bytes_up == 2 * 3 / 4.0 * 9064 &&
                  res.bytes_down == res.bytes_up,
              "ring, powersgd rank 2: simulated %.1f bytes up per GPU (%.1f)", res.bytes_up, 2 * 3 / 4.0 * 9064);
    }
    test_levels();
    zoo_free(&z);
    return check_summary();
}
