/* The ping-pong and accuracy-curve readers; see user_tables.h. */
#include "user_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_csv.h"
#include "phys_range.h"
#include "qz.h"

/* The header read, the columns looked up; *r allocated. @return GQ_OK or a FILE:1 error. */
static gq_err open_table(const char *text, size_t len, const char *file, gq_csv **r, char *msg, size_t mcap)
{
    if (!(*r = malloc(sizeof **r))) return GQ_ERR_NOMEM;
    gq_csv_init(*r, text, len);
    const char *why = "empty file, no header";
    if (gq_csv_next(*r, &why) != 1) return gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:1: %s", file, why);
    return GQ_OK;
}

/* The next non-blank row, its first line in *line. @return 1, or 0 at the end or on an error (in *e). */
static int next_row(gq_csv *r, const char *file, int *line, gq_err *e, char *msg, size_t mcap)
{
    for (;;) {
        const char *why;
        *line = r->line;
        const int got = gq_csv_next(r, &why);
        if (got < 0) *e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: %s", file, *line, why);
        if (got <= 0) return 0;
        if (!gq_csv_blank(r)) return 1;
    }
}

gq_err pingpong_parse(const char *text, size_t len, const char *file, double *bytes, double *secs, int cap, int *n,
                      char *msg, size_t mcap)
{
    gq_csv *r;
    *n = 0;
    gq_err e = open_table(text, len, file, &r, msg, mcap);
    const int cb = e == GQ_OK ? gq_csv_column(r, "bytes", NULL) : -1,
              ct = e == GQ_OK ? gq_csv_column(r, "one_way_s", NULL) : -1;
    if (e == GQ_OK && (cb < 0 || ct < 0))
        e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:1: needs columns bytes and one_way_s", file);
    for (int line; e == GQ_OK && next_row(r, file, &line, &e, msg, mcap);) {
        char *e1, *e2;
        const double b = strtod(r->field[cb], &e1), t = strtod(r->field[ct], &e2);
        if (*e1 || *e2 || e1 == r->field[cb] || e2 == r->field[ct] || !phys_in_range(PHYS_MESSAGE_BYTES, b) ||
            !phys_in_range(PHYS_LATENCY, t) || t <= 0) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: bytes must be %s and one_way_s a time %s, above 0", file, line,
                        phys_bounds_text(PHYS_MESSAGE_BYTES), phys_bounds_text(PHYS_LATENCY));
            break;
        }
        if (*n == cap) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: more than %d sizes", file, line, cap);
            break;
        }
        bytes[*n] = b, secs[*n] = t, ++*n;
    }
    if (e == GQ_OK && *n == 0) e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s: no rows", file);
    free(r);
    return e;
}

gq_err acc_curves_parse(const char *text, size_t len, const char *file, acc_curve *curves, int cap, int *n, char *msg,
                        size_t mcap)
{
    gq_csv *r;
    *n = 0;
    gq_err e = open_table(text, len, file, &r, msg, mcap);
    const int cq = e == GQ_OK ? gq_csv_column(r, "quant", NULL) : -1,
              ce = e == GQ_OK ? gq_csv_column(r, "epoch", NULL) : -1,
              ca = e == GQ_OK ? gq_csv_column(r, "accuracy", "test_accuracy") : -1;
    if (e == GQ_OK && (cq < 0 || ce < 0 || ca < 0))
        e = gq_fail(GQ_ERR_SPEC, msg, mcap,
                    "%s:1: needs columns quant, epoch, accuracy (or test_accuracy, as train writes it)", file);
    for (int line; e == GQ_OK && next_row(r, file, &line, &e, msg, mcap);) {
        qz_params q;
        char canon[256], qmsg[256], *end;
        if (qz_parse_spec(r->field[cq], &q, qmsg, sizeof qmsg) != GQ_OK) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: quant '%.100s': %s", file, line, r->field[cq], qmsg);
            break;
        }
        qz_format_spec(&q, canon, sizeof canon);
        const long epoch = strtol(r->field[ce], &end, 10);
        if (*end || end == r->field[ce] || epoch < 1 || epoch > ACC_CURVE_MAX_EPOCHS) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: epoch '%.40s' must be an integer in 1..%d", file, line,
                        r->field[ce], ACC_CURVE_MAX_EPOCHS);
            break;
        }
        const double acc = strtod(r->field[ca], &end);
        if (*end || end == r->field[ca] || !(acc >= 0 && acc <= 1)) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: accuracy '%.40s' must be a fraction in [0, 1]", file, line,
                        r->field[ca]);
            break;
        }
        int k = 0;
        while (k < *n && strcmp(curves[k].quant, canon) != 0) k++;
        if (k == *n) {
            if (*n == cap) {
                e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: more than %d quantizers", file, line, cap);
                break;
            }
            snprintf(curves[k].quant, sizeof curves[k].quant, "%s", canon);
            curves[k].epochs = 0;
            for (int i = 0; i < ACC_CURVE_MAX_EPOCHS; i++) curves[k].acc[i] = NAN;
            ++*n;
        }
        if (!isnan(curves[k].acc[epoch - 1])) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: epoch %ld of %s is given twice", file, line, epoch, canon);
            break;
        }
        curves[k].acc[epoch - 1] = acc;
        if ((size_t)epoch > curves[k].epochs) curves[k].epochs = (size_t)epoch;
    }
    for (int k = 0; e == GQ_OK && k < *n; k++)
        for (size_t i = 0; i < curves[k].epochs; i++)
            if (isnan(curves[k].acc[i])) {
                e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s: %s has no accuracy for epoch %zu (epochs 1..%zu, each once)",
                            file, curves[k].quant, i + 1, curves[k].epochs);
                break;
            }
    if (e == GQ_OK && *n == 0) e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s: no accuracy rows", file);
    free(r);
    return e;
}
