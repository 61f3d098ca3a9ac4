/* A test's LD_PRELOAD shim that sends SIGTERM to its own process the instant a
 * temporary has been made: GQ_SIGNAL_AT=CALL[:N] (CALL one of mkdtemp, mkstemp,
 * mkdir; N the call to stop at, the first by default) raises the signal right
 * after that call succeeds, before the caller has done anything with what it
 * made. A signal arriving as a system call returns is the likeliest moment on a
 * busy machine, and the only moment a handler could see a temporary made but not
 * yet registered for removal; here it is every time, so the test is exact. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

static char AT[64]; /* GQ_SIGNAL_AT as this process was given it */

/* Only the process started with the shim: its children (smpirun, and what it starts) run without it. */
__attribute__((constructor)) static void take_setting(void)
{
    const char *at = getenv("GQ_SIGNAL_AT");
    if (at) strncpy(AT, at, sizeof AT - 1);
    unsetenv("GQ_SIGNAL_AT");
    unsetenv("LD_PRELOAD");
}

/* 1 when this is the call GQ_SIGNAL_AT names (counting the calls of that name). */
static int is_the_call(const char *name)
{
    static int seen_mkdtemp, seen_mkstemp, seen_mkdir;
    int *seen = strcmp(name, "mkdtemp") == 0   ? &seen_mkdtemp
                : strcmp(name, "mkstemp") == 0 ? &seen_mkstemp
                                               : &seen_mkdir;
    const char *at = AT;
    const size_t len = strlen(name);
    if (!at || strncmp(at, name, len) != 0 || (at[len] != '\0' && at[len] != ':')) return 0;
    const int nth = at[len] == ':' ? atoi(at + len + 1) : 1;
    return ++*seen == nth;
}

char *mkdtemp(char *tmpl)
{
    char *(*real)(char *) = (char *(*)(char *))dlsym(RTLD_NEXT, "mkdtemp");
    char *made = real(tmpl);
    if (made && is_the_call("mkdtemp")) raise(SIGTERM);
    return made;
}

int mkstemp(char *tmpl)
{
    int (*real)(char *) = (int (*)(char *))dlsym(RTLD_NEXT, "mkstemp");
    const int fd = real(tmpl);
    if (fd >= 0 && is_the_call("mkstemp")) raise(SIGTERM);
    return fd;
}

int mkdir(const char *path, mode_t mode)
{
    int (*real)(const char *, mode_t) = (int (*)(const char *, mode_t))dlsym(RTLD_NEXT, "mkdir");
    const int rc = real(path, mode);
    if (rc == 0 && is_the_call("mkdir")) raise(SIGTERM);
    return rc;
}
