/* The model zoo against independently known numbers: parameter totals of
 * every built-in model (docs/papers.md §3, torchvision's counts, or hand arithmetic in
 * the model file), forward multiply-adds against published figures, a small
 * hand-computed model layer by layer, and malformed files failing with
 * FILE:LINE and a reason. */
#include "check.h"
#include "model.h"
#include "zoo.h"

static const model_t *get(gq_zoo *z, const char *name)
{
    const model_t *m = zoo_model(z, name, NULL, 0);
    if (!m) {
        fprintf(stderr, "model %s missing\n", name);
        exit(2);
    }
    return m;
}

static void test_totals(gq_zoo *z)
{
    static const struct {
        const char *name;
        unsigned long long params;
    } EXACT[] = {
        {"alexnet", 60965224ull},        {"vgg-a", 132863336ull},
        {"vgg16", 138357544ull},         {"vgg19", 143667240ull},
        {"resnet50", 25557032ull},       {"resnet101", 44549160ull},
        {"resnet152", 60192808ull},      {"alexnet-owt", 61100840ull},
        {"inception3", 23834568ull},     {"lenet5", 61706ull},
        {"cifar10-convnet", 1068298ull}, {"convnet-fm", 37514ull}, /* 416 + 12,832 + 18,496 + 5,770 */
    };
    for (size_t i = 0; i < sizeof EXACT / sizeof EXACT[0]; i++) {
        const model_t *m = get(z, EXACT[i].name);
        CHECK(model_params(m) == EXACT[i].params, "%s: %llu parameters, expected %llu", EXACT[i].name,
              (unsigned long long)model_params(m), EXACT[i].params);
    }
    /* docs/papers.md §3: GoogLeNet "about 6.8 M" (Szegedy et al., Table 1) */
    const model_t *g = get(z, "googlenet");
    CHECK(fabs((double)model_params(g) / 6.8e6 - 1) < 0.05, "googlenet: %llu parameters, not about 6.8 M",
          (unsigned long long)model_params(g));
    CHECK(z->nbuiltin == 13, "13 built-in models (got %zu)", z->nbuiltin);
}

static void test_flops(gq_zoo *z)
{
    /* published forward multiply-adds (see each model file's header) */
    static const struct {
        const char *name;
        double gmac, tol;
    } PUB[] = {
        {"alexnet", 0.724, 0.05},  {"vgg16", 15.3, 0.05},    {"resnet50", 3.8, 0.05},
        {"vgg19", 19.6, 0.05},     {"resnet101", 7.6, 0.05}, {"resnet152", 11.3, 0.05},
        {"inception3", 5.7, 0.05}, {"googlenet", 1.5, 0.06}, {"vgg-a", 7.6, 0.05},
    };
    for (size_t i = 0; i < sizeof PUB / sizeof PUB[0]; i++) {
        const model_t *m = get(z, PUB[i].name);
        double gmac = m->fwd_flops / 2e9;
        CHECK(fabs(gmac / PUB[i].gmac - 1) < PUB[i].tol, "%s: %.3f G multiply-adds vs published %.3f", PUB[i].name,
              gmac, PUB[i].gmac);
    }
}

static const char *const SMALL = "name small\n"
                                 "input 3x32x32\n"
                                 "conv c1 out=8 k=3 p=1           # 8x32x32\n"
                                 "bn b1\n"
                                 "conv c2 out=16 k=5 s=2 p=2 g=4  # 16x16x16\n"
                                 "pool p1 op=max k=3 s=2 round=ceil # ceil(13/2)+1 = 8\n"
                                 "conv a out=4 k=1x3 p=0x1 bias=0 # 4x8x8\n"
                                 "conv b out=6 k=1 from=p1        # 6x8x8\n"
                                 "concat cat from=a,b             # 10x8x8\n"
                                 "conv d out=10 k=1 from=cat\n"
                                 "add sum from=d,cat\n"
                                 "pool gp op=avg global=1\n"
                                 "fc out out=5\n";

static void test_small(void)
{
    model_t m;
    char msg[256];
    gq_err e = model_parse(&m, SMALL, "small.model", msg, sizeof msg);
    CHECK(e == GQ_OK, "small model parses: %s", e == GQ_OK ? "" : msg);
    if (e != GQ_OK) return;
    const model_layer *L = m.layers;
    CHECK(m.nlayers == 11, "11 layers (got %zu)", m.nlayers);
    /* c1: 8*3*3*3 weights, 8 biases, 2*216 MAC per output pixel x 1024 pixels */
    CHECK(L[0].weight_params == 216 && L[0].bias_params == 8 && L[0].fwd_flops == 2.0 * 216 * 32 * 32, "conv c1");
    CHECK(L[1].weight_params == 8 && L[1].bias_params == 8, "bn: scale and shift per channel");
    /* c2: groups of 2 input channels: 16 * 2 * 25 */
    CHECK(L[2].weight_params == 800 && L[2].shape.c == 16 && L[2].shape.h == 16 && L[2].shape.w == 16,
          "grouped conv c2");
    CHECK(L[3].shape.h == 8 && L[3].shape.w == 8, "ceil-mode pooling 16 -> 8 (got %d)", L[3].shape.h);
    CHECK(L[4].weight_params == 4 * 16 * 3 && L[4].bias_params == 0 && L[4].shape.h == 8 && L[4].shape.w == 8,
          "1x3 conv without bias");
    CHECK(L[5].inputs[0] == 3 && L[5].weight_params == 96, "from= takes an earlier layer");
    CHECK(L[6].shape.c == 10 && L[6].ninputs == 2, "concat sums channels");
    CHECK(L[8].shape.c == 10 && L[8].type == LAYER_ADD, "add keeps the shape");
    CHECK(L[9].shape.h == 1 && L[9].shape.w == 1, "global pooling");
    CHECK(L[10].weight_params == 50 && L[10].bias_params == 5, "fc flattens its input");
    double fwd[16], bwd[16], sf = 0, sb = 0;
    model_layer_times(&m, 1.0, 2.0, fwd, bwd);
    for (size_t i = 0; i < m.nlayers; i++) sf += fwd[i], sb += bwd[i];
    CHECK(fabs(sf - 1.0) < 1e-12 && fabs(sb - 2.0) < 1e-12 && fwd[1] == 0, "layer times split by FLOP share");
    model_free(&m);
}

static void expect_error(const char *text, const char *where, const char *reason)
{
    model_t m;
    char msg[512] = "";
    gq_err e = model_parse(&m, text, "bad.model", msg, sizeof msg);
    CHECK(e == GQ_ERR_SPEC && strstr(msg, where) == msg && strstr(msg, reason), "expected '%s ... %s', got '%s'", where,
          reason, msg);
}

static void test_errors(void)
{
    expect_error("input 3x8x8\nconv c out=4 k=3\nsquish s\n", "bad.model:3:", "unknown layer type or macro 'squish'");
    expect_error("input 3x8x8\nconv c out=4 k=9\n", "bad.model:2:", "does not fit");
    expect_error("input 3x8x8\nconv c out=4 k=3 p=-1\n", "bad.model:2:", "bad value p=-1");
    expect_error("input 3x8x8\nconv c out=-4 k=3\n", "bad.model:2:", "bad value out=-4");
    expect_error("input 3x8x8\nconv a out=4 k=3\nconv b out=4 k=1 from=input\nconcat c from=a,b\n",
                 "bad.model:4:", "input 2 is 8x8, the first is 6x6");
    expect_error("input 3x8x8\nconv a out=4 k=1\nconv b out=5 k=1 from=input\nadd c from=a,b\n",
                 "bad.model:4:", "input 2 is 5x8x8");
    expect_error("", "bad.model:1:", "no layers");
    expect_error("# only a comment\n\n", "bad.model:3:", "no layers");
    expect_error("conv c out=4 k=3\n", "bad.model:1:", "'input CxHxW' must come before");
    expect_error("input 3x8x8\nconv c out=4 k=3\nconv c out=4 k=1\n", "bad.model:3:", "used twice");
    expect_error("input 3x8x8\nconv c out=4 k=3 from=nowhere\n", "bad.model:2:", "no earlier layer");
    expect_error("input 3x8x8\nconv c out=4 k=3 stride=2\n", "bad.model:2:", "unknown key 'stride'");
    expect_error("input 3x8x8\nconv c out=4 k=3 g=2\n", "bad.model:2:", "g=2");
    expect_error("input 0x8x8\n", "bad.model:1:", "sizes in 1..16777216");
    expect_error("input 3x8x8\ndefine blk out\nconv $name out=$out k=1\nend\nblk b1\n",
                 "bad.model:5:", "missing argument 'out'");
    expect_error("input 3x8x8\ndefine blk out\nconv $name out=$out k=9\nend\nblk b1 out=2\n",
                 "bad.model:5: in 'blk' (its line 3):", "does not fit");
    expect_error("input 3x8x8\ndefine blk out\nconv $name out=$out k=1\n", "bad.model:2:", "no matching 'end'");
    expect_error("input 3x8x8\nconv c out=4 k=3\nend\n", "bad.model:3:", "'end' without 'define'");
    expect_error("input 3x8x8\nfc f\n", "bad.model:2:", "needs out=");
    expect_error("input 3x8x8\npool p op=max\n", "bad.model:2:", "needs k=");
    expect_error("input 3x8x8\nconcat c from=input\n", "bad.model:2:", "at least two");
    /* a key, a macro argument or a header line given twice is an error, not "the last one wins" */
    expect_error("input 3x8x8\nconv c out=4 k=3 out=8\n", "bad.model:2:", "key 'out' is given twice");
    expect_error("input 3x8x8\ndefine blk out\nconv $name out=$out k=1\nend\nblk b1 out=2 out=3\n",
                 "bad.model:5:", "argument 'out' is given twice");
    expect_error("name a\nname b\ninput 3x8x8\n", "bad.model:2:", "'name' is given twice");
    expect_error("input 3x8x8\ninput 3x9x9\n", "bad.model:2:", "'input' is given twice");
    /* 100000 x 100000 x 100 inputs x 100000 outputs = 10^17 weights: past 2^53, an error, not a wrapped count */
    expect_error("input 100000x100000x100\nfc f out=100000\n", "bad.model:2:", "pass 2^53");
    expect_error("input 99999999999x1x1\n", "bad.model:1:", "sizes in 1..16777216");
}

/* Counts near the limits, against hand arithmetic; many layers in linear time. */
static void test_limits(void)
{
    model_t m;
    char msg[512] = "";
    /* 65536^3 inputs x 10 outputs: 2^48 x 10 weights (a wrapped 64-bit product gave 0 before) */
    gq_err e = model_parse(&m, "input 65536x65536x65536\nfc f out=10\n", "wide.model", msg, sizeof msg);
    CHECK(e == GQ_OK && m.weight_params == 10ull << 48 && m.bias_params == 10, "2^48 x 10 weights counted exactly: %s",
          msg);
    model_free(&m);
    size_t n = 100000, cap = 64 + 16 * n;
    char *text = malloc(cap), *p = text;
    p += sprintf(p, "input 1x28x28\n");
    for (size_t i = 0; i < n; i++) p += sprintf(p, "relu r%zu\n", i);
    sprintf(p, "fc f out=10 from=r%zu\n", n / 2);
    e = model_parse(&m, text, "deep.model", msg, sizeof msg);
    CHECK(e == GQ_OK && m.nlayers == n + 1 && model_params(&m) == 784 * 10 + 10, "100000 relu layers then fc: %s", msg);
    model_free(&m);
    free(text);
}

/* The communication-to-computation ratio: fp32 gradient bytes over an iteration's training FLOPs. */
static void test_comm_ratio(gq_zoo *z)
{
    /* 1e6 parameters, 1 GFLOP forward, backward twice that, batch 10: 4e6 bytes over 30 GFLOP */
    const double r = grad_bytes_per_gflop(1e6, 1e9, 2, 10);
    CHECK(fabs(r - 4e6 / 30) < 1e-9, "4e6 bytes / 30 GFLOP = 133333.33 (got %.6f)", r);
    CHECK(grad_bytes_per_gflop(1e6, 0, 2, 10) == 0, "no FLOPs (a dropout layer): 0, not a division by zero");
    /* the seeds' reasoning: AlexNet and VGG-A at their customary batches above GoogLeNet and ResNet-50 */
    const model_t *a = zoo_model(z, "alexnet", NULL, 0), *v = zoo_model(z, "vgg-a", NULL, 0),
                  *g = zoo_model(z, "googlenet", NULL, 0), *res = zoo_model(z, "resnet50", NULL, 0);
#define RATIO(m) grad_bytes_per_gflop((double)model_params(m), (m)->fwd_flops, (m)->backward_ratio, (m)->batch)
    CHECK(a && v && g && res && fmin(RATIO(a), RATIO(v)) > 5 * fmax(RATIO(g), RATIO(res)),
          "AlexNet %.0f, VGG-A %.0f bytes/GFLOP: over five times GoogLeNet's %.0f and ResNet-50's %.0f", RATIO(a),
          RATIO(v), RATIO(g), RATIO(res));
#undef RATIO
}

int main(void)
{
    gq_zoo z;
    if (zoo_load(&z, NULL, NULL, 0) != GQ_OK) return 2;
    test_comm_ratio(&z);
    test_totals(&z);
    test_flops(&z);
    test_small();
    test_errors();
    test_limits();
    zoo_free(&z);
    return check_summary();
}
