/* The CSV record reader; see gq_csv.h. */
#include "gq_csv.h"

#include <string.h>

void gq_csv_init(gq_csv *r, const char *text, size_t len)
{
    r->p = text, r->end = text + len, r->line = 1, r->nfields = 0;
}

int gq_csv_next(gq_csv *r, const char **why)
{
    r->nfields = 0;
    if (r->p >= r->end) return 0;
    for (;;) {
        if (r->nfields == GQ_CSV_MAX_FIELDS) return *why = "more than 64 fields", -1;
        char *f = r->field[r->nfields++];
        size_t n = 0;
        int quoted = r->p < r->end && *r->p == '"';
        if (quoted) r->p++;
        for (;;) {
            if (r->p >= r->end) {
                if (quoted) return *why = "a quoted field is not closed", -1;
                break;
            }
            char ch = *r->p;
            if (quoted) {
                if (ch == '"') {
                    if (r->p + 1 < r->end && r->p[1] == '"') {
                        r->p++;
                    } else {
                        r->p++;
                        if (r->p < r->end && *r->p != ',' && *r->p != '\n' && *r->p != '\r')
                            return *why = "text after a closing quote", -1;
                        break;
                    }
                } else if (ch == '\n') {
                    r->line++;
                }
            } else if (ch == ',' || ch == '\n' || ch == '\r') {
                break;
            } else if (ch == '"') {
                return *why = "a quote inside an unquoted field", -1;
            }
            if (ch == '\0') return *why = "a NUL byte", -1;
            if (n + 1 >= GQ_CSV_MAX_FIELD) return *why = "a field longer than 1023 bytes", -1;
            f[n++] = *r->p++;
        }
        f[n] = '\0';
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '\r') r->p++;
        if (r->p < r->end && *r->p == '\n') r->p++;
        r->line++;
        return 1;
    }
}

int gq_csv_column(const gq_csv *h, const char *a, const char *b)
{
    for (int i = 0; i < h->nfields; i++)
        if (strcmp(h->field[i], a) == 0 || (b && strcmp(h->field[i], b) == 0)) return i;
    return -1;
}

int gq_csv_blank(const gq_csv *r) { return r->nfields == 1 && !r->field[0][0]; }
