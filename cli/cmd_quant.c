/* `gqsim quant ...`: list, encode, decode, roundtrip, bench and sweep — the
 * command-line face of quant/. bench measures each quantizer's encode and
 * decode cost against a memcpy reference timed in the same run; sweep
 * reproduces the ORQ paper's error comparison across bucket sizes. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_core.h"
#include "cli_util.h"
#include "codec_cost.h"
#include "columns.h"
#include "commands.h"
#include "gq_clock.h"
#include "gq_file.h"
#include "gradgen.h"
#include "options.h"
#include "qz.h"
#include "qz_measure.h"

/* ---- shared helpers ------------------------------------------------------------------ */

static int parse_quant(const char *spec, qz_params *p)
{
    char msg[256];
    if (qz_parse_spec(spec, p, msg, sizeof msg) != GQ_OK) {
        cli_error("--quant '%s': %s", spec, msg);
        return -1;
    }
    return 0;
}

/* Encodes into a new buffer; @return its size, or 0 after printing. */
static size_t encode_alloc(const qz_params *p, const float *x, size_t n, uint64_t seed, const char *what,
                           unsigned char **out)
{
    size_t cap = qz_bound(p, n), wcap = qz_workspace_size(p, n);
    if (gq_is_error(cap)) {
        cli_error("%s: %s", what, gq_strerror(gq_error_code(cap)));
        return 0;
    }
    unsigned char *buf = malloc(cap);
    void *work = malloc(wcap ? wcap : 1);
    if (!buf || !work) {
        cli_error("%s: out of memory", what);
        free(buf);
        free(work);
        return 0;
    }
    size_t r = qz_encode(buf, cap, x, n, p, seed, work, wcap);
    free(work);
    if (gq_is_error(r)) {
        if (gq_error_code(r) == GQ_ERR_RANGE)
            cli_error("%s: a value of magnitude %g or more, which %s does not take (its products would overflow "
                      "float)",
                      what, (double)qz_largest_input(p), qz_name(p->id));
        else
            cli_error("%s: %s", what, gq_strerror(gq_error_code(r)));
        free(buf);
        return 0;
    }
    *out = buf;
    return r;
}

/* Decodes a buffer from an untrusted file, of at most max_elements elements; @return n, or 0 after printing. */
static size_t decode_alloc(const unsigned char *buf, size_t size, const char *what, uint64_t max_elements, float **out)
{
    qz_header h;
    gq_err e = qz_peek(buf, size, &h);
    if (e != GQ_OK) {
        cli_error("%s: %s", what, gq_strerror(e));
        return 0;
    }
    /* a header's count is only a claim, checked before any allocation: against what the payload can hold (its exact
     * size, or the least any buffer of that many elements takes), then against the limit, for a count that a small
     * buffer can legitimately hold (a QSGD Elias tensor of zeros in one bucket, top-k of a tiny ratio) */
    const size_t least = h.n <= SIZE_MAX ? qz_least_size(&h.params, (size_t)h.n) : gq_error_result(GQ_ERR_TOO_LARGE);
    if (gq_is_error(least) || size < least) {
        char need[32] = "more than 2^64";
        if (!gq_is_error(least)) snprintf(need, sizeof need, "%zu", least);
        cli_error("%s: %s (its header claims %llu elements, which take at least %s bytes; it has %zu)", what,
                  gq_strerror(GQ_ERR_TRUNCATED), (unsigned long long)h.n, need, size);
        return 0;
    }
    if (h.n > max_elements) {
        cli_error("%s: its header claims %llu elements, more than --max-elements %llu (raise it to decode a tensor "
                  "this large)",
                  what, (unsigned long long)h.n, (unsigned long long)max_elements);
        return 0;
    }
    float *y = h.n <= SIZE_MAX / sizeof(float) ? malloc((size_t)h.n * sizeof *y) : NULL;
    if (!y) {
        cli_error("%s: header claims %llu elements, cannot allocate them", what, (unsigned long long)h.n);
        return 0;
    }
    size_t r = qz_decode(y, (size_t)h.n, buf, size);
    if (gq_is_error(r)) {
        cli_error("%s: %s", what, gq_strerror(gq_error_code(r)));
        free(y);
        return 0;
    }
    *out = y;
    return r;
}

/* Writes y as little-endian float32, a block at a time (no second copy of a large tensor). */
static int write_f32(const char *path, const float *y, size_t n)
{
    FILE *f;
    if (cli_stage_stream(path, &f) != 0) return -1;
    unsigned char block[65536];
    for (size_t i = 0; i < n;) {
        const size_t m = n - i < sizeof block / 4 ? n - i : sizeof block / 4;
        for (size_t k = 0; k < m; k++) {
            uint32_t u;
            memcpy(&u, &y[i + k], 4);
            for (int b = 0; b < 4; b++) block[4 * k + b] = (unsigned char)(u >> (8 * b));
        }
        if (fwrite(block, 4, m, f) != m) break; /* the stream's error is reported when it is closed */
        i += m;
    }
    return cli_close_stream(path, f);
}

/* ---- list -------------------------------------------------------------------------- */

static int quant_list(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    if (cli_parse_command(C_QUANT_LIST, argc, argv, &a)) return EXIT_USAGE;
    const cli_format fmt = (cli_format)a.format;
    gq_table t;
    table_init(&t, QUANT_LIST_COLUMNS, QUANT_LIST_NCOLUMNS);
    for (qz_id id = QZ_FP32; id < QZ_ID_END_; id++) {
        /* whether a ring can sum its messages as they are: always, only under TernGrad's one shared scaler, never */
        qz_params q;
        qz_defaults(id, &q);
        const xch_policy shared = {0}, apart = {.no_scaler_sharing = 1};
        const char *allreduce = !xch_allreduce_compatible(&shared, &q)  ? "no"
                                : !xch_allreduce_compatible(&apart, &q) ? "shared scaler"
                                                                        : "yes";
        table_row(&t, "%s\t%s\t%s\t%s", qz_name(id), *qz_keys_help(id) ? qz_keys_help(id) : "-", allreduce,
                  qz_summary(id));
    }
    table_print(&t, fmt);
    table_free(&t);
    return 0;
}

/* ---- encode, decode, roundtrip ------------------------------------------------------------ */

/* The options of encode, roundtrip and decode. @return 0 or EXIT_USAGE after printing. */
static int parse_codec_args(int argc, char **argv, cli_cmd id, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->max_elements = CLI_MAX_ELEMENTS;
    return cli_parse_command(id, argc, argv, a);
}

static int encode_common(const cli_args *a, const char *cmd, int decode_too)
{
    qz_params p;
    if (parse_quant(a->quant[0], &p) != 0) return EXIT_USAGE;
    if (a->shared_scale > 0) {
        if (p.id != QZ_TERNGRAD) {
            cli_error("--shared-scale: only terngrad has a shared scaler, not %s", qz_name(p.id));
            return EXIT_USAGE;
        }
        p.shared_scale = (float)a->shared_scale;
    }
    float *x;
    size_t n;
    if (cli_read_f32(a->input, a->max_elements, &x, &n) != 0) return 1;
    unsigned char *buf;
    size_t size = encode_alloc(&p, x, n, a->seed, a->input, &buf);
    int rc = 1;
    if (size == 0) goto out;
    if (decode_too) {
        float *y;
        if (decode_alloc(buf, size, cmd, a->max_elements, &y) == 0) goto out_buf;
        rc = write_f32(a->output, y, n) ? 1 : 0;
        free(y);
    } else {
        rc = cli_write_file(a->output, buf, size) ? 1 : 0;
    }
    if (rc == 0) printf("bytes=%zu bits_per_element=%.6g\n", size, 8.0 * (double)size / (double)n);
out_buf:
    free(buf);
out:
    free(x);
    return rc;
}

static int quant_encode(int argc, char **argv)
{
    cli_args a;
    if (parse_codec_args(argc, argv, C_QUANT_ENCODE, &a) != 0) return EXIT_USAGE;
    return encode_common(&a, "encode", 0);
}

static int quant_roundtrip(int argc, char **argv)
{
    cli_args a;
    if (parse_codec_args(argc, argv, C_QUANT_ROUNDTRIP, &a) != 0) return EXIT_USAGE;
    return encode_common(&a, "roundtrip", 1);
}

static int quant_decode(int argc, char **argv)
{
    cli_args a;
    if (parse_codec_args(argc, argv, C_QUANT_DECODE, &a) != 0) return EXIT_USAGE;
    unsigned char *buf;
    size_t size;
    /* the largest buffer of --max-elements elements: 16 bytes each covers every codec's worst case (top-k's u64
     * index and value is 12) */
    const uint64_t limit = a.max_elements < (SIZE_MAX - 65536) / 16 ? a.max_elements * 16 + 65536 : SIZE_MAX - 1;
    if (cli_read_file(a.input, (size_t)limit, &buf, &size) != 0) return 1;
    float *y;
    size_t n = decode_alloc(buf, size, a.input, a.max_elements, &y);
    free(buf);
    if (n == 0) return 1;
    int rc = write_f32(a.output, y, n) ? 1 : 0;
    free(y);
    return rc;
}

/* ---- options shared by bench and sweep ------------------------------------------------------ */

/* ---- bench ------------------------------------------------------------------------------ */

static const char *const DEFAULT_BENCH[] = {
    "fp32",          "fp16",          "terngrad",        "terngrad:pack=trits",
    "qsgd:levels=3", "qsgd:levels=5", "qsgd:levels=9",   "qsgd:levels=5,code=elias",
    "orq:levels=3",  "orq:levels=5",  "orq:levels=9",    "bingrad-b",
    "bingrad-pb",    "signsgd",       "topk:ratio=0.01",
};

/* The CLI's progress line for a table-filling pass (qz_progress_fn): ctx names the pass. */
static void progress_line(void *ctx, size_t done, size_t total, const char *what)
{
    cli_progress(0, "%s %zu/%zu: %s", (const char *)ctx, done, total, what);
}

static int quant_bench(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    a.n = 1u << 22, a.trials = 5, a.seed = 1, a.max_elements = CLI_MAX_ELEMENTS;
    if (cli_parse_command(C_QUANT_BENCH, argc, argv, &a)) return EXIT_USAGE;
    openblas_set_num_threads(1); /* PowerSGD's GEMMs on one core, as every codec here runs */
    const char *specs[MAX_QUANTS], *dist = a.ndist ? a.dist[0] : "gaussian";
    size_t nspecs = a.nquant;
    for (size_t k = 0; k < nspecs; k++) specs[k] = a.quant[k];
    const cli_format fmt = (cli_format)a.format;
    if (nspecs == 0)
        for (size_t k = 0; k < sizeof DEFAULT_BENCH / sizeof DEFAULT_BENCH[0]; k++) specs[nspecs++] = DEFAULT_BENCH[k];
    qz_params params[MAX_QUANTS];
    for (size_t k = 0; k < nspecs; k++)
        if (parse_quant(specs[k], &params[k]) != 0) return EXIT_USAGE;

    size_t count = (size_t)a.n;
    float *x = gradgen(dist, &count, a.seed, a.max_elements);
    if (!x) return 1;
    gq_table t;
    size_t failed = 0;
    const gq_err e =
        qz_bench_table(params, nspecs, x, count, (int)a.trials, a.seed, progress_line, "bench", &t, &failed);
    cli_progress(1, "bench: done");
    int rc = 0;
    if (e != GQ_OK)
        cli_error("%s: %s", specs[failed], gq_strerror(e)), rc = 1;
    else
        table_print(&t, fmt);
    table_free(&t);
    free(x);
    return rc;
}

/* ---- sweep ------------------------------------------------------------------------------ */

static int quant_sweep(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    a.n = 1u << 18, a.trials = 3, a.seed = 1, a.max_elements = CLI_MAX_ELEMENTS;
    static const uint64_t BUCKETS[] = {128, 512, 2048, 8192, 32768}, LEVELS[] = {3, 5, 9};
    memcpy(a.bucket, BUCKETS, sizeof BUCKETS), a.nbucket = 5;
    memcpy(a.levels, LEVELS, sizeof LEVELS), a.nlevels = 3;
    if (cli_parse_command(C_QUANT_SWEEP, argc, argv, &a)) return EXIT_USAGE;
    const uint64_t *buckets = a.bucket, *levels = a.levels;
    const size_t nbuckets = a.nbucket, nlevels = a.nlevels;
    const char *dists[8], *plot = a.plot;
    size_t ndists = a.ndist;
    for (size_t d = 0; d < ndists; d++) dists[d] = a.dist[d];
    const cli_format fmt = (cli_format)a.format;
    if (ndists == 0) dists[ndists++] = "gaussian";
    for (size_t l = 0; l < nlevels; l++)
        if (levels[l] > QZ_ORQ_MAX_LEVELS || levels[l] % 2 == 0) {
            cli_error("--levels %llu: sweep levels must be odd, 3..15 (ORQ and QSGD both apply)",
                      (unsigned long long)levels[l]);
            return EXIT_USAGE;
        }
    gq_table t;
    table_init(&t, QZ_SWEEP_COLUMNS, QZ_SWEEP_NCOLUMNS);
    qz_scheme sch[QZ_SCHEMES_MAX(8)];
    size_t nsch = qz_comparison_schemes(sch, levels, nlevels, buckets[0]);
    /* plot data: one block per (dist, scheme), bucket on x */
    char *dat = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&dat, &len);
    double *nmse = malloc(nbuckets * nsch * sizeof *nmse);
    int rc = f && nmse ? 0 : (cli_error("out of memory"), 1);
    const size_t total = ndists * nbuckets * nsch;
    for (size_t d = 0; d < ndists && rc == 0; d++) {
        size_t count = (size_t)a.n;
        float *x = gradgen(dists[d], &count, a.seed, a.max_elements);
        if (!x) {
            rc = 1;
            break;
        }
        char failed[128];
        if (qz_sweep_rows(dists[d], x, count, buckets, nbuckets, levels, nlevels, (int)a.trials, a.seed, progress_line,
                          "sweep", d * nbuckets * nsch, total, &t, nmse, failed, sizeof failed) != GQ_OK) {
            cli_error("%s: measuring it failed", failed);
            rc = 1;
        }
        free(x);
        for (size_t s = 0; s < nsch && rc == 0; s++) {
            fprintf(f, "# %s %s\n", dists[d], sch[s].label);
            for (size_t b = 0; b < nbuckets; b++)
                fprintf(f, "%llu %.8g\n", (unsigned long long)buckets[b], nmse[b * nsch + s]);
            fprintf(f, "\n\n");
        }
    }
    cli_progress(1, "sweep: done");
    if (f && fclose(f) != 0 && rc == 0) rc = (cli_error("out of memory"), 1);
    if (rc == 0) table_print(&t, fmt);
    if (rc == 0 && plot) {
        const char *names[64], *dnames[64];
        for (size_t s = 0; s < nsch && s < 64; s++) names[s] = sch[s].label;
        for (size_t d = 0; d < ndists && d < 64; d++) dnames[d] = gradgen_is_named(dists[d]) ? dists[d] : "file";
        gp_vars vars = {0};
        gpv_array(&vars, "dists", dnames, ndists < 64 ? ndists : 64);
        gpv_array(&vars, "schemes", names, nsch < 64 ? nsch : 64);
        if (cli_plot("quant_sweep", plot, dat, &vars) != 0) rc = 1;
        gpv_free(&vars);
    }
    free(dat);
    free(nmse);
    table_free(&t);
    return rc;
}

/* ---- codec costs ---------------------------------------------------------------------------- */

/* bench's quantizers but fp32, which costs nothing to encode */
static const char *const *const CALIBRATE_DEFAULT = DEFAULT_BENCH + 1;
#define NCALIBRATE (sizeof DEFAULT_BENCH / sizeof DEFAULT_BENCH[0] - 1)

static const char *const COST_COLUMNS[] = {
    "quant", "device", "encode_ns_fixed", "encode_ns_per_element", "decode_ns_fixed", "decode_ns_per_element",
    "source"};

/* q on this CPU: thread CPU time at four sizes, the median of `trials` at each, a line through them. */
static gq_err calibrate(const qz_params *q, int trials, codec_cost *c)
{
    memset(c, 0, sizeof *c);
    if (q->id == QZ_FP32) return GQ_OK;
    static const size_t SIZES[] = {1u << 10, 1u << 13, 1u << 16, 1u << 19};
    double n[4], te[4], td[4];
    float *x = malloc(SIZES[3] * sizeof *x);
    if (!x) return GQ_ERR_NOMEM;
    codec_cost_gaussian(x, SIZES[3], 1);
    gq_err e = GQ_OK;
    for (int k = 0; e == GQ_OK && k < 4; k++) {
        n[k] = (double)SIZES[k];
        e = qz_measure_cpu(q, x, SIZES[k], trials, &te[k], &td[k]);
        te[k] *= 1e9, td[k] *= 1e9;
    }
    free(x);
    if (e == GQ_OK) codec_cost_fit_line(n, te, td, 4, c);
    return e;
}

/* This machine's CPU, measured: the profile file --codec-costs reads. */
static int quant_calibrate(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    a.trials = 5;
    if (cli_parse_command(C_QUANT_CALIBRATE, argc, argv, &a)) return EXIT_USAGE;
    openblas_set_num_threads(1); /* "one thread", as the profile's source says: PowerSGD's GEMMs too */
    const char *const *specs = a.nquant ? a.quant : CALIBRATE_DEFAULT;
    const size_t n = a.nquant ? a.nquant : NCALIBRATE;
    gq_table t;
    table_init(&t, COST_COLUMNS, 7);
    char cpu[96] = "this CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    for (char line[256]; f && fgets(line, sizeof line, f);)
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
            cpu[strcspn(cpu, "\n")] = '\0';
            break;
        }
    if (f) fclose(f);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        qz_params q;
        char canon[256];
        qz_parse_spec(specs[k], &q, NULL, 0);
        qz_format_spec(&q, canon, sizeof canon);
        cli_progress(0, "calibrate %zu/%zu: %s", k + 1, n, canon);
        codec_cost c;
        gq_err e = calibrate(&q, (int)a.trials, &c);
        if (e != GQ_OK) {
            cli_error("%s: %s", canon, gq_strerror(e));
            rc = 1;
            break;
        }
        table_row(&t,
                  "%s\tcpu\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL
                  "\tgqsim quant calibrate on %s, one thread, median of %llu",
                  canon, c.enc_fixed_ns, c.enc_ns, c.dec_fixed_ns, c.dec_ns, cpu, (unsigned long long)a.trials);
    }
    cli_progress(1, "calibrate: done");
    if (rc == 0) {
        if (a.output)
            rc = table_write_csv(&t, a.output) ? 1 : 0;
        else
            table_print(&t, FMT_CSV);
    }
    table_free(&t);
    return rc;
}

/* What the simulator charges per quantizer on a device, and where it comes from; or the GPU model's fit. */
static int quant_costs(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    if (cli_parse_command(C_QUANT_COSTS, argc, argv, &a)) return EXIT_USAGE;
    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    int rc = 0;
    gq_table t;
    if (a.fit) {
        table_init(&t, QUANT_COSTS_FIT_COLUMNS, QUANT_COSTS_FIT_NCOLUMNS);
        codec_fit_point pts[32];
        double L, eff;
        size_t n = codec_fit(&z.gpus, &L, &eff, pts, 32);
        if (n == 0) {
            cli_error("quant costs --fit: the GPU model could not be fitted");
            rc = 1;
        }
        double errs[32];
        for (size_t k = 0; k < n; k++) {
            errs[k] = 100 * (pts[k].left_out_us - pts[k].published_us) / pts[k].published_us;
            table_row(&t, "%s\t%s\t%s\t%.0f\t%.4g\t%.4g\t%.4g\t%+.0f", pts[k].device, pts[k].codec, pts[k].what,
                      pts[k].elements, pts[k].published_us, pts[k].fitted_us, pts[k].left_out_us, errs[k]);
        }
        if (rc == 0) {
            table_print(&t, (cli_format)a.format);
            for (size_t k = 0; k < n; k++) errs[k] = fabs(errs[k]);
            gsl_sort(errs, 1, n);
            fprintf(a.format == FMT_TABLE ? stdout : stderr,
                    "%s%zu points: %.2f us per kernel launch, %.1f%% of memory bandwidth; leave-one-out error median "
                    "%.0f%%, max %.0f%%\n",
                    a.format == FMT_TABLE ? "\n" : "", n, L, 100 * eff, gsl_stats_median_from_sorted_data(errs, 1, n),
                    errs[n - 1]);
        }
        table_free(&t);
        zoo_free(&z);
        return rc;
    }
    const codec_device on = a.req.run.codec_on;
    const gpu_spec *g = on == CODEC_ON_GPU ? cli_zoo_gpu(&z, a.gpu ? a.gpu : "V100") : NULL;
    codec_profile user = {0};
    char msg[1024];
    if (on == CODEC_ON_GPU && !g) rc = 1;
    if (rc == 0 && a.req.run.codec_costs) {
        char *text;
        size_t len;
        gq_err e = gq_read_file(a.req.run.codec_costs, (size_t)16 << 20, 1, &text, &len, msg, sizeof msg);
        if (e == GQ_OK) {
            e = codec_profile_parse(text, len, a.req.run.codec_costs, &user, msg, sizeof msg);
            free(text);
        }
        if (e != GQ_OK) cli_error("%s", msg), rc = 1;
    }
    table_init(&t, QUANT_COSTS_COLUMNS, QUANT_COSTS_NCOLUMNS);
    const char *const *specs = a.nquant ? a.quant : CALIBRATE_DEFAULT;
    const size_t n = a.nquant ? a.nquant : NCALIBRATE;
    for (size_t k = 0; k < n && rc == 0; k++) {
        qz_params q;
        char canon[256];
        qz_parse_spec(specs[k], &q, NULL, 0);
        qz_format_spec(&q, canon, sizeof canon);
        codec_cost c;
        if (codec_cost_for(&q, on, &z.gpus, g, a.req.run.codec_costs ? &user : NULL, &c, msg, sizeof msg) != GQ_OK) {
            cli_error("%s: %s", canon, msg);
            rc = 1;
            break;
        }
        table_row(&t, "%s\t%s\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t%.4g\t%.4g\t%s", canon,
                  g ? g->name : codec_device_name(on), c.enc_fixed_ns, c.enc_ns, c.dec_fixed_ns, c.dec_ns,
                  codec_encode_ns(&c, 1048576) / 1e3, codec_decode_ns(&c, 1048576) / 1e3, c.source);
    }
    if (rc == 0) table_print(&t, (cli_format)a.format);
    table_free(&t);
    codec_profile_free(&user);
    zoo_free(&z);
    return rc;
}

/* ---- gen ---------------------------------------------------------------------------------- */

/* A synthetic gradient to try the codecs on: the same generator bench and sweep use. */
static int quant_gen(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    a.n = 1u << 20, a.seed = 1;
    if (cli_parse_command(C_QUANT_GEN, argc, argv, &a)) return EXIT_USAGE;
    const char *dist = a.ndist ? a.dist[0] : "gaussian", *output = a.output;
    const cli_args o = a;
    size_t n = (size_t)o.n;
    float *x = gradgen(dist, &n, o.seed, CLI_MAX_ELEMENTS); /* a named distribution: nothing is read */
    if (!x) return 1;
    int rc = write_f32(output, x, n) ? 1 : 0;
    free(x);
    return rc;
}

/* ---- dispatch ---------------------------------------------------------------------------- */

static const char BENCH_DETAILS[] =
    "Columns: bytes and bits_per_element are the exact encoded size (32-byte header included);\n"
    "ratio_vs_fp32 = fp32 bytes / these bytes; encode/decode_ns_per_element are the fastest of the trials;\n"
    "encode/decode_frac_of_ref = the reference row's time (a memcpy of the same floats) / this time, so 1\n"
    "is as fast as copying the gradient once; nmse = mean over trials of ||Q(g) - g||^2 / ||g||^2;\n"
    "bias = ||mean over trials of Q(g) - g||^2 / ||g||^2: for an unbiased quantizer it shrinks as nmse /\n"
    "trials (more --trials, smaller bias), for a biased one (signsgd, topk, bingrad-b) it stays near nmse.\n"
    "levels_err_vs_opt (orq, buckets up to 1024): the expected rounding error of the levels the encoder\n"
    "fits, over that of the exact optimum, summed over 8 buckets spread over the gradient (1 = optimal;\n"
    "fit=hist trades some of it for speed); - where there is no level search.\n"
    "Make a gradient to bench with 'gqsim quant gen', or dump real ones with 'gqsim train --dump-grads'.\n";

static const char ENCODE_DETAILS[] =
    "IN.f32 is raw little-endian float32 (make one with 'gqsim quant gen --output g.f32'); OUT.gq is\n"
    "self-describing (docs/wire-format.md). Prints bytes=N bits_per_element=X, the exact size a simulated\n"
    "transfer is charged. The same seed gives the same bytes.\n";

static const char CALIBRATE_DETAILS[] =
    "Each quantizer is timed in thread CPU time on 2^10, 2^13, 2^16 and 2^19 Gaussian elements, the median of\n"
    "--trials runs (default 5) at each size; a straight line through them (relative least squares) gives the\n"
    "fixed cost per call and the cost per element. Writes quant,device,encode_ns_fixed,encode_ns_per_element,\n"
    "decode_ns_fixed,decode_ns_per_element,source to --output (or stdout). A measurement: it reads the clock,\n"
    "so two runs differ; the predictions made from one file are the same every time.\n";

static const char COSTS_DETAILS[] =
    "Sources in order: --codec-costs rows for the device; on a GPU, published kernel times (Espresso, V100:\n"
    "signsgd as EF-signSGD, fp16), else the fitted model: launches x L + elements x bytes / (bandwidth x\n"
    "efficiency), L and efficiency fitted on the published points (--fit shows them and the leave-one-out\n"
    "error); on the CPU the built-in profile (data/codec_costs_cpu.csv). docs/codec-costs.md.\n";

const cli_command QUANT_CMDS[] = {
    {"list", quant_list, C_QUANT_LIST, NULL, "the quantizers, their keys and defaults", NULL},
    {"gen", quant_gen, C_QUANT_GEN, NULL,
     "write a synthetic gradient (raw float32, 2^20 elements by default) to try the codecs on", NULL},
    {"encode", quant_encode, C_QUANT_ENCODE, NULL, "quantize a raw float32 file into a self-describing buffer",
     ENCODE_DETAILS},
    {"decode", quant_decode, C_QUANT_DECODE, NULL, "decode a buffer back to raw float32", NULL},
    {"roundtrip", quant_roundtrip, C_QUANT_ROUNDTRIP, NULL, "encode and decode in one step", ENCODE_DETAILS},
    {"bench", quant_bench, C_QUANT_BENCH, NULL, "encode/decode cost vs a memcpy reference, exact sizes, error and bias",
     BENCH_DETAILS},
    {"sweep", quant_sweep, C_QUANT_SWEEP, NULL, "ORQ vs QSGD vs TernGrad vs BinGrad error across bucket sizes", NULL},
    {"calibrate", quant_calibrate, C_QUANT_CALIBRATE, NULL,
     "measure this CPU's codec costs (fixed per call, per element) into a profile for --codec-costs",
     CALIBRATE_DETAILS},
    {"costs", quant_costs, C_QUANT_COSTS, NULL,
     "what the simulator charges per quantizer on a device (--gpu, --codec-on), and where it comes from",
     COSTS_DETAILS},
    {NULL, NULL, 0, NULL, NULL, NULL},
};

int cmd_quant(int argc, char **argv) { return cli_dispatch("quant", QUANT_CMDS, argc, argv); }

void help_quant(void) { cli_print_usage(stdout, "quant", QUANT_CMDS); }
