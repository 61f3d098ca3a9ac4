/* Cluster specs: `cluster:key=value,...` read through one table of keys
 * (the same keys, but the size, that a user's XML gives as gqsim.*
 * properties: xml_read.c), the checks of a node's inside once every key is
 * read, and a cluster written back as a spec. */
#include "gq_number.h"
#include "gq_suggest.h"
#include "platform_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_pos_int(const char *s, int *v, int max)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < 1 || x > max) return -1;
    *v = (int)x;
    return 0;
}

static void kinds(char *buf, size_t cap, int intra)
{
    buf[0] = '\0';
    for (size_t i = 0; i < link_kind_count(intra); i++) {
        strncat(buf, i ? "|" : "", cap - strlen(buf) - 1);
        strncat(buf, link_kind_at(intra, i)->name, cap - strlen(buf) - 1);
    }
}

/* A value that names one of two choices: *out = 0 for `first`, 1 for `second`. @return 0, or -1 for neither. */
static int pick(const char *v, const char *first, const char *second, int *out)
{
    if (strcmp(v, first) != 0 && strcmp(v, second) != 0) return -1;
    *out = strcmp(v, second) == 0;
    return 0;
}

/* ---- the keys: each one's setter, 0 or -1 with the reason ---------------------------------------- */

static int set_gpus_per_node(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->gpus_per_node, 1024) ? (snprintf(why, cap, "must be 1..1024"), -1) : 0;
}
static int set_gpu(cluster_spec *c, const char *v, char *why, size_t cap)
{
    if (!*v || strlen(v) >= sizeof c->gpu) return snprintf(why, cap, "is empty or too long"), -1;
    strcpy(c->gpu, v);
    return 0;
}
static int set_link(const link_kind **l, int intra, const char *v, char *why, size_t cap)
{
    char list[256];
    kinds(list, sizeof list, intra);
    if ((*l = link_kind_find(v, intra))) return 0;
    return snprintf(why, cap, "is not %s%s", list,
                    intra ? ""
                          : ", or Ngbe (N Gb/s from 1e-06 to 1e+05, i.e. a rate between 1 kbit/s and 100 "
                            "Tbit/s: 20gbe, 0.1gbe)"),
           -1;
}
static int set_intra(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return set_link(&c->intra, 1, v, why, cap);
}
static int set_inter(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return set_link(&c->inter, 0, v, why, cap);
}
static int set_nics(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->nics, 64) ? (snprintf(why, cap, "must be 1..64"), -1) : 0;
}
static int set_topology(cluster_spec *c, const char *v, char *why, size_t cap)
{
    int t;
    if (pick(v, "star", "fat-tree", &t)) return snprintf(why, cap, "is not star or fat-tree"), -1;
    c->topo = t ? TOPO_FAT_TREE : TOPO_STAR;
    return 0;
}
static int set_oversub(cluster_spec *c, const char *v, char *why, size_t cap)
{
    if (gq_parse_real_in(v, 1, 0, 64, &c->oversub) != 0) return snprintf(why, cap, "must be 1..64"), -1;
    return 0;
}
static int set_leaf(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->leaf_nodes, 4096) ? (snprintf(why, cap, "must be 1..4096"), -1) : 0;
}
static int set_nodes(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->nodes, 65536) ? (snprintf(why, cap, "must be 1..65536"), -1) : 0;
}
static int set_board(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->board, 1024) ? (snprintf(why, cap, "must be 1..1024 (GPUs per board)"), -1) : 0;
}
static int set_pcie_switch(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->pcie_switch, 1024) ? (snprintf(why, cap, "must be 1..1024 (GPUs per PCIe switch)"), -1)
                                                   : 0;
}
static int set_sockets(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return parse_pos_int(v, &c->sockets, 8) ? (snprintf(why, cap, "must be 1..8"), -1) : 0;
}
static int set_socket_link(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return (c->socket_link = socket_link_find(v)) ? 0 : (snprintf(why, cap, "is not qpi or upi"), -1);
}
static int set_mesh(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return pick(v, "none", "cube", &c->mesh) ? (snprintf(why, cap, "is not cube or none"), -1) : 0;
}
static int set_rpc(cluster_spec *c, const char *v, char *why, size_t cap)
{
    return pick(v, "none", "grpc", &c->rpc) ? (snprintf(why, cap, "is not grpc or none"), -1) : 0;
}

/* A price, not a physical quantity: any positive finite amount in the user's currency (a cent an hour to a
 * million an hour covers every node anyone rents or amortises) */
static int set_node_hour_cost(cluster_spec *c, const char *v, char *why, size_t cap)
{
    if (gq_parse_real_in(v, 0, 1, 1e6, &c->node_hour_cost) != 0)
        return snprintf(why, cap, "must be a price above 0 and at most 1e6 (an hour of one node)"), -1;
    return 0;
}

/* Every key, in the order specs are written and listed. */
static const struct {
    const char *key;
    int in_xml; /* a user's XML gives it as a gqsim.KEY property (its size comes from its hosts: no gpus-per-node,
                   nodes) */
    int (*set)(cluster_spec *c, const char *v, char *why, size_t cap);
} KEYS[] = {
    {"gpus-per-node", 0, set_gpus_per_node},
    {"gpu", 1, set_gpu},
    {"intra", 1, set_intra},
    {"inter", 1, set_inter},
    {"nics", 1, set_nics},
    {"topology", 1, set_topology},
    {"oversub", 1, set_oversub},
    {"leaf", 1, set_leaf},
    {"nodes", 0, set_nodes},
    {"board", 1, set_board},
    {"pcie-switch", 1, set_pcie_switch},
    {"sockets", 1, set_sockets},
    {"socket-link", 1, set_socket_link},
    {"mesh", 1, set_mesh},
    {"rpc", 1, set_rpc},
    {"node-hour-cost", 1, set_node_hour_cost},
};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])
_Static_assert(NKEYS <= CLUSTER_KEYS_MAX, "CLUSTER_KEYS_MAX is too small");

int cluster_key_index(const char *k, int xml)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(KEYS[i].key, k) == 0) return xml && !KEYS[i].in_xml ? -1 : (int)i;
    return -1;
}

int cluster_set(cluster_spec *c, const char *k, const char *v, int xml, char *why, size_t cap)
{
    const int i = cluster_key_index(k, xml);
    if (i < 0) return -2;
    return KEYS[i].set(c, v, why, cap);
}

void cluster_keys_list(int xml, const char *first_prefix, const char *prefix, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NKEYS && n < cap; i++)
        if (!xml || KEYS[i].in_xml)
            n += (size_t)snprintf(out + n, cap - n, "%s%s%s", n ? ", " : "", n ? prefix : first_prefix, KEYS[i].key);
}

int cluster_finish_node(cluster_spec *c, char *why, size_t cap)
{
    const int G = c->gpus_per_node, B = c->board, S = c->pcie_switch, K = c->sockets;
    if (G % B) return snprintf(why, cap, "board=%d does not divide gpus-per-node=%d", B, G), -1;
    if (S && (S % B || S == B || G % S))
        return snprintf(why, cap,
                        "pcie-switch=%d must be a multiple of board=%d larger than it, and divide gpus-per-node=%d", S,
                        B, G),
               -1;
    if (G % K || (G / K) % (S ? S : B))
        return snprintf(why, cap, "sockets=%d must split gpus-per-node=%d into whole %s", K, G,
                        S ? "PCIe switches" : "boards"),
               -1;
    if (K == 1 && c->socket_link) return snprintf(why, cap, "socket-link= needs sockets=2 or more"), -1;
    if (K > 1 && !c->socket_link) c->socket_link = &SOCKET[S_QPI];
    if ((B > 1 || S || K > 1 || c->mesh) && G > 64)
        return snprintf(why, cap, "a node with board=, pcie-switch=, sockets= or mesh= has at most 64 GPUs"), -1;
    if (c->mesh && (G != 8 || (strcmp(c->intra->name, "nvlink1") != 0 && strcmp(c->intra->name, "nvlink2") != 0)))
        return snprintf(why, cap, "mesh=cube is the DGX-1's: gpus-per-node=8 and intra=nvlink1 or nvlink2"), -1;
    return 0;
}

gq_err cluster_parse(const char *spec, cluster_spec *c, char *msg, size_t cap)
{
    size_t sl = strlen(spec);
    if (sl > 4 && strcmp(spec + sl - 4, ".xml") == 0) return cluster_load_xml(spec, c, msg, cap);
    const char *builtin[64];
    const size_t nbuiltin = cluster_builtin_count() < 64 ? cluster_builtin_count() : 64;
    for (size_t i = 0; i < nbuiltin; i++) builtin[i] = cluster_builtin(i)->name;
    const int named = gq_match_name(spec, builtin, nbuiltin);
    if (named >= 0) {
        *c = *cluster_builtin((size_t)named);
        c->xml_path[0] = '\0';
        return GQ_OK;
    }
    if (strncmp(spec, "cluster:", 8) != 0) {
        char names[512] = "";
        const char *each[64];
        for (size_t i = 0; i < cluster_builtin_count() && i < 64; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, cluster_builtin(i)->name, sizeof names - strlen(names) - 1);
            each[i] = cluster_builtin(i)->name;
        }
        char near[96];
        return gq_fail(
            GQ_ERR_SPEC, msg, cap, "unknown platform '%s'%s (built-in: %s; or cluster:key=value,...)", spec,
            gq_did_you_mean(spec, each, cluster_builtin_count() < 64 ? cluster_builtin_count() : 64, near, sizeof near),
            names);
    }
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "cluster");
    c->nics = 1;
    c->oversub = 1;
    c->leaf_nodes = 16;
    c->board = c->sockets = 1;
    c->source = "a cluster spec";
    c->xml_path[0] = '\0';
    char buf[512];
    if (strlen(spec) >= sizeof buf) return gq_fail(GQ_ERR_SPEC, msg, cap, "platform spec too long");
    strcpy(buf, spec + 8);
    int seen[CLUSTER_KEYS_MAX] = {0};
    for (char *kv = buf, *next; kv && *kv; kv = next) {
        next = strchr(kv, ',');
        if (next) *next++ = '\0';
        char *eq = strchr(kv, '=');
        if (!eq) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: '%s' is not key=value", kv);
        *eq = '\0';
        const char *k = kv, *v = eq + 1;
        char why[300];
        const int ki = cluster_key_index(k, 0);
        if (ki >= 0 && seen[ki]++) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: key '%s' is given twice", k);
        int r = cluster_set(c, k, v, 0, why, sizeof why);
        if (r == -2) {
            char keys[256];
            cluster_keys_list(0, "", "", keys, sizeof keys);
            return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: unknown key '%s' (keys: %s)", k, keys);
        }
        if (r != 0) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: %s=%s %s", k, v, why);
    }
    if (!c->gpus_per_node || !c->gpu[0] || !c->intra || !c->inter)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: needs gpus-per-node=, gpu=, intra= and inter=");
    if (c->topo == TOPO_STAR && c->oversub != 1)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: oversub= needs topology=fat-tree");
    char why[200];
    if (cluster_finish_node(c, why, sizeof why) != 0) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: %s", why);
    return GQ_OK;
}

int cluster_nodes_for(const cluster_spec *c, int gpus) { return (gpus + c->gpus_per_node - 1) / c->gpus_per_node; }

int cluster_nodes_built(const cluster_spec *c, int gpus)
{
    int used = cluster_nodes_for(c, gpus);
    return c->nodes > used ? c->nodes : used;
}

double cluster_nic_wire_bandwidth(const cluster_spec *c) { return c->inter->bandwidth * c->nics; }
double cluster_nic_bandwidth(const cluster_spec *c)
{
    const double wire = cluster_nic_wire_bandwidth(c);
    return c->rpc_copy_rate > 0 && c->rpc_copy_rate < wire ? c->rpc_copy_rate : wire;
}

void cluster_node_keys(const cluster_spec *c, char *buf, size_t cap)
{
    int n = 0;
    buf[0] = '\0';
    if (c->board > 1) n += snprintf(buf + n, cap - n, ",board=%d", c->board);
    if (c->pcie_switch) n += snprintf(buf + n, cap - n, ",pcie-switch=%d", c->pcie_switch);
    if (c->sockets > 1) n += snprintf(buf + n, cap - n, ",sockets=%d,socket-link=%s", c->sockets, c->socket_link->name);
    if (c->mesh) snprintf(buf + n, cap - n, ",mesh=cube");
}

int cluster_format(const cluster_spec *c, char *buf, size_t cap)
{
    char nodes[32] = "", node[96], cost[48] = "";
    if (c->nodes) snprintf(nodes, sizeof nodes, ",nodes=%d", c->nodes);
    if (c->node_hour_cost > 0) {
        char v[32];
        snprintf(cost, sizeof cost, ",node-hour-cost=%s", platform_shortest(c->node_hour_cost, v));
    }
    cluster_node_keys(c, node, sizeof node);
    return snprintf(
        buf, cap, "cluster:gpus-per-node=%d,gpu=%s,intra=%s,inter=%s,nics=%d,topology=%s,oversub=%g,leaf=%d%s%s%s%s",
        c->gpus_per_node, c->gpu, c->intra->name, c->inter->name, c->nics, c->topo == TOPO_STAR ? "star" : "fat-tree",
        c->oversub, c->leaf_nodes, nodes, node, c->rpc ? ",rpc=grpc" : "", cost);
}

const char *cluster_rpc_name(int rpc) { return rpc == RPC_GRPC ? "grpc" : "none"; }
