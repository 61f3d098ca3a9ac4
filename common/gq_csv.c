/* The CSV record reader (see gq_csv.h) over libcsv, Debian's libcsv-dev, in
 * strict mode: RFC 4180 quoting is libcsv's; what is left here is pulling
 * one record at a time (libcsv pushes whole buffers), line numbers for
 * messages (newlines inside quoted fields counted), the bounds, and reasons
 * that say what was wrong. One parser per record, fed byte by byte, so a
 * record ends exactly where its terminator is; the files read this way are
 * small (at most a few MB). */
#include "gq_csv.h"

#include <csv.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    gq_csv *r;
    const char *why;
    int done;
} record_ctx;

static void on_field(void *s, size_t len, void *data)
{
    record_ctx *x = data;
    gq_csv *r = x->r;
    if (x->why) return;
    if (r->nfields == GQ_CSV_MAX_FIELDS) {
        x->why = "more than 64 fields";
        return;
    }
    if (len >= GQ_CSV_MAX_FIELD) {
        x->why = "a field longer than 1023 bytes";
        return;
    }
    char *f = r->field[r->nfields++];
    if (len) memcpy(f, s, len);
    f[len] = '\0';
}

static void on_record(int terminator, void *data)
{
    (void)terminator;
    ((record_ctx *)data)->done = 1;
}

/* Spaces belong to the field (libcsv would trim them from unquoted ones). */
static int no_space(unsigned char c) { return (void)c, 0; }

/* Past blank lines, so that r->line is where the next record starts. */
static void skip_blank_lines(gq_csv *r)
{
    while (r->p < r->end && (*r->p == '\n' || *r->p == '\r')) {
        if (*r->p == '\r' && r->p + 1 < r->end && r->p[1] == '\n') r->p++;
        r->p++, r->line++;
    }
}

void gq_csv_init(gq_csv *r, const char *text, size_t len)
{
    r->p = text, r->end = text + len, r->line = 1, r->nfields = 0, r->width = 0;
    skip_blank_lines(r);
}

int gq_csv_next(gq_csv *r, const char **why)
{
    for (int i = 0; i < r->nfields; i++) r->field[i][0] = '\0';
    r->nfields = 0;
    if (r->p >= r->end) return 0;
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) return *why = "out of memory", -1;
    csv_set_space_func(&p, no_space);
    record_ctx x = {r, NULL, 0};
    while (r->p < r->end && !x.done && !x.why) {
        const char c = *r->p;
        if (c == '\0') {
            x.why = "a NUL byte";
            break;
        }
        if (csv_parse(&p, r->p, 1, on_field, on_record, &x) != 1) { /* libcsv's strict checks */
            x.why = c == '"' ? "a quote inside an unquoted field" : "text after a closing quote";
            break;
        }
        r->p++;
        if (c == '\n') {
            r->line++;
        } else if (c == '\r' && x.done) { /* CR LF ends a record once */
            if (r->p < r->end && *r->p == '\n') r->p++;
            r->line++;
        }
    }
    if (!x.done && !x.why && r->p >= r->end) { /* the last record, without a line end */
        if (csv_fini(&p, on_field, on_record, &x) != 0 && !x.why) x.why = "a quoted field is not closed";
        r->line++;
    }
    csv_free(&p);
    if (x.why) return *why = x.why, -1;
    skip_blank_lines(r);
    if (!r->width) { /* the header: a column named twice would be read from one place and ignored in the other */
        r->width = r->nfields;
        for (int i = 1; i < r->nfields; i++)
            for (int k = 0; k < i && r->field[i][0]; k++)
                if (strcmp(r->field[i], r->field[k]) == 0) {
                    snprintf(r->why, sizeof r->why, "column '%.40s' is named twice (fields %d and %d)", r->field[i],
                             k + 1, i + 1);
                    return *why = r->why, -1;
                }
    } else if (r->nfields != r->width && !gq_csv_blank(r)) {
        snprintf(r->why, sizeof r->why, "%d field%s where the header has %d", r->nfields, r->nfields == 1 ? "" : "s",
                 r->width);
        return *why = r->why, -1;
    }
    return 1;
}

int gq_csv_column(const gq_csv *h, const char *a, const char *b)
{
    for (int i = 0; i < h->nfields; i++)
        if (strcmp(h->field[i], a) == 0 || (b && strcmp(h->field[i], b) == 0)) return i;
    return -1;
}

int gq_csv_blank(const gq_csv *r) { return r->nfields == 1 && !r->field[0][0]; }
