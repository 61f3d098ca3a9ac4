/* Figures through gnuplot, without a shell. For OUT.png the data goes to
 * OUT.dat and a self-contained script to OUT.gp: a re-run line, the
 * variables (every string a single-quoted gnuplot literal, in which gnuplot
 * substitutes nothing: no backquotes, no macros, '' is the only escape), the
 * terminal, then the embedded plots/NAME.gp. gnuplot runs in OUT's directory
 * on the staged temporary names, so the only strings on its command line are
 * names this file made; everything is renamed into place when the command
 * succeeds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

/* ---- variables ----------------------------------------------------------------------------- */

static void vput(gp_vars *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vput(gp_vars *v, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = v->cap - v->len;
        int n = vsnprintf(v->s ? v->s + v->len : NULL, v->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (v->s && (size_t)n < room) {
            v->len += (size_t)n;
            return;
        }
        size_t cap = 2 * v->cap + (size_t)n + 64;
        v->s = gq_xrealloc(v->s, cap);
        v->cap = cap;
    }
}

/* A gnuplot single-quoted literal: ' doubled, control characters (a newline
 * would end the statement) shown as spaces. */
static void vquote(gp_vars *v, const char *s)
{
    vput(v, "'");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '\'')
            vput(v, "''");
        else if (*c < 0x20 || *c == 0x7f)
            vput(v, " ");
        else
            vput(v, "%c", *c);
    }
    vput(v, "'");
}

void gpv_string(gp_vars *v, const char *name, const char *value)
{
    vput(v, "%s = ", name);
    vquote(v, value);
    vput(v, "\n");
}

void gpv_number(gp_vars *v, const char *name, double x) { vput(v, "%s = %.17g\n", name, x); }

void gpv_array(gp_vars *v, const char *name, const char *const *items, size_t n)
{
    vput(v, "array %s[%zu]\n", name, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        vput(v, "%s[%zu] = ", name, i + 1);
        vquote(v, items[i]);
        vput(v, "\n");
    }
}

void gpv_speckeys(gp_vars *v, const char *const *items, size_t n)
{
    if (n == 0) return;
    vput(v, "nspec = %zu\n", n);
    gpv_array(v, "speckeys", items, n);
}

void gpv_free(gp_vars *v)
{
    free(v->s);
    memset(v, 0, sizeof *v);
}

/* ---- the figure ------------------------------------------------------------------------------- */

static const char *const FIGURE_EXTS[] = {"png", "svg", "pdf", NULL};

/* What every figure shares (docs/figures.md): series k in line type k, each with its own colour (Okabe and Ito's
 * colour-blind-safe palette, less its yellow, which white paper hides), dash pattern and marker, so that the
 * series stay apart in grey print too; ranges padded so that no point sits on the frame; dodge() to offset a
 * series' markers sideways on a log2 axis, so that coinciding lines stay visible; and the key of short labels. */
static const char FIGURE_STYLE[] =
    "# every figure's styles\n"
    "set linetype 1 lc rgb '#0072B2' lw 2 dt 1 pt 7 ps 1.3\n"
    "set linetype 2 lc rgb '#D55E00' lw 2 dt 2 pt 5 ps 1.3\n"
    "set linetype 3 lc rgb '#009E73' lw 2 dt 3 pt 9 ps 1.6\n"
    "set linetype 4 lc rgb '#CC79A7' lw 2 dt 4 pt 11 ps 1.6\n"
    "set linetype 5 lc rgb '#56B4E9' lw 2 dt 5 pt 13 ps 1.6\n"
    "set linetype 6 lc rgb '#E69F00' lw 2 dt (12,4,2,4) pt 4 ps 1.3\n"
    "set linetype 7 lc rgb '#000000' lw 2 dt (2,3) pt 6 ps 1.3\n"
    "set linetype 8 lc rgb '#777777' lw 2 dt (16,6) pt 8 ps 1.4\n"
    "set linetype cycle 8\n"
    "set autoscale fix\n"
    "set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06\n"
    "dodge(x, k, n) = x * 2 ** (0.05 * (k - (n + 1) / 2.0))\n"
    "# the specs behind the short labels at the bottom, two a line where each fits half the width (one a line\n"
    "# where one does not); keyroom: the lines they take below the plots\n"
    "nspec = exists(\"nspec\") ? nspec : 0\n"
    "perline = 2\n"
    "do for [i = 1:nspec] {\n"
    "    if (strlen(speckeys[i]) > 90) { perline = 1 }\n"
    "}\n"
    "specrows = (nspec + perline - 1) / perline\n"
    "keyroom = specrows > 0 ? specrows + 1 : 0\n"
    "do for [i = 1:nspec] {\n"
    "    set label 90 + i speckeys[i] at screen 0.01 + 0.5 * ((i - 1) % perline), \\\n"
    "        screen 0.015 + 0.022 * (specrows - 1 - (i - 1) / perline) left font ',9' noenhanced\n"
    "}\n";

int cli_check_plot(const char *opt, const char *path) { return cli_check_output(opt, path, FIGURE_EXTS); }

/* PATH with its extension replaced by ext. */
static void with_ext(char *dst, size_t cap, const char *path, const char *ext)
{
    snprintf(dst, cap, "%s", path);
    char *dot = strrchr(dst, '.'), *slash = strrchr(dst, '/');
    if (dot && (!slash || dot > slash)) *dot = '\0';
    strncat(dst, ext, cap - strlen(dst) - 1);
}

static const char *base_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* A file name as a program's argument: "./-k.gp" for "-k.gp", which gnuplot would read as an option. */
static void as_argument(char *dst, size_t cap, const char *name)
{
    snprintf(dst, cap, "%s%s", *name == '-' ? "./" : "", name);
}

int cli_plot(const char *script_name, const char *out, const char *data, const gp_vars *vars)
{
    const char *script = gq_plot_script(script_name);
    if (!script) {
        cli_error("no plot script '%s' in this build", script_name);
        return -1;
    }
    if (cli_check_plot("--plot", out) != 0) return -1;
    /* the output's extension picks the terminal (cli_check_plot accepted one of FIGURE_EXTS): the same figure in
     * each, a PDF the PNG's 1200 x 800 pixels at 96 per inch */
    const char *ext = strrchr(out, '.') + 1;
    const char *terminal = strcmp(ext, "svg") == 0   ? "set terminal svg size 1200,800 dynamic font ',11' noenhanced"
                           : strcmp(ext, "pdf") == 0 ? "set terminal pdfcairo size 12.5in,8.33in font ',11' noenhanced"
                                                     : "set terminal pngcairo size 1200,800 font ',11' noenhanced";
    char gp[4200], dat[4200], gp_tmp[4300], dat_tmp[4300], fig_tmp[4300];
    with_ext(gp, sizeof gp, out, ".gp");
    with_ext(dat, sizeof dat, out, ".dat");
    if (cli_stage_name(out, fig_tmp, sizeof fig_tmp) != 0) return -1;
    if (cli_write_staged(dat, data, strlen(data), dat_tmp, sizeof dat_tmp) != 0) return -1;

    gp_vars text = {0};
    vput(&text, "# Written by gqsim with %s and %s. Re-run from this directory:\n#   gnuplot ", base_of(dat),
         base_of(out));
    char arg[4400];
    as_argument(arg, sizeof arg, base_of(gp));
    vquote(&text, arg);
    vput(&text, "\n# (to restyle, edit the variables and the script below).\n");
    vput(&text, "if (!exists(\"datafile\")) {\n    datafile = ");
    vquote(&text, base_of(dat));
    vput(&text, "\n}\nif (!exists(\"outfile\")) {\n    outfile = ");
    vquote(&text, base_of(out));
    vput(&text, "\n}\n%s\n", terminal);
    if (vars && vars->s) vput(&text, "%s", vars->s);
    vput(&text, "\n%s\n%s", FIGURE_STYLE, script);
    int rc = cli_write_staged(gp, text.s, text.len, gp_tmp, sizeof gp_tmp);
    gpv_free(&text);
    if (rc != 0) return -1;

    /* gnuplot reads the staged data and writes the staged figure, in OUT's directory */
    gp_vars names = {0};
    gpv_string(&names, "datafile", base_of(dat_tmp));
    gpv_string(&names, "outfile", base_of(fig_tmp));
    for (char *c = names.s; *c; c++)
        if (*c == '\n') *c = ';';
    char dir[4200];
    const char *b = base_of(out);
    if (b == out)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(b - out), out);
    char script_arg[4400];
    as_argument(script_arg, sizeof script_arg, base_of(gp_tmp));
    const char *argv[] = {"gnuplot", "-e", names.s, script_arg, NULL};
    char why[512];
    int st = cli_run_program(argv, dir, why, sizeof why);
    gpv_free(&names);
    if (st != 0) {
        if (st == 127)
            cli_error("%s: gnuplot is not installed (apt-get install gnuplot-nox, or run scripts/bootstrap.sh)", out);
        else
            cli_error("%s: gnuplot failed: %s", out, why);
        return -1;
    }
    /* gnuplot can end well having drawn nothing (a script it did not read): no empty figure is kept */
    struct stat fig;
    if (stat(fig_tmp, &fig) != 0 || fig.st_size == 0) {
        char *nl = strchr(why, '\n');
        if (nl) *nl = '\0';
        cli_error("%s: gnuplot drew nothing%s%s", out, why[0] ? ": " : "", why);
        return -1;
    }
    return 0;
}
