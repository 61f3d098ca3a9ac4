/* Tables of text cells; see gq_table.h. */
#include "gq_table.h"

#include "gq_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void table_init(gq_table *t, const char *const *header, size_t ncols)
{
    t->ncols = ncols;
    t->nrows = 1;
    t->cap = ncols * 16;
    t->cells = gq_xcalloc(t->cap, sizeof *t->cells);
    for (size_t c = 0; c < ncols; c++) t->cells[c] = gq_xstrdup(header[c]);
}

void table_row(gq_table *t, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if ((t->nrows + 1) * t->ncols > t->cap) {
        t->cap = 2 * (t->nrows + 1) * t->ncols;
        t->cells = gq_xrealloc(t->cells, t->cap * sizeof *t->cells);
    }
    char *cell = line;
    for (size_t c = 0; c < t->ncols; c++) {
        char *tab = cell ? strchr(cell, '\t') : NULL;
        if (tab) *tab = '\0';
        t->cells[t->nrows * t->ncols + c] = gq_xstrdup(cell ? cell : "");
        cell = tab ? tab + 1 : NULL;
    }
    t->nrows++;
}

const char *table_cell(const gq_table *t, size_t r, size_t c)
{
    return r < t->nrows && c < t->ncols ? t->cells[r * t->ncols + c] : "";
}

int table_column(const gq_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cells[c], name) == 0) return (int)c;
    return -1;
}

void table_free(gq_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->ncols = t->cap = 0;
}
