/* Every command-line option of gqsim in one declarative table: its name,
 * type, bounds, the commands it applies to (and those that require it), its
 * help line; the run parameters' rows are made from the library's table
 * (sim/run_params.c), their values set in a sim_request. One parser reads any command's arguments from it, and the
 * usage and help of every command are printed from it, so they cannot
 * drift apart. An option given to a command it does not apply to is a usage
 * error, like an unknown one. */
#ifndef GQ_OPTIONS_H
#define GQ_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

/* The commands that take options, one bit each. */
typedef enum {
    C_QUANT_LIST,
    C_QUANT_GEN,
    C_QUANT_ENCODE,
    C_QUANT_DECODE,
    C_QUANT_ROUNDTRIP,
    C_QUANT_BENCH,
    C_QUANT_SWEEP,
    C_QUANT_CALIBRATE,
    C_QUANT_COSTS,
    C_MODELS_LIST,
    C_MODELS_SHOW,
    C_MODELS_COMPUTE,
    C_GPUS_LIST,
    C_GPUS_FIT,
    C_PLATFORMS_LIST,
    C_PLATFORMS_SHOW,
    C_PLATFORMS_XML,
    C_PLATFORMS_CALIBRATE,
    C_SIMULATE,
    C_SPEEDUP,
    C_REPORT,
    C_VALIDATE,
    C_TRAIN,
    C_TTA,
    C_ADVISE,
    C_SWEEP,
    C_COUNT_
} cli_cmd;

enum { RANK_AUTO, RANK_THROUGHPUT, RANK_COST, RANK_TIME }; /* advise --rank-by */

#define MAX_QUANTS 16
#define MAX_GPU_COUNTS 32
#define MAX_PLATFORMS 8
#define MAX_MODELS 8

/* The values of every option; a command reads the ones it takes. Set the
 * defaults before parsing: the parser overwrites what is given. */
typedef struct {
    const char *positional; /* a command's one operand (models show MODEL, platforms show NAME), or NULL */
    const char *versus;     /* train: the quantizer the others are paired with, seed by seed */
    const char *model, *platform, *gpu, *gpu_file, *plot, *out, *output, *measured, *input, *data, *dump_grads,
        *accuracy_curve, *grid, *per_tensor, *plan, *measured_out, *timings_out, *pingpong;
    const char *quant[MAX_QUANTS];
    size_t nquant;
    const char *platforms[MAX_PLATFORMS]; /* advise, speedup, report: every --platform */
    size_t nplatforms;
    const char *models[MAX_MODELS]; /* speedup, report: every --model */
    size_t nmodels;
    double gpu_hour_cost; /* --gpu-hour-cost; 0: none */
    int rank_by;          /* advise --rank-by: RANK_AUTO (not given), RANK_THROUGHPUT, RANK_COST, RANK_TIME */
    const char *dist[8];
    size_t ndist;
    uint64_t gpus[MAX_GPU_COUNTS], bucket[32], levels[8], workers[16], dump_at[64], seeds[16];
    size_t ngpus, nbucket, nlevels, nworkers, ndump_at, nseeds;
    uint64_t batch, n, trials, seed, epochs, nodes, train_limit, test_limit, dataset_size, top;
    uint64_t max_elements; /* the most elements a file read or a buffer decoded may hold (CLI_MAX_ELEMENTS) */
    double target, budget;
    double shared_scale, lr, momentum, weight_decay;
    int format, optimizer;
    int lr_schedule, step_every; /* --lr-schedule: const, step:E:G, poly:P */
    double step_gamma, poly_power;
    int fit;
    int train;           /* advise: train the accuracy curves */
    sim_request req;     /* the run parameters (sim/run_params.c), each at its place in a request */
    int mpi, train_sync; /* train: over MPI; its train_sync */
} cli_args;

/* Parses argv[1..argc) for command cmd ("gqsim NAME" in messages): options
 * from the table, and at most `operands` operands (into a->positional).
 * @return 0, or EXIT_USAGE (2) after printing one line. */
int cli_parse_args(cli_cmd cmd, const char *name, int argc, char **argv, cli_args *a, int operands);

/* For the commands that run under mpirun: one number per option of cmd that every rank must share (all but where
 * output goes), hashing the values as given in argv (already accepted by cli_parse_args) -- of an input file or
 * directory its contents, not its name -- in option-table order, with the option's name and whether it is an input.
 * Ranks compare them before any work (cli_ranks_agree). @return how many (at most cap). */
int cli_settings_fingerprint(cli_cmd cmd, int argc, char **argv, const char **names, int *inputs, double *hashes,
                             int cap);

/* Under mpirun (comm->size > 1), before any work: every rank's command, version, options and input files' contents
 * against rank 0's (cli_ranks.c). On a difference every rank prints one line naming it ("WHAT: rank 1 was started
 * with another --gpus than rank 0") and waits for the others to have printed theirs. @return 0, or -1. */
struct train_comm;
int cli_ranks_agree(cli_cmd cmd, const char *what, struct train_comm *comm, int argc, char **argv);
/* The one way a command starts over MPI: opens it (comm_mpi_open) and, before any work, cli_ranks_agree. @return 0;
 * 1 where MPI could not start, EXIT_USAGE where the ranks disagree (MPI closed again), after printing. */
int cli_mpi_start(cli_cmd cmd, const char *what, struct train_comm *comm, int argc, char **argv);

/* 1 if option `name` was given in argv (already accepted by cli_parse_args), not left at its default. */
int cli_option_given(cli_cmd cmd, int argc, char **argv, const char *name);

/* "--gpus N [--model M] [--quant SPEC]..." for a usage line that has reached column col: an option that would
 * pass column `width` starts a new line, indented to col (a line of one option may be longer). */
void cli_options_usage(FILE *out, cli_cmd cmd, int col, int width);
/* One line per option the command takes: name, value, help. */
void cli_options_help(FILE *out, cli_cmd cmd);
/* validate's optional columns, one per run parameter that has one: its key, its values, the option it stands for. */
void cli_run_param_columns_help(FILE *out);

#endif
