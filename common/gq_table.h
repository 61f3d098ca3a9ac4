/* A table of named columns and rows of text cells: what the library's
 * scenario, sweep, report and validation functions return, and what the CLI
 * prints aligned or as CSV. Cells are formatted once, where the numbers are
 * known, so every output of one row says the same thing. */
#ifndef GQ_TABLE_H
#define GQ_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    size_t ncols, nrows, cap; /* nrows counts the header */
    char **cells;             /* row-major, header first */
    size_t key_cols;          /* leading columns that name a row (1 unless set): repeated in every panel */
} gq_table;

void table_init(gq_table *t, const char *const *header, size_t ncols);
/* Appends one row; the cells are printf-formatted from a format list joined
 * by '\t', e.g. table_row(t, "%s\t%zu\t" TABLE_REAL, name, n, x). Aborts only
 * when memory is out (a table of results is small). A cell of 17 significant
 * digits (TABLE_REAL's output for most doubles) is stored in the fewest digits
 * that read back as the same double, so CSV round-trips and stays short. A
 * NaN (a number that does not apply to the row) is stored as an empty cell. */
#define TABLE_REAL "%.17g"
void table_row(gq_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cell (row r >= 1 is data, 0 the header; c the column), or "" out of range. */
const char *table_cell(const gq_table *t, size_t r, size_t c);
/* Appends src's row r (>= 1) to dst, initialised with src's header (and key columns) where it is empty. */
void table_copy_row(gq_table *dst, const gq_table *src, size_t r);
/* Index of a column by name, or -1. */
int table_column(const gq_table *t, const char *name);
void table_free(gq_table *t);

/* The shortest "%.Ng" of x that strtod reads back as x (N <= 17); a whole number below 1e15 in full ("%.0f"). */
void table_real(char *buf, size_t cap, double x);

/* One substitution the caller made in a table before printing it (a short
 * label for a long name): printed in the key under the table as "label  full". */
typedef struct {
    const char *label, *full;
} table_key;

/* Prints t as aligned text no wider than width where it can: numbers right,
 * text left, numbers of more than 6 significant digits shown to 6 (CSV keeps
 * them all). A table too wide is laid out in steps until it fits: columns
 * whose value is the same on every row move above it ("name: value"; a
 * single row becomes one "name  value" line per column); headers break after
 * '_'; long text cells become [1], [2], ... explained under the table; the
 * remaining columns are split into panels, each repeating the key columns.
 * Then the keys: the caller's, then the footnotes. */
void table_text(FILE *out, const gq_table *t, size_t width, const table_key *keys, size_t nkeys);

#endif
