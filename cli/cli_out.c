/* Output files and external programs, done so that a failing or interrupted
 * command leaves nothing behind, nothing planted in its way is followed, and
 * no user string reaches a shell.
 *
 * Outputs are staged: each is written under a fresh name PATH.tmp.XXXXXX in
 * PATH's own directory, created with O_CREAT|O_EXCL (mkstemp: a symlink or
 * file planted at any name is never opened), and renamed over PATH only when
 * the whole command has succeeded (main() calls cli_commit_outputs, or
 * cli_discard_outputs on failure), after an fsync, and only where PATH is
 * absent or a regular file: a device, FIFO, symlink or directory named as an
 * output is refused before any work and again at the rename. The staged names
 * live in a table that the signal handler (SIGINT, SIGTERM, SIGHUP, SIGPIPE)
 * walks with async-signal-safe calls (unlink, rmdir) before the signal takes
 * its default course; the table grows by publishing a new copy, so the handler
 * always sees a whole one, and a temporary is made and entered in it with
 * signals held, so that none arrives in between. External programs are started by gq_run (fork/exec,
 * an argument vector, dying with gqsim) and hand back the last line of their
 * stderr. */
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
#include "gq_file.h"
#include "gq_run.h"

#define STAGE_PATH 4096

typedef struct {
    char *tmp;   /* written, or being written */
    char *final; /* NULL for a directory this run created (removed if still empty) */
} staged;

/* Published to the signal handler: a table and its count, each store whole. */
static staged *volatile STAGED;
static volatile sig_atomic_t NSTAGED;
static size_t STAGED_CAP;
static mode_t FILE_MODE = 0644; /* 0666 less the umask, read once */

/* ---- staging ------------------------------------------------------------------------------ */

static int stage_slot(const char *tmp, const char *final)
{
    if ((size_t)NSTAGED == STAGED_CAP) {
        const size_t cap = STAGED_CAP ? 2 * STAGED_CAP : 64;
        staged *grown = malloc(cap * sizeof *grown);
        if (!grown) return -1;
        if (NSTAGED) memcpy(grown, STAGED, (size_t)NSTAGED * sizeof *grown);
        /* the old table stays allocated: a handler may be reading it right now */
        STAGED = grown;
        STAGED_CAP = cap;
    }
    staged s = {strdup(tmp), final ? strdup(final) : NULL};
    if (!s.tmp || (final && !s.final)) return free(s.tmp), free(s.final), -1;
    STAGED[NSTAGED] = s;
    NSTAGED = NSTAGED + 1; /* only now can the signal handler see it */
    return 0;
}

/* 0 if PATH is absent or a regular file (not a link to one): the only things an output may replace. */
static int replaceable(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    return S_ISREG(st.st_mode) ? 0 : -1;
}

static const char *kind_of(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return "unreadable";
    return S_ISLNK(st.st_mode)    ? "a symbolic link"
           : S_ISDIR(st.st_mode)  ? "a directory"
           : S_ISCHR(st.st_mode)  ? "a character device"
           : S_ISBLK(st.st_mode)  ? "a block device"
           : S_ISFIFO(st.st_mode) ? "a FIFO"
           : S_ISSOCK(st.st_mode) ? "a socket"
                                  : "not a regular file";
}

/* Stages PATH: a fresh temporary beside it, registered for commit or removal. @return its open descriptor
 * (the file mkstemp created, never reopened by name), or -1 after printing. */
static int stage_open(const char *path, char *tmp, size_t cap)
{
    if (replaceable(path) != 0) {
        cli_error("%s: is %s; outputs are written only as new or regular files", path, kind_of(path));
        return -1;
    }
    int n = snprintf(tmp, cap, "%s.tmp.XXXXXX", path);
    if (n < 0 || (size_t)n >= cap) {
        cli_error("%s: path too long", path);
        return -1;
    }
    sigset_t saved; /* made and registered with no handler between: a signal then cannot leave it */
    gq_signals_hold(&saved);
    const int fd = mkstemp(tmp); /* O_CREAT|O_EXCL: never opens what someone planted */
    const int err = errno;
    const int slotted = fd >= 0 && fchmod(fd, FILE_MODE) == 0 && stage_slot(tmp, path) == 0;
    if (fd >= 0 && !slotted) close(fd), unlink(tmp);
    gq_signals_release(&saved);
    if (fd < 0) {
        cli_error("%s: cannot create a temporary beside it: %s", path, strerror(err));
        return -1;
    }
    if (!slotted) {
        cli_error("%s: out of memory, or cannot set its mode", path);
        return -1;
    }
    return fd;
}

int cli_stage_name(const char *path, char *tmp, size_t cap)
{
    const int fd = stage_open(path, tmp, cap);
    if (fd < 0) return -1;
    close(fd); /* a program writes it by name (gnuplot): the file is ours, made by mkstemp */
    return 0;
}

int cli_stage_dir(const char *path)
{
    if (cli_is_dir(path)) return 0;
    sigset_t saved; /* made and registered with no handler between */
    gq_signals_hold(&saved);
    const int made = mkdir(path, 0777) == 0;
    const int err = errno;
    const int slotted = made && stage_slot(path, NULL) == 0;
    if (made && !slotted) rmdir(path);
    gq_signals_release(&saved);
    if (!made) {
        cli_error("%s: cannot create the directory: %s", path, strerror(err));
        return -1;
    }
    if (!slotted) {
        cli_error("%s: out of memory", path);
        return -1;
    }
    return 0;
}

/* Its data on disk before the rename makes it visible: a crash leaves the old file or the whole new one. */
static int sync_file(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    const int rc = fsync(fd) == 0 || errno == EINVAL ? 0 : -1; /* EINVAL: a file system that cannot sync */
    close(fd);
    return rc;
}

int cli_commit_outputs(void)
{
    int rc = 0;
    for (int i = 0; i < NSTAGED; i++) {
        staged *s = &STAGED[i];
        if (!s->final) continue; /* a directory: it stays */
        if (rc != 0) {
            unlink(s->tmp);
            continue;
        }
        if (replaceable(s->final) != 0) {
            cli_error("%s: became %s while gqsim ran; not replaced", s->final, kind_of(s->final));
            rc = -1;
        } else if (sync_file(s->tmp) != 0 || rename(s->tmp, s->final) != 0) {
            cli_error("%s: cannot write it: %s", s->final, strerror(errno));
            rc = -1;
        }
        if (rc != 0) unlink(s->tmp);
    }
    if (rc != 0) /* the directories this run made, if the failure left them empty */
        for (int i = NSTAGED; i-- > 0;)
            if (!STAGED[i].final) rmdir(STAGED[i].tmp);
    NSTAGED = 0;
    return rc;
}

/* Async-signal-safe: unlink and rmdir only, newest first (files before their directory). */
static void discard(void)
{
    staged *t = STAGED;
    for (int i = NSTAGED; i-- > 0;) {
        if (t[i].final)
            unlink(t[i].tmp);
        else
            rmdir(t[i].tmp); /* only if this run left it empty */
    }
    NSTAGED = 0;
}

void cli_discard_outputs(void) { discard(); }

static void on_signal(int sig)
{
    gq_run_cancel(); /* a program under way (smpirun and what it started), and its temporaries */
    discard();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_install_signal_cleanup(void)
{
    const mode_t mask = umask(022);
    umask(mask);
    FILE_MODE = 0666 & ~mask;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    static const int SIGNALS[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t k = 0; k < sizeof SIGNALS / sizeof *SIGNALS; k++) sigaddset(&sa.sa_mask, SIGNALS[k]);
    for (size_t k = 0; k < sizeof SIGNALS / sizeof *SIGNALS; k++) sigaction(SIGNALS[k], &sa, NULL);
}

int cli_write_file(const char *path, const void *data, size_t size)
{
    char tmp[STAGE_PATH + 32];
    return cli_write_staged(path, data, size, tmp, sizeof tmp);
}

/* The staged temporary of PATH as a stream, its name in tmp. @return 0, or -1 after printing. */
static int stage_stream(const char *path, char *tmp, size_t cap, FILE **out)
{
    const int fd = stage_open(path, tmp, cap);
    *out = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !*out) {
        close(fd);
        cli_error("%s: %s", path, strerror(errno));
    }
    return *out ? 0 : -1;
}

int cli_write_staged(const char *path, const void *data, size_t size, char *tmp, size_t cap)
{
    FILE *f;
    if (stage_stream(path, tmp, cap, &f) != 0) return -1;
    fwrite(data, 1, size, f); /* a short write leaves the stream's error set: cli_close_stream reports it */
    return cli_close_stream(path, f);
}

int cli_stage_stream(const char *path, FILE **out)
{
    char tmp[STAGE_PATH + 32];
    return stage_stream(path, tmp, sizeof tmp, out);
}

int cli_close_stream(const char *path, FILE *f)
{
    const int bad = fflush(f) != 0 || ferror(f);
    const int saved = errno;
    if ((fclose(f) != 0) | bad) {
        cli_error("%s: write failed: %s", path, strerror(bad ? saved : errno));
        return -1;
    }
    return 0;
}

int cli_close_stdout(void)
{
    static int said;
    const int bad = fflush(stdout) != 0 || ferror(stdout);
    if (bad && said) return -1;
    if (bad) {
        said = 1;
        cli_error("standard output: write error: %s", errno ? strerror(errno) : "unknown");
        return -1;
    }
    return 0;
}

void cli_reopen_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            const int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (got >= 0 && got != fd) close(got); /* cannot happen: open takes the lowest free number */
        }
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
    if (replaceable(path) != 0) {
        cli_error("%s '%s': is %s; outputs are written only as new or regular files", opt, path, kind_of(path));
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
