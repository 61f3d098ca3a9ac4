/* ring: reduce-scatter then all-gather over every GPU in node order, 2(P - 1) steps of 1/P of the bucket; a
 * quantized ring re-encodes each step's chunk (PowerSGD all-reduces its factors instead: sim_bucket_comm). */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes this scheme's actors from sg_allreduce.c */
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

static double ring_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    const double P = c->gpus, a = p->a_ring, bw = p->b_ring / p->reverse_load;
    double steps = 2 * (P - 1);
    /* every step after the first at a_ring_step (a_ring unless pipelined: the difference is then 0 exactly) */
    return steps * (a + b->up_bytes / P / bw) - (steps - 1) * (a - p->a_ring_step) + steps * (b->enc_s + b->dec_s) / P +
           b->host_s;
}

/* 2(P - 1)/P of the contribution each way (and of PowerSGD's second factor) */
static void ring_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t)
{
    (void)p;
    const double P = c->gpus, each = 2 * (P - 1) / P * (b->up_bytes + b->up2_bytes);
    sim_traffic_alike(t, each, each);
}

/* --ring-steps pipelined (NCCL): the network model's latency factor paid once a bucket (plan.c's a_ring_step),
 * named in the row's network model */
static int ring_links(const sim_config *c, sim_plan *p)
{
    if (c->run.ring_pipelined)
        snprintf(p->network_model + strlen(p->network_model), sizeof p->network_model - strlen(p->network_model),
                 ", ring pipelined: lat x%g once a bucket", p->net.latency_factor);
    return 0;
}

const sim_scheme SIM_SCHEME_RING = {
    .search_order = 1, .bucket_comm = ring_comm, .traffic = ring_traffic, .links = ring_links};
#endif
