/* What encoding and decoding cost on the device that runs them: per
 * quantizer, a fixed cost per call (a kernel launch, a thread pool's wake)
 * plus a cost per element, as HiPress and Espresso model them. Sources, in
 * order: a user's profile file (--codec-costs, e.g. from `gqsim quant
 * calibrate`); for a GPU, published kernel times (data/codec_costs_published.csv)
 * where the quantizer has one, else a model of its memory traffic over the
 * GPU's bandwidth with a per-launch overhead, fitted on the published
 * points; for the host CPU, the built-in profile measured on this project's
 * machine (data/codec_costs_cpu.csv). Nothing here reads a clock: `quant
 * calibrate` measures with quant/qz_measure.c and fits its line here. */
#ifndef GQ_CODEC_COST_H
#define GQ_CODEC_COST_H

#include "gpu.h"
#include "qz.h"

/* Where encode and decode run. */
typedef enum { CODEC_ON_GPU, CODEC_ON_CPU, CODEC_ON_NONE } codec_device;
extern const char *const CODEC_DEVICE_NAMES[]; /* NULL-terminated, in run_params.c */
const char *codec_device_name(codec_device d);
int codec_device_parse(const char *s, codec_device *out);

typedef struct {
    double enc_fixed_ns, enc_ns; /* per call, per element */
    double dec_fixed_ns, dec_ns;
    char source[160]; /* "V100 published (Espresso)", "P100 fitted", "cpu file costs.csv", ... */
} codec_cost;

/* A profile file: columns quant, device, encode_ns_fixed,
 * encode_ns_per_element, decode_ns_fixed, decode_ns_per_element, source
 * (RFC 4180 CSV; quant is a spec, matched after canonicalisation; device is
 * "cpu" or a GPU's name). */
typedef struct {
    struct codec_cost_row {
        qz_params q;
        char device[48];
        codec_cost cost;
    } * rows;
    size_t n;
    char file[256];
} codec_profile;

gq_err codec_profile_parse(const char *text, size_t len, const char *file, codec_profile *p, char *msg, size_t cap);
void codec_profile_free(codec_profile *p);

/* The cost of quantizer q on `on` (the GPU g, or the host CPU); db gives the
 * bandwidths the GPU model is fitted with. `user` may be NULL. fp32 and
 * CODEC_ON_NONE cost nothing. */
gq_err codec_cost_for(const qz_params *q, codec_device on, const gpu_db *db, const gpu_spec *g,
                      const codec_profile *user, codec_cost *c, char *msg, size_t cap);

/* A parameter server on the host CPU (--ps-on cpu): taking in one contribution of q costs q's CPU decode (c) plus
 * adding it into the aggregate, sum_ns an element (the profile's `fp32,cpu` row, whose "decode" is that addition;
 * the user's profile first, then the built-in one); its reply costs q's CPU encode (c). */
gq_err codec_server_cost_cpu(const qz_params *q, const codec_profile *user, codec_cost *c, double *sum_ns, char *msg,
                             size_t cap);

/* What an RPC runtime's message costs its sender's and its receiver's CPU, in seconds: a fixed part a message and
 * a part a byte (its copies). */
typedef struct {
    double send_s, recv_s;           /* a message */
    double send_byte_s, recv_byte_s; /* a byte */
} rpc_cost;

/* The costs of an RPC runtime (a cluster's rpc=, by its name: "grpc") and where they come from: the built-in
 * data/rpc_costs.csv. */
gq_err rpc_cost_for(const char *rpc, rpc_cost *cost, char *source, size_t source_cap, char *msg, size_t cap);
/* The same from a CSV text (columns rpc, sender_fixed_us, receiver_fixed_us, sender_ns_per_byte,
 * receiver_ns_per_byte, source; others ignored); `file` names it in errors. */
gq_err rpc_cost_parse(const char *text, const char *file, const char *rpc, rpc_cost *cost, char *source,
                      size_t source_cap, char *msg, size_t cap);

/* Nanoseconds of one call on n elements. */
static inline double codec_encode_ns(const codec_cost *c, double n) { return c->enc_fixed_ns + c->enc_ns * n; }
static inline double codec_decode_ns(const codec_cost *c, double n) { return c->dec_fixed_ns + c->dec_ns * n; }

/* ---- the fitted GPU model ----------------------------------------------------------------------- */

/* The model: t = launches x L + n x bytes / (bandwidth x efficiency), with L
 * (microseconds per launch) and 1/efficiency fitted by least squares on the
 * published points. One published point, fitted and left out. */
typedef struct {
    char device[48], codec[32], what[48];
    double elements, published_us, fitted_us, left_out_us;
} codec_fit_point;

/* Fits the model on the published points; fills up to cap points (with
 * leave-one-out predictions). @return how many points, or 0 on failure. */
size_t codec_fit(const gpu_db *db, double *launch_us, double *efficiency, codec_fit_point *points, size_t cap);

/* ---- measuring this machine's CPU ------------------------------------------------------------- */

/* The calibration's fit: fixed and per-element costs from k (elements,
 * encode ns, decode ns) measurements, least squares on relative errors (a
 * fit below zero is taken as zero). */
void codec_cost_fit_line(const double *n, const double *enc_ns, const double *dec_ns, size_t k, codec_cost *c);

/* A Gaussian gradient of n elements (sigma 1e-3, the size of typical
 * gradients), the same for the same seed: what sizes and costs are measured on. */
void codec_cost_gaussian(float *x, size_t n, uint64_t seed);

#endif
