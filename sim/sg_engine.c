/* The SimGrid engine. One actor per GPU (and one per parameter server where
 * there is one) walks the plan's buckets: it waits until a bucket is ready,
 * spends the encode time, moves the real encoded byte counts through the
 * platform's links with SimGrid's flow model, spends the decode time. Compute
 * is the plan's timeline (every GPU is identical), so actors only sleep
 * through it. Flows are aggregated where the aggregate is exact on a uniform
 * fabric: a ring is one flow per hop carrying all its steps, with the other
 * steps' latencies added; the sharded exchange between node leaders is one
 * flow per node carrying what that node sends to all other shards, which
 * loads every NIC exactly as the full all-to-all does on a non-blocking
 * switch. SimGrid runs in a forked child: its engine initialises once per
 * process, and an XML error there exits the child, not gqsim. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/config.h>

#include "sim_internal.h"

/* ---- the world of one run, which every actor reaches through its data ------------------ */

typedef struct {
    const sim_config *c;
    const sim_plan *plan;
    int P, G, N, iters; /* GPUs, GPUs per node, nodes, iterations */
    double *end;        /* per worker: end of its last iteration */
    int token;          /* the payload pointed to: only the byte count is simulated */
} sg_world;

typedef struct {
    sg_world *w;
    int rank;
} sg_actor_ctx;

static sg_mailbox_t mbox(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static sg_mailbox_t mbox(const char *fmt, ...)
{
    char name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return sg_mailbox_by_name(name);
}

static void sleep_s(double s)
{
    if (s > 0) sg_actor_sleep_for(s);
}
static void sleep_until(double t) { sleep_s(t - simgrid_get_clock()); }
static long bytes_of(double b) { return b < 1 ? 1 : (long)(b + 0.5); }

static void send_recv(sg_world *w, sg_mailbox_t to, double nbytes, sg_mailbox_t from)
{
    sg_comm_t c[2];
    c[0] = sg_mailbox_put_async(to, &w->token, bytes_of(nbytes));
    void *data;
    c[1] = sg_mailbox_get_async(from, &data);
    sg_comm_wait_all(c, 2);
}

/* A ring of `members` (indices via rank_of) moving `total` bytes around:
 * one flow per hop, the other (steps - 1) latencies added. */
static void ring_exchange(sg_world *w, const char *tag, int pos, int members, double total, double hop_latency,
                          double steps)
{
    send_recv(w, mbox("%s%d", tag, (pos + 1) % members), total, mbox("%s%d", tag, pos));
    sleep_s((steps - 1) * hop_latency);
}

/* The same ring, step by step: each step sends one chunk to the successor
 * and waits for the predecessor's. */
static void ring_steps(sg_world *w, const char *tag, int pos, int members, double chunk, double steps,
                       double work_per_step)
{
    for (int k = 0; k < (int)steps; k++) {
        send_recv(w, mbox("%s%d", tag, (pos + 1) % members), chunk, mbox("%s%d", tag, pos));
        sleep_s(work_per_step);
    }
}

/* ---- schemes, one bucket ------------------------------------------------------------------ */

static void ps_worker(sg_world *w, int r, const sim_bucket *b)
{
    sleep_s(b->enc_s);
    sg_mailbox_put(mbox("pu%d", r), &w->token, bytes_of(b->up_bytes));
    sg_mailbox_get(mbox("pd%d", r));
    sleep_s(b->dec_down_s);
}

static void ps_server(int argc, char **argv)
{
    (void)argc, (void)argv;
    sg_world *w = ((sg_actor_ctx *)sg_actor_self_get_data())->w;
    sg_comm_t *c = malloc((size_t)w->P * sizeof *c);
    void *data;
    for (int it = 0; it < w->iters; it++)
        for (int k = 0; k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            for (int r = 0; r < w->P; r++) c[r] = sg_mailbox_get_async(mbox("pu%d", r), &data);
            sg_comm_wait_all(c, (size_t)w->P);
            sleep_s(w->P * b->dec_s + b->enc_down_s);
            for (int r = 0; r < w->P; r++)
                c[r] = sg_mailbox_put_async(mbox("pd%d", r), &w->token, bytes_of(b->down_bytes));
            sg_comm_wait_all(c, (size_t)w->P);
        }
    free(c);
}

/* Node-local reduce to the leader (local rank 0) and broadcast back, around
 * `inter` (what the leaders do among themselves). */
static void node_reduce_bcast(sg_world *w, int r, const sim_bucket *b,
                              void (*inter)(sg_world *w, int node, const sim_bucket *b))
{
    int node = r / w->G, local = r % w->G, here = node + 1 < w->N ? w->G : w->P - node * w->G;
    if (local != 0) {
        sleep_s(b->enc_s);
        sg_mailbox_put(mbox("lu%d", r), &w->token, bytes_of(b->up_bytes));
        sg_mailbox_get(mbox("ld%d", r));
        sleep_s(b->dec_down_s);
        return;
    }
    sg_comm_t *c = malloc((size_t)here * sizeof *c); /* up to gpus-per-node - 1 transfers at once */
    void *data;
    if (!c) abort(); /* the child dies and the parent reports a failed run */
    if (here > 1) {
        sleep_s(b->enc_s);
        for (int l = 1; l < here; l++) c[l - 1] = sg_mailbox_get_async(mbox("lu%d", r + l), &data);
        sg_comm_wait_all(c, (size_t)here - 1);
        sleep_s((here - 1) * b->dec_s);
    }
    if (w->N > 1) inter(w, node, b);
    if (here > 1) {
        sleep_s(b->enc_down_s);
        for (int l = 1; l < here; l++)
            c[l - 1] = sg_mailbox_put_async(mbox("ld%d", r + l), &w->token, bytes_of(b->down_bytes));
        sg_comm_wait_all(c, (size_t)here - 1);
    }
    free(c);
}

static void leaders_ring(sg_world *w, int node, const sim_bucket *b)
{
    double steps = 2.0 * (w->N - 1);
    if (w->c->exact_flows) {
        ring_steps(w, "hr", node, w->N, b->up_bytes / w->N, steps, (b->enc_s + b->dec_s) / w->N);
        return;
    }
    ring_exchange(w, "hr", node, w->N, steps / w->N * b->up_bytes, w->plan->a_inter, steps);
    sleep_s(steps * (b->enc_s + b->dec_s) / w->N);
}

/* Every leader sends `bytes` to every other leader and receives as much. */
static void all_to_all(sg_world *w, const char *tag, int node, double nbytes)
{
    sg_comm_t *c = malloc(2 * (size_t)w->N * sizeof *c);
    void *data;
    int k = 0;
    for (int o = 0; o < w->N; o++)
        if (o != node) c[k++] = sg_mailbox_put_async(mbox("%s%d", tag, o), &w->token, bytes_of(nbytes));
    for (int o = 0; o < w->N; o++)
        if (o != node) c[k++] = sg_mailbox_get_async(mbox("%s%d", tag, node), &data);
    sg_comm_wait_all(c, (size_t)k);
    free(c);
}

static void leaders_shards(sg_world *w, int node, const sim_bucket *b)
{
    /* every leader is one shard: it sends the other shards (N-1)/N of its node's
     * contribution, they reduce, and send back (N-1)/N of the reply */
    double share = (double)(w->N - 1) / w->N;
    if (w->c->exact_flows) {
        all_to_all(w, "su", node, b->up_bytes / w->N);
        sleep_s(b->dec_s + b->enc_down_s / w->N);
        all_to_all(w, "sd", node, b->down_bytes / w->N);
        return;
    }
    send_recv(w, mbox("su%d", (node + 1) % w->N), share * b->up_bytes, mbox("su%d", node));
    sleep_s(b->dec_s + b->enc_down_s / w->N);
    send_recv(w, mbox("sd%d", (node + 1) % w->N), share * b->down_bytes, mbox("sd%d", node));
}

static void worker(int argc, char **argv)
{
    (void)argc, (void)argv;
    const sg_actor_ctx *me = sg_actor_self_get_data();
    sg_world *w = me->w;
    const int r = me->rank;
    const double multi = w->N > 1, a_hop = multi ? w->plan->a_inter : w->plan->a_intra;
    for (int it = 0; it < w->iters; it++) {
        double t0 = simgrid_get_clock();
        for (int k = 0; w->P > 1 && k < w->plan->n; k++) {
            const sim_bucket *b = &w->plan->b[k];
            sleep_until(t0 + b->ready_s);
            switch (w->c->sync) {
            case SYNC_PS: ps_worker(w, r, b); break;
            case SYNC_PS_SHARDED: node_reduce_bcast(w, r, b, leaders_shards); break;
            case SYNC_HIERARCHICAL: node_reduce_bcast(w, r, b, leaders_ring); break;
            case SYNC_RING: {
                double steps = 2.0 * (w->P - 1);
                if (w->c->exact_flows) {
                    ring_steps(w, "rg", r, w->P, b->up_bytes / w->P, steps, (b->enc_s + b->dec_s) / w->P);
                    break;
                }
                ring_exchange(w, "rg", r, w->P, steps / w->P * b->up_bytes, a_hop, steps);
                sleep_s(steps * (b->enc_s + b->dec_s) / w->P);
                break;
            }
            case SYNC_ALLGATHER:
                sleep_s(b->enc_s);
                if (w->c->exact_flows) {
                    ring_steps(w, "ag", r, w->P, b->up_bytes, w->P - 1, b->dec_s);
                    break;
                }
                ring_exchange(w, "ag", r, w->P, (w->P - 1) * b->up_bytes, a_hop, w->P - 1);
                sleep_s((w->P - 1) * b->dec_s);
                break;
            }
        }
        sleep_until(t0 + w->plan->compute_s);
    }
    w->end[r] = simgrid_get_clock();
}

/* ---- the child ------------------------------------------------------------------------- */

static int child(const sim_config *c, const sim_plan *p, const char *xml_path, int fd)
{
    sg_world w = {c, p, c->gpus, p->per_node, p->nodes, c->iterations > 0 ? c->iterations : 1, NULL, 0};
    w.end = calloc((size_t)w.P, sizeof *w.end);
    sg_actor_ctx *ctx = calloc((size_t)w.P + 1, sizeof *ctx);
    if (!w.end || !ctx) return 1;
    char model[64], gamma[64];
    const char *nm = c->network_model ? c->network_model : p->tcp ? "LV08" : "CM02";
    snprintf(model, sizeof model, "--cfg=network/model:%s", nm);
    /* the TCP window must not throttle fast links: gamma >= 4 x bandwidth x RTT */
    double rtt = 2 * p->a_inter, need = 4 * cluster_nic_bandwidth(c->cluster) * rtt;
    snprintf(gamma, sizeof gamma, "--cfg=network/TCP-gamma:%.0f", need > 4194304 ? need : 4194304);
    char *argv[] = {"gqsim", model, gamma, "--cfg=contexts/stack-size:256",
                    /* a platform may be wrong: SimGrid says why at ERROR (parse) or CRITICAL (exceptions) */
                    "--log=root.thres:error",
                    strcmp(nm, "CM02") == 0 ? "--cfg=network/crosstraffic:0" : "--cfg=network/crosstraffic:1", NULL};
    int argc = 6;
    simgrid_init(&argc, argv);
    simgrid_load_platform(xml_path);
    for (int r = 0; r <= w.P; r++) { /* the workers, then the server where there is one */
        if (r == w.P && !(c->sync == SYNC_PS && w.P > 1)) break;
        char host[32];
        snprintf(host, sizeof host, "n%dg%d", r == w.P ? 0 : r / w.G, r == w.P ? 0 : r % w.G);
        ctx[r] = (sg_actor_ctx){&w, r};
        sg_actor_t a = sg_actor_init(r == w.P ? "ps" : "worker", sg_host_by_name(host));
        sg_actor_set_data(a, &ctx[r]);
        sg_actor_start(a, r == w.P ? ps_server : worker, 0, NULL);
    }
    simgrid_run();
    double end = 0;
    for (int r = 0; r < w.P; r++) end = w.end[r] > end ? w.end[r] : end;
    double per_iter = end / w.iters;
    free(w.end);
    free(ctx);
    ssize_t n = write(fd, &per_iter, sizeof per_iter);
    return n == (ssize_t)sizeof per_iter ? 0 : 1;
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

/* A file that has no name: the generated platform and SimGrid's log are
 * unlinked at once, so nothing stays in /tmp whatever happens to gqsim. */
static int anonymous_file(void)
{
    char path[] = "/tmp/gqsim-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    return fd;
}

gq_err sim_simgrid(const sim_config *c, const sim_plan *p, sim_result *r, char *msg, size_t cap)
{
    const int user_xml = c->cluster->xml_path[0] != '\0';
    if (user_xml && p->nodes > c->cluster->nodes)
        return snprintf(msg, cap, "%s has %d nodes of %d GPUs: not enough for %d GPUs", c->cluster->xml_path,
                        c->cluster->nodes, c->cluster->gpus_per_node, c->gpus),
               GQ_ERR_PARAM;
    if (c->gpus > SIM_SIMGRID_MAX_GPUS)
        return snprintf(msg, cap,
                        "%d GPUs are beyond the SimGrid engine's %d (it would need about %.0f s and %.0f MB): use "
                        "--engine analytic",
                        c->gpus, SIM_SIMGRID_MAX_GPUS, sim_simgrid_cost_s(c->gpus, c->iterations),
                        sim_simgrid_cost_mb(c->gpus)),
               GQ_ERR_PARAM;
    char platform[4096];
    int xmlfd = -1;
    if (user_xml) {
        snprintf(platform, sizeof platform, "%s", c->cluster->xml_path);
    } else {
        xmlfd = anonymous_file();
        char *xml = xmlfd >= 0 ? cluster_xml(c->cluster, cluster_nodes_built(c->cluster, c->gpus)) : NULL;
        size_t len = xml ? strlen(xml) : 0;
        int ok = xml && write(xmlfd, xml, len) == (ssize_t)len;
        free(xml);
        if (!ok) {
            if (xmlfd >= 0) close(xmlfd);
            return snprintf(msg, cap, "cannot write the platform file: %s", strerror(errno)), GQ_ERR_IO;
        }
        snprintf(platform, sizeof platform, "/proc/self/fd/%d", xmlfd); /* inherited by the child */
    }
    int errfd = anonymous_file(), pipefd[2];
    if (pipe(pipefd) != 0) {
        if (xmlfd >= 0) close(xmlfd);
        if (errfd >= 0) close(errfd);
        return snprintf(msg, cap, "pipe: %s", strerror(errno)), GQ_ERR_IO;
    }
    fflush(NULL);
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* gqsim killed or interrupted: the run goes with it */
        if (getppid() != parent) _exit(1);
        close(pipefd[0]);
        if (errfd >= 0) dup2(errfd, STDERR_FILENO);
        _exit(child(c, p, platform, pipefd[1]));
    }
    close(pipefd[1]);
    double per_iter = -1;
    ssize_t got = -1;
    if (pid > 0) do
            got = read(pipefd[0], &per_iter, sizeof per_iter);
        while (got < 0 && errno == EINTR);
    close(pipefd[0]);
    int status = 0;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    if (xmlfd >= 0) close(xmlfd);
    char why[300] = "";
    if (errfd >= 0) {
        simgrid_reason(errfd, why, sizeof why);
        close(errfd);
    }
    if (pid < 0 || got != (ssize_t)sizeof per_iter || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const char *where = user_xml ? platform : "the generated platform";
        if (why[0]) return snprintf(msg, cap, "SimGrid rejected %s: %s", where, why), GQ_ERR_SPEC;
        return snprintf(msg, cap, "the SimGrid run on %s failed (%s)", where,
                        pid < 0               ? strerror(errno)
                        : WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
                                              : "no result"),
               GQ_ERR_IO;
    }
    if (!(per_iter >= p->compute_s * (1 - 1e-9)) || !isfinite(per_iter)) /* e.g. actors that never finished */
        return snprintf(msg, cap, "the SimGrid run on %s ended without a valid iteration time (%g s)",
                        user_xml ? platform : "the generated platform", per_iter),
               GQ_ERR_IO;
    r->iteration_s = per_iter;
    r->comm_exposed_s = per_iter - p->compute_s;
    if (r->comm_exposed_s < 0) r->comm_exposed_s = 0;
    r->encode_s = r->decode_s = 0;
    for (int k = 0; c->gpus > 1 && k < p->n; k++) r->encode_s += p->b[k].enc_s, r->decode_s += p->b[k].dec_down_s;
    return GQ_OK;
}

/* Measured on a 2-core machine (docs/performance.md#simulation-cost), one
 * iteration of AlexNet: 4096 GPUs 2.4 s and 107 MB, 8192 GPUs 8.9 s and 245
 * MB, 16384 GPUs 49 s and 672 MB; time grows as about N^2.2, memory as N^1.35. */
double sim_simgrid_cost_s(int gpus, int iterations)
{
    return 49.0 * pow(gpus / 16384.0, 2.2) * (iterations > 1 ? iterations : 1);
}
double sim_simgrid_cost_mb(int gpus) { return 672.0 * pow(gpus / 16384.0, 1.35); }
