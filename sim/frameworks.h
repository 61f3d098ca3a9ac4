/* Framework presets: what "Horovod over NCCL" or "TensorFlow's parameter
 * servers" means in run parameters, each with the framework's documentation
 * it comes from. A preset sets the parameters the user did not give; what
 * the user gives wins. */
#ifndef GQ_FRAMEWORKS_H
#define GQ_FRAMEWORKS_H

#include <stddef.h>

#include "gq_error.h"
#include "scenario.h"

typedef struct {
    const char *name;
    const char *settings; /* run-parameter KEY=VALUE pairs, ',' between them, in the table's syntax */
    const char *source;   /* the documentation the settings come from */
} framework_preset;

extern const framework_preset FRAMEWORKS[];
extern const size_t FRAMEWORK_COUNT;
/* The names gqsim refuses with why ("horovod-mpi: ..."): frameworks whose mechanism it does not model yet. */
extern const char *const FRAMEWORKS_NOT_MODELLED[];

/* 0 if v names a preset; else -1 with one line in msg (a framework not modelled yet says why; a misspelling
 * gets "did you mean"). The run-parameter table's check for the framework column and --framework. */
int framework_check(const char *v, char *msg, size_t cap);

/* 1 if q has cycles of all-reduces overlapped with backward, which --fusion-wait previous paces (Horovod's loop):
 * an all-reduce scheme, --fusion-cycle > 0, --overlap on, not the smpi engine (the trainer's exchange). */
int fusion_wait_applies(const sim_request *q);

/* Applies q->framework's preset to q: each setting whose parameter q does not mark as given; the servers'
 * settings (ps_*) only where the resulting sync has servers. No framework: nothing. */
gq_err framework_apply(sim_request *q, char *msg, size_t cap);
/* The same, the settings it sets then marked as given, as if the user had: what a search over the run parameters
 * (advise) must leave alone. */
gq_err framework_hold(sim_request *q, char *msg, size_t cap);

#endif
