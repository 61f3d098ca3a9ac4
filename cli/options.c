/* The option table and its parser; see options.h. */
#include "options.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "cli_util.h"
#include "codec_cost.h"
#include "exchange.h"
#include "gq_suggest.h"
#include "gradgen.h"
#include "qz.h"
#include "run_params.h"
#include "sim.h"
#include "trainer.h"
#include "zoo.h"

#define B(c) (1ul << (c))
#define SIMS (B(C_SIMULATE) | B(C_SPEEDUP) | B(C_REPORT) | B(C_VALIDATE) | B(C_TTA) | B(C_ADVISE))
#define FORMATS                                                                                                        \
    (B(C_QUANT_LIST) | B(C_QUANT_BENCH) | B(C_QUANT_SWEEP) | B(C_QUANT_COSTS) | B(C_MODELS_LIST) | B(C_MODELS_SHOW) |  \
     B(C_MODELS_COMPUTE) | B(C_GPUS_LIST) | B(C_GPUS_FIT) | B(C_PLATFORMS_LIST) | B(C_PLATFORMS_SHOW) |                \
     B(C_PLATFORMS_CALIBRATE) | SIMS | B(C_TRAIN) | B(C_SWEEP))
#define CODECS (B(C_QUANT_ENCODE) | B(C_QUANT_ROUNDTRIP))
#define COMPARES (B(C_SPEEDUP) | B(C_REPORT)) /* the commands that take several models and platforms */

typedef enum {
    T_STR,
    T_STRS,
    T_U64,
    T_U64S,
    T_DBL,
    T_FLAG,
    T_ENUM,
    T_RUN_PARAMS /* where the run parameters' rows go (made from sim/run_params.c) */
} opt_type;
typedef enum {
    CHK_NONE,
    CHK_PLOT,
    CHK_OUTPUT,
    CHK_CSV,
    CHK_DIR,
    CHK_PLATFORM,
    CHK_MODEL,
    CHK_QUANT,
    CHK_DIST,
    CHK_NAMED_DIST
} chk;

typedef struct {
    const char *name, *meta;
    opt_type type;
    size_t field, count; /* offsets into cli_args; count for lists */
    size_t cap;          /* lists: at most this many */
    double lo, hi;       /* numbers: the range; lo_open: (lo, hi] */
    int lo_open;
    unsigned long cmds, required;
    chk check;
    int (*parse)(const char *v, cli_args *a); /* T_ENUM: 0, or -1 if not one of `allowed` */
    const char *allowed;
    const char *help;
    /* where a run's output goes: free to differ between the MPI ranks of one run (every other option must agree,
     * cli_settings_fingerprint) */
    int per_rank;
    /* names an input file (or a directory of them): the ranks compare its contents, not its name, which may differ
     * from machine to machine (a regular file's bytes; a directory's files, by name and bytes) */
    int input;
    const run_param *rp; /* a run parameter's row: its value lives in cli_args.req */
} cli_option;

#define F(x) offsetof(cli_args, x)

/* ---- enumerations ---------------------------------------------------------------------------- */

static int pick(const char *v, const char *const *names, int *out)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(v, names[i]) == 0) return *out = i, 0;
    return -1;
}
static int p_train_sync(const char *v, cli_args *a)
{
    sync_kind k;
    return sync_parse(v, &k) || !sync_trainer_runs(k) ? -1 : (a->train_sync = (int)k, 0);
}
static int p_format(const char *v, cli_args *a)
{
    static const char *const N[] = {"table", "csv", NULL}; /* FMT_TABLE, FMT_CSV */
    return pick(v, N, &a->format);
}
static int p_optimizer(const char *v, cli_args *a)
{
    static const char *const N[] = {"sgd", "momentum", "adam", NULL}; /* OPT_SGD, OPT_MOMENTUM, OPT_ADAM */
    return pick(v, N, &a->optimizer);
}
static int p_rank_by(const char *v, cli_args *a)
{
    /* RANK_AUTO is not a name: the default follows the curves */
    static const char *const N[] = {"auto", "throughput", "cost", "time-to-target", NULL};
    return strcmp(v, "auto") == 0 ? -1 : pick(v, N, &a->rank_by);
}
static int p_schedule(const char *v, cli_args *a)
{
    int e, used = 0;
    double g;
    if (strcmp(v, "const") == 0) return a->lr_schedule = LR_CONST, 0;
    if (sscanf(v, "step:%d:%lf%n", &e, &g, &used) == 2 && !v[used] && e > 0 && e <= 1000 && g > 0 && g <= 10)
        return a->lr_schedule = LR_STEP, a->step_every = e, a->step_gamma = g, 0;
    if (sscanf(v, "poly:%lf%n", &g, &used) == 1 && !v[used] && g > 0 && g <= 100)
        return a->lr_schedule = LR_POLY, a->poly_power = g, 0;
    return -1;
}

/* ---- the table --------------------------------------------------------------------------------- */

static const cli_option OPTIONS[] = {
    /* what to simulate or train */
    {.name = "--model",
     .input = 1,
     .meta = "M",
     .type = T_STR,
     .field = F(model),
     .cmds = (SIMS & ~COMPARES) | B(C_MODELS_COMPUTE) | B(C_TRAIN),
     .required = B(C_SIMULATE) | B(C_MODELS_COMPUTE) | B(C_ADVISE),
     .check = CHK_MODEL,
     .help = "a built-in model ('gqsim models list') or a path to a .model file"},
    {.name = "--model",
     .input = 1,
     .meta = "M",
     .type = T_STRS,
     .field = F(models),
     .count = F(nmodels),
     .cap = MAX_MODELS,
     .cmds = COMPARES,
     .required = B(C_SPEEDUP),
     .check = CHK_MODEL,
     .help = "a built-in model ('gqsim models list') or a path to a .model file; repeatable: every model with every "
             "platform"},
    {.name = "--platform",
     .input = 1,
     .meta = "P",
     .type = T_STR,
     .field = F(platform),
     .cmds = (SIMS & ~B(C_ADVISE) & ~COMPARES) | B(C_TRAIN),
     .required = B(C_SIMULATE) | B(C_TTA),
     .check = CHK_PLATFORM,
     .help = "a built-in cluster ('gqsim platforms list'), cluster:gpus-per-node=G,gpu=NAME,intra=K,inter=K[,...], "
             "or a SimGrid XML file ('gqsim platforms xml NAME > my.xml')"},
    {.name = "--platform",
     .input = 1,
     .meta = "P",
     .type = T_STRS,
     .field = F(platforms),
     .count = F(nplatforms),
     .cap = MAX_PLATFORMS,
     .cmds = B(C_ADVISE),
     .required = B(C_ADVISE),
     .check = CHK_PLATFORM,
     .help = "a cluster as simulate takes it; repeatable: each searched on its own, their best compared"},
    {.name = "--platform",
     .input = 1,
     .meta = "P",
     .type = T_STRS,
     .field = F(platforms),
     .count = F(nplatforms),
     .cap = MAX_PLATFORMS,
     .cmds = COMPARES,
     .required = B(C_SPEEDUP),
     .check = CHK_PLATFORM,
     .help = "a cluster as simulate takes it; repeatable: every platform with every model, compared"},
    {.name = "--gpus",
     .meta = "N",
     .type = T_U64S,
     .field = F(gpus),
     .count = F(ngpus),
     .cap = 1,
     .lo = 1,
     .hi = 65536,
     .cmds = B(C_SIMULATE) | B(C_TTA),
     .required = B(C_SIMULATE) | B(C_TTA),
     .help = "GPUs (one per worker)"},
    {.name = "--gpus",
     .meta = "N,N,...",
     .type = T_U64S,
     .field = F(gpus),
     .count = F(ngpus),
     .cap = MAX_GPU_COUNTS,
     .lo = 1,
     .hi = 65536,
     .cmds = B(C_SPEEDUP) | B(C_REPORT),
     .help = "GPU counts (default 1,2,4,...,512; on a platform XML up to the GPUs it has)"},
    {.name = "--gpus",
     .meta = "N,N,...",
     .type = T_U64S,
     .field = F(gpus),
     .count = F(ngpus),
     .cap = MAX_GPU_COUNTS,
     .lo = 1,
     .hi = 65536,
     .cmds = B(C_ADVISE),
     .required = B(C_ADVISE),
     .help = "GPU counts, each searched on its own"},
    {.name = "--top",
     .meta = "K",
     .type = T_U64,
     .field = F(top),
     .lo = 1,
     .hi = 100,
     .cmds = B(C_ADVISE),
     .help = "the best K configurations of the screening, simulated again with --engine and printed (default 5)"},
    {.name = "--quant",
     .meta = "SPEC",
     .type = T_STRS,
     .field = F(quant),
     .count = F(nquant),
     .cap = 1,
     .cmds = B(C_SIMULATE) | CODECS,
     .required = CODECS,
     .check = CHK_QUANT,
     .help = "a quantizer: NAME[:key=value,...] ('gqsim quant list'); default fp32"},
    {.name = "--quant",
     .meta = "SPEC",
     .type = T_STRS,
     .field = F(quant),
     .count = F(nquant),
     .cap = MAX_QUANTS,
     .cmds = B(C_SPEEDUP) | B(C_REPORT) | B(C_QUANT_BENCH) | B(C_TRAIN) | B(C_QUANT_CALIBRATE) | B(C_QUANT_COSTS) |
             B(C_TTA) | B(C_ADVISE),
     .check = CHK_QUANT,
     .help = "a quantizer, repeatable ('gqsim quant list')"},
    {.name = "--gpu",
     .meta = "NAME",
     .type = T_STR,
     .field = F(gpu),
     .cmds = SIMS | B(C_MODELS_COMPUTE) | B(C_QUANT_COSTS),
     .required = B(C_MODELS_COMPUTE),
     .help = "the GPU ('gqsim gpus list'); default the platform's"},
    {.name = "--gpu-file",
     .input = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(gpu_file),
     .cmds = SIMS | B(C_MODELS_COMPUTE) | B(C_SWEEP),
     .help = "more GPUs: rows gpu,peak_fp32_tflops,mem_bw_gbs[,compute_capability],source (the capability, 8.0 and "
             "up, says a GPU has TF32)"},
    {.name = "--batch",
     .meta = "B",
     .type = T_U64,
     .field = F(batch),
     .lo = 1,
     .hi = 1000000,
     .cmds = (SIMS & ~B(C_TTA)) | B(C_MODELS_COMPUTE),
     .help = "images per GPU; default the model's customary batch"},
    {.name = "--batch",
     .meta = "B",
     .type = T_U64,
     .field = F(batch),
     .lo = 1,
     .hi = 4096,
     .cmds = B(C_TRAIN) | B(C_TTA),
     .help = "images per worker (default 64)"},

    {.name = "--sync",
     .type = T_ENUM,
     .cmds = B(C_TRAIN),
     .parse = p_train_sync,
     .allowed = "ps|ps-sharded|ps-flat|ring|allgather",
     .help = "how the workers' gradients meet, as the simulator's schemes (default ps: one server)"},

    /* how a run exchanges and what it charges: the run parameters, in their table's order */
    {.type = T_RUN_PARAMS},

    /* outputs */
    {.name = "--format",
     .per_rank = 1,
     .type = T_ENUM,
     .cmds = FORMATS,
     .parse = p_format,
     .allowed = "table|csv",
     .help = "aligned table, or CSV: one header line, then rows"},
    {.name = "--plot",
     .per_rank = 1,
     .meta = "FIG.png|.svg|.pdf",
     .type = T_STR,
     .field = F(plot),
     .cmds = B(C_SPEEDUP) | B(C_VALIDATE) | B(C_QUANT_SWEEP) | B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .check = CHK_PLOT,
     .help = "a figure, its format by the extension (PNG, SVG or PDF), with its gnuplot script (.gp) and data "
             "(.dat) beside it"},
    {.name = "--out",
     .meta = "DIR",
     .type = T_STR,
     .field = F(out),
     .cmds = B(C_REPORT),
     .check = CHK_DIR,
     .help = "the report's directory (default gqsim-report)"},
    {.name = "--output",
     .meta = "DIR",
     .type = T_STR,
     .field = F(out),
     .cmds = B(C_REPORT),
     .check = CHK_DIR,
     .help = "the same as --out (as the other commands name their output)"},
    {.name = "--per-tensor",
     .per_rank = 1,
     .meta = "PLAN.csv",
     .type = T_STR,
     .field = F(per_tensor),
     .cmds = B(C_ADVISE),
     .check = CHK_CSV,
     .help = "then the winner's codec tensor by tensor (fp32, fp16 or its quantizer, on the simulated critical "
             "path), written as a plan file for simulate --plan (one --platform, one --gpus)"},
    {.name = "--plan",
     .input = 1,
     .meta = "PLAN.csv",
     .type = T_STR,
     .field = F(plan),
     .cmds = B(C_SIMULATE),
     .help = "each tensor's codec from a plan file (advise --per-tensor's: tensor,elements,codec), instead of --quant"},
    {.name = "--grid",
     .input = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(grid),
     .cmds = B(C_SWEEP),
     .required = B(C_SWEEP),
     .help = "configurations, a row each, in validate's columns (model, platform, gpus required; measured ones not)"},
    {.name = "--measured",
     .input = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(measured),
     .cmds = B(C_VALIDATE),
     .required = B(C_VALIDATE),
     .help = "measured throughputs with their configurations"},
    {.name = "--output",
     .per_rank = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(output),
     .cmds = B(C_TRAIN) | B(C_QUANT_CALIBRATE),
     .check = CHK_CSV,
     .help = "the table as CSV"},
    {.name = "--output",
     .per_rank = 1,
     .meta = "FILE",
     .type = T_STR,
     .field = F(output),
     .cmds = B(C_QUANT_GEN) | CODECS | B(C_QUANT_DECODE),
     .required = B(C_QUANT_GEN) | CODECS | B(C_QUANT_DECODE),
     .check = CHK_OUTPUT,
     .help = "the output file"},
    {.name = "--input",
     .input = 1,
     .meta = "FILE",
     .type = T_STR,
     .field = F(input),
     .cmds = CODECS | B(C_QUANT_DECODE),
     .required = CODECS | B(C_QUANT_DECODE),
     .help = "the input file (.f32: raw little-endian float32)"},

    /* quantizers */
    {.name = "--seed",
     .meta = "S",
     .type = T_U64,
     .field = F(seed),
     .lo = 0,
     .hi = 18446744073709551615.0,
     .cmds = B(C_QUANT_GEN) | CODECS | B(C_QUANT_BENCH) | B(C_QUANT_SWEEP) | B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "the seed of every random choice (default 1)"},
    {.name = "--shared-scale",
     .meta = "X",
     .type = T_DBL,
     .field = F(shared_scale),
     .lo = 0,
     .hi = 3.4e38,
     .lo_open = 1,
     .cmds = CODECS,
     .help = "terngrad: a scaler shared by all workers"},
    {.name = "--n",
     .meta = "N",
     .type = T_U64,
     .field = F(n),
     .lo = 1,
     .hi = 2147483648.0,
     .cmds = B(C_QUANT_GEN) | B(C_QUANT_BENCH),
     .help = "elements"},
    {.name = "--n",
     .meta = "N",
     .type = T_U64,
     .field = F(n),
     .lo = 1,
     .hi = 268435456.0,
     .cmds = B(C_QUANT_SWEEP),
     .help = "elements"},
    {.name = "--max-elements",
     .meta = "N",
     .type = T_U64,
     .field = F(max_elements),
     .lo = 1,
     .hi = 1099511627776.0,
     .cmds = CODECS | B(C_QUANT_DECODE) | B(C_QUANT_BENCH) | B(C_QUANT_SWEEP),
     .help = "the most elements a gradient file or an encoded buffer may hold (default 134217728 = 2^27, 512 MiB of "
             "float32): a larger claim is refused before memory is taken"},
    {.name = "--trials",
     .meta = "T",
     .type = T_U64,
     .field = F(trials),
     .lo = 1,
     .hi = 1000,
     .cmds = B(C_QUANT_BENCH) | B(C_QUANT_SWEEP) | B(C_QUANT_CALIBRATE),
     .help = "runs per measurement"},
    {.name = "--fit",
     .type = T_FLAG,
     .field = F(fit),
     .cmds = B(C_QUANT_COSTS),
     .help = "the GPU model's fit instead: every published point, fitted and left out"},
    {.name = "--dist",
     .input = 1,
     .meta = "D",
     .type = T_STRS,
     .field = F(dist),
     .count = F(ndist),
     .cap = 1,
     .cmds = B(C_QUANT_GEN),
     .check = CHK_NAMED_DIST,
     .help = "gaussian|laplace|uniform|student-t"},
    {.name = "--dist",
     .input = 1,
     .meta = "D|FILE.f32",
     .type = T_STRS,
     .field = F(dist),
     .count = F(ndist),
     .cap = 1,
     .cmds = B(C_QUANT_BENCH),
     .check = CHK_DIST,
     .help = "gaussian|laplace|uniform|student-t, or a gradient file"},
    {.name = "--dist",
     .input = 1,
     .meta = "D|FILE.f32",
     .type = T_STRS,
     .field = F(dist),
     .count = F(ndist),
     .cap = 8,
     .cmds = B(C_QUANT_SWEEP),
     .check = CHK_DIST,
     .help = "a distribution or a gradient file, repeatable"},
    {.name = "--bucket",
     .meta = "N,N,...",
     .type = T_U64S,
     .field = F(bucket),
     .count = F(nbucket),
     .cap = 32,
     .lo = 1,
     .hi = 1073741824.0,
     .cmds = B(C_QUANT_SWEEP),
     .help = "bucket sizes (default 128,512,2048,8192,32768)"},
    {.name = "--levels",
     .meta = "L,L,...",
     .type = T_U64S,
     .field = F(levels),
     .count = F(nlevels),
     .cap = 8,
     .lo = 3,
     .hi = 15,
     .cmds = B(C_QUANT_SWEEP),
     .help = "odd level counts (default 3,5,9)"},

    /* platforms */
    {.name = "--nodes",
     .meta = "N",
     .type = T_U64,
     .field = F(nodes),
     .lo = 1,
     .hi = 65536,
     .cmds = B(C_PLATFORMS_XML),
     .help = "nodes in the XML (default the spec's, else 1)"},

    {.name = "--pingpong",
     .input = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(pingpong),
     .cmds = B(C_PLATFORMS_CALIBRATE),
     .required = B(C_PLATFORMS_CALIBRATE),
     .help = "one-way times by message size between two nodes (columns bytes, one_way_s: bench/mpi_pingpong's output)"},

    /* training */
    {.name = "--mpi",
     .type = T_FLAG,
     .field = F(mpi),
     .cmds = B(C_TRAIN),
     .help = "one worker per MPI rank (start with mpirun -np N; the world size is the worker count, and a world of "
             "one is refused unless --workers 1 says so); the ranks first check that they were given the same options "
             "(all but where outputs go and --data)"},
    {.name = "--measured-out",
     .per_rank = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(measured_out),
     .cmds = B(C_TRAIN),
     .check = CHK_CSV,
     .help = "with --mpi: one row per run as 'gqsim validate --measured' reads it (needs --platform)"},
    {.name = "--timings-out",
     .per_rank = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(timings_out),
     .cmds = B(C_TRAIN),
     .check = CHK_CSV,
     .help = "with --mpi: every iteration of every rank: compute, encode, wait, decode, bytes"},
    {.name = "--workers",
     .meta = "W,W,...",
     .type = T_U64S,
     .field = F(workers),
     .count = F(nworkers),
     .cap = 16,
     .lo = 1,
     .hi = TRAIN_MAX_WORKERS,
     .cmds = B(C_TRAIN),
     .help = "data-parallel workers (default 4)"},
    {.name = "--workers",
     .meta = "W",
     .type = T_U64S,
     .field = F(workers),
     .count = F(nworkers),
     .cap = 1,
     .lo = 1,
     .hi = TRAIN_MAX_WORKERS,
     .cmds = B(C_ADVISE),
     .help = "with --train: the workers each quantizer is trained with (default 4)"},
    {.name = "--train",
     .type = T_FLAG,
     .field = F(train),
     .cmds = B(C_ADVISE),
     .help = "the accuracy curves trained here, one a quantizer searched: LeNet-5 on Fashion-MNIST (the trainer's "
             "options below), each epoch standing for one of --dataset-size images; with --target-accuracy or "
             "--budget"},
    {.name = "--epochs",
     .meta = "E",
     .type = T_U64,
     .field = F(epochs),
     .lo = 1,
     .hi = 1000,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "epochs (default 10)"},
    {.name = "--optimizer",
     .type = T_ENUM,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .parse = p_optimizer,
     .allowed = "sgd|momentum|adam",
     .help = "the update rule (default momentum)"},
    {.name = "--lr",
     .meta = "X",
     .type = T_DBL,
     .field = F(lr),
     .lo = 0,
     .hi = 100,
     .lo_open = 1,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "learning rate (default 0.02)"},
    {.name = "--momentum",
     .meta = "M",
     .type = T_DBL,
     .field = F(momentum),
     .lo = 0,
     .hi = 0.999,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "momentum (default 0.9)"},
    {.name = "--weight-decay",
     .meta = "D",
     .type = T_DBL,
     .field = F(weight_decay),
     .lo = 0,
     .hi = 1,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "L2 weight decay (default 5e-4)"},
    {.name = "--lr-schedule",
     .type = T_ENUM,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .parse = p_schedule,
     .allowed = "const|step:EPOCHS:GAMMA|poly:POWER",
     .help = "learning-rate schedule (default step:4:0.3)"},
    {.name = "--train-limit",
     .meta = "N",
     .type = T_U64,
     .field = F(train_limit),
     .lo = 0,
     .hi = 100000000,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "train on the first N images (0: all)"},
    {.name = "--test-limit",
     .meta = "N",
     .type = T_U64,
     .field = F(test_limit),
     .lo = 0,
     .hi = 100000000,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "test on the first N images (0: all)"},
    {.name = "--data",
     .input = 1,
     .meta = "DIR",
     .type = T_STR,
     .field = F(data),
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "Fashion-MNIST's four .gz files (default $GQSIM_FASHION_MNIST, else the Debian package's)"},
    {.name = "--dump-grads",
     .per_rank = 1,
     .meta = "DIR",
     .type = T_STR,
     .field = F(dump_grads),
     .cmds = B(C_TRAIN),
     .check = CHK_DIR,
     .help = "write per-layer gradients there as .f32 files"},
    {.name = "--dump-at",
     .meta = "I,I,...",
     .type = T_U64S,
     .field = F(dump_at),
     .count = F(ndump_at),
     .cap = 64,
     .lo = 1,
     .hi = 1000000000,
     .cmds = B(C_TRAIN),
     .help = "iterations to dump (default 1)"},

    /* time to accuracy */
    {.name = "--seeds",
     .meta = "S,S,...",
     .type = T_U64S,
     .field = F(seeds),
     .count = F(nseeds),
     .cap = 16,
     .lo = 0,
     .hi = 4294967295.0,
     .cmds = B(C_TRAIN) | B(C_TTA) | B(C_ADVISE),
     .help = "train once per seed; tables show each seed and the seeds' mean and spread"},
    {.name = "--versus",
     .meta = "SPEC",
     .type = T_STR,
     .field = F(versus),
     .cmds = B(C_TRAIN),
     .check = CHK_QUANT,
     .help = "with --seeds: the other quantizers' final test accuracy paired with this one's, seed by seed (the "
             "difference and its 95% confidence interval); it is trained too if no --quant names it"},
    {.name = "--target",
     .meta = "ACC",
     .type = T_DBL,
     .field = F(target),
     .lo = 0,
     .hi = 1,
     .lo_open = 1,
     .cmds = B(C_TTA),
     .required = B(C_TTA),
     .help = "the test accuracy to reach, as a fraction (0.88 for 88%)"},
    {.name = "--target-accuracy",
     .meta = "ACC",
     .type = T_DBL,
     .field = F(target),
     .lo = 0,
     .hi = 1,
     .lo_open = 1,
     .cmds = B(C_ADVISE),
     .help = "with --accuracy-curve: rank by the time to reach this test accuracy (a fraction), not the iteration"},
    {.name = "--accuracy-curve",
     .input = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(accuracy_curve),
     .cmds = B(C_TTA),
     .help = "accuracy per epoch measured elsewhere (columns quant,epoch,accuracy), instead of training"},
    {.name = "--rank-by",
     .type = T_ENUM,
     .cmds = B(C_ADVISE),
     .parse = p_rank_by,
     .allowed = "throughput|cost|time-to-target",
     .help = "what 'best' means: images/s (the default without curves), the cost of a million images (or of "
             "reaching the target, with curves; needs a price), or the time to --target-accuracy (the default with "
             "curves); within one search the price an hour is one, so cost orders each search as throughput does and "
             "decides between platforms and GPU counts"},
    {.name = "--gpu-hour-cost",
     .meta = "C",
     .type = T_DBL,
     .field = F(gpu_hour_cost),
     .lo = 0,
     .hi = 1e6,
     .lo_open = 1,
     .cmds = B(C_SIMULATE) | COMPARES | B(C_TTA) | B(C_ADVISE),
     .help = "what one GPU costs an hour, in any currency: rows get cost_per_hour and cost_per_million_samples "
             "(a platform's own node-hour-cost=C prices whole nodes instead; give one of the two)"},
    {.name = "--budget",
     .meta = "SECONDS",
     .type = T_DBL,
     .field = F(budget),
     .lo = 0,
     .hi = 1e9,
     .lo_open = 1,
     .cmds = B(C_ADVISE),
     .help = "with --accuracy-curve: the training time there is; alone, rank by the accuracy reached in it; with "
             "--target-accuracy, leave out what reaches the target later"},
    {.name = "--accuracy-curve",
     .input = 1,
     .meta = "FILE.csv",
     .type = T_STR,
     .field = F(accuracy_curve),
     .cmds = B(C_ADVISE),
     .help = "with --target-accuracy: each quantizer's accuracy per epoch (columns quant,epoch,accuracy; `train "
             "--output`'s rows will do); the quantizers searched are the curve's unless --quant names others"},
    {.name = "--dataset-size",
     .meta = "N",
     .type = T_U64,
     .field = F(dataset_size),
     .lo = 1,
     .hi = 1e10,
     .cmds = B(C_TTA) | B(C_ADVISE),
     .help = "images per epoch with --accuracy-curve (default 1281167, ImageNet's)"},
};
#define NOPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])

/* ---- the run parameters' rows ------------------------------------------------------------------- */

#define NALL_MAX (NOPTIONS + RUN_PARAMS_MAX)
static cli_option ALL[NALL_MAX]; /* OPTIONS with the run parameters' rows in place of T_RUN_PARAMS */
static size_t NALL;
static char ALLOWED[RUN_PARAMS_MAX][160];
static char HELP[RUN_PARAMS_MAX][1024]; /* each row's help, its default written in (run_param_help) */

/* The commands a run parameter applies to: its scope, and the few commands outside it that read one. */
static unsigned long param_cmds(const run_param *p)
{
    static const struct {
        const char *flag;
        unsigned long cmds;
    } ALSO[] = {
        {"--gpu-images-per-s", B(C_MODELS_COMPUTE)},
        {"--network-model", B(C_TRAIN) | B(C_PLATFORMS_CALIBRATE)}, /* train: recorded in its --measured-out row */
        {"--codec-on", B(C_QUANT_COSTS)},
        {"--codec-costs", B(C_QUANT_COSTS)},
    };
    unsigned long c = (p->scope & RP_SIM ? SIMS | B(C_SWEEP) : 0) | (p->scope & RP_TRAIN ? B(C_TRAIN) | B(C_TTA) : 0);
    for (size_t i = 0; i < sizeof ALSO / sizeof ALSO[0]; i++)
        if (strcmp(ALSO[i].flag, p->flag) == 0) c |= ALSO[i].cmds;
    return c;
}

static void build_options(void)
{
    static const opt_type TYPE_OF[] = {[RP_REAL] = T_DBL,    [RP_COUNT] = T_U64, [RP_ENUM] = T_ENUM,
                                       [RP_SWITCH] = T_ENUM, [RP_FLAG] = T_FLAG, [RP_TEXT] = T_STR};
    if (NALL) return;
    for (size_t i = 0; i < NOPTIONS; i++) {
        if (OPTIONS[i].type != T_RUN_PARAMS) {
            ALL[NALL++] = OPTIONS[i];
            continue;
        }
        for (size_t k = 0; k < RUN_PARAM_COUNT; k++) {
            const run_param *p = &RUN_PARAMS[k];
            unsigned long cmds = param_cmds(p);
            if (!cmds) continue;
            run_param_allowed(p, ALLOWED[k], sizeof ALLOWED[k]);
            run_param_help(p, HELP[k], sizeof HELP[k]);
            ALL[NALL++] = (cli_option){.name = p->flag,
                                       .meta = p->meta,
                                       .type = TYPE_OF[p->type],
                                       .lo = p->lo,
                                       .hi = p->hi,
                                       .lo_open = p->lo_open,
                                       .cmds = cmds,
                                       .allowed = p->meta ? p->meta : ALLOWED[k],
                                       .help = HELP[k],
                                       /* a file's name as its value (--codec-costs FILE.csv): its contents agree */
                                       .input = p->type == RP_TEXT && p->meta && strstr(p->meta, "FILE") != NULL,
                                       .rp = p};
        }
    }
}

/* Sets a run parameter from its command-line text. @return 0, or -1 after printing. */
static int set_param(const cli_option *o, const char *v, cli_args *a)
{
    const run_param *p = o->rp;
    void *at = run_param_at(p, &a->req);
    char why[512];
    switch (p->type) {
    case RP_REAL:
        if (cli_parse_double_in(o->name, v, p->lo, p->hi, p->lo_open, (double *)at)) return -1;
        if (p->integral && *(double *)at != floor(*(double *)at)) /* bytes and elements are counted whole */
            return cli_error("%s '%.*s%s' must be a whole number of %s", o->name, CLI_CLIP(v), p->unit), -1;
        return run_param_mark(p, &a->req), 0;
    case RP_COUNT: {
        uint64_t x;
        if (cli_parse_u64_in(o->name, v, (uint64_t)p->lo, (uint64_t)p->hi, &x)) return -1;
        *(int *)at = (int)x;
        return run_param_mark(p, &a->req), 0;
    }
    case RP_FLAG: *(int *)at = 1; return run_param_mark(p, &a->req), 0;
    case RP_SWITCH:
        if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0)
            return *(int *)at = strcmp(v, "on") == 0, run_param_mark(p, &a->req), 0;
        break;
    case RP_ENUM:
        if (run_param_set(p, &a->req, v, why, sizeof why) == GQ_OK) return 0;
        break;
    case RP_TEXT: /* the check's own words: a network model's syntax, a framework not modelled yet */
        if (run_param_set(p, &a->req, v, why, sizeof why) == GQ_OK) return 0;
        return cli_error("%s: %s", o->name, why), -1;
    }
    return cli_error("%s '%.*s%s' is not %s", o->name, CLI_CLIP(v), o->allowed), -1;
}

/* ---- the parser -------------------------------------------------------------------------------- */

static int check(const cli_option *o, const char *v)
{
    static const char *const CSV[] = {"csv", NULL};
    char msg[512];
    switch (o->check) {
    case CHK_PLOT: return cli_check_plot(o->name, v);
    case CHK_OUTPUT: return cli_check_output(o->name, v, NULL);
    case CHK_CSV: return cli_check_output(o->name, v, CSV);
    case CHK_DIR: return cli_check_output_dir(o->name, v);
    case CHK_DIST: return gradgen_check(v);
    case CHK_NAMED_DIST:
        if (gradgen_is_named(v)) return 0;
        return cli_error("%s '%.*s%s' is not %s", o->name, CLI_CLIP(v), o->help), -1;
    case CHK_QUANT: {
        qz_params q;
        if (qz_parse_spec(v, &q, msg, sizeof msg) == GQ_OK) return 0;
        return cli_error("%s '%.*s%s': %s", o->name, CLI_CLIP(v), msg), -1;
    }
    case CHK_MODEL: { /* a built-in's name now (a usage error, as for a platform); a file's faults when it is read */
        const size_t len = strlen(v);
        if (strchr(v, '/') || (len > 6 && strcmp(v + len - 6, ".model") == 0)) return 0;
        const char *names[64];
        size_t n = 0;
        char known[512] = "";
        for (; n < gq_builtin_model_count() && n < 64; n++) {
            names[n] = gq_builtin_model_name(n);
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", n ? ", " : "", names[n]);
        }
        if (gq_match_name(v, names, n) >= 0) return 0;
        char near[96];
        return cli_error("%s '%.*s%s': unknown model%s (built-in: %s; or a path to a .model file)", o->name,
                         CLI_CLIP(v), gq_did_you_mean(v, names, n, near, sizeof near), known),
               -1;
    }
    case CHK_PLATFORM: { /* a spec or a name now; a file's faults are data errors, found when it is read */
        size_t len = strlen(v);
        cluster_spec c;
        if ((len > 4 && strcmp(v + len - 4, ".xml") == 0) || cluster_parse(v, &c, msg, sizeof msg) == GQ_OK) return 0;
        return cli_error("%s '%.*s%s': %s", o->name, CLI_CLIP(v), msg), -1;
    }
    default: return 0;
    }
}

/* Two values of a list option that name the same thing: the same text, or quantizer specs with the same canonical
 * form ("terngrad" and "terngrad:pack=2bit"). */
static int same_value(const cli_option *o, const char *x, const char *y)
{
    if (strcmp(x, y) == 0) return 1;
    if (o->check != CHK_QUANT) return 0;
    qz_params p, q;
    char a[256], b[256];
    if (qz_parse_spec(x, &p, NULL, 0) != GQ_OK || qz_parse_spec(y, &q, NULL, 0) != GQ_OK) return 0;
    qz_format_spec(&p, a, sizeof a);
    qz_format_spec(&q, b, sizeof b);
    return strcmp(a, b) == 0;
}

/* An option that takes one value, given a second time (or under its other name: --out and --output): the first would
 * be dropped without a word. */
static int is_list(const cli_option *o) { return (o->type == T_STRS || o->type == T_U64S) && o->cap > 1; }

static int given_before(const cli_option *o, const int *given)
{
    for (size_t k = 0; k < NALL; k++) {
        if (!given[k] || is_list(&ALL[k])) continue;
        const cli_option *g = &ALL[k];
        if (g == o || (g->rp && g->rp == o->rp) ||
            (!g->rp && !o->rp && g->type != T_ENUM && g->field == o->field && g->type == o->type &&
             g->count == o->count))
            return (int)k;
    }
    return -1;
}

static int set(const cli_option *o, const char *v, cli_args *a)
{
    if (o->rp) return set_param(o, v, a);
    char *base = (char *)a;
    switch (o->type) {
    case T_STR: *(const char **)(base + o->field) = v; return 0;
    case T_FLAG: *(int *)(base + o->field) = 1; return 0;
    case T_ENUM:
        if (o->parse(v, a) == 0) return 0;
        return cli_error("%s '%.*s%s' is not %s", o->name, CLI_CLIP(v), o->allowed), -1;
    case T_STRS: {
        size_t *n = (size_t *)(base + o->count);
        if (*n == o->cap) return cli_error("%s: at most %zu", o->name, o->cap), -1;
        const char **vals = (const char **)(base + o->field);
        for (size_t k = 0; k < *n; k++) /* the same value twice would be searched, run or ranked twice */
            if (same_value(o, vals[k], v)) {
                if (strcmp(vals[k], v) == 0) return cli_error("%s '%.*s%s' is given twice", o->name, CLI_CLIP(v)), -1;
                return cli_error("%s '%.*s%s' is the same as '%.*s%s', given before", o->name, CLI_CLIP(v),
                                 CLI_CLIP(vals[k])),
                       -1;
            }
        vals[(*n)++] = v;
        return 0;
    }
    case T_U64:
        return cli_parse_u64_in(o->name, v, (uint64_t)o->lo, o->hi >= 1.8e19 ? UINT64_MAX : (uint64_t)o->hi,
                                (uint64_t *)(base + o->field));
    case T_DBL: return cli_parse_double_in(o->name, v, o->lo, o->hi, o->lo_open, (double *)(base + o->field));
    case T_RUN_PARAMS: return -1;
    case T_U64S: {
        uint64_t *vals = (uint64_t *)(base + o->field);
        size_t *n = (size_t *)(base + o->count);
        if (cli_parse_u64_list(o->name, v, vals, o->cap, n)) return -1;
        for (size_t k = 0; k < *n; k++)
            if (vals[k] < (uint64_t)o->lo || vals[k] > (uint64_t)o->hi)
                return cli_error("%s: %llu is not in %.0f..%.0f", o->name, (unsigned long long)vals[k], o->lo, o->hi),
                       -1;
        if (o->cap == 1 && *n != 1) return cli_error("%s takes one number here", o->name), -1;
        return 0;
    }
    }
    return -1;
}

static const cli_option *find(const char *name, size_t len, cli_cmd cmd, int *exists)
{
    build_options();
    *exists = 0;
    for (size_t i = 0; i < NALL; i++)
        if (strlen(ALL[i].name) == len && strncmp(ALL[i].name, name, len) == 0) {
            *exists = 1;
            if (ALL[i].cmds & B(cmd)) return &ALL[i];
        }
    return NULL;
}

int cli_parse_args(cli_cmd cmd, const char *name, int argc, char **argv, cli_args *a, int operands)
{
    build_options();
    int given[NALL_MAX] = {0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] != '-') {
            if (operands > 0 && !a->positional && arg[0] != '-') {
                a->positional = arg;
                continue;
            }
            cli_error("%s: unknown argument '%.*s%s' (see 'gqsim help %s')", name, CLI_CLIP(arg), name);
            return EXIT_USAGE;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int exists;
        const cli_option *o = find(arg, len, cmd, &exists);
        if (!o) {
            if (exists)
                cli_error("%s: option '%.*s' does not apply to this command (see 'gqsim help %s')", name, (int)len, arg,
                          name);
            else
                cli_error("%s: unknown option '%.*s' (see 'gqsim help %s')", name, (int)len, arg, name);
            return EXIT_USAGE;
        }
        const char *v = NULL;
        if (o->type == T_FLAG) {
            if (eq) return cli_error("%s takes no value", o->name), EXIT_USAGE;
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            cli_error("option '%s' needs a value", o->name);
            return EXIT_USAGE;
        }
        const int before = is_list(o) ? -1 : given_before(o, given);
        if (before >= 0) {
            if (strcmp(ALL[before].name, o->name) == 0)
                cli_error("%s is given twice (it takes one value here)", o->name);
            else
                cli_error("%s and %s are the same option: give one", ALL[before].name, o->name);
            return EXIT_USAGE;
        }
        /* a list given for the first time replaces its default (--workers 2 is [2], not the default's [4, 2]); given
         * again, it adds to what was given */
        if ((o->type == T_STRS || o->type == T_U64S) && !given[o - ALL]) *(size_t *)((char *)a + o->count) = 0;
        if (set(o, v, a) != 0 || (v && check(o, v) != 0)) return EXIT_USAGE;
        given[o - ALL] = 1;
    }
    for (size_t k = 0; k < NALL; k++) {
        if (!(ALL[k].required & B(cmd)) || given[k]) continue;
        cli_error("%s: needs %s %s (see 'gqsim help %s')", name, ALL[k].name,
                  ALL[k].meta ? ALL[k].meta : ALL[k].allowed, name);
        return EXIT_USAGE;
    }
    return 0;
}

/* ---- agreement between MPI ranks ----------------------------------------------------------------- */

/* FNV-1a folded to 52 bits: exact in a double, for comm's allgather of doubles. */
static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The next option in argv (already accepted by cli_parse_args) from *i on, and its value ("" for a flag).
 * @return the option, or NULL past the end. */
static const cli_option *next_given(cli_cmd cmd, int argc, char **argv, int *i, const char **value)
{
    for (; *i < argc; ++*i) {
        const char *arg = argv[*i], *eq = strchr(arg, '=');
        if (arg[0] != '-' || arg[1] != '-') continue;
        int exists;
        const cli_option *o = find(arg, eq ? (size_t)(eq - arg) : strlen(arg), cmd, &exists);
        if (!o) continue;
        *value = o->type == T_FLAG ? "" : eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : "";
        ++*i;
        return o;
    }
    return NULL;
}

int cli_option_given(cli_cmd cmd, int argc, char **argv, const char *name)
{
    const char *v;
    for (int i = 1; i < argc;) {
        const cli_option *o = next_given(cmd, argc, argv, &i, &v);
        if (o && strcmp(o->name, name) == 0) return 1;
    }
    return 0;
}

/* XXH3 of a regular file's bytes folded into h; 0 with *h untouched where it cannot be read whole. */
static int hash_file(const char *path, uint64_t *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    XXH3_state_t *st = XXH3_createState();
    int ok = st && XXH3_64bits_reset(st) == XXH_OK;
    unsigned char buf[65536];
    for (size_t got; ok && (got = fread(buf, 1, sizeof buf, f)) > 0;) ok = XXH3_64bits_update(st, buf, got) == XXH_OK;
    ok = ok && !ferror(f);
    if (ok) {
        const uint64_t x = XXH3_64bits_digest(st);
        *h = fnv(*h, (const char *)&x, sizeof x);
    }
    XXH3_freeState(st);
    fclose(f);
    return ok;
}

/* An input's contents folded into h: a regular file's bytes, a directory's regular files by name and bytes (in name
 * order). @return 0 where the value names neither (a built-in's name: then its text is what must agree). */
static int hash_contents(const char *path, uint64_t *h)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) return hash_file(path, h);
    if (!S_ISDIR(st.st_mode)) return 0;
    struct dirent **list;
    const int n = scandir(path, &list, NULL, alphasort);
    if (n < 0) return 0;
    for (int i = 0; i < n; i++) {
        char full[4400];
        struct stat fs;
        if (snprintf(full, sizeof full, "%s/%s", path, list[i]->d_name) < (int)sizeof full && stat(full, &fs) == 0 &&
            S_ISREG(fs.st_mode) && hash_file(full, h))
            *h = fnv(*h, list[i]->d_name, strlen(list[i]->d_name) + 1);
        free(list[i]);
    }
    free(list);
    return 1;
}

int cli_settings_fingerprint(cli_cmd cmd, int argc, char **argv, const char **names, int *inputs, double *hashes,
                             int cap)
{
    build_options();
    uint64_t h[NALL_MAX];
    for (size_t k = 0; k < NALL; k++) h[k] = 14695981039346656037ull;
    const char *v;
    for (int i = 1; i < argc;) {
        const cli_option *o = next_given(cmd, argc, argv, &i, &v);
        if (!o) break;
        uint64_t *x = &h[o - ALL];
        if (!(o->input && hash_contents(v, x))) *x = fnv(*x, v, strlen(v));
        *x = fnv(*x, "\x1f", 1); /* each value given, in order, ended */
    }
    int n = 0;
    for (size_t k = 0; k < NALL && n < cap; k++)
        if ((ALL[k].cmds & B(cmd)) && !ALL[k].per_rank)
            names[n] = ALL[k].name, inputs[n] = ALL[k].input, hashes[n++] = (double)(h[k] >> 12);
    return n;
}

/* ---- help -------------------------------------------------------------------------------------- */

static const char *value_of(const cli_option *o)
{
    if (o->type == T_FLAG) return "";
    return o->meta ? o->meta : o->allowed;
}

void cli_options_usage(FILE *out, cli_cmd cmd, int col, int width)
{
    build_options();
    int at = col, first = 1;
    for (int pass = 0; pass < 2; pass++) /* required ones first */
        for (size_t k = 0; k < NALL; k++) {
            const cli_option *o = &ALL[k];
            if (!(o->cmds & B(cmd)) || !!(o->required & B(cmd)) != (pass == 0)) continue;
            const char *v = value_of(o);
            char item[256];
            const int len = snprintf(item, sizeof item, "%s%s%s%s%s%s", pass ? "[" : "", o->name, *v ? " " : "", v,
                                     pass ? "]" : "", o->type == T_STRS && o->cap > 1 ? "..." : "");
            if (!first && at + 1 + len > width) {
                fprintf(out, "\n%*s", col, "");
                at = col;
            } else if (!first) {
                fputc(' ', out), at++;
            }
            fputs(item, out);
            at += len;
            first = 0;
        }
}

void cli_options_help(FILE *out, cli_cmd cmd)
{
    build_options();
    for (size_t k = 0; k < NALL; k++) {
        const cli_option *o = &ALL[k];
        if (!(o->cmds & B(cmd))) continue;
        char head[512]; /* the longest list of names whole (a cut name reads as another) */
        const char *v = value_of(o);
        snprintf(head, sizeof head, "%s%s%s", o->name, *v ? " " : "", v);
        char range[96] = "";
        if (o->type == T_U64 || o->type == T_U64S) /* integers as integers: 100000000, not 1e+08 */
            snprintf(range, sizeof range, " [%llu..%llu]", (unsigned long long)o->lo,
                     o->hi >= 1.8e19 ? (unsigned long long)UINT64_MAX : (unsigned long long)o->hi);
        else if (o->type == T_DBL)
            snprintf(range, sizeof range, " [%s%g..%g]", o->lo_open ? ">" : "", o->lo, o->hi);
        if (strlen(head) <= 28)
            fprintf(out, "  %-28s %s%s\n", head, o->help, range);
        else
            fprintf(out, "  %s\n  %-28s %s%s\n", head, "", o->help, range);
    }
}

void cli_run_param_columns_help(FILE *out)
{
    fprintf(out, "\nRun-parameter columns (an empty field: the command line's value, else the default):\n");
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const run_param *p = &RUN_PARAMS[i];
        if (run_param_column(p) < 0) continue;
        char values[160];
        if (p->type == RP_SWITCH || p->type == RP_FLAG)
            snprintf(values, sizeof values, "0|1");
        else if (p->type == RP_ENUM)
            run_param_allowed(p, values, sizeof values);
        else if (p->type == RP_TEXT)
            snprintf(values, sizeof values, "%s", p->meta);
        else
            snprintf(values, sizeof values, "%s%g..%g%s%s", p->lo_open ? ">" : "", p->lo, p->hi, p->unit ? " " : "",
                     p->unit ? p->unit : "");
        fprintf(out, "  %-22s %s (as %s)\n", p->key, values, p->flag);
    }
}
