/* Scenarios: what a user asks the simulator, from names to tables. A
 * request names a model, a platform and options; a scenario is that request
 * resolved once (the zoo, the cluster, the GPU's compute time); a run is one
 * quantizer at one GPU count; a sweep, the report and the validation are
 * runs over lists. Every function returns tables of named columns (and one
 * line in msg on error); nothing here prints, so the CLI only parses,
 * calls, prints and plots, and a test can call exactly what a user runs. */
#ifndef GQ_SCENARIO_H
#define GQ_SCENARIO_H

#include "codec_cost.h"
#include "gq_table.h"
#include "measured.h"
#include "sim.h"
#include "tensor_plan.h"
#include "user_tables.h"
#include "zoo.h"

/* What a user asks for, by name. sim_request_defaults() fills the defaults. */
typedef struct sim_request {
    const char *model;        /* a built-in name or a .model path */
    const char *platform;     /* a built-in name, a cluster: spec, or an .xml path */
    const char *gpu;          /* NULL: the platform's GPU */
    const char *gpu_file;     /* extra GPU rows, or NULL */
    int batch;                /* per GPU; 0: the model's customary batch (else 32) */
    sim_run_params run;       /* the run parameters (sim.h), as run_param_set left them */
    unsigned long long given; /* which run parameters were set (bit k: RUN_PARAMS[k]), by run_param_set */
    /* what one GPU costs an hour in the user's currency (--gpu-hour-cost); 0: the platform's node-hour-cost=, if
     * any. A price, not a physical quantity: it prices rows, it never changes a time. */
    double gpu_hour_cost;
    gq_zoo *zoo; /* a zoo loaded with gpu_file's rows, shared by the scenarios opened from this request; NULL: each
                  * scenario loads its own (sim_request_share_zoo) */
} sim_request;

/* The run parameters' defaults (run_params.c): ps-sharded, overlap on,
 * Horovod's fusion (64 MiB, 5 ms cycles), SimGrid, one iteration, the codec
 * on the GPU at its profile's cost, GPUs as unequal as published
 * (SIM_GPU_SPREAD_CV). */
void sim_request_defaults(sim_request *q);

/* For a caller about to open many scenarios from one request (advise, report, validate, a sweep's grid): *shared is
 * *q with one zoo, loaded here into *zoo, that all of them use instead of parsing every model each. Where q already
 * shares one, or the zoo does not load (each scenario then reports why, as it would have), *shared is *q. zoo_free(zoo)
 * after the last scenario is closed. */
void sim_request_share_zoo(const sim_request *q, sim_request *shared, gq_zoo *zoo);

/* How unequal identical GPUs are when a run names no spread: Sinha et al., "Not All GPUs Are Created Equal" (SC22;
 * arXiv 2208.11035v3) measured an 8% average performance variation across the GPUs of five clusters, variation
 * being (Q3 + 1.5 IQR - (Q1 - 1.5 IQR)) / median = 4 IQR / median as the authors' artifact computes it; a normal's IQR
 * is 2 x 0.6745 sigma, so the coefficient of variation is 0.08 / (8 x 0.6745) = 0.0148 (data/gpu_variability.csv). Host
 * CPUs (gpu=cpu: the lab's measured rows, which carry their slowest rank) default to 0. */
#define SIM_GPU_SPREAD_CV (0.08 / (8 * 0.6744897501960817))

/* Stragglers: a synchronous step waits for the slowest of `gpus` GPUs whose compute times are Gaussian with
 * coefficient of variation cv; its expected time over the mean is 1 + cv x E[max of `gpus` standard normals]
 * (the order statistic, integrated numerically: 1/sqrt(pi) for 2, 3/(2 sqrt(pi)) for 3). 1 for one GPU or cv 0. */
double sim_slowest_of(int gpus, double cv);

/* A request resolved. */
typedef struct {
    sim_request req;
    gq_zoo *zoo; /* the request's shared zoo, else own_zoo */
    gq_zoo own_zoo;
    const model_t *model;
    cluster_spec cluster;
    const gpu_spec *gpu;
    int batch;
    compute_estimate compute;
    codec_profile profile; /* the --codec-costs file, if any */
    /* the servers' messages where the platform says rpc= (ps, ps-sharded): their cost at each end, and its source as
     * codec_source's suffix ("; grpc ... (data/rpc_costs.csv)"); 0 and "" otherwise (their copy rate is
     * cluster.rpc_copy_rate) */
    double rpc_send_s, rpc_recv_s;
    char rpc_source[192];
    /* what the scenario took in place of a default the request's engine cannot honour, in words ("" for nothing):
     * the smpi engine's nearest (smpi_defaults), for the CLI to say */
    char note[256];
} sim_scenario;

/* Resolves a request; on failure s is closed (scenario_close is safe). */
gq_err scenario_open(sim_scenario *s, const sim_request *q, char *msg, size_t cap);
void scenario_close(sim_scenario *s);

/* One run's outcome. */
typedef struct {
    sim_result r;
    char quant[256]; /* the canonical spec */
    int gpus;
    double images_per_s;
    double speedup; /* over one GPU in fp32 without communication */
    /* what the run's GPUs cost an hour (sim_cost_per_hour), and a million samples at its throughput; NaN where the
     * request and the platform give no price */
    double cost_per_hour, cost_per_million_samples;
    char codec_source[704];
} sim_outcome;

/* What `gpus` GPUs of the scenario cost an hour: --gpu-hour-cost x gpus, or node-hour-cost= x the nodes they occupy
 * (whole nodes: a node is rented, or bought, whole); NaN where neither is given. */
double sim_cost_per_hour(const sim_scenario *s, int gpus);
/* A million samples' cost at samples_per_s, and `seconds`' cost, at cost_per_hour (NaN where it is NaN). */
double sim_cost_per_million(double cost_per_hour, double samples_per_s);
double sim_cost_of_seconds(double cost_per_hour, double seconds);

/* Runs quantizer `quant` (a spec) on `gpus` GPUs. */
gq_err scenario_run(sim_scenario *s, const char *quant, int gpus, sim_outcome *o, char *msg, size_t cap);
/* The same with a per-tensor plan (quant unread, NULL allowed): each tensor with its codec at that codec's costs;
 * the outcome's quant is tensor_plan_describe's. Refused (GQ_ERR_USAGE) with --engine smpi (the trainer sends
 * every tensor alike) and with servers on the host CPU; a plan for another model, GQ_ERR_PARAM. NULL plan:
 * scenario_run. */
gq_err scenario_run_plan(sim_scenario *s, const char *quant, const tensor_plan *plan, int gpus, sim_outcome *o,
                         char *msg, size_t cap);
/* Whether `engine` would run quant on gpus GPUs of this scenario (the configuration built, the engine's refusals
 * asked, nothing simulated): GQ_OK, or its refusal in msg. For a search that screens with one engine what another
 * runs in the end (advise). */
gq_err scenario_check(sim_scenario *s, const char *quant, int gpus, engine_kind engine, char *msg, size_t cap);

/* The columns of a run's row, and the row. */
extern const char *const SIM_COLUMNS[];
extern const size_t SIM_NCOLUMNS;
enum { EF_AUTO, EF_ON, EF_OFF }; /* sim_run_params.ef, in the order of the run parameter's names */

/* model, platform, gpus, quant, sync: what names a row */
#define SIM_KEY_COLUMNS 5
void scenario_row(gq_table *t, const sim_scenario *s, const sim_outcome *o);

/* Told before each run of a sweep, report or validation (for a progress line). */
typedef void (*sim_progress)(void *ctx, const char *what);

/* Every (quantizer, GPU count) pair, quantizer-major, one row each into rows
 * (initialised with SIM_COLUMNS by the caller or here if empty). */
gq_err scenario_sweep(sim_scenario *s, const char *const *quants, int nquants, const int *gpus, int ngpus,
                      gq_table *rows, sim_progress progress, void *ctx, char *msg, size_t cap);

/* The report: TernGrad's Figure 5 in kind. Both Figure-5 clusters x AlexNet,
 * GoogLeNet and VGG-A (each at its customary batch) x `quants` x `gpus`,
 * platform-major, then model, then quantizer, one row each into rows
 * (SIM_COLUMNS); summary gets one row per (platform, model): the speedup of
 * each quantizer at the largest GPU count (columns platform, model, then one
 * per quantizer, named by its canonical spec, in the order given), and, with
 * two quantizers or more, each one's ratio to the first
 * (columns "QUANT/FIRST"). `base` carries the options; the platforms and
 * models are the report's (REPORT_PLATFORMS and REPORT_MODELS by default,
 * or the user's own), rows running platform, model, quantizer, GPU count. */
extern const char *const REPORT_PLATFORMS[2];
extern const char *const REPORT_MODELS[3];
gq_err sim_report(const sim_request *base, const char *const *platforms, int nplatforms, const char *const *models,
                  int nmodels, const char *const *quants, int nquants, const int *gpus, int ngpus, gq_table *rows,
                  gq_table *summary, sim_progress progress, void *ctx, char *msg, size_t cap);

/* Predicts every measured row (file names them in errors, as FILE:LINE) with
 * `base`'s options: rows gets columns model, platform, gpu, batch, sync,
 * quant, gpus, measured_images_per_s, predicted_images_per_s, error_pct,
 * compute_source; the median and mean absolute percentage errors of the rows on more than one GPU (one GPU's
 * row is the throughput's own measurement), their number in scored_rows (if not NULL); NaN where none is. */
extern const char *const VALIDATE_COLUMNS[];
extern const size_t VALIDATE_NCOLUMNS;
gq_err sim_validate(const measured_set *ms, const char *file, const sim_request *base, gq_table *rows,
                    double *median_pct, double *mean_pct, size_t *scored_rows, sim_progress progress, void *ctx,
                    char *msg, size_t cap);

/* Told before each run with the phase's name, how many of its runs are done and how many it has. */
typedef void (*sim_progress_n)(void *ctx, const char *phase, size_t done, size_t total);

/* `gqsim sweep`: the rows of a grid (measured_parse_grid) that `owner` gives `rank` (owner NULL: every row), each
 * simulated with its columns over base's options as validate would; one row each appended to rows (initialised here
 * if empty): the row's line in `file`, then SIM_COLUMNS. Stops at the first of them that fails, "FILE:LINE: why" in
 * msg and its index in *failed (if not NULL). */
gq_err sim_grid(const measured_set *grid, const char *file, const sim_request *base, const int *owner, int rank,
                gq_table *rows, size_t *failed, sim_progress_n progress, void *ctx, char *msg, size_t cap);
/* A row's estimated cost in seconds of this machine (SimGrid's own estimate for its scheme and GPU count; a
 * constant for the analytic engine), and the rows spread over `ranks` by those costs (sim_spread): owner[i] the rank
 * that runs row i. @return 0, or -1 out of memory. */
double sim_grid_cost_s(const measured_row *row, const sim_request *base);
int sim_grid_owners(const measured_set *grid, const sim_request *base, int ranks, int *owner);

/* Work spread over ranks (sim/spread.c), the one way sweep's rows and advise's finalists are: items heaviest first
 * by cost (ties in index order), each to the least loaded rank so far (ties to the lowest): owner[i] in 0..ranks-1,
 * and no rank's total more than the heaviest item above another's. @return 0, or -1 out of memory. */
int sim_spread(const double *cost, size_t n, int ranks, int *owner);

/* Time to accuracy from accuracy curves: seed s's accuracy after epoch e is acc[s * stride + e] (epochs
 * 1..epochs). A seed reaches the target at the first evaluated epoch whose accuracy is at or above it (no
 * interpolation between epochs): iterations is the mean over the seeds that reached it of that epoch x
 * iterations_per_epoch (0 where none did), final_accuracy the mean of the last epoch's. */
typedef struct {
    size_t reached;
    double iterations, final_accuracy;
} tta_result;
tta_result tta_reach(const double *acc, size_t nseeds, size_t stride, size_t epochs, double target,
                     double iterations_per_epoch);

/* One quantizer's test accuracy after each epoch, over seeds (trained, or one measured curve). */
#define TTA_MAX_SEEDS 16
typedef struct {
    char quant[256]; /* canonical spec */
    size_t nseeds, epochs;
    double acc[TTA_MAX_SEEDS][ACC_CURVE_MAX_EPOCHS]; /* [seed][epoch - 1] */
    double iterations_per_epoch;                     /* 0: gq_iterations_per_epoch(dataset_images, gpus, batch) */
    int workers;      /* the workers it was trained with; 0: a curve from elsewhere (gpus shown) */
    char source[300]; /* where the accuracies came from, for the row */
} tta_curve;

/* Time to accuracy: each curve's quantizer simulated on `gpus` GPUs of scenario s, joined with its curve
 * (tta_reach at `target`). rows gets columns quant, platform, gpus, target, seeds_reached,
 * iterations_to_target, iteration_s, time_to_target_s, final_accuracy, target_note (reached, by
 * how many seeds, or never: the curve's best and its epoch), cost_to_target (with a price), seeds, workers,
 * iterations_per_epoch, accuracy_source, codec_source, one row a curve; iteration_s[k] (if not NULL) curve k's
 * simulated iteration. Fills in curves' iterations_per_epoch where it was 0. */
extern const char *const TTA_COLUMNS[];
extern const size_t TTA_NCOLUMNS;
gq_err tta_run(sim_scenario *s, tta_curve *curves, int ncurves, int gpus, double target, double dataset_images,
               gq_table *rows, double *iteration_s, char *msg, size_t cap);

#endif
