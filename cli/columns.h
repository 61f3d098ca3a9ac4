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

/* the other commands' tables, which they print */
extern const char *const QUANT_LIST_COLUMNS[];
extern const size_t QUANT_LIST_NCOLUMNS;
extern const char *const QUANT_COSTS_FIT_COLUMNS[];
extern const size_t QUANT_COSTS_FIT_NCOLUMNS;
extern const char *const QUANT_COSTS_COLUMNS[];
extern const size_t QUANT_COSTS_NCOLUMNS;
extern const char *const MODELS_LIST_COLUMNS[];
extern const size_t MODELS_LIST_NCOLUMNS;
extern const char *const MODELS_SHOW_COLUMNS[];
extern const size_t MODELS_SHOW_NCOLUMNS;
extern const char *const GPUS_LIST_COLUMNS[];
extern const size_t GPUS_LIST_NCOLUMNS;
extern const char *const GPUS_FIT_COLUMNS[];
extern const size_t GPUS_FIT_NCOLUMNS;
extern const char *const PLATFORMS_LIST_COLUMNS[];
extern const size_t PLATFORMS_LIST_NCOLUMNS;
extern const char *const PLATFORMS_SHOW_COLUMNS[];
extern const size_t PLATFORMS_SHOW_NCOLUMNS;
extern const char *const PLATFORMS_CALIBRATE_COLUMNS[];
extern const size_t PLATFORMS_CALIBRATE_NCOLUMNS;

#endif
