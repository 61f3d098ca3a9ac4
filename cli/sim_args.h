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
/* One line on stderr ("gqsim: warning: ...") for each platform that says what may surprise: a user's XML with
 * half-duplex links (SimGrid's default sharing policy). */
void cli_warn_platforms(const char *const *platforms, size_t n);

#endif
