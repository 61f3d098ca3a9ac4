/* The trainer's ranks over MPI; see comm.h. Nonblocking sends and receives
 * waited for together, so that a rank's sends to every peer are on the wire
 * at once, as a parameter server's or an all-to-all's are. Built only where
 * CMake finds MPI; comm_none.c stands in otherwise. */
#include "comm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    MPI_Request *req;
    int cap;
} mpi_impl;

static gq_err mpi_exchange(train_comm *c, comm_msg *sends, int ns, comm_msg *recvs, int nr)
{
    mpi_impl *m = c->impl;
    if (ns + nr > m->cap) {
        MPI_Request *grown = realloc(m->req, (size_t)(ns + nr) * sizeof *grown);
        if (!grown) return GQ_ERR_NOMEM;
        m->req = grown, m->cap = ns + nr;
    }
    /* one tag: messages between two ranks arrive in the order posted, and a batch is waited for before the next */
    for (int i = 0; i < nr; i++)
        MPI_Irecv(recvs[i].buf, (int)recvs[i].len, MPI_BYTE, recvs[i].peer, 7, MPI_COMM_WORLD, &m->req[i]);
    for (int i = 0; i < ns; i++) {
        MPI_Isend(sends[i].buf, (int)sends[i].len, MPI_BYTE, sends[i].peer, 7, MPI_COMM_WORLD, &m->req[nr + i]);
        c->bytes_sent += (double)sends[i].len;
    }
    MPI_Status *st = malloc((size_t)(ns + nr) * sizeof *st);
    if (!st) return GQ_ERR_NOMEM;
    int rc = MPI_Waitall(ns + nr, m->req, st);
    for (int i = 0; rc == MPI_SUCCESS && i < nr; i++) {
        int got = 0;
        MPI_Get_count(&st[i], MPI_BYTE, &got);
        recvs[i].len = (size_t)got;
        c->bytes_received += got;
    }
    free(st);
    return rc == MPI_SUCCESS ? GQ_OK : GQ_ERR_IO;
}

static gq_err mpi_max_floats(train_comm *c, float *v, int n)
{
    (void)c;
    return MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS ? GQ_OK : GQ_ERR_IO;
}

static gq_err mpi_allgather_doubles(train_comm *c, const double *mine, int n, double *all)
{
    (void)c;
    return MPI_Allgather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD) == MPI_SUCCESS ? GQ_OK : GQ_ERR_IO;
}

#ifdef GQ_SMPI /* built by smpicc for --engine smpi: computation is charged, not run */
#include <simgrid/host.h>
#include <smpi/smpi.h>
static void smpi_charge(train_comm *c, double seconds)
{
    (void)c;
    if (seconds > 0) smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
}
static void *smpi_shared(train_comm *c, size_t bytes)
{
    (void)c;
    return SMPI_SHARED_MALLOC(bytes ? bytes : 1);
}
static void smpi_shared_release(train_comm *c, void *p)
{
    (void)c;
    if (p) SMPI_SHARED_FREE(p);
}
#endif

static double mpi_now(train_comm *c)
{
    (void)c;
    return MPI_Wtime();
}

static void mpi_abort(train_comm *c, int code)
{
    (void)c;
    MPI_Abort(MPI_COMM_WORLD, code);
}

int comm_mpi_available(void) { return 1; }

gq_err comm_mpi_open(train_comm *c, char *msg, size_t cap)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) return gq_fail(GQ_ERR_IO, msg, cap, "MPI_Init failed");
    mpi_impl *m = calloc(1, sizeof *m);
    if (!m) return GQ_ERR_NOMEM;
    *c = (train_comm){0};
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    c->impl = m;
    c->exchange = mpi_exchange;
    c->max_floats = mpi_max_floats;
    c->allgather_doubles = mpi_allgather_doubles;
    c->abort = mpi_abort;
    c->now = mpi_now;
#ifdef GQ_SMPI
    c->execute = smpi_charge;
    c->shared_alloc = smpi_shared;
    c->shared_free = smpi_shared_release;
#endif
    return GQ_OK;
}

void comm_mpi_close(train_comm *c)
{
    mpi_impl *m = c->impl;
    if (m) free(m->req), free(m);
    c->impl = NULL;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
}
