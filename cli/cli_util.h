/* What every gqsim subcommand needs: one-line errors, option parsing, raw
 * float32 files, atomic output files (temporary name, then rename), tables
 * that print aligned for people or as CSV, progress on a terminal, gnuplot. */
#ifndef GQ_CLI_UTIL_H
#define GQ_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gq_alloc.h"
#include "gq_table.h"
#include "qz.h"
#include "scenario.h"
#include "zoo.h"

#define EXIT_USAGE 2
/* --max-elements' default: 2^27 elements, 512 MiB of float32, above VGG's largest tensor (fc6, 102,760,448) */
#define CLI_MAX_ELEMENTS (UINT64_C(1) << 27)
/* The largest text file (a CSV, a plan) any command reads */
#define CLI_MAX_TEXT_BYTES ((size_t)16 << 20)

/* "gqsim: [CONTEXT: ]<message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While set (not NULL), every cli_error names `where` first, e.g. "FILE:LINE";
 * the string must outlive the setting. */
void cli_error_context(const char *where);
/* src with control characters (newlines) as spaces, for one-line outputs. */
void cli_one_line(char *dst, size_t cap, const char *src);
/* A user's value quoted in a message: whole up to CLI_CLIP_WHOLE characters, else its first CLI_CLIP_KEEP and
 * "...", so that a 300-value list is not echoed back whole. Use with "%.*s%s": cli_error("'%.*s%s'", CLI_CLIP(v)). */
#define CLI_CLIP_WHOLE 60
#define CLI_CLIP_KEEP 40
#define CLI_CLIP(s) cli_clip_len(s), (s), cli_clip_tail(s)
int cli_clip_len(const char *s);
const char *cli_clip_tail(const char *s);

/* A number for option `opt`: one line naming the option and the range when it is not one in it. */
int cli_parse_u64_in(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v);
/* [lo, hi], or (lo, hi] with lo_open. */
int cli_parse_double_in(const char *opt, const char *s, double lo, double hi, int lo_open, double *v);
/* Comma-separated unsigned list, e.g. "128,512,2048", appended to the *count values already in v (an option
 * given again adds to its list); at most cap items, and no value twice. */
int cli_parse_u64_list(const char *opt, const char *s, uint64_t *v, size_t cap, size_t *count);

/* Reads a whole raw little-endian float32 file of at most max_elements elements. @return 0, or -1 after printing. */
int cli_read_f32(const char *path, uint64_t max_elements, float **data, size_t *n);
/* Reads a whole file of at most limit bytes. @return 0, or -1 after printing. */
int cli_read_file(const char *path, size_t limit, unsigned char **data, size_t *size);

/* ---- outputs (cli_out.c) ----------------------------------------------------------
 * Every output file is staged: written as a fresh PATH.tmp.XXXXXX (created
 * with O_EXCL), renamed over PATH by cli_commit_outputs() once the whole
 * command has succeeded (main() does it), removed by cli_discard_outputs() or
 * on SIGINT/SIGTERM/SIGHUP/SIGPIPE. PATH must be absent or a regular file:
 * devices, FIFOs, symlinks and directories are refused, never replaced. */

/* Writes data to PATH's staged name. @return 0 or -1 after printing. */
int cli_write_file(const char *path, const void *data, size_t size);
/* The same, giving the temporary name it wrote (to hand to a program before the rename). */
int cli_write_staged(const char *path, const void *data, size_t size, char *tmp, size_t cap);
/* Registers PATH for staging and gives its temporary name to write. @return 0 or -1 after printing. */
int cli_stage_name(const char *path, char *tmp, size_t cap);
/* Creates directory PATH if missing; removed again on failure if still empty. @return 0 or -1 after printing. */
int cli_stage_dir(const char *path);
/* Stages PATH and opens its temporary for writing. @return 0 or -1 after printing. */
int cli_stage_stream(const char *path, FILE **out);
/* Flushes and closes a stream from cli_stage_stream, checking every write. @return 0 or -1 after printing. */
int cli_close_stream(const char *path, FILE *f);
int cli_commit_outputs(void);
void cli_discard_outputs(void);
void cli_install_signal_cleanup(void);
/* Flushes stdout and checks that every write to it went through (a full disk,
 * /dev/full, a closed pipe): one line and -1 if not, as coreutils' close_stdout. */
int cli_close_stdout(void);
/* Opens /dev/null on whichever of fds 0-2 is closed, so that no file gqsim
 * opens later takes their numbers (a child's stderr capture landing on a
 * temporary file). Call first thing in main. */
void cli_reopen_std_fds(void);

/* Before any long work: the name has no control character, ends in one of
 * `exts` (NULL-terminated; NULL: any), is not a directory, and its directory
 * exists and is writable. One line naming `opt` on failure. @return 0 or -1. */
int cli_check_output(const char *opt, const char *path, const char *const *exts);
/* A directory to write into: writable if it exists, else creatable. */
int cli_check_output_dir(const char *opt, const char *path);

/* Runs argv[0] (found on PATH) with fork/exec, never a shell, in directory
 * cwd (NULL: here), stdin and stdout on /dev/null; it dies if gqsim dies.
 * @return 0 on success; 127 if the program is missing; else non-zero with
 * the last line of its stderr (or how it ended) in why. */
int cli_run_program(const char *const *argv, const char *cwd, char *why, size_t cap);

/* Reads an --accuracy-curve file (sim/user_tables.c) into one-seed curves, each named as from `dataset` images an
 * epoch. @return how many, or -1 after printing why. */
int cli_read_curves(const char *path, double dataset, tta_curve *curves, int cap);

/* The exit code of a library error (README's table): 2 for GQ_ERR_USAGE, 1 for every other. */
static inline int cli_exit_of(gq_err e) { return e == GQ_OK ? 0 : e == GQ_ERR_USAGE ? 2 : 1; }

/* ---- tables ------------------------------------------------------------------ */
typedef enum { FMT_TABLE, FMT_CSV } cli_format;

/* Text: no wider than cli_term_width(), quantizer specs (the quant column, and headers that are specs or
 * SPEC/SPEC ratios) shown by their short labels with the full specs in a key under the table. CSV: every
 * cell as it is. */
void table_print(const gq_table *t, cli_format f);
void table_fprint(FILE *out, const gq_table *t, cli_format f);
/* The text width: COLUMNS if it is a number from 20 to 10000, else the terminal's on stdout, else 100. */
size_t cli_term_width(void);
/* The table as CSV into PATH (temporary name, then rename). @return 0 or -1 after printing. */
int table_write_csv(const gq_table *t, const char *path);

/* ---- progress and plots ---------------------------------------------------------- */
/* "\r<message>" on stderr, only when stderr is a terminal; done=1 ends the line. */
void cli_progress(int done, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<what>: D of N, about S s left" (cli_progress): the rate from the wall clock since `what` was last told with
 * done 0 or another `what` -- progress only, never part of an output. */
void cli_progress_eta(const char *what, size_t done, size_t total);
/* While one long call runs (a simulation), a line on a terminal's stderr redrawn every second from the second second
 * (GQSIM_PROGRESS_AFTER=0: from the start, for a test):
 * "<what>: 12 s, about 28 s left" where the call's expected seconds are known (> 0), "<what>: 12 s" otherwise. A
 * timer's signal draws it with write(2) alone (nothing it interrupts is left half done: SA_RESTART); a forked child
 * inherits no timer. cli_ticker_stop clears the line. Nothing on a pipe or a file. */
void cli_ticker_start(const char *what, double expected_s);
void cli_ticker_stop(void);
/* Many runs (speedup, report, validate): before each, the line says which, how many of how many and, from the runs
 * so far, about how long the rest take; a run still going after 2 s adds its own seconds (the ticker). r NULL: the
 * run's name alone. */
typedef struct {
    size_t done, total;
    double start_s;
} cli_runs;
void cli_runs_next(cli_runs *r, const char *what);

/* ---- figures (cli_plot.c) -------------------------------------------------------------- */
/* gnuplot variables for a figure: strings are quoted by gnuplot's rules. */
typedef struct {
    char *s;
    size_t len, cap;
} gp_vars;
void gpv_string(gp_vars *v, const char *name, const char *value);
void gpv_number(gp_vars *v, const char *name, double x);
/* A gnuplot array NAME[1..n] of strings (scripts use |NAME| and NAME[i]). */
void gpv_array(gp_vars *v, const char *name, const char *const *items, size_t n);
/* The key under a figure: "label = spec" lines (none: nothing), as nspec and speckeys for every figure's styles. */
void gpv_speckeys(gp_vars *v, const char *const *items, size_t n);
void gpv_free(gp_vars *v);

/* Checks a --plot name (.png or .svg, writable directory) before long work. */
int cli_check_plot(const char *opt, const char *path);
/* Stages OUT (PNG or SVG by its extension), OUT's .dat with `data`, and its
 * .gp (the re-run line, `vars`, then the embedded plots/NAME.gp), running
 * gnuplot without a shell. @return 0, or -1 after printing. */
int cli_plot(const char *script_name, const char *out, const char *data, const gp_vars *vars);

/* Embedded gnuplot scripts, generated at build time from the .gp files in plots/. */
const char *gq_plot_script(const char *name);

int cli_is_dir(const char *path);

/* The zoo's calls (models/zoo.h), their one-line errors printed: -1 or NULL after printing. */
int cli_zoo_load(gq_zoo *z, const char *gpu_file);
const model_t *cli_zoo_model(gq_zoo *z, const char *name);
const gpu_spec *cli_zoo_gpu(const gq_zoo *z, const char *name);

#endif
