/* gq_run: fork/exec with captured output. Standard error goes to an unnamed
 * temporary file rather than a second pipe, so a chatty program can never
 * block on one pipe while gqsim reads the other. The program runs in a
 * process group of its own, so that gq_run_cancel can end it and everything
 * it started (smpirun's smpimain), which a parent-death signal alone cannot
 * reach; the paths a caller registers are removed by the same call, a
 * directory given to the program as its TMPDIR with whatever it made there
 * (smpirun's privatised copies of the program), once the group is gone. */
#define _GNU_SOURCE /* syscall(SYS_getdents64): a directory read without malloc, from a signal handler */
#include "gq_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gq_file.h"

/* The running program's process group (0: none), and the temporaries to remove if gqsim is cut short. */
static volatile sig_atomic_t RUNNING_GROUP;
static char CLEANUP[GQ_RUN_MAX_CLEANUP][GQ_RUN_CLEANUP_PATH];
static int CLEANUP_TREE[GQ_RUN_MAX_CLEANUP];
static volatile sig_atomic_t NCLEANUP;

static int cleanup_add(const char *path, int tree)
{
    if (NCLEANUP == GQ_RUN_MAX_CLEANUP || strlen(path) >= GQ_RUN_CLEANUP_PATH) return -1;
    strcpy(CLEANUP[NCLEANUP], path);
    CLEANUP_TREE[NCLEANUP] = tree;
    NCLEANUP = NCLEANUP + 1; /* visible to the handler only once whole */
    return 0;
}

int gq_run_cleanup_add(const char *path) { return cleanup_add(path, 0); }
int gq_run_cleanup_add_tree(const char *dir) { return cleanup_add(dir, 1); }

int gq_run_private_dir(char *tmpl)
{
    sigset_t saved;
    gq_signals_hold(&saved);
    int rc = mkdtemp(tmpl) ? 0 : -1;
    if (rc == 0 && cleanup_add(tmpl, 1) != 0) {
        rmdir(tmpl);
        errno = ENOSPC; /* the registry is full: a directory that might outlive a signal is not made */
        rc = -1;
    }
    const int err = errno;
    gq_signals_release(&saved); /* a signal held until now finds the directory registered */
    errno = err;
    return rc;
}

/* Everything inside the directory open as fd, then its subdirectories' insides to `depth` levels: open, getdents64,
 * unlinkat and close only, so that a signal handler may call it. */
static void empty_dir(int fd, int depth)
{
    char buf[4096] __attribute__((aligned(8)));
    for (;;) {
        const long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (got <= 0) return;
        int removed = 0;
        for (long at = 0; at < got;) {
            /* struct linux_dirent64: u64 inode, s64 offset, u16 record length, u8 type, then the name */
            unsigned short reclen;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            const char *name = buf + at + 19;
            at += reclen;
            if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) continue;
            if (unlinkat(fd, name, 0) == 0) {
                removed = 1;
                continue;
            }
            const int sub = depth > 0 ? openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : -1;
            if (sub >= 0) empty_dir(sub, depth - 1), close(sub);
            if (unlinkat(fd, name, AT_REMOVEDIR) == 0) removed = 1;
        }
        if (removed) lseek(fd, 0, SEEK_SET); /* entries removed: read the directory again from its start */
    }
}

static void remove_tree(const char *dir)
{
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd < 0) return;
    empty_dir(fd, 4);
    close(fd);
    rmdir(dir);
}

void gq_run_cleanup_done(void)
{
    for (int i = NCLEANUP; i-- > 0;)
        if (CLEANUP_TREE[i])
            remove_tree(CLEANUP[i]);
        else
            unlink(CLEANUP[i]), rmdir(CLEANUP[i]);
    NCLEANUP = 0;
}

void gq_run_cancel(void)
{
    const pid_t group = (pid_t)RUNNING_GROUP;
    if (group > 0) {
        kill(-group, SIGTERM); /* smpirun's own trap removes its temporaries and ends its child */
        /* up to a second for the group to go, then no more asking */
        for (int i = 0; i < 100 && kill(-group, 0) == 0; i++) {
            waitpid(group, NULL, WNOHANG); /* the leader is ours: reaped, it no longer counts */
            const struct timespec ten_ms = {0, 10000000};
            nanosleep(&ten_ms, NULL);
        }
        kill(-group, SIGKILL);
        /* and until it is gone (a second at most: an orphan this machine's init leaves a zombie still counts), so
         * that nothing of it writes in a directory being removed */
        for (int i = 0; i < 100 && kill(-group, 0) == 0; i++) {
            waitpid(group, NULL, WNOHANG);
            const struct timespec ten_ms = {0, 10000000};
            nanosleep(&ten_ms, NULL);
        }
        RUNNING_GROUP = 0;
    }
    gq_run_cleanup_done();
}

int gq_run(const char *const *argv, const char *cwd, char *out, size_t out_cap, char *err, size_t err_cap)
{
    err[0] = '\0';
    if (out && out_cap) out[0] = '\0';
    const int errfd = gq_unnamed_file();
    int pipefd[2] = {-1, -1};
    if (errfd < 0 || (out && pipe(pipefd) != 0)) {
        snprintf(err, err_cap, "cannot capture the output of %s: %s", argv[0], strerror(errno));
        if (errfd >= 0) close(errfd);
        return -1;
    }
    fflush(NULL);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, err_cap, "fork: %s", strerror(errno));
        close(errfd);
        if (out) close(pipefd[0]), close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);                    /* its own group: gq_run_cancel ends all it starts */
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed gqsim takes its helper with it */
        if (getppid() != parent) _exit(126);
        dup2(errfd, STDERR_FILENO);
        const int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) dup2(devnull, STDIN_FILENO);
        if (out) {
            close(pipefd[0]);
            dup2(pipefd[1], STDOUT_FILENO);
        } else if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
        }
        if (cwd && chdir(cwd) != 0) {
            dprintf(STDERR_FILENO, "cannot enter %s: %s\n", cwd, strerror(errno));
            _exit(126);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever of the two runs first, the group exists before it is signalled */
    RUNNING_GROUP = pid;
    if (out) { /* to the end: a program blocked on a full pipe would never exit */
        close(pipefd[1]);
        size_t len = 0;
        char sink[512];
        for (;;) {
            const int room = len + 1 < out_cap;
            ssize_t got = room ? read(pipefd[0], out + len, out_cap - 1 - len) : read(pipefd[0], sink, sizeof sink);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            if (room) len += (size_t)got;
        }
        if (out_cap) out[len] = '\0';
        close(pipefd[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, err_cap, "waitpid: %s", strerror(errno));
            RUNNING_GROUP = 0;
            close(errfd);
            return -1;
        }
    RUNNING_GROUP = 0;
    ssize_t n = pread(errfd, err, err_cap - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(errfd);
    return status;
}
