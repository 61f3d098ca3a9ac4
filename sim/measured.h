/* Measured training throughputs, the rows `gqsim validate` predicts and
 * compares: a CSV file (RFC 4180: quoted fields may hold commas, "" is a
 * quote) whose header names the columns, in any order:
 *   model, gpu, batch (or batch_per_gpu), gpus, images_per_s, and platform
 *   (or machine, with interconnect), optional sync and quant; optional
 *   options of the run: compute_images_per_s (one worker's measured compute
 *   rate, used instead of a GPU profile), codec_on (gpu|cpu|none), overlap
 *   (0|1), fusion (bytes; 0: a bucket per tensor), network_model (LV08 or
 *   CM02 with calibrated factors, checked where it is used), ps_shards
 *   (1..1024: parameter servers of ps-sharded), ps_placement (even,
 *   round-robin or greedy), ps_on (gpu|cpu: where ps and ps-sharded
 *   aggregate), downlink (auto, fp32, requant or terngrad: the
 *   server's reply), fp32_below (elements: smaller tensors travel in fp32),
 *   fp32_last (0|1: the classifier in fp32), fusion_cycle (seconds, 0..10);
 *   the names checked where they are used; others ignored (a
 *   measured breakdown may ride along). Empty optional fields mean the default.
 * Every number is range-checked here and every error names FILE:LINE. libc
 * only, so that it is fuzzed on its own. */
#ifndef GQ_MEASURED_H
#define GQ_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"

#define MEASURED_MAX_GPUS 65536
#define MEASURED_MAX_BATCH 1000000
/* A measured set's rows, each a simulation to run and ~1.5 kB held: a bound on memory whatever the file claims */
#define MEASURED_MAX_ROWS 10000

typedef struct {
    int line; /* 1-based line of the file */
    char model[256], gpu[64], platform[512], machine[64], interconnect[64], sync[64], quant[256];
    uint64_t batch, gpus;
    double images_per_s;
    double compute_images_per_s; /* 0: not given */
    char codec_on[16];           /* "": not given */
    char network_model[96];      /* "": not given */
    int overlap;                 /* -1: not given */
    double fusion;               /* < 0: not given */
    uint64_t ps_shards;          /* 0: not given */
    char ps_placement[16];       /* "": not given */
    char ps_on[8];               /* "": not given */
    char downlink[16];           /* "": not given */
    double fp32_below;           /* < 0: not given */
    int fp32_last;               /* -1: not given */
    double fusion_cycle;         /* < 0: not given */
} measured_row;

typedef struct {
    measured_row *rows;
    size_t n;
} measured_set;

/* Parses text[0..len) (need not end in NUL). On failure writes
 * "FILE:LINE: reason" into msg and leaves s empty. @return GQ_OK,
 * GQ_ERR_SPEC or GQ_ERR_NOMEM. */
gq_err measured_parse(const char *text, size_t len, const char *file, measured_set *s, char *msg, size_t cap);
void measured_free(measured_set *s);

#endif
