/* Per-tensor plans: a plan that gives every tensor the run's quantizer is that run, to the bit, on every scheme and
 * both engines; one that keeps the tensors under a threshold in fp32 is the run with --fp32-below at it (the policy's
 * path and the plan's, independent); advise's greedy plan is no slower than where it started and a local optimum:
 * no single tensor's codec changed to another choice makes the analytic iteration shorter; a plan file reads back
 * as written, and a wrong one fails with its FILE:LINE. */
#include <math.h>
#include <string.h>

#include "advise.h"
#include "check.h"
#include "run_params.h"

static sim_request request(const char *model, const char *platform, const char *sync, engine_kind engine)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = model, q.platform = platform, q.run.engine = engine;
    char msg[256];
    run_param_set(run_param_by_key("sync"), &q, sync, msg, sizeof msg);
    run_param_set(run_param_by_key("fp32_below"), &q, "0", msg, sizeof msg);
    return q;
}

/* quant's run with q, and the plan's with q less its fp32 policy (the plan alone says which tensors travel in fp32):
 * @return both iterations (NAN where one fails). */
static void both(const sim_request *q, const char *quant, const tensor_plan *plan, int gpus, double *run,
                 double *planned)
{
    sim_scenario s;
    sim_outcome o;
    char msg[1024];
    *run = *planned = NAN;
    if (scenario_open(&s, q, msg, sizeof msg) != GQ_OK) return;
    if (scenario_run(&s, quant, gpus, &o, msg, sizeof msg) == GQ_OK) *run = o.r.iteration_s;
    scenario_close(&s);
    sim_request bare = *q;
    bare.run.exchange.fp32_below = 0, bare.run.exchange.fp32_last = 0;
    if (scenario_open(&s, &bare, msg, sizeof msg) != GQ_OK) return;
    if (scenario_run_plan(&s, NULL, plan, gpus, &o, msg, sizeof msg) == GQ_OK) *planned = o.r.iteration_s;
    scenario_close(&s);
}

/* The plan's bytes a GPU sends and receives an iteration. */
static void bytes_of(const sim_request *q, const tensor_plan *plan, double *up, double *down)
{
    sim_scenario s;
    sim_outcome o;
    char msg[1024];
    *up = *down = NAN;
    if (scenario_open(&s, q, msg, sizeof msg) == GQ_OK &&
        scenario_run_plan(&s, NULL, plan, 8, &o, msg, sizeof msg) == GQ_OK)
        *up = o.r.bytes_up, *down = o.r.bytes_down;
    scenario_close(&s);
}

/* Each tensor charged its own codec's bytes both ways: a plan mixing TernGrad (its reply the sum of levels under one
 * scaler) and fp16 (its reply re-encoded) sends, through one server and a bucket a tensor, what the TernGrad-only
 * plan and the fp16-only plan send, less the fp32 tensors both count. */
static void test_mixed_bytes(void)
{
    sim_request q = request("alexnet", "terngrad-ethernet", "ps", ENGINE_ANALYTIC);
    char msg[256];
    run_param_set(run_param_by_key("fusion"), &q, "0", msg, sizeof msg);
    qz_params tern, fp16, fp32;
    qz_parse_spec("terngrad", &tern, NULL, 0);
    qz_parse_spec("fp16", &fp16, NULL, 0);
    qz_parse_spec("fp32", &fp32, NULL, 0);
    tensor_plan mixed, t_only, h_only, none;
    tensor_plan_init(&mixed, 16, &fp32), tensor_plan_init(&t_only, 16, &fp32), tensor_plan_init(&h_only, 16, &fp32);
    tensor_plan_init(&none, 16, &fp32);
    for (size_t k = 0; k < 16; k++) { /* terngrad on the even tensors (the first among them), fp16 on odd thirds */
        if (k % 2 == 0) mixed.quant[k] = t_only.quant[k] = tern;
        if (k % 2 == 1 && k % 3 == 0) mixed.quant[k] = h_only.quant[k] = fp16;
    }
    double up[4], down[4];
    bytes_of(&q, &mixed, &up[0], &down[0]);
    bytes_of(&q, &t_only, &up[1], &down[1]);
    bytes_of(&q, &h_only, &up[2], &down[2]);
    bytes_of(&q, &none, &up[3], &down[3]);
    CHECK(up[0] > 0 && up[0] == up[1] + up[2] - up[3] && down[0] == down[1] + down[2] - down[3] && down[1] != down[3],
          "mixed plan's bytes: up %.17g = %.17g + %.17g - %.17g, down %.17g = %.17g + %.17g - %.17g", up[0], up[1],
          up[2], up[3], down[0], down[1], down[2], down[3]);
    tensor_plan_free(&mixed), tensor_plan_free(&t_only), tensor_plan_free(&h_only), tensor_plan_free(&none);
}

/* A built-in model from the zoo z (freed by the caller) and its tensors. */
static const model_t *model_of(gq_zoo *z, const char *name, xch_tensor *T, size_t *nt)
{
    char msg[1024];
    CHECK(zoo_load(z, NULL, msg, sizeof msg) == GQ_OK, "zoo: %s", msg);
    const model_t *m = zoo_model(z, name, msg, sizeof msg);
    CHECK(m != NULL, "%s: %s", name, msg);
    if (m) *nt = tensor_plan_tensors(m, T);
    return m;
}

static void test_uniform(void)
{
    static const struct {
        const char *sync, *quant;
        engine_kind engine;
    } CASES[] = {{"ps-sharded", "terngrad", ENGINE_ANALYTIC},       {"ring", "powersgd:rank=2", ENGINE_ANALYTIC},
                 {"allgather", "topk:ratio=0.01", ENGINE_ANALYTIC}, {"hierarchical", "fp16", ENGINE_ANALYTIC},
                 {"ps", "qsgd:levels=5", ENGINE_ANALYTIC},          {"ring", "powersgd:rank=2", ENGINE_SIMGRID},
                 {"ps-sharded", "terngrad", ENGINE_SIMGRID}};
    gq_zoo z;
    char msg[1024];
    xch_tensor T[64];
    size_t nt = 0;
    model_of(&z, "alexnet", T, &nt);
    CHECK(nt == 16, "alexnet's 16 tensors (%zu)", nt);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const sim_request q = request("alexnet", "terngrad-infiniband", CASES[i].sync, CASES[i].engine);
        qz_params p;
        qz_parse_spec(CASES[i].quant, &p, NULL, 0);
        tensor_plan plan;
        tensor_plan_init(&plan, nt, &p);
        double run, planned;
        both(&q, CASES[i].quant, &plan, 16, &run, &planned);
        CHECK(run > 0 && run == planned, "%s %s (%s): every tensor %s is the run: %.17g vs %.17g", CASES[i].sync,
              CASES[i].quant, sim_engine_name(CASES[i].engine), CASES[i].quant, run, planned);
        /* the tensors under 16,384 elements in fp32: the policy's --fp32-below 16384 */
        sim_request below = q;
        run_param_set(run_param_by_key("fp32_below"), &below, "16384", msg, sizeof msg);
        qz_params fp32;
        qz_parse_spec("fp32", &fp32, NULL, 0);
        for (size_t k = 0; k < nt; k++)
            if (T[k].n < 16384) plan.quant[k] = fp32;
        both(&below, CASES[i].quant, &plan, 16, &run, &planned);
        CHECK(run > 0 && run == planned, "%s %s: small tensors in fp32 is --fp32-below 16384: %.17g vs %.17g",
              CASES[i].sync, CASES[i].quant, run, planned);
        tensor_plan_free(&plan);
    }
    /* every tensor fp32 is fp32 */
    qz_params fp32;
    qz_parse_spec("fp32", &fp32, NULL, 0);
    tensor_plan plan;
    tensor_plan_init(&plan, nt, &fp32);
    double run, planned;
    const sim_request q = request("alexnet", "terngrad-ethernet", "ring", ENGINE_ANALYTIC);
    both(&q, "fp32", &plan, 8, &run, &planned);
    CHECK(run > 0 && run == planned, "every tensor fp32 is fp32: %.17g vs %.17g", run, planned);
    tensor_plan_free(&plan);
    zoo_free(&z);
}

static void test_greedy(void)
{
    const sim_request q = request("alexnet", "terngrad-infiniband", "ps-sharded", ENGINE_ANALYTIC);
    tensor_plan plan;
    advise_plan_result r;
    char msg[1024];
    gq_err e = sim_advise_plan(&q, "terngrad", 16, &plan, NULL, &r, NULL, NULL, msg, sizeof msg);
    CHECK(e == GQ_OK && r.plan_screened_s < r.start_screened_s && r.plan_s == r.plan_screened_s && r.passes >= 2,
          "the plan is faster than every tensor in terngrad: %.17g < %.17g s (%zu passes): %s", r.plan_screened_s,
          r.start_screened_s, r.passes, e == GQ_OK ? "" : msg);
    if (e != GQ_OK) return;
    static const char *const CHOICES[] = {"fp32", "fp16", "terngrad"};
    sim_scenario s;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK, "open: %s", msg);
    int worse = 0, tried = 0;
    for (size_t k = 0; k < plan.n; k++) {
        const qz_params had = plan.quant[k];
        for (int j = 0; j < 3; j++) {
            qz_parse_spec(CHOICES[j], &plan.quant[k], NULL, 0);
            sim_outcome o;
            if (scenario_run_plan(&s, NULL, &plan, 16, &o, msg, sizeof msg) != GQ_OK) continue;
            tried++;
            worse += o.r.iteration_s >= r.plan_screened_s;
        }
        plan.quant[k] = had;
    }
    CHECK(tried == 48 && worse == 48, "a local optimum: %d of %d single changes no faster", worse, tried);
    scenario_close(&s);
    tensor_plan_free(&plan);
}

static void test_file(void)
{
    gq_zoo z;
    char msg[1024];
    xch_tensor T[64];
    size_t nt = 0;
    const model_t *m = model_of(&z, "lenet5", T, &nt);
    qz_params tern, fp16;
    qz_parse_spec("terngrad", &tern, NULL, 0);
    qz_parse_spec("fp16", &fp16, NULL, 0);
    tensor_plan p, back;
    tensor_plan_init(&p, nt, &tern);
    p.quant[1] = fp16;
    gq_table t = {0};
    tensor_plan_table(m, &p, &t);
    char csv[4096];
    size_t n = 0;
    for (size_t r = 0; r < t.nrows; r++)
        n += (size_t)snprintf(csv + n, sizeof csv - n, "%s,%s,\"%s\"\n", table_cell(&t, r, 0), table_cell(&t, r, 1),
                              table_cell(&t, r, 2));
    CHECK(tensor_plan_parse(csv, n, "p.csv", m, &back, msg, sizeof msg) == GQ_OK && back.n == nt &&
              memcmp(back.quant, p.quant, nt * sizeof *p.quant) == 0,
          "a plan reads back as written (%zu tensors): %s", nt, msg);
    tensor_plan_free(&back);
    const char *first = table_cell(&t, 1, 0); /* conv1.weight, 150 elements */
    static const struct {
        const char *text, *want;
    } BAD[] = {
        {"tensor,elements\n", "p.csv:1: needs columns"},
        {"tensor,elements,codec\nnosuch.weight,1,fp32\n", "p.csv:2: model 'lenet5' has no tensor 'nosuch.weight'"},
        {"tensor,elements,codec\nconv1.weight,151,fp32\n", "p.csv:2: tensor 'conv1.weight' has 150 elements"},
        {"tensor,elements,codec\nconv1.weight,150,fp32\nconv1.weight,150,fp16\n",
         "p.csv:3: tensor 'conv1.weight' again"},
        {"tensor,elements,codec\nconv1.weight,150,qsgd:levels=4\n", "p.csv:2: codec 'qsgd:levels=4'"},
        {"tensor,elements,codec\nconv1.weight,150,fp32\n", "no row for tensor 'conv1.bias'"},
    };
    CHECK(strcmp(first, "conv1.weight") == 0 && strcmp(table_cell(&t, 1, 1), "150") == 0,
          "lenet5's first tensor: %s, %s elements", first, table_cell(&t, 1, 1));
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        msg[0] = '\0';
        CHECK(tensor_plan_parse(BAD[i].text, strlen(BAD[i].text), "p.csv", m, &back, msg, sizeof msg) == GQ_ERR_SPEC &&
                  strstr(msg, BAD[i].want) && back.quant == NULL,
              "bad plan %zu: '%s' (want '%s')", i, msg, BAD[i].want);
    }
    char d[256];
    tensor_plan_describe(&p, d, sizeof d);
    CHECK(strcmp(d, "per tensor: 9 terngrad:bucket=0,clip=2.5,scale=max,pack=2bit; 1 fp16") == 0, "described: %s", d);
    table_free(&t);
    tensor_plan_free(&p);
    zoo_free(&z);
}

/* With SimGrid, where a server's link is shared: the analytic engine's ties broken towards fp32 make AlexNet's
 * TernGrad on ps-sharded InfiniBand slower, so the plan comes from the start, refined with SimGrid: never slower than
 * the start there, and its time is the plan's own when simulated again. */
static void test_refined(void)
{
    sim_request q = request("alexnet", "terngrad-infiniband", "ps-sharded", ENGINE_SIMGRID);
    tensor_plan plan;
    advise_plan_result r;
    char msg[1024];
    gq_err e = sim_advise_plan(&q, "terngrad", 16, &plan, NULL, &r, NULL, NULL, msg, sizeof msg);
    CHECK(e == GQ_OK && r.plan_s <= r.start_s && r.final_evaluations >= 2,
          "SimGrid: the plan %.17g s, the start %.17g s (%zu SimGrid runs): %s", r.plan_s, r.start_s,
          r.final_evaluations, e == GQ_OK ? "" : msg);
    if (e != GQ_OK) return;
    double run, planned;
    both(&q, "terngrad", &plan, 16, &run, &planned);
    CHECK(planned == r.plan_s, "the plan simulated again: %.17g s (advise said %.17g)", planned, r.plan_s);
    tensor_plan_free(&plan);
}

int main(void)
{
    test_mixed_bytes();
    test_refined();
    test_file();
    test_uniform();
    test_greedy();
    return check_summary();
}
