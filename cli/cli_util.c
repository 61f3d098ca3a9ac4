/* Shared CLI plumbing; see cli_util.h. */
#include "cli_util.h"

#include "gq_file.h"
#include "gq_number.h"
#include "user_tables.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *error_context;

void cli_error_context(const char *where) { error_context = where; }

void cli_one_line(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)src; *c && n + 1 < cap; c++)
        dst[n++] = *c < 0x20 || *c == 0x7f ? ' ' : (char)*c;
    if (cap) dst[n] = '\0';
}

int cli_clip_len(const char *s)
{
    const size_t n = strlen(s);
    return n <= CLI_CLIP_WHOLE ? (int)n : CLI_CLIP_KEEP;
}

const char *cli_clip_tail(const char *s) { return strlen(s) <= CLI_CLIP_WHOLE ? "" : "..."; }

void cli_error(const char *fmt, ...)
{
    /* the whole line in one write: under mpirun every rank's stderr meets in one stream, where pieces written apart
     * interleave with another rank's */
    char line[4096];
    int n = snprintf(line, sizeof line, "gqsim: %s%s", error_context ? error_context : "", error_context ? ": " : "");
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line) n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line - 1) n = (int)sizeof line - 2; /* a longer line cut: it still ends */
    line[n++] = '\n';
    fflush(stderr);
    for (size_t at = 0; at < (size_t)n;) {
        const ssize_t w = write(STDERR_FILENO, line + at, (size_t)n - at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        at += (size_t)w;
    }
}

static int parse_u64(const char *opt, const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || errno || *end) {
        cli_error("%s '%.*s%s' is not a non-negative integer", opt, CLI_CLIP(s));
        return -1;
    }
    *v = x;
    return 0;
}

int cli_parse_u64_in(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || errno || *end || x < lo || x > hi) {
        cli_error("%s '%.*s%s' must be an integer in %llu..%llu", opt, CLI_CLIP(s), (unsigned long long)lo,
                  (unsigned long long)hi);
        return -1;
    }
    *v = x;
    return 0;
}

int cli_parse_double_in(const char *opt, const char *s, double lo, double hi, int lo_open, double *v)
{
    double x;
    if (gq_parse_real_in(s, lo, lo_open, hi, &x) != 0) {
        cli_error("%s '%.*s%s' must be a number in %c%g, %g]", opt, CLI_CLIP(s), lo_open ? '(' : '[', lo, hi);
        return -1;
    }
    *v = x;
    return 0;
}

int cli_parse_u64_list(const char *opt, const char *s, uint64_t *v, size_t cap, size_t *count)
{
    char buf[1024];
    if (strlen(s) >= sizeof buf || !*s) {
        cli_error("%s '%.*s%s' is not a comma-separated list of at most %zu values", opt, CLI_CLIP(s), cap);
        return -1;
    }
    strcpy(buf, s);
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = '\0';
        if (*count == cap) {
            cli_error("%s: more than %zu values", opt, cap);
            return -1;
        }
        if (parse_u64(opt, tok, &v[*count]) != 0) return -1;
        for (size_t k = 0; k < *count; k++) /* a seed or a GPU count twice is one run counted twice */
            if (v[k] == v[*count]) {
                cli_error("%s: %llu is given twice", opt, (unsigned long long)v[k]);
                return -1;
            }
        ++*count;
    }
    return 0;
}

int cli_read_file(const char *path, size_t limit, unsigned char **data, size_t *size)
{
    char *text, msg[4200];
    if (gq_read_file(path, limit, 0, &text, size, msg, sizeof msg) != GQ_OK) {
        cli_error("%s", msg);
        return -1;
    }
    *data = (unsigned char *)text;
    return 0;
}

int cli_read_f32(const char *path, uint64_t max_elements, float **data, size_t *n)
{
    unsigned char *bytes;
    size_t size;
    struct stat st; /* the size said before the file is read */
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size / 4 > max_elements) {
        cli_error("%s holds %llu elements, more than --max-elements %llu (raise it to read a gradient this large)",
                  path, (unsigned long long)st.st_size / 4, (unsigned long long)max_elements);
        return -1;
    }
    if (cli_read_file(path, max_elements > SIZE_MAX / 4 - 4 ? SIZE_MAX - 1 : (size_t)max_elements * 4 + 3, &bytes,
                      &size) != 0)
        return -1;
    if (size == 0 || size % 4 != 0) {
        cli_error("%s: %s (a raw float32 file holds a non-zero multiple of 4 bytes, this one %zu)", path,
                  size == 0 ? "empty file" : "size is not a multiple of 4", size);
        free(bytes);
        return -1;
    }
    *n = size / 4;
    *data = (float *)(void *)bytes;   /* malloc's memory is aligned for a float: converted in place, one copy */
    for (size_t i = 0; i < *n; i++) { /* the files are little-endian */
        uint32_t u = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 | (uint32_t)bytes[4 * i + 2] << 16 |
                     (uint32_t)bytes[4 * i + 3] << 24;
        memcpy(&(*data)[i], &u, 4);
    }
    for (size_t i = 0; i < *n; i++)
        if (!isfinite((*data)[i])) {
            cli_error("%s: element %zu is %s (gradients must be finite)", path, i, isnan((*data)[i]) ? "NaN" : "Inf");
            free(*data);
            return -1;
        }
    return 0;
}

/* ---- tables ---------------------------------------------------------------------- */

void table_print(const gq_table *t, cli_format f) { table_fprint(stdout, t, f); }

size_t cli_term_width(void)
{
    const char *env = getenv("COLUMNS");
    if (env && *env) {
        char *end;
        const long v = strtol(env, &end, 10);
        if (*end == '\0' && v >= 20 && v <= 10000) return (size_t)v;
    }
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    return 100;
}

static int is_spec(const char *s)
{
    qz_params p;
    return qz_parse_spec(s, &p, NULL, 0) == GQ_OK;
}

/* A header "A/B" of two specs (a ratio column): the '/' between them, or NULL. */
static const char *ratio_of_specs(const char *h)
{
    const char *slash = strrchr(h, '/');
    if (!slash || !is_spec(slash + 1)) return NULL;
    char a[512];
    snprintf(a, sizeof a, "%.*s", (int)(slash - h), h);
    return is_spec(a) ? slash : NULL;
}

/* The text table, its specs replaced by short labels (a copy; t is untouched). */
static void table_text_labelled(FILE *out, const gq_table *t)
{
    const int qcol = table_column(t, "quant");
    /* the set of specs: the quant column's, and the headers' (each header looked at once: kind 1 a spec, 2 a ratio) */
    size_t n = 0, cap = t->nrows + 2 * t->ncols;
    char **specs = gq_xcalloc(cap, sizeof *specs);
    unsigned char *kind = gq_xcalloc(t->ncols + 1, 1);
    for (size_t r = 1; qcol >= 0 && r < t->nrows; r++) specs[n++] = gq_xstrdup(table_cell(t, r, (size_t)qcol));
    for (size_t c = 0; c < t->ncols; c++) {
        const char *h = table_cell(t, 0, c), *slash;
        if (strchr(h, ':') && is_spec(h)) {
            specs[n++] = gq_xstrdup(h);
            kind[c] = 1;
        } else if (strchr(h, ':') && (slash = ratio_of_specs(h)) != NULL) {
            specs[n] = gq_xmalloc((size_t)(slash - h) + 1);
            snprintf(specs[n++], (size_t)(slash - h) + 1, "%s", h);
            specs[n++] = gq_xstrdup(slash + 1);
            kind[c] = 2;
        }
    }
    char(*labels)[QZ_LABEL_MAX] = gq_xcalloc(n ? n : 1, sizeof *labels);
    qz_short_labels((const char *const *)specs, n, labels);
    gq_table copy = *t;
    copy.cells = gq_xcalloc(t->nrows * t->ncols, sizeof *copy.cells);
    for (size_t i = 0; i < t->nrows * t->ncols; i++) copy.cells[i] = t->cells[i];
    char **made = gq_xcalloc(t->ncols + 1, sizeof *made);
    size_t k = 0;
    for (size_t r = 1; qcol >= 0 && r < t->nrows; r++) copy.cells[r * t->ncols + (size_t)qcol] = labels[k++];
    for (size_t c = 0; c < t->ncols; c++) {
        if (kind[c] == 1) {
            copy.cells[c] = labels[k++];
        } else if (kind[c] == 2) {
            made[c] = gq_xmalloc(2 * QZ_LABEL_MAX + 2);
            snprintf(made[c], 2 * QZ_LABEL_MAX + 2, "%s/%s", labels[k], labels[k + 1]);
            copy.cells[c] = made[c];
            k += 2;
        }
    }
    /* the key: each label that is not its spec, once */
    table_key *keys = gq_xcalloc(n ? n : 1, sizeof *keys);
    size_t nkeys = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = strcmp(labels[i], specs[i]) == 0;
        for (size_t j = 0; j < nkeys && !seen; j++) seen = strcmp(keys[j].label, labels[i]) == 0;
        if (!seen) keys[nkeys++] = (table_key){labels[i], specs[i]};
    }
    table_text(out, &copy, cli_term_width(), keys, nkeys);
    for (size_t c = 0; c < t->ncols; c++) free(made[c]);
    for (size_t i = 0; i < n; i++) free(specs[i]);
    free(made);
    free(kind);
    free(specs);
    free(labels);
    free(keys);
    free(copy.cells);
}

int table_write_csv(const gq_table *t, const char *path)
{
    FILE *out;
    if (cli_stage_stream(path, &out) != 0) return -1;
    table_fprint(out, t, FMT_CSV);
    return cli_close_stream(path, out);
}

int cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void table_fprint(FILE *out, const gq_table *t, cli_format f)
{
    if (f == FMT_CSV) {
        for (size_t r = 0; r < t->nrows; r++)
            for (size_t c = 0; c < t->ncols; c++) {
                const char *cell = t->cells[r * t->ncols + c];
                int quote = strpbrk(cell, ",\"") != NULL; /* specs contain commas */
                if (quote) {
                    fputc('"', out);
                    for (const char *p = cell; *p; p++) {
                        if (*p == '"') fputc('"', out);
                        fputc(*p, out);
                    }
                    fputc('"', out);
                } else {
                    fputs(cell, out);
                }
                fputc(c + 1 == t->ncols ? '\n' : ',', out);
            }
        return;
    }
    table_text_labelled(out, t);
}

/* ---- progress --------------------------------------------------------- */

void cli_progress(int done, const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO)) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    if (done) fputc('\n', stderr);
    fflush(stderr);
    va_end(ap);
}

/* ---- the ticker: its line, drawn from a signal handler with async-signal-safe calls only ---------------------- */

static char TICK_WHAT[160];
static size_t TICK_WHAT_LEN;
static struct timespec TICK_START;
static double TICK_EXPECTED;
static long TICK_AFTER = 2; /* seconds before the line is first drawn (GQSIM_PROGRESS_AFTER, for tests) */
static volatile sig_atomic_t TICKING;

/* n's decimal digits at p; @return their count */
static size_t put_uint(char *p, unsigned long n)
{
    char d[24];
    size_t k = 0;
    do d[k++] = (char)('0' + n % 10), n /= 10;
    while (n);
    for (size_t i = 0; i < k; i++) p[i] = d[k - 1 - i];
    return k;
}

static void tick(int sig)
{
    (void)sig;
    if (!TICKING) return;
    const int saved = errno;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    /* whole seconds since the start (not the difference of the seconds fields: 0.995 to 1.005 is no second) */
    const long spent = (long)(now.tv_sec - TICK_START.tv_sec) - (now.tv_nsec < TICK_START.tv_nsec);
    if (spent >= TICK_AFTER) {
        char line[256];
        size_t n = 0;
        memcpy(line, "\r\033[K", 4), n = 4;
        memcpy(line + n, TICK_WHAT, TICK_WHAT_LEN), n += TICK_WHAT_LEN;
        memcpy(line + n, ": ", 2), n += 2;
        n += put_uint(line + n, (unsigned long)spent);
        memcpy(line + n, " s", 2), n += 2;
        if (TICK_EXPECTED > 0 && TICK_EXPECTED > (double)spent) {
            memcpy(line + n, ", about ", 8), n += 8;
            n += put_uint(line + n, (unsigned long)(TICK_EXPECTED - (double)spent + 0.5));
            memcpy(line + n, " s left", 7), n += 7;
        } else if (TICK_EXPECTED > 0) {
            static const char LONGER[] = ", longer than the estimate";
            memcpy(line + n, LONGER, sizeof LONGER - 1), n += sizeof LONGER - 1;
        }
        ssize_t w = write(STDERR_FILENO, line, n);
        (void)w;
    }
    errno = saved;
}

void cli_ticker_start(const char *what, double expected_s)
{
    if (!isatty(STDERR_FILENO)) return;
    snprintf(TICK_WHAT, sizeof TICK_WHAT, "%s", what);
    TICK_WHAT_LEN = strlen(TICK_WHAT);
    TICK_EXPECTED = expected_s;
    const char *after = getenv("GQSIM_PROGRESS_AFTER");
    TICK_AFTER = after && strcmp(after, "0") == 0 ? 0 : 2;
    clock_gettime(CLOCK_MONOTONIC, &TICK_START);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tick;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, NULL) != 0) return;
    TICKING = 1;
    const struct itimerval every = {{1, 0}, {TICK_AFTER ? 1 : 0, TICK_AFTER ? 0 : 10000}};
    setitimer(ITIMER_REAL, &every, NULL);
}

void cli_ticker_stop(void)
{
    if (!TICKING) return;
    const struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    TICKING = 0;
    cli_progress(0, "%s", "");
}

/* The monotonic clock in seconds: progress only, never part of an output. */
static double monotonic_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* ", about S s left" from the rate of the `done` of `total` items in `spent` seconds, where there is a rate to
 * tell (some done, some left, more than `least` seconds spent), else "". */
static void time_left(char *out, size_t cap, double spent, size_t done, size_t total, double least)
{
    out[0] = '\0';
    if (done > 0 && total > done && spent > least)
        snprintf(out, cap, ", about %.0f s left", spent / (double)done * (double)(total - done));
}

void cli_runs_next(cli_runs *r, const char *what)
{
    cli_ticker_stop();
    char line[400];
    if (!r) {
        snprintf(line, sizeof line, "%.300s", what);
    } else {
        const double t = monotonic_s();
        if (r->done == 0) r->start_s = t;
        char left[64];
        time_left(left, sizeof left, t - r->start_s, r->done, r->total, 1);
        snprintf(line, sizeof line, "%.300s (run %zu of %zu%s)", what, r->done + 1, r->total, left);
        r->done++;
    }
    cli_progress(0, "%s", line);
    cli_ticker_start(line, 0);
}

void cli_progress_eta(const char *what, size_t done, size_t total)
{
    static char phase[128];
    static double start;
    if (!isatty(STDERR_FILENO)) return;
    const double now = monotonic_s();
    if (done == 0 || strncmp(phase, what, sizeof phase - 1) != 0) {
        snprintf(phase, sizeof phase, "%s", what);
        start = now;
    }
    char left[64];
    time_left(left, sizeof left, now - start, done, total, 0.5);
    cli_progress(0, "%s: %zu of %zu%s", what, done, total, left);
}

/* ---- the zoo, with its errors printed ---------------------------------------------------- */

int cli_zoo_load(gq_zoo *z, const char *gpu_file)
{
    char msg[1024];
    if (zoo_load(z, gpu_file, msg, sizeof msg) == GQ_OK) return 0;
    cli_error("%s", msg);
    return -1;
}

const model_t *cli_zoo_model(gq_zoo *z, const char *name)
{
    char msg[1024];
    const model_t *m = zoo_model(z, name, msg, sizeof msg);
    if (!m) cli_error("%s", msg);
    return m;
}

const gpu_spec *cli_zoo_gpu(const gq_zoo *z, const char *name)
{
    char msg[1024];
    const gpu_spec *g = zoo_gpu(z, name, msg, sizeof msg);
    if (!g) cli_error("%s", msg);
    return g;
}

/* Reads --accuracy-curve (sim/user_tables.c) into curves of one seed, or of each seed of a seed column.
 * @return curves or -1 after printing. */
_Static_assert(ACC_CURVE_MAX_SEEDS <= TTA_MAX_SEEDS, "a file's seeds must fit a curve's");
int cli_read_curves(const char *path, double dataset, tta_curve *curves, int cap)
{
    char *text, msg[512];
    size_t len;
    if (gq_read_file(path, (size_t)16 << 20, 1, &text, &len, msg, sizeof msg) != GQ_OK) return cli_error("%s", msg), -1;
    acc_curve *read = gq_xcalloc((size_t)cap, sizeof *read);
    int n = 0;
    const gq_err e = acc_curves_parse(text, len, path, read, cap, &n, msg, sizeof msg);
    free(text);
    if (e != GQ_OK) return free(read), cli_error("%s", e == GQ_ERR_NOMEM ? "out of memory" : msg), -1;
    for (int k = 0; k < n; k++) {
        memset(&curves[k], 0, sizeof curves[k]);
        snprintf(curves[k].quant, sizeof curves[k].quant, "%s", read[k].quant);
        char filled[160] = "", before[48] = "";
        if (read[k].first > 1) snprintf(before, sizeof before, ", unknown before epoch %zu", read[k].first);
        if (read[k].interpolated || read[k].first > 1)
            snprintf(filled, sizeof filled, "; %zu epoch%s interpolated linearly between given ones%s",
                     read[k].interpolated, read[k].interpolated == 1 ? "" : "s", before);
        snprintf(curves[k].source, sizeof curves[k].source, "file %.120s, %.12g images per epoch%.110s", path, dataset,
                 filled);
        curves[k].nseeds = read[k].nseeds;
        curves[k].epochs = read[k].epochs;
        for (size_t si = 0; si < read[k].nseeds; si++)
            for (size_t i = 0; i < read[k].epochs; i++) curves[k].acc[si][i] = read[k].acc[si][i];
    }
    free(read);
    return n;
}
