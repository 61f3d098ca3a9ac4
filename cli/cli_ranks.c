/* Every command that runs under mpirun (train --mpi, advise, sweep) checks
 * first that its ranks were started alike: the same command and version,
 * the same value of every option, the same contents of every input file.
 * Ranks that disagree would otherwise print rows labelled with one rank's
 * settings and computed with another's, or stop in a collective whose sizes
 * differ. The first exchange has the same size on every rank whatever they
 * were given (the command, its option count, the version), so that it
 * cannot itself mismatch; only ranks that agree on those exchange the
 * options' hashes. Every rank names the difference, and none leaves before
 * all have said it. A command starts over MPI through cli_mpi_start, which
 * opens MPI and checks at once: a command added later cannot forget it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "comm.h"
#include "options.h"

/* The version and the option table's size: two builds that could read options differently do not agree. */
static double build_hash(void)
{
    const char *v = GQ_VERSION;
    uint64_t h = 14695981039346656037ull;
    for (const char *c = v; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return (double)(h >> 12);
}

/* Waits for every rank: nobody ends the job (mpirun stops the others when one exits non-zero) before all have
 * printed their line. */
static void all_said(train_comm *comm)
{
    double one = 1, *all = calloc((size_t)comm->size, sizeof *all);
    if (all) comm->allgather_doubles(comm, &one, 1, all);
    free(all);
}

int cli_mpi_start(cli_cmd cmd, const char *what, train_comm *comm, int argc, char **argv)
{
    char msg[256];
    if (comm_mpi_open(comm, msg, sizeof msg) != GQ_OK) return cli_error("%s: %s", what, msg), 1;
    if (cli_ranks_agree(cmd, what, comm, argc, argv) != 0) return comm_mpi_close(comm), EXIT_USAGE;
    return 0;
}

int cli_ranks_agree(cli_cmd cmd, const char *what, train_comm *comm, int argc, char **argv)
{
    if (comm->size < 2) return 0;
    enum { CAP = 256 };
    const char *names[CAP];
    int inputs[CAP];
    double mine[CAP];
    const int n = cli_settings_fingerprint(cmd, argc, argv, names, inputs, mine, CAP);
    const int R = comm->size;
    const double head[3] = {(double)cmd, (double)n, build_hash()};
    double *heads = gq_xcalloc((size_t)R * 3, sizeof *heads);
    if (comm->allgather_doubles(comm, head, 3, heads) != GQ_OK) {
        free(heads);
        cli_error("%s: the ranks could not compare their settings", what);
        return -1;
    }
    for (int r = 1; r < R; r++)
        if (memcmp(&heads[3 * r], heads, sizeof head) != 0) {
            cli_error("%s: rank %d runs another gqsim command or version than rank 0 (every rank must run the same "
                      "command with the same settings)",
                      what, r);
            free(heads);
            all_said(comm);
            return -1;
        }
    free(heads);
    double *all = gq_xcalloc((size_t)R * (size_t)n + 1, sizeof *all);
    if (comm->allgather_doubles(comm, mine, n, all) != GQ_OK) {
        free(all);
        cli_error("%s: the ranks could not compare their settings", what);
        return -1;
    }
    int bad = 0;
    for (int r = 1; r < R && !bad; r++)
        for (int k = 0; k < n && !bad; k++)
            if (all[(size_t)r * (size_t)n + (size_t)k] != all[k]) {
                bad = 1;
                if (inputs[k])
                    cli_error("%s: rank %d's %s holds other contents than rank 0's (every rank must read the same "
                              "input, whatever its path)",
                              what, r, names[k]);
                else
                    cli_error("%s: rank %d was started with another %s than rank 0 (every rank must run with the "
                              "same settings)",
                              what, r, names[k]);
            }
    free(all);
    if (bad) all_said(comm);
    return bad ? -1 : 0;
}
