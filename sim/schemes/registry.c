/* The simulator's schemes, one row each (sim_internal.h's sim_scheme), by sync_kind: a new scheme is its file in
 * this folder and its line here. */
#include "sim_internal.h"

extern const sim_scheme SIM_SCHEME_PS, SIM_SCHEME_PS_SHARDED, SIM_SCHEME_RING, SIM_SCHEME_HIERARCHICAL,
    SIM_SCHEME_ALLGATHER, SIM_SCHEME_PS_FLAT, SIM_SCHEME_TREE;

static const sim_scheme *const SCHEMES[SYNC_COUNT] = {
    [SYNC_PS] = &SIM_SCHEME_PS,
    [SYNC_PS_SHARDED] = &SIM_SCHEME_PS_SHARDED,
    [SYNC_RING] = &SIM_SCHEME_RING,
    [SYNC_HIERARCHICAL] = &SIM_SCHEME_HIERARCHICAL,
    [SYNC_ALLGATHER] = &SIM_SCHEME_ALLGATHER,
    [SYNC_PS_FLAT] = &SIM_SCHEME_PS_FLAT,
    [SYNC_TREE] = &SIM_SCHEME_TREE,
};

const sim_scheme *sim_scheme_of(sync_kind s) { return (unsigned)s < SYNC_COUNT ? SCHEMES[s] : NULL; }

void sim_schemes_in_search_order(sync_kind out[SYNC_COUNT])
{
    for (int s = 0; s < SYNC_COUNT; s++) out[SCHEMES[s]->search_order] = (sync_kind)s;
}
