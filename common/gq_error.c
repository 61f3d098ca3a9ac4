/* Human-readable names for gq_err codes, and the one-line message helper. */
#include "gq_error.h"

#include <stdarg.h>
#include <stdio.h>

gq_err gq_fail(gq_err e, char *msg, size_t cap, const char *fmt, ...)
{
    if (msg && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return e;
}

gq_err gq_vfail_at(gq_err e, char *msg, size_t cap, const char *file, int line, const char *fmt, va_list ap)
{
    if (!msg || cap == 0) return e;
    int n = snprintf(msg, cap, "%s:%d: ", file, line);
    if (n >= 0 && (size_t)n < cap) vsnprintf(msg + n, cap - (size_t)n, fmt, ap);
    return e;
}

gq_err gq_fail_at(gq_err e, char *msg, size_t cap, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gq_vfail_at(e, msg, cap, file, line, fmt, ap);
    va_end(ap);
    return e;
}

const char *gq_strerror(gq_err e)
{
    switch (e) {
    case GQ_OK: return "no error";
    case GQ_ERR_SPEC: return "malformed input (a spec, a model, a platform, a CSV row)";
    case GQ_ERR_PARAM: return "parameter out of range";
    case GQ_ERR_EMPTY: return "empty input (zero elements)";
    case GQ_ERR_NONFINITE: return "NaN or Inf in input";
    case GQ_ERR_DST_TOO_SMALL: return "output buffer too small";
    case GQ_ERR_WORK_TOO_SMALL: return "workspace too small";
    case GQ_ERR_TOO_LARGE: return "size overflows 64 bits";
    case GQ_ERR_TRUNCATED: return "encoded buffer is truncated";
    case GQ_ERR_CORRUPT: return "encoded buffer is corrupted";
    case GQ_ERR_BAD_MAGIC: return "not a gqsim encoded buffer (bad magic)";
    case GQ_ERR_VERSION: return "unsupported wire-format version";
    case GQ_ERR_NOMEM: return "out of memory";
    case GQ_ERR_IO: return "input/output error";
    case GQ_ERR_USAGE: return "options that do not go together";
    case GQ_ERR_RANGE: return "a finite value too large for this quantizer";
    case GQ_ERR_COUNT_: break;
    }
    return "unknown error";
}
