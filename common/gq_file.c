/* Whole-file reading; see gq_file.h. */
#define _GNU_SOURCE /* O_TMPFILE: a file that never has a name */
#include "gq_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gq_err gq_read_file(const char *path, size_t limit, int text_only, char **text, size_t *len, char *msg, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return gq_fail(GQ_ERR_IO, msg, cap, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return gq_fail(GQ_ERR_IO, msg, cap, "%s: not a regular file", path);
    }
    const size_t n = (size_t)st.st_size;
    if (n > limit) {
        fclose(f);
        return gq_fail(GQ_ERR_IO, msg, cap, "%s: larger than %zu bytes", path, limit);
    }
    char *s = malloc(n + 1);
    if (!s) {
        fclose(f);
        return gq_fail(GQ_ERR_NOMEM, msg, cap, "%s: out of memory reading %zu bytes", path, n);
    }
    int bad = fread(s, 1, n, f) != n;
    fclose(f);
    if (bad) {
        free(s);
        return gq_fail(GQ_ERR_IO, msg, cap, "%s: read error", path);
    }
    s[n] = '\0';
    if (text_only && strlen(s) != n) {
        free(s);
        return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: not a text file (it holds a NUL byte)", path);
    }
    *text = s;
    if (len) *len = n;
    return GQ_OK;
}

void gq_signals_hold(sigset_t *saved)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, saved);
}

void gq_signals_release(const sigset_t *saved) { pthread_sigmask(SIG_SETMASK, saved, NULL); }

int gq_unnamed_file(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    const char *dir = tmp && *tmp ? tmp : "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    /* a file system without O_TMPFILE: a name for an instant, which no signal handler may interrupt */
    snprintf(path, sizeof path, "%s/gqsim-XXXXXX", dir);
    sigset_t saved;
    gq_signals_hold(&saved);
    fd = mkstemp(path);
    if (fd >= 0) unlink(path);
    gq_signals_release(&saved);
    return fd;
}

int gq_beside_self(const char *env, const char *name, char *out, size_t cap)
{
    const char *given = getenv(env);
    if (given && *given) return snprintf(out, cap, "%s", given), 0;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = '\0';
    snprintf(out, cap, "%s/%s", dirname(self), name);
    return 0;
}
