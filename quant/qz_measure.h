/* Measuring quantizers on a gradient: exact encoded size, error (NMSE),
 * bias over repeated seeds, and encode/decode time; a memcpy of the same
 * floats as the reference timed in the same run; and the ORQ paper's
 * comparison at equal numbers of levels; and the tables `gqsim quant bench`
 * and `quant sweep` print. Library code: it reads a clock only when asked
 * to time, and prints nothing. */
#ifndef GQ_QZ_MEASURE_H
#define GQ_QZ_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "gq_table.h"
#include "qz.h"

typedef struct {
    double enc_s, dec_s; /* fastest trial, seconds per call (timed runs only) */
    double nmse;         /* mean over trials of ||Q(g) - g||^2 / ||g||^2 */
    double bias;         /* ||mean over trials of Q(g) - g||^2 / ||g||^2 */
    size_t bytes;        /* encoded size, header included */
} qz_measured;

/* Encodes and decodes x[0..n) `trials` times with seeds seed, seed+1, ...;
 * errors over all trials; with `timed`, times as the fastest trial (each a
 * batch of calls lasting at least 20 ms). @return GQ_OK, GQ_ERR_NOMEM, or the
 * codec's error. */
gq_err qz_measure(const qz_params *p, const float *x, size_t n, int trials, uint64_t seed, int timed, qz_measured *m);

/* The median over `trials` of the calling thread's CPU seconds per encode
 * and per decode of x[0..n) (each trial a batch of calls lasting at least
 * 5 ms of CPU time): what `quant calibrate` fits its profile on. */
gq_err qz_measure_cpu(const qz_params *p, const float *x, size_t n, int trials, double *enc_s, double *dec_s);

/* Seconds to copy n floats, the fastest of `trials`: the bandwidth reference. */
double qz_measure_memcpy(const float *x, size_t n, int trials);

/* One scheme of the comparison: a label (orq-5, qsgd-5-max, ...), its spec, its levels. */
typedef struct {
    char label[32], spec[128];
    unsigned levels;
} qz_scheme;
#define QZ_SCHEMES_MAX(nlevels) (3 * (nlevels) + 4)

/* ORQ, QSGD (max and L2 norm) at each of `levels`, then TernGrad (with and
 * without clipping) and BinGrad-b/-pb, all on buckets of d. @return how many. */
size_t qz_comparison_schemes(qz_scheme *s, const uint64_t *levels, size_t nlevels, uint64_t d);

/* What a table-filling pass reports as it goes (the CLI's progress line): the item it starts, `done` of `total`.
 * NULL: nothing. */
typedef void (*qz_progress_fn)(void *ctx, size_t done, size_t total, const char *what);

/* `quant bench`'s table: the memcpy reference row, then each of params[0..n) measured (timed) on x[0..count):
 * bytes, bits an element, ratio to fp32, encode and decode ns an element and as a fraction of the reference's,
 * NMSE, bias, and an ORQ level search's error over the exact optimum. t gets QZ_BENCH_COLUMNS (initialised here).
 * On a codec's error *failed is its index. @return GQ_OK, or the codec's error. */
extern const char *const QZ_BENCH_COLUMNS[];
extern const size_t QZ_BENCH_NCOLUMNS;
gq_err qz_bench_table(const qz_params *params, size_t n, const float *x, size_t count, int trials, uint64_t seed,
                      qz_progress_fn progress, void *ctx, gq_table *t, size_t *failed);

/* `quant sweep`'s rows for one gradient (dist its name in the rows): the comparison's schemes on each bucket size,
 * untimed, appended to t (initialised by the caller with QZ_SWEEP_COLUMNS); nmse (room for nbuckets x the schemes)
 * gets each scheme's NMSE, bucket-major. `done`: the sweep's items before this gradient's, `total` all of them.
 * On a scheme's error failed_spec names it. @return GQ_OK, or the error. */
extern const char *const QZ_SWEEP_COLUMNS[];
extern const size_t QZ_SWEEP_NCOLUMNS;
gq_err qz_sweep_rows(const char *dist, const float *x, size_t count, const uint64_t *buckets, size_t nbuckets,
                     const uint64_t *levels, size_t nlevels, int trials, uint64_t seed, qz_progress_fn progress,
                     void *ctx, size_t done, size_t total, gq_table *t, double *nmse, char *failed_spec, size_t cap);

#endif
