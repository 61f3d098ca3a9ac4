/* Cluster specs and their SimGrid platforms: specs parse and print back,
 * errors name the bad part, and the generated XML behaves physically when
 * SimGrid runs transfers on it (each in a forked child: SimGrid initialises
 * once per process):
 *  - one transfer takes latency + bytes / bottleneck bandwidth, to 0.1%;
 *  - GPUs of one node share its NIC: four transfers out of one node take four
 *    times one, four out of four nodes take one;
 *  - a 2:1 oversubscribed fat-tree halves cross-leaf bandwidth;
 *  - inside a node: the DGX-1's NVLinks one by one (20 GB/s a P100 link, 50 a
 *    doubled V100 pair), PCIe where the cube-mesh has no direct link, K80
 *    boards and sockets sharing their one uplink;
 *  - with the placed servers' hubs (CLUSTER_XML_HUB), flat and racked, with or
 *    without host CPUs: node i's route to hub<i> crosses its own links, its
 *    NIC up and a hub link of its own, and nothing another node's hub route
 *    crosses (a link two routes share joins their flows in one system of
 *    SimGrid's solver), with the delay of its route to another node's switch
 *    side: its links' latencies, its NIC's and one more NIC latency. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "host_names.h"
#include "platform.h"

static double BYTES = 1e8;
static int TOKEN;
static double END;

static void sender(int argc, char **argv)
{
    (void)argc;
    sg_mailbox_put(sg_mailbox_by_name(argv[1]), &TOKEN, (long)BYTES);
}
static void receiver(int argc, char **argv)
{
    (void)argc;
    sg_mailbox_get(sg_mailbox_by_name(argv[1]));
    double t = simgrid_get_clock();
    END = t > END ? t : END;
}

/* Runs setup(arg) in a forked SimGrid (CM02, no cross traffic) on `nodes` of `spec` in `layout`, then the
 * simulation, and copies `size` bytes of `result` (which the actors wrote) back from the child. @return 0, or -1
 * where the spec, the platform or the child failed. */
static int in_simgrid(const char *spec, int nodes, cluster_xml_layout layout, cluster_spec *c, void (*setup)(void *),
                      void *arg, void *result, size_t size)
{
    char msg[256];
    if (cluster_parse(spec, c, msg, sizeof msg) != GQ_OK) return -1;
    char path[] = "/tmp/gqsim-test-XXXXXX";
    int fd = mkstemp(path);
    char *xml = cluster_xml(c, nodes, layout);
    const int wrote = fd >= 0 && xml && write(fd, xml, strlen(xml)) == (ssize_t)strlen(xml);
    if (fd >= 0) close(fd);
    free(xml);
    int p[2];
    if (!wrote || pipe(p) != 0) return unlink(path), -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"t", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0", "--log=root.thres:critical",
                        NULL};
        int argc = 4;
        simgrid_init(&argc, argv);
        simgrid_load_platform(path);
        setup(arg);
        simgrid_run();
        _exit(write(p[1], result, size) == (ssize_t)size ? 0 : 1);
    }
    close(p[1]);
    const int got = read(p[0], result, size) == (ssize_t)size;
    close(p[0]);
    waitpid(pid, NULL, 0);
    unlink(path);
    return got ? 0 : -1;
}

typedef struct {
    const char *const *src, *const *dst;
    int n;
} transfer_set;
static void start_transfers(void *arg)
{
    const transfer_set *t = arg;
    for (int i = 0; i < t->n; i++) {
        char mb[16];
        snprintf(mb, sizeof mb, "m%d", i);
        const char *a[] = {"x", mb};
        sg_actor_create("s", sg_host_by_name(t->src[i]), sender, 2, (char **)a);
        sg_actor_create("r", sg_host_by_name(t->dst[i]), receiver, 2, (char **)a);
    }
}

/* Makespan of concurrent transfers src[i] -> dst[i] on `spec` with `nodes`. */
static double transfers_in(const char *spec, int nodes, cluster_xml_layout layout, const char *const *src,
                           const char *const *dst, int n)
{
    cluster_spec c;
    transfer_set t = {src, dst, n};
    END = 0;
    return in_simgrid(spec, nodes, layout, &c, start_transfers, &t, &END, sizeof END) == 0 ? END : -1;
}

static double transfers(const char *spec, int nodes, const char *const *src, const char *const *dst, int n)
{
    return transfers_in(spec, nodes, CLUSTER_XML_FLAT, src, dst, n);
}

static void test_specs(void)
{
    cluster_spec c;
    char msg[256] = "", buf[256];
    CHECK(cluster_parse("terngrad-ethernet", &c, msg, sizeof msg) == GQ_OK && c.gpus_per_node == 4 &&
              strcmp(c.inter->name, "1gbe") == 0 && strcmp(c.gpu, "GTX 1080") == 0,
          "terngrad-ethernet: 4 GTX 1080, 1 GbE");
    CHECK(cluster_parse("terngrad-infiniband", &c, msg, sizeof msg) == GQ_OK && c.inter->rdma &&
              c.inter->bandwidth == 12.5e9 && strcmp(c.intra->name, "nvlink1") == 0,
          "terngrad-infiniband: NVLink, 100 Gb/s InfiniBand");
    /* Aries: RDMA at the measured ping-pong's 9.73 GB/s, 1.11 us one way over two NIC links */
    CHECK(cluster_parse("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=aries", &c, msg, sizeof msg) == GQ_OK &&
              c.inter->rdma && c.inter->bandwidth == 9.73e9 && fabs(2 * c.inter->latency - 1.11e-6) < 1e-12,
          "inter=aries: RDMA, 9.73 GB/s, 1.11 us over two links (%s)", msg);
    for (size_t i = 0; i < cluster_builtin_count(); i++) { /* canonical specs parse back */
        cluster_spec a = *cluster_builtin(i), b;
        cluster_format(&a, buf, sizeof buf);
        CHECK(cluster_parse(buf, &b, msg, sizeof msg) == GQ_OK && b.gpus_per_node == a.gpus_per_node &&
                  b.intra == a.intra && b.inter == a.inter && b.nics == a.nics,
              "%s round-trips as %s", a.name, buf);
    }
    static const char *const BAD[][2] = {
        {"marsnet", "unknown platform 'marsnet'"},
        {"cluster:gpus-per-node=4,gpu=V100,intra=pcie3", "needs"},
        {"cluster:gpus-per-node=4,gpu=V100,intra=pcie4,inter=1gbe", "intra=pcie4"},
        {"cluster:gpus-per-node=0,gpu=V100,intra=pcie3,inter=1gbe", "gpus-per-node=0"},
        {"cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=1gbe,oversub=2", "fat-tree"},
        {"cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=1gbe,speed=9", "unknown key 'speed'"},
        {"cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=1gbe,nics=2,nics=4", "key 'nics' is given twice"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        msg[0] = '\0';
        CHECK(cluster_parse(BAD[i][0], &c, msg, sizeof msg) == GQ_ERR_SPEC && strstr(msg, BAD[i][1]),
              "'%s' -> '%s' (got '%s')", BAD[i][0], BAD[i][1], msg);
    }
    cluster_parse("terngrad-ethernet", &c, msg, sizeof msg);
    CHECK(cluster_nodes_for(&c, 512) == 128 && cluster_nodes_for(&c, 5) == 2, "512 GPUs need 128 nodes of 4");
    cluster_parse("cluster:gpus-per-node=4,gpu=V100,intra=pcie3,inter=1gbe,nodes=16", &c, msg, sizeof msg);
    CHECK(cluster_nodes_for(&c, 8) == 2 && cluster_nodes_built(&c, 8) == 16 && cluster_nodes_built(&c, 100) == 25,
          "nodes=16: 8 GPUs use 2 nodes of the 16 built; 100 GPUs need 25");
}

/* What `platforms xml` writes, the XML reader reads back: the same GPU (with
 * XML's special characters in its name), links, NICs, topology and size. */
static void test_xml_roundtrip(void)
{
    cluster_spec c, back;
    char msg[256] = "";
    CHECK(cluster_parse("cluster:gpus-per-node=3,gpu=A&B <\"x\"> 'y',intra=nvlink2,inter=25gbe,nics=2,"
                        "topology=fat-tree,oversub=2.5,leaf=2",
                        &c, msg, sizeof msg) == GQ_OK,
          "a spec with XML's special characters: %s", msg);
    char *xml = cluster_xml(&c, 5, CLUSTER_XML_FLAT);
    CHECK(xml && !strstr(xml, "A&B"), "the GPU name is escaped in the XML");
    gq_err e = xml ? cluster_parse_xml(xml, "mine.xml", &back, msg, sizeof msg) : GQ_ERR_NOMEM;
    CHECK(e == GQ_OK && strcmp(back.gpu, c.gpu) == 0 && back.intra == c.intra && back.inter == c.inter &&
              back.nics == 2 && back.topo == TOPO_FAT_TREE && back.oversub == 2.5 && back.leaf_nodes == 2 &&
              back.nodes == 5 && back.gpus_per_node == 3 && strcmp(back.xml_path, "mine.xml") == 0,
          "read back: gpu '%s', %d nodes of %d, nics %d, oversub %g, leaf %d (%s)", back.gpu, back.nodes,
          back.gpus_per_node, back.nics, back.oversub, back.leaf_nodes, msg);
    free(xml);
    static const char *const BAD[][2] = {
        {"<platform><zone><prop id=\"gqsim.gpu\" value=\"P100\"/><prop id=\"gqsim.gpu\" value=\"V100\"/>",
         "mine.xml: property gqsim.gpu is given twice"},
        {"<platform><zone><prop id=\"gqsim.speed\" value=\"1\"/>", "unknown property gqsim.speed"},
        {"<platform><zone><prop id=\"gqsim.gpu\" value=\"P100\"/><prop id=\"gqsim.intra\" value=\"pcie3\"/>"
         "<prop id=\"gqsim.inter\" value=\"1gbe\"/><cluster prefix=\"n0x\" radical=\"0-3\"/>",
         "no GPU hosts"},
        {"<zone/>", "not a SimGrid platform"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        msg[0] = '\0';
        CHECK(cluster_parse_xml(BAD[i][0], "mine.xml", &back, msg, sizeof msg) == GQ_ERR_SPEC && strstr(msg, BAD[i][1]),
              "'%s' -> '%s' (got '%s')", BAD[i][0], BAD[i][1], msg);
    }
}

static void test_physics(void)
{
    const char *eth = "cluster:gpus-per-node=4,gpu=GTX 1080,intra=pcie3,inter=10gbe";
    static const char *const S1[] = {"n1g0"}, *const D1[] = {"n0g0"};
    double one = transfers(eth, 2, S1, D1, 1);
    double expect = 2e-6 + 2 * 5e-6 + BYTES / 1.25e9; /* 2 PCIe + 2 NIC latencies, the NIC's bandwidth */
    CHECK(fabs(one / expect - 1) < 1e-3, "one transfer %.6f s, closed form %.6f s", one, expect);
    static const char *const S4[] = {"n1g0", "n1g1", "n1g2", "n1g3"}, *const D4[] = {"n0g0", "n0g1", "n0g2", "n0g3"};
    double shared = transfers(eth, 2, S4, D4, 4);
    CHECK(fabs(shared / (4 * BYTES / 1.25e9) - 1) < 0.01, "four GPUs share their node's NIC: %.4f s", shared);
    const char *eth1 = "cluster:gpus-per-node=1,gpu=GTX 1080,intra=pcie3,inter=10gbe";
    static const char *const S4b[] = {"n4g0", "n5g0", "n6g0", "n7g0"}, *const D4b[] = {"n0g0", "n1g0", "n2g0", "n3g0"};
    double spread = transfers(eth1, 8, S4b, D4b, 4);
    CHECK(fabs(spread / one - 1) < 0.01, "four nodes, four NICs: %.4f s, as one transfer", spread);
    const char *ft = "cluster:gpus-per-node=1,gpu=V100,intra=nvlink2,inter=ib-edr,topology=fat-tree,oversub=2,leaf=2";
    static const char *const SF[] = {"n2g0", "n3g0"}, *const DF[] = {"n0g0", "n1g0"};
    double cross = transfers(ft, 4, SF, DF, 2);
    /* two flows through a leaf uplink of 2 x 12.5 / 2 GB/s: each gets 6.25 GB/s */
    CHECK(fabs(cross / (BYTES / 6.25e9) - 1) < 0.01, "2:1 fat-tree: cross-leaf flows at half rate (%.5f s)", cross);

    /* the engine's racked layout (70 nodes: three racks) routes over the same
     * links: the closed forms hold across racks, and the flat layout agrees */
    static const char *const SR[] = {"n65g0"}, *const DR[] = {"n0g0"};
    double racked = transfers_in(eth, 70, CLUSTER_XML_RACKED, SR, DR, 1);
    double flat = transfers_in(eth, 70, CLUSTER_XML_FLAT, SR, DR, 1);
    CHECK(fabs(racked / expect - 1) < 1e-3, "racked: one cross-rack transfer %.6f s, closed form %.6f s", racked,
          expect);
    CHECK(fabs(racked / flat - 1) < 1e-9, "racked and flat layouts agree: %.9f s, %.9f s", racked, flat);
    static const char *const SR4[] = {"n65g0", "n65g1", "n65g2", "n65g3"}, *const DR4[] = {"n0g0", "n1g1", "n33g2",
                                                                                           "n69g3"};
    double fan = transfers_in(eth, 70, CLUSTER_XML_RACKED, SR4, DR4, 4);
    CHECK(fabs(fan / (4 * BYTES / 1.25e9) - 1) < 0.01, "racked: four GPUs to three racks share their NIC: %.4f s", fan);
}

/* The route from `from` to `to` inside a node of `spec`, as "name:U name:D ...". */
static const char *route_text(const char *spec, int from, int to)
{
    static char out[256];
    cluster_spec c;
    char msg[256];
    out[0] = '\0';
    if (cluster_parse(spec, &c, msg, sizeof msg) != GQ_OK) return snprintf(out, sizeof out, "%s", msg), out;
    node_route r;
    node_route_between(&c, from, to, &r);
    for (int k = 0; k < r.n; k++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s:%c", k ? " " : "",
                 node_link_at(&c, r.hop[k].link).name, r.hop[k].up ? 'U' : 'D');
    return out;
}

/* A key through the canonical spec and the XML: `spec` parses into *c, its canonical form holds `written`, its XML
 * the property `prop`, and that XML parses back into *back. @return 1 if all hold. */
static int key_round_trip(const char *spec, const char *written, const char *prop, cluster_spec *c, cluster_spec *back,
                          char *msg, size_t cap)
{
    char buf[512];
    if (cluster_parse(spec, c, msg, cap) != GQ_OK) return 0;
    cluster_format(c, buf, sizeof buf);
    char *xml = cluster_xml(c, 2, CLUSTER_XML_FLAT);
    const int ok =
        strstr(buf, written) && xml && strstr(xml, prop) && cluster_parse_xml(xml, "x.xml", back, msg, cap) == GQ_OK;
    free(xml);
    return ok;
}

/* Keys that contradict the node, or a value out of its range: refused, naming why. */
static void test_bad_keys(void)
{
    static const char *const BAD[][2] = {
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,board=3", "board=3 does not divide"},
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,board=2,pcie-switch=2", "larger than it"},
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,board=2,pcie-switch=8,sockets=2", "whole PCIe"},
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,socket-link=qpi", "needs sockets=2"},
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,sockets=2,socket-link=hyper", "qpi or upi"},
        {"cluster:gpus-per-node=4,gpu=P100,intra=nvlink1,inter=ib-edr,mesh=cube", "gpus-per-node=8"},
        {"cluster:gpus-per-node=8,gpu=P100,intra=pcie3,inter=ib-edr,mesh=cube", "intra=nvlink1 or nvlink2"},
        {"cluster:gpus-per-node=8,gpu=P100,intra=nvlink1,inter=ib-edr,mesh=torus", "cube or none"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,rpc=thrift", "rpc=thrift is not grpc or none"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,rpc=grpc,rpc=none", "'rpc' is given twice"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=0", "above 0 and at most 1e6"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=-3", "above 0 and at most 1e6"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=1000000.5",
         "above 0 and at most 1e6"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=nan", "above 0 and at most 1e6"},
        {"cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=$3", "above 0 and at most 1e6"},
    };
    cluster_spec c;
    char msg[256];
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        msg[0] = '\0';
        CHECK(cluster_parse(BAD[i][0], &c, msg, sizeof msg) == GQ_ERR_SPEC && strstr(msg, BAD[i][1]),
              "'%s' -> '%s' (got '%s')", BAD[i][0], BAD[i][1], msg);
    }
}

/* rpc= and node-hour-cost= survive the canonical spec and the XML (a price in its shortest form, 1e6 an hour the
 * most); their defaults (none, no price) are not written */
static void test_optional_keys(void)
{
    cluster_spec c, back;
    char msg[256] = "", buf[512];
    CHECK(key_round_trip("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=10gbe,rpc=grpc", ",rpc=grpc",
                         "<prop id=\"gqsim.rpc\" value=\"grpc\"/>", &c, &back, msg, sizeof msg) &&
              c.rpc == RPC_GRPC && back.rpc == RPC_GRPC,
          "rpc=grpc in the spec and through the XML (%s)", msg);
    CHECK(cluster_parse("cluster:gpus-per-node=2,gpu=P100,intra=pcie3,inter=10gbe,rpc=none", &c, msg, sizeof msg) ==
                  GQ_OK &&
              c.rpc == RPC_NONE && cluster_format(&c, buf, sizeof buf) > 0 && !strstr(buf, "rpc"),
          "rpc=none is the default, left out of the canonical spec (%s)", buf);
    CHECK(key_round_trip("cluster:gpus-per-node=8,gpu=V100,intra=nvlink2,inter=100gbe,node-hour-cost=24.48",
                         ",node-hour-cost=24.48", "<prop id=\"gqsim.node-hour-cost\" value=\"24.48\"/>", &c, &back, msg,
                         sizeof msg) &&
              c.node_hour_cost == 24.48 && back.node_hour_cost == 24.48,
          "node-hour-cost=24.48 in the spec and through the XML (%s)", msg);
    CHECK(cluster_parse("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe,node-hour-cost=1e6", &c, msg,
                        sizeof msg) == GQ_OK &&
              c.node_hour_cost == 1e6,
          "node-hour-cost=1e6, the bound, is a price (%s)", msg);
    CHECK(cluster_parse("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=10gbe", &c, msg, sizeof msg) == GQ_OK &&
              c.node_hour_cost == 0 && cluster_format(&c, buf, sizeof buf) > 0 && !strstr(buf, "cost"),
          "no price: none written (%s)", buf);
}

static void test_inside_node(void)
{
    static const struct {
        const char *spec;
        int from, to;
        const char *route;
    } R[] = {
        /* the cube-mesh: quads 0-3 and 4-7 joined in full, i to i + 4; other pairs over PCIe */
        {"dgx1", 0, 3, "nv0-3:U"},
        {"dgx1", 4, 0, "nv0-4:D"},
        {"dgx1", 0, 5, "g0:U switch0:U socket1:D switch2:D g5:D"},
        {"dgx1", 3, 4, "g3:U switch1:U socket1:D switch2:D g4:D"},
        {"dgx1", 7, 0, "g7:U switch3:U socket1:U switch0:D g0:D"},
        {"dgx1", 6, 7, "nv6-7:U"},
        /* to the NICs: PCIe, pairs on a switch, the second socket through QPI */
        {"dgx1", 1, NODE_GATEWAY, "g1:U switch0:U"},
        {"dgx1", 6, NODE_GATEWAY, "g6:U switch3:U socket1:U"},
        {"dgx1", NODE_GATEWAY, 5, "socket1:D switch2:D g5:D"},
        /* K80 boards: two GPUs behind one x16 */
        {"p2.16xlarge", 0, 1, "g0:U g1:D"},
        {"p2.16xlarge", 1, 2, "g1:U board0:U board1:D g2:D"},
        {"p2.16xlarge", 3, 12, "g3:U board1:U socket1:D board6:D g12:D"},
        {"p2.16xlarge", 9, NODE_GATEWAY, "g9:U board4:U socket1:U"},
        /* boards under switches: the same switch skips its uplink */
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,board=2,pcie-switch=4", 0, 3,
         "g0:U board0:U board1:D g3:D"},
        {"cluster:gpus-per-node=8,gpu=K80,intra=pcie3,inter=10gbe,board=2,pcie-switch=4", 0, 4,
         "g0:U board0:U switch0:U switch1:D board2:D g4:D"},
        /* the plain node: each GPU's own link */
        {"terngrad-ethernet", 2, 0, "g2:U g0:D"},
        {"terngrad-ethernet", 2, NODE_GATEWAY, "g2:U"},
    };
    for (size_t i = 0; i < sizeof R / sizeof R[0]; i++) {
        const char *got = route_text(R[i].spec, R[i].from, R[i].to);
        CHECK(strcmp(got, R[i].route) == 0, "%s: %d -> %d is '%s' (got '%s')", R[i].spec, R[i].from, R[i].to,
              R[i].route, got);
    }

    /* SimGrid on the generated zones, against closed forms */
    static const char *const A[] = {"n0g0"}, *const B[] = {"n0g1"}, *const C5[] = {"n0g5"};
    double t = transfers("dgx1", 1, A, B, 1);
    CHECK(fabs(t / (1e-6 + BYTES / 20e9) - 1) < 1e-3, "dgx1: one NVLink, 20 GB/s: %.6f s", t);
    t = transfers("dgx1", 1, A, C5, 1);
    CHECK(fabs(t / (2e-6 + BYTES / 15.75e9) - 1) < 1e-3, "dgx1: 0 -> 5, no NVLink, over PCIe: %.6f s", t);
    static const char *const S3[] = {"n0g5", "n0g6", "n0g7", "n0g1"}, *const D3s[] = {"n0g0", "n0g0", "n0g0", "n0g0"};
    t = transfers("dgx1", 1, S3, D3s, 4);
    CHECK(fabs(t / (3 * BYTES / 15.75e9) - 1) < 0.01, "dgx1: 5, 6, 7 -> 0 share GPU 0's PCIe x16, 1 -> 0 not: %.6f s",
          t);
    static const char *const D3[] = {"n0g3"};
    t = transfers("dgx1-v100", 1, A, D3, 1);
    CHECK(fabs(t / (1e-6 + BYTES / 50e9) - 1) < 1e-3, "dgx1-v100: 0 -> 3 on a doubled NVLink, 50 GB/s: %.6f s", t);
    t = transfers("dgx1-v100", 1, A, B, 1);
    CHECK(fabs(t / (1e-6 + BYTES / 25e9) - 1) < 1e-3, "dgx1-v100: 0 -> 1 on a single one, 25 GB/s: %.6f s", t);
    static const char *const K0[] = {"n0g0"}, *const K1[] = {"n0g1"}, *const K2[] = {"n0g2"};
    t = transfers("p2.8xlarge", 1, K0, K1, 1);
    CHECK(fabs(t / (2e-6 + BYTES / 15.75e9) - 1) < 1e-3, "K80: on the board, 15.75 GB/s: %.6f s", t);
    t = transfers("p2.8xlarge", 1, K0, K2, 1);
    CHECK(fabs(t / (2e-6 + BYTES / 15.75e9) - 1) < 1e-3, "K80: board to board alone, 15.75 GB/s: %.6f s", t);
    static const char *const SB[] = {"n0g0", "n0g1"}, *const DB[] = {"n0g2", "n0g3"};
    t = transfers("p2.8xlarge", 1, SB, DB, 2);
    CHECK(fabs(t / (2 * BYTES / 15.75e9) - 1) < 0.01, "K80: a board's two GPUs share its x16: %.6f s", t);
    static const char *const SQ[] = {"n0g0", "n0g2", "n0g4", "n0g6"}, *const DQ[] = {"n0g8", "n0g10", "n0g12", "n0g14"};
    t = transfers("p2.16xlarge", 1, SQ, DQ, 4);
    CHECK(fabs(t / (BYTES / (38.4e9 / 4)) - 1) < 0.01, "p2.16xlarge: four boards' flows share QPI's 38.4 GB/s: %.6f s",
          t);
    /* across nodes: the dgx1 leader reaches the NICs over its PCIe x16, below the 4 x 12.5 GB/s of the NICs */
    static const char *const X[] = {"n1g0"};
    t = transfers("dgx1", 2, X, A, 1);
    CHECK(fabs(t / (2e-6 + 2 * 0.6e-6 + BYTES / 15.75e9) - 1) < 1e-3, "dgx1: node to node at PCIe's 15.75 GB/s: %.6f s",
          t);
    t = transfers_in("dgx1", 40, CLUSTER_XML_RACKED, X, A, 1);
    CHECK(fabs(t / (2e-6 + 2 * 0.6e-6 + BYTES / 15.75e9) - 1) < 1e-3, "dgx1, racked: the same: %.6f s", t);

    /* the fan-in to GPU 0 under max-min, as one link: on a DGX-1, 1-4 arrive over their NVLinks (1/20 GB/s) while
     * 5, 6, 7 share GPU 0's x16 (3/15.75 GB/s, the last to end): 7 buffers in 3/15.75 GB/s; on K80 boards every
     * flow ends at GPU 0's x16, 1/15.75 GB/s each */
    static const struct {
        const char *spec;
        double bw, lat;
    } FAN[] = {{"dgx1", 7 * 15.75e9 / 3, 2e-6},
               {"p2.8xlarge", 15.75e9, 2e-6},
               {"p2.16xlarge", 15.75e9, 2e-6},
               {"terngrad-ethernet", 15.75e9, 2e-6}};
    for (size_t i = 0; i < sizeof FAN / sizeof FAN[0]; i++) {
        cluster_spec f;
        char m[256];
        double bw = 0, lat = 0;
        CHECK(cluster_parse(FAN[i].spec, &f, m, sizeof m) == GQ_OK && node_fan_in(&f, &bw, &lat) == 0 &&
                  fabs(bw / FAN[i].bw - 1) < 1e-9 && fabs(lat - FAN[i].lat) < 1e-15,
              "%s: fan-in as one link %.6g B/s, %.3g s (closed form %.6g, %.3g)", FAN[i].spec, bw, lat, FAN[i].bw,
              FAN[i].lat);
    }

    cluster_spec c, back;
    char msg[256];
    /* the node's keys survive the canonical spec and the XML */
    for (size_t i = 0; i < cluster_builtin_count(); i++) {
        const cluster_spec *a = cluster_builtin(i);
        char buf[512];
        cluster_format(a, buf, sizeof buf);
        char *xml = cluster_xml(a, 2, CLUSTER_XML_FLAT);
        CHECK(cluster_parse(buf, &c, msg, sizeof msg) == GQ_OK && xml &&
                  cluster_parse_xml(xml, "x.xml", &back, msg, sizeof msg) == GQ_OK,
              "%s: spec and XML parse back (%s)", a->name, msg);
        for (const cluster_spec *b = &c; b; b = b == &c ? &back : NULL)
            CHECK(b->board == (a->board > 1 ? a->board : 1) && b->pcie_switch == a->pcie_switch &&
                      b->sockets == (a->sockets > 1 ? a->sockets : 1) && b->socket_link == a->socket_link &&
                      b->mesh == a->mesh && node_link_count(b) == node_link_count(a),
                  "%s: the node's keys read back from the %s", a->name, b == &c ? "spec" : "XML");
        free(xml);
    }
}

/* Ethernet at any rate: N Gb/s is N x 1e9 / 8 bytes/s, 1 GbE's latency below 10 Gb/s, 10 GbE's from there. */
static void test_any_ethernet(void)
{
    const link_kind *a = link_kind_find("0.05gbe", 0), *b = link_kind_find("20gbe", 0);
    CHECK(a && a->bandwidth == 6.25e6 && a->latency == 10e-6 && !a->rdma, "0.05gbe: 50 Mb/s, 10 us");
    CHECK(b && b->bandwidth == 2.5e9 && b->latency == 5e-6, "20gbe: 2.5 GB/s, 5 us");
    CHECK(link_kind_find("0.050gbe", 0) == a && strcmp(a->name, "0.05gbe") == 0, "one kind per rate, canonical name");
    CHECK(link_kind_find("10gbe", 0) == link_kind_find("10gbe", 0) && link_kind_find("10gbe", 0)->latency == 5e-6,
          "the built-in names first");
    CHECK(link_kind_find("01gbe", 0) == link_kind_find("1gbe", 0) &&
              link_kind_find("10.0gbe", 0) == link_kind_find("10gbe", 0),
          "a built-in rate written another way is the built-in kind (found by the cluster fuzzer)");
    const char *bad[] = {"0gbe", "-1gbe", "gbe", "x1gbe", "1gb", "1e9gbe", "nangbe", "1.5.2gbe"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(link_kind_find(bad[i], 0) == NULL, "'%s' is not a link", bad[i]);
    CHECK(link_kind_find("0.1gbe", 1) == NULL, "not inside a node");
    cluster_spec c;
    char msg[256];
    CHECK(cluster_parse("cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=0.1gbe,nodes=4", &c, msg, sizeof msg) ==
                  GQ_OK &&
              c.inter->bandwidth == 12.5e6,
          "a lab's spec: 100 Mb/s");
    CHECK(cluster_parse("cluster:gpus-per-node=1,gpu=cpu,intra=pcie3,inter=0gbe", &c, msg, sizeof msg) != GQ_OK &&
              strstr(msg, "Ngbe") != NULL,
          "a bad rate names the form: %s", msg);
}

/* The link tables are indexed by name (L_IB_EDR...): no row left empty, and each built-in's links as its source
 * says (a row moved or a name bound to the wrong index would change them). */
static void test_link_tables(void)
{
    for (int intra = 0; intra < 2; intra++)
        for (size_t i = 0; i < link_kind_count(intra); i++) {
            const link_kind *l = link_kind_at(intra, i);
            CHECK(l->name && l->name[0] && l->bandwidth > 0 && l->source, "%s row %zu is empty",
                  intra ? "intra" : "inter", i);
        }
    static const char *const WANT[][3] = {
        {"terngrad-ethernet", "pcie3", "1gbe"}, {"terngrad-infiniband", "nvlink1", "ib-edr"},
        {"dgx1", "nvlink1", "ib-edr"},          {"dgx1-v100", "nvlink2", "ib-edr"},
        {"p2.8xlarge", "pcie3", "10gbe"},       {"p2.16xlarge", "pcie3", "20gbe"},
        {"p3.16xlarge", "nvlink2", "25gbe"},    {"roce25", "pcie3", "roce25"},
        {"dgx2", "nvlink2", "ib-edr"},          {"dgx-a100", "nvswitch", "ib-hdr"},
        {"hgx-h100", "nvswitch4", "ib-ndr"}};
    CHECK(cluster_builtin_count() == sizeof WANT / sizeof WANT[0], "%zu built-ins", cluster_builtin_count());
    for (size_t i = 0; i < sizeof WANT / sizeof WANT[0]; i++) {
        cluster_spec c;
        char msg[256];
        CHECK(cluster_parse(WANT[i][0], &c, msg, sizeof msg) == GQ_OK && strcmp(c.intra->name, WANT[i][1]) == 0 &&
                  strcmp(c.inter->name, WANT[i][2]) == 0,
              "%s: %s and %s, want %s and %s", WANT[i][0], c.intra->name, c.inter->name, WANT[i][1], WANT[i][2]);
    }
}

/* What hub_checker checks (SimGrid answers route queries only once it runs, so from an actor) and finds. */
static struct {
    const cluster_spec *c;
    int nodes, from_cpu, broken;
} HUB;

/* For every node i: the route from its first GPU (or its host CPU, HUB.from_cpu) to hub<i> is its own links,
 * nic<i>'s up direction and hublink<i>, and its latency half the route's to the same host of another node plus a
 * NIC latency; HUB.broken counts the routes that break it. */
static void hub_checker(int argc, char **argv)
{
    (void)argc, (void)argv;
    for (int i = 0; i < HUB.nodes; i++) {
        char from[32], hub[32], nic[32], own[32], other[32], hublink[32];
        snprintf(from, sizeof from, HUB.from_cpu ? "n%dcpu" : "n%dg0", i);
        snprintf(other, sizeof other, HUB.from_cpu ? "n%dcpu" : "n%dg0", (i + 1) % HUB.nodes);
        snprintf(hub, sizeof hub, "hub%d", i), snprintf(nic, sizeof nic, "nic%d_UP", i);
        snprintf(own, sizeof own, "node%d_", i), snprintf(hublink, sizeof hublink, "hublink%d", i);
        sg_host_t a = sg_host_by_name(from), h = sg_host_by_name(hub), o = sg_host_by_name(other);
        if (!a || !h || !o) {
            HUB.broken++;
            continue;
        }
        xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
        sg_host_get_route(a, h, links);
        int saw_nic = 0, saw_hub = 0, foreign = 0;
        for (unsigned long k = 0; k < xbt_dynar_length(links); k++) {
            const char *name = sg_link_get_name(xbt_dynar_get_as(links, k, sg_link_t));
            if (strcmp(name, nic) == 0)
                saw_nic++;
            else if (strcmp(name, hublink) == 0)
                saw_hub++;
            else if (strncmp(name, own, strlen(own)) != 0)
                foreign++;
        }
        xbt_dynar_free(&links);
        /* to the same host on another node: its own links, two NICs, the other's links, so half of it is its own
         * links and one NIC; the hub's link adds one NIC latency more */
        const double lat_hub = sg_host_get_route_latency(a, h),
                     expect = sg_host_get_route_latency(a, o) / 2 + HUB.c->inter->latency;
        if (saw_nic != 1 || saw_hub != 1 || foreign != 0 || fabs(lat_hub / expect - 1) > 1e-12) HUB.broken++;
    }
}

static void start_hub_checker(void *arg)
{
    (void)arg;
    sg_actor_create("check", sg_host_by_name("n0g0"), hub_checker, 0, NULL);
}

/* hub_checker in a forked SimGrid on `nodes` of `spec` in `layout` | CLUSTER_XML_HUB: the number of routes that
 * broke its rule, -1 where the platform did not load. */
static int hub_routes_broken(const char *spec, int nodes, cluster_xml_layout layout, int from_cpu)
{
    cluster_spec c;
    HUB.c = &c, HUB.nodes = nodes, HUB.from_cpu = from_cpu, HUB.broken = 0;
    return in_simgrid(spec, nodes, layout | CLUSTER_XML_HUB, &c, start_hub_checker, NULL, &HUB.broken,
                      sizeof HUB.broken) == 0
               ? HUB.broken
               : -1;
}

/* gRPC's copies (rpc_copy_rate): a node's NIC links at the copy rate where it is below the wire's, a fat tree's
 * uplinks still sized by the wire (leaf nodes x the wire / oversubscription); at the wire's rate, the wire's. */
static void test_copy_rate_xml(void)
{
    cluster_spec c;
    char msg[256];
    CHECK(cluster_parse("cluster:gpus-per-node=1,gpu=P100,intra=pcie3,inter=ib-edr,topology=fat-tree,oversub=2,leaf=2,"
                        "rpc=grpc",
                        &c, msg, sizeof msg) == GQ_OK,
          "%s", msg);
    c.rpc_copy_rate = 3.5e9;
    char *xml = cluster_xml(&c, 4, CLUSTER_XML_FLAT);
    CHECK(xml && strstr(xml, "<link id=\"nic0\" bandwidth=\"3500000000Bps\"") &&
              strstr(xml, "<link id=\"uplink0\" bandwidth=\"12500000000Bps\"") && cluster_nic_bandwidth(&c) == 3.5e9 &&
              cluster_nic_wire_bandwidth(&c) == 12.5e9,
          "copies at 3.5 GB/s on EDR: the NICs at 3.5 GB/s, the uplinks 2 x 12.5 / 2 GB/s");
    free(xml);
    c.rpc_copy_rate = 12.5e9;
    CHECK(cluster_nic_bandwidth(&c) == 12.5e9, "copies at the wire's rate: the wire's");
}

static void test_hubs(void)
{
    const char *eth = "cluster:gpus-per-node=4,gpu=GTX 1080,intra=pcie3,inter=10gbe";
    const char *one = "cluster:gpus-per-node=1,gpu=K80,intra=pcie3,inter=1gbe";
    CHECK(hub_routes_broken(eth, 8, CLUSTER_XML_FLAT, 0) == 0, "8 nodes, flat: every node's own hub route");
    CHECK(hub_routes_broken(eth, 70, CLUSTER_XML_RACKED, 0) == 0, "70 nodes, racked: every node's own hub route");
    CHECK(hub_routes_broken(one, 70, CLUSTER_XML_RACKED | CLUSTER_XML_HOST_CPUS, 1) == 0,
          "70 nodes, racked, from the host CPUs: every node's own hub route");
    CHECK(hub_routes_broken(one, 70, CLUSTER_XML_RACKED | CLUSTER_XML_HOST_CPUS, 0) == 0,
          "70 nodes, racked, host CPUs, from the GPUs: every node's own hub route");
    CHECK(hub_routes_broken(one, 70, CLUSTER_XML_RACKED, 0) == 0, "70 nodes of one GPU, racked: every node's own hub");
}

/* Host names: each kind made and read back to the same node and GPU; a name with anything more, a negative number,
 * a router or a prefix of ours with a host's number is none of ours. */
static void test_host_names(void)
{
    char name[HOST_NAME_CAP];
    int node, gpu;
    CHECK(strcmp(host_name(name, HOST_GPU, 12, 3), "n12g3") == 0 && host_name_parse(name, &node, &gpu) == HOST_GPU &&
              node == 12 && gpu == 3,
          "GPU 3 of node 12: '%s'", name);
    CHECK(strcmp(host_name(name, HOST_CPU, 7, 0), "n7cpu") == 0 && host_name_parse(name, &node, &gpu) == HOST_CPU &&
              node == 7,
          "node 7's host CPU: '%s'", name);
    CHECK(strcmp(host_name(name, HOST_HUB, 0, 0), "hub0") == 0 && host_name_parse(name, &node, &gpu) == HOST_HUB &&
              node == 0,
          "node 0's hub: '%s'", name);
    static const char *const NOT_OURS[] = {"n1g2x",  "n-1g0",        "n1g-2", "hub", "hub-1",
                                           "n3cpux", "node3_router", "n3g",   "",    "x"};
    for (size_t i = 0; i < sizeof NOT_OURS / sizeof *NOT_OURS; i++)
        CHECK(host_name_parse(NOT_OURS[i], &node, &gpu) == HOST_NONE, "'%s' is not a host of ours", NOT_OURS[i]);
    CHECK(strcmp(host_gpu_prefix(name, 5), "n5g") == 0 && host_gpu_prefix_parse(name) == 5, "node 5's prefix '%s'",
          name);
    CHECK(host_gpu_prefix_parse("n5g0") == -1 && host_gpu_prefix_parse("n-5g") == -1 &&
              host_gpu_prefix_parse("m5g") == -1,
          "a host's name, a negative node or another letter is no prefix");
}

int main(void)
{
    test_host_names();
    test_link_tables();
    test_any_ethernet();
    test_specs();
    test_xml_roundtrip();
    test_physics();
    test_inside_node();
    test_bad_keys();
    test_optional_keys();
    test_hubs();
    test_copy_rate_xml();
    return check_summary();
}
