/* gq_run: fork/exec with captured output. Standard error goes to an unnamed
 * temporary file rather than a second pipe, so a chatty program can never
 * block on one pipe while gqsim reads the other. */
#include "gq_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gq_file.h"

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
            close(errfd);
            return -1;
        }
    ssize_t n = pread(errfd, err, err_cap - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(errfd);
    return status;
}
