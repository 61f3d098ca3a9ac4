/* `gqsim simulate`, `gqsim speedup`, `gqsim report`, `gqsim validate`, and
 * `gqsim platforms ...`: the simulation of data-parallel training with
 * quantized gradients on GPU clusters, from one configuration to the report
 * that reproduces TernGrad's Figure 5 in kind. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "commands.h"
#include "gq_clock.h"
#include "gradgen.h"
#include "measured.h"
#include "sim.h"
#include "zoo.h"

#define MAX_QUANTS 16
#define MAX_GPU_COUNTS 32
#define DEFAULT_FUSION 67108864.0 /* 64 MiB, Horovod's default fusion threshold */
#define DEFAULT_CYCLE 0.005       /* 5 ms, Horovod's default cycle time */

#define SIM_USAGE                                                                                                      \
    "[--gpu NAME] [--batch B] [--sync ps|ps-sharded|ring|hierarchical|allgather] [--overlap on|off] "                  \
    "[--fusion BYTES] [--fusion-cycle SECONDS] [--engine simgrid|analytic] [--downlink auto|fp32|requant|terngrad] "   \
    "[--fp32-below N] "                                                                                                \
    "[--fp32-last] [--quant-cost-scale X] [--quant-rate ELEMENTS_PER_S] [--network-model LV08|CM02] "                  \
    "[--iterations N] [--exact-flows] [--gpu-images-per-s X] [--gpu-file FILE.csv] [--format table|csv]"

/* ---- quantizer cost calibration -------------------------------------------------------- */

/* Encode and decode ns per element of the real quantizer on this machine: a
 * Gaussian gradient of 2^20 elements, best of three; cached per spec for the
 * process (a report calibrates each quantizer once). */
static int calibrate(const qz_params *q, double *enc_ns, double *dec_ns)
{
    static struct {
        qz_params q;
        double enc, dec;
    } cache[32];
    static int ncache;
    for (int i = 0; i < ncache; i++)
        if (memcmp(&cache[i].q, q, sizeof *q) == 0) return *enc_ns = cache[i].enc, *dec_ns = cache[i].dec, 0;
    if (q->id == QZ_FP32) return *enc_ns = *dec_ns = 0, 0;
    size_t n = (size_t)1 << 20;
    float *x = gradgen("gaussian", &n, 1), *y = malloc(n * sizeof *y);
    size_t cap = qz_bound(q, n), wcap = qz_workspace_size(q, n);
    void *buf = malloc(cap), *work = malloc(wcap ? wcap : 1);
    double be = INFINITY, bd = INFINITY;
    for (int t = 0; x && y && buf && work && t < 3; t++) {
        double t0 = gq_now();
        size_t s = qz_encode(buf, cap, x, n, q, (uint64_t)t, work, wcap);
        double t1 = gq_now();
        if (gq_is_error(s)) break;
        qz_decode(y, n, buf, s);
        double t2 = gq_now();
        be = fmin(be, t1 - t0), bd = fmin(bd, t2 - t1);
    }
    free(x), free(y), free(buf), free(work);
    if (!isfinite(be)) {
        cli_error("calibration of the quantizer failed");
        return -1;
    }
    *enc_ns = 1e9 * be / (double)n, *dec_ns = 1e9 * bd / (double)n;
    if (ncache < 32) cache[ncache].q = *q, cache[ncache].enc = *enc_ns, cache[ncache++].dec = *dec_ns;
    return 0;
}

/* The quantizers' names for a plot's legend (specs already validated). */
typedef struct {
    char name[MAX_QUANTS][32];
    const char *ptr[MAX_QUANTS];
    size_t n;
} quant_labels;

static void quant_names(quant_labels *l, const char *const *specs, int n)
{
    l->n = 0;
    for (int k = 0; k < n && k < MAX_QUANTS; k++) {
        qz_params q;
        qz_parse_spec(specs[k], &q, NULL, 0);
        snprintf(l->name[k], sizeof l->name[k], "%s", qz_name(q.id));
        l->ptr[l->n++] = l->name[k];
    }
}

/* ---- options shared by the simulation commands ----------------------------------------- */

typedef struct {
    const char *model, *platform, *gpu, *gpu_file, *network_model;
    const char *quants[MAX_QUANTS];
    int nquants;
    uint64_t gpus[MAX_GPU_COUNTS];
    size_t ngpus;
    uint64_t batch, iterations;
    sync_kind sync;
    int overlap;
    double fusion, fusion_cycle, quant_scale, quant_rate, gpu_ips;
    xch_policy exchange;
    int exact_flows;
    engine_kind engine;
    cli_format fmt;
    const char *plot, *out, *measured;
} sim_opts;

static void opts_default(sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sync = SYNC_PS_SHARDED;
    o->overlap = 1;
    o->fusion = DEFAULT_FUSION;
    o->fusion_cycle = DEFAULT_CYCLE;
    o->quant_scale = 1;
    o->iterations = 1;
    o->engine = ENGINE_SIMGRID;
    o->fmt = FMT_TABLE;
}

/* What a command takes beyond the shared options. */
enum { TAKES_LISTS = 1, TAKES_PLOT = 2, TAKES_OUT = 4, TAKES_MEASURED = 8 };

static int parse_opts(int argc, char **argv, const char *cmd, sim_opts *o, int takes)
{
    const int multi = takes & TAKES_LISTS;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
#define OPT(name) (m == 0 && (m = cli_opt(argc, argv, &i, name, &v)) > 0)
        m = 0;
        if (OPT("--model"))
            o->model = v;
        else if (OPT("--platform")) {
            size_t len = strlen(v);
            cluster_spec c;
            char msg[512];
            if (!(len > 4 && strcmp(v + len - 4, ".xml") == 0) && cluster_parse(v, &c, msg, sizeof msg) != GQ_OK)
                return cli_error("--platform '%s': %s", v, msg), -1; /* a file's faults are data errors, later */
            o->platform = v;
        } else if (OPT("--gpu"))
            o->gpu = v;
        else if (OPT("--gpu-file"))
            o->gpu_file = v;
        else if (OPT("--network-model")) {
            if (strcmp(v, "LV08") != 0 && strcmp(v, "CM02") != 0)
                return cli_error("--network-model '%s' is not LV08 or CM02", v), -1;
            o->network_model = v;
        } else if ((takes & TAKES_PLOT) && OPT("--plot")) {
            if (cli_check_plot("--plot", v) != 0) return -1;
            o->plot = v;
        } else if ((takes & TAKES_OUT) && OPT("--out")) {
            if (cli_check_output_dir("--out", v) != 0) return -1;
            o->out = v;
        } else if ((takes & TAKES_MEASURED) && OPT("--measured"))
            o->measured = v;
        else if (OPT("--quant")) {
            if (o->nquants == MAX_QUANTS || (!multi && o->nquants == 1)) {
                cli_error("%s: too many --quant (at most %d)", cmd, multi ? MAX_QUANTS : 1);
                return -1;
            }
            qz_params q;
            char msg[256];
            if (qz_parse_spec(v, &q, msg, sizeof msg) != GQ_OK) return cli_error("--quant '%s': %s", v, msg), -1;
            o->quants[o->nquants++] = v;
        } else if (OPT("--gpus")) {
            if (cli_parse_u64_list("--gpus", v, o->gpus, MAX_GPU_COUNTS, &o->ngpus)) return -1;
            for (size_t k = 0; k < o->ngpus; k++)
                if (o->gpus[k] < 1 || o->gpus[k] > 65536) {
                    cli_error("--gpus: %llu is not 1..65536", (unsigned long long)o->gpus[k]);
                    return -1;
                }
            if (!multi && o->ngpus != 1) {
                cli_error("%s: --gpus takes one number (speedup takes a list)", cmd);
                return -1;
            }
        } else if (OPT("--batch")) {
            if (cli_parse_u64_in("--batch", v, 1, 1000000, &o->batch)) return -1;
        } else if (OPT("--iterations")) {
            if (cli_parse_u64_in("--iterations", v, 1, 100, &o->iterations)) return -1;
        } else if (OPT("--sync")) {
            if (sync_parse(v, &o->sync))
                return cli_error("--sync '%s' is not ps, ps-sharded, ring, hierarchical or allgather", v), -1;
        } else if (OPT("--downlink")) {
            if (downlink_parse(v, &o->exchange.downlink))
                return cli_error("--downlink '%s' is not auto, fp32, requant or terngrad", v), -1;
        } else if (OPT("--overlap")) {
            if (strcmp(v, "on") == 0)
                o->overlap = 1;
            else if (strcmp(v, "off") == 0)
                o->overlap = 0;
            else
                return cli_error("--overlap '%s' is not on or off", v), -1;
        } else if (OPT("--engine")) {
            if (sim_engine_parse(v, &o->engine)) return cli_error("--engine '%s' is not simgrid or analytic", v), -1;
        } else if (OPT("--fusion")) {
            if (cli_parse_double_in("--fusion", v, 0, 1e12, 0, &o->fusion)) return -1;
        } else if (OPT("--fusion-cycle")) {
            if (cli_parse_double_in("--fusion-cycle", v, 0, 10, 0, &o->fusion_cycle)) return -1;
        } else if (OPT("--fp32-below")) {
            if (cli_parse_double_in("--fp32-below", v, 0, 1e15, 0, &o->exchange.fp32_below)) return -1;
        } else if (OPT("--quant-cost-scale")) {
            if (cli_parse_double_in("--quant-cost-scale", v, 0, 1e6, 0, &o->quant_scale)) return -1;
        } else if (OPT("--quant-rate")) {
            if (cli_parse_double_in("--quant-rate", v, 0, 1e15, 1, &o->quant_rate)) return -1;
        } else if (OPT("--gpu-images-per-s")) {
            if (cli_parse_double_in("--gpu-images-per-s", v, 0, 1e6, 1, &o->gpu_ips)) return -1;
        } else if (OPT("--format")) {
            if (cli_parse_format(v, &o->fmt)) return -1;
        } else if (m == 0 && strcmp(argv[i], "--fp32-last") == 0) {
            o->exchange.fp32_last = 1;
            m = 1;
        } else if (m == 0 && strcmp(argv[i], "--exact-flows") == 0) {
            o->exact_flows = 1;
            m = 1;
        } else if (m == 0) {
            cli_error("%s: unknown option '%s' (see 'gqsim help %s')", cmd, argv[i], cmd);
            return -1;
        }
#undef OPT
        if (m < 0) return -1;
    }
    return 0;
}

/* Everything one simulation needs, resolved. */
typedef struct {
    gq_zoo zoo;
    const model_t *model;
    cluster_spec cluster;
    const gpu_spec *gpu;
    int batch;
    compute_estimate compute;
} sim_setup;

static int needs_model_platform(const sim_opts *o, const char *cmd)
{
    if (o->model && o->platform) return 0;
    cli_error("%s: needs --model and --platform (see 'gqsim help %s')", cmd, cmd);
    return -1;
}

static int setup(const sim_opts *o, const char *cmd, sim_setup *s)
{
    if (cli_zoo_load(&s->zoo, o->gpu_file) != 0) return -1;
    char msg[512];
    if (cluster_parse(o->platform, &s->cluster, msg, sizeof msg) != GQ_OK) {
        cli_error("--platform '%s': %s", o->platform, msg);
        return -1;
    }
    s->model = cli_zoo_model(&s->zoo, o->model);
    if (!s->model) return -1;
    s->gpu = cli_zoo_gpu(&s->zoo, o->gpu ? o->gpu : s->cluster.gpu);
    if (!s->gpu) return -1;
    s->batch = o->batch ? (int)o->batch : s->model->batch ? s->model->batch : 32;
    model_zoo view = zoo_view(&s->zoo);
    if (gpu_compute(&s->zoo.gpus, &view, s->model, s->gpu, s->batch, o->gpu_ips, NULL, &s->compute) != GQ_OK) {
        cli_error("%s: no compute profile for %s on %s", cmd, s->model->name, s->gpu->name);
        return -1;
    }
    return 0;
}

/* One run; fills a table row. @return 0 or -1 after printing. */
static int run_one(const sim_opts *o, sim_setup *s, const char *spec, int gpus, sim_result *r, double *speedup,
                   double *ips)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    char msg[512];
    if (qz_parse_spec(spec, &c.quant, msg, sizeof msg) != GQ_OK) {
        cli_error("--quant '%s': %s", spec, msg);
        return -1;
    }
    double enc = 0, dec = 0;
    if (o->quant_rate > 0 && c.quant.id != QZ_FP32)
        enc = dec = 1e9 / o->quant_rate;
    else if (calibrate(&c.quant, &enc, &dec) != 0)
        return -1;
    c.model = s->model;
    c.cluster = &s->cluster;
    c.gpus = gpus;
    c.sync = o->sync;
    c.exchange = o->exchange;
    c.overlap = o->overlap;
    c.fusion_bytes = o->fusion;
    c.fusion_cycle_s = o->fusion_cycle;
    c.fwd_s = s->compute.fwd_s;
    c.bwd_s = s->compute.bwd_s;
    c.encode_ns = enc * o->quant_scale;
    c.decode_ns = dec * o->quant_scale;
    c.engine = o->engine;
    c.network_model = o->network_model;
    c.iterations = (int)o->iterations;
    c.exact_flows = o->exact_flows;
    if (c.engine == ENGINE_SIMGRID && gpus > 1024 && gpus <= SIM_SIMGRID_MAX_GPUS)
        cli_progress(1, "simulating %d GPUs with SimGrid: about %.0f s and %.0f MB on a 2-core machine", gpus,
                     sim_simgrid_cost_s(gpus, c.iterations), sim_simgrid_cost_mb(gpus));
    if (sim_run(&c, r, msg, sizeof msg) != GQ_OK) {
        cli_error("simulate %s on %s with %d GPUs: %s", s->model->name, o->platform, gpus, msg);
        return -1;
    }
    *ips = (double)gpus * s->batch / r->iteration_s;
    *speedup = *ips / s->compute.images_per_s; /* one GPU, fp32, no communication */
    return 0;
}

static const char *const SIM_HEADER[] = {"model",
                                         "platform",
                                         "gpus",
                                         "quant",
                                         "sync",
                                         "iteration_s",
                                         "compute_s",
                                         "comm_exposed_s",
                                         "encode_s",
                                         "decode_s",
                                         "bytes_per_gpu_up",
                                         "bytes_per_gpu_down",
                                         "images_per_s",
                                         "speedup",
                                         "engine",
                                         "batch",
                                         "gpu",
                                         "overlap",
                                         "fusion_bytes",
                                         "compute_source",
                                         "network_model"};
#define SIM_COLS (sizeof SIM_HEADER / sizeof SIM_HEADER[0])

static void sim_row(cli_table *t, const sim_opts *o, const sim_setup *s, const char *spec, int gpus,
                    const sim_result *r, double ips, double speedup)
{
    char canon[256];
    qz_params q;
    qz_parse_spec(spec, &q, NULL, 0);
    qz_format_spec(&q, canon, sizeof canon);
    table_row(t,
              "%s\t%s\t%d\t%s\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.0f\t%.0f\t%.6g\t%.6g\t%s\t%d\t%s\t%s\t%.0f\t%s\t%s",
              s->model->name, o->platform, gpus, canon, sync_name(o->sync), r->iteration_s, r->compute_s,
              r->comm_exposed_s, r->encode_s, r->decode_s, r->bytes_up, r->bytes_down, ips, speedup,
              sim_engine_get(o->engine)->name, s->batch, s->gpu->name, o->overlap ? "on" : "off",
              o->fusion, compute_source_name(s->compute.source), r->network_model);
}

/* ---- simulate ------------------------------------------------------------------------------ */

static int cmd_simulate(int argc, char **argv)
{
    sim_opts o;
    opts_default(&o);
    if (parse_opts(argc, argv, "simulate", &o, 0) || needs_model_platform(&o, "simulate")) return EXIT_USAGE;
    if (o.ngpus == 0) {
        cli_error("simulate: needs --gpus N (see 'gqsim help simulate')");
        return EXIT_USAGE;
    }
    sim_setup s;
    memset(&s, 0, sizeof s);
    int rc = 1;
    if (setup(&o, "simulate", &s) == 0) {
        sim_result r;
        double sp, ips;
        const char *spec = o.nquants ? o.quants[0] : "fp32";
        if (run_one(&o, &s, spec, (int)o.gpus[0], &r, &sp, &ips) == 0) {
            cli_table t;
            table_init(&t, SIM_HEADER, SIM_COLS);
            sim_row(&t, &o, &s, spec, (int)o.gpus[0], &r, ips, sp);
            table_print(&t, o.fmt);
            table_free(&t);
            rc = 0;
        }
    }
    zoo_free(&s.zoo);
    return rc;
}

/* ---- speedup --------------------------------------------------------------------------------- */

static void default_gpus(sim_opts *o)
{
    if (o->ngpus) return;
    for (uint64_t g = 1; g <= 512; g *= 2) o->gpus[o->ngpus++] = g;
}

/* Runs every (quant, gpus) pair into t; appends plot data (one block per quant). */
static int sweep(const sim_opts *o, sim_setup *s, cli_table *t, char **dat, size_t *len, size_t *cap, double *ratio_at)
{
    const char *const fp32[] = {"fp32"};
    const char *const *quants = o->nquants ? o->quants : fp32;
    int nq = o->nquants ? o->nquants : 1;
    for (int k = 0; k < nq; k++) {
        if (dat) {
            if (*cap - *len < 1100 + 64 * (o->ngpus + 2))
                *dat = realloc(*dat, *cap = 2 * *cap + 1100 + 64 * (o->ngpus + 2));
            char comment[1024];
            snprintf(comment, sizeof comment, "%.63s %.800s %.150s", s->model->name, o->platform, quants[k]);
            cli_one_line(comment, sizeof comment, comment); /* a path may hold a newline: keep the block */
            *len += (size_t)snprintf(*dat + *len, *cap - *len, "# %s\n", comment);
        }
        for (size_t g = 0; g < o->ngpus; g++) {
            cli_progress(0, "%s %s %s: %llu GPUs", s->model->name, o->platform, quants[k],
                         (unsigned long long)o->gpus[g]);
            sim_result r;
            double sp, ips;
            if (run_one(o, s, quants[k], (int)o->gpus[g], &r, &sp, &ips) != 0) return -1;
            sim_row(t, o, s, quants[k], (int)o->gpus[g], &r, ips, sp);
            if (dat)
                *len += (size_t)snprintf(*dat + *len, *cap - *len, "%llu %.6g %.6g\n", (unsigned long long)o->gpus[g],
                                         ips, sp);
            if (ratio_at) ratio_at[k * MAX_GPU_COUNTS + (int)g] = sp;
        }
        if (dat) *len += (size_t)snprintf(*dat + *len, *cap - *len, "\n\n");
    }
    return 0;
}

static int cmd_speedup(int argc, char **argv)
{
    sim_opts o;
    opts_default(&o);
    if (parse_opts(argc, argv, "speedup", &o, TAKES_LISTS | TAKES_PLOT) || needs_model_platform(&o, "speedup"))
        return EXIT_USAGE;
    default_gpus(&o);
    sim_setup s;
    memset(&s, 0, sizeof s);
    int rc = 1;
    if (setup(&o, "speedup", &s) == 0) {
        cli_table t;
        table_init(&t, SIM_HEADER, SIM_COLS);
        size_t len = 0, cap = 4096;
        char *dat = malloc(cap);
        dat[0] = '\0';
        if (sweep(&o, &s, &t, &dat, &len, &cap, NULL) == 0) {
            cli_progress(1, "speedup: done");
            table_print(&t, o.fmt);
            rc = 0;
            if (o.plot) {
                static const char *const FP32_ONLY[] = {"fp32"};
                quant_labels names;
                quant_names(&names, o.nquants ? o.quants : FP32_ONLY, o.nquants ? o.nquants : 1);
                char title[1024];
                snprintf(title, sizeof title, "%s on %s", s.model->name, o.platform);
                gp_vars vars = {0};
                gpv_string(&vars, "ptitle", title);
                gpv_array(&vars, "quants", names.ptr, names.n);
                if (cli_plot("speedup", o.plot, dat, &vars) != 0) rc = 1;
                gpv_free(&vars);
            }
        }
        free(dat);
        table_free(&t);
    }
    zoo_free(&s.zoo);
    return rc;
}

/* ---- report ----------------------------------------------------------------------------------- */

static int cmd_report(int argc, char **argv)
{
    sim_opts o;
    opts_default(&o);
    if (parse_opts(argc, argv, "report", &o, TAKES_LISTS | TAKES_OUT)) return EXIT_USAGE;
    default_gpus(&o);
    const char *dir = o.out ? o.out : "gqsim-report";
    if (!o.out && cli_check_output_dir("--out", dir) != 0) return EXIT_USAGE;
    if (cli_stage_dir(dir) != 0) return 1; /* removed again if the report fails */
    static const char *const PLATFORMS[] = {"terngrad-ethernet", "terngrad-infiniband"};
    static const char *const MODELS[] = {"alexnet", "googlenet", "vgg-a"};
    /* fp32 and ~2-bit schemes: TernGrad (2 bits), QSGD-3 with the max norm (2 bits), ORQ-3 (2.2 bits) */
    static const char *const QUANTS[] = {"fp32", "terngrad", "qsgd:levels=3,norm=max,bucket=512",
                                         "orq:levels=3,bucket=512"};
    if (!o.nquants)
        for (int k = 0; k < 4; k++) o.quants[o.nquants++] = QUANTS[k];
    cli_table t;
    table_init(&t, SIM_HEADER, SIM_COLS);
    int rc = 0;
    double sp[2][3][MAX_QUANTS * MAX_GPU_COUNTS];
    for (int pi = 0; pi < 2 && rc == 0; pi++) {
        size_t len = 0, cap = 8192;
        char *dat = malloc(cap);
        dat[0] = '\0';
        for (int mi = 0; mi < 3 && rc == 0; mi++) {
            sim_opts oo = o;
            oo.platform = PLATFORMS[pi];
            oo.model = MODELS[mi];
            sim_setup s;
            memset(&s, 0, sizeof s);
            if (setup(&oo, "report", &s) != 0 || sweep(&oo, &s, &t, &dat, &len, &cap, sp[pi][mi]) != 0) rc = 1;
            zoo_free(&s.zoo);
        }
        if (rc == 0) {
            char png[4200];
            quant_labels names;
            quant_names(&names, o.quants, o.nquants);
            snprintf(png, sizeof png, "%s/speedup-%s.png", dir, PLATFORMS[pi]);
            gp_vars vars = {0};
            gpv_string(&vars, "ptitle", PLATFORMS[pi]);
            gpv_array(&vars, "quants", names.ptr, names.n);
            gpv_array(&vars, "models", MODELS, 3);
            if (cli_plot("report_cluster", png, dat, &vars) != 0) rc = 1;
            gpv_free(&vars);
        }
        free(dat);
    }
    cli_progress(1, "report: done");
    if (rc == 0) { /* TernGrad / fp32 speedup ratio per model, both clusters */
        size_t len = 0, cap = 8192;
        char *dat = malloc(cap);
        for (int pi = 0; pi < 2; pi++)
            for (int mi = 0; mi < 3; mi++) {
                len += (size_t)snprintf(dat + len, cap - len, "# %s %s\n", PLATFORMS[pi], MODELS[mi]);
                for (size_t g = 0; g < o.ngpus; g++)
                    len += (size_t)snprintf(dat + len, cap - len, "%llu %.6g\n", (unsigned long long)o.gpus[g],
                                            sp[pi][mi][1 * MAX_GPU_COUNTS + (int)g] / sp[pi][mi][g]);
                len += (size_t)snprintf(dat + len, cap - len, "\n\n");
            }
        char png[4200];
        snprintf(png, sizeof png, "%s/terngrad-gain.png", dir);
        gp_vars vars = {0};
        gpv_array(&vars, "models", MODELS, 3);
        if (cli_plot("report_gain", png, dat, &vars) != 0) rc = 1;
        gpv_free(&vars);
        free(dat);
    }
    if (rc == 0) {
        char csv[1024];
        snprintf(csv, sizeof csv, "%s/report.csv", dir);
        if (table_write_csv(&t, csv) != 0) rc = 1;
    }
    if (rc == 0) { /* the short table: speedup at the largest GPU count */
        size_t g = o.ngpus - 1;
        printf("Speedup over one GPU (fp32) at %llu GPUs, %s sync, %s engine:\n\n", (unsigned long long)o.gpus[g],
               sync_name(o.sync), o.engine == ENGINE_SIMGRID ? "SimGrid" : "analytic");
        static const char *const H[] = {"platform", "model", "fp32", "terngrad", "qsgd-3", "orq-3", "terngrad/fp32"};
        cli_table st;
        table_init(&st, H, 7);
        for (int pi = 0; pi < 2; pi++)
            for (int mi = 0; mi < 3; mi++) {
                const double *v = sp[pi][mi];
                table_row(&st, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f", PLATFORMS[pi], MODELS[mi], v[g],
                          v[MAX_GPU_COUNTS + g], o.nquants > 2 ? v[2 * MAX_GPU_COUNTS + g] : 0,
                          o.nquants > 3 ? v[3 * MAX_GPU_COUNTS + g] : 0, v[MAX_GPU_COUNTS + g] / v[g]);
            }
        table_print(&st, FMT_TABLE);
        table_free(&st);
        printf("\nWrote %s/report.csv, %s/speedup-terngrad-ethernet.png, %s/speedup-terngrad-infiniband.png and "
               "%s/terngrad-gain.png (each figure with its .gp script and .dat data).\n",
               dir, dir, dir, dir);
    }
    table_free(&t);
    return rc;
}

/* ---- validate -------------------------------------------------------------------------------- */

/* A measured row's platform: the column `platform` (any spec), else a
 * machine name: "DGX-1" is dgx1, others a one-node cluster of the row's GPU
 * on NVLink or PCIe by the `interconnect` column. */
static void row_platform(char *out, size_t cap, const char *platform, const char *machine, const char *gpu,
                         const char *interconnect, int gpus_per_node)
{
    if (platform && *platform)
        snprintf(out, cap, "%s", platform);
    else if (machine && strcmp(machine, "DGX-1") == 0)
        snprintf(out, cap, "dgx1");
    else
        snprintf(out, cap, "cluster:gpus-per-node=%d,gpu=%s,intra=%s,inter=10gbe", gpus_per_node, gpu,
                 interconnect && strstr(interconnect, "NVLink") ? "nvlink1" : "pcie3");
}

static int row_sync(const char *s, sync_kind *k)
{
    if (!s || !*s) return *k = SYNC_PS_SHARDED, 0;
    if (sync_parse(s, k) == 0) return 0;
    if (strncmp(s, "parameter_server", 16) == 0) return *k = SYNC_PS, 0;
    if (strncmp(s, "replicated", 10) == 0) return *k = SYNC_RING, 0;
    return -1;
}

static int cmd_validate(int argc, char **argv)
{
    sim_opts o;
    opts_default(&o);
    if (parse_opts(argc, argv, "validate", &o, TAKES_PLOT | TAKES_MEASURED)) return EXIT_USAGE;
    if (!o.measured) {
        cli_error("validate: needs --measured FILE.csv (see 'gqsim help validate')");
        return EXIT_USAGE;
    }
    unsigned char *text;
    size_t size;
    if (cli_read_file(o.measured, &text, &size) != 0) return 1;
    measured_set ms;
    char msg[1024];
    gq_err pe = measured_parse((const char *)text, size, o.measured, &ms, msg, sizeof msg);
    free(text);
    if (pe != GQ_OK) {
        cli_error("%s", pe == GQ_ERR_NOMEM ? "out of memory" : msg);
        return 1;
    }
    static const char *const H[] = {"model",
                                    "platform",
                                    "gpu",
                                    "batch",
                                    "sync",
                                    "quant",
                                    "gpus",
                                    "measured_images_per_s",
                                    "predicted_images_per_s",
                                    "error_pct",
                                    "compute_source"};
    cli_table t;
    table_init(&t, H, 11);
    double *ape = calloc(ms.n, sizeof *ape);
    int n = 0, rc = 0;
    size_t dlen = 0, dcap = 4096, nlabels = 0;
    char *dat = malloc(dcap), prev_key[1024] = "";
    char(*labels)[160] = calloc(ms.n, sizeof *labels);
    const char **label_ptr = calloc(ms.n, sizeof *label_ptr);
    if (!ape || !dat || !labels || !label_ptr) {
        cli_error("out of memory");
        rc = 1;
    }
    if (dat) dat[0] = '\0';
    char where[4200];
    for (size_t i = 0; i < ms.n && rc == 0; i++) {
        const measured_row *row = &ms.rows[i];
        snprintf(where, sizeof where, "%s:%d", o.measured, row->line);
        cli_error_context(where); /* every message about this row names it */
        sync_kind sk;
        if (row_sync(row->sync, &sk)) {
            cli_error("sync '%s' is not ps, ps-sharded, ring, hierarchical, allgather, parameter_server(...) or "
                      "replicated(...)",
                      row->sync);
            rc = 1;
            break;
        }
        const char *quant = row->quant[0] ? row->quant : "fp32";
        qz_params q;
        if (qz_parse_spec(quant, &q, msg, sizeof msg) != GQ_OK) {
            cli_error("quant '%s': %s", quant, msg);
            rc = 1;
            break;
        }
        char platform[1024];
        row_platform(platform, sizeof platform, row->platform, row->machine, row->gpu, row->interconnect, 8);
        sim_opts oo = o;
        oo.model = row->model;
        oo.platform = platform;
        oo.gpu = row->gpu;
        oo.batch = row->batch;
        oo.sync = sk;
        sim_setup s;
        memset(&s, 0, sizeof s);
        sim_result r;
        double sp, ips;
        if (setup(&oo, "validate", &s) != 0 || run_one(&oo, &s, quant, (int)row->gpus, &r, &sp, &ips) != 0) {
            zoo_free(&s.zoo);
            rc = 1;
            break;
        }
        double err = 100 * (ips - row->images_per_s) / row->images_per_s;
        ape[n++] = fabs(err);
        table_row(&t, "%s\t%s\t%s\t%llu\t%s\t%s\t%llu\t%.4g\t%.4g\t%+.1f\t%s", s.model->name, platform, s.gpu->name,
                  (unsigned long long)row->batch, sync_name(sk), quant, (unsigned long long)row->gpus,
                  row->images_per_s, ips, err, compute_source_name(s.compute.source));
        char key[1024];
        snprintf(key, sizeof key, "%.63s %.900s %s", s.model->name, platform, sync_name(sk));
        if (dcap - dlen < 2400) {
            char *grown = realloc(dat, dcap *= 2);
            if (!grown) abort();
            dat = grown;
        }
        if (strcmp(key, prev_key) != 0) {
            char comment[1024];
            cli_one_line(comment, sizeof comment, key);
            dlen += (size_t)snprintf(dat + dlen, dcap - dlen, "%s# %s\n", prev_key[0] ? "\n\n" : "", comment);
            strcpy(prev_key, key);
            snprintf(labels[nlabels], sizeof labels[0], "%.40s@%.80s/%s", s.model->name,
                     strncmp(platform, "cluster:", 8) == 0 ? s.gpu->name : platform, sync_name(sk));
            label_ptr[nlabels] = labels[nlabels];
            nlabels++;
        }
        dlen += (size_t)snprintf(dat + dlen, dcap - dlen, "%llu %.6g %.6g\n", (unsigned long long)row->gpus,
                                 row->images_per_s, ips);
        zoo_free(&s.zoo);
    }
    cli_error_context(NULL);
    if (rc == 0) {
        table_print(&t, o.fmt);
        for (int a = 1; a < n; a++)
            for (int b = a; b > 0 && ape[b - 1] > ape[b]; b--) {
                double x = ape[b];
                ape[b] = ape[b - 1];
                ape[b - 1] = x;
            }
        double mean = 0;
        for (int k = 0; k < n; k++) mean += ape[k];
        mean /= n;
        double median = n % 2 ? ape[n / 2] : 0.5 * (ape[n / 2 - 1] + ape[n / 2]);
        if (o.fmt == FMT_TABLE)
            printf("\n%d rows: median absolute error %.1f%%, mean %.1f%%\n", n, median, mean);
        else
            fprintf(stderr, "%d rows: median absolute error %.1f%%, mean %.1f%%\n", n, median, mean);
        if (o.plot) {
            gp_vars vars = {0};
            gpv_array(&vars, "labels", label_ptr, nlabels);
            if (cli_plot("validate", o.plot, dat, &vars) != 0) rc = 1;
            gpv_free(&vars);
        }
    }
    free(ape);
    free(dat);
    free(labels);
    free(label_ptr);
    measured_free(&ms);
    table_free(&t);
    return rc;
}

int cmd_validate_entry(int argc, char **argv) { return cmd_validate(argc, argv); }
void help_validate(void)
{
    printf("usage: gqsim validate --measured FILE.csv [--plot out.png] " SIM_USAGE "\n\n"
           "Each row of FILE.csv is a measured training throughput with its configuration: columns model, gpu,\n"
           "batch (or batch_per_gpu), gpus, images_per_s, and platform (or machine and interconnect), with\n"
           "optional sync (ps, ps-sharded, ring, hierarchical, allgather; parameter_server(...) is ps,\n"
           "replicated(...) is ring) and quant (default fp32). Fields holding commas (a quantizer spec, a\n"
           "cluster: platform) are quoted as CSV quotes them. gpus is 1..65536, batch 1..1000000. Prints\n"
           "prediction, measurement and error per row, then the median and mean absolute percentage error.\n"
           "Example: gqsim validate --measured data/single_node_scaling.csv (published single-node runs).\n");
}

/* ---- platforms ----------------------------------------------------------------------------- */

/* --format, the only option of platforms list and show. */
static int format_only(int argc, char **argv, const char *cmd, cli_format *fmt)
{
    *fmt = FMT_TABLE;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m = cli_opt(argc, argv, &i, "--format", &v);
        if (m < 0 || (m > 0 && cli_parse_format(v, fmt) != 0)) return -1;
        if (m == 0) return cli_error("%s: unknown option '%s' (see 'gqsim help platforms')", cmd, argv[i]), -1;
    }
    return 0;
}

static int platforms_list(int argc, char **argv)
{
    sim_opts o;
    opts_default(&o);
    if (format_only(argc, argv, "platforms list", &o.fmt)) return EXIT_USAGE;
    static const char *const H[] = {"platform", "gpu", "gpus_per_node", "intra", "inter", "nics", "spec", "source"};
    cli_table t;
    table_init(&t, H, 8);
    for (size_t i = 0; i < cluster_builtin_count(); i++) {
        const cluster_spec *c = cluster_builtin(i);
        char spec[256];
        cluster_format(c, spec, sizeof spec);
        table_row(&t, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s", c->name, c->gpu, c->gpus_per_node, c->intra->name,
                  c->inter->name, c->nics, spec, c->source);
    }
    table_print(&t, o.fmt);
    table_free(&t);
    return 0;
}

static int platform_arg(int argc, char **argv, const char *cmd, cluster_spec *c)
{
    if (argc < 2 || argv[1][0] == '-') {
        cli_error("%s: which platform? (a built-in name or cluster:...)", cmd);
        return -1;
    }
    char msg[512];
    if (cluster_parse(argv[1], c, msg, sizeof msg) != GQ_OK) {
        cli_error("%s", msg);
        return -1;
    }
    return 0;
}

static int platforms_show(int argc, char **argv)
{
    cluster_spec c;
    if (platform_arg(argc, argv, "platforms show", &c)) return EXIT_USAGE;
    sim_opts o;
    opts_default(&o);
    if (format_only(argc - 1, argv + 1, "platforms show", &o.fmt)) return EXIT_USAGE;
    static const char *const H[] = {"link", "kind", "bandwidth_GBps", "latency_us", "protocol", "source"};
    cli_table t;
    table_init(&t, H, 6);
    table_row(&t, "gpu-to-node\t%s\t%.4g\t%.3g\t-\t%s", c.intra->name, c.intra->bandwidth / 1e9, c.intra->latency * 1e6,
              c.intra->source);
    table_row(&t, "node-nic\t%d x %s\t%.4g\t%.3g\t%s\t%s", c.nics, c.inter->name, cluster_nic_bandwidth(&c) / 1e9,
              c.inter->latency * 1e6, c.inter->rdma ? "RDMA (CM02)" : "TCP (LV08)", c.inter->source);
    if (c.topo == TOPO_FAT_TREE)
        table_row(&t, "leaf-uplink\t%d nodes / %g\t%.4g\t%.3g\t-\tfat-tree", c.leaf_nodes, c.oversub,
                  cluster_nic_bandwidth(&c) * c.leaf_nodes / c.oversub / 1e9, c.inter->latency * 1e6);
    if (o.fmt == FMT_TABLE) {
        char spec[256];
        cluster_format(&c, spec, sizeof spec);
        printf("%s: %d x %s per node\n%s\n%s\n\n", c.name, c.gpus_per_node, c.gpu, spec, c.source);
    }
    table_print(&t, o.fmt);
    table_free(&t);
    return 0;
}

static int platforms_xml(int argc, char **argv)
{
    cluster_spec c;
    if (platform_arg(argc, argv, "platforms xml", &c)) return EXIT_USAGE;
    uint64_t nodes = 0;
    for (int i = 2; i < argc; i++) {
        const char *v;
        int m = cli_opt(argc, argv, &i, "--nodes", &v);
        if (m < 0) return EXIT_USAGE;
        if (m == 0) {
            cli_error("platforms xml: unknown option '%s'", argv[i]);
            return EXIT_USAGE;
        }
        if (cli_parse_u64_in("--nodes", v, 1, 65536, &nodes)) return EXIT_USAGE;
    }
    if (!nodes) nodes = c.nodes ? (uint64_t)c.nodes : 1;
    char *xml = cluster_xml(&c, (int)nodes);
    if (!xml) return cli_error("out of memory"), 1;
    fputs(xml, stdout);
    free(xml);
    return 0;
}

const cli_command PLATFORM_CMDS[] = {
    {"list", platforms_list, "[--format table|csv]", "built-in clusters", NULL},
    {"show", platforms_show, "NAME|cluster:... [--format table|csv]", "a cluster's links", NULL},
    {"xml", platforms_xml, "NAME|cluster:... [--nodes N]", "the SimGrid platform XML", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

int cmd_platforms(int argc, char **argv) { return cli_dispatch("platforms", PLATFORM_CMDS, argc, argv); }
void help_platforms(void) { cli_print_usage(stdout, "platforms", PLATFORM_CMDS); }

static const char *const SIM_DEFAULTS =
    "--model: a built-in name ('gqsim models list') or a path to a .model file (docs/model-format.md).\n"
    "--platform: a built-in name ('gqsim platforms list'), a spec cluster:gpus-per-node=G,gpu=NAME,intra=...,\n"
    "inter=...[,nics=K,topology=star|fat-tree,oversub=X,leaf=L,nodes=N], or a SimGrid XML file (a path ending in\n"
    ".xml; 'gqsim platforms xml NAME > my.xml' writes one to edit; docs/simulation.md#your-own-xml).\n"
    "The SimGrid engine takes at most 16384 GPUs (about 80 s there); --engine analytic has no limit.\n\n"
    "Defaults: --sync ps-sharded (GPUs of a node reduce locally, then every node holds one shard of the\n"
    "parameter server, as TernGrad's model and TensorFlow shard it), --overlap on (wait-free backprop),\n"
    "--fusion 67108864 --fusion-cycle 0.005 (Horovod's defaults: tensors ready within one 5 ms cycle are fused\n"
    "into buckets of up to 64 MiB; --fusion 0: one bucket per tensor), --engine simgrid, --downlink auto (fp32 for\n"
    "fp32, TernGrad's summed levels for terngrad, re-quantized otherwise), --batch the model's customary\n"
    "per-GPU batch, --gpu the platform's GPU. Quantizer cost: measured on this machine at startup.\n";

int cmd_simulate_entry(int argc, char **argv) { return cmd_simulate(argc, argv); }
int cmd_speedup_entry(int argc, char **argv) { return cmd_speedup(argc, argv); }
int cmd_report_entry(int argc, char **argv) { return cmd_report(argc, argv); }

void help_simulate(void)
{
    printf("usage: gqsim simulate --model M --platform P --gpus N [--quant SPEC] " SIM_USAGE "\n\n%s", SIM_DEFAULTS);
}
void help_speedup(void)
{
    printf("usage: gqsim speedup --model M --platform P [--quant SPEC]... [--gpus 1,2,4,...,512] [--plot "
           "out.png] " SIM_USAGE "\n\n%s",
           SIM_DEFAULTS);
}
void help_report(void)
{
    printf("usage: gqsim report [--out DIR] [--gpus LIST] [--quant SPEC]... " SIM_USAGE "\n\n"
           "Both TernGrad Figure-5 clusters, AlexNet (batch 128), GoogLeNet (64), VGG-A (32), fp32 vs TernGrad vs\n"
           "QSGD-3 vs ORQ-3, 1..512 GPUs: DIR/report.csv, a figure per cluster, the TernGrad/fp32 gain figure,\n"
           "and a table on stdout. DIR defaults to gqsim-report.\n\n%s",
           SIM_DEFAULTS);
}
