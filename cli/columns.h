/* The columns of the commands' tables and what each means (columns.c), for their help. */
#ifndef GQ_COLUMNS_H
#define GQ_COLUMNS_H

#include <stdio.h>

#include "options.h"

/* "columns (...):" and one line per column cmd prints, with its meaning; nothing for a command without a list. */
void cli_columns_help(FILE *out, cli_cmd cmd);

/* The tables the CLI's own commands print, their columns declared here and defined in columns.c:
 * NAME_COLUMNS[] and NAME_NCOLUMNS for each NAME. */
#define GQ_CLI_TABLES(X)                                                                                               \
    X(MODELS_COMPUTE)                                                                                                  \
    X(QUANT_LIST)                                                                                                      \
    X(QUANT_COSTS_FIT)                                                                                                 \
    X(QUANT_COSTS)                                                                                                     \
    X(MODELS_LIST)                                                                                                     \
    X(MODELS_SHOW)                                                                                                     \
    X(GPUS_LIST)                                                                                                       \
    X(GPUS_FIT)                                                                                                        \
    X(PLATFORMS_LIST)                                                                                                  \
    X(PLATFORMS_SHOW)                                                                                                  \
    X(PLATFORMS_CALIBRATE)
#define GQ_CLI_TABLE_DECLARE(NAME)                                                                                     \
    extern const char *const NAME##_COLUMNS[];                                                                         \
    extern const size_t NAME##_NCOLUMNS;
GQ_CLI_TABLES(GQ_CLI_TABLE_DECLARE)

#endif
