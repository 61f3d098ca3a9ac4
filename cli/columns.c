/* What every column of gqsim's tables means, one row each, and which columns each command prints: `gqsim help COMMAND`
 * lists them from here (after the options), and a test holds every column a command writes to a line of its help, so a
 * column without a meaning cannot ship. The lists are the library's own (SIM_COLUMNS, ADVISE_COLUMNS, ...), not copies.
 */
#include "columns.h"

#include <string.h>

#include "advise.h"
#include "experiment.h"
#include "qz_measure.h"
#include "scenario.h"

static const struct {
    const char *name, *meaning;
} MEANINGS[] = {
    {"model", "the model (a built-in's name, or the name its .model file gives)"},
    {"platform", "the platform as given: a built-in's name, a cluster: spec or an XML file"},
    {"gpus", "GPUs training together"},
    {"quant", "the quantizer, its canonical spec (every parameter written)"},
    {"sync", "how gradients are exchanged: the scheme, and its servers or shards where it has them"},
    {"iteration_s", "seconds per training iteration (compute, then what of the exchange is not hidden)"},
    {"compute_s", "forward and backward of one iteration on one GPU, with the slowest GPU's spread"},
    {"comm_exposed_s", "seconds of the exchange that compute does not hide (iteration_s - compute_s)"},
    {"comm_s", "seconds the exchange takes from its first bucket to its last, hidden or not"},
    {"comm_to_compute", "comm_s / compute_s"},
    {"encode_s", "seconds a GPU spends encoding in one iteration"},
    {"decode_s", "seconds a GPU spends decoding in one iteration"},
    {"bytes_per_gpu_up", "bytes a GPU sends in one iteration (the mean over GPUs)"},
    {"bytes_per_gpu_down", "bytes a GPU receives in one iteration (the mean over GPUs)"},
    {"bytes_busiest_gpu_up", "bytes the GPU that sends the most sends in one iteration (a node's leader, a tree's)"},
    {"images_per_s", "training throughput: gpus x batch / iteration_s"},
    {"speedup", "images_per_s over one GPU's in fp32 without any exchange"},
    {"cost_per_hour", "what the run's GPUs cost an hour: --gpu-hour-cost x gpus, or node-hour-cost= x whole nodes"},
    {"cost_per_million_samples", "cost_per_hour / (3600 x images_per_s) x 1e6; empty without a price"},
    {"engine", "the engine that predicted the row: simgrid, analytic or smpi"},
    {"batch", "images per GPU per iteration"},
    {"gpu", "the GPU model"},
    {"overlap", "whether the exchange overlaps backward (on) or waits for it (off)"},
    {"fusion_bytes", "the largest bucket tensors are fused into (0: a tensor a bucket)"},
    {"fusion_cycle_s", "the fusion cycle: tensors ready within one are fused (0: none)"},
    {"compute_source", "where compute_s comes from: measured, a batch line, fitted, pooled or given"},
    {"network_model", "SimGrid's network model and its factors as this platform runs it"},
    {"codec_source", "where the codec's costs come from: a profile, a fit or a measured file"},
    {"line", "the grid file's line the row comes from"},
    {"rank", "the configuration's place, best first"},
    {"fp32_below", "tensors under this many elements travel in fp32 (0: none)"},
    {"codec_on", "the device that runs the codec: gpu, cpu or none"},
    {"speedup_over_fp32", "images_per_s over the best fp32 configuration of the same search"},
    {"codec_share", "(encode_s + decode_s) / iteration_s"},
    {"screened_iteration_s", "the iteration the analytic screening predicted"},
    {"iterations_to_target", "iterations to the target accuracy: epochs to reach it x iterations an epoch"},
    {"time_to_target_s", "iterations_to_target x iteration_s"},
    {"accuracy_at_budget", "the test accuracy after the last epoch the budget completes"},
    {"cost_to_target", "cost_per_hour x time_to_target_s / 3600"},
    {"accuracy_note", "without curves: what the codec risks for accuracy (biased, low-rank), unchecked"},
    {"target", "the target test accuracy"},
    {"seeds_reached", "seeds whose run reaches the target"},
    {"final_accuracy", "the last epoch's test accuracy, the mean over seeds"},
    {"target_note", "reached, by how many seeds, or never (the curve's best accuracy and its epoch)"},
    {"seeds", "runs of the quantizer, one a seed"},
    {"workers", "the workers a curve was trained with (the trainer's)"},
    {"iterations_per_epoch", "iterations of gpus x batch images an epoch"},
    {"accuracy_source", "where the accuracies come from: trained here or a file (interpolated epochs said)"},
    {"measured_images_per_s", "the measured throughput the row gives"},
    {"predicted_images_per_s", "gqsim's prediction of it"},
    {"error_pct", "(predicted - measured) / measured x 100"},
    {"epoch", "the epoch the row ends"},
    {"iterations", "iterations run so far"},
    {"train_loss", "the mean training loss over the epoch"},
    {"test_loss", "the test loss after the epoch"},
    {"test_accuracy", "the test accuracy after the epoch (paired table: the last epoch's)"},
    {"bytes_up_per_iter", "bytes a worker sends an iteration, measured from the encoded buffers"},
    {"bytes_down_per_iter", "bytes a worker receives an iteration"},
    {"quant_nmse", "the quantizer's normalised mean squared error on the epoch's gradients"},
    {"wall_s", "seconds the epoch took on this machine"},
    {"exchange_s", "seconds of the epoch spent in the exchange"},
    {"quant_s", "seconds of the epoch spent encoding and decoding"},
    {"gflops", "the trainer's forward and backward GFLOP/s"},
    {"sgemm_gflops", "the same run's single-precision GEMM GFLOP/s, the reference"},
    {"quant_share", "quant_s / (compute_s + exchange_s)"},
    {"seed", "the run's seed: data order and initialisation"},
    {"blas_core", "the OpenBLAS kernel set the trainer ran on"},
    {"params_xxh3", "XXH3 of the parameters after the epoch: equal runs, equal hashes"},
    {"test_accuracy_mean", "the seeds' mean test accuracy after the epoch"},
    {"test_accuracy_sd", "their standard deviation"},
    {"versus", "the quantizer the row is paired with, seed by seed"},
    {"versus_accuracy", "its last test accuracy, the mean over seeds"},
    {"difference", "the mean of the seeds' differences, points"},
    {"difference_sd", "their standard deviation"},
    {"difference_ci95_low", "the 95% confidence interval of the difference, low end"},
    {"difference_ci95_high", "its high end"},
    {"significant", "yes where the interval excludes 0"},
    {"forward_s", "the forward pass of one iteration"},
    {"backward_s", "the backward pass of one iteration"},
    {"source", "where the row's numbers come from: a publication, a measurement or a fit"},
    {"flops_vs_peak", "the model's direct-convolution training FLOP rate over the GPU's fp32 peak: not an efficiency, "
                      "above 1 where cuDNN's Winograd or FFT convolutions do fewer multiplications than the direct "
                      "count (Lavin and Gray, CVPR 2016: 2.25x fewer for 3x3 filters)"},
    {"gradient_bytes", "the fp32 gradient's bytes: 4 x parameters"},
    {"comm_to_comp_bytes_per_s", "gradient_bytes / compute_s: the rate an exchange must reach to hide"},
    {"basis", "the measured rows or the fit behind the rate"},
    {"name", "the quantizer's name, as a spec starts"},
    {"keys (defaults)", "its spec's keys and their defaults"},
    {"allreduce", "whether a ring can sum its messages as they travel: yes, with a shared scaler, or no"},
    {"description", "what it does, in words"},
    {"n", "elements of the gradient measured"},
    {"bucket", "elements that share one scale (0: the whole tensor)"},
    {"bytes", "the encoded buffer's exact size"},
    {"bits_per_element", "8 x bytes / elements"},
    {"ratio_vs_fp32", "fp32's bytes over these"},
    {"encode_ns_per_element", "encoding's nanoseconds an element (quant costs: past the fixed cost)"},
    {"decode_ns_per_element", "decoding's nanoseconds an element (quant costs: past the fixed cost)"},
    {"encode_frac_of_ref", "the same run's memcpy time over encoding's (1: as fast as copying the gradient once)"},
    {"decode_frac_of_ref", "the same run's memcpy time over decoding's"},
    {"nmse", "the squared error of decode(encode(g)) over the squared norm of g, the mean over trials"},
    {"bias", "the squared error of the trials' mean decode over the squared norm of g (0: unbiased)"},
    {"levels_err_vs_opt", "ORQ's levels: their error over the exact optimum's (1: optimal)"},
    {"dist", "the gradient's distribution, or its file"},
    {"scheme", "the family compared: ORQ, QSGD max-norm or L2, TernGrad, BinGrad"},
    {"levels", "quantization levels"},
    {"device", "where the codec runs: gpu or cpu"},
    {"encode_ns_fixed", "encoding's fixed cost a call, nanoseconds (kernel launches)"},
    {"decode_ns_fixed", "decoding's fixed cost a call, nanoseconds"},
    {"encode_us_2^20", "encoding 2^20 elements, microseconds"},
    {"decode_us_2^20", "decoding 2^20 elements, microseconds"},
    {"codec", "the published kernel's codec"},
    {"call", "the published call (encode or decode)"},
    {"elements", "the elements it was timed on"},
    {"published_us", "its published time"},
    {"fitted_us", "the GPU model's time for it, fitted on every point"},
    {"left_out_us", "the model's time fitted without this point"},
    {"left_out_error_pct", "(left_out_us - published_us) / published_us x 100"},
    {"params", "parameters (weights and biases)"},
    {"weight_params", "the weights' parameters"},
    {"bias_params", "the biases' parameters"},
    {"fwd_gflops", "forward GFLOPs an image"},
    {"layers", "layers in its table"},
    {"input", "its input's shape, channels x height x width"},
    {"grad_bytes_per_gflop", "fp32 gradient bytes per forward GFLOP: its appetite for bandwidth"},
    {"layer", "the layer's name"},
    {"type", "the layer's type"},
    {"fwd_flops", "forward FLOPs an image"},
    {"output_shape", "its output's shape"},
    {"peak_fp32_tflops", "the GPU's published fp32 peak, TFLOP/s"},
    {"mem_bw_gbs", "its published memory bandwidth, GB/s"},
    {"compute_capability", "its CUDA compute capability"},
    {"measured_rows", "published training throughputs of it in data/"},
    {"fit_scale", "the fitted model's scale for it (1: as the pooled fit)"},
    {"gpus_per_node", "GPUs a node"},
    {"intra", "the link kind inside a node"},
    {"inter", "the link kind between nodes"},
    {"nics", "network interfaces a node (their bandwidth adds up)"},
    {"spec", "the platform as a cluster: spec, every key written"},
    {"link", "a link of the node, by its name"},
    {"kind", "its link kind"},
    {"bandwidth_GBps", "its bandwidth each way, GB/s"},
    {"latency_us", "its latency, microseconds (calibrate: the measured one-way time of the smallest message)"},
    {"protocol", "RDMA or TCP, where it matters (between nodes)"},
    {"bandwidth_MBps", "the measured bandwidth, MB/s (1 / the slope through 64 KiB - 1 MiB)"},
    {"model_latency_us", "the network model's latency before its factor"},
    {"model_bandwidth_MBps", "the network model's bandwidth before its factor"},
};

const char *const MODELS_COMPUTE_COLUMNS[] = {"model",
                                              "gpu",
                                              "batch",
                                              "forward_s",
                                              "backward_s",
                                              "compute_s",
                                              "images_per_s",
                                              "source",
                                              "flops_vs_peak",
                                              "gradient_bytes",
                                              "comm_to_comp_bytes_per_s",
                                              "basis"};
const size_t MODELS_COMPUTE_NCOLUMNS = sizeof MODELS_COMPUTE_COLUMNS / sizeof MODELS_COMPUTE_COLUMNS[0];

/* the other commands' tables */
const char *const QUANT_LIST_COLUMNS[] = {"name", "keys (defaults)", "allreduce", "description"};
const size_t QUANT_LIST_NCOLUMNS = sizeof QUANT_LIST_COLUMNS / sizeof QUANT_LIST_COLUMNS[0];
const char *const QUANT_COSTS_FIT_COLUMNS[] = {"device",       "codec",     "call",        "elements",
                                               "published_us", "fitted_us", "left_out_us", "left_out_error_pct"};
const size_t QUANT_COSTS_FIT_NCOLUMNS = sizeof QUANT_COSTS_FIT_COLUMNS / sizeof QUANT_COSTS_FIT_COLUMNS[0];
const char *const QUANT_COSTS_COLUMNS[] = {"quant",           "device",
                                           "encode_ns_fixed", "encode_ns_per_element",
                                           "decode_ns_fixed", "decode_ns_per_element",
                                           "encode_us_2^20",  "decode_us_2^20",
                                           "codec_source"};
const size_t QUANT_COSTS_NCOLUMNS = sizeof QUANT_COSTS_COLUMNS / sizeof QUANT_COSTS_COLUMNS[0];
const char *const MODELS_LIST_COLUMNS[] = {"model",  "params", "weight_params", "bias_params",         "fwd_gflops",
                                           "layers", "input",  "batch",         "grad_bytes_per_gflop"};
const size_t MODELS_LIST_NCOLUMNS = sizeof MODELS_LIST_COLUMNS / sizeof MODELS_LIST_COLUMNS[0];
const char *const MODELS_SHOW_COLUMNS[] = {"layer",       "type",      "params",       "weight_params",
                                           "bias_params", "fwd_flops", "output_shape", "grad_bytes_per_gflop"};
const size_t MODELS_SHOW_NCOLUMNS = sizeof MODELS_SHOW_COLUMNS / sizeof MODELS_SHOW_COLUMNS[0];
const char *const GPUS_LIST_COLUMNS[] = {"gpu",           "peak_fp32_tflops", "mem_bw_gbs", "compute_capability",
                                         "measured_rows", "fit_scale",        "source"};
const size_t GPUS_LIST_NCOLUMNS = sizeof GPUS_LIST_COLUMNS / sizeof GPUS_LIST_COLUMNS[0];
const char *const GPUS_FIT_COLUMNS[] = {
    "gpu", "model", "batch", "measured_images_per_s", "predicted_images_per_s", "error_pct", "source"};
const size_t GPUS_FIT_NCOLUMNS = sizeof GPUS_FIT_COLUMNS / sizeof GPUS_FIT_COLUMNS[0];
const char *const PLATFORMS_LIST_COLUMNS[] = {"platform", "gpu",  "gpus_per_node", "intra",
                                              "inter",    "nics", "spec",          "source"};
const size_t PLATFORMS_LIST_NCOLUMNS = sizeof PLATFORMS_LIST_COLUMNS / sizeof PLATFORMS_LIST_COLUMNS[0];
const char *const PLATFORMS_SHOW_COLUMNS[] = {"link", "kind", "bandwidth_GBps", "latency_us", "protocol", "source"};
const size_t PLATFORMS_SHOW_NCOLUMNS = sizeof PLATFORMS_SHOW_COLUMNS / sizeof PLATFORMS_SHOW_COLUMNS[0];
const char *const PLATFORMS_CALIBRATE_COLUMNS[] = {"network_model", "latency_us", "bandwidth_MBps", "model_latency_us",
                                                   "model_bandwidth_MBps"};
const size_t PLATFORMS_CALIBRATE_NCOLUMNS = sizeof PLATFORMS_CALIBRATE_COLUMNS / sizeof PLATFORMS_CALIBRATE_COLUMNS[0];

/* report's own: its summary's and its comparison's, past the rows' (SIM_COLUMNS, in report.csv) */
static const char *const REPORT_COLUMNS[] = {"platform",     "model",         "quant",
                                             "images_per_s", "cost_per_hour", "cost_per_million_samples"};

static const char *meaning_of(const char *name)
{
    for (size_t i = 0; i < sizeof MEANINGS / sizeof MEANINGS[0]; i++)
        if (strcmp(MEANINGS[i].name, name) == 0) return MEANINGS[i].meaning;
    return NULL;
}

/* Each of the lists' columns once, in order, with its meaning ("?" where there is none: the test finds it). */
static void print_lists(FILE *out, const char *const *const *lists, const size_t *counts, size_t nlists)
{
    const char *seen[256];
    size_t nseen = 0;
    for (size_t l = 0; l < nlists; l++)
        for (size_t c = 0; c < counts[l]; c++) {
            const char *name = lists[l][c];
            size_t k = 0;
            while (k < nseen && strcmp(seen[k], name) != 0) k++;
            if (k < nseen || nseen == sizeof seen / sizeof seen[0]) continue;
            seen[nseen++] = name;
            const char *m = meaning_of(name);
            fprintf(out, "  %-26s %s\n", name, m ? m : "?");
        }
}

/* Each command's tables, a row each: the lists of the columns it prints (up to three tables), in order. */
static const char *const LINE[] = {"line"};
static const size_t ONE = 1, NREPORT = sizeof REPORT_COLUMNS / sizeof REPORT_COLUMNS[0];
static const struct {
    cli_cmd cmd;
    const char *const *list[3];
    const size_t *count[3];
} TABLES[] = {
    {C_SIMULATE, {SIM_COLUMNS}, {&SIM_NCOLUMNS}},
    {C_SPEEDUP, {SIM_COLUMNS}, {&SIM_NCOLUMNS}},
    {C_REPORT, {REPORT_COLUMNS, SIM_COLUMNS}, {&NREPORT, &SIM_NCOLUMNS}},
    {C_SWEEP, {LINE, SIM_COLUMNS}, {&ONE, &SIM_NCOLUMNS}},
    {C_ADVISE, {ADVISE_COLUMNS}, {&ADVISE_NCOLUMNS}},
    {C_TTA, {TTA_COLUMNS}, {&TTA_NCOLUMNS}},
    {C_VALIDATE, {VALIDATE_COLUMNS}, {&VALIDATE_NCOLUMNS}},
    {C_TRAIN,
     {TRAIN_EPOCH_COLUMNS, TRAIN_SUMMARY_COLUMNS, TRAIN_PAIRED_COLUMNS},
     {&TRAIN_EPOCH_NCOLUMNS, &TRAIN_SUMMARY_NCOLUMNS, &TRAIN_PAIRED_NCOLUMNS}},
    {C_MODELS_COMPUTE, {MODELS_COMPUTE_COLUMNS}, {&MODELS_COMPUTE_NCOLUMNS}},
    {C_QUANT_LIST, {QUANT_LIST_COLUMNS}, {&QUANT_LIST_NCOLUMNS}},
    {C_QUANT_BENCH, {QZ_BENCH_COLUMNS}, {&QZ_BENCH_NCOLUMNS}},
    {C_QUANT_SWEEP, {QZ_SWEEP_COLUMNS}, {&QZ_SWEEP_NCOLUMNS}},
    {C_QUANT_COSTS, {QUANT_COSTS_COLUMNS, QUANT_COSTS_FIT_COLUMNS}, {&QUANT_COSTS_NCOLUMNS, &QUANT_COSTS_FIT_NCOLUMNS}},
    {C_MODELS_LIST, {MODELS_LIST_COLUMNS}, {&MODELS_LIST_NCOLUMNS}},
    {C_MODELS_SHOW, {MODELS_SHOW_COLUMNS}, {&MODELS_SHOW_NCOLUMNS}},
    {C_GPUS_LIST, {GPUS_LIST_COLUMNS}, {&GPUS_LIST_NCOLUMNS}},
    {C_GPUS_FIT, {GPUS_FIT_COLUMNS}, {&GPUS_FIT_NCOLUMNS}},
    {C_PLATFORMS_LIST, {PLATFORMS_LIST_COLUMNS}, {&PLATFORMS_LIST_NCOLUMNS}},
    {C_PLATFORMS_SHOW, {PLATFORMS_SHOW_COLUMNS}, {&PLATFORMS_SHOW_NCOLUMNS}},
    {C_PLATFORMS_CALIBRATE, {PLATFORMS_CALIBRATE_COLUMNS}, {&PLATFORMS_CALIBRATE_NCOLUMNS}},
};

void cli_columns_help(FILE *out, cli_cmd cmd)
{
    size_t t = 0;
    while (t < sizeof TABLES / sizeof TABLES[0] && TABLES[t].cmd != cmd) t++;
    if (t == sizeof TABLES / sizeof TABLES[0]) return;
    const char *const *lists[3];
    size_t counts[3], n = 0;
    for (; n < 3 && TABLES[t].list[n]; n++) lists[n] = TABLES[t].list[n], counts[n] = *TABLES[t].count[n];
    fprintf(out, "\ncolumns (--format csv writes every one; a table leaves out those empty on every row):\n");
    if (cmd == C_REPORT)
        fprintf(out,
                "  the summary: platform, model, each quantizer's speedup at the largest GPU count, and each one's "
                "over the first's (QUANT/FIRST);\n  the comparison (compare.csv) and report.csv's rows:\n");
    print_lists(out, lists, counts, n);
}
