/* A training experiment: every quantizer x worker count x seed trained as train_run does, and the tables `gqsim
 * train` prints made here, not in the CLI: a row an epoch and run (TRAIN_EPOCH_COLUMNS), the seeds' mean and spread
 * an epoch (the summary), and, given a quantizer to compare with, each run's last test accuracy paired seed by seed
 * with that quantizer's run on as many workers (the paired table, train_paired_ci). The caller prints, plots and
 * says what went wrong; progress and what happens after each run (train --mpi's timings) are its callbacks. */
#ifndef GQ_TRAIN_EXPERIMENT_H
#define GQ_TRAIN_EXPERIMENT_H

#include "gq_table.h"
#include "trainer.h"

#define TRAIN_EXP_MAX_SEEDS 16
#define TRAIN_EXP_SPEC_MAX 256

typedef struct {
    train_config base; /* the model, batch, optimiser, scheme, communicator, dumps: all but quant, workers, seed */
    const char *const *quants; /* quantizer specs, as qz_parse_spec reads them */
    int nquants;
    const int *workers;
    int nworkers;
    const uint64_t *seeds; /* 1..TRAIN_EXP_MAX_SEEDS */
    size_t nseeds;
    const char *versus;  /* a canonical spec among quants to pair every run with; NULL: no paired table */
    double sgemm_gflops; /* the reference the CPU's rate is compared with, a column of every epoch's row */
    /* each epoch as it ends; each run once it has ended (@return 0, or non-zero to stop: the experiment then ends
     * with GQ_ERR_IO and an empty message, the callback having said why); NULL: none */
    void (*on_epoch)(const char *quant, int workers, uint64_t seed, const epoch_stats *s, void *ctx);
    int (*on_run)(const train_config *c, const char *quant, double last_accuracy, void *ctx);
    void *ctx;
} train_experiment_spec;

typedef struct {
    gq_table epochs, summary, paired; /* paired: its header alone without a versus */
    /* the figure's data: for each run (quantizer, then workers) "# SPEC xW", then a line an epoch "E MEAN SD" */
    char *curves;
    size_t curves_len;
    /* each run (quantizer, then workers), in order: its canonical spec and its workers */
    size_t nruns;
    char (*spec)[TRAIN_EXP_SPEC_MAX];
    int *run_workers;
} train_experiment_result;

/* Trains every run, one after another. @return GQ_OK; or a run's error, with "train SPEC with W workers, seed S:
 * WHY" in msg (empty where the trainer's message was: a dump's or another rank's failure it did not word), or
 * GQ_ERR_IO with an empty message where on_run stopped it. The tables hold the runs done before it stopped. */
gq_err train_experiment(const train_experiment_spec *x, const idx_dataset *train, const idx_dataset *test,
                        train_experiment_result *r, char *msg, size_t cap);
void train_experiment_free(train_experiment_result *r);

extern const char *const TRAIN_EPOCH_COLUMNS[];
extern const size_t TRAIN_EPOCH_NCOLUMNS;
/* the summary over seeds, and the paired table (--versus) */
extern const char *const TRAIN_SUMMARY_COLUMNS[];
extern const size_t TRAIN_SUMMARY_NCOLUMNS;
extern const char *const TRAIN_PAIRED_COLUMNS[];
extern const size_t TRAIN_PAIRED_NCOLUMNS;

#endif
