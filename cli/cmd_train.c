/* `gqsim train`: LeNet-5 (or another chain of supported layers) on
 * Fashion-MNIST with W data-parallel workers exchanging gradients through a
 * real quantizer; one row per epoch; sweeps over quantizers and worker counts
 * with a figure of test accuracy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "commands.h"
#include "options.h"
#include "trainer.h"
#include "zoo.h"

#define MAX_RUNS 16

typedef struct {
    gq_table *t;
    const char *quant;
    int workers;
    double sgemm;
    char *dat;
    size_t len, cap;
} run_ctx;

static void on_epoch(const epoch_stats *s, void *p)
{
    run_ctx *r = (run_ctx *)p;
    cli_progress(1, "%s, %d workers: epoch %d  train loss %.4f  test accuracy %.4f  (%.1f s)", r->quant, r->workers,
                 s->epoch, s->train_loss, s->test_accuracy, s->wall_s);
    table_row(r->t, "%s\t%d\t%d\t%d\t%.6f\t%.6f\t%.4f\t%.0f\t%.0f\t%.6g\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%.4f", r->quant,
              r->workers, s->epoch, s->iterations, s->train_loss, s->test_loss, s->test_accuracy, s->bytes_up_per_iter,
              s->bytes_down_per_iter, s->quant_nmse, s->wall_s, s->compute_s, s->quant_s, s->gflops, r->sgemm,
              s->quant_s / (s->compute_s + s->quant_s));
    if (r->cap - r->len < 128) r->dat = realloc(r->dat, r->cap = 2 * r->cap + 128);
    r->len += (size_t)snprintf(r->dat + r->len, r->cap - r->len, "%d %.6f\n", s->epoch, s->test_accuracy);
}

int cmd_train(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    a.batch = 64, a.epochs = 10, a.seed = 1, a.lr = 0.02, a.momentum = 0.9, a.weight_decay = 5e-4;
    a.optimizer = OPT_MOMENTUM, a.ef = -1, a.lr_schedule = LR_STEP, a.step_every = 4, a.step_gamma = 0.3;
    a.workers[0] = 4, a.nworkers = 1, a.dump_at[0] = 1, a.ndump_at = 1;
    if (cli_parse_args(C_TRAIN, "train", argc, argv, &a, 0)) return EXIT_USAGE;
    const char *model = a.model ? a.model : "lenet5", *quants[MAX_RUNS], *output = a.output, *plot = a.plot,
               *data = a.data, *dump = a.dump_grads;
    int nq = (int)a.nquant, workers[MAX_RUNS], nw = (int)a.nworkers, dump_at[64], ndump = (int)a.ndump_at;
    for (int k = 0; k < nq; k++) quants[k] = a.quant[k];
    for (int k = 0; k < nw; k++) workers[k] = (int)a.workers[k];
    for (int k = 0; k < ndump; k++) dump_at[k] = (int)a.dump_at[k];
    const uint64_t batch = a.batch, epochs = a.epochs, seed = a.seed, train_limit = a.train_limit,
                   test_limit = a.test_limit;
    const double lr = a.lr, momentum = a.momentum, wd = a.weight_decay;
    const cli_format fmt = (cli_format)a.format;
    train_config c;
    memset(&c, 0, sizeof c);
    c.optimizer = (optim_kind)a.optimizer;
    c.error_feedback = a.ef;
    c.schedule = (lr_schedule)a.lr_schedule, c.step_every = a.step_every, c.step_gamma = a.step_gamma;
    c.poly_power = a.poly_power;
    c.exchange.fp32_below = a.fp32_below, c.exchange.fp32_last = a.fp32_last;
    c.exchange.no_scaler_sharing = a.no_scaler_sharing, c.exchange.downlink = (downlink_kind)a.downlink;
    if (nq == 0) quants[nq++] = "fp32";
    if (dump && !cli_is_dir(dump) && mkdir(dump, 0777) != 0)
        return cli_error("--dump-grads '%s': cannot create it", dump), 1;

    gq_zoo z;
    if (cli_zoo_load(&z, NULL) != 0) return 1;
    int rc = 1;
    const model_t *m = cli_zoo_model(&z, model);
    char dir[1024], ip[1200], lp[1200], tip[1200], tlp[1200], msg[512];
    idx_dataset tr = {0}, te = {0};
    if (!m) goto out;
    idx_fashion_dir(data, dir, sizeof dir);
    snprintf(ip, sizeof ip, "%s/train-images-idx3-ubyte.gz", dir);
    snprintf(lp, sizeof lp, "%s/train-labels-idx1-ubyte.gz", dir);
    snprintf(tip, sizeof tip, "%s/t10k-images-idx3-ubyte.gz", dir);
    snprintf(tlp, sizeof tlp, "%s/t10k-labels-idx1-ubyte.gz", dir);
    if (idx_load(&tr, ip, lp, msg, sizeof msg) != GQ_OK || idx_load(&te, tip, tlp, msg, sizeof msg) != GQ_OK) {
        cli_error("%s (Fashion-MNIST: install dataset-fashion-mnist, or point --data or GQSIM_FASHION_MNIST at a "
                  "directory with its four .gz files)",
                  msg);
        goto out;
    }
    static const char *const H[] = {"quant",
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
                                    "quant_s",
                                    "gflops",
                                    "sgemm_gflops",
                                    "quant_share"};
    gq_table t;
    table_init(&t, H, sizeof H / sizeof H[0]);
    size_t dlen = 0, dcap = 4096;
    char *dat = malloc(dcap), labels[MAX_RUNS * MAX_RUNS][64];
    const char *label_ptr[MAX_RUNS * MAX_RUNS];
    size_t nlabels = 0;
    dat[0] = '\0';
    rc = 0;
    const double sgemm = train_sgemm_gflops(); /* the reference, measured in this run */
    for (int k = 0; k < nq && rc == 0; k++)
        for (int wi = 0; wi < nw && rc == 0; wi++) {
            c.model = m;
            qz_parse_spec(quants[k], &c.quant, NULL, 0);
            c.workers = workers[wi];
            c.batch = (int)batch;
            c.epochs = (int)epochs;
            c.lr = lr;
            c.momentum = momentum;
            c.weight_decay = wd;
            c.seed = seed;
            c.train_limit = (int)train_limit;
            c.test_limit = (int)test_limit;
            c.dump_dir = dump;
            c.dump_at = dump_at;
            c.ndump = ndump;
            char canon[256];
            qz_format_spec(&c.quant, canon, sizeof canon);
            run_ctx r = {&t, canon, workers[wi], sgemm, NULL, 0, 0};
            if (train_run(&c, &tr, &te, on_epoch, &r, msg, sizeof msg) != GQ_OK) {
                cli_error("train %s with %d workers: %s", canon, workers[wi], msg);
                rc = 1;
            }
            if (r.dat) {
                if (dcap - dlen < r.len + 256) dat = realloc(dat, dcap = 2 * dcap + r.len + 256);
                dlen += (size_t)snprintf(dat + dlen, dcap - dlen, "# %s x%d\n%s\n\n", canon, workers[wi], r.dat);
                snprintf(labels[nlabels], sizeof labels[0], "%s/%d", qz_name(c.quant.id), workers[wi]);
                label_ptr[nlabels] = labels[nlabels];
                nlabels++;
                free(r.dat);
            }
        }
    if (rc == 0) table_print(&t, fmt);
    if (rc == 0 && output && table_write_csv(&t, output) != 0) rc = 1;
    if (rc == 0 && plot) {
        gp_vars vars = {0};
        gpv_array(&vars, "labels", label_ptr, nlabels);
        if (cli_plot("train_accuracy", plot, dat, &vars) != 0) rc = 1;
        gpv_free(&vars);
    }
    free(dat);
    table_free(&t);
out:
    idx_free(&tr);
    idx_free(&te);
    zoo_free(&z);
    return rc;
}

static const char TRAIN_DETAILS[] =
    "Trains on Fashion-MNIST with W data-parallel workers; B is the per-worker batch. Defaults: lenet5, fp32,\n"
    "4 workers, batch 64, 10 epochs, momentum 0.9 at lr 0.02, weight decay 5e-4, lr x0.3 every 4 epochs, seed 1,\n"
    "TernGrad's scaler sharing on, error feedback for biased compressors (signsgd, topk, bingrad-b). A run that\n"
    "diverges (a NaN or Inf loss, gradient or parameter) stops with exit 1, naming the iteration and layer.\n"
    "Data: --data DIR, else $GQSIM_FASHION_MNIST, else the dataset-fashion-mnist package's directory.\n";

const cli_command TRAIN_CMDS[] = {
    {"train", cmd_train, C_TRAIN, NULL, "train LeNet-5 on Fashion-MNIST with W workers and a quantizer", TRAIN_DETAILS},
    {NULL, NULL, 0, NULL, NULL, NULL},
};
