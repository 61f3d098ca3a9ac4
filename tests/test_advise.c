/* advise's screening must not drop the true best: on a small space (AlexNet, 8 GPUs of terngrad-ethernet; fp32,
 * TernGrad and PowerSGD; every scheme and fusion; fp32-below and the codec's device held) every configuration is
 * simulated with SimGrid here, one by one, and advise's winner (screened with the analytic engine, its best 5
 * simulated again) is that exhaustive search's best, to the bit; its speedup is over the best fp32 configuration
 * found the same way; an axis the request holds stays held (--sync ring: rings only); a quantizer that does not
 * parse is an error, not a skipped row. */
#include "advise.h"
#include "check.h"
#include "run_params.h"

static sim_request base(void)
{
    sim_request q;
    sim_request_defaults(&q);
    q.model = "alexnet", q.platform = "terngrad-ethernet";
    char msg[256];
    run_param_set(run_param_by_key("fp32_below"), &q, "0", msg, sizeof msg);
    run_param_set(run_param_by_key("codec_on"), &q, "gpu", msg, sizeof msg);
    return q;
}

static const char *const QUANTS[] = {"fp32", "terngrad", "powersgd:rank=2"};

/* A configuration as the screening saw it: its analytic iteration, its place in advise's enumeration (settings in
 * order, each quantizer in order), its scheme's index and whether it is fp32. */
typedef struct {
    double iteration_s;
    int order, scheme, fp32, quant;
} screened;

static int by_screened_time(const void *a, const void *b)
{
    const screened *x = a, *y = b;
    if (x->iteration_s != y->iteration_s) return x->iteration_s < y->iteration_s ? -1 : 1;
    return x->order - y->order;
}

/* advise's finalists, counted from the screening's times in order (of `scheme` only, or all where it is -1): the
 * first configuration of each of the first 5 quantizer-and-scheme pairs, then each scheme's first compressed and
 * first fp32 configuration where not among those */
static size_t finalists_of(const screened *in_order, int n, int scheme)
{
    int first[7][2] = {{0}}, pair[7][8] = {{0}};
    size_t picked = 0, pairs = 0;
    for (int i = 0; i < n; i++) {
        const screened *c = &in_order[i];
        if (scheme >= 0 && c->scheme != scheme) continue;
        const int new_pair = !pair[c->scheme][c->quant] && pairs < 5;
        picked += new_pair || !first[c->scheme][c->fp32];
        pairs += (size_t)new_pair;
        first[c->scheme][c->fp32] = pair[c->scheme][c->quant] = 1;
    }
    return picked;
}

/* Where the screening misleads: VGG-A on 32 GPUs of InfiniBand, where the analytic engine (no contention) puts a
 * single parameter server first and SimGrid (its link shared by 31 flows) puts it last. Every scheme's best is
 * simulated again, so advise still finds the exhaustive best with K = 1. */
static void test_misleading_screen(void)
{
    static const char *const Q2[] = {"fp32", "fp16"};
    sim_request q = base();
    char msg[1024], why[512];
    q.model = "vgg-a", q.platform = "terngrad-infiniband";
    run_param_set(run_param_by_key("fusion"), &q, "26214400", msg, sizeof msg);
    double best = INFINITY, ps_analytic = 0, ps_simgrid = 0, best_analytic = INFINITY;
    char best_quant[256] = "";
    sync_kind best_sync = SYNC_PS;
    for (int s = 0; s < SYNC_COUNT; s++)
        for (int e = 0; e < 2; e++) {
            sim_request r = q;
            r.run.sync = (sync_kind)s, r.run.engine = e ? ENGINE_SIMGRID : ENGINE_ANALYTIC;
            sim_scenario sc;
            if (scenario_open(&sc, &r, msg, sizeof msg) != GQ_OK) continue;
            for (size_t k = 0; k < 2; k++) {
                sim_outcome o;
                if (scenario_run(&sc, Q2[k], 32, &o, msg, sizeof msg) != GQ_OK) continue;
                if (!e) best_analytic = fmin(best_analytic, o.r.iteration_s);
                if (s == SYNC_PS && k == 0) *(e ? &ps_simgrid : &ps_analytic) = o.r.iteration_s;
                if (e && o.r.iteration_s < best)
                    best = o.r.iteration_s, best_sync = (sync_kind)s, snprintf(best_quant, 256, "%s", o.quant);
            }
            scenario_close(&sc);
        }
    CHECK(ps_analytic == best_analytic && ps_simgrid > 10 * best,
          "the screen misleads here: one server screened best (%g s) and simulated at %g s, the best %g s", ps_analytic,
          ps_simgrid, best);
    advise_request a = {.quants = Q2, .nquants = 2, .gpus = 32, .top = 1};
    gq_table t = {0};
    gq_err e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
    CHECK(e == GQ_OK && strtod(table_cell(&t, 1, (size_t)table_column(&t, "iteration_s")), NULL) == best &&
              strcmp(table_cell(&t, 1, (size_t)table_column(&t, "quant")), best_quant) == 0 &&
              strcmp(table_cell(&t, 1, (size_t)table_column(&t, "sync")), sync_name(best_sync)) == 0,
          "K = 1: advise still finds the best, %s in %s at %.6g s (it says %s %s)", best_quant, sync_name(best_sync),
          best, table_cell(&t, 1, 2), table_cell(&t, 1, 3));
    table_free(&t);
}

/* Time to accuracy: curves where fp32 reaches 0.8 at epoch 2, TernGrad at epoch 4 and PowerSGD never; ranked by
 * iterations to the target x the iteration: PowerSGD left out, every row's time its iterations (epochs x
 * floor(128,000 / (8 x 128)) = 125 an epoch) times its iteration. */
static void test_time_to_target(void)
{
    static tta_curve cv[3];
    static const char *const SPECS[] = {"fp32", "terngrad", "powersgd:rank=2"};
    static const double ACC[3][4] = {{0.7, 0.81, 0.85, 0.86}, {0.6, 0.7, 0.75, 0.8}, {0.5, 0.6, 0.7, 0.79}};
    for (int k = 0; k < 3; k++) {
        qz_params p;
        qz_parse_spec(SPECS[k], &p, NULL, 0);
        qz_format_spec(&p, cv[k].quant, sizeof cv[k].quant);
        cv[k].nseeds = 1, cv[k].epochs = 4;
        for (int e = 0; e < 4; e++) cv[k].acc[0][e] = ACC[k][e];
    }
    sim_request q = base();
    run_param_set(run_param_by_key("engine"), &q, "analytic", NULL, 0);
    advise_request a = {.gpus = 8, .top = 5, .curves = cv, .ncurves = 3, .target = 0.8, .dataset_images = 128000};
    gq_table t = {0};
    char msg[1024], why[512];
    gq_err e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
    int ok = e == GQ_OK && t.nrows == 6, none = 1;
    const int it = table_column(&t, "iteration_s"), nit = table_column(&t, "iterations_to_target"),
              ttt = table_column(&t, "time_to_target_s"), qc = table_column(&t, "quant");
    for (size_t r = 1; ok && r < t.nrows; r++) {
        const int fp32 = strcmp(table_cell(&t, r, (size_t)qc), "fp32") == 0;
        const double n = strtod(table_cell(&t, r, (size_t)nit), NULL), s = strtod(table_cell(&t, r, (size_t)it), NULL);
        ok &= n == (fp32 ? 2 : 4) * 125.0 && strtod(table_cell(&t, r, (size_t)ttt), NULL) == s * n;
        ok &=
            r == 1 || strtod(table_cell(&t, r, (size_t)ttt), NULL) >= strtod(table_cell(&t, r - 1, (size_t)ttt), NULL);
        none &= strstr(table_cell(&t, r, (size_t)qc), "powersgd") == NULL;
    }
    CHECK(ok && none,
          "time to 0.8: iterations 250 (fp32) and 500 (terngrad) x the iteration, in order, no powersgd (%s)",
          e == GQ_OK ? why : msg);
    table_free(&t);
    a.target = 0.9; /* nobody reaches it */
    CHECK(sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg) == GQ_ERR_PARAM && strstr(msg, "reaches"),
          "no curve reaches 0.9: one line (%s)", msg);
    table_free(&t);

    /* a budget with the target: the best time to 0.8 is kept at a budget equal to it, left out just under it */
    a.target = 0.8, a.top = 1;
    e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
    const double best = e == GQ_OK ? strtod(table_cell(&t, 1, (size_t)ttt), NULL) : NAN;
    char best_quant[256];
    snprintf(best_quant, sizeof best_quant, "%s", table_cell(&t, 1, (size_t)qc));
    table_free(&t);
    a.budget_s = best;
    e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
    CHECK(e == GQ_OK && strtod(table_cell(&t, 1, (size_t)ttt), NULL) == best &&
              strcmp(table_cell(&t, 1, (size_t)qc), best_quant) == 0,
          "a budget equal to the best time to the target keeps it (%.17g s): %s", best, e == GQ_OK ? "" : msg);
    table_free(&t);
    a.budget_s = nextafter(best, 0);
    e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
    CHECK(e != GQ_OK || strtod(table_cell(&t, 1, (size_t)ttt), NULL) > best,
          "a budget just under it leaves that configuration out");
    table_free(&t);

    /* a budget alone: the accuracy at the last epoch it completes, floor(budget / (iteration x 125)), the curve's
     * last beyond it; best accuracy first, then the shorter iteration */
    a.target = 0, a.top = 40;
    const double fp32_iteration = 0.3; /* a budget of exactly 2 epochs of an fp32 configuration at 0.3 s */
    a.budget_s = fp32_iteration * 125 * 2;
    e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
    const int acc = table_column(&t, "accuracy_at_budget");
    ok = e == GQ_OK && t.nrows > 10;
    for (size_t r = 1; ok && r < t.nrows; r++) {
        const char *quant = table_cell(&t, r, (size_t)qc);
        const int k = strcmp(quant, "fp32") == 0 ? 0 : strncmp(quant, "terngrad", 8) == 0 ? 1 : 2;
        const double s = strtod(table_cell(&t, r, (size_t)it), NULL), epochs = floor(a.budget_s / (s * 125));
        const double want = ACC[k][(epochs > 4 ? 4 : (int)epochs) - 1],
                     got = strtod(table_cell(&t, r, (size_t)acc), NULL);
        ok &= epochs >= 1 && got == want;
        if (r > 1) {
            const double prev = strtod(table_cell(&t, r - 1, (size_t)acc), NULL);
            ok &= got < prev || (got == prev && s >= strtod(table_cell(&t, r - 1, (size_t)it), NULL));
        }
        if (!ok) fprintf(stderr, "row %zu: %s %.17g s, %g epochs: %g (want %g)\n", r, quant, s, epochs, got, want);
    }
    CHECK(ok,
          "a budget of %g s alone: each row's accuracy from its curve at the epochs it completes, in order (%zu rows): "
          "%s",
          a.budget_s, t.nrows ? t.nrows - 1 : 0, e == GQ_OK ? why : msg);
    table_free(&t);
    /* at equality: one fp32 configuration, a budget of exactly two of its epochs reaches epoch 2's 0.81, a hair less
     * epoch 1's 0.7 */
    static const char *const FP32[] = {"fp32"};
    sim_request ring = q;
    run_param_set(run_param_by_key("sync"), &ring, "ring", msg, sizeof msg);
    run_param_set(run_param_by_key("fusion"), &ring, "0", msg, sizeof msg);
    advise_request one = a;
    one.quants = FP32, one.nquants = 1, one.top = 1, one.budget_s = 1e6;
    e = sim_advise(&ring, &one, &t, why, sizeof why, NULL, msg, sizeof msg);
    const double s1 = e == GQ_OK ? strtod(table_cell(&t, 1, (size_t)it), NULL) : NAN;
    table_free(&t);
    double got[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        one.budget_s = s1 * 125 * 2;
        if (i) one.budget_s = nextafter(one.budget_s, 0);
        if (sim_advise(&ring, &one, &t, why, sizeof why, NULL, msg, sizeof msg) == GQ_OK)
            got[i] = strtod(table_cell(&t, 1, (size_t)acc), NULL);
        table_free(&t);
    }
    CHECK(got[0] == 0.81 && got[1] == 0.7, "a budget of exactly 2 epochs (%.17g s): %g (0.81); a hair less: %g (0.7)",
          s1 * 250, got[0], got[1]);
}

/* The one way work is spread over ranks (sim_spread), sweep's rows and advise's finalists: worked by hand for costs
 * 3, 5, 1, 4, 3, 2 (heaviest first 5, 4, 3, 3, 2, 1) on 2 ranks (5 to rank 0; 4 to 1; the first 3 to 1, at 4 the
 * lighter; the second 3 to 0, 5 < 7; 2 to 1, 7 < 8; 1 to 0, 8 < 9: 9 and 9), equal loads tying to the lower rank, equal
 * costs in index order; on a grid, every row owned once and no rank's cost more than the heaviest row above another's.
 * And a row's prediction is simulate's. */
static void test_grid_spread(void)
{
    const double cost[] = {3, 5, 1, 4, 3, 2}; /* heaviest first: 5 (1), 4 (3), 3 (0), 3 (4), 2 (5), 1 (2) */
    int owner[6];
    CHECK(sim_spread(cost, 6, 2, owner) == 0 && owner[1] == 0 && owner[3] == 1 && owner[0] == 1 && owner[4] == 0 &&
              owner[5] == 1 && owner[2] == 0,
          "5,4,3,3,2,1 on 2 ranks: %d %d %d %d %d %d", owner[0], owner[1], owner[2], owner[3], owner[4], owner[5]);
    const double alike[] = {1, 1, 1};
    CHECK(sim_spread(alike, 3, 4, owner) == 0 && owner[0] == 0 && owner[1] == 1 && owner[2] == 2,
          "three alike on 4 ranks: ranks 0, 1, 2 (%d %d %d)", owner[0], owner[1], owner[2]);
    const char *grid_csv = "model,platform,gpus,sync\n"
                           "alexnet,terngrad-ethernet,64,ring\n"
                           "alexnet,terngrad-ethernet,2,ring\n"
                           "alexnet,terngrad-ethernet,8,ps\n"
                           "alexnet,terngrad-ethernet,128,allgather\n"
                           "alexnet,terngrad-ethernet,4,\n"
                           "alexnet,terngrad-ethernet,16,hierarchical\n"
                           "alexnet,terngrad-ethernet,32,ring\n";
    measured_set g;
    char msg[1024];
    CHECK(measured_parse_grid(grid_csv, strlen(grid_csv), "g.csv", &g, msg, sizeof msg) == GQ_OK && g.n == 7,
          "a grid of 7 rows: %s", msg);
    sim_request q = base();
    for (int engine = 0; engine < 2; engine++) {
        q.run.engine = engine ? ENGINE_SIMGRID : ENGINE_ANALYTIC;
        double most = 0;
        for (size_t i = 0; i < g.n; i++) most = fmax(most, sim_grid_cost_s(&g.rows[i], &q));
        for (int R = 1; R <= 4; R++) {
            int own[7];
            double load[4] = {0, 0, 0, 0};
            int ok = sim_grid_owners(&g, &q, R, own) == 0;
            for (size_t i = 0; ok && i < g.n; i++) {
                ok &= own[i] >= 0 && own[i] < R;
                if (ok) load[own[i]] += sim_grid_cost_s(&g.rows[i], &q);
            }
            for (int a = 0; ok && a < R; a++)
                for (int b = 0; b < R; b++) ok &= load[a] - load[b] <= most * (1 + 1e-9) + 1e-6;
            CHECK(ok, "%s engine, %d ranks: every row owned once, loads within the heaviest row",
                  engine ? "simgrid" : "analytic", R);
        }
    }
    q.run.engine = ENGINE_ANALYTIC;
    gq_table t = {0};
    const int owners[7] = {0, 1, 1, 0, 0, 0, 0}; /* rank 1 runs rows 1 and 2: lines 3 and 4 */
    size_t failed = 99;
    CHECK(sim_grid(&g, "g.csv", &q, owners, 1, &t, &failed, NULL, NULL, msg, sizeof msg) == GQ_OK && t.nrows == 3 &&
              strcmp(table_cell(&t, 1, 0), "3") == 0 && strcmp(table_cell(&t, 2, 0), "4") == 0,
          "rank 1's rows 1 and 2 of the grid: lines 3 and 4 (%zu rows): %s", t.nrows ? t.nrows - 1 : 0, msg);
    {
        const char *bad_csv = "model,platform,gpus\nalexnet,terngrad-ethernet,8\nalexnet,terngrad-ethernet,8\n"
                              "alexnet,no-such-platform,8\nalexnet,terngrad-ethernet,8\n";
        measured_set b;
        gq_table bt = {0};
        CHECK(measured_parse_grid(bad_csv, strlen(bad_csv), "b.csv", &b, msg, sizeof msg) == GQ_OK && b.n == 4,
              "a grid of 4: %s", msg);
        const gq_err e = sim_grid(&b, "b.csv", &q, NULL, 0, &bt, &failed, NULL, NULL, msg, sizeof msg);
        CHECK(e != GQ_OK && failed == 2 && strncmp(msg, "b.csv:4: ", 9) == 0 && bt.nrows == 3,
              "the third row fails: index %zu, '%s', %zu rows before it", failed, msg, bt.nrows ? bt.nrows - 1 : 0);
        table_free(&bt);
        measured_free(&b);
    }
    sim_request r = q;
    r.run.sync = SYNC_PS;
    sim_scenario sc;
    sim_outcome o;
    CHECK(scenario_open(&sc, &r, msg, sizeof msg) == GQ_OK &&
              scenario_run(&sc, "fp32", 8, &o, msg, sizeof msg) == GQ_OK &&
              strtod(table_cell(&t, 2, (size_t)table_column(&t, "iteration_s")), NULL) == o.r.iteration_s,
          "line 4's iteration is simulate's for alexnet, 8 GPUs, ps: %s vs %.17g",
          table_cell(&t, 2, (size_t)table_column(&t, "iteration_s")), o.r.iteration_s);
    scenario_close(&sc);
    table_free(&t);
    measured_free(&g);
}

/* The codec's device held at the CPU, or BytePS's host encoding every push (--ps-node-sum gpus): fp32 is still
 * simulated once a setting, the speedups are over it, and every row says the CPU encodes. */
static void test_held_device(void)
{
    static const char *const Q2[] = {"fp32", "terngrad"};
    for (int i = 0; i < 2; i++) {
        sim_request q = base();
        char msg[1024], why[512];
        if (i) {
            run_param_forget(run_param_by_key("codec_on"), &q);
            run_param_set(run_param_by_key("sync"), &q, "ps-sharded", msg, sizeof msg);
            run_param_set(run_param_by_key("ps_on"), &q, "cpu", msg, sizeof msg);
            run_param_set(run_param_by_key("ps_node_sum"), &q, "gpus", msg, sizeof msg);
        } else {
            run_param_set(run_param_by_key("codec_on"), &q, "cpu", msg, sizeof msg);
        }
        advise_request a = {.quants = Q2, .nquants = 2, .gpus = 8, .top = 3};
        gq_table t = {0};
        const gq_err e = sim_advise(&q, &a, &t, why, sizeof why, NULL, msg, sizeof msg);
        CHECK(e == GQ_OK && t.nrows >= 3 && strstr(why, "no fp32 configuration") == NULL,
              "%s: advise compares with fp32 (%s; %s)", i ? "--ps-node-sum gpus" : "--codec-on cpu", why, msg);
        const int dev = table_column(&t, "codec_on"), speedup = table_column(&t, "speedup_over_fp32");
        for (size_t r = 1; e == GQ_OK && r < t.nrows && dev >= 0 && speedup >= 0; r++)
            CHECK(strcmp(table_cell(&t, r, (size_t)dev), "cpu") == 0 && table_cell(&t, r, (size_t)speedup)[0] != '\0',
                  "%s: row %zu encodes on the %s, speedup '%s'", i ? "--ps-node-sum gpus" : "--codec-on cpu", r,
                  table_cell(&t, r, (size_t)dev), table_cell(&t, r, (size_t)speedup));
        table_free(&t);
    }
}

/* ps-flat moves every GPU's shard to every other: advise leaves it out only past SimGrid's limit,
 * SIM_SIMGRID_MAX_FLAT_GPUS (128) itself still screened -- as many configurations at 128 as at 127, one scheme's
 * fewer at 129 (each fusion, fp32-below and the codec's device held by base()) */
static void test_flat_limit(void)
{
    static const char *const FP32[] = {"fp32"};
    const int GPUS[] = {SIM_SIMGRID_MAX_FLAT_GPUS - 1, SIM_SIMGRID_MAX_FLAT_GPUS, SIM_SIMGRID_MAX_FLAT_GPUS + 1};
    size_t screened[3] = {0};
    for (int i = 0; i < 3; i++) {
        sim_request q = base();
        char msg[1024], why[512];
        run_param_set(run_param_by_key("engine"), &q, "analytic", msg, sizeof msg);
        advise_request a = {.quants = FP32, .nquants = 1, .gpus = GPUS[i], .top = 1};
        advise_counts n = {0};
        gq_table t = {0};
        const gq_err e = sim_advise(&q, &a, &t, why, sizeof why, &n, msg, sizeof msg);
        CHECK(e == GQ_OK, "advise on %d GPUs: %s", GPUS[i], e == GQ_OK ? "ran" : msg);
        screened[i] = n.screened;
        table_free(&t);
    }
    CHECK(screened[0] == 7 * ADVISE_NFUSIONS && screened[1] == screened[0] &&
              screened[2] == screened[1] - ADVISE_NFUSIONS,
          "screened at 127, 128 and 129 GPUs: %zu, %zu, %zu (7, 7 and 6 schemes of %d fusions)", screened[0],
          screened[1], screened[2], (int)ADVISE_NFUSIONS);
}

/* advise's order of schemes, from the schemes' rows: every scheme once, the default (ps-sharded) first. */
static void test_search_order(void)
{
    sync_kind order[SYNC_COUNT];
    for (int s = 0; s < SYNC_COUNT; s++) order[s] = (sync_kind)SYNC_COUNT; /* unset */
    sim_schemes_in_search_order(order);
    int seen = 0;
    for (int s = 0; s < SYNC_COUNT; s++) seen |= (unsigned)order[s] < SYNC_COUNT ? 1 << order[s] : 0;
    CHECK(seen == (1 << SYNC_COUNT) - 1 && order[0] == SYNC_PS_SHARDED,
          "advise's schemes: each once (mask 0x%x), ps-sharded first (%s)", (unsigned)seen, sync_name(order[0]));
}

int main(void)
{
    test_search_order();
    test_flat_limit();
    test_held_device();
    test_grid_spread();
    test_time_to_target();
    test_misleading_screen();
    const sim_request q = base();
    static const sync_kind SYNCS[] = {SYNC_PS_SHARDED, SYNC_RING,    SYNC_HIERARCHICAL, SYNC_ALLGATHER,
                                      SYNC_PS,         SYNC_PS_FLAT, SYNC_TREE};
    double best = INFINITY, best_fp32 = INFINITY;
    char best_quant[256] = "", best_sync[32] = "", msg[1024];
    int ran = 0;
    screened seen[7 * 3 * 8] = {{0}};
    for (size_t s = 0; s < sizeof SYNCS / sizeof SYNCS[0]; s++)
        for (size_t f = 0; f < ADVISE_NFUSIONS; f++) {
            sim_request r = q;
            r.run.sync = SYNCS[s], r.run.fusion_bytes = ADVISE_FUSIONS[f][0],
            r.run.fusion_cycle_s = ADVISE_FUSIONS[f][1];
            sim_request fast = r; /* the screening's engine */
            fast.run.engine = ENGINE_ANALYTIC;
            sim_scenario sc, sa;
            if (scenario_open(&sc, &r, msg, sizeof msg) != GQ_OK) continue;
            if (scenario_open(&sa, &fast, msg, sizeof msg) != GQ_OK) {
                scenario_close(&sc);
                continue;
            }
            for (size_t k = 0; k < 3; k++) {
                sim_outcome o, screen;
                if (scenario_run(&sc, QUANTS[k], 8, &o, msg, sizeof msg) != GQ_OK) continue;
                if (ran < (int)(sizeof seen / sizeof *seen) &&
                    scenario_run(&sa, QUANTS[k], 8, &screen, msg, sizeof msg) == GQ_OK)
                    seen[ran] = (screened){screen.r.iteration_s, ran, (int)s, k == 0, (int)k};
                ran++;
                if (k == 0 && o.r.iteration_s < best_fp32) best_fp32 = o.r.iteration_s;
                if (o.r.iteration_s < best) {
                    best = o.r.iteration_s;
                    snprintf(best_quant, sizeof best_quant, "%s", o.quant);
                    snprintf(best_sync, sizeof best_sync, "%s", sync_name(SYNCS[s]));
                }
            }
            scenario_close(&sc), scenario_close(&sa);
        }
    CHECK(ran == 7 * 3 * 3, "the exhaustive search simulated %d configurations (63)", ran);
    /* the finalists, counted from the screening's own times: the best 5, then each scheme's first compressed and
     * first fp32 configuration in that order where not among the 5 */
    qsort(seen, (size_t)ran, sizeof *seen, by_screened_time);
    const size_t want_finalists = finalists_of(seen, ran, -1), want_ring = finalists_of(seen, ran, 1);

    advise_request a = {.quants = QUANTS, .nquants = 3, .gpus = 8, .top = 5};
    gq_table t = {0};
    char why[512];
    advise_counts n = {0};
    gq_err e = sim_advise(&q, &a, &t, why, sizeof why, &n, msg, sizeof msg);
    const int it = table_column(&t, "iteration_s"), qc = table_column(&t, "quant"), sc = table_column(&t, "sync"),
              sp = table_column(&t, "speedup_over_fp32"), ips = table_column(&t, "images_per_s");
    /* finalists: the best 5, and the best of each of the 7 schemes, fp32 and not, where not among those 5 */
    CHECK(e == GQ_OK && n.screened == 63 && n.finalists == want_finalists && t.nrows == 6,
          "advise screened %zu, simulated %zu again and kept %zu (63, %zu, 5): %s", n.screened, n.finalists,
          t.nrows ? t.nrows - 1 : 0, want_finalists, e == GQ_OK ? "" : msg);
    CHECK(e == GQ_OK && strtod(table_cell(&t, 1, (size_t)it), NULL) == best &&
              strcmp(table_cell(&t, 1, (size_t)qc), best_quant) == 0 &&
              strcmp(table_cell(&t, 1, (size_t)sc), best_sync) == 0,
          "advise's winner is the exhaustive best: %s %s %s s (want %s %s %.17g s)", table_cell(&t, 1, (size_t)qc),
          table_cell(&t, 1, (size_t)sc), table_cell(&t, 1, (size_t)it), best_quant, best_sync, best);
    const double speedup = strtod(table_cell(&t, 1, (size_t)sp), NULL),
                 want = strtod(table_cell(&t, 1, (size_t)ips), NULL) / (8.0 * 128 / best_fp32); /* batch 128 */
    CHECK(e == GQ_OK && fabs(speedup / want - 1) < 1e-12 && strstr(why, best_quant),
          "its speedup is over the best fp32 configuration (%g, want %g); why: %s", speedup, want, why);
    for (size_t r = 2; e == GQ_OK && r < t.nrows; r++)
        CHECK(strtod(table_cell(&t, r, (size_t)it), NULL) >= strtod(table_cell(&t, r - 1, (size_t)it), NULL),
              "rows in order of their time (row %zu)", r);
    for (size_t r = 2; e == GQ_OK && r < t.nrows; r++) /* alternatives, not variations of one */
        for (size_t p = 1; p < r; p++)
            CHECK(strcmp(table_cell(&t, r, (size_t)qc), table_cell(&t, p, (size_t)qc)) != 0 ||
                      strcmp(table_cell(&t, r, (size_t)sc), table_cell(&t, p, (size_t)sc)) != 0,
                  "rows %zu and %zu are one quantizer and scheme (%s, %s): each pair once, by its best setting", p, r,
                  table_cell(&t, r, (size_t)qc), table_cell(&t, r, (size_t)sc));
    table_free(&t);

    /* held: --sync ring */
    sim_request ring = q;
    run_param_set(run_param_by_key("sync"), &ring, "ring", msg, sizeof msg);
    gq_table u = {0};
    e = sim_advise(&ring, &a, &u, why, sizeof why, &n, msg, sizeof msg);
    int rings = 0;
    for (size_t r = 1; e == GQ_OK && r < u.nrows; r++) rings += strcmp(table_cell(&u, r, (size_t)sc), "ring") == 0;
    /* 3 quantizers on the one scheme held: 3 pairs, a row each, all rings */
    CHECK(e == GQ_OK && n.screened == 9 && rings == 3 && u.nrows == 4 && n.finalists == want_ring,
          "--sync ring held: %zu screened (9), %zu finalists (%zu), %d of 3 rows rings", n.screened, n.finalists,
          want_ring, rings);
    table_free(&u);
    /* a framework holds what it sets: PyTorch DDP's rings of 25 MiB buckets; fp32-below and the codec held by base() */
    sim_request ddp = base();
    run_param_set(run_param_by_key("framework"), &ddp, "pytorch-ddp", msg, sizeof msg);
    run_param_set(run_param_by_key("engine"), &ddp, "analytic", msg, sizeof msg);
    advise_request all = {.gpus = 8, .top = 3};
    gq_table w = {0};
    e = sim_advise(&ddp, &all, &w, why, sizeof why, &n, msg, sizeof msg);
    int ddp_rows = 0;
    for (size_t r = 1; e == GQ_OK && r < w.nrows; r++)
        ddp_rows += strcmp(table_cell(&w, r, (size_t)sc), "ring") == 0 &&
                    strcmp(table_cell(&w, r, (size_t)table_column(&w, "fusion_bytes")), "26214400") == 0;
    CHECK(e == GQ_OK && n.screened == 13 && ddp_rows == 3,
          "--framework pytorch-ddp: 13 quantizers in one setting (%zu), every row a ring of 25 MiB (%d of 3)",
          n.screened, ddp_rows);
    table_free(&w);
    const char *bad[] = {"fp32", "qsgd:levels=4"};
    advise_request b = {.quants = bad, .nquants = 2, .gpus = 8, .top = 5};
    gq_table v = {0};
    CHECK(sim_advise(&q, &b, &v, why, sizeof why, NULL, msg, sizeof msg) == GQ_ERR_SPEC && strstr(msg, "levels"),
          "a bad spec is an error: %s", msg);
    table_free(&v);
    return check_summary();
}
