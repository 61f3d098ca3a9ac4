/* Reading a whole file the user named, for the libraries that parse files
 * (models, platforms, profiles): bounded, NUL-terminated, one-line errors;
 * and temporaries that nothing can leave behind (an unnamed file, and the
 * signal hold under which a named one is made and registered). */
#ifndef GQ_FILE_H
#define GQ_FILE_H

#include <signal.h>
#include <stddef.h>

#include "gq_error.h"

/* Every catchable signal held on the calling thread (pending, not lost) until gq_signals_release: between making a
 * temporary and registering it for removal (or unlinking it) no handler runs, so a signal there can no longer leave
 * it behind (a signal is delivered as a system call returns: mkstemp's or mkdir's own is the likeliest moment).
 * gqsim makes its temporaries on its one thread. */
void gq_signals_hold(sigset_t *saved);
void gq_signals_release(const sigset_t *saved);

/* Reads the regular file path (at most `limit` bytes) into a malloc'd
 * buffer with a NUL after its len bytes. text_only: a NUL byte inside is an
 * error. @return GQ_OK, GQ_ERR_IO (with strerror's reason), GQ_ERR_SPEC (not
 * text) or GQ_ERR_NOMEM. */
gq_err gq_read_file(const char *path, size_t limit, int text_only, char **text, size_t *len, char *msg, size_t cap);

/* A temporary file with no name (O_TMPFILE in $TMPDIR or /tmp; where the file
 * system lacks it, created and unlinked with signals held), so that nothing is
 * left behind whatever happens to gqsim.
 * @return its descriptor, or -1. */
int gq_unnamed_file(void);

/* A file gqsim ships beside its own executable (gqsim-smpi,
 * gqsim-simgrid.so): the environment variable `env` names it instead where
 * set (tests, installs). @return 0, or -1 if this program's path is unknown. */
int gq_beside_self(const char *env, const char *name, char *out, size_t cap);

#endif
