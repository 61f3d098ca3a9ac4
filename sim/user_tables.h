/* Two small CSV inputs users hand gqsim, read by the shared RFC 4180 reader
 * (every row the header's width, FILE:LINE on every refusal) and fuzzed like
 * the other parsers: a ping-pong of the user's network (`platforms
 * calibrate --pingpong`) and accuracy curves (`tta --accuracy-curve`). */
#ifndef GQ_USER_TABLES_H
#define GQ_USER_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "gq_error.h"

/* Rows `bytes,one_way_s` (more columns allowed): bytes a message size and one_way_s a latency within
 * phys_range.h's bounds, at most cap rows. */
gq_err pingpong_parse(const char *text, size_t len, const char *file, double *bytes, double *secs, int cap, int *n,
                      char *msg, size_t mcap);

#define ACC_CURVE_MAX_EPOCHS 1000
#define ACC_CURVE_MAX_SEEDS 16

/* One quantizer's accuracy after each of epochs 1..epochs, for each of its seeds' runs: each epoch given once, or
 * between two given epochs interpolated linearly; before the first given epoch unknown (NaN: no target is reached
 * there, no budget ends there with an accuracy). */
typedef struct {
    char quant[256]; /* canonical spec */
    size_t epochs, nseeds;
    size_t interpolated;                /* how many epochs (over its seeds) were interpolated, not given */
    size_t first;                       /* the first epoch given (1 unless the file starts later) */
    uint64_t workers;                   /* the workers column's count, where the file has one (0: none) */
    uint64_t seed[ACC_CURVE_MAX_SEEDS]; /* as the seed column gives them, in the file's order (0: none) */
    double acc[ACC_CURVE_MAX_SEEDS][ACC_CURVE_MAX_EPOCHS];
} acc_curve;

/* Rows `quant,epoch,accuracy` (or test_accuracy, as `train --format csv` writes), grouped by
 * quantizer into at most cap curves; epochs may be sparse (every tenth), the ones between filled in as above. An
 * optional seed column tells the runs of one quantizer apart (train --seeds writes one), each run ending at the same
 * last epoch; an optional workers column
 * must hold one worker count per quantizer (a curve is a run's, and runs of other sizes are other curves). */
gq_err acc_curves_parse(const char *text, size_t len, const char *file, acc_curve *curves, int cap, int *n, char *msg,
                        size_t mcap);

#endif
