/* GPU compute profiles: peak FLOP rates and memory bandwidth (data/gpus.csv),
 * published training throughputs (data/gpu_throughput.csv), and the time of
 * one training iteration of a model on a GPU. The time comes from a measured
 * throughput of that (GPU, model) pair where one exists, else from the
 * model's FLOPs and memory traffic through a model fitted with GSL on every
 * measured point and scaled to the GPU's own points, else from the fit alone; every estimate says which it used
 * (docs/model-format.md#compute-time). */
#ifndef GQ_GPU_H
#define GQ_GPU_H

#include <stddef.h>

#include "gq_error.h"
#include "model.h"

typedef struct {
    char name[48];
    double peak_flops;         /* fp32, FLOP/s */
    double mem_bw;             /* bytes/s */
    double compute_capability; /* NVIDIA's major.minor (7.0 a V100); 0 where the file does not say */
    char source[200];
} gpu_spec;

/* TF32 tensor cores: NVIDIA's Ampere (compute capability 8.0) and later. */
#define GPU_TF32_CAPABILITY 8.0

typedef struct {
    char gpu[48], model[MODEL_NAME_MAX], framework[48];
    int batch;
    double images_per_s;
    char source[200];
    precision_kind precision;
} gpu_measurement;

typedef struct {
    gpu_spec *gpus;
    size_t ngpus;
    gpu_measurement *meas; /* fp32: the rows the fit learns from */
    size_t nmeas;
    gpu_measurement *prec; /* other precisions: measured rows only, never fitted (no peak rate to fit them to) */
    size_t nprec;
} gpu_db;

/* Adds GPU rows (header `gpu,peak_fp32_tflops,mem_bw_gbs,source`, or with a
 * compute_capability column before source); a row whose name is already known
 * replaces it (a user's custom row). */
gq_err gpu_db_add_specs(gpu_db *db, const char *csv, const char *file, char *msg, size_t cap);
/* Adds measured rows (header `gpu,model,framework,batch,images_per_s,source`). */
gq_err gpu_db_add_measurements(gpu_db *db, const char *csv, const char *file, char *msg, size_t cap);
/* Adds measured rows of other precisions (header `gpu,model,precision,framework,batch,images_per_s,source`,
 * precision amp or tf32; fp32 rows belong to the table above). */
gq_err gpu_db_add_precision_measurements(gpu_db *db, const char *csv, const char *file, char *msg, size_t cap);
void gpu_db_free(gpu_db *db);

/* Names compare case-insensitively, ignoring spaces, '-' and '_':
 * "GTX 1080 Ti" = "gtx1080ti". */
int gpu_name_eq(const char *a, const char *b);
const gpu_spec *gpu_find(const gpu_db *db, const char *name);

/* The models that measured rows may refer to, for the FLOP-based fit. */
typedef struct {
    const model_t *const *models;
    size_t n;
} model_zoo;

/* measured: a published row at this batch (or the nearest, where it is the only batch of its kind);
 * measured-batches: the line through a GPU and model's published rows at several batches (gpu.c, batch_line) */
typedef enum { COMPUTE_MEASURED, COMPUTE_FITTED, COMPUTE_POOLED, COMPUTE_USER, COMPUTE_BATCH_LINE } compute_source;
const char *compute_source_name(compute_source s);

typedef struct {
    double fwd_s, bwd_s, iter_s; /* one iteration of `batch` images */
    double images_per_s;
    /* the model's direct-convolution training FLOPs at this rate over the fp32 peak: above 1 where Winograd or FFT
     * convolutions do fewer multiplications than the direct count, so not an efficiency */
    double flops_vs_peak;
    compute_source source;
    const gpu_measurement *basis; /* the measured row used, if any */
    int fit_points;               /* published rows behind the fit (or the batch line) */
    int gpu_points;               /* of which on this GPU (its scale) */
} compute_estimate;

/* Training FLOPs per image: forward x (1 + backward ratio). */
double model_train_flops(const model_t *m);
/* The communication-to-computation ratio of a model: the bytes of its fp32
 * gradient (4 a parameter) over the training FLOPs of one iteration of batch
 * images, in bytes per GFLOP. params and fwd_flops of a whole model or of a
 * layer (with the model's backward ratio); 0 where there are no FLOPs. */
double grad_bytes_per_gflop(double params, double fwd_flops, double backward_ratio, int batch);

/* Iteration time of `m` at `batch` images on `g`.
 *  - user_images_per_s > 0: that throughput (source user);
 *  - else a measured row for (g, m): the one whose batch is nearest
 *    (log scale; ties to the faster), time linear in batch (source measured);
 *  - else the roofline-style fit: seconds per image =
 *      s_g x (a x FLOPs / peak_g + b x activation bytes / bandwidth_g
 *             + c x parameter bytes / (bandwidth_g x batch)),
 *    a, b, c fitted with GSL over every measured row of a model in `zoo`
 *    (relative least squares), s_g the geometric-mean residual of g's own rows
 *    (source fitted), or 1 when g has none (source pooled).
 * `exclude` (may be NULL): its (GPU, model) pair is left out of every fit, for
 * leave-one-out validation. */
gq_err gpu_compute(const gpu_db *db, const model_zoo *zoo, const model_t *m, const gpu_spec *g, int batch,
                   double user_images_per_s, const gpu_measurement *exclude, compute_estimate *out);
/* The same in another precision: user_images_per_s where given, else the row of that precision for (g, m) nearest
 * in batch, else GQ_ERR_PARAM (nothing is fitted outside fp32). PRECISION_FP32 is gpu_compute. */
gq_err gpu_compute_in(const gpu_db *db, const model_zoo *zoo, const model_t *m, const gpu_spec *g, int batch,
                      precision_kind precision, double user_images_per_s, compute_estimate *out);

/* The fitted coefficients (a, b, c) and g's scale (0 when g has no rows);
 * @return the number of measured rows behind the global fit, 0 if none. */
int gpu_fit(const gpu_db *db, const model_zoo *zoo, const gpu_spec *g, const gpu_measurement *exclude, double coef[3],
            double *scale, int *gpu_points);

#endif
