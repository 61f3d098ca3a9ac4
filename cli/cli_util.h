/* What every gqsim subcommand needs: one-line errors, option parsing, raw
 * float32 files, atomic output files (temporary name, then rename), tables
 * that print aligned for people or as CSV, progress on a terminal, gnuplot. */
#ifndef GQ_CLI_UTIL_H
#define GQ_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_USAGE 2

/* "gqsim: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Matches argv[*i] against --name VALUE or --name=VALUE; on a match stores
 * the value, advances *i past it and returns 1; a missing value is an error
 * (returns -1 after printing). Returns 0 when argv[*i] is another option. */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value);

int cli_parse_u64(const char *opt, const char *s, uint64_t *v);
int cli_parse_double(const char *opt, const char *s, double *v);
/* Comma-separated unsigned list, e.g. "128,512,2048"; at most cap items. */
int cli_parse_u64_list(const char *opt, const char *s, uint64_t *v, size_t cap, size_t *count);

/* Reads a whole raw little-endian float32 file. @return 0, or -1 after printing. */
int cli_read_f32(const char *path, float **data, size_t *n);
int cli_read_file(const char *path, unsigned char **data, size_t *size);
/* Writes to PATH.tmp.PID and renames it over PATH. @return 0 or -1 after printing. */
int cli_write_file(const char *path, const void *data, size_t size);

/* ---- tables ------------------------------------------------------------------ */
typedef enum { FMT_TABLE, FMT_CSV } cli_format;
int cli_parse_format(const char *s, cli_format *f);

typedef struct {
    size_t ncols, nrows, cap;
    char **cells; /* row-major, header first */
} cli_table;

void table_init(cli_table *t, const char *const *header, size_t ncols);
/* Appends one row; each cell is printf-formatted from a format list joined by
 * '\t', e.g. table_row(t, "%s\t%zu\t%.3f", name, n, x). */
void table_row(cli_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void table_print(const cli_table *t, cli_format f);
void table_fprint(FILE *out, const cli_table *t, cli_format f);
/* The table as CSV into PATH (temporary name, then rename). @return 0 or -1 after printing. */
int table_write_csv(const cli_table *t, const char *path);
void table_free(cli_table *t);

/* ---- progress and plots ---------------------------------------------------------- */
/* "\r<message>" on stderr, only when stderr is a terminal; done=1 ends the line. */
void cli_progress(int done, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the embedded gnuplot script NAME beside OUT (OUT with .gp), the data
 * beside it (OUT with .dat), and runs gnuplot to make OUT (PNG or SVG by its
 * extension). `vars` are extra gnuplot assignments ("a=1; b='x'").
 * @return 0, or -1 after printing. */
int cli_plot(const char *script_name, const char *out, const char *data, const char *vars);

/* Embedded gnuplot scripts, generated at build time from the .gp files in plots/. */
const char *gq_plot_script(const char *name);

int cli_is_dir(const char *path);

#endif
