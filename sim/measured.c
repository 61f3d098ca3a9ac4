/* The measured-throughput CSV reader; see measured.h. A record is read
 * field by field into one reusable buffer; quoted fields may span commas and
 * newlines, as RFC 4180 allows. */
#include "measured.h"

#include "run_params.h"

#include "gq_csv.h"
#include "gq_number.h"
#include "gq_suggest.h"
#include "phys_range.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number in [lo, hi], or (lo, hi] with lo_open. @return 0, or -1 if s is not one. */
static int parse_real(const char *s, double lo, int lo_open, double hi, double *v)
{
    return gq_parse_real_in(s, lo, lo_open, hi, v);
}

static gq_err fail(measured_set *s, char *msg, size_t cap, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static gq_err fail(measured_set *s, char *msg, size_t cap, const char *file, int line, const char *fmt, ...)
{
    measured_free(s); /* a set is whole or empty */
    va_list ap;
    va_start(ap, fmt);
    gq_vfail_at(GQ_ERR_SPEC, msg, cap, file, line, fmt, ap);
    va_end(ap);
    return GQ_ERR_SPEC;
}

static int copy(char *dst, size_t cap, const char *src)
{
    if (strlen(src) >= cap) return -1;
    strcpy(dst, src);
    return 0;
}

/* The columns this reader knows besides the run parameters'; any other is carried along unread (a source, a
 * run's timings). */
static const char *const KNOWN_COLUMNS[] = {"model",        "gpu",          "batch",    "batch_per_gpu",
                                            "gpus",         "images_per_s", "platform", "machine",
                                            "interconnect", "sync",         "quant",    NULL};

/* A header field one or two edits from a column this reader knows is a misspelling, not an extra column: a
 * misspelled option column would otherwise be carried along unread and the prediction silently change. */
static const char *misspelled(const char *field)
{
    const char *known[sizeof KNOWN_COLUMNS / sizeof KNOWN_COLUMNS[0] + RUN_PARAMS_MAX];
    size_t n = 0;
    for (const char *const *k = KNOWN_COLUMNS; *k; k++) known[n++] = *k;
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++)
        if (run_param_column(&RUN_PARAMS[i]) >= 0) known[n++] = RUN_PARAMS[i].key;
    return gq_suggest(field, known, n);
}

static gq_err parse(const char *text, size_t len, const char *file, int grid, measured_set *s, char *msg, size_t cap)
{
    memset(s, 0, sizeof *s);
    gq_csv *h = malloc(sizeof *h), *r = malloc(sizeof *r);
    if (!h || !r) {
        free(h), free(r);
        return GQ_ERR_NOMEM;
    }
    gq_csv_init(h, text, len);
    const char *why = NULL;
    gq_err e = GQ_OK;
    int got = gq_csv_next(h, &why);
    if (got <= 0) {
        e = fail(s, msg, cap, file, 1, "%s%s", got == 0 ? "empty file, no header" : "header: ", got ? why : "");
        goto out;
    }
    const int cm = gq_csv_column(h, "model", NULL), cg = gq_csv_column(h, "gpu", NULL),
              cb = gq_csv_column(h, "batch", "batch_per_gpu"), cn = gq_csv_column(h, "gpus", NULL),
              ci = gq_csv_column(h, "images_per_s", NULL), cp = gq_csv_column(h, "platform", NULL),
              cmach = gq_csv_column(h, "machine", NULL), cint = gq_csv_column(h, "interconnect", NULL),
              cs = gq_csv_column(h, "sync", NULL), cq = gq_csv_column(h, "quant", NULL);
    int param_col[RUN_COLUMNS_MAX]; /* the run parameters' columns in the file, by run_param_column */
    const run_param *param_of[RUN_COLUMNS_MAX] = {0};
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        const int k = run_param_column(&RUN_PARAMS[i]);
        if (k >= 0) param_col[k] = gq_csv_column(h, RUN_PARAMS[i].key, NULL), param_of[k] = &RUN_PARAMS[i];
    }
    for (int k = 0; k < h->nfields; k++) {
        const char *near = misspelled(h->field[k]);
        if (near) {
            e = fail(s, msg, cap, file, 1, "column '%.60s' is not one gqsim reads: did you mean %s?", h->field[k],
                     near);
            goto out;
        }
    }
    if (grid && (cm < 0 || cn < 0 || (cp < 0 && cmach < 0) || (cmach >= 0 && cg < 0))) {
        e = fail(s, msg, cap, file, 1, "needs columns model, gpus and platform (or machine, with gpu)");
        goto out;
    }
    if (!grid && (cm < 0 || cg < 0 || cb < 0 || cn < 0 || ci < 0 || (cp < 0 && cmach < 0))) {
        e = fail(s, msg, cap, file, 1,
                 "needs columns model, gpu, batch (or batch_per_gpu), gpus, images_per_s and platform (or "
                 "machine)");
        goto out;
    }
    gq_csv_init(r, h->p, (size_t)(h->end - h->p));
    r->line = h->line;
    r->width = h->nfields;
    size_t rcap = 0;
    for (;;) {
        const int line = r->line;
        got = gq_csv_next(r, &why);
        if (got == 0) break;
        if (got < 0) {
            e = fail(s, msg, cap, file, line, "%s", why);
            goto out;
        }
        if (gq_csv_blank(r)) continue;
        if (s->n == MEASURED_MAX_ROWS) {
            e = fail(s, msg, cap, file, line, "more than %d rows (each is a simulation to run)", MEASURED_MAX_ROWS);
            goto out;
        }
        if (s->n == rcap) {
            rcap = rcap ? 2 * rcap : 16;
            measured_row *grown = realloc(s->rows, rcap * sizeof *grown);
            if (!grown) {
                measured_free(s);
                e = GQ_ERR_NOMEM;
                goto out;
            }
            s->rows = grown;
        }
        measured_row *row = &s->rows[s->n];
        memset(row, 0, sizeof *row);
        row->line = line;
        const char *f;
        if (copy(row->model, sizeof row->model, r->field[cm]) || !row->model[0]) {
            e = fail(s, msg, cap, file, line, "model '%.100s' is empty or too long", r->field[cm]);
            goto out;
        }
        if ((cg >= 0 && copy(row->gpu, sizeof row->gpu, r->field[cg])) ||
            (cp >= 0 && copy(row->platform, sizeof row->platform, r->field[cp])) ||
            (cmach >= 0 && copy(row->machine, sizeof row->machine, r->field[cmach])) ||
            (cint >= 0 && copy(row->interconnect, sizeof row->interconnect, r->field[cint])) ||
            (cs >= 0 && copy(row->sync, sizeof row->sync, r->field[cs])) ||
            (cq >= 0 && copy(row->quant, sizeof row->quant, r->field[cq]))) {
            e = fail(s, msg, cap, file, line,
                     "a gpu, platform, machine, interconnect, sync or quant field is too long");
            goto out;
        }
        if (!row->platform[0] && !row->machine[0]) {
            e = fail(s, msg, cap, file, line, "needs a platform or a machine");
            goto out;
        }
        if (!(grid && (cb < 0 || !*r->field[cb])) &&
            gq_parse_count(f = r->field[cb], 1, MEASURED_MAX_BATCH, &row->batch)) {
            e = fail(s, msg, cap, file, line, "batch '%.40s' must be an integer in 1..%d", f, MEASURED_MAX_BATCH);
            goto out;
        }
        if (gq_parse_count(f = r->field[cn], 1, MEASURED_MAX_GPUS, &row->gpus)) {
            e = fail(s, msg, cap, file, line, "gpus '%.40s' must be an integer in 1..%d", f, MEASURED_MAX_GPUS);
            goto out;
        }
        if (!(grid && (ci < 0 || !*r->field[ci])) &&
            parse_real(f = r->field[ci], PHYS_IMAGE_RATE_LO, 0, PHYS_IMAGE_RATE_HI, &row->images_per_s)) {
            e = fail(s, msg, cap, file, line, "images_per_s '%.40s': %s must be %s", f,
                     phys_range_of(PHYS_IMAGE_RATE)->what, phys_bounds_text(PHYS_IMAGE_RATE));
            goto out;
        }
        for (int k = 0; k < RUN_COLUMNS_MAX; k++) { /* checked as the simulation will read them */
            if (!param_of[k] || param_col[k] < 0 || !*(f = r->field[param_col[k]])) continue;
            sim_request scratch;
            char why[256];
            if (run_param_set(param_of[k], &scratch, f, why, sizeof why) != GQ_OK) {
                e = fail(s, msg, cap, file, line, "%s", why);
                goto out;
            }
            strcpy(row->param[k], f); /* fits: run_param_set refuses longer texts */
        }
        s->n++;
    }
    if (s->n == 0) e = fail(s, msg, cap, file, r->line > 2 ? r->line - 1 : 1, grid ? "no rows" : "no measured rows");
out:
    free(h), free(r);
    return e;
}

gq_err measured_parse(const char *text, size_t len, const char *file, measured_set *s, char *msg, size_t cap)
{
    return parse(text, len, file, 0, s, msg, cap);
}

gq_err measured_parse_grid(const char *text, size_t len, const char *file, measured_set *s, char *msg, size_t cap)
{
    return parse(text, len, file, 1, s, msg, cap);
}

void measured_free(measured_set *s)
{
    free(s->rows);
    s->rows = NULL;
    s->n = 0;
}

const char *const MEASURED_RUN_COLUMNS[] = {"model",       "platform",       "gpu",
                                            "batch",       "gpus",           "sync",
                                            "quant",       "overlap",        "fusion",
                                            "codec_on",    "images_per_s",   "compute_images_per_s",
                                            "iteration_s", "compute_s",      "slowest_compute_s",
                                            "encode_s",    "wait_s",         "decode_s",
                                            "bytes_sent",  "bytes_received", "iterations",
                                            "seed",        "test_accuracy",  "network_model",
                                            "source"};
const size_t MEASURED_RUN_NCOLUMNS = sizeof MEASURED_RUN_COLUMNS / sizeof MEASURED_RUN_COLUMNS[0];

void measured_add_run(gq_table *t, const measured_run *m)
{
    char params[4][RUN_PARAM_TEXT_MAX];
    static const char *const KEYS[] = {"sync", "overlap", "fusion", "codec_on"};
    for (size_t k = 0; k < 4; k++) run_param_format(run_param_by_key(KEYS[k]), m->run, params[k], sizeof params[k]);
    const char *net = m->run->run.network_model;
    table_row(t,
              "%s\t%s\t%s\t%llu\t%llu\t%s\t%s\t%s\t%s\t%s\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL
              "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t%.0f\t%.0f\t%.0f\t%llu\t%.4f\t%s\t%s",
              m->model, m->platform, m->gpu, (unsigned long long)m->batch, (unsigned long long)m->gpus, params[0],
              m->quant, params[1], params[2], params[3], m->images_per_s, m->compute_images_per_s, m->iteration_s,
              m->compute_s, m->slowest_compute_s, m->encode_s, m->wait_s, m->decode_s, m->bytes_sent, m->bytes_received,
              m->iterations, (unsigned long long)m->seed, m->test_accuracy, net ? net : "", m->source);
}
