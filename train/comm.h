/* How the trainer's ranks talk when they are separate processes (--mpi):
 * batches of point-to-point messages posted at once and waited for, a
 * maximum over floats and an all-gather of doubles; nothing else. The
 * trainer (trainer.c) writes its synchronisation schemes against this
 * interface only, so it builds and is tested without MPI; comm_mpi.c is the
 * OpenMPI implementation. Every call is collective over the ranks it names
 * and counts the bytes this rank sent and received. */
#ifndef GQ_COMM_H
#define GQ_COMM_H

#include <stddef.h>

#include "gq_error.h"

typedef struct {
    int peer;
    void *buf;
    size_t len; /* send: bytes; receive: the room on entry, the bytes received on return */
} comm_msg;

typedef struct train_comm {
    int rank, size;
    void *impl;
    /* Posts every send and receive, then waits for all of them. */
    gq_err (*exchange)(struct train_comm *c, comm_msg *sends, int nsends, comm_msg *recvs, int nrecvs);
    /* v[0..n) becomes the element-wise maximum over the ranks. */
    gq_err (*max_floats)(struct train_comm *c, float *v, int n);
    /* all[rank * n + i] = rank's mine[i], on every rank. */
    gq_err (*allgather_doubles)(struct train_comm *c, const double *mine, int n, double *all);
    /* Under SMPI: charges this many seconds of computation (NULL elsewhere), and the simulated clock. */
    void (*execute)(struct train_comm *c, double seconds);
    double (*now)(struct train_comm *c);
    /* Under SMPI: memory every rank shares (SMPI_SHARED_MALLOC: one physical block folded over the range, its
     * contents garbage, never copied by a message), for payloads whose values do not matter; NULL elsewhere. */
    void *(*shared_alloc)(struct train_comm *c, size_t bytes);
    void (*shared_free)(struct train_comm *c, void *p);
    /* Ends every rank: one worker failed (it diverged) while the others wait for it in an exchange. */
    void (*abort)(struct train_comm *c, int code);
    double bytes_sent, bytes_received; /* counted by exchange */
} train_comm;

/* The OpenMPI implementation (comm_mpi.c, built where MPI is found):
 * initialises MPI on the first call. @return GQ_OK, or an error with one line
 * in msg (also where gqsim was built without MPI). */
gq_err comm_mpi_open(train_comm *c, char *msg, size_t cap);
/* 1 if this build has MPI. */
int comm_mpi_available(void);
void comm_mpi_close(train_comm *c);

#endif
