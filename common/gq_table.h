/* A table of named columns and rows of text cells: what the library's
 * scenario, sweep, report and validation functions return, and what the CLI
 * prints aligned or as CSV. Cells are formatted once, where the numbers are
 * known, so every output of one row says the same thing. */
#ifndef GQ_TABLE_H
#define GQ_TABLE_H

#include <stddef.h>

typedef struct {
    size_t ncols, nrows, cap; /* nrows counts the header */
    char **cells;             /* row-major, header first */
} gq_table;

void table_init(gq_table *t, const char *const *header, size_t ncols);
/* Appends one row; the cells are printf-formatted from a format list joined
 * by '\t', e.g. table_row(t, "%s\t%zu\t%.3f", name, n, x). Aborts only when
 * memory is out (a table of results is small). */
void table_row(gq_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cell (row r >= 1 is data, 0 the header; c the column), or "" out of range. */
const char *table_cell(const gq_table *t, size_t r, size_t c);
/* Index of a column by name, or -1. */
int table_column(const gq_table *t, const char *name);
void table_free(gq_table *t);

#endif
