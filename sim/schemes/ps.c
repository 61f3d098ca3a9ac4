/* ps: one parameter server, on the first GPU of node 0 (or its host CPU): every GPU sends it its encoded bucket,
 * it decodes the P contributions, encodes one reply and sends it to every GPU. */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes this scheme's actors from sg_servers.c */
#include "sim_internal.h"

static double ps_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    const double P = c->gpus, rpc = c->rpc_send_s + c->rpc_recv_s; /* a message's two ends */
    const double a = p->a_far, bw = p->b_far;
    double server = P * b->srv_dec_s + b->srv_enc_s + P * rpc; /* and its messages in and out */
    return b->enc_s + rpc + a + b->up_bytes / bw + server + a + b->down_bytes / bw + b->dec_down_s;
}

const sim_scheme SIM_SCHEME_PS = {.search_order = 4, .bucket_comm = ps_comm, .traffic = sim_traffic_own};
#endif
