/* The one checked allocator for what cannot fail gracefully mid-way (table
 * cells, figure scripts, the CLI's buffers): a failed allocation calls the
 * out-of-memory handler the program installed (gqsim's prints one line,
 * removes its staged outputs and exits 1) and never returns NULL. Library
 * code that can unwind returns GQ_ERR_NOMEM instead. */
#ifndef GQ_ALLOC_H
#define GQ_ALLOC_H

#include <stddef.h>

/* Called with the size that could not be had; must not return (the default aborts). */
typedef void (*gq_oom_handler)(size_t bytes);
void gq_set_oom_handler(gq_oom_handler fn);

void *gq_xmalloc(size_t bytes);
/* count * size, overflow counted as out of memory. */
void *gq_xcalloc(size_t count, size_t size);
void *gq_xrealloc(void *p, size_t bytes);
char *gq_xstrdup(const char *s);

#endif
