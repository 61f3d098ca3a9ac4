/* The engines, one row each (analytic, SimGrid, SMPI), and sim_run: builds the plan and hands it to the chosen
 * engine. */
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

static const sim_engine ENGINES[] = {
    [ENGINE_SIMGRID] = {"SimGrid's flow-level network model: contention, TCP or RDMA factors", sim_simgrid,
                        sim_simgrid_check},
    [ENGINE_ANALYTIC] = {"alpha-beta per transfer, no contention: the cross-check", sim_analytic, NULL},
    [ENGINE_SMPI] = {"the trainer's own exchange, every message, under SimGrid's SMPI (smpirun)", sim_smpi,
                     sim_smpi_check},
};
#define NENGINES (sizeof ENGINES / sizeof ENGINES[0])

const sim_engine *sim_engine_get(engine_kind k) { return (unsigned)k < NENGINES ? &ENGINES[k] : NULL; }

int sim_engine_parse(const char *name, engine_kind *k)
{
    for (size_t i = 0; i < NENGINES; i++)
        if (strcmp(ENGINE_NAMES[i], name) == 0) return *k = (engine_kind)i, 0;
    return -1;
}

const char *sim_engine_name(engine_kind k) { return (unsigned)k < NENGINES ? ENGINE_NAMES[k] : "?"; }

gq_err sim_run(const sim_config *c, sim_result *r, char *msg, size_t cap)
{
    memset(r, 0, sizeof *r);
    sim_plan p;
    gq_err e = sim_plan_build(c, &p, msg, cap);
    if (e == GQ_OK) {
        /* one GPU sends nothing: every engine agrees, the analytic one is instant */
        const sim_engine *engine = sim_engine_get(c->gpus == 1 ? ENGINE_ANALYTIC : c->run.engine);
        e = engine ? engine->run(c, &p, r, msg, cap) : gq_fail(GQ_ERR_PARAM, msg, cap, "no such engine");
        r->compute_s = p.compute_s;
        r->buckets = p.n;
        sim_gpu_bytes t;
        sim_traffic(c, &p, &t);
        r->bytes_up = t.up, r->bytes_down = t.down, r->bytes_busiest_up = t.busiest_up;
        r->bytes_busiest_down = t.busiest_down;
        snprintf(r->network_model, sizeof r->network_model, "%s", p.network_model);
    }
    sim_plan_free(&p);
    return e;
}

gq_err sim_check(const sim_config *c, char *msg, size_t cap)
{
    sim_plan p;
    gq_err e = sim_plan_build(c, &p, msg, cap);
    const sim_engine *engine = sim_engine_get(c->gpus == 1 ? ENGINE_ANALYTIC : c->run.engine);
    if (e == GQ_OK && !engine) e = gq_fail(GQ_ERR_PARAM, msg, cap, "no such engine");
    if (e == GQ_OK && engine->check) e = engine->check(c, &p, msg, cap);
    sim_plan_free(&p);
    return e;
}
