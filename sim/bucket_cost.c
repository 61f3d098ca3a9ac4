/* The closed forms of one bucket's exchange, alone on the network: latency + bytes / bandwidth of each transfer's
 * slowest link, each scheme's steps, the servers' work, the codec's share on the critical path. The analytic engine
 * lays them on its timeline (analytic.c); the planner paces Horovod's loop of fused buckets with them (plan.c); the
 * SimGrid engine charges a node's own part of an exchange with them as delays (sg_overlap.c). They read only the plan
 * and the configuration, so that neither the planner nor an engine depends on another for them. Each scheme's own
 * closed form is in its file in sim/schemes/; here what several share, and a bucket's program (plan_program.c) priced
 * alone on the network. */
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

void sim_traffic_alike(sim_gpu_bytes *t, double up, double down)
{
    t->up = t->busiest_up = up, t->down = t->busiest_down = down;
}

void sim_traffic_own(const sim_config *c, const sim_plan *p, const sim_bucket *b, sim_gpu_bytes *t)
{
    (void)c, (void)p;
    sim_traffic_alike(t, b->up_bytes, b->down_bytes);
}

/* The bucket's exchange by its scheme's closed form (sim/schemes/). */
static double scheme_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    return sim_scheme_of(c->run.sync)->bucket_comm(c, p, b);
}

/* The bucket's program (sim_plan_program), each step alone on the network: a delay its seconds, the scaler's
 * all-reduce its rounds, an exchange the scheme's closed form (of the bucket, or of plain floats). */
double sim_bucket_comm(const sim_config *c, const sim_plan *p, const sim_bucket *b)
{
    double t = 0;
    for (int i = 0; i < b->steps; i++) {
        const sim_step *s = &b->step[i];
        if (s->kind == STEP_DELAY) {
            t += s->value;
        } else if (s->kind == STEP_SCALER) {
            t += sim_scaler_s(p, s->value);
        } else if (s->kind == STEP_EXCHANGE) {
            t += scheme_comm(c, p, b);
        } else {
            const sim_bucket floats = sim_floats_of(b, s->value);
            t += scheme_comm(c, p, &floats);
        }
    }
    return t;
}
