/* gq_run, the one way gqsim starts a program: its standard output and error
 * captured, its exit status and the two failures it has codes for (127: not
 * found, 126: the directory could not be entered), standard input empty, the
 * working directory honoured, and a program that writes more than the
 * caller keeps still runs to its end (the pipe is drained, not left full). */
#include <sys/wait.h>

#include "check.h"
#include "gq_run.h"

static int exit_code(int status) { return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

int main(void)
{
    char out[256], err[256];
    const char *const both[] = {"sh", "-c", "printf out; printf 'err line\\n' >&2; exit 3", NULL};
    int st = gq_run(both, NULL, out, sizeof out, err, sizeof err);
    CHECK(exit_code(st) == 3 && strcmp(out, "out") == 0 && strcmp(err, "err line\n") == 0,
          "status 3, stdout 'out', stderr 'err line' (got %d, '%s', '%s')", exit_code(st), out, err);

    const char *const missing[] = {"gq-no-such-program-here", NULL};
    st = gq_run(missing, NULL, out, sizeof out, err, sizeof err);
    CHECK(exit_code(st) == 127 && out[0] == '\0', "a program not on PATH: 127 (got %d)", exit_code(st));

    const char *const pwd[] = {"pwd", NULL};
    st = gq_run(pwd, "/", out, sizeof out, err, sizeof err);
    CHECK(exit_code(st) == 0 && strcmp(out, "/\n") == 0, "cwd '/': pwd prints '/' (got '%s')", out);
    st = gq_run(pwd, "/nonexistent-gq-dir", out, sizeof out, err, sizeof err);
    CHECK(exit_code(st) == 126 && strstr(err, "cannot enter /nonexistent-gq-dir") != NULL,
          "a directory that cannot be entered: 126 and why (got %d, '%s')", exit_code(st), err);

    const char *const cat[] = {"cat", NULL}; /* stdin is /dev/null: cat ends at once */
    st = gq_run(cat, NULL, out, sizeof out, err, sizeof err);
    CHECK(exit_code(st) == 0 && out[0] == '\0', "stdin is empty (got %d, '%s')", exit_code(st), out);

    /* 1 MB of output and of errors, 16 bytes kept of each: the program still ends */
    const char *const lots[] = {"sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' a; head -c 1000000 /dev/zero >&2",
                                NULL};
    char small[16], small_err[16];
    st = gq_run(lots, NULL, small, sizeof small, small_err, sizeof small_err);
    CHECK(exit_code(st) == 0 && strlen(small) == 15 && strspn(small, "a") == 15,
          "1 MB written, 15 bytes kept, the program ended (got %d, %zu bytes)", exit_code(st), strlen(small));

    /* no stdout wanted: discarded */
    const char *const echo[] = {"echo", "hidden", NULL};
    st = gq_run(echo, NULL, NULL, 0, err, sizeof err);
    CHECK(exit_code(st) == 0 && err[0] == '\0', "stdout discarded, nothing on stderr (got %d)", exit_code(st));
    return check_summary();
}
