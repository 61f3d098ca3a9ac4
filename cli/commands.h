/* The command tables: every subcommand is a row {name, function, usage,
 * summary}; dispatch and help are generated from the rows (git's commands[]). */
#ifndef GQ_COMMANDS_H
#define GQ_COMMANDS_H

#include <stdio.h>

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *usage;
    const char *summary;
    const char *details; /* more help for 'gqsim help GROUP NAME', or NULL */
} cli_command;

/* Runs `group NAME args...` from a NULL-terminated table; --help and unknown
 * names handled here. */
int cli_dispatch(const char *group, const cli_command *cmds, int argc, char **argv);
void cli_print_usage(FILE *out, const char *group, const cli_command *cmds);
/* The help of one subcommand: usage, summary, details. */
void cli_print_sub(FILE *out, const char *group, const cli_command *c);

/* The groups' tables, for dispatch and for 'gqsim help GROUP NAME'. */
extern const cli_command QUANT_CMDS[], MODELS_CMDS[], GPUS_CMDS[], PLATFORM_CMDS[];

int cmd_quant(int argc, char **argv);
void help_quant(void);
int cmd_models(int argc, char **argv);
void help_models(void);
int cmd_gpus(int argc, char **argv);
void help_gpus(void);
int cmd_platforms(int argc, char **argv);
void help_platforms(void);
int cmd_simulate_entry(int argc, char **argv);
void help_simulate(void);
int cmd_speedup_entry(int argc, char **argv);
void help_speedup(void);
int cmd_report_entry(int argc, char **argv);
void help_report(void);
int cmd_validate_entry(int argc, char **argv);
void help_validate(void);
int cmd_train(int argc, char **argv);
void help_train(void);

#endif
