/* The run parameters: every option of a simulated run that is not its
 * model, platform, GPU or batch (how gradients meet, are fused, overlapped,
 * where the codec runs, what the engines charge), written once. A row has
 * the parameter's key (validate's CSV column and the SMPI engine's
 * KEY=VALUE argument), its command-line flag, type, bounds, default, the
 * names of its values, help, and where its value lives in a sim_request.
 * The CLI's options for these, validate's optional columns, the arguments
 * the SMPI engine hands gqsim-smpi and sim_request_defaults() are all made
 * from this table (as zstd's ZSTD_cParameter with ZSTD_cParam_getBounds), so
 * a parameter is one row plus the code that uses it. Only headers of sim/
 * and the name tables of exchange/: gqsim-smpi compiles it too. */
#ifndef GQ_RUN_PARAMS_H
#define GQ_RUN_PARAMS_H

#include <stddef.h>

#include "gq_error.h"
#include "scenario.h"

typedef enum {
    RP_REAL,   /* double in [lo, hi] ((lo, hi] with lo_open) */
    RP_COUNT,  /* int in lo..hi */
    RP_ENUM,   /* an enum or int field: the index of its value in names */
    RP_SWITCH, /* int 0|1: "off|on" on the command line, 0|1 in a column */
    RP_FLAG,   /* int 0|1: a flag without a value on the command line, 0|1 in a column */
    RP_TEXT    /* const char *, checked by check() */
} run_param_type;

/* Where a parameter is taken, one bit each. */
enum {
    RP_SIM = 1,    /* the commands that simulate: simulate, speedup, report, validate, tta */
    RP_TRAIN = 2,  /* train and tta's training (the trainer's exchange policy) */
    RP_COLUMN = 4, /* validate's measured CSV: an optional column named by the key */
    RP_SMPI = 8    /* handed to gqsim-smpi as KEY=VALUE (the trainer's exchange under SMPI) */
};

typedef struct {
    const char *key;  /* column and SMPI key: "fusion_cycle" */
    const char *flag; /* "--fusion-cycle" */
    const char *meta; /* the value in usage lines ("SECONDS"); NULL: the names joined by '|' */
    run_param_type type;
    size_t offset; /* of the value in sim_request (inside its sim_run_params, .run) */
    double lo, hi;
    int lo_open;
    int integral; /* RP_REAL: a whole number (bytes, elements), so that what is simulated is what is labelled */
    double dflt;  /* numbers, enums (an index), switches and flags */
    const char *const *names;                           /* RP_ENUM: the values' names, NULL-terminated */
    const char *unit;                                   /* RP_REAL in messages: "bytes" */
    int (*check)(const char *v, char *msg, size_t cap); /* RP_TEXT: 0, or -1 with one line in msg */
    unsigned scope;
    const char *help; /* "{default}" in it is the default (run_param_help) */
    /* Set away from its default, what it shapes: a scheme in every family of `families` (SCHEME_* bits) and among
     * `schemes` (SYNC_BIT()s; 0: any), run by an engine among `engines` (ENGINE_BIT()s; 0: any). Elsewhere the
     * request is refused (scenario.c's refuse_combinations) with off_scheme's line, a format given the scheme's
     * name, or off_engine's, given the engine's. */
    unsigned families, schemes, engines;
    const char *off_scheme, *off_engine;
} run_param;

#define SYNC_BIT(s) (1u << (s))
#define ENGINE_BIT(e) (1u << (e))

extern const run_param RUN_PARAMS[];
extern const size_t RUN_PARAM_COUNT;
/* RUN_PARAMS_MAX, RUN_COLUMNS_MAX and RUN_PARAM_TEXT_MAX: sim_bounds.h */

/* The row of a key (a column name) or a flag; NULL if none. */
const run_param *run_param_by_key(const char *key);
const run_param *run_param_by_flag(const char *flag);

/* p's index among the parameters read from columns (0..RUN_COLUMNS_MAX-1), or -1 if it has no column. */
int run_param_column(const run_param *p);

/* The value's place in a request. */
void *run_param_at(const run_param *p, sim_request *q);

/* Sets p in q from text as a column or gqsim-smpi writes it (0|1 for switches and flags), range-checked.
 * @return GQ_OK, or GQ_ERR_SPEC with "KEY 'TEXT' must be ..." in msg. A text value is pointed to, not copied. */
gq_err run_param_set(const run_param *p, sim_request *q, const char *text, char *msg, size_t cap);

/* p's value in q as run_param_set reads it back (%.17g for reals). */
void run_param_format(const run_param *p, const sim_request *q, char *out, size_t cap);

/* "gpu|cpu|none": an enum's names as usage lines show them (a switch's "on|off"). */
void run_param_allowed(const run_param *p, char *out, size_t cap);

/* p's help as the command line prints it: its text with each "{default}" the row's default, as the value is
 * written (an enum's name, on|off, the shortest decimal). */
void run_param_help(const run_param *p, char *out, size_t cap);

/* 1 if p's value in q is not its default. */
int run_param_changed(const run_param *p, const sim_request *q);

/* Every parameter at its default; the request's other fields zero. */
void run_params_defaults(sim_request *q);
/* Whether p was set on q (by run_param_set, since run_params_defaults), and forgetting that it was. */
int run_param_given(const run_param *p, const sim_request *q);
void run_param_forget(const run_param *p, sim_request *q);
/* Marks p as given on q (the CLI, which parses some values itself). */
void run_param_mark(const run_param *p, sim_request *q);

#endif
