/* Codec cost profiles: the published points reproduced by the fitted model
 * within its documented error (docs/codec-costs.md), published costs used as
 * published, a faster GPU encoding faster, a free codec costing nothing, a
 * profile file read back exactly and its errors named by FILE:LINE, and the
 * calibration's fit recovering a known line. */
#include "check.h"
#include "codec_cost.h"
#include "scenario.h"
#include "zoo.h"

static gq_zoo Z;

static void test_fit(void)
{
    codec_fit_point pts[32];
    double L, eff;
    size_t n = codec_fit(&Z.gpus, &L, &eff, pts, 32);
    CHECK(n == 10, "10 published one-level points (5 codecs x encode, decode), got %zu", n);
    double loo[32];
    for (size_t k = 0; k < n; k++) {
        double fit = fabs(pts[k].fitted_us / pts[k].published_us - 1);
        loo[k] = fabs(pts[k].left_out_us / pts[k].published_us - 1);
        /* the documented bounds: in-sample and left-out errors at most 66% */
        CHECK(fit <= 0.66 && loo[k] <= 0.66, "%s %s %s: published %.0f us, fitted %.1f, left out %.1f", pts[k].device,
              pts[k].codec, pts[k].what, pts[k].published_us, pts[k].fitted_us, pts[k].left_out_us);
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && loo[j - 1] > loo[j]; j--) {
            double x = loo[j];
            loo[j] = loo[j - 1], loo[j - 1] = x;
        }
    CHECK(n && (loo[n / 2 - 1] + loo[n / 2]) / 2 <= 0.50, "leave-one-out median error %.0f%% <= the documented 50%%",
          100 * (loo[n / 2 - 1] + loo[n / 2]) / 2);
    CHECK(L > 5 && L < 40 && eff > 0.2 && eff <= 1, "a launch costs %.1f us, kernels reach %.0f%% of bandwidth", L,
          100 * eff);
}

static void test_sources(void)
{
    const gpu_spec *v100 = gpu_find(&Z.gpus, "V100"), *k80 = gpu_find(&Z.gpus, "K80");
    qz_params q;
    codec_cost c, d;
    char msg[256];
    qz_parse_spec("signsgd", &q, NULL, 0);
    CHECK(codec_cost_for(&q, CODEC_ON_GPU, &Z.gpus, v100, NULL, &c, msg, sizeof msg) == GQ_OK &&
              fabs(codec_encode_ns(&c, 1048576) - 130e3) < 1 && fabs(codec_decode_ns(&c, 1048576) - 140e3) < 1 &&
              strstr(c.source, "V100 published"),
          "V100 signsgd: Espresso's EF-signSGD, 130 us encode and 140 us decode at 2^20 (%s)", c.source);
    qz_parse_spec("terngrad", &q, NULL, 0);
    codec_cost_for(&q, CODEC_ON_GPU, &Z.gpus, v100, NULL, &c, msg, sizeof msg);
    codec_cost_for(&q, CODEC_ON_GPU, &Z.gpus, k80, NULL, &d, msg, sizeof msg);
    CHECK(strstr(c.source, "V100 fitted") && strstr(d.source, "K80 fitted") && c.enc_ns < d.enc_ns &&
              fabs(d.enc_ns / c.enc_ns - 900.0 / 240) < 1e-9,
          "TernGrad per element: V100 %.4f ns < K80 %.4f ns, by their bandwidths (900 / 240 GB/s)", c.enc_ns, d.enc_ns);
    CHECK(codec_cost_for(&q, CODEC_ON_NONE, &Z.gpus, v100, NULL, &c, msg, sizeof msg) == GQ_OK && c.enc_ns == 0 &&
              c.enc_fixed_ns == 0 && c.dec_ns == 0 && c.dec_fixed_ns == 0,
          "--codec-on none costs nothing");
    CHECK(codec_cost_for(&q, CODEC_ON_CPU, &Z.gpus, NULL, NULL, &c, msg, sizeof msg) == GQ_OK && c.enc_ns > 0 &&
              strstr(c.source, "data/codec_costs_cpu.csv"),
          "the host CPU's built-in profile (%s)", c.source);
}

/* PowerSGD's GEMMs as a roofline: memory-bound at rank 4 (its 8 bytes an element at the fitted share of the
 * bandwidth, as TernGrad's 8.25 are), FLOP-bound at rank 64 (256 FLOPs an element at the V100's 15.7 TFLOP/s
 * peak, above the memory time); the decode likewise (2r FLOPs, 4 bytes); launches 2 + 2r encoding, 1 decoding. */
static void test_roofline(void)
{
    const gpu_spec *v100 = gpu_find(&Z.gpus, "V100");
    qz_params tg, p4, p64;
    codec_cost t, c4, c64;
    char msg[256];
    qz_parse_spec("terngrad", &tg, NULL, 0);
    qz_parse_spec("powersgd:rank=4", &p4, NULL, 0);
    qz_parse_spec("powersgd:rank=64", &p64, NULL, 0);
    codec_cost_for(&tg, CODEC_ON_GPU, &Z.gpus, v100, NULL, &t, msg, sizeof msg);
    codec_cost_for(&p4, CODEC_ON_GPU, &Z.gpus, v100, NULL, &c4, msg, sizeof msg);
    codec_cost_for(&p64, CODEC_ON_GPU, &Z.gpus, v100, NULL, &c64, msg, sizeof msg);
    CHECK(fabs(c4.enc_ns / t.enc_ns - 8 / 8.25) < 1e-9 && fabs(c4.enc_fixed_ns / t.enc_fixed_ns - 10 / 2.0) < 1e-9 &&
              !strstr(c4.source, "FLOP"),
          "rank 4: memory-bound, 8 bytes an element (%.5f ns) and 10 launches (%s)", c4.enc_ns, c4.source);
    CHECK(fabs(c64.enc_ns - 256 / v100->peak_flops * 1e9) < 1e-12 && c64.enc_ns > c4.enc_ns &&
              fabs(c64.dec_ns - 128 / v100->peak_flops * 1e9) < 1e-12 && strstr(c64.source, "FLOP-bound"),
          "rank 64: 256 FLOPs an element at peak, %.5f ns (%s)", c64.enc_ns, c64.source);
}

/* Whole iterations: TernGrad's encode time per iteration of AlexNet, V100 against K80; none. */
static void test_iterations(void)
{
    double enc[3];
    static const char *const PLATFORMS[] = {"cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=10gbe",
                                            "cluster:gpus-per-node=4,gpu=K80,intra=pcie3,inter=10gbe",
                                            "cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=10gbe"};
    for (int k = 0; k < 3; k++) {
        sim_request q;
        sim_request_defaults(&q);
        q.model = "alexnet", q.platform = PLATFORMS[k], q.run.engine = ENGINE_ANALYTIC;
        q.run.codec_on = k == 2 ? CODEC_ON_NONE : CODEC_ON_GPU;
        sim_scenario s;
        sim_outcome o;
        char msg[512];
        enc[k] = NAN;
        if (scenario_open(&s, &q, msg, sizeof msg) == GQ_OK &&
            scenario_run(&s, "terngrad", 8, &o, msg, sizeof msg) == GQ_OK)
            enc[k] = k == 2 ? o.r.encode_s + o.r.decode_s : o.r.encode_s;
        scenario_close(&s);
    }
    CHECK(enc[0] > 0 && enc[0] < enc[1], "AlexNet TernGrad encode per iteration: V100 %.6f s < K80 %.6f s", enc[0],
          enc[1]);
    CHECK(enc[2] == 0, "--codec-on none: encode_s + decode_s = %g", enc[2]);
}

static void test_profile(void)
{
    codec_profile p;
    char msg[256];
    const char *text =
        "quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\n"
        "\"qsgd:levels=5,norm=max\",cpu,1500,0.75,800,0.25,mine\n"
        "terngrad,V100,1000,0.01,500,0.005,mine\n";
    CHECK(codec_profile_parse(text, strlen(text), "c.csv", &p, msg, sizeof msg) == GQ_OK && p.n == 2, "two rows (%s)",
          msg);
    qz_params q;
    codec_cost c;
    qz_parse_spec("qsgd:norm=max,levels=5", &q, NULL, 0); /* the same quantizer, its keys in another order */
    CHECK(codec_cost_for(&q, CODEC_ON_CPU, &Z.gpus, NULL, &p, &c, msg, sizeof msg) == GQ_OK && c.enc_fixed_ns == 1500 &&
              c.enc_ns == 0.75 && c.dec_fixed_ns == 800 && c.dec_ns == 0.25 && strcmp(c.source, "cpu file c.csv") == 0,
          "a file's row, matched after canonicalisation, used as written (%s)", c.source);
    qz_parse_spec("terngrad", &q, NULL, 0);
    CHECK(codec_cost_for(&q, CODEC_ON_GPU, &Z.gpus, gpu_find(&Z.gpus, "V100"), &p, &c, msg, sizeof msg) == GQ_OK &&
              c.enc_fixed_ns == 1000 && strcmp(c.source, "V100 file c.csv") == 0,
          "a GPU's row overrides the model (%s)", c.source);
    codec_profile_free(&p);
    static const char *const BAD[][2] = {
        {"quant,device\nfp16,cpu\n", "c.csv:1: needs columns quant, device"},
        {"quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\n"
         "fp16,cpu,1,-2,3,4,x\n",
         "c.csv:2: encode_ns_per_element must be a number"},
        {"quant,device,encode_ns_fixed,encode_ns_per_element,decode_ns_fixed,decode_ns_per_element,source\n"
         "fp16,cpu,1,2,3,4,x\nternary,cpu,1,2,3,4,x\n",
         "c.csv:3: quant is not a quantizer spec"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        msg[0] = '\0';
        CHECK(codec_profile_parse(BAD[i][0], strlen(BAD[i][0]), "c.csv", &p, msg, sizeof msg) == GQ_ERR_SPEC &&
                  strncmp(msg, BAD[i][1], strlen(BAD[i][1])) == 0,
              "expected '%s', got '%s'", BAD[i][1], msg);
    }
}

/* The cost of an RPC runtime's message: read from a file's row, microseconds a message and nanoseconds a byte; the
 * built-in gRPC row measured (its copies a few GB/s, one core's memory copy). */
static void test_rpc_costs(void)
{
    rpc_cost c = {0};
    char src[160], msg[256];
    const char *text = "rpc,receiver_fixed_us,sender_fixed_us,receiver_ns_per_byte,sender_ns_per_byte,source\n"
                       "thrift,1,2,3,4,x\ngrpc,40.5,30.25,0.5,0.125,\"a, b\"\n";
    CHECK(rpc_cost_parse(text, "r.csv", "grpc", &c, src, sizeof src, msg, sizeof msg) == GQ_OK &&
              fabs(c.send_s / 30.25e-6 - 1) < 1e-12 && fabs(c.recv_s / 40.5e-6 - 1) < 1e-12 &&
              fabs(c.send_byte_s / 0.125e-9 - 1) < 1e-12 && fabs(c.recv_byte_s / 0.5e-9 - 1) < 1e-12 &&
              strcmp(src, "grpc 30.25+40.5 us per message, 0.125+0.5 ns per byte (r.csv)") == 0,
          "the named row's columns by their names: send %g s + %g s/B, recv %g s + %g s/B, '%s' (%s)", c.send_s,
          c.send_byte_s, c.recv_s, c.recv_byte_s, src, msg);
    CHECK(rpc_cost_for("grpc", &c, src, sizeof src, msg, sizeof msg) == GQ_OK && c.send_s > 1e-6 && c.send_s < 1e-3 &&
              c.recv_s > 1e-6 && c.recv_s < 1e-3 && c.send_byte_s > 0.05e-9 && c.send_byte_s < 2e-9 &&
              c.recv_byte_s > 0.05e-9 && c.recv_byte_s < 2e-9 && strstr(src, "data/rpc_costs.csv"),
          "the built-in gRPC row: send %g s + %g s/B, recv %g s + %g s/B (%s)", c.send_s, c.send_byte_s, c.recv_s,
          c.recv_byte_s, msg);
    static const char *const BAD[][2] = {
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,source\ngrpc,1,2,3,x\n",
         "r.csv: no column receiver_ns_per_byte"},
        {"rpc,sender_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\ngrpc,1,2,3,x\n",
         "r.csv: no column receiver_fixed_us"},
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\ngrpc,1,fast,0,0,x\n",
         "r.csv:2: grpc's costs must be"},
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\ngrpc,1,2,0,-0.5,x\n",
         "r.csv:2: grpc's costs must be"},
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\ngrpc,1,2,1e6,0,x\n",
         "r.csv:2: grpc's costs must be"},
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\ngrpc,1,2,0,0,\n",
         "r.csv:2: grpc's row names no source"},
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\nthrift,1,2,0,0,x\n",
         "r.csv: no row for rpc grpc"},
        {"rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\n\"grpc,1,2,0,0,x\n",
         "r.csv:2: "},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        msg[0] = '\0';
        CHECK(rpc_cost_parse(BAD[i][0], "r.csv", "grpc", &c, src, sizeof src, msg, sizeof msg) != GQ_OK &&
                  strncmp(msg, BAD[i][1], strlen(BAD[i][1])) == 0,
              "expected '%s', got '%s'", BAD[i][1], msg);
    }
    /* at the edge: a cost just under the limit reads */
    CHECK(rpc_cost_parse("rpc,sender_fixed_us,receiver_fixed_us,sender_ns_per_byte,receiver_ns_per_byte,source\n"
                         "grpc,0,0,0,999999.5,x\n",
                         "r.csv", "grpc", &c, src, sizeof src, msg, sizeof msg) == GQ_OK &&
              c.recv_byte_s == 999999.5e-9,
          "0 and 999999.5 ns a byte read (%s)", msg);
}

int main(void)
{
    if (zoo_load(&Z, NULL, NULL, 0) != GQ_OK) return 2;
    test_fit();
    test_sources();
    test_roofline();
    test_iterations();
    test_profile();
    test_rpc_costs();
    zoo_free(&Z);
    return check_summary();
}
