/* The columns of the commands' tables and what each means (columns.c), for their help. */
#ifndef GQ_COLUMNS_H
#define GQ_COLUMNS_H

#include <stdio.h>

#include "options.h"

/* "columns (...):" and one line per column cmd prints, with its meaning; nothing for a command without a list. */
void cli_columns_help(FILE *out, cli_cmd cmd);

/* models compute's columns, which it prints */
extern const char *const MODELS_COMPUTE_COLUMNS[];
extern const size_t MODELS_COMPUTE_NCOLUMNS;

#endif
