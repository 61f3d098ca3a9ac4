/* The SimGrid engine, the parent's side: it writes the platform, forks, and
 * runs the engine's module (sg_child.c, built as
 * gqsim-simgrid.so beside gqsim; GQSIM_SIMGRID_ENGINE overrides the path),
 * which runs the actors; the result comes back through a pipe, SimGrid's
 * complaint through its log. SimGrid runs in a forked child: its engine
 * initialises once per process, and an XML error there exits the child, not
 * gqsim. The module (and SimGrid and ns-3 with it) is loaded the first time
 * this engine runs, in the parent, so that every child inherits it; a
 * command that never runs it never pays for it. */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gq_file.h"
#include "sim_internal.h"

typedef int (*child_fn)(const sim_config *c, const sim_plan *p, const char *xml_path, node_actors mode, int hub,
                        char cfg[SIM_SG_NET_CFGS][64], int fd);

/* The module's entry, loaded once per process, in the parent before the first fork: every run's child
 * inherits it (loading SimGrid and ns-3 takes about 25 ms, 240 times in a report). NULL with the reason in
 * why when it cannot be loaded. */
static child_fn engine_module(char *why, size_t cap)
{
    static child_fn run;
    if (run) return run;
    char path[4096];
    if (gq_beside_self("GQSIM_SIMGRID_ENGINE", "gqsim-simgrid.so", path, sizeof path) != 0)
        return snprintf(why, cap, "cannot load the SimGrid engine: this program's path is unknown"), NULL;
    void *module = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    run = module ? (child_fn)(uintptr_t)dlsym(module, "gq_simgrid_child") : NULL;
    if (!run) snprintf(why, cap, "cannot load the SimGrid engine: %s", dlerror());
    return run;
}

/* SimGrid's reason for a failed run, from its log: a parse error, or the
 * message of the exception that ended it ("Link not found: x",
 * "No route from 'node0' to 'node1'"). */
static void simgrid_reason(int fd, char *why, size_t cap)
{
    char log[8192];
    ssize_t n = pread(fd, log, sizeof log - 1, 0);
    log[n > 0 ? n : 0] = '\0';
    why[0] = '\0';
    for (char *save = NULL, *line = strtok_r(log, "\n", &save); line && !why[0]; line = strtok_r(NULL, "\n", &save)) {
        char *e = strstr(line, "Parse error");
        if (!e && (e = strstr(line, "Uncaught exception ")) != NULL) {
            e += strlen("Uncaught exception ");
            char *colon = strstr(e, ": "); /* after the exception's type */
            if (colon) e = colon + 2;
        }
        if (!e && (e = strstr(line, "/CRITICAL] ")) != NULL) e += strlen("/CRITICAL] ");
        if (e) snprintf(why, cap, "%s", e);
    }
}

/* Whether the engine lets one actor stand for a node's GPUs other than the first (see sim_simgrid); for a node with
 * an inside, q (if not NULL) gets the stand-in node's links. */
static int grouping(const cluster_spec *cl, sync_kind sync, int gpus, node_grouped *q)
{
    int per_node = gpus < cl->gpus_per_node ? gpus : cl->gpus_per_node;
    if (!(cl->xml_path[0] == '\0' && sync_is(sync, SCHEME_ALIKE_FOLLOWERS) && per_node > 2 && cl->topo == TOPO_STAR))
        return 0; /* a single server's flows, and ps-flat's, meet on other nodes' links; a tree's chain is no run of
                     alike hops: every GPU an actor */
    if (cluster_uniform_node(cl)) return 1;
    /* a node with an inside: its followers only meet the leader (the leaders' schemes), every node is full, and one
     * link moves their sum in the time the fan-in takes (node_fan_in) */
    node_grouped g;
    if (!(sync_is(sync, SCHEME_NODE_LEADERS) && gpus % cl->gpus_per_node == 0 &&
          node_fan_in(cl, &g.group_bw, &g.group_lat) == 0))
        return 0;
    node_route r; /* the leader's route to the NICs */
    node_route_between(cl, 0, NODE_GATEWAY, &r);
    node_route_cost(cl, &r, &g.lead_lat, &g.lead_bw);
    if (q) *q = g;
    return 1;
}

/* How the engine draws the nodes' other GPUs for this run (see sim_simgrid); q as for grouping. */
static node_actors actors_mode(const cluster_spec *cl, sync_kind sync, int gpus, int on_cpu, node_grouped *q)
{
    if (on_cpu || !grouping(cl, sync, gpus, q)) return NODE_PER_GPU;
    return sync_is(sync, SCHEME_NODE_LEADERS) ? NODE_FOLDED : NODE_GROUPED;
}

/* Worker actors for `gpus` GPUs. */
static int actors_for(const cluster_spec *cl, int gpus, node_actors mode)
{
    const int nodes = cluster_nodes_for(cl, gpus);
    int actors = 0;
    for (int node = 0; node < nodes; node++) {
        int here = node + 1 < nodes ? cl->gpus_per_node : gpus - node * cl->gpus_per_node;
        actors += 1 + node_followers(here, mode);
    }
    return actors;
}

gq_err sim_simgrid_check(const sim_config *c, const sim_plan *p, char *msg, size_t cap)
{
    const int user_xml = c->cluster->xml_path[0] != '\0';
    if (user_xml && p->nodes > c->cluster->nodes)
        return gq_fail(GQ_ERR_PARAM, msg, cap, "%s has %d nodes of %d GPUs: not enough for %d GPUs",
                       c->cluster->xml_path, c->cluster->nodes, c->cluster->gpus_per_node, c->gpus);
    if (user_xml && p->nodes + p->cpu_machines > c->cluster->nodes)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "%s has %d nodes: not enough for %d GPUs on %d and %d server machines after them",
                       c->cluster->xml_path, c->cluster->nodes, c->gpus, p->nodes, p->cpu_machines);
    /* On a generated platform every node is alike, so a node's GPUs other
     * than the first act alike too: one actor (and in the platform one host)
     * stands for them, moving their summed bytes. Exact for the leader
     * exchanges (their flows share the leader's link) and for rings (their
     * hops use disjoint links and carry the same bytes); not for a single
     * parameter server, whose GPUs' flows meet on node 0's links. A node with
     * an inside (a PCIe tree, a cube-mesh) is drawn, for the leaders' schemes
     * only, as its first GPU's route to the NICs and one link that moves the
     * others' sum to it in the time their fan-in takes under max-min sharing.
     * A user's XML may differ per GPU: one actor per GPU there. On a
     * fat-tree, rings under LV08 came out up to 1.2% apart grouped and not
     * (CM02: identical; stars: identical in all 480 cases compared), so
     * fat-trees keep one actor per GPU until that is understood. With servers
     * on the host CPUs every GPU talks to its host: none stands for another.
     * Where the stand-in only meets its leader, which waits for it anyway
     * (ps-sharded, hierarchical), it needs no actor: the leader moves its
     * flows from its host and keeps its clock (sg_child.c), one actor a node. */
    const int on_cpu = c->run.ps_on_cpu && sync_is(c->run.sync, SCHEME_NODE_SERVERS);
    node_grouped stand_in = {0, 0, 0, 0};
    const node_actors mode = actors_mode(c->cluster, c->run.sync, c->gpus, on_cpu, &stand_in);
    const int grouped = mode != NODE_PER_GPU;
    const int actors = on_cpu ? c->gpus + p->nodes + p->cpu_machines : actors_for(c->cluster, c->gpus, mode);
    if (actors > SIM_SIMGRID_MAX_ACTORS)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "%d GPUs need %d SimGrid actors (%s), beyond the SimGrid engine's %d (it would need about %.0f "
                       "s and %.0f MB): use --engine analytic",
                       c->gpus, actors,
                       mode == NODE_FOLDED ? "one per node"
                       : grouped           ? "two per node"
                                           : "one per GPU",
                       SIM_SIMGRID_MAX_ACTORS,
                       sim_simgrid_cost_s(c->cluster, c->run.sync, c->gpus, c->run.iterations, p->n),
                       sim_simgrid_cost_mb(c->cluster, c->run.sync, c->gpus));
    if (c->run.sync == SYNC_PS_FLAT && c->gpus > SIM_SIMGRID_MAX_FLAT_GPUS)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "ps-flat on %d GPUs is %d flows a bucket each way (every GPU to every other): the SimGrid "
                       "engine takes it up to %d GPUs; use --engine analytic",
                       c->gpus, c->gpus * (c->gpus - 1), SIM_SIMGRID_MAX_FLAT_GPUS);
    if (user_xml && c->cluster->xml_hosts > SIM_SIMGRID_MAX_XML_HOSTS)
        return gq_fail(GQ_ERR_PARAM, msg, cap,
                       "%s declares %.0f hosts, beyond the %d the SimGrid engine builds (SimGrid would build them all "
                       "before the run): use --engine analytic",
                       c->cluster->xml_path, c->cluster->xml_hosts, SIM_SIMGRID_MAX_XML_HOSTS);
    return GQ_OK;
}

gq_err sim_simgrid(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap)
{
    gq_err refused = sim_simgrid_check(c, p, msg, cap);
    if (refused != GQ_OK) return refused;
    const int user_xml = c->cluster->xml_path[0] != '\0';
    const int on_cpu = c->run.ps_on_cpu && sync_is(c->run.sync, SCHEME_NODE_SERVERS);
    node_grouped stand_in = {0, 0, 0, 0};
    const node_actors mode =
        actors_mode(c->cluster, c->run.sync, c->gpus, on_cpu, &stand_in); /* as the check drew it */
    const int grouped = mode != NODE_PER_GPU;
    char platform[4096];
    int xmlfd = -1;
    /* the placed servers' flows through a hub, on a generated star: where a fat tree's uplinks are shared, which
     * pairs cross them matters (sg_servers.c's placed_phase) */
    const int hub = !user_xml && p->servers && c->run.sync == SYNC_PS_SHARDED && !c->run.exact_flows &&
                    c->cluster->topo != TOPO_FAT_TREE;
    if (user_xml) {
        snprintf(platform, sizeof platform, "%s", c->cluster->xml_path);
    } else {
        xmlfd = gq_unnamed_file();
        cluster_spec reduced = *c->cluster;
        /* the nodes the GPUs use and, after them, the server machines (their GPUs unused) */
        int built = cluster_nodes_built(c->cluster, c->gpus);
        if (built < p->nodes + p->cpu_machines) built = p->nodes + p->cpu_machines;
        reduced.grouped = stand_in;
        if (grouped) reduced.gpus_per_node = 2;
        char *xml =
            xmlfd >= 0
                ? cluster_xml(&reduced, built,
                              CLUSTER_XML_RACKED | (on_cpu ? CLUSTER_XML_HOST_CPUS : 0) | (hub ? CLUSTER_XML_HUB : 0))
                : NULL;
        size_t len = xml ? strlen(xml) : 0;
        int ok = xml && write(xmlfd, xml, len) == (ssize_t)len;
        free(xml);
        if (!ok) {
            if (xmlfd >= 0) close(xmlfd);
            return gq_fail(GQ_ERR_IO, msg, cap, "cannot write the platform file: %s", strerror(errno));
        }
        snprintf(platform, sizeof platform, "/proc/self/fd/%d", xmlfd); /* inherited by the child */
    }
    char why[300] = "";
    const child_fn run = engine_module(why, sizeof why);
    if (!run) {
        if (xmlfd >= 0) close(xmlfd);
        return gq_fail(GQ_ERR_IO, msg, cap, "%s (build target gqsim_simgrid, or set GQSIM_SIMGRID_ENGINE)", why);
    }
    char cfg[SIM_SG_NET_CFGS][64];
    sim_simgrid_net_cfg(c, p, cfg);
    int errfd = gq_unnamed_file(), pipefd[2];
    if (pipe(pipefd) != 0) {
        if (xmlfd >= 0) close(xmlfd);
        if (errfd >= 0) close(errfd);
        return gq_fail(GQ_ERR_IO, msg, cap, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* gqsim killed or interrupted: the run goes with it */
        if (getppid() != parent) _exit(1);
        close(pipefd[0]);
        if (errfd >= 0) dup2(errfd, STDERR_FILENO);
        _exit(run(c, p, platform, mode, hub, cfg, pipefd[1]));
    }
    close(pipefd[1]);
    sg_child_result result = {.iteration_s = -1, .comm_s = -1, .flows = -1};
    ssize_t got = -1;
    if (pid > 0) do
            got = read(pipefd[0], &result, sizeof result);
        while (got < 0 && errno == EINTR);
    const double per_iter = result.iteration_s;
    close(pipefd[0]);
    int status = 0;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    if (xmlfd >= 0) close(xmlfd);
    if (errfd >= 0) {
        simgrid_reason(errfd, why, sizeof why);
        close(errfd);
    }
    if (pid < 0 || got != (ssize_t)sizeof result || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const char *where = user_xml ? platform : "the generated platform";
        if (why[0]) return gq_fail(GQ_ERR_SPEC, msg, cap, "SimGrid rejected %s: %s", where, why);
        return gq_fail(GQ_ERR_IO, msg, cap, "the SimGrid run on %s failed (%s)", where,
                       pid < 0               ? strerror(errno)
                       : WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
                                             : "no result");
    }
    if (!(per_iter >= p->compute_s * (1 - 1e-9)) || !isfinite(per_iter)) /* e.g. actors that never finished */
        return gq_fail(GQ_ERR_IO, msg, cap, "the SimGrid run on %s ended without a valid iteration time (%g s)",
                       user_xml ? platform : "the generated platform", per_iter);
    r->iteration_s = per_iter;
    r->comm_exposed_s = per_iter - p->compute_s;
    if (r->comm_exposed_s < 0) r->comm_exposed_s = 0;
    r->comm_s = result.comm_s;
    r->flows = result.flows;
    r->encode_s = r->decode_s = 0;
    for (int k = 0; c->gpus > 1 && k < p->n; k++)
        r->encode_s += p->b[k].enc_s + p->b[k].host_enc_s, r->decode_s += p->b[k].dec_down_s + p->b[k].host_dec_s;
    return GQ_OK;
}

/* Measured on a 2-core machine (docs/performance.md#simulation-cost), one
 * iteration of AlexNet on 4-GPU nodes, with mimalloc. One actor a node (the
 * leaders' schemes, each stand-in flow size moved once): 8192 nodes 3.9 s and
 * 236 MB, 16384 nodes 9.8 s and 462 MB, time as nodes^1.3. Two a node (rings): 4096 nodes 2.8 s and 191 MB.
 * One actor per GPU (fat-tree): 16384 GPUs 48 s and 700 MB, time as N^2.2; a
 * single parameter server five times that (243 s); nodes with an inside
 * (dgx1: a zone of 72 routes) where not grouped (rings; partly used nodes),
 * ResNet-50: 4096 GPUs 10.3 s and 102 MB, 16384 GPUs 95 s and 376 MB (those
 * three before mimalloc). */
double sim_simgrid_cost_s(const cluster_spec *cl, sync_kind sync, int gpus, int iterations, int buckets)
{
    int it = iterations > 1 ? iterations : 1;
    /* ps-flat: every GPU to every other, a flow each way a bucket: 0.08 s a bucket at 64 GPUs, as GPUs^2.6 (VGG-A,
     * AlexNet per tensor and ResNet-50 per tensor at 64 and 128 GPUs, 2-core EPYC, 2026-12-03) */
    if (sync == SYNC_PS_FLAT) return 0.08 * (buckets > 1 ? buckets : 1) * pow(gpus / 64.0, 2.6) * it;
    const node_actors mode = actors_mode(cl, sync, gpus, 0, NULL);
    const double nodes = cluster_nodes_for(cl, gpus);
    if (mode == NODE_FOLDED) return 4.0 * pow(nodes / 8192.0, 1.3) * it;
    if (mode == NODE_GROUPED) return 2.8 * pow(nodes / 4096.0, 1.2) * it;
    if (!cluster_uniform_node(cl) && sync != SYNC_PS) return 95.0 * pow(gpus / 16384.0, 1.6) * it;
    return (sync == SYNC_PS ? 243.0 : 48.0) * pow(gpus / 16384.0, 2.2) * it;
}
double sim_simgrid_cost_mb(const cluster_spec *cl, sync_kind sync, int gpus)
{
    const node_actors mode = actors_mode(cl, sync, gpus, 0, NULL);
    const double nodes = cluster_nodes_for(cl, gpus);
    if (mode == NODE_FOLDED) return 236.0 * pow(nodes / 8192.0, 0.97);
    if (mode == NODE_GROUPED) return 191.0 * pow(nodes / 4096.0, 0.95);
    if (!cluster_uniform_node(cl) && sync != SYNC_PS) return 376.0 * pow(gpus / 16384.0, 0.94);
    return 700.0 * pow(gpus / 16384.0, 1.35);
}
