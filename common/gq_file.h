/* Reading a whole file the user named, for the libraries that parse files
 * (models, platforms, profiles): bounded, NUL-terminated, one-line errors. */
#ifndef GQ_FILE_H
#define GQ_FILE_H

#include <stddef.h>

#include "gq_error.h"

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
