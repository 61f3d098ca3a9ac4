/* The closed forms of one bucket's exchange, alone on the network: latency + bytes / bandwidth of each transfer's
 * slowest link, each scheme's steps, the servers' work, the codec's share on the critical path. The analytic engine
 * lays them on its timeline (analytic.c); the planner paces Horovod's loop of fused buckets with them (plan.c); the
 * SimGrid engine charges a node's own part of an exchange with them as delays (sg_overlap.c). They read only the plan
 * and the configuration, so that neither the planner nor an engine depends on another for them. Each scheme's own
 * closed form is in its file in sim/schemes/; here what several share. */
#include <math.h>

#include "sim_internal.h"

/* ps-sharded and hierarchical: a node's part before the exchange between nodes (its GPUs' contributions reduced at
 * the leader, or every GPU's sent up to the host CPU, which sums them) and after it (the reply broadcast to the
 * node's GPUs, or sent down from the host, and decoded). One GPU a node alone sends the servers its own encoded
 * contribution and decodes their reply (a ring across leaders encodes its steps). */
void sim_node_local(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down)
{
    const double G = p->per_node, rpc = c->rpc_send_s + c->rpc_recv_s;
    const int host = c->run.ps_on_cpu && c->run.sync == SYNC_PS_SHARDED; /* the leader's contribution too goes up */
    const int alone = G == 1 && !host && c->run.sync == SYNC_PS_SHARDED && p->nodes > 1;
    *up = *down = 0;
    if (host && p->per_gpu_push) { /* each GPU's own copy to its host and back: its pushes and reads are messages */
        *up = b->enc_s + p->a_intra + b->up_bytes / p->b_intra;
        *down = p->a_intra + b->down_bytes / p->b_intra + b->dec_down_s;
    } else if (host) { /* the GPUs' messages to their host and its replies, as at the single server */
        *up = b->enc_s + p->a_intra + b->up_bytes / p->b_intra + G * b->srv_dec_s + (G + 1) * rpc;
        *down = b->srv_enc_s + p->a_intra + b->down_bytes / p->b_intra + b->dec_down_s;
    } else if (G > 1) {
        *up = b->enc_s + p->a_intra + b->up_bytes / p->b_intra + (G - 1) * b->dec_s;
        *down = b->enc_down_s + p->a_intra + b->down_bytes / p->b_intra + b->dec_down_s;
    } else if (alone) {
        *up = b->enc_s, *down = b->dec_down_s;
    }
}

void sim_traffic_own(const sim_config *c, const sim_plan *p, const sim_bucket *b, double *up, double *down)
{
    (void)c, (void)p;
    *up = b->up_bytes, *down = b->down_bytes;
}

/* The bucket's exchange by its scheme's closed form (sim/schemes/). */
static double scheme_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    return sim_scheme_of(c->run.sync)->bucket_comm(c, p, b);
}

/* PowerSGD's factors: half the encode (M Q), P's all-reduce, the other half (orthogonalisation, M^T P), Q's
 * all-reduce, the decode (P Q^T); each all-reduce the scheme's, of plain floats. */
double sim_bucket_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    if (!p->factors) return sim_scaler_s(p, b) + scheme_comm(c, p, b);
    sim_bucket phase = {0};
    phase.up_bytes = phase.down_bytes = b->up_bytes;
    double t = b->enc_s / 2 + scheme_comm(c, p, &phase) + b->enc_s / 2;
    phase.up_bytes = phase.down_bytes = b->up2_bytes;
    if (b->up2_bytes > 0) t += scheme_comm(c, p, &phase);
    return t + b->dec_s;
}
