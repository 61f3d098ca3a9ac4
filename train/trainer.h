/* Data-parallel training inside one process: W workers, each on its own shard
 * of every global mini-batch; per tensor (each layer's weights and biases
 * apart) every worker's gradient goes through the real quantizer (encode,
 * then the server's decode), the server averages, optionally re-quantizes the
 * reply, and every worker applies the same update (parameter localization:
 * one parameter copy stands for all). TernGrad's scaler sharing, clipping, an
 * fp32 classifier, small tensors in fp32, and error feedback for biased
 * compressors are options. Bytes sent and received per iteration are the real
 * encoded sizes. */
#ifndef GQ_TRAINER_H
#define GQ_TRAINER_H

#include <stdint.h>

#include "comm.h"
#include "exchange.h"
#include "idx.h"
#include "model.h"
#include "nn.h"
#include "qz.h"

/* Workers of one run: each holds a full gradient, so memory grows with them. */
#define TRAIN_MAX_WORKERS 1024

typedef enum { OPT_SGD, OPT_MOMENTUM, OPT_ADAM } optim_kind;
typedef enum { LR_CONST, LR_STEP, LR_POLY } lr_schedule;

/* How the workers' gradients meet, with the simulator's names:
 *  - ps: one server (worker 0) averages whole tensors and replies to all;
 *  - ps-sharded: every tensor split in W even segments, worker j serves
 *    segment j (each segment quantized on its own, its own TernGrad scaler);
 *  - ring: reduce-scatter then all-gather over W chunks; fp32 chunks are
 *    summed hop by hop in ring order, a quantizer's chunk is decoded, added
 *    to and re-encoded at every hop, and the result encoded once for the
 *    all-gather (no error feedback, no scaler sharing);
 *  - allgather: every worker's encoded tensor goes to every other, around
 *    the ring in W - 1 steps (until 2026-12-05, to all W - 1 peers at once);
 *    each averages them all (no reply, so no re-quantization).
 * In one process the same arithmetic runs in the same order, so a run over
 * MPI gives the same parameters to the last bit. The schemes are exchange.h's
 * sync_kind, the simulator's: the trainer runs those sync_trainer_runs() says. */

/* One iteration as one rank measured it (seconds, bytes). */
typedef struct {
    long step;
    double wall_s, compute_s, encode_s, wait_s, decode_s;
    double bytes_sent, bytes_received;
} iter_stats;
typedef void (*iter_fn)(const iter_stats *s, void *ctx);

typedef struct {
    const model_t *model;
    qz_params quant;
    int workers, batch, epochs; /* batch is per worker */
    optim_kind optimizer;
    double lr, momentum, weight_decay;
    lr_schedule schedule;
    int step_every; /* LR_STEP: epochs between decays */
    double step_gamma, poly_power;
    uint64_t seed;
    int error_feedback;          /* -1: on for biased compressors (signsgd, topk, bingrad-b) */
    xch_policy exchange;         /* which tensors are quantized, scaler sharing, the server's reply */
    int train_limit, test_limit; /* 0: all */
    /* per-layer gradients at the iterations dump_at (1-based): the trainer names each
     * (iterN_LAYER_w.f32 or _b.f32) and hands it to dump_write, which stores it (the CLI
     * stages it as an output); a non-zero return ends the run with GQ_ERR_IO and an empty
     * message (dump_write reports its own failure) */
    int (*dump_write)(void *ctx, const char *name, const float *data, size_t n);
    void *dump_ctx;
    const int *dump_at; /* iterations (1-based) to dump */
    int ndump;
    sync_kind sync;   /* one sync_trainer_runs() accepts */
    train_comm *comm; /* NULL: every worker in this process; else this rank is worker comm->rank of comm->size */
    iter_fn on_iteration;
    void *iteration_ctx;
} train_config;

typedef struct {
    int epoch, iterations;
    double train_loss, test_loss, test_accuracy;
    double bytes_up_per_iter, bytes_down_per_iter; /* per worker */
    double quant_nmse;                             /* mean ||Q(g) - g||^2 / ||g||^2 over quantized tensors */
    double wall_s, compute_s;                      /* wall time of the epoch, of which forward and backward */
    double exchange_s;   /* and the exchange: encoding, messages (waiting included), decoding */
    double quant_s;      /* of which encoding and decoding alone */
    double gflops;       /* achieved forward+backward GFLOP/s */
    const float *params; /* the parameters after the epoch, valid during the callback */
    size_t num_params;
} epoch_stats;

typedef void (*epoch_fn)(const epoch_stats *s, void *ctx);

/* The trainer's defaults (the CLI's too): batch 64 a worker, 10 epochs, seed 1, SGD with momentum 0.9,
 * lr 0.02, weight decay 5e-4, the step schedule x0.3 every 4 epochs, error feedback where the compressor
 * is biased (-1), 4 workers in one process, the ps scheme; everything else zero (no limits, no dumps).
 * The model and the quantizer (fp32) are the caller's to set. */
train_config train_config_defaults(void);

/* The learning rate of iteration `step` (0-based over the run) in `epoch` (1-based), with
 * steps_per_epoch iterations an epoch: const; step: lr x gamma^floor((epoch - 1) / every);
 * poly: lr x (1 - step / (steps_per_epoch x epochs))^power. */
double train_lr_at(const train_config *c, int epoch, long step, long steps_per_epoch);

/* Trains; calls `report` after each epoch (under MPI on rank 0 only, the
 * others train on and skip the evaluation). On error writes one line; a run
 * that diverges (a non-finite loss, gradient or parameter) stops with
 * GQ_ERR_NONFINITE and says at which iteration and layer. */
gq_err train_run(const train_config *c, const idx_dataset *train, const idx_dataset *test, epoch_fn report, void *ctx,
                 char *msg, size_t cap);

/* What the exchange alone charges under SimGrid's SMPI (--engine smpi): the
 * forward and backward pass of one iteration, and each codec call. */
typedef struct {
    double compute_s;
    double encode_ns, encode_fixed_ns, decode_ns, decode_fixed_ns; /* per element, per call */
} exchange_costs;

/* The exchange alone, over c->comm (whose execute and now are SMPI's):
 * `iterations` iterations, each charging costs->compute_s of computation,
 * then exchanging every tensor exactly as train_run does over MPI (the same
 * functions) with synthetic gradients (Gaussian, sigma 1e-3) of the model's
 * sizes, each encode and decode charged its cost; no data, no update.
 * iteration_s: the mean simulated iteration after the first. */
gq_err train_exchange_run(const train_config *c, int iterations, const exchange_costs *costs, double *iteration_s,
                          char *msg, size_t cap);

/* Images as the network sees them: (x / 255 - 0.2860) / 0.3530, Fashion-MNIST's mean and deviation. */
void train_normalize(float *out, const uint8_t *img, size_t n);

#endif
