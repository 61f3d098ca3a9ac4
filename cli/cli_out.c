/* Output files and external programs, done so that a failing or interrupted
 * command leaves nothing behind and no user string reaches a shell.
 *
 * Outputs are staged: written under PATH.tmp.PID and renamed into place only
 * when the whole command has succeeded (main() calls cli_commit_outputs, or
 * cli_discard_outputs on failure). The staged names live in a fixed table
 * that the SIGINT/SIGTERM handler can walk with async-signal-safe calls
 * (unlink, rmdir) before the signal takes its default course. External
 * programs are started by gq_run (fork/exec, an argument vector, dying with
 * gqsim) and hand back the last line of their stderr. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "gq_run.h"

#define MAX_STAGED 256
#define STAGE_PATH 4096

typedef struct {
    char tmp[STAGE_PATH];   /* written, or being written */
    char final[STAGE_PATH]; /* "" for a directory this run created (removed if still empty) */
} staged;

static staged STAGED[MAX_STAGED];
static volatile sig_atomic_t NSTAGED;

/* ---- staging ------------------------------------------------------------------------------ */

static int stage_slot(const char *tmp, const char *final)
{
    if (NSTAGED == MAX_STAGED || strlen(tmp) >= STAGE_PATH || strlen(final) >= STAGE_PATH) return -1;
    staged *s = &STAGED[NSTAGED];
    strcpy(s->tmp, tmp);
    strcpy(s->final, final);
    NSTAGED = NSTAGED + 1; /* only now can the signal handler see it */
    return 0;
}

int cli_stage_name(const char *path, char *tmp, size_t cap)
{
    int n = snprintf(tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= cap || stage_slot(tmp, path) != 0) {
        cli_error("%s: path too long, or too many output files", path);
        return -1;
    }
    return 0;
}

int cli_stage_dir(const char *path)
{
    if (cli_is_dir(path)) return 0;
    if (mkdir(path, 0777) != 0) {
        cli_error("%s: cannot create the directory: %s", path, strerror(errno));
        return -1;
    }
    if (stage_slot(path, "") != 0) {
        rmdir(path);
        cli_error("%s: path too long", path);
        return -1;
    }
    return 0;
}

int cli_commit_outputs(void)
{
    int rc = 0;
    for (int i = 0; i < NSTAGED; i++) {
        staged *s = &STAGED[i];
        if (!s->final[0]) continue; /* a directory: it stays */
        if (rename(s->tmp, s->final) != 0) {
            cli_error("%s: cannot write it: %s", s->final, strerror(errno));
            rc = -1;
            unlink(s->tmp);
        }
    }
    NSTAGED = 0;
    return rc;
}

/* Async-signal-safe: unlink and rmdir only, newest first (files before their directory). */
static void discard(void)
{
    for (int i = NSTAGED; i-- > 0;) {
        if (STAGED[i].final[0])
            unlink(STAGED[i].tmp);
        else
            rmdir(STAGED[i].tmp); /* only if this run left it empty */
    }
    NSTAGED = 0;
}

void cli_discard_outputs(void) { discard(); }

static void on_signal(int sig)
{
    discard();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int cli_write_file(const char *path, const void *data, size_t size)
{
    char tmp[STAGE_PATH + 32];
    return cli_write_staged(path, data, size, tmp, sizeof tmp);
}

int cli_write_staged(const char *path, const void *data, size_t size, char *tmp, size_t cap)
{
    if (cli_stage_name(path, tmp, cap) != 0) return -1;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        cli_error("%s: %s", path, strerror(errno));
        return -1;
    }
    int ok = fwrite(data, 1, size, f) == size;
    ok &= fclose(f) == 0;
    if (!ok) {
        cli_error("%s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- checks before any long work ------------------------------------------------------------ */

int cli_check_output(const char *opt, const char *path, const char *const *exts)
{
    if (!*path) {
        cli_error("%s: empty file name", opt);
        return -1;
    }
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            cli_error("%s: the file name holds a control character", opt);
            return -1;
        }
    if (strlen(path) > STAGE_PATH - 64) {
        cli_error("%s: file name too long", opt);
        return -1;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (exts) {
        const char *dot = strrchr(base, '.');
        int known = 0;
        for (const char *const *e = exts; *e && !known; e++) known = dot && strcmp(dot + 1, *e) == 0;
        if (!known) {
            char list[256] = "";
            for (const char *const *e = exts; *e; e++) {
                strncat(list, e == exts ? "." : " or .", sizeof list - strlen(list) - 1);
                strncat(list, *e, sizeof list - strlen(list) - 1);
            }
            cli_error("%s '%s': the file name must end in %s", opt, path, list);
            return -1;
        }
    }
    if (!*base || cli_is_dir(path)) {
        cli_error("%s '%s': is a directory, not a file name", opt, path);
        return -1;
    }
    char dir[STAGE_PATH];
    if (base == path)
        strcpy(dir, ".");
    else if (base - path == 1)
        strcpy(dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(base - path - 1), path);
    if (!cli_is_dir(dir)) {
        cli_error("%s '%s': directory '%s' does not exist", opt, path, dir);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        cli_error("%s '%s': directory '%s' is not writable", opt, path, dir);
        return -1;
    }
    return 0;
}

int cli_check_output_dir(const char *opt, const char *path)
{
    if (!cli_is_dir(path)) return cli_check_output(opt, path, NULL); /* to be created: as a new file */
    if (access(path, W_OK) != 0) {
        cli_error("%s '%s': directory is not writable", opt, path);
        return -1;
    }
    return 0;
}

/* ---- external programs ------------------------------------------------------------------------ */

int cli_run_program(const char *const *argv, const char *cwd, char *why, size_t cap)
{
    why[0] = '\0';
    char err[2048];
    const int status = gq_run(argv, cwd, NULL, 0, err, sizeof err);
    if (status < 0) return snprintf(why, cap, "%s", err), -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(why, cap, "'%s' is not installed or not on PATH", argv[0]);
        return 127;
    }
    size_t n = strlen(err);
    /* the last non-empty line of its complaint: where gnuplot and SimGrid say why */
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' ' || err[n - 1] == '\r')) err[--n] = '\0';
    const char *line = strrchr(err, '\n');
    line = line ? line + 1 : err;
    while (*line == ' ') line++;
    size_t len = strlen(line);
    if (len)
        snprintf(why, cap, "%.*s", (int)len, line);
    else if (WIFSIGNALED(status))
        snprintf(why, cap, "killed by %s", strsignal(WTERMSIG(status)));
    else
        snprintf(why, cap, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
