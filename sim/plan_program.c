/* The planner's last step: each bucket's program, the steps both engines run once the bucket is ready
 * (sim_internal.h's sim_step). The analytic engine prices them (bucket_cost.c's sim_bucket_comm), the SimGrid
 * engine's workers run them (sg_child.c): PowerSGD's two all-reduces, TernGrad's scaler round and the latencies a
 * scheme's pipeline pays beyond its flows (the tree's) are said here once. */
#include "sim_internal.h"

static void add_step(sim_bucket *b, sim_step_kind kind, double value) { b->step[b->steps++] = (sim_step){kind, value}; }

/* the scheme's exchange and the latencies its flows do not pay */
static void add_exchange(sim_bucket *b, sim_step_kind kind, double value, double after)
{
    add_step(b, kind, value);
    if (after > 0) add_step(b, STEP_DELAY, after);
}

void sim_plan_program(const sim_config *c, const sim_plan *p, sim_bucket *b)
{
    const sim_scheme *scheme = sim_scheme_of(c->run.sync);
    const double after = scheme->latency_after ? scheme->latency_after(p) : 0;
    b->steps = 0;
    if (p->factors) { /* PowerSGD: M Q, P's all-reduce, orthogonalisation and M^T P, Q's all-reduce, P Q^T */
        add_step(b, STEP_DELAY, b->enc_s / 2);
        add_exchange(b, STEP_FLOATS, b->up_bytes, after);
        add_step(b, STEP_DELAY, b->enc_s / 2);
        if (b->up2_bytes > 0) add_exchange(b, STEP_FLOATS, b->up2_bytes, after);
        add_step(b, STEP_DELAY, b->dec_s);
        return;
    }
    if (b->scaler_bytes > 0) add_step(b, STEP_SCALER, b->scaler_bytes);
    add_exchange(b, STEP_EXCHANGE, 0, after);
}
