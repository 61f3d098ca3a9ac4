/* The simulator's schemes, one row each (sim_internal.h's sim_scheme), by sync_kind: the registry's lines
 * (exchange/schemes.h), each scheme's row SIM_SCHEME_<ID> in its file in this folder. */
#ifndef GQ_SIMGRID_ACTORS /* the SimGrid engine's module takes nothing of the registry's rows */
#include "sim_internal.h"

#define SIM_SCHEME_EXTERN(id, file, name, families) extern const sim_scheme SIM_SCHEME_##id;
GQ_SCHEMES(SIM_SCHEME_EXTERN)

#define SIM_SCHEME_ROW(id, file, name, families) [SYNC_##id] = &SIM_SCHEME_##id,
static const sim_scheme *const SCHEMES[SYNC_COUNT] = {GQ_SCHEMES(SIM_SCHEME_ROW)};

const sim_scheme *sim_scheme_of(sync_kind s) { return (unsigned)s < SYNC_COUNT ? SCHEMES[s] : NULL; }

void sim_schemes_in_search_order(sync_kind out[SYNC_COUNT])
{
    for (int s = 0; s < SYNC_COUNT; s++) out[SCHEMES[s]->search_order] = (sync_kind)s;
}
#endif
