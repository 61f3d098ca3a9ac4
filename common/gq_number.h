/* The one reader of a decimal number in a user's text (an option, a CSV
 * field, a spec's value), so that every input accepts and refuses the same
 * things: strtod's digits and exponent, nothing before or after, no
 * hexadecimal, no "nan" or "inf". A value too small for a normal double
 * (1e-310) is read as the denormal (or zero) it rounds to, not refused:
 * strtod's ERANGE on underflow is not an error of the input, and the range
 * the caller checks next decides. A value too large for a double is. Counts
 * have their own reader beside it. */
#ifndef GQ_NUMBER_H
#define GQ_NUMBER_H

#include <stdint.h>

/* @return 0 with *v set; -1 if s is not a finite decimal number. */
int gq_parse_real(const char *s, double *v);

/* gq_parse_real, then lo <= x <= hi (lo < x with lo_open). @return 0, or -1. */
int gq_parse_real_in(const char *s, double lo, int lo_open, double hi, double *v);

/* A count: decimal digits only (no sign, no blank), within 64 bits, in lo..hi. @return 0 with *v set, or -1. */
int gq_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);

#endif
