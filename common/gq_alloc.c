/* The checked allocator; see gq_alloc.h. */
#include "gq_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void abort_on_oom(size_t bytes) { (void)bytes, abort(); }

static gq_oom_handler on_oom = abort_on_oom;

void gq_set_oom_handler(gq_oom_handler fn) { on_oom = fn ? fn : abort_on_oom; }

static void *checked(void *p, size_t bytes)
{
    if (!p) {
        on_oom(bytes);
        abort(); /* a handler that returned */
    }
    return p;
}

void *gq_xmalloc(size_t bytes) { return checked(malloc(bytes ? bytes : 1), bytes); }

void *gq_xcalloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return checked(NULL, SIZE_MAX);
    return checked(calloc(count ? count : 1, size ? size : 1), count * size);
}

void *gq_xrealloc(void *p, size_t bytes) { return checked(realloc(p, bytes ? bytes : 1), bytes); }

char *gq_xstrdup(const char *s) { return checked(strdup(s), strlen(s) + 1); }
