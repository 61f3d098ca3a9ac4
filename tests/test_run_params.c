/* The run-parameter table (sim/run_params.c), the one place a run option is
 * written: its rows are well formed, each value reads back what it writes,
 * every bound holds at equality and refuses one step past it, the defaults
 * are the documented ones (Horovod's fusion threshold and cycle), validate's
 * columns come from it, and the parameter added through it (--compute-jitter:
 * stragglers) charges the expected slowest of N Gaussian GPUs, checked
 * against published expected values of normal order statistics. And
 * tta_run(), time to accuracy from the library, on a curve made here. */
#include <float.h>
#include <gsl/gsl_cdf.h>

#include "check.h"
#include "frameworks.h"
#include "gq_epoch.h"
#include "measured.h"
#include "phys_range.h"
#include "run_params.h"
#include "scenario.h"

static void test_rows_well_formed(void)
{
    int columns = 0;
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const run_param *p = &RUN_PARAMS[i];
        CHECK(run_param_by_key(p->key) == p && run_param_by_flag(p->flag) == p, "%s: key or flag written twice",
              p->key);
        CHECK(strncmp(p->flag, "--", 2) == 0, "%s: flag '%s'", p->key, p->flag);
        CHECK(p->type != RP_ENUM || (p->names && p->names[0] && p->names[1]), "%s: an enum without names", p->key);
        CHECK(p->type != RP_REAL || p->unit, "%s: a number without a unit for its messages", p->key);
        CHECK(p->scope != 0 && p->help && p->help[0], "%s: no scope or no help", p->key);
        /* every value in the one struct the request and the configuration both hold */
        const size_t run = offsetof(sim_request, run);
        CHECK(p->offset >= run && p->offset < run + sizeof(sim_run_params), "%s: offset %zu outside sim_run_params",
              p->key, p->offset);
        if (p->scope & RP_COLUMN) {
            CHECK(run_param_column(p) == columns, "%s: column %d, want %d", p->key, run_param_column(p), columns);
            columns++;
        } else {
            CHECK(run_param_column(p) == -1, "%s has no column", p->key);
        }
    }
    CHECK(RUN_PARAM_COUNT <= RUN_PARAMS_MAX && columns <= RUN_COLUMNS_MAX, "%zu rows, %d columns", RUN_PARAM_COUNT,
          columns);
}

/* Horovod's defaults (HOROVOD_FUSION_THRESHOLD 64 MiB, HOROVOD_CYCLE_TIME 5 ms) and gqsim's documented ones. */
static void test_defaults(void)
{
    sim_request q;
    memset(&q, 0xa5, sizeof q);
    sim_request_defaults(&q);
    CHECK(q.run.fusion_bytes == 64.0 * 1024 * 1024 && q.run.fusion_cycle_s == 0.005, "fusion %g, cycle %g",
          q.run.fusion_bytes, q.run.fusion_cycle_s);
    CHECK(q.run.sync == SYNC_PS_SHARDED && q.run.overlap == 1 && q.run.engine == ENGINE_SIMGRID &&
              q.run.iterations == 1,
          "sync %d overlap %d engine %d iterations %d", (int)q.run.sync, q.run.overlap, (int)q.run.engine,
          q.run.iterations);
    /* the published spread (Sinha et al. SC22: 8% = 4 IQR / median) as a normal's CV: IQR = 2 x its 75% quantile */
    const double published_cv = 0.08 / (4 * 2 * gsl_cdf_ugaussian_Pinv(0.75));
    CHECK(q.run.quant_cost_scale == 1 && q.run.quant_rate == 0 && fabs(q.run.compute_jitter - published_cv) < 1e-12 &&
              fabs(q.run.compute_jitter - 0.014826) < 5e-7 && q.run.ps_shards == 0,
          "cost scale %g, rate %g, jitter %.9f (want %.9f), shards %d", q.run.quant_cost_scale, q.run.quant_rate,
          q.run.compute_jitter, published_cv, q.run.ps_shards);
    CHECK(q.run.codec_on == CODEC_ON_GPU && q.run.exchange.downlink == DOWNLINK_AUTO &&
              q.run.exchange.fp32_below == 0 && !q.run.exchange.fp32_last && !q.run.network_model &&
              !q.run.codec_costs && !q.model,
          "codec on %d, downlink %d, the rest unset", (int)q.run.codec_on, (int)q.run.exchange.downlink);
}

static int accepts(const run_param *p, double v)
{
    char text[64], msg[256];
    snprintf(text, sizeof text, p->type == RP_COUNT ? "%.0f" : "%.17g", v);
    sim_request q;
    sim_request_defaults(&q);
    return run_param_set(p, &q, text, msg, sizeof msg) == GQ_OK;
}

/* Every numeric parameter at its bounds and one step past: the step a double's next value (a subnormal next to 0
 * is a number in the range like any other), or 1 for counts and whole numbers, which refuse a fraction. */
static void test_bounds_at_equality(void)
{
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const run_param *p = &RUN_PARAMS[i];
        if (p->type == RP_COUNT || (p->type == RP_REAL && p->integral)) {
            CHECK(accepts(p, p->lo) && accepts(p, p->hi), "%s: %g and %g are in", p->key, p->lo, p->hi);
            CHECK(!accepts(p, p->hi + 1) && (p->lo == 0 || !accepts(p, p->lo - 1)), "%s: outside refused", p->key);
            if (p->type == RP_REAL) /* the nearest fractions to a whole number in the range */
                CHECK(!accepts(p, p->lo + 0.5) && !accepts(p, nextafter(p->lo + 1, 0)) &&
                          !accepts(p, nextafter(p->lo, INFINITY)),
                      "%s: a fraction of a whole number refused", p->key);
        } else if (p->type == RP_REAL) {
            CHECK(accepts(p, p->hi) && !accepts(p, nextafter(p->hi, INFINITY)), "%s: hi %g", p->key, p->hi);
            if (p->lo_open)
                CHECK(!accepts(p, p->lo) && accepts(p, nextafter(p->lo, INFINITY)), "%s: (lo %g", p->key, p->lo);
            else
                CHECK(accepts(p, p->lo) && !accepts(p, nextafter(p->lo, -INFINITY)), "%s: [lo %g", p->key, p->lo);
        }
    }
}

/* A value written by run_param_format (what the SMPI engine hands gqsim-smpi) reads back bit for bit. */
static void test_format_reads_back(void)
{
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const run_param *p = &RUN_PARAMS[i];
        sim_request a, b;
        sim_request_defaults(&a);
        sim_request_defaults(&b);
        char msg[256], text[RUN_PARAM_TEXT_MAX];
        const char *text_value = strcmp(p->key, "framework") == 0 ? "tf-ps" : "CM02:latency-factor=1.5";
        const char *v = p->type == RP_ENUM ? p->names[1] : p->type == RP_TEXT ? text_value : "1";
        if (p->type == RP_REAL) /* a double %g would round; a whole number of bytes, one that %g would write 1e+15 */
            v = p->integral  ? "999999999999"
                : p->lo >= 1 ? "1.3000000000000003"
                : p->lo_open ? "0.1"
                             : "0.30000000000000004";
        CHECK(run_param_set(p, &a, v, msg, sizeof msg) == GQ_OK, "%s '%s': %s", p->key, v, msg);
        run_param_format(p, &a, text, sizeof text);
        CHECK(run_param_set(p, &b, text, msg, sizeof msg) == GQ_OK, "%s '%s' back: %s", p->key, text, msg);
        const size_t size = p->type == RP_REAL ? sizeof(double) : p->type == RP_TEXT ? sizeof(char *) : sizeof(int);
        CHECK(p->type == RP_TEXT ? strcmp(*(char **)run_param_at(p, &a), *(char **)run_param_at(p, &b)) == 0
                                 : memcmp(run_param_at(p, &a), run_param_at(p, &b), size) == 0,
              "%s: '%s' read back differs", p->key, text);
    }
}

static void test_messages(void)
{
    struct {
        const char *key, *value, *want;
    } const C[] = {
        {"fusion", "-1", "fusion '-1' must be a whole number of bytes in [0, 1e12]"},
        {"fusion", "1.5", "fusion '1.5' must be a whole number of bytes in [0, 1e12]"},
        {"compute_images_per_s", "0", "compute_images_per_s '0' must be images/s in [1e-5, 1e9]"},
        {"compute_images_per_s", "1e-300", "compute_images_per_s '1e-300' must be images/s in [1e-5, 1e9]"},
        {"quant_rate", "0.5", "quant_rate '0.5' must be elements/s in [1, 1e15]"},
        {"compute_jitter", "nan", "compute_jitter 'nan' must be a coefficient of variation in [0, 0.5]"},
        {"ps_shards", "1025", "ps_shards '1025' must be an integer in 1..1024"},
        {"codec_on", "tpu", "codec_on 'tpu' is not gpu, cpu or none"},
        {"overlap", "on", "overlap 'on' is not 0 or 1"},
        {"network_model", "NS3", "network model 'NS3' is not LV08 or CM02[:latency-factor=X,bandwidth-factor=Y]"},
        {"compute_jitter", "0.6", "compute_jitter '0.6' must be a coefficient of variation in [0, 0.5]"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        sim_request q;
        sim_request_defaults(&q);
        char msg[256] = "";
        const gq_err e = run_param_set(run_param_by_key(C[i].key), &q, C[i].value, msg, sizeof msg);
        CHECK(e == GQ_ERR_SPEC && strcmp(msg, C[i].want) == 0, "%s: got '%s'", C[i].key, msg);
    }
}

/* What a row says its parameter shapes (.families, .schemes, .engines): set away from its default elsewhere, the
 * request is refused (exit 2) with the row's line, the line users see written out here; the same value where it
 * applies opens. */
static void test_rules_of_rows(void)
{
    struct {
        const char *key, *value, *sync, *engine, *ok_sync, *ok_engine, *want;
    } const C[] = {
        {"ps_shards", "2", "ring", "analytic", "ps-sharded", "analytic",
         "--ps-shards and --ps-placement shape --sync ps-sharded, not ring"},
        {"ps_on", "cpu", "ps-flat", "analytic", "ps", "analytic",
         "--ps-on cpu places the servers of --sync ps or ps-sharded, not ps-flat"},
        {"reduce_on", "host", "tree", "analytic", "ring", "analytic",
         "--reduce-on host stages a ring all-reduce (--sync ring), not tree"},
        {"reduce_on", "host", "ring", "smpi", "ring", "simgrid",
         "--reduce-on host: the smpi engine runs the trainer, which reduces on its workers"},
        {"ring_steps", "pipelined", "allgather", "analytic", "ring", "analytic",
         "--ring-steps pipelined charges the steps of --sync ring, not of another scheme"},
        {"ring_steps", "pipelined", "ring", "smpi", "ring", "analytic",
         "--ring-steps pipelined charges the steps of --sync ring; the smpi engine runs the trainer's ring, one MPI "
         "message a step"},
        {"downlink", "fp32", "allgather", "analytic", "hierarchical", "analytic",
         "--downlink shapes a server's reply; allgather has none"},
        {"iterations", "2", "ring", "analytic", "ring", "simgrid",
         "--iterations is the SimGrid engine's; the analytic engine has no use for it"},
        {"exact_flows", "1", "ring", "smpi", "ring", "simgrid",
         "--exact-flows is the SimGrid engine's; the smpi engine has no use for it"},
        {"exact_flows", "1", "tree", "simgrid", "allgather", "simgrid",
         "--exact-flows: a tree's flows are already one an edge each way; its pipeline's chunks have no message of "
         "their own to check"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        for (int ok = 0; ok < 2; ok++) {
            sim_request q;
            sim_request_defaults(&q);
            q.model = "alexnet", q.platform = "dgx1";
            char msg[512] = "";
            run_param_set(run_param_by_key("sync"), &q, ok ? C[i].ok_sync : C[i].sync, msg, sizeof msg);
            run_param_set(run_param_by_key("engine"), &q, ok ? C[i].ok_engine : C[i].engine, msg, sizeof msg);
            CHECK(run_param_set(run_param_by_key(C[i].key), &q, C[i].value, msg, sizeof msg) == GQ_OK, "%s=%s: %s",
                  C[i].key, C[i].value, msg);
            sim_scenario sc;
            const gq_err e = scenario_open(&sc, &q, msg, sizeof msg);
            if (ok)
                CHECK(e == GQ_OK, "%s=%s with %s under %s: opens, not '%s'", C[i].key, C[i].value, C[i].ok_sync,
                      C[i].ok_engine, msg);
            else
                CHECK(e == GQ_ERR_USAGE && strcmp(msg, C[i].want) == 0, "%s=%s with %s under %s: got '%s'", C[i].key,
                      C[i].value, C[i].sync, C[i].engine, msg);
            if (e == GQ_OK) scenario_close(&sc);
        }
    }
}

/* Help states a default from its row: "{default}" is the row's value as it is written (an enum's name, on|off, the
 * shortest decimal), and no help is printed with a brace left in it. */
static void test_help_defaults(void)
{
    struct {
        const char *key, *want;
    } const C[] = {
        {"sync", "synchronisation scheme (default ps-sharded)"},
        {"overlap", "exchange a bucket as soon as backward has made it (default on)"},
        {"fusion_cycle", "Horovod's cycle: tensors ready within one leave together (default 0.005)"},
        {"iterations", "simulated iterations (SimGrid; default 1, the steady state)"},
    };
    char out[1024];
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        run_param_help(run_param_by_key(C[i].key), out, sizeof out);
        CHECK(strcmp(out, C[i].want) == 0, "%s's help: '%s'", C[i].key, out);
    }
    run_param_help(run_param_by_key("fusion"), out, sizeof out);
    CHECK(strstr(out, "(default 67108864; 0: one per tensor)") != NULL, "fusion's help: '%s'", out);
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        run_param_help(&RUN_PARAMS[i], out, sizeof out);
        CHECK(!strchr(out, '{') && !strchr(out, '}'), "%s's help with a brace: '%s'", RUN_PARAMS[i].key, out);
    }
    run_param_help(run_param_by_key("sync"), out, 12); /* cut short: ended, within its room */
    CHECK(strlen(out) == 11 && strncmp(out, "synchronisa", 11) == 0, "help in 12 bytes: '%s'", out);
}

/* A column exists because its row says RP_COLUMN: compute_jitter is read (and checked, and misspellings of it
 * refused) by a reader that never names it. */
static void test_columns_from_table(void)
{
    const char *ok = "model,gpu,batch,gpus,images_per_s,platform,compute_jitter\nalexnet,K80,32,8,100,dgx1,0.25\n";
    measured_set s = {0};
    char msg[256];
    CHECK(measured_parse(ok, strlen(ok), "m.csv", &s, msg, sizeof msg) == GQ_OK && s.n == 1, "parse: %s", msg);
    if (s.n == 1)
        CHECK(strcmp(s.rows[0].param[run_param_column(run_param_by_key("compute_jitter"))], "0.25") == 0,
              "the column's text kept");
    measured_free(&s);
    const char *bad =
        "model,gpu,batch,gpus,images_per_s,platform,compute_jitter\nalexnet,K80,32,8,100,dgx1,0.5000001\n";
    CHECK(measured_parse(bad, strlen(bad), "m.csv", &s, msg, sizeof msg) == GQ_ERR_SPEC &&
              strcmp(msg, "m.csv:2: compute_jitter '0.5000001' must be a coefficient of variation in [0, 0.5]") == 0,
          "got '%s'", msg);
    const char *typo = "model,gpu,batch,gpus,images_per_s,platform,compute_jiter\nalexnet,K80,32,8,100,dgx1,0.2\n";
    CHECK(measured_parse(typo, strlen(typo), "m.csv", &s, msg, sizeof msg) == GQ_ERR_SPEC &&
              strstr(msg, "did you mean compute_jitter?"),
          "got '%s'", msg);
}

/* E[max of n standard normals]: the closed forms 1/sqrt(pi) for 2 and 3/(2 sqrt(pi)) for 3; 1.16296, 1.53875 and
 * 2.50759 for 5, 10 and 100 in Harter's tables of normal order statistics (1961), the further digits from a
 * Simpson rule over [-12, 12] with step 1e-4 (Python's math.erfc, not GSL). */
static void test_slowest_of(void)
{
    const struct {
        int n;
        double e;
    } T[] = {{2, 0.5641895835}, {3, 0.8462843753}, {5, 1.1629644736}, {10, 1.5387527308}, {100, 2.5075936364}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        const double f = sim_slowest_of(T[i].n, 0.2);
        CHECK(fabs(f - (1 + 0.2 * T[i].e)) < 1e-9, "n=%d: %.12f, want %.12f", T[i].n, f, 1 + 0.2 * T[i].e);
    }
    CHECK(sim_slowest_of(1, 0.5) == 1 && sim_slowest_of(64, 0) == 1, "one GPU, or no jitter: exactly 1");
    CHECK(fabs(sim_slowest_of(2, 0.5) - (1 + 0.5 / sqrt(3.14159265358979323846))) < 1e-12, "cv 0.5 at equality: %.15f",
          sim_slowest_of(2, 0.5));
}

/* AlexNet on the 1 GbE Figure-5 cluster, analytic engine, every other parameter at its default. @return 1, or 0
 * after failing a check. */
static int open_alexnet(sim_scenario *s)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = "alexnet", q.platform = "terngrad-ethernet", q.run.engine = ENGINE_ANALYTIC;
    char msg[512];
    const gq_err e = scenario_open(s, &q, msg, sizeof msg);
    CHECK(e == GQ_OK, "open: %s", msg);
    return e == GQ_OK;
}

/* The published spread is the GPUs'; the lab's host-CPU ranks carry their measured slowest rank, so none is assumed
 * for gpu=cpu unless the run gives one. */
static void test_jitter_default_by_device(void)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = "lenet5", q.platform = "cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=1gbe", q.gpu = "cpu";
    q.run.engine = ENGINE_ANALYTIC, q.run.gpu_images_per_s = 8000, q.batch = 64, q.run.codec_on = CODEC_ON_CPU;
    sim_scenario s;
    char msg[512];
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK, "open: %s", msg);
    sim_outcome def, zero, given;
    CHECK(scenario_run(&s, "fp32", 8, &def, msg, sizeof msg) == GQ_OK, "%s", msg);
    s.req.run.compute_jitter = 0;
    CHECK(scenario_run(&s, "fp32", 8, &zero, msg, sizeof msg) == GQ_OK, "%s", msg);
    CHECK(run_param_set(run_param_by_key("compute_jitter"), &s.req, "0.05", msg, sizeof msg) == GQ_OK, "%s", msg);
    CHECK(scenario_run(&s, "fp32", 8, &given, msg, sizeof msg) == GQ_OK, "%s", msg);
    /* E[max of 8 standard normals] = 1.4236003060 */
    CHECK(def.r.compute_s == zero.r.compute_s &&
              fabs(given.r.compute_s / zero.r.compute_s - (1 + 0.05 * 1.4236003060)) < 1e-9,
          "gpu=cpu: default x %.12f (want 1), given 0.05 x %.12f", def.r.compute_s / zero.r.compute_s,
          given.r.compute_s / zero.r.compute_s);
    scenario_close(&s);
}

/* End to end: a run's compute is its scenario's compute times the slowest-of factor, exactly; speedup falls by it. */
static void test_jitter_in_a_run(void)
{
    sim_scenario s;
    char msg[512];
    if (!open_alexnet(&s)) return;
    sim_outcome plain, jittered, alone, published;
    CHECK(scenario_run(&s, "fp32", 10, &published, msg, sizeof msg) == GQ_OK, "%s", msg);
    s.req.run.compute_jitter = 0;
    CHECK(scenario_run(&s, "fp32", 10, &plain, msg, sizeof msg) == GQ_OK, "%s", msg);
    /* by default the GPUs are as unequal as published: E[max of 10 standard normals] = 1.5387527308 */
    const double published_want = 1 + SIM_GPU_SPREAD_CV * 1.5387527308;
    CHECK(fabs(published.r.compute_s / plain.r.compute_s - published_want) < 1e-9,
          "default: compute x %.12f, want %.12f", published.r.compute_s / plain.r.compute_s, published_want);
    s.req.run.compute_jitter = 0.3;
    CHECK(scenario_run(&s, "fp32", 10, &jittered, msg, sizeof msg) == GQ_OK, "%s", msg);
    CHECK(scenario_run(&s, "fp32", 1, &alone, msg, sizeof msg) == GQ_OK, "%s", msg);
    const double want = 1 + 0.3 * 1.5387527308;
    CHECK(fabs(jittered.r.compute_s / plain.r.compute_s - want) < 1e-9, "compute x %.12f, want %.12f",
          jittered.r.compute_s / plain.r.compute_s, want);
    CHECK(jittered.r.iteration_s > plain.r.iteration_s && alone.r.compute_s == s.compute.fwd_s + s.compute.bwd_s,
          "slower with stragglers (%g vs %g); one GPU waits for nobody", jittered.r.iteration_s, plain.r.iteration_s);
    scenario_close(&s);
}

/* tta_run joins a curve with its simulated iteration: the target is reached at the first epoch at or above it,
 * time = iterations x iteration_s, and an epoch of a curve from elsewhere is ceil(images / (gpus x batch)). */
static void test_tta_run(void)
{
    sim_scenario s;
    char msg[512];
    if (!open_alexnet(&s)) return;
    static tta_curve c[2];
    memset(c, 0, sizeof c);
    snprintf(c[0].quant, sizeof c[0].quant, "fp32");
    snprintf(c[1].quant, sizeof c[1].quant, "terngrad");
    for (int k = 0; k < 2; k++) {
        c[k].nseeds = 2, c[k].epochs = 3;
        const double a[2][3] = {{0.5, 0.7, 0.8}, {0.6, 0.8, 0.9}};
        for (int si = 0; si < 2; si++)
            for (int e = 0; e < 3; e++) c[k].acc[si][e] = a[si][e] - 0.1 * k; /* terngrad a tenth lower */
    }
    c[1].iterations_per_epoch = 7, c[1].workers = 3;
    /* one rule for an epoch, train's and tta's: whole rounds of workers x batch */
    CHECK(gq_iterations_per_epoch(12000, 4, 64) == 46, "12000 images, 4 x 64: 46 iterations (46.875 rounded down)");
    CHECK(gq_iterations_per_epoch(512, 4, 128) == 1 && gq_iterations_per_epoch(511, 4, 128) == 0,
          "exactly one round is one iteration; one image less, none");
    gq_table t;
    double it[2];
    CHECK(tta_run(&s, c, 2, 4, 0.7, 1000, &t, it, msg, sizeof msg) == GQ_OK, "%s", msg);
    const double epoch0 = floor(1000.0 / (4.0 * s.batch)); /* train's rule: the last partial round dropped */
    CHECK(c[0].iterations_per_epoch == epoch0 && c[1].iterations_per_epoch == 7, "epochs of %g and %g iterations",
          c[0].iterations_per_epoch, c[1].iterations_per_epoch);
    const int reached = table_column(&t, "seeds_reached"), iters = table_column(&t, "iterations_to_target"),
              time = table_column(&t, "time_to_target_s"), workers = table_column(&t, "workers");
    /* row 0 is the header */
#define CELL(r, c) table_cell(&t, (r), (size_t)(c))
    char want[64];
    /* fp32: both seeds at epoch 2 (0.7 reached at equality, 0.8 above it) */
    table_real(want, sizeof want, 2 * epoch0 * it[0]);
    CHECK(strcmp(CELL(1, reached), "2") == 0 && strcmp(CELL(1, time), want) == 0, "fp32: %s seeds, %s s (want %s)",
          CELL(1, reached), CELL(1, time), want);
    /* terngrad: 0.4 0.6 0.7 and 0.5 0.7 0.8: epochs 3 and 2, a mean of 2.5 epochs of 7 iterations */
    table_real(want, sizeof want, 17.5 * it[1]);
    CHECK(strcmp(CELL(2, iters), "17.5") == 0 && strcmp(CELL(2, time), want) == 0,
          "terngrad: %s iterations, %s s (want %s)", CELL(2, iters), CELL(2, time), want);
    CHECK(strcmp(CELL(2, workers), "3") == 0 && strcmp(CELL(1, workers), "4") == 0,
          "workers %s (trained with 3), %s (gpus)", CELL(2, workers), CELL(1, workers));
#undef CELL
    table_free(&t);
    scenario_close(&s);
}

/* Error feedback's pass over the gradient: 8 bytes an element at the GPU's memory bandwidth, added to the encode of
 * every quantized element; on by default for the biased signSGD, off for the unbiased TernGrad; none in a ring. */
static void test_error_feedback(void)
{
    sim_scenario s;
    char msg[512];
    if (!open_alexnet(&s)) return;
    sim_outcome on, off, tern;
    CHECK(scenario_run(&s, "signsgd", 8, &on, msg, sizeof msg) == GQ_OK, "%s", msg); /* auto: signSGD is biased */
    s.req.run.ef = EF_OFF;
    CHECK(scenario_run(&s, "signsgd", 8, &off, msg, sizeof msg) == GQ_OK, "%s", msg);
    s.req.run.ef = EF_AUTO;
    CHECK(scenario_run(&s, "terngrad", 8, &tern, msg, sizeof msg) == GQ_OK, "%s", msg);
    const double want = 8.0 * (double)model_params(s.model) / s.gpu->mem_bw; /* every tensor quantized here */
    CHECK(fabs((on.r.encode_s - off.r.encode_s) / want - 1) < 1e-9,
          "signSGD with error feedback encodes %.9f s longer, want 8 x %.0f / %.4g = %.9f",
          on.r.encode_s - off.r.encode_s, (double)model_params(s.model), s.gpu->mem_bw, want);
    CHECK(strstr(on.codec_source, "error feedback +0.025 ns/element") != NULL && !strstr(off.codec_source, "error") &&
              !strstr(tern.codec_source, "error feedback"),
          "named where charged: '%s' / '%s' / '%s'", on.codec_source, off.codec_source, tern.codec_source);
    /* in a ring: refused where each hop re-quantizes (no worker's own error), charged where PowerSGD all-reduces its
     * factors and every worker keeps its residual */
    s.req.run.sync = SYNC_RING, s.req.run.ef = EF_ON;
    CHECK(scenario_run(&s, "signsgd", 8, &on, msg, sizeof msg) == GQ_ERR_USAGE && strstr(msg, "no one residual"),
          "--ef on with signsgd in a ring: refused (%s)", msg);
    CHECK(scenario_run(&s, "signsgd", 1, &on, msg, sizeof msg) == GQ_OK, "one GPU has no ring: accepted (%s)", msg);
    CHECK(scenario_run(&s, "powersgd", 8, &on, msg, sizeof msg) == GQ_OK && strstr(on.codec_source, "error feedback"),
          "--ef on with powersgd in a ring: charged (%s)", on.codec_source);
    scenario_close(&s);
}

/* Framework presets: what the user gives wins; the servers' settings only where there are servers. */
static void test_frameworks(void)
{
    char msg[512];
    for (size_t i = 0; i < FRAMEWORK_COUNT; i++) { /* every preset's settings are run parameters that parse */
        sim_request q;
        run_params_defaults(&q);
        q.run.framework = FRAMEWORKS[i].name;
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.given == 0, "%s: %s", FRAMEWORKS[i].name, msg);
    }
    sim_request q;
    run_params_defaults(&q);
    q.run.framework = "pytorch-ddp";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_RING &&
              q.run.fusion_bytes == 25 * 1048576.0 && q.run.fusion_cycle_s == 0 && q.run.overlap == 1,
          "pytorch-ddp: ring, buckets of 25 MiB, no cycle, overlapped (fusion %.0f)", q.run.fusion_bytes);
    run_params_defaults(&q);
    CHECK(run_param_set(run_param_by_key("fusion"), &q, "67108864", msg, sizeof msg) == GQ_OK, "%s", msg);
    q.run.framework = "PyTorch-DDP"; /* a name without case, as every name */
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.fusion_bytes == 67108864 && q.run.sync == SYNC_RING,
          "a fusion given (even the default's value) stays: %.0f", q.run.fusion_bytes);
    run_params_defaults(&q);
    q.run.framework = "tf-ps";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_PS_SHARDED && q.run.ps_on_cpu == 1 &&
              q.run.ps_placement == PS_ROUND_ROBIN && q.run.node_sum == NODE_SUM_NONE && q.run.fusion_bytes == 0,
          "tf-ps: sharded servers on the hosts, variables round-robin, one push a tensor from every GPU");
    run_params_defaults(&q);
    q.run.framework = "tf-replicated";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_PS_SHARDED && q.run.ps_on_cpu == 1 &&
              q.run.ps_placement == PS_ROUND_ROBIN && q.run.fusion_bytes == 0 && q.run.fusion_cycle_s == 0 &&
              q.run.overlap == 1,
          "tf-replicated: the node's sum pushed a variable at a time to round-robin servers on the hosts");
    CHECK(q.run.node_sum == NODE_SUM_HOST, "tf-replicated: the worker sums its GPUs' gradients (the host's sum)");
    run_params_defaults(&q);
    CHECK(run_param_set(run_param_by_key("ps_placement"), &q, "greedy", msg, sizeof msg) == GQ_OK, "%s", msg);
    q.run.framework = "tf-replicated";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.ps_placement == PS_GREEDY && q.run.ps_on_cpu == 1,
          "tf-replicated with --ps-placement greedy: the user's placement, the preset's hosts");
    run_params_defaults(&q);
    CHECK(run_param_set(run_param_by_key("sync"), &q, "ring", msg, sizeof msg) == GQ_OK, "%s", msg);
    q.run.framework = "tf-ps";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_RING && q.run.ps_on_cpu == 0 &&
              q.run.ps_placement == PS_EVEN && q.run.fusion_bytes == 0,
          "tf-ps with --sync ring: the ring, and no servers' settings to contradict it");
    /* Horovod paces its cycles by the previous one's all-reduces whatever all-reduce the user picks (the tree's
     * too), never a parameter server's exchange */
    static const char *const SCHEMES[] = {"ring", "hierarchical", "tree", "allgather", "ps", "ps-sharded", "ps-flat"};
    for (size_t k = 0; k < sizeof SCHEMES / sizeof *SCHEMES; k++) {
        run_params_defaults(&q);
        CHECK(run_param_set(run_param_by_key("sync"), &q, SCHEMES[k], msg, sizeof msg) == GQ_OK, "%s", msg);
        q.run.framework = "horovod";
        const int want = k < 4;
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.fusion_wait_previous == want &&
                  q.run.fusion_cycle_s == 0.001,
              "horovod with --sync %s: fusion-wait %s (%d)", SCHEMES[k], want ? "previous" : "not set",
              q.run.fusion_wait_previous);
    }
    /* HiPress: every GPU a rank rooting some tensors, 4 MiB partitions, Horovod's fusion */
    run_params_defaults(&q);
    q.run.framework = "hipress";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_PS_FLAT &&
              q.run.ps_placement == PS_ROOTS && q.run.partition_bytes == 4194304 &&
              q.run.exchange.fp32_below == 262144 && q.run.fusion_bytes == 67108864 && q.run.fusion_cycle_s == 0.005 &&
              q.run.overlap == 1 && q.run.ps_on_cpu == 0,
          "hipress: ps-flat with roots, 4 MiB partitions, fp32 below 262,144 elements, 64 MB / 5 ms fusion (%s)", msg);
    /* another preset's servers are nodes': with --sync ps-flat they are left out, and hipress's roots with a
     * scheme of servers on nodes too */
    run_params_defaults(&q);
    CHECK(run_param_set(run_param_by_key("sync"), &q, "ps-flat", msg, sizeof msg) == GQ_OK, "%s", msg);
    q.run.framework = "tf-ps";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_PS_FLAT &&
              q.run.ps_placement == PS_EVEN && q.run.ps_on_cpu == 0,
          "tf-ps with --sync ps-flat: no round-robin placement over GPUs");
    run_params_defaults(&q);
    CHECK(run_param_set(run_param_by_key("sync"), &q, "ps-sharded", msg, sizeof msg) == GQ_OK, "%s", msg);
    q.run.framework = "hipress";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_PS_SHARDED &&
              q.run.ps_placement == PS_EVEN && q.run.partition_bytes == 0 && q.run.fusion_bytes == 67108864,
          "hipress with --sync ps-sharded: its fusion, not its roots");
    /* BytePS: servers on the hosts, the node's GPUs summing first, a tensor a push as backward makes it */
    run_params_defaults(&q);
    q.run.framework = "byteps";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_PS_SHARDED && q.run.ps_on_cpu == 1 &&
              q.run.node_sum == NODE_SUM_GPUS && q.run.ps_placement == PS_EVEN && q.run.partition_bytes == 4096000 &&
              q.run.fusion_bytes == 0 && q.run.fusion_cycle_s == 0 && q.run.overlap == 1,
          "byteps: ps-sharded on the hosts after the GPUs' sum, BytePS's 4,096,000-byte partitions, no fusion (%s)",
          msg);
    run_params_defaults(&q);
    CHECK(run_param_set(run_param_by_key("sync"), &q, "ring", msg, sizeof msg) == GQ_OK, "%s", msg);
    q.run.framework = "byteps";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_RING && q.run.node_sum == NODE_SUM_HOST &&
              q.run.ps_on_cpu == 0 && q.run.partition_bytes == 0,
          "byteps with --sync ring: the ring, no servers' settings (nor their partitions)");
    run_params_defaults(&q);
    q.run.framework = "horovod-mpi";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.sync == SYNC_RING && q.run.reduce_on_host == 1 &&
              q.run.ring_pipelined == 0,
          "horovod-mpi: a ring through host memory, MPI's, a message a step");
    /* NCCL's pipelined ring: where the run's ring is gqsim's own; not for another scheme, the trainer's MPI ring
     * under smpi, or SimGrid's step-by-step flows */
    static const char *const NCCL[] = {"horovod-nccl", "horovod", "horovod-0.20", "pytorch-ddp"};
    for (int k = 0; k < 4; k++) {
        run_params_defaults(&q);
        q.run.framework = NCCL[k];
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.ring_pipelined == 1, "%s: ring pipelined",
              NCCL[k]);
        run_params_defaults(&q);
        CHECK(run_param_set(run_param_by_key("sync"), &q, "hierarchical", msg, sizeof msg) == GQ_OK, "%s", msg);
        q.run.framework = NCCL[k];
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.ring_pipelined == 0,
              "%s with --sync hierarchical: no ring setting", NCCL[k]);
        run_params_defaults(&q);
        q.run.engine = ENGINE_SMPI, q.run.framework = NCCL[k];
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.ring_pipelined == 0, "%s under smpi: MPI's ring",
              NCCL[k]);
        run_params_defaults(&q);
        q.run.exact_flows = 1, q.run.framework = NCCL[k];
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.ring_pipelined == 0,
              "%s with --exact-flows: a flow a step", NCCL[k]);
    }
    /* Horovod's loop paces its cycles (fusion_wait previous) where there are cycles of all-reduces overlapped with
     * backward; not with --overlap off, --fusion-cycle 0, a parameter server or the smpi engine; PyTorch has none */
    static const char *const HOROVOD[] = {"horovod-nccl", "horovod-0.20", "horovod-mpi"};
    for (int k = 0; k < 3; k++) {
        run_params_defaults(&q);
        q.run.framework = HOROVOD[k];
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.fusion_wait_previous == 1, "%s: the loop",
              HOROVOD[k]);
        static const char *const OFF[][2] = {{"overlap", "0"}, {"fusion_cycle", "0"}, {"sync", "ps"}};
        for (int j = 0; j < 3; j++) {
            run_params_defaults(&q);
            CHECK(run_param_set(run_param_by_key(OFF[j][0]), &q, OFF[j][1], msg, sizeof msg) == GQ_OK, "%s", msg);
            q.run.framework = HOROVOD[k];
            CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.fusion_wait_previous == 0,
                  "%s with %s %s: no loop to pace", HOROVOD[k], OFF[j][0], OFF[j][1]);
        }
        run_params_defaults(&q);
        q.run.engine = ENGINE_SMPI, q.run.framework = HOROVOD[k];
        CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.fusion_wait_previous == 0, "%s under smpi",
              HOROVOD[k]);
    }
    run_params_defaults(&q);
    q.run.framework = "pytorch-ddp";
    CHECK(framework_apply(&q, msg, sizeof msg) == GQ_OK && q.run.fusion_wait_previous == 0, "pytorch-ddp: no cycles");
    q.run.framework = "pytorch-dp";
    CHECK(framework_check("pytorch-dp", msg, sizeof msg) != 0 && strstr(msg, "did you mean 'pytorch-ddp'") != NULL,
          "a misspelling: %s", msg);
}

/* --precision: AMP's measured rate (NVIDIA's 1,200 images/s for ResNet-50 on a V100 at batch 256, in
 * data/gpu_throughput_precision.csv) and its fp16 gradients, sent as made: a ring's 2(P-1)/P of the fp16 sizes of
 * every tensor, nothing encoded; fp16 asked is the same; another quantizer encodes as ever; TF32 where nothing
 * was measured is refused in a line that says so, and a rate the user gives is taken. */
static void test_precision(void)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = "resnet50", q.platform = "dgx1-v100", q.run.engine = ENGINE_ANALYTIC, q.batch = 256;
    q.run.sync = SYNC_RING, q.run.overlap = 0, q.run.fusion_bytes = 1e12, q.run.precision = PRECISION_AMP;
    q.run.compute_jitter = 0; /* the GPUs equal: compute is the profile's rate */
    sim_scenario s;
    char msg[512];
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK, "open: %s", msg);
    CHECK(s.compute.images_per_s == 1200 && s.compute.source == COMPUTE_MEASURED,
          "amp on a V100: %g images/s, the published 1200", s.compute.images_per_s);
    qz_params fp16;
    qz_parse_spec("fp16", &fp16, NULL, 0);
    double u16 = 0; /* every tensor's fp16 encoding */
    for (size_t i = 0; i < s.model->nlayers; i++) {
        if (s.model->layers[i].weight_params)
            u16 += (double)qz_exact_size(&fp16, (size_t)s.model->layers[i].weight_params);
        if (s.model->layers[i].bias_params) u16 += (double)qz_exact_size(&fp16, (size_t)s.model->layers[i].bias_params);
    }
    const double P = 8;
    const char *QUANTS[] = {"fp32", "fp16"};
    for (int k = 0; k < 2; k++) {
        sim_outcome o;
        CHECK(scenario_run(&s, QUANTS[k], 8, &o, msg, sizeof msg) == GQ_OK, "%s", msg);
        CHECK(strcmp(o.quant, "fp16") == 0 && o.r.encode_s == 0 && o.r.decode_s == 0 &&
                  fabs(o.r.bytes_up - 2 * (P - 1) / P * u16) <= 1e-9 * u16 &&
                  fabs(o.r.compute_s - 256.0 / 1200) < 1e-12,
              "amp, %s asked: %s, encode %g s, %.0f bytes up (2(P-1)/P x %.0f), compute %.9f s (256/1200)", QUANTS[k],
              o.quant, o.r.encode_s, o.r.bytes_up, u16, o.r.compute_s);
        CHECK(strstr(o.codec_source, "amp: fp16 gradients") != NULL, "the row says why: '%s'", o.codec_source);
    }
    sim_outcome tg;
    CHECK(scenario_run(&s, "terngrad", 8, &tg, msg, sizeof msg) == GQ_OK && tg.r.encode_s > 0 &&
              strncmp(tg.quant, "terngrad", 8) == 0,
          "amp with terngrad: encoded as ever (%g s)", tg.r.encode_s);
    scenario_close(&s);
    q.run.precision = PRECISION_TF32; /* Ampere's mode (compute capability 8.0): a V100 (7.0) has none */
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_ERR_USAGE &&
              strstr(msg, "V100 (compute capability 7.0) has no TF32") != NULL,
          "tf32 on a V100: refused, '%s'", msg);
    q.platform = "dgx-a100"; /* an A100 has both: each precision its own row (TF32 938, AMP 2470 at batch 256) */
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK && s.compute.images_per_s == 938, "tf32 on an A100: %g",
          s.compute.images_per_s);
    scenario_close(&s);
    q.run.precision = PRECISION_AMP;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK && s.compute.images_per_s == 2470, "amp on an A100: %g",
          s.compute.images_per_s);
    scenario_close(&s);
    q.platform = "dgx1-v100", q.run.precision = PRECISION_TF32, q.run.gpu_images_per_s = 500;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_ERR_USAGE && strstr(msg, "has no TF32") != NULL,
          "a tf32 rate given for a V100: still no TF32 there, '%s'", msg);
    q.platform = "dgx-a100";
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK && s.compute.images_per_s == 500 &&
              s.compute.source == COMPUTE_USER,
          "a rate given is taken: %g", s.compute.images_per_s);
    scenario_close(&s);
}

/* A request no parser would let through (a rate set below its physical range directly in the struct) gives a
 * refusal naming the run, never a row of inf: the last guard behind the ranges. At the range's lowest rate, a finite
 * row: 8 GPUs x 128 images at 1e-5 images/s each is 1.28e7 s of compute. */
static void test_finite_or_refused(void)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = "alexnet", q.platform = "terngrad-ethernet", q.run.engine = ENGINE_ANALYTIC, q.run.compute_jitter = 0;
    char msg[512] = "";
    sim_scenario s;
    sim_outcome o;
    q.run.gpu_images_per_s = PHYS_IMAGE_RATE_LO;
    CHECK(scenario_open(&s, &q, msg, sizeof msg) == GQ_OK &&
              scenario_run(&s, "fp32", 8, &o, msg, sizeof msg) == GQ_OK &&
              fabs(o.r.compute_s - 128 / PHYS_IMAGE_RATE_LO) <= 1e-9 * o.r.compute_s && isfinite(o.images_per_s),
          "1e-5 images/s: a finite row, compute %g s (%s)", o.r.compute_s, msg);
    scenario_close(&s);
    q.run.gpu_images_per_s = 1e-310; /* a subnormal: 128 images take 1.28e312 s, past a double */
    msg[0] = '\0';
    gq_err e = scenario_open(&s, &q, msg, sizeof msg);
    if (e == GQ_OK) e = scenario_run(&s, "fp32", 8, &o, msg, sizeof msg);
    CHECK(e == GQ_ERR_PARAM && strstr(msg, "the prediction is not a finite, positive time") != NULL,
          "1e-310 images/s set directly: refused, '%s'", msg);
    scenario_close(&s);
}

int main(void)
{
    test_rows_well_formed();
    test_defaults();
    test_bounds_at_equality();
    test_format_reads_back();
    test_messages();
    test_rules_of_rows();
    test_help_defaults();
    test_columns_from_table();
    test_slowest_of();
    test_jitter_in_a_run();
    test_jitter_default_by_device();
    test_tta_run();
    test_frameworks();
    test_error_feedback();
    test_precision();
    test_finite_or_refused();
    return check_summary();
}
