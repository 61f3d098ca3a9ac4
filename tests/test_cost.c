/* What a run costs: a platform's node-hour-cost= prices the whole nodes a run occupies, --gpu-hour-cost each GPU,
 * the two together are refused, and a million samples cost the price an hour over an hour's samples -- each
 * against its closed form worked here from the run's own throughput. A platform of a stated size (nodes=) holds no
 * more GPUs than it has, at exactly its size and one GPU past it. */
#include <math.h>

#include "check.h"
#include "run_params.h"
#include "scenario.h"

static sim_request request(const char *platform)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = "alexnet", q.platform = platform;
    char msg[256];
    run_param_set(run_param_by_key("engine"), &q, "analytic", msg, sizeof msg);
    return q;
}

static void test_node_price(void)
{
    /* 8 GPUs a node at 32.77 an hour: 12 GPUs occupy 2 nodes (a node is rented whole), 16 GPUs 2, 17 GPUs 3 */
    sim_request q = request("cluster:gpus-per-node=8,gpu=V100,intra=nvlink2,inter=100gbe,node-hour-cost=32.77");
    sim_scenario s;
    char msg[1024];
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK, "the priced cluster opens (%s)", msg);
    static const int GPUS[] = {1, 8, 12, 16, 17};
    static const double NODES[] = {1, 1, 2, 2, 3};
    for (size_t i = 0; i < sizeof GPUS / sizeof GPUS[0]; i++) {
        sim_outcome o;
        const gq_err e = scenario_run(&s, "fp32", GPUS[i], &o, msg, sizeof msg);
        const double hour = 32.77 * NODES[i], million = hour / (3600 * o.images_per_s) * 1e6;
        CHECK(e == GQ_OK && o.cost_per_hour == hour && fabs(o.cost_per_million_samples / million - 1) < 1e-15,
              "%d GPUs: %.17g an hour (%g nodes x 32.77 = %.17g), %.17g a million images (%.17g)", GPUS[i],
              o.cost_per_hour, NODES[i], hour, o.cost_per_million_samples, million);
    }
    scenario_close(&s);
}

static void test_gpu_price(void)
{
    sim_request q = request("terngrad-infiniband");
    q.gpu_hour_cost = 2.5;
    sim_scenario s;
    char msg[1024];
    sim_outcome o;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK &&
              scenario_run(&s, "terngrad", 12, &o, msg, sizeof msg) == GQ_OK,
          "--gpu-hour-cost on a built-in (%s)", msg);
    CHECK(o.cost_per_hour == 30 && fabs(o.cost_per_million_samples / (30 / (3600 * o.images_per_s) * 1e6) - 1) < 1e-15,
          "12 GPUs at 2.5: 30 an hour (%.17g), a million images at %.17g images/s: %.17g", o.cost_per_hour,
          o.images_per_s, o.cost_per_million_samples);
    scenario_close(&s);
    /* no price anywhere: NaN, an empty cell */
    q.gpu_hour_cost = 0;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK &&
              scenario_run(&s, "fp32", 8, &o, msg, sizeof msg) == GQ_OK && isnan(o.cost_per_hour) &&
              isnan(o.cost_per_million_samples),
          "no price: no cost (%g, %g)", o.cost_per_hour, o.cost_per_million_samples);
    gq_table t = {0};
    table_init(&t, SIM_COLUMNS, SIM_NCOLUMNS);
    scenario_row(&t, &s, &o);
    const int c = table_column(&t, "cost_per_million_samples");
    CHECK(c >= 0 && strcmp(table_cell(&t, 1, (size_t)c), "") == 0, "its cell is empty");
    table_free(&t);
    scenario_close(&s);
    /* both prices: refused, naming the option and the platform */
    q = request("cluster:gpus-per-node=4,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=7");
    q.gpu_hour_cost = 1;
    const gq_err e = scenario_open(&s, &q, msg, sizeof msg);
    CHECK(e == GQ_ERR_USAGE && strstr(msg, "--gpu-hour-cost") && strstr(msg, "node-hour-cost=") &&
              strstr(msg, "give one price"),
          "two prices refused: %s", msg);
}

static void test_stated_size(void)
{
    /* nodes=4 of 4 GPUs: 16 GPUs run, 17 are refused naming the count */
    sim_request q = request("cluster:gpus-per-node=4,gpu=P100,intra=pcie3,inter=10gbe,nodes=4");
    sim_scenario s;
    char msg[1024];
    sim_outcome o;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK && scenario_run(&s, "fp32", 16, &o, msg, sizeof msg) == GQ_OK,
          "nodes=4 of 4 GPUs holds 16 (%s)", msg);
    const gq_err e = scenario_run(&s, "fp32", 17, &o, msg, sizeof msg);
    CHECK(e == GQ_ERR_PARAM && strstr(msg, "has 4 nodes of 4 GPUs (16 GPUs): not enough for 17 GPUs"),
          "17 GPUs on it refused: %s", msg);
    scenario_close(&s);
}

int main(void)
{
    test_node_price();
    test_gpu_price();
    test_stated_size();
    return check_summary();
}
