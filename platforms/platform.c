/* Cluster specs and their SimGrid platform XML; see platform.h.
 * Layout (one zone per node, docs/simulation.md#platforms):
 *   world (Floyd; for the engine, DijkstraCache over racks on a star, where a
 *          rack of plain nodes is one zone: its GPUs, node routers, links)
 *     node<i>: <cluster> of G hosts n<i>g<j>, each with a private full-duplex
 *              link of the intra kind to the node's router (a PCIe switch or
 *              NVLink crossbar); or, for a PCIe tree or an NVLink mesh, a
 *              zone with Full routing: its links and every route spelled out;
 *     fabric:  the switch (star), or leaf switches under a core (fat-tree,
 *              each leaf's uplink carrying its nodes' NIC bandwidth / oversub);
 *     nic<i>:  one full-duplex link per node, node router -> its switch. */
#include "platform.h"
#include "gq_suggest.h"

#include "gq_file.h"
#include "phys_range.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The link kinds, each row at the index of its name: built-ins name their links (L_IB_EDR), so a row
 * added anywhere cannot silently change which link a built-in has. */
enum { L_PCIE3, L_NVLINK1, L_NVLINK2, L_NVSWITCH };
enum { L_1GBE, L_10GBE, L_25GBE, L_40GBE, L_100GBE, L_ROCE25, L_IB_FDR, L_IB_EDR, L_IB_HDR, L_ARIES, L_20GBE };
enum { S_QPI, S_UPI };

static const link_kind INTRA[] = {
    [L_PCIE3] = {"pcie3", 15.75e9, 1e-6, 0, "PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b, per direction"},
    [L_NVLINK1] = {"nvlink1", 80e9, 1e-6, 0, "NVIDIA Tesla P100 whitepaper: 4 NVLinks x 20 GB/s per direction"},
    [L_NVLINK2] = {"nvlink2", 150e9, 1e-6, 0, "NVIDIA Tesla V100 whitepaper: 6 NVLinks x 25 GB/s per direction"},
    [L_NVSWITCH] = {"nvswitch", 300e9, 1e-6, 0,
                    "NVIDIA A100 whitepaper: 12 NVLinks x 25 GB/s per direction through NVSwitch"},
};

static const link_kind INTER[] = {
    [L_1GBE] = {"1gbe", 125e6, 10e-6, 0, "1 Gb/s Ethernet, TCP"},
    [L_10GBE] = {"10gbe", 1.25e9, 5e-6, 0, "10 Gb/s Ethernet, TCP"},
    [L_25GBE] = {"25gbe", 3.125e9, 5e-6, 0, "25 Gb/s Ethernet, TCP"},
    [L_40GBE] = {"40gbe", 5e9, 5e-6, 0, "40 Gb/s Ethernet, TCP"},
    [L_100GBE] = {"100gbe", 12.5e9, 5e-6, 0, "100 Gb/s Ethernet, TCP"},
    [L_ROCE25] = {"roce25", 3.125e9, 2e-6, 1, "25 Gb/s Ethernet with RoCE v2 (RDMA)"},
    [L_IB_FDR] = {"ib-fdr", 6.82e9, 0.7e-6, 1, "InfiniBand FDR 4x: 56 Gb/s signalling, 64b/66b"},
    [L_IB_EDR] = {"ib-edr", 12.5e9, 0.6e-6, 1, "InfiniBand EDR 4x: 100 Gb/s"},
    [L_IB_HDR] = {"ib-hdr", 25e9, 0.6e-6, 1, "InfiniBand HDR 4x: 200 Gb/s"},
    /* measured, not a data sheet: data/measured/aries_pingpong.csv */
    [L_ARIES] =
        {"aries", 9.73e9, 0.555e-6, 1,
         "Cray Aries (XC50, Piz Daint): MPI ping-pong 1.11 us one way, 9.73 GB/s between 2 and 4 MiB (OSU 5.3.2, "
         "Cray MPT 7.7.2; eth-cscs/sarus doc/cookbook/osu_mb); the latency split over the route's two NIC links"},
    /* what Ngbe makes of 20gbe, here for p2.16xlarge */
    [L_20GBE] = {"20gbe", 2.5e9, 5e-6, 0, "20 Gb/s Ethernet, TCP (latency 5 us, as 10gbe)"},
};

static const link_kind SOCKET[] = {
    [S_QPI] = {"qpi", 38.4e9, 0, 0,
               "Intel Xeon E5-2600 v3/v4: two QPI links at 9.6 GT/s, 2 bytes a transfer, per direction"},
    [S_UPI] = {"upi", 41.6e9, 0, 0,
               "Intel Xeon Scalable: two UPI links at 10.4 GT/s, 2 bytes a transfer, per direction"},
};

const link_kind *socket_link_find(const char *name)
{
    for (size_t i = 0; i < sizeof SOCKET / sizeof SOCKET[0]; i++)
        if (strcmp(SOCKET[i].name, name) == 0) return &SOCKET[i];
    return NULL;
}

size_t link_kind_count(int intra) { return intra ? sizeof INTRA / sizeof INTRA[0] : sizeof INTER / sizeof INTER[0]; }
const link_kind *link_kind_at(int intra, size_t i)
{
    return i < link_kind_count(intra) ? (intra ? &INTRA[i] : &INTER[i]) : NULL;
}
/* Ethernet at any rate, `Ngbe` (N Gb/s, N > 0: 0.05gbe is 50 Mb/s), made once per rate and kept for the
 * process: a cluster_spec points at its link kinds, and copies of it must stay valid. */
#define MAX_ETHERNET_RATES 64
static link_kind ethernet[MAX_ETHERNET_RATES];
static char ethernet_names[MAX_ETHERNET_RATES][24], ethernet_sources[MAX_ETHERNET_RATES][96];
static size_t nethernet;

static const link_kind *ethernet_at(const char *name)
{
    const size_t len = strlen(name);
    if (len < 4 || len > 20 || strcmp(name + len - 3, "gbe") != 0 ||
        !(isdigit((unsigned char)name[0]) || name[0] == '.'))
        return NULL;
    char num[24], *end;
    memcpy(num, name, len - 3);
    num[len - 3] = '\0';
    errno = 0;
    const double gbits = strtod(num, &end);
    if (*end || errno || !phys_in_range(PHYS_RATE, gbits * 1e9 / 8)) return NULL;
    char canon[24];
    snprintf(canon, sizeof canon, "%.6ggbe", gbits);
    for (size_t i = 0; i < sizeof INTER / sizeof INTER[0]; i++) /* 01gbe, 10.0gbe: the built-in kinds */
        if (strcmp(INTER[i].name, canon) == 0) return &INTER[i];
    for (size_t i = 0; i < nethernet; i++)
        if (strcmp(ethernet_names[i], canon) == 0) return &ethernet[i];
    if (nethernet == MAX_ETHERNET_RATES) return NULL;
    link_kind *l = &ethernet[nethernet];
    snprintf(ethernet_names[nethernet], sizeof ethernet_names[0], "%s", canon);
    /* the latency of the built-in Ethernet kinds: 1 GbE's below 10 Gb/s, 10 GbE's from there */
    const double latency = gbits < 10 ? 10e-6 : 5e-6;
    snprintf(ethernet_sources[nethernet], sizeof ethernet_sources[0],
             "%.6g Gb/s Ethernet, TCP (latency %.0f us, as %s)", gbits, latency * 1e6, gbits < 10 ? "1gbe" : "10gbe");
    *l = (link_kind){ethernet_names[nethernet], gbits * 1e9 / 8, latency, 0, ethernet_sources[nethernet]};
    nethernet++;
    return l;
}

const link_kind *link_kind_find(const char *name, int intra)
{
    for (size_t i = 0; i < link_kind_count(intra); i++)
        if (strcmp(link_kind_at(intra, i)->name, name) == 0) return link_kind_at(intra, i);
    return intra ? NULL : ethernet_at(name);
}

#define BUILTIN(nm, gp, g, in, out, k, src) BUILTIN_NODE(nm, gp, g, in, out, k, 1, 0, 1, 0, src)
/* with the inside of a node: GPUs per board, per PCIe switch, sockets (QPI between), a cube-mesh */
#define BUILTIN_NODE(nm, gp, g, in, out, k, brd, sw, sock, msh, src)                                                   \
    {                                                                                                                  \
        .name = nm, .gpu = gp, .gpus_per_node = g, .intra = &INTRA[in], .inter = &INTER[out], .nics = k,               \
        .topo = TOPO_STAR, .oversub = 1, .leaf_nodes = 16, .nodes = 0, .source = src, .board = brd, .pcie_switch = sw, \
        .sockets = sock, .socket_link = (sock) > 1 ? &SOCKET[S_QPI] : NULL, .mesh = msh                                \
    }

static const cluster_spec BUILTINS[] = {
    BUILTIN("terngrad-ethernet", "GTX 1080", 4, L_PCIE3, L_1GBE, 1,
            "TernGrad (Wen et al. 2017), Figure 5(a): 4 GTX 1080 per node behind one PCIe switch, 1 Gb/s Ethernet"),
    BUILTIN("terngrad-infiniband", "P100", 4, L_NVLINK1, L_IB_EDR, 1,
            "TernGrad (Wen et al. 2017), Figure 5(b): 4 P100 per node on NVLink, 100 Gb/s InfiniBand"),
    BUILTIN_NODE("dgx1", "P100", 8, L_NVLINK1, L_IB_EDR, 4, 1, 2, 2, 1,
                 "NVIDIA DGX-1 System Architecture white paper: 8 P100 in an NVLink hybrid cube-mesh (4 links of 20 "
                 "GB/s a GPU), GPU pairs on four PCIe switches, two per Xeon socket, QPI between; 4 InfiniBand EDR"),
    BUILTIN_NODE("dgx1-v100", "V100", 8, L_NVLINK2, L_IB_EDR, 4, 1, 2, 2, 1,
                 "NVIDIA DGX-1 (V100) white paper: 8 V100 in the hybrid cube-mesh with 6 NVLinks of 25 GB/s a GPU "
                 "(pairs 0-3 0-4 1-2 1-5 2-3 4-7 5-6 6-7 doubled, as NCCL's topology dump of a DGX-1V shows: "
                 "NVIDIA/nccl#671), PCIe as the DGX-1's; 4 InfiniBand EDR"),
    BUILTIN_NODE("p2.8xlarge", "K80", 8, L_PCIE3, L_10GBE, 1, 2, 0, 1, 0,
                 "AWS EC2 P2 instances: p2.8xlarge, 8 K80 GPUs (4 boards; Tesla K80 datasheet: two GK210 behind one "
                 "PCIe 3.0 x16 a board), 32 vCPUs (one socket), 10 Gb/s network"),
    BUILTIN_NODE("p2.16xlarge", "K80", 16, L_PCIE3, L_20GBE, 1, 2, 0, 2, 0,
                 "AWS EC2 P2 instances: p2.16xlarge, 16 K80 GPUs on 8 boards (two GK210 behind one PCIe x16 a "
                 "board), 64 vCPUs on two Xeon E5-2686 v4 sockets (QPI), 20 Gb/s in a placement group"),
    BUILTIN_NODE("p3.16xlarge", "V100", 8, L_NVLINK2, L_25GBE, 1, 1, 2, 2, 1,
                 "AWS EC2 P3 instances: p3.16xlarge, 8 V100 in the DGX-1V's NVLink hybrid cube-mesh (Apache MXNet "
                 "wiki, 'Link topology of p3.16xlarge': double links 50 GB/s, single 25 GB/s), two Xeon E5-2686 v4 "
                 "sockets, 25 Gb/s network"),
    BUILTIN("roce25", "V100", 4, L_PCIE3, L_ROCE25, 1,
            "a common on-premise cluster: 4 V100 (PCIe) per node, 25 GbE with RoCE"),
};

size_t cluster_builtin_count(void) { return sizeof BUILTINS / sizeof BUILTINS[0]; }
const cluster_spec *cluster_builtin(size_t i) { return i < cluster_builtin_count() ? &BUILTINS[i] : NULL; }

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

/* Sets one key of a cluster, as a spec (`key=value`) and a user's XML
 * (`gqsim.key` properties) both give them. @return 0, -1 with the reason in
 * why (a bad value), or -2 for a key not in `keys` (a NULL-terminated list). */
static int cluster_set(cluster_spec *c, const char *k, const char *v, const char *const *keys, char *why, size_t cap)
{
    int known = 0;
    for (const char *const *key = keys; *key && !known; key++) known = strcmp(*key, k) == 0;
    if (!known) return -2;
    char list[256];
    if (strcmp(k, "gpus-per-node") == 0) {
        if (parse_pos_int(v, &c->gpus_per_node, 1024)) return snprintf(why, cap, "must be 1..1024"), -1;
    } else if (strcmp(k, "gpu") == 0) {
        if (!*v || strlen(v) >= sizeof c->gpu) return snprintf(why, cap, "is empty or too long"), -1;
        strcpy(c->gpu, v);
    } else if (strcmp(k, "intra") == 0 || strcmp(k, "inter") == 0) {
        const int intra = k[4] == 'a';
        const link_kind **l = intra ? &c->intra : &c->inter;
        kinds(list, sizeof list, intra);
        if (!(*l = link_kind_find(v, intra)))
            return snprintf(why, cap, "is not %s%s", list,
                            intra ? ""
                                  : ", or Ngbe (N Gb/s from 1e-06 to 1e+05, i.e. a rate between 1 kbit/s and 100 "
                                    "Tbit/s: 20gbe, 0.1gbe)"),
                   -1;
    } else if (strcmp(k, "nics") == 0) {
        if (parse_pos_int(v, &c->nics, 64)) return snprintf(why, cap, "must be 1..64"), -1;
    } else if (strcmp(k, "topology") == 0) {
        int t;
        if (pick(v, "star", "fat-tree", &t)) return snprintf(why, cap, "is not star or fat-tree"), -1;
        c->topo = t ? TOPO_FAT_TREE : TOPO_STAR;
    } else if (strcmp(k, "oversub") == 0) {
        char *end;
        c->oversub = strtod(v, &end);
        if (*end || end == v || !(c->oversub >= 1 && c->oversub <= 64)) return snprintf(why, cap, "must be 1..64"), -1;
    } else if (strcmp(k, "leaf") == 0) {
        if (parse_pos_int(v, &c->leaf_nodes, 4096)) return snprintf(why, cap, "must be 1..4096"), -1;
    } else if (strcmp(k, "nodes") == 0) {
        if (parse_pos_int(v, &c->nodes, 65536)) return snprintf(why, cap, "must be 1..65536"), -1;
    } else if (strcmp(k, "board") == 0) {
        if (parse_pos_int(v, &c->board, 1024)) return snprintf(why, cap, "must be 1..1024 (GPUs per board)"), -1;
    } else if (strcmp(k, "pcie-switch") == 0) {
        if (parse_pos_int(v, &c->pcie_switch, 1024))
            return snprintf(why, cap, "must be 1..1024 (GPUs per PCIe switch)"), -1;
    } else if (strcmp(k, "sockets") == 0) {
        if (parse_pos_int(v, &c->sockets, 8)) return snprintf(why, cap, "must be 1..8"), -1;
    } else if (strcmp(k, "socket-link") == 0) {
        if (!(c->socket_link = socket_link_find(v))) return snprintf(why, cap, "is not qpi or upi"), -1;
    } else if (strcmp(k, "mesh") == 0) {
        if (pick(v, "none", "cube", &c->mesh)) return snprintf(why, cap, "is not cube or none"), -1;
    } else if (strcmp(k, "rpc") == 0) {
        if (pick(v, "none", "grpc", &c->rpc)) return snprintf(why, cap, "is not grpc or none"), -1;
    }
    return 0;
}

static const char *const SPEC_KEYS[] = {"gpus-per-node", "gpu",  "intra", "inter", "nics",        "topology",
                                        "oversub",       "leaf", "nodes", "board", "pcie-switch", "sockets",
                                        "socket-link",   "mesh", "rpc",   NULL};
/* what a user's XML says in properties; its size comes from its hosts */
static const char *const XML_KEYS[] = {"gpu",   "intra",       "inter",   "nics",        "topology", "oversub", "leaf",
                                       "board", "pcie-switch", "sockets", "socket-link", "mesh",     "rpc",     NULL};

/* The inside of a node, once every key is read: the levels must nest; a second socket defaults to qpi. @return 0,
 * or -1 with the reason. */
static int finish_node(cluster_spec *c, char *why, size_t cap)
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

/* ---- a user's XML -------------------------------------------------------------------- */

/* The first occurrence of needle in [p, end), or NULL. Bounded, as strstr
 * is not: under AddressSanitizer every strstr and strchr first measures the
 * whole rest of the text, so the loops over a large platform's tags were
 * quadratic there (a 20000-GPU XML of 44 MB: over 6 minutes, against 0.1 s
 * in the Release build); memchr's check stops where it stops. */
static const char *find_in(const char *p, const char *end, const char *needle)
{
    const size_t n = strlen(needle);
    while ((size_t)(end - p) >= n) {
        p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
        if (!p) return NULL;
        if (memcmp(p, needle, n) == 0) return p;
        p++;
    }
    return NULL;
}

/* Value of attribute `name` in the tag starting at `tag` (the text ends at
 * text_end), XML entities (&amp; &lt; &gt; &quot; &apos;) decoded, copied
 * into out. */
static int attr(const char *tag, const char *text_end, const char *name, char *out, size_t cap)
{
    const char *end = find_in(tag, text_end, ">");
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", name);
    const char *a = find_in(tag, end ? end : text_end, pat);
    if (!a) return -1;
    a += strlen(pat);
    char q = *a;
    if (q != '"' && q != '\'') return -1;
    const char *z = memchr(a + 1, q, (size_t)(text_end - (a + 1)));
    if (!z) return -1;
    static const char *const ENT[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
    size_t n = 0;
    for (const char *c = a + 1; c < z;) {
        if (n + 1 >= cap) return -1;
        size_t e = 0;
        for (; *c == '&' && e < 5; e++)
            if (strncmp(c, ENT[e][0], strlen(ENT[e][0])) == 0) break;
        if (*c == '&' && e < 5) {
            out[n++] = ENT[e][1][0];
            c += strlen(ENT[e][0]);
        } else {
            out[n++] = *c++;
        }
    }
    out[n] = '\0';
    return 0;
}

static int line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *c = text; c < at; c++) line += *c == '\n';
    return line;
}

/* Hosts in a SimGrid radical ("0-99", "1,3,5-7"); beyond 1e12 counts as 1e12. @return -1 if malformed. */
static double radical_hosts(const char *r)
{
    double n = 0;
    for (const char *p = r; *p;) {
        char *end;
        const double lo = strtod(p, &end), hi = *end == '-' ? strtod(end + 1, &end) : lo;
        if (end == p || !(lo >= 0 && hi >= lo)) return -1;
        n += fmin(hi - lo + 1, 1e12);
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return fmin(n, 1e12);
}

/* Every link's, cluster's and backbone's rate and latency within the physical ranges (SimGrid accepts a
 * negative latency), and the hosts the file declares counted (a radical of a billion hosts is refused by
 * the SimGrid engine before SimGrid builds it). */
static gq_err check_xml_links(const char *text, const char *text_end, const char *path, double *hosts, char *msg,
                              size_t cap)
{
    static const struct {
        const char *tag, *attr;
        phys_quantity q;
    } CHECKS[] = {{"<link ", "bandwidth", PHYS_RATE},      {"<link ", "latency", PHYS_LATENCY},
                  {"<backbone ", "bandwidth", PHYS_RATE},  {"<backbone ", "latency", PHYS_LATENCY},
                  {"<cluster ", "bw", PHYS_RATE},          {"<cluster ", "lat", PHYS_LATENCY},
                  {"<cluster ", "bb_bw", PHYS_RATE},       {"<cluster ", "bb_lat", PHYS_LATENCY},
                  {"<cluster ", "loopback_bw", PHYS_RATE}, {"<cluster ", "loopback_lat", PHYS_LATENCY},
                  {"<cluster ", "limiter_link", PHYS_RATE}};
    char v[128], why[160], *radical = malloc(1 << 16);
    if (!radical) return GQ_ERR_NOMEM;
    gq_err e = GQ_OK;
    for (size_t k = 0; e == GQ_OK && k < sizeof CHECKS / sizeof CHECKS[0]; k++)
        for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, CHECKS[k].tag)) != NULL; p++) {
            double x;
            char policy[32];
            phys_quantity q = CHECKS[k].q;
            if (q == PHYS_RATE && attr(p, text_end, "sharing_policy", policy, sizeof policy) == 0 &&
                strcmp(policy, "FATPIPE") == 0)
                q = PHYS_FATPIPE_RATE;
            if (attr(p, text_end, CHECKS[k].attr, v, sizeof v) == 0 &&
                phys_parse_simgrid(q, v, &x, why, sizeof why) == -1)
                e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s:%d: %s %s", path, line_of(text, p), CHECKS[k].attr, why);
        }
    *hosts = 0;
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<host ")) != NULL; p++) *hosts += 1;
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<cluster ")) != NULL; p++) {
        if (attr(p, text_end, "radical", radical, 1 << 16) != 0) continue; /* SimGrid's to refuse */
        const double n = radical_hosts(radical);
        if (n > 0) *hosts += n;
    }
    free(radical);
    return e;
}

static gq_err load_xml(const char *path, cluster_spec *c, char *msg, size_t cap)
{
    char *text;
    size_t len;
    gq_err e = gq_read_file(path, (size_t)64 << 20, 1, &text, &len, msg, cap);
    if (e != GQ_OK) return e;
    e = len ? cluster_parse_xml(text, path, c, msg, cap) : gq_fail(GQ_ERR_SPEC, msg, cap, "%s: empty file", path);
    free(text);
    return e;
}

gq_err cluster_parse_xml(const char *text, const char *path, cluster_spec *c, char *msg, size_t cap)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "xml");
    if (strlen(path) >= sizeof c->xml_path) return gq_fail(GQ_ERR_SPEC, msg, cap, "%.200s...: path too long", path);
    snprintf(c->xml_path, sizeof c->xml_path, "%s", path);
    c->nics = 1;
    c->oversub = 1;
    c->leaf_nodes = 16;
    c->board = c->sockets = 1;
    c->source = "a user's SimGrid XML";
    gq_err e = GQ_OK;
    const char *text_end = text + strlen(text);
    if (!find_in(text, text_end, "<platform"))
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: not a SimGrid platform (no <platform>)", path);
    /* properties: <prop id="gqsim.X" value="Y"/> */
    int seen[sizeof XML_KEYS / sizeof XML_KEYS[0]] = {0};
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<prop ")) != NULL; p++) {
        char id[64], v[sizeof c->gpu], why[256];
        if (attr(p, text_end, "id", id, sizeof id) || strncmp(id, "gqsim.", 6) != 0) continue;
        const char *key = id + 6;
        size_t k = 0;
        while (XML_KEYS[k] && strcmp(key, XML_KEYS[k]) != 0) k++;
        if (!XML_KEYS[k])
            e = gq_fail(
                GQ_ERR_SPEC, msg, cap,
                "%s: unknown property %s (gqsim.gpu, .intra, .inter, .nics, .topology, .oversub, .leaf, .board, "
                ".pcie-switch, .sockets, .socket-link, .mesh, .rpc)",
                path, id);
        else if (seen[k]++)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: property %s is given twice", path, id);
        else if (attr(p, text_end, "value", v, sizeof v) || !v[0])
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: property %s has no value (or a longer one than %zu bytes)", path,
                        id, sizeof v - 1);
        else if (cluster_set(c, key, v, XML_KEYS, why, sizeof why) != 0)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %s=%s %s", path, id, v, why);
    }
    if (e == GQ_OK && (!c->gpu[0] || !c->intra || !c->inter))
        e = gq_fail(GQ_ERR_SPEC, msg, cap,
                    "%s: needs the properties gqsim.gpu, gqsim.intra and gqsim.inter on its top zone", path);
    /* GPUs: <host id="n<N>g<G>"> and <cluster prefix="n<N>g" radical="0-<K>"> */
    int nodes = 0, per_node = 0;
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<host ")) != NULL; p++) {
        char id[64];
        int n, g, used = -1;
        if (attr(p, text_end, "id", id, sizeof id) == 0 && sscanf(id, "n%dg%d%n", &n, &g, &used) == 2 && used > 0 &&
            id[used] == '\0' && n >= 0 && g >= 0 && n < 65536 && g < 1024) {
            nodes = n + 1 > nodes ? n + 1 : nodes;
            per_node = g + 1 > per_node ? g + 1 : per_node;
        }
    }
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<cluster ")) != NULL; p++) {
        char prefix[64], radical[64];
        int n, lo, hi, used = -1; /* %n is not stored when the 'g' does not match */
        if (attr(p, text_end, "prefix", prefix, sizeof prefix) || attr(p, text_end, "radical", radical, sizeof radical))
            continue;
        if (sscanf(prefix, "n%dg%n", &n, &used) == 1 && used > 0 && prefix[used] == '\0' &&
            sscanf(radical, "%d-%d", &lo, &hi) == 2 && lo == 0 && hi >= 0 && n >= 0 && n < 65536 && hi < 1024) {
            nodes = n + 1 > nodes ? n + 1 : nodes;
            per_node = hi + 1 > per_node ? hi + 1 : per_node;
        }
    }
    if (e == GQ_OK) e = check_xml_links(text, text_end, path, &c->xml_hosts, msg, cap);
    if (e == GQ_OK && nodes == 0)
        e = gq_fail(GQ_ERR_SPEC, msg, cap,
                    "%s: no GPU hosts named n<NODE>g<GPU> (hosts or cluster prefix=\"n<NODE>g\")", path);
    if (e == GQ_OK && c->topo == TOPO_STAR && c->oversub != 1)
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: gqsim.oversub needs gqsim.topology=fat-tree", path);
    c->nodes = nodes;
    c->gpus_per_node = per_node;
    char why[200];
    if (e == GQ_OK && finish_node(c, why, sizeof why) != 0) e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %s", path, why);
    return e;
}

gq_err cluster_parse(const char *spec, cluster_spec *c, char *msg, size_t cap)
{
    size_t sl = strlen(spec);
    if (sl > 4 && strcmp(spec + sl - 4, ".xml") == 0) return load_xml(spec, c, msg, cap);
    for (size_t i = 0; i < cluster_builtin_count(); i++)
        if (strcmp(spec, BUILTINS[i].name) == 0) {
            *c = BUILTINS[i];
            c->xml_path[0] = '\0';
            return GQ_OK;
        }
    if (strncmp(spec, "cluster:", 8) != 0) {
        char names[512] = "";
        const char *each[sizeof BUILTINS / sizeof BUILTINS[0]];
        for (size_t i = 0; i < cluster_builtin_count(); i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, BUILTINS[i].name, sizeof names - strlen(names) - 1);
            each[i] = BUILTINS[i].name;
        }
        const char *near = gq_suggest(spec, each, cluster_builtin_count());
        return gq_fail(GQ_ERR_SPEC, msg, cap, "unknown platform '%s'%s%s%s (built-in: %s; or cluster:key=value,...)",
                       spec, near ? ", did you mean '" : "", near ? near : "", near ? "'?" : "", names);
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
    int seen[sizeof SPEC_KEYS / sizeof SPEC_KEYS[0]] = {0};
    for (char *kv = buf, *next; kv && *kv; kv = next) {
        next = strchr(kv, ',');
        if (next) *next++ = '\0';
        char *eq = strchr(kv, '=');
        if (!eq) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: '%s' is not key=value", kv);
        *eq = '\0';
        const char *k = kv, *v = eq + 1;
        char why[300];
        for (size_t i = 0; SPEC_KEYS[i]; i++)
            if (strcmp(k, SPEC_KEYS[i]) == 0 && seen[i]++)
                return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: key '%s' is given twice", k);
        int r = cluster_set(c, k, v, SPEC_KEYS, why, sizeof why);
        if (r == -2)
            return gq_fail(GQ_ERR_SPEC, msg, cap,
                           "cluster: unknown key '%s' (keys: gpus-per-node, gpu, intra, inter, nics, topology, "
                           "oversub, leaf, nodes, board, pcie-switch, sockets, socket-link, mesh, rpc)",
                           k);
        if (r != 0) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: %s=%s %s", k, v, why);
    }
    if (!c->gpus_per_node || !c->gpu[0] || !c->intra || !c->inter)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: needs gpus-per-node=, gpu=, intra= and inter=");
    if (c->topo == TOPO_STAR && c->oversub != 1)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: oversub= needs topology=fat-tree");
    char why[200];
    if (finish_node(c, why, sizeof why) != 0) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: %s", why);
    return GQ_OK;
}

int cluster_nodes_for(const cluster_spec *c, int gpus) { return (gpus + c->gpus_per_node - 1) / c->gpus_per_node; }

int cluster_nodes_built(const cluster_spec *c, int gpus)
{
    int used = cluster_nodes_for(c, gpus);
    return c->nodes > used ? c->nodes : used;
}

double cluster_nic_bandwidth(const cluster_spec *c) { return c->inter->bandwidth * c->nics; }

/* The node's keys where they are not the plain layout's, as `,key=value` (for specs and XML comments). */
static void node_keys(const cluster_spec *c, char *buf, size_t cap)
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
    char nodes[32] = "", node[96];
    if (c->nodes) snprintf(nodes, sizeof nodes, ",nodes=%d", c->nodes);
    node_keys(c, node, sizeof node);
    return snprintf(
        buf, cap, "cluster:gpus-per-node=%d,gpu=%s,intra=%s,inter=%s,nics=%d,topology=%s,oversub=%g,leaf=%d%s%s%s",
        c->gpus_per_node, c->gpu, c->intra->name, c->inter->name, c->nics, c->topo == TOPO_STAR ? "star" : "fat-tree",
        c->oversub, c->leaf_nodes, nodes, node, c->rpc ? ",rpc=grpc" : "");
}

const char *cluster_rpc_name(int rpc) { return rpc == RPC_GRPC ? "grpc" : "none"; }

/* ---- inside a node ------------------------------------------------------------------------ */

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

/* ---- XML ------------------------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = 2 * b->cap + (size_t)n + 1;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

enum { RACK_NODES = 32 };

/* The links of node i's zone, its grouped stand-in's, or (with host_cpu) with the memory bus to its host CPU. */
static void put_node_links(sbuf *b, const cluster_spec *c, int i, const char *ind, int host_cpu)
{
    static const char LINK[] = "%s<link id=\"node%d_%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
                               "sharing_policy=\"SPLITDUPLEX\"/>\n";
    if (c->grouped.group_bw > 0) {
        put(b, LINK, ind, i, "lead", c->grouped.lead_bw, c->grouped.lead_lat);
        put(b, LINK, ind, i, "group", c->grouped.group_bw, c->grouped.group_lat);
        return;
    }
    for (int k = 0; k < node_link_count(c); k++) {
        node_link l = node_link_at(c, k);
        put(b, LINK, ind, i, l.name, l.bandwidth, l.latency);
    }
    if (host_cpu)
        put(b, "%s<link id=\"node%d_membus\" bandwidth=\"%.17gBps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n", ind,
            i, phys_range_of(PHYS_FATPIPE_RATE)->hi);
}

/* 1 if node zones list their own links (not a <cluster>, which makes its own). */
static int node_has_links(const cluster_spec *c, int host_cpu)
{
    return c->grouped.group_bw > 0 || !cluster_uniform_node(c) || host_cpu;
}

/* One node's zone: a <cluster> where every GPU has its link to one switch; otherwise (or with its host CPU) a zone
 * of its GPUs, its links and every route between GPUs and to the gateway spelled out (Full routing): the routes
 * gqsim's analytic engine takes too (node_route_between). With links_outside its links were declared in the top
 * zone already. */
static void put_node(sbuf *b, const cluster_spec *c, int i, const char *ind, int host_cpu, int links_outside)
{
    char inner[16];
    snprintf(inner, sizeof inner, "%s  ", ind);
    if (!node_has_links(c, host_cpu)) {
        put(b,
            "%s<cluster id=\"node%d\" prefix=\"n%dg\" suffix=\"\" radical=\"0-%d\" speed=\"1f\" bw=\"%.17gBps\" "
            "lat=\"%.17gs\" router_id=\"node%d_router\" sharing_policy=\"SPLITDUPLEX\"/>\n",
            ind, i, i, c->gpus_per_node - 1, c->intra->bandwidth, c->intra->latency, i);
        return;
    }
    put(b, "%s<zone id=\"node%d\" routing=\"Full\">\n", ind, i);
    if (c->grouped.group_bw > 0) { /* the engine's stand-in: the first GPU, and one host for the others */
        put(b, "%s<host id=\"n%dg0\" speed=\"1f\"/>\n%s<host id=\"n%dg1\" speed=\"1f\"/>\n", inner, i, inner, i);
        put(b, "%s<router id=\"node%d_router\"/>\n", inner, i);
        if (!links_outside) put_node_links(b, c, i, inner, 0);
        static const char *const R[][3] = {{"n%dg1", "n%dg0", "group\" direction=\"UP"},
                                           {"n%dg0", "n%dg1", "group\" direction=\"DOWN"},
                                           {"n%dg0", "node%d_router", "lead\" direction=\"UP"},
                                           {"node%d_router", "n%dg0", "lead\" direction=\"DOWN"}};
        for (int k = 0; k < 4; k++) {
            char src[32], dst[32];
            snprintf(src, sizeof src, R[k][0], i);
            snprintf(dst, sizeof dst, R[k][1], i);
            put(b, "%s<route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"node%d_%s\"/></route>\n", inner,
                src, dst, i, R[k][2]);
        }
        put(b, "%s</zone>\n", ind);
        return;
    }
    const int G = c->gpus_per_node, CPU = G; /* the host CPU, after the GPUs */
    for (int g = 0; g < G; g++) put(b, "%s<host id=\"n%dg%d\" speed=\"1f\"/>\n", inner, i, g);
    if (host_cpu) put(b, "%s<host id=\"n%dcpu\" speed=\"1f\"/>\n", inner, i);
    put(b, "%s<router id=\"node%d_router\"/>\n", inner, i);
    if (!links_outside) put_node_links(b, c, i, inner, host_cpu);
    for (int from = NODE_GATEWAY; from < G + host_cpu; from++)
        for (int to = NODE_GATEWAY; to < G + host_cpu; to++) {
            if (from == to) continue;
            /* the host CPU sits at the gateway, one memory bus away */
            node_route r;
            node_route_between(c, from == CPU ? NODE_GATEWAY : from, to == CPU ? NODE_GATEWAY : to, &r);
            char src[32], dst[32];
            snprintf(src, sizeof src, from < 0 ? "node%d_router" : from == CPU ? "n%dcpu" : "n%dg%d", i, from);
            snprintf(dst, sizeof dst, to < 0 ? "node%d_router" : to == CPU ? "n%dcpu" : "n%dg%d", i, to);
            put(b, "%s<route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">", inner, src, dst);
            if (from == CPU) put(b, "<link_ctn id=\"node%d_membus\"/>", i);
            for (int k = 0; k < r.n; k++)
                put(b, "<link_ctn id=\"node%d_%s\" direction=\"%s\"/>", i, node_link_at(c, r.hop[k].link).name,
                    r.hop[k].up ? "UP" : "DOWN");
            if (to == CPU) put(b, "<link_ctn id=\"node%d_membus\"/>", i);
            put(b, "</route>\n");
        }
    put(b, "%s</zone>\n", ind);
}

char *cluster_xml(const cluster_spec *c, int nodes, int layout)
{
    sbuf b = {malloc(4096), 0, 4096, 0};
    if (!b.s) return NULL;
    b.s[0] = '\0';
    const double nic = cluster_nic_bandwidth(c);
    char node[96];
    node_keys(c, node, sizeof node);
    put(&b, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    put(&b,
        "<!-- gqsim: %d node(s) of %d GPUs; intra %s (%.4g GB/s, %.3g us); inter %d x %s (%.4g GB/s, %.3g us); "
        "%s%s%s.\n"
        "     The gqsim.* properties let 'gqsim simulate --platform THIS.xml' read it back; hosts are n<NODE>g<GPU>. "
        "-->\n",
        nodes, c->gpus_per_node, c->intra->name, c->intra->bandwidth / 1e9, c->intra->latency * 1e6, c->nics,
        c->inter->name, c->inter->bandwidth / 1e9, c->inter->latency * 1e6,
        c->topo == TOPO_STAR ? "non-blocking switch" : "fat-tree", node[0] ? "; inside a node " : "",
        node[0] ? node + 1 : "");
    const int leaves = c->topo == TOPO_FAT_TREE ? (nodes + c->leaf_nodes - 1) / c->leaf_nodes : 0;
    /* Floyd's tables are O(nodes^2) in memory and O(nodes^3) to build; a star's
     * routes are found on demand (DijkstraCache). SimGrid 3.32's Dijkstra
     * crashes on the fat-tree's routed fabric zone, which keeps Floyd. */
    put(&b, "<platform version=\"4.1\">\n<zone id=\"world\" routing=\"%s\">\n",
        leaves || !(layout & CLUSTER_XML_RACKED) ? "Floyd" : "DijkstraCache");
    put(&b, "  <prop id=\"gqsim.gpu\" value=\"");
    for (const char *g = c->gpu; *g; g++) { /* a user's GPU name, as an attribute value */
        switch (*g) {
        case '&': put(&b, "&amp;"); break;
        case '<': put(&b, "&lt;"); break;
        case '>': put(&b, "&gt;"); break;
        case '"': put(&b, "&quot;"); break;
        case '\'': put(&b, "&apos;"); break;
        default: put(&b, "%c", *g);
        }
    }
    put(&b, "\"/>\n  <prop id=\"gqsim.intra\" value=\"%s\"/>\n  <prop id=\"gqsim.inter\" value=\"%s\"/>\n",
        c->intra->name, c->inter->name);
    put(&b, "  <prop id=\"gqsim.nics\" value=\"%d\"/>\n  <prop id=\"gqsim.topology\" value=\"%s\"/>\n", c->nics,
        c->topo == TOPO_STAR ? "star" : "fat-tree");
    if (c->topo == TOPO_FAT_TREE)
        put(&b, "  <prop id=\"gqsim.oversub\" value=\"%.17g\"/>\n  <prop id=\"gqsim.leaf\" value=\"%d\"/>\n",
            c->oversub, c->leaf_nodes);
    if (c->board > 1) put(&b, "  <prop id=\"gqsim.board\" value=\"%d\"/>\n", c->board);
    if (c->pcie_switch) put(&b, "  <prop id=\"gqsim.pcie-switch\" value=\"%d\"/>\n", c->pcie_switch);
    if (c->sockets > 1)
        put(&b, "  <prop id=\"gqsim.sockets\" value=\"%d\"/>\n  <prop id=\"gqsim.socket-link\" value=\"%s\"/>\n",
            c->sockets, c->socket_link->name);
    if (c->mesh) put(&b, "  <prop id=\"gqsim.mesh\" value=\"cube\"/>\n");
    if (c->rpc) put(&b, "  <prop id=\"gqsim.rpc\" value=\"%s\"/>\n", cluster_rpc_name(c->rpc));
    /* A star of many nodes goes in racks of RACK_NODES: each rack zone holds
     * its nodes, their NICs and a gateway router, and reaches the switch over
     * a backplane that neither delays nor limits (a fat pipe at 1 PB/s), so
     * every route crosses the same NICs as in a flat star, while SimGrid's
     * route search (Dijkstra over a zone's members) stays small. */
    const int racks =
        (layout & CLUSTER_XML_RACKED) && !leaves && nodes > RACK_NODES ? (nodes + RACK_NODES - 1) / RACK_NODES : 0;
    /* Racked, the NICs (and the links inside nodes) are declared in the top zone's first child: SimGrid 3.32 finds
     * a route's links by name from the top zone down, depth first through every zone, so a NIC declared in rack r
     * was found only after searching racks 0..r-1 (quadratic in nodes); in the first child, at once. */
    const int host_cpu = (layout & CLUSTER_XML_HOST_CPUS) != 0;
    if (racks) put(&b, "  <zone id=\"links\" routing=\"None\">\n"); /* the DTD wants zones before links */
    static const char NIC[] =
        "%s<link id=\"nic%d\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n";
    for (int i = 0; racks && i < nodes; i++) put(&b, NIC, "    ", i, nic, c->inter->latency);
    /* Plain nodes in racks are no zones of their own: a rack is one zone of its GPUs, its nodes' switches and its
     * gateway, joined by the links a <cluster> per node would have made (node<i>_g<j>, as a node's links are
     * named), so SimGrid 3.32 keeps a zone per rack, not per node (its duplicate-name checks and its seal walk
     * every zone, or every host once per zone). */
    const int flat_racks = racks && !node_has_links(c, host_cpu);
    for (int i = 0; racks && i < nodes; i++) put_node_links(&b, c, i, "    ", host_cpu);
    if (racks) put(&b, "  </zone>\n");
    for (int r = 0; r < (racks ? racks : 1); r++) {
        int first = racks ? r * RACK_NODES : 0,
            last = racks && (r + 1) * RACK_NODES < nodes ? (r + 1) * RACK_NODES : nodes;
        const char *ind = racks ? "    " : "  ";
        if (racks) put(&b, "  <zone id=\"rack%d\" routing=\"DijkstraCache\">\n", r);
        if (flat_racks) { /* the DTD wants hosts and routers, then routes */
            for (int i = first; i < last; i++)
                for (int g = 0; g < c->gpus_per_node; g++) put(&b, "    <host id=\"n%dg%d\" speed=\"1f\"/>\n", i, g);
            for (int i = first; i < last; i++) put(&b, "    <router id=\"node%d_router\"/>\n", i);
            put(&b, "    <router id=\"rack%d_router\"/>\n", r);
            for (int i = first; i < last; i++) {
                for (int g = 0; g < c->gpus_per_node; g++)
                    put(&b,
                        "    <route src=\"n%dg%d\" dst=\"node%d_router\"><link_ctn id=\"node%d_g%d\" "
                        "direction=\"UP\"/></route>\n",
                        i, g, i, i, g);
                put(&b,
                    "    <route src=\"node%d_router\" dst=\"rack%d_router\"><link_ctn id=\"nic%d\" "
                    "direction=\"UP\"/></route>\n",
                    i, r, i);
            }
            put(&b, "  </zone>\n");
            continue;
        }
        for (int i = first; i < last; i++) put_node(&b, c, i, ind, host_cpu, racks > 0);
        if (racks) {
            put(&b, "    <zone id=\"rack%d_gw\" routing=\"Full\">\n      <router id=\"rack%d_router\"/>\n    </zone>\n",
                r, r);
        } else {
            put(&b, "  <zone id=\"fabric\" routing=\"%s\">\n", leaves ? "Floyd" : "Full");
            if (!leaves) {
                put(&b, "    <router id=\"switch\"/>\n");
            } else { /* the DTD wants routers, then links, then routes */
                put(&b, "    <router id=\"core\"/>\n");
                for (int l = 0; l < leaves; l++) put(&b, "    <router id=\"leaf%d\"/>\n", l);
                for (int l = 0; l < leaves; l++) {
                    int members = l + 1 < leaves ? c->leaf_nodes : nodes - l * c->leaf_nodes;
                    put(&b,
                        "    <link id=\"uplink%d\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
                        "sharing_policy=\"SPLITDUPLEX\"/>\n",
                        l, nic * members / c->oversub, c->inter->latency);
                }
                for (int l = 0; l < leaves; l++)
                    put(&b,
                        "    <route src=\"leaf%d\" dst=\"core\"><link_ctn id=\"uplink%d\" direction=\"UP\"/></route>\n",
                        l, l);
            }
            put(&b, "  </zone>\n");
        }
        for (int i = first; !racks && i < last; i++) put(&b, NIC, ind, i, nic, c->inter->latency);
        for (int i = first; i < last; i++) {
            char gw[32], dst[32];
            if (racks)
                snprintf(gw, sizeof gw, "rack%d_router", r), snprintf(dst, sizeof dst, "rack%d_gw", r);
            else if (leaves)
                snprintf(gw, sizeof gw, "leaf%d", i / c->leaf_nodes), snprintf(dst, sizeof dst, "fabric");
            else
                snprintf(gw, sizeof gw, "switch"), snprintf(dst, sizeof dst, "fabric");
            put(&b,
                "%s<zoneRoute src=\"node%d\" dst=\"%s\" gw_src=\"node%d_router\" gw_dst=\"%s\">"
                "<link_ctn id=\"nic%d\" direction=\"UP\"/></zoneRoute>\n",
                ind, i, dst, i, gw, i);
        }
        if (racks) put(&b, "  </zone>\n");
    }
    if (racks) {
        put(&b, "  <zone id=\"fabric\" routing=\"Full\">\n    <router id=\"switch\"/>\n  </zone>\n");
        put(&b, "  <link id=\"backplane\" bandwidth=\"%.17gBps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n",
            phys_range_of(PHYS_FATPIPE_RATE)->hi); /* never the bottleneck */
        for (int r = 0; r < racks; r++)
            put(&b,
                "  <zoneRoute src=\"rack%d\" dst=\"fabric\" gw_src=\"rack%d_router\" gw_dst=\"switch\">"
                "<link_ctn id=\"backplane\"/></zoneRoute>\n",
                r, r);
    }
    put(&b, "</zone>\n</platform>\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
