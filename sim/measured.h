/* Measured training throughputs, the rows `gqsim validate` predicts and
 * compares: a CSV file (RFC 4180: quoted fields may hold commas, "" is a
 * quote) whose header names the columns, in any order:
 *   model, gpu, batch (or batch_per_gpu), gpus, images_per_s, and platform
 *   (or machine, with interconnect), optional sync and quant; and any run
 *   parameter of the run that has a column, by its key (RP_COLUMN rows of
 *   run_params.c), read as the table says; a column one or two edits from a known one is
 *   refused as misspelled, others are ignored (a measured breakdown may ride
 *   along). Empty optional fields mean the default.
 * Every number is range-checked here and every error names FILE:LINE. libc,
 * the run-parameter table and the table of rows only, so that it is fuzzed on
 * its own. */
#ifndef GQ_MEASURED_H
#define GQ_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"
#include "gq_table.h"
#include "sim_bounds.h"

#define MEASURED_MAX_GPUS 65536
#define MEASURED_MAX_BATCH 1000000
/* A measured set's rows, each a simulation to run and ~3 kB held (30 MB at most): a bound on memory whatever the file
 * claims */
#define MEASURED_MAX_ROWS 10000

typedef struct {
    int line; /* 1-based line of the file */
    char model[256], gpu[64], platform[512], machine[64], interconnect[64], sync[64], quant[256];
    uint64_t batch, gpus;
    double images_per_s;
    /* the run parameters' columns (run_param_column's index): their text as given, "" where not given */
    char param[RUN_COLUMNS_MAX][RUN_PARAM_TEXT_MAX];
} measured_row;

typedef struct {
    measured_row *rows;
    size_t n;
} measured_set;

/* Parses text[0..len) (need not end in NUL). On failure writes
 * "FILE:LINE: reason" into msg and leaves s empty. @return GQ_OK,
 * GQ_ERR_SPEC or GQ_ERR_NOMEM. */
gq_err measured_parse(const char *text, size_t len, const char *file, measured_set *s, char *msg, size_t cap);
/* A grid of configurations for `gqsim sweep`: the same columns, but only model, gpus and platform (or machine,
 * with gpu) are required; an empty or absent gpu, batch or images_per_s is the platform's GPU, the model's batch,
 * none (0). */
gq_err measured_parse_grid(const char *text, size_t len, const char *file, measured_set *s, char *msg, size_t cap);
void measured_free(measured_set *s);

/* The writer beside the reader: one run the trainer measured (`train --mpi --measured-out`), a row validate
 * reads back. The run parameters among its columns (sync, overlap, fusion, codec_on) are written by their rows
 * of run_params.c from `run`, as the reader reads them; the rest are the measurement's. */
struct sim_request;
extern const char *const MEASURED_RUN_COLUMNS[];
extern const size_t MEASURED_RUN_NCOLUMNS;
typedef struct {
    const char *model, *platform, *gpu, *quant, *source;
    const struct sim_request *run; /* the run's parameters as the trainer ran them (scenario.h) */
    uint64_t batch, gpus, seed;
    double images_per_s, compute_images_per_s, iteration_s, compute_s, slowest_compute_s, encode_s, wait_s, decode_s,
        bytes_sent, bytes_received, iterations, test_accuracy;
} measured_run;
/* Appends m as a row of MEASURED_RUN_COLUMNS to t (initialised with them by the caller). */
void measured_add_run(gq_table *t, const measured_run *m);

#endif
