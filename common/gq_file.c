/* Whole-file reading; see gq_file.h. */
#include "gq_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gq_err gq_read_file(const char *path, size_t limit, int text_only, char **text, size_t *len, char *msg, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return gq_fail(GQ_ERR_IO, msg, cap, "%s: %s", path, strerror(errno));
    char *s = NULL, chunk[65536];
    size_t n = 0, got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        char *grown = n + got <= limit ? realloc(s, n + got + 1) : NULL;
        if (!grown) {
            fclose(f);
            free(s);
            return gq_fail(GQ_ERR_IO, msg, cap, "%s: larger than %zu bytes, or out of memory", path, limit);
        }
        s = grown;
        memcpy(s + n, chunk, got);
        n += got;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(s);
        return gq_fail(GQ_ERR_IO, msg, cap, "%s: read error", path);
    }
    if (!s && !(s = malloc(1))) return GQ_ERR_NOMEM;
    s[n] = '\0';
    if (text_only && strlen(s) != n) {
        free(s);
        return gq_fail(GQ_ERR_SPEC, msg, cap, "%s: not a text file (it holds a NUL byte)", path);
    }
    *text = s;
    if (len) *len = n;
    return GQ_OK;
}
