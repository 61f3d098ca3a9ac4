/* GPU profiles and iteration-time estimates; see gpu.h. */
#include "gpu.h"

#include "gq_csv.h"
#include "gq_number.h"
#include "phys_range.h"

#include <ctype.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef gq_err (*row_fn)(gpu_db *db, char **f, int nf, const char *file, int line, char *msg, size_t cap);

/* Every row of a CSV through the shared RFC 4180 reader: the header exactly `header` (or, where given, `alt`, a
 * form with an optional column more), every row its width. */
static gq_err each_row(gpu_db *db, const char *csv, const char *file, const char *header, const char *alt, row_fn fn,
                       char *msg, size_t cap)
{
    int nfields = 0;
    gq_csv *r = malloc(sizeof *r);
    if (!r) return GQ_ERR_NOMEM;
    gq_csv_init(r, csv, strlen(csv));
    const char *why = "empty file";
    int got = gq_csv_next(r, &why);
    gq_err e = GQ_OK;
    if (got <= 0) {
        e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, 1, "%s", why);
    } else {
        char joined[512] = "";
        for (int k = 0; k < r->nfields; k++)
            snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", k ? "," : "", r->field[k]);
        if (strcmp(joined, header) != 0 && !(alt && strcmp(joined, alt) == 0))
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, 1, "header is not '%s'%s%s", header, alt ? " or '" : "",
                           alt ? alt : "");
        nfields = r->nfields;
    }
    while (e == GQ_OK) {
        const int line = r->line;
        got = gq_csv_next(r, &why);
        if (got == 0) break;
        if (got < 0) {
            e = gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "%s", why);
            break;
        }
        if (gq_csv_blank(r)) continue;
        char *f[16];
        for (int k = 0; k < r->nfields && k < 16; k++) f[k] = r->field[k];
        e = r->nfields != nfields
                ? gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "%d fields, expected %d", r->nfields, nfields)
                : fn(db, f, r->nfields, file, line, msg, cap);
    }
    free(r);
    return e;
}

static int positive(const char *s, double *v) { return gq_parse_real_in(s, 0, 1, HUGE_VAL, v) == 0; }

int gpu_name_eq(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '-' || *a == '_') a++;
        while (*b == ' ' || *b == '-' || *b == '_') b++;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        if (!*a) return 1;
        a++, b++;
    }
}

const gpu_spec *gpu_find(const gpu_db *db, const char *name)
{
    for (size_t i = 0; i < db->ngpus; i++)
        if (gpu_name_eq(db->gpus[i].name, name)) return &db->gpus[i];
    return NULL;
}

static gq_err spec_row(gpu_db *db, char **f, int nf, const char *file, int line, char *msg, size_t cap)
{
    gpu_spec g;
    memset(&g, 0, sizeof g);
    if (!f[0][0] || strlen(f[0]) >= sizeof g.name)
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "bad GPU name '%s'", f[0]);
    /* generous bounds (today's GPUs: tens of TFLOP/s, a few TB/s) that still catch a unit slip */
    if (!positive(f[1], &g.peak_flops) || !phys_in_range(PHYS_FLOP_RATE, g.peak_flops * 1e12))
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "peak_fp32_tflops '%.40s': %s must be %s", f[1],
                          phys_range_of(PHYS_FLOP_RATE)->what, phys_bounds_text(PHYS_FLOP_RATE));
    if (!positive(f[2], &g.mem_bw) || !phys_in_range(PHYS_MEMORY_RATE, g.mem_bw * 1e9))
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "mem_bw_gbs '%.40s': %s must be %s", f[2],
                          phys_range_of(PHYS_MEMORY_RATE)->what, phys_bounds_text(PHYS_MEMORY_RATE));
    /* the optional compute capability (NVIDIA's major.minor): what says whether the GPU has TF32 */
    if (nf == 5 && f[3][0] && gq_parse_real_in(f[3], 1, 0, 99, &g.compute_capability) != 0)
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line,
                          "compute_capability '%.40s' must be NVIDIA's major.minor (8.0 for an A100), or empty", f[3]);
    strcpy(g.name, f[0]);
    snprintf(g.source, sizeof g.source, "%s", f[nf - 1]);
    g.peak_flops *= 1e12;
    g.mem_bw *= 1e9;
    for (size_t i = 0; i < db->ngpus; i++)
        if (gpu_name_eq(db->gpus[i].name, g.name)) {
            db->gpus[i] = g;
            return GQ_OK;
        }
    gpu_spec *n = realloc(db->gpus, (db->ngpus + 1) * sizeof *n);
    if (!n) return GQ_ERR_NOMEM;
    db->gpus = n;
    db->gpus[db->ngpus++] = g;
    return GQ_OK;
}

/* A measured row from fields gpu, model, framework, batch, images_per_s, source, into *list. */
static gq_err add_meas(gpu_measurement **list, size_t *count, char **f, precision_kind precision, const char *file,
                       int line, char *msg, size_t cap)
{
    gpu_measurement r;
    memset(&r, 0, sizeof r);
    double batch;
    if (!f[0][0] || strlen(f[0]) >= sizeof r.gpu)
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "bad GPU name '%s'", f[0]);
    if (!f[1][0] || strlen(f[1]) >= sizeof r.model)
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "bad model name '%s'", f[1]);
    if (!positive(f[3], &batch) || batch != floor(batch) || batch > 1e6)
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "batch '%s' is not a positive integer", f[3]);
    if (!positive(f[4], &r.images_per_s) || !phys_in_range(PHYS_IMAGE_RATE, r.images_per_s))
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line, "images_per_s '%.40s': %s must be %s", f[4],
                          phys_range_of(PHYS_IMAGE_RATE)->what, phys_bounds_text(PHYS_IMAGE_RATE));
    strcpy(r.gpu, f[0]);
    strcpy(r.model, f[1]);
    snprintf(r.framework, sizeof r.framework, "%s", f[2]);
    snprintf(r.source, sizeof r.source, "%s", f[5]);
    r.batch = (int)batch;
    r.precision = precision;
    gpu_measurement *n = realloc(*list, (*count + 1) * sizeof *n);
    if (!n) return GQ_ERR_NOMEM;
    *list = n;
    n[(*count)++] = r;
    return GQ_OK;
}

static gq_err meas_row(gpu_db *db, char **f, int nf, const char *file, int line, char *msg, size_t cap)
{
    (void)nf;
    return add_meas(&db->meas, &db->nmeas, f, PRECISION_FP32, file, line, msg, cap);
}

static gq_err prec_row(gpu_db *db, char **f, int nf, const char *file, int line, char *msg, size_t cap)
{
    (void)nf;
    int p = 0;
    while (PRECISION_NAMES[p] && strcmp(PRECISION_NAMES[p], f[2]) != 0) p++;
    if (p != PRECISION_AMP && p != PRECISION_TF32)
        return gq_fail_at(GQ_ERR_SPEC, msg, cap, file, line,
                          "precision '%s' is not amp or tf32 (fp32 rows go in data/gpu_throughput.csv's table)", f[2]);
    char *rest[6] = {f[0], f[1], f[3], f[4], f[5], f[6]}; /* the fp32 table's fields, in its order */
    return add_meas(&db->prec, &db->nprec, rest, (precision_kind)p, file, line, msg, cap);
}

gq_err gpu_db_add_specs(gpu_db *db, const char *csv, const char *file, char *msg, size_t cap)
{
    return each_row(db, csv, file, "gpu,peak_fp32_tflops,mem_bw_gbs,source",
                    "gpu,peak_fp32_tflops,mem_bw_gbs,compute_capability,source", spec_row, msg, cap);
}

gq_err gpu_db_add_measurements(gpu_db *db, const char *csv, const char *file, char *msg, size_t cap)
{
    return each_row(db, csv, file, "gpu,model,framework,batch,images_per_s,source", NULL, meas_row, msg, cap);
}

gq_err gpu_db_add_precision_measurements(gpu_db *db, const char *csv, const char *file, char *msg, size_t cap)
{
    return each_row(db, csv, file, "gpu,model,precision,framework,batch,images_per_s,source", NULL, prec_row, msg, cap);
}

void gpu_db_free(gpu_db *db)
{
    free(db->gpus);
    free(db->meas);
    free(db->prec);
    memset(db, 0, sizeof *db);
}

const char *compute_source_name(compute_source s)
{
    switch (s) {
    case COMPUTE_MEASURED: return "measured";
    case COMPUTE_BATCH_LINE: return "measured-batches";
    case COMPUTE_FITTED: return "fitted";
    case COMPUTE_POOLED: return "pooled";
    case COMPUTE_USER: return "user";
    }
    return "?";
}

double model_train_flops(const model_t *m) { return m->fwd_flops * (1.0 + m->backward_ratio); }

double grad_bytes_per_gflop(double params, double fwd_flops, double backward_ratio, int batch)
{
    const double flops = fwd_flops * (1.0 + backward_ratio) * batch;
    return flops > 0 ? 4.0 * params / (flops / 1e9) : 0;
}

static const model_t *zoo_find(const model_zoo *zoo, const char *name)
{
    for (size_t i = 0; zoo && i < zoo->n; i++)
        if (strcmp(zoo->models[i]->name, name) == 0) return zoo->models[i];
    return NULL;
}

#define NFEAT 3

/* The fit's features for model m on GPU g at a batch: seconds per image if
 * each resource ran at its peak. */
static void features(const model_t *m, const gpu_spec *g, int batch, double *x)
{
    x[0] = model_train_flops(m) / g->peak_flops;
    x[1] = 4.0 * m->activations / g->mem_bw;
    x[2] = 4.0 * (double)model_params(m) / (g->mem_bw * batch);
}

static double dot(const double *a, const double *b)
{
    double s = 0;
    for (int k = 0; k < NFEAT; k++) s += a[k] * b[k];
    return s;
}

static int excluded(const gpu_measurement *r, const gpu_measurement *exclude)
{
    return exclude && gpu_name_eq(r->gpu, exclude->gpu) && strcmp(r->model, exclude->model) == 0;
}

/* min over c of |A c - b| for A n x p (row-major, overwritten) by Householder QR in plain loops, the same sums in the
 * same order on every CPU. GSL's least squares go through the CBLAS the program links, OpenBLAS, whose kernels are
 * chosen by CPU model and sum in different orders: the fitted rates, and every prediction made from them, differed
 * in their last bits from one machine to another (an Intel Xeon that OpenBLAS 0.3.21 does not know runs its generic
 * Prescott kernels). @return 0, or -1 where the columns are dependent. */
static int least_squares_qr(double *A, double *b, size_t n, int p, double *c)
{
    double *v = malloc(n * sizeof *v);
    if (!v) return -1;
    double largest = 0;
    for (int k = 0; k < p; k++) {
        double norm2 = 0;
        for (size_t i = (size_t)k; i < n; i++) norm2 += A[i * p + k] * A[i * p + k];
        const double norm = sqrt(norm2), alpha = A[(size_t)k * p + k] > 0 ? -norm : norm;
        largest = fmax(largest, norm);
        if (!(norm > 1e-13 * largest)) return free(v), -1;
        double v2 = 0; /* the reflection I - 2 v v^T / v^T v takes column k to alpha e_k */
        for (size_t i = (size_t)k; i < n; i++) v[i] = A[i * p + k] - (i == (size_t)k ? alpha : 0), v2 += v[i] * v[i];
        for (int j = k + 1; j <= p; j++) { /* the columns right of k, then b */
            double dotv = 0;
            for (size_t i = (size_t)k; i < n; i++) dotv += v[i] * (j < p ? A[i * p + j] : b[i]);
            const double f = 2 * dotv / v2;
            for (size_t i = (size_t)k; i < n; i++) *(j < p ? &A[i * p + j] : &b[i]) -= f * v[i];
        }
        A[(size_t)k * p + k] = alpha;
    }
    for (int k = p - 1; k >= 0; k--) { /* R c = (Q^T b)'s first p */
        double s = b[k];
        for (int j = k + 1; j < p; j++) s -= A[(size_t)k * p + j] * c[j];
        c[k] = s / A[(size_t)k * p + k];
    }
    free(v);
    return 0;
}

/* Relative least squares (weights 1/y^2) of y = sum coef_k x_k over the
 * usable rows: each row divided by its y, least squares of x / y against 1
 * (least_squares_qr); a coefficient that comes out negative is dropped and
 * the rest refitted, so every term stays a cost. */
static int fit_global(const gpu_db *db, const model_zoo *zoo, const gpu_measurement *exclude, double coef[NFEAT])
{
    size_t n = 0;
    for (size_t i = 0; i < db->nmeas; i++)
        n += !excluded(&db->meas[i], exclude) && zoo_find(zoo, db->meas[i].model) && gpu_find(db, db->meas[i].gpu);
    for (int k = 0; k < NFEAT; k++) coef[k] = 0;
    if (n == 0) return 0;
    int use[NFEAT] = {1, 1, 1};
    for (int attempt = 0; attempt < NFEAT; attempt++) {
        int p = 0;
        for (int k = 0; k < NFEAT; k++) p += use[k];
        if (p == 0 || (size_t)p > n) return 0;
        double *A = malloc(n * (size_t)p * sizeof *A), *b = malloc(n * sizeof *b), c[NFEAT];
        if (!A || !b) return free(A), free(b), 0;
        size_t row = 0;
        for (size_t i = 0; i < db->nmeas; i++) {
            const gpu_measurement *r = &db->meas[i];
            const model_t *m = zoo_find(zoo, r->model);
            const gpu_spec *g = gpu_find(db, r->gpu);
            if (excluded(r, exclude) || !m || !g) continue;
            double x[NFEAT];
            features(m, g, r->batch, x);
            const double yi = 1.0 / r->images_per_s;
            for (int k = 0, col = 0; k < NFEAT; k++)
                if (use[k]) A[row * (size_t)p + (size_t)col++] = x[k] / yi;
            b[row++] = 1;
        }
        const int status = least_squares_qr(A, b, n, p, c);
        free(A), free(b);
        if (status != 0) return 0;
        int negative = -1;
        for (int k = 0, col = 0; k < NFEAT; k++) {
            coef[k] = use[k] ? c[col++] : 0;
            if (use[k] && coef[k] < 0 && negative < 0) negative = k;
        }
        if (negative < 0) return (int)n;
        use[negative] = 0;
    }
    return 0;
}

int gpu_fit(const gpu_db *db, const model_zoo *zoo, const gpu_spec *g, const gpu_measurement *exclude,
            double coef[NFEAT], double *scale, int *gpu_points)
{
    int n = fit_global(db, zoo, exclude, coef);
    double logsum = 0;
    int k = 0;
    for (size_t i = 0; n > 0 && i < db->nmeas; i++) {
        const gpu_measurement *r = &db->meas[i];
        const model_t *m = zoo_find(zoo, r->model);
        if (excluded(r, exclude) || !m || !gpu_name_eq(r->gpu, g->name)) continue;
        double x[NFEAT];
        features(m, g, r->batch, x);
        double pred = dot(coef, x);
        if (pred > 0) logsum += log((1.0 / r->images_per_s) / pred), k++;
    }
    *scale = k ? exp(logsum / k) : 0;
    if (gpu_points) *gpu_points = k;
    return n;
}

/* The measured row for (g, m) nearest in batch, or NULL. */
static const gpu_measurement *nearest_measurement(const gpu_db *db, const model_t *m, const gpu_spec *g, int batch,
                                                  precision_kind precision, const gpu_measurement *exclude)
{
    const gpu_measurement *best = NULL, *rows = precision == PRECISION_FP32 ? db->meas : db->prec;
    const size_t n = precision == PRECISION_FP32 ? db->nmeas : db->nprec;
    double best_d = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const gpu_measurement *r = &rows[i];
        if (r->precision != precision || !gpu_name_eq(r->gpu, g->name) || strcmp(r->model, m->name) != 0) continue;
        if (exclude && gpu_name_eq(r->gpu, exclude->gpu) && strcmp(r->model, exclude->model) == 0) continue;
        double d = fabs(log((double)r->batch / batch));
        if (d < best_d - 1e-12 || (fabs(d - best_d) <= 1e-12 && r->images_per_s > best->images_per_s)) {
            best = r;
            best_d = d;
        }
    }
    return best;
}

/* The iteration time over the batch as a line, t(b) = c + b t1: a cost each iteration pays whatever its batch
 * (kernel launches, the optimizer's pass over the weights, the framework's step) and a cost per image. It is
 * fitted by least squares to the measured rows of r's GPU, model, precision and framework, where they hold two
 * batches or more, and read at `batch`: a GPU's efficiency falls at small batches, as MXNet's published
 * training rates at batch 1 to 128 show (docs/validation.md). @return the seconds per image at `batch`, or 0 where
 * there is no line (fewer than two batches, or a line that is not a cost: t1 <= 0, or t(batch) <= 0). */
static double batch_line(const gpu_measurement *rows, size_t n, const gpu_measurement *r, int batch, int *points)
{
    double x[64], y[64];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof x / sizeof x[0]; i++) {
        const gpu_measurement *q = &rows[i];
        if (q->precision != r->precision || !gpu_name_eq(q->gpu, r->gpu) || strcmp(q->model, r->model) != 0 ||
            strcmp(q->framework, r->framework) != 0)
            continue;
        x[k] = q->batch, y[k] = q->batch / q->images_per_s, k++;
    }
    int two_batches = 0;
    for (size_t i = 1; i < k; i++) two_batches |= x[i] != x[0];
    if (!two_batches) return 0;
    double c, t1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, k, &c, &t1, &cov00, &cov01, &cov11, &sumsq);
    const double t = c + t1 * batch;
    if (!(t1 > 0 && t > 0)) return 0;
    *points = (int)k;
    return t / batch;
}

/* Seconds per image at `batch` from the measured row r (rows: its table): the line through r's batches where there
 * is one, else r's own rate; out's source, basis and fit_points say which. */
static double measured_per_image(const gpu_measurement *rows, size_t n, const gpu_measurement *r, int batch,
                                 compute_estimate *out)
{
    const double line = r->batch == batch ? 0 : batch_line(rows, n, r, batch, &out->fit_points);
    out->source = line > 0 ? COMPUTE_BATCH_LINE : COMPUTE_MEASURED;
    out->basis = line > 0 ? NULL : r;
    return line > 0 ? line : 1.0 / r->images_per_s;
}

/* An iteration of `batch` images at per_image seconds each: its time, split into forward and backward by the
 * model's ratio, and its direct-convolution FLOP rate over g's fp32 peak. */
static void estimate_times(const model_t *m, const gpu_spec *g, int batch, double per_image, compute_estimate *out)
{
    out->iter_s = per_image * batch;
    out->images_per_s = batch / out->iter_s;
    out->fwd_s = out->iter_s / (1.0 + m->backward_ratio);
    out->bwd_s = out->iter_s - out->fwd_s;
    out->flops_vs_peak = model_train_flops(m) * out->images_per_s / g->peak_flops;
}

gq_err gpu_compute(const gpu_db *db, const model_zoo *zoo, const model_t *m, const gpu_spec *g, int batch,
                   double user_images_per_s, const gpu_measurement *exclude, compute_estimate *out)
{
    if (batch < 1) return GQ_ERR_PARAM;
    memset(out, 0, sizeof *out);
    double per_image; /* seconds of forward + backward per image */
    const gpu_measurement *r = NULL;
    if (user_images_per_s > 0) {
        per_image = 1.0 / user_images_per_s;
        out->source = COMPUTE_USER;
    } else if ((r = nearest_measurement(db, m, g, batch, PRECISION_FP32, exclude)) != NULL) {
        per_image = measured_per_image(db->meas, db->nmeas, r, batch, out);
    } else {
        double coef[NFEAT], scale, x[NFEAT];
        int pts;
        int n = gpu_fit(db, zoo, g, exclude, coef, &scale, &pts);
        if (n == 0) return GQ_ERR_PARAM; /* nothing measured anywhere */
        features(m, g, batch, x);
        out->source = scale > 0 ? COMPUTE_FITTED : COMPUTE_POOLED;
        out->fit_points = n;
        out->gpu_points = pts;
        per_image = (scale > 0 ? scale : 1.0) * dot(coef, x);
        if (!(per_image > 0)) return GQ_ERR_PARAM;
    }
    estimate_times(m, g, batch, per_image, out);
    return GQ_OK;
}

gq_err gpu_compute_in(const gpu_db *db, const model_zoo *zoo, const model_t *m, const gpu_spec *g, int batch,
                      precision_kind precision, double user_images_per_s, compute_estimate *out)
{
    if (precision == PRECISION_FP32) return gpu_compute(db, zoo, m, g, batch, user_images_per_s, NULL, out);
    if (batch < 1) return GQ_ERR_PARAM;
    const gpu_measurement *r = user_images_per_s > 0 ? NULL : nearest_measurement(db, m, g, batch, precision, NULL);
    if (!r && !(user_images_per_s > 0)) return GQ_ERR_PARAM;
    memset(out, 0, sizeof *out);
    out->source = COMPUTE_USER;
    const double per_image = r ? measured_per_image(db->prec, db->nprec, r, batch, out) : 1.0 / user_images_per_s;
    estimate_times(m, g, batch, per_image, out); /* efficiency: of fp32's peak */
    return GQ_OK;
}
