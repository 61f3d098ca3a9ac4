/* `gqsim simulate`, `speedup`, `report`, `validate` and `platforms ...`:
 * arguments in, the scenario layer of sim/ called, tables printed and
 * figures drawn. What is simulated, and how, lives in sim/scenario.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "cli_util.h"
#include "columns.h"
#include "comm.h"
#include "commands.h"
#include "gq_csv.h"
#include "gq_file.h"
#include "options.h"
#include "run_params.h"
#include "scenario.h"
#include "sim_args.h"
#include "trainer.h"
#include "user_tables.h"

/* ---- arguments into a request ------------------------------------------------------------------ */

void cli_sim_defaults(cli_args *a)
{
    sim_request_defaults(&a->req);
    a->format = FMT_TABLE;
}

sim_request cli_request_of(const cli_args *a)
{
    sim_request q = a->req;
    q.model = a->model, q.platform = a->platform, q.gpu = a->gpu, q.gpu_file = a->gpu_file, q.batch = (int)a->batch;
    q.gpu_hour_cost = a->gpu_hour_cost;
    return q;
}

static void on_progress(void *ctx, const char *what) { cli_runs_next(ctx, what); }

/* One long run on a terminal: its seconds, and where the SimGrid engine's cost is known, about how many are left. */
static void tick_run(const sim_request *q, const sim_scenario *s, int gpus)
{
    char what[160];
    const double secs =
        q->run.engine == ENGINE_SIMGRID ? sim_simgrid_cost_s(&s->cluster, q->run.sync, gpus, q->run.iterations, 0) : 0;
    snprintf(what, sizeof what, "simulating %d GPUs with the %s engine", gpus, sim_engine_name(s->req.run.engine));
    if (secs > 2)
        snprintf(what + strlen(what), sizeof what - strlen(what), " (about %.0f MB)",
                 sim_simgrid_cost_mb(&s->cluster, q->run.sync, gpus));
    cli_ticker_start(what, secs);
}

/* Each platform read once for the CLI's own use (a fixed size, a price, what to warn of): out[k] its cluster, zeroed
 * where it does not parse (the scenario that opens it says why). */
static void read_platforms(const char *const *platforms, size_t n, cluster_spec *out)
{
    for (size_t k = 0; k < n; k++) {
        char msg[1024];
        if (cluster_parse(platforms[k], &out[k], msg, sizeof msg) != GQ_OK) memset(&out[k], 0, sizeof out[k]);
    }
}

/* The warnings of platforms read: an XML's half-duplex links. */
static void warn_read(const char *const *platforms, const cluster_spec *read, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (read[k].half_duplex_links > 0)
            cli_error("warning: %.*s%s: %d link%s without sharing_policy=\"SPLITDUPLEX\" run%s half-duplex (SimGrid's "
                      "default SHARED: both directions share one bandwidth, which no NIC, PCIe or NVLink link does)",
                      CLI_CLIP(platforms[k]), read[k].half_duplex_links, read[k].half_duplex_links == 1 ? "" : "s",
                      read[k].half_duplex_links == 1 ? "s" : "");
}

void cli_warn_platforms(const char *const *platforms, size_t n)
{
    cluster_spec read[MAX_PLATFORMS];
    if (n > MAX_PLATFORMS) n = MAX_PLATFORMS;
    read_platforms(platforms, n, read);
    warn_read(platforms, read, n);
}

/* @return 0, or the exit code after printing why: 2 for options that do not go together, 1 for the rest */
static int open_scenario(const sim_request *q, sim_scenario *s)
{
    char msg[1024];
    gq_err e = scenario_open(s, q, msg, sizeof msg);
    if (e != GQ_OK) cli_error("%s", msg);
    if (e == GQ_OK && s->note[0]) cli_error("note: %s", s->note);
    return e == GQ_OK ? 0 : cli_exit_of(e);
}

/* Plot data from rows (those whose column `only` is `value`, if only is not
 * NULL): one block per change of the `key` columns, columns x, y and y2. */
static char *blocks(const gq_table *t, const char *only, const char *value, const char *const *key, int nkey,
                    const char *x, const char *y, const char *y2)
{
    int kc[4], xc = table_column(t, x), yc = table_column(t, y), y2c = y2 ? table_column(t, y2) : -1;
    const int oc = only ? table_column(t, only) : -1;
    for (int k = 0; k < nkey; k++) kc[k] = table_column(t, key[k]);
    char *dat = NULL, prev[1024] = "";
    size_t len = 0;
    FILE *f = open_memstream(&dat, &len); /* grows as it is written */
    if (!f) return NULL;
    for (size_t r = 1, nblocks = 0; r < t->nrows; r++) {
        if (oc >= 0 && strcmp(table_cell(t, r, (size_t)oc), value) != 0) continue;
        char k[1024] = "";
        for (int i = 0; i < nkey; i++) {
            strncat(k, i ? " " : "", sizeof k - strlen(k) - 1);
            strncat(k, table_cell(t, r, (size_t)kc[i]), sizeof k - strlen(k) - 1);
        }
        cli_one_line(k, sizeof k, k); /* a name may hold a newline: keep the block whole */
        if (nblocks == 0 || strcmp(k, prev) != 0) {
            fprintf(f, "%s# %s\n", nblocks++ ? "\n\n" : "", k);
            strcpy(prev, k);
        }
        fprintf(f, "%s %s%s%s\n", table_cell(t, r, (size_t)xc), table_cell(t, r, (size_t)yc), y2 ? " " : "",
                y2 ? table_cell(t, r, (size_t)y2c) : "");
    }
    if (fclose(f) != 0) free(dat), dat = NULL;
    return dat;
}

/* The quantizers' short labels for a legend (as the tables show them), and the key line of their full specs. */
typedef struct {
    char name[MAX_QUANTS][QZ_LABEL_MAX];
    const char *ptr[MAX_QUANTS];
    char key[MAX_QUANTS][QZ_LABEL_MAX + 140]; /* "label = spec" where they differ */
    const char *key_ptr[MAX_QUANTS];
    size_t nkey;
    int key_of[MAX_QUANTS]; /* quantizer k's line in key, or -1 where its label is its spec */
} quant_labels;

static void quant_names(quant_labels *l, const char *const *specs, size_t n)
{
    char canon[MAX_QUANTS][128];
    const char *cp[MAX_QUANTS] = {NULL};
    if (n > MAX_QUANTS) n = MAX_QUANTS;
    for (size_t k = 0; k < n; k++) {
        qz_params q;
        canon[k][0] = '\0';
        if (qz_parse_spec(specs[k], &q, NULL, 0) == GQ_OK) qz_format_spec(&q, canon[k], sizeof canon[k]);
        cp[k] = canon[k];
    }
    qz_short_labels(cp, n, l->name);
    l->nkey = 0;
    for (size_t k = 0; k < n; k++) {
        l->ptr[k] = l->name[k];
        l->key_of[k] = -1;
        if (strcmp(l->name[k], canon[k]) != 0) {
            l->key_of[k] = (int)l->nkey;
            snprintf(l->key[l->nkey], sizeof l->key[0], "%s = %s", l->name[k], canon[k]);
            l->key_ptr[l->nkey] = l->key[l->nkey];
            l->nkey++;
        }
    }
}

static const char *const FP32_ONLY[] = {"fp32"};

/* ---- simulate ---------------------------------------------------------------------------------------- */

static int cmd_simulate(int argc, char **argv)
{
    cli_args a = {0};
    cli_sim_defaults(&a);
    if (cli_parse_command(C_SIMULATE, argc, argv, &a)) return EXIT_USAGE;
    cli_warn_platforms(&a.platform, 1);
    sim_request q = cli_request_of(&a);
    sim_scenario s;
    const int opened = open_scenario(&q, &s);
    if (opened != 0) return opened;
    sim_outcome o;
    char msg[1024];
    int rc = 1;
    tensor_plan plan = {0};
    if (a.plan) { /* each tensor's codec from the file, checked against the model */
        unsigned char *text;
        size_t size;
        if (a.nquant)
            return scenario_close(&s), cli_error("--plan gives every tensor's codec: no --quant with it"), EXIT_USAGE;
        /* nor a policy over which tensors travel in fp32: the plan names its fp32 tensors too (advise --per-tensor
         * folds the search's own --fp32-below into the plan it writes) */
        for (const char *const *key = (const char *const[]){"fp32_below", "fp32_last", NULL}; *key; key++)
            if (run_param_given(run_param_by_key(*key), &a.req))
                return scenario_close(&s),
                       cli_error("--plan with %s: the plan names each tensor's codec, the fp32 ones too, so %s would "
                                 "change nothing (edit the plan's codec column instead)",
                                 run_param_by_key(*key)->flag, run_param_by_key(*key)->flag),
                       EXIT_USAGE;
        if (cli_read_file(a.plan, CLI_MAX_TEXT_BYTES, &text, &size) != 0) return scenario_close(&s), 1;
        const gq_err pe = tensor_plan_parse((const char *)text, size, a.plan, s.model, &plan, msg, sizeof msg);
        free(text);
        if (pe != GQ_OK) return scenario_close(&s), cli_error("%s", msg), cli_exit_of(pe);
    }
    tick_run(&q, &s, (int)a.gpus[0]);
    const gq_err ran = scenario_run_plan(&s, a.nquant ? a.quant[0] : "fp32", a.plan ? &plan : NULL, (int)a.gpus[0], &o,
                                         msg, sizeof msg);
    cli_ticker_stop();
    tensor_plan_free(&plan);
    if (ran == GQ_OK) {
        gq_table t;
        table_init(&t, SIM_COLUMNS, SIM_NCOLUMNS);
        t.key_cols = SIM_KEY_COLUMNS;
        scenario_row(&t, &s, &o);
        table_print(&t, (cli_format)a.format);
        table_free(&t);
        rc = 0;
    } else {
        cli_error("%s", msg);
        rc = cli_exit_of(ran);
    }
    scenario_close(&s);
    return rc;
}

/* ---- speedup ---------------------------------------------------------------------------------------- */

/* The specs behind a figure's short labels: the quantizers', then the platforms' (NULL-free, at most
 * MAX_QUANTS + MAX_PLATFORMS). @return how many. */
static size_t figure_keys(const quant_labels *names, const char *const *platform_keys, size_t nplatform_keys,
                          const char **out)
{
    size_t n = 0;
    for (size_t k = 0; k < names->nkey; k++) out[n++] = names->key_ptr[k];
    for (size_t k = 0; k < nplatform_keys && n < MAX_QUANTS + MAX_PLATFORMS; k++) out[n++] = platform_keys[k];
    return n;
}

/* Without --gpus: 1, 2, 4, ... 512, or on a platform of a fixed size (a user's XML, nodes=) up to the GPUs it has,
 * that count last. */
static size_t default_gpus(const cli_args *a, const cluster_spec *fixed, int *gpus)
{
    size_t n = 0;
    for (; n < a->ngpus; n++) gpus[n] = (int)a->gpus[n];
    if (n) return n;
    const uint64_t most = fixed ? (uint64_t)fixed->nodes * (uint64_t)fixed->gpus_per_node : 512;
    for (uint64_t g = 1; g <= most && g <= 512; g *= 2) gpus[n++] = (int)g;
    if (fixed && most <= 512 && (uint64_t)gpus[n - 1] != most) gpus[n++] = (int)most;
    return n;
}

/* A platform in a figure's legend: a built-in's name, else "platform K" (a spec or a path is too long for a
 * legend) with "platform K = SPEC" among the keys under the figure. */
typedef struct {
    char name[MAX_PLATFORMS][64];
    char key[MAX_PLATFORMS][600];
    const char *key_ptr[MAX_PLATFORMS];
    size_t nkey;
} platform_labels;

static void platform_names(platform_labels *l, const char *const *platforms, size_t n)
{
    l->nkey = 0;
    for (size_t k = 0; k < n && k < MAX_PLATFORMS; k++) {
        const size_t len = strlen(platforms[k]);
        const int builtin = !strchr(platforms[k], ':') && !strchr(platforms[k], '/') && len < sizeof l->name[k] &&
                            !(len > 4 && strcmp(platforms[k] + len - 4, ".xml") == 0);
        if (builtin) {
            snprintf(l->name[k], sizeof l->name[k], "%s", platforms[k]);
            continue;
        }
        snprintf(l->name[k], sizeof l->name[k], "platform %zu", k + 1);
        snprintf(l->key[l->nkey], sizeof l->key[0], "%s = %.560s", l->name[k], platforms[k]);
        l->key_ptr[l->nkey] = l->key[l->nkey];
        l->nkey++;
    }
}

/* models: the models' names (as their files give them; a->models holds what was typed: a path) */
static int speedup_plot(const cli_args *a, const gq_table *t, const char *const *quants, size_t nq,
                        const char (*models)[256])
{
    static const char *const KEY[] = {"model", "platform", "quant"};
    char *dat = blocks(t, NULL, NULL, KEY, 3, "gpus", "images_per_s", "speedup");
    quant_labels names;
    quant_names(&names, quants, nq);
    platform_labels plats;
    platform_names(&plats, a->platforms, a->nplatforms);
    /* a line per (model, platform, quantizer), in the rows' order; named by what varies */
    const size_t nm = a->nmodels, np = a->nplatforms, nlines = nm * np * nq;
    char(*label)[QZ_LABEL_MAX + 200] = gq_xcalloc(nlines, sizeof *label);
    const char **ptr = gq_xcalloc(nlines, sizeof *ptr);
    for (size_t i = 0; i < nlines; i++) {
        const size_t m = i / (np * nq), pl = i / nq % np, k = i % nq;
        snprintf(label[i], sizeof label[i], "%.60s%s%s%s%s", nm > 1 ? models[m] : "", nm > 1 ? ", " : "",
                 np > 1 ? plats.name[pl] : "", np > 1 ? ", " : "", names.name[k]);
        ptr[i] = label[i];
    }
    const char *keys[MAX_QUANTS + MAX_PLATFORMS];
    const size_t nkeys = figure_keys(&names, plats.key_ptr, plats.nkey, keys);
    char title[1024];
    if (nm == 1 && np == 1)
        snprintf(title, sizeof title, "%.200s on %.600s", models[0], a->platforms[0]);
    else
        snprintf(title, sizeof title, "%.200s%s on %.600s", nm == 1 ? models[0] : "each model",
                 nm == 1 ? "" : " (line names)", np == 1 ? a->platforms[0] : "each platform (line names)");
    gp_vars vars = {0};
    gpv_string(&vars, "ptitle", title);
    gpv_speckeys(&vars, keys, nkeys);
    gpv_array(&vars, "quants", ptr, nlines);
    const int rc = !dat || cli_plot("speedup", a->plot, dat, &vars) != 0 ? 1 : 0;
    gpv_free(&vars);
    free(dat), free(label), free(ptr);
    return rc;
}

static int cmd_speedup(int argc, char **argv)
{
    cli_args a = {0};
    cli_sim_defaults(&a);
    if (cli_parse_command(C_SPEEDUP, argc, argv, &a)) return EXIT_USAGE;
    cluster_spec read[MAX_PLATFORMS];
    read_platforms(a.platforms, a.nplatforms, read);
    warn_read(a.platforms, read, a.nplatforms);
    const char *const *quants = a.nquant ? a.quant : FP32_ONLY;
    const size_t nq = a.nquant ? a.nquant : 1;
    gq_table t = {0};
    char msg[1024], models[MAX_MODELS][256] = {{0}};
    int rc = 0;
    cli_runs runs = {0};
    for (size_t pl = 0; pl < a.nplatforms; pl++) { /* each platform's GPU counts, for the progress line */
        int counts[MAX_GPU_COUNTS];
        runs.total += a.nmodels * nq * default_gpus(&a, read[pl].nodes ? &read[pl] : NULL, counts);
    }
    /* every model with every platform, in the order given: model outer, as the report's rows */
    for (size_t m = 0; m < a.nmodels && rc == 0; m++)
        for (size_t pl = 0; pl < a.nplatforms && rc == 0; pl++) {
            a.model = a.models[m], a.platform = a.platforms[pl];
            sim_request q = cli_request_of(&a);
            sim_scenario s;
            const int opened = open_scenario(&q, &s);
            if (opened != 0) {
                rc = opened;
                break;
            }
            snprintf(models[m], sizeof models[m], "%s", s.model->name);
            int gpus[MAX_GPU_COUNTS];
            const size_t ng = default_gpus(&a, s.cluster.nodes ? &s.cluster : NULL, gpus);
            const gq_err swept =
                scenario_sweep(&s, quants, (int)nq, gpus, (int)ng, &t, on_progress, &runs, msg, sizeof msg);
            if (swept != GQ_OK) {
                cli_ticker_stop();
                cli_error("%s", msg);
                rc = cli_exit_of(swept);
            }
            scenario_close(&s);
        }
    cli_ticker_stop();
    cli_progress(0, "%s", "");
    if (rc == 0) table_print(&t, (cli_format)a.format);
    if (rc == 0 && a.plot) rc = speedup_plot(&a, &t, quants, nq, (const char(*)[256])models);
    table_free(&t);
    return rc;
}

/* ---- report ------------------------------------------------------------------------------------------ */

/* fp32 and ~2-bit schemes: TernGrad (2 bits), QSGD-3 with the max norm (2 bits), ORQ-3 (2.2 bits) */
static const char *const REPORT_QUANTS[] = {"fp32", "terngrad", "qsgd:levels=3,norm=max,bucket=512",
                                            "orq:levels=3,bucket=512"};

/* What a report covers: its platforms (with their short names for the legends, and the keys of those that are
 * not a built-in's) and models. */
typedef struct {
    const char *const *platforms, *const *clusters, *const *models;
    size_t np, nm;
    const char *const *keys;
    size_t nkeys;
} report_set;

/* A platform as part of a file name: a built-in's name as it is, an XML file's base name (every character but
 * letters, digits, '.', '-' and '_' as '_'), a cluster: spec "platform-K" as the legends name it (K: index + 1). */
static void report_slug(const char *platform, size_t index, char *out, size_t cap)
{
    if (strncmp(platform, "cluster:", 8) == 0) {
        snprintf(out, cap, "platform-%zu", index + 1);
        return;
    }
    const char *base = strrchr(platform, '/');
    base = base ? base + 1 : platform;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".xml") == 0) n -= 4;
    if (n > 80) n = 80;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        const char c = base[i];
        out[k++] = isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_' ? c : '_';
    }
    out[k] = '\0';
}

/* sim_report's rows run platform, model, quantizer, GPU count: the row of each. */
static size_t report_row(const report_set *set, size_t nq, size_t ngpus, size_t pi, size_t mi, size_t k, size_t g)
{
    return 1 + ((pi * set->nm + mi) * nq + k) * ngpus + g;
}

/* A report figure's data: a block per model, platform and quantizer from the first_q-th (model-major, as the
 * panels are), a line per GPU count written by `line` from the row and quantizer 0's row at that count. @return
 * the text (malloc'd), or NULL. */
typedef void (*report_line)(FILE *f, const gq_table *rows, size_t r, size_t r0, const void *ctx);
static char *report_blocks(const gq_table *rows, const report_set *set, const quant_labels *names, size_t nq,
                           size_t ngpus, size_t first_q, report_line line, const void *ctx)
{
    char *dat = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&dat, &len);
    if (!f) return NULL;
    for (size_t mi = 0; mi < set->nm; mi++)
        for (size_t pi = 0; pi < set->np; pi++)
            for (size_t k = first_q; k < nq; k++) {
                fprintf(f, "# %s %s %s\n", set->models[mi], set->platforms[pi], names->name[k]);
                for (size_t g = 0; g < ngpus; g++)
                    line(f, rows, report_row(set, nq, ngpus, pi, mi, k, g), report_row(set, nq, ngpus, pi, mi, 0, g),
                         ctx);
                fprintf(f, "\n\n");
            }
    if (fclose(f) != 0) return free(dat), NULL;
    return dat;
}

/* The report rows' columns a figure's lines read, looked up once a figure. */
typedef struct {
    size_t gpus, speedup, images, per_million;
    int costs; /* every row has a price */
} report_columns;

static report_columns report_columns_of(const gq_table *rows)
{
    report_columns c = {(size_t)table_column(rows, "gpus"), (size_t)table_column(rows, "speedup"),
                        (size_t)table_column(rows, "images_per_s"),
                        (size_t)table_column(rows, "cost_per_million_samples"), 1};
    for (size_t r = 1; r < rows->nrows; r++) c.costs = c.costs && *table_cell(rows, r, c.per_million);
    return c;
}

/* gpus, then the row's speedup over quantizer 0's */
static void gain_line(FILE *f, const gq_table *rows, size_t r, size_t r0, const void *ctx)
{
    const report_columns *c = ctx;
    fprintf(f, "%s %.6g\n", table_cell(rows, r, c->gpus),
            atof(table_cell(rows, r, c->speedup)) / atof(table_cell(rows, r0, c->speedup)));
}

/* gpus, images/s, and the cost of a million images where every row has one, else 0 */
static void compare_line(FILE *f, const gq_table *rows, size_t r, size_t r0, const void *ctx)
{
    (void)r0;
    const report_columns *c = ctx;
    fprintf(f, "%s %s %s\n", table_cell(rows, r, c->gpus), table_cell(rows, r, c->images),
            c->costs ? table_cell(rows, r, c->per_million) : "0");
}

/* The gain figure: every quantizer's speedup over the first's, a panel per model, a line per cluster and quantizer. */
static int report_gain(const char *dir, const gq_table *rows, const quant_labels *names, size_t nq, size_t ngpus,
                       const report_set *set)
{
    const report_columns cols = report_columns_of(rows);
    char *dat = report_blocks(rows, set, names, nq, ngpus, 1, gain_line, &cols);
    if (!dat) return -1;
    char png[4200], title[400];
    snprintf(png, sizeof png, "%s/gain.png", dir);
    snprintf(title, sizeof title, "Each quantizer's speedup over %s's", names->name[0]);
    gp_vars vars = {0};
    gpv_string(&vars, "ptitle", title);
    gpv_string(&vars, "first", names->name[0]);
    const char *keys[MAX_QUANTS + MAX_PLATFORMS];
    gpv_speckeys(&vars, keys, figure_keys(names, set->keys, set->nkeys, keys));
    gpv_array(&vars, "models", set->models, set->nm);
    gpv_array(&vars, "clusters", set->clusters, set->np);
    gpv_array(&vars, "gains", names->ptr + 1, nq - 1);
    int rc = cli_plot("report_gain", png, dat, &vars);
    gpv_free(&vars);
    free(dat);
    return rc;
}

/* The comparison figure across platforms: images/s (and, where every row has a price, the cost of a million
 * images) against GPUs, a panel per model, a line per platform and quantizer. */
static int report_compare(const char *dir, const gq_table *rows, const quant_labels *names, size_t nq, size_t ngpus,
                          const report_set *set)
{
    const report_columns cols = report_columns_of(rows);
    const int costs = cols.costs;
    char *dat = report_blocks(rows, set, names, nq, ngpus, 0, compare_line, &cols);
    if (!dat) return -1;
    char png[4200];
    snprintf(png, sizeof png, "%s/compare.png", dir);
    gp_vars vars = {0};
    gpv_string(&vars, "ptitle", costs ? "Throughput and cost across platforms" : "Throughput across platforms");
    gpv_number(&vars, "costs", costs);
    const char *keys[MAX_QUANTS + MAX_PLATFORMS];
    gpv_speckeys(&vars, keys, figure_keys(names, set->keys, set->nkeys, keys));
    gpv_array(&vars, "models", set->models, set->nm);
    gpv_array(&vars, "clusters", set->clusters, set->np);
    gpv_array(&vars, "quants", names->ptr, nq);
    int rc = cli_plot("report_compare", png, dat, &vars);
    gpv_free(&vars);
    free(dat);
    return rc;
}

/* The figures of a report: one per cluster (a panel per model), each quantizer's gain over the first, and with more
 * than one platform their comparison. */
static int report_figures(const char *dir, const gq_table *rows, const char *const *quants, size_t nq, size_t ngpus,
                          const report_set *set)
{
    quant_labels names;
    quant_names(&names, quants, nq);
    for (size_t pi = 0; pi < set->np; pi++) {
        static const char *const KEY[] = {"model", "quant"};
        char *dat = blocks(rows, "platform", set->platforms[pi], KEY, 2, "gpus", "images_per_s", "speedup");
        char png[4200], slug[96];
        report_slug(set->platforms[pi], pi, slug, sizeof slug);
        snprintf(png, sizeof png, "%s/speedup-%s.png", dir, slug);
        gp_vars vars = {0};
        gpv_string(&vars, "ptitle", set->platforms[pi]);
        gpv_speckeys(&vars, names.key_ptr, names.nkey);
        gpv_array(&vars, "quants", names.ptr, nq);
        gpv_array(&vars, "models", set->models, set->nm);
        int rc = dat ? cli_plot("report_cluster", png, dat, &vars) : -1;
        gpv_free(&vars);
        free(dat);
        if (rc != 0) return -1;
    }
    if (nq > 1 && report_gain(dir, rows, &names, nq, ngpus, set) != 0) return -1;
    return set->np > 1 ? report_compare(dir, rows, &names, nq, ngpus, set) : 0;
}

/* Across the report's platforms at its largest GPU count: each model and quantizer's throughput and price, in
 * the rows' order (platform, model, quantizer). */
static void report_comparison(const gq_table *rows, const report_set *set, size_t nq, size_t ngpus, gq_table *out)
{
    /* the rows' own columns, under their own names */
    static const char *const HEADER[] = {"platform",     "model",         "quant",
                                         "images_per_s", "cost_per_hour", "cost_per_million_samples"};
    table_init(out, HEADER, 6);
    out->key_cols = 3;
    int col[6];
    for (int c = 0; c < 6; c++) col[c] = table_column(rows, HEADER[c]);
    for (size_t pi = 0; pi < set->np; pi++)
        for (size_t mi = 0; mi < set->nm; mi++)
            for (size_t k = 0; k < nq; k++) {
                const size_t r = report_row(set, nq, ngpus, pi, mi, k, ngpus - 1);
                table_row(out, "%s\t%s\t%s\t%s\t%s\t%s", table_cell(rows, r, (size_t)col[0]),
                          table_cell(rows, r, (size_t)col[1]), table_cell(rows, r, (size_t)col[2]),
                          table_cell(rows, r, (size_t)col[3]), table_cell(rows, r, (size_t)col[4]),
                          table_cell(rows, r, (size_t)col[5]));
            }
}

static int cmd_report(int argc, char **argv)
{
    cli_args a = {0};
    cli_sim_defaults(&a);
    if (cli_parse_command(C_REPORT, argc, argv, &a)) return EXIT_USAGE;
    const char *dir = a.out ? a.out : "gqsim-report";
    if (!a.out && cli_check_output_dir("--out", dir) != 0) return EXIT_USAGE;
    const char *const *quants = a.nquant ? a.quant : REPORT_QUANTS;
    const size_t nq = a.nquant ? a.nquant : 4;
    /* TernGrad's two clusters and three models, or the user's own clusters or models in their place */
    static const char *const CLUSTERS[2] = {"1 GbE", "InfiniBand"};
    platform_labels plats;
    platform_names(&plats, a.platforms, a.nplatforms);
    const char *cluster_names[MAX_PLATFORMS];
    for (size_t k = 0; k < a.nplatforms; k++) cluster_names[k] = plats.name[k];
    const report_set set = {.platforms = a.nplatforms ? a.platforms : REPORT_PLATFORMS,
                            .clusters = a.nplatforms ? cluster_names : CLUSTERS,
                            .models = a.nmodels ? a.models : REPORT_MODELS,
                            .np = a.nplatforms ? a.nplatforms : 2,
                            .nm = a.nmodels ? a.nmodels : 3,
                            .keys = plats.key_ptr,
                            .nkeys = a.nplatforms ? plats.nkey : 0};
    /* without --gpus, 1, 2, 4, ... up to what the smallest platform of a fixed size holds */
    cluster_spec read[MAX_PLATFORMS];
    read_platforms(set.platforms, set.np, read);
    warn_read(set.platforms, read, set.np);
    const cluster_spec *fixed = NULL;
    for (size_t k = 0; k < set.np; k++)
        if (read[k].nodes && (!fixed || read[k].nodes * read[k].gpus_per_node < fixed->nodes * fixed->gpus_per_node))
            fixed = &read[k];
    int gpus[MAX_GPU_COUNTS];
    const size_t ngpus = default_gpus(&a, fixed, gpus);
    if (cli_stage_dir(dir) != 0) return 1; /* removed again if the report fails */
    sim_request q = cli_request_of(&a);
    gq_table rows = {0}, summary = {0}, across = {0};
    char msg[1024];
    int rc = 0;
    cli_runs runs = {.total = set.np * set.nm * nq * ngpus};
    const gq_err reported = sim_report(&q, set.platforms, (int)set.np, set.models, (int)set.nm, quants, (int)nq, gpus,
                                       (int)ngpus, &rows, &summary, on_progress, &runs, msg, sizeof msg);
    cli_ticker_stop();
    if (reported != GQ_OK) cli_error("%s", msg), rc = cli_exit_of(reported);
    char csv[4200];
    snprintf(csv, sizeof csv, "%s/report.csv", dir);
    if (rc == 0 && (table_write_csv(&rows, csv) != 0 || report_figures(dir, &rows, quants, nq, ngpus, &set) != 0))
        rc = 1;
    int priced = 0; /* a row with a price: the comparison says what the throughput costs */
    const size_t hour = (size_t)table_column(&rows, "cost_per_hour");
    for (size_t r = 1; rc == 0 && r < rows.nrows; r++) priced |= *table_cell(&rows, r, hour) != '\0';
    if (rc == 0 && (set.np > 1 || priced)) {
        report_comparison(&rows, &set, nq, ngpus, &across);
        snprintf(csv, sizeof csv, "%s/compare.csv", dir);
        if (table_write_csv(&across, csv) != 0) rc = 1;
    }
    if (rc == 0) {
        /* the scheme as the rows say it (a --framework sets it where --sync was not given) */
        const char *sync = table_cell(&rows, 1, (size_t)table_column(&rows, "sync"));
        if (a.format == FMT_TABLE)
            printf("Speedup over one GPU (fp32) at %d GPUs, %s, %s engine:\n\n", gpus[ngpus - 1], sync,
                   sim_engine_name(q.run.engine));
        table_print(&summary, (cli_format)a.format);
        if (a.format == FMT_TABLE && across.nrows > 1) {
            printf("\n%s at %d GPUs (compare.csv%s):\n\n", set.np > 1 ? "Across platforms" : "Throughput and price",
                   gpus[ngpus - 1], set.np > 1 ? ", compare.png" : "");
            table_print(&across, FMT_TABLE);
        }
        if (a.format == FMT_TABLE)
            printf("\nWrote %s/report.csv and a figure per cluster%s%s\n(each figure with its .gp script and .dat "
                   "data). Which quantizer reaches an accuracy first there\n(the accuracies of LeNet-5, trained here "
                   "on Fashion-MNIST, which reaches 0.88 in fp32; docs/accuracy.md):\n"
                   "  gqsim tta --platform %s --gpus %d --quant fp32 --quant terngrad --target 0.88 --plot tta.png\n",
                   dir, nq > 1 ? ", gain.png" : "",
                   set.np > 1 ? ", compare.png and compare.csv"
                   : priced   ? ", compare.csv"
                              : "",
                   set.platforms[0], gpus[ngpus - 1] > 1 ? gpus[ngpus - 1] : 8);
    }
    table_free(&rows);
    table_free(&summary);
    table_free(&across);
    return rc;
}

/* ---- validate ---------------------------------------------------------------------------------------- */

/* A measured set (validate) or a grid (sweep) from its file. @return 0, or 1 after printing. */
static int read_measured(const char *path, int grid, measured_set *ms)
{
    unsigned char *text;
    size_t size;
    char msg[1024];
    if (cli_read_file(path, CLI_MAX_TEXT_BYTES, &text, &size) != 0) return 1;
    const gq_err e = (grid ? measured_parse_grid : measured_parse)((const char *)text, size, path, ms, msg, sizeof msg);
    free(text);
    if (e != GQ_OK) return cli_error("%s", e == GQ_ERR_NOMEM ? "out of memory" : msg), 1;
    return 0;
}

/* --plot: every row's prediction against its measurement, a series per quantizer and scheme (each its rows, in
 * order), labelled by the quantizer's short name and the scheme. */
static int validate_plot(const char *path, const gq_table *rows)
{
    const size_t qc = (size_t)table_column(rows, "quant"), sc = (size_t)table_column(rows, "sync"),
                 mc = (size_t)table_column(rows, "measured_images_per_s"),
                 pc = (size_t)table_column(rows, "predicted_images_per_s"), gc = (size_t)table_column(rows, "gpus");
    const size_t n = rows->nrows > 0 ? rows->nrows - 1 : 0;
    size_t *series = gq_xcalloc(n + 1, sizeof *series), nseries = 0; /* each series' first row */
    for (size_t r = 1; r <= n; r++) {
        size_t k = 0;
        while (k < nseries && !(strcmp(table_cell(rows, series[k], qc), table_cell(rows, r, qc)) == 0 &&
                                strcmp(table_cell(rows, series[k], sc), table_cell(rows, r, sc)) == 0))
            k++;
        if (k == nseries) series[nseries++] = r;
    }
    const char **specs = gq_xcalloc(nseries + 1, sizeof *specs);
    for (size_t k = 0; k < nseries; k++) specs[k] = table_cell(rows, series[k], qc);
    char(*label)[QZ_LABEL_MAX + 80] = gq_xcalloc(nseries + 1, sizeof *label),
                                (*shortq)[QZ_LABEL_MAX] = gq_xcalloc(nseries + 1, sizeof *shortq);
    const char **ptr = gq_xcalloc(nseries + 1, sizeof *ptr);
    qz_short_labels(specs, nseries, shortq);
    char *dat = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&dat, &len);
    double amax = 1;
    for (size_t k = 0; f && k < nseries; k++) {
        snprintf(label[k], sizeof label[k], "%s, %.60s", shortq[k], table_cell(rows, series[k], sc));
        ptr[k] = label[k];
        fprintf(f, "%s# %s\n", k ? "\n\n" : "", label[k]);
        for (size_t r = series[k]; r <= n; r++) {
            if (strcmp(table_cell(rows, r, qc), specs[k]) != 0 ||
                strcmp(table_cell(rows, r, sc), table_cell(rows, series[k], sc)) != 0)
                continue;
            const double m = atof(table_cell(rows, r, mc)), p = atof(table_cell(rows, r, pc));
            fprintf(f, "%.17g %.17g %s\n", m, p, table_cell(rows, r, gc));
            amax = fmax(amax, fmax(m, p));
        }
    }
    int rc = !f || fclose(f) != 0;
    if (rc == 0) {
        gp_vars vars = {0};
        gpv_number(&vars, "amax", amax);
        gpv_array(&vars, "labels", ptr, nseries);
        rc = cli_plot("validate", path, dat, &vars) != 0;
        gpv_free(&vars);
    }
    free(dat), free(series), free(specs), free(label), free(shortq), free(ptr);
    return rc;
}

static int cmd_validate(int argc, char **argv)
{
    cli_args a = {0};
    cli_sim_defaults(&a);
    if (cli_parse_command(C_VALIDATE, argc, argv, &a)) return EXIT_USAGE;
    measured_set ms;
    char msg[1024];
    if (read_measured(a.measured, 0, &ms) != 0) return 1;
    sim_request q = cli_request_of(&a);
    gq_table rows = {0};
    double median = 0, mean = 0;
    int rc = 0;
    size_t scored = 0;
    cli_runs runs = {.total = ms.n};
    if (sim_validate(&ms, a.measured, &q, &rows, &median, &mean, &scored, on_progress, &runs, msg, sizeof msg) !=
        GQ_OK) {
        cli_ticker_stop();
        cli_error("%s", msg);
        rc = 1;
    }
    cli_ticker_stop();
    if (rc == 0) {
        table_print(&rows, (cli_format)a.format);
        FILE *out = a.format == FMT_TABLE ? stdout : stderr;
        fprintf(out, "%s%zu row%s", a.format == FMT_TABLE ? "\n" : "", ms.n, gq_s((long long)ms.n));
        if (scored > 0)
            fprintf(out, "; on the %zu with more than one GPU: median absolute error %.1f%%, mean %.1f%%\n", scored,
                    median, mean);
        else
            fprintf(out, ", all on one GPU (the throughput's own measurement): no error to score\n");
    }
    if (rc == 0 && a.plot) rc = validate_plot(a.plot, &rows);
    measured_free(&ms);
    table_free(&rows);
    return rc;
}

/* ---- platforms ---------------------------------------------------------------------------------------- */

static int platform_arg(const cli_args *a, const char *cmd, cluster_spec *c)
{
    if (!a->positional) {
        cli_error("%s: which platform? (a built-in name or cluster:...)", cmd);
        return -1;
    }
    char msg[512];
    if (cluster_parse(a->positional, c, msg, sizeof msg) != GQ_OK) {
        cli_error("%s", msg);
        return -1;
    }
    return 0;
}

static int platforms_list(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    if (cli_parse_command(C_PLATFORMS_LIST, argc, argv, &a)) return EXIT_USAGE;
    gq_table t;
    table_init(&t, PLATFORMS_LIST_COLUMNS, PLATFORMS_LIST_NCOLUMNS);
    for (size_t i = 0; i < cluster_builtin_count(); i++) {
        const cluster_spec *c = cluster_builtin(i);
        char spec[256];
        cluster_format(c, spec, sizeof spec);
        table_row(&t, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s", c->name, c->gpu, c->gpus_per_node, c->intra->name,
                  c->inter->name, c->nics, spec, c->source);
    }
    table_print(&t, (cli_format)a.format);
    table_free(&t);
    return 0;
}

static int platforms_show(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    cluster_spec c;
    if (cli_parse_command(C_PLATFORMS_SHOW, argc, argv, &a) ||
        platform_arg(&a, cli_command_name(C_PLATFORMS_SHOW, NULL), &c))
        return EXIT_USAGE;
    gq_table t;
    table_init(&t, PLATFORMS_SHOW_COLUMNS, PLATFORMS_SHOW_NCOLUMNS);
    if (cluster_uniform_node(&c))
        table_row(&t, "gpu-to-node\t%s\t%.4g\t%.3g\t-\t%s", c.intra->name, c.intra->bandwidth / 1e9,
                  c.intra->latency * 1e6, c.intra->source);
    for (int i = 0; !cluster_uniform_node(&c) && i < node_link_count(&c); i++) { /* a tree or mesh: each link */
        const node_link l = node_link_at(&c, i);
        table_row(&t, "node:%s\t%s\t%.4g\t%.3g\t-\t%s", l.name, l.kind, l.bandwidth / 1e9, l.latency * 1e6, l.role);
    }
    table_row(&t, "node-nic\t%d x %s\t%.4g\t%.3g\t%s\t%s", c.nics, c.inter->name, cluster_nic_bandwidth(&c) / 1e9,
              c.inter->latency * 1e6, c.inter->rdma ? "RDMA (CM02)" : "TCP (LV08)", c.inter->source);
    if (c.topo == TOPO_FAT_TREE)
        table_row(&t, "leaf-uplink\t%d nodes / %g\t%.4g\t%.3g\t-\tfat-tree", c.leaf_nodes, c.oversub,
                  cluster_nic_bandwidth(&c) * c.leaf_nodes / c.oversub / 1e9, c.inter->latency * 1e6);
    if (a.format == FMT_TABLE) {
        char spec[256];
        cluster_format(&c, spec, sizeof spec);
        printf("%s: %d x %s per node\n%s\n%s\n\n", c.name, c.gpus_per_node, c.gpu, spec, c.source);
    }
    table_print(&t, (cli_format)a.format);
    table_free(&t);
    return 0;
}

static int platforms_xml(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    cluster_spec c;
    if (cli_parse_command(C_PLATFORMS_XML, argc, argv, &a) ||
        platform_arg(&a, cli_command_name(C_PLATFORMS_XML, NULL), &c))
        return EXIT_USAGE;
    int nodes = a.nodes ? (int)a.nodes : c.nodes ? c.nodes : 1;
    char *xml = cluster_xml(&c, nodes, CLUSTER_XML_FLAT);
    if (!xml) return cli_error("out of memory"), 1;
    fputs(xml, stdout);
    free(xml);
    return 0;
}

/* Reads a ping-pong CSV (sim/user_tables.c). @return rows, or -1 after printing. */
static int read_pingpong(const char *path, double *bytes, double *secs, int cap)
{
    char *text, msg[512];
    size_t len;
    if (gq_read_file(path, (size_t)1 << 20, 1, &text, &len, msg, sizeof msg) != GQ_OK) return cli_error("%s", msg), -1;
    int n = 0;
    const gq_err e = pingpong_parse(text, len, path, bytes, secs, cap, &n, msg, sizeof msg);
    free(text);
    if (e != GQ_OK) return cli_error("%s", e == GQ_ERR_NOMEM ? "out of memory" : msg), -1;
    return n;
}

static int platforms_calibrate(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    cluster_spec c;
    if (cli_parse_command(C_PLATFORMS_CALIBRATE, argc, argv, &a) ||
        platform_arg(&a, cli_command_name(C_PLATFORMS_CALIBRATE, NULL), &c))
        return EXIT_USAGE;
    double bytes[64], secs[64], alpha, beta;
    const int k = read_pingpong(a.pingpong, bytes, secs, 64);
    if (k < 0) return 1;
    sim_network n;
    char msg[256], spec[160];
    const char *base = a.req.run.network_model ? a.req.run.network_model : sim_network_default(c.inter->rdma);
    if (sim_network_calibrate(&c, base, bytes, secs, (size_t)k, &n, &alpha, &beta, msg, sizeof msg) != 0)
        return cli_error("%s: %s", a.pingpong, msg), 1;
    snprintf(spec, sizeof spec, "%s:latency-factor=%.4g,bandwidth-factor=%.4g", n.name, n.latency_factor,
             n.bandwidth_factor);
    gq_table t;
    table_init(&t, PLATFORMS_CALIBRATE_COLUMNS, PLATFORMS_CALIBRATE_NCOLUMNS);
    table_row(&t, "%s\t%.4g\t%.6g\t%.4g\t%.6g", spec, alpha * 1e6, beta / 1e6, alpha / n.latency_factor * 1e6,
              beta / n.bandwidth_factor / 1e6);
    table_print(&t, (cli_format)a.format);
    table_free(&t);
    return 0;
}

const cli_command PLATFORM_CMDS[] = {
    {"list", platforms_list, C_PLATFORMS_LIST, NULL, "built-in clusters", NULL},
    {"show", platforms_show, C_PLATFORMS_SHOW, "NAME|cluster:...", "a cluster's links", NULL},
    {"xml", platforms_xml, C_PLATFORMS_XML, "NAME|cluster:...",
     "the SimGrid platform XML, with the gqsim.* properties that let --platform read it back", NULL},
    {"calibrate", platforms_calibrate, C_PLATFORMS_CALIBRATE, "NAME|cluster:...",
     "network factors from a ping-pong between two of its nodes (for --network-model)",
     "SimGrid's calibration in two segments: the latency is the smallest message's one-way time, the\n"
     "bandwidth 1/slope of a least-squares line through the sizes of 64 KiB and more; each factor is\n"
     "measured / the platform's own (two nodes' route: latencies added, narrowest link). Prints the\n"
     "--network-model spec to simulate (or validate) that network with. Measure with bench/mpi_pingpong\n"
     "(in the lab: scripts/netlab.sh mpirun 2 -- build/mpi_pingpong > pp.csv).\n"},
    {NULL, NULL, 0, NULL, NULL, NULL},
};

int cmd_platforms(int argc, char **argv) { return cli_dispatch("platforms", PLATFORM_CMDS, argc, argv); }
void help_platforms(void) { cli_print_usage(stdout, "platforms", PLATFORM_CMDS); }

/* ---- help ------------------------------------------------------------------------------------------- */

static const char SIM_DETAILS[] =
    "The SimGrid engine takes at most 16384 GPUs (ps-flat: 128) and says on stderr when a run will be long;\n"
    "--engine analytic has no limit.\n"
    "ps-sharded: GPUs of a node reduce locally, then every node holds one shard of the parameter server, as\n"
    "TernGrad's model and TensorFlow shard it. Horovod's fusion: tensors ready within one 5 ms cycle are fused\n"
    "into buckets of up to 64 MiB. Codec cost: the codec's profile on the device that runs it (--codec-on),\n"
    "published, fitted or measured ('gqsim quant costs' shows it; docs/codec-costs.md); the codec_source\n"
    "column names it. Nothing is timed while predicting: the same command gives the same bytes.\n";

static const char REPORT_DETAILS[] =
    "Both TernGrad Figure-5 clusters, AlexNet (batch 128), GoogLeNet (64), VGG-A (32), by default fp32 vs\n"
    "TernGrad vs QSGD-3 vs ORQ-3 at 1..512 GPUs: DIR/report.csv (every run), a figure per cluster, the gain\n"
    "of the second quantizer over the first (gain.png), and on stdout each quantizer's speedup at the largest\n"
    "GPU count with its ratio to the first quantizer, columns in the order of --quant, named by their specs.\n"
    "--platform P puts your cluster in place of the two, --model M your model in place of the three (at its\n"
    "customary batch); the figure of a cluster spec or XML file is named after it (speedup-NAME.png, with\n"
    "every character but letters, digits, '.', '-' and '_' as '_'). DIR defaults to gqsim-report.\n";

static const char VALIDATE_DETAILS[] =
    "Each row of FILE.csv is a measured training throughput with its configuration: columns model, gpu, batch\n"
    "(or batch_per_gpu), gpus, images_per_s, and platform (or machine and interconnect), with optional sync\n"
    "(ps, ps-sharded, ps-flat, ring, hierarchical, allgather; parameter_server(cpu) is ps with --ps-on cpu, other\n"
    "parameter_server(...) ps, replicated(...) ring) and quant (default fp32), and a column for each run\n"
    "parameter below. Other columns are carried along unread, but one a letter or two from these (ps_shard,\n"
    "overlp) is refused as a misspelling. Fields holding commas (a quantizer spec, a cluster: platform) are\n"
    "quoted (RFC 4180, read by libcsv). gpus is 1..65536, batch 1..1000000. Prints prediction, measurement\n"
    "and error per row, then the median and mean absolute percentage error.\n"
    "Example: gqsim validate --measured data/single_node_scaling.csv (published single-node runs).\n";

/* ---- advise ---------------------------------------------------------------------------------------------- */

/* Started by mpirun with more than one rank (OpenMPI says so in its environment): the finalists are spread over
 * the ranks. */
static int under_mpirun(void)
{
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    return n && atoi(n) > 1;
}

static gq_err gather_doubles(void *ctx, const double *mine, int n, double *all)
{
    train_comm *c = ctx;
    return c->allgather_doubles(c, mine, n, all);
}

static void advise_progress(void *ctx, const char *phase, size_t done, size_t total)
{
    char what[160];
    snprintf(what, sizeof what, "advise %s%s", (const char *)ctx, phase);
    cli_progress_eta(what, done, total);
}

/* Table mode, more than one platform: each platform's winner at a GPU count, best first by what the search ranked
 * by (mode 0: images/s; 1: the time to the target; 2: the accuracy at the budget), each against the best. */
/* best's rows (1..n) in order of column vc, the lowest first where `lowest`, else the highest; ties in the order
 * given (an insertion sort: a winner a search). order has room for n. */
static void rows_by(const gq_table *best, int vc, int lowest, size_t *order)
{
    const size_t n = best->nrows - 1;
    for (size_t i = 0; i < n; i++) {
        order[i] = i + 1;
        for (size_t j = i; j > 0; j--) {
            const double x = atof(table_cell(best, order[j], vc)), y = atof(table_cell(best, order[j - 1], vc));
            if (lowest ? !(x < y) : !(x > y)) break;
            const size_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    }
}

static void advise_across(const gq_table *best, int gpus, int mode)
{
    static const char *const COLUMN[] = {"images_per_s", "time_to_target_s", "accuracy_at_budget"};
    static const char *const UNIT[] = {"images/s", "s to the target", "test accuracy within the budget"};
    const int vc = table_column(best, COLUMN[mode]), pc = table_column(best, "platform"),
              qc = table_column(best, "quant"), sc = table_column(best, "sync");
    size_t order[MAX_PLATFORMS] = {0}, n = best->nrows - 1;
    rows_by(best, vc, mode == 1, order);
    printf("\nAcross platforms at %d GPU%s, best first:\n", gpus, gq_s(gpus));
    const double first = atof(table_cell(best, order[0], vc));
    for (size_t i = 0; i < n; i++) {
        const double v = atof(table_cell(best, order[i], vc));
        printf("  %-24s %10.6g %s  %s, %s", table_cell(best, order[i], pc), v, UNIT[mode],
               table_cell(best, order[i], qc), table_cell(best, order[i], sc));
        if (i > 0 && mode == 0) printf("  (%.2fx the best's time)", first / v);
        if (i > 0 && mode == 1) printf("  (%.2fx the best's time)", v / first);
        if (i > 0 && mode == 2) printf("  (%+.4f)", v - first);
        printf("\n");
    }
}

/* --rank-by cost: every search's winner (each platform at each GPU count), cheapest first by the cost of a million
 * images or, with a target, of reaching it. */
static void advise_by_cost(const gq_table *best, int to_target)
{
    const char *cost = to_target ? "cost_to_target" : "cost_per_million_samples";
    const int vc = table_column(best, cost), pc = table_column(best, "platform"), gc = table_column(best, "gpus"),
              qc = table_column(best, "quant"), sc = table_column(best, "sync"),
              ic = table_column(best, "images_per_s");
    const size_t n = best->nrows - 1;
    size_t *order = gq_xcalloc(n + 1, sizeof *order);
    rows_by(best, vc, 1, order);
    const char *header[] = {"platform", "gpus", cost, "x_cheapest", "images_per_s", "quant", "sync"};
    gq_table t;
    table_init(&t, header, 7);
    t.key_cols = 2;
    const double first = atof(table_cell(best, order[0], vc));
    for (size_t i = 0; i < n; i++) {
        const size_t r = order[i];
        table_row(&t, "%s\t%s\t%s\t%.3f\t%s\t%s\t%s", table_cell(best, r, pc), table_cell(best, r, gc),
                  table_cell(best, r, vc), atof(table_cell(best, r, vc)) / first, table_cell(best, r, ic),
                  table_cell(best, r, qc), table_cell(best, r, sc));
    }
    printf("\nBy cost %s, every search's best, cheapest first:\n\n",
           to_target ? "to the target" : "of a million images");
    table_print(&t, FMT_TABLE);
    table_free(&t);
    free(order);
}

/* --plot: a bar for each row printed, its speedup over its search's fp32, coloured by search. */
static int advise_plot(const char *path, const gq_table *rows, const char *model)
{
    const int pc = table_column(rows, "platform"), gc = table_column(rows, "gpus"), qc = table_column(rows, "quant"),
              sc = table_column(rows, "sync"), fc = table_column(rows, "fusion_bytes"),
              cc = table_column(rows, "codec_on"), xc = table_column(rows, "speedup_over_fp32"),
              bc = table_column(rows, "fp32_below"), ic = table_column(rows, "images_per_s");
    char *dat = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&dat, &len);
    const size_t n = rows->nrows > 0 ? rows->nrows - 1 : 0;
    char(*labels)[256] = gq_xcalloc(n + 1, sizeof *labels);
    const char **ptr = gq_xcalloc(n + 1, sizeof *ptr);
    if (!f) return free(labels), free(ptr), -1;
    int search = -1;
    double xmax = 0;
    for (size_t r = 1; r <= n; r++) {
        if (r == 1 || strcmp(table_cell(rows, r, pc), table_cell(rows, r - 1, pc)) != 0 ||
            strcmp(table_cell(rows, r, gc), table_cell(rows, r - 1, gc)) != 0)
            search++;
        const double fusion = atof(table_cell(rows, r, fc));
        char fu[32];
        if (fusion > 0)
            snprintf(fu, sizeof fu, "%.0f MiB", fusion / 1048576);
        else
            snprintf(fu, sizeof fu, "per tensor");
        const char *below = table_cell(rows, r, bc);
        snprintf(labels[r - 1], sizeof labels[r - 1], "%.30s, %s GPUs: %.28s, %s, %s%s%s, codec %s",
                 table_cell(rows, r, pc), table_cell(rows, r, gc), table_cell(rows, r, qc), table_cell(rows, r, sc), fu,
                 atof(below) > 0 ? ", fp32 below " : "", atof(below) > 0 ? below : "", table_cell(rows, r, cc));
        ptr[r - 1] = labels[r - 1];
        /* the bar in images/s, and its search's fp32 (its images/s over its speedup) */
        const double images = atof(table_cell(rows, r, ic)), over = atof(table_cell(rows, r, xc));
        const double fp32 = over > 0 ? images / over : 0;
        fprintf(f, "%zu %.17g %d %.17g %.17g\n", r - 1, images, search, fp32, over);
        xmax = fmax(xmax, fmax(images, fp32));
    }
    if (fclose(f) != 0) return free(dat), free(labels), free(ptr), -1;
    char title[400];
    snprintf(title, sizeof title, "%.100s: advise's best configurations in images/s, each search's fp32 marked", model);
    gp_vars vars = {0};
    gpv_string(&vars, "ptitle", title);
    gpv_number(&vars, "xmax", xmax);
    gpv_array(&vars, "labels", ptr, n);
    const int rc = cli_plot("advise", path, dat, &vars);
    gpv_free(&vars);
    free(dat), free(labels), free(ptr);
    return rc;
}

/* --per-tensor: the winner's codec tensor by tensor, its plan written (rank 0) and summed up (in a table). */
static int advise_per_tensor(const cli_args *a, const advise_counts *n, int gpus, int rank)
{
    tensor_plan plan;
    advise_plan_result pr;
    gq_table t = {0};
    char msg[1024];
    gq_err e = sim_advise_plan(&n->winner, n->winner_quant, gpus, &plan, &t, &pr, rank == 0 ? advise_progress : NULL,
                               "", msg, sizeof msg);
    if (e != GQ_OK)
        return table_free(&t), rank == 0 ? (cli_progress(0, "%s", ""), cli_error("advise --per-tensor: %s", msg)) : 0,
               cli_exit_of(e);
    int rc = 0;
    if (rank == 0) {
        if (table_write_csv(&t, a->per_tensor) != 0) rc = 1;
        char what[512];
        tensor_plan_describe(&plan, what, sizeof what);
        FILE *out = a->format == FMT_TABLE ? stdout : stderr; /* CSV: stdout holds the one table */
        cli_progress(0, "%s", "");
        if (rc == 0) {
            const sim_request *w = &n->winner;
            fprintf(out,
                    "%sPer tensor, from the winner (%s): %s, %.6g s an iteration (%s) where every tensor as it was "
                    "takes %.6g s (%.3fx); %zu analytic runs over %zu pass%s, then %zu with %s. Plan: %s; simulate it "
                    "with the options above and --plan %s --sync %s --fusion %.0f --fusion-cycle %g --codec-on %s\n",
                    a->format == FMT_TABLE ? "\n" : "", n->winner_quant, what, pr.plan_s,
                    sim_engine_name(w->run.engine), pr.start_s, pr.start_s / pr.plan_s, pr.evaluations, pr.passes,
                    pr.passes == 1 ? "" : "es", pr.final_evaluations, sim_engine_name(w->run.engine), a->per_tensor,
                    a->per_tensor, sync_name(w->run.sync), w->run.fusion_bytes, w->run.fusion_cycle_s,
                    codec_device_name(w->run.codec_on));
            if (a->format == FMT_TABLE) { /* the plan itself, as its file holds it */
                printf("\n");
                table_print(&t, FMT_TABLE);
            }
        }
    }
    table_free(&t);
    tensor_plan_free(&plan);
    return rc;
}

static int cmd_advise(int argc, char **argv)
{
    cli_args a;
    cli_train_defaults(&a); /* --train's trainer options, then the simulator's */
    cli_sim_defaults(&a);
    a.batch = 0; /* the simulated model's customary batch unless given; the trainer keeps its own */
    a.top = 5;
    if (cli_parse_command(C_ADVISE, argc, argv, &a)) return EXIT_USAGE;
    cluster_spec read[MAX_PLATFORMS];
    read_platforms(a.platforms, a.nplatforms, read);
    if (!under_mpirun()) warn_read(a.platforms, read, a.nplatforms); /* under mpirun once, by rank 0, below */
    sim_request q = cli_request_of(&a);
    if (a.train && a.accuracy_curve)
        return cli_error("advise: --train or --accuracy-curve, not both (each gives the curves)"), EXIT_USAGE;
    if (a.accuracy_curve || a.train ? !(a.target > 0) && !(a.budget > 0) : a.target > 0 || a.budget > 0)
        return cli_error("advise: --accuracy-curve or --train goes with --target-accuracy, --budget or both (the "
                         "curves say when each quantizer reaches an accuracy)"),
               EXIT_USAGE;
    const int curved = a.accuracy_curve || a.train;
    if (a.rank_by == RANK_TIME && !(curved && a.target > 0))
        return cli_error("advise: --rank-by time-to-target needs --target-accuracy with --accuracy-curve or --train"),
               EXIT_USAGE;
    if (a.rank_by == RANK_THROUGHPUT && curved)
        return cli_error("advise: --rank-by throughput ranks by images/s alone: leave out --accuracy-curve and --train "
                         "(with them advise ranks by the time to the target, or the accuracy within the budget)"),
               EXIT_USAGE;
    if (a.rank_by == RANK_COST && curved && !(a.target > 0))
        return cli_error(
                   "advise: --rank-by cost with accuracy curves needs --target-accuracy (the cost of reaching it)"),
               EXIT_USAGE;
    for (size_t k = 0; a.rank_by == RANK_COST && k < a.nplatforms; k++)
        if (!(a.gpu_hour_cost > 0 || read[k].node_hour_cost > 0))
            return cli_error("advise: --rank-by cost: --platform '%.*s%s' has no price (node-hour-cost=C in its spec, "
                             "gqsim.node-hour-cost in its XML) and no --gpu-hour-cost is given",
                             CLI_CLIP(a.platforms[k])),
                   EXIT_USAGE;
    if (a.per_tensor && (a.nplatforms > 1 || a.ngpus > 1))
        return cli_error("advise: --per-tensor plans one search's winner: give one --platform and one --gpus"),
               EXIT_USAGE;
    /* spread over mpirun's ranks: every rank agrees on every setting and input before any work */
    train_comm comm = {0};
    const int started = under_mpirun() ? cli_mpi_start(C_ADVISE, "advise", &comm, argc, argv) : 0;
    if (started != 0) return started;
    /* on the heap, and only where curves are given: 2 MB of them in static storage were scanned by
     * LeakSanitizer at every exit of gqsim */
    const int with_curves = a.accuracy_curve || a.train;
    tta_curve *curves = with_curves ? calloc(MAX_QUANTS * 4, sizeof *curves) : NULL;
    const double dataset = a.dataset_size ? (double)a.dataset_size : 1281167;
    if (with_curves && !curves) cli_error("advise: out of memory");
    int ncurves = a.accuracy_curve && curves ? cli_read_curves(a.accuracy_curve, dataset, curves, MAX_QUANTS * 4) : 0;
    if ((with_curves && !curves) || ncurves < 0) {
        if (comm.size > 1) comm_mpi_close(&comm);
        return free(curves), 1;
    }
    if (a.train) { /* every quantizer searched, trained here (the runs spread over the ranks) */
        const char *const *quants = a.nquant ? a.quant : ADVISE_QUANTS;
        size_t nq = a.nquant;
        while (!a.nquant && ADVISE_QUANTS[nq]) nq++;
        cli_args trainer = a;
        trainer.batch = (uint64_t)train_config_defaults().batch;
        int workers = (int)a.workers[0];
        if (cli_train_curves(&trainer, "lenet5", quants, nq, &workers, curves, &comm) != 0) {
            if (comm.size > 1) comm_mpi_close(&comm);
            free(curves);
            return 1;
        }
        ncurves = (int)nq;
    }
    const int rank = comm.size > 1 ? comm.rank : 0; /* rank 0 prints; every rank computes the same rows */
    if (under_mpirun() && rank == 0) warn_read(a.platforms, read, a.nplatforms);
    gq_table all = {0};        /* every search's rows: CSV prints them as one table, --plot draws them */
    gq_table every_best = {0}; /* every search's winner, for --rank-by cost */
    int rc = 0;
    /* GPU counts outer, platforms inner: each platform's best at a count side by side */
    for (size_t g = 0; g < a.ngpus && rc == 0; g++) {
        gq_table best = {0}; /* each platform's winner at this count */
        for (size_t pi = 0; pi < a.nplatforms && rc == 0; pi++) {
            q.platform = a.platforms[pi];
            char where[160] = "";
            if (a.nplatforms > 1 || a.ngpus > 1)
                snprintf(where, sizeof where, "%.100s, %llu GPUs, ", q.platform, (unsigned long long)a.gpus[g]);
            advise_request r = {.quants = a.nquant ? a.quant : NULL,
                                .nquants = a.nquant,
                                .gpus = (int)a.gpus[g],
                                .top = (int)a.top,
                                .curves = ncurves ? curves : NULL,
                                .ncurves = ncurves,
                                .target = a.target,
                                .budget_s = a.budget,
                                .dataset_images = dataset,
                                .rank = rank,
                                .ranks = comm.size,
                                .gather = comm.size > 1 ? gather_doubles : NULL,
                                .gather_ctx = &comm,
                                .progress = rank == 0 ? advise_progress : NULL,
                                .progress_ctx = where};
            char why[512], msg[1024];
            advise_counts n = {0};
            const size_t first = all.nrows ? all.nrows : 1; /* this search's first row */
            const gq_err e = sim_advise(&q, &r, &all, why, sizeof why, &n, msg, sizeof msg);
            if (e != GQ_OK) {
                if (rank == 0) cli_progress(0, "%s", ""), cli_error("%s", msg);
                rc = cli_exit_of(e);
                break;
            }
            table_copy_row(&best, &all, first);
            table_copy_row(&every_best, &all, first);
            if (a.format == FMT_TABLE && rank == 0) {
                gq_table t = {0}; /* this search's rows, under its own heading */
                for (size_t k = first; k < all.nrows; k++) table_copy_row(&t, &all, k);
                cli_progress(0, "%s", "");
                printf("%s%s on %s, %d GPU%s: %zu configurations screened (analytic), %zu simulated again (%s: the "
                       "best %d and each scheme's best), the best %zu of those:\n",
                       g || pi ? "\n" : "", q.model, q.platform, r.gpus, gq_s(r.gpus), n.screened, n.finalists,
                       sim_engine_name(q.run.engine), r.top, t.nrows - 1);
                printf("Why: %s\n", why);
                if (!ncurves)
                    printf("Accuracy not considered (no --accuracy-curve or --train): a biased or low-rank codec\n"
                           "may train to less (accuracy_note; docs/accuracy-tables.md).\n");
                printf("\n");
                table_print(&t, FMT_TABLE);
                table_free(&t);
            }
            if (a.per_tensor) rc = advise_per_tensor(&a, &n, r.gpus, rank);
        }
        if (rc == 0 && rank == 0 && a.format == FMT_TABLE && a.nplatforms > 1 && best.nrows > 1 &&
            a.rank_by != RANK_COST)
            advise_across(&best, (int)a.gpus[g], !ncurves ? 0 : a.target > 0 ? 1 : 2);
        table_free(&best);
    }
    if (rc == 0 && rank == 0 && a.format == FMT_TABLE && a.rank_by == RANK_COST && every_best.nrows > 1)
        advise_by_cost(&every_best, ncurves > 0);
    table_free(&every_best);
    if (rc == 0 && a.format != FMT_TABLE && rank == 0) table_print(&all, (cli_format)a.format);
    if (rc == 0 && a.plot && rank == 0 && advise_plot(a.plot, &all, q.model) != 0) rc = 1;
    table_free(&all);
    if (comm.size > 1) comm_mpi_close(&comm);
    free(curves);
    return rc;
}

/* ---- sweep ------------------------------------------------------------------------------------------- */

static void sweep_progress(void *ctx, const char *phase, size_t done, size_t total)
{
    (void)phase;
    cli_progress_eta((const char *)ctx, done, total);
}

/* A row's line in the grid file, its first cell: the order one process makes the rows in. */
static int by_line(const void *a, const void *b)
{
    const long x = atol(**(char *const *const *)a), y = atol(**(char *const *const *)b);
    return (x > y) - (x < y);
}

/* The rows (not the header) in the order of their lines. @return 0, or -1 out of memory. */
static int sort_by_line(gq_table *t)
{
    const size_t n = t->nrows > 0 ? t->nrows - 1 : 0, w = t->ncols;
    char ***row = malloc((n + 1) * sizeof *row), **cells = malloc((n + 1) * w * sizeof *cells);
    if (!row || !cells) return free(row), free(cells), -1;
    for (size_t r = 0; r < n; r++) row[r] = t->cells + (r + 1) * w;
    qsort(row, n, sizeof *row, by_line);
    for (size_t r = 0; r < n; r++) memcpy(cells + r * w, row[r], w * sizeof *cells);
    memcpy(t->cells + w, cells, n * w * sizeof *cells);
    free(row), free(cells);
    return 0;
}

/* Every rank's rows (or, where a rank failed, its message and the index of the row that failed) to rank 0: rows
 * then holds the whole grid's in the order of their lines, as one process would have made them. Where ranks failed,
 * *e and msg are the failure of the lowest row: each rank runs its rows in order and stops at its first failure, so
 * no row before that one failed unseen. Rows travel as their cells joined by tabs, rows ended by NULs (a cell holds
 * neither). */
static gq_err sweep_gather(train_comm *comm, gq_table *rows, gq_err *e, size_t failed, char *msg, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return GQ_ERR_NOMEM;
    if (*e != GQ_OK)
        fputs(msg, f);
    else
        for (size_t r = 1; r < rows->nrows; r++)
            for (size_t c = 0; c < rows->ncols; c++)
                fprintf(f, "%s%c", table_cell(rows, r, c), c + 1 < rows->ncols ? '\t' : '\0');
    if (fclose(f) != 0) return free(text), GQ_ERR_NOMEM;
    const int R = comm->size;
    const double mine[3] = {(double)*e, (double)len, (double)failed};
    double *all = calloc(3 * (size_t)R, sizeof *all);
    comm_msg *msgs = calloc((size_t)R, sizeof *msgs);
    char **bufs = calloc((size_t)R, sizeof *bufs);
    gq_err ge = all && msgs && bufs ? comm->allgather_doubles(comm, mine, 3, all) : GQ_ERR_NOMEM;
    int nrecv = 0;
    for (int r = 1; ge == GQ_OK && comm->rank == 0 && r < R; r++) {
        bufs[r] = malloc((size_t)all[3 * r + 1] + 1);
        if (!bufs[r]) ge = GQ_ERR_NOMEM;
        msgs[nrecv++] = (comm_msg){r, bufs[r], (size_t)all[3 * r + 1]};
    }
    comm_msg send = {0, text, len};
    if (ge == GQ_OK)
        ge = comm->rank == 0 ? comm->exchange(comm, NULL, 0, msgs, nrecv) : comm->exchange(comm, &send, 1, NULL, 0);
    int first = *e != GQ_OK ? 0 : -1; /* the rank whose failing row is the lowest */
    for (int r = 1; ge == GQ_OK && comm->rank == 0 && r < R; r++) {
        bufs[r][msgs[r - 1].len] = '\0';
        if (all[3 * r] != GQ_OK && (first < 0 || all[3 * r + 2] < all[3 * first + 2])) first = r;
    }
    if (ge == GQ_OK && comm->rank == 0 && first > 0) *e = (gq_err)all[3 * first], snprintf(msg, cap, "%s", bufs[first]);
    for (int r = 1; ge == GQ_OK && comm->rank == 0 && first < 0 && r < R; r++)
        for (size_t at = 0; at < msgs[r - 1].len; at += strlen(bufs[r] + at) + 1) table_row(rows, "%s", bufs[r] + at);
    if (ge == GQ_OK && comm->rank == 0 && first < 0 && sort_by_line(rows) != 0) ge = GQ_ERR_NOMEM;
    for (int r = 0; r < R && bufs; r++) free(bufs[r]);
    free(bufs), free(msgs), free(all), free(text);
    return ge;
}

static int cmd_sweep(int argc, char **argv)
{
    cli_args a = {0};
    cli_sim_defaults(&a);
    if (cli_parse_command(C_SWEEP, argc, argv, &a)) return EXIT_USAGE;
    measured_set grid;
    char msg[1024];
    /* spread over mpirun's ranks: every rank agrees on every setting and on the grid's contents before any work */
    train_comm comm = {0};
    const int started = under_mpirun() ? cli_mpi_start(C_SWEEP, "sweep", &comm, argc, argv) : 0;
    if (started != 0) return started;
    if (read_measured(a.grid, 1, &grid) != 0) {
        if (comm.size > 1) comm_mpi_close(&comm);
        return 1;
    }
    gq_err e;
    const sim_request q = cli_request_of(&a);
    const int ranks = comm.size > 1 ? comm.size : 1, rank = comm.size > 1 ? comm.rank : 0;
    int *owner = gq_xcalloc(grid.n + 1, sizeof *owner);
    gq_table rows = {0};
    char where[64] = "sweep";
    if (ranks > 1) snprintf(where, sizeof where, "sweep, rank 0's rows");
    size_t failed = 0;
    /* the same owners on every rank: a function of the grid alone */
    e = ranks > 1 && sim_grid_owners(&grid, &q, ranks, owner) != 0 ? GQ_ERR_NOMEM : GQ_OK;
    if (e == GQ_OK)
        e = sim_grid(&grid, a.grid, &q, ranks > 1 ? owner : NULL, rank, &rows, &failed,
                     rank == 0 ? sweep_progress : NULL, where, msg, sizeof msg);
    if (ranks > 1) {
        const gq_err ge = sweep_gather(&comm, &rows, &e, failed, msg, sizeof msg);
        if (ge != GQ_OK && e == GQ_OK) e = ge, snprintf(msg, sizeof msg, "sweep: gathering the rows failed");
    }
    int rc = 0;
    if (rank == 0) {
        cli_progress(0, "%s", "");
        if (e != GQ_OK)
            cli_error("%s", e == GQ_ERR_NOMEM ? "out of memory" : msg), rc = cli_exit_of(e);
        else
            table_print(&rows, (cli_format)a.format);
    } else if (e != GQ_OK)
        rc = cli_exit_of(e);
    table_free(&rows);
    free(owner);
    measured_free(&grid);
    if (comm.size > 1) comm_mpi_close(&comm);
    return rc;
}

#define SWEEP_DETAILS                                                                                                  \
    "Predicts every row of a grid: a CSV file in validate's columns (see 'gqsim help validate'), of which model,\n"    \
    "gpus and platform (or machine, with gpu) are required; an empty gpu, batch or sync is the platform's GPU,\n"      \
    "the model's batch and ps-sharded, an empty quant fp32, and a run parameter's column overrides its option for\n"   \
    "that row. Each row gives simulate's columns, after its line in the file. Started by mpirun with R > 1 ranks,\n"   \
    "the rows are spread over them as advise's finalists are (heaviest first by estimated cost, each to the least\n"   \
    "loaded rank), each rank runs its own and rank 0 prints them all in the file's order: the same bytes as one\n"     \
    "process. The first row that fails stops the sweep with its FILE:LINE.\n"                                          \
    "Example: mpirun -np 2 gqsim sweep --grid grid.csv --format csv\n"

#define ADVISE_DETAILS                                                                                                 \
    "Searches every combination of: the quantizers (--quant, repeatable; default fp32, fp16, terngrad, qsgd-5,\n"      \
    "qsgd-9 max norm, orq-5, bingrad-pb, signsgd, topk 1% and 0.1%, powersgd ranks 1, 2, 4), the synchronisation\n"    \
    "schemes (ps-sharded, ring, hierarchical, allgather, ps, ps-flat), fusion (per tensor; PyTorch DDP's 25 MiB;\n"    \
    "Horovod's 64 MiB and 5 ms cycles), --fp32-below (0 and 16384) and --codec-on (gpu, cpu). An option given\n"       \
    "holds its axis at that value (--sync ring searches rings only). Every combination is screened with the\n"         \
    "analytic engine; the best K (--top) are simulated again with --engine (SimGrid by default) and printed in\n"      \
    "that order, with their speedup over the best fp32 configuration, itself simulated again. Combinations the\n"      \
    "simulator refuses are skipped. One line says why the winner wins. Several --platform and --gpus are searched\n"   \
    "one by one (GPU counts outer); in a table, each count ends with the platforms' winners side by side. --plot\n"    \
    "draws every printed row's speedup over its search's fp32.\n"                                                      \
    "Example: gqsim advise --model alexnet --platform terngrad-ethernet --gpus 16\n"

const cli_command SIM_CMDS[] = {
    {"simulate", cmd_simulate, C_SIMULATE, NULL, "simulate one configuration of data-parallel training", SIM_DETAILS},
    {"speedup", cmd_speedup, C_SPEEDUP, NULL, "speedup curves over GPU counts, per quantizer (and a figure)",
     SIM_DETAILS},
    {"report", cmd_report, C_REPORT, NULL,
     "the main job: each quantizer's speedup on each cluster and model (default TernGrad's Figure 5)", REPORT_DETAILS},
    {"validate", cmd_validate, C_VALIDATE, NULL, "predictions against measured throughputs", VALIDATE_DETAILS},
    {"advise", cmd_advise, C_ADVISE, NULL,
     "the fastest way to train a model on a cluster: every quantizer, scheme, fusion and codec placement searched",
     ADVISE_DETAILS},
    {"sweep", cmd_sweep, C_SWEEP, NULL, "predictions for every row of a grid of configurations, spread over MPI ranks",
     SWEEP_DETAILS},
    {NULL, NULL, 0, NULL, NULL, NULL},
};
