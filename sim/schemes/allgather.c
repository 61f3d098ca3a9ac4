/* allgather: every GPU gets every other GPU's encoded bucket around a ring and decodes the P - 1 of them (what
 * GRACE does for compressors that cannot be summed). */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes this scheme's actors from sg_allreduce.c */
#include "sim_internal.h"

static double allgather_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    const double P = c->gpus, a = p->a_ring, bw = p->b_ring / p->reverse_load;
    return b->enc_s + (P - 1) * (a + b->up_bytes / bw) + (P - 1) * b->dec_s;
}

/* P - 1 contributions each way */
static void allgather_traffic(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t)
{
    (void)p;
    const double P = c->gpus;
    sim_traffic_alike(t, (P - 1) * b->up_bytes, (P - 1) * b->up_bytes);
}

const sim_scheme SIM_SCHEME_ALLGATHER = {
    .search_order = 3, .bucket_comm = allgather_comm, .traffic = allgather_traffic};
#endif
