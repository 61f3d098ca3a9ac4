/* `gqsim train` and `gqsim tta`. train: LeNet-5 (or another chain of
 * supported layers) on Fashion-MNIST with W data-parallel workers exchanging
 * gradients through a real quantizer; one row per epoch and seed; sweeps over
 * quantizers, worker counts and seeds, the seeds summarised by their mean and
 * spread. tta: time to accuracy, the trainer's accuracy after each epoch
 * (or a curve measured elsewhere) joined with the simulator's iteration time
 * on a cluster: which quantizer reaches the target first. */
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blas_core.h"
#include "cli_util.h"
#include "commands.h"
#include "experiment.h"
#include "gq_csv.h"
#include "gq_file.h"
#include "options.h"
#include "scenario.h"
#include "sim_args.h"
#include "trainer.h"
#include "user_tables.h"
#include "zoo.h"

#define MAX_RUNS 16
#define MAX_EPOCHS ACC_CURVE_MAX_EPOCHS

/* ---- shared by train and tta ---------------------------------------------------------------------- */

/* The options' defaults: the trainer's own (train_config_defaults), and the first iteration to dump. */
static void train_defaults(cli_args *a)
{
    const train_config d = train_config_defaults();
    memset(a, 0, sizeof *a);
    a->batch = (uint64_t)d.batch, a->epochs = (uint64_t)d.epochs, a->seed = d.seed, a->lr = d.lr;
    a->momentum = d.momentum, a->weight_decay = d.weight_decay, a->optimizer = (int)d.optimizer;
    a->lr_schedule = (int)d.schedule, a->step_every = d.step_every;
    a->step_gamma = d.step_gamma, a->poly_power = d.poly_power, a->train_sync = (int)d.sync;
    a->workers[0] = (uint64_t)d.workers, a->nworkers = 1, a->dump_at[0] = 1, a->ndump_at = 1;
}

/* The trainer's settings from the options (model, quantizer, workers and seed set per run). */
static train_config config_of(const cli_args *a)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.optimizer = (optim_kind)a->optimizer;
    c.error_feedback = a->req.run.ef == EF_AUTO ? -1 : a->req.run.ef == EF_ON; /* the trainer's -1, 1, 0 */
    c.schedule = (lr_schedule)a->lr_schedule, c.step_every = a->step_every, c.step_gamma = a->step_gamma;
    c.poly_power = a->poly_power;
    c.exchange = a->req.run.exchange;
    c.batch = (int)a->batch, c.epochs = (int)a->epochs, c.lr = a->lr, c.momentum = a->momentum;
    c.weight_decay = a->weight_decay, c.train_limit = (int)a->train_limit, c.test_limit = (int)a->test_limit;
    return c;
}

/* Fashion-MNIST's four files, only the images a run uses (`train_limit`, `test_limit`; 0: all). @return 0, or -1
 * after printing. */
static int load_fashion(const char *data, uint64_t train_limit, uint64_t test_limit, idx_dataset *tr, idx_dataset *te)
{
    char dir[1024], ip[1200], lp[1200], tip[1200], tlp[1200], msg[512];
    idx_fashion_dir(data, dir, sizeof dir);
    snprintf(ip, sizeof ip, "%s/train-images-idx3-ubyte.gz", dir);
    snprintf(lp, sizeof lp, "%s/train-labels-idx1-ubyte.gz", dir);
    snprintf(tip, sizeof tip, "%s/t10k-images-idx3-ubyte.gz", dir);
    snprintf(tlp, sizeof tlp, "%s/t10k-labels-idx1-ubyte.gz", dir);
    const uint32_t ntr = train_limit > UINT32_MAX ? 0 : (uint32_t)train_limit;
    const uint32_t nte = test_limit > UINT32_MAX ? 0 : (uint32_t)test_limit;
    if (idx_load(tr, ip, lp, ntr, msg, sizeof msg) == GQ_OK && idx_load(te, tip, tlp, nte, msg, sizeof msg) == GQ_OK)
        return 0;
    cli_error("%s (Fashion-MNIST: install dataset-fashion-mnist, or point --data or GQSIM_FASHION_MNIST at a "
              "directory with its four .gz files)",
              msg);
    return -1;
}

/* The progress line after an epoch (train's and tta's runs). */
static void epoch_progress(const char *quant, int workers, uint64_t seed, const epoch_stats *s)
{
    cli_progress(1, "%s, %d worker%s, seed %llu: epoch %d  train loss %.4f  test accuracy %.4f  (%.1f s)", quant,
                 workers, gq_s(workers), (unsigned long long)seed, s->epoch, s->train_loss, s->test_accuracy,
                 s->wall_s);
}

/* One of tta's training runs as it goes: its accuracy after each epoch. */
typedef struct {
    const char *quant;
    int workers;
    uint64_t seed;
    int epochs, iterations; /* per epoch */
    double acc[MAX_EPOCHS];
} run_ctx;

static void on_epoch(const epoch_stats *s, void *p)
{
    run_ctx *r = (run_ctx *)p;
    epoch_progress(r->quant, r->workers, r->seed, s);
    if (s->epoch >= 1 && s->epoch <= MAX_EPOCHS) r->acc[s->epoch - 1] = s->test_accuracy, r->epochs = s->epoch;
    r->iterations = s->iterations;
}

/* Under --mpi: this rank's iterations, 8 numbers each, as iter_stats has them. */
typedef struct {
    double *v;
    size_t n, cap;
} iter_log;

static void on_iteration(const iter_stats *s, void *p)
{
    iter_log *l = (iter_log *)p;
    if (l->n + 8 > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        double *grown = realloc(l->v, cap * sizeof *grown);
        if (!grown) return; /* the log stops; the run goes on (checked when the logs are gathered) */
        l->v = grown, l->cap = cap;
    }
    const double row[8] = {(double)s->step, s->wall_s,   s->compute_s,  s->encode_s,
                           s->wait_s,       s->decode_s, s->bytes_sent, s->bytes_received};
    memcpy(l->v + l->n, row, sizeof row);
    l->n += 8;
}

/* Every rank's iterations to rank 0: the --timings-out rows, and the --measured-out row (means over the
 * iterations after the first, the warm-up; the throughput from rank 0's iteration times, the one rank that
 * never waits for an evaluation; the compute rate validate uses from each iteration's slowest worker, as a
 * synchronous iteration waits for it -- with more ranks than cores, time-sharing makes one lag every
 * iteration). @return 0, or -1 with a line printed. */
static int gather_timings(train_comm *comm, iter_log *log, const cli_args *a, const char *model, const char *quant,
                          uint64_t seed, double accuracy, gq_table *timings, gq_table *measured)
{
    const int W = comm->size;
    double count = (double)log->n, *counts = malloc((size_t)W * sizeof *counts);
    if (!counts || comm->allgather_doubles(comm, &count, 1, counts) != GQ_OK) return free(counts), -1;
    for (int r = 0; r < W; r++)
        if (counts[r] != count) return free(counts), cli_error("train --mpi: ranks logged different iterations"), -1;
    free(counts);
    double *all = malloc(((size_t)W * log->n + 1) * sizeof *all);
    if (!all || comm->allgather_doubles(comm, log->v, (int)log->n, all) != GQ_OK)
        return free(all), cli_error("train --mpi: out of memory gathering the timings"), -1;
    const size_t iters = log->n / 8, first = iters > 1 ? 1 : 0;
    double sum[8] = {0}, wall0 = 0, slowest = 0;
    for (size_t i = first; i < iters; i++) { /* a synchronous iteration waits for its slowest worker's compute */
        double most = 0;
        for (int r = 0; r < W; r++) most = fmax(most, all[(size_t)r * log->n + 8 * i + 2]);
        slowest += most;
    }
    for (int r = 0; r < W; r++)
        for (size_t i = 0; i < iters; i++) {
            const double *v = all + (size_t)r * log->n + 8 * i;
            if (comm->rank == 0)
                table_row(timings, "%s\t%llu\t%d\t%.0f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.0f\t%.0f", quant,
                          (unsigned long long)seed, r, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
            if (i < first) continue;
            for (int k = 1; k < 8; k++) sum[k] += v[k];
            if (r == 0) wall0 += v[1];
        }
    const double n = (double)(iters - first), per_rank = n * W;
    if (comm->rank == 0 && measured) {
        /* the trainer's run as validate simulates it: its scheme, tensor by tensor after backward, the codec on the
         * CPU that runs it */
        sim_request run = a->req;
        run.run.sync = (sync_kind)a->train_sync, run.run.overlap = 0, run.run.fusion_bytes = 0;
        run.run.codec_on = CODEC_ON_CPU;
        const double iteration_s = wall0 / n;
        const measured_run m = {.model = model,
                                .platform = a->platform,
                                .gpu = "cpu",
                                .quant = quant,
                                .source = "gqsim train --mpi",
                                .run = &run,
                                .batch = (uint64_t)a->batch,
                                .gpus = (uint64_t)W,
                                .seed = seed,
                                .images_per_s = (double)W * (double)a->batch / iteration_s,
                                .compute_images_per_s = (double)a->batch / (slowest / n),
                                .iteration_s = iteration_s,
                                .compute_s = sum[2] / per_rank,
                                .slowest_compute_s = slowest / n,
                                .encode_s = sum[3] / per_rank,
                                .wait_s = sum[4] / per_rank,
                                .decode_s = sum[5] / per_rank,
                                .bytes_sent = sum[6] / per_rank,
                                .bytes_received = sum[7] / per_rank,
                                .iterations = n,
                                .test_accuracy = accuracy};
        measured_add_run(measured, &m);
    }
    free(all);
    log->n = 0;
    return 0;
}

/* The seeds to run: --seeds, else --seed. */
static size_t seeds_of(const cli_args *a, uint64_t *seeds)
{
    if (!a->nseeds) return seeds[0] = a->seed, 1;
    memcpy(seeds, a->seeds, a->nseeds * sizeof *seeds);
    return a->nseeds;
}

/* ---- train ------------------------------------------------------------------------------------------ */

/* --dump-grads: each gradient a staged output in the directory, which is made only now that the run's
 * checks have passed (and removed again if the run fails after making it). */
static int dump_gradient(void *dir, const char *name, const float *data, size_t n)
{
    char path[4200];
    if (snprintf(path, sizeof path, "%s/%s", (const char *)dir, name) >= (int)sizeof path) return -1;
    if (cli_stage_dir(dir) != 0) return -1;
    return cli_write_file(path, data, n * sizeof *data); /* little-endian host */
}

/* --versus: the quantizer every run is paired with, seed by seed (two seeds at least), trained too where no --quant
 * names it (added to quants). versus gets its canonical spec. @return 0, or -1 after printing. */
static int add_versus(const cli_args *a, size_t ns, const char **quants, int *nq, char *versus, size_t cap)
{
    if (ns < 2)
        return cli_error("--versus pairs each quantizer's runs with %s's seed by seed: give --seeds with two or "
                         "more",
                         a->versus),
               -1;
    qz_params v;
    qz_parse_spec(a->versus, &v, NULL, 0);
    qz_format_spec(&v, versus, cap);
    int named = 0;
    for (int k = 0; k < *nq; k++) {
        qz_params q;
        char canon[256];
        qz_parse_spec(quants[k], &q, NULL, 0);
        qz_format_spec(&q, canon, sizeof canon);
        named |= strcmp(canon, versus) == 0;
    }
    if (!named && *nq == MAX_RUNS)
        return cli_error("--versus %s: no room for it beside %d quantizers (name it with --quant)", a->versus, *nq), -1;
    if (!named) quants[(*nq)++] = a->versus;
    if (*nq < 2) return cli_error("--versus %s: nothing to pair it with (give --quant)", a->versus), -1;
    return 0;
}

/* Under --mpi the world size is the worker count: a --workers that says otherwise is an error, not ignored; a world
 * of one rank without --workers 1 was most likely started without mpirun. @return 0, or -1 after printing. */
static int world_workers(cli_args *a, const train_comm *comm, int argc, char **argv)
{
    const int workers_given = cli_option_given(C_TRAIN, argc, argv, "--workers");
    if (workers_given && (a->nworkers != 1 || a->workers[0] != (uint64_t)comm->size)) {
        if (comm->rank == 0)
            cli_error("train --mpi: --workers says %llu%s, but mpirun started %d ranks (one worker a rank: give "
                      "mpirun -np N, not --workers)",
                      (unsigned long long)a->workers[0], a->nworkers > 1 ? " and more" : "", comm->size);
        return -1;
    }
    if (comm->size == 1 && !workers_given) { /* no launcher, most likely */
        cli_error("train --mpi: a world of one rank (started without mpirun?): start it with mpirun -np N, or "
                  "give --workers 1 to train one worker over MPI");
        return -1;
    }
    a->workers[0] = (uint64_t)comm->size, a->nworkers = 1;
    return 0;
}

/* --plot: each run's mean accuracy by epoch (dat), labelled by its short spec and worker count. */
static int plot_runs(const char *path, const char *dat, char (*specs)[256], const int *run_workers, size_t nlabels,
                     size_t ns, char (*labels)[QZ_LABEL_MAX + 48], const char **label_ptr)
{
    gp_vars vars = {0};
    /* the tables' short labels, and the number of workers */
    const char *sp[MAX_RUNS * MAX_RUNS];
    char(*short_labels)[QZ_LABEL_MAX] = gq_xcalloc(nlabels ? nlabels : 1, sizeof *short_labels);
    for (size_t k = 0; k < nlabels; k++) sp[k] = specs[k];
    qz_short_labels(sp, nlabels, short_labels);
    for (size_t k = 0; k < nlabels; k++)
        snprintf(labels[k], sizeof labels[k], "%s, %d worker%s%s", short_labels[k], run_workers[k],
                 run_workers[k] == 1 ? "" : "s", ns > 1 ? " (mean of seeds, ±1 sd)" : "");
    free(short_labels);
    gpv_array(&vars, "labels", label_ptr, nlabels);
    const int rc = cli_plot("train_accuracy", path, dat, &vars);
    gpv_free(&vars);
    return rc;
}

/* The tables train writes beside train_experiment's (train/experiment.h): under --mpi every rank's iterations and
 * the measured rows validate reads. */
static const char *const TIMING_COLUMNS[] = {"quant",    "seed",       "rank",          "iteration",
                                             "wall_s",   "compute_s",  "encode_s",      "wait_s",
                                             "decode_s", "bytes_sent", "bytes_received"};

/* train's callbacks: its progress line after each epoch, and under --mpi every rank's timings after each run */
typedef struct {
    train_comm *comm;
    iter_log *log;
    const cli_args *a;
    const char *model;
    gq_table *timings, *measured;
    int timings_failed; /* gather_timings said why: every rank goes on to its end, none aborts the others */
} train_ctx;

static void train_epoch(const char *quant, int workers, uint64_t seed, const epoch_stats *s, void *ctx)
{
    (void)ctx;
    epoch_progress(quant, workers, seed, s);
}

static int train_timed(const train_config *c, const char *quant, double last_accuracy, void *ctx)
{
    train_ctx *t = ctx;
    if (!t->comm) return 0;
    if (gather_timings(t->comm, t->log, t->a, t->model, quant, c->seed, last_accuracy, t->timings, t->measured) == 0)
        return 0;
    t->timings_failed = 1;
    return -1;
}

/* The epochs' table as text shows it over several seeds: the seed a key column beside the quantizer, so that every
 * panel says whose run a row is (the CSV keeps its columns' order). */
static void seed_as_key(const gq_table *src, gq_table *out)
{
    const int sc = table_column(src, "seed");
    const char *header[64];
    size_t n = 0;
    for (size_t c = 0; c < src->ncols && n < 64; c++) {
        if ((int)c == sc) continue;
        header[n++] = table_cell(src, 0, c);
        if (c == 0) header[n++] = "seed";
    }
    table_init(out, header, n);
    out->key_cols = src->key_cols + 1;
    for (size_t r = 1; r < src->nrows; r++) {
        char line[4096];
        size_t len = 0;
        for (size_t c = 0; c < src->ncols && len < sizeof line; c++) {
            if ((int)c == sc) continue;
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", c ? "\t" : "", table_cell(src, r, c));
            if (c == 0) len += (size_t)snprintf(line + len, sizeof line - len, "\t%s", table_cell(src, r, (size_t)sc));
        }
        table_row(out, "%s", line);
    }
}

/* The experiment's outputs on rank 0: --measured-out, --timings-out, the paired table (with --versus) or the
 * epochs (and over seeds their summary), --output, --plot. @return 0, or 1 after printing. */
static int train_outputs(const cli_args *a, const train_experiment_result *x, const gq_table *timings,
                         const gq_table *measured, size_t ns)
{
    if (a->measured_out && table_write_csv(measured, a->measured_out) != 0) return 1;
    if (a->timings_out && table_write_csv(timings, a->timings_out) != 0) return 1;
    if (a->versus) { /* the comparison asked for is the output; the epochs still go to --output */
        table_print(&x->paired, (cli_format)a->format);
    } else if (ns > 1 && a->format == FMT_TABLE && table_column(&x->epochs, "seed") > 0) {
        gq_table shown;
        seed_as_key(&x->epochs, &shown);
        table_print(&shown, FMT_TABLE);
        table_free(&shown);
    } else {
        table_print(&x->epochs, (cli_format)a->format);
    }
    if (!a->versus && ns > 1 && a->format == FMT_TABLE) {
        printf("\nOver %zu seeds: the mean and standard deviation of the test accuracy\n\n", ns);
        table_print(&x->summary, FMT_TABLE);
    }
    if (a->output && table_write_csv(&x->epochs, a->output) != 0) return 1;
    if (!a->plot) return 0;
    char(*labels)[QZ_LABEL_MAX + 48] = gq_xcalloc(x->nruns + 1, sizeof *labels);
    const char **label_ptr = gq_xcalloc(x->nruns + 1, sizeof *label_ptr);
    for (size_t k = 0; k < x->nruns; k++) label_ptr[k] = labels[k];
    const int rc = plot_runs(a->plot, x->curves, x->spec, x->run_workers, x->nruns, ns, labels, label_ptr) != 0;
    free(labels), free(label_ptr);
    return rc;
}

int cmd_train(int argc, char **argv)
{
    cli_args a;
    train_defaults(&a);
    if (cli_parse_command(C_TRAIN, argc, argv, &a)) return EXIT_USAGE;
    const char *model = a.model ? a.model : "lenet5", *quants[MAX_RUNS], *dump = a.dump_grads;
    int nq = (int)a.nquant, nw = (int)a.nworkers, dump_at[64], ndump = (int)a.ndump_at, workers[MAX_RUNS];
    for (int k = 0; k < nq; k++) quants[k] = a.quant[k];
    for (int k = 0; k < ndump; k++) dump_at[k] = (int)a.dump_at[k];
    if (nq == 0) quants[nq++] = "fp32";
    uint64_t seeds[16];
    const size_t ns = seeds_of(&a, seeds);
    char versus[256] = "";
    if (a.versus && add_versus(&a, ns, quants, &nq, versus, sizeof versus) != 0) return EXIT_USAGE;
    if ((a.measured_out || a.timings_out) && !a.mpi)
        return cli_error("--measured-out and --timings-out time an MPI run: add --mpi (and start under mpirun)"),
               EXIT_USAGE;
    if (a.measured_out && !a.platform)
        return cli_error("--measured-out needs --platform, the network the ranks ran on (e.g. "
                         "cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=0.05gbe,nodes=4)"),
               EXIT_USAGE;
    train_comm comm = {0};
    const int started = a.mpi ? cli_mpi_start(C_TRAIN, "train --mpi", &comm, argc, argv) : 0;
    if (started != 0) return started;
    const int rank = a.mpi ? comm.rank : 0;
    if (a.mpi && world_workers(&a, &comm, argc, argv) != 0) return comm_mpi_close(&comm), EXIT_USAGE;
    nw = (int)a.nworkers;
    for (int k = 0; k < nw; k++) workers[k] = (int)a.workers[k];
    iter_log ilog = {0};
    gq_table timings, measured;
    table_init(&timings, TIMING_COLUMNS, sizeof TIMING_COLUMNS / sizeof TIMING_COLUMNS[0]);
    table_init(&measured, MEASURED_RUN_COLUMNS, MEASURED_RUN_NCOLUMNS);
    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    int rc = 1;
    const model_t *m = cli_zoo_model(&z, model);
    idx_dataset tr = {0}, te = {0};
    train_experiment_result x = {0};
    if (m && load_fashion(a.data, a.train_limit, a.test_limit, &tr, &te) == 0) {
        train_ctx tc = {a.mpi ? &comm : NULL, &ilog, &a, m->name, &timings, a.measured_out ? &measured : NULL, 0};
        train_experiment_spec spec = {.base = config_of(&a),
                                      .quants = quants,
                                      .nquants = nq,
                                      .workers = workers,
                                      .nworkers = nw,
                                      .seeds = seeds,
                                      .nseeds = ns,
                                      .versus = versus[0] ? versus : NULL,
                                      .sgemm_gflops = train_sgemm_gflops(), /* the reference, measured in this run */
                                      .on_epoch = train_epoch,
                                      .on_run = train_timed,
                                      .ctx = &tc};
        spec.base.model = m, spec.base.sync = (sync_kind)a.train_sync;
        if (a.mpi) spec.base.comm = &comm, spec.base.on_iteration = on_iteration, spec.base.iteration_ctx = &ilog;
        if (dump) spec.base.dump_write = dump_gradient, spec.base.dump_ctx = (void *)dump;
        spec.base.dump_at = dump_at, spec.base.ndump = ndump;
        char msg[1024];
        const gq_err e = train_experiment(&spec, &tr, &te, &x, msg, sizeof msg);
        /* a diverged worker is one rank's news; anything else every rank found alike */
        if (e != GQ_OK && (rank == 0 || e == GQ_ERR_NONFINITE) && msg[0])
            cli_error("%s", e == GQ_ERR_NOMEM && !msg[0] ? "out of memory" : msg);
        /* one rank's news (a divergence, rank 0's dump failing): the others wait in the exchange */
        if (e != GQ_OK && !tc.timings_failed && a.mpi && comm.size > 1 && (e == GQ_ERR_NONFINITE || e == GQ_ERR_IO))
            comm.abort(&comm, 1);
        rc = e != GQ_OK;
        if (rc == 0 && rank == 0) rc = train_outputs(&a, &x, &timings, &measured, ns);
    }
    train_experiment_free(&x);
    idx_free(&tr);
    idx_free(&te);
    zoo_free(&z);
    table_free(&timings), table_free(&measured);
    free(ilog.v);
    if (a.mpi) comm_mpi_close(&comm);
    return rc;
}

/* ---- accuracy curves, trained -------------------------------------------------------------------------- */

void cli_train_defaults(cli_args *a) { train_defaults(a); }

int cli_train_curves(const cli_args *a, const char *model, const char *const *quants, size_t nq, int *workers,
                     tta_curve *curves, train_comm *comm)
{
    const int R = comm && comm->size > 1 ? comm->size : 1, me = R > 1 ? comm->rank : 0;
    gq_zoo z = {0};
    idx_dataset tr = {0}, te = {0};
    const model_t *m = NULL;
    uint64_t seeds[16];
    const size_t ns = seeds_of(a, seeds);
    char msg[1024];
    int rc = 0;
    if (cli_zoo_load(&z, NULL) != 0 || !(m = cli_zoo_model(&z, model)) ||
        load_fashion(a->data, a->train_limit, a->test_limit, &tr, &te) != 0)
        rc = -1;
    if (rc == 0) {
        const int ntrain = a->train_limit > 0 && a->train_limit < (uint64_t)tr.n ? (int)a->train_limit : tr.n;
        int most = ntrain / (int)a->batch; /* workers that still get one batch each per iteration */
        if (most > TRAIN_MAX_WORKERS) most = TRAIN_MAX_WORKERS;
        if (*workers > most) {
            if (me == 0)
                fprintf(stderr, "gqsim: trained with %d workers (not %d): %d images make at most %d batches of %llu\n",
                        most < 1 ? 1 : most, *workers, ntrain, most, (unsigned long long)a->batch);
            *workers = most < 1 ? 1 : most;
        }
    }
    /* run j = (quantizer j / ns, seed j % ns) on rank j % R; its epochs' accuracies, then its epochs and its
     * iterations an epoch, shared by one all-gather */
    const size_t E = a->epochs < MAX_EPOCHS ? (size_t)a->epochs : MAX_EPOCHS, W = E + 2, jobs = nq * ns;
    double *mine = calloc(jobs * W + 1, sizeof *mine),
           *all = R > 1 ? calloc(jobs * W * (size_t)R + 1, sizeof *all) : NULL;
    if (!mine || (R > 1 && !all)) rc = (cli_error("out of memory"), -1);
    for (size_t j = 0; j < jobs && rc == 0; j++) {
        if ((int)(j % (size_t)R) != me) continue;
        train_config c = config_of(a);
        c.model = m, c.workers = *workers;
        qz_parse_spec(quants[j / ns], &c.quant, NULL, 0);
        char canon[256];
        qz_format_spec(&c.quant, canon, sizeof canon);
        run_ctx r = {.quant = canon, .workers = *workers, .seed = seeds[j % ns]};
        c.seed = seeds[j % ns];
        if (train_run(&c, &tr, &te, on_epoch, &r, msg, sizeof msg) != GQ_OK) {
            cli_error("train %s with %d workers, seed %llu: %s", canon, *workers, (unsigned long long)c.seed, msg);
            rc = -1;
            break;
        }
        for (size_t e = 0; e < E; e++) mine[j * W + e] = r.acc[e];
        mine[j * W + E] = r.epochs, mine[j * W + E + 1] = r.iterations;
    }
    if (R > 1) { /* a rank that failed says so with a negative epoch count in its first run's slot */
        if (rc != 0 && jobs > 0) mine[(size_t)me * W + E] = -1;
        if (all && comm->allgather_doubles(comm, mine, (int)(jobs * W), all) != GQ_OK) rc = -1;
        for (size_t j = 0; all && rc == 0 && j < jobs; j++)
            memcpy(mine + j * W, all + (j % (size_t)R) * jobs * W + j * W, W * sizeof *mine);
        for (int r = 0; all && r < R && (size_t)r < jobs; r++)
            if (all[(size_t)r * jobs * W + (size_t)r * W + E] < 0) rc = -1;
    }
    for (size_t k = 0; k < nq && rc == 0; k++) {
        tta_curve *cv = &curves[k];
        memset(cv, 0, sizeof *cv);
        qz_params p;
        qz_parse_spec(quants[k], &p, NULL, 0);
        qz_format_spec(&p, cv->quant, sizeof cv->quant);
        cv->nseeds = ns, cv->workers = *workers;
        snprintf(cv->source, sizeof cv->source, "trained: %s, %d workers x %llu", model, *workers,
                 (unsigned long long)a->batch);
        for (size_t si = 0; si < ns; si++) {
            const double *v = mine + (k * ns + si) * W;
            for (size_t e = 0; e < E; e++) cv->acc[si][e] = v[e];
            cv->epochs = (size_t)v[E];
            cv->iterations_per_epoch = v[E + 1];
        }
    }
    free(mine), free(all);
    idx_free(&tr), idx_free(&te);
    zoo_free(&z);
    return rc;
}

/* ---- tta ------------------------------------------------------------------------------------------- */

static int cmd_tta(int argc, char **argv)
{
    cli_args a;
    train_defaults(&a); /* the trainer's defaults, then the simulator's */
    cli_sim_defaults(&a);
    a.batch = 0; /* training: 64 (the trainer's); a curve: the model's customary batch */
    if (cli_parse_command(C_TTA, argc, argv, &a)) return EXIT_USAGE;
    cli_warn_platforms(&a.platform, a.platform ? 1 : 0);
    const char *const *quants = a.nquant ? a.quant : (const char *const[]){"fp32"};
    const size_t nq = a.nquant ? a.nquant : 1;
    const int gpus = (int)a.gpus[0];
    const int training = !a.accuracy_curve;
    if (!a.model) a.model = training ? "lenet5" : NULL;
    if (!a.model) return cli_error("tta: --accuracy-curve needs --model (the model the curve is of)"), EXIT_USAGE;
    if (training && !a.batch) a.batch = 64;
    /* on the heap: 8 MB of curves in static storage were scanned by LeakSanitizer at every exit of gqsim */
    tta_curve *curves = calloc(MAX_RUNS, sizeof *curves);
    if (!curves) return cli_error("tta: out of memory"), 1;
    int ncurves = 0, rc = 0, workers = gpus;
    const double dataset = a.dataset_size ? (double)a.dataset_size : 1281167;
    char msg[1024];

    /* the cluster first: options that do not go together are refused before minutes of training */
    sim_request q = cli_request_of(&a);
    q.batch = (int)a.batch; /* training: the trainer's per-worker batch; a curve: the model's unless given */
    sim_scenario s;
    const gq_err opened = scenario_open(&s, &q, msg, sizeof msg);
    if (opened != GQ_OK) {
        cli_error("%s", msg);
        free(curves);
        return cli_exit_of(opened);
    }

    if (training) { /* the trainer's accuracy after each epoch, per quantizer and seed */
        if (cli_train_curves(&a, a.model, quants, nq, &workers, curves, NULL) != 0) {
            rc = 1;
            goto out;
        }
        ncurves = (int)nq;
    } else if ((ncurves = cli_read_curves(a.accuracy_curve, dataset, curves, MAX_RUNS)) < 0) {
        rc = 1;
        goto out;
    }
    if (rc) goto out;

    /* the simulated iteration of each quantizer on the cluster (opened above) */
    gq_table t;
    double iteration_s[MAX_RUNS];
    if (tta_run(&s, curves, ncurves, gpus, a.target, dataset, &t, iteration_s, msg, sizeof msg) != GQ_OK)
        rc = (cli_error("%s", msg), 1);
    char *dat = NULL, labels[MAX_RUNS][QZ_LABEL_MAX];
    size_t dlen = 0;
    FILE *f = rc ? NULL : open_memstream(&dat, &dlen);
    const char *label_ptr[MAX_RUNS], *spec_ptr[MAX_RUNS];
    if (!f && rc == 0) rc = (cli_error("out of memory"), 1);
    for (int k = 0; k < ncurves && rc == 0; k++) { /* the figure: mean accuracy against simulated time, by epoch */
        const tta_curve *cv = &curves[k];
        fprintf(f, "%s# %s\n", k ? "\n\n" : "", cv->quant);
        for (size_t e = 0; e < cv->epochs; e++) {
            double acc[TTA_MAX_SEEDS];
            for (size_t si = 0; si < cv->nseeds; si++) acc[si] = cv->acc[si][e];
            const double mean = gsl_stats_mean(acc, 1, cv->nseeds);
            const double sd = cv->nseeds > 1 ? gsl_stats_sd_m(acc, 1, cv->nseeds, mean) : 0;
            fprintf(f, "%.9g %.6f %.6f\n", (double)(e + 1) * cv->iterations_per_epoch * iteration_s[k], mean, sd);
        }
        spec_ptr[k] = cv->quant;
        label_ptr[k] = labels[k];
    }
    if (rc == 0) qz_short_labels(spec_ptr, (size_t)ncurves, labels);
    if (f && fclose(f) != 0 && rc == 0) rc = (cli_error("out of memory"), 1);
    if (rc == 0) table_print(&t, (cli_format)a.format);
    if (rc == 0 && a.plot) {
        char title[512];
        snprintf(title, sizeof title, "Time to accuracy: %s on %s, %d GPU%s", s.model->name, a.platform, gpus,
                 gq_s(gpus));
        gp_vars vars = {0};
        gpv_string(&vars, "ptitle", title);
        gpv_number(&vars, "target", a.target);
        gpv_array(&vars, "labels", label_ptr, (size_t)ncurves);
        if (cli_plot("tta", a.plot, dat, &vars) != 0) rc = 1;
        gpv_free(&vars);
    }
    free(dat);
    table_free(&t);
out:
    scenario_close(&s);
    free(curves);
    return rc;
}

static const char TRAIN_DETAILS[] =
    "Trains on Fashion-MNIST with W data-parallel workers; B is the per-worker batch. Defaults: lenet5, fp32,\n"
    "4 workers, batch 64, 10 epochs, momentum 0.9 at lr 0.02, weight decay 5e-4, lr x0.3 every 4 epochs, seed 1,\n"
    "TernGrad's scaler sharing on, error feedback for biased compressors (signsgd, topk, bingrad-b). A run that\n"
    "diverges (a NaN or Inf loss, gradient or parameter) stops with exit 1, naming the iteration and layer.\n"
    "With --seeds, one run per seed (column seed), and the table adds the seeds' mean and standard deviation.\n"
    "Data: --data DIR, else $GQSIM_FASHION_MNIST, else the dataset-fashion-mnist package's directory.\n";

static const char TTA_DETAILS[] =
    "Per quantizer: trains the model (default lenet5) with --gpus workers (fewer, said on stderr, if the data\n"
    "cannot feed that many), once per seed, and simulates one iteration of it on --platform with the same\n"
    "quantizer, batch and options (iteration_s is what 'gqsim simulate' gives for them). The target counts as\n"
    "reached at the first evaluated epoch whose test accuracy is at least --target (no interpolation);\n"
    "iterations_to_target is the mean over the seeds that reached it, time_to_target_s that times iteration_s.\n"
    "With --accuracy-curve FILE.csv (quant,epoch,accuracy, e.g. a paper's curve, or train's own CSV) nothing is\n"
    "trained: a zoo model's iteration is joined with the curve, floor(--dataset-size / (gpus x batch)) iterations\n"
    "an epoch, as train counts them (--dataset-size defaults to ImageNet's 1,281,167 images).\n";

const cli_command TRAIN_CMDS[] = {
    {"train", cmd_train, C_TRAIN, NULL, "train LeNet-5 on Fashion-MNIST with W workers and a quantizer", TRAIN_DETAILS},
    {"tta", cmd_tta, C_TTA, NULL, "time to accuracy: which quantizer reaches a target accuracy first on a cluster",
     TTA_DETAILS},
    {NULL, NULL, 0, NULL, NULL, NULL},
};
