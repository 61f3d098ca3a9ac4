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

#define GQ_RUN_MAX_CLEANUP 8
#define GQ_RUN_CLEANUP_PATH 256

/* mkdtemp(tmpl), the directory registered as a tree (gq_run_cleanup_add_tree) before any signal is handled.
 * @return 0, or -1 with errno set (nothing made, or nothing left made). */
int gq_run_private_dir(char *tmpl);

/* Registers a temporary file or (empty) directory that gq_run_cancel removes;
 * register a directory before the files in it. @return 0, or -1 if full. */
int gq_run_cleanup_add(const char *path);
/* Registers a directory removed with everything in it (to four levels down): one the program writes files of its
 * own naming in (its TMPDIR). @return 0, or -1 if full. */
int gq_run_cleanup_add_tree(const char *dir);
/* Removes the registered paths (files, then directories; trees whole) and forgets them. */
void gq_run_cleanup_done(void);
/* For a signal handler (async-signal-safe): ends the running program's whole
 * process group (SIGTERM, then SIGKILL after at most a second) and removes
 * the registered paths. */
void gq_run_cancel(void);

#endif
