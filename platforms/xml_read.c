/* A user's SimGrid XML as a cluster: its gqsim.* properties (the keys a
 * spec takes, but its size), its GPU hosts n<NODE>g<GPU>, and every link's
 * rate and latency checked as a spec's are (phys_range.h). */
#include "gq_file.h"
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
static gq_err check_xml_links(const char *text, const char *text_end, const char *path, double *hosts, int *half_duplex,
                              char *msg, size_t cap)
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
    /* a link without sharing_policy is SHARED by SimGrid's DTD: both directions share one bandwidth, which no NIC,
     * PCIe or NVLink link does (gqsim's own XML says SPLITDUPLEX) */
    static const char *const DUPLEX_TAGS[] = {"<link ", "<cluster "};
    *half_duplex = 0;
    for (size_t k = 0; e == GQ_OK && k < 2; k++)
        for (const char *p = text; (p = find_in(p, text_end, DUPLEX_TAGS[k])) != NULL; p++) {
            char policy[32];
            if (attr(p, text_end, "sharing_policy", policy, sizeof policy) != 0 || strcmp(policy, "SHARED") == 0)
                ++*half_duplex;
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

gq_err cluster_load_xml(const char *path, cluster_spec *c, char *msg, size_t cap)
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
    int seen[CLUSTER_KEYS_MAX] = {0};
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<prop ")) != NULL; p++) {
        char id[64], v[sizeof c->gpu], why[256];
        if (attr(p, text_end, "id", id, sizeof id) || strncmp(id, "gqsim.", 6) != 0) continue;
        const char *key = id + 6;
        const int k = cluster_key_index(key, 1);
        if (k < 0) {
            char keys[320];
            cluster_keys_list(1, "gqsim.", ".", keys, sizeof keys);
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: unknown property %s (%s)", path, id, keys);
        } else if (seen[k]++)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: property %s is given twice", path, id);
        else if (attr(p, text_end, "value", v, sizeof v) || !v[0])
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: property %s has no value (or a longer one than %zu bytes)", path,
                        id, sizeof v - 1);
        else if (cluster_set(c, key, v, 1, why, sizeof why) != 0)
            e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %s=%s %s", path, id, v, why);
    }
    if (e == GQ_OK && (!c->gpu[0] || !c->intra || !c->inter))
        e = gq_fail(GQ_ERR_SPEC, msg, cap,
                    "%s: needs the properties gqsim.gpu, gqsim.intra and gqsim.inter on its top zone", path);
    /* GPUs: <host id="n<N>g<G>"> and <cluster prefix="n<N>g" radical="0-<K>"> */
    int nodes = 0, per_node = 0;
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<host ")) != NULL; p++) {
        char id[64];
        int n, g;
        if (attr(p, text_end, "id", id, sizeof id) == 0 && host_name_parse(id, &n, &g) == HOST_GPU && n < 65536 &&
            g < 1024) {
            nodes = n + 1 > nodes ? n + 1 : nodes;
            per_node = g + 1 > per_node ? g + 1 : per_node;
        }
    }
    for (const char *p = text; e == GQ_OK && (p = find_in(p, text_end, "<cluster ")) != NULL; p++) {
        char prefix[64], radical[64];
        int lo, hi;
        if (attr(p, text_end, "prefix", prefix, sizeof prefix) || attr(p, text_end, "radical", radical, sizeof radical))
            continue;
        const int n = host_gpu_prefix_parse(prefix);
        if (n >= 0 && sscanf(radical, "%d-%d", &lo, &hi) == 2 && lo == 0 && hi >= 0 && n < 65536 && hi < 1024) {
            nodes = n + 1 > nodes ? n + 1 : nodes;
            per_node = hi + 1 > per_node ? hi + 1 : per_node;
        }
    }
    if (e == GQ_OK) e = check_xml_links(text, text_end, path, &c->xml_hosts, &c->half_duplex_links, msg, cap);
    if (e == GQ_OK && nodes == 0)
        e = gq_fail(GQ_ERR_SPEC, msg, cap,
                    "%s: no GPU hosts named n<NODE>g<GPU> (hosts or cluster prefix=\"n<NODE>g\")", path);
    if (e == GQ_OK && c->topo == TOPO_STAR && c->oversub != 1)
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: gqsim.oversub needs gqsim.topology=fat-tree", path);
    c->nodes = nodes;
    c->gpus_per_node = per_node;
    char why[200];
    if (e == GQ_OK && cluster_finish_node(c, why, sizeof why) != 0)
        e = gq_fail(GQ_ERR_SPEC, msg, cap, "%s: %s", path, why);
    return e;
}
