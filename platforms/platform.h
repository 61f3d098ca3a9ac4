/* GPU clusters: N nodes of G GPUs, GPUs joined inside a node by a PCIe switch
 * or NVLink -- or by the real tree of a PCIe machine (dual-GPU boards, PCIe
 * switches with shared uplinks, two sockets) or the DGX-1's NVLink cube-mesh
 * -- nodes joined through one NIC each (shared by the node's GPUs) by
 * Ethernet or InfiniBand on a non-blocking switch or an oversubscribed
 * fat-tree. Described by a spec in the style of quantizer specs, or by a
 * built-in name; turned into SimGrid 3.32 platform XML
 * (docs/simulation.md#platforms). Hosts are named n<NODE>g<GPU>. */
#ifndef GQ_PLATFORM_H
#define GQ_PLATFORM_H

#include <stddef.h>

#include "gq_error.h"

typedef struct {
    const char *name;
    double bandwidth; /* bytes/s, each direction */
    double latency;   /* s */
    int rdma;         /* 1: RDMA (CM02 network model), 0: TCP (LV08) */
    const char *source;
} link_kind;

/* The link kinds, by name: intra pcie3 nvlink1 nvlink2 nvswitch; inter 1gbe
 * 10gbe 25gbe 40gbe 100gbe roce25 ib-fdr ib-edr ib-hdr aries (and any Ngbe).
 * NULL if unknown. */
const link_kind *link_kind_find(const char *name, int intra);
/* Between the CPU sockets of a node: qpi, upi. NULL if unknown. */
const link_kind *socket_link_find(const char *name);
size_t link_kind_count(int intra);
const link_kind *link_kind_at(int intra, size_t i);

typedef enum { TOPO_STAR = 0, TOPO_FAT_TREE = 1 } topology;

/* For the SimGrid engine: a node drawn as its first GPU and one host standing for the others (gpus_per_node 2), the
 * first GPU's link to the node's root and the others' link to the first GPU as given (bytes/s, s). Set by the
 * engine on a copy of a spec whose node has an inside; all 0 otherwise. */
typedef struct {
    double lead_bw, lead_lat, group_bw, group_lat;
} node_grouped;

typedef struct {
    char name[64]; /* built-in name, or "cluster" */
    char gpu[48];  /* GPU model, as in data/gpus.csv */
    int gpus_per_node;
    const link_kind *intra, *inter;
    int nics; /* NICs per node (bandwidth adds up) */
    topology topo;
    double oversub;        /* fat-tree: leaf uplink = leaf NIC bandwidth / oversub */
    int leaf_nodes;        /* fat-tree: nodes per leaf switch */
    int nodes;             /* 0: follows from the number of GPUs */
    const char *source;    /* built-ins: where the description comes from */
    char xml_path[512];    /* a user's SimGrid XML (then nodes = the nodes it has) */
    double xml_hosts;      /* the hosts that XML declares (<host> and cluster radicals), which SimGrid would build */
    int half_duplex_links; /* its <link>s and <cluster>s without sharing_policy (SHARED: half-duplex) or SHARED */
    /* inside a node (docs/simulation.md#inside-a-node); board 1, pcie_switch 0, sockets 1, mesh 0 is the plain
     * layout: every GPU its own link of the intra kind to the node's one switch */
    int board;                    /* GPUs per board sharing the board's one x16 (a K80: 2) */
    int pcie_switch;              /* GPUs per PCIe switch sharing its one x16 uplink; 0: no such level */
    int sockets;                  /* CPU sockets; GPUs split evenly in order; the NICs on socket 0 */
    const link_kind *socket_link; /* between the sockets (sockets > 1) */
    int mesh;                     /* 1: the 8 GPUs joined by the DGX-1's NVLink hybrid cube-mesh, each GPU on
                                     PCIe (the tree above) towards the NICs */
    node_grouped grouped;
    /* how the parameter servers' messages travel: 0 as gqsim's flows alone, 1 as gRPC calls, each paying gRPC's
     * cost per message at both ends (docs/simulation.md#grpc) */
    int rpc;
    /* where every flow between nodes is such a message (the servers' schemes on an rpc= platform), the rate at which
     * a node's CPU copies them each way, bytes/s: its NICs' rate is the lower of theirs and this; 0: their own.
     * Set by the simulation, not by a spec. */
    double rpc_copy_rate;
    /* what one node costs an hour, in the user's currency (node-hour-cost=C, gqsim.node-hour-cost); 0: not given */
    double node_hour_cost;
} cluster_spec;

enum { RPC_NONE = 0, RPC_GRPC = 1 };
const char *cluster_rpc_name(int rpc);

/* `cluster:gpus-per-node=G,gpu=NAME,intra=...,inter=...[,nics=K][,topology=star|fat-tree]
 * [,oversub=K][,leaf=L][,nodes=N][,rpc=grpc|none][,node-hour-cost=C]` (and the node's keys), a built-in name, or a
 * user's SimGrid XML file (a path ending in .xml) following docs/simulation.md#your-own-xml: hosts named n<NODE>g<GPU>
 * and gqsim.gpu / gqsim.intra / gqsim.inter properties on its top zone. Errors name the bad part (and the file). */
gq_err cluster_parse(const char *spec, cluster_spec *c, char *msg, size_t cap);
/* The same for the text of a user's XML (`path` names it in errors): the
 * reader cluster_parse uses, apart for tests and fuzzing. */
gq_err cluster_parse_xml(const char *text, const char *path, cluster_spec *c, char *msg, size_t cap);
size_t cluster_builtin_count(void);
const cluster_spec *cluster_builtin(size_t i);

/* Nodes used by `gpus` GPUs (the last node may be partly used); the GPUs
 * take the first nodes. */
int cluster_nodes_for(const cluster_spec *c, int gpus);
/* Nodes the platform has for a run of `gpus` GPUs: the used ones, or all of
 * nodes= if the spec names more (they stay idle, as in a partly booked cluster). */
int cluster_nodes_built(const cluster_spec *c, int gpus);
/* A node's NICs' bandwidth each way, as its flows see it: the wire's (below), or where every flow between nodes is
 * an RPC message, the lower of that and its CPU's copy rate (rpc_copy_rate). */
double cluster_nic_bandwidth(const cluster_spec *c);
/* A node's NICs' bandwidth on the wire, each way (what a fat tree's uplinks are sized by). */
double cluster_nic_wire_bandwidth(const cluster_spec *c);

/* ---- inside a node ---------------------------------------------------------------------- */

/* 1 if every GPU of a node reaches the others and the NICs alike (one link each to one switch): the layout under
 * which the SimGrid engine may let one actor stand for several GPUs. */
int cluster_uniform_node(const cluster_spec *c);

/* The links of one node, numbered 0 .. node_link_count()-1: GPU g's own link is link g; then the boards'
 * uplinks, the PCIe switches' uplinks, the links from sockets 1.. to socket 0, the NVLinks of a mesh. */
typedef struct {
    double bandwidth, latency; /* bytes/s each direction, s */
    char name[24];             /* unique in the node: g3, board1, switch0, socket1, nv0-4 */
    const char *kind;          /* its link kind's name: pcie3, nvlink1, qpi, ... */
    const char *role;          /* what it joins, in words */
} node_link;
int node_link_count(const cluster_spec *c);
node_link node_link_at(const cluster_spec *c, int i);

/* A route inside one node: the links crossed in order, each up (away from a GPU towards the node's root -- or, on a
 * mesh link between GPUs a < b, from a to b) or down. NODE_GATEWAY stands for the node's root, where its NICs
 * (and its first CPU) are. Between GPUs of a tree the route climbs to their lowest common switch; on a cube-mesh
 * NVLink peers take their NVLink and other pairs the PCIe tree (CUDA does not forward over NVLink). */
enum { NODE_GATEWAY = -1, NODE_MAX_HOPS = 8 };
typedef struct {
    int n;
    struct {
        int link, up;
    } hop[NODE_MAX_HOPS];
} node_route;
void node_route_between(const cluster_spec *c, int from, int to, node_route *r);
/* The route's latency (its links' added) and bandwidth (its slowest link's). */
void node_route_cost(const cluster_spec *c, const node_route *r, double *latency, double *bandwidth);

/* A node's GPUs 1..G-1 all sending equal buffers to GPU 0 at once, as max-min sharing (SimGrid's) runs them on the
 * node's links: the bandwidth one link needs to move the G-1 buffers' sum in the time the last of them arrives,
 * and the longest of their routes' latencies; the same for GPU 0 sending to all of them. @return 0, or -1 if the
 * two directions differ (no one link stands for both) or out of memory. */
int node_fan_in(const cluster_spec *c, double *bandwidth, double *latency);

/* Writes the canonical spec (every key) to buf; returns snprintf's count. */
int cluster_format(const cluster_spec *c, char *buf, size_t cap);

/* How the XML lays out the same links: FLAT for people to read and edit
 * (Floyd routing, under which SimGrid names a missing route), RACKED for the
 * SimGrid engine (racks of nodes, routes found on demand: fast at thousands
 * of nodes, but SimGrid 3.32 crashes instead of naming a missing route). */
typedef enum { CLUSTER_XML_FLAT = 0, CLUSTER_XML_RACKED = 1 } cluster_xml_layout;
/* Or'ed into the layout: every node also has its host CPU, n<NODE>cpu, at its root beside the NICs (joined to it by
 * a memory bus that neither delays nor limits), for parameter servers on the host (--ps-on cpu). */
enum { CLUSTER_XML_HOST_CPUS = 2 };
/* Or'ed into the layout, on a star (a fat tree has none): per node i a host `hub<i>` on its switch (the fabric's or
 * its rack's) by a link of its own that never limits, of a NIC's latency: the other end of the flows by which the
 * SimGrid engine moves all of node i's messages to or from the placed parameter servers in one phase
 * (sg_child.c). */
enum { CLUSTER_XML_HUB = 4 };
/* SimGrid platform XML for `nodes` nodes. @return a malloc'd string, or NULL
 * (out of memory). */
char *cluster_xml(const cluster_spec *c, int nodes, int layout);

#endif
