/* gqsim-smpi: the trainer's exchange under SimGrid's SMPI, for --engine smpi.
 * Built by smpicc (SMPI's MPI) from the same train/ sources as `gqsim train
 * --mpi`, and started by sim/smpi_engine.c as
 *   smpirun -platform P.xml -hostfile H -np N gqsim-smpi KEY=VALUE...
 * Every rank exchanges synthetic gradients of the model's sizes with the
 * trainer's own functions (train_exchange_run); forward, backward and every
 * codec call are charged as simulated time, never run for their time. Rank 0
 * prints one line: "gqsim-smpi iteration_s=X". Keys: model, quant,
 * iterations, seed, compute_s, encode_ns, encode_fixed_ns, decode_ns,
 * decode_fixed_ns, and the run parameters marked RP_SMPI in run_params.c
 * (read through that table). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "run_params.h"
#include "trainer.h"
#include "zoo.h"

static const char *value(int argc, char **argv, const char *key, const char *dflt)
{
    const size_t n = strlen(key);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], key, n) == 0 && argv[i][n] == '=') return argv[i] + n + 1;
    return dflt;
}

int main(int argc, char **argv)
{
    char msg[512];
    train_comm comm;
    if (comm_mpi_open(&comm, msg, sizeof msg) != GQ_OK) return fprintf(stderr, "gqsim-smpi: %s\n", msg), 1;
    gq_zoo z;
    train_config c;
    memset(&c, 0, sizeof c);
    exchange_costs costs = {0};
    gq_err e = zoo_load(&z, NULL, msg, sizeof msg);
    if (e == GQ_OK && !(c.model = zoo_model(&z, value(argc, argv, "model", "lenet5"), msg, sizeof msg)))
        e = GQ_ERR_SPEC;
    if (e == GQ_OK) e = qz_parse_spec(value(argc, argv, "quant", "fp32"), &c.quant, msg, sizeof msg);
    sim_request run;
    run_params_defaults(&run);
    for (int i = 1; i < argc && e == GQ_OK; i++) {
        const char *eq = strchr(argv[i], '=');
        char key[64];
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key) continue;
        memcpy(key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = '\0';
        const run_param *p = run_param_by_key(key);
        if (p && (p->scope & RP_SMPI)) e = run_param_set(p, &run, eq + 1, msg, sizeof msg);
    }
    c.sync = run.run.sync, c.exchange = run.run.exchange;
    if (e == GQ_OK && !sync_trainer_runs(c.sync))
        e = GQ_ERR_SPEC, snprintf(msg, sizeof msg, "sync '%s' is not one the trainer runs", sync_name(c.sync));
    double iteration_s = 0;
    if (e == GQ_OK) {
        c.comm = &comm;
        c.seed = strtoull(value(argc, argv, "seed", "1"), NULL, 10);
        costs.compute_s = strtod(value(argc, argv, "compute_s", "0"), NULL);
        costs.encode_ns = strtod(value(argc, argv, "encode_ns", "0"), NULL);
        costs.encode_fixed_ns = strtod(value(argc, argv, "encode_fixed_ns", "0"), NULL);
        costs.decode_ns = strtod(value(argc, argv, "decode_ns", "0"), NULL);
        costs.decode_fixed_ns = strtod(value(argc, argv, "decode_fixed_ns", "0"), NULL);
        e = train_exchange_run(&c, atoi(value(argc, argv, "iterations", "3")), &costs, &iteration_s, msg, sizeof msg);
    }
    if (e != GQ_OK)
        fprintf(stderr, "gqsim-smpi: %s\n", msg);
    else if (comm.rank == 0)
        printf("gqsim-smpi iteration_s=%.17g\n", iteration_s);
    zoo_free(&z);
    comm_mpi_close(&comm);
    return e == GQ_OK ? 0 : 1;
}
