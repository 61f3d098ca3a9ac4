/* The built-in clusters, each with its source; their links named by the link tables' names (L_IB_EDR). */
#include "platform_internal.h"

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
    /* NVSwitch machines: every GPU's NVLinks go into a switch fabric that gives every pair the GPU's whole NVLink
     * rate, which is what a star of the GPU's link kind is */
    BUILTIN("dgx2", "V100", 16, L_NVLINK2, L_IB_EDR, 8,
            "NVIDIA DGX-2 System Architecture white paper: 16 V100 on 12 NVSwitches, each GPU's 6 NVLinks of 25 GB/s "
            "into the switch fabric (every pair at 150 GB/s a direction); 8 InfiniBand EDR 100 Gb/s"),
    BUILTIN("dgx-a100", "A100", 8, L_NVSWITCH, L_IB_HDR, 8,
            "NVIDIA DGX A100 System Architecture white paper: 8 A100 SXM4 on 6 NVSwitches, each GPU's 12 NVLinks of "
            "25 GB/s into the switch fabric (every pair at 300 GB/s a direction); 8 ConnectX-6 InfiniBand HDR 200 Gb/s "
            "for the compute fabric"),
    BUILTIN("hgx-h100", "H100", 8, L_NVSWITCH4, L_IB_NDR, 8,
            "NVIDIA DGX H100 / HGX H100 8-GPU: 8 H100 SXM5 on 4 third-generation NVSwitches, each GPU's 18 NVLinks of "
            "25 GB/s into the switch fabric (every pair at 450 GB/s a direction); 8 ConnectX-7 InfiniBand NDR "
            "400 Gb/s for the compute fabric"),
};

size_t cluster_builtin_count(void) { return sizeof BUILTINS / sizeof BUILTINS[0]; }
const cluster_spec *cluster_builtin(size_t i) { return i < cluster_builtin_count() ? &BUILTINS[i] : NULL; }
