/* The link kinds: inside a node (PCIe, NVLink, NVSwitch), between nodes
 * (Ethernet at the usual rates and at any `Ngbe`, RoCE, InfiniBand, Aries),
 * between sockets (QPI, UPI), each with its source. */
#include "phys_range.h"
#include "platform_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const link_kind INTRA[] = {
    [L_PCIE3] = {"pcie3", 15.75e9, 1e-6, 0, "PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b, per direction"},
    [L_NVLINK1] = {"nvlink1", 80e9, 1e-6, 0, "NVIDIA Tesla P100 whitepaper: 4 NVLinks x 20 GB/s per direction"},
    [L_NVLINK2] = {"nvlink2", 150e9, 1e-6, 0, "NVIDIA Tesla V100 whitepaper: 6 NVLinks x 25 GB/s per direction"},
    [L_NVSWITCH] = {"nvswitch", 300e9, 1e-6, 0,
                    "NVIDIA A100 whitepaper: 12 NVLinks x 25 GB/s per direction through NVSwitch"},
    [L_NVSWITCH4] = {"nvswitch4", 450e9, 1e-6, 0,
                     "NVIDIA H100 Tensor Core GPU architecture whitepaper: 18 fourth-generation NVLinks x 25 GB/s "
                     "per direction through third-generation NVSwitch"},
};

const link_kind INTER[] = {
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
    [L_IB_NDR] = {"ib-ndr", 50e9, 0.6e-6, 1, "InfiniBand NDR 4x: 400 Gb/s (latency as EDR and HDR)"},
};

const link_kind SOCKET[] = {
    [S_QPI] = {"qpi", 38.4e9, 0, 0,
               "Intel Xeon E5-2600 v3/v4: two QPI links at 9.6 GT/s, 2 bytes a transfer, per direction"},
    [S_UPI] = {"upi", 41.6e9, 0, 0,
               "Intel Xeon Scalable: two UPI links at 10.4 GT/s, 2 bytes a transfer, per direction"},
};

const link_kind *socket_link_find(const char *name)
{
    for (size_t i = 0; i < S_COUNT; i++)
        if (strcmp(SOCKET[i].name, name) == 0) return &SOCKET[i];
    return NULL;
}

size_t link_kind_count(int intra) { return intra ? L_INTRA_COUNT : L_INTER_COUNT; }
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
    for (size_t i = 0; i < L_INTER_COUNT; i++) /* 01gbe, 10.0gbe: the built-in kinds */
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
