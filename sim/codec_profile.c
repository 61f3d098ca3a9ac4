/* Codec cost profile files (--codec-costs, data/codec_costs_cpu.csv): the
 * reader, apart from the cost model so that it is fuzzed on its own (it
 * needs only the CSV reader and quantizer specs); see codec_cost.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_cost.h"
#include "gq_csv.h"
#include "gq_number.h"
#include "phys_range.h"

static gq_err row_fail(codec_profile *p, char *msg, size_t cap, const char *file, int line, const char *what,
                       const char *v)
{
    codec_profile_free(p);
    return gq_fail(GQ_ERR_SPEC, msg, cap, "%s:%d: %s '%.60s'", file, line, what, v);
}

/* A fixed cost up to 1000 s a call; a cost an element up to a second (a codec slower than an element a second is
 * not an input: PHYS_CODEC_NS). */
static double cost_limit(int per_element) { return per_element ? PHYS_CODEC_NS_HI : 1e12; }

gq_err codec_profile_parse(const char *text, size_t len, const char *file, codec_profile *p, char *msg, size_t cap)
{
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", file);
    gq_csv *r = malloc(sizeof *r);
    if (!r) return GQ_ERR_NOMEM;
    gq_csv_init(r, text, len);
    const char *why = "empty file, no header";
    gq_err e = GQ_OK;
    if (gq_csv_next(r, &why) != 1) {
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s:1: %s", file, why);
        goto out;
    }
    static const char *const COLS[] = {
        "quant", "device", "encode_ns_fixed", "encode_ns_per_element", "decode_ns_fixed", "decode_ns_per_element",
        "source"};
    int col[7];
    for (int k = 0; k < 7; k++)
        if ((col[k] = gq_csv_column(r, COLS[k], NULL)) < 0) {
            e = gq_fail(GQ_ERR_SPEC, msg, cap,
                        "%s:1: needs columns quant, device, encode_ns_fixed, encode_ns_per_element, decode_ns_fixed, "
                        "decode_ns_per_element, source",
                        file);
            goto out;
        }
    size_t rcap = 0;
    for (;;) {
        const int line = r->line;
        int got = gq_csv_next(r, &why);
        if (got == 0) break;
        if (got < 0) {
            e = row_fail(p, msg, cap, file, line, why, "");
            goto out;
        }
        if (gq_csv_blank(r)) continue;
        if (p->n == rcap) {
            rcap = rcap ? 2 * rcap : 16;
            struct codec_cost_row *grown = realloc(p->rows, rcap * sizeof *grown);
            if (!grown) {
                codec_profile_free(p);
                e = GQ_ERR_NOMEM;
                goto out;
            }
            p->rows = grown;
        }
        struct codec_cost_row *row = &p->rows[p->n];
        memset(row, 0, sizeof *row);
        char qmsg[256];
        if (qz_parse_spec(r->field[col[0]], &row->q, qmsg, sizeof qmsg) != GQ_OK) {
            e = row_fail(p, msg, cap, file, line, "quant is not a quantizer spec:", r->field[col[0]]);
            goto out;
        }
        if (!r->field[col[1]][0] || strlen(r->field[col[1]]) >= sizeof row->device) {
            e = row_fail(p, msg, cap, file, line, "device is empty or too long:", r->field[col[1]]);
            goto out;
        }
        strcpy(row->device, r->field[col[1]]);
        double *v[4] = {&row->cost.enc_fixed_ns, &row->cost.enc_ns, &row->cost.dec_fixed_ns, &row->cost.dec_ns};
        for (int k = 0; k < 4; k++)
            if (gq_parse_real_in(r->field[col[2 + k]], 0, 0, cost_limit(k % 2), v[k])) {
                char what[96];
                snprintf(what, sizeof what, "%s must be a number of ns in [0, %s], not", COLS[2 + k],
                         k % 2 ? "1e9" : "1e12");
                e = row_fail(p, msg, cap, file, line, what, r->field[col[2 + k]]);
                goto out;
            }
        snprintf(row->cost.source, sizeof row->cost.source, "%s file %s", row->device, file);
        p->n++;
    }
out:
    free(r);
    return e;
}

void codec_profile_free(codec_profile *p)
{
    free(p->rows);
    p->rows = NULL;
    p->n = 0;
}
