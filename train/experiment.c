/* A training experiment and the tables it makes; see experiment.h. */
#include "experiment.h"

#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "blas_core.h"
#include "seed_stats.h"

const char *const TRAIN_EPOCH_COLUMNS[] = {"quant",
                                           "workers",
                                           "epoch",
                                           "iterations",
                                           "train_loss",
                                           "test_loss",
                                           "test_accuracy",
                                           "bytes_up_per_iter",
                                           "bytes_down_per_iter",
                                           "quant_nmse",
                                           "wall_s",
                                           "compute_s",
                                           "exchange_s",
                                           "quant_s",
                                           "gflops",
                                           "sgemm_gflops",
                                           "quant_share",
                                           "seed",
                                           "blas_core",
                                           "params_xxh3"};
const size_t TRAIN_EPOCH_NCOLUMNS = sizeof TRAIN_EPOCH_COLUMNS / sizeof TRAIN_EPOCH_COLUMNS[0];
const char *const TRAIN_SUMMARY_COLUMNS[] = {"quant",           "workers", "epoch", "seeds", "test_accuracy_mean",
                                             "test_accuracy_sd"};
const char *const TRAIN_PAIRED_COLUMNS[] = {"quant",
                                            "workers",
                                            "versus",
                                            "seeds",
                                            "test_accuracy",
                                            "versus_accuracy",
                                            "difference",
                                            "difference_sd",
                                            "difference_ci95_low",
                                            "difference_ci95_high",
                                            "significant"};
const size_t TRAIN_SUMMARY_NCOLUMNS = sizeof TRAIN_SUMMARY_COLUMNS / sizeof TRAIN_SUMMARY_COLUMNS[0];
const size_t TRAIN_PAIRED_NCOLUMNS = sizeof TRAIN_PAIRED_COLUMNS / sizeof TRAIN_PAIRED_COLUMNS[0];

/* One run (a quantizer, a worker count, a seed) as its epochs end. */
typedef struct {
    const train_experiment_spec *x;
    gq_table *epochs;
    const char *quant;
    int workers;
    uint64_t seed;
    double *acc; /* its test accuracy after each epoch */
    int done;    /* epochs reported */
} run_state;

static void on_epoch(const epoch_stats *s, void *ctx)
{
    run_state *r = ctx;
    table_row(r->epochs,
              "%s\t%d\t%d\t%d\t%.6f\t%.6f\t%.4f\t%.0f\t%.0f\t" TABLE_REAL
              "\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%.4f\t%llu\t%s\t%016llx",
              r->quant, r->workers, s->epoch, s->iterations, s->train_loss, s->test_loss, s->test_accuracy,
              s->bytes_up_per_iter, s->bytes_down_per_iter, s->quant_nmse, s->wall_s, s->compute_s, s->exchange_s,
              s->quant_s, s->gflops, r->x->sgemm_gflops, s->quant_s / (s->compute_s + s->exchange_s),
              (unsigned long long)r->seed, blas_core_in_use(),
              (unsigned long long)XXH3_64bits(s->params, s->num_params * sizeof *s->params));
    if (s->epoch >= 1 && s->epoch <= r->x->base.epochs) r->acc[s->epoch - 1] = s->test_accuracy, r->done = s->epoch;
    if (r->x->on_epoch) r->x->on_epoch(r->quant, r->workers, r->seed, s, r->x->ctx);
}

/* The seeds' mean and spread after each epoch: the summary's rows and the figure's curve. acc[si * E + e]. */
static void summarise(train_experiment_result *r, FILE *curves, const char *spec, int workers, const double *acc,
                      size_t ns, int epochs, int E)
{
    fprintf(curves, "%s# %s x%d\n", r->nruns ? "\n\n" : "", spec, workers);
    for (int e = 0; e < epochs; e++) {
        double at[TRAIN_EXP_MAX_SEEDS];
        for (size_t si = 0; si < ns; si++) at[si] = acc[si * (size_t)E + (size_t)e];
        const double mean = gsl_stats_mean(at, 1, ns), sd = ns > 1 ? gsl_stats_sd_m(at, 1, ns, mean) : 0;
        table_row(&r->summary, "%s\t%d\t%d\t%zu\t%.4f\t%.4f", spec, workers, e + 1, ns, mean, sd);
        fprintf(curves, "%d %.6f %.6f\n", e + 1, mean, sd);
    }
}

/* Each run against the versus quantizer's run with as many workers, its last test accuracy paired seed by seed;
 * finals[run * ns + seed]. Told apart where the interval leaves zero out: an end at zero exactly does not. */
static void pair_runs(train_experiment_result *r, const char *versus, const double *finals, size_t ns)
{
    for (size_t k = 0; k < r->nruns; k++) {
        size_t v = 0;
        while (v < r->nruns && !(strcmp(r->spec[v], versus) == 0 && r->run_workers[v] == r->run_workers[k])) v++;
        if (v == r->nruns || v == k) continue;
        double mean, sd, lo, hi;
        const double *a = finals + k * ns, *b = finals + v * ns;
        train_paired_ci(a, b, ns, &mean, &sd, &lo, &hi);
        table_row(&r->paired, "%s\t%d\t%s\t%zu\t%.4f\t%.4f\t%+.4f\t%.4f\t%+.4f\t%+.4f\t%s", r->spec[k],
                  r->run_workers[k], versus, ns, gsl_stats_mean(a, 1, ns), gsl_stats_mean(b, 1, ns), mean, sd, lo, hi,
                  lo > 0 || hi < 0 ? "yes" : "no");
    }
}

/* The tables and the runs' lists, empty. @return 0, or -1 without memory. */
static int result_init(train_experiment_result *r, size_t runs)
{
    memset(r, 0, sizeof *r);
    table_init(&r->epochs, TRAIN_EPOCH_COLUMNS, TRAIN_EPOCH_NCOLUMNS);
    table_init(&r->summary, TRAIN_SUMMARY_COLUMNS, TRAIN_SUMMARY_NCOLUMNS);
    table_init(&r->paired, TRAIN_PAIRED_COLUMNS, TRAIN_PAIRED_NCOLUMNS);
    r->epochs.key_cols = r->summary.key_cols = 3; /* quant, workers, epoch */
    r->paired.key_cols = 3;                       /* quant, workers, versus */
    r->spec = calloc(runs ? runs : 1, sizeof *r->spec);
    r->run_workers = calloc(runs ? runs : 1, sizeof *r->run_workers);
    return r->spec && r->run_workers ? 0 : -1;
}

gq_err train_experiment(const train_experiment_spec *x, const idx_dataset *train, const idx_dataset *test,
                        train_experiment_result *r, char *msg, size_t cap)
{
    const size_t ns = x->nseeds, runs = (size_t)x->nquants * (size_t)x->nworkers;
    const int E = x->base.epochs > 0 ? x->base.epochs : 1;
    msg[0] = '\0';
    if (ns < 1 || ns > TRAIN_EXP_MAX_SEEDS)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "train: %zu seeds, not 1..%d", ns, TRAIN_EXP_MAX_SEEDS);
    double *acc = calloc(ns * (size_t)E, sizeof *acc), *finals = calloc(runs * ns + 1, sizeof *finals);
    FILE *curves = open_memstream(&r->curves, &r->curves_len);
    if (result_init(r, runs) != 0 || !acc || !finals || !curves) {
        if (curves) fclose(curves);
        return free(acc), free(finals), GQ_ERR_NOMEM;
    }
    gq_err e = GQ_OK;
    for (int k = 0; k < x->nquants && e == GQ_OK; k++)
        for (int wi = 0; wi < x->nworkers && e == GQ_OK; wi++) {
            train_config c = x->base;
            qz_parse_spec(x->quants[k], &c.quant, NULL, 0);
            c.workers = x->workers[wi];
            char *spec = r->spec[r->nruns];
            qz_format_spec(&c.quant, spec, TRAIN_EXP_SPEC_MAX);
            int epochs = 0;
            for (size_t si = 0; si < ns && e == GQ_OK; si++) {
                run_state st = {x, &r->epochs, spec, c.workers, x->seeds[si], acc + si * (size_t)E, 0};
                char why[512] = "";
                c.seed = x->seeds[si];
                e = train_run(&c, train, test, on_epoch, &st, why, sizeof why);
                if (e != GQ_OK && why[0])
                    snprintf(msg, cap, "train %s with %d workers, seed %llu: %s", spec, c.workers,
                             (unsigned long long)c.seed, why);
                const double last = st.done ? st.acc[st.done - 1] : 0;
                if (e == GQ_OK && x->on_run && x->on_run(&c, spec, last, x->ctx) != 0) e = GQ_ERR_IO;
                finals[r->nruns * ns + si] = last;
                if (si == 0) epochs = st.done; /* the summary's epochs: the first seed's */
            }
            if (e != GQ_OK) break;
            summarise(r, curves, spec, c.workers, acc, ns, epochs, E);
            r->run_workers[r->nruns++] = c.workers;
        }
    if (fclose(curves) != 0 && e == GQ_OK) e = GQ_ERR_NOMEM;
    if (e == GQ_OK && x->versus) pair_runs(r, x->versus, finals, ns);
    free(acc), free(finals);
    return e;
}

void train_experiment_free(train_experiment_result *r)
{
    table_free(&r->epochs), table_free(&r->summary), table_free(&r->paired);
    free(r->curves), free(r->spec), free(r->run_workers);
    memset(r, 0, sizeof *r);
}
