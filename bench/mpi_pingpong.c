/* Ping-pong between MPI ranks 0 and 1: the one-way time of a message by
 * size, the measurement SimGrid's network calibration fits its latency and
 * bandwidth factors on (run it in the lab: netlab.sh mpirun 2 -- build/mpi_pingpong).
 * Prints CSV: bytes, one_way_s (median of the repetitions), effective_bytes_per_s. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "mpi_pingpong: needs exactly 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const long max = argc > 1 ? atol(argv[1]) : 4 << 20;
    const int reps = argc > 2 ? atoi(argv[2]) : 15;
    char *buf = calloc((size_t)max + 1, 1);
    double *t = calloc((size_t)reps, sizeof *t);
    if (!buf || !t) MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0) printf("bytes,one_way_s,effective_bytes_per_s\n");
    for (long n = 1; n <= max; n *= 4) {
        for (int r = -2; r < reps; r++) { /* two warm-up rounds */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
            if (r >= 0) t[r] = (MPI_Wtime() - t0) / 2;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp);
        if (rank == 0) printf("%ld,%.9f,%.6g\n", n, t[reps / 2], (double)n / t[reps / 2]);
    }
    free(buf), free(t);
    MPI_Finalize();
    return 0;
}
