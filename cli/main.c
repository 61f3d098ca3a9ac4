/* gqsim: predicts how much faster distributed training gets with quantized
 * gradients, and what it costs in accuracy. This file is the top-level
 * command table; each command lives in its own cmd_*.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas_core.h"
#include "cli_util.h"
#include "columns.h"
#include "commands.h"
#include "gq_run.h"
#include "gq_suggest.h"

/* A row is a group of subcommands (quant, models...), a command of its own without options (help,
 * version), or a whole table of top-level commands with options (SIM_CMDS: simulate, speedup...), whose
 * rows are then commands by their own names: each name is written once, in its table. */
typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    void (*help)(void); /* a group's help */
    const char *summary;
    const cli_command *subs;   /* a group's subcommands */
    const cli_command *leaves; /* top-level commands, each with its options */
} top_command;

/* One top-level command found: its row, and for a table of leaves the leaf. */
typedef struct {
    const top_command *top;
    const cli_command *leaf;
} found_command;

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const top_command COMMANDS[] = {
    {"quant", cmd_quant, help_quant, "gradient quantizers", QUANT_CMDS, NULL},
    {"models", cmd_models, help_models, "the model zoo", MODELS_CMDS, NULL},
    {"gpus", cmd_gpus, help_gpus, "GPU compute profiles", GPUS_CMDS, NULL},
    {"platforms", cmd_platforms, help_platforms, "GPU clusters", PLATFORM_CMDS, NULL},
    {NULL, NULL, NULL, NULL, NULL, SIM_CMDS},
    {NULL, NULL, NULL, NULL, NULL, TRAIN_CMDS},
    {"help", cmd_help, NULL, "show help for a command: gqsim help CMD [SUBCOMMAND]", NULL, NULL},
    {"version", cmd_version, NULL, "print the version", NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

static int is_end(const top_command *c) { return !c->name && !c->leaves; }

static void usage(FILE *out)
{
    fprintf(out, "usage: gqsim COMMAND [ARGS]\n\n"
                 "Predicts the speedup of distributed deep-learning training with quantized\n"
                 "gradients, and what it costs in accuracy.\n\ncommands:\n");
    for (const top_command *c = COMMANDS; !is_end(c); c++)
        if (c->leaves)
            for (const cli_command *l = c->leaves; l->name; l++) fprintf(out, "  %-10s %s\n", l->name, l->summary);
        else if (c->subs) { /* a group: its summary and its subcommands, from its table */
            fprintf(out, "  %-10s %s:", c->name, c->summary);
            for (const cli_command *sub = c->subs; sub->name; sub++)
                fprintf(out, "%s %s", sub == c->subs ? "" : ",", sub->name);
            fputc('\n', out);
        } else
            fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\nRun 'gqsim help COMMAND' for a command's options. Every table prints as CSV\n"
                 "with --format csv.\n");
}

static found_command find(const char *name)
{
    for (const top_command *c = COMMANDS; !is_end(c); c++)
        if (c->leaves) {
            for (const cli_command *l = c->leaves; l->name; l++)
                if (strcmp(l->name, name) == 0) return (found_command){c, l};
        } else if (strcmp(c->name, name) == 0) {
            return (found_command){c, NULL};
        }
    return (found_command){NULL, NULL};
}

/* "unknown GROUP subcommand 'X'", with the nearest subcommand's name if one is near. */
static void unknown_sub(const char *group, const cli_command *subs, const char *name)
{
    const char *names[64];
    size_t n = 0;
    for (const cli_command *s = subs; s->name && n < 64; s++) names[n++] = s->name;
    char near[64];
    cli_error("unknown %s subcommand '%s'%s (see 'gqsim help %s')", group, name,
              gq_did_you_mean(name, names, n, near, sizeof near), group);
}

/* "unknown command 'X'", with the nearest command's name if one is near. */
static void unknown_command(const char *name)
{
    const char *names[64];
    size_t n = 0;
    for (const top_command *c = COMMANDS; !is_end(c) && n < 64; c++)
        if (c->leaves)
            for (const cli_command *l = c->leaves; l->name && n < 64; l++) names[n++] = l->name;
        else
            names[n++] = c->name;
    char near[64];
    cli_error("unknown command '%s'%s (see 'gqsim --help')", name, gq_did_you_mean(name, names, n, near, sizeof near));
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    const found_command f = find(argv[1]);
    const top_command *c = f.top;
    if (!c) {
        unknown_command(argv[1]);
        return EXIT_USAGE;
    }
    if (argc > 2 && c->subs) {
        for (const cli_command *s = c->subs; s->name; s++)
            if (strcmp(s->name, argv[2]) == 0) {
                cli_print_sub(stdout, c->name, s);
                return 0;
            }
        unknown_sub(c->name, c->subs, argv[2]);
        return EXIT_USAGE;
    }
    if (f.leaf)
        cli_print_sub(stdout, NULL, f.leaf);
    else if (c->help)
        c->help();
    else
        printf("gqsim %s: %s\n", c->name, c->summary);
    return 0;
}

const char *cli_command_name(cli_cmd id, const cli_command **row)
{
    static char names[C_COUNT_][48];
    for (const top_command *c = COMMANDS; !is_end(c); c++) {
        const cli_command *t = c->leaves ? c->leaves : c->subs;
        for (; t && t->name; t++)
            if (t->id == id && t->fn) {
                if (!names[id][0])
                    snprintf(names[id], sizeof names[id], "%s%s%s", c->leaves ? "" : c->name, c->leaves ? "" : " ",
                             t->name);
                if (row) *row = t;
                return names[id];
            }
    }
    return "?";
}

int cli_parse_command(cli_cmd id, int argc, char **argv, cli_args *a)
{
    const cli_command *row = NULL;
    const char *name = cli_command_name(id, &row);
    return cli_parse_args(id, name, argc, argv, a, row && row->operand ? 1 : 0);
}

static int cmd_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("gqsim %s\n", GQ_VERSION);
    return 0;
}

/* "gqsim NAME OPERAND --opt V [--opt V]...", wrapped at 80 columns under the first option; `col` is where the line
 * starts (after "usage: " or an indent). */
static void print_usage_line(FILE *out, const char *group, const cli_command *c, int col)
{
    const int n = fprintf(out, "gqsim %s%s%s%s%s ", group ? group : "", group ? " " : "", c->name,
                          c->operand ? " " : "", c->operand ? c->operand : "");
    cli_options_usage(out, c->id, col + (n > 0 ? n : 0), 80);
    fputc('\n', out);
}

void cli_print_usage(FILE *out, const char *group, const cli_command *cmds)
{
    fprintf(out, "usage: gqsim %s SUBCOMMAND [OPTIONS]\n\n", group);
    for (const cli_command *c = cmds; c->name; c++) {
        fputs("  ", out);
        print_usage_line(out, group, c, 2);
        fprintf(out, "      %s\n", c->summary);
    }
    fprintf(out, "\n'gqsim help %s SUBCOMMAND' explains each option.\n", group);
}

void cli_print_sub(FILE *out, const char *group, const cli_command *c)
{
    fputs("usage: ", out);
    print_usage_line(out, group, c, 7);
    fprintf(out, "\n%s.\n\noptions:\n", c->summary);
    cli_options_help(out, c->id);
    if (c->details) fprintf(out, "\n%s", c->details);
    if (c->id == C_VALIDATE || c->id == C_SWEEP) cli_run_param_columns_help(out);
    cli_columns_help(out, c->id);
}

int cli_dispatch(const char *group, const cli_command *cmds, int argc, char **argv)
{
    if (argc < 2) {
        cli_print_usage(stderr, group, cmds);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cli_print_usage(stdout, group, cmds);
        return 0;
    }
    for (const cli_command *c = cmds; c->name; c++)
        if (strcmp(c->name, argv[1]) == 0) {
            for (int i = 2; i < argc; i++)
                if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                    cli_print_sub(stdout, group, c);
                    return 0;
                }
            return c->fn(argc - 1, argv + 1);
        }
    unknown_sub(group, cmds, argv[1]);
    return EXIT_USAGE;
}

/* Runs one command; its staged outputs appear only if it succeeded. */
static int run(found_command f, int argc, char **argv)
{
    cli_install_signal_cleanup();
    for (int i = 1; f.leaf && i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_print_sub(stdout, NULL, f.leaf);
            return 0;
        }
    int rc = f.leaf ? f.leaf->fn(argc, argv) : f.top->fn(argc, argv);
    if (rc == 0 && cli_close_stdout() != 0) rc = 1; /* a truncated table is a failure: files not kept either */
    if (rc == 0 && cli_commit_outputs() != 0) rc = 1;
    if (rc != 0) cli_discard_outputs();
    return rc;
}

/* The commands that train run OpenBLAS's best kernel for this CPU: where
 * OpenBLAS chose a weaker one (a CPU model it does not know), gqsim sets
 * OPENBLAS_CORETYPE and starts itself again, since OpenBLAS reads it once,
 * when it loads. A core the user set stays; so does the run if exec fails. */
static void select_blas_core(char **argv)
{
    if (getenv("OPENBLAS_CORETYPE")) return;
    cpu_features f = cpu_features_detect();
    const char *want = blas_core_for(&f), *have = blas_core_in_use();
    int have_rank = blas_core_rank(have);
    if (have_rank < 0 || have_rank >= blas_core_rank(want)) return;
    if (setenv("OPENBLAS_CORETYPE", want, 1) != 0) return;
    fflush(NULL);
    execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE");
}

static int main_of(int argc, char **argv);

/* Out of memory anywhere a buffer is taken with gq_x*alloc: one line, nothing left behind, exit 1. */
static void out_of_memory(size_t bytes)
{
    gq_run_cancel();
    cli_discard_outputs();
    cli_error("out of memory (%zu bytes more could not be had)", bytes);
    exit(1);
}

int main(int argc, char **argv)
{
    cli_reopen_std_fds();
    gq_set_oom_handler(out_of_memory);
    int rc = main_of(argc, argv);
    if (cli_close_stdout() != 0 && rc == 0) rc = 1; /* help and usage too */
    return rc;
}

static int main_of(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "train") == 0 || strcmp(argv[1], "tta") == 0)) select_blas_core(argv);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) return cmd_version(argc - 1, argv + 1);
    if (argv[1][0] == '-') {
        cli_error("unknown option '%s' (see 'gqsim --help')", argv[1]);
        return EXIT_USAGE;
    }
    const found_command f = find(argv[1]);
    if (!f.top) {
        unknown_command(argv[1]);
        return EXIT_USAGE;
    }
    const top_command *c = f.top;
    if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))
        return cmd_help(2, argv); /* 'gqsim CMD --help' is 'gqsim help CMD' */
    if (argc > 3 && c->subs && (strcmp(argv[3], "--help") == 0 || strcmp(argv[3], "-h") == 0)) {
        char *sub[] = {argv[0], argv[1], argv[2]}; /* 'gqsim GROUP NAME --help' is 'gqsim help GROUP NAME' */
        return cmd_help(3, sub);
    }
    return run(f, argc - 1, argv + 1);
}
