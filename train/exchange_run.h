/* The exchange of the workers' gradients, tensor by tensor, in the
 * trainer's schemes (ps, ps-sharded, ring, all-gather): in one process with
 * every worker held here (exchange_local), or one worker a rank over MPI or
 * SMPI (exchange_ps_mpi, exchange_ring_mpi), the arithmetic in the same small
 * functions so that both add the same floats in the same order. The trainer
 * (trainer.c) calls it between backward and the update; under SMPI the
 * exchange runs alone (train_exchange_run), with synthetic gradients and
 * every codec call charged as simulated time. */
#ifndef GQ_EXCHANGE_RUN_H
#define GQ_EXCHANGE_RUN_H

#include "trainer.h"

/* One exchange's state: the workers' gradients held here, the average, message buffers. */
typedef struct {
    const train_config *c;
    const size_t *w_off, *b_off; /* where each layer's weights and biases start in a gradient */
    const exchange_costs *costs; /* under SMPI: each encode and decode charged as simulated time */
    xch_tensor *T;
    int nt, W, rank; /* tensors; workers; this rank (0 in one process) */
    long step;
    size_t P, cap, maxn;                /* parameters; room of one message; the largest tensor's elements */
    float *g, *res, *avg, *dec, *part;  /* g and res: one gradient per worker held here */
    int32_t *lev;                       /* TernGrad's summed levels */
    uint8_t *buf, *reply, *sbuf, *rbuf; /* cap bytes each; sbuf and rbuf W x cap */
    size_t *ssz, *rsz;
    comm_msg *sends, *recvs;
    void *work;
    size_t wcap;
    float *qst;   /* PowerSGD's Q, per worker held here (qtotal floats each), for each tensor and segment */
    size_t *qoff; /* where tensor t's segment j's Q starts in a worker's: qoff[t * W + j] */
    size_t qtotal;
    float *fac; /* PowerSGD in a ring: each worker's factors (P, then Q), maxn floats a worker */
    int ef;
    int sizes_only; /* under SMPI where every size is exact: no value computed, every buffer the shared block */
    void *shared;   /* that block (comm->shared_alloc), or NULL */
    size_t slot;    /* bytes between message slots in sbuf and rbuf: cap, or 0 in the shared block */
    double up, down, nmse_sum; /* in one process: the policy's bytes */
    long nmse_n;
    iter_stats it;
    char *msg;
    size_t mcap;
} xstate;

/* Buffers for `local` workers' gradients (every worker in one process, 1 a rank) and `slots` messages (one per peer
 * over MPI, 0 in one process), for x->c, x->W and x->P set by the caller. @return 1, or 0 if out of memory. */
int xstate_alloc(xstate *x, int local, int slots);
void xstate_free(xstate *x);

/* Exchanges tensor t (of x->T) of every worker's gradient into x->avg: in one process without x->c->comm, else
 * this rank's part of it. scales: room for W TernGrad scalers. */
gq_err xstate_exchange(xstate *x, int t, float *scales);

#endif
