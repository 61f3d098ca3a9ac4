/* The command tables: every command is a row {name, function, option-table
 * id, operand, summary, details}; dispatch, usage and help are generated
 * from the rows and from the option table (options.h), git's commands[]. */
#ifndef GQ_COMMANDS_H
#define GQ_COMMANDS_H

#include <stdio.h>

#include "options.h"

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command's name */
    cli_cmd id;                       /* its options, in options.c */
    const char *operand;              /* "MODEL" for 'models show MODEL', or NULL */
    const char *summary;
    const char *details; /* more help, or NULL */
} cli_command;

/* Runs `group NAME args...` from a NULL-terminated table; --help and unknown
 * names handled here. */
int cli_dispatch(const char *group, const cli_command *cmds, int argc, char **argv);
void cli_print_usage(FILE *out, const char *group, const cli_command *cmds);
/* The help of one command (group NULL for a top-level one): usage, summary, options, details. */
void cli_print_sub(FILE *out, const char *group, const cli_command *c);

/* A command's name as typed ("quant encode", "simulate"), from its row in the tables (row: the row, if not NULL). */
const char *cli_command_name(cli_cmd id, const cli_command **row);
/* Parses a command's arguments with the name and operand of its row: cli_parse_args without writing either
 * again. @return 0, or EXIT_USAGE after printing. */
int cli_parse_command(cli_cmd id, int argc, char **argv, cli_args *a);

/* ---- accuracy curves, trained (cmd_train.c) ------------------------------------------------------------ */
struct train_comm;
/* The trainer's defaults in a (clearing it), to be set before parsing the options of a command that trains. */
void cli_train_defaults(cli_args *a);
/* Trains `model` (Fashion-MNIST) with *workers workers (fewer where the data cannot feed them: *workers is then
 * what it used, said on stderr) and a's trainer options, each quantizer once per seed, into curves[0..nq): the
 * test accuracy after each epoch. Under comm with more than one rank, the runs are dealt round-robin over the
 * ranks and shared, so that every rank ends with every curve. @return 0, or -1 after printing. */
int cli_train_curves(const cli_args *a, const char *model, const char *const *quants, size_t nq, int *workers,
                     tta_curve *curves, struct train_comm *comm);

/* The tables: groups, and the top-level commands that take options. */
extern const cli_command QUANT_CMDS[], MODELS_CMDS[], GPUS_CMDS[], PLATFORM_CMDS[], SIM_CMDS[], TRAIN_CMDS[];

int cmd_quant(int argc, char **argv);
void help_quant(void);
int cmd_models(int argc, char **argv);
void help_models(void);
int cmd_gpus(int argc, char **argv);
void help_gpus(void);
int cmd_platforms(int argc, char **argv);
void help_platforms(void);

#endif
