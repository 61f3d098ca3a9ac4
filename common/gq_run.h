/* Starting an external program (gnuplot, smpirun) the one safe way: fork
 * and exec with an argument vector, never a shell; the child dies with
 * gqsim; what it prints is captured for the caller's one-line error. */
#ifndef GQ_RUN_H
#define GQ_RUN_H

#include <stddef.h>

/* Runs argv[0] (searched on PATH) with argv, in cwd (NULL: here), its
 * standard input /dev/null. Its standard output goes into out (at most
 * out_cap - 1 bytes, NUL-terminated; out NULL: discarded), the start of its
 * standard error into err likewise (err_cap >= 1). Exit status 127: the
 * program could not be started; 126: cwd could not be entered (err says).
 * @return the wait status (sys/wait.h's W* macros read it), or -1 where no
 * program ran (err then holds the reason). */
int gq_run(const char *const *argv, const char *cwd, char *out, size_t out_cap, char *err, size_t err_cap);

#endif
