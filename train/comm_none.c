/* Stands in for comm_mpi.c where gqsim is built without MPI: --mpi then
 * says so in one line. */
#include "comm.h"

#include <stdio.h>

int comm_mpi_available(void) { return 0; }

gq_err comm_mpi_open(train_comm *c, char *msg, size_t cap)
{
    (void)c;
    snprintf(msg, cap, "this gqsim was built without MPI (install libopenmpi-dev and rebuild)");
    return GQ_ERR_PARAM;
}

void comm_mpi_close(train_comm *c) { (void)c; }
