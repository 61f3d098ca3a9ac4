/* Inside a node: its links (GPU links, boards, PCIe switches, sockets, the
 * cube-mesh), the route between two GPUs or a GPU and the NIC, a route's
 * latency and narrowest link, and the fan-in of a node's GPUs to its NIC:
 * the physics the simulator's engines use. */
#include "platform_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cluster_uniform_node(const cluster_spec *c)
{
    return c->board <= 1 && !c->pcie_switch && c->sockets <= 1 && !c->mesh;
}

/* The DGX-1's hybrid cube-mesh: two fully joined quads, GPU i joined to i + 4; NVLinks a pair on the P100
 * (nvlink1, 4 a GPU) and on the V100 (nvlink2, 6 a GPU, some pairs doubled; NVIDIA/nccl#671's dump). */
static const struct {
    int a, b, p100, v100;
} MESH[] = {{0, 1, 1, 1}, {0, 2, 1, 1}, {0, 3, 1, 2}, {0, 4, 1, 2}, {1, 2, 1, 2}, {1, 3, 1, 1},
            {1, 5, 1, 2}, {2, 3, 1, 2}, {2, 6, 1, 1}, {3, 7, 1, 1}, {4, 5, 1, 1}, {4, 6, 1, 1},
            {4, 7, 1, 2}, {5, 6, 1, 2}, {5, 7, 1, 1}, {6, 7, 1, 2}};
enum { MESH_PAIRS = sizeof MESH / sizeof MESH[0] };

/* Link numbering: GPUs' own, boards', switches', sockets', mesh's. */
static int nboards(const cluster_spec *c) { return c->board > 1 ? c->gpus_per_node / c->board : 0; }
static int nswitches(const cluster_spec *c) { return c->pcie_switch ? c->gpus_per_node / c->pcie_switch : 0; }
static int nsockets(const cluster_spec *c) { return c->sockets > 1 ? c->sockets : 1; }
static int board_link(const cluster_spec *c, int g) { return c->gpus_per_node + g / c->board; }
static int switch_link(const cluster_spec *c, int g) { return c->gpus_per_node + nboards(c) + g / c->pcie_switch; }
static int socket_of(const cluster_spec *c, int g) { return g / (c->gpus_per_node / nsockets(c)); }
static int socket_link(const cluster_spec *c, int s) { return c->gpus_per_node + nboards(c) + nswitches(c) + s - 1; }
static int mesh_link(const cluster_spec *c, int pair)
{
    return c->gpus_per_node + nboards(c) + nswitches(c) + nsockets(c) - 1 + pair;
}

int node_link_count(const cluster_spec *c) { return mesh_link(c, c->mesh ? MESH_PAIRS : 0); }

node_link node_link_at(const cluster_spec *c, int i)
{
    node_link l = {0, 0, "", "", ""};
    const int G = c->gpus_per_node, nb = nboards(c), ns = nswitches(c), nk = nsockets(c) - 1;
    /* a mesh's GPUs reach the rest of the node over their PCIe x16; the tree's links are x16 of the intra kind */
    const link_kind *tree = c->mesh ? &INTRA[L_PCIE3] : c->intra;
    if (i < G) {
        l = (node_link){tree->bandwidth, tree->latency, "", tree->name, "the GPU's own x16"};
        snprintf(l.name, sizeof l.name, "g%d", i);
    } else if ((i -= G) < nb) {
        l = (node_link){tree->bandwidth, 0, "", tree->name, "a board's uplink"};
        snprintf(l.name, sizeof l.name, "board%d", i);
    } else if ((i -= nb) < ns) {
        l = (node_link){tree->bandwidth, 0, "", tree->name, "a PCIe switch's uplink"};
        snprintf(l.name, sizeof l.name, "switch%d", i);
    } else if ((i -= ns) < nk) {
        l = (node_link){c->socket_link->bandwidth, c->socket_link->latency, "", c->socket_link->name,
                        c->socket_link->source};
        snprintf(l.name, sizeof l.name, "socket%d", i + 1);
    } else if ((i -= nk) < (c->mesh ? MESH_PAIRS : 0)) {
        const int v100 = strcmp(c->intra->name, "nvlink2") == 0, per_gpu = v100 ? 6 : 4;
        const int links = v100 ? MESH[i].v100 : MESH[i].p100;
        l = (node_link){links * c->intra->bandwidth / per_gpu, c->intra->latency, "", c->intra->name,
                        "NVLink (cube-mesh)"};
        snprintf(l.name, sizeof l.name, "nv%d-%d", MESH[i].a, MESH[i].b);
    }
    return l;
}

static void hop(node_route *r, int link, int up)
{
    if (r->n < NODE_MAX_HOPS) r->hop[r->n].link = link, r->hop[r->n].up = up, r->n++;
}

/* GPU g's links up to its socket's root, or (down) from there to g, stopping below the level `shared` it has in
 * common with the other end (0: none, 1: its board, 2: its PCIe switch). */
static void tree_leg(const cluster_spec *c, node_route *r, int g, int up, int shared)
{
    int links[3], n = 0;
    links[n++] = g;
    if (c->board > 1 && shared < 2) links[n++] = board_link(c, g);
    if (c->pcie_switch && shared < 1) links[n++] = switch_link(c, g);
    for (int k = 0; k < n; k++) hop(r, links[up ? k : n - 1 - k], up);
}

static int mesh_pair(int a, int b)
{
    for (int i = 0; i < MESH_PAIRS; i++)
        if ((MESH[i].a == a && MESH[i].b == b) || (MESH[i].a == b && MESH[i].b == a)) return i;
    return -1;
}

void node_route_between(const cluster_spec *c, int from, int to, node_route *r)
{
    r->n = 0;
    if (from == to) return;
    /* NVLink peers talk over their NVLink; CUDA does not forward over NVLink, so other pairs go by PCIe */
    const int pair = c->mesh && from >= 0 && to >= 0 ? mesh_pair(from, to) : -1;
    if (pair >= 0) {
        hop(r, mesh_link(c, pair), from < to);
        return;
    }
    /* on a tree: up to the lowest level the two ends share, across sockets through socket 0 */
    int shared = 0, sf = from >= 0 ? socket_of(c, from) : 0, st = to >= 0 ? socket_of(c, to) : 0;
    if (from >= 0 && to >= 0) {
        if (c->board > 1 && from / c->board == to / c->board)
            shared = 2; /* the same board: nothing above it */
        else if (c->pcie_switch && from / c->pcie_switch == to / c->pcie_switch)
            shared = 1; /* the same switch: the boards' uplinks, not the switch's */
        if (shared == 2) {
            hop(r, from, 1), hop(r, to, 0);
            return;
        }
    }
    if (from >= 0) tree_leg(c, r, from, 1, shared);
    if (sf != st && sf > 0) hop(r, socket_link(c, sf), 1);
    if (sf != st && st > 0) hop(r, socket_link(c, st), 0);
    if (to >= 0) tree_leg(c, r, to, 0, shared);
}

void node_route_cost(const cluster_spec *c, const node_route *r, double *latency, double *bandwidth)
{
    *latency = 0, *bandwidth = INFINITY;
    for (int k = 0; k < r->n; k++) {
        node_link l = node_link_at(c, r->hop[k].link);
        *latency += l.latency;
        if (l.bandwidth < *bandwidth) *bandwidth = l.bandwidth;
    }
}

/* The time, from t = 0, until the last of `nf` flows of one byte each on routes r ends, as max-min sharing of the
 * node's link directions runs them: rates by progressive filling, recomputed as flows end. */
static double max_min_makespan(const cluster_spec *c, const node_route *r, int nf)
{
    const int L = node_link_count(c);
    double *left = malloc((size_t)nf * sizeof *left), *rate = malloc((size_t)nf * sizeof *rate),
           *cap = malloc(2 * (size_t)L * sizeof *cap);
    int *count = malloc(2 * (size_t)L * sizeof *count);
    double t = -1;
    if (!left || !rate || !cap || !count) goto out;
    for (int f = 0; f < nf; f++) left[f] = 1;
    t = 0;
    for (int active = nf; active > 0;) {
        /* progressive filling: the link with the smallest fair share fixes its unfixed flows' rates */
        for (int f = 0; f < nf; f++) rate[f] = left[f] > 0 ? -1 : 0;
        for (int k = 0; k < 2 * L; k++) cap[k] = node_link_at(c, k / 2).bandwidth;
        for (;;) {
            for (int k = 0; k < 2 * L; k++) count[k] = 0;
            for (int f = 0; f < nf; f++)
                for (int h = 0; rate[f] < 0 && h < r[f].n; h++) count[2 * r[f].hop[h].link + r[f].hop[h].up]++;
            int best = -1;
            for (int k = 0; k < 2 * L; k++)
                if (count[k] && (best < 0 || cap[k] / count[k] < cap[best] / count[best])) best = k;
            if (best < 0) break;
            const double share = cap[best] / count[best];
            for (int f = 0; f < nf; f++) {
                int on = 0;
                for (int h = 0; rate[f] < 0 && h < r[f].n; h++) on |= 2 * r[f].hop[h].link + r[f].hop[h].up == best;
                if (!on) continue;
                rate[f] = share;
                for (int h = 0; h < r[f].n; h++) cap[2 * r[f].hop[h].link + r[f].hop[h].up] -= share;
            }
        }
        double dt = INFINITY;
        for (int f = 0; f < nf; f++)
            if (left[f] > 0 && rate[f] > 0) dt = fmin(dt, left[f] / rate[f]);
        if (!isfinite(dt)) break;
        t += dt;
        for (int f = 0; f < nf; f++) {
            if (!(left[f] > 0)) continue;
            left[f] -= rate[f] * dt;
            if (left[f] <= 1e-12) left[f] = 0, active--;
        }
    }
out:
    free(left), free(rate), free(cap), free(count);
    return t;
}

int node_fan_in(const cluster_spec *c, double *bandwidth, double *latency)
{
    const int F = c->gpus_per_node - 1;
    if (F < 1) return -1;
    node_route *in = malloc((size_t)F * sizeof *in), *out = malloc((size_t)F * sizeof *out);
    if (!in || !out) return free(in), free(out), -1;
    *latency = 0;
    for (int g = 1; g <= F; g++) {
        double l, b;
        node_route_between(c, g, 0, &in[g - 1]);
        node_route_between(c, 0, g, &out[g - 1]);
        node_route_cost(c, &in[g - 1], &l, &b);
        *latency = fmax(*latency, l);
    }
    const double t_in = max_min_makespan(c, in, F), t_out = max_min_makespan(c, out, F);
    free(in), free(out);
    if (!(t_in > 0) || fabs(t_out - t_in) > 1e-9 * t_in) return -1;
    *bandwidth = F / t_in;
    return 0;
}
