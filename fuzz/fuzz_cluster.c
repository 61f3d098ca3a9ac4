/* Fuzz target for cluster specs (libFuzzer entry point; standalone_main.c
 * drives it without libFuzzer). A spec either fails with a message, or
 * parses, prints as a canonical spec that parses back to the same spec, and
 * generates SimGrid XML that the XML reader takes back with the same GPU and
 * links. Inputs naming a file (ending in .xml) are skipped: that path opens
 * files, fuzz_xml covers the reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char spec[4097];
    memcpy(spec, data, size);
    spec[size] = '\0';
    size_t len = strlen(spec);
    if (len >= 4 && strcmp(spec + len - 4, ".xml") == 0) return 0;
    cluster_spec c, back, fromxml;
    char msg[512], canon[512], again[512];
    if (cluster_parse(spec, &c, msg, sizeof msg) != GQ_OK) return 0;
    cluster_format(&c, canon, sizeof canon);
    if (cluster_parse(canon, &back, msg, sizeof msg) != GQ_OK) abort();
    cluster_format(&back, again, sizeof again);
    if (strcmp(canon, again) != 0) abort();
    int nodes = c.nodes > 0 && c.nodes < 8 ? c.nodes : 3;
    char *xml = cluster_xml(
        &c, nodes, (nodes % 2 ? CLUSTER_XML_RACKED : CLUSTER_XML_FLAT) | (size % 3 ? 0 : CLUSTER_XML_HOST_CPUS));
    if (!xml) return 0;
    if (cluster_parse_xml(xml, "fuzz.xml", &fromxml, msg, sizeof msg) != GQ_OK) abort();
    if (strcmp(fromxml.gpu, c.gpu) != 0 || fromxml.intra != c.intra || fromxml.inter != c.inter ||
        fromxml.nics != c.nics || fromxml.topo != c.topo || fromxml.nodes != nodes ||
        fromxml.gpus_per_node != c.gpus_per_node || fromxml.board != c.board || fromxml.pcie_switch != c.pcie_switch ||
        fromxml.sockets != c.sockets || fromxml.socket_link != c.socket_link || fromxml.mesh != c.mesh ||
        fromxml.rpc != c.rpc)
        abort();
    /* every route inside a node stays inside it and within its hop budget */
    for (int from = NODE_GATEWAY; from < c.gpus_per_node && from < 64; from++)
        for (int to = NODE_GATEWAY; to < c.gpus_per_node && to < 64; to++) {
            node_route r;
            node_route_between(&c, from, to, &r);
            if (r.n > NODE_MAX_HOPS || (from == to) != (r.n == 0)) abort();
            for (int k = 0; k < r.n; k++)
                if (r.hop[k].link < 0 || r.hop[k].link >= node_link_count(&c)) abort();
        }
    free(xml);
    return 0;
}
