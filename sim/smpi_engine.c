/* The SMPI engine (--engine smpi): the trainer's own exchange code, built by
 * smpicc into gqsim-smpi (cli/smpi_main.c), run by SimGrid's smpirun on the
 * platform XML gqsim generates, one rank per GPU; forward, backward and each
 * codec call charged as simulated time from the plan's costs. Where the
 * SimGrid engine moves one aggregated flow per bucket, this one sends every
 * message the trainer sends (segments, ring steps, replies), through SMPI's
 * MPI implementation over SimGrid's network model with the same factors.
 * smpirun is started by gq_run (fork/exec, an argument vector); the platform
 * and the host file live in a private directory removed after the run
 * (smpirun, a shell script, reads them by name). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gq_file.h"
#include "gq_run.h"
#include "host_names.h"
#include "run_params.h"
#include "sim_internal.h"

/* A new file in the run's private directory: created, never opened if something is already there. */
static int write_file(const char *path, const char *text)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) return fd >= 0 ? close(fd), -1 : -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* gqsim-smpi beside this gqsim (GQSIM_SMPI overrides, for tests and installs), if executable. */
static int program_path(char *out, size_t cap)
{
    return gq_beside_self("GQSIM_SMPI", "gqsim-smpi", out, cap) != 0 ? -1 : access(out, X_OK);
}

gq_err sim_smpi_check(const sim_config *c, const sim_plan *p, char *msg, size_t cap)
{
    if (p->servers)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "the smpi engine runs the trainer's ps-sharded: one even shard per node "
                       "(no --ps-shards or --ps-placement)");
    if (c->run.ps_on_cpu && sync_is(c->run.sync, SCHEME_NODE_SERVERS))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "the smpi engine runs the trainer, whose servers are its ranks: no --ps-on cpu");
    if ((c->rpc_send_s > 0 || c->rpc_recv_s > 0) && sync_is(c->run.sync, SCHEME_SERVERS))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "the smpi engine runs the trainer's MPI messages: no rpc= in the platform");
    if (!sync_trainer_runs(c->run.sync))
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "the smpi engine runs the trainer's schemes: ps, ps-sharded, ps-flat, ring or allgather");
    if (c->run.overlap || c->run.fusion_bytes > 0)
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "the smpi engine runs the trainer's exchange: tensor by tensor after backward "
                       "(--overlap off --fusion 0)");
    if (c->run.sync == SYNC_PS_SHARDED && c->cluster->gpus_per_node > 1 && c->gpus > 1)
        /* the same name, the same algorithm: the trainer's ps-sharded splits every tensor over every rank, the other
         * engines' reduce inside a node first; they agree only with one GPU a node */
        return gq_fail(
            GQ_ERR_USAGE, msg, cap,
            "the smpi engine runs the trainer's ps-sharded, a shard on every GPU with no reduction inside "
            "a node (ps-flat): the other engines' ps-sharded reduces inside a node first, so on %d-GPU nodes "
            "the two are different algorithms (use --sync ps-flat, which every engine runs)",
            c->cluster->gpus_per_node);
    if (c->cluster->xml_path[0])
        return gq_fail(GQ_ERR_USAGE, msg, cap,
                       "the smpi engine runs on generated platforms (a built-in or cluster: spec)");
    if (!c->model_source) return gq_fail(GQ_ERR_PARAM, msg, cap, "the smpi engine needs the model's name or file");
    char prog[4200];
    if (program_path(prog, sizeof prog) != 0)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s is missing: this gqsim was built without smpicc (libsimgrid-dev)",
                       prog);
    return GQ_OK;
}

gq_err sim_smpi(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap)
{
    gq_err refused = sim_smpi_check(c, p, msg, cap);
    if (refused != GQ_OK) return refused;
    char prog[4200];
    program_path(prog, sizeof prog);
    /* the platform, and one host per rank in GPU order */
    char *xml = cluster_xml(c->cluster, cluster_nodes_built(c->cluster, c->gpus), CLUSTER_XML_FLAT);
    size_t hcap = (size_t)c->gpus * (HOST_NAME_CAP + 1) + 1, hlen = 0;
    char *hosts = malloc(hcap), name[HOST_NAME_CAP];
    if (!xml || !hosts) return free(xml), free(hosts), GQ_ERR_NOMEM;
    for (int g = 0; g < c->gpus; g++)
        hlen +=
            (size_t)snprintf(hosts + hlen, hcap - hlen, "%s\n",
                             host_name(name, HOST_GPU, g / c->cluster->gpus_per_node, g % c->cluster->gpus_per_node));
    /* smpirun word-splits (and globs) the program's arguments: a model file is passed as a copy whose
     * path has no space, in the private directory */
    char *model_text = NULL;
    size_t model_len = 0;
    if (strchr(c->model_source, '/') || strstr(c->model_source, ".model")) {
        gq_err e = gq_read_file(c->model_source, (size_t)64 << 20, 1, &model_text, &model_len, msg, cap);
        if (e != GQ_OK) return free(xml), free(hosts), e;
    }
    /* in $TMPDIR where its path is plain (smpirun word-splits the host file's), else /tmp */
    const char *tmp = getenv("TMPDIR");
    int plain = tmp && *tmp == '/' && strlen(tmp) < 160;
    for (const char *s = tmp; plain && *s; s++) plain = isalnum((unsigned char)*s) || strchr("/._-", *s);
    char dir[200], plat[240], hostfile[240], model[240];
    snprintf(dir, sizeof dir, "%s/gqsim-smpi-XXXXXX", plain ? tmp : "/tmp");
    /* the directory is smpirun's TMPDIR too: what it and SMPI make there (the program's privatised copies, one a
     * rank, gqsim-smpi_PID_N.so) goes with it, however the run ends, even at the moment it is made */
    const int made = gq_run_private_dir(dir) == 0;
    snprintf(plat, sizeof plat, "%s/platform.xml", dir);
    snprintf(hostfile, sizeof hostfile, "%s/hosts", dir);
    snprintf(model, sizeof model, "%s/model.model", dir);
    const int written = made && write_file(plat, xml) == 0 && write_file(hostfile, hosts) == 0 &&
                        (!model_text || write_file(model, model_text) == 0);
    const int model_copied = model_text != NULL;
    free(xml), free(hosts), free(model_text);
    if (!written) {
        int err = errno;
        gq_run_cleanup_done();
        return gq_fail(GQ_ERR_IO, msg, cap, "cannot write the SMPI run's files: %s", strerror(err));
    }

    char np[16], net[SIM_SG_NET_CFGS][64], a[7 + RUN_PARAMS_MAX][320];
    snprintf(np, sizeof np, "%d", c->gpus);
    sim_simgrid_net_cfg(c, p, net);
    char quant[256];
    qz_format_spec(&c->quant, quant, sizeof quant);
    int k = 0;
    snprintf(a[k++], sizeof a[0], "model=%s", model_copied ? model : c->model_source);
    snprintf(a[k++], sizeof a[0], "quant=%s", quant);
    snprintf(a[k++], sizeof a[0], "iterations=%d", c->run.iterations > 3 ? c->run.iterations : 3);
    snprintf(a[k++], sizeof a[0], "compute_s=%.17g", p->compute_s);
    snprintf(a[k++], sizeof a[0], "encode_ns=%.17g", c->encode_ns);
    snprintf(a[k++], sizeof a[0], "encode_fixed_ns=%.17g", c->encode_fixed_ns);
    snprintf(a[k++], sizeof a[0], "decode_ns=%.17g", c->decode_ns);
    snprintf(a[k++], sizeof a[0], "decode_fixed_ns=%.17g", c->decode_fixed_ns);
    sim_request run; /* the run parameters gqsim-smpi takes, from where the configuration keeps them */
    memset(&run, 0, sizeof run);
    run.run.sync = c->run.sync, run.run.exchange = c->run.exchange;
    for (size_t i = 0; i < RUN_PARAM_COUNT; i++) {
        if (!(RUN_PARAMS[i].scope & RP_SMPI)) continue;
        char v[RUN_PARAM_TEXT_MAX];
        run_param_format(&RUN_PARAMS[i], &run, v, sizeof v);
        snprintf(a[k++], sizeof a[0], "%s=%s", RUN_PARAMS[i].key, v);
    }
    char tmpdir[216];
    snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", dir);
    char *argv[22 + 7 + RUN_PARAMS_MAX] = {
        "env", tmpdir, "smpirun", "-np", np, "-platform", plat, "-hostfile", hostfile,
        /* nothing is run for its time: every computation is charged by the program */
        "--cfg=smpi/simulate-computation:no", net[0], net[2], net[3], net[4], net[1], "--log=root.thres:error",
        "--log=smpi.thres:error",
        /* the trainer's one collective, TernGrad's scaler maxima (a few floats), as Open MPI runs an all-reduce of
         * small messages and the other engines charge it: recursive doubling (sim_rd_rounds) */
        "--cfg=smpi/allreduce:rdb",
        /* the ranks' shared block (gqsim-smpi's buffers where sizes are exact): one
         * 16 MiB file folded over each, 16 mappings a rank for AlexNet's largest
         * buffer where 1 MiB blocks made thousands (vm.max_map_count is 65530) */
        "--cfg=smpi/shared-malloc:global", "--cfg=smpi/shared-malloc-blocksize:16777216", prog};
    int n = 21;
    for (int i = 0; i < k; i++) argv[n++] = a[i];
    argv[n] = NULL;

    char text[4096], log[1024];
    const int status = gq_run((const char *const *)argv, NULL, text, sizeof text, log, sizeof log);
    gq_run_cleanup_done();
    const char *line = strstr(text, "gqsim-smpi iteration_s=");
    double it = line ? strtod(line + strlen("gqsim-smpi iteration_s="), NULL) : NAN;
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !(it >= p->compute_s * (1 - 1e-9))) {
        char *nl = strchr(log, '\n');
        if (nl) *nl = '\0';
        if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) /* env found no smpirun */
            return gq_fail(GQ_ERR_IO, msg, cap, "cannot start smpirun (libsimgrid-dev)");
        return gq_fail(GQ_ERR_IO, msg, cap, "the SMPI run failed: %s", log[0] ? log : "no result");
    }
    r->iteration_s = it;
    r->comm_exposed_s = it > p->compute_s ? it - p->compute_s : 0;
    r->comm_s = r->comm_exposed_s; /* the trainer exchanges after backward: nothing of it is hidden */
    r->encode_s = r->decode_s = 0;
    for (int b = 0; b < p->n; b++) r->encode_s += p->b[b].enc_s, r->decode_s += p->b[b].dec_down_s;
    return GQ_OK;
}
