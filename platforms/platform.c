/* Cluster specs and their SimGrid platform XML; see platform.h.
 * Layout (one zone per node, docs/simulation.md#platforms):
 *   world (Floyd; for the engine, DijkstraCache over racks on a star)
 *     node<i>: <cluster> of G hosts n<i>g<j>, each with a private full-duplex
 *              link of the intra kind to the node's router (a PCIe switch or
 *              NVLink crossbar);
 *     fabric:  the switch (star), or leaf switches under a core (fat-tree,
 *              each leaf's uplink carrying its nodes' NIC bandwidth / oversub);
 *     nic<i>:  one full-duplex link per node, node router -> its switch. */
#include "platform.h"

#include "gq_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const link_kind INTRA[] = {
    {"pcie3", 15.75e9, 1e-6, 0, "PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b, per direction"},
    {"nvlink1", 80e9, 1e-6, 0, "NVIDIA Tesla P100 whitepaper: 4 NVLinks x 20 GB/s per direction"},
    {"nvlink2", 150e9, 1e-6, 0, "NVIDIA Tesla V100 whitepaper: 6 NVLinks x 25 GB/s per direction"},
    {"nvswitch", 300e9, 1e-6, 0, "NVIDIA A100 whitepaper: 12 NVLinks x 25 GB/s per direction through NVSwitch"},
};

static const link_kind INTER[] = {
    {"1gbe", 125e6, 10e-6, 0, "1 Gb/s Ethernet, TCP"},
    {"10gbe", 1.25e9, 5e-6, 0, "10 Gb/s Ethernet, TCP"},
    {"25gbe", 3.125e9, 5e-6, 0, "25 Gb/s Ethernet, TCP"},
    {"40gbe", 5e9, 5e-6, 0, "40 Gb/s Ethernet, TCP"},
    {"100gbe", 12.5e9, 5e-6, 0, "100 Gb/s Ethernet, TCP"},
    {"roce25", 3.125e9, 2e-6, 1, "25 Gb/s Ethernet with RoCE v2 (RDMA)"},
    {"ib-fdr", 6.82e9, 0.7e-6, 1, "InfiniBand FDR 4x: 56 Gb/s signalling, 64b/66b"},
    {"ib-edr", 12.5e9, 0.6e-6, 1, "InfiniBand EDR 4x: 100 Gb/s"},
    {"ib-hdr", 25e9, 0.6e-6, 1, "InfiniBand HDR 4x: 200 Gb/s"},
    /* measured, not a data sheet: data/measured/aries_pingpong.csv */
    {"aries", 9.73e9, 0.555e-6, 1,
     "Cray Aries (XC50, Piz Daint): MPI ping-pong 1.11 us one way, 9.73 GB/s between 2 and 4 MiB (OSU 5.3.2, "
     "Cray MPT 7.7.2; eth-cscs/sarus doc/cookbook/osu_mb); the latency split over the route's two NIC links"},
};

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
    if (*end || errno || !(gbits > 0 && gbits <= 1e4)) return NULL;
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

#define BUILTIN(nm, gp, g, in, out, k, src)                                                                            \
    {                                                                                                                  \
        .name = nm, .gpu = gp, .gpus_per_node = g, .intra = &INTRA[in], .inter = &INTER[out], .nics = k,               \
        .topo = TOPO_STAR, .oversub = 1, .leaf_nodes = 16, .nodes = 0, .source = src                                   \
    }

static const cluster_spec BUILTINS[] = {
    BUILTIN("terngrad-ethernet", "GTX 1080", 4, 0, 0, 1,
            "TernGrad (Wen et al. 2017), Figure 5(a): 4 GTX 1080 per node behind one PCIe switch, 1 Gb/s Ethernet"),
    BUILTIN("terngrad-infiniband", "P100", 4, 1, 7, 1,
            "TernGrad (Wen et al. 2017), Figure 5(b): 4 P100 per node on NVLink, 100 Gb/s InfiniBand"),
    BUILTIN("dgx1", "P100", 8, 1, 7, 4, "NVIDIA DGX-1 (P100) datasheet: 8 P100 on NVLink, 4 InfiniBand EDR ports"),
    BUILTIN("dgx1-v100", "V100", 8, 2, 7, 4,
            "NVIDIA DGX-1 (V100) datasheet: 8 V100 on NVLink 2, 4 InfiniBand EDR ports"),
    BUILTIN("p2.8xlarge", "K80", 8, 0, 1, 1, "AWS EC2 P2 instances: p2.8xlarge, 8 K80 GPUs on PCIe, 10 Gb/s network"),
    BUILTIN("p3.16xlarge", "V100", 8, 2, 2, 1, "AWS EC2 P3 instances: p3.16xlarge, 8 V100 on NVLink, 25 Gb/s network"),
    BUILTIN("roce25", "V100", 4, 0, 5, 1, "a common on-premise cluster: 4 V100 (PCIe) per node, 25 GbE with RoCE"),
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
            return snprintf(why, cap, "is not %s%s", list, intra ? "" : ", or Ngbe (any N > 0 Gb/s: 20gbe, 0.1gbe)"),
                   -1;
    } else if (strcmp(k, "nics") == 0) {
        if (parse_pos_int(v, &c->nics, 64)) return snprintf(why, cap, "must be 1..64"), -1;
    } else if (strcmp(k, "topology") == 0) {
        if (strcmp(v, "star") == 0)
            c->topo = TOPO_STAR;
        else if (strcmp(v, "fat-tree") == 0)
            c->topo = TOPO_FAT_TREE;
        else
            return snprintf(why, cap, "is not star or fat-tree"), -1;
    } else if (strcmp(k, "oversub") == 0) {
        char *end;
        c->oversub = strtod(v, &end);
        if (*end || end == v || !(c->oversub >= 1 && c->oversub <= 64)) return snprintf(why, cap, "must be 1..64"), -1;
    } else if (strcmp(k, "leaf") == 0) {
        if (parse_pos_int(v, &c->leaf_nodes, 4096)) return snprintf(why, cap, "must be 1..4096"), -1;
    } else if (strcmp(k, "nodes") == 0) {
        if (parse_pos_int(v, &c->nodes, 65536)) return snprintf(why, cap, "must be 1..65536"), -1;
    }
    return 0;
}

static const char *const SPEC_KEYS[] = {"gpus-per-node", "gpu",     "intra", "inter", "nics",
                                        "topology",      "oversub", "leaf",  "nodes", NULL};
/* what a user's XML says in properties; its size comes from its hosts */
static const char *const XML_KEYS[] = {"gpu", "intra", "inter", "nics", "topology", "oversub", "leaf", NULL};

/* ---- a user's XML -------------------------------------------------------------------- */

/* Value of attribute `name` in the tag starting at `tag`, XML entities
 * (&amp; &lt; &gt; &quot; &apos;) decoded, copied into out. */
static int attr(const char *tag, const char *name, char *out, size_t cap)
{
    const char *end = strchr(tag, '>');
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", name);
    const char *a = strstr(tag, pat);
    if (!a || (end && a > end)) return -1;
    a += strlen(pat);
    char q = *a;
    if (q != '"' && q != '\'') return -1;
    const char *z = strchr(a + 1, q);
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
    c->source = "a user's SimGrid XML";
    gq_err e = GQ_OK;
    if (!strstr(text, "<platform"))
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: not a SimGrid platform (no <platform>)", path);
    /* properties: <prop id="gqsim.X" value="Y"/> */
    int seen[sizeof XML_KEYS / sizeof XML_KEYS[0]] = {0};
    for (const char *p = text; e == GQ_OK && (p = strstr(p, "<prop ")) != NULL; p++) {
        char id[64], v[sizeof c->gpu], why[256];
        if (attr(p, "id", id, sizeof id) || strncmp(id, "gqsim.", 6) != 0) continue;
        const char *key = id + 6;
        size_t k = 0;
        while (XML_KEYS[k] && strcmp(key, XML_KEYS[k]) != 0) k++;
        if (!XML_KEYS[k])
            e = gq_fail(GQ_ERR_SPEC, msg, cap,
                        "%s: unknown property %s (gqsim.gpu, .intra, .inter, .nics, .topology, .oversub, .leaf)", path,
                        id);
        else if (seen[k]++)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: property %s is given twice", path, id);
        else if (attr(p, "value", v, sizeof v) || !v[0])
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
    for (const char *p = text; e == GQ_OK && (p = strstr(p, "<host ")) != NULL; p++) {
        char id[64];
        int n, g, used = -1;
        if (attr(p, "id", id, sizeof id) == 0 && sscanf(id, "n%dg%d%n", &n, &g, &used) == 2 && used > 0 &&
            id[used] == '\0' && n >= 0 && g >= 0 && n < 65536 && g < 1024) {
            nodes = n + 1 > nodes ? n + 1 : nodes;
            per_node = g + 1 > per_node ? g + 1 : per_node;
        }
    }
    for (const char *p = text; e == GQ_OK && (p = strstr(p, "<cluster ")) != NULL; p++) {
        char prefix[64], radical[64];
        int n, lo, hi, used = -1; /* %n is not stored when the 'g' does not match */
        if (attr(p, "prefix", prefix, sizeof prefix) || attr(p, "radical", radical, sizeof radical)) continue;
        if (sscanf(prefix, "n%dg%n", &n, &used) == 1 && used > 0 && prefix[used] == '\0' &&
            sscanf(radical, "%d-%d", &lo, &hi) == 2 && lo == 0 && hi >= 0 && n >= 0 && n < 65536 && hi < 1024) {
            nodes = n + 1 > nodes ? n + 1 : nodes;
            per_node = hi + 1 > per_node ? hi + 1 : per_node;
        }
    }
    if (e == GQ_OK && nodes == 0)
        e = gq_fail(GQ_ERR_SPEC, msg, cap,
                    "%s: no GPU hosts named n<NODE>g<GPU> (hosts or cluster prefix=\"n<NODE>g\")", path);
    if (e == GQ_OK && c->topo == TOPO_STAR && c->oversub != 1)
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: gqsim.oversub needs gqsim.topology=fat-tree", path);
    c->nodes = nodes;
    c->gpus_per_node = per_node;
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
        for (size_t i = 0; i < cluster_builtin_count(); i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, BUILTINS[i].name, sizeof names - strlen(names) - 1);
        }
        return gq_fail(GQ_ERR_SPEC, msg, cap, "unknown platform '%s' (built-in: %s; or cluster:key=value,...)", spec,
                       names);
    }
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "cluster");
    c->nics = 1;
    c->oversub = 1;
    c->leaf_nodes = 16;
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
                           "oversub, leaf, nodes)",
                           k);
        if (r != 0) return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: %s=%s %s", k, v, why);
    }
    if (!c->gpus_per_node || !c->gpu[0] || !c->intra || !c->inter)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: needs gpus-per-node=, gpu=, intra= and inter=");
    if (c->topo == TOPO_STAR && c->oversub != 1)
        return gq_fail(GQ_ERR_SPEC, msg, cap, "cluster: oversub= needs topology=fat-tree");
    return GQ_OK;
}

int cluster_nodes_for(const cluster_spec *c, int gpus) { return (gpus + c->gpus_per_node - 1) / c->gpus_per_node; }

int cluster_nodes_built(const cluster_spec *c, int gpus)
{
    int used = cluster_nodes_for(c, gpus);
    return c->nodes > used ? c->nodes : used;
}

double cluster_nic_bandwidth(const cluster_spec *c) { return c->inter->bandwidth * c->nics; }

int cluster_format(const cluster_spec *c, char *buf, size_t cap)
{
    char nodes[32] = "";
    if (c->nodes) snprintf(nodes, sizeof nodes, ",nodes=%d", c->nodes);
    return snprintf(buf, cap,
                    "cluster:gpus-per-node=%d,gpu=%s,intra=%s,inter=%s,nics=%d,topology=%s,oversub=%g,leaf=%d%s",
                    c->gpus_per_node, c->gpu, c->intra->name, c->inter->name, c->nics,
                    c->topo == TOPO_STAR ? "star" : "fat-tree", c->oversub, c->leaf_nodes, nodes);
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

char *cluster_xml(const cluster_spec *c, int nodes, cluster_xml_layout layout)
{
    sbuf b = {malloc(4096), 0, 4096, 0};
    if (!b.s) return NULL;
    b.s[0] = '\0';
    const double nic = cluster_nic_bandwidth(c);
    put(&b, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    put(&b,
        "<!-- gqsim: %d node(s) of %d GPUs; intra %s (%.4g GB/s, %.3g us); inter %d x %s (%.4g GB/s, %.3g us); %s.\n"
        "     The gqsim.* properties let 'gqsim simulate --platform THIS.xml' read it back; hosts are n<NODE>g<GPU>. "
        "-->\n",
        nodes, c->gpus_per_node, c->intra->name, c->intra->bandwidth / 1e9, c->intra->latency * 1e6, c->nics,
        c->inter->name, c->inter->bandwidth / 1e9, c->inter->latency * 1e6,
        c->topo == TOPO_STAR ? "non-blocking switch" : "fat-tree");
    const int leaves = c->topo == TOPO_FAT_TREE ? (nodes + c->leaf_nodes - 1) / c->leaf_nodes : 0;
    /* Floyd's tables are O(nodes^2) in memory and O(nodes^3) to build; a star's
     * routes are found on demand (DijkstraCache). SimGrid 3.32's Dijkstra
     * crashes on the fat-tree's routed fabric zone, which keeps Floyd. */
    put(&b, "<platform version=\"4.1\">\n<zone id=\"world\" routing=\"%s\">\n",
        leaves || layout == CLUSTER_XML_FLAT ? "Floyd" : "DijkstraCache");
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
    /* A star of many nodes goes in racks of RACK_NODES: each rack zone holds
     * its nodes, their NICs and a gateway router, and reaches the switch over
     * a backplane that neither delays nor limits (a fat pipe at 1 PB/s), so
     * every route crosses the same NICs as in a flat star, while SimGrid's
     * route search (Dijkstra over a zone's members) stays small. */
    const int racks =
        layout == CLUSTER_XML_RACKED && !leaves && nodes > RACK_NODES ? (nodes + RACK_NODES - 1) / RACK_NODES : 0;
    for (int r = 0; r < (racks ? racks : 1); r++) {
        int first = racks ? r * RACK_NODES : 0,
            last = racks && (r + 1) * RACK_NODES < nodes ? (r + 1) * RACK_NODES : nodes;
        const char *ind = racks ? "    " : "  ";
        if (racks) put(&b, "  <zone id=\"rack%d\" routing=\"DijkstraCache\">\n", r);
        for (int i = first; i < last; i++)
            put(&b,
                "%s<cluster id=\"node%d\" prefix=\"n%dg\" suffix=\"\" radical=\"0-%d\" speed=\"1f\" bw=\"%.17gBps\" "
                "lat=\"%.17gs\" router_id=\"node%d_router\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                ind, i, i, c->gpus_per_node - 1, c->intra->bandwidth, c->intra->latency, i);
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
        for (int i = first; i < last; i++)
            put(&b, "%s<link id=\"nic%d\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                ind, i, nic, c->inter->latency);
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
        put(&b, "  <link id=\"backplane\" bandwidth=\"1e15Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n");
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
