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
#include "trainer.h"
#include "zoo.h"

#define MAX_RUNS 16

typedef struct {
    cli_table *t;
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

static int parse_int_list(const char *opt, const char *v, int *out, int cap, int max, int *n)
{
    uint64_t tmp[64];
    size_t cnt;
    if (cli_parse_u64_list(opt, v, tmp, cap < 64 ? (size_t)cap : 64, &cnt)) return -1;
    for (size_t i = 0; i < cnt; i++) {
        if (tmp[i] < 1 || tmp[i] > (uint64_t)max)
            return cli_error("%s: %llu is not in 1..%d", opt, (unsigned long long)tmp[i], max), -1;
        out[i] = (int)tmp[i];
    }
    *n = (int)cnt;
    return 0;
}

int cmd_train(int argc, char **argv)
{
    const char *model = "lenet5", *quants[MAX_RUNS], *output = NULL, *plot = NULL, *data = NULL, *dump = NULL;
    int nq = 0, workers[MAX_RUNS] = {4}, nw = 1, dump_at[64] = {1}, ndump = 1;
    uint64_t batch = 64, epochs = 10, seed = 1, train_limit = 0, test_limit = 0;
    double lr = 0.02, momentum = 0.9, wd = 5e-4, fp32_below = 0;
    train_config c;
    memset(&c, 0, sizeof c);
    c.optimizer = OPT_MOMENTUM;
    c.error_feedback = -1;
    c.schedule = LR_STEP;
    c.step_every = 4;
    c.step_gamma = 0.3;
    cli_format fmt = FMT_TABLE;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m = 0;
#define OPT(name) (m == 0 && (m = cli_opt(argc, argv, &i, name, &v)) > 0)
        if (OPT("--model"))
            model = v;
        else if (OPT("--quant")) {
            if (nq == MAX_RUNS) return cli_error("train: at most %d --quant", MAX_RUNS), EXIT_USAGE;
            quants[nq++] = v;
        } else if (OPT("--workers")) {
            if (parse_int_list("--workers", v, workers, MAX_RUNS, TRAIN_MAX_WORKERS, &nw)) return EXIT_USAGE;
        } else if (OPT("--batch")) {
            if (cli_parse_u64_in("--batch", v, 1, 4096, &batch)) return EXIT_USAGE;
        } else if (OPT("--epochs")) {
            if (cli_parse_u64_in("--epochs", v, 1, 1000, &epochs)) return EXIT_USAGE;
        } else if (OPT("--optimizer")) {
            if (strcmp(v, "sgd") == 0)
                c.optimizer = OPT_SGD;
            else if (strcmp(v, "momentum") == 0)
                c.optimizer = OPT_MOMENTUM;
            else if (strcmp(v, "adam") == 0)
                c.optimizer = OPT_ADAM;
            else
                return cli_error("--optimizer '%s' is not sgd, momentum or adam", v), EXIT_USAGE;
        } else if (OPT("--lr")) {
            if (cli_parse_double_in("--lr", v, 0, 100, 1, &lr)) return EXIT_USAGE;
        } else if (OPT("--momentum")) {
            if (cli_parse_double_in("--momentum", v, 0, 0.999, 0, &momentum)) return EXIT_USAGE;
        } else if (OPT("--weight-decay")) {
            if (cli_parse_double_in("--weight-decay", v, 0, 1, 0, &wd)) return EXIT_USAGE;
        } else if (OPT("--lr-schedule")) {
            int e, used = 0;
            double g;
            if (strcmp(v, "const") == 0)
                c.schedule = LR_CONST;
            else if (sscanf(v, "step:%d:%lf%n", &e, &g, &used) == 2 && !v[used] && e > 0 && e <= 1000 && g > 0 &&
                     g <= 10)
                c.schedule = LR_STEP, c.step_every = e, c.step_gamma = g;
            else if (sscanf(v, "poly:%lf%n", &g, &used) == 1 && !v[used] && g > 0 && g <= 100)
                c.schedule = LR_POLY, c.poly_power = g;
            else
                return cli_error("--lr-schedule '%s' is not const, step:EPOCHS:GAMMA (1..1000, (0, 10]) or "
                                 "poly:POWER ((0, 100])",
                                 v),
                       EXIT_USAGE;
        } else if (OPT("--seed")) {
            if (cli_parse_u64_in("--seed", v, 0, UINT64_MAX, &seed)) return EXIT_USAGE;
        } else if (OPT("--format")) {
            if (cli_parse_format(v, &fmt)) return EXIT_USAGE;
        } else if (OPT("--output")) {
            static const char *const CSV[] = {"csv", NULL};
            if (cli_check_output("--output", v, CSV) != 0) return EXIT_USAGE;
            output = v;
        } else if (OPT("--plot")) {
            if (cli_check_plot("--plot", v) != 0) return EXIT_USAGE;
            plot = v;
        } else if (OPT("--data"))
            data = v;
        else if (OPT("--dump-grads"))
            dump = v;
        else if (OPT("--dump-at")) {
            if (parse_int_list("--dump-at", v, dump_at, 64, 1000000000, &ndump)) return EXIT_USAGE;
        } else if (OPT("--ef")) {
            if (strcmp(v, "on") == 0)
                c.error_feedback = 1;
            else if (strcmp(v, "off") == 0)
                c.error_feedback = 0;
            else if (strcmp(v, "auto") == 0)
                c.error_feedback = -1;
            else
                return cli_error("--ef '%s' is not on, off or auto", v), EXIT_USAGE;
        } else if (OPT("--downlink")) {
            if (downlink_parse(v, &c.exchange.downlink))
                return cli_error("--downlink '%s' is not auto, fp32, requant or terngrad", v), EXIT_USAGE;
        } else if (OPT("--fp32-below")) {
            if (cli_parse_double_in("--fp32-below", v, 0, 1e15, 0, &fp32_below)) return EXIT_USAGE;
        } else if (OPT("--train-limit")) {
            if (cli_parse_u64_in("--train-limit", v, 0, 100000000, &train_limit)) return EXIT_USAGE;
        } else if (OPT("--test-limit")) {
            if (cli_parse_u64_in("--test-limit", v, 0, 100000000, &test_limit)) return EXIT_USAGE;
        } else if (m == 0 && strcmp(argv[i], "--fp32-last") == 0) {
            c.exchange.fp32_last = 1, m = 1;
        } else if (m == 0 && strcmp(argv[i], "--no-scaler-sharing") == 0) {
            c.exchange.no_scaler_sharing = 1, m = 1;
        } else if (m == 0) {
            cli_error("train: unknown option '%s' (see 'gqsim help train')", argv[i]);
            return EXIT_USAGE;
        }
#undef OPT
        if (m < 0) return EXIT_USAGE;
    }
    if (nq == 0) quants[nq++] = "fp32";
    for (int k = 0; k < nq; k++) {
        qz_params q;
        char msg[256];
        if (qz_parse_spec(quants[k], &q, msg, sizeof msg) != GQ_OK)
            return cli_error("--quant '%s': %s", quants[k], msg), EXIT_USAGE;
    }
    if (dump && cli_check_output_dir("--dump-grads", dump) != 0) return EXIT_USAGE;
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
    cli_table t;
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
            c.exchange.fp32_below = fp32_below;
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

void help_train(void)
{
    printf(
        "usage: gqsim train [--model lenet5] [--quant SPEC]... [--workers W[,W...]] [--batch B] [--epochs E]\n"
        "                   [--optimizer sgd|momentum|adam] [--lr X] [--momentum M] [--weight-decay D]\n"
        "                   [--lr-schedule const|step:EPOCHS:GAMMA|poly:POWER] [--seed S] [--format table|csv]\n"
        "                   [--output run.csv] [--plot acc.png] [--data DIR] [--dump-grads DIR] [--dump-at LIST]\n"
        "                   [--ef on|off|auto] [--no-scaler-sharing] [--fp32-last] [--fp32-below N]\n"
        "                   [--downlink auto|fp32|requant|terngrad] [--train-limit N] [--test-limit N]\n\n"
        "Trains on Fashion-MNIST with W data-parallel workers; B is the per-worker batch. Defaults: lenet5, fp32,\n"
        "4 workers, batch 64, 10 epochs, momentum 0.9 at lr 0.02, weight decay 5e-4, lr x0.3 every 4 epochs, seed 1,\n"
        "TernGrad's scaler sharing on, error feedback for biased compressors (signsgd, topk, bingrad-b).\n"
        "Data: --data DIR, else $GQSIM_FASHION_MNIST, else the dataset-fashion-mnist package's directory.\n");
}
