/* Error codes shared by every gqsim library (quant/, models/, and later sim/,
 * train/). Library functions never print or exit: they return a gq_err, or a
 * size_t that is either a result or an error packed in the top of the range
 * (the zstd convention), tested with gq_is_error(). Only cli/ turns them into
 * messages and exit codes. */
#ifndef GQ_ERROR_H
#define GQ_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum {
    GQ_OK = 0,
    GQ_ERR_SPEC,           /* malformed input: a spec, a model or platform file, a CSV row */
    GQ_ERR_PARAM,          /* parameter out of range */
    GQ_ERR_EMPTY,          /* zero elements */
    GQ_ERR_NONFINITE,      /* NaN or Inf in the input */
    GQ_ERR_DST_TOO_SMALL,  /* output capacity below what is needed */
    GQ_ERR_WORK_TOO_SMALL, /* workspace below qz_workspace_size() */
    GQ_ERR_TOO_LARGE,      /* a size would overflow 64 bits */
    GQ_ERR_TRUNCATED,      /* encoded buffer shorter than its header says */
    GQ_ERR_CORRUPT,        /* encoded buffer fails a structural or checksum test */
    GQ_ERR_BAD_MAGIC,      /* not a gqsim encoded buffer */
    GQ_ERR_VERSION,        /* wire-format version this build cannot read */
    GQ_ERR_NOMEM,
    GQ_ERR_IO,
    GQ_ERR_USAGE, /* options that contradict each other, or that change nothing in that run: the CLI's exit 2 */
    GQ_ERR_RANGE, /* a finite input value larger than the quantizer takes (qz_largest_input) */
    GQ_ERR_COUNT_
} gq_err;

/* Packs an error into a size_t result (values above SIZE_MAX - GQ_ERR_COUNT_). */
static inline size_t gq_error_result(gq_err e) { return (size_t)0 - (size_t)e; }
static inline int gq_is_error(size_t r) { return r > (size_t)0 - (size_t)GQ_ERR_COUNT_; }
static inline gq_err gq_error_code(size_t r) { return gq_is_error(r) ? (gq_err)((size_t)0 - r) : GQ_OK; }

/* "s" unless n is 1: "%d GPU%s", n, gq_s(n) reads "1 GPU", "8 GPUs". */
static inline const char *gq_s(long long n) { return n == 1 ? "" : "s"; }

/* Writes a printf-style message into msg (if msg_cap > 0) and returns e: the
 * one-line reason that library calls hand back to the CLI. */
gq_err gq_fail(gq_err e, char *msg, size_t msg_cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The same, prefixed "FILE:LINE: " (an input file's line), for the readers of user files. */
gq_err gq_fail_at(gq_err e, char *msg, size_t cap, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
gq_err gq_vfail_at(gq_err e, char *msg, size_t cap, const char *file, int line, const char *fmt, va_list ap);

/* @return a static, human-readable description; never NULL. */
const char *gq_strerror(gq_err e);

#endif
