/* Codec cost profiles; see codec_cost.h. */
#include "codec_cost.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_csv.h"
#include "rng.h"
#include "zoo.h" /* gq_builtin_data: the published points and the CPU profile */

const char *codec_device_name(codec_device d) { return (unsigned)d < 3 ? CODEC_DEVICE_NAMES[d] : "?"; }

int codec_device_parse(const char *s, codec_device *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, CODEC_DEVICE_NAMES[i]) == 0) return *out = (codec_device)i, 0;
    return -1;
}

void codec_cost_gaussian(float *x, size_t n, uint64_t seed)
{
    rng_t r;
    rng_init(&r, seed);
    for (size_t i = 0; i < n; i += 2) {
        double z0, z1;
        rng_gaussian_pair(&r, 1e-3, &z0, &z1);
        x[i] = (float)z0;
        if (i + 1 < n) x[i + 1] = (float)z1;
    }
}

/* The row of q on device: any_params 0, q exactly; 1, the same quantizer and wire (packing, index width) with other
 * parameters; 2, the same quantizer. */
static const struct codec_cost_row *profile_find(const codec_profile *p, const qz_params *q, const char *device,
                                                 int any_params)
{
    for (size_t i = 0; p && i < p->n; i++) {
        const qz_params *r = &p->rows[i].q;
        if (gpu_name_eq(p->rows[i].device, device) &&
            (any_params == 2   ? r->id == q->id
             : any_params == 1 ? r->id == q->id && r->pack == q->pack && r->index == q->index
                               : memcmp(r, q, sizeof *q) == 0))
            return &p->rows[i];
    }
    return NULL;
}

/* ---- the GPU model ------------------------------------------------------------------------------ */

/* A kernel sequence: launches, and bytes moved per element (reads + writes,
 * with per-bucket sorts counted as the passes they make). These are this
 * project's estimates from each algorithm (docs/codec-costs.md), the
 * regressors of the fit, not measurements. */
typedef struct {
    double launches, bytes;
} traffic;

typedef struct {
    traffic enc, dec;
} codec_traffic;

static codec_traffic traffic_of(const qz_params *q)
{
    double enc[2], dec[2];
    qz_gpu_traffic(q, enc, dec); /* each codec's row holds its own */
    return (codec_traffic){{enc[0], enc[1]}, {dec[0], dec[1]}};
}

/* The published kernels, described the same way (Espresso's codecs). */
typedef struct {
    const char *codec;
    codec_traffic t;
    qz_id ours; /* the quantizer of ours it stands for, or 0 */
} published_codec;

/* Espresso's codecs are sequences of PyTorch operations, one launch each; a
 * bit-packed decode unpacks through a byte tensor (read 1/8, write 1; read 1,
 * write 4; scale: read 4, write 4). */
static const published_codec PUBLISHED[] = {
    {"fp16", {{1, 6}, {1, 6}}, QZ_FP16},
    {"efsignsgd", {{4, 28}, {3, 14.125}}, QZ_SIGNSGD}, /* error feedback: add, norm, sign, residual */
    {"onebit", {{6, 32}, {3, 14.125}}, 0},             /* two cell means per bucket, then bits */
    {"dgc", {{6, 10.08}, {2, 4.08}}, 0},               /* sampled threshold, mask, nonzero, gather 1% */
    {"randomk", {{2, 0.08}, {2, 4.08}}, 0},            /* random indices, gather; zero-fill and scatter */
};
#define NPUBLISHED (sizeof PUBLISHED / sizeof PUBLISHED[0])

typedef struct {
    char device[48];
    const published_codec *codec;
    int decode; /* 0: compress (encode), 1: decompress (decode) */
    double elements, us;
} published_point;

/* The published one-level points, compress = (compress + decompress) - decompress. */
static size_t parse_published(published_point *pts, size_t cap)
{
    const char *text = gq_builtin_data("codec_costs_published");
    if (!text) return 0;
    gq_csv *r = malloc(sizeof *r);
    if (!r) return 0;
    gq_csv_init(r, text, strlen(text));
    const char *why;
    size_t n = 0;
    if (gq_csv_next(r, &why) != 1) return free(r), 0;
    int cd = gq_csv_column(r, "device", NULL), cc = gq_csv_column(r, "codec", NULL),
        cw = gq_csv_column(r, "what", NULL), ce = gq_csv_column(r, "elements", NULL),
        ct = gq_csv_column(r, "time_us", NULL);
    struct {
        char device[48], codec[32];
        double both, dec, elements;
        int has_both, has_dec, is_cast;
    } acc[32];
    size_t nacc = 0;
    while (cd >= 0 && cc >= 0 && cw >= 0 && ce >= 0 && ct >= 0 && gq_csv_next(r, &why) == 1) {
        if (gq_csv_blank(r)) continue;
        const char *what = r->field[cw];
        int both = strcmp(what, "compress+decompress one-level") == 0, dec = strcmp(what, "decompress one-level") == 0,
            cast = strcmp(what, "cast") == 0;
        if (!both && !dec && !cast) continue; /* two-level runs compress twice: not a single call */
        size_t k = 0;
        while (k < nacc && !(strcmp(acc[k].device, r->field[cd]) == 0 && strcmp(acc[k].codec, r->field[cc]) == 0)) k++;
        if (k == nacc) {
            if (nacc == 32) break;
            memset(&acc[k], 0, sizeof acc[k]);
            snprintf(acc[k].device, sizeof acc[k].device, "%.47s", r->field[cd]);
            snprintf(acc[k].codec, sizeof acc[k].codec, "%.31s", r->field[cc]);
            nacc++;
        }
        double us = atof(r->field[ct]);
        acc[k].elements = atof(r->field[ce]);
        if (both || cast) acc[k].both = us, acc[k].has_both = 1, acc[k].is_cast = cast;
        if (dec) acc[k].dec = us, acc[k].has_dec = 1;
    }
    free(r);
    for (size_t k = 0; k < nacc; k++) {
        const published_codec *pc = NULL;
        for (size_t i = 0; i < NPUBLISHED; i++)
            if (strcmp(PUBLISHED[i].codec, acc[k].codec) == 0) pc = &PUBLISHED[i];
        if (!pc || !acc[k].has_both) continue;
        published_point pt = {"", pc, 0, acc[k].elements, 0};
        snprintf(pt.device, sizeof pt.device, "%.47s", acc[k].device);
        if (acc[k].is_cast) { /* one conversion each way: the same kernel */
            for (int d = 0; d < 2 && n < cap; d++) pt.decode = d, pt.us = acc[k].both, pts[n++] = pt;
        } else if (acc[k].has_dec && n + 2 <= cap) {
            pt.decode = 0, pt.us = acc[k].both - acc[k].dec, pts[n++] = pt;
            pt.decode = 1, pt.us = acc[k].dec, pts[n++] = pt;
        }
    }
    return n;
}

/* The published points, read once: they are compiled in. */
static const published_point *published(size_t *n)
{
    static published_point pts[64];
    static size_t count;
    static int done;
    if (!done) count = parse_published(pts, 64), done = 1;
    *n = count;
    return pts;
}

/* Least squares of t = launches L + (n bytes / bw) / efficiency over the points except `skip`, each point's
 * relative error counting. Divided through by its launches (a >= 1), a point is one of a straight line,
 * t/a = L + (x/a) / efficiency with weight a^2/t^2: the same minimum, found by gsl_fit_wlinear in plain loops.
 * (gsl_multifit_wlinear found it through the CBLAS the program links, OpenBLAS, whose kernels differ from CPU to
 * CPU in the last bits: the fitted costs, and the goldens that print them, did too.) @return 0, or -1 if it
 * cannot be fitted. */
static int fit_points(const gpu_db *db, const published_point *pts, size_t n, size_t skip, double *L, double *inv_eff)
{
    double x[64], y[64], w[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < 64; i++) {
        const gpu_spec *g = gpu_find(db, pts[i].device);
        if (i == skip || !g) continue;
        const traffic *t = pts[i].decode ? &pts[i].codec->t.dec : &pts[i].codec->t.enc;
        const double a = t->launches;
        if (!(a > 0)) return -1;
        x[m] = pts[i].elements * t->bytes / g->mem_bw * 1e6 / a; /* microseconds at full bandwidth, a launch */
        y[m] = pts[i].us / a;
        w[m] = a * a / (pts[i].us * pts[i].us);
        m++;
    }
    if (m < 3) return -1;
    double cov00, cov01, cov11, chisq;
    int rc = gsl_fit_wlinear(x, 1, w, 1, y, 1, m, L, inv_eff, &cov00, &cov01, &cov11, &chisq);
    return rc == 0 && *L >= 0 && *inv_eff > 0 ? 0 : -1;
}

static double predict_us(const traffic *t, double elements, double bw, double L, double inv_eff)
{
    return t->launches * L + elements * t->bytes / bw * 1e6 * inv_eff;
}

size_t codec_fit(const gpu_db *db, double *launch_us, double *efficiency, codec_fit_point *out, size_t cap)
{
    size_t n;
    const published_point *pts = published(&n);
    double L, inv;
    if (fit_points(db, pts, n, (size_t)-1, &L, &inv) != 0) return 0;
    *launch_us = L, *efficiency = 1 / inv;
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        const gpu_spec *g = gpu_find(db, pts[i].device);
        if (!g) continue;
        const traffic *t = pts[i].decode ? &pts[i].codec->t.dec : &pts[i].codec->t.enc;
        double Lo, io;
        codec_fit_point *p = &out[k++];
        memset(p, 0, sizeof *p);
        snprintf(p->device, sizeof p->device, "%.47s", pts[i].device);
        snprintf(p->codec, sizeof p->codec, "%s", pts[i].codec->codec);
        snprintf(p->what, sizeof p->what, "%s", pts[i].decode ? "decode" : "encode");
        p->elements = pts[i].elements;
        p->published_us = pts[i].us;
        p->fitted_us = predict_us(t, pts[i].elements, g->mem_bw, L, inv);
        p->left_out_us =
            fit_points(db, pts, n, i, &Lo, &io) == 0 ? predict_us(t, pts[i].elements, g->mem_bw, Lo, io) : NAN;
    }
    return k;
}

/* The fitted model's cost of q on GPU g, per call and per element, in ns: its memory traffic at the fitted share of
 * the bandwidth, or where the codec's arithmetic takes longer (PowerSGD's GEMMs at a high rank) that at the GPU's
 * peak rate -- a roofline. @return 1 where the arithmetic bounds either direction. */
static int fitted_cost(const qz_params *q, const gpu_spec *g, double L, double inv, codec_cost *c)
{
    codec_traffic t = traffic_of(q);
    double enc_flops, dec_flops;
    qz_gpu_flops(q, &enc_flops, &dec_flops);
    const double enc_mem = t.enc.bytes / g->mem_bw * 1e9 * inv, dec_mem = t.dec.bytes / g->mem_bw * 1e9 * inv;
    const double enc_alu = g->peak_flops > 0 ? enc_flops / g->peak_flops * 1e9 : 0;
    const double dec_alu = g->peak_flops > 0 ? dec_flops / g->peak_flops * 1e9 : 0;
    c->enc_fixed_ns = t.enc.launches * L * 1e3;
    c->enc_ns = fmax(enc_mem, enc_alu);
    c->dec_fixed_ns = t.dec.launches * L * 1e3;
    c->dec_ns = fmax(dec_mem, dec_alu);
    return enc_alu > enc_mem || dec_alu > dec_mem;
}

/* A published point for q on g: Espresso measures per 2^20-element shard and
 * treats the cost as fixed up to it; here the published time is the cost at
 * 2^20 elements, split into the fitted model's launch overhead and a slope. */
static int published_cost(const qz_params *q, const gpu_spec *g, double L, codec_cost *c)
{
    size_t n;
    const published_point *pts = published(&n);
    double enc_us = -1, dec_us = -1, elements = 0;
    if (q->pack == QZ_PACK_BYTE) return -1; /* the published kernels pack bits */
    for (size_t i = 0; i < n; i++)
        if (pts[i].codec->ours == q->id && gpu_name_eq(pts[i].device, g->name)) {
            elements = pts[i].elements;
            if (pts[i].decode)
                dec_us = pts[i].us;
            else
                enc_us = pts[i].us;
        }
    if (enc_us < 0 || dec_us < 0 || elements <= 0) return -1;
    codec_traffic t = traffic_of(q);
    c->enc_fixed_ns = fmin(t.enc.launches * L, enc_us) * 1e3;
    c->enc_ns = (enc_us * 1e3 - c->enc_fixed_ns) / elements;
    c->dec_fixed_ns = fmin(t.dec.launches * L, dec_us) * 1e3;
    c->dec_ns = (dec_us * 1e3 - c->dec_fixed_ns) / elements;
    return 0;
}

/* ---- the built-in CPU profile ---------------------------------------------------------------------- */

static const codec_profile *builtin_cpu(void)
{
    static codec_profile p;
    static int done;
    if (!done) {
        done = 1;
        const char *text = gq_builtin_data("codec_costs_cpu");
        if (text && codec_profile_parse(text, strlen(text), "data/codec_costs_cpu.csv", &p, NULL, 0) != GQ_OK)
            memset(&p, 0, sizeof p);
    }
    return &p;
}

gq_err codec_cost_for(const qz_params *q, codec_device on, const gpu_db *db, const gpu_spec *g,
                      const codec_profile *user, codec_cost *c, char *msg, size_t cap)
{
    memset(c, 0, sizeof *c);
    if (q->id == QZ_FP32 || on == CODEC_ON_NONE) {
        snprintf(c->source, sizeof c->source, "%s", q->id == QZ_FP32 ? "none (fp32)" : "none (--codec-on none)");
        return GQ_OK;
    }
    char spec[200];
    qz_format_spec(q, spec, sizeof spec);
    const char *device = on == CODEC_ON_CPU ? "cpu" : g->name;
    const struct codec_cost_row *row = profile_find(user, q, device, 0);
    if (row) {
        *c = row->cost;
        return GQ_OK;
    }
    if (on == CODEC_ON_CPU) {
        const codec_profile *b = builtin_cpu();
        row = profile_find(b, q, "cpu", 0);
        const char *how = "built-in";
        if (!row) row = profile_find(b, q, "cpu", 1), how = "built-in, measured with other parameters";
        if (!row) row = profile_find(b, q, "cpu", 2), how = "built-in, measured with other parameters and wire";
        if (!row)
            return gq_fail(GQ_ERR_PARAM, msg, cap,
                           "no CPU cost for %s (give one with --codec-costs, from 'gqsim quant "
                           "calibrate')",
                           spec);
        *c = row->cost;
        snprintf(c->source, sizeof c->source, "cpu %s (data/codec_costs_cpu.csv)", how);
        return GQ_OK;
    }
    /* the model fitted on the published points, with the bandwidths of the caller's GPU data */
    size_t n;
    const published_point *pts = published(&n);
    double L, inv;
    if (fit_points(db, pts, n, (size_t)-1, &L, &inv) != 0)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "the GPU codec model could not be fitted");
    if (published_cost(q, g, L, c) == 0) {
        snprintf(c->source, sizeof c->source, "%s published (Espresso)", g->name);
        return GQ_OK;
    }
    const int alu = fitted_cost(q, g, L, inv, c);
    snprintf(c->source, sizeof c->source, "%s fitted%s", g->name, alu ? ", FLOP-bound at peak" : "");
    return GQ_OK;
}

gq_err codec_server_cost_cpu(const qz_params *q, const codec_profile *user, codec_cost *c, double *sum_ns, char *msg,
                             size_t cap)
{
    qz_params fp32;
    char why[200];
    if (qz_parse_spec("fp32", &fp32, why, sizeof why) != GQ_OK) return gq_fail(GQ_ERR_PARAM, msg, cap, "%s", why);
    const struct codec_cost_row *sum = profile_find(user, &fp32, "cpu", 0);
    const char *sum_from = user ? user->file : "";
    if (!sum) sum = profile_find(builtin_cpu(), &fp32, "cpu", 0), sum_from = "data/codec_costs_cpu.csv";
    if (!sum)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "no host summation cost (an fp32,cpu row: build/bench_host_sum measures it) for --ps-on cpu");
    codec_cost codec;
    gq_err e = codec_cost_for(q, CODEC_ON_CPU, NULL, NULL, user, &codec, msg, cap);
    if (e != GQ_OK) return e;
    *c = codec;
    *sum_ns = sum->cost.dec_ns;
    snprintf(c->source, sizeof c->source, "server on cpu: sum %.3g ns/element (%.50s)%s%.40s", sum->cost.dec_ns,
             sum_from, q->id == QZ_FP32 ? "" : ", codec ", q->id == QZ_FP32 ? "" : codec.source);
    return GQ_OK;
}

/* ---- calibration ---------------------------------------------------------------------------------------- */

void codec_cost_fit_line(const double *n, const double *enc_ns, const double *dec_ns, size_t k, codec_cost *c)
{
    memset(c, 0, sizeof *c);
    double c0, c1, cov00, cov01, cov11, sumsq, w[16];
    if (k > 16) k = 16;
    for (size_t i = 0; i < k; i++) w[i] = 1 / (enc_ns[i] * enc_ns[i]); /* relative errors: small sizes count */
    gsl_fit_wlinear(n, 1, w, 1, enc_ns, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    c->enc_fixed_ns = c0 > 0 ? c0 : 0, c->enc_ns = c1 > 0 ? c1 : 0;
    for (size_t i = 0; i < k; i++) w[i] = 1 / (dec_ns[i] * dec_ns[i]);
    gsl_fit_wlinear(n, 1, w, 1, dec_ns, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    c->dec_fixed_ns = c0 > 0 ? c0 : 0, c->dec_ns = c1 > 0 ? c1 : 0;
}

/* ---- RPC runtimes: the cost of one message ---------------------------------------------------------- */

gq_err rpc_cost_parse(const char *text, const char *file, const char *rpc, rpc_cost *cost, char *source,
                      size_t source_cap, char *msg, size_t cap)
{
    gq_csv *r = malloc(sizeof *r);
    if (!r) return GQ_ERR_NOMEM;
    gq_csv_init(r, text, strlen(text));
    const char *why = "no header";
    enum { NAME, SEND, RECV, SEND_BYTE, RECV_BYTE, SOURCE, NCOLS };
    int col[NCOLS];
    static const char *const COLS[NCOLS] = {
        "rpc", "sender_fixed_us", "receiver_fixed_us", "sender_ns_per_byte", "receiver_ns_per_byte", "source"};
    gq_err e = gq_csv_next(r, &why) == 1 ? GQ_OK : gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %s", file, why);
    for (int k = 0; e == GQ_OK && k < NCOLS; k++)
        if ((col[k] = gq_csv_column(r, COLS[k], NULL)) < 0)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: no column %s", file, COLS[k]);
    int found = 0;
    while (e == GQ_OK && !found) {
        const int line = r->line, got = gq_csv_next(r, &why);
        if (got == 0) break;
        if (got < 0) {
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s:%d: %s", file, line, why);
            break;
        }
        if (gq_csv_blank(r) || r->nfields <= col[NAME] || strcmp(r->field[col[NAME]], rpc) != 0) continue;
        double v[NCOLS];
        int bad = 0;
        for (int k = SEND; k <= RECV_BYTE; k++) {
            char *end = NULL;
            v[k] = r->nfields > col[k] ? strtod(r->field[col[k]], &end) : NAN;
            bad |= !end || *end || !(v[k] >= 0 && v[k] < 1e6);
        }
        if (bad) {
            e = gq_fail(GQ_ERR_SPEC, msg, cap,
                        "%s:%d: %s's costs must be microseconds a message and nanoseconds a byte, 0 to 1e6", file, line,
                        rpc);
            break;
        }
        *cost = (rpc_cost){1e-6 * v[SEND], 1e-6 * v[RECV], 1e-9 * v[SEND_BYTE], 1e-9 * v[RECV_BYTE]};
        if (r->nfields <= col[SOURCE] || !r->field[col[SOURCE]][0]) {
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s:%d: %s's row names no source", file, line, rpc);
            break;
        }
        snprintf(source, source_cap, "%s %g+%g us per message, %g+%g ns per byte (%s)", rpc, v[SEND], v[RECV],
                 v[SEND_BYTE], v[RECV_BYTE], file);
        found = 1;
    }
    free(r);
    if (e == GQ_OK && !found) e = gq_fail(GQ_ERR_PARAM, msg, cap, "%s: no row for rpc %s", file, rpc);
    return e;
}

gq_err rpc_cost_for(const char *rpc, rpc_cost *cost, char *source, size_t source_cap, char *msg, size_t cap)
{
    const char *text = gq_builtin_data("rpc_costs");
    if (!text) return gq_fail(GQ_ERR_PARAM, msg, cap, "data/rpc_costs.csv is not built in");
    return rpc_cost_parse(text, "data/rpc_costs.csv", rpc, cost, source, source_cap, msg, cap);
}
