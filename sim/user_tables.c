/* The ping-pong and accuracy-curve readers; see user_tables.h. */
#include "user_tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gq_csv.h"
#include "gq_number.h"
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
        double b = 0, t = 0;
        if (gq_parse_real(r->field[cb], &b) != 0 || gq_parse_real(r->field[ct], &t) != 0 ||
            !phys_in_range(PHYS_MESSAGE_BYTES, b) || !phys_in_range(PHYS_LATENCY, t) || t <= 0) {
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
              ca = e == GQ_OK ? gq_csv_column(r, "accuracy", "test_accuracy") : -1,
              cs = e == GQ_OK ? gq_csv_column(r, "seed", NULL) : -1,
              cw = e == GQ_OK ? gq_csv_column(r, "workers", NULL) : -1;
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
        double acc = NAN;
        if (gq_parse_real_in(r->field[ca], 0, 0, 1, &acc) != 0) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: accuracy '%.40s' must be a fraction in [0, 1]", file, line,
                        r->field[ca]);
            break;
        }
        uint64_t seed = 0, workers = 0;
        if (cs >= 0 && gq_parse_count(r->field[cs], 0, UINT64_MAX, &seed) != 0) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: seed '%.40s' must be a non-negative integer", file, line,
                        r->field[cs]);
            break;
        }
        if (cw >= 0 && gq_parse_count(r->field[cw], 1, UINT64_MAX, &workers) != 0) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: workers '%.40s' must be a positive integer", file, line,
                        r->field[cw]);
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
            curves[k].epochs = curves[k].nseeds = 0;
            curves[k].workers = workers;
            ++*n;
        }
        acc_curve *cv = &curves[k];
        if (workers != cv->workers) {
            e = gq_fail(GQ_ERR_SPEC, msg, mcap,
                        "%s:%d: workers %llu where %s's earlier rows have %llu: a curve is one run's, so give the "
                        "rows of one worker count",
                        file, line, (unsigned long long)workers, canon, (unsigned long long)cv->workers);
            break;
        }
        size_t si = 0;
        while (si < cv->nseeds && cv->seed[si] != seed) si++;
        if (si == cv->nseeds) {
            if (cv->nseeds == ACC_CURVE_MAX_SEEDS) {
                e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: more than %d seeds of %s", file, line, ACC_CURVE_MAX_SEEDS,
                            canon);
                break;
            }
            cv->seed[si] = seed;
            for (int i = 0; i < ACC_CURVE_MAX_EPOCHS; i++) cv->acc[si][i] = NAN;
            cv->nseeds++;
        }
        if (!isnan(cv->acc[si][epoch - 1])) {
            if (cs >= 0)
                e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s:%d: epoch %ld of %s, seed %llu, is given twice", file, line,
                            epoch, canon, (unsigned long long)seed);
            else
                e = gq_fail(GQ_ERR_SPEC, msg, mcap,
                            "%s:%d: epoch %ld of %s is given twice (runs of several seeds need a seed column)", file,
                            line, epoch, canon);
            break;
        }
        cv->acc[si][epoch - 1] = acc;
        if ((size_t)epoch > cv->epochs) cv->epochs = (size_t)epoch;
    }
    /* every seed's run of a quantizer ends at the last epoch any of them has; the epochs between two given ones are
     * interpolated linearly (a curve measured every tenth epoch), those before the first given stay unknown */
    for (int k = 0; e == GQ_OK && k < *n; k++) {
        acc_curve *cv = &curves[k];
        cv->interpolated = 0, cv->first = cv->epochs;
        for (size_t si = 0; e == GQ_OK && si < cv->nseeds; si++) {
            double *acc = cv->acc[si];
            if (isnan(acc[cv->epochs - 1])) {
                size_t last = cv->epochs - 1;
                while (last > 0 && isnan(acc[last - 1])) last--;
                char of_seed[48] = "";
                if (cs >= 0) snprintf(of_seed, sizeof of_seed, ", seed %llu,", (unsigned long long)cv->seed[si]);
                e = gq_fail(GQ_ERR_SPEC, msg, mcap,
                            "%s: %s%s ends at epoch %zu where another run of it ends at epoch %zu (each run of a "
                            "quantizer up to the same last epoch)",
                            file, cv->quant, of_seed, last, cv->epochs);
                break;
            }
            size_t given = 0; /* the last given epoch's index, once one is seen */
            int seen = 0;
            for (size_t i = 0; i < cv->epochs; i++) {
                if (isnan(acc[i])) continue;
                if (!seen && i + 1 < cv->first) cv->first = i + 1;
                for (size_t m = given + 1; seen && m < i; m++) { /* between given + 1 and i + 1 */
                    acc[m] = acc[given] + (acc[i] - acc[given]) * (double)(m - given) / (double)(i - given);
                    cv->interpolated++;
                }
                given = i, seen = 1;
            }
        }
    }
    if (e == GQ_OK && *n == 0) e = gq_fail(GQ_ERR_SPEC, msg, mcap, "%s: no accuracy rows", file);
    free(r);
    return e;
}
