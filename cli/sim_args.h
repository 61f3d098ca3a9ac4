/* The simulation options of a command line as a sim_request (cmd_sim.c),
 * for the commands that simulate: simulate, speedup, report, validate, tta. */
#ifndef GQ_SIM_ARGS_H
#define GQ_SIM_ARGS_H

#include "options.h"
#include "scenario.h"

/* The simulation options' defaults, set in a (its other fields untouched), before parsing. */
void cli_sim_defaults(cli_args *a);
/* The request the options make. */
sim_request cli_request_of(const cli_args *a);

#endif
