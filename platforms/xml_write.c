/* A cluster as SimGrid platform XML; see platform.h.
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
#include "host_names.h"
#include "phys_range.h"
#include "platform_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A number in the fewest digits that read back as the same double (1e-05, not 1.0000000000000001e-05; whole numbers
 * as integers): SimGrid
 * parses the same value, and a person reads the XML. G(x) formats into a buffer of the statement's own. */
const char *platform_shortest(double v, char *buf)
{
    if (v == floor(v) && fabs(v) < 1e15) return snprintf(buf, 32, "%.0f", v), buf; /* rates in whole bytes/s */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}
#define G(x) platform_shortest((x), (char[32]){0})

enum { RACK_NODES = 32 };

/* The links of node i's zone, its grouped stand-in's, or (with host_cpu) with the memory bus to its host CPU. */
static void put_node_links(sbuf *b, const cluster_spec *c, int i, const char *ind, int host_cpu)
{
    static const char LINK[] = "%s<link id=\"node%d_%s\" bandwidth=\"%sBps\" latency=\"%ss\" "
                               "sharing_policy=\"SPLITDUPLEX\"/>\n";
    if (c->grouped.group_bw > 0) {
        put(b, LINK, ind, i, "lead", G(c->grouped.lead_bw), G(c->grouped.lead_lat));
        put(b, LINK, ind, i, "group", G(c->grouped.group_bw), G(c->grouped.group_lat));
        return;
    }
    for (int k = 0; k < node_link_count(c); k++) {
        node_link l = node_link_at(c, k);
        put(b, LINK, ind, i, l.name, G(l.bandwidth), G(l.latency));
    }
    if (host_cpu)
        put(b, "%s<link id=\"node%d_membus\" bandwidth=\"%sBps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n", ind, i,
            G(phys_range_of(PHYS_FATPIPE_RATE)->hi));
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
    char inner[16], h[HOST_NAME_CAP], h2[HOST_NAME_CAP];
    snprintf(inner, sizeof inner, "%s  ", ind);
    if (!node_has_links(c, host_cpu)) {
        put(b,
            "%s<cluster id=\"node%d\" prefix=\"%s\" suffix=\"\" radical=\"0-%d\" speed=\"1f\" bw=\"%sBps\" "
            "lat=\"%ss\" router_id=\"node%d_router\" sharing_policy=\"SPLITDUPLEX\"/>\n",
            ind, i, host_gpu_prefix(h, i), c->gpus_per_node - 1, G(c->intra->bandwidth), G(c->intra->latency), i);
        return;
    }
    put(b, "%s<zone id=\"node%d\" routing=\"Full\">\n", ind, i);
    if (c->grouped.group_bw > 0) { /* the engine's stand-in: the first GPU, and one host for the others */
        put(b, "%s<host id=\"%s\" speed=\"1f\"/>\n%s<host id=\"%s\" speed=\"1f\"/>\n", inner,
            host_name(h, HOST_GPU, i, 0), inner, host_name(h2, HOST_GPU, i, 1));
        put(b, "%s<router id=\"node%d_router\"/>\n", inner, i);
        if (!links_outside) put_node_links(b, c, i, inner, 0);
        /* the stand-in host (GPU 1) to the first GPU and back, the first GPU to the router and back; -1: the router */
        static const struct {
            int from, to;
            const char *link;
        } R[] = {{1, 0, "group\" direction=\"UP"},
                 {0, 1, "group\" direction=\"DOWN"},
                 {0, -1, "lead\" direction=\"UP"},
                 {-1, 0, "lead\" direction=\"DOWN"}};
        for (int k = 0; k < 4; k++) {
            char src[HOST_NAME_CAP], dst[HOST_NAME_CAP];
            if (R[k].from < 0)
                snprintf(src, sizeof src, "node%d_router", i);
            else
                host_name(src, HOST_GPU, i, R[k].from);
            if (R[k].to < 0)
                snprintf(dst, sizeof dst, "node%d_router", i);
            else
                host_name(dst, HOST_GPU, i, R[k].to);
            put(b, "%s<route src=\"%s\" dst=\"%s\" symmetrical=\"NO\"><link_ctn id=\"node%d_%s\"/></route>\n", inner,
                src, dst, i, R[k].link);
        }
        put(b, "%s</zone>\n", ind);
        return;
    }
    const int G = c->gpus_per_node, CPU = G; /* the host CPU, after the GPUs */
    for (int g = 0; g < G; g++) put(b, "%s<host id=\"%s\" speed=\"1f\"/>\n", inner, host_name(h, HOST_GPU, i, g));
    if (host_cpu) put(b, "%s<host id=\"%s\" speed=\"1f\"/>\n", inner, host_name(h, HOST_CPU, i, 0));
    put(b, "%s<router id=\"node%d_router\"/>\n", inner, i);
    if (!links_outside) put_node_links(b, c, i, inner, host_cpu);
    for (int from = NODE_GATEWAY; from < G + host_cpu; from++)
        for (int to = NODE_GATEWAY; to < G + host_cpu; to++) {
            if (from == to) continue;
            /* the host CPU sits at the gateway, one memory bus away */
            node_route r;
            node_route_between(c, from == CPU ? NODE_GATEWAY : from, to == CPU ? NODE_GATEWAY : to, &r);
            char src[HOST_NAME_CAP], dst[HOST_NAME_CAP];
            if (from < 0)
                snprintf(src, sizeof src, "node%d_router", i);
            else
                host_name(src, from == CPU ? HOST_CPU : HOST_GPU, i, from);
            if (to < 0)
                snprintf(dst, sizeof dst, "node%d_router", i);
            else
                host_name(dst, to == CPU ? HOST_CPU : HOST_GPU, i, to);
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

/* The hubs (CLUSTER_XML_HUB, stars only): one a node, hub<i>, on its node's switch (the fabric's, or its rack's
 * gateway router) over a link of its own, never the bottleneck and of a NIC's latency, so that node i's flow to its
 * hub crosses what its flows to another node crossed up to the switch, and as much delay. One hub a node, not one
 * for all: flows that share a link, even a fat pipe that never limits them, are one system for SimGrid's solver,
 * which solved all the hub's flows at each flow's start and end; a node's own hub keeps its flows a system of
 * their own, at the same rates. The links (hublink<i>), then the hosts, then the routes: */
static void put_hub_links(sbuf *b, const cluster_spec *c, int first, int last, const char *ind)
{
    for (int i = first; i < last; i++)
        put(b, "%s<link id=\"hublink%d\" bandwidth=\"%sBps\" latency=\"%ss\" sharing_policy=\"FATPIPE\"/>\n", ind, i,
            G(phys_range_of(PHYS_FATPIPE_RATE)->hi), G(c->inter->latency));
}
static void put_hub_hosts(sbuf *b, int first, int last, const char *ind)
{
    char h[HOST_NAME_CAP];
    for (int i = first; i < last; i++) put(b, "%s<host id=\"%s\" speed=\"1f\"/>\n", ind, host_name(h, HOST_HUB, i, 0));
}
static void put_hub_routes(sbuf *b, int first, int last, const char *router, const char *ind)
{
    char h[HOST_NAME_CAP];
    for (int i = first; i < last; i++)
        put(b, "%s<route src=\"%s\" dst=\"%s\"><link_ctn id=\"hublink%d\"/></route>\n", ind,
            host_name(h, HOST_HUB, i, 0), router, i);
}

/* The file's head: the XML declaration, a comment saying what it is, the top zone and the gqsim.* properties that
 * let a user's copy be read back. */
static void put_head(sbuf *b, const cluster_spec *c, int nodes, int layout, int leaves)
{
    char node[96];
    cluster_node_keys(c, node, sizeof node);
    put(b, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    put(b,
        "<!-- gqsim: %d node(s) of %d GPUs; intra %s (%.4g GB/s, %.3g us); inter %d x %s (%.4g GB/s, %.3g us); "
        "%s%s%s.\n"
        "     The gqsim.* properties let 'gqsim simulate --platform THIS.xml' read it back; hosts are n<NODE>g<GPU>. "
        "-->\n",
        nodes, c->gpus_per_node, c->intra->name, c->intra->bandwidth / 1e9, c->intra->latency * 1e6, c->nics,
        c->inter->name, c->inter->bandwidth / 1e9, c->inter->latency * 1e6,
        c->topo == TOPO_STAR ? "non-blocking switch" : "fat-tree", node[0] ? "; inside a node " : "",
        node[0] ? node + 1 : "");
    /* Floyd's tables are O(nodes^2) in memory and O(nodes^3) to build; a star's
     * routes are found on demand (DijkstraCache). SimGrid 3.32's Dijkstra
     * crashes on the fat-tree's routed fabric zone, which keeps Floyd. */
    put(b, "<platform version=\"4.1\">\n<zone id=\"world\" routing=\"%s\">\n",
        leaves || !(layout & CLUSTER_XML_RACKED) ? "Floyd" : "DijkstraCache");
    put(b, "  <prop id=\"gqsim.gpu\" value=\"");
    for (const char *g = c->gpu; *g; g++) { /* a user's GPU name, as an attribute value */
        switch (*g) {
        case '&': put(b, "&amp;"); break;
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '"': put(b, "&quot;"); break;
        case '\'': put(b, "&apos;"); break;
        default: put(b, "%c", *g);
        }
    }
    put(b, "\"/>\n  <prop id=\"gqsim.intra\" value=\"%s\"/>\n  <prop id=\"gqsim.inter\" value=\"%s\"/>\n",
        c->intra->name, c->inter->name);
    put(b, "  <prop id=\"gqsim.nics\" value=\"%d\"/>\n  <prop id=\"gqsim.topology\" value=\"%s\"/>\n", c->nics,
        c->topo == TOPO_STAR ? "star" : "fat-tree");
    if (c->topo == TOPO_FAT_TREE)
        put(b, "  <prop id=\"gqsim.oversub\" value=\"%s\"/>\n  <prop id=\"gqsim.leaf\" value=\"%d\"/>\n", G(c->oversub),
            c->leaf_nodes);
    if (c->board > 1) put(b, "  <prop id=\"gqsim.board\" value=\"%d\"/>\n", c->board);
    if (c->pcie_switch) put(b, "  <prop id=\"gqsim.pcie-switch\" value=\"%d\"/>\n", c->pcie_switch);
    if (c->sockets > 1)
        put(b, "  <prop id=\"gqsim.sockets\" value=\"%d\"/>\n  <prop id=\"gqsim.socket-link\" value=\"%s\"/>\n",
            c->sockets, c->socket_link->name);
    if (c->mesh) put(b, "  <prop id=\"gqsim.mesh\" value=\"cube\"/>\n");
    if (c->rpc) put(b, "  <prop id=\"gqsim.rpc\" value=\"%s\"/>\n", cluster_rpc_name(c->rpc));
    if (c->node_hour_cost > 0) put(b, "  <prop id=\"gqsim.node-hour-cost\" value=\"%s\"/>\n", G(c->node_hour_cost));
}

/* A rack of plain nodes as one zone (flat_racks): the DTD wants hosts and routers, then routes. */
static void put_flat_rack(sbuf *b, const cluster_spec *c, int r, int first, int last, int hub, const char *router)
{
    char h[HOST_NAME_CAP];
    for (int i = first; i < last; i++)
        for (int g = 0; g < c->gpus_per_node; g++)
            put(b, "    <host id=\"%s\" speed=\"1f\"/>\n", host_name(h, HOST_GPU, i, g));
    if (hub) put_hub_hosts(b, first, last, "    ");
    for (int i = first; i < last; i++) put(b, "    <router id=\"node%d_router\"/>\n", i);
    put(b, "    <router id=\"%s\"/>\n", router);
    for (int i = first; i < last; i++) {
        for (int g = 0; g < c->gpus_per_node; g++)
            put(b,
                "    <route src=\"%s\" dst=\"node%d_router\"><link_ctn id=\"node%d_g%d\" "
                "direction=\"UP\"/></route>\n",
                host_name(h, HOST_GPU, i, g), i, i, g);
        put(b,
            "    <route src=\"node%d_router\" dst=\"rack%d_router\"><link_ctn id=\"nic%d\" "
            "direction=\"UP\"/></route>\n",
            i, r, i);
    }
    if (hub) put_hub_routes(b, first, last, router, "    ");
    put(b, "  </zone>\n");
}

/* The switch of an unracked platform: a star's (with the nodes' hubs on it), or a fat tree's core, leaves and
 * uplinks (the DTD wants routers, then links, then routes). */
static void put_fabric(sbuf *b, const cluster_spec *c, int nodes, int first, int last, int leaves, int hub)
{
    put(b, "  <zone id=\"fabric\" routing=\"%s\">\n", leaves ? "Floyd" : "Full");
    if (hub && !leaves) put_hub_hosts(b, first, last, "    ");
    if (!leaves) {
        put(b, "    <router id=\"switch\"/>\n");
        if (hub) put_hub_links(b, c, first, last, "    "), put_hub_routes(b, first, last, "switch", "    ");
    } else { /* the DTD wants routers, then links, then routes */
        put(b, "    <router id=\"core\"/>\n");
        for (int l = 0; l < leaves; l++) put(b, "    <router id=\"leaf%d\"/>\n", l);
        for (int l = 0; l < leaves; l++) {
            int members = l + 1 < leaves ? c->leaf_nodes : nodes - l * c->leaf_nodes;
            put(b,
                "    <link id=\"uplink%d\" bandwidth=\"%sBps\" latency=\"%ss\" "
                "sharing_policy=\"SPLITDUPLEX\"/>\n",
                l, G(cluster_nic_wire_bandwidth(c) * members / c->oversub), G(c->inter->latency));
        }
        for (int l = 0; l < leaves; l++)
            put(b, "    <route src=\"leaf%d\" dst=\"core\"><link_ctn id=\"uplink%d\" direction=\"UP\"/></route>\n", l,
                l);
    }
    put(b, "  </zone>\n");
}

char *cluster_xml(const cluster_spec *c, int nodes, int layout)
{
    sbuf b = {malloc(4096), 0, 4096, 0};
    if (!b.s) return NULL;
    b.s[0] = '\0';
    const double nic = cluster_nic_bandwidth(c);
    const int leaves = c->topo == TOPO_FAT_TREE ? (nodes + c->leaf_nodes - 1) / c->leaf_nodes : 0;
    put_head(&b, c, nodes, layout, leaves);
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
    const int host_cpu = (layout & CLUSTER_XML_HOST_CPUS) != 0, hub = (layout & CLUSTER_XML_HUB) != 0;
    if (racks) put(&b, "  <zone id=\"links\" routing=\"None\">\n"); /* the DTD wants zones before links */
    static const char NIC[] =
        "%s<link id=\"nic%d\" bandwidth=\"%sBps\" latency=\"%ss\" sharing_policy=\"SPLITDUPLEX\"/>\n";
    for (int i = 0; racks && i < nodes; i++) put(&b, NIC, "    ", i, G(nic), G(c->inter->latency));
    if (racks && hub) put_hub_links(&b, c, 0, nodes, "    ");
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
        char router[32]; /* the rack's gateway, where its hubs are */
        snprintf(router, sizeof router, "rack%d_router", r);
        if (racks) put(&b, "  <zone id=\"rack%d\" routing=\"DijkstraCache\">\n", r);
        if (flat_racks) {
            put_flat_rack(&b, c, r, first, last, hub, router);
            continue;
        }
        for (int i = first; i < last; i++) put_node(&b, c, i, ind, host_cpu, racks > 0);
        if (racks) {
            put(&b, "    <zone id=\"rack%d_gw\" routing=\"Full\">\n", r);
            if (hub) put_hub_hosts(&b, first, last, "      ");
            put(&b, "      <router id=\"%s\"/>\n", router);
            if (hub) put_hub_routes(&b, first, last, router, "      ");
            put(&b, "    </zone>\n");
        } else {
            put_fabric(&b, c, nodes, first, last, leaves, hub);
        }
        for (int i = first; !racks && i < last; i++) put(&b, NIC, ind, i, G(nic), G(c->inter->latency));
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
        put(&b, "  <zone id=\"fabric\" routing=\"Full\">\n");
        put(&b, "    <router id=\"switch\"/>\n");
        put(&b, "  </zone>\n");
        put(&b, "  <link id=\"backplane\" bandwidth=\"%sBps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n",
            G(phys_range_of(PHYS_FATPIPE_RATE)->hi)); /* never the bottleneck */
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
