/* A CSV record reader (RFC 4180: quoted fields may hold commas, newlines and
 * "" for a quote; CRLF or LF), for the files users give gqsim: measured
 * throughputs, codec cost profiles. Bounded: at most GQ_CSV_MAX_FIELDS
 * fields of GQ_CSV_MAX_FIELD - 1 bytes; no NUL bytes. */
#ifndef GQ_CSV_H
#define GQ_CSV_H

#include <stddef.h>

#define GQ_CSV_MAX_FIELDS 64
#define GQ_CSV_MAX_FIELD 1024

typedef struct {
    const char *p, *end;
    int line; /* the line the next record starts on */
    char field[GQ_CSV_MAX_FIELDS][GQ_CSV_MAX_FIELD];
    int nfields;
    /* the header's number of fields: set by the first record read (or by the caller), after which a
     * record with fewer or more fields is malformed -- never filled from the record before */
    int width;
    char why[160]; /* room for a reason with numbers and a column's name in it */
} gq_csv;

void gq_csv_init(gq_csv *r, const char *text, size_t len);
/* Reads one record into r->field (fields past nfields are empty). The
 * first record fixes the width every later one must have (a blank line
 * excepted), and is a header: a non-empty name in it twice is malformed. @return 1 read, 0 at the end, -1 malformed
 * (the reason in *why, valid until the next call). */
int gq_csv_next(gq_csv *r, const char **why);
/* Index of a field of the record equal to a (or b), or -1: for a header. */
int gq_csv_column(const gq_csv *r, const char *a, const char *b);
/* 1 if the record is a blank line. */
int gq_csv_blank(const gq_csv *r);

#endif
