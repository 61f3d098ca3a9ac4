/* sim_run: builds the plan and hands it to the chosen engine. */
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

gq_err sim_run(const sim_config *c, sim_result *r, char *msg, size_t cap)
{
    memset(r, 0, sizeof *r);
    sim_plan p;
    gq_err e = sim_plan_build(c, &p, msg, cap);
    if (e == GQ_OK) {
        e = c->engine == ENGINE_ANALYTIC || c->gpus == 1 ? sim_analytic(c, &p, r) : sim_simgrid(c, &p, r, msg, cap);
        r->compute_s = p.compute_s;
        r->buckets = p.n;
        sim_traffic(c, &p, &r->bytes_up, &r->bytes_down);
        snprintf(r->network_model, sizeof r->network_model, "%s", p.network_model);
    }
    sim_plan_free(&p);
    return e;
}
