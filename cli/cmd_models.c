/* `gqsim models ...` and `gqsim gpus ...`: the model zoo (parameters and
 * FLOPs from layer shapes) and the GPU compute profiles (iteration times,
 * measured or fitted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "columns.h"
#include "commands.h"
#include "options.h"
#include "zoo.h"

/* Parses a command of this file's: options, and the MODEL operand where one is taken. */
static int parse(cli_cmd id, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    return cli_parse_command(id, argc, argv, a);
}

static void shape_str(char *buf, size_t cap, shape3 s) { snprintf(buf, cap, "%dx%dx%d", s.c, s.h, s.w); }

/* ---- models list / show --------------------------------------------------------------- */

static int models_list(int argc, char **argv)
{
    cli_args a;
    if (parse(C_MODELS_LIST, argc, argv, &a)) return EXIT_USAGE;
    const cli_format fmt = (cli_format)a.format;
    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    gq_table t;
    table_init(&t, MODELS_LIST_COLUMNS, MODELS_LIST_NCOLUMNS);
    for (size_t i = 0; i < z.nbuiltin; i++) {
        const model_t *m = z.models[i];
        char in[32];
        shape_str(in, sizeof in, m->input);
        table_row(&t, "%s\t%llu\t%llu\t%llu\t%.4f\t%zu\t%s\t%d\t%.0f", m->name, (unsigned long long)model_params(m),
                  (unsigned long long)m->weight_params, (unsigned long long)m->bias_params, m->fwd_flops / 1e9,
                  m->nlayers, in, m->batch,
                  grad_bytes_per_gflop((double)model_params(m), m->fwd_flops, m->backward_ratio, m->batch));
    }
    table_print(&t, fmt);
    table_free(&t);
    zoo_free(&z);
    return 0;
}

static int models_show(int argc, char **argv)
{
    cli_args a;
    if (parse(C_MODELS_SHOW, argc, argv, &a)) return EXIT_USAGE;
    if (!a.positional) {
        cli_error("models show: which model? (gqsim models show MODEL [--format table|csv])");
        return EXIT_USAGE;
    }
    const cli_format fmt = (cli_format)a.format;
    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    const model_t *m = cli_zoo_model(&z, a.positional);
    if (!m) { /* a name that names nothing is a usage error, as for --model; a file that fails, an input error */
        const size_t len = strlen(a.positional);
        const int path = strchr(a.positional, '/') || (len > 6 && strcmp(a.positional + len - 6, ".model") == 0);
        zoo_free(&z);
        return path ? 1 : EXIT_USAGE;
    }
    gq_table t;
    table_init(&t, MODELS_SHOW_COLUMNS, MODELS_SHOW_NCOLUMNS);
    for (size_t i = 0; i < m->nlayers; i++) {
        const model_layer *l = &m->layers[i];
        char sh[32];
        shape_str(sh, sizeof sh, l->shape);
        table_row(&t, "%s\t%s\t%llu\t%llu\t%llu\t%.0f\t%s\t%.0f", l->name, layer_type_name(l->type),
                  (unsigned long long)layer_params(l), (unsigned long long)l->weight_params,
                  (unsigned long long)l->bias_params, l->fwd_flops, sh,
                  grad_bytes_per_gflop((double)layer_params(l), l->fwd_flops, m->backward_ratio, m->batch));
    }
    char sh[32];
    shape_str(sh, sizeof sh, m->layers[m->nlayers - 1].shape);
    table_row(&t, "TOTAL\t-\t%llu\t%llu\t%llu\t%.0f\t%s\t%.0f", (unsigned long long)model_params(m),
              (unsigned long long)m->weight_params, (unsigned long long)m->bias_params, m->fwd_flops, sh,
              grad_bytes_per_gflop((double)model_params(m), m->fwd_flops, m->backward_ratio, m->batch));
    table_print(&t, fmt);
    table_free(&t);
    zoo_free(&z);
    return 0;
}

/* ---- models compute ------------------------------------------------------------------------ */

static int models_compute(int argc, char **argv)
{
    cli_args a;
    if (parse(C_MODELS_COMPUTE, argc, argv, &a)) return EXIT_USAGE;
    const char *model = a.model, *gpu = a.gpu, *gpu_file = a.gpu_file;
    uint64_t batch = a.batch;
    const double ips = a.req.run.gpu_images_per_s;
    const cli_format fmt = (cli_format)a.format;
    gq_zoo z;
    if (cli_zoo_load(&z, gpu_file) != 0) return 1;
    int rc = 1;
    const model_t *m = cli_zoo_model(&z, model);
    const gpu_spec *g = m ? cli_zoo_gpu(&z, gpu) : NULL;
    if (!g) goto out;
    if (batch == 0) batch = m->batch > 0 ? (uint64_t)m->batch : 32;
    compute_estimate e;
    model_zoo view = zoo_view(&z);
    if (gpu_compute(&z.gpus, &view, m, g, (int)batch, ips, NULL, &e) != GQ_OK) {
        cli_error("models compute: no measured throughput for any GPU to fit a compute rate on");
        goto out;
    }
    double grad_bytes = 4.0 * (double)model_params(m);
    char basis[512] = "-";
    if (e.basis)
        snprintf(basis, sizeof basis, "%s batch %d %.4g img/s (%s)", e.basis->framework, e.basis->batch,
                 e.basis->images_per_s, e.basis->source);
    else if (e.source == COMPUTE_BATCH_LINE)
        snprintf(basis, sizeof basis, "a line in batch, time = fixed + per image, over %d published rows",
                 e.fit_points);
    else if (e.source == COMPUTE_FITTED)
        snprintf(basis, sizeof basis, "fit over %d published rows, scaled to this GPU's %d", e.fit_points,
                 e.gpu_points);
    else if (e.source == COMPUTE_POOLED)
        snprintf(basis, sizeof basis, "fit over %d published rows (none for this GPU)", e.fit_points);
    gq_table t;
    table_init(&t, MODELS_COMPUTE_COLUMNS, MODELS_COMPUTE_NCOLUMNS);
    table_row(&t,
              "%s\t%s\t%llu\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL "\t" TABLE_REAL
              "\t%s\t%.4f\t%.0f\t" TABLE_REAL "\t%s",
              m->name, g->name, (unsigned long long)batch, e.fwd_s, e.bwd_s, e.iter_s, e.images_per_s,
              compute_source_name(e.source), e.flops_vs_peak, grad_bytes, grad_bytes / e.iter_s, basis);
    table_print(&t, fmt);
    table_free(&t);
    rc = 0;
out:
    zoo_free(&z);
    return rc;
}

/* ---- gpus list / fit ---------------------------------------------------------------------- */

static int gpus_list(int argc, char **argv)
{
    cli_args a;
    if (parse(C_GPUS_LIST, argc, argv, &a)) return EXIT_USAGE;
    const cli_format fmt = (cli_format)a.format;
    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    model_zoo view = zoo_view(&z);
    gq_table t;
    table_init(&t, GPUS_LIST_COLUMNS, GPUS_LIST_NCOLUMNS);
    for (size_t i = 0; i < z.gpus.ngpus; i++) {
        const gpu_spec *g = &z.gpus.gpus[i];
        int rows = 0, pts;
        for (size_t k = 0; k < z.gpus.nmeas; k++) rows += gpu_name_eq(z.gpus.meas[k].gpu, g->name);
        double coef[3], scale;
        gpu_fit(&z.gpus, &view, g, NULL, coef, &scale, &pts);
        char effs[32] = "-";
        if (scale > 0) snprintf(effs, sizeof effs, "%.4f", scale);
        char cc[16] = ""; /* empty where the file does not say */
        if (g->compute_capability > 0) snprintf(cc, sizeof cc, "%.1f", g->compute_capability);
        table_row(&t, "%s\t%.4g\t%.4g\t%s\t%d\t%s\t%s", g->name, g->peak_flops / 1e12, g->mem_bw / 1e9, cc, rows, effs,
                  g->source);
    }
    table_print(&t, fmt);
    table_free(&t);
    zoo_free(&z);
    return 0;
}

/* Leave-one-out check of the FLOP-based fallback: every measured (GPU, model)
 * pair predicted from a fit that leaves that pair out. */
static int gpus_fit(int argc, char **argv)
{
    cli_args a;
    if (parse(C_GPUS_FIT, argc, argv, &a)) return EXIT_USAGE;
    const cli_format fmt = (cli_format)a.format;
    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    model_zoo view = zoo_view(&z);
    gq_table t;
    table_init(&t, GPUS_FIT_COLUMNS, GPUS_FIT_NCOLUMNS);
    double abs_sum = 0;
    int count = 0;
    double *errs = gq_xcalloc(z.gpus.nmeas, sizeof *errs);
    for (size_t k = 0; k < z.gpus.nmeas; k++) {
        const gpu_measurement *r = &z.gpus.meas[k];
        const model_t *m = NULL;
        for (size_t i = 0; i < z.nbuiltin; i++)
            if (strcmp(z.models[i]->name, r->model) == 0) m = z.models[i];
        const gpu_spec *g = gpu_find(&z.gpus, r->gpu);
        compute_estimate e;
        if (!m || !g || gpu_compute(&z.gpus, &view, m, g, r->batch, 0, r, &e) != GQ_OK) continue;
        double err = 100.0 * (e.images_per_s - r->images_per_s) / r->images_per_s;
        errs[count++] = fabs(err);
        abs_sum += fabs(err);
        table_row(&t, "%s\t%s\t%d\t%.4g\t%.4g\t%+.1f\t%s", r->gpu, r->model, r->batch, r->images_per_s, e.images_per_s,
                  err, compute_source_name(e.source));
    }
    table_print(&t, fmt);
    if (fmt == FMT_TABLE && count > 0) {
        for (int a = 1; a < count; a++) /* insertion sort for the median */
            for (int b = a; b > 0 && errs[b - 1] > errs[b]; b--) {
                double x = errs[b];
                errs[b] = errs[b - 1];
                errs[b - 1] = x;
            }
        double med = count % 2 ? errs[count / 2] : 0.5 * (errs[count / 2 - 1] + errs[count / 2]);
        printf("\n%d leave-one-out predictions: mean absolute error %.1f%%, median %.1f%%\n", count, abs_sum / count,
               med);
    }
    free(errs);
    table_free(&t);
    zoo_free(&z);
    return 0;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

const cli_command MODELS_CMDS[] = {
    {"list", models_list, C_MODELS_LIST, NULL, "built-in models: parameters and forward GFLOPs per image", NULL},
    {"show", models_show, C_MODELS_SHOW, "MODEL", "a model's layers with shapes, parameters and FLOPs", NULL},
    {"compute", models_compute, C_MODELS_COMPUTE, NULL, "compute time of one training iteration (measured or fitted)",
     NULL},
    {NULL, NULL, 0, NULL, NULL, NULL},
};

const cli_command GPUS_CMDS[] = {
    {"list", gpus_list, C_GPUS_LIST, NULL, "GPU profiles: peak FLOP/s, bandwidth, fitted scale", NULL},
    {"fit", gpus_fit, C_GPUS_FIT, NULL, "leave-one-out error of the FLOP-based fallback", NULL},
    {NULL, NULL, 0, NULL, NULL, NULL},
};

int cmd_models(int argc, char **argv) { return cli_dispatch("models", MODELS_CMDS, argc, argv); }
void help_models(void) { cli_print_usage(stdout, "models", MODELS_CMDS); }
int cmd_gpus(int argc, char **argv) { return cli_dispatch("gpus", GPUS_CMDS, argc, argv); }
void help_gpus(void) { cli_print_usage(stdout, "gpus", GPUS_CMDS); }
